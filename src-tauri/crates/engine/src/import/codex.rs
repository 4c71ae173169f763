//! Codex CLI rollouts (`rollout-*.jsonl`): `response_item`s are the model-visible history,
//! `token_usage_record`s the ledger, `compacted` records the compactions.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use super::sink::{title_of, Record, Sink, Snapshot, Usage};
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
}

const CONTEXT_PREFIXES: [&str; 4] = ["<environment_context>", "<user_instructions>", "<permissions", "<skills"];

impl Codex {
    pub fn line(&mut self, sink: &mut Sink<'_, '_>, record: &Value) -> Result<Skip> {
        let at = str_at(record, "/timestamp").unwrap_or_default().to_string();
        let payload = record.get("payload").unwrap_or(&Value::Null);
        let kind = record.get("type").and_then(Value::as_str).unwrap_or_default();
        match kind {
            "session_meta" => {
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
            "event_msg" => self.event(payload),
            "response_item" => return self.item(sink, payload, record.get("metadata"), &at),
            "token_usage_record" => self.usage(sink, payload, &at)?,
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
        let item_type = str_at(item, "/type").unwrap_or_default();
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
                if role == "user" && !CONTEXT_PREFIXES.iter().any(|p| text.starts_with(p)) {
                    self.bare_task = false;
                    if !self.titled {
                        sink.set_title(&title_of(&text))?;
                        self.titled = true;
                    }
                }
                let record = Record::new(mapped, text, at)
                    .id(id)
                    .meta("role", source_role.map(Value::from).unwrap_or(Value::Null))
                    .meta("content", parts);
                sink.push(record)?
            }
            "function_call" | "custom_tool_call" => {
                self.begin_response(sink);
                let Some(call_id) = str_at(item, "/call_id") else {
                    return Ok(Skip::Yes(format!("a {item_type} without call_id")));
                };
                let arguments = match item.get("arguments").or_else(|| item.get("input")) {
                    Some(Value::String(s)) => s.clone(),
                    Some(other) => other.to_string(),
                    None => String::new(),
                };
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
            "function_call_output" | "custom_tool_call_output" => {
                let Some(call_id) = str_at(item, "/call_id") else {
                    return Ok(Skip::Yes(format!("a {item_type} without call_id")));
                };
                let (output, rest) = match item.get("output") {
                    Some(Value::String(s)) => (s.clone(), Value::Null),
                    Some(Value::Object(o)) => {
                        let text = o.get("content").and_then(Value::as_str).map(str::to_string);
                        (text.unwrap_or_else(|| Value::Object(o.clone()).to_string()), Value::Object(o.clone()))
                    }
                    Some(other) => (other.to_string(), Value::Null),
                    None => (String::new(), Value::Null),
                };
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
                let summary = item
                    .get("summary")
                    .and_then(Value::as_array)
                    .map(|parts| parts.iter().filter_map(|p| p["text"].as_str()).collect::<Vec<_>>().join("\n"))
                    .unwrap_or_default();
                let mut record = Record::new(Role::Assistant, summary, at).id(id).meta("type", json!(item_type));
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

    fn usage(&mut self, sink: &mut Sink<'_, '_>, payload: &Value, at: &str) -> Result<()> {
        let usage = &payload["usage"];
        let input = usage["input_tokens"].as_u64();
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
                prompt_tokens: input,
                cached_tokens: usage["cached_input_tokens"].as_u64(),
                completion_tokens: usage["output_tokens"].as_u64(),
                response_seq: if summary.is_some() { None } else { self.response_seq.take() },
                response,
                started_at: at.to_string(),
                ..Usage::new(Purpose::Turn, WireApi::Responses)
            },
        )?;
        if let Some(response_id) = str_at(payload, "/response_id") {
            self.calls.clear();
            self.calls.insert(response_id.to_string(), id);
        }
        Ok(())
    }

    fn compacted(&mut self, sink: &mut Sink<'_, '_>, payload: &Value, at: &str) -> Result<Skip> {
        let Some(history) = payload.get("replacement_history").and_then(Value::as_array) else {
            return Ok(Skip::Yes("a compacted record without replacement_history".into()));
        };
        let message = str_at(payload, "/message").unwrap_or_default().to_string();
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
