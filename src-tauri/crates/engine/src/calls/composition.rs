//! What a request is made of: its characters and estimated tokens by part — system, tools (by
//! who offers them), checkpoint, injected context, user, assistant, tool results — read from the
//! body in any of the three wire shapes (Chat Completions, Responses, Anthropic Messages).

use std::collections::HashSet;

use serde::Serialize;
use serde_json::Value;

use crate::transcript::estimate_tokens;

/// Characters of one part and the tokens they come to.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Share {
    pub chars: u64,
    pub tokens: u64,
}

impl Share {
    fn add(&mut self, chars: u64) {
        self.chars += chars;
        self.tokens = estimate_tokens(self.chars);
    }
}

/// The tools one offerer put in the request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ToolShare {
    /// `builtin` (Alisio's own), the MCP server's name, or `agent` (another agent's own tools).
    pub server: String,
    pub chars: u64,
    pub tokens: u64,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Composition {
    pub system: Share,
    pub tools: Vec<ToolShare>,
    pub checkpoint: Share,
    pub injected: Share,
    pub user: Share,
    pub assistant: Share,
    pub tool_results: Share,
}

impl Composition {
    /// Characters of every part together.
    pub fn chars(&self) -> u64 {
        let tools: u64 = self.tools.iter().map(|t| t.chars).sum();
        [self.system, self.checkpoint, self.injected, self.user, self.assistant, self.tool_results]
            .iter()
            .map(|s| s.chars)
            .sum::<u64>()
            + tools
    }
}

/// Texts a session's compactions put into its requests: checkpoints, and context they re-inserted.
#[derive(Debug, Default)]
pub struct Known {
    pub checkpoints: HashSet<String>,
    pub injected: HashSet<String>,
}

/// Context an agent adds to a user turn on its own (reminders, environment, instructions files).
const INJECTED_PREFIXES: [&str; 7] = [
    "<system-reminder>",
    "<environment_context>",
    "<user_instructions>",
    "# AGENTS.md instructions",
    "<permissions instructions>",
    "<command-name>",
    "<session_context>",
];

/// Context an agent added to a user message on its own, recognised by how it begins.
pub fn is_injected(text: &str) -> bool {
    INJECTED_PREFIXES.iter().any(|p| text.trim_start().starts_with(p))
}

#[derive(Clone, Copy)]
enum Part {
    System,
    Checkpoint,
    Injected,
    User,
    Assistant,
    ToolResults,
}

/// The composition of `body`; `own` says the tools not from MCP are Alisio's built-ins.
pub fn composition(body: &Value, known: &Known, own: bool) -> Composition {
    let mut out = Composition::default();
    let count = |v: &Value| -> u64 {
        match v {
            Value::String(s) => s.chars().count() as u64,
            other => other.to_string().chars().count() as u64,
        }
    };
    // Anthropic `system` and Responses `instructions` sit beside the conversation.
    for key in ["system", "instructions"] {
        if let Some(system) = body.get(key) {
            out.system.add(count(system));
        }
    }
    for tool in body.get("tools").and_then(Value::as_array).into_iter().flatten() {
        let name = tool.pointer("/function/name").or_else(|| tool.get("name")).and_then(Value::as_str).unwrap_or("");
        let server = match name.strip_prefix("mcp__").and_then(|rest| rest.split_once("__")) {
            Some((server, _)) => server.to_string(),
            None if own => "builtin".to_string(),
            None => "agent".to_string(),
        };
        let chars = count(tool);
        match out.tools.iter_mut().find(|t| t.server == server) {
            Some(share) => {
                share.chars += chars;
                share.tokens = estimate_tokens(share.chars);
            }
            None => out.tools.push(ToolShare { server, chars, tokens: estimate_tokens(chars) }),
        }
    }
    let items = body.get("messages").or_else(|| body.get("input")).and_then(Value::as_array);
    for item in items.into_iter().flatten() {
        let role = item.get("role").and_then(Value::as_str);
        let kind = item.get("type").and_then(Value::as_str);
        let base = match (role, kind) {
            (Some("system" | "developer"), _) => Part::System,
            (Some("assistant"), _) => Part::Assistant,
            (Some("tool"), _) => Part::ToolResults,
            (Some(_), _) => Part::User,
            (None, Some("function_call_output" | "custom_tool_call_output" | "local_shell_call_output")) => {
                Part::ToolResults
            }
            (None, _) => Part::Assistant,
        };
        let content = item.get("content");
        match content {
            Some(Value::Array(blocks)) if role.is_some() => {
                for block in blocks {
                    let part = block_part(block, base, known);
                    add(&mut out, part, count(block_text(block).unwrap_or(block)));
                }
                // Tool calls beside the content (Chat Completions).
                if let Some(calls) = item.get("tool_calls") {
                    add(&mut out, Part::Assistant, count(calls));
                }
            }
            Some(Value::String(text)) => {
                add(&mut out, text_part(text, base, known), count(content.unwrap_or(&Value::Null)));
                if let Some(calls) = item.get("tool_calls") {
                    add(&mut out, Part::Assistant, count(calls));
                }
            }
            _ => add(&mut out, base, count(item)),
        }
    }
    out
}

fn add(out: &mut Composition, part: Part, chars: u64) {
    let share = match part {
        Part::System => &mut out.system,
        Part::Checkpoint => &mut out.checkpoint,
        Part::Injected => &mut out.injected,
        Part::User => &mut out.user,
        Part::Assistant => &mut out.assistant,
        Part::ToolResults => &mut out.tool_results,
    };
    share.add(chars);
}

fn block_text(block: &Value) -> Option<&Value> {
    block.get("text").filter(|t| t.is_string())
}

fn block_part(block: &Value, base: Part, known: &Known) -> Part {
    match block.get("type").and_then(Value::as_str) {
        Some("tool_result") => Part::ToolResults,
        Some("tool_use" | "thinking" | "redacted_thinking") => Part::Assistant,
        _ => match block_text(block).and_then(Value::as_str) {
            Some(text) => text_part(text, base, known),
            None => base,
        },
    }
}

/// A user text is a checkpoint or injected context when a compaction or the agent put it there.
fn text_part(text: &str, base: Part, known: &Known) -> Part {
    if !matches!(base, Part::User) {
        return base;
    }
    // Context a plugin injected is stored like a checkpoint (after it): asked first.
    if known.injected.contains(text) || is_injected(text) {
        Part::Injected
    } else if known.checkpoints.contains(text) {
        Part::Checkpoint
    } else {
        Part::User
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_wire_shape_is_split_by_part() {
        let known = Known { checkpoints: HashSet::from(["the checkpoint".to_string()]), ..Known::default() };
        let chat = json!({
            "messages": [
                {"role": "system", "content": "sys"},
                {"role": "user", "content": "the checkpoint"},
                {"role": "user", "content": "hello"},
                {"role": "assistant", "content": "", "tool_calls": [{"id": "1"}]},
                {"role": "tool", "content": "result!"}
            ],
            "tools": [{"type": "function", "function": {"name": "read_file"}},
                      {"type": "function", "function": {"name": "mcp__docs__search"}}]
        });
        let c = composition(&chat, &known, true);
        assert_eq!(c.system.chars, 3);
        assert_eq!(c.checkpoint.chars, 14);
        assert_eq!(c.user.chars, 5);
        assert_eq!(c.tool_results.chars, 7);
        assert_eq!(c.tools.iter().map(|t| t.server.as_str()).collect::<Vec<_>>(), ["builtin", "docs"]);
        assert_eq!(
            c.chars(),
            c.system.chars + 14 + 5 + c.assistant.chars + 7 + c.tools.iter().map(|t| t.chars).sum::<u64>()
        );

        let anthropic = json!({
            "system": [{"type": "text", "text": "s"}],
            "messages": [{"role": "user", "content": [
                {"type": "text", "text": "<system-reminder>\nfiles</system-reminder>"},
                {"type": "tool_result", "tool_use_id": "x", "content": "out"},
                {"type": "text", "text": "do it"}
            ]}],
            "tools": [{"name": "Bash"}]
        });
        let c = composition(&anthropic, &Known::default(), false);
        assert!(c.system.chars > 0 && c.injected.chars > 0 && c.tool_results.chars > 0);
        assert_eq!(c.user.chars, 5);
        assert_eq!(c.tools[0].server, "agent");

        let responses = json!({
            "instructions": "be brief",
            "input": [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]},
                      {"type": "function_call", "name": "shell", "arguments": "{}"},
                      {"type": "function_call_output", "call_id": "c", "output": "ok"}]
        });
        let c = composition(&responses, &Known::default(), false);
        assert_eq!(c.system.chars, 8);
        assert_eq!(c.user.chars, 2);
        assert!(c.assistant.chars > 0 && c.tool_results.chars > 0);
    }
}
