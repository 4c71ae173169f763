//! The task folders of the VS Code extensions Cline and Roo Code (and of the CLIs built on them:
//! Cline CLI 1.x/2.x, Roo's CLI): `tasks/<id>/api_conversation_history.json`, the conversation in
//! the provider's Anthropic shape as the model got it, beside `ui_messages.json` (what the chat
//! showed, each request's tokens and cost) and the agent's own files (docs/formats/cline.md,
//! docs/formats/roo.md). Each file is rewritten whole; the history is never shortened:
//! - Cline hides a range of it (`conversationHistoryDeletedRange`, kept on the ui messages and in
//!   `state/taskHistory.json`) and rewrites the first two messages when it sends them
//!   (`context_history.json`); each new range is a compaction here, the rewritten first two
//!   messages restated ahead of what it kept;
//! - Roo Code tags what a condense or a truncation hides (`condenseParent`, `truncationParent`)
//!   and adds the summary (`isSummary`) or a marker (`isTruncationMarker`, sent right after the
//!   first prompt).

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::Path;

use serde_json::{json, Map, Value};

use super::sink::{title_of, Record, Sink, Usage};
use super::str_at;
use crate::error::Result;
use crate::events::CompactionReason;
use crate::store::compactions::{Trigger, TriggerKind};
use crate::store::{Purpose, SourceKind, WireApi};
use crate::transcript::{Role, ToolCall};

/// The file that makes a folder a task.
pub const HISTORY: &str = "api_conversation_history.json";

/// What Cline sends in place of a result it stored as text (its request has one per such call).
const RESULT_MISSING: &str = "result missing";

/// Whether `path` is a task's conversation history (detected by its name: the document is a
/// plain JSON array of messages).
pub fn is_history(path: &Path) -> bool {
    path.file_name().is_some_and(|n| n == HISTORY)
}

/// One task folder, read whole.
pub struct Task {
    pub history: Vec<Value>,
    pub ui: Vec<Value>,
    /// Roo Code's `history_item.json`, or Cline's entry of `state/taskHistory.json`.
    pub item: Value,
    /// Cline's `context_history.json`.
    pub context: Value,
}

impl Task {
    /// Which agent wrote the task: Roo Code's files carry its own fields (`history_item.json`,
    /// condense and truncation tags), or its storage folder names it; anything else is Cline's.
    pub fn agent(&self, dir: &Path) -> SourceKind {
        let roo_fields = ["isSummary", "condenseParent", "truncationParent", "isTruncationMarker"];
        let tagged = self.history.iter().any(|m| roo_fields.iter().any(|f| m.get(*f).is_some()));
        let path = dir.display().to_string();
        if dir.join("history_item.json").is_file()
            || tagged
            || path.contains("roo-cline")
            || path.contains(".vscode-mock")
        {
            SourceKind::RooCode
        } else {
            SourceKind::Cline
        }
    }

    /// The first prompt as typed (Cline wraps it in `<task>`, Roo Code in `<user_message>`).
    pub fn title(&self) -> String {
        let typed = str_at(&self.item, "/task").map(str::to_string).unwrap_or_else(|| {
            let first = self.history.first().map(|m| texts(m).join("\n\n")).unwrap_or_default();
            let inner = |tag: &str| {
                let open = format!("<{tag}>");
                let start = first.find(&open)? + open.len();
                let end = first[start..].find(&format!("</{tag}>"))? + start;
                Some(first[start..end].trim().to_string())
            };
            inner("task").or_else(|| inner("user_message")).unwrap_or(first.clone())
        });
        title_of(&typed)
    }

    /// The folder the agent worked in: recorded with the task, else named in the first
    /// environment details.
    pub fn workspace(&self) -> String {
        if let Some(dir) = str_at(&self.item, "/workspace").or_else(|| str_at(&self.item, "/cwdOnTaskInitialization")) {
            return dir.to_string();
        }
        let first = self.history.first().map(|m| texts(m).join("\n")).unwrap_or_default();
        for heading in ["# Current Workspace Directory (", "# Current Working Directory ("] {
            if let Some(start) = first.find(heading).map(|i| i + heading.len()) {
                if let Some(end) = first[start..].find(')') {
                    return first[start..start + end].to_string();
                }
            }
        }
        String::new()
    }

    /// When the task began: its first ui message, else its first message.
    pub fn created_at(&self) -> String {
        let ts = self.ui.first().or(self.history.first()).and_then(|m| m.get("ts")).and_then(Value::as_i64);
        ts.map(super::opencode::iso).unwrap_or_default()
    }
}

/// The text blocks of a message (a string content is one block).
fn texts(message: &Value) -> Vec<String> {
    match message.get("content") {
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Array(blocks)) => blocks
            .iter()
            .filter_map(|b| match str_at(b, "/type") {
                Some("text") => Some(str_at(b, "/text").unwrap_or_default().to_string()),
                Some("image") => Some("[image]".to_string()),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    }
}

fn at_of(message: &Value) -> String {
    message.get("ts").and_then(Value::as_i64).map(super::opencode::iso).unwrap_or_default()
}

/// A request's figures as the chat recorded them (`say: api_req_started`).
#[derive(Debug, Clone, Default)]
struct Request {
    ts: i64,
    info: Value,
}

/// The task through `sink`, as `agent` stored it.
pub fn replay(sink: &mut Sink<'_, '_>, task: &Task, agent: SourceKind) -> Result<()> {
    let mut requests: Vec<Request> = task
        .ui
        .iter()
        .filter(|u| str_at(u, "/say") == Some("api_req_started"))
        .filter_map(|u| {
            let info: Value = serde_json::from_str(str_at(u, "/text")?).ok()?;
            let failed = info.get("cancelReason").is_some_and(|c| !c.is_null());
            (!failed).then(|| Request { ts: u.get("ts").and_then(Value::as_i64).unwrap_or(0), info })
        })
        .collect();
    requests.reverse(); // taken from the end as the answers come
                        // Each request's context as Cline measures it (input, output, cache writes and reads), by time.
    let contexts = task
        .ui
        .iter()
        .filter(|u| str_at(u, "/say") == Some("api_req_started"))
        .filter_map(|u| {
            let info: Value = serde_json::from_str(str_at(u, "/text")?).ok()?;
            info.get("tokensIn")?;
            let n = |key: &str| info.get(key).and_then(Value::as_u64).unwrap_or(0);
            let context = n("tokensIn") + n("tokensOut") + n("cacheWrites") + n("cacheReads");
            Some((u.get("ts").and_then(Value::as_i64).unwrap_or(0), context))
        })
        .collect();
    let mut replay = Replay { task, requests, contexts, index_of: HashMap::new(), model: String::new() };
    match agent {
        SourceKind::RooCode => replay.roo(sink)?,
        _ => replay.cline(sink)?,
    }
    // The chat goes on past the conversation (a completion shown, a question asked): its newest
    // record is the task's last activity.
    if let Some(ts) = task.ui.iter().filter_map(|u| u.get("ts").and_then(Value::as_i64)).max() {
        sink.touch(&super::opencode::iso(ts))?;
    }
    Ok(())
}

/// The wrappers Cline and Roo Code put around what the user typed: a task, feedback on a result,
/// a message, an answer to the agent's question, a slash command's instructions. A user message
/// without one is the agent's own (a tool's result as text, environment details).
const TYPED: [&str; 4] = ["<task>", "<feedback>", "<user_message>", "<explicit_instructions"];

/// Whether a block's text is what the user typed: it opens with one of the wrappers, or it is the
/// result of the agent's question (`[ask_followup_question …] Result: <answer>…`).
fn typed(text: &str) -> bool {
    let text = text.trim_start();
    // A slash command's instructions (`/smol`: `type="condense"`), not the automatic condense's.
    let automatic = text.starts_with("<explicit_instructions type=\"summarize_task\"");
    (TYPED.iter().any(|tag| text.starts_with(tag)) && !automatic)
        || (text.starts_with('[')
            && text.split_once("] Result:").is_some_and(|(_, rest)| rest.trim_start().starts_with("<answer>")))
}

/// Whether any text block of a tool result's content is typed (Roo Code returns the user's reply
/// to a completion as the result: `[{"type": "text", "text": "<user_message>…"}]`).
fn typed_result(content: Option<&Value>) -> bool {
    match content {
        Some(Value::String(s)) => typed(s),
        Some(Value::Array(parts)) => parts.iter().filter_map(|p| str_at(p, "/text")).any(typed),
        _ => false,
    }
}

struct Replay<'t> {
    task: &'t Task,
    /// The chat's request records not matched to an answer yet, the oldest last.
    requests: Vec<Request>,
    /// Each request's time and context size, in the chat's order.
    contexts: Vec<(i64, u64)>,
    /// The history message each stored seq came from, by seq.
    index_of: HashMap<i64, usize>,
    /// The model of the newest answer (Roo Code names it in its environment details).
    model: String,
}

impl Replay<'_> {
    /// The records of history message `index`; answers with their ledger row.
    fn push(&mut self, sink: &mut Sink<'_, '_>, index: usize) -> Result<Vec<i64>> {
        let task = self.task;
        let message = &task.history[index];
        let at = at_of(message);
        let blocks: Vec<Value> = match message.get("content") {
            Some(Value::Array(blocks)) => blocks.clone(),
            Some(Value::String(s)) => vec![json!({"type": "text", "text": s})],
            _ => Vec::new(),
        };
        let mut seqs = Vec::new();
        if str_at(message, "/role") == Some("assistant") {
            let request = sink.state.snapshot();
            let (mut text, mut reasoning, mut calls) = (Vec::new(), Vec::new(), Vec::new());
            for block in &blocks {
                match str_at(block, "/type") {
                    Some("text") => text.push(str_at(block, "/text").unwrap_or_default().to_string()),
                    Some("thinking") => reasoning.push(str_at(block, "/thinking").unwrap_or_default().to_string()),
                    Some("reasoning") => reasoning.push(str_at(block, "/text").unwrap_or_default().to_string()),
                    Some("tool_use") => calls.push(super::tool_call(block, "input")),
                    _ => {}
                }
            }
            let mut answer = Record::new(Role::Assistant, text.join("\n\n"), &at);
            if !reasoning.is_empty() {
                answer = answer.meta("reasoning", json!(reasoning.join("\n\n")));
            }
            answer.tool_calls = calls.clone();
            let seq = sink.push(answer)?;
            seqs.push(seq);
            seqs.extend(self.missing_results(sink, index, &calls, None)?);
            let usage = self.usage(message, &at, seq);
            sink.model_call(&request, usage)?;
        } else {
            let mut text = Vec::new();
            for block in &blocks {
                match str_at(block, "/type") {
                    Some("tool_result") => {
                        let content = match block.get("content") {
                            Some(Value::String(s)) => s.clone(),
                            Some(Value::Array(parts)) => {
                                parts.iter().filter_map(|p| str_at(p, "/text")).collect::<Vec<_>>().join("\n\n")
                            }
                            _ => String::new(),
                        };
                        // A reply the user typed can come back as a tool's result (to a question,
                        // to a completion): the result is then also a prompt.
                        let prompt = if typed_result(block.get("content")) { json!(true) } else { Value::Null };
                        let mut result = Record::new(Role::Tool, content, &at).meta("prompt", prompt);
                        result.tool_call_id = str_at(block, "/tool_use_id").map(str::to_string);
                        if block.get("is_error").and_then(Value::as_bool) == Some(true) {
                            result = result.meta("error", json!(true));
                        }
                        seqs.push(sink.push(result)?);
                    }
                    Some("text") => {
                        let t = str_at(block, "/text").unwrap_or_default();
                        self.note_model(t);
                        text.push(t.to_string());
                    }
                    Some("image") => text.push("[image]".into()),
                    _ => {}
                }
            }
            if !text.is_empty() {
                let meta = if text.iter().any(|t| typed(t)) { Value::Null } else { json!(true) };
                let text = text.join("\n\n");
                seqs.push(sink.push(Record::new(Role::User, text, &at).meta("isMeta", meta))?);
            }
        }
        sink.touch(&at)?;
        Ok(seqs)
    }

    /// Cline stores the result of a native call as text in the next message, and sends a
    /// placeholder tool message after the call instead: those placeholders, as sent.
    fn missing_results(
        &self,
        sink: &mut Sink<'_, '_>,
        index: usize,
        calls: &[ToolCall],
        restated: Option<(i64, i64)>,
    ) -> Result<Vec<i64>> {
        // The last message's calls are still running (or never answered): nothing was sent after
        // them, so no placeholder either.
        if index + 1 >= self.task.history.len() {
            return Ok(Vec::new());
        }
        let answered: HashSet<&str> = self
            .task
            .history
            .get(index + 1)
            .and_then(|m| m.get("content"))
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|b| str_at(b, "/tool_use_id"))
            .collect();
        let mut seqs = Vec::new();
        for call in calls.iter().filter(|c| !answered.contains(c.id.as_str())) {
            let at = at_of(&self.task.history[index]);
            let mut placeholder = Record::new(Role::Tool, RESULT_MISSING, &at).meta("synthetic", json!(true));
            placeholder.tool_call_id = Some(call.id.clone());
            seqs.push(match restated {
                Some((compaction, anchor)) => sink.restated_at(compaction, placeholder, anchor)?,
                None => sink.push(placeholder)?,
            });
        }
        Ok(seqs)
    }

    /// The ledger row of the answer `message` (stored as `seq`): Cline's own figures on the
    /// message, else the chat's request record it answered; the cost the agent computed kept.
    fn usage(&mut self, message: &Value, at: &str, seq: i64) -> Usage {
        let ts = message.get("ts").and_then(Value::as_i64).unwrap_or(i64::MAX);
        // The newest request record made before the answer (older unmatched ones were failures).
        let mut matched = None;
        while self.requests.last().is_some_and(|r| r.ts <= ts) {
            matched = self.requests.pop();
        }
        let info = matched.map(|r| r.info).unwrap_or(Value::Null);
        let n = |v: &Value, key: &str| v.get(key).and_then(Value::as_u64);
        let model = str_at(message, "/modelInfo/modelId").map(str::to_string).unwrap_or_else(|| self.model.clone());
        let mut usage = Usage {
            model,
            started_at: at.to_string(),
            response_seq: Some(seq),
            ..Usage::new(Purpose::Turn, WireApi::Chat)
        };
        match message.pointer("/metrics/tokens").filter(|t| t.is_object()) {
            Some(tokens) => {
                usage.prompt_tokens = n(tokens, "prompt");
                usage.completion_tokens = n(tokens, "completion");
                usage.cached_tokens = n(tokens, "cached");
            }
            None => {
                // The OpenAI protocol counts cached tokens in `tokensIn`; Anthropic's does not.
                let cached = n(&info, "cacheReads");
                let written = n(&info, "cacheWrites").filter(|w| *w > 0);
                let input = n(&info, "tokensIn");
                usage.prompt_tokens = match str_at(&info, "/apiProtocol") {
                    Some("anthropic") => input.map(|i| i + cached.unwrap_or(0) + written.unwrap_or(0)),
                    _ => input,
                };
                usage.cached_tokens = cached;
                usage.cache_write_tokens = written;
                usage.completion_tokens = n(&info, "tokensOut");
            }
        }
        if let Some(cost) = info.get("cost").and_then(Value::as_f64) {
            usage.response = Some(json!({"recordedCostUsd": cost}));
        }
        usage.recorded_cost_pd = info.get("cost").and_then(super::claude::picodollars);
        usage
    }

    /// Roo Code names the model in every environment details block (`<model>…</model>`).
    fn note_model(&mut self, text: &str) {
        if let Some(start) = text.rfind("<model>").map(|i| i + "<model>".len()) {
            if let Some(end) = text[start..].find("</model>") {
                self.model = text[start..start + end].trim().to_string();
            }
        }
    }

    fn record(&mut self, index: usize, seqs: Vec<i64>) {
        self.index_of.extend(seqs.into_iter().map(|seq| (seq, index)));
    }

    /// Cline: the history in order; each new hidden range (as the chat's messages first carry
    /// it) applied right after the message it was decided on.
    fn cline(&mut self, sink: &mut Sink<'_, '_>) -> Result<()> {
        let mut events: Vec<RangeEvent> = Vec::new();
        let mut last: Option<Value> = None;
        let mut asked = None;
        for ui in &self.task.ui {
            match (str_at(ui, "/ask"), str_at(ui, "/say")) {
                (Some("condense"), _) => asked = Some(CompactionReason::Manual),
                (_, Some("tool")) if str_at(ui, "/text").is_some_and(|t| t.contains("\"summarizeTask\"")) => {
                    asked = Some(CompactionReason::Auto)
                }
                _ => {}
            }
            let Some(range) = ui.get("conversationHistoryDeletedRange").filter(|r| r.is_array()) else { continue };
            if last.as_ref() == Some(range) {
                continue;
            }
            last = Some(range.clone());
            let index = ui.get("conversationHistoryIndex").and_then(Value::as_i64).unwrap_or(-1);
            events.push(RangeEvent {
                range: (range[0].as_u64().unwrap_or(0) as usize, range[1].as_u64().unwrap_or(0) as usize),
                after: index.max(0) as usize,
                ts: ui.get("ts").and_then(Value::as_i64).unwrap_or(i64::MAX),
                condense: asked.take(),
            });
        }
        if events.is_empty() {
            // No chat to time it by: the task's latest range, at the end.
            if let Some(range) = self.task.item.get("conversationHistoryDeletedRange").filter(|r| r.is_array()) {
                events.push(RangeEvent {
                    range: (range[0].as_u64().unwrap_or(0) as usize, range[1].as_u64().unwrap_or(0) as usize),
                    after: self.task.history.len().saturating_sub(1),
                    ts: i64::MAX,
                    condense: None,
                });
            }
        }
        let mut events = events.into_iter().peekable();
        let mut restated: Vec<i64> = Vec::new();
        for index in 0..self.task.history.len() {
            let seqs = self.push(sink, index)?;
            self.record(index, seqs);
            while let Some(event) = events.next_if(|e| e.after <= index) {
                restated = self.cline_range(sink, &event, &restated)?;
            }
        }
        for event in events {
            restated = self.cline_range(sink, &event, &restated)?;
        }
        Ok(())
    }

    /// Hides `event`'s range with the first two messages (and their last restatement), then
    /// restates those two as Cline sends them from then on.
    fn cline_range(&mut self, sink: &mut Sink<'_, '_>, event: &RangeEvent, restated: &[i64]) -> Result<Vec<i64>> {
        let (start, end) = event.range;
        // What is shown stays unless it is the range, the first two messages or their restatement
        // (one look per message shown, however long the range: a hostile one costs nothing).
        let hidden = |seq: &i64| {
            restated.contains(seq) || self.index_of.get(seq).is_some_and(|i| *i < 2 || (start..=end).contains(i))
        };
        let keep: Vec<i64> = sink.state.live.iter().map(|l| l.seq).filter(|s| !hidden(s)).collect();
        let previous = self.context_before(event.ts);
        let (reason, kind) = match event.condense {
            Some(CompactionReason::Manual) => (CompactionReason::Manual, TriggerKind::Manual),
            Some(_) => (CompactionReason::Auto, TriggerKind::Threshold),
            None => (CompactionReason::Budget, TriggerKind::Threshold),
        };
        let mut fields = Map::new();
        fields.insert("conversationHistoryDeletedRange".into(), json!([start, end]));
        fields.insert("kind".into(), json!(if event.condense.is_some() { "condense" } else { "truncation" }));
        let trigger = Trigger::measured(kind, previous);
        let at = if event.ts == i64::MAX { String::new() } else { super::opencode::iso(event.ts) };
        let id = sink.compaction(reason, &keep, None, fields, Some(trigger), &at)?;
        let anchor = sink.lead_anchor().unwrap_or(0);
        let mut seqs = Vec::new();
        for index in 0..2.min(self.task.history.len()) {
            let message = self.edited(index, event.ts);
            let at = at_of(&message);
            let record = if str_at(&message, "/role") == Some("assistant") {
                let mut record = Record::new(Role::Assistant, texts_only(&message).join("\n\n"), &at);
                record.tool_calls = tool_uses(&message);
                record
            } else {
                Record::new(Role::User, texts_only(&message).join("\n\n"), &at)
            };
            let calls = record.tool_calls.clone();
            let seq = if index == 0 {
                sink.checkpoint_at(id, record, Some(anchor))?
            } else {
                sink.restated_at(id, record, anchor)?
            };
            seqs.push(seq);
            seqs.extend(self.missing_results(sink, index, &calls, Some((id, anchor)))?);
        }
        Ok(seqs)
    }

    /// History message `index` with the text Cline sends in its place as of `ts`
    /// (`context_history.json`: the newest rewrite of each block made by then).
    fn edited(&self, index: usize, ts: i64) -> Value {
        let mut message = self.task.history[index].clone();
        for entry in self.task.context.as_array().into_iter().flatten() {
            if entry[0].as_u64() != Some(index as u64) {
                continue;
            }
            for block in entry[1][1].as_array().into_iter().flatten() {
                let Some(b) = block[0].as_u64() else { continue };
                let newest = block[1]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter(|u| u[0].as_i64().is_some_and(|t| t <= ts))
                    .filter_map(|u| u[2][0].as_str())
                    .next_back();
                if let (Some(text), Some(target)) = (newest, message.pointer_mut(&format!("/content/{b}"))) {
                    if target.get("text").is_some() {
                        target["text"] = json!(text);
                    } else if target.is_string() {
                        *target = json!(text);
                    }
                }
                if let (Some(text), Some(Value::String(whole))) = (newest, message.get_mut("content")) {
                    if b == 0 {
                        *whole = text.to_string();
                    }
                }
            }
        }
        message
    }

    /// The context of the last request made before `ts`, as Cline measures it.
    fn context_before(&self, ts: i64) -> Option<u64> {
        let before = self.contexts.partition_point(|(t, _)| *t < ts);
        before.checked_sub(1).map(|i| self.contexts[i].1)
    }

    /// Roo Code: the history in order, its truncation markers left for the moment the chat says
    /// each truncation happened; a summary is a condense where it stands.
    fn roo(&mut self, sink: &mut Sink<'_, '_>) -> Result<()> {
        let mut truncations: BTreeMap<i64, Value> = BTreeMap::new();
        let mut condenses: HashMap<String, (i64, Value)> = HashMap::new();
        for ui in &self.task.ui {
            let ts = ui.get("ts").and_then(Value::as_i64).unwrap_or(0);
            if let Some(t) = ui.get("contextTruncation").filter(|t| t.is_object()) {
                truncations.insert(ts, t.clone());
            }
            if let Some(c) = ui.get("contextCondense").filter(|c| c.is_object()) {
                let id = str_at(c, "/condenseId").unwrap_or_default().to_string();
                condenses.insert(id, (ts, c.clone()));
            }
        }
        let markers: HashMap<&str, usize> = self
            .task
            .history
            .iter()
            .enumerate()
            .filter(|(_, m)| m.get("isTruncationMarker").and_then(Value::as_bool) == Some(true))
            .filter_map(|(i, m)| Some((str_at(m, "/truncationId")?, i)))
            .collect();
        let mut pending: Vec<(i64, String)> = Vec::new();
        for (ts, t) in &truncations {
            if let Some(id) = str_at(t, "/truncationId").filter(|id| markers.contains_key(id)) {
                pending.push((*ts, id.to_string()));
            }
        }
        let timed: HashSet<String> = pending.iter().map(|(_, id)| id.clone()).collect();
        // Markers the chat does not time come last.
        for (id, _) in markers.iter().filter(|(id, _)| !timed.contains(**id)) {
            pending.push((i64::MAX, id.to_string()));
        }
        pending.sort();
        let mut pending = pending.into_iter().peekable();
        let task = self.task;
        for index in 0..task.history.len() {
            let message = &task.history[index];
            if message.get("isTruncationMarker").and_then(Value::as_bool) == Some(true) || message.get("role").is_none()
            {
                continue; // a marker comes when its truncation happened; a bare reasoning item is never sent
            }
            let ts = message.get("ts").and_then(Value::as_i64).unwrap_or(i64::MAX);
            while let Some((_, id)) = pending.next_if(|(t, _)| *t < ts) {
                self.roo_truncation(sink, &id, markers[id.as_str()], &truncations)?;
            }
            if message.get("isSummary").and_then(Value::as_bool) == Some(true) {
                self.roo_condense(sink, index, &condenses)?;
            } else {
                let seqs = self.push(sink, index)?;
                self.record(index, seqs);
            }
        }
        for (_, id) in pending {
            self.roo_truncation(sink, &id, markers[id.as_str()], &truncations)?;
        }
        Ok(())
    }

    /// What the messages tagged with `id` hold is hidden, the marker read right after the first
    /// message shown (after earlier markers).
    fn roo_truncation(
        &mut self,
        sink: &mut Sink<'_, '_>,
        id: &str,
        marker: usize,
        truncations: &BTreeMap<i64, Value>,
    ) -> Result<()> {
        let task = self.task;
        let tagged = |seq: &i64| {
            self.index_of.get(seq).is_some_and(|i| str_at(&task.history[*i], "/truncationParent") == Some(id))
        };
        let keep: Vec<i64> = sink.state.live.iter().map(|l| l.seq).filter(|s| !tagged(s)).collect();
        let (ts, figures) = truncations
            .iter()
            .find(|(_, t)| str_at(t, "/truncationId") == Some(id))
            .map(|(ts, t)| (*ts, t.clone()))
            .unwrap_or((i64::MAX, Value::Null));
        let mut fields = Map::new();
        fields.insert("kind".into(), json!("truncation"));
        fields.insert("truncationId".into(), json!(id));
        if let Some(removed) = figures.get("messagesRemoved") {
            fields.insert("messagesRemoved".into(), removed.clone());
        }
        let trigger =
            Trigger::measured(TriggerKind::Threshold, figures.get("prevContextTokens").and_then(Value::as_u64));
        let at = if ts == i64::MAX { String::new() } else { super::opencode::iso(ts) };
        let compaction = sink.compaction(CompactionReason::Budget, &keep, None, fields, Some(trigger), &at)?;
        // Right after the first message shown (and any marker already there).
        let first = sink.state.live.first().map(|l| l.seq);
        let record = Record::new(Role::User, texts(&task.history[marker]).join("\n\n"), &at);
        let seq = sink.checkpoint_at(compaction, record, first)?;
        self.record(marker, vec![seq]);
        Ok(())
    }

    /// A condense: every message shown until now is replaced by the summary, which the next
    /// request carries alone; the summarizer's call (the chat keeps only its cost) as a row.
    fn roo_condense(
        &mut self,
        sink: &mut Sink<'_, '_>,
        index: usize,
        condenses: &HashMap<String, (i64, Value)>,
    ) -> Result<()> {
        let task = self.task;
        let message = &task.history[index];
        let at = at_of(message);
        let id = str_at(message, "/condenseId").unwrap_or_default();
        let figures = condenses.get(id).map(|(_, c)| c.clone()).unwrap_or(Value::Null);
        let text = texts(message).join("\n\n");
        for t in texts(message) {
            self.note_model(&t);
        }
        // Roo Code adds the environment details to an automatic condense's summary only.
        let automatic = text.contains("<environment_details>");
        let (reason, kind) = if automatic {
            (CompactionReason::Auto, TriggerKind::Threshold)
        } else {
            (CompactionReason::Manual, TriggerKind::Manual)
        };
        let request = sink.state.snapshot();
        let mut usage = Usage {
            model: self.model.clone(),
            started_at: at.clone(),
            ..Usage::new(Purpose::Compaction, WireApi::Chat)
        };
        let mut response = json!({"text": str_at(&figures, "/summary").unwrap_or(&text)});
        if let Some(cost) = figures.get("cost").and_then(Value::as_f64) {
            response["recordedCostUsd"] = json!(cost);
        }
        usage.recorded_cost_pd = figures.get("cost").and_then(super::claude::picodollars);
        usage.response = Some(response);
        let call = sink.model_call(&request, usage)?;
        let mut fields = Map::new();
        fields.insert("kind".into(), json!("condense"));
        fields.insert("condenseId".into(), json!(id));
        if let Some(after) = figures.get("newContextTokens") {
            fields.insert("newContextTokens".into(), after.clone());
        }
        let trigger = Trigger::measured(kind, figures.get("prevContextTokens").and_then(Value::as_u64));
        let compaction = sink.compaction(reason, &[], Some(call), fields, Some(trigger), &at)?;
        let seq = sink.checkpoint(compaction, Record::new(Role::User, text, &at), true)?;
        self.record(index, vec![seq]);
        sink.touch(&at)?;
        Ok(())
    }
}

/// A new hidden range of Cline's history, and when it was decided.
struct RangeEvent {
    range: (usize, usize),
    /// The index of the newest history message when it was decided.
    after: usize,
    ts: i64,
    /// A condense asked for it (`/smol`, or the model's `summarize_task`); else a truncation.
    condense: Option<CompactionReason>,
}

fn texts_only(message: &Value) -> Vec<String> {
    texts(message).into_iter().filter(|t| !t.is_empty()).collect()
}

fn tool_uses(message: &Value) -> Vec<ToolCall> {
    message
        .get("content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|b| str_at(b, "/type") == Some("tool_use"))
        .map(|b| super::tool_call(b, "input"))
        .collect()
}
