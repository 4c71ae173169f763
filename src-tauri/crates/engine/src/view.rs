//! What the model sees and what is stored. The model view is built by the same code that builds
//! requests, so `sessions show --view model` is exactly the next request's `messages`.

use std::collections::HashSet;

use serde::Serialize;
use serde_json::Value;

use crate::claim::SessionClaim;
use crate::config::{Api, Config};
use crate::error::Result;
use crate::mcp::catalog::{in_force, Offered, TOOL_SEARCH};
use crate::mcp::{CatalogShare, McpTool};
use crate::provider::wire::WireItem;
use crate::provider::wire_messages;
use crate::store::compactions::CompactionDocument;
use crate::store::{seq_ranges, JournalEntry, JournalState, ModelCallRecord, Session, SourceKind, Store};
use crate::tools;
use crate::transcript::{estimate_tokens, Message, Role, ToolCall};

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

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ModelView {
    pub session: String,
    pub api: Api,
    pub model: String,
    pub messages: Vec<WireItem>,
    pub tool_catalog_chars: u64,
    /// What each source of tools adds to the request: `builtin`, then each ready MCP server.
    pub tool_catalog: Vec<CatalogShare>,
    pub chars: u64,
    pub estimated_tokens: u64,
    /// An imported session's view: what that agent would send next, rebuilt from its records.
    pub reconstructed: bool,
    /// What that agent sends that its records leave out, with estimated sizes.
    pub missing: Vec<MissingPart>,
}

/// A part of a request its agent sent but did not record.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct MissingPart {
    /// `system` | `tools` | `params`
    pub part: String,
    /// An estimate from the tokens the agent recorded for the call, less what is shown.
    pub estimated_tokens: u64,
}

/// The options an agent sends beside the conversation (limits, sampling, streaming, reasoning)
/// come to a few dozen characters.
const PARAMS_ESTIMATE: u64 = 16;

/// What an agent sent that a request rebuilt from its records lacks: `prompt_tokens` (what the
/// agent recorded the request cost) less `shown_tokens`, split between the system prompt (when
/// `source`'s records leave it out too) and the tools; the options are listed too. No part it
/// sent is estimated at 0.
pub fn missing_parts(
    source: SourceKind,
    prompt_tokens: Option<u64>,
    shown_tokens: u64,
    system_shown: bool,
) -> Vec<MissingPart> {
    let unshown = prompt_tokens.map_or(0, |t| t.saturating_sub(shown_tokens)).max(2);
    let part = |part: &str, estimated_tokens: u64| MissingPart {
        part: part.into(),
        estimated_tokens: estimated_tokens.max(1),
    };
    let mut missing = Vec::new();
    if system_shown {
        missing.push(part("tools", unshown));
    } else {
        let system = unshown * system_share(source) / 100;
        missing.push(part("system", system));
        missing.push(part("tools", unshown - system));
    }
    missing.push(part("params", PARAMS_ESTIMATE));
    missing
}

/// Of what an agent's records leave out, the share (percent) its system prompt takes beside its
/// tools, as measured on the requests the real CLIs sent (tests/fixtures/requests): OpenCode ≈ 9.5k
/// system and ≈ 28k tool characters, Codex ≈ 17.7k and ≈ 18.7k, Claude Code ≈ 7.5k and ≈ 32k.
fn system_share(source: SourceKind) -> u64 {
    match source {
        SourceKind::Codex => 49,
        SourceKind::ClaudeCode => 19,
        _ => 25,
    }
}

/// The tool catalog's characters per source as the request carries it: the built-in tools (with
/// the array's brackets), `tool_search` when MCP tools are deferred, then each MCP server's tools
/// sent (and how many of its tools wait behind the search); they add up to the whole catalog.
pub fn catalog_shares(api: Api, mcp: &[McpTool], offered: &Offered) -> Vec<CatalogShare> {
    let builtin = tools::catalog();
    let chars = tools::catalog_chars(&tools::catalog_json(api, &builtin));
    let share = |server: &str, chars| CatalogShare { server: server.into(), tools: 1, chars, deferred: 0 };
    let mut shares = vec![CatalogShare { tools: builtin.len() as u64, ..share("builtin", chars) }];
    if let Some(search) = offered.specs.iter().find(|s| s.name == TOOL_SEARCH) {
        shares.push(share(TOOL_SEARCH, tools::added_tool_chars(api, search)));
    }
    for tool in mcp {
        let sent = offered.sent.contains(&tool.exposed);
        let chars = if sent { tools::added_tool_chars(api, &crate::mcp::spec(tool)) } else { 0 };
        let (tools, deferred) = if sent { (1, 0) } else { (0, 1) };
        match shares.iter_mut().find(|s| s.server == tool.server) {
            Some(share) => {
                share.tools += tools;
                share.chars += chars;
                share.deferred += deferred;
            }
            None => shares.push(CatalogShare { server: tool.server.clone(), tools, chars, deferred }),
        }
    }
    shares
}

/// The next request of `session`; `mcp`: the MCP tools of the ready servers, `window` the window
/// in force (it sets the catalog's budget: past it, what the request carries is `tool_search`).
pub fn model_view(
    store: &Store,
    config: &Config,
    record: &Session,
    mcp: &[McpTool],
    window: Option<u64>,
) -> Result<ModelView> {
    let live = store.live_messages(&record.id)?;
    if let Some(source) = record.source {
        return imported_view(store, &record.id, source, live);
    }
    let offered = in_force(store, config, &record.id, mcp, window)?;
    let prepared =
        PreparedRequest::build(config.provider.api, system_prompt(config, &record.workspace), live, &offered.specs);
    Ok(ModelView {
        tool_catalog: catalog_shares(config.provider.api, mcp, &offered),
        session: record.id.to_string(),
        api: config.provider.api,
        model: config.provider.model.clone(),
        estimated_tokens: estimate_tokens(prepared.request_chars()),
        chars: prepared.chars,
        tool_catalog_chars: prepared.tool_catalog_chars,
        messages: prepared.wire,
        reconstructed: false,
        missing: Vec::new(),
    })
}

/// Rows `offset..offset + limit` of the model view — row 0 the system prompt, then one row per
/// live message with the wire items it becomes — and the view's totals, read without loading the
/// other rows: a window shows the next request of a session of any length in pages.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ModelViewPage {
    pub session: String,
    pub api: Api,
    pub model: String,
    pub total_rows: u64,
    pub offset: u64,
    pub rows: Vec<Vec<WireItem>>,
    pub tool_catalog_chars: u64,
    pub tool_catalog: Vec<CatalogShare>,
    pub chars: u64,
    pub estimated_tokens: u64,
    pub reconstructed: bool,
    pub missing: Vec<MissingPart>,
}

pub fn model_view_page(
    store: &Store,
    config: &Config,
    record: &Session,
    offset: u64,
    limit: u64,
    mcp: &[McpTool],
    window: Option<u64>,
) -> Result<ModelViewPage> {
    let mut recorded = None;
    let (api, model, system, catalog_chars, shares) = match record.source {
        Some(source) => {
            let shape = imported_request_shape(store, &record.id, source)?;
            recorded = Some((source, shape.prompt_tokens, shape.has_system));
            (shape.api, shape.model, shape.system, 0, Vec::new())
        }
        None => {
            let api = config.provider.api;
            let offered = in_force(store, config, &record.id, mcp, window)?;
            let catalog = tools::tool_catalog_chars(api, &offered.specs);
            let shares = catalog_shares(api, mcp, &offered);
            (api, config.provider.model.clone(), system_prompt(config, &record.workspace), catalog, shares)
        }
    };
    let (live, live_chars) = store.live_totals(&record.id)?;
    let head = u64::from(!system.is_empty());
    let mut rows = Vec::new();
    if offset < head && limit > 0 {
        rows.push(vec![WireItem::Text { role: "system", content: system.clone() }]);
    }
    let first = offset.saturating_sub(head);
    let take = limit.saturating_sub(rows.len() as u64);
    for message in store.live_page(&record.id, first, take)? {
        rows.push(wire_messages(api, "", vec![message]));
    }
    let chars = system.chars().count() as u64 + live_chars;
    Ok(ModelViewPage {
        session: record.id.to_string(),
        api,
        model,
        total_rows: head + live,
        offset,
        rows,
        tool_catalog_chars: catalog_chars,
        tool_catalog: shares,
        estimated_tokens: estimate_tokens(chars + catalog_chars),
        chars,
        reconstructed: record.source.is_some(),
        missing: recorded
            .map(|(source, tokens, shown)| missing_parts(source, tokens, estimate_tokens(chars), shown))
            .unwrap_or_default(),
    })
}

/// The next request of an imported session: the source's system prompt (when it recorded one)
/// and its live messages, in the shape of the API that agent speaks; what its records leave out
/// (tools, often the system prompt, the options) is listed as missing.
fn imported_view(store: &Store, session: &str, source: SourceKind, live: Vec<Message>) -> Result<ModelView> {
    let shape = imported_request_shape(store, session, source)?;
    let chars = shape.system.chars().count() as u64 + live.iter().map(|m| m.chars).sum::<u64>();
    Ok(ModelView {
        session: session.to_string(),
        api: shape.api,
        model: shape.model,
        messages: wire_messages(shape.api, &shape.system, live),
        tool_catalog_chars: 0,
        tool_catalog: Vec::new(),
        chars,
        estimated_tokens: estimate_tokens(chars),
        reconstructed: true,
        missing: missing_parts(source, shape.prompt_tokens, estimate_tokens(chars), shape.has_system),
    })
}

/// How an imported session's requests are sent, as far as its records tell.
struct ImportedShape {
    api: Api,
    /// The model of its newest call.
    model: String,
    /// The system prompt its requests carry ("" when the agent did not record it; Codex records
    /// base instructions longer than the developer message it sends them as).
    system: String,
    has_system: bool,
    /// The prompt tokens its newest call reported.
    prompt_tokens: Option<u64>,
}

fn imported_request_shape(store: &Store, session: &str, source: SourceKind) -> Result<ImportedShape> {
    let calls = store.model_calls(session)?;
    let model = calls.iter().rev().map(|c| c.model.clone()).find(|m| !m.is_empty());
    let prompt_tokens = calls.iter().rev().find_map(|c| c.prompt_tokens);
    let system = match source {
        SourceKind::Codex => String::new(),
        _ => store.imported_system_prompt(session)?,
    };
    let has_system = !system.is_empty();
    Ok(ImportedShape { api: source.api(), model: model.unwrap_or_default(), system, has_system, prompt_tokens })
}

/// What a stored message is, so no reader has to guess it from its text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub enum MessageKind {
    System,
    User,
    Assistant,
    ToolResult,
    /// The summary a compaction put in place of the messages it hid.
    Checkpoint,
    /// Context a plugin added after a checkpoint (e.g. remembered facts).
    InjectedContext,
    /// The pins and rules files a compaction carried verbatim right after its checkpoint.
    Pinned,
}

/// A stored message as the stored view shows it. `kind` says what it is; `truncated` marks a
/// reduced copy standing in for the original at the same `anchor`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct StoredMessage {
    pub seq: i64,
    pub anchor: i64,
    pub role: Role,
    pub kind: MessageKind,
    pub content: String,
    pub chars: u64,
    pub tool_calls: Vec<ToolCall>,
    pub tool_call_id: Option<String>,
    pub compacted: bool,
    pub summary: bool,
    pub truncated: bool,
    /// A recovered "result unknown", or an assistant message whose call is still uncertain.
    pub uncertain: bool,
    pub reverted: bool,
    pub created_by: Option<i64>,
    pub compacted_by: Option<i64>,
    pub created_at: String,
    /// An imported message: the source record's id, verbatim.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub source_id: Option<String>,
    /// What the source record holds beyond the mapped fields (exit codes, flags, raw parts).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional, type = "Record<string, unknown>"))]
    pub meta: Option<Value>,
    /// Kept in the stored view, never part of the model's view (a sub-agent's record, a local
    /// command's output).
    pub off_view: bool,
}

/// A compaction record with its summarized seqs spelled out.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct CompactionView {
    #[serde(flatten)]
    pub record: CompactionDocument,
    pub summarized_seqs: Vec<i64>,
}

/// Everything stored for a session: every message (compacted ones included), the compactions, the
/// tool-call journal and the model-call ledger.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct StoredView {
    pub session: Session,
    pub messages: Vec<StoredMessage>,
    /// Whether older messages exist before `messages` (a page from the end of a long session).
    pub has_older: bool,
    pub compactions: Vec<CompactionView>,
    pub tool_calls: Vec<JournalEntry>,
    pub model_calls: Vec<ModelCallRecord>,
    /// The session and message a fork came from; null for any other session.
    pub forked_from: Option<crate::store::sessions::ForkedFrom>,
    /// The session (and its call) that started this one, for a sub-agent's session; null otherwise.
    pub parent: Option<ParentLink>,
}

/// Where a sub-agent's session came from: the session, and the number of its call that started
/// the sub-agent (when the records name the tool call).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ParentLink {
    pub session: String,
    pub call: Option<usize>,
}

/// The parent link of `record`, resolved against what the store holds now.
pub fn parent_link(store: &Store, record: &Session) -> Result<Option<ParentLink>> {
    let Some(parent) = &record.parent_session else { return Ok(None) };
    let call = match &record.parent_tool_call {
        Some(id) => store.call_with_tool_call(parent, id)?,
        None => None,
    };
    Ok(Some(ParentLink { session: parent.clone(), call }))
}

/// Expands `[from, to]` ranges into seqs.
pub fn expand_ranges(ranges: &Value) -> Vec<i64> {
    serde_json::from_value::<Vec<[i64; 2]>>(ranges.clone())
        .unwrap_or_default()
        .into_iter()
        .flat_map(|[from, to]| from..=to)
        .collect()
}

pub fn stored_view(store: &Store, record: &Session) -> Result<StoredView> {
    stored_view_page(store, record, None, None)
}

/// The stored view, or with `limit` only the `limit` messages before `before` (`(anchor, seq)`, or
/// the end): a long session is shown from its end first and completed page by page.
pub fn stored_view_page(
    store: &Store,
    record: &Session,
    before: Option<(i64, i64)>,
    limit: Option<usize>,
) -> Result<StoredView> {
    let journal = shown_journal(store, &record.id)?;
    let (raw, has_older) = match limit {
        None => (store.all_messages(&record.id)?, false),
        Some(limit) => {
            let mut page = store.messages_before(&record.id, before, limit + 1)?;
            let has_older = page.len() > limit;
            if has_older {
                page.remove(0);
            }
            (page, has_older)
        }
    };
    let messages = stored_messages(raw, &journal, &store.checkpoint_seqs(&record.id)?);
    let compactions = compaction_views(store, &record.id)?;
    Ok(StoredView {
        messages,
        has_older,
        compactions,
        tool_calls: journal,
        model_calls: store.model_calls(&record.id)?,
        forked_from: record.forked_from.clone(),
        parent: parent_link(store, record)?,
        session: record.clone(),
    })
}

/// The stored view with only the messages after `after` (`(anchor, seq)`): a running turn's new
/// messages, without fetching the history again. The journal, compactions and ledger are whole.
pub fn stored_view_since(store: &Store, record: &Session, after: (i64, i64)) -> Result<StoredView> {
    let journal = shown_journal(store, &record.id)?;
    let checkpoints = store.checkpoint_seqs(&record.id)?;
    let messages = stored_messages(store.messages_after(&record.id, after)?, &journal, &checkpoints);
    let compactions = compaction_views(store, &record.id)?;
    Ok(StoredView {
        messages,
        has_older: false,
        compactions,
        tool_calls: journal,
        model_calls: store.model_calls(&record.id)?,
        forked_from: record.forked_from.clone(),
        parent: parent_link(store, record)?,
        session: record.clone(),
    })
}

fn compaction_views(store: &Store, session: &str) -> Result<Vec<CompactionView>> {
    Ok(store
        .compactions(session)?
        .into_iter()
        .map(|c| CompactionView { summarized_seqs: c.span_seqs(), record: CompactionDocument::from(&c) })
        .collect())
}

/// Older messages of a long session, as the stored view shows them.
pub fn older_messages(store: &Store, record: &Session, before: (i64, i64), limit: usize) -> Result<Vec<StoredMessage>> {
    let journal = shown_journal(store, &record.id)?;
    let checkpoints = store.checkpoint_seqs(&record.id)?;
    Ok(stored_messages(store.messages_before(&record.id, Some(before), limit)?, &journal, &checkpoints))
}

/// Up to `limit` messages after `after` (`(anchor, seq)`): the next page of a long session
/// scrolled forward again after older pages replaced the newest ones.
pub fn newer_messages(store: &Store, record: &Session, after: (i64, i64), limit: usize) -> Result<Vec<StoredMessage>> {
    let journal = shown_journal(store, &record.id)?;
    let checkpoints = store.checkpoint_seqs(&record.id)?;
    Ok(stored_messages(store.messages_after_page(&record.id, after, limit)?, &journal, &checkpoints))
}

/// About `limit` messages around message `seq` (a third before it, the rest from it on): the
/// window shown when a long session jumps to a message that is not loaded.
pub fn messages_around(store: &Store, record: &Session, seq: i64, limit: usize) -> Result<Vec<StoredMessage>> {
    let Some(position) = store.position_of(&record.id, seq)? else {
        return Err(crate::Error::Usage(format!("session {} has no message {seq}", record.id)));
    };
    let journal = shown_journal(store, &record.id)?;
    let checkpoints = store.checkpoint_seqs(&record.id)?;
    let mut raw = store.messages_before(&record.id, Some(position), limit / 3)?;
    raw.extend(store.messages_after_page(&record.id, (position.0, position.1 - 1), limit - limit / 3)?);
    Ok(stored_messages(raw, &journal, &checkpoints))
}

/// The journal as views show it: a started call is `running` while a live process drives the
/// session, and stays `started` (so uncertain) once that process is gone.
fn shown_journal(store: &Store, session: &str) -> Result<Vec<JournalEntry>> {
    let mut journal = store.journal(session)?;
    if journal.iter().any(|e| e.state == JournalState::Started) && SessionClaim::holder(store.home(), session).is_some()
    {
        for entry in journal.iter_mut().filter(|e| e.state == JournalState::Started) {
            entry.state = JournalState::Running;
        }
    }
    Ok(journal)
}

/// The pinned block a compaction stored after its checkpoint (`meta.pinned`).
fn is_pinned(meta: Option<&serde_json::Value>) -> bool {
    meta.and_then(|m| m.get("pinned")).and_then(serde_json::Value::as_bool) == Some(true)
}

fn stored_messages(raw: Vec<Message>, journal: &[JournalEntry], checkpoints: &HashSet<i64>) -> Vec<StoredMessage> {
    let pending: HashSet<i64> = journal
        .iter()
        .filter(|e| matches!(e.state, JournalState::Started | JournalState::Uncertain))
        .map(|e| e.assistant_seq)
        .collect();
    raw.into_iter()
        .map(|m| StoredMessage {
            uncertain: m.uncertain || pending.contains(&m.seq),
            kind: match m.role {
                _ if m.summary && checkpoints.contains(&m.seq) => MessageKind::Checkpoint,
                _ if m.summary && is_pinned(m.meta.as_ref()) => MessageKind::Pinned,
                _ if m.summary => MessageKind::InjectedContext,
                Role::System => MessageKind::System,
                Role::User => MessageKind::User,
                Role::Assistant => MessageKind::Assistant,
                Role::Tool => MessageKind::ToolResult,
            },
            seq: m.seq,
            anchor: m.anchor,
            role: m.role,
            content: m.content,
            chars: m.chars,
            tool_calls: m.tool_calls,
            tool_call_id: m.tool_call_id,
            compacted: m.compacted,
            summary: m.summary,
            truncated: m.truncated,
            reverted: m.reverted,
            created_by: m.created_by,
            compacted_by: m.compacted_by,
            created_at: m.created_at,
            source_id: m.source_id,
            meta: m.meta,
            off_view: m.off_view,
        })
        .collect()
}

/// `alisio compact SESSION --lint [N]`: the fidelity of checkpoint record `n` (default: the
/// newest, applied or proposed), computed again from the span it replaces. No model is asked.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct LintReport {
    pub compaction: i64,
    pub status: crate::store::compactions::Status,
    pub reason: crate::events::CompactionReason,
    #[serde(flatten)]
    pub fidelity: crate::fidelity::Fidelity,
}

/// A message the context budget cut (`seq`, the copy the model got) and the stored original.
pub fn trimmed_pair(store: &Store, record: &Session, seq: i64) -> Result<(Message, Message)> {
    let usage = |what: String| crate::Error::Usage(what);
    let copy = store
        .messages_by_seq(&record.id, &[seq])
        .ok()
        .and_then(|mut found| found.pop())
        .ok_or_else(|| usage(format!("session {} has no message {seq}", record.id)))?;
    let Some(by) = copy.created_by.filter(|_| copy.truncated) else {
        return Err(usage(format!("message {seq} was not trimmed")));
    };
    let original = store
        .hidden_original(&record.id, by, copy.anchor)?
        .ok_or_else(|| usage(format!("the original of message {seq} is missing")))?;
    Ok((original, copy))
}

pub fn lint_compaction(store: &Store, record: &Session, n: Option<i64>) -> Result<LintReport> {
    let compactions = store.compactions(&record.id)?;
    let checkpoints = compactions.iter().filter(|c| c.checkpoint().is_some());
    let chosen = match n {
        Some(id) => checkpoints.clone().find(|c| c.id == id),
        None => checkpoints.clone().rfind(|c| !matches!(c.status, crate::store::compactions::Status::Discarded)),
    };
    let Some(chosen) = chosen else {
        let what = n.map_or("no checkpoint yet".to_string(), |id| format!("no checkpoint record {id}"));
        return Err(crate::Error::Usage(format!(
            "session {} has {what} (see `alisio sessions show {} --json`, compactions[].id)",
            record.id, record.id
        )));
    };
    let detail = chosen.checkpoint().ok_or_else(|| crate::Error::Usage("not a checkpoint".into()))?;
    let span = store.messages_by_seq(&record.id, &chosen.span_seqs())?;
    let fidelity = crate::fidelity::assess(
        &span,
        &crate::fidelity::CheckpointText::from_value(&detail.checkpoint),
        &record.workspace,
    );
    Ok(LintReport { compaction: chosen.id, status: chosen.status, reason: chosen.reason, fidelity })
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_window_around_a_message_holds_a_third_before_it() {
        let (_dir, store, session) = crate::store::store_with_messages(10);
        let around = super::messages_around(&store, &session, 6, 6).unwrap();
        assert_eq!(around.iter().map(|m| m.seq).collect::<Vec<_>>(), vec![4, 5, 6, 7, 8, 9]);
        let newer = super::newer_messages(&store, &session, (9, 9), 5).unwrap();
        assert_eq!(newer.iter().map(|m| m.seq).collect::<Vec<_>>(), vec![10]);
        assert!(super::messages_around(&store, &session, 99, 6).is_err());
    }

    /// Pages of the model view put together are the model view.
    #[test]
    fn model_view_pages_add_up_to_the_model_view() {
        let (_dir, store, session) = crate::store::store_with_messages(10);
        let config = crate::config::Config::default();
        let whole = super::model_view(&store, &config, &session, &[], None).unwrap();
        let mut rows = Vec::new();
        let mut offset = 0;
        loop {
            let page = super::model_view_page(&store, &config, &session, offset, 4, &[], None).unwrap();
            assert_eq!(page.total_rows, 11);
            assert_eq!((page.chars, page.tool_catalog_chars), (whole.chars, whole.tool_catalog_chars));
            if page.rows.is_empty() {
                break;
            }
            offset += page.rows.len() as u64;
            rows.extend(page.rows.into_iter().flatten());
        }
        assert_eq!(rows, whole.messages);
    }
}
