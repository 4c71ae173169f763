//! Compaction and reduction records. Applying one hides originals and adds messages in the same
//! transaction; undo reverses exactly those marks. Nothing is deleted.

use rusqlite::{params, OptionalExtension, Row};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::sessions::append_message;
use super::{SessionId, Store, Tx};
use crate::error::{Error, Result};
use crate::events::{now_rfc3339, CompactionReason};
use crate::fidelity::Fidelity;
use crate::transcript::NewMessage;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, strum::IntoStaticStr, strum::EnumString)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
#[strum(serialize_all = "lowercase")]
pub enum Kind {
    Checkpoint,
    Reduction,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, strum::IntoStaticStr, strum::EnumString)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
#[strum(serialize_all = "lowercase")]
pub enum Status {
    Proposed,
    Applied,
    Discarded,
    Reverted,
}

impl Kind {
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    fn parse(s: &str) -> Option<Self> {
        s.parse().ok()
    }
}

impl Status {
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    fn parse(s: &str) -> Option<Self> {
        s.parse().ok()
    }
}

/// What a record did, with only the fields each kind has.
#[derive(Debug, Clone, PartialEq)]
pub enum RecordDetail {
    /// A summary (the checkpoint) replaced the span.
    Checkpoint(Box<CheckpointDetail>),
    /// The span's messages were cut in place to fit the budget; reduced copies stand in for them.
    Reduction,
}

#[derive(Debug, Clone, PartialEq)]
pub struct CheckpointDetail {
    pub focus: Option<String>,
    /// The summary was cut by its output budget.
    pub partial: bool,
    /// The validated checkpoint: `{"sections": {...}}` or `{"text": "..."}`.
    pub checkpoint: Value,
    pub summarized_chars: u64,
    pub checkpoint_chars: u64,
    pub plugin_reports: Vec<Value>,
    pub plugin_fields: Map<String, Value>,
    pub inject_context: Vec<String>,
    /// The summarizer's request in the ledger.
    pub model_call_id: Option<i64>,
    /// What the checkpoint kept of the span it replaced.
    pub fidelity: Option<Fidelity>,
}

impl RecordDetail {
    pub fn kind(&self) -> Kind {
        match self {
            RecordDetail::Checkpoint(_) => Kind::Checkpoint,
            RecordDetail::Reduction => Kind::Reduction,
        }
    }
}

/// A compaction or reduction as stored.
#[derive(Debug, Clone, PartialEq)]
pub struct CompactionRecord {
    pub id: i64,
    pub reason: CompactionReason,
    pub status: Status,
    /// The seqs the record hid, in transcript order, as `[from, to]` runs.
    pub span: Vec<[i64; 2]>,
    pub before_chars: u64,
    pub after_chars: u64,
    pub created_at: String,
    pub applied_at: Option<String>,
    pub reverted_at: Option<String>,
    pub detail: RecordDetail,
    pub trigger: Option<Trigger>,
}

impl CompactionRecord {
    pub fn kind(&self) -> Kind {
        self.detail.kind()
    }

    /// The hidden seqs, in transcript order.
    pub fn span_seqs(&self) -> Vec<i64> {
        self.span.iter().flat_map(|&[from, to]| from..=to).collect()
    }

    pub fn checkpoint(&self) -> Option<&CheckpointDetail> {
        match &self.detail {
            RecordDetail::Checkpoint(detail) => Some(detail),
            RecordDetail::Reduction => None,
        }
    }
}

/// A record as `sessions show --json` and the window see it: one flat document for both kinds
/// (a reduction has no focus, is never partial, and carries an empty checkpoint).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct CompactionDocument {
    pub id: i64,
    pub kind: Kind,
    pub reason: CompactionReason,
    pub focus: Option<String>,
    pub status: Status,
    pub partial: bool,
    /// What the checkpoint says: `{"sections": {…}}` (a summarizer's, with its plugins' fields) or
    /// `{"text": "…"}` (an agent's own or a cache hand-off); `{}` for a reduction or a masking.
    #[cfg_attr(feature = "ts", ts(type = "Checkpoint"))]
    pub checkpoint: Value,
    pub summarized_ranges: Value,
    pub summarized_messages: u64,
    pub summarized_chars: u64,
    pub checkpoint_chars: u64,
    pub before_chars: u64,
    pub after_chars: u64,
    pub plugin_reports: Value,
    pub plugin_fields: Value,
    pub inject_context: Value,
    pub model_call_id: Option<i64>,
    pub created_at: String,
    pub applied_at: Option<String>,
    pub reverted_at: Option<String>,
    /// A checkpoint's fidelity; null for reductions and records made before it was kept.
    pub fidelity: Option<Fidelity>,
    /// Why it fired; null for records made before it was kept.
    pub trigger: Option<Trigger>,
}

impl From<&CompactionRecord> for CompactionDocument {
    fn from(r: &CompactionRecord) -> Self {
        let none = CheckpointDetail {
            focus: None,
            partial: false,
            checkpoint: Value::Object(Map::new()),
            summarized_chars: 0,
            checkpoint_chars: 0,
            plugin_reports: Vec::new(),
            plugin_fields: Map::new(),
            inject_context: Vec::new(),
            model_call_id: None,
            fidelity: None,
        };
        let c = r.checkpoint().unwrap_or(&none);
        Self {
            id: r.id,
            kind: r.kind(),
            reason: r.reason,
            focus: c.focus.clone(),
            status: r.status,
            partial: c.partial,
            checkpoint: c.checkpoint.clone(),
            summarized_ranges: serde_json::json!(r.span),
            summarized_messages: r.span.iter().map(|[from, to]| (to - from + 1) as u64).sum(),
            summarized_chars: c.summarized_chars,
            checkpoint_chars: c.checkpoint_chars,
            before_chars: r.before_chars,
            after_chars: r.after_chars,
            plugin_reports: Value::Array(c.plugin_reports.clone()),
            plugin_fields: Value::Object(c.plugin_fields.clone()),
            inject_context: serde_json::json!(c.inject_context),
            model_call_id: c.model_call_id,
            created_at: r.created_at.clone(),
            applied_at: r.applied_at.clone(),
            reverted_at: r.reverted_at.clone(),
            fidelity: c.fidelity.clone(),
            trigger: r.trigger.clone(),
        }
    }
}

/// Why a compaction fired: the kind, and the figures it fired on where they are known.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Trigger {
    pub kind: TriggerKind,
    /// The request's tokens when it fired: the server's count where one was reported, else the
    /// estimate.
    pub prompt_tokens: Option<u64>,
    /// The window those tokens were measured against.
    pub window: Option<u64>,
    /// The share of the window at which it fires.
    pub threshold: Option<f64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum TriggerKind {
    /// The request crossed the threshold.
    Threshold,
    /// Asked for (`alisio compact`, the window's dialog).
    Manual,
    /// The provider refused the request as too long.
    Overflow,
    /// The hard limit (`limits.maxContextChars`), after reductions could not make it fit.
    Budget,
    /// A masking step (`mask`, `hybrid`).
    Mask,
}

impl Trigger {
    pub fn manual() -> Self {
        Self::measured(TriggerKind::Manual, None)
    }

    /// A trigger known only by its kind and the request's tokens (what an agent recorded).
    pub fn measured(kind: TriggerKind, prompt_tokens: Option<u64>) -> Self {
        Self { kind, prompt_tokens, window: None, threshold: None }
    }

    /// The same figures under another kind (a masking step fired by a threshold).
    pub fn as_kind(&self, kind: TriggerKind) -> Self {
        Self { kind, ..self.clone() }
    }
}

/// A new record; `span` (in transcript order) is hidden when it is applied.
#[derive(Debug, Clone)]
pub struct NewCompaction {
    pub reason: CompactionReason,
    pub span: Vec<i64>,
    pub before_chars: u64,
    pub after_chars: u64,
    pub detail: RecordDetail,
    pub trigger: Option<Trigger>,
}

const COLUMNS: &str = "id, kind, reason, focus, status, partial, checkpoint, summarized_ranges, \
    summarized_chars, checkpoint_chars, before_chars, after_chars, plugin_reports, plugin_fields, inject_context, \
    model_call_id, created_at, applied_at, reverted_at, fidelity, trigger";

fn record_from_row(row: &Row<'_>) -> rusqlite::Result<CompactionRecord> {
    let bad = |i: usize, v: String| rusqlite::Error::FromSqlConversionFailure(i, rusqlite::types::Type::Text, v.into());
    fn json<T: serde::de::DeserializeOwned>(row: &Row<'_>, i: usize) -> rusqlite::Result<T> {
        let text: String = row.get(i)?;
        serde_json::from_str(&text)
            .map_err(|e| rusqlite::Error::FromSqlConversionFailure(i, rusqlite::types::Type::Text, e.into()))
    }
    let kind: String = row.get(1)?;
    let reason: String = row.get(2)?;
    let status: String = row.get(4)?;
    let detail = match Kind::parse(&kind).ok_or_else(|| bad(1, format!("unknown kind {kind:?}")))? {
        Kind::Reduction => RecordDetail::Reduction,
        Kind::Checkpoint => RecordDetail::Checkpoint(Box::new(CheckpointDetail {
            focus: row.get(3)?,
            partial: row.get(5)?,
            checkpoint: json(row, 6)?,
            summarized_chars: row.get(8)?,
            checkpoint_chars: row.get(9)?,
            plugin_reports: json(row, 12)?,
            plugin_fields: json(row, 13)?,
            inject_context: json(row, 14)?,
            model_call_id: row.get(15)?,
            fidelity: match row.get::<_, Option<String>>(19)? {
                Some(text) => Some(serde_json::from_str(&text).map_err(|e| bad(19, format!("fidelity: {e}")))?),
                None => None,
            },
        })),
    };
    Ok(CompactionRecord {
        id: row.get(0)?,
        reason: CompactionReason::parse(&reason).ok_or_else(|| bad(2, format!("unknown reason {reason:?}")))?,
        status: Status::parse(&status).ok_or_else(|| bad(4, format!("unknown status {status:?}")))?,
        span: json(row, 7)?,
        before_chars: row.get(10)?,
        after_chars: row.get(11)?,
        created_at: row.get(16)?,
        applied_at: row.get(17)?,
        reverted_at: row.get(18)?,
        detail,
        trigger: match row.get::<_, Option<String>>(20)? {
            Some(text) => Some(serde_json::from_str(&text).map_err(|e| bad(20, format!("trigger: {e}")))?),
            None => None,
        },
    })
}

/// Stores a record with the given status and returns its id.
pub fn insert_compaction(tx: &Tx<'_>, session: &SessionId, record: &NewCompaction, status: Status) -> Result<i64> {
    let now = now_rfc3339();
    let empty = Map::new();
    let fidelity = match &record.detail {
        RecordDetail::Checkpoint(c) => c.fidelity.as_ref().map(serde_json::to_string).transpose()?,
        RecordDetail::Reduction => None,
    };
    let (focus, partial, checkpoint, summarized_chars, checkpoint_chars, reports, fields, inject, model_call) =
        match &record.detail {
            RecordDetail::Checkpoint(c) => (
                c.focus.as_deref(),
                c.partial,
                c.checkpoint.to_string(),
                c.summarized_chars,
                c.checkpoint_chars,
                serde_json::to_string(&c.plugin_reports)?,
                serde_json::to_string(&c.plugin_fields)?,
                serde_json::to_string(&c.inject_context)?,
                c.model_call_id,
            ),
            RecordDetail::Reduction => {
                (None, false, "{}".into(), 0, 0, "[]".into(), serde_json::to_string(&empty)?, "[]".into(), None)
            }
        };
    tx.conn().execute(
        "INSERT INTO compactions (session_id, kind, reason, focus, status, partial, checkpoint, summarized_ranges,
             summarized_messages, summarized_chars, checkpoint_chars, before_chars, after_chars, plugin_reports,
             plugin_fields, inject_context, model_call_id, created_at, fidelity, trigger)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20)",
        params![
            session,
            record.detail.kind().as_str(),
            record.reason.as_str(),
            focus,
            status.as_str(),
            partial,
            checkpoint,
            serde_json::to_string(&super::seq_ranges(record.span.iter().copied()))?,
            record.span.len() as i64,
            summarized_chars as i64,
            checkpoint_chars as i64,
            record.before_chars as i64,
            record.after_chars as i64,
            reports,
            fields,
            inject,
            model_call,
            now,
            fidelity,
            record.trigger.as_ref().map(serde_json::to_string).transpose()?,
        ],
    )?;
    Ok(tx.conn().last_insert_rowid())
}

/// Hides `seqs` (which must all be live) on behalf of record `id`.
pub fn hide_messages(tx: &Tx<'_>, session: &SessionId, id: i64, seqs: &[i64]) -> Result<()> {
    let mut stmt = tx.conn().prepare_cached(
        "UPDATE messages SET compacted = 1, compacted_by = ?3 WHERE session_id = ?1 AND seq = ?2 AND compacted = 0",
    )?;
    for seq in seqs {
        if stmt.execute(params![session, seq, id])? != 1 {
            return Err(Error::Usage(format!(
                "message {seq} is no longer live; the session changed since this compaction was planned — plan it again"
            )));
        }
    }
    Ok(())
}

/// Applies a checkpoint record: adds the checkpoint and injected context at `anchor`, hides the span.
/// What a compaction puts in the view, in this order: its checkpoint, the pinned block, and
/// the context plugins asked to inject.
pub struct Added<'a> {
    pub checkpoint: &'a str,
    pub pinned: Option<&'a str>,
    pub inject: &'a [String],
}

pub fn apply_checkpoint(
    tx: &Tx<'_>,
    session: &SessionId,
    id: i64,
    anchor: i64,
    added: &Added<'_>,
    summarized_seqs: &[i64],
) -> Result<i64> {
    hide_messages(tx, session, id, summarized_seqs)?;
    let seq = append_message(tx, session, &NewMessage::summary(added.checkpoint, anchor, id))?;
    if let Some(block) = added.pinned {
        // Right after the checkpoint.
        append_pinned(tx, session, id, &NewMessage::summary(block, anchor, id))?;
    }
    for context in added.inject {
        append_message(tx, session, &NewMessage::summary(context.clone(), anchor, id))?;
    }
    tx.conn().execute(
        "UPDATE compactions SET status = 'applied', applied_at = ?2 WHERE id = ?1",
        params![id, now_rfc3339()],
    )?;
    Ok(seq)
}

/// Appends the pinned block `message` of compaction `id`, marked so the views show it as pinned.
pub fn append_pinned(tx: &Tx<'_>, session: &SessionId, id: i64, message: &NewMessage) -> Result<i64> {
    debug_assert_eq!(message.created_by, Some(id));
    let seq = append_message(tx, session, message)?;
    tx.conn().execute(
        "UPDATE messages SET meta = '{\"pinned\":true}' WHERE session_id = ?1 AND seq = ?2",
        params![session, seq],
    )?;
    Ok(seq)
}

/// Completes proposal `id` with the checkpoint being applied (edited or as proposed).
pub fn complete_proposal(tx: &Tx<'_>, id: i64, done: &ProposalCompletion<'_>) -> Result<()> {
    tx.conn().execute(
        "UPDATE compactions SET checkpoint = ?2, partial = ?3, checkpoint_chars = ?4, after_chars = ?5, fidelity = ?6
         WHERE id = ?1",
        params![
            id,
            serde_json::to_string(done.checkpoint)?,
            done.partial,
            done.checkpoint_chars as i64,
            done.after_chars as i64,
            serde_json::to_string(done.fidelity)?,
        ],
    )?;
    Ok(())
}

/// What applying a proposal sets on its record.
pub struct ProposalCompletion<'a> {
    pub checkpoint: &'a Value,
    pub partial: bool,
    pub checkpoint_chars: u64,
    pub after_chars: u64,
    pub fidelity: &'a Fidelity,
}

/// A reduction takes effect as it is recorded.
pub fn applied_when_created(tx: &Tx<'_>, id: i64) -> Result<()> {
    tx.conn().execute("UPDATE compactions SET applied_at = created_at WHERE id = ?1", [id])?;
    Ok(())
}

impl Store {
    /// Texts compactions put into a session's requests: checkpoints, and the context plugins
    /// had them add (`inject_context`).
    pub fn compaction_texts(
        &self,
        session: &SessionId,
    ) -> Result<(std::collections::HashSet<String>, std::collections::HashSet<String>)> {
        self.read(|conn| {
            let mut stmt = conn.prepare_cached(
                "SELECT content FROM messages WHERE session_id = ?1 AND created_by IS NOT NULL AND summary = 1",
            )?;
            let checkpoints = stmt.query_map([session], |r| r.get::<_, String>(0))?.collect::<rusqlite::Result<_>>()?;
            let mut stmt = conn.prepare_cached("SELECT inject_context FROM compactions WHERE session_id = ?1")?;
            let mut injected = std::collections::HashSet::new();
            for texts in stmt.query_map([session], |r| r.get::<_, Option<String>>(0))? {
                let texts: Vec<String> = texts?.and_then(|t| serde_json::from_str(&t).ok()).unwrap_or_default();
                injected.extend(texts);
            }
            Ok((checkpoints, injected))
        })
    }

    pub fn compactions(&self, session: &SessionId) -> Result<Vec<CompactionRecord>> {
        self.read(|conn| {
            let mut stmt =
                conn.prepare_cached(&format!("SELECT {COLUMNS} FROM compactions WHERE session_id = ?1 ORDER BY id"))?;
            let rows = stmt.query_map([session], record_from_row)?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })
    }

    pub fn compaction(&self, session: &SessionId, id: i64) -> Result<Option<CompactionRecord>> {
        self.read(|conn| {
            Ok(conn
                .query_row(
                    &format!("SELECT {COLUMNS} FROM compactions WHERE session_id = ?1 AND id = ?2"),
                    params![session, id],
                    record_from_row,
                )
                .optional()?)
        })
    }

    /// Reverts the newest applied checkpoint (or masking or pruning step) and every record applied
    /// after it, in one transaction: what they hid is live again, what they added is hidden and
    /// marked reverted.
    pub fn undo_latest_compaction(&self, session: &SessionId) -> Result<Vec<i64>> {
        self.write(|tx| {
            let newest: Option<i64> = tx
                .conn()
                .query_row(
                    "SELECT max(id) FROM compactions
                     WHERE session_id = ?1 AND (kind = 'checkpoint' OR reason IN ('mask', 'prune')) AND status = 'applied'",
                    [session],
                    |r| r.get(0),
                )
                .optional()?
                .flatten();
            let Some(newest) = newest else {
                return Err(Error::Usage("this session has no applied compaction to undo".into()));
            };
            let ids: Vec<i64> = {
                let mut stmt = tx.conn().prepare(
                    "SELECT id FROM compactions WHERE session_id = ?1 AND status = 'applied' AND id >= ?2 ORDER BY id DESC",
                )?;
                let rows = stmt.query_map(params![session, newest], |r| r.get(0))?;
                rows.collect::<rusqlite::Result<_>>()?
            };
            let now = now_rfc3339();
            for id in &ids {
                tx.conn().execute("UPDATE messages SET compacted = 0, compacted_by = NULL WHERE compacted_by = ?1", [id])?;
                tx.conn().execute("UPDATE messages SET compacted = 1, reverted = 1 WHERE created_by = ?1", [id])?;
                tx.conn().execute("UPDATE compactions SET status = 'reverted', reverted_at = ?2 WHERE id = ?1", params![id, now])?;
            }
            Ok(ids)
        })
    }

    pub fn discard_proposal(&self, session: &SessionId, id: i64) -> Result<()> {
        self.write(|tx| {
            let changed = tx.conn().execute(
                "UPDATE compactions SET status = 'discarded' WHERE session_id = ?1 AND id = ?2 AND status = 'proposed'",
                params![session, id],
            )?;
            if changed == 0 {
                return Err(Error::Usage(format!("there is no open proposal {id} in this session")));
            }
            Ok(())
        })
    }
}
