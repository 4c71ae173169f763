//! An in-process model that answers from a script: the demo session and the engine's unit tests
//! drive the real agent loop and compaction with it, without any HTTP server. Answers are
//! Chat Completions documents, parsed by the same code that parses a server's answers.

use std::collections::VecDeque;
use std::sync::{Mutex, MutexGuard};

use futures_util::future::BoxFuture;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use super::ModelClient;
use crate::config::Api;
use crate::error::{Error, Result};
use crate::provider::{parse_answer, Completion, Window, WindowSource};

#[derive(Default)]
struct Script {
    turns: VecDeque<Value>,
    summaries: VecDeque<Value>,
    received: Vec<Value>,
}

/// Answers requests in order from one queue, and native summarizer requests (they carry
/// `tool_choice: "none"`) from another, so a script can stay readable when compactions interleave.
#[derive(Default)]
pub struct ScriptedClient {
    script: Mutex<Script>,
    window: Option<u64>,
}

impl ScriptedClient {
    pub fn new(turns: impl IntoIterator<Item = Value>, summaries: impl IntoIterator<Item = Value>) -> Self {
        let script = Script {
            turns: turns.into_iter().collect(),
            summaries: summaries.into_iter().collect(),
            received: Vec::new(),
        };
        Self { script: Mutex::new(script), window: None }
    }

    /// Reports `window` as the server's context window.
    pub fn with_window(mut self, window: u64) -> Self {
        self.window = Some(window);
        self
    }

    /// Every request body received so far, in order.
    pub fn received(&self) -> Vec<Value> {
        self.lock().received.clone()
    }

    fn lock(&self) -> MutexGuard<'_, Script> {
        self.script.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn answer(&self, body: &Value) -> Result<Completion> {
        let mut script = self.lock();
        script.received.push(body.clone());
        let summarizer = body.get("tool_choice").and_then(Value::as_str) == Some("none");
        let next = if summarizer { script.summaries.pop_front() } else { script.turns.pop_front() };
        let answer = next.ok_or_else(|| Error::Provider("the script has no answer for this request".into()))?;
        parse_answer(Api::Chat, &answer).map_err(|what| Error::Provider(format!("the scripted answer {what}")))
    }
}

impl ModelClient for ScriptedClient {
    fn send<'a>(
        &'a self,
        body: &'a Value,
        on_delta: &'a mut (dyn FnMut(&str) + Send),
        cancel: &'a CancellationToken,
    ) -> BoxFuture<'a, Result<Completion>> {
        Box::pin(async move {
            if cancel.is_cancelled() {
                return Err(Error::Cancelled);
            }
            let completion = self.answer(body)?;
            if !completion.text.is_empty() {
                on_delta(&completion.text);
            }
            Ok(Completion { ttft_ms: Some(0), ..completion })
        })
    }

    fn fetch_context_window(&self) -> BoxFuture<'_, Result<Option<Window>>> {
        Box::pin(async move { Ok(self.window.map(|tokens| Window { tokens, source: WindowSource::Models })) })
    }
}

/// A final answer without tool calls, with usage as a server reports it.
pub fn answer(text: &str, prompt_tokens: u64, cached_tokens: u64) -> Value {
    serde_json::json!({
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": 40,
                  "prompt_tokens_details": {"cached_tokens": cached_tokens}},
    })
}

/// An answer that calls tools: `(call id, tool name, arguments)`.
pub fn tool_calls(text: &str, calls: &[(&str, &str, Value)], prompt_tokens: u64, cached_tokens: u64) -> Value {
    let calls: Vec<Value> = calls
        .iter()
        .map(|(id, name, args)| {
            serde_json::json!({"id": id, "type": "function", "function": {"name": name, "arguments": args.to_string()}})
        })
        .collect();
    serde_json::json!({
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text, "tool_calls": calls},
                     "finish_reason": "tool_calls"}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": 30,
                  "prompt_tokens_details": {"cached_tokens": cached_tokens}},
    })
}

/// An answer cut by its output budget (`finish_reason: "length"`).
pub fn cut_answer(text: &str, prompt_tokens: u64) -> Value {
    serde_json::json!({
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "length"}],
        "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": 512},
    })
}
