//! `alisio sessions`: the list, one session (stored or as the model sees it), an export, recovery.

use alisio_api::export::{self, ExportRequest};
use alisio_api::sessions::{self, Nothing, SessionRequest};
use alisio_api::views::{self, StoredRequest};
use alisio_api::{ApiResult, App};

use crate::cli::args::{SessionsCommand, View};
use crate::cli::output::Output;
use crate::cli::usage;

pub async fn command(app: &App, out: Output, command: SessionsCommand) -> ApiResult<()> {
    match command {
        SessionsCommand::List => out.show(&sessions::list(app, Nothing {}).await?),
        SessionsCommand::Show { session, view: View::Stored } => {
            out.show(&views::stored(app, StoredRequest { session, limit: None }).await?)
        }
        SessionsCommand::Show { session, view: View::Model } => {
            out.show(&views::model(app, SessionRequest::new(session)).await?)
        }
        SessionsCommand::Export { session, format, output, no_redact } => {
            let as_text = output.is_none();
            let path = output.map(|p| p.display().to_string());
            let request = ExportRequest { session, format: format.into(), path, as_text, redact: !no_redact };
            let exported = export::session(app, request).await?;
            if let Some(found) = &exported.redactions {
                out.note(found);
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
    }
}
