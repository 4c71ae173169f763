//! The model-call ledger as the `alisio calls` commands show it: calls numbered `1..n` in the order
//! they were sent, each request rebuilt exactly from the records that formed it (same keys, same
//! message objects, same tools, same params), and the comparison of two requests in the order a
//! server renders them — system, tools, messages — with the first divergence and whether it breaks
//! a prefix cache.

pub mod breaks;
pub mod claude_log;
pub mod compare;
pub mod composition;
#[cfg(test)]
mod corpus_tests;
mod diff;
pub mod exact_start;
pub mod rebuild;
pub mod rereads;

use serde::Serialize;
use serde_json::Value;

pub use breaks::{BreakCause, CacheBreak, CompactionCost};
pub use composition::{Composition, Share, ToolShare};
pub use diff::{cache_report, diff, CallCache, CallDiff, Divergence, MessageChange, ParamChange, ToolChanges};
use diff::{render, rendered_chars, shared_prefix, Rendered};
pub use rebuild::{messages as request_messages, Rebuilder, Rebuilt};

use crate::config::ConfigFile;
use crate::cost::{Money, PriceBook, Tier, Tokens};
use crate::error::{Error, Result};
use crate::store::{ModelCallRecord, Purpose, RequestSource, Session, SessionId, Store};
use crate::view::MissingPart;

/// One line of `calls list`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct CallSummary {
    pub n: usize,
    pub purpose: Purpose,
    pub started_at: String,
    pub request_chars: u64,
    pub prompt_tokens: Option<u64>,
    pub cached_tokens: Option<u64>,
    pub completion_tokens: Option<u64>,
    pub ttft_ms: Option<u64>,
    pub duration_ms: Option<u64>,
    pub finish_reason: Option<String>,
    pub error: Option<String>,
    pub request_source: RequestSource,
    /// The body shown is the one that was sent (`requestSource` other than `reconstructed`).
    pub exact: bool,
    pub model: String,
    /// Input written to the prompt cache.
    pub cache_write_tokens: Option<u64>,
    /// What the call cost at the price in force on its date; `null` for a model without a price.
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub cost_usd: Option<Money>,
    /// What its cached tokens would have cost as input, minus what they cost.
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub cache_savings_usd: Option<Money>,
    /// The part of `cacheWriteTokens` written to a 1-hour cache.
    pub cache_write_1h_tokens: Option<u64>,
    /// What the agent itself recorded the call cost, when it did.
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub recorded_cost_usd: Option<Money>,
    /// Requests the row stands for: 1, or several the agent recorded only as a total.
    pub requests: u64,
}

/// What pricing calls and judging cache misses take from the configuration.
#[derive(Debug, Clone)]
pub struct Forensics {
    pub book: PriceBook,
    /// How long a prompt cache lives (config `cacheTtlSeconds`).
    pub ttl_seconds: u64,
}

impl Forensics {
    /// The shipped prices under config `prices` (no loaded updates: see [`Forensics::load`]).
    pub fn new(config: &ConfigFile) -> Result<Forensics> {
        Ok(Forensics { book: PriceBook::new(&config.prices)?, ttl_seconds: config.cache_ttl_seconds })
    }

    /// Every price layer, the snapshots loaded into `home` with `alisio prices update` included.
    pub fn load(config: &ConfigFile, home: &std::path::Path) -> Result<Forensics> {
        Ok(Forensics { book: PriceBook::load(&config.prices, Some(home))?, ttl_seconds: config.cache_ttl_seconds })
    }

    /// A ledger row's tokens, as priced.
    pub fn tokens(call: &ModelCallRecord) -> Tokens {
        Tokens {
            prompt: call.prompt_tokens.unwrap_or(0),
            cached: call.cached_tokens.unwrap_or(0),
            cache_write: call.cache_write_tokens.unwrap_or(0),
            cache_write_1h: call.cache_write_1h_tokens.unwrap_or(0),
            completion: call.completion_tokens.unwrap_or(0),
        }
    }

    /// A ledger row's price: its tokens at its tier's rates, or `None` when its model has none.
    pub fn price(&self, call: &ModelCallRecord) -> Option<crate::cost::Priced> {
        let tier = call.service_tier.as_deref().and_then(Tier::parse);
        self.book.price(&call.model, &call.started_at, &Forensics::tokens(call), tier)
    }
}

/// `calls show`: the request as sent and the answer as received.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct CallDetail {
    pub n: usize,
    pub purpose: Purpose,
    pub request: Value,
    pub response: Option<Value>,
    pub request_source: RequestSource,
    pub exact: bool,
    /// Parts the agent sent but did not record (a reconstructed request), with estimated sizes.
    pub missing: Vec<MissingPart>,
    /// What an exact body from an agent's own log leaves out (Claude Code: `metadata`, `stream`,
    /// the billing-header line).
    pub omitted: Vec<String>,
    pub composition: Composition,
}

fn calls_of(store: &Store, record: &Session) -> Result<(SessionId, Vec<ModelCallRecord>)> {
    let calls = store.model_calls(&record.id)?;
    Ok((record.id.clone(), calls))
}

fn nth(calls: &[ModelCallRecord], n: usize, session: &str) -> Result<ModelCallRecord> {
    calls.get(n.wrapping_sub(1)).cloned().ok_or_else(|| {
        Error::Usage(format!("session {session} has {} model call(s); there is no call {n}", calls.len()))
    })
}

pub fn list(store: &Store, record: &Session, forensics: &Forensics) -> Result<Vec<CallSummary>> {
    let (_, calls) = calls_of(store, record)?;
    Ok(calls
        .into_iter()
        .enumerate()
        .map(|(i, c)| {
            let priced = forensics.price(&c);
            let exact = c.exact();
            CallSummary {
                n: i + 1,
                purpose: c.purpose,
                started_at: c.started_at,
                request_chars: c.request_chars,
                prompt_tokens: c.prompt_tokens,
                cached_tokens: c.cached_tokens,
                completion_tokens: c.completion_tokens,
                ttft_ms: c.ttft_ms,
                duration_ms: c.duration_ms,
                finish_reason: c.finish_reason,
                error: c.error,
                request_source: c.request_source,
                exact,
                cache_write_tokens: c.cache_write_tokens,
                cost_usd: priced.map(|p| p.cost),
                cache_savings_usd: priced.map(|p| p.savings),
                cache_write_1h_tokens: c.cache_write_1h_tokens,
                recorded_cost_usd: c.recorded_cost_pd.and_then(|pd| u128::try_from(pd).ok()).map(Money),
                requests: c.requests,
                model: c.model,
            }
        })
        .collect())
}

/// The body of a past request and the answer received (see [`Rebuilder`] for how each is known).
pub fn request_body(store: &Store, record: &Session, call: &ModelCallRecord) -> Result<(Value, Option<Value>)> {
    let rebuilt = Rebuilder::new(store, &record.id, record.source).rebuild(call)?;
    Ok((rebuilt.body, rebuilt.response))
}

/// Call `n` of a session (`1..n` in the order sent), with the session's full id.
pub fn call(store: &Store, record: &Session, n: usize) -> Result<(SessionId, ModelCallRecord)> {
    let (id, calls) = calls_of(store, record)?;
    let call = nth(&calls, n, &id)?;
    Ok((id, call))
}

/// `calls replay`: the new call beside the original.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ReplayReport {
    /// The replay's own number in the ledger.
    pub n: usize,
    pub replay_of: usize,
    pub model: String,
    pub original: Option<Value>,
    pub replay: Option<Value>,
}

pub fn show(store: &Store, record: &Session, n: usize) -> Result<CallDetail> {
    let (id, calls) = calls_of(store, record)?;
    let call = nth(&calls, n, &id)?;
    let mut rebuilder = Rebuilder::new(store, &id, record.source);
    let rebuilt = rebuilder.rebuild(&call)?;
    let composition = rebuilder.composition(&rebuilt)?;
    Ok(CallDetail {
        n,
        purpose: call.purpose,
        exact: rebuilt.exact,
        request_source: rebuilt.source,
        missing: rebuilt.missing,
        omitted: rebuilt.omitted,
        request: rebuilt.body,
        response: rebuilt.response,
        composition,
    })
}

/// One call's composition for the Requests pane's chart: what its request was made of, what its
/// agent left out, and whether a compaction or a cache break came with it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct CallComposition {
    pub n: usize,
    pub purpose: Purpose,
    pub exact: bool,
    pub composition: Composition,
    pub missing: Vec<MissingPart>,
    pub prompt_tokens: Option<u64>,
    pub cached_tokens: Option<u64>,
    /// The request's prefix differs from the one before (a prompt cache cannot be reused).
    pub cache_break: bool,
}

/// The composition of every request of a session, in the order sent (each rebuilt once).
pub fn compositions(store: &Store, record: &Session) -> Result<Vec<CallComposition>> {
    let (id, calls) = calls_of(store, record)?;
    let mut rebuilder = Rebuilder::new(store, &id, record.source);
    let mut previous: Option<Rendered> = None;
    let mut out = Vec::with_capacity(calls.len());
    for (i, call) in calls.iter().enumerate() {
        let rebuilt = rebuilder.rebuild(call)?;
        let composition = rebuilder.composition(&rebuilt)?;
        let rendered = render(&rebuilt.body);
        let cache_break = previous.as_ref().is_some_and(|old| shared_prefix(old, &rendered).1.is_some());
        out.push(CallComposition {
            n: i + 1,
            purpose: call.purpose,
            exact: rebuilt.exact,
            composition,
            missing: rebuilt.missing,
            prompt_tokens: call.prompt_tokens,
            cached_tokens: call.cached_tokens,
            cache_break,
        });
        previous = Some(rendered);
    }
    Ok(out)
}
