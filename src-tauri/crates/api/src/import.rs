//! Sessions of other agents: imported from given paths or the agents' default locations, and
//! followed while they grow (`import --watch`, the window's Sources).

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::Duration;

use alisio_engine::import::{self, ImportReport, SourceSummary};
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::error::{blocking, ApiResult};
use crate::events::UiEvent;
use crate::sessions::Nothing;
use crate::App;

#[derive(Debug, Clone, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ImportPaths {
    /// Files or directories (walked); none: the agents' default locations that exist.
    pub paths: Vec<String>,
}

/// What an import did: the CLI's document, and the paths that held no session in a known format.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ImportOutcome {
    pub report: ImportReport,
    /// The files and directories searched (the default locations that exist, when none were given).
    pub searched: Vec<String>,
    pub unknown: Vec<String>,
    /// The formats Alisio reads, for the message about `unknown` paths.
    pub formats: String,
}

/// Imports files or directories (`alisio import PATH...`, Import… in the window).
pub async fn paths(app: &App, request: ImportPaths) -> ApiResult<ImportOutcome> {
    let store = app.store()?;
    let roots = roots(&request.paths);
    let searched = roots.iter().map(|p| p.display().to_string()).collect();
    let report = blocking("the import", move || Ok(import::import(&store, &roots))).await?;
    Ok(ImportOutcome {
        searched,
        unknown: report.unknown.iter().map(|p| p.display().to_string()).collect(),
        report,
        formats: import::FORMATS.to_string(),
    })
}

/// The agents' default locations with their session counts (the window's Sources list).
pub async fn sources(app: &App, _: Nothing) -> ApiResult<Vec<SourceSummary>> {
    let store = app.store()?;
    blocking("reading the sources", move || Ok(import::source_summaries(&store)?)).await
}

/// The paths given (`~/` expanded), or the default locations that exist when none are.
fn roots(paths: &[String]) -> Vec<PathBuf> {
    let given: Vec<PathBuf> =
        paths.iter().map(|p| p.trim()).filter(|p| !p.is_empty()).map(|p| PathBuf::from(expand_home(p))).collect();
    if !given.is_empty() {
        return given;
    }
    import::default_locations().into_iter().filter(|l| l.exists).map(|l| PathBuf::from(l.path)).collect()
}

/// A path as people type it: `~/…` is under the home directory.
fn expand_home(path: &str) -> String {
    match (path.strip_prefix("~/"), std::env::var("HOME")) {
        (Some(rest), Ok(home)) => format!("{home}/{rest}"),
        _ => path.to_string(),
    }
}

/// Imports what `paths` (none: the default locations, looked up again each round) append, every
/// `every`, until the application is interrupted. Each round that changed something is handed to
/// `round` and announced as [`UiEvent::Imported`].
pub async fn follow(
    app: &App,
    paths: &[String],
    every: Duration,
    mut round: impl FnMut(&ImportReport),
) -> ApiResult<()> {
    let store = app.store()?;
    let cancel = app.operation();
    let mut compactions: HashMap<String, u64> = HashMap::new();
    let mut warned = false;
    while !cancel.is_cancelled() {
        tokio::select! {
            _ = cancel.cancelled() => break,
            _ = tokio::time::sleep(every) => {}
        }
        let (store, roots) = (store.clone(), roots(paths));
        if roots.is_empty() {
            continue;
        }
        let report = blocking("the import", move || Ok(import::import(&store, &roots))).await?;
        if let (Some(failure), false) = (report.errors.first(), warned) {
            tracing::warn!("cannot import {}: {}", failure.path, failure.error);
            warned = true;
        }
        let (mut sessions, mut reload) = (Vec::new(), Vec::new());
        for s in &report.imported {
            let before = compactions.insert(s.id.clone(), s.compactions);
            if s.added > 0 {
                if before.is_some_and(|b| b != s.compactions) {
                    reload.push(s.id.clone());
                }
                sessions.push(s.id.clone());
            }
        }
        if !sessions.is_empty() || !report.errors.is_empty() {
            round(&report);
        }
        if !sessions.is_empty() {
            app.emit(UiEvent::Imported { sessions, reload });
        }
    }
    Ok(())
}
