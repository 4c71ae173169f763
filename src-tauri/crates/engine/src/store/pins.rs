//! Pins: what a session's user wants every request after a checkpoint to carry verbatim — a
//! message's text (as it was when pinned) or a sentence. Compaction reads them; it never changes
//! them.

use rusqlite::{params, OptionalExtension};
use serde::Serialize;

use super::{SessionId, Store, Tx};
use crate::error::{Error, Result};
use crate::events::now_rfc3339;

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Pin {
    pub id: i64,
    /// The message pinned; `None` for a sentence.
    pub seq: Option<i64>,
    pub text: String,
}

impl Store {
    /// Pins message `seq` (its content as stored now) or, without one, `text`.
    pub fn add_pin(&self, session: &SessionId, seq: Option<i64>, text: Option<&str>) -> Result<Pin> {
        self.write(|tx| {
            let text = match (seq, text) {
                (Some(seq), _) => message_text(tx, session, seq)?,
                (None, Some(text)) => text.to_string(),
                (None, None) => return Err(Error::Usage("pin a message (--seq N) or a sentence (--text TEXT)".into())),
            };
            if text.trim().is_empty() {
                return Err(Error::Usage("there is nothing to pin: the text is empty".into()));
            }
            tx.conn().execute(
                "INSERT INTO pins (session_id, seq, text, created_at) VALUES (?1, ?2, ?3, ?4)",
                params![session, seq, text, now_rfc3339()],
            )?;
            Ok(Pin { id: tx.conn().last_insert_rowid(), seq, text })
        })
    }

    /// The session's pins, oldest first.
    pub fn pins(&self, session: &SessionId) -> Result<Vec<Pin>> {
        self.read(|conn| {
            let mut stmt = conn.prepare_cached("SELECT id, seq, text FROM pins WHERE session_id = ?1 ORDER BY id")?;
            let rows = stmt.query_map([session], |r| Ok(Pin { id: r.get(0)?, seq: r.get(1)?, text: r.get(2)? }))?;
            Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
        })
    }

    /// Removes pin `id` of the session; an unknown id is a usage error.
    pub fn remove_pin(&self, session: &SessionId, id: i64) -> Result<()> {
        self.write(|tx| {
            let removed =
                tx.conn().execute("DELETE FROM pins WHERE session_id = ?1 AND id = ?2", params![session, id])?;
            if removed == 0 {
                return Err(Error::Usage(format!("session {session} has no pin {id} (`alisio pin {session} --list`)")));
            }
            Ok(())
        })
    }
}

/// The text a message pin carries: the message's content, with its tool calls' names and
/// arguments when it has no text of its own.
fn message_text(tx: &Tx<'_>, session: &SessionId, seq: i64) -> Result<String> {
    let row: Option<(String, Option<String>)> = tx
        .conn()
        .query_row(
            "SELECT content, tool_calls FROM messages WHERE session_id = ?1 AND seq = ?2",
            params![session, seq],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .optional()?;
    match row {
        Some((content, _)) if !content.trim().is_empty() => Ok(content),
        Some((_, Some(calls))) => Ok(calls),
        Some(_) => Ok(String::new()),
        None => Err(Error::Usage(format!("session {session} has no message {seq}"))),
    }
}
