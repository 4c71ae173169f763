//! `alisio`: with a subcommand it runs headless (README "Using the CLI"); without one it opens the app.

mod app;
mod cli;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let args = cli::Cli::parse();
    init_tracing();
    match args.command {
        Some(command) => {
            let code = cli::run(command, args.global);
            ExitCode::from(u8::try_from(code).unwrap_or(1))
        }
        None => ExitCode::from(u8::try_from(app::run(args.global)).unwrap_or(1)),
    }
}

/// Logs go to stderr, filtered by `ALISIO_LOG` (default: warnings). Nothing logged carries secrets.
fn init_tracing() {
    let filter = tracing_subscriber::EnvFilter::try_from_env("ALISIO_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    let ansi = std::io::IsTerminal::is_terminal(&std::io::stderr());
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(ansi)
        .with_target(false)
        .init();
}
