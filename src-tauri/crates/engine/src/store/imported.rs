//! The rows of sessions read from other agents (`alisio import`): the session and its read cursor,
//! the messages, ledger rows and compaction details an importer maps from source records. The
//! importers decide *what* a record becomes; this module is the only place it is written.

use rusqlite::{params, OptionalExtension};
use serde_json::{Map, Value};

use super::{Purpose, RequestSource, SessionId, SourceKind, Store, Tx, WireApi};
use crate::error::Result;
use crate::transcript::{Role, ToolCall};

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

/// What a ledger row of an imported call holds.
#[derive(Debug, Clone)]
pub struct Usage {
    pub purpose: Purpose,
    pub api: WireApi,
    pub model: String,
    pub prompt_tokens: Option<u64>,
    pub cached_tokens: Option<u64>,
    /// Input written to the prompt cache (Claude Code's `cache_creation_input_tokens`).
    pub cache_write_tokens: Option<u64>,
    /// The reason the agent recorded for a cache miss, when it did.
    pub agent_cache_reason: Option<String>,
    pub completion_tokens: Option<u64>,
    pub duration_ms: Option<u64>,
    pub ttft_ms: Option<u64>,
    pub finish_reason: Option<String>,
    pub response_seq: Option<i64>,
    pub response: Option<Value>,
    pub started_at: String,
    /// Where the request body comes from (default: rebuilt from the records).
    pub request_source: RequestSource,
    /// What the agent recorded of the request (see `RequestSource::AgentLog`).
    pub request_ref: Option<Value>,
}

impl Usage {
    /// A row of `purpose` sent with `api`, nothing else known yet.
    pub fn new(purpose: Purpose, api: WireApi) -> Self {
        Usage {
            purpose,
            api,
            model: String::new(),
            prompt_tokens: None,
            cached_tokens: None,
            cache_write_tokens: None,
            agent_cache_reason: None,
            completion_tokens: None,
            duration_ms: None,
            ttft_ms: None,
            finish_reason: None,
            response_seq: None,
            response: None,
            started_at: String::new(),
            request_source: RequestSource::Reconstructed,
            request_ref: None,
        }
    }
}

/// The request a ledger row rebuilds: the seq ranges of the view at the time and their size.
#[derive(Debug, Clone, Copy)]
pub struct RequestShape<'a> {
    pub ranges: &'a [[i64; 2]],
    pub chars: u64,
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
pub fn insert_message(tx: &Tx<'_>, session: &str, record: &Record, at: Placement, chars: u64) -> Result<i64> {
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
pub fn seq_of(tx: &Tx<'_>, session: &str, source_id: &str) -> Result<Option<i64>> {
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
pub fn messages_at(tx: &Tx<'_>, session: &str, seqs: &[i64]) -> Result<Vec<crate::transcript::Message>> {
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

/// A ledger row for a call the agent made: the request is rebuilt from `request`'s ranges.
pub fn insert_call(tx: &Tx<'_>, session: &str, request: RequestShape<'_>, usage: &Usage) -> Result<i64> {
    let mut stmt = tx.conn().prepare_cached(
        "INSERT INTO model_calls (session_id, purpose, api, model, system_prompt, message_ranges, params,
             tool_catalog_chars, request_chars, estimated_tokens, prompt_tokens, cached_tokens,
             completion_tokens, ttft_ms, duration_ms, finish_reason, response_seq, response, started_at,
             request_source, request_ref, cache_write_tokens, agent_cache_reason)
         VALUES (?1, ?2, ?3, ?4, '', ?5, ?6, 0, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21)",
    )?;
    stmt.execute(params![
        session,
        usage.purpose,
        usage.api,
        usage.model,
        serde_json::to_string(request.ranges)?,
        serde_json::json!({"reconstructed": true}).to_string(),
        request.chars as i64,
        crate::transcript::estimate_tokens(request.chars) as i64,
        usage.prompt_tokens.map(|v| v as i64),
        usage.cached_tokens.map(|v| v as i64),
        usage.completion_tokens.map(|v| v as i64),
        usage.ttft_ms.map(|v| v as i64),
        usage.duration_ms.map(|v| v as i64),
        usage.finish_reason,
        usage.response_seq,
        usage.response.as_ref().map(Value::to_string),
        usage.started_at,
        usage.request_source,
        usage.request_ref.as_ref().map(Value::to_string),
        usage.cache_write_tokens.map(|v| v as i64),
        usage.agent_cache_reason,
    ])?;
    Ok(tx.conn().last_insert_rowid())
}

pub use super::sessions::set_title;

/// Names message `seq` as the answer of ledger row `call`.
pub fn set_response_seq(tx: &Tx<'_>, call: i64, seq: i64) -> Result<()> {
    tx.conn().prepare_cached("UPDATE model_calls SET response_seq = ?2 WHERE id = ?1")?.execute(params![call, seq])?;
    Ok(())
}

/// Stores a part an agent's request log refers to by hash (once; a second copy is the same part).
pub fn put_part(tx: &Tx<'_>, session: &str, hash: &str, kind: &str, body: &Value) -> Result<()> {
    tx.conn()
        .prepare_cached("INSERT OR IGNORE INTO request_parts (session_id, hash, kind, body) VALUES (?1, ?2, ?3, ?4)")?
        .execute(params![session, hash, kind, body.to_string()])?;
    Ok(())
}

/// Links the compaction that message `seq` belongs to with the call that summarized it.
pub fn link_summary_call(tx: &Tx<'_>, session: &str, call: i64, seq: i64) -> Result<()> {
    tx.conn().execute(
        "UPDATE compactions SET model_call_id = ?2 WHERE id = (SELECT created_by FROM messages WHERE session_id = ?1 AND seq = ?3)",
        params![session, call, seq],
    )?;
    Ok(())
}

/// The system prompt the agent recorded, for rebuilding its requests.
pub fn set_system_prompt(tx: &Tx<'_>, session: &str, prompt: &str) -> Result<()> {
    tx.conn().execute("UPDATE sessions SET system_prompt = ?2 WHERE id = ?1", params![session, prompt])?;
    Ok(())
}

/// Moves the session's last activity to `at` (the source's time of its newest record).
pub fn touch(tx: &Tx<'_>, session: &str, at: &str) -> Result<()> {
    if !at.is_empty() {
        tx.conn()
            .prepare_cached("UPDATE sessions SET updated_at = max(updated_at, ?2) WHERE id = ?1")?
            .execute(params![session, at])?;
    }
    Ok(())
}

/// Saves how far the source has been read, with the importer's state.
/// Moves an import's cursor from `from` (as read when the import began or last advanced) to `to`,
/// in the transaction that wrote what was read: a cursor moved meanwhile by another import fails
/// the batch, so no record is stored twice.
pub fn advance_cursor(tx: &Tx<'_>, session: &str, from: Option<&str>, to: &str) -> Result<()> {
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

pub fn set_cursor(tx: &Tx<'_>, session: &str, cursor: &str) -> Result<()> {
    tx.conn().execute("UPDATE sessions SET source_cursor = ?2 WHERE id = ?1", params![session, cursor])?;
    Ok(())
}

/// What an importer needs to go on appending to a session: the next seq, its messages not hidden
/// by a compaction in seq order (seq, chars, off view), and the live view's seqs in request order.
pub type AppendState = (i64, Vec<(i64, u64, bool)>, Vec<i64>);

pub fn append_state(tx: &Tx<'_>, session: &str) -> Result<AppendState> {
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
                let created = if identity.created_at.is_empty() {
                    crate::events::now_rfc3339()
                } else {
                    identity.created_at.to_string()
                };
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

/// A source rewritten in place is read again from its start. What was imported of it is not
/// deleted: it moves, unchanged, to a session of its own (`<title> (superseded <time>)`, no
/// source id, so it is never matched again), and the session keeps its id for the new reading.
/// Returns the id of the session that now holds the earlier reading.
pub fn supersede(tx: &Tx<'_>, session: &str) -> Result<SessionId> {
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
    Ok(archive)
}

/// The session's title and how many messages, tool calls and compactions it holds.
pub fn counts(store: &Store, session: &str) -> Result<(String, u64, u64, u64)> {
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
