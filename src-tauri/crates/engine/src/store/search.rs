//! Full-text search over every stored message (FTS5, migration 0013): own and imported sessions,
//! compacted messages and tool outputs included, best match first, with a snippet around it.

use rusqlite::params;
use serde::Serialize;

use super::Store;
use crate::error::{Error, Result};

/// One message that matches.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct SearchHit {
    pub session: String,
    pub seq: i64,
    pub role: String,
    /// `alisio` for Alisio's own, else the import source.
    pub source: String,
    /// The session's workspace (an imported session's working directory).
    pub project: String,
    pub at: String,
    /// The matching text around the terms, the terms between `[` and `]`.
    pub snippet: String,
    pub title: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct SearchResult {
    pub hits: Vec<SearchHit>,
    /// Every match, beyond the hits shown.
    pub total: u64,
}

/// Adds message `id` (its `content`) to the search index: called wherever a message is stored
/// (migration 0015 says why not by a trigger).
pub(crate) fn index_message(conn: &rusqlite::Connection, id: i64, content: &str) -> Result<()> {
    conn.prepare_cached("INSERT INTO messages_fts (rowid, content) VALUES (?1, ?2)")?.execute(params![id, content])?;
    Ok(())
}

/// How many of the newest matches are ranked to find the best.
const RANKED: usize = 2_000;

/// Which sessions a search looks in.
#[derive(Debug, Clone, Default)]
pub struct SearchFilter {
    pub source: Option<String>,
    pub project: Option<String>,
    pub limit: usize,
}

impl Store {
    /// Messages matching `query` (FTS5 syntax: words, "phrases", prefix*, AND / OR / NOT).
    pub fn search(&self, query: &str, filter: &SearchFilter) -> Result<SearchResult> {
        let invalid = |e: rusqlite::Error| match &e {
            rusqlite::Error::SqliteFailure(_, Some(message))
                if message.contains("fts5") || message.contains("syntax") =>
            {
                Error::Usage(format!(
                    "the search {query:?} is not valid: {message} (words, \"phrases\", prefix*, AND / OR / NOT)"
                ))
            }
            _ => e.into(),
        };
        if query.trim().is_empty() {
            return Err(Error::Usage("the search is empty".into()));
        }
        self.read(|conn| {
            let filtered = filter.source.is_some() || filter.project.is_some();
            let matching = if filtered {
                "FROM messages_fts f JOIN messages m ON m.id = f.rowid JOIN sessions s ON s.id = m.session_id
                 WHERE f.messages_fts MATCH ?1 AND (?2 IS NULL OR coalesce(s.source, 'alisio') = ?2)
                   AND (?3 IS NULL OR s.workspace = ?3)"
            } else {
                "FROM messages_fts f WHERE f.messages_fts MATCH ?1 AND ?2 IS NULL AND ?3 IS NULL"
            };
            // The best of the newest matches first, by rowid only: ranking every match of a common
            // word costs as much as the index is large, so only the newest RANKED are ranked, and
            // snippets and rows are read for the best alone.
            let best: Vec<i64> = conn
                .prepare_cached(&format!(
                    "SELECT id FROM (SELECT f.rowid AS id, f.rank AS rank {matching} ORDER BY f.rowid DESC LIMIT {RANKED})
                     ORDER BY rank LIMIT ?4"
                ))
                .and_then(|mut stmt| {
                    stmt.query_map(params![query, filter.source, filter.project, filter.limit as i64], |r| r.get(0))?
                        .collect()
                })
                .map_err(invalid)?;
            let total: i64 = conn
                .prepare_cached(&format!("SELECT count(*) {matching}"))
                .and_then(|mut stmt| stmt.query_row(params![query, filter.source, filter.project], |r| r.get(0)))
                .map_err(invalid)?;
            let mut snippet = conn
                .prepare_cached(
                    "SELECT snippet(messages_fts, 0, '[', ']', '…', 16) FROM messages_fts
                     WHERE messages_fts MATCH ?1 AND rowid = ?2",
                )
                .map_err(invalid)?;
            let mut row = conn.prepare_cached(
                "SELECT m.session_id, m.seq, m.role, coalesce(s.source, 'alisio'), s.workspace, m.created_at, s.title
                 FROM messages m JOIN sessions s ON s.id = m.session_id WHERE m.id = ?1",
            )?;
            let mut hits = Vec::with_capacity(best.len());
            for id in best {
                let snippet: String = snippet.query_row(params![query, id], |r| r.get(0)).map_err(invalid)?;
                hits.push(row.query_row([id], |r| {
                    Ok(SearchHit {
                        session: r.get(0)?,
                        seq: r.get(1)?,
                        role: r.get(2)?,
                        source: r.get(3)?,
                        project: r.get(4)?,
                        at: r.get(5)?,
                        snippet,
                        title: r.get(6)?,
                    })
                })?);
            }
            Ok(SearchResult { hits, total: total as u64 })
        })
    }
}
