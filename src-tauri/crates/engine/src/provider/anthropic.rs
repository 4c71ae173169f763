//! Anthropic Messages API: `system` apart as blocks, `messages` of content blocks with
//! `tool_use` / `tool_result` under the ids as given, and prompt caching by `cache_control`
//! breakpoints on the last system block, the last tool and the last message, so each turn — and a
//! summary request appended to the unchanged previous one — reads the previous prefix from cache.
//! Usage: input = input + cache read + cache creation; cached = cache read; cache writes apart.

use serde_json::{json, Value};

use super::context_management::{compaction_item, COMPACTION};
use super::wire::WireItem;
use super::{Completion, Usage};
use crate::transcript::{Message, Role, ToolCall};

/// What every request asks the server to cache at a breakpoint.
fn breakpoint() -> Value {
    json!({"type": "ephemeral"})
}

/// The conversation as Anthropic reads it: the system prompt first (as `Text` with role `system`,
/// which the body takes out into `system`), then user and assistant messages of content blocks.
/// Consecutive messages of one role are merged (tool results and the text after them are one
/// user message); a system message inside the history (an imported agent's reminder) is user text.
pub fn wire_messages(system: &str, messages: Vec<Message>) -> Vec<WireItem> {
    let mut out: Vec<WireItem> = Vec::with_capacity(messages.len() + 1);
    if !system.is_empty() {
        out.push(WireItem::Text { role: "system", content: system.to_string() });
    }
    for message in messages {
        let (role, blocks) = match message.role {
            Role::Assistant => {
                let mut blocks = Vec::with_capacity(message.tool_calls.len() + 2);
                // A server compaction opened this answer: it goes back first, as received.
                if let Some(item) = compaction_item(message.provider_items.as_ref()) {
                    blocks.push(item.clone());
                }
                if !message.content.is_empty() {
                    blocks.push(json!({"type": "text", "text": message.content}));
                }
                blocks.extend(message.tool_calls.into_iter().map(|call| {
                    json!({"type": "tool_use", "id": call.id, "name": call.name, "input": input_of(&call.arguments)})
                }));
                ("assistant", blocks)
            }
            Role::Tool => {
                let id = message.tool_call_id.unwrap_or_default();
                ("user", vec![json!({"type": "tool_result", "tool_use_id": id, "content": message.content})])
            }
            // The pins restated after a server compaction: a system message of their own.
            Role::System if message.summary && is_pinned(&message) => {
                ("system", vec![json!({"type": "text", "text": message.content})])
            }
            Role::User | Role::System => ("user", vec![json!({"type": "text", "text": message.content})]),
        };
        if blocks.is_empty() {
            continue;
        }
        match out.last_mut() {
            Some(WireItem::Blocks { role: last, content }) if *last == role => content.extend(blocks),
            _ => out.push(WireItem::Blocks { role, content: blocks }),
        }
    }
    out
}

/// A pinned block (`meta.pinned`).
fn is_pinned(message: &Message) -> bool {
    message.meta.as_ref().and_then(|m| m.get("pinned")).and_then(Value::as_bool) == Some(true)
}

/// A call's arguments as the `input` object (arguments that are not a JSON object are kept
/// under `invalid_arguments`, as the other APIs send them).
fn input_of(arguments: &str) -> Value {
    match serde_json::from_str::<Value>(arguments) {
        Ok(value @ Value::Object(_)) => value,
        _ if arguments.trim().is_empty() => json!({}),
        _ => json!({"invalid_arguments": arguments}),
    }
}

/// The request body: `system` blocks, `messages`, `tools` as `input_schema`, the three cache
/// breakpoints. `tool_choice_none` keeps the tools (the prefix) and forbids calling them.
pub fn body(
    model: &str,
    wire: &[WireItem],
    tools: &Value,
    max_tokens: u32,
    stream: bool,
    tool_choice_none: bool,
) -> Value {
    let mut system = Vec::new();
    let mut messages = Vec::with_capacity(wire.len());
    for item in wire {
        match item {
            WireItem::Text { role: "system", content } if messages.is_empty() => {
                system.push(json!({"type": "text", "text": content}));
            }
            WireItem::Text { content, .. } => {
                messages.push(json!({"role": "user", "content": [{"type": "text", "text": content}]}));
            }
            other => messages.push(serde_json::to_value(other).unwrap_or(Value::Null)),
        }
    }
    if let Some(last) = system.last_mut() {
        last["cache_control"] = breakpoint();
    }
    if let Some(block) = messages.last_mut().and_then(|m| m["content"].as_array_mut()).and_then(|c| c.last_mut()) {
        block["cache_control"] = breakpoint();
    }
    let mut body = json!({"model": model, "max_tokens": max_tokens, "stream": stream, "messages": messages});
    if !system.is_empty() {
        body["system"] = Value::Array(system);
    }
    if let Some(list) = tools.as_array().filter(|t| !t.is_empty()) {
        let mut list = list.clone();
        if let Some(last) = list.last_mut() {
            last["cache_control"] = breakpoint();
        }
        body["tools"] = Value::Array(list);
        if tool_choice_none {
            body["tool_choice"] = json!({"type": "none"});
        }
    }
    body
}

/// `stop_reason` in the words the rest of Alisio uses (`length` marks a cut answer).
fn finish(stop_reason: &str) -> String {
    match stop_reason {
        "end_turn" | "stop_sequence" => "stop",
        "tool_use" => "tool_calls",
        "max_tokens" => "length",
        other => other,
    }
    .to_string()
}

/// The tokens of the compaction iterations of `usage.iterations` (input, output): a server
/// compaction is a sampling step of its own, billed beside the message's top-level figures.
fn compaction_iterations(value: &Value) -> Option<(u64, u64)> {
    let iterations = value.get("iterations")?.as_array()?;
    let compactions = iterations.iter().filter(|i| i.get("type").and_then(Value::as_str) == Some(COMPACTION));
    let sum = compactions.fold((0, 0), |(i, o), it| {
        let n = |k: &str| it.get(k).and_then(Value::as_u64).unwrap_or(0);
        (i + n("input_tokens"), o + n("output_tokens"))
    });
    (sum != (0, 0)).then_some(sum)
}

/// Adds the compaction iterations to the message's figures (once, when the answer is complete).
fn add_iterations(usage: &mut Usage, iterations: Option<(u64, u64)>) {
    if let Some((input, output)) = iterations {
        usage.prompt_tokens = Some(usage.prompt_tokens.unwrap_or(0) + input);
        usage.completion_tokens = Some(usage.completion_tokens.unwrap_or(0) + output);
    }
}

/// A compaction block as it goes back in the next request: its type and its summary.
fn compaction_block(content: Option<&str>) -> Value {
    json!({"type": COMPACTION, "content": content})
}

/// `context_management.applied_edits`, when the server edited something.
fn applied_edits(value: Option<&Value>) -> Option<Value> {
    value?.get("applied_edits").filter(|e| e.as_array().is_some_and(|a| !a.is_empty())).cloned()
}

/// Fills `usage` from an Anthropic `usage` object (whole or in part, as `message_delta` sends it).
fn read_usage(usage: &mut Usage, value: &Value) {
    let read = crate::cost::AnthropicUsage::read(value);
    if read.prompt.is_some() {
        usage.prompt_tokens = read.prompt;
        usage.cached_tokens = read.cache_read.or(usage.cached_tokens);
        usage.cache_write_tokens = read.cache_write.or(usage.cache_write_tokens);
    }
    if let Some(output) = read.output {
        usage.completion_tokens = Some(output);
    }
}

/// A whole (non-streamed) message.
pub fn parse_message(value: &Value) -> Result<Completion, String> {
    if value.get("type").and_then(Value::as_str) == Some("error") {
        return Err(format!("reported an error: {}", value["error"]));
    }
    let content = value.get("content").and_then(Value::as_array).ok_or("sent a message without `content`")?;
    let mut text = String::new();
    let mut tool_calls = Vec::new();
    let mut compaction = None;
    for block in content {
        match block.get("type").and_then(Value::as_str) {
            Some("text") => text.push_str(block.get("text").and_then(Value::as_str).unwrap_or_default()),
            Some(COMPACTION) => compaction = Some(compaction_block(block.get("content").and_then(Value::as_str))),
            Some("tool_use") => tool_calls.push(ToolCall {
                id: block.get("id").and_then(Value::as_str).unwrap_or_default().to_string(),
                name: block.get("name").and_then(Value::as_str).unwrap_or_default().to_string(),
                arguments: block.get("input").map(Value::to_string).unwrap_or_else(|| "{}".into()),
            }),
            _ => {} // thinking and other blocks are not part of the answer's text
        }
    }
    let mut usage = Usage::default();
    if let Some(u) = value.get("usage") {
        read_usage(&mut usage, u);
        add_iterations(&mut usage, compaction_iterations(u));
    }
    Ok(Completion {
        text,
        tool_calls,
        provider_items: compaction.map(|block| json!([block])),
        context_edits: applied_edits(value.get("context_management")),
        finish_reason: value.get("stop_reason").and_then(Value::as_str).map(finish),
        usage,
        ttft_ms: None,
        duration_ms: 0,
        response_id: value.get("id").and_then(Value::as_str).map(str::to_string),
        cache_diagnostics: value.get("diagnostics").filter(|d| !d.is_null()).cloned(),
    })
}

/// A block being streamed.
enum Block {
    Text,
    Tool { id: String, name: String, json: String },
    Compaction,
    Other,
}

/// The streamed message, event by event (`message_start`, `content_block_start/delta/stop`,
/// `message_delta`, `message_stop`; `ping` ignored; `error` is the answer's failure).
#[derive(Default)]
pub struct AnthropicStream {
    text: String,
    open: Vec<(u64, Block)>,
    tool_calls: Vec<ToolCall>,
    usage: Usage,
    stop_reason: Option<String>,
    id: Option<String>,
    diagnostics: Option<Value>,
    /// A server compaction's summary as it streamed in (`None` inside: it failed).
    compaction: Option<Option<String>>,
    iterations: Option<(u64, u64)>,
    context_edits: Option<Value>,
    pub done: bool,
}

impl AnthropicStream {
    /// Applies one event's data; returns streamed text.
    pub fn apply(&mut self, data: &str) -> Result<Option<String>, String> {
        let event: Value = serde_json::from_str(data).map_err(|e| format!("sent an event that is not JSON ({e})"))?;
        let index = event.get("index").and_then(Value::as_u64).unwrap_or(0);
        match event.get("type").and_then(Value::as_str).unwrap_or_default() {
            "message_start" => {
                if let Some(u) = event.pointer("/message/usage") {
                    read_usage(&mut self.usage, u);
                }
                self.id = event.pointer("/message/id").and_then(Value::as_str).map(str::to_string);
                self.keep_diagnostics(event.pointer("/message/diagnostics"));
            }
            "content_block_start" => {
                let block = &event["content_block"];
                let started = match block.get("type").and_then(Value::as_str) {
                    Some("text") => {
                        let text = block.get("text").and_then(Value::as_str).unwrap_or_default().to_string();
                        self.open.push((index, Block::Text));
                        if !text.is_empty() {
                            self.text.push_str(&text);
                            return Ok(Some(text));
                        }
                        return Ok(None);
                    }
                    Some(COMPACTION) => {
                        self.compaction = Some(block.get("content").and_then(Value::as_str).map(str::to_string));
                        Block::Compaction
                    }
                    Some("tool_use") => Block::Tool {
                        id: block.get("id").and_then(Value::as_str).unwrap_or_default().to_string(),
                        name: block.get("name").and_then(Value::as_str).unwrap_or_default().to_string(),
                        json: String::new(),
                    },
                    _ => Block::Other,
                };
                self.open.push((index, started));
            }
            "content_block_delta" => {
                let delta = &event["delta"];
                let block = self.open.iter_mut().find(|(i, _)| *i == index).map(|(_, b)| b);
                match (delta.get("type").and_then(Value::as_str), block) {
                    (Some("text_delta"), Some(Block::Text)) => {
                        let piece = delta.get("text").and_then(Value::as_str).unwrap_or_default().to_string();
                        self.text.push_str(&piece);
                        return Ok(Some(piece).filter(|p| !p.is_empty()));
                    }
                    (Some("input_json_delta"), Some(Block::Tool { json, .. })) => {
                        json.push_str(delta.get("partial_json").and_then(Value::as_str).unwrap_or_default());
                    }
                    (Some("compaction_delta"), Some(Block::Compaction)) => {
                        if let Some(piece) = delta.get("content").and_then(Value::as_str) {
                            self.compaction.get_or_insert(None).get_or_insert_with(String::new).push_str(piece);
                        }
                    }
                    (_, None) => return Err(format!("sent a delta for block {index}, which was never started")),
                    _ => {}
                }
            }
            "content_block_stop" => {
                if let Some(at) = self.open.iter().position(|(i, _)| *i == index) {
                    if let (_, Block::Tool { id, name, json }) = self.open.remove(at) {
                        let arguments = if json.trim().is_empty() { "{}".to_string() } else { json };
                        self.tool_calls.push(ToolCall { id, name, arguments });
                    }
                }
            }
            "message_delta" => {
                if let Some(reason) = event.pointer("/delta/stop_reason").and_then(Value::as_str) {
                    self.stop_reason = Some(finish(reason));
                }
                if let Some(u) = event.get("usage") {
                    read_usage(&mut self.usage, u);
                    self.iterations = compaction_iterations(u).or(self.iterations);
                }
                self.keep_diagnostics(event.get("diagnostics").or_else(|| event.pointer("/delta/diagnostics")));
                self.context_edits = applied_edits(event.get("context_management")).or(self.context_edits.take());
            }
            "message_stop" => self.done = true,
            "error" => return Err(format!("reported an error: {}", event["error"])),
            _ => {} // ping, and events a newer API may add
        }
        Ok(None)
    }

    /// The cache diagnostics, wherever the stream carries them (the last one said wins).
    fn keep_diagnostics(&mut self, diagnostics: Option<&Value>) {
        if let Some(d) = diagnostics.filter(|d| !d.is_null()) {
            self.diagnostics = Some(d.clone());
        }
    }

    pub fn finish(mut self) -> Result<Completion, String> {
        if !self.done && self.stop_reason.is_none() {
            return Err("ended the stream before the message was complete".into());
        }
        add_iterations(&mut self.usage, self.iterations);
        Ok(Completion {
            text: self.text,
            tool_calls: self.tool_calls,
            provider_items: self.compaction.map(|c| json!([compaction_block(c.as_deref())])),
            context_edits: self.context_edits,
            finish_reason: self.stop_reason,
            usage: self.usage,
            ttft_ms: None,
            duration_ms: 0,
            response_id: self.id,
            cache_diagnostics: self.diagnostics,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn message(role: Role, content: &str) -> Message {
        Message {
            seq: 0,
            anchor: 0,
            role,
            content: content.into(),
            tool_calls: Vec::new(),
            tool_call_id: None,
            provider_items: None,
            compacted: false,
            summary: false,
            truncated: false,
            uncertain: false,
            reverted: false,
            created_by: None,
            compacted_by: None,
            created_at: String::new(),
            chars: 0,
            source_id: None,
            meta: None,
            off_view: false,
        }
    }

    #[test]
    fn the_body_carries_three_breakpoints_and_ids_verbatim() {
        let mut call = message(Role::Assistant, "reading");
        call.tool_calls =
            vec![ToolCall { id: "toolu_01A".into(), name: "read_file".into(), arguments: "{\"path\":\"a\"}".into() }];
        let mut result = message(Role::Tool, "contents");
        result.tool_call_id = Some("toolu_01A".into());
        let wire =
            wire_messages("be brief", vec![message(Role::User, "read a"), call, result, message(Role::User, "and?")]);
        let tools = json!([{"name": "read_file", "input_schema": {"type": "object"}}, {"name": "shell", "input_schema": {"type": "object"}}]);
        let body = body("claude-x", &wire, &tools, 1024, true, false);
        assert_eq!(
            body["system"],
            json!([{"type": "text", "text": "be brief", "cache_control": {"type": "ephemeral"}}])
        );
        assert_eq!(body["tools"][1]["cache_control"], json!({"type": "ephemeral"}));
        assert!(body["tools"][0].get("cache_control").is_none());
        let messages = body["messages"].as_array().unwrap();
        assert_eq!(messages.len(), 3, "user, assistant, then the result and the next prompt as one user message");
        assert_eq!(
            messages[1]["content"][1],
            json!({"type": "tool_use", "id": "toolu_01A", "name": "read_file", "input": {"path": "a"}})
        );
        assert_eq!(
            messages[2]["content"][0],
            json!({"type": "tool_result", "tool_use_id": "toolu_01A", "content": "contents"})
        );
        assert_eq!(
            messages[2]["content"][1],
            json!({"type": "text", "text": "and?", "cache_control": {"type": "ephemeral"}})
        );
        assert!(body.get("tool_choice").is_none());
        assert_eq!(super::body("m", &wire, &tools, 10, false, true)["tool_choice"], json!({"type": "none"}));
    }

    #[test]
    fn a_stream_gives_text_calls_stop_reason_and_usage_with_cache_reads_and_writes() {
        let events = [
            r#"{"type":"message_start","message":{"id":"msg_1","usage":{"input_tokens":12,"cache_read_input_tokens":3000,"cache_creation_input_tokens":200,"output_tokens":1}}}"#,
            r#"{"type":"ping"}"#,
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Let me "}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"look."}}"#,
            r#"{"type":"content_block_stop","index":0}"#,
            r#"{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_9","name":"read_file","input":{}}}"#,
            r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"path\":"}}"#,
            r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"\"a.txt\"}"}}"#,
            r#"{"type":"content_block_stop","index":1}"#,
            r#"{"type":"message_delta","delta":{"stop_reason":"tool_use"},"usage":{"output_tokens":41}}"#,
            r#"{"type":"message_stop"}"#,
        ];
        let mut stream = AnthropicStream::default();
        let mut shown = String::new();
        for event in events {
            if let Some(text) = stream.apply(event).unwrap() {
                shown.push_str(&text);
            }
        }
        assert!(stream.done);
        let completion = stream.finish().unwrap();
        assert_eq!((shown.as_str(), completion.text.as_str()), ("Let me look.", "Let me look."));
        assert_eq!(
            completion.tool_calls,
            vec![ToolCall { id: "toolu_9".into(), name: "read_file".into(), arguments: "{\"path\":\"a.txt\"}".into() }]
        );
        assert_eq!(completion.finish_reason.as_deref(), Some("tool_calls"));
        let u = completion.usage;
        assert_eq!(
            (u.prompt_tokens, u.cached_tokens, u.cache_write_tokens, u.completion_tokens),
            (Some(3212), Some(3000), Some(200), Some(41))
        );

        let mut failing = AnthropicStream::default();
        let error = failing.apply(r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#);
        assert!(error.unwrap_err().contains("overloaded_error"));
        assert!(AnthropicStream::default().finish().is_err(), "a stream cut before message_stop is an error");
    }

    #[test]
    fn a_server_compaction_opens_the_answer_goes_back_first_and_is_billed_with_its_iteration() {
        let events = [
            r#"{"type":"message_start","message":{"id":"msg_2","usage":{"input_tokens":900,"output_tokens":1}}}"#,
            r#"{"type":"content_block_start","index":0,"content_block":{"type":"compaction","content":""}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"compaction_delta","content":"We edited "}}"#,
            r#"{"type":"content_block_delta","index":0,"delta":{"type":"compaction_delta","content":"src/a.rs."}}"#,
            r#"{"type":"content_block_stop","index":0}"#,
            r#"{"type":"content_block_start","index":1,"content_block":{"type":"text","text":"Done."}}"#,
            r#"{"type":"content_block_stop","index":1}"#,
            r#"{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":5,"iterations":[{"type":"compaction","input_tokens":60000,"output_tokens":300},{"type":"message","input_tokens":900,"output_tokens":5}]},"context_management":{"applied_edits":[{"type":"clear_tool_uses_20250919","cleared_tool_uses":4,"cleared_input_tokens":12000}]}}"#,
            r#"{"type":"message_stop"}"#,
        ];
        let mut stream = AnthropicStream::default();
        for event in events {
            stream.apply(event).unwrap();
        }
        let completion = stream.finish().unwrap();
        assert_eq!(completion.text, "Done.");
        let block = json!({"type": "compaction", "content": "We edited src/a.rs."});
        assert_eq!(completion.provider_items, Some(json!([block.clone()])));
        assert_eq!((completion.usage.prompt_tokens, completion.usage.completion_tokens), (Some(60_900), Some(305)));
        assert_eq!(completion.context_edits.unwrap()[0]["cleared_tool_uses"], 4);
        // The block goes back first in the answer that carried it.
        let mut answer = message(Role::Assistant, "Done.");
        answer.provider_items = completion.provider_items.clone();
        let wire = wire_messages("", vec![answer]);
        let body = body("m", &wire, &json!([]), 10, false, false);
        assert_eq!(body["messages"][0]["content"][0], block);
        assert_eq!(body["messages"][0]["content"][1]["text"], "Done.");
        // Whole, the same.
        let whole = json!({"id": "msg_3", "content": [block, {"type": "text", "text": "Done."}], "stop_reason": "end_turn",
                           "usage": {"input_tokens": 10, "output_tokens": 2, "iterations": [{"type": "compaction", "input_tokens": 50, "output_tokens": 7}]}});
        let parsed = parse_message(&whole).unwrap();
        assert_eq!((parsed.usage.prompt_tokens, parsed.usage.completion_tokens), (Some(60), Some(9)));
        assert!(parsed.provider_items.is_some() && parsed.context_edits.is_none());
    }
}
