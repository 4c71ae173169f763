//! Full-text search over every stored message (FTS5, migration 0013): own and imported sessions,
//! compacted messages and tool outputs included, best match first, with a snippet around it.
//!
//! A query is plain text unless asked for as FTS5 syntax: each whitespace-separated token is
//! matched literally as a phrase of the index's words (the `unicode61` tokenizer splits on
//! punctuation, so `gpt-4o`, `notes.txt`, `ERR-42`, `foo::bar` and `src/parser.rs` are each the
//! words they are made of, next to each other), tokens in any order, an unbalanced quote or a lone
//! operator just text. Plain text never fails; FTS5 syntax that does not parse is a usage error.

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

/// Which sessions and messages a search looks in.
#[derive(Debug, Clone, Default)]
pub struct SearchFilter {
    pub source: Option<String>,
    pub project: Option<String>,
    /// One session (its full id).
    pub session: Option<String>,
    /// `user`, `assistant`, `tool` or `summary` (a checkpoint).
    pub role: Option<String>,
    /// Messages calling this tool, and the results of those calls.
    pub tool: Option<String>,
    /// Messages stored from then on (a date or a timestamp), and before `until`.
    pub since: Option<String>,
    pub until: Option<String>,
    pub limit: usize,
}

impl SearchFilter {
    fn any(&self) -> bool {
        [&self.source, &self.project, &self.session, &self.role, &self.tool, &self.since, &self.until]
            .iter()
            .any(|f| f.is_some())
    }
}

/// Plain text as an FTS5 query: each token a phrase of its words (quotes doubled), in any order;
/// with `prefix`, the last token also matches words it begins (as the window searches while you
/// type). `None` when no token holds a word (only punctuation): nothing can match.
pub fn plain_query(text: &str, prefix: bool) -> Option<String> {
    let phrases: Vec<String> = text
        .split_whitespace()
        .filter(|token| token.chars().any(char::is_alphanumeric))
        .map(|token| format!("\"{}\"", token.replace('"', "\"\"")))
        .collect();
    let last = phrases.len().checked_sub(1)?;
    Some(
        phrases
            .iter()
            .enumerate()
            .map(|(i, p)| if prefix && i == last { format!("{p}*") } else { p.clone() })
            .collect::<Vec<_>>()
            .join(" "),
    )
}

impl Store {
    /// Messages matching `query`, an FTS5 expression (words, "phrases", prefix*, AND / OR / NOT;
    /// see [`plain_query`] for plain text).
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
            let matching = if filter.any() {
                "FROM messages_fts f JOIN messages m ON m.id = f.rowid JOIN sessions s ON s.id = m.session_id
                 WHERE f.messages_fts MATCH ?1 AND (?2 IS NULL OR coalesce(s.source, 'alisio') = ?2)
                   AND (?3 IS NULL OR s.workspace = ?3) AND (?5 IS NULL OR m.session_id = ?5)
                   AND (?6 IS NULL OR m.created_at >= ?6) AND (?7 IS NULL OR m.created_at < ?7)
                   AND (?8 IS NULL OR CASE ?8 WHEN 'summary' THEN m.summary = 1 ELSE m.role = ?8 AND m.summary = 0 END)
                   AND (?9 IS NULL OR instr(coalesce(m.tool_calls, ''), '\"name\":\"' || ?9 || '\"') > 0
                        OR (m.role = 'tool' AND EXISTS (
                            SELECT 1 FROM messages a WHERE a.session_id = m.session_id AND a.role = 'assistant'
                              AND instr(coalesce(a.tool_calls, ''), '\"id\":\"' || m.tool_call_id || '\"') > 0
                              AND instr(a.tool_calls, '\"name\":\"' || ?9 || '\"') > 0)))"
            } else {
                "FROM messages_fts f WHERE f.messages_fts MATCH ?1 AND ?2 IS NULL AND ?3 IS NULL AND ?5 IS NULL
                   AND ?6 IS NULL AND ?7 IS NULL AND ?8 IS NULL AND ?9 IS NULL"
            };
            let bound = |limit: Option<i64>| -> rusqlite::Result<Vec<rusqlite::types::Value>> {
                use rusqlite::types::Value as V;
                let text = |v: &Option<String>| v.clone().map_or(V::Null, V::Text);
                Ok(vec![
                    V::Text(query.to_string()),
                    text(&filter.source),
                    text(&filter.project),
                    V::Integer(limit.unwrap_or(0)),
                    text(&filter.session),
                    text(&filter.since),
                    text(&filter.until),
                    text(&filter.role),
                    text(&filter.tool),
                ])
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
                    let values = bound(Some(filter.limit as i64))?;
                    stmt.query_map(rusqlite::params_from_iter(values), |r| r.get(0))?.collect()
                })
                .map_err(invalid)?;
            let total: i64 = conn
                .prepare_cached(&format!("SELECT count(*) {matching} AND ?4 = ?4"))
                .and_then(|mut stmt| {
                    let values = bound(None)?;
                    stmt.query_row(rusqlite::params_from_iter(values), |r| r.get(0))
                })
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

#[cfg(test)]
mod tests {
    use super::plain_query;

    #[test]
    fn plain_text_becomes_phrases_of_its_tokens() {
        assert_eq!(plain_query("gpt-4o notes.txt", false).as_deref(), Some("\"gpt-4o\" \"notes.txt\""));
        assert_eq!(plain_query("say \"hi", false).as_deref(), Some("\"say\" \"\"\"hi\""));
        assert_eq!(
            plain_query("pars err", true).as_deref(),
            Some("\"pars\" \"err\"*"),
            "the window searches as you type"
        );
        assert_eq!(plain_query(" :: -- ", false), None, "no word to look for");
    }
}
