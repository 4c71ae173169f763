//! Chat Completions wire format: request messages, streamed and whole answers.

use serde_json::Value;

use super::wire::{outbound_arguments, ChatCall, ChatFunction, WireItem};
use super::{Completion, Usage};
use crate::transcript::{Message, Role, ToolCall};

/// The `messages` array for a system prompt and transcript.
pub fn wire_messages(system: &str, messages: Vec<Message>) -> Vec<WireItem> {
    let mut out = Vec::with_capacity(messages.len() + 1);
    out.push(WireItem::Text { role: "system", content: system.to_string() });
    out.extend(messages.into_iter().map(wire_message));
    out
}

fn wire_message(message: Message) -> WireItem {
    match message.role {
        Role::Assistant if !message.tool_calls.is_empty() => WireItem::ChatCalls {
            role: "assistant",
            content: if message.content.is_empty() { None } else { Some(message.content) },
            tool_calls: message
                .tool_calls
                .into_iter()
                .map(|c| ChatCall {
                    id: c.id,
                    kind: "function",
                    function: ChatFunction { name: c.name, arguments: outbound_arguments(c.arguments) },
                })
                .collect(),
        },
        Role::Tool => {
            WireItem::ChatToolResult { role: "tool", tool_call_id: message.tool_call_id, content: message.content }
        }
        role => WireItem::Text { role: role.as_str(), content: message.content },
    }
}

pub fn usage_from(value: &Value) -> Usage {
    let mut usage = Usage::default();
    if let Some(u) = value.get("usage").filter(|u| u.is_object()) {
        usage.prompt_tokens = u.get("prompt_tokens").and_then(Value::as_u64);
        usage.completion_tokens = u.get("completion_tokens").and_then(Value::as_u64);
        usage.cached_tokens = u.pointer("/prompt_tokens_details/cached_tokens").and_then(Value::as_u64);
    }
    usage.merge_llama_timings(value.get("timings"));
    usage
}

#[derive(Default)]
struct PartialCall {
    id: String,
    name: String,
    arguments: String,
}

/// Folds streamed chunks into one answer.
#[derive(Default)]
pub struct ChatStream {
    text: String,
    calls: Vec<PartialCall>,
    finish_reason: Option<String>,
    usage: Usage,
    pub done: bool,
}

impl ChatStream {
    /// Applies one `data:` payload; returns new assistant text, if any.
    pub fn apply(&mut self, data: &str) -> Result<Option<String>, String> {
        if data.trim() == "[DONE]" {
            self.done = true;
            return Ok(None);
        }
        let chunk: Value =
            serde_json::from_str(data).map_err(|e| format!("sent a stream chunk that is not valid JSON ({e})"))?;
        if let Some(error) = chunk.get("error") {
            return Err(format!("reported an error mid-stream: {error}"));
        }
        let usage = usage_from(&chunk);
        self.usage.merge(&usage);
        let mut delta_text = None;
        if let Some(choice) = chunk.get("choices").and_then(Value::as_array).and_then(|c| c.first()) {
            if let Some(delta) = choice.get("delta") {
                if let Some(text) = delta.get("content").and_then(Value::as_str).filter(|t| !t.is_empty()) {
                    self.text.push_str(text);
                    delta_text = Some(text.to_string());
                }
                if let Some(calls) = delta.get("tool_calls").and_then(Value::as_array) {
                    for (position, call) in calls.iter().enumerate() {
                        let index = call.get("index").and_then(Value::as_u64).map(|i| i as usize).unwrap_or(position);
                        while self.calls.len() <= index {
                            self.calls.push(PartialCall::default());
                        }
                        let slot = &mut self.calls[index];
                        if let Some(id) = call.get("id").and_then(Value::as_str).filter(|s| !s.is_empty()) {
                            if slot.id.is_empty() {
                                slot.id = id.to_string();
                            }
                        }
                        if let Some(name) =
                            call.pointer("/function/name").and_then(Value::as_str).filter(|s| !s.is_empty())
                        {
                            if slot.name.is_empty() {
                                slot.name = name.to_string();
                            }
                        }
                        if let Some(args) = call.pointer("/function/arguments").and_then(Value::as_str) {
                            slot.arguments.push_str(args);
                        }
                    }
                }
            }
            if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
                self.finish_reason = Some(reason.to_string());
            }
        }
        Ok(delta_text)
    }

    /// The answer, once the stream ended; `Err` when it was cut before finishing.
    pub fn finish(self) -> Result<Completion, String> {
        if self.finish_reason.is_none() {
            return Err("closed the stream before the answer was complete".into());
        }
        let tool_calls = collect_calls(self.calls.into_iter().map(|c| (c.id, c.name, c.arguments)))?;
        Ok(Completion {
            text: self.text,
            tool_calls,
            provider_items: None,
            finish_reason: self.finish_reason,
            usage: self.usage,
            ttft_ms: None,
            duration_ms: 0,
        })
    }
}

fn collect_calls(calls: impl Iterator<Item = (String, String, String)>) -> Result<Vec<ToolCall>, String> {
    calls
        .map(|(id, name, arguments)| {
            if id.is_empty() || name.is_empty() {
                Err(format!("sent a tool call without an id or name (id {id:?}, name {name:?})"))
            } else {
                Ok(ToolCall { id, name, arguments })
            }
        })
        .collect()
}

/// Parses a whole (non-streamed) answer.
pub fn parse_completion(body: &Value) -> Result<Completion, String> {
    let choice = body
        .get("choices")
        .and_then(Value::as_array)
        .and_then(|c| c.first())
        .ok_or("sent an answer without `choices`")?;
    let message = choice.get("message").ok_or("sent a choice without a `message`")?;
    let text = message.get("content").and_then(Value::as_str).unwrap_or_default().to_string();
    let calls = message.get("tool_calls").and_then(Value::as_array).cloned().unwrap_or_default();
    let tool_calls = collect_calls(calls.iter().map(|c| {
        let get = |p: &str| c.pointer(p).and_then(Value::as_str).unwrap_or_default().to_string();
        (get("/id"), get("/function/name"), get("/function/arguments"))
    }))?;
    Ok(Completion {
        text,
        tool_calls,
        provider_items: None,
        finish_reason: choice.get("finish_reason").and_then(Value::as_str).map(str::to_string),
        usage: usage_from(body),
        ttft_ms: None,
        duration_ms: 0,
    })
}
