//! What each strategy would make of the next request, before anything is applied (the window's
//! compaction dialog, `alisio compact plan`). No model is asked: masking is exact; a summary's
//! checkpoint is the one part only the model can size, so it is reported apart, with its budget.

use serde::Serialize;

use super::boundary::select_safe_boundary;
use super::budget::{auto_compaction_due, Pressure};
use super::compactor::default_strategy;
use super::fit::pressure;
use super::mask;
use super::pins;
use super::prune;
use super::summarize::{shape_of, summarizer_reads};
use crate::config::Strategy;
use crate::context::Context;
use crate::error::Result;
use crate::transcript::{estimate_tokens, Message};

/// One strategy's preview. Token figures are the request's estimate (instructions, tool catalog
/// and messages), as the context meter counts them.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct StrategyPreview {
    pub strategy: Strategy,
    /// The strategy a compaction without a choice runs (`compaction.strategy`).
    pub is_default: bool,
    /// None when the strategy can run now; otherwise why it cannot.
    pub unavailable: Option<String>,
    pub before_tokens: u64,
    /// The request afterwards, without the checkpoint the model writes (`checkpointMaxTokens`).
    pub after_tokens: u64,
    /// The model writes a checkpoint of at most this many tokens, added to `afterTokens`.
    pub checkpoint_max_tokens: Option<u64>,
    /// The size of the session's newest checkpoint, in tokens: what a new one is likely to be.
    pub checkpoint_last_tokens: Option<u64>,
    /// Tokens the summarizer call reads (none when no model is asked).
    pub summarizer_tokens: Option<u64>,
    /// Messages a checkpoint replaces.
    pub summarized: u64,
    /// Tool results replaced by placeholders.
    pub masked: u64,
    /// Tool outputs and answers that lose lines.
    pub pruned: u64,
    /// The pinned block carried after a checkpoint, in tokens.
    pub pinned_tokens: u64,
}

/// Every strategy's preview, in the order native, cache, mask, hybrid, prune, provider.
pub async fn strategies(ctx: &Context<'_>) -> Result<Vec<StrategyPreview>> {
    let live = ctx.store.live_messages(ctx.session_id())?;
    let now = pressure(ctx)?;
    let live_chars: u64 = live.iter().map(|m| m.chars).sum();
    let fixed = now.request_chars().saturating_sub(live_chars);
    let pinned_chars = pins::block(ctx)?.map_or(0, |b| b.chars());
    let settings = &ctx.config.compaction;
    let records = ctx.store.compactions(ctx.session_id())?;
    let last = records.iter().rev().find_map(|r| r.checkpoint()).map(|c| estimate_tokens(c.checkpoint_chars));
    let base = StrategyPreview {
        strategy: Strategy::Native,
        is_default: false,
        unavailable: None,
        before_tokens: now.request_tokens(),
        after_tokens: now.request_tokens(),
        checkpoint_max_tokens: None,
        checkpoint_last_tokens: None,
        summarizer_tokens: None,
        summarized: 0,
        masked: 0,
        pruned: 0,
        pinned_tokens: estimate_tokens(pinned_chars),
    };
    let summary = |request_chars: u64| -> StrategyPreview {
        let shapes: Vec<_> = live.iter().map(shape_of).collect();
        match select_safe_boundary(&shapes, settings.keep_turns) {
            Ok(cut) => StrategyPreview {
                after_tokens: estimate_tokens(fixed + pinned_chars + kept_chars(&live[cut..])),
                checkpoint_max_tokens: Some(u64::from(settings.max_output_tokens)),
                checkpoint_last_tokens: last,
                summarizer_tokens: Some(estimate_tokens(
                    request_chars - kept_chars(&live[summarizer_reads(&live, cut)..]),
                )),
                summarized: cut as u64,
                ..base.clone()
            },
            Err(skip) => StrategyPreview { unavailable: Some(skip.message().to_string()), ..base.clone() },
        }
    };
    let native = summary(now.request_chars());
    let cache = if live.is_empty() {
        StrategyPreview {
            strategy: Strategy::Cache,
            unavailable: Some("there is nothing to summarize".into()),
            ..base.clone()
        }
    } else {
        StrategyPreview {
            strategy: Strategy::Cache,
            after_tokens: estimate_tokens(fixed + pinned_chars),
            checkpoint_max_tokens: Some(u64::from(ctx.config.cache_compact.summary_max_tokens)),
            checkpoint_last_tokens: last,
            summarizer_tokens: Some(now.request_tokens()),
            summarized: live.len() as u64,
            ..base.clone()
        }
    };
    let (mask, masked_pressure) = match mask::plan(&live, &mask::protected(ctx)?, settings.keep_turns) {
        Ok(plan) => {
            let after = now.request_chars() - plan.masked_chars + plan.placeholder_chars;
            let preview = StrategyPreview {
                strategy: Strategy::Mask,
                after_tokens: estimate_tokens(after),
                masked: plan.targets.len() as u64,
                ..base.clone()
            };
            let masked = Pressure {
                reducible_chars: after - now.tool_catalog_chars,
                tool_catalog_chars: now.tool_catalog_chars,
            };
            (preview, Some(masked))
        }
        Err(why) => (StrategyPreview { strategy: Strategy::Mask, unavailable: Some(why), ..base.clone() }, None),
    };
    // Hybrid: the mask, then the summary only when the masked request is still over the threshold.
    let window = ctx.model.context_window().await;
    let max_chars = ctx.config.limits.max_context_chars;
    let hybrid = match masked_pressure {
        Some(masked) if auto_compaction_due(masked, window, settings.threshold, max_chars).is_some() => {
            StrategyPreview { strategy: Strategy::Hybrid, masked: mask.masked, ..summary(masked.request_chars()) }
        }
        Some(_) => StrategyPreview { strategy: Strategy::Hybrid, ..mask.clone() },
        None if auto_compaction_due(now, window, settings.threshold, max_chars).is_some() => {
            StrategyPreview { strategy: Strategy::Hybrid, ..native.clone() }
        }
        None => StrategyPreview { strategy: Strategy::Hybrid, ..mask.clone() },
    };
    let prune = prune_preview(ctx, &live, now.request_chars(), &base)?;
    let provider = provider_preview(ctx, &base);
    let mut previews = vec![native, cache, mask, hybrid, prune, provider];
    let default = default_strategy(ctx.config);
    previews.iter_mut().for_each(|p| p.is_default = p.strategy == default);
    Ok(previews)
}

/// What the server keeps is known only once it has compacted.
fn provider_preview(ctx: &Context<'_>, base: &StrategyPreview) -> StrategyPreview {
    let why = match ctx.config.provider.api {
        crate::config::Api::Chat => "the chat API has no server-side compaction",
        _ => "the provider compacts on its server: what it keeps is known once it has",
    };
    StrategyPreview { strategy: Strategy::Provider, unavailable: Some(why.into()), ..base.clone() }
}

/// Pruning without a focus (a focus only keeps more lines).
fn prune_preview(
    ctx: &Context<'_>,
    live: &[Message],
    request_chars: u64,
    base: &StrategyPreview,
) -> Result<StrategyPreview> {
    Ok(match prune::plan(live, &mask::protected(ctx)?, ctx.config.compaction.keep_turns, None) {
        Ok(plan) => StrategyPreview {
            strategy: Strategy::Prune,
            after_tokens: estimate_tokens(request_chars - plan.pruned_chars + plan.kept_chars),
            pruned: plan.targets.len() as u64,
            ..base.clone()
        },
        Err(why) => StrategyPreview { strategy: Strategy::Prune, unavailable: Some(why), ..base.clone() },
    })
}

fn kept_chars(kept: &[Message]) -> u64 {
    kept.iter().map(|m| m.chars).sum()
}
