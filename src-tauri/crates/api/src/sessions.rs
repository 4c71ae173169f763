//! Sessions: the list, the demo, renaming and removing, recovering uncertain tool results.

use alisio_engine::agent::RecoverReport;
use alisio_engine::cost::usage::{self, UsageBy, UsageQuery};
use alisio_engine::import::agents::Source;
use alisio_engine::store::library::{Removed, DEMO_MADE};
use alisio_engine::store::{JournalEntry, Session, SessionSummary};
use serde::Deserialize;
use ts_rs::TS;

use crate::error::{blocking, ApiResult};
use crate::App;

/// The demo fact before the demo is made: due (the library was empty at its first start), or
/// skipped (it was not).
const DEMO_DUE: &str = "due";
const DEMO_SKIPPED: &str = "skipped";

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
    let listed = blocking("listing the sessions", move || {
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
    .await;
    app.mark_listed();
    listed
}

/// Decides, once per library, whether the demo session is due: only a library that is empty
/// the first time it is opened gets one. The window asks before it starts following the agents'
/// folders, so sessions imported in its first second do not count.
pub fn note_start(app: &App) -> ApiResult<()> {
    let store = app.store()?;
    if store.library_fact(DEMO_MADE)?.is_none() {
        let due = if store.has_sessions()? { DEMO_SKIPPED } else { DEMO_DUE };
        store.record_library_fact(DEMO_MADE, due)?;
    }
    Ok(())
}

/// Makes the demo session when it is due (an empty library's first start, see [`note_start`]);
/// returns its id. A removed demo never comes back.
pub async fn ensure_demo(app: &App, _: Nothing) -> ApiResult<Option<String>> {
    let _once = app.demo.lock().await;
    note_start(app)?;
    let store = app.store()?;
    if store.library_fact(DEMO_MADE)?.as_deref() != Some(DEMO_DUE) {
        return Ok(None);
    }
    let workspace = app.home().join("demo-workspace");
    let id = alisio_engine::demo::create_demo_session(store.clone(), &workspace).await?;
    store.record_library_fact(DEMO_MADE, &alisio_engine::events::now_rfc3339())?;
    Ok(Some(id))
}

/// Tells the window when another process changes the library, checking every `every` until the
/// application closes.
pub async fn watch_library(app: &App, every: std::time::Duration) -> ApiResult<()> {
    let store = app.store()?;
    let cancel = app.operation();
    let mut seen = store.data_version()?;
    loop {
        tokio::select! {
            _ = cancel.cancelled() => return Ok(()),
            _ = tokio::time::sleep(every) => {}
        }
        let now = store.data_version()?;
        if now != seen {
            seen = now;
            app.emit(crate::UiEvent::LibraryChanged {});
        }
    }
}

/// A new title for a session (`title` absent or blank: the agent's own again).
#[derive(Debug, Clone, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct RenameRequest {
    pub session: String,
    #[ts(optional)]
    pub title: Option<String>,
}

/// Gives a session a title of the user's, kept apart from the agent's (`alisio sessions rename`).
pub async fn rename(app: &App, request: RenameRequest) -> ApiResult<Session> {
    let session = app.session(&request.session)?;
    let store = app.store()?;
    store.rename_session(&session.id, request.title.as_deref())?;
    Ok(store.resolve_session(&session.id)?)
}

/// Removes a session of Alisio's own and everything stored of it (`alisio sessions remove`).
pub async fn remove(app: &App, request: SessionRequest) -> ApiResult<Removed> {
    let session = app.session(&request.session)?;
    let store = app.store()?;
    blocking("removing the session", move || Ok(store.remove_session(&session.id)?)).await
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
