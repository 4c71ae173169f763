//! A team's archive from the command line: `push` (once, or `--watch`), and `usage` and `search`
//! with `--archive`.

use alisio_api::archive::{self, ArchiveSearchRequest, ArchiveUsageRequest, PushRequest};
use alisio_api::{ApiResult, App};

use crate::cli::args::{PushArgs, SearchArgs, UsageArgs};
use crate::cli::output::Output;

pub async fn push(app: &App, out: Output, args: PushArgs) -> ApiResult<()> {
    let request = PushRequest { to: args.to, dry_run: args.dry_run };
    if args.watch {
        archive::push_watch(app, request, |report| {
            let _ = out.line(report);
        })
        .await
    } else {
        out.show(&archive::push(app, request).await?)
    }
}

pub async fn usage(app: &App, out: Output, args: UsageArgs) -> ApiResult<()> {
    let request = ArchiveUsageRequest {
        archive: args.archive,
        by: Some(args.by),
        since: args.since,
        until: args.until,
        source: args.source.map(|s| s.to_string()),
        model: args.model,
    };
    out.show(&archive::usage(app, request).await?)
}

pub async fn search(app: &App, out: Output, args: SearchArgs) -> ApiResult<()> {
    let request = ArchiveSearchRequest {
        archive: args.archive,
        query: args.query,
        fts: args.fts,
        source: args.source.map(|s| s.to_string()),
        project: args.project,
        role: args.role,
        machine: args.machine,
        user: args.user,
        limit: Some(args.limit as u64),
    };
    out.show(&archive::search(app, request).await?)
}
