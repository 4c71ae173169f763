//! Chat Completions wire format: request messages, streamed and whole answers.

use serde::Deserialize;
use serde_json::Value;

use super::chunks::ChatChunk;
use super::wire::{outbound_arguments, ChatCall, ChatFunction, WireItem};
use super::{Completion, Usage};
use crate::transcript::{Message, Role, ToolCall};

/// The `messages` array for a system prompt and transcript.
pub fn wire_messages(system: &str, messages: Vec<Message>) -> Vec<WireItem> {
    let mut out = Vec::with_capacity(messages.len() + 1);
    // An imported session whose source recorded no system prompt has none to send.
    if !system.is_empty() {
        out.push(WireItem::Text { role: "system", content: system.to_string() });
    }
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
        let chunk: ChatChunk =
            serde_json::from_str(data).map_err(|e| format!("sent a stream chunk that is not valid JSON ({e})"))?;
        if let Some(error) = chunk.error.as_ref().filter(|e| !e.is_null()) {
            return Err(format!("reported an error mid-stream: {error}"));
        }
        self.usage.merge(&chunk.usage());
        let Some(choice) = chunk.choices.unwrap_or_default().into_iter().next() else { return Ok(None) };
        let mut delta_text = None;
        if let Some(delta) = choice.delta {
            if let Some(text) = delta.content.filter(|t| !t.is_empty()) {
                self.text.push_str(&text);
                delta_text = Some(text);
            }
            for (position, part) in delta.tool_calls.unwrap_or_default().into_iter().enumerate() {
                let index = part.index.unwrap_or(position);
                while self.calls.len() <= index {
                    self.calls.push(PartialCall::default());
                }
                let slot = &mut self.calls[index];
                // The first piece names the call; later pieces only add arguments.
                if let Some(id) = part.id.filter(|s| !s.is_empty() && slot.id.is_empty()) {
                    slot.id = id;
                }
                let function = part.function.unwrap_or_default();
                if let Some(name) = function.name.filter(|s| !s.is_empty() && slot.name.is_empty()) {
                    slot.name = name;
                }
                if let Some(arguments) = function.arguments {
                    slot.arguments.push_str(&arguments);
                }
            }
        }
        if let Some(reason) = choice.finish_reason {
            self.finish_reason = Some(reason);
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
            response_id: None,
            cache_diagnostics: None,
            context_edits: None,
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
    let answer = ChatChunk::deserialize(body).map_err(|e| format!("sent an answer of the wrong shape ({e})"))?;
    let usage = answer.usage();
    let choice = answer.choices.unwrap_or_default().into_iter().next().ok_or("sent an answer without `choices`")?;
    let message = choice.message.ok_or("sent a choice without a `message`")?;
    let tool_calls = collect_calls(message.tool_calls.unwrap_or_default().into_iter().map(|call| {
        let function = call.function.unwrap_or_default();
        (call.id.unwrap_or_default(), function.name.unwrap_or_default(), function.arguments.unwrap_or_default())
    }))?;
    Ok(Completion {
        text: message.content.unwrap_or_default(),
        tool_calls,
        provider_items: None,
        finish_reason: choice.finish_reason,
        usage,
        ttft_ms: None,
        duration_ms: 0,
        response_id: None,
        cache_diagnostics: None,
        context_edits: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn split_tool_calls_text_and_usage_fold_into_one_answer() {
        let mut stream = ChatStream::default();
        let chunks = [
            r#"{"choices":[{"index":0,"delta":{"role":"assistant","content":"Look"}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"content":null,"tool_calls":[{"index":0,"id":"call_1-Zq.9/x","type":"function","function":{"name":"grep","arguments":"{\"pat"}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"tern\":\"x\"}"}}]}}]}"#,
            r#"{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}],"usage":null}"#,
            r#"{"choices":[],"usage":{"prompt_tokens":"n/a","completion_tokens":7},"timings":{"cache_n":90,"prompt_n":10,"prompt_ms":12.5}}"#,
            "[DONE]",
        ];
        let texts: Vec<Option<String>> = chunks.iter().map(|c| stream.apply(c).unwrap()).collect();
        assert_eq!(texts[0].as_deref(), Some("Look"));
        assert!(stream.done);
        let answer = stream.finish().unwrap();
        assert_eq!(answer.text, "Look");
        assert_eq!(
            answer.tool_calls,
            vec![ToolCall { id: "call_1-Zq.9/x".into(), name: "grep".into(), arguments: r#"{"pattern":"x"}"#.into() }]
        );
        // A prompt count of the wrong type is absent, so llama.cpp's timings fill it in.
        assert_eq!(answer.usage.prompt_tokens, Some(100));
        assert_eq!(answer.usage.cached_tokens, Some(90));
        assert_eq!(answer.usage.completion_tokens, Some(7));
        assert_eq!(answer.usage.prompt_ms, Some(12.5));
    }

    #[test]
    fn errors_mid_stream_and_cut_streams_say_what_happened() {
        let mut stream = ChatStream::default();
        let err = stream.apply(r#"{"error":{"message":"overloaded"}}"#).unwrap_err();
        assert!(err.contains("reported an error mid-stream") && err.contains("overloaded"), "{err}");
        assert!(ChatStream::default().apply("{broken").unwrap_err().contains("not valid JSON"));
        let mut cut = ChatStream::default();
        cut.apply(r#"{"choices":[{"delta":{"content":"half"}}]}"#).unwrap();
        assert_eq!(cut.finish().unwrap_err(), "closed the stream before the answer was complete");
    }

    #[test]
    fn a_whole_answer_with_content_parts_keeps_its_calls() {
        let body = serde_json::json!({
            "choices": [{"message": {"content": [{"type": "text", "text": "x"}],
                         "tool_calls": [{"id": "c", "type": "function", "function": {"name": "ls", "arguments": "{}"}}]},
                         "finish_reason": "tool_calls"}],
            "usage": {"prompt_tokens": 5, "prompt_tokens_details": {"cached_tokens": 3}}
        });
        let answer = parse_completion(&body).unwrap();
        assert_eq!(answer.text, "", "content parts are not text the engine stores");
        assert_eq!(answer.tool_calls.len(), 1);
        assert_eq!((answer.usage.prompt_tokens, answer.usage.cached_tokens), (Some(5), Some(3)));
        assert!(parse_completion(&serde_json::json!({"object": "list"})).unwrap_err().contains("without `choices`"));
    }

    #[test]
    fn usage_is_read_from_each_servers_shape() {
        let usage = |body: serde_json::Value| parse_completion(&body).unwrap().usage;
        let choice = serde_json::json!([{"message": {"content": "x"}, "finish_reason": "stop"}]);
        // OpenAI and vLLM: prompt_tokens_details.cached_tokens.
        let vllm = usage(serde_json::json!({"choices": choice, "usage": {"prompt_tokens": 900, "completion_tokens": 5,
            "prompt_tokens_details": {"cached_tokens": 896}}}));
        assert_eq!((vllm.prompt_tokens, vllm.cached_tokens, vllm.completion_tokens), (Some(900), Some(896), Some(5)));
        // llama.cpp: timings.cache_n beside a usage without details.
        let llama =
            usage(serde_json::json!({"choices": choice, "usage": {"prompt_tokens": 120, "completion_tokens": 3},
            "timings": {"cache_n": 100, "prompt_n": 20, "prompt_ms": 8.0, "predicted_n": 3}}));
        assert_eq!((llama.prompt_tokens, llama.cached_tokens, llama.prompt_ms), (Some(120), Some(100), Some(8.0)));
        // Ollama: its own counters where usage is missing (no cached figure: none is reported).
        let ollama = usage(serde_json::json!({"choices": choice, "prompt_eval_count": 42, "eval_count": 7,
            "prompt_eval_duration": 12_500_000u64}));
        assert_eq!((ollama.prompt_tokens, ollama.completion_tokens, ollama.cached_tokens), (Some(42), Some(7), None));
        assert_eq!(ollama.prompt_ms, Some(12.5));
        // LM Studio: plain usage.
        let lmstudio = usage(
            serde_json::json!({"choices": choice, "usage": {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12}}),
        );
        assert_eq!((lmstudio.prompt_tokens, lmstudio.cached_tokens), (Some(10), None));
    }
}
