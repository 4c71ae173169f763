//! Typed shapes of what servers send: Chat Completions answers and stream chunks, Responses
//! objects and stream events, llama.cpp's `timings`. Fields servers disagree on (a number sent as
//! a string, content sent as parts) are read leniently: a value of another type counts as absent,
//! never as an error that would lose the answer.

use serde::{Deserialize, Deserializer};
use serde_json::Value;

use super::Usage;

/// Reads `T`, or `None` when the value is null or of another type.
fn lenient<'de, D: Deserializer<'de>, T: serde::de::DeserializeOwned>(d: D) -> Result<Option<T>, D::Error> {
    let value = Value::deserialize(d)?;
    Ok(serde_json::from_value(value).ok())
}

/// A whole chat answer or one streamed chunk: `choices[].message` in the first, `choices[].delta`
/// in the second.
#[derive(Debug, Default, Deserialize)]
pub struct ChatChunk {
    #[serde(default, deserialize_with = "lenient")]
    pub choices: Option<Vec<ChatChoice>>,
    #[serde(default, deserialize_with = "lenient")]
    pub usage: Option<ChatUsage>,
    #[serde(default, deserialize_with = "lenient")]
    pub timings: Option<LlamaTimings>,
    /// Ollama's own counters, where an answer carries them beside (or instead of) `usage`.
    #[serde(flatten)]
    pub ollama: OllamaCounters,
    #[serde(default)]
    pub error: Option<Value>,
}

/// Ollama's per-request figures (`prompt_eval_count`, `eval_count`, durations in nanoseconds).
#[derive(Debug, Default, Deserialize)]
pub struct OllamaCounters {
    #[serde(default, deserialize_with = "lenient")]
    pub prompt_eval_count: Option<u64>,
    #[serde(default, deserialize_with = "lenient")]
    pub prompt_eval_duration: Option<u64>,
    #[serde(default, deserialize_with = "lenient")]
    pub eval_count: Option<u64>,
}

#[derive(Debug, Default, Deserialize)]
pub struct ChatChoice {
    #[serde(default, deserialize_with = "lenient")]
    pub message: Option<ChatDelta>,
    #[serde(default, deserialize_with = "lenient")]
    pub delta: Option<ChatDelta>,
    #[serde(default, deserialize_with = "lenient")]
    pub finish_reason: Option<String>,
}

/// The assistant's text and tool calls (whole in a message, in pieces in a delta).
#[derive(Debug, Default, Deserialize)]
pub struct ChatDelta {
    #[serde(default, deserialize_with = "lenient")]
    pub content: Option<String>,
    #[serde(default, deserialize_with = "lenient")]
    pub tool_calls: Option<Vec<ChatCallPart>>,
}

#[derive(Debug, Default, Deserialize)]
pub struct ChatCallPart {
    /// Which call a streamed piece belongs to (absent in whole answers).
    #[serde(default, deserialize_with = "lenient")]
    pub index: Option<usize>,
    #[serde(default, deserialize_with = "lenient")]
    pub id: Option<String>,
    #[serde(default, deserialize_with = "lenient")]
    pub function: Option<ChatFunctionPart>,
}

#[derive(Debug, Default, Deserialize)]
pub struct ChatFunctionPart {
    #[serde(default, deserialize_with = "lenient")]
    pub name: Option<String>,
    #[serde(default, deserialize_with = "lenient")]
    pub arguments: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
pub struct ChatUsage {
    #[serde(default, deserialize_with = "lenient")]
    pub prompt_tokens: Option<u64>,
    #[serde(default, deserialize_with = "lenient")]
    pub completion_tokens: Option<u64>,
    #[serde(default, deserialize_with = "lenient")]
    pub prompt_tokens_details: Option<PromptTokensDetails>,
}

#[derive(Debug, Default, Deserialize)]
pub struct PromptTokensDetails {
    #[serde(default, deserialize_with = "lenient")]
    pub cached_tokens: Option<u64>,
}

/// llama.cpp's per-request figures.
#[derive(Debug, Default, Deserialize)]
pub struct LlamaTimings {
    #[serde(default, deserialize_with = "lenient")]
    pub cache_n: Option<u64>,
    #[serde(default, deserialize_with = "lenient")]
    pub prompt_n: Option<u64>,
    #[serde(default, deserialize_with = "lenient")]
    pub prompt_ms: Option<f64>,
    #[serde(default, deserialize_with = "lenient")]
    pub predicted_n: Option<u64>,
}

impl ChatChunk {
    pub fn usage(&self) -> Usage {
        let mut usage = Usage::default();
        if let Some(u) = &self.usage {
            usage.prompt_tokens = u.prompt_tokens;
            usage.completion_tokens = u.completion_tokens;
            usage.cached_tokens = u.prompt_tokens_details.as_ref().and_then(|d| d.cached_tokens);
        }
        usage.merge_llama_timings(self.timings.as_ref());
        let ollama = &self.ollama;
        usage.prompt_tokens = usage.prompt_tokens.or(ollama.prompt_eval_count);
        usage.completion_tokens = usage.completion_tokens.or(ollama.eval_count);
        usage.prompt_ms = usage.prompt_ms.or(ollama.prompt_eval_duration.map(|ns| ns as f64 / 1e6));
        usage
    }
}

/// A Responses object (a whole answer, or the one `response.completed` carries). Output items stay
/// JSON: they are stored and sent back unchanged; [`OutputItem`] reads what the engine needs.
#[derive(Debug, Default, Deserialize)]
pub struct ResponseObject {
    #[serde(default, deserialize_with = "lenient")]
    pub status: Option<String>,
    #[serde(default, deserialize_with = "lenient")]
    pub output: Option<Vec<Value>>,
    #[serde(default, deserialize_with = "lenient")]
    pub usage: Option<ResponsesUsage>,
    #[serde(default, deserialize_with = "lenient")]
    pub incomplete_details: Option<IncompleteDetails>,
    #[serde(default, deserialize_with = "lenient")]
    pub timings: Option<LlamaTimings>,
    #[serde(default)]
    pub error: Option<Value>,
}

#[derive(Debug, Default, Deserialize)]
pub struct ResponsesUsage {
    #[serde(default, deserialize_with = "lenient")]
    pub input_tokens: Option<u64>,
    #[serde(default, deserialize_with = "lenient")]
    pub output_tokens: Option<u64>,
    #[serde(default, deserialize_with = "lenient")]
    pub input_tokens_details: Option<PromptTokensDetails>,
}

#[derive(Debug, Default, Deserialize)]
pub struct IncompleteDetails {
    #[serde(default, deserialize_with = "lenient")]
    pub reason: Option<String>,
}

impl ResponseObject {
    pub fn usage(&self) -> Usage {
        let mut usage = Usage::default();
        if let Some(u) = &self.usage {
            usage.prompt_tokens = u.input_tokens;
            usage.completion_tokens = u.output_tokens;
            usage.cached_tokens = u.input_tokens_details.as_ref().and_then(|d| d.cached_tokens);
        }
        usage.merge_llama_timings(self.timings.as_ref());
        usage
    }
}

/// What the engine reads of one output item.
#[derive(Debug, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum OutputItem {
    Message {
        #[serde(default, deserialize_with = "lenient")]
        content: Option<Vec<ContentPart>>,
    },
    FunctionCall {
        #[serde(default, deserialize_with = "lenient")]
        call_id: Option<String>,
        #[serde(default, deserialize_with = "lenient")]
        name: Option<String>,
        #[serde(default, deserialize_with = "lenient")]
        arguments: Option<String>,
    },
    #[serde(other)]
    Other,
}

#[derive(Debug, Default, Deserialize)]
pub struct ContentPart {
    #[serde(default, deserialize_with = "lenient")]
    pub text: Option<String>,
}

/// One streamed Responses event.
#[derive(Debug, Deserialize)]
#[serde(tag = "type")]
pub enum ResponsesEvent {
    #[serde(rename = "response.output_text.delta")]
    OutputTextDelta {
        #[serde(default, deserialize_with = "lenient")]
        delta: Option<String>,
    },
    #[serde(rename = "response.completed", alias = "response.incomplete")]
    Finished { response: Value },
    #[serde(rename = "response.failed")]
    Failed {
        #[serde(default)]
        response: Value,
    },
    #[serde(rename = "error")]
    Error {
        #[serde(default)]
        message: Option<Value>,
    },
    #[serde(other)]
    Other,
}
