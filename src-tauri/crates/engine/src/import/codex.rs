//! Codex CLI rollouts, every version: `response_item`s are the model-visible history (bare items
//! after an `{id, timestamp}` first line before 0.39, wrapped in `{timestamp, type, payload}`
//! since), the ledger from `token_usage_record`s (0.171 on) or else from `event_msg`
//! `token_count` events (0.39 on; repeats of the running total are no call), `compacted` records
//! the compactions (a summary `message`, and from 0.146 the `replacement_history`). The first
//! releases wrote one JSON document per save (`rollout-*.json`: `{session, items}`).

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use super::sink::{title_of, Record, Sink, Snapshot, TitleFrom, Usage};
use super::{str_at, Skip};
use crate::error::Result;
use crate::events::CompactionReason;
use crate::store::{Purpose, WireApi};
use crate::transcript::{Role, ToolCall};

/// What the importer remembers between records of one rollout.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Codex {
    model: String,
    titled: bool,
    /// Inside a turn started without `turn_attribution` and with no user message yet: a manual
    /// compaction's own turn.
    bare_task: bool,
    in_task: bool,
    /// `CommandExecution` details by call id, waiting for the call's output.
    exec: HashMap<String, Value>,
    /// The request the current response answers (taken when its first output item arrived).
    request: Option<Snapshot>,
    response_seq: Option<i64>,
    /// The summarizer's answer (not a reply in the transcript) and the request it answered.
    summary_answer: Option<String>,
    /// Ledger rows by `response_id`, so a compaction links its summarizer call.
    calls: HashMap<String, i64>,
    /// The rollout records its calls in `token_usage_record`s (0.171 on): `token_count` events,
    /// which it writes too, are then not calls.
    #[serde(default)]
    usage_records: bool,
    /// The running total of the last `token_count` event: an event repeating it is no new call.
    #[serde(default)]
    last_total: Option<Value>,
    /// The rollout writes a `user_message` event for each prompt typed (0.2x on): a user item
    /// without one is context Codex added (a warning, a notice), not a prompt.
    #[serde(default)]
    prompt_events: bool,
    /// The last user item not yet confirmed by a `user_message` event (seq and text).
    #[serde(default)]
    unconfirmed: Option<(i64, String)>,
    /// The rollout being read (its Codex home holds the threads' names).
    #[serde(skip)]
    pub path: std::path::PathBuf,
}

const CONTEXT_PREFIXES: [&str; 4] = ["<environment_context>", "<user_instructions>", "<permissions", "<skills"];

/// Response item types, as the rollouts before 0.39 write them bare (without a wrapper).
const ITEM_TYPES: [&str; 8] = [
    "message",
    "function_call",
    "function_call_output",
    "custom_tool_call",
    "custom_tool_call_output",
    "local_shell_call",
    "reasoning",
    "web_search_call",
];

/// Whether a record is a rollout's, by structure: the first line of a rollout from 0.39 on
/// (`session_meta` with a payload), or from before (`{id, timestamp}` with no type).
pub fn is_first_line(record: &Value) -> bool {
    let kind = record.get("type").and_then(Value::as_str);
    (kind == Some("session_meta") && record.get("payload").is_some())
        || (kind.is_none()
            && record.get("id").and_then(Value::as_str).is_some()
            && record.get("timestamp").and_then(Value::as_str).is_some()
            && record.get("message").is_none()
            && record.get("payload").is_none())
}

/// Whether a record is in a rollout's envelope (0.39 on: `{timestamp, type, payload}` with one of
/// the rollout's record types), wherever it is in the file (copies may lack the first line).
pub fn is_envelope(record: &Value) -> bool {
    const KINDS: [&str; 6] =
        ["session_meta", "turn_context", "event_msg", "response_item", "compacted", "token_usage_record"];
    record.get("payload").is_some_and(Value::is_object)
        && record.get("timestamp").is_some()
        && record.get("type").and_then(Value::as_str).is_some_and(|t| KINDS.contains(&t))
}

/// Whether a record is a bare response item (the rollouts before 0.39).
pub fn is_bare_item(record: &Value) -> bool {
    record.get("payload").is_none()
        && (record.get("record_type").is_some()
            || record.get("type").and_then(Value::as_str).is_some_and(|t| ITEM_TYPES.contains(&t)))
}

/// The first releases' rollout document (`{"session": {...}, "items": [...]}`), by its head.
pub fn is_document(head: &[u8]) -> bool {
    let text = String::from_utf8_lossy(head);
    let text = text.trim_start();
    text.starts_with('{') && text[1..].trim_start().starts_with("\"session\"") && text.contains("\"items\"")
}

impl Codex {
    pub fn line(&mut self, sink: &mut Sink<'_, '_>, record: &Value) -> Result<Skip> {
        let at = str_at(record, "/timestamp").unwrap_or_default().to_string();
        // Before 0.39: the first line is the session (`{id, timestamp, instructions}`), then bare
        // items and `{"record_type": "state"}` markers.
        if record.get("payload").is_none() {
            if record.get("record_type").is_some() {
                return Ok(Skip::No);
            }
            if is_bare_item(record) {
                return self.item(sink, record, record.get("metadata"), &at);
            }
            if is_first_line(record) {
                if let Some(name) = str_at(record, "/id").and_then(|id| thread_name(&self.path, id)) {
                    sink.offer_title(&title_of(&name), TitleFrom::Custom)?;
                }
                if let Some(text) = str_at(record, "/instructions").filter(|t| !t.is_empty()) {
                    sink.set_system_prompt(text)?;
                }
                sink.touch(&at)?;
                return Ok(Skip::No);
            }
        }
        let payload = record.get("payload").unwrap_or(&Value::Null);
        let kind = record.get("type").and_then(Value::as_str).unwrap_or_default();
        match kind {
            "session_meta" => {
                if let Some(name) = str_at(payload, "/id").and_then(|id| thread_name(&self.path, id)) {
                    sink.offer_title(&title_of(&name), TitleFrom::Custom)?;
                }
                if let Some(text) = str_at(payload, "/base_instructions/text") {
                    sink.set_system_prompt(text)?;
                }
                if let Some(model) = str_at(payload, "/model") {
                    self.model = model.to_string();
                }
            }
            "turn_context" => {
                if let Some(model) = str_at(payload, "/model") {
                    self.model = model.to_string();
                }
            }
            "event_msg" if str_at(payload, "/type") == Some("token_count") => self.token_count(sink, payload, &at)?,
            "event_msg" if str_at(payload, "/type") == Some("user_message") => self.user_message(sink, payload, &at)?,
            "event_msg" => self.event(payload),
            "response_item" => return self.item(sink, payload, record.get("metadata"), &at),
            "token_usage_record" => {
                self.usage_records = true;
                let response_id = str_at(payload, "/response_id").map(str::to_string);
                self.call(sink, &payload["usage"], response_id, &at)?;
            }
            "compacted" => return self.compacted(sink, payload, &at),
            _ => {}
        }
        sink.touch(&at)?;
        Ok(Skip::No)
    }

    fn event(&mut self, payload: &Value) {
        match str_at(payload, "/type") {
            Some("task_started") => {
                self.in_task = true;
                self.bare_task = payload.get("turn_attribution").is_none_or(Value::is_null);
            }
            Some("task_complete") => {
                self.in_task = false;
                self.bare_task = false;
            }
            Some("item_completed") if str_at(payload, "/item/type") == Some("CommandExecution") => {
                let item = &payload["item"];
                if let Some(id) = str_at(item, "/id") {
                    let mut exec = Map::new();
                    for (from, to) in [("exit_code", "exitCode"), ("command", "command"), ("status", "status")] {
                        if let Some(v) = item.get(from).filter(|v| !v.is_null()) {
                            exec.insert(to.into(), v.clone());
                        }
                    }
                    if let Some(d) = item.get("duration") {
                        let ms = d["secs"].as_u64().unwrap_or(0) * 1000 + d["nanos"].as_u64().unwrap_or(0) / 1_000_000;
                        exec.insert("durationMs".into(), json!(ms));
                    }
                    self.exec.insert(id.to_string(), Value::Object(exec));
                }
            }
            _ => {}
        }
    }

    /// Starts a response (takes the request snapshot) when its first output item arrives.
    fn begin_response(&mut self, sink: &Sink<'_, '_>) {
        if self.request.is_none() {
            self.request = Some(sink.state.snapshot());
            self.response_seq = None;
        }
    }

    fn item(&mut self, sink: &mut Sink<'_, '_>, item: &Value, metadata: Option<&Value>, at: &str) -> Result<Skip> {
        let id = str_at(item, "/id");
        // An item without a type but with a role is a message (other tools' copies write them so).
        let item_type = match str_at(item, "/type") {
            Some(kind) => kind,
            None if item.get("role").is_some() => "message",
            None => return Ok(Skip::Yes("a response item without type or role".into())),
        };
        self.settle(sink)?;
        let seq = match item_type {
            "message" => {
                let Some(role) = str_at(item, "/role") else {
                    return Ok(Skip::Yes("a message without a role".into()));
                };
                let (text, parts) = content_text(item.get("content"));
                if role == "assistant" {
                    self.begin_response(sink);
                    let summarizer = metadata.and_then(|m| m.get("compaction_output")).and_then(Value::as_bool);
                    if summarizer == Some(true) {
                        self.summary_answer = Some(text);
                        return Ok(Skip::No);
                    }
                } else {
                    self.request = None;
                }
                let (mapped, source_role) = match role {
                    "assistant" => (Role::Assistant, None),
                    "user" => (Role::User, None),
                    "system" => (Role::System, None),
                    other => (Role::System, Some(other.to_string())),
                };
                let context = CONTEXT_PREFIXES.iter().any(|p| text.starts_with(p))
                    || crate::calls::composition::is_injected(&text);
                if role == "user" && !context {
                    self.bare_task = false;
                    if !self.titled {
                        sink.offer_title(&title_of(&text), TitleFrom::Prompt)?;
                        self.titled = true;
                    }
                }
                let record = Record::new(mapped, text.clone(), at)
                    .id(id)
                    .meta("role", source_role.map(Value::from).unwrap_or(Value::Null))
                    .meta("content", parts);
                let seq = sink.push(record)?;
                if role == "user" && !context {
                    self.unconfirmed = Some((seq, text));
                }
                seq
            }
            // Any call item (`function_call`, `custom_tool_call`, `tool_search_call`, …) and any
            // output answering one by its `call_id`.
            kind if kind.ends_with("_call")
                && (item.get("call_id").is_some() || matches!(kind, "function_call" | "custom_tool_call")) =>
            {
                self.begin_response(sink);
                // A call without `call_id` (other tools' copies) is named by its item id.
                let Some(call_id) = str_at(item, "/call_id").or(id) else {
                    return Ok(Skip::Yes(format!("a {item_type} without call_id or id")));
                };
                let arguments = arguments_of(item);
                let mut record = Record::new(Role::Assistant, "", at).id(id);
                record.tool_calls.push(ToolCall {
                    id: call_id.to_string(),
                    name: str_at(item, "/name").unwrap_or_default().to_string(),
                    arguments,
                });
                if item_type == "custom_tool_call" {
                    record = record.meta("type", json!(item_type));
                }
                sink.push(record)?
            }
            kind if kind.ends_with("_call_output") || (kind.ends_with("_output") && item.get("call_id").is_some()) => {
                let Some(call_id) = str_at(item, "/call_id") else {
                    return Ok(Skip::Yes(format!("a {item_type} without call_id")));
                };
                let (output, rest) = output_of(item);
                let mut record = Record::new(Role::Tool, output, at)
                    .id(id)
                    .meta("exec", self.exec.remove(call_id).unwrap_or(Value::Null))
                    .meta("output", rest);
                record.tool_call_id = Some(call_id.to_string());
                sink.push(record)?
            }
            _ => {
                // Reasoning, web searches and other items the model sees: sent back as they are.
                self.begin_response(sink);
                let mut record =
                    Record::new(Role::Assistant, summary_of(item), at).id(id).meta("type", json!(item_type));
                record.provider_items = Some(json!([item]));
                sink.push(record)?
            }
        };
        if self.request.is_some() && self.response_seq.is_none() {
            self.response_seq = Some(seq);
        }
        sink.touch(at)?;
        Ok(Skip::No)
    }

    /// A `user_message` event: the prompt the user typed. It confirms the user item just written
    /// with its text; with no such item (a trimmed copy of a rollout) it is the prompt itself.
    fn user_message(&mut self, sink: &mut Sink<'_, '_>, payload: &Value, at: &str) -> Result<()> {
        self.prompt_events = true;
        let text = str_at(payload, "/message").unwrap_or_default();
        match self.unconfirmed.take() {
            Some((_, pending)) if pending.trim() == text.trim() => {}
            other => {
                self.unconfirmed = other;
                self.settle(sink)?;
                if !text.trim().is_empty() {
                    if !self.titled {
                        sink.offer_title(&title_of(text), TitleFrom::Prompt)?;
                        self.titled = true;
                    }
                    sink.push(Record::new(Role::User, text, at).meta("from", json!("user_message")))?;
                }
            }
        }
        Ok(())
    }

    /// Marks the last user item as context Codex added when the rollout confirms prompts with
    /// events and none confirmed it.
    fn settle(&mut self, sink: &mut Sink<'_, '_>) -> Result<()> {
        if let Some((seq, _)) = self.unconfirmed.take() {
            if self.prompt_events {
                sink.mark(seq, "isMeta", json!(true))?;
            }
        }
        Ok(())
    }

    /// A `token_count` event: a call's usage (before 0.171's `token_usage_record`s). Codex writes
    /// one per response and more: with no figures yet (`info: null`), repeating the running total
    /// (at a turn's start, around a compaction), or zeroed after a compaction; those are no call.
    fn token_count(&mut self, sink: &mut Sink<'_, '_>, payload: &Value, at: &str) -> Result<()> {
        let Some(info) = payload.get("info").filter(|i| i.is_object()) else { return Ok(()) };
        if self.usage_records {
            return Ok(());
        }
        let total = info.get("total_token_usage").cloned();
        if total.is_some() && total == self.last_total {
            return Ok(());
        }
        let usage = match info.get("last_token_usage").filter(|u| u.is_object()) {
            Some(last) => last.clone(),
            // Only running totals: this call is the difference from the previous one.
            None => match (&total, &self.last_total) {
                (Some(now), Some(before)) => difference(now, before),
                (Some(now), None) => now.clone(),
                _ => return Ok(()),
            },
        };
        self.last_total = total;
        let n = |key: &str| usage.get(key).and_then(Value::as_u64).unwrap_or(0);
        if n("input_tokens") == 0 && n("output_tokens") == 0 {
            return Ok(());
        }
        self.call(sink, &usage, None, at)
    }

    /// A ledger row for the response that `usage` (OpenAI Responses figures) was reported for.
    fn call(&mut self, sink: &mut Sink<'_, '_>, usage: &Value, response_id: Option<String>, at: &str) -> Result<()> {
        let summary = self.summary_answer.take();
        let request = self.request.take().unwrap_or_else(|| sink.state.snapshot());
        let purpose = if summary.is_some() { Purpose::Compaction } else { Purpose::Turn };
        let response = summary.as_ref().map(|text| json!({"text": text}));
        let id = sink.model_call(
            &request,
            Usage {
                purpose,
                api: WireApi::Responses,
                model: self.model.clone(),
                prompt_tokens: usage["input_tokens"].as_u64(),
                cached_tokens: usage["cached_input_tokens"].as_u64(),
                cache_write_tokens: usage["cache_write_input_tokens"].as_u64(),
                completion_tokens: usage["output_tokens"].as_u64(),
                response_seq: if summary.is_some() { None } else { self.response_seq.take() },
                response,
                started_at: at.to_string(),
                ..Usage::new(Purpose::Turn, WireApi::Responses)
            },
        )?;
        if let Some(response_id) = response_id {
            self.calls.clear();
            self.calls.insert(response_id, id);
        }
        Ok(())
    }

    fn compacted(&mut self, sink: &mut Sink<'_, '_>, payload: &Value, at: &str) -> Result<Skip> {
        // Before 0.146 a compaction records only its summary (`message`): the history after it is
        // the summary; from 0.146 the whole `replacement_history`.
        let empty = Vec::new();
        let history = payload.get("replacement_history").and_then(Value::as_array).unwrap_or(&empty);
        let message = str_at(payload, "/message").unwrap_or_default().to_string();
        if history.is_empty() && message.is_empty() {
            return Ok(Skip::Yes("a compacted record with neither message nor replacement_history".into()));
        }
        let reason = match (self.in_task, self.bare_task) {
            (true, true) => CompactionReason::Manual,
            (true, false) => CompactionReason::Auto,
            _ => CompactionReason::Unknown,
        };
        let call = str_at(payload, "/compaction_response_id").and_then(|r| self.calls.get(r).copied());
        let mut fields = Map::new();
        for key in ["window_number", "window_id", "previous_window_id", "compaction_response_id"] {
            if let Some(v) = payload.get(key).filter(|v| !v.is_null()) {
                fields.insert(key.to_string(), v.clone());
            }
        }
        let id = sink.compaction(reason, &[], call, fields, None, at)?;
        let last = history.len().saturating_sub(1);
        for (index, item) in history.iter().enumerate() {
            let (text, parts) = content_text(item.get("content"));
            let role = str_at(item, "/role").unwrap_or("user");
            let mapped = Role::parse(role).unwrap_or(Role::System);
            let record = Record::new(mapped, text.clone(), at)
                .id(str_at(item, "/id"))
                .meta("role", if mapped.as_str() == role { Value::Null } else { json!(role) })
                .meta("content", parts);
            let is_summary = index == last && (text == message || message.is_empty());
            if is_summary {
                sink.checkpoint(id, record, false)?;
            } else if str_at(item, "/type") == Some("message") {
                sink.restated(id, record)?;
            } else {
                let mut record = record.meta("type", item.get("type").cloned().unwrap_or(Value::Null));
                record.provider_items = Some(json!([item]));
                sink.restated(id, record)?;
            }
        }
        if !history.iter().any(|i| content_text(i.get("content")).0 == message) && !message.is_empty() {
            sink.checkpoint(id, Record::new(Role::User, message, at), false)?;
        }
        self.request = None;
        sink.touch(at)?;
        Ok(Skip::No)
    }
}

/// The name a thread was given (`$CODEX_HOME/session_index.jsonl`: `{id, thread_name}` lines, the
/// latest of an id wins), for the rollout at `path` (`$CODEX_HOME/sessions/…`). The index is read
/// once per change, however many rollouts ask.
fn thread_name(path: &std::path::Path, id: &str) -> Option<String> {
    use std::collections::HashMap;
    use std::sync::{Arc, Mutex, OnceLock};
    type Names = Arc<HashMap<String, String>>;
    static CACHE: OnceLock<Mutex<HashMap<std::path::PathBuf, (std::time::SystemTime, Names)>>> = OnceLock::new();
    let home = path.ancestors().find(|a| a.file_name().is_some_and(|n| n == "sessions"))?.parent()?;
    let index = home.join("session_index.jsonl");
    let modified = index.metadata().and_then(|m| m.modified()).ok()?;
    let cache = CACHE.get_or_init(Default::default);
    let mut cache = cache.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let names = match cache.get(&index) {
        Some((at, names)) if *at == modified => names.clone(),
        _ => {
            let text = std::fs::read_to_string(&index).ok()?;
            let mut names = HashMap::new();
            for line in text.lines() {
                let Ok(entry) = serde_json::from_str::<Value>(line) else { continue };
                if let (Some(id), Some(name)) = (str_at(&entry, "/id"), str_at(&entry, "/thread_name")) {
                    if !name.trim().is_empty() {
                        names.insert(id.to_string(), name.to_string());
                    }
                }
            }
            let names = Arc::new(names);
            cache.insert(index, (modified, names.clone()));
            names
        }
    };
    names.get(id).cloned()
}

/// `now − before`, key by key, for two running totals of token counts.
fn difference(now: &Value, before: &Value) -> Value {
    let mut out = serde_json::Map::new();
    for (key, value) in now.as_object().into_iter().flatten() {
        if let Some(n) = value.as_u64() {
            out.insert(key.clone(), json!(n.saturating_sub(before.get(key).and_then(Value::as_u64).unwrap_or(0))));
        }
    }
    Value::Object(out)
}

/// The text of a Responses `content` array (its text parts joined by blank lines), and the array
/// itself when it holds more than one part or a part that is not text (kept for the reviewer).
fn content_text(content: Option<&Value>) -> (String, Value) {
    match content {
        Some(Value::String(s)) => (s.clone(), Value::Null),
        Some(Value::Array(parts)) => {
            let texts: Vec<&str> = parts.iter().filter_map(|p| p.get("text").and_then(Value::as_str)).collect();
            let keep = parts.len() > 1 || texts.len() != parts.len();
            (texts.join("\n\n"), if keep { Value::Array(parts.clone()) } else { Value::Null })
        }
        _ => (String::new(), Value::Null),
    }
}

/// A call item's arguments as the model wrote them (`arguments`, or a custom tool's `input`).
fn arguments_of(item: &Value) -> String {
    match item.get("arguments").or_else(|| item.get("input")) {
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
        None => String::new(),
    }
}

/// An output item's text, and the rest of a structured output (kept as a record field).
fn output_of(item: &Value) -> (String, Value) {
    match item.get("output") {
        Some(Value::String(s)) => (s.clone(), Value::Null),
        Some(Value::Object(o)) => {
            let text = o.get("content").and_then(Value::as_str).map(str::to_string);
            (text.unwrap_or_else(|| Value::Object(o.clone()).to_string()), Value::Object(o.clone()))
        }
        Some(other) => (other.to_string(), Value::Null),
        None => (String::new(), Value::Null),
    }
}

/// A reasoning item's readable summary.
fn summary_of(item: &Value) -> String {
    let parts = item.get("summary").and_then(Value::as_array);
    parts
        .map(|parts| parts.iter().filter_map(|p| p["text"].as_str()).collect::<Vec<_>>().join("\n"))
        .unwrap_or_default()
}
