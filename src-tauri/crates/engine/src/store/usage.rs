//! The ledger's figures across every session, for usage reports: one pass over the calls in a
//! date range (through the covering index `model_calls_usage`), each with its session's project
//! and source.

use rusqlite::params;

use super::Store;
use crate::error::Result;

/// One call as a usage report reads it.
#[derive(Debug, Clone, Copy)]
pub struct CallUsage<'a> {
    /// The session's row number (stable while the session exists; see [`SessionRef`]).
    pub session: i64,
    pub model: &'a str,
    pub started_at: &'a str,
    pub prompt_tokens: u64,
    pub cached_tokens: u64,
    pub cache_write_tokens: u64,
    pub completion_tokens: u64,
}

/// A session as usage reports group by it.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct SessionRef {
    #[serde(skip)]
    pub row: i64,
    pub id: String,
    pub title: String,
    /// The workspace (an imported session's working directory).
    pub project: String,
    /// `alisio` for Alisio's own, else the import source.
    pub source: String,
}

/// Which calls: started on or after `since`, before `until` (timestamps or dates, compared as
/// text: RFC 3339 in UTC sorts by time), of sessions from `source`.
#[derive(Debug, Clone, Default)]
pub struct UsageFilter {
    pub since: Option<String>,
    pub until: Option<String>,
    pub source: Option<String>,
}

impl Store {
    /// Every session with its row number, title, project and source.
    pub fn session_refs(&self) -> Result<Vec<SessionRef>> {
        self.read(|conn| {
            let mut stmt = conn
                .prepare_cached("SELECT rowid, id, title, workspace, coalesce(source, 'alisio') FROM sessions ORDER BY rowid")?;
            let rows = stmt.query_map([], |r| {
                Ok(SessionRef { row: r.get(0)?, id: r.get(1)?, title: r.get(2)?, project: r.get(3)?, source: r.get(4)? })
            })?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })
    }

    /// Calls `each` for every call `filter` selects, in the order they started.
    pub fn each_call_usage(&self, filter: &UsageFilter, mut each: impl FnMut(CallUsage<'_>)) -> Result<()> {
        self.read(|conn| {
            let mut stmt = conn.prepare_cached(
                "SELECT s.rowid, c.model, c.started_at, c.prompt_tokens, c.cached_tokens, c.cache_write_tokens,
                        c.completion_tokens
                 FROM model_calls c INDEXED BY model_calls_usage JOIN sessions s ON s.id = c.session_id
                 WHERE c.started_at >= ?1 AND c.started_at < ?2
                   AND (?3 IS NULL OR coalesce(s.source, 'alisio') = ?3)
                 ORDER BY c.started_at",
            )?;
            let since = filter.since.as_deref().unwrap_or("");
            let until = filter.until.as_deref().unwrap_or("\u{10FFFF}");
            let mut rows = stmt.query(params![since, until, filter.source])?;
            while let Some(row) = rows.next()? {
                let count = |i: usize| -> rusqlite::Result<u64> { Ok(row.get::<_, Option<i64>>(i)?.unwrap_or(0).max(0) as u64) };
                let model = row.get_ref(1)?.as_str().unwrap_or_default();
                let started_at = row.get_ref(2)?.as_str().unwrap_or_default();
                each(CallUsage {
                    session: row.get(0)?,
                    model,
                    started_at,
                    prompt_tokens: count(3)?,
                    cached_tokens: count(4)?,
                    cache_write_tokens: count(5)?,
                    completion_tokens: count(6)?,
                });
            }
            Ok(())
        })
    }
}
