//! `alisio`: with a subcommand it runs headless (docs/cli.md); without one it opens the
//! app by running `alisio-window` (built beside it) in its own place. The command line never loads
//! the window's toolkit, so a command starts in milliseconds instead of linking WebKitGTK first.

mod cli;
mod logging;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::FromArgMatches;

fn main() -> ExitCode {
    let args = match cli::Cli::from_arg_matches(&cli::args::command().get_matches()) {
        Ok(args) => args,
        Err(err) => err.exit(),
    };
    match args.command {
        Some(command) => {
            logging::init();
            quiet_on_closed_stdout();
            let code = cli::run(command, args.global);
            ExitCode::from(u8::try_from(code).unwrap_or(1))
        }
        None => {
            let err = open_window(&args.global);
            eprintln!("alisio: {err}");
            ExitCode::from(1)
        }
    }
}

/// A reader that stops reading (`alisio … | head`) ends the command quietly: the text it no longer
/// wants is not an error to report (Rust's `print!` panics on a closed stdout).
fn quiet_on_closed_stdout() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let payload = info.payload();
        let message = payload
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| payload.downcast_ref::<&str>().copied())
            .unwrap_or_default();
        if message.starts_with("failed printing to stdout") && message.contains("Broken pipe") {
            std::process::exit(0);
        }
        default(info);
    }));
}

/// Replaces this process with the window binary (same pid, environment and streams), passing on
/// the options the window uses. Returns only on failure.
fn open_window(global: &cli::GlobalArgs) -> String {
    use std::os::unix::process::CommandExt;
    let window = match window_binary() {
        Ok(path) => path,
        Err(err) => return err,
    };
    let mut command = std::process::Command::new(&window);
    if let Some(config) = &global.config {
        command.arg("--config").arg(config);
    }
    if let Some(profile) = &global.profile {
        command.arg("--profile").arg(profile);
    }
    let err = command.exec();
    format!("cannot open the window ({}): {err}", window.display())
}

fn window_binary() -> Result<PathBuf, String> {
    let exe = std::env::current_exe().map_err(|err| format!("cannot find this program's path: {err}"))?;
    let window = exe.with_file_name(format!("alisio-window{}", std::env::consts::EXE_SUFFIX));
    if window.is_file() {
        Ok(window)
    } else {
        Err(format!(
            "the window is a separate binary and {} is missing; build it with `cargo build -p alisio` \
             (or run ./src-tauri/run-app.sh)",
            window.display()
        ))
    }
}
