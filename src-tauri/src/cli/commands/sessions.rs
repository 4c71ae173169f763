//! `alisio sessions`: the list, one session (stored or as the model sees it), an export, recovery,
//! a fork, two sessions compared, a title of the user's, removing one.

use alisio_api::export::{self, ExportRequest, Exported};
use alisio_api::forks;
use alisio_api::sessions::{self, SessionRequest};
use alisio_api::views::{self, StoredRequest};
use alisio_api::{ApiResult, App};

use crate::cli::args::{SessionsCommand, View};
use crate::cli::output::{Human, Output};
use crate::cli::usage;

pub async fn command(app: &App, out: Output, command: SessionsCommand) -> ApiResult<()> {
    match command {
        SessionsCommand::List { project, source } => {
            out.show(&sessions::list(app, sessions::SessionsFilter { project, source }).await?)
        }
        SessionsCommand::Show { session, view: View::Stored } => {
            out.show(&views::stored(app, StoredRequest { session, limit: None }).await?)
        }
        SessionsCommand::Show { session, view: View::Model } => {
            out.show(&views::model(app, SessionRequest::new(session)).await?)
        }
        SessionsCommand::Export { session, format, output, no_redact, redact_extra } => {
            export_session(app, out, ExportArgs { session, format, output, no_redact, redact_extra }).await
        }
        SessionsCommand::Recover { session, acknowledge: false } => {
            let pending = sessions::uncertain(app, SessionRequest::new(session)).await?;
            let listing: Vec<String> =
                pending.iter().map(|e| format!("  {} {} {}", e.name, e.call_id, e.arguments)).collect();
            Err(usage(format!(
                "recovery records each uncertain tool result as \"result unknown\"; inspect the effects of these calls, then rerun with --acknowledge:\n{}",
                if listing.is_empty() { "  (none)".to_string() } else { listing.join("\n") }
            )))
        }
        SessionsCommand::Recover { session, acknowledge: true } => {
            out.show(&sessions::recover(app, SessionRequest::new(session)).await?)
        }
        SessionsCommand::Fork { session, at, title, workspace } => {
            let workspace = workspace.map(|w| std::path::absolute(&w).unwrap_or(w).display().to_string());
            out.show(&forks::fork(app, forks::ForkRequest { session, at, title, workspace }).await?)
        }
        SessionsCommand::Diff { a, b } => {
            out.show(&forks::diff(app, forks::SessionDiffRequest { a, b, messages: None }).await?)
        }
        SessionsCommand::Rename { session, title } => {
            out.show(&sessions::rename(app, sessions::RenameRequest { session, title }).await?)
        }
        SessionsCommand::Remove { session } => out.show(&sessions::remove(app, SessionRequest::new(session)).await?),
    }
}

struct ExportArgs {
    session: String,
    format: crate::cli::args::ExportFormat,
    output: Option<std::path::PathBuf>,
    no_redact: bool,
    redact_extra: Vec<String>,
}

/// `sessions export`: the document to `--output` or stdout, what was redacted on stderr; with
/// `--json`, one document `{"output", "redactions": [{"kind", "where", "preview"}]}` (and the
/// exported `document` itself when it was not written to a file).
async fn export_session(app: &App, out: Output, args: ExportArgs) -> ApiResult<()> {
    let as_text = args.output.is_none();
    let path = args.output.map(|p| p.display().to_string());
    let request = ExportRequest {
        session: args.session,
        format: args.format.into(),
        path,
        as_text,
        redact: !args.no_redact,
        extra: args.redact_extra,
        unmark: Vec::new(),
    };
    out.show(&ExportShown(export::session(app, request).await?))
}

/// An export as the CLI shows it: with `--json`, `{"output", "redactions": [{"kind", "where",
/// "preview"}]}` and the `document` (written to stdout otherwise) or what was `sent`; as text, the
/// document on stdout (or where it went) and what was redacted on stderr.
struct ExportShown(export::ExportOutcome);

impl serde::Serialize for ExportShown {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let outcome = &self.0;
        let mut document = serde_json::json!({"output": null, "redactions": outcome.findings});
        match &outcome.exported {
            Exported::File { path } => document["output"] = path.clone().into(),
            Exported::Text { text } => document["document"] = text.clone().into(),
            Exported::Traces(sent) => {
                document["output"] = sent.endpoint.clone().into();
                document["sent"] = serde_json::json!({"spans": sent.spans, "traces": sent.traces});
            }
        }
        document.serialize(serializer)
    }
}

impl Human for ExportShown {
    fn print(&self) {
        let outcome = &self.0;
        if let Some(found) = &outcome.redactions {
            eprintln!("alisio: {found}");
            const LISTED: usize = 20;
            for finding in outcome.findings.iter().take(LISTED) {
                eprintln!("  {} in {}: {}", finding.kind, finding.at, finding.preview);
            }
            if outcome.findings.len() > LISTED {
                eprintln!("  … {} more (--json lists them all)", outcome.findings.len() - LISTED);
            }
        }
        match &outcome.exported {
            Exported::Traces(sent) => println!(
                "sent {} spans in {} traces of session {} to {}",
                sent.spans, sent.traces, outcome.session, sent.endpoint
            ),
            Exported::Text { text } => {
                let mut out = std::io::stdout().lock();
                let _ = std::io::Write::write_all(&mut out, text.as_bytes());
            }
            Exported::File { path } => eprintln!("alisio: wrote {path}"),
        }
    }
}
