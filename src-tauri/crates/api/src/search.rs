//! Full-text search over every stored message (`alisio search`, the window's Ctrl+K).

use alisio_engine::import::agents::Source;
use alisio_engine::store::search::{SearchFilter, SearchResult};
use serde::Deserialize;
use ts_rs::TS;

use crate::error::{blocking, ApiResult};
use crate::App;

/// The most hits one search returns unless told otherwise.
const DEFAULT_LIMIT: usize = 50;

#[derive(Debug, Clone, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SearchRequest {
    /// FTS5 syntax: words, "phrases", prefix*, AND / OR / NOT.
    pub query: String,
    pub source: Option<Source>,
    pub project: Option<String>,
    pub limit: Option<usize>,
}

/// Messages matching the query, best first, with snippets and the total count.
pub async fn messages(app: &App, request: SearchRequest) -> ApiResult<SearchResult> {
    let store = app.store()?;
    let filter = SearchFilter {
        source: request.source.map(|s| s.as_str().to_string()),
        project: request.project,
        limit: request.limit.unwrap_or(DEFAULT_LIMIT).clamp(1, 10_000),
    };
    blocking("the search", move || Ok(store.search(&request.query, &filter)?)).await
}
