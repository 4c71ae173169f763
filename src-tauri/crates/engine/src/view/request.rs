//! The request a session's live history becomes: the system prompt and `PreparedRequest` (built
//! by `Context::prepare`, the one request builder).

use serde_json::Value;

use crate::config::{Api, Config};
use crate::provider::wire::WireItem;
use crate::provider::wire_messages;
use crate::store::seq_ranges;
use crate::tools;
use crate::transcript::Message;

/// The instructions the model gets as its system message.
pub fn system_prompt(config: &Config, workspace: &str) -> String {
    let mut prompt = format!(
        "You are Alisio, a coding agent. You work inside the workspace {workspace}. \
         Use the tools to inspect and change files there; paths are relative to the workspace root. \
         Keep answers short and say what you changed. When the task is done, answer without calling tools."
    );
    if let Some(extra) = config.instructions.as_deref().filter(|s| !s.trim().is_empty()) {
        prompt.push_str("\n\n");
        prompt.push_str(extra);
    }
    prompt
}

/// A request about to be sent, with its size measures.
pub struct PreparedRequest {
    pub system: String,
    /// The stored records that form the request, as `[from, to]` seq ranges.
    pub ranges: Vec<[i64; 2]>,
    pub wire: Vec<WireItem>,
    pub tools: Value,
    /// `tools` holds MCP tools besides the built-in ones (the ledger then keeps them).
    pub offers_mcp_tools: bool,
    /// Instructions + transcript characters (the reducible part).
    pub chars: u64,
    pub tool_catalog_chars: u64,
}

impl PreparedRequest {
    /// `extra`: the MCP tools offered after the built-in ones.
    pub fn build(api: Api, system: String, live: Vec<Message>, extra: &[tools::ToolSpec]) -> Self {
        let tools = tools::request_tools(api, extra);
        let tool_catalog_chars = tools::catalog_chars(&tools);
        let chars = system.chars().count() as u64 + live.iter().map(|m| m.chars).sum::<u64>();
        let ranges = seq_ranges(live.iter().map(|m| m.seq));
        let wire = wire_messages(api, &system, live);
        Self { system, ranges, wire, tools, offers_mcp_tools: !extra.is_empty(), chars, tool_catalog_chars }
    }

    /// The request with a `tools` array given whole (the one a past request sent, byte for byte).
    pub fn with_tools(api: Api, system: String, live: Vec<Message>, tools: Value) -> Self {
        let offers_mcp_tools = tools != tools::request_tools(api, &[]);
        let tool_catalog_chars = tools::catalog_chars(&tools);
        let chars = system.chars().count() as u64 + live.iter().map(|m| m.chars).sum::<u64>();
        let ranges = seq_ranges(live.iter().map(|m| m.seq));
        let wire = wire_messages(api, &system, live);
        Self { system, ranges, wire, tools, offers_mcp_tools, chars, tool_catalog_chars }
    }

    /// Full-request size: instructions, transcript and tool catalog.
    pub fn request_chars(&self) -> u64 {
        self.chars + self.tool_catalog_chars
    }
}
