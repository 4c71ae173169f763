//! Sharing a session: Markdown or JSON written whole (or handed back as text), OTLP
//! traces sent to the configured endpoint, secrets redacted unless asked otherwise; and charts.

use std::path::PathBuf;

use alisio_engine::export::{self, ChartFormat, ExportFormat};
use alisio_engine::home::write_atomically;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::error::{ApiError, ApiResult};
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

/// What an export did.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ExportResult {
    /// The session's full id.
    pub session: String,
    /// The file written.
    pub path: Option<String>,
    /// The document, when asked for as text.
    pub text: Option<String>,
    /// What redaction replaced (`3 secrets redacted (…)`); none when it was off.
    pub redactions: Option<String>,
    pub sent: Option<SentTraces>,
    /// One line for people.
    pub summary: String,
}

/// Exports a session (`sessions export`, Export…).
pub async fn session(app: &App, request: ExportRequest) -> ApiResult<ExportResult> {
    let session = app.session(&request.session)?;
    let store = app.store()?;
    let Some(ext) = request.format.extension() else {
        let config = app.config().telemetry.otlp.clone();
        let report = alisio_engine::telemetry::export_session(&config, &store, &session.id, request.redact).await?;
        let redactions = request.redact.then(|| report.redactions.summary());
        let summary = format!(
            "Sent {} spans in {} traces to {}{}",
            report.spans,
            report.traces,
            report.endpoint,
            redactions.as_ref().map(|r| format!("; {r}")).unwrap_or_default()
        );
        let sent = SentTraces { spans: report.spans, traces: report.traces, endpoint: report.endpoint };
        return Ok(ExportResult {
            session: session.id.to_string(),
            path: None,
            text: None,
            redactions,
            sent: Some(sent),
            summary,
        });
    };
    let exported = export::document(&store, &session, request.format, request.redact)?;
    let redactions = exported.redactions.as_ref().map(|found| found.summary());
    if request.as_text {
        let summary = redactions.clone().unwrap_or_else(|| "not redacted".into());
        return Ok(ExportResult {
            session: session.id.to_string(),
            path: None,
            text: Some(exported.text),
            redactions,
            sent: None,
            summary,
        });
    }
    let path = match request.path.as_deref().map(str::trim).filter(|p| !p.is_empty()) {
        Some(p) => PathBuf::from(p),
        None => app.home().join("exports").join(format!("{}.{ext}", session.id)),
    };
    write_atomically(&path, exported.text.as_bytes())?;
    let summary = match &redactions {
        Some(found) => format!("Wrote {}; {found}", path.display()),
        None => format!("Wrote {} (not redacted)", path.display()),
    };
    Ok(ExportResult {
        session: session.id.to_string(),
        path: Some(path.display().to_string()),
        text: None,
        redactions,
        sent: None,
        summary,
    })
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
