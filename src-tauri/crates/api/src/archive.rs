//! A team's archive (docs/archive.md): `push` sends this home's sessions, `usage` and `search` read
//! every pushed session, in the shapes a home's usage and search have.

use std::time::Duration;

use alisio_archive::push::{PushReport, Redaction};
use alisio_archive::query::{ArchiveSearch, SearchQuery};
use alisio_archive::{Archive, ArchiveError};
use alisio_engine::cost::usage::{UsageBy, UsageQuery, UsageReport};
use serde::Deserialize;
use ts_rs::TS;

use crate::error::{ApiError, ApiResult, ErrorCode};
use crate::App;

impl From<ArchiveError> for ApiError {
    fn from(err: ArchiveError) -> Self {
        match err {
            ArchiveError::Engine(e) => e.into(),
            ArchiveError::Config(message) => ApiError::invalid(message),
            other => ApiError { code: ErrorCode::Failed, message: other.to_string() },
        }
    }
}

/// `alisio push`.
#[derive(Debug, Clone, Default, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PushRequest {
    /// The archive (a key of `archives`); none: the only one configured.
    #[ts(optional)]
    pub to: Option<String>,
    /// Say what would be sent; send nothing.
    #[serde(default)]
    pub dry_run: bool,
}

/// The archive a command names, or the only one configured.
pub(crate) fn archive_name(app: &App, named: Option<&str>) -> ApiResult<String> {
    let config = app.config();
    if let Some(name) = named {
        return Ok(name.to_string());
    }
    let names: Vec<&String> = config.archives.keys().collect();
    match names.as_slice() {
        [one] => Ok((*one).clone()),
        [] => Err(ApiError::invalid(
            "no archive is configured: add one under \"archives\" in the config (docs/archive.md)",
        )),
        many => Err(ApiError::invalid(format!(
            "several archives are configured ({}); name one with --to",
            many.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
        ))),
    }
}

async fn open(app: &App, named: Option<&str>) -> ApiResult<Archive> {
    let name = archive_name(app, named)?;
    Ok(Archive::open(&app.config().archives, &name).await?)
}

/// How this home's pushes redact: the catalog unless the archive says otherwise, and every
/// provider key configured (the default provider's and each profile's) always.
fn redaction(app: &App, name: &str) -> ApiResult<Redaction> {
    let config = app.config();
    let catalog = config.archives.get(name).is_none_or(|a| a.redact);
    let mut vars = vec![config.provider.api_key_env.clone()];
    vars.extend(config.profiles.values().filter_map(|p| p.api_key_env.clone()));
    let keys = vars.iter().filter_map(|v| std::env::var(v).ok()).collect();
    Ok(Redaction::new(catalog, keys)?)
}

/// Connections a push sends on at once.
const LANES: usize = 3;

/// `LANES` connections to the archive a command names.
async fn lanes(app: &App, named: Option<&str>) -> ApiResult<Vec<Archive>> {
    let name = archive_name(app, named)?;
    let config = app.config();
    let archives = &config.archives;
    let mut lanes = vec![Archive::open(archives, &name).await?];
    for _ in 1..LANES {
        lanes.push(Archive::open(archives, &name).await?);
    }
    Ok(lanes)
}

/// One push of every session with something new.
pub async fn push(app: &App, request: PushRequest) -> ApiResult<PushReport> {
    let mut lanes = lanes(app, request.to.as_deref()).await?;
    let redaction = redaction(app, &lanes[0].name)?;
    let (store, forensics) = (app.store()?, app.forensics()?);
    let report =
        alisio_archive::push::push(&mut lanes, &store, &forensics, &redaction, request.dry_run, &app.operation())
            .await?;
    Ok(report)
}

/// Pushes, then pushes again each time another process changes the library, until interrupted;
/// `on_round` hears each push that sent something.
pub async fn push_watch(app: &App, request: PushRequest, mut on_round: impl FnMut(&PushReport)) -> ApiResult<()> {
    let mut lanes = lanes(app, request.to.as_deref()).await?;
    let redaction = redaction(app, &lanes[0].name)?;
    let (store, cancel, forensics) = (app.store()?, app.operation(), app.forensics()?);
    let (mut seen, mut first) = (None, true);
    loop {
        let now = store.data_version()?;
        if seen != Some(now) {
            seen = Some(now);
            let report =
                alisio_archive::push::push(&mut lanes, &store, &forensics, &redaction, request.dry_run, &cancel).await;
            match report {
                Ok(report) if report.sessions > 0 || first => on_round(&report),
                Ok(_) => {}
                Err(ArchiveError::Engine(alisio_engine::Error::Cancelled)) => return Ok(()),
                Err(e) => return Err(e.into()),
            }
            first = false;
        }
        tokio::select! {
            _ = tokio::time::sleep(Duration::from_millis(250)) => {}
            _ = cancel.cancelled() => return Ok(()),
        }
    }
}

/// `alisio usage --archive NAME`.
#[derive(Debug, Clone, Default, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ArchiveUsageRequest {
    pub archive: Option<String>,
    pub by: Option<String>,
    pub since: Option<String>,
    pub until: Option<String>,
    pub source: Option<String>,
    pub model: Option<String>,
}

pub async fn usage(app: &App, request: ArchiveUsageRequest) -> ApiResult<UsageReport> {
    let by: UsageBy = request.by.as_deref().unwrap_or("day").parse()?;
    let archive = open(app, request.archive.as_deref()).await?;
    let query = UsageQuery {
        by,
        since: request.since,
        until: request.until,
        source: request.source,
        model: request.model,
        fold_subagents: false,
    };
    Ok(alisio_archive::query::usage(&archive, &query).await?)
}

/// `alisio search --archive NAME`.
#[derive(Debug, Clone, Default, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ArchiveSearchRequest {
    pub archive: Option<String>,
    pub query: String,
    #[serde(default)]
    pub fts: bool,
    pub source: Option<String>,
    pub project: Option<String>,
    pub role: Option<String>,
    pub machine: Option<String>,
    pub user: Option<String>,
    pub limit: Option<u64>,
}

pub async fn search(app: &App, request: ArchiveSearchRequest) -> ApiResult<ArchiveSearch> {
    let archive = open(app, request.archive.as_deref()).await?;
    Ok(alisio_archive::query::search(&archive, &search_query(request)).await?)
}

/// The archive's query for a request.
pub(crate) fn search_query(request: ArchiveSearchRequest) -> SearchQuery {
    SearchQuery {
        text: request.query,
        fts: request.fts,
        source: request.source,
        project: request.project,
        role: request.role,
        machine: request.machine,
        user: request.user,
        limit: request.limit.unwrap_or(50),
    }
}

/// `alisio serve token create|list|revoke`: who may read the archive through `alisio serve`.
#[derive(Debug, Clone, Default, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct TokenRequest {
    #[ts(optional)]
    pub archive: Option<String>,
    /// A name for the token (create).
    #[ts(optional)]
    pub label: Option<String>,
    /// The token to revoke (revoke).
    #[ts(optional)]
    pub id: Option<i64>,
}

/// A new token, shown once.
pub async fn token_create(app: &App, request: TokenRequest) -> ApiResult<alisio_archive::tokens::NewToken> {
    let archive = open(app, request.archive.as_deref()).await?;
    let label = request.label.unwrap_or_else(|| "unnamed".into());
    Ok(alisio_archive::tokens::create(&archive, &label).await?)
}

pub async fn token_list(app: &App, request: TokenRequest) -> ApiResult<Vec<alisio_archive::tokens::TokenInfo>> {
    let archive = open(app, request.archive.as_deref()).await?;
    Ok(alisio_archive::tokens::list(&archive).await?)
}

pub async fn token_revoke(app: &App, request: TokenRequest) -> ApiResult<Vec<alisio_archive::tokens::TokenInfo>> {
    let archive = open(app, request.archive.as_deref()).await?;
    let id = request.id.ok_or_else(|| ApiError::invalid("name the token to revoke by its id (serve token list)"))?;
    if !alisio_archive::tokens::revoke(&archive, id).await? {
        return Err(ApiError::invalid(format!("no token {id} is in force (serve token list)")));
    }
    Ok(alisio_archive::tokens::list(&archive).await?)
}
