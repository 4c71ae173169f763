//! Ledger rows of imported calls: what a row holds, inserting it, and the later record's figures
//! replacing the first's.

use rusqlite::params;
use serde_json::Value;

use super::super::{Purpose, RequestSource, SessionId, Tx, WireApi};
use crate::error::Result;

/// What a ledger row of an imported call holds.
#[derive(Debug, Clone)]
pub struct Usage {
    pub purpose: Purpose,
    pub api: WireApi,
    pub model: String,
    pub prompt_tokens: Option<u64>,
    pub cached_tokens: Option<u64>,
    /// Input written to the prompt cache (Claude Code's `cache_creation_input_tokens`).
    pub cache_write_tokens: Option<u64>,
    /// The part of `cache_write_tokens` written to a 1-hour cache.
    pub cache_write_1h_tokens: Option<u64>,
    /// What the agent recorded the call cost, in picodollars.
    pub recorded_cost_pd: Option<i64>,
    /// Requests the row stands for (several where the agent recorded only their total).
    pub requests: u64,
    /// The service tier it was billed at (`batch`, `flex`, `priority`), when not the standard one.
    pub service_tier: Option<String>,
    /// The reason the agent recorded for a cache miss, when it did.
    pub agent_cache_reason: Option<String>,
    pub completion_tokens: Option<u64>,
    pub duration_ms: Option<u64>,
    pub ttft_ms: Option<u64>,
    pub finish_reason: Option<String>,
    pub response_seq: Option<i64>,
    pub response: Option<Value>,
    pub started_at: String,
    /// Where the request body comes from (default: rebuilt from the records).
    pub request_source: RequestSource,
    /// What the agent recorded of the request (see `RequestSource::AgentLog`).
    pub request_ref: Option<Value>,
}

impl Usage {
    /// A row of `purpose` sent with `api`, nothing else known yet.
    pub fn new(purpose: Purpose, api: WireApi) -> Self {
        Usage {
            purpose,
            api,
            model: String::new(),
            prompt_tokens: None,
            cached_tokens: None,
            cache_write_tokens: None,
            cache_write_1h_tokens: None,
            recorded_cost_pd: None,
            service_tier: None,
            requests: 1,
            agent_cache_reason: None,
            completion_tokens: None,
            duration_ms: None,
            ttft_ms: None,
            finish_reason: None,
            response_seq: None,
            response: None,
            started_at: String::new(),
            request_source: RequestSource::Reconstructed,
            request_ref: None,
        }
    }
}

/// The request a ledger row rebuilds: the seq ranges of the view at the time and their size.
#[derive(Debug, Clone, Copy)]
pub struct RequestShape<'a> {
    pub ranges: &'a [[i64; 2]],
    pub chars: u64,
}

/// A ledger row for a call the agent made: the request is rebuilt from `request`'s ranges.
pub fn insert_call(tx: &Tx<'_>, session: &SessionId, request: RequestShape<'_>, usage: &Usage) -> Result<i64> {
    let mut stmt = tx.conn().prepare_cached(
        "INSERT INTO model_calls (session_id, purpose, api, model, system_prompt, message_ranges, params,
             tool_catalog_chars, request_chars, estimated_tokens, prompt_tokens, cached_tokens,
             completion_tokens, ttft_ms, duration_ms, finish_reason, response_seq, response, started_at,
             request_source, request_ref, cache_write_tokens, agent_cache_reason, cache_write_1h_tokens,
             recorded_cost_pd, requests, service_tier)
         VALUES (?1, ?2, ?3, ?4, '', ?5, ?6, 0, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21,
                 ?22, ?23, ?24, ?25)",
    )?;
    stmt.execute(params![
        session,
        usage.purpose,
        usage.api,
        usage.model,
        serde_json::to_string(request.ranges)?,
        serde_json::json!({"reconstructed": true}).to_string(),
        request.chars as i64,
        crate::transcript::estimate_tokens(request.chars) as i64,
        usage.prompt_tokens.map(|v| v as i64),
        usage.cached_tokens.map(|v| v as i64),
        usage.completion_tokens.map(|v| v as i64),
        usage.ttft_ms.map(|v| v as i64),
        usage.duration_ms.map(|v| v as i64),
        usage.finish_reason,
        usage.response_seq,
        usage.response.as_ref().map(Value::to_string),
        usage.started_at,
        usage.request_source,
        usage.request_ref.as_ref().map(Value::to_string),
        usage.cache_write_tokens.map(|v| v as i64),
        usage.agent_cache_reason,
        usage.cache_write_1h_tokens.map(|v| v as i64),
        usage.recorded_cost_pd,
        usage.requests.max(1) as i64,
        usage.service_tier,
    ])?;
    Ok(tx.conn().last_insert_rowid())
}

/// Replaces the figures of ledger row `call` with a later record's of the same response (an
/// agent that writes one response over several records, the final figures on the last).
pub fn update_call_usage(tx: &Tx<'_>, call: i64, usage: &Usage) -> Result<()> {
    tx.conn()
        .prepare_cached(
            "UPDATE model_calls SET prompt_tokens = ?2, cached_tokens = ?3, completion_tokens = ?4,
                 finish_reason = coalesce(?5, finish_reason), cache_write_tokens = ?6, cache_write_1h_tokens = ?7,
                 recorded_cost_pd = coalesce(?8, recorded_cost_pd), service_tier = coalesce(?9, service_tier)
             WHERE id = ?1",
        )?
        .execute(params![
            call,
            usage.prompt_tokens.map(|v| v as i64),
            usage.cached_tokens.map(|v| v as i64),
            usage.completion_tokens.map(|v| v as i64),
            usage.finish_reason,
            usage.cache_write_tokens.map(|v| v as i64),
            usage.cache_write_1h_tokens.map(|v| v as i64),
            usage.recorded_cost_pd,
            usage.service_tier,
        ])?;
    Ok(())
}

/// The whole session's cost as the agent recorded it (picodollars), replacing an earlier figure.
pub fn set_recorded_cost(tx: &Tx<'_>, session: &SessionId, picodollars: i64) -> Result<()> {
    tx.conn().execute("UPDATE sessions SET recorded_cost_pd = ?2 WHERE id = ?1", params![session, picodollars])?;
    Ok(())
}
