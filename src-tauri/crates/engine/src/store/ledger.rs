//! The model-call ledger (one row per request, with the records that formed it and what the server
//! reported) and the per-session event log.

use rusqlite::{params, OptionalExtension, Row};
use serde::Serialize;

use super::sessions::SourceKind;
use super::{SessionId, Store};
use crate::config::Api;
use crate::error::Result;
use crate::events::Envelope;

/// Why a request was sent; stored in the ledger as `purpose`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, strum::IntoStaticStr, strum::EnumString, strum::Display)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
pub enum Purpose {
    Turn,
    Compaction,
    CacheSummary,
    /// A past request sent again (`alisio calls replay`); never part of the transcript.
    Replay,
    /// A question about a checkpoint (`alisio compact --probe`); never part of the transcript.
    Probe,
    /// A call an imported agent made beside its turns (a title, a classification, a check).
    Side,
}

impl Purpose {
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// The wire API a call was sent with (`api` in the ledger): what its body looks like.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, strum::IntoStaticStr, strum::EnumString, strum::Display)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
#[strum(serialize_all = "lowercase")]
pub enum WireApi {
    /// OpenAI Chat Completions.
    Chat,
    /// OpenAI Responses.
    Responses,
    /// Anthropic Messages (Claude Code's calls).
    Messages,
}

impl From<Api> for WireApi {
    fn from(api: Api) -> Self {
        match api {
            Api::Chat => WireApi::Chat,
            Api::Responses => WireApi::Responses,
            Api::Anthropic => WireApi::Messages,
        }
    }
}

/// Where a ledger row's request body comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, strum::IntoStaticStr, strum::EnumString, strum::Display)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "kebab-case")]
#[strum(serialize_all = "kebab-case")]
pub enum RequestSource {
    /// Sent by Alisio itself.
    Alisio,
    /// The agent recorded the request it sent (Claude Code's `api-request` records).
    AgentLog,
    /// Captured on the wire by `alisio proxy`.
    Proxy,
    /// Rebuilt from the session's records; what the agent did not record is listed as missing.
    Reconstructed,
}

impl RequestSource {
    /// Whether the body shown is the one that was sent.
    pub fn exact(self) -> bool {
        self != RequestSource::Reconstructed
    }
}

/// A text column that holds one of an enum's names: written as the name, read back strictly (a
/// name the engine does not know is an error, never a silent default).
macro_rules! text_column {
    ($($ty:ty),*) => {$(
        impl rusqlite::ToSql for $ty {
            fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
                let name: &'static str = (*self).into();
                Ok(rusqlite::types::ToSqlOutput::from(name))
            }
        }

        impl rusqlite::types::FromSql for $ty {
            fn column_result(value: rusqlite::types::ValueRef<'_>) -> rusqlite::types::FromSqlResult<Self> {
                let text = value.as_str()?;
                text.parse().map_err(|_| rusqlite::types::FromSqlError::Other(format!("unknown value {text:?}").into()))
            }
        }
    )*};
}

text_column!(Purpose, WireApi, SourceKind, RequestSource);

/// What is known about a request before it is sent.
#[derive(Debug, Clone)]
pub struct ModelCallStart<'a> {
    pub session: &'a str,
    pub purpose: Purpose,
    pub api: WireApi,
    pub model: &'a str,
    pub system_prompt: &'a str,
    pub message_ranges: &'a [[i64; 2]],
    pub params: &'a serde_json::Value,
    /// The request's `tools` when they were not the built-in catalog alone.
    pub tools: Option<&'a serde_json::Value>,
    pub tool_catalog_chars: u64,
    pub request_chars: u64,
    pub estimated_tokens: u64,
    pub started_at: &'a str,
}

/// What the server reported (or the error) once the request ended.
#[derive(Debug, Clone, Default)]
pub struct ModelCallUpdate {
    pub prompt_tokens: Option<u64>,
    pub cached_tokens: Option<u64>,
    /// Input written to the prompt cache (Anthropic's cache creation).
    pub cache_write_tokens: Option<u64>,
    pub completion_tokens: Option<u64>,
    pub prompt_ms: Option<f64>,
    pub ttft_ms: Option<u64>,
    pub duration_ms: u64,
    pub finish_reason: Option<String>,
    pub error: Option<String>,
    pub response_seq: Option<i64>,
    /// The answer as received, as JSON.
    pub response: Option<serde_json::Value>,
    /// Why the server says its prompt cache missed (Anthropic's cache diagnostics), kept where an
    /// imported call keeps the reason its agent recorded.
    pub cache_miss_reason: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ModelCallRecord {
    pub id: i64,
    pub purpose: Purpose,
    pub api: WireApi,
    pub model: String,
    pub message_ranges: serde_json::Value,
    pub params: serde_json::Value,
    pub tool_catalog_chars: u64,
    pub request_chars: u64,
    pub estimated_tokens: u64,
    pub prompt_tokens: Option<u64>,
    pub cached_tokens: Option<u64>,
    pub completion_tokens: Option<u64>,
    pub prompt_ms: Option<f64>,
    pub ttft_ms: Option<u64>,
    pub duration_ms: Option<u64>,
    pub finish_reason: Option<String>,
    pub error: Option<String>,
    pub response_seq: Option<i64>,
    pub started_at: String,
    /// Where its request body comes from.
    pub request_source: RequestSource,
    /// Input written to the prompt cache (priced apart from input and cache reads).
    pub cache_write_tokens: Option<u64>,
    /// The reason the agent itself recorded for a cache miss (Claude Code's `cache_miss_reason`).
    pub agent_cache_reason: Option<String>,
    /// The part of `cache_write_tokens` written to a 1-hour cache.
    pub cache_write_1h_tokens: Option<u64>,
    /// What the agent itself recorded this call cost, in picodollars.
    pub recorded_cost_pd: Option<i64>,
    /// Requests the row stands for: 1, or several an agent recorded only as a total.
    pub requests: u64,
    /// Parts the agent's request log names but never wrote: its body cannot be whole.
    pub request_gaps: u64,
    /// The service tier it was billed at (`batch`, `flex`, `priority`), when not the standard one.
    pub service_tier: Option<String>,
}

impl ModelCallRecord {
    /// Whether the body shown is the one sent, whole.
    pub fn exact(&self) -> bool {
        self.request_source.exact() && self.request_gaps == 0
    }
}

fn params_say_reconstructed(params: rusqlite::types::ValueRef<'_>) -> bool {
    params.as_str().is_ok_and(|p| p.contains("\"reconstructed\":true"))
}

fn record_from_row(row: &Row<'_>) -> rusqlite::Result<ModelCallRecord> {
    let json = |i: usize| -> rusqlite::Result<serde_json::Value> {
        let text: String = row.get(i)?;
        serde_json::from_str(&text)
            .map_err(|e| rusqlite::Error::FromSqlConversionFailure(i, rusqlite::types::Type::Text, e.into()))
    };
    Ok(ModelCallRecord {
        id: row.get(0)?,
        purpose: row.get(1)?,
        api: row.get(2)?,
        model: row.get(3)?,
        message_ranges: json(4)?,
        params: json(5)?,
        tool_catalog_chars: row.get(6)?,
        request_chars: row.get(7)?,
        estimated_tokens: row.get(8)?,
        prompt_tokens: row.get(9)?,
        cached_tokens: row.get(10)?,
        completion_tokens: row.get(11)?,
        prompt_ms: row.get(12)?,
        ttft_ms: row.get(13)?,
        duration_ms: row.get(14)?,
        finish_reason: row.get(15)?,
        error: row.get(16)?,
        response_seq: row.get(17)?,
        started_at: row.get(18)?,
        request_source: match row.get::<_, Option<RequestSource>>(19)? {
            Some(source) => source,
            // Rows from before sources were recorded: Alisio's own, or rebuilt from an import.
            None if params_say_reconstructed(row.get_ref(5)?) => RequestSource::Reconstructed,
            None => RequestSource::Alisio,
        },
        cache_write_tokens: row.get(20)?,
        agent_cache_reason: row.get(21)?,
        cache_write_1h_tokens: row.get(22)?,
        recorded_cost_pd: row.get(23)?,
        requests: row.get(24)?,
        request_gaps: row.get(25)?,
        service_tier: row.get(26)?,
    })
}

impl Store {
    pub fn insert_model_call(&self, call: &ModelCallStart<'_>) -> Result<i64> {
        self.write(|tx| {
            tx.conn().execute(
                "INSERT INTO model_calls (session_id, purpose, api, model, system_prompt, message_ranges, params,
                     tool_catalog_chars, request_chars, estimated_tokens, started_at, tools, request_source)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, 'alisio')",
                params![
                    call.session,
                    call.purpose,
                    call.api,
                    call.model,
                    call.system_prompt,
                    serde_json::to_string(call.message_ranges)?,
                    serde_json::to_string(call.params)?,
                    call.tool_catalog_chars as i64,
                    call.request_chars as i64,
                    call.estimated_tokens as i64,
                    call.started_at,
                    call.tools.map(|t| t.to_string()),
                ],
            )?;
            Ok(tx.conn().last_insert_rowid())
        })
    }

    pub fn finish_model_call(&self, id: i64, update: &ModelCallUpdate) -> Result<()> {
        self.write(|tx| {
            tx.conn().execute(
                "UPDATE model_calls SET prompt_tokens = ?2, cached_tokens = ?3, completion_tokens = ?4, prompt_ms = ?5,
                     ttft_ms = ?6, duration_ms = ?7, finish_reason = ?8, error = ?9, response_seq = ?10, response = ?11,
                     cache_write_tokens = ?12, agent_cache_reason = coalesce(?13, agent_cache_reason)
                 WHERE id = ?1",
                params![
                    id,
                    update.prompt_tokens.map(|v| v as i64),
                    update.cached_tokens.map(|v| v as i64),
                    update.completion_tokens.map(|v| v as i64),
                    update.prompt_ms,
                    update.ttft_ms.map(|v| v as i64),
                    update.duration_ms as i64,
                    update.finish_reason,
                    update.error,
                    update.response_seq,
                    update.response.as_ref().map(|r| r.to_string()),
                    update.cache_write_tokens.map(|v| v as i64),
                    update.cache_miss_reason,
                ],
            )?;
            Ok(())
        })
    }

    pub fn model_calls(&self, session: &SessionId) -> Result<Vec<ModelCallRecord>> {
        self.read(|conn| {
            let mut stmt = conn.prepare_cached(
                "SELECT id, purpose, api, model, message_ranges, params, tool_catalog_chars, request_chars, estimated_tokens,
                        prompt_tokens, cached_tokens, completion_tokens, prompt_ms, ttft_ms, duration_ms, finish_reason,
                        error, response_seq, started_at, request_source, cache_write_tokens, agent_cache_reason,
                        cache_write_1h_tokens, recorded_cost_pd, requests, request_gaps, service_tier
                 FROM model_calls WHERE session_id = ?1 ORDER BY id",
            )?;
            let rows = stmt.query_map([session], record_from_row)?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })
    }

    /// What a past call needs beyond its record to be rebuilt: its system prompt and its answer.
    /// The id the server gave the session's last answer that has one (Anthropic's message id), for
    /// cache diagnostics to compare the next request with.
    pub fn last_response_id(&self, session: &SessionId) -> Result<Option<String>> {
        self.read(|conn| {
            let mut stmt = conn.prepare_cached(
                "SELECT json_extract(response, '$.id') FROM model_calls
                 WHERE session_id = ?1 AND json_extract(response, '$.id') IS NOT NULL ORDER BY id DESC LIMIT 1",
            )?;
            Ok(stmt.query_row([session], |r| r.get(0)).optional()?)
        })
    }

    pub fn model_call_payload(&self, id: i64) -> Result<(String, Option<serde_json::Value>)> {
        self.read(|conn| {
            let (system, response): (String, Option<String>) =
                conn.query_row("SELECT system_prompt, response FROM model_calls WHERE id = ?1", [id], |r| {
                    Ok((r.get(0)?, r.get(1)?))
                })?;
            Ok((system, response.and_then(|r| serde_json::from_str(&r).ok())))
        })
    }

    /// What an agent recorded of a call's request, or the body a proxy captured (`request_ref`).
    pub fn model_call_request_ref(&self, id: i64) -> Result<Option<serde_json::Value>> {
        self.read(|conn| {
            let text: Option<String> =
                conn.query_row("SELECT request_ref FROM model_calls WHERE id = ?1", [id], |r| r.get(0))?;
            Ok(text.and_then(|t| serde_json::from_str(&t).ok()))
        })
    }

    /// Parts of a session's agent request log, by hash (`None` for one never recorded).
    pub fn request_parts(&self, session: &SessionId, hashes: &[&str]) -> Result<Vec<Option<serde_json::Value>>> {
        self.read(|conn| {
            let mut stmt = conn.prepare_cached("SELECT body FROM request_parts WHERE session_id = ?1 AND hash = ?2")?;
            hashes
                .iter()
                .map(|hash| {
                    let body: Option<String> = stmt.query_row(params![session, hash], |r| r.get(0)).optional()?;
                    Ok(body.and_then(|b| serde_json::from_str(&b).ok()))
                })
                .collect()
        })
    }

    /// The wire API and `tools` (NULL: the built-in catalog alone) of the session's last request
    /// that extends its conversation (a turn or a summary) and was answered.
    pub fn last_sent_catalog(&self, session: &SessionId) -> Result<Option<(WireApi, Option<serde_json::Value>)>> {
        self.read(|conn| {
            let row = conn
                .prepare_cached(
                    "SELECT api, tools FROM model_calls
                     WHERE session_id = ?1 AND purpose IN ('turn', 'compaction', 'cache-summary') AND error IS NULL
                       AND coalesce(request_source, 'alisio') = 'alisio'
                     ORDER BY id DESC LIMIT 1",
                )?
                .query_row([session], |r| Ok((r.get::<_, WireApi>(0)?, r.get::<_, Option<String>>(1)?)))
                .optional()?;
            Ok(row.map(|(api, tools)| (api, tools.and_then(|t| serde_json::from_str(&t).ok()))))
        })
    }

    /// The `tools` a call carried when they were not the built-in catalog alone.
    pub fn model_call_tools(&self, id: i64) -> Result<Option<serde_json::Value>> {
        self.read(|conn| {
            let tools: Option<String> =
                conn.query_row("SELECT tools FROM model_calls WHERE id = ?1", [id], |r| r.get(0))?;
            Ok(tools.and_then(|t| serde_json::from_str(&t).ok()))
        })
    }

    /// Appends an event to the session's log (transient events are not recorded).
    pub fn record_event(&self, envelope: &Envelope) -> Result<()> {
        if envelope.event.is_transient() {
            return Ok(());
        }
        let body = serde_json::to_value(envelope)?;
        let kind = body.get("type").and_then(|t| t.as_str()).unwrap_or("unknown").to_string();
        self.write(|tx| {
            tx.conn().execute(
                "INSERT INTO events (session_id, type, body, ts) VALUES (?1, ?2, ?3, ?4)",
                params![envelope.session, kind, body.to_string(), envelope.ts],
            )?;
            Ok(())
        })
    }
}
