//! The model-call ledger: every request rebuilt exactly, compared with another, sent again.

use alisio_engine::calls::rereads::Rereads;
use alisio_engine::calls::{
    self, CacheBreak, CallCache, CallComposition, CallDetail, CallDiff, CallSummary, CompactionCost, ReplayReport,
};
use alisio_engine::provider::wire::WireItem;
use alisio_engine::store::ModelCallRecord;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::diff::{line_diff, DiffLine};
use crate::error::{blocking, ApiError, ApiResult};
use crate::sessions::SessionRequest;
use crate::App;

/// Call `n` of a session (numbered `1..n` in the order sent).
#[derive(Debug, Clone, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct CallRequest {
    pub session: String,
    pub n: usize,
}

/// Call `n` against call `against` (default `n − 1`).
#[derive(Debug, Clone, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct DiffRequest {
    pub session: String,
    pub n: usize,
    pub against: Option<usize>,
}

/// A ledger row by its stored id.
#[derive(Debug, Clone, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct LedgerRowRequest {
    pub session: String,
    pub call: i64,
}

/// A request diff: the comparison (`calls diff`) and a line diff of each changed message.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct RequestDiff {
    pub diff: CallDiff,
    pub lines: Vec<MessageLines>,
}

#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct MessageLines {
    pub index: u32,
    pub lines: Vec<DiffLine>,
}

/// A past request rebuilt from the ledger: its row and the messages it carried.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PastRequest {
    pub call: ModelCallRecord,
    pub messages: Vec<WireItem>,
}

/// Every model call of the session (`calls list`).
pub async fn list(app: &App, request: SessionRequest) -> ApiResult<Vec<CallSummary>> {
    let session = app.session(&request.session)?;
    Ok(calls::list(&*app.store()?, &session, &app.forensics()?)?)
}

/// Per checkpoint: its summary's cost, and what it would have cost as a rebuilt prompt.
pub async fn compaction_costs(app: &App, request: SessionRequest) -> ApiResult<Vec<CompactionCost>> {
    let session = app.session(&request.session)?;
    let store = app.store()?;
    let forensics = app.forensics()?;
    blocking("the compactions' costs", move || Ok(calls::breaks::compaction_costs(&store, &session, &forensics)?)).await
}

/// The files and commands fetched again after a compaction hid them (`calls rereads`).
pub async fn rereads(app: &App, request: SessionRequest) -> ApiResult<Rereads> {
    let session = app.session(&request.session)?;
    let store = app.store()?;
    let forensics = app.forensics()?;
    blocking("the re-reads", move || Ok(calls::rereads::rereads(&store, &session, &forensics)?)).await
}

/// Every cache break and miss of the session, with its cause and what it cost (`calls breaks`).
pub async fn breaks(app: &App, request: SessionRequest) -> ApiResult<Vec<CacheBreak>> {
    let session = app.session(&request.session)?;
    let store = app.store()?;
    let forensics = app.forensics()?;
    blocking("the cache breaks", move || Ok(calls::breaks::breaks(&store, &session, &forensics)?)).await
}

/// Call `n`'s exact request (rebuilt) and the answer as received (`calls show`).
pub async fn show(app: &App, request: CallRequest) -> ApiResult<CallDetail> {
    let session = app.session(&request.session)?;
    Ok(calls::show(&*app.store()?, &session, request.n)?)
}

/// Request `n` against `against` (`calls diff`), with a line diff of each changed message.
pub async fn diff(app: &App, request: DiffRequest) -> ApiResult<RequestDiff> {
    let session = app.session(&request.session)?;
    let store = app.store()?;
    let forensics = app.forensics()?;
    blocking("the diff", move || {
        let diff = calls::diff(&store, &session, request.n, request.against, &forensics)?;
        let lines = diff
            .message_changes
            .iter()
            .filter(|c| c.change == "changed")
            .map(|c| MessageLines {
                index: c.index as u32,
                lines: line_diff(c.before.as_deref().unwrap_or(""), c.after.as_deref().unwrap_or("")).0,
            })
            .collect();
        Ok(RequestDiff { diff, lines })
    })
    .await
}

/// Sends call `n`'s exact request again to the provider in force (`calls replay`).
pub async fn replay(app: &App, request: CallRequest) -> ApiResult<ReplayReport> {
    let session = app.session(&request.session)?;
    let engine = app.engine()?;
    Ok(engine.replay_call(&session, request.n, &app.operation()).await?)
}

/// Per call: prefix kept or broken against the previous call, and the cached tokens reported.
pub async fn cache_report(app: &App, request: SessionRequest) -> ApiResult<Vec<CallCache>> {
    let session = app.session(&request.session)?;
    let store = app.store()?;
    blocking("the cache report", move || Ok(calls::cache_report(&store, &session)?)).await
}

/// What each request of the session was made of, with compactions and cache breaks (the
/// Requests pane's chart; `calls composition`).
pub async fn compositions(app: &App, request: SessionRequest) -> ApiResult<Vec<CallComposition>> {
    let session = app.session(&request.session)?;
    let store = app.store()?;
    blocking("the compositions", move || Ok(calls::compositions(&store, &session)?)).await
}

/// Exactly what a past request carried, rebuilt from the records it names.
pub async fn past_request(app: &App, request: LedgerRowRequest) -> ApiResult<PastRequest> {
    let session = app.session(&request.session)?;
    let store = app.store()?;
    let call = store
        .model_calls(&session.id)?
        .into_iter()
        .find(|c| c.id == request.call)
        .ok_or_else(|| ApiError::invalid(format!("no model call {} in this session", request.call)))?;
    // The same rebuild as `calls show` (with the API the call was sent to).
    let (_, messages, _) = calls::request_messages(&store, &session.id, session.source, &call)?;
    Ok(PastRequest { call, messages })
}
