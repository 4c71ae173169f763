//! `alisio import`: exit 1 when a file could not be read, 2 when a PATH holds no known format;
//! `--watch` goes on importing what the sources append.

use std::path::PathBuf;
use std::time::Duration;

use alisio_api::import::{self, ImportPaths};
use alisio_api::{ApiError, ApiResult, App};

use crate::cli::human::Round;
use crate::cli::output::Output;
use crate::cli::usage;

pub async fn import(app: &App, out: Output, paths: Vec<PathBuf>, watch: bool) -> ApiResult<()> {
    let paths: Vec<String> = paths.iter().map(|p| p.display().to_string()).collect();
    let outcome = import::paths(app, ImportPaths { paths: paths.clone() }).await?;
    if paths.is_empty() && outcome.searched.is_empty() && !watch {
        out.note("no default location of Codex, Claude Code or OpenCode sessions exists here; give a PATH");
    }
    out.show(&Round { report: &outcome.report, first: true })?;
    if watch {
        let mut printed = Ok(());
        import::follow(app, &paths, Duration::from_millis(500), |report| {
            if printed.is_ok() {
                printed = out.line(&Round { report, first: false });
            }
        })
        .await?;
        return printed;
    }
    if let Some(path) = outcome.unknown.first() {
        return Err(usage(format!("{path} holds no session Alisio can read; it reads {}", outcome.formats)));
    }
    if let Some(failure) = outcome.report.errors.first() {
        return Err(ApiError::failed(format!("cannot import {}: {}", failure.path, failure.error)));
    }
    Ok(())
}
