//! What the model sees and what is stored. The model view is built by the same code that builds
//! requests, so `sessions show --view model` is exactly the next request's `messages`.

use serde::Serialize;
use serde_json::{json, Value};

use crate::config::{Api, Config};
use crate::error::Result;
use crate::provider::wire::WireItem;
use crate::provider::Provider;
use crate::store::{seq_ranges, JournalState, Store};
use crate::tools;
use crate::transcript::{estimate_tokens, Message};

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
    /// Instructions + transcript characters (the reducible part).
    pub chars: u64,
    pub tool_catalog_chars: u64,
}

impl PreparedRequest {
    pub fn build(provider: &Provider, system: String, live: Vec<Message>) -> Self {
        let tools = tools::catalog_json(provider.config().api, &tools::catalog());
        let tool_catalog_chars = tools::tool_catalog_chars(provider.config().api);
        let chars = system.chars().count() as u64 + live.iter().map(|m| m.chars).sum::<u64>();
        let ranges = seq_ranges(live.iter().map(|m| m.seq));
        let wire = provider.wire_messages(&system, live);
        Self { system, ranges, wire, tools, chars, tool_catalog_chars }
    }

    /// Full-request size: instructions, transcript and tool catalog.
    pub fn request_chars(&self) -> u64 {
        self.chars + self.tool_catalog_chars
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelView {
    pub session: String,
    pub api: Api,
    pub model: String,
    pub messages: Vec<WireItem>,
    pub tool_catalog_chars: u64,
    pub chars: u64,
    pub estimated_tokens: u64,
}

pub fn model_view(store: &Store, provider: &Provider, config: &Config, session: &str) -> Result<ModelView> {
    let record = store.resolve_session(session)?;
    let live = store.live_messages(&record.id)?;
    let prepared = PreparedRequest::build(provider, system_prompt(config, &record.workspace), live);
    Ok(ModelView {
        session: record.id,
        api: provider.config().api,
        model: provider.config().model.clone(),
        estimated_tokens: estimate_tokens(prepared.request_chars()),
        chars: prepared.chars,
        tool_catalog_chars: prepared.tool_catalog_chars,
        messages: prepared.wire,
    })
}

/// Every stored message (compacted ones included), the tool-call journal and the model-call ledger.
pub fn stored_view(store: &Store, session: &str) -> Result<Value> {
    let record = store.resolve_session(session)?;
    let journal = store.journal(&record.id)?;
    let pending: std::collections::HashSet<i64> = journal
        .iter()
        .filter(|e| matches!(e.state, JournalState::Started | JournalState::Uncertain))
        .map(|e| e.assistant_seq)
        .collect();
    let messages: Vec<Value> = store
        .all_messages(&record.id)?
        .into_iter()
        .map(|m| {
            json!({
                "seq": m.seq,
                "role": m.role,
                "content": m.content,
                "toolCalls": m.tool_calls,
                "toolCallId": m.tool_call_id,
                "compacted": m.compacted,
                "summary": m.summary,
                "truncated": m.truncated,
                "uncertain": m.uncertain || pending.contains(&m.seq),
                "reverted": m.reverted,
                "anchor": m.anchor,
                "createdBy": m.created_by,
                "compactedBy": m.compacted_by,
                "createdAt": m.created_at,
            })
        })
        .collect();
    Ok(json!({
        "session": record,
        "messages": messages,
        "compactions": store
            .compactions(&record.id)?
            .into_iter()
            .map(|c| {
                let seqs: Vec<i64> = serde_json::from_value::<Vec<[i64; 2]>>(c.summarized_ranges.clone())
                    .unwrap_or_default()
                    .into_iter()
                    .flat_map(|[from, to]| from..=to)
                    .collect();
                let mut value = serde_json::to_value(&c).unwrap_or_default();
                value["summarizedSeqs"] = json!(seqs);
                value
            })
            .collect::<Vec<Value>>(),
        "toolCalls": journal,
        "modelCalls": store.model_calls(&record.id)?,
    }))
}
