//! Sessions: the list, the demo, recovering uncertain tool results.

use alisio_engine::agent::RecoverReport;
use alisio_engine::cost::usage::{self, UsageBy, UsageQuery};
use alisio_engine::import::agents::Source;
use alisio_engine::store::{JournalEntry, SessionSummary};
use serde::Deserialize;
use ts_rs::TS;

use crate::error::{blocking, ApiResult};
use crate::App;

/// A request with no arguments.
#[derive(Debug, Clone, Default, Deserialize, TS)]
pub struct Nothing {}

/// A request about one session: its id or a unique prefix.
#[derive(Debug, Clone, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SessionRequest {
    pub session: String,
}

impl SessionRequest {
    pub fn new(session: impl Into<String>) -> Self {
        Self { session: session.into() }
    }
}

/// Sessions, newest activity first (`alisio sessions list`).
/// Which sessions `sessions list` shows (all by default).
#[derive(Debug, Clone, Default, Deserialize, TS)]
#[serde(rename_all = "camelCase", default)]
pub struct SessionsFilter {
    /// Only sessions of this project (the workspace or the agent's working directory).
    #[ts(optional)]
    pub project: Option<String>,
    /// Only sessions from alisio, codex, claude-code, opencode, proxy, …
    #[ts(optional)]
    pub source: Option<Source>,
}

pub async fn list(app: &App, filter: SessionsFilter) -> ApiResult<Vec<SessionSummary>> {
    let store = app.store()?;
    let forensics = app.forensics()?;
    blocking("listing the sessions", move || {
        let mut sessions = store.list_sessions()?;
        sessions.retain(|s| {
            let source = s.source.map_or("alisio".to_string(), |k| k.to_string());
            filter.project.as_ref().is_none_or(|p| *p == s.workspace)
                && filter.source.is_none_or(|f| f.as_str() == source)
        });
        // Each session's cost, from the daily sums (one pass for all of them).
        let query = UsageQuery {
            by: UsageBy::Session,
            since: None,
            until: None,
            source: None,
            model: None,
            fold_subagents: false,
        };
        let costs = usage::report(&store, &forensics.book, &query)?;
        let by_id: std::collections::HashMap<&str, _> = costs.rows.iter().map(|r| (r.key.as_str(), r)).collect();
        for s in &mut sessions {
            s.project = s.workspace.clone();
            if let Some(row) = by_id.get(s.id.as_str()) {
                s.cost_usd = row.cost_usd.map(|m| m.usd());
                s.unpriced_calls = row.unpriced_calls;
            }
        }
        Ok(sessions)
    })
    .await
}

/// On a first start (no session of Alisio's own yet) the engine produces the demo session;
/// returns its id.
pub async fn ensure_demo(app: &App, _: Nothing) -> ApiResult<Option<String>> {
    let _once = app.demo.lock().await;
    let store = app.store()?;
    // Imported sessions (the window follows other agents from its first second) do not count:
    // the demo is there until Alisio has a session of its own.
    if store.list_sessions()?.iter().any(|s| s.source.is_none()) {
        return Ok(None);
    }
    let workspace = app.home().join("demo-workspace");
    Ok(Some(alisio_engine::demo::create_demo_session(store, &workspace).await?))
}

/// The tool calls whose outcome is unknown, before they are acknowledged.
pub async fn uncertain(app: &App, request: SessionRequest) -> ApiResult<Vec<JournalEntry>> {
    let session = app.session(&request.session)?;
    Ok(app.store()?.unresolved_tool_calls(&session.id)?)
}

/// Records each uncertain result as "result unknown"; re-runs nothing (`sessions recover
/// --acknowledge`, the banner's Acknowledge).
pub async fn recover(app: &App, request: SessionRequest) -> ApiResult<RecoverReport> {
    let session = app.session(&request.session)?;
    Ok(app.engine()?.recover(&session.id)?)
}
