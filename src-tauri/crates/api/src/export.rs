//! Sharing a session: Markdown, JSON or a self-contained HTML page written whole (or handed back as
//! text), or OTLP traces sent to the configured endpoint. Secrets are redacted unless asked
//! otherwise; a review first lists what will be redacted (kind, where, a masked preview), the user
//! may add strings or patterns and un-mark false positives, then the same redaction is written.

use std::path::PathBuf;

use alisio_engine::export::{self, ChartFormat, ExportFormat};
use alisio_engine::home::write_atomically;
use alisio_engine::redact::{Finding, Redactions, Redactor};
use alisio_engine::store::Session;
use alisio_engine::view::stored_view;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::error::{blocking, ApiError, ApiResult};
use crate::App;

#[derive(Debug, Clone, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ExportRequest {
    pub session: String,
    pub format: ExportFormat,
    /// Where to write a document; none: `$ALISIO_HOME/exports/<session>.<ext>`.
    pub path: Option<String>,
    /// Hand the document back instead of writing it (the CLI prints it).
    #[ts(optional, as = "Option<bool>")]
    #[serde(default)]
    pub as_text: bool,
    pub redact: bool,
    /// More to redact: literal strings, or regexes written `/…/` (`--redact-extra`).
    #[ts(optional, as = "Option<Vec<String>>")]
    #[serde(default)]
    pub extra: Vec<String>,
    /// Findings of the review (their numbers) the user un-marked as false positives.
    #[ts(optional, as = "Option<Vec<u32>>")]
    #[serde(default)]
    pub unmark: Vec<u32>,
}

#[derive(Debug, Clone, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ChartRequest {
    pub session: String,
    pub format: ChartFormat,
    /// SVG text, or PNG bytes as base64.
    pub data: String,
}

/// Traces that reached the collector.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SentTraces {
    pub spans: usize,
    pub traces: usize,
    pub endpoint: String,
}

/// What redaction will replace, before anything is written: each finding numbered by its place.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ExportReview {
    pub session: String,
    pub findings: Vec<Finding>,
    pub total: u64,
    pub summary: String,
}

/// Where an export went.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(tag = "to", rename_all = "camelCase")]
pub enum Exported {
    /// Written to this file.
    File { path: String },
    /// Returned as text (to print or show).
    Text { text: String },
    /// Sent as traces to the configured OTLP endpoint.
    Traces(SentTraces),
}

/// What an export did.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ExportOutcome {
    /// The session's full id.
    pub session: String,
    pub exported: Exported,
    /// What redaction replaced (`3 secrets redacted (…)`); none when it was off.
    pub redactions: Option<String>,
    /// Each secret replaced: kind, where, a masked preview.
    pub findings: Vec<Finding>,
    /// One line for people.
    pub summary: String,
}

/// What redaction would replace in this session (Export… shows it before writing).
pub async fn review(app: &App, request: ExportRequest) -> ApiResult<ExportReview> {
    let session = app.session(&request.session)?;
    let store = app.store()?;
    let extra = request.extra.clone();
    let found = blocking("the review", move || findings(&store, &session, &extra, &[])).await?;
    Ok(ExportReview {
        session: request.session,
        total: found.total(),
        summary: found.summary(),
        findings: found.findings,
    })
}

/// Everything the catalog and `extra` find in the session, `keep` left alone.
fn findings(
    store: &alisio_engine::store::Store,
    session: &Session,
    extra: &[String],
    keep: &[String],
) -> ApiResult<Redactions> {
    let redactor = Redactor::new(extra, keep)?;
    let mut view = stored_view(store, session)?;
    Ok(export::redact_view(&mut view, &redactor))
}

/// Exports a session (`sessions export`, Export…). A redaction that cannot run writes nothing.
pub async fn session(app: &App, request: ExportRequest) -> ApiResult<ExportOutcome> {
    let session = app.session(&request.session)?;
    let store = app.store()?;
    let redactor = match request.redact {
        false => None,
        true => {
            let unmark: Vec<usize> = request.unmark.iter().map(|&n| n as usize).collect();
            let keep = match unmark.is_empty() {
                true => Vec::new(),
                false => findings(&store, &session, &request.extra, &[])?.texts_of(&unmark),
            };
            Some(Redactor::new(&request.extra, &keep)?)
        }
    };
    let id = session.id.to_string();
    let Some(ext) = request.format.extension() else {
        let config = app.config().telemetry.otlp.clone();
        let report = alisio_engine::telemetry::export_session(&config, &store, &session.id, redactor.as_ref()).await?;
        let redactions = redactor.is_some().then(|| report.redactions.summary());
        let summary = format!(
            "Sent {} spans in {} traces to {}{}",
            report.spans,
            report.traces,
            report.endpoint,
            redactions.as_ref().map(|r| format!("; {r}")).unwrap_or_default()
        );
        let sent = SentTraces { spans: report.spans, traces: report.traces, endpoint: report.endpoint };
        let findings = report.redactions.findings;
        return Ok(ExportOutcome { session: id, exported: Exported::Traces(sent), redactions, findings, summary });
    };
    let exported = export::document(&store, &session, request.format, redactor.as_ref())?;
    let redactions = exported.redactions.as_ref().map(Redactions::summary);
    let findings = exported.redactions.map(|r| r.findings).unwrap_or_default();
    if request.as_text {
        let summary = redactions.clone().unwrap_or_else(|| "not redacted".into());
        let exported = Exported::Text { text: exported.text };
        return Ok(ExportOutcome { session: id, exported, redactions, findings, summary });
    }
    let path = match request.path.as_deref().map(str::trim).filter(|p| !p.is_empty()) {
        Some(p) => PathBuf::from(p),
        None => app.home().join("exports").join(format!("{id}.{ext}")),
    };
    write_atomically(&path, exported.text.as_bytes())?;
    let summary = match &redactions {
        Some(found) => format!("Wrote {}; {found}", path.display()),
        None => format!("Wrote {} (not redacted)", path.display()),
    };
    let exported = Exported::File { path: path.display().to_string() };
    Ok(ExportOutcome { session: id, exported, redactions, findings, summary })
}

/// Writes an exported chart under `$ALISIO_HOME/exports/` and returns its path.
pub async fn chart(app: &App, request: ChartRequest) -> ApiResult<String> {
    let session = app.session(&request.session)?;
    let bytes = match request.format {
        ChartFormat::Svg => request.data.into_bytes(),
        ChartFormat::Png => {
            use base64::Engine as _;
            base64::engine::general_purpose::STANDARD
                .decode(request.data.trim())
                .map_err(|e| ApiError::invalid(format!("the PNG data is not base64: {e}")))?
        }
    };
    let ext: &'static str = request.format.into();
    let path = app.home().join("exports").join(format!("{}-context.{ext}", session.id));
    write_atomically(&path, &bytes)?;
    Ok(path.display().to_string())
}
