//! Responses API wire format. Output items (including opaque ones such as encrypted reasoning) are
//! stored with the assistant message and sent back unchanged.

use serde_json::Value;

use super::wire::WireItem;
use super::{Completion, Usage};
use crate::transcript::{Message, Role, ToolCall};

/// The `input` array for a system prompt and transcript.
pub fn wire_input(system: &str, messages: Vec<Message>) -> Vec<WireItem> {
    let mut out = Vec::with_capacity(messages.len() + 1);
    out.push(WireItem::Text { role: "system", content: system.to_string() });
    for message in messages {
        match message.role {
            Role::Assistant => match message.provider_items {
                // A reduced copy keeps its opaque items (reasoning, calls) but sends its cut text.
                Some(Value::Array(items)) if message.truncated => {
                    let mut text = Some(message.content);
                    for item in items {
                        if item.get("type").and_then(Value::as_str) == Some("message") {
                            if let Some(content) = text.take() {
                                out.push(WireItem::Text { role: "assistant", content });
                            }
                        } else {
                            out.push(WireItem::Opaque(item));
                        }
                    }
                }
                Some(Value::Array(items)) => out.extend(items.into_iter().map(WireItem::Opaque)),
                _ => {
                    if !message.content.is_empty() {
                        out.push(WireItem::Text { role: "assistant", content: message.content });
                    }
                    out.extend(message.tool_calls.into_iter().map(|call| WireItem::FunctionCall {
                        kind: "function_call",
                        call_id: call.id,
                        name: call.name,
                        arguments: super::wire::outbound_arguments(call.arguments),
                    }));
                }
            },
            Role::Tool => out.push(WireItem::FunctionCallOutput {
                kind: "function_call_output",
                call_id: message.tool_call_id,
                output: message.content,
            }),
            role => out.push(WireItem::Text { role: role.as_str(), content: message.content }),
        }
    }
    out
}

fn usage_from(response: &Value) -> Usage {
    let mut usage = Usage::default();
    if let Some(u) = response.get("usage").filter(|u| u.is_object()) {
        usage.prompt_tokens = u.get("input_tokens").and_then(Value::as_u64);
        usage.completion_tokens = u.get("output_tokens").and_then(Value::as_u64);
        usage.cached_tokens = u.pointer("/input_tokens_details/cached_tokens").and_then(Value::as_u64);
    }
    usage.merge_llama_timings(response.get("timings"));
    usage
}

/// Parses a response object (the whole answer, or the one carried by `response.completed`).
pub fn parse_response(response: &Value) -> Result<Completion, String> {
    if let Some(error) = response.get("error").filter(|e| !e.is_null()) {
        return Err(format!("reported an error: {error}"));
    }
    let output = response.get("output").and_then(Value::as_array).ok_or("sent a response without `output`")?;
    let mut text = String::new();
    let mut tool_calls = Vec::new();
    for item in output {
        match item.get("type").and_then(Value::as_str) {
            Some("message") => {
                for part in item.get("content").and_then(Value::as_array).into_iter().flatten() {
                    if let Some(t) = part.get("text").and_then(Value::as_str) {
                        text.push_str(t);
                    }
                }
            }
            Some("function_call") => {
                let get = |k: &str| item.get(k).and_then(Value::as_str).unwrap_or_default().to_string();
                let call = ToolCall { id: get("call_id"), name: get("name"), arguments: get("arguments") };
                if call.id.is_empty() || call.name.is_empty() {
                    return Err("sent a function_call without call_id or name".into());
                }
                tool_calls.push(call);
            }
            _ => {}
        }
    }
    let status = response.get("status").and_then(Value::as_str).unwrap_or("completed");
    let finish_reason = if status == "incomplete" {
        match response.pointer("/incomplete_details/reason").and_then(Value::as_str) {
            Some("max_output_tokens") | None => "length".to_string(),
            Some(other) => other.to_string(),
        }
    } else if tool_calls.is_empty() {
        "stop".to_string()
    } else {
        "tool_calls".to_string()
    };
    Ok(Completion {
        text,
        tool_calls,
        provider_items: Some(Value::Array(output.clone())),
        finish_reason: Some(finish_reason),
        usage: usage_from(response),
        ttft_ms: None,
        duration_ms: 0,
    })
}

/// Folds streamed Responses events into one answer.
#[derive(Default)]
pub struct ResponsesStream {
    completed: Option<Value>,
}

impl ResponsesStream {
    pub fn done(&self) -> bool {
        self.completed.is_some()
    }

    pub fn apply(&mut self, data: &str) -> Result<Option<String>, String> {
        if data.trim() == "[DONE]" {
            return Ok(None);
        }
        let event: Value =
            serde_json::from_str(data).map_err(|e| format!("sent a stream event that is not valid JSON ({e})"))?;
        match event.get("type").and_then(Value::as_str) {
            Some("response.output_text.delta") => Ok(event.get("delta").and_then(Value::as_str).map(str::to_string)),
            Some("response.completed") | Some("response.incomplete") => {
                self.completed = event.get("response").cloned();
                Ok(None)
            }
            Some("response.failed") => Err(format!(
                "reported a failed response: {}",
                event.pointer("/response/error").cloned().unwrap_or(Value::Null)
            )),
            Some("error") => {
                Err(format!("reported an error: {}", event.get("message").cloned().unwrap_or(event.clone())))
            }
            _ => Ok(None),
        }
    }

    pub fn finish(self) -> Result<Completion, String> {
        match self.completed {
            Some(response) => parse_response(&response),
            None => Err("closed the stream before the answer was complete".into()),
        }
    }
}
