//! Engine events (docs/cli.md). One tagged enum; the CLI prints them as versioned JSONL, the store
//! keeps them per session, and the app forwards them to the window.

use serde::Serialize;

pub const EVENT_VERSION: u8 = 1;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, strum::IntoStaticStr, strum::EnumString, strum::Display)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
#[strum(serialize_all = "lowercase")]
pub enum CompactionReason {
    Manual,
    Auto,
    Budget,
    Cache,
    /// Imported from an agent whose record does not say why it compacted.
    Unknown,
    /// Old tool results masked (`compaction.strategy` `mask` or `hybrid`).
    Mask,
    /// Whole lines of old tool outputs and answers deleted (`compaction.strategy` `prune`).
    Prune,
    /// The API's own compaction or context editing (`compaction.strategy` `provider`).
    Provider,
}

impl CompactionReason {
    pub const ALL: [CompactionReason; 8] = [
        CompactionReason::Manual,
        CompactionReason::Auto,
        CompactionReason::Budget,
        CompactionReason::Cache,
        CompactionReason::Unknown,
        CompactionReason::Mask,
        CompactionReason::Prune,
        CompactionReason::Provider,
    ];

    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// The reason stored as `text`; `None` for anything else (callers report it, never guess).
    pub fn parse(text: &str) -> Option<Self> {
        text.parse().ok()
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Size {
    pub chars: u64,
    pub tokens: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "type", rename_all = "snake_case", rename_all_fields = "camelCase")]
pub enum Event {
    Session {
        id: String,
    },
    CompactionStarted {
        reason: CompactionReason,
        #[serde(skip_serializing_if = "Option::is_none")]
        focus: Option<String>,
    },
    CompactionCompleted {
        reason: CompactionReason,
        partial: bool,
        before: Size,
        after: Size,
        summarized_messages: u64,
        summarized_chars: u64,
        checkpoint_chars: u64,
        plugin_reports: Vec<serde_json::Value>,
        /// What the checkpoint kept of the history it replaced.
        fidelity: Option<crate::fidelity::Fidelity>,
    },
    CompactionSkipped {
        reason: String,
    },
    CompactionFailed {
        error: String,
    },
    ContextReduced {
        messages: u64,
    },
    /// `compact --preview`: a checkpoint was stored as a proposal; nothing was hidden yet.
    CompactionProposed {
        proposal: i64,
        partial: bool,
        #[cfg_attr(feature = "ts", ts(type = "Checkpoint"))]
        checkpoint: serde_json::Value,
        /// What the proposed checkpoint would keep of the history it replaces.
        fidelity: Option<crate::fidelity::Fidelity>,
    },
    /// `compact --undo`: these compaction/reduction records were reverted.
    CompactionReverted {
        compactions: Vec<i64>,
    },
    PluginHookFailed {
        plugin: String,
        hook: String,
        error: String,
    },
    /// The OTLP collector did not take spans (reported once per process; later spans are dropped
    /// and counted).
    TelemetryFailed {
        endpoint: String,
        error: String,
    },
    /// An MCP server did not start or stopped answering; its tools leave the next request.
    McpServerFailed {
        server: String,
        error: String,
    },
    ToolStarted {
        call_id: String,
        name: String,
    },
    ToolFinished {
        call_id: String,
        name: String,
        ok: bool,
    },
    ModelCall {
        #[serde(skip_serializing_if = "Option::is_none")]
        prompt_tokens: Option<u64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        cached_tokens: Option<u64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        completion_tokens: Option<u64>,
        #[serde(skip_serializing_if = "Option::is_none")]
        ttft_ms: Option<u64>,
        duration_ms: u64,
        request_chars: u64,
    },
    /// Streamed assistant text; shown live but neither printed as JSONL nor stored.
    TextDelta {
        text: String,
    },
    TurnCompleted {
        text: String,
    },
    Error {
        message: String,
    },
}

impl Event {
    /// Applies `redact` to every free text the event carries (messages, errors, reasons, model text).
    pub fn redact_text(&mut self, redact: impl Fn(&mut String)) {
        match self {
            Event::CompactionStarted { focus: Some(text), .. }
            | Event::CompactionSkipped { reason: text }
            | Event::CompactionFailed { error: text }
            | Event::PluginHookFailed { error: text, .. }
            | Event::McpServerFailed { error: text, .. }
            | Event::TelemetryFailed { error: text, .. }
            | Event::TextDelta { text }
            | Event::TurnCompleted { text }
            | Event::Error { message: text } => redact(text),
            _ => {}
        }
    }

    /// Transient events are shown while they happen and are not part of the recorded stream.
    pub fn is_transient(&self) -> bool {
        matches!(self, Event::TextDelta { .. })
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Envelope {
    pub v: u8,
    #[serde(flatten)]
    pub event: Event,
    pub session: String,
    pub ts: String,
}

impl Envelope {
    pub fn new(session: &str, event: Event) -> Self {
        Self { v: EVENT_VERSION, event, session: session.to_string(), ts: now_rfc3339() }
    }
}

pub fn now_rfc3339() -> String {
    chrono::Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
}

/// Where events go (stdout as JSONL, a window, a test buffer).
pub trait EventSink: Send + Sync {
    fn emit(&self, envelope: &Envelope);
}

impl<F: Fn(&Envelope) + Send + Sync> EventSink for F {
    fn emit(&self, envelope: &Envelope) {
        self(envelope)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn envelope_is_flat_versioned_and_camel_case() {
        let env = Envelope::new("s1", Event::ToolFinished { call_id: "c-1".into(), name: "shell".into(), ok: true });
        let value = serde_json::to_value(&env).unwrap();
        assert_eq!(value["v"], 1);
        assert_eq!(value["type"], "tool_finished");
        assert_eq!(value["callId"], "c-1");
        assert_eq!(value["session"], "s1");
        assert!(value["ts"].as_str().unwrap().ends_with('Z'));
        let started =
            serde_json::to_value(Event::CompactionStarted { reason: CompactionReason::Budget, focus: None }).unwrap();
        assert_eq!(started, json!({"type": "compaction_started", "reason": "budget"}));
    }
}
