//! `alisio sessions`: the list, one session (stored or as the model sees it), an export, recovery,
//! a fork, two sessions compared.

use alisio_api::export::{self, ExportRequest};
use alisio_api::forks;
use alisio_api::sessions::{self, SessionRequest};
use alisio_api::views::{self, StoredRequest};
use alisio_api::{ApiResult, App};

use crate::cli::args::{SessionsCommand, View};
use crate::cli::output::Output;
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
    let exported = export::session(app, request).await?;
    if out.json {
        let output = exported.path.clone().or_else(|| exported.sent.as_ref().map(|s| s.endpoint.clone()));
        let mut document = serde_json::json!({"output": output, "redactions": exported.findings});
        if let (Some(text), Some(map)) = (&exported.text, document.as_object_mut()) {
            map.insert("document".into(), serde_json::Value::String(text.clone()));
        }
        if let Some(sent) = &exported.sent {
            document["sent"] = serde_json::json!({"spans": sent.spans, "traces": sent.traces});
        }
        return out.show(&Json(document));
    }
    if let Some(found) = &exported.redactions {
        out.note(found);
        const LISTED: usize = 20;
        for finding in exported.findings.iter().take(LISTED) {
            eprintln!("  {} in {}: {}", finding.kind, finding.at, finding.preview);
        }
        if exported.findings.len() > LISTED {
            eprintln!("  … {} more (--json lists them all)", exported.findings.len() - LISTED);
        }
    }
    match (&exported.sent, &exported.text, &exported.path) {
        (Some(sent), ..) => println!(
            "sent {} spans in {} traces of session {} to {}",
            sent.spans, sent.traces, exported.session, sent.endpoint
        ),
        (None, Some(text), _) => out.raw(text)?,
        (None, None, Some(path)) => out.note(format!("wrote {path}")),
        (None, None, None) => {}
    }
    Ok(())
}

/// A JSON document shown as itself (its human form is the same JSON).
struct Json(serde_json::Value);

impl serde::Serialize for Json {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

impl crate::cli::output::Human for Json {
    fn print(&self) {
        println!("{}", serde_json::to_string_pretty(&self.0).unwrap_or_default());
    }
}
