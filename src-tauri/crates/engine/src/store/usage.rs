//! The ledger's figures across every session, for usage reports: the daily sums the triggers of
//! migrations 0012 and 0022 keep (`usage_daily`: per session, model, day, prompt-length band and
//! service tier), or — where
//! a report needs what those sums do not keep — one pass over the calls themselves.

use rusqlite::params;

use super::Store;
use crate::error::Result;

/// Calls of one session and model on one day (or one call) as a usage report reads them.
#[derive(Debug, Clone, Copy)]
pub struct CallUsage<'a> {
    /// The session's id.
    pub session: &'a str,
    pub model: &'a str,
    /// The day (`YYYY-MM-DD`) of daily sums; a call's own start time.
    pub started_at: &'a str,
    pub calls: u64,
    /// Daily sums: how many of the band thresholds (`cost::book::BAND_THRESHOLDS`) these calls'
    /// prompts were above. `None` for one call (its prompt says).
    pub band: Option<u8>,
    /// The service tier (`batch`, `flex`, `priority`; empty: standard).
    pub tier: &'a str,
    pub prompt_tokens: u64,
    pub cached_tokens: u64,
    pub cache_write_tokens: u64,
    pub cache_write_1h_tokens: u64,
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
    /// The session that started this one (a sub-agent's).
    #[serde(skip)]
    pub parent: Option<String>,
}

/// Which calls: started on or after `since`, before `until` (timestamps or dates, compared as
/// text: RFC 3339 in UTC sorts by time).
#[derive(Debug, Clone, Default)]
pub struct UsageFilter {
    pub since: Option<String>,
    pub until: Option<String>,
}

impl Store {
    /// Every session with its row number, title, project and source.
    pub fn session_refs(&self) -> Result<Vec<SessionRef>> {
        self.read(|conn| {
            let mut stmt = conn.prepare_cached(
                "SELECT rowid, id, title, workspace, coalesce(source, 'alisio'), parent_session FROM sessions ORDER BY rowid",
            )?;
            let rows = stmt.query_map([], |r| {
                Ok(SessionRef {
                    row: r.get(0)?,
                    id: r.get(1)?,
                    title: r.get(2)?,
                    project: r.get(3)?,
                    source: r.get(4)?,
                    parent: r.get(5)?,
                })
            })?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })
    }

    /// Calls `each` for the calls `filter` selects — summed per session, model, day and band
    /// when `daily` (the bounds are then days), else one by one — in the order of their days.
    pub fn each_call_usage(
        &self,
        filter: &UsageFilter,
        daily: bool,
        mut each: impl FnMut(CallUsage<'_>),
    ) -> Result<()> {
        self.read(|conn| {
            let mut stmt = conn.prepare_cached(if daily {
                "SELECT session_id, model, day, prompt_tokens, cached_tokens, cache_write_tokens, completion_tokens,
                        calls, band, tier, cache_write_1h_tokens
                 FROM usage_daily WHERE day >= ?1 AND day < ?2 AND calls > 0 ORDER BY day"
            } else {
                "SELECT session_id, model, started_at, prompt_tokens, cached_tokens, cache_write_tokens, completion_tokens,
                        requests, NULL, coalesce(service_tier, ''), cache_write_1h_tokens
                 FROM model_calls WHERE started_at >= ?1 AND started_at < ?2 ORDER BY started_at"
            })?;
            let since = filter.since.as_deref().unwrap_or("");
            let until = filter.until.as_deref().unwrap_or("\u{10FFFF}");
            let mut rows = stmt.query(params![since, until])?;
            while let Some(row) = rows.next()? {
                let count = |i: usize| -> rusqlite::Result<u64> { Ok(row.get::<_, Option<i64>>(i)?.unwrap_or(0).max(0) as u64) };
                let model = row.get_ref(1)?.as_str().unwrap_or_default();
                let started_at = row.get_ref(2)?.as_str().unwrap_or_default();
                each(CallUsage {
                    session: row.get_ref(0)?.as_str().unwrap_or_default(),
                    model,
                    started_at,
                    prompt_tokens: count(3)?,
                    cached_tokens: count(4)?,
                    cache_write_tokens: count(5)?,
                    completion_tokens: count(6)?,
                    calls: count(7)?,
                    band: row.get::<_, Option<u8>>(8)?,
                    tier: row.get_ref(9)?.as_str().unwrap_or_default(),
                    cache_write_1h_tokens: count(10)?,
                });
            }
            Ok(())
        })
    }
}
