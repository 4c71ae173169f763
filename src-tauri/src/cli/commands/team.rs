//! A team's archive from the command line: `push` (once, or `--watch`), and `usage` and `search`
//! with `--archive`.

use alisio_api::archive::{self, ArchiveSearchRequest, ArchiveUsageRequest, PushRequest, TokenRequest};
use alisio_api::{ApiResult, App};

use crate::cli::args::{PushArgs, SearchArgs, ServeArgs, ServeCommand, TokenCommand, UsageArgs};
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

/// `alisio serve`: the archive to browsers until interrupted; `serve token …`: its tokens.
pub async fn serve(app: &App, out: Output, args: ServeArgs) -> ApiResult<()> {
    let request = |label: Option<String>, id: Option<i64>| TokenRequest { archive: args.archive.clone(), label, id };
    match args.command {
        Some(ServeCommand::Token { command: TokenCommand::Create { label } }) => {
            out.show(&archive::token_create(app, request(label, None)).await?)
        }
        Some(ServeCommand::Token { command: TokenCommand::List }) => {
            out.show(&archive::token_list(app, request(None, None)).await?)
        }
        Some(ServeCommand::Token { command: TokenCommand::Revoke { id } }) => {
            out.show(&archive::token_revoke(app, request(None, Some(id))).await?)
        }
        None => {
            let assets = crate::cli::assets::ui();
            alisio_api::serve::serve(app, args.archive.as_deref(), &args.listen, assets, |addr| {
                // Where it listens, on stdout as the proxy says it (a JSON line with --json).
                let _ = out.line(&Listening { url: format!("http://{addr}/") });
                if !addr.ip().is_loopback() {
                    out.note(format!(
                        "{addr} is not a loopback address: anyone who can reach it and holds a token reads the archive"
                    ));
                }
            })
            .await
        }
    }
}

/// Where `alisio serve` listens.
#[derive(serde::Serialize)]
struct Listening {
    url: String,
}

impl crate::cli::output::Human for Listening {
    fn print(&self) {
        println!(
            "serving the archive read-only at {} — a token is needed (alisio serve token create); Ctrl-C stops",
            self.url
        );
    }
}
