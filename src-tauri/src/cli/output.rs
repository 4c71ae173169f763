//! The one seam between the commands and the terminal: an answer is shown as one JSON document
//! (`--json`) or as text for people ([`Human`]); engine events are printed as JSONL or text as they
//! happen; notes go to stderr.

use std::io::Write;
use std::sync::Arc;

use alisio_api::{ApiError, ApiResult, Emit, UiEvent};
use alisio_engine::proxy::ProxyEvent;
use serde::Serialize;

use super::human;

/// How an answer reads for people.
pub trait Human {
    fn print(&self);
}

#[derive(Clone, Copy)]
pub struct Output {
    pub json: bool,
}

impl Output {
    /// An answer: one pretty JSON document, or its text for people.
    pub fn show<T: Serialize + Human>(&self, value: &T) -> ApiResult<()> {
        if self.json {
            let mut out = std::io::stdout().lock();
            serde_json::to_writer_pretty(&mut out, value).map_err(json_failed)?;
            writeln!(out).map_err(stdout_failed)
        } else {
            value.print();
            Ok(())
        }
    }

    /// One line of a stream (a round of `import --watch`): compact JSON, or its text.
    pub fn line<T: Serialize + Human>(&self, value: &T) -> ApiResult<()> {
        if self.json {
            let mut out = std::io::stdout().lock();
            serde_json::to_writer(&mut out, value).map_err(json_failed)?;
            writeln!(out).and_then(|()| out.flush()).map_err(stdout_failed)
        } else {
            value.print();
            Ok(())
        }
    }

    /// A remark for people, on stderr whatever the format (`alisio: …`).
    pub fn note(&self, text: impl std::fmt::Display) {
        eprintln!("alisio: {text}");
    }

    /// Where engine events go. `stream`: this command's output *is* its events (`run`,
    /// `compact`), so with `--json` they are JSONL on stdout; otherwise they are text.
    pub fn events(&self, stream: bool) -> Emit {
        let jsonl = self.json && stream;
        Arc::new(move |event: UiEvent| {
            let envelope = match event {
                UiEvent::Engine { envelope } => envelope,
                UiEvent::Proxy { event } => return print_proxy_event(&event, jsonl),
                UiEvent::ImportProgress { progress } => return print_progress(&progress),
                _ => return,
            };
            if !jsonl {
                human::print_event(&envelope);
                return;
            }
            if envelope.event.is_transient() {
                return;
            }
            if let Ok(line) = serde_json::to_string(&envelope) {
                let mut out = std::io::stdout().lock();
                let _ = writeln!(out, "{line}");
                let _ = out.flush();
            }
        })
    }
}

/// A long import's progress bar, redrawn in place on a terminal's stderr (nothing when stderr is
/// not a terminal: a log file gets the report alone).
fn print_progress(progress: &alisio_engine::import::Progress) {
    use std::io::IsTerminal;
    let mut err = std::io::stderr().lock();
    if !err.is_terminal() {
        return;
    }
    const WIDTH: u64 = 30;
    let filled = (progress.bytes_done * WIDTH).checked_div(progress.bytes).unwrap_or(WIDTH).min(WIDTH) as usize;
    let bar = format!("{}{}", "#".repeat(filled), "-".repeat(WIDTH as usize - filled));
    let mib = |b: u64| b as f64 / (1024.0 * 1024.0);
    let _ = write!(
        err,
        "\r\x1b[2Kimporting [{bar}] {}/{} files, {:.0}/{:.0} MiB",
        progress.files_done,
        progress.files,
        mib(progress.bytes_done),
        mib(progress.bytes)
    );
    if progress.files_done == progress.files {
        let _ = writeln!(err);
    }
    let _ = err.flush();
}

/// A proxy event: one JSON line with `--json`, else a line of text (errors on stderr).
fn print_proxy_event(event: &ProxyEvent, jsonl: bool) {
    let line = if jsonl {
        serde_json::to_string(event).unwrap_or_default()
    } else {
        match event {
            ProxyEvent::Listening { address } => {
                format!("listening on http://{address} — set the agent's base URL to it (Ctrl-C stops)")
            }
            ProxyEvent::Captured { session, n, path, status, prompt_tokens, cached_tokens } => {
                let tokens = |t: &Option<u64>| t.map_or("–".to_string(), |t| t.to_string());
                format!(
                    "captured {path} → {status}: session {session} call {n}, prompt {} tokens ({} cached)",
                    tokens(prompt_tokens),
                    tokens(cached_tokens)
                )
            }
            ProxyEvent::Error { message } => {
                eprintln!("alisio proxy: {message}");
                return;
            }
        }
    };
    let mut out = std::io::stdout().lock();
    let _ = writeln!(out, "{line}");
    let _ = out.flush();
}

fn json_failed(e: serde_json::Error) -> ApiError {
    match e.io_error_kind() {
        Some(kind) => stdout_failed(std::io::Error::from(kind)),
        None => ApiError::failed(e.to_string()),
    }
}

fn stdout_failed(e: std::io::Error) -> ApiError {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        // The reader stopped reading (`alisio … --json | head`): nothing more to say.
        std::process::exit(0);
    }
    ApiError::failed(format!("cannot write to stdout: {e}"))
}
