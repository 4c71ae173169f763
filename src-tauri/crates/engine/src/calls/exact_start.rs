//! Where a fork of an imported session starts when the agent's exact request is known: the
//! messages of the last request sent at or before the fork point, as the agent sent them (its own
//! log, or the proxy), instead of the view rebuilt from its session records — then what came after
//! that request up to the fork point.

use serde_json::Value;

use super::{calls_of, request_body};
use crate::error::Result;
use crate::store::{Purpose, Session, Store};
use crate::transcript::{NewMessage, ToolCall};

/// The start of a fork at `seq` from an exact request: the call's number, the messages of its
/// body, and the last seq that body held (what follows it is copied from the transcript). `None`
/// when no exact request fits: none was recorded, or a compaction rewrote the history between it
/// and the fork point.
pub struct ExactStart {
    pub call: usize,
    pub messages: Vec<NewMessage>,
    pub through_seq: i64,
}

pub fn exact_start(store: &Store, record: &Session, seq: i64) -> Result<Option<ExactStart>> {
    let (_, calls) = calls_of(store, record)?;
    let held = |ranges: &Value| -> Option<i64> {
        ranges.as_array()?.iter().filter_map(|r| r.get(1).and_then(Value::as_i64)).max()
    };
    let found = calls
        .iter()
        .enumerate()
        .filter(|(_, c)| c.purpose == Purpose::Turn && c.exact())
        .filter_map(|(i, c)| Some((i, c, held(&c.message_ranges)?)))
        .filter(|(_, _, through)| *through <= seq)
        .max_by_key(|(_, _, through)| *through);
    let Some((index, call, through)) = found else { return Ok(None) };
    // A compaction between the request and the fork point rewrote what the request held.
    let later = store.view_at(&record.id, seq, seq)?;
    if later.iter().any(|m| m.seq > through && m.created_by.is_some()) {
        return Ok(None);
    }
    let (body, _) = request_body(store, record, call)?;
    let messages = from_body(&body);
    if messages.is_empty() {
        return Ok(None);
    }
    Ok(Some(ExactStart { call: index + 1, messages, through_seq: through }))
}

/// The conversation of a request body — Anthropic `messages` of blocks, Chat `messages`, or
/// Responses `input` — as transcript messages. The system prompt is not history (a fork runs on
/// Alisio's instructions); thinking and reasoning items are left out.
pub fn from_body(body: &Value) -> Vec<NewMessage> {
    let mut out = Vec::new();
    if let Some(items) = body.get("input").and_then(Value::as_array) {
        for item in items {
            responses_item(item, &mut out);
        }
        return out;
    }
    for message in body.get("messages").and_then(Value::as_array).into_iter().flatten() {
        let role = message.get("role").and_then(Value::as_str).unwrap_or_default();
        match message.get("content") {
            Some(Value::Array(blocks)) => blocks_message(role, blocks, &mut out),
            Some(Value::String(text)) => match role {
                "tool" => {
                    let id = message.get("tool_call_id").and_then(Value::as_str).unwrap_or_default();
                    out.push(NewMessage::tool_result(id, text.clone()));
                }
                "assistant" => out.push(NewMessage::assistant(text.clone(), chat_calls(message), None)),
                "system" if out.is_empty() => {} // the instructions
                "system" => {
                    out.push(NewMessage { role: crate::transcript::Role::System, ..NewMessage::user(text.clone()) })
                }
                _ => out.push(NewMessage::user(text.clone())),
            },
            _ if role == "assistant" => out.push(NewMessage::assistant(String::new(), chat_calls(message), None)),
            _ => {}
        }
    }
    out
}

fn chat_calls(message: &Value) -> Vec<ToolCall> {
    message
        .get("tool_calls")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|c| ToolCall {
            id: c.get("id").and_then(Value::as_str).unwrap_or_default().to_string(),
            name: c.pointer("/function/name").and_then(Value::as_str).unwrap_or_default().to_string(),
            arguments: c.pointer("/function/arguments").and_then(Value::as_str).unwrap_or("{}").to_string(),
        })
        .collect()
}

/// One message of blocks: text (and tool_use for the assistant), each `tool_result` its own result.
fn blocks_message(role: &str, blocks: &[Value], out: &mut Vec<NewMessage>) {
    let mut text = Vec::new();
    let mut calls = Vec::new();
    for block in blocks {
        match block.get("type").and_then(Value::as_str) {
            Some("text") => text.push(block.get("text").and_then(Value::as_str).unwrap_or_default().to_string()),
            Some("tool_use") => calls.push(ToolCall {
                id: block.get("id").and_then(Value::as_str).unwrap_or_default().to_string(),
                name: block.get("name").and_then(Value::as_str).unwrap_or_default().to_string(),
                arguments: block.get("input").map(Value::to_string).unwrap_or_else(|| "{}".into()),
            }),
            Some("tool_result") => {
                let id = block.get("tool_use_id").and_then(Value::as_str).unwrap_or_default();
                let content = match block.get("content") {
                    Some(Value::String(s)) => s.clone(),
                    Some(Value::Array(parts)) => parts
                        .iter()
                        .filter_map(|p| p.get("text").and_then(Value::as_str))
                        .collect::<Vec<_>>()
                        .join("\n"),
                    _ => String::new(),
                };
                out.push(NewMessage::tool_result(id, content));
            }
            _ => {} // thinking, images: not carried into a fork
        }
    }
    let text = text.join("\n\n");
    match role {
        "assistant" if !text.is_empty() || !calls.is_empty() => out.push(NewMessage::assistant(text, calls, None)),
        "assistant" => {}
        _ if !text.is_empty() => out.push(NewMessage::user(text)),
        _ => {}
    }
}

fn responses_item(item: &Value, out: &mut Vec<NewMessage>) {
    let text = |v: &Value| -> String {
        match v.get("content") {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Array(parts)) => {
                parts.iter().filter_map(|p| p.get("text").and_then(Value::as_str)).collect::<Vec<_>>().join("\n")
            }
            _ => String::new(),
        }
    };
    match item.get("type").and_then(Value::as_str) {
        Some("function_call") => {
            let call = ToolCall {
                id: item.get("call_id").and_then(Value::as_str).unwrap_or_default().to_string(),
                name: item.get("name").and_then(Value::as_str).unwrap_or_default().to_string(),
                arguments: item.get("arguments").and_then(Value::as_str).unwrap_or("{}").to_string(),
            };
            // Calls after an answer's text (or after each other) belong to that one answer.
            match out.last_mut() {
                Some(last) if last.role == crate::transcript::Role::Assistant => last.tool_calls.push(call),
                _ => out.push(NewMessage::assistant(String::new(), vec![call], None)),
            }
        }
        Some("function_call_output") => {
            let id = item.get("call_id").and_then(Value::as_str).unwrap_or_default();
            let output = item.get("output").and_then(Value::as_str).unwrap_or_default();
            out.push(NewMessage::tool_result(id, output.to_string()));
        }
        Some("message") | None => match item.get("role").and_then(Value::as_str) {
            Some("assistant") => out.push(NewMessage::assistant(text(item), Vec::new(), None)),
            Some("system" | "developer") if out.is_empty() => {}
            Some(_) => out.push(NewMessage::user(text(item))),
            None => {}
        },
        _ => {} // reasoning and other items
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::from_body;
    use crate::transcript::Role;

    #[test]
    fn each_apis_body_becomes_transcript_messages_with_calls_beside_their_answers() {
        let anthropic = json!({"system": [{"type": "text", "text": "be brief"}], "messages": [
            {"role": "user", "content": [{"type": "text", "text": "<reminder>"}, {"type": "text", "text": "read a"}]},
            {"role": "assistant", "content": [{"type": "thinking", "thinking": "…"}, {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"file_path": "a"}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": [{"type": "text", "text": "A"}]}, {"type": "text", "text": "and?"}]},
        ]});
        let m = from_body(&anthropic);
        let shape: Vec<(Role, &str, usize, Option<&str>)> =
            m.iter().map(|m| (m.role, m.content.as_str(), m.tool_calls.len(), m.tool_call_id.as_deref())).collect();
        assert_eq!(
            shape,
            [
                (Role::User, "<reminder>\n\nread a", 0, None),
                (Role::Assistant, "", 1, None),
                (Role::Tool, "A", 0, Some("toolu_1")),
                (Role::User, "and?", 0, None)
            ]
        );
        assert_eq!(m[1].tool_calls[0].arguments, r#"{"file_path":"a"}"#);

        let responses = json!({"input": [
            {"role": "developer", "content": "instructions"},
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "run it"}]},
            {"type": "reasoning", "encrypted_content": "x"},
            {"type": "function_call", "call_id": "c1", "name": "exec", "arguments": "{}"},
            {"type": "function_call", "call_id": "c2", "name": "exec", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "c1", "output": "one"},
            {"type": "function_call_output", "call_id": "c2", "output": "two"},
        ]});
        let m = from_body(&responses);
        assert_eq!(m.len(), 4, "the instructions are not history; both calls are one answer's");
        assert_eq!(m[1].tool_calls.iter().map(|c| c.id.as_str()).collect::<Vec<_>>(), ["c1", "c2"]);
    }
}
