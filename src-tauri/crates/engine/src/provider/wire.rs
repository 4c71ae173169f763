//! Typed request items. The conversation part of a request (chat `messages`, Responses `input`,
//! Anthropic `messages`) is
//! built as these and serialized straight to JSON, so building a view of a long session allocates
//! no intermediate JSON trees.

use serde::Serialize;
use serde_json::Value;

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(untagged)]
pub enum WireItem {
    /// `{"role", "content"}`: system, user or plain assistant text (both APIs).
    Text { role: &'static str, content: String },
    /// A chat assistant message that calls tools.
    ChatCalls { role: &'static str, content: Option<String>, tool_calls: Vec<ChatCall> },
    /// A chat tool result.
    ChatToolResult { role: &'static str, tool_call_id: Option<String>, content: String },
    /// A Responses `function_call` item.
    FunctionCall {
        #[serde(rename = "type")]
        kind: &'static str,
        call_id: String,
        name: String,
        arguments: String,
    },
    /// A Responses `function_call_output` item.
    FunctionCallOutput {
        #[serde(rename = "type")]
        kind: &'static str,
        call_id: Option<String>,
        output: String,
    },
    /// An Anthropic message: `{"role", "content": [blocks]}` (text, `tool_use`, `tool_result`).
    Blocks { role: &'static str, content: Vec<Value> },
    /// A provider item stored as received and sent back unchanged.
    Opaque(Value),
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ChatCall {
    pub id: String,
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub function: ChatFunction,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ChatFunction {
    pub name: String,
    pub arguments: String,
}

/// Tool-call arguments as they go back to the server. Arguments that are not valid JSON (a model
/// cut off mid-call, say) are sent as `{"invalid_arguments": "<the original text>"}`: servers such
/// as llama.cpp refuse to render a history holding unparsable arguments, which would fail every
/// later request of the session. Empty arguments go out as `{}`. The stored call keeps the original.
pub fn outbound_arguments(arguments: String) -> String {
    if arguments.trim().is_empty() {
        "{}".to_string()
    } else if serde_json::from_str::<serde::de::IgnoredAny>(&arguments).is_ok() {
        arguments
    } else {
        serde_json::json!({ "invalid_arguments": arguments }).to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unparsable_arguments_are_wrapped_and_valid_ones_kept_byte_for_byte() {
        assert_eq!(outbound_arguments("{\"path\": \"a.txt\"}".into()), "{\"path\": \"a.txt\"}");
        assert_eq!(outbound_arguments("{\"path\": \"a".into()), "{\"invalid_arguments\":\"{\\\"path\\\": \\\"a\"}");
        assert_eq!(outbound_arguments(String::new()), "{}");
    }
}
