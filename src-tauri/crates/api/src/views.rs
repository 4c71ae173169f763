//! What a session shows: the stored transcript (paged), the model view (what the next request
//! carries), the context meter, and trimmed outputs beside their originals.

use alisio_engine::compaction::guard::ContextMeter;
use alisio_engine::view::{self, ModelView, ModelViewPage, StoredMessage, StoredView};
use serde::Deserialize;
use ts_rs::TS;

use crate::diff::{line_diff, TrimmedDiff};
use crate::error::{blocking, ApiResult};
use crate::sessions::SessionRequest;
use crate::App;

/// The stored view; with `limit`, only the newest `limit` messages (see [`older`]).
#[derive(Debug, Clone, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct StoredRequest {
    pub session: String,
    pub limit: Option<u32>,
}

/// A place in the transcript: `(anchor, seq)` of a message, and how many messages to fetch.
#[derive(Debug, Clone, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PageRequest {
    pub session: String,
    pub anchor: i64,
    pub seq: i64,
    pub limit: u32,
}

/// The messages after `(anchor, seq)`: what a running turn appended.
#[derive(Debug, Clone, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SinceRequest {
    pub session: String,
    pub anchor: i64,
    pub seq: i64,
}

#[derive(Debug, Clone, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct AroundRequest {
    pub session: String,
    pub seq: i64,
    pub limit: u32,
}

#[derive(Debug, Clone, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ModelPageRequest {
    pub session: String,
    pub offset: u64,
    pub limit: u64,
}

#[derive(Debug, Clone, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct MessageRequest {
    pub session: String,
    pub seq: i64,
}

/// Every stored message in order, compacted ones included (`sessions show`).
pub async fn stored(app: &App, request: StoredRequest) -> ApiResult<StoredView> {
    let session = app.session(&request.session)?;
    let store = app.store()?;
    let limit = request.limit.map(|l| l as usize);
    blocking("reading the session", move || Ok(view::stored_view_page(&store, &session, None, limit)?)).await
}

/// The stored view with only the messages after `(anchor, seq)`.
pub async fn since(app: &App, request: SinceRequest) -> ApiResult<StoredView> {
    let session = app.session(&request.session)?;
    Ok(view::stored_view_since(&*app.store()?, &session, (request.anchor, request.seq))?)
}

/// Up to `limit` messages before `(anchor, seq)`: scrolling back through a long session.
pub async fn older(app: &App, request: PageRequest) -> ApiResult<Vec<StoredMessage>> {
    let session = app.session(&request.session)?;
    let at = (request.anchor, request.seq);
    Ok(view::older_messages(&*app.store()?, &session, at, request.limit as usize)?)
}

/// Up to `limit` messages after `(anchor, seq)`: scrolling forward again.
pub async fn newer(app: &App, request: PageRequest) -> ApiResult<Vec<StoredMessage>> {
    let session = app.session(&request.session)?;
    let at = (request.anchor, request.seq);
    Ok(view::newer_messages(&*app.store()?, &session, at, request.limit as usize)?)
}

/// About `limit` messages around message `seq` (a jump to a message that is not loaded).
pub async fn around(app: &App, request: AroundRequest) -> ApiResult<Vec<StoredMessage>> {
    let session = app.session(&request.session)?;
    Ok(view::messages_around(&*app.store()?, &session, request.seq, request.limit as usize)?)
}

/// Exactly what the next request carries (`sessions show --view model`). The MCP tools in force
/// are part of it: for Alisio's own sessions their servers are asked for them.
pub async fn model(app: &App, request: SessionRequest) -> ApiResult<ModelView> {
    let session = app.session(&request.session)?;
    let engine = app.engine()?;
    if session.source.is_none() {
        engine.mcp().start().await;
        // Failures were logged as the servers started; their tools are simply not in the view.
        engine.mcp().take_failures();
    }
    let tools = engine.mcp().tools();
    let window = catalog_window(&engine, &tools).await;
    Ok(view::model_view(engine.store(), engine.config(), &session, &tools, window)?)
}

/// Rows `offset..offset + limit` of the model view, with its totals.
pub async fn model_page(app: &App, request: ModelPageRequest) -> ApiResult<ModelViewPage> {
    let session = app.session(&request.session)?;
    let engine = app.engine()?;
    let tools = engine.mcp().tools();
    let window = catalog_window(&engine, &tools).await;
    let (offset, limit) = (request.offset, request.limit);
    Ok(view::model_view_page(engine.store(), engine.config(), &session, offset, limit, &tools, window)?)
}

/// The window the MCP catalog's budget follows; with no MCP tool, nothing to ask the server.
async fn catalog_window(engine: &alisio_engine::agent::Engine, tools: &[alisio_engine::mcp::McpTool]) -> Option<u64> {
    if tools.is_empty() {
        return None;
    }
    engine.window().await.map(|w| w.tokens)
}

/// The original beside the reduced copy the model got (a message cut by the context budget).
pub async fn trimmed_diff(app: &App, request: MessageRequest) -> ApiResult<TrimmedDiff> {
    let session = app.session(&request.session)?;
    let store = app.store()?;
    blocking("diffing the trimmed output", move || {
        let (original, copy) = view::trimmed_pair(&store, &session, request.seq)?;
        let (lines, beyond) = line_diff(&original.content, &copy.content);
        let original_chars = original.content.chars().count() as u64;
        let reduced_chars = copy.content.chars().count() as u64;
        Ok(TrimmedDiff {
            seq: copy.seq,
            original_seq: original.seq,
            tool_call_id: copy.tool_call_id,
            original_chars,
            reduced_chars,
            cut_chars: original_chars.saturating_sub(reduced_chars),
            beyond_window_chars: beyond,
            lines,
        })
    })
    .await
}

/// The next request's size against the window in force and the limits, as the engine measures it.
pub async fn context_meter(app: &App, request: SessionRequest) -> ApiResult<ContextMeter> {
    let session = app.session(&request.session)?;
    let engine = app.engine()?;
    // The meter counts the MCP tools in force: their servers start with the first session shown.
    engine.mcp().start().await;
    Ok(engine.context_meter(&session).await?)
}
