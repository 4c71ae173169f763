//! The typed boundary between Alisio's window and its engine. Every command is a plain async
//! function on [`Backend`] (no Tauri types), every event one [`UiEvent`]; the app crate only wires
//! them to Tauri, and `ui/src/bindings.ts` is generated from these types (see [`bindings`]).

pub mod bindings;
pub mod diff;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use alisio_engine::agent::{Engine, RecoverReport, TurnRequest};
use alisio_engine::compaction::budget::WINDOW_TRUST_LIMIT;
use alisio_engine::compaction::CompactOutcome;
use alisio_engine::config;
use alisio_engine::events::{CompactionReason, Envelope};
use alisio_engine::home::{CONFIG_FILE, DB_FILE};
use alisio_engine::lock;
use alisio_engine::provider::wire::WireItem;
use alisio_engine::store::{ModelCallRecord, SessionSummary, Store};
use alisio_engine::tools::Approver;
use alisio_engine::transcript::ToolCall;
use alisio_engine::view::{self, StoredView};
use futures_util::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::oneshot;
use tokio_util::sync::CancellationToken;
use ts_rs::TS;

pub use diff::TrimmedDiff;

/// An error as the UI sees it: a stable code it may branch on, and a message for people.
#[derive(Debug, Clone, PartialEq, Serialize, TS, thiserror::Error)]
#[serde(rename_all = "camelCase")]
#[error("{message}")]
pub struct IpcError {
    pub code: ErrorCode,
    pub message: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub enum ErrorCode {
    /// Bad input or config (exit code 2 in the CLI).
    Invalid,
    /// The session has unacknowledged uncertain tool results.
    Uncertain,
    /// Provider, budget, database or other runtime failure.
    Failed,
}

impl From<alisio_engine::Error> for IpcError {
    fn from(err: alisio_engine::Error) -> Self {
        let code = match err.exit_code() {
            2 => ErrorCode::Invalid,
            3 => ErrorCode::Uncertain,
            _ => ErrorCode::Failed,
        };
        IpcError { code, message: err.to_string() }
    }
}

pub type IpcResult<T> = Result<T, IpcError>;

fn invalid(message: impl Into<String>) -> IpcError {
    IpcError { code: ErrorCode::Invalid, message: message.into() }
}

/// Everything the backend pushes to the window.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(tag = "kind", rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum UiEvent {
    /// An engine event (README "Using the CLI"), including streamed text.
    Engine { envelope: Envelope },
    /// A tool call whose permission is "ask" waits for an answer (`answer_permission`).
    PermissionRequest { id: u64, session: String, call: ToolCall, permission: String },
    /// A turn started from the window ended; `error` is set when it failed.
    TurnFinished { session: String, error: Option<String> },
    /// Watched sources appended to imported sessions; `reload` lists those whose earlier rows
    /// changed (a new compaction), the others only gained messages at the end.
    Imported { sessions: Vec<String>, reload: Vec<String> },
}

/// What an import from the window did: the CLI's document, and the paths that held no session
/// in a known format.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ImportOutcome {
    pub report: alisio_engine::import::ImportReport,
    pub unknown: Vec<String>,
    /// The formats Alisio reads, for the message about `unknown` paths.
    pub formats: String,
}

/// The size of the next request against the limits that apply to it.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ContextMeter {
    pub strategy: String,
    pub window_tokens: Option<u64>,
    pub window_source: String,
    pub threshold: f64,
    pub max_context_chars: u64,
    pub reducible_chars: u64,
    pub tool_catalog_chars: u64,
    pub estimated_tokens: u64,
}

/// A past request rebuilt from the ledger.
/// A path as people type it: `~/…` is under the home directory.
fn expand_home(path: &str) -> String {
    match (path.strip_prefix("~/"), std::env::var("HOME")) {
        (Some(rest), Ok(home)) => format!("{home}/{rest}"),
        _ => path.to_string(),
    }
}

/// Where a window came from, as the meter says it.
fn window_label(source: alisio_engine::provider::WindowSource) -> &'static str {
    use alisio_engine::provider::WindowSource;
    match source {
        WindowSource::Provider => "provider.contextWindow",
        WindowSource::Profile => "the profile's contextWindow",
        WindowSource::Models => "GET /models",
        WindowSource::Props => "llama.cpp /props",
        WindowSource::Ollama => "Ollama /api/ps, /api/show",
        WindowSource::Lmstudio => "LM Studio /api/v0/models",
    }
}

/// A request diff for the window: the comparison and a line diff of each changed message.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct RequestDiff {
    pub diff: alisio_engine::calls::CallDiff,
    pub lines: Vec<MessageLines>,
}

#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct MessageLines {
    pub index: u32,
    pub lines: Vec<diff::DiffLine>,
}

#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PastRequest {
    pub call: ModelCallRecord,
    pub messages: Vec<WireItem>,
}

#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ConfigDocument {
    pub path: String,
    /// The user's config file as stored (unknown keys included).
    pub raw: Value,
    /// The effective configuration with every default filled in.
    pub effective: Value,
}

#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ConnectionReport {
    pub base_url: String,
    pub model: String,
    pub context_window: Option<u64>,
    pub models: Vec<String>,
}

/// What Export… did: the file written (Markdown, JSON) and what was redacted or sent.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ExportResult {
    pub path: Option<String>,
    pub summary: String,
}

#[derive(Debug, Clone, PartialEq, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct CompactRequest {
    pub session: String,
    pub focus: Option<String>,
    pub preview: bool,
}

type Emit = Arc<dyn Fn(UiEvent) + Send + Sync>;

#[derive(Default)]
struct Live {
    turns: HashMap<String, CancellationToken>,
    permissions: HashMap<u64, oneshot::Sender<bool>>,
    next_permission: u64,
}

/// The app's backend: one store, an engine built from the current config, running turns.
pub struct Backend {
    home: PathBuf,
    overlay: Option<PathBuf>,
    store: Arc<Store>,
    engine: Mutex<Arc<Engine>>,
    live: Arc<Mutex<Live>>,
    emit: Emit,
    demo: tokio::sync::Mutex<()>,
}

/// Asks the window before running tools whose permission is "ask".
struct WindowApprover {
    /// Filled in by the turn's session event (a new session's id is known only then).
    session: Arc<Mutex<String>>,
    live: Arc<Mutex<Live>>,
    emit: Emit,
}

impl Approver for WindowApprover {
    fn approve<'a>(&'a self, call: &'a ToolCall, permission_key: &'a str) -> BoxFuture<'a, bool> {
        Box::pin(async move {
            let (tx, rx) = oneshot::channel();
            let id = {
                let Ok(mut live) = self.live.lock() else { return false };
                live.next_permission += 1;
                let id = live.next_permission;
                live.permissions.insert(id, tx);
                id
            };
            (self.emit)(UiEvent::PermissionRequest {
                id,
                session: lock(&self.session).clone(),
                call: call.clone(),
                permission: permission_key.to_string(),
            });
            rx.await.unwrap_or(false)
        })
    }
}

impl Backend {
    pub fn open(home: &Path, overlay: Option<PathBuf>, emit: Emit) -> IpcResult<Self> {
        let loaded = config::load(home, overlay.as_deref())?;
        // A read-only home still shows its sessions (runs then fail with the database's own message).
        let path = home.join(DB_FILE);
        let store = Arc::new(Store::open(&path).or_else(|err| Store::open_for_reading(&path).map_err(|_| err))?);
        let engine = Arc::new(Engine::new(loaded.config, store.clone())?);
        Ok(Self {
            home: home.to_path_buf(),
            overlay,
            store,
            engine: Mutex::new(engine),
            live: Default::default(),
            emit,
            demo: tokio::sync::Mutex::new(()),
        })
    }

    fn engine(&self) -> Arc<Engine> {
        lock(&self.engine).clone()
    }

    /// On a first start (no sessions yet) the demo session is produced by the engine itself.
    pub async fn ensure_demo(&self) -> IpcResult<Option<String>> {
        let _once = self.demo.lock().await;
        // Imported sessions (the window follows other agents from its first second) do not count:
        // the demo is there until Alisio has a session of its own.
        if self.store.list_sessions()?.iter().any(|s| s.source.is_none()) {
            return Ok(None);
        }
        let workspace = self.home.join("demo-workspace");
        Ok(Some(alisio_engine::demo::create_demo_session(self.store.clone(), &workspace).await?))
    }

    pub fn list_sessions(&self) -> IpcResult<Vec<SessionSummary>> {
        Ok(self.store.list_sessions()?)
    }

    /// The stored view; with `limit`, only the newest `limit` messages (see `older_messages`).
    pub fn stored_view(&self, session: &str, limit: Option<u32>) -> IpcResult<StoredView> {
        Ok(view::stored_view_page(&self.store, session, None, limit.map(|l| l as usize))?)
    }

    /// The agents' default locations with their session counts (the window's Sources list).
    pub async fn import_sources(&self) -> IpcResult<Vec<alisio_engine::import::SourceSummary>> {
        let store = self.store.clone();
        tokio::task::spawn_blocking(move || Ok(alisio_engine::import::source_summaries(&store)?))
            .await
            .map_err(|e| IpcError { code: ErrorCode::Failed, message: format!("reading the sources failed: {e}") })?
    }

    /// Imports files or directories given in the window (I6, as `alisio import PATH...`).
    pub async fn import_paths(&self, paths: Vec<String>) -> IpcResult<ImportOutcome> {
        if paths.iter().all(|p| p.trim().is_empty()) {
            return Err(invalid("give a file or folder to import"));
        }
        let store = self.store.clone();
        let paths: Vec<PathBuf> = paths.iter().map(|p| PathBuf::from(expand_home(p.trim()))).collect();
        let report = tokio::task::spawn_blocking(move || alisio_engine::import::import(&store, &paths))
            .await
            .map_err(|e| IpcError { code: ErrorCode::Failed, message: format!("the import failed: {e}") })?;
        Ok(ImportOutcome {
            unknown: report.unknown.iter().map(|p| p.display().to_string()).collect(),
            report,
            formats: alisio_engine::import::FORMATS.to_string(),
        })
    }

    /// Follows the agents' default locations while the window is open: what their running
    /// sessions append is imported (polled every second) and announced as [`UiEvent::Imported`].
    pub fn watch_sources(&self) {
        let store = self.store.clone();
        let emit = self.emit.clone();
        let spawned = std::thread::Builder::new().name("alisio-sources".into()).spawn(move || {
            let mut compactions: HashMap<String, u64> = HashMap::new();
            let mut reported = false;
            loop {
                let roots: Vec<PathBuf> = alisio_engine::import::default_locations()
                    .into_iter()
                    .filter(|l| l.exists)
                    .map(|l| PathBuf::from(l.path))
                    .collect();
                if !roots.is_empty() {
                    let report = alisio_engine::import::import(&store, &roots);
                    if let (Some(failure), false) = (report.errors.first(), reported) {
                        tracing::warn!("cannot import {}: {}", failure.path, failure.error);
                        reported = true;
                    }
                    let mut sessions = Vec::new();
                    let mut reload = Vec::new();
                    for s in report.imported {
                        let before = compactions.insert(s.id.clone(), s.compactions);
                        if s.added > 0 {
                            if before.is_some_and(|b| b != s.compactions) {
                                reload.push(s.id.clone());
                            }
                            sessions.push(s.id);
                        }
                    }
                    if !sessions.is_empty() {
                        emit(UiEvent::Imported { sessions, reload });
                    }
                }
                std::thread::sleep(std::time::Duration::from_secs(1));
            }
        });
        if let Err(err) = spawned {
            tracing::warn!("cannot follow the agents' sessions: {err}");
        }
    }

    /// The stored view with only the messages after `(anchor, seq)`: what a running turn appended.
    pub fn stored_view_since(&self, session: &str, anchor: i64, seq: i64) -> IpcResult<StoredView> {
        Ok(view::stored_view_since(&self.store, session, (anchor, seq))?)
    }

    /// Up to `limit` messages after `(anchor, seq)`: scrolling forward through a long session.
    pub fn newer_messages(
        &self,
        session: &str,
        anchor: i64,
        seq: i64,
        limit: u32,
    ) -> IpcResult<Vec<alisio_engine::view::StoredMessage>> {
        Ok(view::newer_messages(&self.store, session, (anchor, seq), limit as usize)?)
    }

    /// About `limit` messages around message `seq` (a jump to a message that is not loaded).
    pub fn messages_around(
        &self,
        session: &str,
        seq: i64,
        limit: u32,
    ) -> IpcResult<Vec<alisio_engine::view::StoredMessage>> {
        Ok(view::messages_around(&self.store, session, seq, limit as usize)?)
    }

    /// Up to `limit` messages before `(anchor, seq)`, to complete a long session's stored view.
    pub fn older_messages(
        &self,
        session: &str,
        anchor: i64,
        seq: i64,
        limit: u32,
    ) -> IpcResult<Vec<alisio_engine::view::StoredMessage>> {
        Ok(view::older_messages(&self.store, session, (anchor, seq), limit as usize)?)
    }

    /// Rows `offset..offset + limit` of the model view, with its totals.
    pub fn model_view_page(&self, session: &str, offset: u64, limit: u64) -> IpcResult<view::ModelViewPage> {
        let engine = self.engine();
        Ok(view::model_view_page(&self.store, engine.config(), session, offset, limit, &engine.mcp().tools())?)
    }

    /// Rebuilds exactly what a past request carried, from the records it names.
    pub fn past_request(&self, session: &str, call_id: i64) -> IpcResult<PastRequest> {
        let record = self.store.resolve_session(session)?;
        let call = self
            .store
            .model_calls(&record.id)?
            .into_iter()
            .find(|c| c.id == call_id)
            .ok_or_else(|| invalid(format!("no model call {call_id} in this session")))?;
        // The same rebuild as `alisio calls show` (with the API the call was sent to).
        let (_, wire, _) = alisio_engine::calls::request_messages(&self.store, &record.id, &call)?;
        Ok(PastRequest { call, messages: wire })
    }

    pub async fn context_meter(&self, session: &str) -> IpcResult<ContextMeter> {
        let engine = self.engine();
        let record = self.store.resolve_session(session)?;
        // The meter counts the MCP tools in force: their servers start with the first session shown.
        engine.mcp().start().await;
        let pressure = engine.pressure(&record)?;
        let window = engine.window().await;
        let (window_tokens, window_source) = match window {
            Some(w) => (Some(w.tokens), window_label(w.source)),
            None => (None, "unknown"),
        };
        let cache = engine.cache_strategy_active();
        Ok(ContextMeter {
            strategy: if cache { "cache".into() } else { "native".into() },
            window_source: if window_tokens.is_some_and(|w| w > WINDOW_TRUST_LIMIT) {
                format!("{window_source} (over 2,000,000: not trusted)")
            } else {
                window_source.to_string()
            },
            window_tokens,
            threshold: if cache {
                engine.config().cache_compact.threshold / 100.0
            } else {
                engine.config().compaction.threshold
            },
            max_context_chars: engine.config().limits.max_context_chars,
            reducible_chars: pressure.reducible_chars,
            tool_catalog_chars: pressure.tool_catalog_chars,
            estimated_tokens: pressure.request_tokens(),
        })
    }

    /// Every model call of the session, numbered 1..n in the order sent.
    pub fn call_list(&self, session: &str) -> IpcResult<Vec<alisio_engine::calls::CallSummary>> {
        Ok(alisio_engine::calls::list(&self.store, session)?)
    }

    /// Per call: prefix kept or broken against the previous call, and the cached tokens reported.
    pub async fn cache_report(&self, session: &str) -> IpcResult<Vec<alisio_engine::calls::CallCache>> {
        let store = self.store.clone();
        let session = session.to_string();
        tokio::task::spawn_blocking(move || Ok(alisio_engine::calls::cache_report(&store, &session)?))
            .await
            .map_err(|e| IpcError { code: ErrorCode::Failed, message: format!("the cache report failed: {e}") })?
    }

    /// Writes an exported chart (`svg` text, or `png` as base64) under `$ALISIO_HOME/exports/` and
    /// returns its path.
    pub fn export_chart(&self, session: &str, format: &str, data: &str) -> IpcResult<String> {
        let record = self.store.resolve_session(session)?;
        let bytes = match format {
            "svg" => data.as_bytes().to_vec(),
            "png" => {
                use base64::Engine as _;
                base64::engine::general_purpose::STANDARD
                    .decode(data.trim())
                    .map_err(|e| invalid(format!("the PNG data is not base64: {e}")))?
            }
            other => return Err(invalid(format!("cannot export a chart as {other:?}; use svg or png"))),
        };
        let path = self.home.join("exports").join(format!("{}-context.{format}", record.id));
        alisio_engine::export::write_file(&path, &bytes)?;
        Ok(path.display().to_string())
    }

    /// Export… on a session: `markdown` or `json` written to `path` (default:
    /// `$ALISIO_HOME/exports/<session>.<ext>`), or `otlp` sent to the configured endpoint; secrets
    /// redacted unless `redact` is off.
    pub async fn export_session(
        &self,
        session: &str,
        format: &str,
        path: Option<String>,
        redact: bool,
    ) -> IpcResult<ExportResult> {
        let record = self.store.resolve_session(session)?;
        let (exported, ext) = match format {
            "markdown" => (alisio_engine::export::markdown_export(&self.store, &record.id, redact)?, "md"),
            "json" => (alisio_engine::export::json_export(&self.store, &record.id, redact)?, "json"),
            "otlp" => {
                let config = self.engine().config().telemetry.otlp.clone();
                let report = alisio_engine::telemetry::export_session(&config, &self.store, &record.id, redact).await?;
                let redacted = if redact { format!("; {}", report.redactions.summary()) } else { String::new() };
                return Ok(ExportResult {
                    path: None,
                    summary: format!(
                        "Sent {} spans in {} traces to {}{redacted}",
                        report.spans, report.traces, report.endpoint
                    ),
                });
            }
            other => return Err(invalid(format!("cannot export as {other:?}; use markdown, json or otlp"))),
        };
        let path = match path.filter(|p| !p.trim().is_empty()) {
            Some(p) => PathBuf::from(p.trim()),
            None => self.home.join("exports").join(format!("{}.{ext}", record.id)),
        };
        alisio_engine::export::write_file(&path, exported.text.as_bytes())?;
        let summary = match &exported.redactions {
            Some(found) => format!("Wrote {}; {}", path.display(), found.summary()),
            None => format!("Wrote {} (not redacted)", path.display()),
        };
        Ok(ExportResult { path: Some(path.display().to_string()), summary })
    }

    /// Call `n`'s exact request (rebuilt) and the answer as received.
    pub fn call_detail(&self, session: &str, n: usize) -> IpcResult<alisio_engine::calls::CallDetail> {
        Ok(alisio_engine::calls::show(&self.store, session, n)?)
    }

    /// Request `n` against `against` (default `n − 1`), with a line diff of each changed message.
    pub async fn request_diff(&self, session: &str, n: usize, against: Option<usize>) -> IpcResult<RequestDiff> {
        let store = self.store.clone();
        let session = session.to_string();
        tokio::task::spawn_blocking(move || -> IpcResult<RequestDiff> {
            let diff = alisio_engine::calls::diff(&store, &session, n, against)?;
            let lines = diff
                .message_changes
                .iter()
                .filter(|c| c.change == "changed")
                .map(|c| MessageLines {
                    index: c.index as u32,
                    lines: diff::line_diff(c.before.as_deref().unwrap_or(""), c.after.as_deref().unwrap_or("")).0,
                })
                .collect();
            Ok(RequestDiff { diff, lines })
        })
        .await
        .map_err(|e| IpcError { code: ErrorCode::Failed, message: format!("the diff failed: {e}") })?
    }

    /// The original beside the reduced copy the model got (for a message cut by the reduction).
    pub async fn trimmed_diff(&self, session: &str, seq: i64) -> IpcResult<TrimmedDiff> {
        let record = self.store.resolve_session(session)?;
        let store = self.store.clone();
        tokio::task::spawn_blocking(move || -> IpcResult<TrimmedDiff> {
            let copy = store.messages_by_seq(&record.id, &[seq])?.pop().ok_or_else(|| invalid("no such message"))?;
            let Some(by) = copy.created_by.filter(|_| copy.truncated) else {
                return Err(invalid(format!("message {seq} was not trimmed")));
            };
            let original_seq: i64 = store.read(|conn| {
                Ok(conn.query_row(
                    "SELECT seq FROM messages WHERE session_id = ?1 AND compacted_by = ?2 AND anchor = ?3 ORDER BY seq DESC LIMIT 1",
                    (&record.id, by, copy.anchor),
                    |r| r.get(0),
                )?)
            })?;
            let original = store.messages_by_seq(&record.id, &[original_seq])?.pop().ok_or_else(|| invalid("original missing"))?;
            let (lines, beyond) = diff::line_diff(&original.content, &copy.content);
            let original_chars = original.content.chars().count() as u64;
            let reduced_chars = copy.content.chars().count() as u64;
            Ok(TrimmedDiff {
                seq,
                original_seq,
                tool_call_id: copy.tool_call_id,
                original_chars,
                reduced_chars,
                cut_chars: original_chars.saturating_sub(reduced_chars),
                beyond_window_chars: beyond,
                lines,
            })
        })
        .await
        .map_err(|e| IpcError { code: ErrorCode::Failed, message: format!("the diff task failed: {e}") })?
    }

    pub async fn compact(&self, request: CompactRequest) -> IpcResult<CompactOutcome> {
        let engine = self.engine();
        let session = self.store.resolve_session(&request.session)?;
        let emit = self.emit.clone();
        let sink = move |envelope: &Envelope| emit(UiEvent::Engine { envelope: envelope.clone() });
        let cancel = CancellationToken::new();
        Ok(engine
            .compact(&session, CompactionReason::Manual, request.focus.as_deref(), request.preview, &sink, &cancel)
            .await?)
    }

    pub fn apply_proposal(&self, session: &str, proposal: i64, edited: Option<String>) -> IpcResult<CompactOutcome> {
        let engine = self.engine();
        let session = self.store.resolve_session(session)?;
        let emit = self.emit.clone();
        let sink = move |envelope: &Envelope| emit(UiEvent::Engine { envelope: envelope.clone() });
        Ok(engine.apply_proposal(&session, proposal, edited.as_deref(), &sink)?)
    }

    pub fn discard_proposal(&self, session: &str, proposal: i64) -> IpcResult<()> {
        let session = self.store.resolve_session(session)?;
        Ok(self.store.discard_proposal(&session.id, proposal)?)
    }

    pub fn undo_compaction(&self, session: &str) -> IpcResult<Vec<i64>> {
        let engine = self.engine();
        let session = self.store.resolve_session(session)?;
        let emit = self.emit.clone();
        let sink = move |envelope: &Envelope| emit(UiEvent::Engine { envelope: envelope.clone() });
        Ok(engine.undo_compaction(&session, &sink)?)
    }

    /// By click: records each uncertain result as "result unknown"; re-runs nothing.
    pub fn acknowledge_uncertain(&self, session: &str) -> IpcResult<RecoverReport> {
        Ok(self.engine().recover(session)?)
    }

    /// Starts a turn in the background; progress arrives as events. Returns the session id.
    pub async fn run_turn(&self, session: Option<String>, prompt: String) -> IpcResult<String> {
        if prompt.trim().is_empty() {
            return Err(invalid("the prompt is empty"));
        }
        let engine = self.engine();
        let workspace = match &session {
            Some(id) => PathBuf::from(self.store.resolve_session(id)?.workspace),
            None => std::env::current_dir().map_err(|e| invalid(format!("no current directory: {e}")))?,
        };
        // The session id is known once the engine has created or resolved it: wait for that event.
        let (id_tx, id_rx) = oneshot::channel::<String>();
        let id_tx = Mutex::new(Some(id_tx));
        let emit = self.emit.clone();
        let live = self.live.clone();
        let cancel = CancellationToken::new();
        let turn_cancel = cancel.clone();
        tokio::spawn(async move {
            let session_id = Arc::new(Mutex::new(String::new()));
            let seen = session_id.clone();
            let live_for_sink = live.clone();
            let cancel_for_sink = turn_cancel.clone();
            let emit_for_sink = emit.clone();
            let sink = move |envelope: &Envelope| {
                if let alisio_engine::events::Event::Session { id } = &envelope.event {
                    *lock(&seen) = id.clone();
                    lock(&live_for_sink).turns.insert(id.clone(), cancel_for_sink.clone());
                    if let Some(tx) = lock(&id_tx).take() {
                        let _ = tx.send(id.clone());
                    }
                }
                emit_for_sink(UiEvent::Engine { envelope: envelope.clone() });
            };
            let approver: Arc<dyn Approver> =
                Arc::new(WindowApprover { session: session_id.clone(), live: live.clone(), emit: emit.clone() });
            let request = TurnRequest { session, prompt, workspace, approver };
            let result = engine.run_turn(request, &sink, &turn_cancel).await;
            let id = lock(&session_id).clone();
            lock(&live).turns.remove(&id);
            emit(UiEvent::TurnFinished { session: id, error: result.err().map(|e| e.to_string()) });
        });
        id_rx
            .await
            .map_err(|_| IpcError { code: ErrorCode::Failed, message: "the turn ended before it started".into() })
    }

    pub fn cancel_turn(&self, session: &str) -> bool {
        match lock(&self.live).turns.get(session) {
            Some(cancel) => {
                cancel.cancel();
                true
            }
            None => false,
        }
    }

    pub fn answer_permission(&self, id: u64, approve: bool) -> IpcResult<()> {
        let sender = lock(&self.live)
            .permissions
            .remove(&id)
            .ok_or_else(|| invalid(format!("no pending permission request {id}")))?;
        let _ = sender.send(approve);
        Ok(())
    }

    pub fn get_config(&self) -> IpcResult<ConfigDocument> {
        let path = self.home.join(CONFIG_FILE);
        let raw = match std::fs::read_to_string(&path) {
            Ok(text) => serde_json::from_str(&text)
                .map_err(|e| invalid(format!("{} is not valid JSON: {e}", path.display())))?,
            Err(_) => Value::Object(Default::default()),
        };
        let effective = serde_json::to_value(self.engine().config()).map_err(|e| invalid(e.to_string()))?;
        Ok(ConfigDocument { path: path.display().to_string(), raw, effective })
    }

    /// Validates like the CLI (naming the key and range), writes `config.json`, rebuilds the engine.
    /// The model servers answering on the usual local ports (llama.cpp 8080, Ollama 11434,
    /// LM Studio 1234, vLLM 8000), each with its models and window.
    pub async fn find_servers(&self) -> Vec<alisio_engine::provider::finder::FoundServer> {
        use alisio_engine::provider::finder::{find_servers, USUAL_PORTS};
        find_servers("127.0.0.1", &USUAL_PORTS, std::time::Duration::from_millis(1500)).await
    }

    pub fn save_config(&self, raw: Value) -> IpcResult<ConfigDocument> {
        config::from_value(&raw)?;
        let path = self.home.join(CONFIG_FILE);
        let text = serde_json::to_string_pretty(&raw).map_err(|e| invalid(e.to_string()))?;
        let tmp = path.with_extension("json.tmp");
        std::fs::write(&tmp, text + "\n").and_then(|()| std::fs::rename(&tmp, &path)).map_err(|e| IpcError {
            code: ErrorCode::Failed,
            message: format!("cannot write {}: {e}", path.display()),
        })?;
        let loaded = config::load(&self.home, self.overlay.as_deref())?;
        *lock(&self.engine) = Arc::new(Engine::new(loaded.config, self.store.clone())?);
        self.get_config()
    }

    /// `GET /models` with the given (unsaved) config.
    pub async fn test_connection(&self, raw: Value) -> IpcResult<ConnectionReport> {
        let config = config::from_value(&raw)?;
        let provider = alisio_engine::provider::Provider::new(&config.provider)?;
        let models = provider.list_models().await?;
        let ids = models
            .get("data")
            .and_then(Value::as_array)
            .map(|list| list.iter().filter_map(|m| m.get("id").and_then(Value::as_str).map(str::to_string)).collect())
            .unwrap_or_default();
        Ok(ConnectionReport {
            context_window: match config.provider.context_window {
                Some(window) => Some(window),
                None => provider.discover_window(Some(&models)).await.unwrap_or(None).map(|w| w.tokens),
            },
            base_url: config.provider.base_url,
            model: config.provider.model,
            models: ids,
        })
    }
}
