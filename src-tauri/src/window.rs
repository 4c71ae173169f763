//! `alisio-window`: the desktop window. `alisio` without a subcommand runs it; it takes the options
//! the window uses (`--config`, `--profile`), everything else is the CLI's.

mod app;
mod logging;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;

/// Opens the Alisio window.
#[derive(Parser)]
#[command(name = "alisio-window", version)]
pub struct WindowArgs {
    /// Overlay this JSON file on $ALISIO_HOME/config.json
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Use this connection profile (config `profiles`) instead of `activeProfile`
    #[arg(long, value_name = "NAME")]
    pub profile: Option<String>,
}

fn main() -> ExitCode {
    let args = WindowArgs::parse();
    logging::init();
    ExitCode::from(u8::try_from(app::run(args)).unwrap_or(1))
}
