//! Compacting by hand: now (with a focus), as a proposal to edit and apply or discard, undo; and
//! what a checkpoint kept — checked without a model (lint) or asked of it (probe).

use alisio_engine::compaction::probe::ProbeReport;
use alisio_engine::compaction::{CompactOutcome, ManualCompaction, StrategyPreview};
use alisio_engine::config::Strategy;
use alisio_engine::view::{self, LintReport};
use serde::Deserialize;
use ts_rs::TS;

use crate::error::{ApiError, ApiResult};
use crate::sessions::SessionRequest;
use crate::App;

#[derive(Debug, Clone, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct CompactRequest {
    pub session: String,
    pub focus: Option<String>,
    /// Store a proposed checkpoint and hide nothing.
    pub preview: bool,
    /// `native`, `cache`, `mask` or `hybrid`; none: `compaction.strategy` (by hand, `cache` summarizes natively).
    #[serde(default)]
    #[ts(optional)]
    pub strategy: Option<Strategy>,
}

#[derive(Debug, Clone, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ApplyProposal {
    pub session: String,
    pub proposal: i64,
    /// The checkpoint as edited: JSON with the seven sections, or plain text.
    pub edited: Option<String>,
}

#[derive(Debug, Clone, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ProposalRequest {
    pub session: String,
    pub proposal: i64,
}

/// A checkpoint record by id; none: the newest.
#[derive(Debug, Clone, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct CheckpointRequest {
    pub session: String,
    pub checkpoint: Option<i64>,
}

/// Compacts now (`alisio compact`, Compact…); a failed summary is an outcome, not an error.
pub async fn compact(app: &App, request: CompactRequest) -> ApiResult<CompactOutcome> {
    let session = app.session(&request.session)?;
    let engine = app.engine()?;
    let (sink, cancel) = (app.sink(), app.operation());
    let manual =
        ManualCompaction { focus: request.focus.as_deref(), preview: request.preview, strategy: request.strategy };
    Ok(engine.compact(&session, &manual, &sink, &cancel).await?)
}

/// What each strategy would make of the next request (`alisio compact plan`, the compaction
/// dialog); nothing is applied and no model is asked.
pub async fn strategies(app: &App, request: SessionRequest) -> ApiResult<Vec<StrategyPreview>> {
    let session = app.session(&request.session)?;
    Ok(app.engine()?.strategy_previews(&session).await?)
}

pub async fn apply(app: &App, request: ApplyProposal) -> ApiResult<CompactOutcome> {
    let session = app.session(&request.session)?;
    let sink = app.sink();
    Ok(app.engine()?.apply_proposal(&session, request.proposal, request.edited.as_deref(), &sink)?)
}

pub async fn discard(app: &App, request: ProposalRequest) -> ApiResult<()> {
    let session = app.session(&request.session)?;
    Ok(app.store()?.discard_proposal(&session.id, request.proposal)?)
}

/// Reverts the newest compaction exactly; returns the reverted record ids.
pub async fn undo(app: &App, request: SessionRequest) -> ApiResult<Vec<i64>> {
    let session = app.session(&request.session)?;
    let sink = app.sink();
    Ok(app.engine()?.undo_compaction(&session, &sink)?)
}

/// What a checkpoint kept of the history it replaced; no model is asked (`compact --lint`).
pub async fn lint(app: &App, request: CheckpointRequest) -> ApiResult<LintReport> {
    let session = app.session(&request.session)?;
    Ok(view::lint_compaction(&*app.store()?, &session, request.checkpoint)?)
}

/// The model answers fixed questions over the full history and the compacted view (`compact --probe`).
pub async fn probe(app: &App, request: CheckpointRequest) -> ApiResult<ProbeReport> {
    let session = app.session(&request.session)?;
    let engine = app.engine()?;
    let (sink, cancel) = (app.sink(), app.operation());
    engine.probe_compaction(&session, request.checkpoint, &sink, &cancel).await.map_err(ApiError::from)
}
