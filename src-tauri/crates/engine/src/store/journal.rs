//! The tool-call journal: `requested → started → finished | uncertain → acknowledged`. "started" is
//! made durable before a tool runs, so a call that started and never finished is known to be uncertain.

use rusqlite::{params, Row};
use serde::Serialize;

use super::{SessionId, Store, Tx};
use crate::error::Result;
use crate::events::now_rfc3339;
use crate::transcript::ToolCall;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, strum::IntoStaticStr, strum::EnumString)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
#[strum(serialize_all = "lowercase")]
pub enum JournalState {
    Requested,
    Started,
    Finished,
    Uncertain,
    Acknowledged,
    /// Shown, never stored: a started call in a session that a live process still drives.
    Running,
}

impl JournalState {
    fn parse(s: &str) -> Option<Self> {
        s.parse().ok()
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct JournalEntry {
    pub id: i64,
    pub call_id: String,
    pub name: String,
    pub arguments: String,
    pub assistant_seq: i64,
    pub state: JournalState,
    pub ok: Option<bool>,
    pub result_seq: Option<i64>,
    pub output_bytes: Option<i64>,
    pub dropped_bytes: i64,
    pub lossy: bool,
    pub requested_at: String,
    pub started_at: Option<String>,
    pub finished_at: Option<String>,
    pub acknowledged_at: Option<String>,
    /// The process group a `shell` call ran in.
    pub pgid: Option<i64>,
    #[serde(skip)]
    pub pgid_started: Option<i64>,
}

impl JournalEntry {
    /// The recorded process group, if the call started one.
    pub fn process_group(&self) -> Option<crate::tools::process::ProcessGroup> {
        Some(crate::tools::process::ProcessGroup {
            pgid: i32::try_from(self.pgid?).ok()?,
            started: u64::try_from(self.pgid_started?).ok()?,
        })
    }
}

const JOURNAL_COLUMNS: &str = "id, call_id, name, arguments, assistant_seq, state, ok, result_seq, output_bytes, \
                               dropped_bytes, lossy, requested_at, started_at, finished_at, acknowledged_at, pgid, pgid_started";

fn entry_from_row(row: &Row<'_>) -> rusqlite::Result<JournalEntry> {
    let state: String = row.get(5)?;
    let state = JournalState::parse(&state).ok_or_else(|| {
        rusqlite::Error::FromSqlConversionFailure(
            5,
            rusqlite::types::Type::Text,
            format!("unknown state {state:?}").into(),
        )
    })?;
    Ok(JournalEntry {
        id: row.get(0)?,
        call_id: row.get(1)?,
        name: row.get(2)?,
        arguments: row.get(3)?,
        assistant_seq: row.get(4)?,
        state,
        ok: row.get(6)?,
        result_seq: row.get(7)?,
        output_bytes: row.get(8)?,
        dropped_bytes: row.get(9)?,
        lossy: row.get(10)?,
        requested_at: row.get(11)?,
        started_at: row.get(12)?,
        finished_at: row.get(13)?,
        acknowledged_at: row.get(14)?,
        pgid: row.get(15)?,
        pgid_started: row.get(16)?,
    })
}

/// What a finished tool left behind.
#[derive(Debug, Clone, Copy)]
pub struct Finish {
    pub ok: bool,
    pub result_seq: i64,
    pub output_bytes: i64,
    pub dropped_bytes: i64,
    pub lossy: bool,
}

impl Finish {
    /// A call answered without running (its result is the message at `result_seq`).
    pub fn not_run(result_seq: i64) -> Self {
        Self { ok: false, result_seq, output_bytes: 0, dropped_bytes: 0, lossy: false }
    }
}

/// Records the calls of one assistant message as requested; returns their journal ids in order.
pub fn record_requested(tx: &Tx<'_>, session: &SessionId, assistant_seq: i64, calls: &[ToolCall]) -> Result<Vec<i64>> {
    let now = now_rfc3339();
    let mut ids = Vec::with_capacity(calls.len());
    for call in calls {
        tx.conn().execute(
            "INSERT INTO tool_calls (session_id, call_id, name, arguments, assistant_seq, state, requested_at)
             VALUES (?1, ?2, ?3, ?4, ?5, 'requested', ?6)",
            params![session, call.id, call.name, call.arguments, assistant_seq, now],
        )?;
        ids.push(tx.conn().last_insert_rowid());
    }
    Ok(ids)
}

/// Marks a requested call started inside a larger write (the demo's interrupted call).
pub fn record_started(tx: &Tx<'_>, journal_id: i64) -> Result<()> {
    tx.conn()
        .execute("UPDATE tool_calls SET state = 'started', started_at = requested_at WHERE id = ?1", [journal_id])?;
    Ok(())
}

pub fn record_finished(tx: &Tx<'_>, journal_id: i64, finish: Finish) -> Result<()> {
    tx.conn().execute(
        "UPDATE tool_calls SET state = 'finished', ok = ?2, result_seq = ?3, output_bytes = ?4, dropped_bytes = ?5,
                lossy = ?6, finished_at = ?7 WHERE id = ?1",
        params![
            journal_id,
            finish.ok,
            finish.result_seq,
            finish.output_bytes,
            finish.dropped_bytes,
            finish.lossy,
            now_rfc3339()
        ],
    )?;
    Ok(())
}

/// Records that the call whose results could not be known was acknowledged, under `result_seq`.
pub fn record_acknowledged(tx: &Tx<'_>, journal_id: i64, result_seq: i64) -> Result<()> {
    tx.conn().execute(
        "UPDATE tool_calls SET state = 'acknowledged', result_seq = ?2, acknowledged_at = ?3 WHERE id = ?1",
        params![journal_id, result_seq, now_rfc3339()],
    )?;
    Ok(())
}

impl Store {
    /// Durably marks a call as started; this commit happens before the tool runs.
    pub fn mark_tool_started(&self, journal_id: i64) -> Result<()> {
        self.write(|tx| {
            tx.conn().execute(
                "UPDATE tool_calls SET state = 'started', started_at = ?2 WHERE id = ?1",
                params![journal_id, now_rfc3339()],
            )?;
            Ok(())
        })
    }

    /// Where a late result for a call of the assistant message `assistant_seq` belongs: `None` when
    /// it can simply be appended, else the anchor that places it right after that message and its
    /// results, before the later turn (a result appended after a later assistant message would leave
    /// an orphan tool message in every later request).
    pub fn late_result_anchor(&self, session: &SessionId, assistant_seq: i64) -> Result<Option<i64>> {
        self.read(|conn| {
            let mut stmt = conn.prepare_cached(
                "SELECT m.anchor, m.role FROM messages m, messages a
                 WHERE a.session_id = ?1 AND a.seq = ?2 AND m.session_id = ?1 AND (m.anchor, m.seq) > (a.anchor, a.seq)
                 ORDER BY m.anchor, m.seq",
            )?;
            let assistant_anchor: i64 = conn.query_row(
                "SELECT anchor FROM messages WHERE session_id = ?1 AND seq = ?2",
                params![session, assistant_seq],
                |r| r.get(0),
            )?;
            let mut rows = stmt.query(params![session, assistant_seq])?;
            let mut last = assistant_anchor;
            while let Some(row) = rows.next()? {
                let role: String = row.get(1)?;
                if role != "tool" {
                    return Ok(Some(last));
                }
                last = row.get(0)?;
            }
            Ok(None)
        })
    }

    /// Records the process group a started call runs in (before it can do much).
    pub fn record_tool_process(&self, journal_id: i64, group: crate::tools::process::ProcessGroup) -> Result<()> {
        self.write(|tx| {
            tx.conn().execute(
                "UPDATE tool_calls SET pgid = ?2, pgid_started = ?3 WHERE id = ?1",
                params![journal_id, group.pgid, group.started as i64],
            )?;
            Ok(())
        })
    }

    /// Calls left without a result (requested or started, in call order): the traces of a crash.
    pub fn unresolved_tool_calls(&self, session: &SessionId) -> Result<Vec<JournalEntry>> {
        self.read(|conn| {
            let mut stmt = conn.prepare_cached(&format!(
                "SELECT {JOURNAL_COLUMNS} FROM tool_calls
                 WHERE session_id = ?1 AND state IN ('requested', 'started', 'uncertain') ORDER BY id"
            ))?;
            let rows = stmt.query_map([session], entry_from_row)?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })
    }

    /// Turns every "started" call of the session into "uncertain" (the process that ran it is gone).
    pub fn mark_started_uncertain(&self, session: &SessionId) -> Result<usize> {
        self.write(|tx| {
            Ok(tx.conn().execute(
                "UPDATE tool_calls SET state = 'uncertain' WHERE session_id = ?1 AND state = 'started'",
                [session],
            )?)
        })
    }

    pub fn journal(&self, session: &SessionId) -> Result<Vec<JournalEntry>> {
        self.read(|conn| {
            let mut stmt = conn.prepare_cached(&format!(
                "SELECT {JOURNAL_COLUMNS} FROM tool_calls WHERE session_id = ?1 ORDER BY id"
            ))?;
            let rows = stmt.query_map([session], entry_from_row)?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })
    }
}
