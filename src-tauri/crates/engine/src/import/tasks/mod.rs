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

use std::collections::{HashMap, HashSet};
use std::path::Path;

use serde_json::{json, Value};

use super::sink::{title_of, Record, Sink, Usage};
use super::str_at;
use crate::error::Result;
use crate::store::{Purpose, SourceKind, WireApi};
use crate::transcript::{Role, ToolCall};

mod ranges;

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
