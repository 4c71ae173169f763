//! Usage and cost across every session (`alisio usage`), and the sessions behind one row.

use alisio_engine::cost::usage::{self, UsageBy, UsageQuery, UsageReport};
use alisio_engine::import::agents::Source;
use alisio_engine::store::usage::SessionRef;
use serde::Deserialize;
use ts_rs::TS;

use crate::error::{blocking, ApiError, ApiResult};
use crate::App;

/// Which calls and how to group them.
#[derive(Debug, Clone, Default, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct UsageRequest {
    /// `day` (default), `week`, `month`, `session`, `model`, `project` or `source`.
    pub by: Option<String>,
    /// `YYYY-MM-DD`: calls from that day on.
    pub since: Option<String>,
    /// `YYYY-MM-DD`: calls up to the end of that day.
    pub until: Option<String>,
    /// `alisio`, `codex`, `claude-code`, `opencode`, `proxy`, …
    pub source: Option<Source>,
    /// Only calls to this model.
    pub model: Option<String>,
    /// With `by: session`, count a sub-agent's calls in the session that started it.
    #[ts(optional)]
    pub fold_subagents: Option<bool>,
}

/// One row of a usage report, to list the sessions behind it.
#[derive(Debug, Clone, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct UsageRowRequest {
    #[serde(flatten)]
    pub query: UsageRequest,
    pub key: String,
}

fn query(request: UsageRequest) -> ApiResult<UsageQuery> {
    let by = request.by.as_deref().unwrap_or("day").parse::<UsageBy>()?;
    if matches!(by, UsageBy::User | UsageBy::Machine) {
        return Err(ApiError::invalid(
            "--by user and --by machine group a team's archive: add --archive NAME (one home is one user on one machine)",
        ));
    }
    Ok(UsageQuery {
        by,
        since: request.since,
        until: request.until,
        source: request.source.map(|s| s.as_str().to_string()),
        model: request.model,
        fold_subagents: request.fold_subagents.unwrap_or(false),
    })
}

/// Tokens, cost, cache hit rate and savings by the grouping asked, with the total.
pub async fn report(app: &App, request: UsageRequest) -> ApiResult<UsageReport> {
    let store = app.store()?;
    let forensics = app.forensics()?;
    let query = query(request)?;
    blocking("the usage report", move || Ok(usage::report(&store, &forensics.book, &query)?)).await
}

/// The sessions behind one row of a usage report, newest first.
pub async fn sessions(app: &App, request: UsageRowRequest) -> ApiResult<Vec<SessionRef>> {
    let store = app.store()?;
    let forensics = app.forensics()?;
    let key = request.key.clone();
    let query = query(request.query)?;
    blocking("the sessions of a usage row", move || Ok(usage::sessions_of(&store, &forensics.book, &query, &key)?))
        .await
}
