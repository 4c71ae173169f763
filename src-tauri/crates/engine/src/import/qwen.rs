//! Qwen Code sessions (`~/.qwen/projects/<dir>/chats/<uuid>.jsonl`, docs/formats/qwen-code.md):
//! `user` / `assistant` / `tool_result` records holding Gemini `parts`, the assistant's
//! `usageMetadata` as the ledger, a `system` `chat_compression` record (its `compressedHistory`
//! replaces the history) as a compaction, the summarizer's `ui_telemetry` answer as its call.

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use super::sink::{title_of, Record, Sink, TitleFrom, Usage};
use super::{str_at, value_at, Skip};
use crate::error::Result;
use crate::events::CompactionReason;
use crate::store::compactions::{Trigger, TriggerKind};
use crate::store::{Purpose, WireApi};
use crate::transcript::{Role, ToolCall};

/// Whether a JSONL record is Qwen Code's: its own `provenance` field, or a message of Gemini
/// `parts` (Claude Code's have `content`).
pub fn is_record(record: &Value) -> bool {
    record.get("provenance").is_some() || value_at(record, "/message/parts").is_some_and(Value::is_array)
}

/// What the importer remembers between records of one file.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Qwen {
    titled: bool,
    /// The summarizer's call (its `ui_telemetry` `api_response`), waiting for its
    /// `chat_compression` record.
    summary: Option<Value>,
    /// The latest `api_response` event not followed by an answer record: right before a
    /// `chat_compression`, the automatic summarizer's call (0.5 writes it with the turn's prompt
    /// id and no text).
    #[serde(default)]
    unanswered: Option<Value>,
}

impl Qwen {
    pub fn line(&mut self, sink: &mut Sink<'_, '_>, record: &Value) -> Result<Skip> {
        let at = str_at(record, "/timestamp").unwrap_or_default().to_string();
        let skip = match record.get("type").and_then(Value::as_str).unwrap_or_default() {
            "user" => self.user(sink, record, &at)?,
            "assistant" => {
                self.unanswered = None;
                self.assistant(sink, record, &at)?
            }
            "tool_result" => self.tool_result(sink, record, &at)?,
            "system" => match str_at(record, "/subtype") {
                Some("chat_compression") => self.compression(sink, record, &at)?,
                Some("ui_telemetry") => {
                    let event = value_at(record, "/systemPayload/uiEvent").unwrap_or(&Value::Null);
                    // The summarizer's side call: a `compress-` prompt (by hand), or an answer
                    // holding the state snapshot (automatic, under the turn's prompt id).
                    let compress = str_at(event, "/prompt_id").is_some_and(|p| p.starts_with("compress"))
                        || str_at(event, "/response_text").is_some_and(|t| t.contains("<state_snapshot>"));
                    if str_at(event, "/event.name") == Some("qwen-code.api_response") {
                        if compress {
                            self.summary = Some(event.clone());
                        } else {
                            self.unanswered = Some(event.clone());
                        }
                    }
                    Skip::No
                }
                Some("custom_title") => {
                    // `/rename` (0.15 on), written again at each start: the latest wins.
                    if let Some(title) = str_at(record, "/systemPayload/customTitle").filter(|t| !t.trim().is_empty()) {
                        sink.offer_title(&title_of(title), TitleFrom::Custom)?;
                    }
                    Skip::No
                }
                Some("rewind") => {
                    // `/rewind` (0.15 on): the marker's parent is the last record kept; what was
                    // written after it leaves the model's view (the stored view keeps it, marked).
                    if let Some(kept) = str_at(record, "/parentUuid").map(|p| sink.seq_of(p)).transpose()?.flatten() {
                        sink.rewind(kept + 1)?;
                    }
                    Skip::No
                }
                _ => Skip::No, // attribution snapshots, slash commands: bookkeeping
            },
            other => Skip::Yes(format!("a record of type {other:?}")),
        };
        sink.touch(&at)?;
        Ok(skip)
    }

    fn user(&mut self, sink: &mut Sink<'_, '_>, record: &Value, at: &str) -> Result<Skip> {
        let (text, _, _) = parts(value_at(record, "/message/parts"));
        // A user record Qwen Code writes itself (a notification or a scheduled prompt, or one of
        // `provenance: system`); a message typed mid-turn is the user's.
        let own = matches!(str_at(record, "/subtype"), Some("notification" | "cron"))
            || str_at(record, "/provenance").is_some_and(|p| p != "real_user");
        if !own && !self.titled && !text.trim().is_empty() {
            sink.offer_title(&title_of(&text), TitleFrom::Prompt)?;
            self.titled = true;
        }
        let meta = if own { json!(true) } else { Value::Null };
        sink.push(Record::new(Role::User, text, at).id(str_at(record, "/uuid")).meta("isMeta", meta))?;
        Ok(Skip::No)
    }

    /// One model response: its text, thoughts and calls, and its usage as a ledger row for the
    /// request the view held before it.
    fn assistant(&mut self, sink: &mut Sink<'_, '_>, record: &Value, at: &str) -> Result<Skip> {
        let request = sink.state.snapshot();
        let (text, thoughts, calls) = parts(value_at(record, "/message/parts"));
        let mut message = Record::new(Role::Assistant, text, at).id(str_at(record, "/uuid"));
        if !thoughts.is_empty() {
            message = message.meta("thoughts", json!(thoughts));
        }
        message.tool_calls = calls;
        let seq = sink.push(message)?;
        if let Some(usage) = record.get("usageMetadata") {
            let model = str_at(record, "/model").unwrap_or_default().to_string();
            sink.model_call(&request, gemini_usage(usage, Purpose::Turn, model, Some(seq), None, at))?;
        }
        Ok(Skip::No)
    }

    fn tool_result(&mut self, sink: &mut Sink<'_, '_>, record: &Value, at: &str) -> Result<Skip> {
        let responses: Vec<&Value> = value_at(record, "/message/parts")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|p| p.get("functionResponse"))
            .collect();
        if responses.is_empty() {
            return Ok(Skip::Yes("a tool_result record without a functionResponse".into()));
        }
        for response in responses {
            let id = str_at(response, "/id").or_else(|| str_at(record, "/toolCallResult/callId")).unwrap_or_default();
            let mut result = Record::new(Role::Tool, response_text(response), at)
                .id(str_at(record, "/uuid"))
                .meta("status", record.pointer("/toolCallResult/status").cloned().unwrap_or(Value::Null));
            result.tool_call_id = Some(id.to_string());
            sink.push(result)?;
        }
        Ok(Skip::No)
    }

    /// `chat_compression`: the history before it is replaced by `compressedHistory` — its state
    /// snapshot as the checkpoint, the rest (the acknowledgement, re-attached files, a pending
    /// call) restated after it.
    fn compression(&mut self, sink: &mut Sink<'_, '_>, record: &Value, at: &str) -> Result<Skip> {
        let info = value_at(record, "/systemPayload/info").unwrap_or(&Value::Null);
        let Some(history) = value_at(record, "/systemPayload/compressedHistory").and_then(Value::as_array) else {
            return Ok(Skip::Yes("a chat_compression record without compressedHistory".into()));
        };
        let tokens = info.get("originalTokenCount").and_then(Value::as_u64);
        let (reason, kind) = match str_at(info, "/triggerReason") {
            Some("manual") => (CompactionReason::Manual, TriggerKind::Manual),
            Some("payload_overflow" | "image_overflow") => (CompactionReason::Auto, TriggerKind::Overflow),
            Some(_) => (CompactionReason::Auto, TriggerKind::Threshold),
            None => (CompactionReason::Unknown, TriggerKind::Threshold),
        };
        let trigger = Trigger::measured(kind, tokens);
        // The summarizer's call, when its telemetry came first.
        let call = match self.summary.take().or_else(|| self.unanswered.take()) {
            Some(event) => {
                let usage = json!({
                    "promptTokenCount": event.get("input_token_count"),
                    "cachedContentTokenCount": event.get("cached_content_token_count"),
                    "candidatesTokenCount": event.get("output_token_count"),
                });
                let model = str_at(&event, "/model").unwrap_or_default().to_string();
                let answer = str_at(&event, "/response_text").map(|t| json!({"text": t}));
                let request = sink.state.snapshot();
                Some(sink.model_call(&request, gemini_usage(&usage, Purpose::Compaction, model, None, answer, at))?)
            }
            None => None,
        };
        let mut fields = Map::new();
        for key in ["originalTokenCount", "newTokenCount", "compressionStatus", "triggerReason"] {
            if let Some(v) = info.get(key).filter(|v| !v.is_null()) {
                fields.insert(key.to_string(), v.clone());
            }
        }
        let id = sink.compaction(reason, &[], call, fields, Some(trigger), at)?;
        let mut checkpoint_written = false;
        for content in history {
            let role = match str_at(content, "/role") {
                Some("model") => Role::Assistant,
                _ => Role::User,
            };
            let (text, thoughts, calls) = parts(content.get("parts"));
            let responses: Vec<&Value> = content
                .get("parts")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(|p| p.get("functionResponse"))
                .collect();
            if !responses.is_empty() {
                for response in responses {
                    let mut result = Record::new(Role::Tool, response_text(response), at);
                    result.tool_call_id = str_at(response, "/id").map(str::to_string);
                    sink.restated(id, result)?;
                }
                continue;
            }
            let mut message = Record::new(role, text.clone(), at);
            if !thoughts.is_empty() {
                message = message.meta("thoughts", json!(thoughts));
            }
            message.tool_calls = calls;
            if !checkpoint_written && role == Role::User && text.contains("<state_snapshot>") {
                checkpoint_written = true;
                sink.checkpoint(id, message, false)?;
            } else {
                sink.restated(id, message)?;
            }
        }
        Ok(Skip::No)
    }
}

/// The text (non-thought text parts, joined), the thoughts and the calls of Gemini `parts`.
pub(super) fn parts(parts: Option<&Value>) -> (String, Vec<String>, Vec<ToolCall>) {
    let mut texts = Vec::new();
    let mut thoughts = Vec::new();
    let mut calls = Vec::new();
    // The first versions wrote a user's content as a plain string.
    if let Some(Value::String(text)) = parts {
        return (text.clone(), thoughts, calls);
    }
    for part in parts.and_then(Value::as_array).into_iter().flatten() {
        if let Some(text) = part.get("text").and_then(Value::as_str) {
            if part.get("thought").and_then(Value::as_bool) == Some(true) {
                thoughts.push(text.to_string());
            } else {
                texts.push(text);
            }
        } else if let Some(call) = part.get("functionCall") {
            calls.push(ToolCall {
                id: str_at(call, "/id").unwrap_or_default().to_string(),
                name: str_at(call, "/name").unwrap_or_default().to_string(),
                arguments: call.get("args").map(Value::to_string).unwrap_or_else(|| "{}".into()),
            });
        }
    }
    (texts.join("\n\n"), thoughts, calls)
}

/// A `functionResponse`'s text: its `output`, or its `error` said as one.
pub(super) fn response_text(response: &Value) -> String {
    match (str_at(response, "/response/output"), str_at(response, "/response/error")) {
        (Some(output), _) => output.to_string(),
        (None, Some(error)) => format!("error: {error}"),
        _ => response.get("response").map(Value::to_string).unwrap_or_default(),
    }
}

/// The output a response was billed for. Qwen Code fills `candidatesTokenCount` from an
/// OpenAI-compatible provider's completion tokens, reasoning included (`thoughtsTokenCount` is
/// that part again: the total is prompt + candidates); where the total counts the thoughts apart
/// (prompt + candidates + thoughts, as Gemini's API reports them) they are added.
fn completion(usage: &Value) -> Option<u64> {
    let n = |key: &str| usage.get(key).and_then(Value::as_u64);
    let candidates = n("candidatesTokenCount")?;
    let thoughts = n("thoughtsTokenCount").unwrap_or(0);
    let apart =
        thoughts > 0 && n("totalTokenCount") == Some(n("promptTokenCount").unwrap_or(0) + candidates + thoughts);
    Some(candidates + if apart { thoughts } else { 0 })
}

/// Gemini usage names (`promptTokenCount` includes the cached tokens) as a ledger row.
fn gemini_usage(
    usage: &Value,
    purpose: Purpose,
    model: String,
    response_seq: Option<i64>,
    response: Option<Value>,
    at: &str,
) -> Usage {
    let n = |key: &str| usage.get(key).and_then(Value::as_u64);
    Usage {
        purpose,
        api: WireApi::Chat,
        model,
        prompt_tokens: n("promptTokenCount"),
        cached_tokens: n("cachedContentTokenCount"),
        completion_tokens: completion(usage),
        response_seq,
        response,
        started_at: at.to_string(),
        ..Usage::new(purpose, WireApi::Chat)
    }
}
