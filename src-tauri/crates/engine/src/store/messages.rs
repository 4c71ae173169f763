//! A session's append-only messages: the live transcript and its pages, messages by seq and
//! position, originals a reduction hid, appending.

use rusqlite::{params, Connection, OptionalExtension, Row};

use super::{SessionId, Store, Tx};
use crate::error::Result;
use crate::events::now_rfc3339;
use crate::transcript::{message_chars, Message, MessageMeta, NewMessage, Role, ToolCall};

pub(crate) const MESSAGE_COLUMNS: &str = "seq, anchor, role, content, tool_calls, tool_call_id, provider_items, \
                               compacted, summary, truncated, uncertain, created_at, chars, reverted, created_by, compacted_by, \
                               source_id, meta, off_view";

/// Maps a row; a row the engine cannot interpret is an error, never silently skipped.
pub(crate) fn message_from_row(row: &Row<'_>) -> rusqlite::Result<Message> {
    let bad = |column: usize, what: String| {
        rusqlite::Error::FromSqlConversionFailure(column, rusqlite::types::Type::Text, what.into())
    };
    let role: String = row.get(2)?;
    let role = Role::parse(&role).ok_or_else(|| bad(2, format!("unknown role {role:?}")))?;
    let tool_calls: Option<String> = row.get(4)?;
    let tool_calls: Vec<ToolCall> = match tool_calls {
        Some(text) => serde_json::from_str(&text).map_err(|e| bad(4, format!("tool_calls: {e}")))?,
        None => Vec::new(),
    };
    let provider_items: Option<String> = row.get(6)?;
    let provider_items = match provider_items {
        Some(text) => Some(serde_json::from_str(&text).map_err(|e| bad(6, format!("provider_items: {e}")))?),
        None => None,
    };
    Ok(Message {
        seq: row.get(0)?,
        anchor: row.get(1)?,
        role,
        content: row.get(3)?,
        tool_calls,
        tool_call_id: row.get(5)?,
        provider_items,
        compacted: row.get(7)?,
        summary: row.get(8)?,
        truncated: row.get(9)?,
        uncertain: row.get(10)?,
        created_at: row.get(11)?,
        chars: row.get(12)?,
        reverted: row.get(13)?,
        created_by: row.get(14)?,
        compacted_by: row.get(15)?,
        source_id: row.get(16)?,
        meta: match row.get::<_, Option<String>>(17)? {
            Some(text) => Some(serde_json::from_str(&text).map_err(|e| bad(17, format!("meta: {e}")))?),
            None => None,
        },
        off_view: row.get(18)?,
    })
}

impl Store {
    /// From seq `from` on, in insertion order: each message's seq, whether it is a prompt the user
    /// typed (not a checkpoint or a generated message), and when it was stored — what the
    /// telemetry needs of the messages, without their contents.
    pub fn message_times(&self, session: &SessionId, from: i64) -> Result<Vec<(i64, bool, String)>> {
        self.read(|conn| {
            let mut stmt = conn.prepare_cached(
                "SELECT seq, role = 'user' AND created_by IS NULL AND summary = 0, created_at FROM messages
                 WHERE session_id = ?1 AND seq >= ?2 ORDER BY seq",
            )?;
            let rows = stmt.query_map(params![session, from], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })
    }

    /// The seq the next stored message of the session will get.
    pub fn next_seq(&self, session: &SessionId) -> Result<i64> {
        self.read(|conn| {
            Ok(conn.query_row(
                "SELECT coalesce(max(seq), 0) + 1 FROM messages WHERE session_id = ?1",
                [session],
                |r| r.get(0),
            )?)
        })
    }

    /// Live messages `offset..offset + limit` in transcript order (a page of the model view).
    pub fn live_page(&self, session: &SessionId, offset: u64, limit: u64) -> Result<Vec<Message>> {
        self.read(|conn| {
            let mut stmt = conn.prepare_cached(&format!(
                "SELECT {MESSAGE_COLUMNS} FROM messages WHERE session_id = ?1 AND compacted = 0 AND off_view = 0
                 ORDER BY anchor, seq LIMIT ?2 OFFSET ?3"
            ))?;
            let rows = stmt.query_map(params![session, limit as i64, offset as i64], message_from_row)?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })
    }

    /// Messages the model still sees, in transcript order.
    pub fn live_messages(&self, session: &SessionId) -> Result<Vec<Message>> {
        self.read(|conn| query_messages(conn, session, true))
    }

    /// Whether the cache strategy's trip latch is set (it re-arms below the threshold).
    pub fn cache_latched(&self, session: &SessionId) -> Result<bool> {
        self.read(|conn| {
            Ok(conn.query_row("SELECT cache_latched FROM sessions WHERE id = ?1", [session], |r| r.get(0))?)
        })
    }

    pub fn set_cache_latched(&self, session: &SessionId, latched: bool) -> Result<()> {
        self.write(|tx| {
            tx.conn().execute("UPDATE sessions SET cache_latched = ?2 WHERE id = ?1", params![session, latched])?;
            Ok(())
        })
    }

    /// Live messages without their contents, for budgets and planning.
    pub fn live_meta(&self, session: &SessionId) -> Result<Vec<MessageMeta>> {
        self.read(|conn| query_meta(conn, session))
    }

    /// The given messages (by seq), in the order asked.
    pub fn messages_by_seq(&self, session: &SessionId, seqs: &[i64]) -> Result<Vec<Message>> {
        self.read(|conn| {
            let mut stmt = conn.prepare_cached(&format!(
                "SELECT {MESSAGE_COLUMNS} FROM messages WHERE session_id = ?1 AND seq = ?2"
            ))?;
            seqs.iter().map(|seq| Ok(stmt.query_row(params![session, seq], message_from_row)?)).collect()
        })
    }

    /// The contents of the live tool results that answered calls of tool `name` (what a
    /// `tool_search` returned, for the tools it loaded).
    pub fn live_results_of(&self, session: &SessionId, name: &str) -> Result<Vec<String>> {
        self.read(|conn| {
            let mut stmt = conn.prepare_cached(
                "SELECT r.content FROM messages r
                 WHERE r.session_id = ?1 AND r.role = 'tool' AND r.compacted = 0 AND r.off_view = 0
                   AND r.tool_call_id IN (
                     SELECT json_extract(call.value, '$.id') FROM messages a, json_each(a.tool_calls) call
                     WHERE a.session_id = ?1 AND a.tool_calls IS NOT NULL AND a.compacted = 0
                       AND json_extract(call.value, '$.name') = ?2)",
            )?;
            let rows = stmt.query_map(params![session, name], |r| r.get(0))?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })
    }

    /// The newest message record `by` hid at transcript position `anchor`: the original a reduced
    /// copy stands in for.
    pub fn hidden_original(&self, session: &SessionId, by: i64, anchor: i64) -> Result<Option<Message>> {
        self.read(|conn| {
            Ok(conn
                .query_row(
                    &format!(
                        "SELECT {MESSAGE_COLUMNS} FROM messages WHERE session_id = ?1 AND compacted_by = ?2 AND anchor = ?3
                         ORDER BY seq DESC LIMIT 1"
                    ),
                    params![session, by, anchor],
                    message_from_row,
                )
                .optional()?)
        })
    }

    /// Up to `limit` stored messages (compacted ones included) that come before `before`
    /// (`(anchor, seq)`, or the end), in transcript order — for paging a long session from its end.
    pub fn messages_before(
        &self,
        session: &SessionId,
        before: Option<(i64, i64)>,
        limit: usize,
    ) -> Result<Vec<Message>> {
        self.read(|conn| {
            let (anchor, seq) = before.unwrap_or((i64::MAX, i64::MAX));
            let mut stmt = conn.prepare_cached(&format!(
                "SELECT {MESSAGE_COLUMNS} FROM messages WHERE session_id = ?1 AND (anchor, seq) < (?2, ?3)
                 ORDER BY anchor DESC, seq DESC LIMIT ?4"
            ))?;
            let rows = stmt.query_map(params![session, anchor, seq, limit as i64], message_from_row)?;
            let mut page: Vec<Message> = rows.collect::<rusqlite::Result<_>>()?;
            page.reverse();
            Ok(page)
        })
    }

    /// The stored messages that come after `after` (`(anchor, seq)`) in transcript order: what a
    /// running turn appended since a view was loaded.
    pub fn messages_after(&self, session: &SessionId, after: (i64, i64)) -> Result<Vec<Message>> {
        self.messages_after_page(session, after, usize::MAX)
    }

    /// Up to `limit` stored messages after `after` (`(anchor, seq)`), in transcript order — for
    /// paging forward through a long session.
    pub fn messages_after_page(&self, session: &SessionId, after: (i64, i64), limit: usize) -> Result<Vec<Message>> {
        self.read(|conn| {
            let mut stmt = conn.prepare_cached(&format!(
                "SELECT {MESSAGE_COLUMNS} FROM messages WHERE session_id = ?1 AND (anchor, seq) > (?2, ?3)
                 ORDER BY anchor, seq LIMIT ?4"
            ))?;
            let limit = i64::try_from(limit).unwrap_or(i64::MAX);
            let rows = stmt.query_map(params![session, after.0, after.1, limit], message_from_row)?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })
    }

    /// The transcript position `(anchor, seq)` of message `seq`.
    pub fn position_of(&self, session: &SessionId, seq: i64) -> Result<Option<(i64, i64)>> {
        self.read(|conn| {
            Ok(conn
                .query_row(
                    "SELECT anchor, seq FROM messages WHERE session_id = ?1 AND seq = ?2",
                    params![session, seq],
                    |r| Ok((r.get(0)?, r.get(1)?)),
                )
                .optional()?)
        })
    }

    /// Every stored message, compacted ones included, in transcript order.
    pub fn all_messages(&self, session: &SessionId) -> Result<Vec<Message>> {
        self.read(|conn| query_messages(conn, session, false))
    }

    /// The seqs of checkpoint messages: the first message each compaction added (the rest it
    /// added are injected context).
    pub fn checkpoint_seqs(&self, session: &SessionId) -> Result<std::collections::HashSet<i64>> {
        self.read(|conn| {
            let mut stmt = conn.prepare_cached(
                "SELECT MIN(seq) FROM messages WHERE session_id = ?1 AND summary = 1 AND created_by IS NOT NULL
                 GROUP BY created_by",
            )?;
            let rows = stmt.query_map([session], |row| row.get::<_, i64>(0))?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })
    }
}

/// Metadata of the live messages in transcript order (contents are not read).
fn query_meta(conn: &Connection, session: &SessionId) -> Result<Vec<MessageMeta>> {
    let mut stmt = conn.prepare_cached(
        "SELECT seq, anchor, role, summary, chars, tool_calls, tool_call_id FROM messages
         WHERE session_id = ?1 AND compacted = 0 AND off_view = 0 ORDER BY anchor, seq",
    )?;
    let rows = stmt.query_map([session], |row| {
        let role: String = row.get(2)?;
        let role = Role::parse(&role).ok_or_else(|| {
            rusqlite::Error::FromSqlConversionFailure(
                2,
                rusqlite::types::Type::Text,
                format!("unknown role {role:?}").into(),
            )
        })?;
        let chars: u64 = row.get(4)?;
        let calls: Option<String> = row.get(5)?;
        let calls: Vec<ToolCall> = match calls {
            Some(text) => serde_json::from_str(&text)
                .map_err(|e| rusqlite::Error::FromSqlConversionFailure(5, rusqlite::types::Type::Text, e.into()))?,
            None => Vec::new(),
        };
        let call_chars = message_chars("", &calls);
        let argument_chars = calls.iter().map(|c| c.arguments.chars().count() as u64).sum();
        Ok(MessageMeta {
            seq: row.get(0)?,
            anchor: row.get(1)?,
            role,
            summary: row.get(3)?,
            chars,
            content_chars: chars.saturating_sub(call_chars),
            argument_chars,
            calls: calls.into_iter().map(|c| c.id).collect(),
            answers: row.get(6)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

fn query_messages(conn: &Connection, session: &SessionId, live_only: bool) -> Result<Vec<Message>> {
    let filter = if live_only { "AND compacted = 0 AND off_view = 0" } else { "" };
    let sql = format!("SELECT {MESSAGE_COLUMNS} FROM messages WHERE session_id = ?1 {filter} ORDER BY anchor, seq");
    let mut stmt = conn.prepare_cached(&sql)?;
    let rows = stmt.query_map([session], message_from_row)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Appends a message at the end of the session's transcript and returns its seq.
pub fn append_message(tx: &Tx<'_>, session: &SessionId, message: &NewMessage) -> Result<i64> {
    let seq: i64 = tx.conn().query_row(
        "SELECT coalesce(max(seq), 0) + 1 FROM messages WHERE session_id = ?1",
        [session],
        |r| r.get(0),
    )?;
    let now = now_rfc3339();
    let tool_calls =
        if message.tool_calls.is_empty() { None } else { Some(serde_json::to_string(&message.tool_calls)?) };
    let provider_items = message.provider_items.as_ref().map(serde_json::to_string).transpose()?;
    tx.conn().execute(
        "INSERT INTO messages (session_id, seq, anchor, role, content, chars, tool_calls, tool_call_id, provider_items,
                               uncertain, created_at, summary, truncated, created_by)
         VALUES (?1, ?2, ?11, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?12, ?13, ?14)",
        params![
            session,
            seq,
            message.role.as_str(),
            message.content,
            message_chars(&message.content, &message.tool_calls) as i64,
            tool_calls,
            message.tool_call_id,
            provider_items,
            message.uncertain,
            now,
            message.anchor.unwrap_or(seq),
            message.summary,
            message.truncated,
            message.created_by,
        ],
    )?;
    super::search::index_message(tx.conn(), tx.conn().last_insert_rowid(), &message.content)?;
    tx.conn().execute("UPDATE sessions SET updated_at = ?2 WHERE id = ?1", params![session, now])?;
    Ok(seq)
}
