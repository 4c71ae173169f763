//! The headless face: arguments in (`args`), an application opened with the same options the
//! window uses, one application-API function per command (`commands/`), its answer rendered by the
//! one output seam (`output`, `human/`). Errors go to stderr with the exit codes the README lists
//! under "Using the CLI".

pub mod args;
mod assets;
mod commands;
mod human;
mod output;
mod subcommands;
mod team_args;

use std::sync::Arc;

use alisio_api::{Access, ApiError, ApiResult, App, AppOptions, Approvals};
use alisio_engine::home::alisio_home;

use args::{
    BenchCommand, CallsCommand, CompactMode, McpCommand, PricesCommand, SearchArgs, SessionsCommand, UsageArgs,
};
pub use args::{Cli, Command, GlobalArgs};
use output::Output;

/// Runs a command and returns the process exit code.
pub fn run(command: Command, global: GlobalArgs) -> i32 {
    // A completion script needs no configuration nor database.
    if let Command::Completions { shell } = command {
        let mut script = Vec::new();
        clap_complete::generate(shell, &mut args::command(), "alisio", &mut script);
        // A reader that stops early (`| head`) is no error.
        return match std::io::Write::write_all(&mut std::io::stdout(), &script) {
            Err(err) if err.kind() != std::io::ErrorKind::BrokenPipe => {
                eprintln!("alisio: cannot write the completion script: {err}");
                1
            }
            _ => 0,
        };
    }
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(err) => {
            eprintln!("alisio: cannot start the async runtime: {err}");
            return 1;
        }
    };
    match runtime.block_on(execute(command, global)) {
        Ok(()) => 0,
        Err(err) => {
            eprintln!("alisio: {err}");
            err.exit_code()
        }
    }
}

async fn execute(command: Command, global: GlobalArgs) -> ApiResult<()> {
    let out = Output { json: global.json };
    let app = Arc::new(App::open(AppOptions {
        home: alisio_home(),
        overlay: global.config.clone(),
        profile: global.profile.clone(),
        access: access(&command),
        approvals: Approvals::Fixed(matches!(command, Command::Run { yes: true, .. })),
        emit: out.events(streams_events(&command)),
    })?);
    if runs(&command) {
        app.interrupt_on_signals();
    }
    let result = dispatch(&app, out, command).await;
    app.close().await;
    result
}

async fn dispatch(app: &App, out: Output, command: Command) -> ApiResult<()> {
    match command {
        Command::Run { session, prompt, .. } => commands::run::turn(app, out, session, prompt).await,
        Command::Compact(args) => commands::compact::mode(app, out, args.mode()).await,
        Command::Models => commands::servers::models(app, out).await,
        Command::Completions { .. } => Err(usage("completions are printed before the application opens")),
        Command::Mcp { command: McpCommand::List } => commands::servers::mcp(app, out).await,
        Command::Prices { command: PricesCommand::Show { model, at } } => {
            out.show(&alisio_api::prices::show(app, alisio_api::prices::PriceShowRequest { model, at }).await?)
        }
        Command::Prices { command: PricesCommand::Update { file, since } } => {
            out.show(&alisio_api::prices::update(app, alisio_api::prices::PriceUpdateRequest { file, since }).await?)
        }
        Command::Sessions { command } => commands::sessions::command(app, out, command).await,
        Command::Calls { command } => commands::calls::command(app, out, command).await,
        Command::Bench { command: BenchCommand::Compaction { sessions, at, every, strategies, judge } } => {
            let request = alisio_api::bench::CompactionBenchRequest { sessions, at, every, strategies, judge };
            out.show(&alisio_api::bench::compaction(app, request).await?)
        }
        Command::Import { paths, watch } => commands::import::import(app, out, paths, watch).await,
        Command::Proxy { upstream, listen } => commands::proxy::run(app, upstream, listen).await,
        Command::Search(args @ SearchArgs { archive: Some(_), .. }) => commands::team::search(app, out, args).await,
        Command::Search(SearchArgs {
            query, source, project, limit, fts, role, tool, session, since, until, ..
        }) => {
            let request = alisio_api::search::SearchRequest {
                query,
                source,
                project,
                limit: Some(limit),
                fts: Some(fts),
                prefix: None,
                role,
                tool,
                session,
                since,
                until,
            };
            out.show(&alisio_api::search::messages(app, request).await?)
        }
        Command::Pin { session, seq, text, list, remove } => {
            use alisio_api::pins;
            if list {
                out.show(&pins::list(app, alisio_api::sessions::SessionRequest::new(session)).await?)
            } else if let Some(id) = remove {
                let left = pins::remove(app, pins::PinRemove { session, id }).await?;
                out.show(&human::sessions::PinRemoved { id, left })
            } else {
                out.show(&pins::add(app, pins::PinRequest { session, seq, text }).await?)
            }
        }
        Command::Usage(args @ UsageArgs { archive: Some(_), .. }) => commands::team::usage(app, out, args).await,
        Command::Push(args) => commands::team::push(app, out, args).await,
        Command::Serve(args) => commands::team::serve(app, out, args).await,
        Command::Usage(UsageArgs { by, since, until, source, model, fold_subagents, .. }) => {
            let request = alisio_api::usage::UsageRequest {
                by: Some(by),
                since,
                until,
                source,
                model,
                fold_subagents: Some(fold_subagents),
            };
            out.show(&alisio_api::usage::report(app, request).await?)
        }
    }
}

/// Commands that only show open the database without writing (a read-only home works for them).
fn access(command: &Command) -> Access {
    let shows = match command {
        Command::Sessions { command } => {
            matches!(
                command,
                SessionsCommand::List { .. } | SessionsCommand::Show { .. } | SessionsCommand::Export { .. }
            )
        }
        Command::Calls { command } => !matches!(command, CallsCommand::Replay { .. }),
        Command::Compact(args) => args.lint.is_some() || matches!(args.mode, Some(CompactMode::Lint { .. })),
        Command::Models | Command::Mcp { .. } | Command::Usage(_) | Command::Search { .. } | Command::Push(_) => true,
        Command::Serve(_) => true,
        Command::Completions { .. } => true,
        Command::Prices { .. } => true,
        Command::Pin { list, .. } => *list,
        Command::Run { .. } | Command::Import { .. } | Command::Proxy { .. } | Command::Bench { .. } => false,
    };
    if shows {
        Access::Read
    } else {
        Access::Write
    }
}

/// `run` and `compact` print their events as their output (JSONL with `--json`); the others,
/// whose output is one document, print events only as text.
fn streams_events(command: &Command) -> bool {
    match command {
        Command::Run { .. } | Command::Proxy { .. } => true,
        Command::Compact(args) => {
            let asks = args.lint.is_some() || args.probe.is_some();
            !asks && !matches!(args.mode, Some(CompactMode::Lint { .. } | CompactMode::Probe { .. }))
        }
        _ => false,
    }
}

/// Commands that run (a turn, a summary, a replay, a follow): Ctrl-C stops them cleanly.
fn runs(command: &Command) -> bool {
    matches!(
        command,
        Command::Run { .. }
            | Command::Compact(_)
            | Command::Calls { command: CallsCommand::Replay { .. } }
            | Command::Import { .. }
            | Command::Proxy { .. }
            | Command::Bench { .. }
            | Command::Push(_)
            | Command::Serve(_)
    )
}

/// A usage error (exit 2).
fn usage(message: impl Into<String>) -> ApiError {
    ApiError::invalid(message)
}

#[cfg(test)]
mod tests;
