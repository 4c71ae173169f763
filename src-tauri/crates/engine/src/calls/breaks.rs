//! Why the cache missed: each call against the previous call of its chain (turns and the
//! summaries that extend them; an agent's side calls apart), a cause for every break or miss, the
//! tokens it made the server process again and what that cost.
//!
//! A break is structural (the request no longer starts with the previous one: the system prompt,
//! the tools or a message changed — or a compaction rewrote the history, or the model changed);
//! a miss with the prefix intact is the cache's lifetime passing (`expired`, config
//! `cacheTtlSeconds`), a change of params, or unexplained (`unknown`) — the last two only when the
//! server reported fewer cached tokens than half of what it could have reused.

use serde::Serialize;

use super::{render, rendered_chars, shared_prefix, Divergence, Rendered};
use crate::cost::{Money, PriceBook, Tier, Tokens};
use crate::error::Result;
use crate::store::compactions::CompactionRecord;
use crate::store::{ModelCallRecord, Purpose, Session, Store};
use crate::transcript::estimate_tokens;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum BreakCause {
    System,
    Tools,
    Messages,
    Model,
    Params,
    Expired,
    Compaction,
    Unknown,
}

impl BreakCause {
    /// How the window and the terminal say it.
    pub fn explain(self) -> &'static str {
        match self {
            BreakCause::System => "the system prompt changed",
            BreakCause::Tools => "the tools changed",
            BreakCause::Messages => "an earlier message changed",
            BreakCause::Model => "the model changed",
            BreakCause::Params => "the request's params changed",
            BreakCause::Expired => "the cache expired between the calls",
            BreakCause::Compaction => "a compaction rewrote the history",
            BreakCause::Unknown => "the server reused less than it could (cause unknown)",
        }
    }
}

/// One break or miss (`alisio calls breaks`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct CacheBreak {
    pub n: usize,
    /// The call it is compared with (the previous call of its chain).
    pub against: usize,
    pub cause: BreakCause,
    /// The cause the agent itself recorded (Claude Code's `cache_miss_reason`), or the server
    /// stated (Anthropic's cache diagnostics, `provider.cacheDiagnostics`), when one did.
    pub agent_reason: Option<String>,
    /// Tokens of the previous request the server had to process again.
    pub lost_tokens: u64,
    /// Those tokens priced as input minus as cached input; `null` for a model without a price.
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub miss_cost_usd: Option<Money>,
    /// Where the request first differs (for a structural break).
    pub divergence: Option<Divergence>,
}

/// The verdict on one pair of calls.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Verdict {
    pub cause: BreakCause,
    pub lost_tokens: u64,
    pub miss_cost: Option<Money>,
}

/// What judging a pair needs besides the two calls.
pub(super) struct Judge<'a> {
    pub book: &'a PriceBook,
    pub ttl_seconds: u64,
    pub compactions: &'a [CompactionRecord],
}

fn seconds_between(a: &str, b: &str) -> Option<i64> {
    let a = chrono::DateTime::parse_from_rfc3339(a).ok()?;
    let b = chrono::DateTime::parse_from_rfc3339(b).ok()?;
    Some((b - a).num_seconds())
}

impl Judge<'_> {
    /// Applied between the two calls (a checkpoint or a reduction that rewrote the history).
    fn compaction_between(&self, old: &ModelCallRecord, new: &ModelCallRecord) -> bool {
        self.compactions.iter().any(|c| {
            let at = c.applied_at.as_deref().unwrap_or(&c.created_at);
            seconds_between(&old.started_at, at).is_some_and(|s| s >= 0)
                && seconds_between(at, &new.started_at).is_some_and(|s| s >= 0)
        })
    }

    pub(super) fn judge(
        &self,
        old: (&ModelCallRecord, &Rendered),
        new: (&ModelCallRecord, &Rendered),
        prefix_chars: u64,
        divergence: Option<&Divergence>,
    ) -> Option<Verdict> {
        let ((old_call, old_request), (new_call, new_request)) = (old, new);
        let old_chars = rendered_chars(old_request).max(1);
        // What the previous request could have given from the cache, in the server's tokens.
        let reusable = old_call.prompt_tokens.unwrap_or_else(|| estimate_tokens(old_chars));
        let kept = (reusable as u128 * prefix_chars.min(old_chars) as u128 / old_chars as u128) as u64;
        let cached = new_call.cached_tokens;
        let (cause, lost) = if !old_call.model.is_empty() && old_call.model != new_call.model {
            (BreakCause::Model, reusable.saturating_sub(cached.unwrap_or(0)))
        } else if let Some(divergence) = divergence {
            // A changed catalog is `tools` whichever call it lands on (a compaction's included).
            let cause = match divergence.part {
                "tools" => BreakCause::Tools,
                _ if self.compaction_between(old_call, new_call) => BreakCause::Compaction,
                "system" => BreakCause::System,
                "params" => BreakCause::Params,
                _ => BreakCause::Messages,
            };
            // What the server said it reused counts where it is more than the shared prefix.
            (cause, reusable.saturating_sub(kept.max(cached.unwrap_or(0))))
        } else {
            // The prefix is intact: a miss only when the server said so (or could not have kept it).
            let reported_miss = cached.is_none_or(|c| c.saturating_mul(2) < reusable);
            let gap = seconds_between(&old_call.started_at, &new_call.started_at).unwrap_or(0);
            if gap > self.ttl_seconds as i64 && reported_miss {
                (BreakCause::Expired, reusable.saturating_sub(cached.unwrap_or(0)))
            } else if cached.is_some() && reported_miss {
                let params_changed = old_request.params != new_request.params;
                (if params_changed { BreakCause::Params } else { BreakCause::Unknown }, reusable - cached.unwrap_or(0))
            } else {
                return None;
            }
        };
        let lost_tokens = lost;
        let tier = new_call.service_tier.as_deref().and_then(Tier::parse);
        let rates = self.book.rates(&new_call.model, &new_call.started_at, new_call.prompt_tokens.unwrap_or(0), tier);
        let miss_cost = rates.map(|r| {
            let as_input = r.price(&Tokens { prompt: lost_tokens, ..Tokens::default() }).cost;
            let as_cached = r.price(&Tokens { prompt: lost_tokens, cached: lost_tokens, ..Tokens::default() }).cost;
            Money(as_input.0.saturating_sub(as_cached.0))
        });
        Some(Verdict { cause, lost_tokens, miss_cost })
    }
}

/// The chain a call belongs to: an agent's side calls (titles, summaries of tool output) and
/// probes do not extend the conversation's request.
fn chain(purpose: Purpose) -> u8 {
    match purpose {
        Purpose::Side => 1,
        Purpose::Probe => 2,
        Purpose::Replay => 3,
        _ => 0,
    }
}

/// Every break and miss of a session, in the order sent.
pub fn breaks(store: &Store, record: &Session, forensics: &super::Forensics) -> Result<Vec<CacheBreak>> {
    let calls = store.model_calls(&record.id)?;
    let compactions = store.compactions(&record.id)?;
    let judge = Judge { book: &forensics.book, ttl_seconds: forensics.ttl_seconds, compactions: &compactions };
    let mut rebuilder = super::Rebuilder::new(store, &record.id, record.source);
    let mut last: [Option<(usize, Rendered)>; 4] = [None, None, None, None];
    let mut out = Vec::new();
    for (i, call) in calls.iter().enumerate() {
        // A call nothing answered (the server was down, the request refused) cached nothing: it
        // is no link of the chain, and the next call is judged against the one before it.
        if call.error.is_some() {
            continue;
        }
        let rendered = render(&rebuilder.rebuild(call)?.body);
        let slot = chain(call.purpose) as usize;
        if let Some((j, old)) = &last[slot] {
            let (prefix, divergence) = shared_prefix(old, &rendered);
            if let Some(v) = judge.judge((&calls[*j], old), (call, &rendered), prefix, divergence.as_ref()) {
                out.push(CacheBreak {
                    n: i + 1,
                    against: j + 1,
                    cause: v.cause,
                    agent_reason: call.agent_cache_reason.clone(),
                    lost_tokens: v.lost_tokens,
                    miss_cost_usd: v.miss_cost,
                    divergence,
                });
            }
        }
        last[slot] = Some((i, rendered));
    }
    Ok(out)
}

/// What a compaction's summary cost, and what the same summary would have cost sent as a rebuilt
/// prompt (everything re-processed as input) — what appending to the cached request saved.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct CompactionCost {
    pub compaction: i64,
    /// The summary call's number in the ledger (`null`: none recorded).
    pub n: Option<usize>,
    pub prompt_tokens: u64,
    pub cached_tokens: u64,
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub summary_cost_usd: Option<Money>,
    /// The same tokens with none read from the cache.
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub rebuilt_cost_usd: Option<Money>,
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub saved_usd: Option<Money>,
}

/// Per checkpoint of the session: its summary call (recorded with it, or for an imported one the
/// newest summary call up to it) priced as sent and as a rebuilt prompt.
pub fn compaction_costs(store: &Store, record: &Session, forensics: &super::Forensics) -> Result<Vec<CompactionCost>> {
    let calls = store.model_calls(&record.id)?;
    let summaries = |c: &ModelCallRecord| matches!(c.purpose, Purpose::Compaction | Purpose::CacheSummary);
    let mut out = Vec::new();
    for compaction in store.compactions(&record.id)? {
        let Some(checkpoint) = compaction.checkpoint() else { continue };
        let at = compaction.applied_at.as_deref().unwrap_or(&compaction.created_at);
        let found = match checkpoint.model_call_id {
            Some(id) => calls.iter().position(|c| c.id == id),
            None => {
                calls.iter().rposition(|c| summaries(c) && seconds_between(&c.started_at, at).is_some_and(|s| s >= 0))
            }
        };
        let Some(i) = found else {
            out.push(CompactionCost {
                compaction: compaction.id,
                n: None,
                prompt_tokens: 0,
                cached_tokens: 0,
                summary_cost_usd: None,
                rebuilt_cost_usd: None,
                saved_usd: None,
            });
            continue;
        };
        let call = &calls[i];
        let tokens = super::Forensics::tokens(call);
        let rebuilt = Tokens { cached: 0, cache_write: 0, cache_write_1h: 0, ..tokens };
        let tier = call.service_tier.as_deref().and_then(Tier::parse);
        let sent = forensics.book.price(&call.model, &call.started_at, &tokens, tier).map(|p| p.cost);
        let as_rebuilt = forensics.book.price(&call.model, &call.started_at, &rebuilt, tier).map(|p| p.cost);
        out.push(CompactionCost {
            compaction: compaction.id,
            n: Some(i + 1),
            prompt_tokens: tokens.prompt,
            cached_tokens: tokens.cached,
            saved_usd: sent.zip(as_rebuilt).map(|(s, r)| Money(r.0.saturating_sub(s.0))),
            summary_cost_usd: sent,
            rebuilt_cost_usd: as_rebuilt,
        });
    }
    Ok(out)
}
