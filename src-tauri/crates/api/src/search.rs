//! Full-text search over every stored message (`alisio search`, the window's Ctrl+K).

use alisio_engine::import::agents::Source;
use alisio_engine::store::search::{SearchFilter, SearchResult};
use serde::Deserialize;
use ts_rs::TS;

use crate::error::{blocking, ApiError, ApiResult};
use crate::App;

/// The most hits one search returns unless told otherwise.
const DEFAULT_LIMIT: usize = 50;

#[derive(Debug, Clone, Default, Deserialize, TS)]
#[serde(rename_all = "camelCase", default)]
pub struct SearchRequest {
    /// Plain text (every token matched literally, in any order), or FTS5 syntax with `fts`.
    pub query: String,
    #[ts(optional)]
    pub source: Option<Source>,
    #[ts(optional)]
    pub project: Option<String>,
    #[ts(optional)]
    pub limit: Option<usize>,
    /// The query is FTS5 syntax: words, "phrases", prefix*, AND / OR / NOT.
    #[ts(optional)]
    pub fts: Option<bool>,
    /// Plain text: the last token also matches the words it begins (search as you type).
    #[ts(optional)]
    pub prefix: Option<bool>,
    /// `user`, `assistant`, `tool` or `summary`.
    #[ts(optional)]
    pub role: Option<String>,
    /// Messages calling this tool, and their results.
    #[ts(optional)]
    pub tool: Option<String>,
    /// Inside this session (an id or a unique prefix).
    #[ts(optional)]
    pub session: Option<String>,
    /// `YYYY-MM-DD`: messages from that day on.
    #[ts(optional)]
    pub since: Option<String>,
    /// `YYYY-MM-DD`: messages up to the end of that day.
    #[ts(optional)]
    pub until: Option<String>,
}

/// A `YYYY-MM-DD` bound, checked; `after`: the next day (an inclusive `--until`).
fn day(text: Option<String>, what: &str, after: bool) -> ApiResult<Option<String>> {
    use alisio_engine::cost::book::{day_or_today, next_day};
    let Some(text) = text else { return Ok(None) };
    let day = day_or_today(Some(&text), what)?;
    Ok(Some(if after { next_day(&day) } else { day }))
}

/// Messages matching the query, best first, with snippets and the total count.
pub async fn messages(app: &App, request: SearchRequest) -> ApiResult<SearchResult> {
    let store = app.store()?;
    let session = match &request.session {
        Some(id) => Some(app.session(id)?.id.to_string()),
        None => None,
    };
    let role = match request.role.as_deref() {
        None | Some("user" | "assistant" | "tool" | "summary") => request.role.clone(),
        Some(other) => {
            return Err(ApiError::invalid(format!("--role must be user, assistant, tool or summary, not {other:?}")))
        }
    };
    let filter = SearchFilter {
        source: request.source.map(|s| s.as_str().to_string()),
        project: request.project,
        session,
        role,
        tool: request.tool,
        since: day(request.since, "--since", false)?,
        until: day(request.until, "--until", true)?,
        limit: request.limit.unwrap_or(DEFAULT_LIMIT).clamp(1, 10_000),
    };
    let query = match request.fts.unwrap_or(false) {
        true => request.query,
        false => match alisio_engine::store::search::plain_query(&request.query, request.prefix.unwrap_or(false)) {
            Some(query) => query,
            // Only punctuation: no word to look for, nothing found (plain text never fails).
            None => return Ok(SearchResult { hits: Vec::new(), total: 0 }),
        },
    };
    blocking("the search", move || Ok(store.search(&query, &filter)?)).await
}
