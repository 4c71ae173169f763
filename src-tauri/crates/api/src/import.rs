//! Sessions of other agents: imported from given paths or the agents' default locations, and
//! followed while they grow (`import --watch`, the window's Sources).

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::Duration;

use alisio_engine::import::{self, watch, ImportReport, SourceSummary};
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
    // An agent's default location that holds no session yet (a folder it keeps other things in)
    // is no error: only a path someone named must hold one.
    let named = request.paths.iter().any(|p| !p.trim().is_empty());
    let searched = roots.iter().map(|p| p.display().to_string()).collect();
    let (cancel, emit) = (app.operation(), app.events());
    let report = blocking("the import", move || {
        let progress = progress_events(emit);
        let control = import::Control { cancel: Some(&cancel), progress: Some(&progress) };
        Ok(import::import_with(&store, &roots, &control)?)
    })
    .await?;
    Ok(ImportOutcome {
        searched,
        unknown: if named { report.unknown.iter().map(|p| p.display().to_string()).collect() } else { Vec::new() },
        report,
        formats: import::agents::formats(),
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

/// Follows `paths` (none: the default locations, looked up again when none exists yet) until the
/// application is interrupted: the file system says what changed, and only those files are read
/// again, once the changes have settled for `settle`. Each round that changed something is handed
/// to `round` and announced as [`UiEvent::Imported`].
pub async fn follow(
    app: &App,
    paths: &[String],
    settle: Duration,
    mut round: impl FnMut(&ImportReport),
) -> ApiResult<()> {
    let store = app.store()?;
    let cancel = app.operation();
    let mut compactions: HashMap<alisio_engine::store::SessionId, u64> = HashMap::new();
    let mut warned = false;
    let mut roots = roots(paths);
    while roots.is_empty() {
        // No default location yet: an agent installed later creates one.
        tokio::select! {
            _ = cancel.cancelled() => return Ok(()),
            _ = tokio::time::sleep(Duration::from_secs(30)) => roots = self::roots(paths),
        }
    }
    let mut watch = watch::watch(&roots, POLL_EVERY);
    // The first round reads everything (what was written before the watch began), the next ones
    // what the file system says changed.
    let mut first = true;
    loop {
        // The first change, then the rest of the burst.
        let mut changed = Vec::new();
        let mut rescan = std::mem::take(&mut first);
        if rescan {
            // Whoever opened the store first (the window painting its list) goes first.
            tokio::select! {
                _ = cancel.cancelled() => break,
                _ = tokio::time::sleep(settle) => {}
            }
        } else {
            tokio::select! {
                _ = cancel.cancelled() => break,
                change = watch.changes.recv() => match change {
                    Some(change) => take(change, &mut changed, &mut rescan),
                    None => break,
                },
            }
        }
        loop {
            tokio::select! {
                _ = cancel.cancelled() => return Ok(()),
                _ = tokio::time::sleep(settle) => break,
                change = watch.changes.recv() => match change {
                    Some(change) => take(change, &mut changed, &mut rescan),
                    None => break,
                },
            }
        }
        let (store, roots, app_events) = (store.clone(), roots.clone(), app.events());
        let cancel_round = cancel.clone();
        let report = blocking("the import", move || {
            let discovered = if rescan {
                import::discover(&roots)
            } else {
                let (found, errors) = watch::changed_sources(&roots, changed);
                import::Discovered { found, errors, ..Default::default() }
            };
            let progress = progress_events(app_events);
            let control = import::Control { cancel: Some(&cancel_round), progress: Some(&progress) };
            match import::import_found(&store, discovered, &control) {
                Err(alisio_engine::Error::Cancelled) => Ok(ImportReport::default()),
                other => Ok(other?),
            }
        })
        .await?;
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

/// How often a root is polled where the file system gives no events.
const POLL_EVERY: Duration = Duration::from_secs(2);

fn take(change: watch::Change, changed: &mut Vec<PathBuf>, rescan: &mut bool) {
    match change {
        watch::Change::Paths(paths) => changed.extend(paths),
        watch::Change::Rescan => *rescan = true,
    }
}

/// Progress of a long import as [`UiEvent::ImportProgress`]: nothing for a round shorter than
/// half a second, then at most five times a second, and its end.
pub(crate) fn progress_events(emit: crate::events::Emit) -> impl Fn(&import::Progress) + Sync {
    let started = std::time::Instant::now();
    let last = std::sync::Mutex::new(None::<std::time::Instant>);
    move |progress: &import::Progress| {
        let done = progress.files_done == progress.files;
        let mut last = last.lock().unwrap_or_else(|e| e.into_inner());
        let due = match *last {
            None => started.elapsed() >= Duration::from_millis(500),
            Some(t) => done || t.elapsed() >= Duration::from_millis(200),
        };
        if due {
            *last = Some(std::time::Instant::now());
            emit(UiEvent::ImportProgress { progress: progress.clone() });
        }
    }
}
