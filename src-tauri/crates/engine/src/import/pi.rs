//! pi sessions (`~/.pi/agent/sessions/--<cwd>--/<time>_<uuid>.jsonl`, docs/formats/pi.md): a
//! `session` header, then `message` records (user, assistant with its usage and recorded cost,
//! toolResult) and `compaction` records whose summary replaces what came before `firstKeptEntryId`.

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use super::sink::{title_of, Record, Sink, Usage};
use super::{str_at, Skip};
use crate::error::Result;
use crate::events::CompactionReason;
use crate::store::{Purpose, WireApi};
use crate::transcript::Role;

/// The text pi puts before a compaction's summary in every later request.
const SUMMARY_LEAD: &str = "The conversation history before this point was compacted into the following summary:";

/// Whether the first record of a JSONL file is pi's session header.
pub fn is_header(record: &Value) -> bool {
    record.get("type").and_then(Value::as_str) == Some("session")
        && record.get("version").is_some()
        && record.get("cwd").is_some()
        && record.get("id").is_some()
}

/// What the importer remembers between records of one file.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Pi {
    titled: bool,
    model: String,
}

impl Pi {
    pub fn line(&mut self, sink: &mut Sink<'_, '_>, record: &Value) -> Result<Skip> {
        let at = str_at(record, "/timestamp").unwrap_or_default().to_string();
        let skip = match record.get("type").and_then(Value::as_str).unwrap_or_default() {
            "session" | "thinking_level_change" | "label" | "session_info" | "custom" => Skip::No,
            "model_change" => {
                if let Some(model) = str_at(record, "/modelId") {
                    self.model = model.to_string();
                }
                Skip::No
            }
            "message" => self.message(sink, record, &at)?,
            "compaction" => self.compaction(sink, record, &at)?,
            other => Skip::Yes(format!("a record of type {other:?}")),
        };
        sink.touch(&at)?;
        Ok(skip)
    }

    fn message(&mut self, sink: &mut Sink<'_, '_>, record: &Value, at: &str) -> Result<Skip> {
        let message = &record["message"];
        let id = str_at(record, "/id");
        match str_at(message, "/role").unwrap_or_default() {
            "user" => {
                let text = text_of(message.get("content"));
                if !self.titled && !text.trim().is_empty() {
                    sink.set_title(&title_of(&text))?;
                    self.titled = true;
                }
                sink.push(Record::new(Role::User, text, at).id(id))?;
            }
            "assistant" => {
                let request = sink.state.snapshot();
                let mut texts = Vec::new();
                let mut thinking = Vec::new();
                let mut calls = Vec::new();
                for block in message.get("content").and_then(Value::as_array).into_iter().flatten() {
                    match str_at(block, "/type") {
                        Some("text") => texts.push(str_at(block, "/text").unwrap_or_default()),
                        Some("thinking") => thinking.push(str_at(block, "/thinking").unwrap_or_default().to_string()),
                        Some("toolCall") => calls.push(super::tool_call(block, "arguments")),
                        _ => {}
                    }
                }
                let mut answer = Record::new(Role::Assistant, texts.join("\n\n"), at).id(id);
                if !thinking.is_empty() {
                    answer = answer.meta("thinking", json!(thinking));
                }
                if let Some(reason) = message.get("stopReason") {
                    answer = answer.meta("stopReason", reason.clone());
                }
                answer.tool_calls = calls;
                let seq = sink.push(answer)?;
                if let Some(usage) = message.get("usage") {
                    let n = |key: &str| usage.get(key).and_then(Value::as_u64);
                    // pi's `input` leaves out what was read from or written to the cache.
                    let prompt = [n("input"), n("cacheRead"), n("cacheWrite")].iter().flatten().sum::<u64>();
                    let model = str_at(message, "/model").map(str::to_string).unwrap_or_else(|| self.model.clone());
                    let recorded = usage.pointer("/cost/total").cloned().unwrap_or(Value::Null);
                    let finish = match str_at(message, "/stopReason") {
                        Some("toolUse") => Some("tool_calls".to_string()),
                        Some(other) => Some(other.to_string()),
                        None => None,
                    };
                    sink.model_call(
                        &request,
                        Usage {
                            model,
                            prompt_tokens: Some(prompt),
                            cached_tokens: n("cacheRead"),
                            cache_write_tokens: n("cacheWrite"),
                            completion_tokens: n("output"),
                            finish_reason: finish,
                            response_seq: Some(seq),
                            response: Some(
                                json!({"recordedCostUsd": recorded, "responseId": message.get("responseId")}),
                            ),
                            started_at: at.to_string(),
                            ..Usage::new(Purpose::Turn, WireApi::Chat)
                        },
                    )?;
                }
            }
            "toolResult" => {
                let mut text = text_of(message.get("content"));
                if message.get("isError").and_then(Value::as_bool) == Some(true) {
                    text = format!("error: {text}");
                }
                let mut result = Record::new(Role::Tool, text, at)
                    .id(id)
                    .meta("details", message.get("details").cloned().unwrap_or(Value::Null));
                result.tool_call_id = str_at(message, "/toolCallId").map(str::to_string);
                sink.push(result)?;
            }
            other => return Ok(Skip::Yes(format!("a message of role {other:?}"))),
        }
        Ok(Skip::No)
    }

    /// Everything before `firstKeptEntryId` is replaced by the summary, which leads the view.
    fn compaction(&mut self, sink: &mut Sink<'_, '_>, record: &Value, at: &str) -> Result<Skip> {
        let Some(summary) = str_at(record, "/summary") else {
            return Ok(Skip::Yes("a compaction record without a summary".into()));
        };
        let first_kept = match str_at(record, "/firstKeptEntryId") {
            Some(entry) => sink.seq_of(entry)?,
            None => None,
        };
        let keep: Vec<i64> = match first_kept {
            Some(first) => sink.state.live.iter().map(|l| l.seq).filter(|seq| *seq >= first).collect(),
            None => Vec::new(),
        };
        let mut fields = Map::new();
        for key in ["firstKeptEntryId", "tokensBefore", "details", "fromHook"] {
            if let Some(v) = record.get(key).filter(|v| !v.is_null()) {
                fields.insert(key.to_string(), v.clone());
            }
        }
        // pi does not record whether it was asked for or fired by its threshold: no trigger
        // (its `tokensBefore` stays with the record's fields).
        let id = sink.compaction(CompactionReason::Unknown, &keep, None, fields, None, at)?;
        let text = format!("{SUMMARY_LEAD}\n\n<summary>\n{summary}\n</summary>");
        sink.checkpoint(id, Record::new(Role::User, text, at).id(str_at(record, "/id")), true)?;
        Ok(Skip::No)
    }
}

/// The text of a pi `content` (a string, or text blocks joined).
fn text_of(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(blocks)) => {
            blocks.iter().filter_map(|b| b.get("text").and_then(Value::as_str)).collect::<Vec<_>>().join("\n\n")
        }
        _ => String::new(),
    }
}
