//! Responses API wire format. Output items (including opaque ones such as encrypted reasoning) are
//! stored with the assistant message and sent back unchanged.

use serde::Deserialize;
use serde_json::Value;

use super::chunks::{OutputItem, ResponseObject, ResponsesEvent};
use super::wire::WireItem;
use super::Completion;
use crate::transcript::{Message, Role, ToolCall};

/// The `input` array for a system prompt and transcript.
pub fn wire_input(system: &str, messages: Vec<Message>) -> Vec<WireItem> {
    let mut out = Vec::with_capacity(messages.len() + 1);
    // An imported session whose source recorded no system prompt has none to send.
    if !system.is_empty() {
        out.push(WireItem::Text { role: "system", content: system.to_string() });
    }
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

/// Parses a response object (the whole answer, or the one carried by `response.completed`).
pub fn parse_response(response: &Value) -> Result<Completion, String> {
    let object =
        ResponseObject::deserialize(response).map_err(|e| format!("sent a response of the wrong shape ({e})"))?;
    if let Some(error) = object.error.as_ref().filter(|e| !e.is_null()) {
        return Err(format!("reported an error: {error}"));
    }
    let usage = object.usage();
    let output = object.output.ok_or("sent a response without `output`")?;
    let mut text = String::new();
    let mut tool_calls = Vec::new();
    for item in &output {
        match OutputItem::deserialize(item) {
            Ok(OutputItem::Message { content }) => {
                text.extend(content.unwrap_or_default().into_iter().filter_map(|part| part.text));
            }
            Ok(OutputItem::FunctionCall { call_id, name, arguments }) => {
                let call = ToolCall {
                    id: call_id.unwrap_or_default(),
                    name: name.unwrap_or_default(),
                    arguments: arguments.unwrap_or_default(),
                };
                if call.id.is_empty() || call.name.is_empty() {
                    return Err("sent a function_call without call_id or name".into());
                }
                tool_calls.push(call);
            }
            // Reasoning and other items are kept opaque in `provider_items`.
            Ok(OutputItem::Other) | Err(_) => {}
        }
    }
    let finish_reason = if object.status.as_deref() == Some("incomplete") {
        match object.incomplete_details.and_then(|d| d.reason).as_deref() {
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
        provider_items: Some(Value::Array(output)),
        finish_reason: Some(finish_reason),
        usage,
        ttft_ms: None,
        duration_ms: 0,
        response_id: None,
        cache_diagnostics: None,
        context_edits: None,
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
        let event: ResponsesEvent =
            serde_json::from_str(data).map_err(|e| format!("sent a stream event that is not valid JSON ({e})"))?;
        match event {
            ResponsesEvent::OutputTextDelta { delta } => Ok(delta),
            ResponsesEvent::Finished { response } => {
                self.completed = Some(response);
                Ok(None)
            }
            ResponsesEvent::Failed { response } => {
                Err(format!("reported a failed response: {}", response.get("error").cloned().unwrap_or(Value::Null)))
            }
            ResponsesEvent::Error { message } => {
                Err(format!("reported an error: {}", message.unwrap_or_else(|| Value::String(data.to_string()))))
            }
            ResponsesEvent::Other => Ok(None),
        }
    }

    pub fn finish(self) -> Result<Completion, String> {
        match self.completed {
            Some(response) => parse_response(&response),
            None => Err("closed the stream before the answer was complete".into()),
        }
    }
}
