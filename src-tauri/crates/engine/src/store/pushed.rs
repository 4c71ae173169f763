//! What `alisio push` reads of the library: a fingerprint of each session's pushed parts (it
//! changes whenever anything a push sends does), its messages by seq in pages, and which messages
//! a record hides.

use std::collections::HashMap;

use rusqlite::params;

use super::messages::{message_from_row, MESSAGE_COLUMNS};
use super::{SessionId, Store};
use crate::error::Result;
use crate::transcript::Message;

impl Store {
    /// Per session: its title and last change, its messages (count, last seq, hidden), its calls
    /// (count, last id), its records with their statuses and its pins, as one string.
    pub fn push_fingerprints(&self) -> Result<HashMap<SessionId, String>> {
        self.read(|conn| {
            let mut stmt = conn.prepare(
                "SELECT s.id, coalesce(s.renamed_title, s.title) || '|' || s.updated_at
                    || '|' || (SELECT count(*) || ':' || coalesce(max(seq), 0) || ':' || coalesce(sum(compacted), 0)
                               FROM messages m WHERE m.session_id = s.id)
                    || '|' || (SELECT count(*) || ':' || coalesce(max(id), 0) FROM model_calls c WHERE c.session_id = s.id)
                    || '|' || (SELECT count(*) || ':' || coalesce(group_concat(status), '') FROM compactions k
                               WHERE k.session_id = s.id)
                    || '|' || (SELECT count(*) || ':' || coalesce(max(id), 0) FROM pins p WHERE p.session_id = s.id)
                 FROM sessions s",
            )?;
            let rows = stmt.query_map([], |row| Ok((row.get::<_, SessionId>(0)?, row.get::<_, String>(1)?)))?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })
    }

    /// Up to `limit` of the session's messages with a seq above `after`, by seq.
    pub fn messages_from_seq(&self, session: &SessionId, after: i64, limit: usize) -> Result<Vec<Message>> {
        self.read(|conn| {
            let mut stmt = conn.prepare_cached(&format!(
                "SELECT {MESSAGE_COLUMNS} FROM messages WHERE session_id = ?1 AND seq > ?2 ORDER BY seq LIMIT ?3"
            ))?;
            let limit = i64::try_from(limit).unwrap_or(i64::MAX);
            let rows = stmt.query_map(params![session, after, limit], message_from_row)?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })
    }

    /// Every message of the session as `(seq, the record hiding it or null)`, by seq.
    pub fn hiding_records(&self, session: &SessionId) -> Result<Vec<(i64, Option<i64>)>> {
        self.read(|conn| {
            let mut stmt =
                conn.prepare_cached("SELECT seq, compacted_by FROM messages WHERE session_id = ?1 ORDER BY seq")?;
            let rows = stmt.query_map([session], |row| Ok((row.get(0)?, row.get(1)?)))?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })
    }
}
