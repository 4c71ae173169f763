//! Forks: what the model saw after a message, and a new session made of it. The source is
//! only read; the fork's messages are new rows of Alisio's own session, indexed for search.

use rusqlite::params;

use super::sessions::{append_message, message_from_row, ForkedFrom, Session, SessionId, MESSAGE_COLUMNS};
use super::Store;
use crate::error::{Error, Result};
use crate::events::now_rfc3339;
use crate::transcript::{Message, NewMessage, Role};

impl Store {
    /// The messages the model saw once the transcript reached message `upto`: messages up to it,
    /// with the compactions made by then applied (`compactions_until`: those whose added messages
    /// come at or before it) and those made later not — their checkpoints left out, what they hid
    /// kept. Reverted compactions count as never made; records kept apart from the model's view
    /// (an imported sub-agent's) are left out.
    pub fn view_at(&self, session: &SessionId, upto: i64, compactions_until: i64) -> Result<Vec<Message>> {
        self.read(|conn| {
            let mut stmt = conn.prepare_cached(&format!(
                "SELECT {MESSAGE_COLUMNS} FROM messages m
                 WHERE m.session_id = ?1 AND m.seq <= ?2 AND m.off_view = 0 AND m.reverted = 0
                   AND (m.created_by IS NULL OR m.seq <= ?3)
                   AND (m.compacted_by IS NULL OR NOT EXISTS (
                        SELECT 1 FROM messages a
                        WHERE a.session_id = ?1 AND a.created_by = m.compacted_by AND a.seq <= ?3))
                 ORDER BY m.anchor, m.seq"
            ))?;
            let rows = stmt.query_map(params![session, upto, compactions_until], message_from_row)?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })
    }

    /// A new session of Alisio's own in `workspace`, holding what the model saw after message
    /// `seq` of `source` (its checkpoints included), recording where it came from. With `start`
    /// (an exact request's messages and the last seq it held) the history is those messages, then
    /// the transcript's after that seq. Refused when `seq` is not a message of the source, or when
    /// a call made by then has its result only later (the fork would send a call without it):
    /// fork at the message after the results, or before.
    pub fn fork(
        &self,
        source: &Session,
        seq: i64,
        title: Option<&str>,
        workspace: &str,
        start: Option<(Vec<NewMessage>, i64)>,
    ) -> Result<(Session, usize)> {
        let exists: bool = self.read(|conn| {
            Ok(conn.query_row(
                "SELECT EXISTS (SELECT 1 FROM messages WHERE session_id = ?1 AND seq = ?2)",
                params![source.id, seq],
                |r| r.get(0),
            )?)
        })?;
        if !exists {
            return Err(Error::Usage(format!(
                "session {} has no message {seq} (see `alisio sessions show`)",
                source.id
            )));
        }
        let view = self.view_at(&source.id, seq, seq)?;
        let (mut history, after): (Vec<(NewMessage, Option<String>)>, i64) = match start {
            Some((messages, through)) => (messages.into_iter().map(|m| (m, None)).collect(), through),
            None => (Vec::new(), i64::MIN),
        };
        history.extend(
            view.iter().filter(|m| m.seq > after).map(|m| (copy_of(m), m.meta.as_ref().map(|v| v.to_string()))),
        );
        if let Some(pending) = unanswered(history.iter().map(|(m, _)| m)) {
            return Err(Error::Usage(format!(
                "message {seq} comes before the result of call {pending}: a fork there would send the call without it; \
                 fork at the message with its result, or before the call"
            )));
        }
        let now = now_rfc3339();
        let title = title.map(str::to_string).unwrap_or_else(|| format!("Fork of {} at #{seq}", source.title));
        let fork = Session {
            id: SessionId::from_string(uuid::Uuid::now_v7().to_string()),
            title,
            workspace: workspace.to_string(),
            created_at: now.clone(),
            updated_at: now,
            source: None,
            source_path: None,
            forked_from: Some(ForkedFrom { session: source.id.to_string(), seq }),
            source_id: None,
            parent_session: None,
            parent_tool_call: None,
        };
        self.write(|tx| {
            tx.conn().execute(
                "INSERT INTO sessions (id, title, workspace, created_at, updated_at, forked_from, forked_at_seq)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
                params![fork.id, fork.title, fork.workspace, fork.created_at, fork.updated_at, source.id, seq],
            )?;
            for (message, meta) in &history {
                let at = append_message(tx, &fork.id, message)?;
                if let Some(meta) = meta {
                    tx.conn().execute(
                        "UPDATE messages SET meta = ?3 WHERE session_id = ?1 AND seq = ?2",
                        params![fork.id, at, meta],
                    )?;
                }
            }
            Ok(())
        })?;
        Ok((fork, history.len()))
    }
}

/// A stored message as a new one of the fork: the same content, flags and calls; its own place.
fn copy_of(message: &Message) -> NewMessage {
    NewMessage {
        role: message.role,
        content: message.content.clone(),
        tool_calls: message.tool_calls.clone(),
        tool_call_id: message.tool_call_id.clone(),
        provider_items: message.provider_items.clone(),
        uncertain: message.uncertain,
        summary: message.summary,
        truncated: message.truncated,
        anchor: None,
        created_by: None,
    }
}

/// The first call in `history` whose result is not in it.
fn unanswered<'m>(history: impl Iterator<Item = &'m NewMessage> + Clone) -> Option<String> {
    let answered: std::collections::HashSet<&str> =
        history.clone().filter(|m| m.role == Role::Tool).filter_map(|m| m.tool_call_id.as_deref()).collect();
    history.flat_map(|m| &m.tool_calls).map(|c| c.id.as_str()).find(|id| !answered.contains(id)).map(str::to_string)
}
