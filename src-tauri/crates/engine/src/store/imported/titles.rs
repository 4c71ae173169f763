//! Titles agents wrote: a weaker source never replaces a stronger one; a title written for a record
//! of another file waits until that record is read.

use rusqlite::{params, OptionalExtension};

use super::super::{SessionId, SourceKind, Tx};
use crate::error::Result;

/// Where an agent's title came from, weakest first: a title replaces one from a weaker source.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum TitleFrom {
    Prompt,
    Summary,
    Custom,
}

impl TitleFrom {
    fn as_str(self) -> &'static str {
        match self {
            TitleFrom::Prompt => "prompt",
            TitleFrom::Summary => "summary",
            TitleFrom::Custom => "custom",
        }
    }
}

/// The rank SQL gives a stored `title_from` (none and unknown values rank lowest).
const TITLE_RANK: &str = "CASE title_from WHEN 'custom' THEN 3 WHEN 'summary' THEN 2 WHEN 'prompt' THEN 1 ELSE 0 END";

/// Titles the session `title` from `from` unless a stronger source already titled it.
pub fn offer_title(tx: &Tx<'_>, session: &SessionId, title: &str, from: TitleFrom) -> Result<()> {
    let rank = from as i64 + 1;
    tx.conn()
        .prepare_cached(&format!(
            "UPDATE sessions SET title = ?2, title_from = ?3 WHERE id = ?1 AND {TITLE_RANK} <= ?4"
        ))?
        .execute(params![session, title, from.as_str(), rank])?;
    Ok(())
}

/// Keeps a title an agent wrote for record `leaf` (wherever that record is), and titles every
/// session already holding that record.
pub fn put_agent_title(tx: &Tx<'_>, source: SourceKind, leaf: &str, title: &str) -> Result<()> {
    let conn = tx.conn();
    conn.prepare_cached("INSERT OR REPLACE INTO agent_titles (source, leaf, title) VALUES (?1, ?2, ?3)")?
        .execute(params![source, leaf, title])?;
    let sessions: Vec<SessionId> = {
        let mut stmt = conn.prepare_cached(
            "SELECT DISTINCT m.session_id FROM messages m JOIN sessions s ON s.id = m.session_id
             WHERE m.source_id = ?1 AND s.source = ?2",
        )?;
        let rows = stmt.query_map(params![leaf, source], |r| r.get(0))?;
        rows.collect::<rusqlite::Result<_>>()?
    };
    for session in sessions {
        offer_title(tx, &session, title, TitleFrom::Summary)?;
    }
    Ok(())
}

/// The title an agent wrote for record `leaf`, if it wrote one.
pub fn agent_title(tx: &Tx<'_>, source: SourceKind, leaf: &str) -> Result<Option<String>> {
    Ok(tx
        .conn()
        .prepare_cached("SELECT title FROM agent_titles WHERE source = ?1 AND leaf = ?2")?
        .query_row(params![source, leaf], |r| r.get(0))
        .optional()?)
}
