//! The transcript model: stored messages, tool calls and the size estimates every budget uses.

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, strum::IntoStaticStr, strum::EnumString)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
#[strum(serialize_all = "lowercase")]
pub enum Role {
    System,
    User,
    Assistant,
    Tool,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    pub fn parse(s: &str) -> Option<Role> {
        s.parse().ok()
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ToolCall {
    /// Provider-assigned call id, kept byte for byte.
    pub id: String,
    pub name: String,
    /// The JSON arguments exactly as the model produced them.
    pub arguments: String,
}

/// A message as stored. `seq` is the session's monotonic insertion number; `anchor` is the position
/// in the transcript the message occupies (its own seq, or the seq of the original it stands in for).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Message {
    pub seq: i64,
    pub anchor: i64,
    pub role: Role,
    pub content: String,
    pub tool_calls: Vec<ToolCall>,
    pub tool_call_id: Option<String>,
    /// Opaque provider items (Responses API output such as encrypted reasoning), sent back unchanged.
    pub provider_items: Option<serde_json::Value>,
    pub compacted: bool,
    pub summary: bool,
    pub truncated: bool,
    pub uncertain: bool,
    pub reverted: bool,
    /// The compaction or reduction that produced this message, and the one that hid it.
    pub created_by: Option<i64>,
    pub compacted_by: Option<i64>,
    pub created_at: String,
    /// Characters this message contributes to a request (stored, so budgets never re-count).
    pub chars: u64,
    /// An imported message: the source record's id, what Alisio does not map (kept as JSON), and
    /// whether the record is kept apart from the model's view (a sub-agent's, a local command's).
    #[serde(default)]
    pub source_id: Option<String>,
    #[serde(default)]
    pub meta: Option<serde_json::Value>,
    #[serde(default)]
    pub off_view: bool,
}

/// What budgets, boundaries and reductions need to know about a live message: no contents.
#[derive(Debug, Clone, PartialEq)]
pub struct MessageMeta {
    pub seq: i64,
    pub anchor: i64,
    pub role: Role,
    pub summary: bool,
    /// Characters of the whole message (content plus tool calls).
    pub chars: u64,
    /// Characters of its content alone.
    pub content_chars: u64,
    /// Characters of its tool calls' arguments (a reduction may cut them, like content).
    pub argument_chars: u64,
    pub calls: Vec<String>,
    pub answers: Option<String>,
}

/// Characters a message contributes to a request: its text plus its tool calls.
pub fn message_chars(content: &str, tool_calls: &[ToolCall]) -> u64 {
    let calls: usize =
        tool_calls.iter().map(|c| c.id.chars().count() + c.name.chars().count() + c.arguments.chars().count()).sum();
    (content.chars().count() + calls) as u64
}

/// What ends a message the context budget cut (S1.6).
pub const TRUNCATION_MARKER: &str = "… [truncated by context budget]";

/// Characters per token in every estimate (the window shows the same figure).
pub const CHARS_PER_TOKEN: u64 = 4;

/// Approximate tokens for a number of characters (≈ 4 characters per token, rounded up).
pub fn estimate_tokens(chars: u64) -> u64 {
    chars.div_ceil(CHARS_PER_TOKEN)
}

/// A message about to be stored.
#[derive(Debug, Clone)]
pub struct NewMessage {
    pub role: Role,
    pub content: String,
    pub tool_calls: Vec<ToolCall>,
    pub tool_call_id: Option<String>,
    pub provider_items: Option<serde_json::Value>,
    pub uncertain: bool,
    pub summary: bool,
    pub truncated: bool,
    /// Transcript position when the message stands in for another (default: its own seq).
    pub anchor: Option<i64>,
    /// The compaction or reduction that produced it.
    pub created_by: Option<i64>,
}

impl NewMessage {
    fn new(role: Role, content: String) -> Self {
        Self {
            role,
            content,
            tool_calls: Vec::new(),
            tool_call_id: None,
            provider_items: None,
            uncertain: false,
            summary: false,
            truncated: false,
            anchor: None,
            created_by: None,
        }
    }

    /// A checkpoint or injected context, placed at `anchor`.
    pub fn summary(content: impl Into<String>, anchor: i64, created_by: i64) -> Self {
        Self {
            summary: true,
            anchor: Some(anchor),
            created_by: Some(created_by),
            ..Self::new(Role::User, content.into())
        }
    }

    /// The pins restated after a compaction the server made (`role`: a system message where the
    /// API takes one mid-conversation, else user text), at the end of the history.
    pub fn pinned(role: Role, content: &str, created_by: i64) -> Self {
        Self { summary: true, created_by: Some(created_by), ..Self::new(role, content.to_string()) }
    }

    /// What `/responses/compact` returned, kept whole (`items`, sent back as they are), described
    /// by `content` in the views.
    pub fn provider_summary(content: &str, items: Option<serde_json::Value>) -> Self {
        Self { summary: true, provider_items: items, ..Self::new(Role::Assistant, content.to_string()) }
    }

    /// A reduced copy of `original` with new content, in the original's place.
    pub fn reduced_copy(original: &Message, content: String, created_by: i64) -> Self {
        Self {
            tool_calls: original.tool_calls.clone(),
            tool_call_id: original.tool_call_id.clone(),
            provider_items: original.provider_items.clone(),
            uncertain: original.uncertain,
            truncated: true,
            anchor: Some(original.anchor),
            created_by: Some(created_by),
            ..Self::new(original.role, content)
        }
    }

    pub fn user(content: impl Into<String>) -> Self {
        Self::new(Role::User, content.into())
    }

    pub fn assistant(
        content: impl Into<String>,
        tool_calls: Vec<ToolCall>,
        provider_items: Option<serde_json::Value>,
    ) -> Self {
        Self { tool_calls, provider_items, ..Self::new(Role::Assistant, content.into()) }
    }

    pub fn tool_result(call_id: &str, content: impl Into<String>) -> Self {
        Self { tool_call_id: Some(call_id.to_string()), ..Self::new(Role::Tool, content.into()) }
    }
}
