//! Gemini CLI sessions (`~/.gemini/tmp/<project>/chats/session-<time>-<id>.jsonl`,
//! docs/formats/gemini.md): a change log — metadata lines, message lines upserted by `id`, and
//! `$set` lines whose `messages` replace the history. A compression is such a `$set` that starts
//! with the `<state_snapshot>`; a resume's `$set` restates the history as it was and is left out.

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use super::qwen::{parts, response_text};
use super::sink::{title_of, Record, Sink, Usage};
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
        && matches!(record.get("type").and_then(Value::as_str), Some("user" | "gemini"))
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
}

impl Gemini {
    pub fn line(&mut self, sink: &mut Sink<'_, '_>, record: &Value) -> Result<Skip> {
        let at = str_at(record, "/timestamp").unwrap_or_default().to_string();
        if let Some(set) = record.get("$set") {
            if let Some(messages) = set.get("messages").and_then(Value::as_array) {
                self.replace(sink, messages, &at)?;
            }
            return Ok(Skip::No);
        }
        if record.get("$rewindTo").is_some() {
            return Ok(Skip::Yes("a /rewind (not replayed)".into()));
        }
        if is_metadata(record) || !is_message(record) {
            return Ok(Skip::No); // metadata; info, warning and error items of the UI
        }
        let id = str_at(record, "/id").unwrap_or_default();
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
        match record.get("type").and_then(Value::as_str) {
            Some("gemini") => {
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
                if let Some(tokens) = record.get("tokens").filter(|t| t.is_object()) {
                    let n = |key: &str| tokens.get(key).and_then(Value::as_u64);
                    sink.model_call(
                        &request,
                        Usage {
                            model: str_at(record, "/model").unwrap_or_default().to_string(),
                            prompt_tokens: n("input"),
                            cached_tokens: n("cached"),
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
            let output = response_text(response);
            let mut result = Record::new(Role::Tool, output, at).id(id);
            result.tool_call_id = Some(wire_id(name, str_at(response, "/id").unwrap_or_default()));
            records.push(result);
        }
        let (text, _, _) = parts(content);
        if responses.is_empty() || !text.is_empty() {
            if !self.titled && !text.trim().is_empty() && !text.starts_with("<session_context>") {
                sink.set_title(&title_of(&text))?;
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
                && parts(m.get("content")).0.trim_start().starts_with("<state_snapshot>")
        });
        match snapshot {
            None if self.messages == 0 => {
                self.history = messages.len() as u64;
                for message in messages {
                    self.store(sink, message)?;
                }
            }
            None => self.history = self.history.max(messages.len() as u64),
            // A resume restates the history as it is (its last compression's snapshot included);
            // a compression replaces it with fewer messages.
            Some(_) if messages.len() as u64 >= self.history => self.history = messages.len() as u64,
            Some(at_snapshot) => {
                self.history = messages.len() as u64;
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
