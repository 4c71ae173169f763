//! Tauri commands: each one calls the `Backend` function of the same name.

use alisio_engine::agent::RecoverReport;
use alisio_engine::compaction::CompactOutcome;
use alisio_engine::store::SessionSummary;
use alisio_engine::view::{StoredMessage, StoredView};
use alisio_ipc::{
    Backend, CompactRequest, ConfigDocument, ConnectionReport, ContextMeter, IpcResult, PastRequest, TrimmedDiff,
};
use serde_json::Value;
use tauri::State;

/// On a first start (no sessions yet) the engine produces the demo session; returns its id.
#[tauri::command]
pub async fn ensure_demo(backend: State<'_, Backend>) -> IpcResult<Option<String>> {
    backend.ensure_demo().await
}

#[tauri::command]
pub async fn list_sessions(backend: State<'_, Backend>) -> IpcResult<Vec<SessionSummary>> {
    backend.list_sessions()
}

#[tauri::command]
pub async fn stored_view(backend: State<'_, Backend>, session: String, limit: Option<u32>) -> IpcResult<StoredView> {
    backend.stored_view(&session, limit)
}

#[tauri::command]
pub async fn older_messages(
    backend: State<'_, Backend>,
    session: String,
    anchor: i64,
    seq: i64,
    limit: u32,
) -> IpcResult<Vec<StoredMessage>> {
    backend.older_messages(&session, anchor, seq, limit)
}

#[tauri::command]
pub async fn past_request(backend: State<'_, Backend>, session: String, call: i64) -> IpcResult<PastRequest> {
    backend.past_request(&session, call)
}

#[tauri::command]
pub async fn context_meter(backend: State<'_, Backend>, session: String) -> IpcResult<ContextMeter> {
    backend.context_meter(&session).await
}

#[tauri::command]
pub async fn trimmed_diff(backend: State<'_, Backend>, session: String, seq: i64) -> IpcResult<TrimmedDiff> {
    backend.trimmed_diff(&session, seq).await
}

#[tauri::command]
pub async fn compact(backend: State<'_, Backend>, request: CompactRequest) -> IpcResult<CompactOutcome> {
    backend.compact(request).await
}

#[tauri::command]
pub async fn apply_proposal(
    backend: State<'_, Backend>,
    session: String,
    proposal: i64,
    edited: Option<String>,
) -> IpcResult<CompactOutcome> {
    backend.apply_proposal(&session, proposal, edited)
}

#[tauri::command]
pub async fn discard_proposal(backend: State<'_, Backend>, session: String, proposal: i64) -> IpcResult<()> {
    backend.discard_proposal(&session, proposal)
}

#[tauri::command]
pub async fn undo_compaction(backend: State<'_, Backend>, session: String) -> IpcResult<Vec<i64>> {
    backend.undo_compaction(&session)
}

#[tauri::command]
pub async fn acknowledge_uncertain(backend: State<'_, Backend>, session: String) -> IpcResult<RecoverReport> {
    backend.acknowledge_uncertain(&session)
}

#[tauri::command]
pub async fn run_turn(backend: State<'_, Backend>, session: Option<String>, prompt: String) -> IpcResult<String> {
    backend.run_turn(session, prompt).await
}

#[tauri::command]
pub async fn cancel_turn(backend: State<'_, Backend>, session: String) -> IpcResult<bool> {
    Ok(backend.cancel_turn(&session))
}

#[tauri::command]
pub async fn answer_permission(backend: State<'_, Backend>, id: u64, approve: bool) -> IpcResult<()> {
    backend.answer_permission(id, approve)
}

#[tauri::command]
pub async fn get_config(backend: State<'_, Backend>) -> IpcResult<ConfigDocument> {
    backend.get_config()
}

#[tauri::command]
pub async fn save_config(backend: State<'_, Backend>, raw: Value) -> IpcResult<ConfigDocument> {
    backend.save_config(raw)
}

#[tauri::command]
pub async fn test_connection(backend: State<'_, Backend>, raw: Value) -> IpcResult<ConnectionReport> {
    backend.test_connection(raw).await
}

#[tauri::command]
pub async fn call_list(
    backend: State<'_, Backend>,
    session: String,
) -> IpcResult<Vec<alisio_engine::calls::CallSummary>> {
    backend.call_list(&session)
}

#[tauri::command]
pub async fn call_detail(
    backend: State<'_, Backend>,
    session: String,
    n: usize,
) -> IpcResult<alisio_engine::calls::CallDetail> {
    backend.call_detail(&session, n)
}

#[tauri::command]
pub async fn request_diff(
    backend: State<'_, Backend>,
    session: String,
    n: usize,
    against: Option<usize>,
) -> IpcResult<alisio_ipc::RequestDiff> {
    backend.request_diff(&session, n, against).await
}

#[tauri::command]
pub async fn cache_report(
    backend: State<'_, Backend>,
    session: String,
) -> IpcResult<Vec<alisio_engine::calls::CallCache>> {
    backend.cache_report(&session).await
}

#[tauri::command]
pub async fn export_session(
    backend: State<'_, Backend>,
    session: String,
    format: String,
    path: Option<String>,
    redact: bool,
) -> IpcResult<alisio_ipc::ExportResult> {
    backend.export_session(&session, &format, path, redact).await
}

#[tauri::command]
pub async fn export_chart(
    backend: State<'_, Backend>,
    session: String,
    format: String,
    data: String,
) -> IpcResult<String> {
    backend.export_chart(&session, &format, &data)
}

#[tauri::command]
pub async fn stored_view_since(
    backend: State<'_, Backend>,
    session: String,
    anchor: i64,
    seq: i64,
) -> IpcResult<StoredView> {
    backend.stored_view_since(&session, anchor, seq)
}

#[tauri::command]
pub async fn import_sources(backend: State<'_, Backend>) -> IpcResult<Vec<alisio_engine::import::SourceSummary>> {
    backend.import_sources().await
}

#[tauri::command]
pub async fn import_paths(backend: State<'_, Backend>, paths: Vec<String>) -> IpcResult<alisio_ipc::ImportOutcome> {
    backend.import_paths(paths).await
}

#[tauri::command]
pub async fn newer_messages(
    backend: State<'_, Backend>,
    session: String,
    anchor: i64,
    seq: i64,
    limit: u32,
) -> IpcResult<Vec<alisio_engine::view::StoredMessage>> {
    backend.newer_messages(&session, anchor, seq, limit)
}

#[tauri::command]
pub async fn messages_around(
    backend: State<'_, Backend>,
    session: String,
    seq: i64,
    limit: u32,
) -> IpcResult<Vec<alisio_engine::view::StoredMessage>> {
    backend.messages_around(&session, seq, limit)
}

#[tauri::command]
pub async fn model_view_page(
    backend: State<'_, Backend>,
    session: String,
    offset: u64,
    limit: u64,
) -> IpcResult<alisio_engine::view::ModelViewPage> {
    backend.model_view_page(&session, offset, limit)
}

#[tauri::command]
pub async fn find_servers(backend: State<'_, Backend>) -> IpcResult<Vec<alisio_engine::provider::finder::FoundServer>> {
    Ok(backend.find_servers().await)
}
