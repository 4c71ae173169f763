//! Everything the application pushes while it works: engine events, permission questions, turns
//! that ended, sessions a followed source grew. The window receives them as `alisio://event`; the
//! CLI prints the engine events.

use std::sync::Arc;

use alisio_engine::events::Envelope;
use alisio_engine::store::SessionId;
use alisio_engine::transcript::ToolCall;
use serde::Serialize;
use ts_rs::TS;

#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(tag = "kind", rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum UiEvent {
    /// An engine event (docs/cli.md), including streamed text.
    Engine { envelope: Envelope },
    /// A tool call whose permission is "ask" waits for an answer (`turns_answer_permission`).
    PermissionRequest { id: u64, session: String, call: ToolCall, permission: String },
    /// A turn started with `turns_start` ended; `error` is set when it failed.
    TurnFinished { session: String, error: Option<String> },
    /// Followed sources appended to imported sessions; `reload` lists those whose earlier rows
    /// changed (a new compaction), the others only gained messages at the end.
    Imported { sessions: Vec<SessionId>, reload: Vec<SessionId> },
    /// A long import (a followed folder's first reading) went on: shown as a progress line.
    ImportProgress { progress: alisio_engine::import::Progress },
    /// The recording proxy listened, captured a call, or met an error.
    Proxy { event: alisio_engine::proxy::ProxyEvent },
    /// Another process (`alisio import`, `run`, `sessions rename` …) changed the library.
    LibraryChanged {},
}

/// Where the application's events go.
pub type Emit = Arc<dyn Fn(UiEvent) + Send + Sync>;
