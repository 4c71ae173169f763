//! The library: every session with its figures, titles given in Alisio, removing a session of
//! Alisio's own, and the library's own facts (whether the demo was ever made).

use rusqlite::{params, OptionalExtension};

use super::{SessionId, SessionSummary, Store};
use crate::claim::SessionClaim;
use crate::error::{Error, Result};

/// What removing a session took out of the library.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Removed {
    pub session: SessionId,
    pub title: String,
    pub messages: u64,
    pub calls: u64,
}

/// The library fact recording that the demo session was made.
pub const DEMO_MADE: &str = "demo";

impl Store {
    /// Sessions, newest activity first, with their counts and token sums.
    pub fn list_sessions(&self) -> Result<Vec<SessionSummary>> {
        self.read(|conn| {
            let mut stmt = conn.prepare(
                "SELECT s.id, coalesce(s.renamed_title, s.title), s.workspace, s.created_at, s.updated_at,
                        (SELECT count(*) FROM messages m WHERE m.session_id = s.id AND m.compacted = 0 AND m.off_view = 0),
                        (SELECT count(*) FROM messages m WHERE m.session_id = s.id AND m.compacted = 1),
                        (SELECT count(*) FROM tool_calls t WHERE t.session_id = s.id AND t.state IN ('started', 'uncertain')),
                        (SELECT count(*) FROM tool_calls t WHERE t.session_id = s.id AND t.state = 'started'),
                        coalesce(c.prompt, 0), coalesce(c.cached, 0), coalesce(c.completion, 0), coalesce(c.calls, 0),
                        (SELECT count(*) FROM compactions k WHERE k.session_id = s.id AND k.kind = 'checkpoint' AND k.status = 'applied'),
                        (SELECT coalesce(sum(max(k.before_chars - k.after_chars, 0)), 0) FROM compactions k WHERE k.session_id = s.id AND k.status = 'applied'),
                        s.source, s.source_path,
                        (SELECT count(*) FROM sessions c WHERE c.parent_session = s.id), s.parent_session,
                        CASE WHEN s.renamed_title IS NOT NULL THEN s.title END
                 FROM sessions s LEFT JOIN
                      (SELECT session_id, sum(coalesce(prompt_tokens, 0)) AS prompt, sum(coalesce(cached_tokens, 0)) AS cached,
                              sum(coalesce(completion_tokens, 0)) AS completion, count(*) AS calls
                       FROM model_calls WHERE purpose != 'replay' GROUP BY session_id) c ON c.session_id = s.id
                 ORDER BY s.updated_at DESC, s.id DESC",
            )?;
            let rows = stmt.query_map([], |row| {
                Ok(SessionSummary {
                    id: row.get(0)?,
                    title: row.get(1)?,
                    workspace: row.get(2)?,
                    created_at: row.get(3)?,
                    last_activity: row.get(4)?,
                    live_messages: row.get(5)?,
                    compacted_messages: row.get(6)?,
                    uncertain_tool_calls: row.get(7)?,
                    running_tool_calls: row.get(8)?,
                    prompt_tokens: row.get(9)?,
                    cached_tokens: row.get(10)?,
                    completion_tokens: row.get(11)?,
                    calls: row.get(12)?,
                    compactions: row.get(13)?,
                    saved_chars: row.get(14)?,
                    source: row.get(15)?,
                    source_path: row.get(16)?,
                    cost_usd: None,
                    unpriced_calls: 0,
                    project: String::new(),
                    subagents: row.get(17)?,
                    parent: row.get(18)?,
                    machine: None,
                    user: None,
                    agent_title: row.get(19)?,
                })
            })?;
            let mut sessions: Vec<SessionSummary> = rows.collect::<rusqlite::Result<_>>()?;
            // A started call is running while a live process drives its session; uncertain otherwise.
            for s in sessions.iter_mut().filter(|s| s.running_tool_calls > 0) {
                if SessionClaim::holder(self.home(), &s.id).is_some() {
                    s.uncertain_tool_calls -= s.running_tool_calls;
                } else {
                    s.running_tool_calls = 0;
                }
            }
            Ok(sessions)
        })
    }

    /// Gives `session` a title of the user's (`None` or blank: back to the agent's own). The
    /// agent's title is kept apart: a re-import that rewrites it leaves this one shown.
    pub fn rename_session(&self, session: &SessionId, title: Option<&str>) -> Result<()> {
        let title = title.map(str::trim).filter(|t| !t.is_empty());
        if title.is_some_and(|t| t.chars().count() > 500) {
            return Err(Error::Usage("a title is at most 500 characters".into()));
        }
        self.write(|tx| {
            tx.conn().execute("UPDATE sessions SET renamed_title = ?2 WHERE id = ?1", params![session, title])?;
            Ok(())
        })
    }

    /// Removes a session of Alisio's own (the demo, a run, a fork) with everything stored of it:
    /// messages, calls, their exact requests, compactions, pins, events. An imported session is
    /// refused (it follows its agent's file), as is one a live process drives.
    pub fn remove_session(&self, session: &SessionId) -> Result<Removed> {
        let _claim = SessionClaim::acquire(self.home(), session, "remove")?;
        self.write(|tx| {
            let conn = tx.conn();
            let (title, source, messages, calls): (String, Option<String>, u64, u64) = conn.query_row(
                "SELECT coalesce(renamed_title, title), source,
                        (SELECT count(*) FROM messages WHERE session_id = ?1),
                        (SELECT count(*) FROM model_calls WHERE session_id = ?1)
                 FROM sessions WHERE id = ?1",
                [session],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
            )?;
            if let Some(source) = source {
                return Err(Error::Usage(format!(
                    "session {session} was imported from {source}; it follows the agent's file and is not removed \
                     here (move or delete the file instead)"
                )));
            }
            // Every table that keeps rows per session, as the schema says today; the foreign keys
            // between them are checked once, at commit.
            conn.execute_batch("PRAGMA defer_foreign_keys = ON")?;
            let tables: Vec<String> = {
                let mut stmt = conn.prepare(
                    "SELECT m.name FROM sqlite_master m, pragma_table_info(m.name) p
                     WHERE m.type = 'table' AND m.name != 'sessions' AND p.name = 'session_id'",
                )?;
                let rows = stmt.query_map([], |r| r.get(0))?;
                rows.collect::<rusqlite::Result<_>>()?
            };
            for table in tables {
                conn.execute(&format!("DELETE FROM \"{table}\" WHERE session_id = ?1"), [session])?;
            }
            conn.execute("DELETE FROM sessions WHERE id = ?1", [session])?;
            Ok(Removed { session: session.clone(), title, messages, calls })
        })
    }

    /// Whether the library holds any session at all.
    pub fn has_sessions(&self) -> Result<bool> {
        self.read(|conn| Ok(conn.query_row("SELECT EXISTS (SELECT 1 FROM sessions)", [], |r| r.get(0))?))
    }

    /// A number that changes when another process commits to the database (SQLite's
    /// `data_version`; this process's own writes leave it as it is).
    pub fn data_version(&self) -> Result<i64> {
        self.read(|conn| Ok(conn.query_row("PRAGMA data_version", [], |r| r.get(0))?))
    }

    /// A fact about the library (`None`: never recorded).
    pub fn library_fact(&self, key: &str) -> Result<Option<String>> {
        self.read(|conn| {
            Ok(conn.query_row("SELECT value FROM library_state WHERE key = ?1", [key], |r| r.get(0)).optional()?)
        })
    }

    pub fn record_library_fact(&self, key: &str, value: &str) -> Result<()> {
        self.write(|tx| {
            tx.conn().execute(
                "INSERT INTO library_state (key, value) VALUES (?1, ?2)
                 ON CONFLICT (key) DO UPDATE SET value = excluded.value",
                [key, value],
            )?;
            Ok(())
        })
    }
}

#[cfg(test)]
mod tests;
