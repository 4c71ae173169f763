//! The rows of sessions read from other agents (`alisio import`): the session and its read cursor,
//! the messages, ledger rows and compaction details an importer maps from source records. The
//! importers decide *what* a record becomes; this module is the only place it is written.

use rusqlite::{params, OptionalExtension};
use serde_json::{Map, Value};

use super::{SessionId, SourceKind, Store, Tx};
use crate::error::Result;
use crate::transcript::{Role, ToolCall};

mod calls;
mod titles;

pub use calls::*;
pub use titles::*;

pub use super::sessions::set_title;

/// A message as an importer maps it from a source record.
#[derive(Debug, Clone)]
pub struct Record {
    pub role: Role,
    pub content: String,
    pub tool_calls: Vec<ToolCall>,
    pub tool_call_id: Option<String>,
    pub provider_items: Option<Value>,
    /// The source's id for the record, verbatim.
    pub source_id: Option<String>,
    /// What the record holds beyond the mapped fields (kept, never dropped).
    pub meta: Map<String, Value>,
    /// Kept in the stored view but never part of the model's view.
    pub off_view: bool,
    pub created_at: String,
}

/// Where a record goes in the transcript and what added it.
#[derive(Debug, Clone, Copy, Default)]
pub struct Placement {
    pub seq: i64,
    /// Its place in the transcript (default: its own seq).
    pub anchor: Option<i64>,
    /// The compaction record that added it (a checkpoint, a restated message).
    pub created_by: Option<i64>,
    pub summary: bool,
}

/// What an imported session is, as found or created.
#[derive(Debug, Clone)]
pub struct ImportedIdentity<'a> {
    pub id: &'a str,
    pub source: SourceKind,
    pub source_id: &'a str,
    pub path: &'a str,
    pub title: &'a str,
    pub workspace: &'a str,
    pub created_at: &'a str,
}

/// Stores an imported message at `at`; `chars` is its size as budgets count it. Returns its row
/// id, for [`index_messages`]: the importer adds a batch's messages to the search index together.
pub fn insert_message(tx: &Tx<'_>, session: &SessionId, record: &Record, at: Placement, chars: u64) -> Result<i64> {
    let tool_calls = if record.tool_calls.is_empty() { None } else { Some(serde_json::to_string(&record.tool_calls)?) };
    let meta = if record.meta.is_empty() { None } else { Some(Value::Object(record.meta.clone()).to_string()) };
    let mut stmt = tx.conn().prepare_cached(
        "INSERT INTO messages (session_id, seq, anchor, role, content, chars, tool_calls, tool_call_id,
                               provider_items, created_at, summary, created_by, source_id, meta, off_view)
         VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)",
    )?;
    stmt.execute(params![
        session,
        at.seq,
        at.anchor.unwrap_or(at.seq),
        record.role.as_str(),
        record.content,
        chars as i64,
        tool_calls,
        record.tool_call_id,
        record.provider_items.as_ref().map(Value::to_string),
        record.created_at,
        at.summary,
        at.created_by,
        record.source_id,
        meta,
        record.off_view,
    ])?;
    Ok(tx.conn().last_insert_rowid())
}

/// Adds messages stored by [`insert_message`] (row id, content) to the search index. Done last in
/// a batch: FTS5 writes its pending terms out at every statement savepoint (a trigger, a
/// multi-row update), so indexing between the batch's other writes costs a segment each time.
pub fn index_messages(tx: &Tx<'_>, messages: &[(i64, String)]) -> Result<()> {
    for (id, content) in messages {
        super::search::index_message(tx.conn(), *id, content)?;
    }
    Ok(())
}

/// The seq of the message imported from source record `source_id`, if any.
pub fn seq_of(tx: &Tx<'_>, session: &SessionId, source_id: &str) -> Result<Option<i64>> {
    let mut stmt =
        tx.conn().prepare_cached("SELECT min(seq) FROM messages WHERE session_id = ?1 AND source_id = ?2")?;
    Ok(stmt.query_row(params![session, source_id], |r| r.get(0))?)
}

/// Dates a compaction the source made at the source's own time.
pub fn date_compaction(tx: &Tx<'_>, id: i64, at: &str) -> Result<()> {
    tx.conn().execute("UPDATE compactions SET created_at = ?2, applied_at = ?2 WHERE id = ?1", params![id, at])?;
    Ok(())
}

/// The workspace of the session and the seqs compaction `id` summarized, for its fidelity.
pub fn compaction_span(tx: &Tx<'_>, id: i64) -> Result<(String, Value)> {
    let (workspace, ranges): (String, String) = tx.conn().query_row(
        "SELECT s.workspace, c.summarized_ranges FROM compactions c JOIN sessions s ON s.id = c.session_id WHERE c.id = ?1",
        [id],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    Ok((workspace, serde_json::from_str(&ranges)?))
}

/// Messages by seq inside a write (a compaction's span while it is being recorded).
pub fn messages_at(tx: &Tx<'_>, session: &SessionId, seqs: &[i64]) -> Result<Vec<crate::transcript::Message>> {
    let mut stmt = tx.conn().prepare_cached(&format!(
        "SELECT {} FROM messages WHERE session_id = ?1 AND seq = ?2",
        super::sessions::MESSAGE_COLUMNS
    ))?;
    let mut out = Vec::with_capacity(seqs.len());
    for seq in seqs {
        out.push(stmt.query_row(params![session, seq], super::sessions::message_from_row)?);
    }
    Ok(out)
}

/// Completes an imported compaction with the checkpoint text the source recorded.
pub fn set_checkpoint(tx: &Tx<'_>, id: i64, text: &str, after_chars: u64, fidelity: &Value) -> Result<()> {
    tx.conn().execute(
        "UPDATE compactions SET checkpoint = ?2, checkpoint_chars = ?3, after_chars = ?4, fidelity = ?5 WHERE id = ?1",
        params![
            id,
            serde_json::json!({"text": text}).to_string(),
            text.chars().count() as i64,
            after_chars as i64,
            fidelity.to_string()
        ],
    )?;
    Ok(())
}

/// Takes the messages from `seq` on out of the model's view (an agent's rewind), marked so.
pub fn rewind_from(tx: &Tx<'_>, session: &SessionId, seq: i64) -> Result<()> {
    tx.conn().execute(
        "UPDATE messages SET off_view = 1, meta = json_set(coalesce(meta, '{}'), '$.rewound', json('true'))
         WHERE session_id = ?1 AND seq >= ?2 AND off_view = 0 AND compacted = 0",
        params![session, seq],
    )?;
    Ok(())
}

/// Sets `key` in the kept record fields (`meta`) of message `seq`.
pub fn set_meta_key(tx: &Tx<'_>, session: &SessionId, seq: i64, key: &str, value: &Value) -> Result<()> {
    tx.conn()
        .prepare_cached(
            "UPDATE messages SET meta = json_set(coalesce(meta, '{}'), '$.' || ?3, json(?4))
             WHERE session_id = ?1 AND seq = ?2",
        )?
        .execute(params![session, seq, key, value.to_string()])?;
    Ok(())
}

/// Names message `seq` as the answer of ledger row `call`.
pub fn set_response_seq(tx: &Tx<'_>, call: i64, seq: i64) -> Result<()> {
    tx.conn().prepare_cached("UPDATE model_calls SET response_seq = ?2 WHERE id = ?1")?.execute(params![call, seq])?;
    Ok(())
}

/// Stores a part an agent's request log refers to by hash (once; a second copy is the same part).
pub fn put_part(tx: &Tx<'_>, session: &SessionId, hash: &str, kind: &str, body: &Value) -> Result<()> {
    tx.conn()
        .prepare_cached("INSERT OR IGNORE INTO request_parts (session_id, hash, kind, body) VALUES (?1, ?2, ?3, ?4)")?
        .execute(params![session, hash, kind, body.to_string()])?;
    Ok(())
}

/// How many of `hashes` no part of the session holds.
pub fn missing_parts(tx: &Tx<'_>, session: &SessionId, hashes: &[&str]) -> Result<u64> {
    let mut stmt = tx.conn().prepare_cached("SELECT 1 FROM request_parts WHERE session_id = ?1 AND hash = ?2")?;
    let mut missing = 0;
    for hash in hashes {
        if !stmt.exists(params![session, hash])? {
            missing += 1;
        }
    }
    Ok(missing)
}

/// Records that ledger row `call`'s logged request names `gaps` parts the log never wrote.
pub fn set_request_gaps(tx: &Tx<'_>, call: i64, gaps: u64) -> Result<()> {
    tx.conn().execute("UPDATE model_calls SET request_gaps = ?2 WHERE id = ?1", params![call, gaps as i64])?;
    Ok(())
}

/// Links the compaction that message `seq` belongs to with the call that summarized it.
pub fn link_summary_call(tx: &Tx<'_>, session: &SessionId, call: i64, seq: i64) -> Result<()> {
    tx.conn().execute(
        "UPDATE compactions SET model_call_id = ?2 WHERE id = (SELECT created_by FROM messages WHERE session_id = ?1 AND seq = ?3)",
        params![session, call, seq],
    )?;
    Ok(())
}

/// The system prompt the agent recorded, for rebuilding its requests.
pub fn set_system_prompt(tx: &Tx<'_>, session: &SessionId, prompt: &str) -> Result<()> {
    tx.conn().execute("UPDATE sessions SET system_prompt = ?2 WHERE id = ?1", params![session, prompt])?;
    Ok(())
}

/// Moves the session's last activity to `at` (the source's time of its newest record).
pub fn touch(tx: &Tx<'_>, session: &SessionId, at: &str) -> Result<()> {
    if !at.is_empty() {
        tx.conn()
            .prepare_cached(
                "UPDATE sessions SET updated_at = ?2, created_at = CASE WHEN created_at = '' THEN ?2 ELSE created_at END
                 WHERE id = ?1 AND coalesce(julianday(updated_at), 0) < julianday(?2)",
            )?
            .execute(params![session, at])?;
    }
    Ok(())
}

/// Saves how far the source has been read, with the importer's state.
/// Moves an import's cursor from `from` (as read when the import began or last advanced) to `to`,
/// in the transaction that wrote what was read: a cursor moved meanwhile by another import fails
/// the batch, so no record is stored twice.
pub fn advance_cursor(tx: &Tx<'_>, session: &SessionId, from: Option<&str>, to: &str) -> Result<()> {
    let changed = tx.conn().execute(
        "UPDATE sessions SET source_cursor = ?3 WHERE id = ?1 AND source_cursor IS ?2",
        params![session, from, to],
    )?;
    if changed == 0 {
        return Err(crate::error::Error::Unreadable(format!(
            "another import read session {session}'s source meanwhile; this reading was rolled back"
        )));
    }
    Ok(())
}

pub fn set_cursor(tx: &Tx<'_>, session: &SessionId, cursor: &str) -> Result<()> {
    tx.conn().execute("UPDATE sessions SET source_cursor = ?2 WHERE id = ?1", params![session, cursor])?;
    Ok(())
}

/// What an importer needs to go on appending to a session: the next seq, its messages not hidden
/// by a compaction in seq order (seq, chars, off view), and the live view's seqs in request order.
pub type AppendState = (i64, Vec<(i64, u64, bool)>, Vec<i64>);

pub fn append_state(tx: &Tx<'_>, session: &SessionId) -> Result<AppendState> {
    let conn = tx.conn();
    let next_seq: i64 =
        conn.query_row("SELECT coalesce(max(seq), 0) + 1 FROM messages WHERE session_id = ?1", [session], |r| {
            r.get(0)
        })?;
    let mut stmt =
        conn.prepare("SELECT seq, chars, off_view FROM messages WHERE session_id = ?1 AND compacted = 0 ORDER BY seq")?;
    let rows =
        stmt.query_map([session], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?.collect::<rusqlite::Result<Vec<_>>>()?;
    let mut stmt = conn.prepare(
        "SELECT seq FROM messages WHERE session_id = ?1 AND compacted = 0 AND off_view = 0 ORDER BY anchor, seq",
    )?;
    let order = stmt.query_map([session], |r| r.get(0))?.collect::<rusqlite::Result<Vec<_>>>()?;
    Ok((next_seq, rows, order))
}

/// The import record of a source session: its cursor and the file it was read from, or `None`
/// when it was never imported.
pub fn import_state(store: &Store, id: &str) -> Result<Option<(Option<String>, Option<String>)>> {
    store.read(|c| {
        Ok(c.query_row("SELECT source_cursor, source_path FROM sessions WHERE id = ?1", [id], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
        .optional()?)
    })
}

/// Finds the session of a source session (recording where it is read from now) or creates it;
/// returns its stored cursor.
pub fn upsert_session(store: &Store, identity: &ImportedIdentity<'_>) -> Result<Option<String>> {
    store.write(|tx| {
        let conn = tx.conn();
        let cursor: Option<Option<String>> = conn
            .query_row("SELECT source_cursor FROM sessions WHERE id = ?1", [identity.id], |r| r.get(0))
            .optional()?;
        match cursor {
            Some(cursor) => {
                conn.execute(
                    "UPDATE sessions SET source_path = ?2 WHERE id = ?1",
                    params![identity.id, identity.path],
                )?;
                Ok(cursor)
            }
            None => {
                // Undated until a record's time dates it (never the time of the import).
                let created = identity.created_at.to_string();
                conn.execute(
                    "INSERT INTO sessions (id, title, workspace, created_at, updated_at, source, source_path, source_id)
                     VALUES (?1, ?2, ?3, ?4, ?4, ?5, ?6, ?7)",
                    params![
                        identity.id,
                        identity.title,
                        identity.workspace,
                        created,
                        identity.source,
                        identity.path,
                        identity.source_id
                    ],
                )?;
                Ok(None)
            }
        }
    })
}

/// The agent an imported session was read from.
pub fn source_of(tx: &Tx<'_>, session: &SessionId) -> Result<SourceKind> {
    let source: Option<SourceKind> =
        tx.conn().query_row("SELECT source FROM sessions WHERE id = ?1", [session], |r| r.get(0))?;
    source.ok_or_else(|| crate::error::Error::Unreadable(format!("session {session} was not imported")))
}

/// Makes (once) the session of a sub-agent thread read from `parent`'s source: same agent, file
/// and workspace, titled by its source id until its first prompt names it.
pub fn open_thread(
    tx: &Tx<'_>,
    parent: &str,
    id: &str,
    source_id: &str,
    created_at: &str,
    parent_tool_call: Option<&str>,
) -> Result<()> {
    tx.conn().execute(
        "INSERT INTO sessions (id, title, workspace, created_at, updated_at, source, source_path, source_id,
                               parent_session, parent_tool_call)
         SELECT ?2, ?3, workspace, coalesce(nullif(?4, ''), created_at), coalesce(nullif(?4, ''), created_at),
                source, source_path, ?3, id, ?5
         FROM sessions WHERE id = ?1
         ON CONFLICT (id) DO UPDATE SET parent_tool_call = coalesce(excluded.parent_tool_call, parent_tool_call)",
        params![parent, id, source_id, created_at, parent_tool_call],
    )?;
    Ok(())
}

/// Names the session that started sub-agent session `session` (a sub-agent's own file).
pub fn set_parent(tx: &Tx<'_>, session: &SessionId, parent: &str, tool_call: Option<&str>) -> Result<()> {
    tx.conn().execute(
        "UPDATE sessions SET parent_session = ?2, parent_tool_call = coalesce(?3, parent_tool_call) WHERE id = ?1",
        params![session, parent, tool_call],
    )?;
    Ok(())
}

/// The sub-agent sessions read from the same source file as `session`, inside it.
pub fn threads_of(store: &Store, session: &SessionId) -> Result<Vec<SessionId>> {
    store.read(|c| {
        let mut stmt = c.prepare_cached(
            "SELECT t.id FROM sessions t JOIN sessions p ON p.id = t.parent_session
             WHERE p.id = ?1 AND t.source_path = p.source_path ORDER BY t.created_at, t.id",
        )?;
        let rows = stmt.query_map([session], |r| r.get::<_, SessionId>(0))?;
        Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
    })
}

/// Dates a session none of whose records carried a time by its file's (last modification).
pub fn date_if_undated(store: &Store, session: &SessionId, at: &str) -> Result<()> {
    store.write(|tx| {
        tx.conn().execute(
            "UPDATE sessions SET created_at = CASE WHEN created_at = '' THEN ?2 ELSE created_at END,
                                 updated_at = CASE WHEN updated_at = '' THEN ?2 ELSE updated_at END
             WHERE id = ?1 AND (created_at = '' OR updated_at = '')",
            params![session, at],
        )?;
        Ok(())
    })
}

/// A source rewritten in place is read again from its start. What was imported of it is not
/// deleted: it moves, unchanged, to a session of its own (`<title> (superseded <time>)`, no
/// source id, so it is never matched again), and the session keeps its id for the new reading.
/// Returns the id of the session that now holds the earlier reading.
pub fn supersede(tx: &Tx<'_>, session: &SessionId) -> Result<SessionId> {
    let conn = tx.conn();
    let now = crate::events::now_rfc3339();
    let archive = SessionId::from_string(uuid::Uuid::now_v7().to_string());
    conn.execute(
        "INSERT INTO sessions (id, title, workspace, created_at, updated_at, source, source_path, system_prompt)
         SELECT ?2, title || ' (superseded ' || ?3 || ')', workspace, created_at, updated_at, source, source_path,
                system_prompt
         FROM sessions WHERE id = ?1",
        params![session, archive, now],
    )?;
    for table in ["messages", "compactions", "model_calls", "tool_calls", "events", "request_parts"] {
        conn.execute(&format!("UPDATE {table} SET session_id = ?2 WHERE session_id = ?1"), params![session, archive])?;
    }
    conn.execute("UPDATE sessions SET source_cursor = NULL WHERE id = ?1", [session])?;
    // The sub-agent threads read from inside the same file go with the earlier reading.
    let threads: Vec<String> = {
        let mut stmt = conn.prepare(
            "SELECT t.id FROM sessions t JOIN sessions p ON p.id = t.parent_session
             WHERE p.id = ?1 AND t.source_path = p.source_path",
        )?;
        let rows = stmt.query_map([session], |r| r.get(0))?;
        rows.collect::<rusqlite::Result<_>>()?
    };
    for thread in threads {
        let moved = SessionId::from_string(uuid::Uuid::now_v7().to_string());
        conn.execute(
            "INSERT INTO sessions (id, title, workspace, created_at, updated_at, source, source_path, system_prompt,
                                   parent_session)
             SELECT ?2, title || ' (superseded ' || ?3 || ')', workspace, created_at, updated_at, source, source_path,
                    system_prompt, ?4
             FROM sessions WHERE id = ?1",
            params![thread, moved, now, archive],
        )?;
        for table in ["messages", "compactions", "model_calls", "tool_calls", "events", "request_parts"] {
            conn.execute(&format!("UPDATE {table} SET session_id = ?2 WHERE session_id = ?1"), params![thread, moved])?;
        }
    }
    Ok(archive)
}

/// The session's title and how many messages, tool calls and compactions it holds.
pub fn counts(store: &Store, session: &SessionId) -> Result<(String, u64, u64, u64)> {
    store.read(|c| {
        Ok(c.query_row(
            "SELECT s.title,
                    (SELECT count(*) FROM messages WHERE session_id = s.id),
                    (SELECT coalesce(sum(json_array_length(tool_calls)), 0) FROM messages
                        WHERE session_id = s.id AND tool_calls IS NOT NULL),
                    (SELECT count(*) FROM compactions WHERE session_id = s.id)
             FROM sessions s WHERE s.id = ?1",
            [session],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
        )?)
    })
}

/// How many sessions of `source` the store holds that were read from `under` (a file or a folder).
pub fn count_from(store: &Store, source: SourceKind, under: &str) -> Result<u64> {
    // Sessions read from files under `under` (an agent may have several locations).
    let prefix = format!("{}/", under.trim_end_matches('/'));
    store.read(|c| {
        Ok(c.query_row(
            "SELECT count(*) FROM sessions WHERE source = ?1 AND (source_path = ?2 OR substr(source_path, 1, length(?3)) = ?3)",
            params![source, under, prefix],
            |r| r.get(0),
        )?)
    })
}
