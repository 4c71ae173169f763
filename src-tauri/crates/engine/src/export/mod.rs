//! `alisio sessions export`: a session for people (Markdown, or one self-contained HTML page) or
//! for programs (versioned JSON: the stored view plus the ledger). Unless asked otherwise the view
//! is redacted first — every value where it lives, decoded, before anything is rendered or
//! shortened — so each format shows the same redacted session. OTLP export lives in `telemetry`.

pub mod atif;
mod html;
mod markdown;

use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::error::Result;
use crate::fidelity::CHECKPOINT_SECTIONS as SECTIONS;
use crate::redact::{Redactions, Redactor};
use crate::store::{Session, Store};
use crate::view::{stored_view, StoredView};

pub use markdown::{markdown, shorten};

/// Tool outputs longer than this are shortened in Markdown (head and tail kept, size noted).
pub const LONG_OUTPUT_CHARS: usize = 4000;
/// The JSON export's format version.
pub const JSON_VERSION: u64 = 1;

/// What a session is exported as (`--format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, strum::IntoStaticStr, strum::EnumString)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
#[strum(serialize_all = "lowercase")]
pub enum ExportFormat {
    /// The transcript for people.
    Markdown,
    /// `{"v": 1, "session", "messages", "compactions", "modelCalls"}`.
    Json,
    /// One self-contained page (styles and script inline, nothing fetched).
    Html,
    /// Traces sent to the configured OTLP endpoint.
    Otlp,
    /// An ATIF trajectory (`trajectory.json`, Harbor RFC 0001).
    Atif,
}

impl ExportFormat {
    /// The file extension of a written export; OTLP writes no file.
    pub fn extension(self) -> Option<&'static str> {
        match self {
            ExportFormat::Markdown => Some("md"),
            ExportFormat::Json => Some("json"),
            ExportFormat::Html => Some("html"),
            ExportFormat::Atif => Some("json"),
            ExportFormat::Otlp => None,
        }
    }
}

/// What a chart of a session is saved as.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, strum::IntoStaticStr)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
#[strum(serialize_all = "lowercase")]
pub enum ChartFormat {
    /// SVG text.
    Svg,
    /// PNG bytes, sent as base64.
    Png,
}

/// The document of a session in `format`, redacted by `redactor` (none: as stored).
pub fn document(
    store: &Store,
    session: &Session,
    format: ExportFormat,
    redactor: Option<&Redactor>,
) -> Result<Exported> {
    let mut view = stored_view(store, session)?;
    let redactions = redactor.map(|r| redact_view(&mut view, r));
    let text = match format {
        ExportFormat::Markdown => markdown(&view),
        ExportFormat::Html => html::page(&view),
        ExportFormat::Json => {
            let value = json!({
                "v": JSON_VERSION,
                "session": view.session,
                "messages": view.messages,
                "compactions": view.compactions,
                "modelCalls": view.model_calls,
            });
            serde_json::to_string_pretty(&value)? + "\n"
        }
        ExportFormat::Atif => serde_json::to_string_pretty(&atif::trajectory(&view))? + "\n",
        ExportFormat::Otlp => {
            return Err(crate::Error::Usage(
                "an OTLP export is sent to the trace store, not written as a document".into(),
            ))
        }
    };
    Ok(Exported { text, redactions })
}

/// An export: the text to write and what redaction replaced (`None`: redaction was off).
pub struct Exported {
    pub text: String,
    pub redactions: Option<Redactions>,
}

/// Redacts every value of `view` where it lives: the session's title and paths, each message's
/// text, tool-call arguments (decoded) and metadata, the compactions (focus, checkpoint, fidelity,
/// plugin data), the journal and the ledger. Each finding says where it was.
pub fn redact_view(view: &mut StoredView, r: &Redactor) -> Redactions {
    let mut found = Redactions::default();
    let s = &mut view.session;
    s.title = r.text(&s.title, "session title", &mut found);
    s.workspace = r.text(&s.workspace, "session workspace", &mut found);
    if let Some(path) = s.source_path.as_mut() {
        *path = r.text(path, "session source path", &mut found);
    }
    for m in &mut view.messages {
        let at = format!("message {}", m.seq);
        m.content = r.decoded(&m.content, &at, &mut found);
        for call in &mut m.tool_calls {
            call.arguments = r.decoded(&call.arguments, &format!("{at}, tool call {} arguments", call.id), &mut found);
        }
        if let Some(meta) = m.meta.as_mut() {
            r.json(meta, &format!("{at}, metadata"), &mut found);
        }
    }
    for c in &mut view.compactions {
        let at = format!("compaction {}", c.record.id);
        let record = &mut c.record;
        if let Some(focus) = record.focus.as_mut() {
            *focus = r.text(focus, &format!("{at} focus"), &mut found);
        }
        for value in
            [&mut record.checkpoint, &mut record.plugin_reports, &mut record.plugin_fields, &mut record.inject_context]
        {
            r.json(value, &format!("{at} checkpoint"), &mut found);
        }
        if let Some(fidelity) = record.fidelity.as_mut() {
            for item in &mut fidelity.missing {
                item.value = r.text(&item.value, &format!("{at} fidelity"), &mut found);
                item.why = r.text(&item.why, &format!("{at} fidelity"), &mut found);
            }
        }
    }
    for entry in &mut view.tool_calls {
        entry.arguments = r.decoded(&entry.arguments, &format!("tool call {} arguments", entry.call_id), &mut found);
    }
    for (n, call) in view.model_calls.iter_mut().enumerate() {
        let at = format!("model call {}", n + 1);
        r.json(&mut call.params, &at, &mut found);
        if let Some(error) = call.error.as_mut() {
            *error = r.text(error, &format!("{at} error"), &mut found);
        }
    }
    found
}

#[cfg(test)]
mod tests;
