//! Gemini CLI sessions (docs/formats/gemini-cli.md). From 0.39 a change log
//! (`~/.gemini/tmp/<project>/chats/session-<time>-<id>.jsonl`): metadata lines, message lines
//! upserted by `id` (a message already read is not read again), `$set` lines whose `messages`
//! replace the history (a compression: the new history holds the `<state_snapshot>`, wherever the
//! summary puts it; a resume restates it as it was and is left out), `$set.summary` (the title)
//! and `$rewindTo` (the messages from that one on leave the model's view). Before 0.39 one JSON
//! document per chat (`session-*.json`: `{sessionId, projectHash, startTime, lastUpdated,
//! messages, summary}`), rewritten whole, read with the same message reader; Qwen Code 0.1 wrote
//! the same documents (its messages `type: "qwen"`). A tool's result is in its call's `result`
//! (`functionResponse` parts) until 0.61 also writes it as a user message.

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use super::qwen::{parts, response_text};
use super::sink::{title_of, Record, Sink, TitleFrom, Usage};
use super::{str_at, Skip};
use crate::error::Result;
use crate::events::CompactionReason;
use crate::store::{Purpose, WireApi};
use crate::transcript::{Role, ToolCall};

/// Whether a record is a Gemini CLI metadata line.
pub fn is_metadata(record: &Value) -> bool {
    record.get("sessionId").and_then(Value::as_str).is_some() && record.get("projectHash").is_some()
}

/// Whether a record is a message line (a stub file written by a restart has none).
pub fn is_message(record: &Value) -> bool {
    record.get("id").and_then(Value::as_str).is_some()
        && matches!(record.get("type").and_then(Value::as_str), Some("user" | "gemini" | "qwen"))
}

/// Whether a JSON document is a chat of Gemini CLI before 0.39 (or Qwen Code 0.1), by its head.
pub fn is_document(head: &[u8]) -> bool {
    let text = String::from_utf8_lossy(head);
    let text = text.trim_start();
    // A change log's first line is a whole JSON object (its metadata) without the messages.
    let first = text.lines().next().unwrap_or_default();
    if let Ok(line) = serde_json::from_str::<Value>(first) {
        return line.get("messages").is_some_and(Value::is_array) && is_metadata(&line);
    }
    text.starts_with('{')
        && text.contains("\"sessionId\"")
        && text.contains("\"projectHash\"")
        && text.contains("\"messages\"")
}

/// What the importer remembers between lines of one file.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Gemini {
    titled: bool,
    /// A model response written before its tool calls ran: the same `id` is written again with
    /// them (an upsert), so it waits.
    held: Option<Value>,
    /// Messages stored so far (a `$set` before any is the session's first content).
    messages: u64,
    /// Messages in the history as Gemini CLI counts them (message lines since the last `$set` that
    /// replaced it, plus that one's).
    #[serde(default)]
    history: u64,
    /// The ids of the messages read: a message written again (an upsert after its tool calls
    /// ran, a rewind restating older ones) is read once.
    #[serde(default)]
    seen: std::collections::HashSet<String>,
    /// Tool results read (a call's `result` and the user message holding it name the same id).
    #[serde(default)]
    results: std::collections::HashSet<String>,
}

impl Gemini {
    pub fn line(&mut self, sink: &mut Sink<'_, '_>, record: &Value) -> Result<Skip> {
        let at = str_at(record, "/timestamp").unwrap_or_default().to_string();
        if let Some(set) = record.get("$set") {
            if let Some(messages) = set.get("messages").and_then(Value::as_array) {
                self.replace(sink, messages, &at)?;
            }
            if let Some(title) = str_at(set, "/summary").filter(|t| !t.trim().is_empty()) {
                sink.offer_title(&title_of(title), TitleFrom::Summary)?;
            }
            if let Some(updated) = str_at(set, "/lastUpdated") {
                sink.touch(updated)?;
            }
            return Ok(Skip::No);
        }
        if let Some(target) = str_at(record, "/$rewindTo") {
            // `/rewind`: the messages from `target` on leave the model's view (the stored view
            // keeps them, marked).
            if let Some(held) = self.held.take() {
                self.store(sink, &held)?;
            }
            if let Some(seq) = sink.seq_of(target)? {
                sink.rewind(seq)?;
            }
            return Ok(Skip::No);
        }
        if is_metadata(record) || !is_message(record) {
            return Ok(Skip::No); // metadata; info, warning and error items of the UI
        }
        let id = str_at(record, "/id").unwrap_or_default();
        if self.seen.contains(id) {
            sink.touch(&at)?;
            return Ok(Skip::No);
        }
        let upsert = self.held.as_ref().is_some_and(|h| str_at(h, "/id") == Some(id));
        if !upsert {
            self.history += 1;
        }
        if let Some(held) = self.held.take() {
            if !upsert {
                self.store(sink, &held)?;
            }
        }
        let pending_calls = record.get("type").and_then(Value::as_str) == Some("gemini")
            && str_at(record, "/content").is_some_and(str::is_empty)
            && record.get("toolCalls").is_none_or(|c| c.as_array().is_some_and(Vec::is_empty));
        if pending_calls {
            self.held = Some(record.clone());
        } else {
            self.store(sink, record)?;
        }
        sink.touch(&at)?;
        Ok(Skip::No)
    }

    fn store(&mut self, sink: &mut Sink<'_, '_>, record: &Value) -> Result<()> {
        let at = str_at(record, "/timestamp").unwrap_or_default().to_string();
        let id = str_at(record, "/id");
        if let Some(id) = id {
            self.seen.insert(id.to_string());
        }
        match record.get("type").and_then(Value::as_str) {
            Some("gemini" | "qwen") => {
                let request = sink.state.snapshot();
                let mut answer =
                    Record::new(Role::Assistant, str_at(record, "/content").unwrap_or_default(), &at).id(id);
                if let Some(thoughts) = record.get("thoughts").filter(|t| t.as_array().is_some_and(|a| !a.is_empty())) {
                    answer = answer.meta("thoughts", thoughts.clone());
                }
                answer.tool_calls = record
                    .get("toolCalls")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .map(|c| {
                        let name = str_at(c, "/name").unwrap_or_default();
                        ToolCall {
                            id: wire_id(name, str_at(c, "/id").unwrap_or_default()),
                            name: name.to_string(),
                            arguments: c.get("args").map(Value::to_string).unwrap_or_else(|| "{}".into()),
                        }
                    })
                    .collect();
                let seq = sink.push(answer)?;
                // Before 0.61 a call's result is only in the call (`result`: functionResponse parts).
                for call in record.get("toolCalls").and_then(Value::as_array).into_iter().flatten() {
                    let responses = call.get("result").and_then(Value::as_array).into_iter().flatten();
                    for response in responses.filter_map(|r| r.get("functionResponse")) {
                        let name = str_at(response, "/name").or_else(|| str_at(call, "/name")).unwrap_or_default();
                        let call_id =
                            wire_id(name, str_at(response, "/id").or_else(|| str_at(call, "/id")).unwrap_or_default());
                        if self.results.insert(call_id.clone()) {
                            let mut result = Record::new(Role::Tool, response_text(response), &at).id(id);
                            result.tool_call_id = Some(call_id);
                            sink.push(result)?;
                        }
                    }
                }
                if let Some(tokens) = record.get("tokens").filter(|t| t.is_object()) {
                    let n = |key: &str| tokens.get(key).and_then(Value::as_u64);
                    sink.model_call(
                        &request,
                        Usage {
                            model: str_at(record, "/model").unwrap_or_default().to_string(),
                            prompt_tokens: n("input"),
                            cached_tokens: n("cached"),
                            // Thinking is billed as output: the completion counts it.
                            completion_tokens: n("output").map(|o| o + n("thoughts").unwrap_or(0)),
                            response_seq: Some(seq),
                            started_at: at.clone(),
                            ..Usage::new(Purpose::Turn, WireApi::Chat)
                        },
                    )?;
                }
            }
            _ => self.user(sink, record.get("content"), id, &at, None)?,
        }
        self.messages += 1;
        Ok(())
    }

    /// A chat written as one document (before 0.39): its messages in order, its title.
    pub fn document(&mut self, sink: &mut Sink<'_, '_>, document: &Value) -> Result<Vec<(usize, String)>> {
        let mut skipped = Vec::new();
        for (index, message) in document.get("messages").and_then(Value::as_array).into_iter().flatten().enumerate() {
            if !is_message(message) {
                // Info, warning and error items of the UI.
                continue;
            }
            match self.line(sink, message)? {
                Skip::Yes(reason) => skipped.push((index, reason)),
                Skip::No => {}
            }
        }
        if let Some(held) = self.held.take() {
            self.store(sink, &held)?;
        }
        if let Some(title) = str_at(document, "/summary").filter(|t| !t.trim().is_empty()) {
            sink.offer_title(&title_of(title), TitleFrom::Summary)?;
        }
        if let Some(updated) = str_at(document, "/lastUpdated") {
            sink.touch(updated)?;
        }
        Ok(skipped)
    }

    /// A user content: its text as one message, each function response as a result.
    fn user(
        &mut self,
        sink: &mut Sink<'_, '_>,
        content: Option<&Value>,
        id: Option<&str>,
        at: &str,
        restated_in: Option<i64>,
    ) -> Result<()> {
        let responses: Vec<&Value> =
            content.and_then(Value::as_array).into_iter().flatten().filter_map(|p| p.get("functionResponse")).collect();
        let mut records = Vec::new();
        for response in &responses {
            let name = str_at(response, "/name").unwrap_or_default();
            let call_id = wire_id(name, str_at(response, "/id").unwrap_or_default());
            // Already read from its call's `result` (0.61 writes both).
            if restated_in.is_none() && !self.results.insert(call_id.clone()) {
                continue;
            }
            let output = response_text(response);
            let mut result = Record::new(Role::Tool, output, at).id(id);
            result.tool_call_id = Some(call_id);
            records.push(result);
        }
        let (text, _, _) = parts(content);
        if responses.is_empty() || !text.is_empty() {
            if !self.titled && !text.trim().is_empty() && !text.starts_with("<session_context>") {
                sink.offer_title(&title_of(&text), TitleFrom::Prompt)?;
                self.titled = true;
            }
            records.push(Record::new(Role::User, text, at).id(id));
        }
        for record in records {
            match restated_in {
                Some(compaction) => sink.restated(compaction, record)?,
                None => sink.push(record)?,
            };
        }
        Ok(())
    }

    /// A `$set.messages`: the first content of the session, a compression, or a resume's restated
    /// history (left out: it is what the lines before it already hold).
    fn replace(&mut self, sink: &mut Sink<'_, '_>, messages: &[Value], at: &str) -> Result<()> {
        let snapshot = messages.iter().position(|m| {
            m.get("type").and_then(Value::as_str) == Some("user")
                && parts(m.get("content")).0.contains("<state_snapshot>")
        });
        // A compression writes a new summary message; a resume restates the history with the
        // summary it already holds (an id read before).
        let fresh = snapshot.and_then(|i| str_at(&messages[i], "/id")).is_none_or(|id| !self.seen.contains(id));
        match snapshot {
            None if self.messages == 0 => {
                self.history = messages.len() as u64;
                for message in messages {
                    self.store(sink, message)?;
                }
            }
            None => self.history = self.history.max(messages.len() as u64),
            Some(_) if !fresh => self.history = messages.len() as u64,
            Some(at_snapshot) => {
                self.history = messages.len() as u64;
                for id in messages.iter().filter_map(|m| str_at(m, "/id")) {
                    self.seen.insert(id.to_string());
                }
                if let Some(held) = self.held.take() {
                    self.store(sink, &held)?;
                }
                // The file records neither who asked nor the token figures.
                let id = sink.compaction(CompactionReason::Unknown, &[], None, Map::new(), None, at)?;
                for (index, message) in messages.iter().enumerate() {
                    let content = message.get("content");
                    if index == at_snapshot {
                        let record = Record::new(Role::User, parts(content).0, at).id(str_at(message, "/id"));
                        sink.checkpoint(id, record, false)?;
                    } else if message.get("type").and_then(Value::as_str) == Some("gemini") {
                        let (text, thoughts, calls) = parts(content);
                        let mut answer = Record::new(Role::Assistant, text, at).id(str_at(message, "/id"));
                        if !thoughts.is_empty() {
                            answer = answer.meta("thoughts", json!(thoughts));
                        }
                        answer.tool_calls =
                            calls.into_iter().map(|c| ToolCall { id: wire_id(&c.name, &c.id), ..c }).collect();
                        sink.restated(id, answer)?;
                    } else {
                        self.user(sink, content, str_at(message, "/id"), at, Some(id))?;
                    }
                }
            }
        }
        Ok(())
    }
}

/// A call id as it went over the wire: the file prefixes it with `<tool name>__`.
fn wire_id(name: &str, id: &str) -> String {
    id.strip_prefix(&format!("{name}__")).unwrap_or(id).to_string()
}
