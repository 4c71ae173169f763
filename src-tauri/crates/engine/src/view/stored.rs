//! The stored view: every message as stored, compacted ones included, with its kind, journal
//! state and checkpoints; pages of it; the trimmed copy beside its original; compaction lint.

use std::collections::HashSet;

use serde::Serialize;
use serde_json::Value;

use crate::claim::SessionClaim;
use crate::error::Result;
use crate::store::compactions::CompactionDocument;
use crate::store::SessionId;
use crate::store::{JournalEntry, JournalState, ModelCallRecord, Session, Store};
use crate::transcript::{Message, Role, ToolCall};

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
    pub session: SessionId,
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

fn compaction_views(store: &Store, session: &SessionId) -> Result<Vec<CompactionView>> {
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
fn shown_journal(store: &Store, session: &SessionId) -> Result<Vec<JournalEntry>> {
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
