//! *How* a session's history is compacted: one [`Compactor`] per strategy (`native` summarizes all
//! but the kept turns, `cache` summarizes by appending to the live request and cuts all of it,
//! `mask` replaces old tool results, `hybrid` masks and summarizes only when still over, `prune`
//! deletes whole lines of old outputs and answers). Which
//! one runs and *when* is the guard's business (`guard`); this module decides nothing about timing.

use futures_util::future::BoxFuture;

use super::budget::auto_compaction_due;
use super::cache;
use super::fit::pressure;
use super::mask::mask;
use super::plugins::CompactionPlugin;
use super::provider::compact_by_provider;
use super::prune::prune;
use super::summarize::{compact, CompactOutcome};
use crate::config::{Config, Strategy};
use crate::context::Context;
use crate::error::Result;
use crate::events::CompactionReason;
use crate::store::compactions::Trigger;

/// What one compaction is asked to do.
#[derive(Debug, Clone, Copy)]
pub struct CompactRequest<'a> {
    pub reason: CompactionReason,
    /// Instructions for the summarizer.
    pub focus: Option<&'a str>,
    /// Store the checkpoint as a proposal and hide nothing.
    pub preview: bool,
}

/// One strategy's way of compacting.
pub trait Compactor: Send + Sync {
    fn compact<'a>(
        &'a self,
        ctx: &'a Context<'a>,
        request: CompactRequest<'a>,
        trigger: Trigger,
    ) -> BoxFuture<'a, Result<CompactOutcome>>;
}

/// All but the kept turns summarized into a checkpoint.
pub struct Native<'p> {
    pub plugins: &'p [Box<dyn CompactionPlugin>],
}

impl Compactor for Native<'_> {
    fn compact<'a>(
        &'a self,
        ctx: &'a Context<'a>,
        r: CompactRequest<'a>,
        trigger: Trigger,
    ) -> BoxFuture<'a, Result<CompactOutcome>> {
        Box::pin(compact(ctx, self.plugins, r.reason, r.focus, r.preview, trigger))
    }
}

/// The summary appended to the live request, then all of it cut.
pub struct Cache;

impl Compactor for Cache {
    fn compact<'a>(
        &'a self,
        ctx: &'a Context<'a>,
        _: CompactRequest<'a>,
        trigger: Trigger,
    ) -> BoxFuture<'a, Result<CompactOutcome>> {
        Box::pin(cache::cache_compact(ctx, trigger))
    }
}

/// Old tool results replaced by placeholders; no summarizer.
pub struct Mask;

impl Compactor for Mask {
    fn compact<'a>(
        &'a self,
        ctx: &'a Context<'a>,
        _: CompactRequest<'a>,
        trigger: Trigger,
    ) -> BoxFuture<'a, Result<CompactOutcome>> {
        Box::pin(async move { mask(ctx, &trigger).await })
    }
}

/// Whole lines of old outputs and answers deleted; no summarizer.
pub struct Prune;

impl Compactor for Prune {
    fn compact<'a>(
        &'a self,
        ctx: &'a Context<'a>,
        r: CompactRequest<'a>,
        trigger: Trigger,
    ) -> BoxFuture<'a, Result<CompactOutcome>> {
        Box::pin(async move { prune(ctx, r.focus, &trigger).await })
    }
}

/// The provider compacts (Anthropic's server compaction, `/responses/compact`).
pub struct ByProvider;

impl Compactor for ByProvider {
    fn compact<'a>(
        &'a self,
        ctx: &'a Context<'a>,
        _: CompactRequest<'a>,
        trigger: Trigger,
    ) -> BoxFuture<'a, Result<CompactOutcome>> {
        Box::pin(compact_by_provider(ctx, trigger))
    }
}

/// Mask first; summarize only when the request is still over the threshold.
pub struct Hybrid<'p> {
    pub plugins: &'p [Box<dyn CompactionPlugin>],
}

impl Compactor for Hybrid<'_> {
    fn compact<'a>(
        &'a self,
        ctx: &'a Context<'a>,
        r: CompactRequest<'a>,
        trigger: Trigger,
    ) -> BoxFuture<'a, Result<CompactOutcome>> {
        Box::pin(async move {
            let masked = mask(ctx, &trigger).await?;
            let window = ctx.model.context_window().await;
            let settings = &ctx.config.compaction;
            let due =
                auto_compaction_due(pressure(ctx)?, window, settings.threshold, ctx.config.limits.max_context_chars);
            match due {
                // Still over after masking: the summary, on the figures masking left.
                Some(due) => compact(ctx, self.plugins, r.reason, r.focus, false, due.record(settings.threshold)).await,
                None => Ok(masked),
            }
        })
    }
}

/// The compactor of `strategy`. A preview always summarizes natively (only a checkpoint has
/// something to review).
pub fn compactor_for<'p>(
    strategy: Strategy,
    preview: bool,
    plugins: &'p [Box<dyn CompactionPlugin>],
) -> Box<dyn Compactor + 'p> {
    match strategy {
        _ if preview => Box::new(Native { plugins }),
        Strategy::Native => Box::new(Native { plugins }),
        Strategy::Cache => Box::new(Cache),
        Strategy::Mask => Box::new(Mask),
        Strategy::Hybrid => Box::new(Hybrid { plugins }),
        Strategy::Prune => Box::new(Prune),
        Strategy::Provider => Box::new(ByProvider),
    }
}

/// A compaction asked for by hand (`alisio compact`, the compaction dialog).
#[derive(Debug, Clone, Copy, Default)]
pub struct ManualCompaction<'a> {
    /// Instructions for the summarizer.
    pub focus: Option<&'a str>,
    /// Store the checkpoint as a proposal and hide nothing.
    pub preview: bool,
    /// The strategy chosen; none: `default_strategy`.
    pub strategy: Option<Strategy>,
}

/// The strategy a compaction runs under when none is chosen: `compaction.strategy`, except that
/// `cache` compacts by hand (and where its models do not apply) with the native summary, as it
/// always has; the cache cut runs only when chosen explicitly or when its trip fires.
pub fn default_strategy(config: &Config) -> Strategy {
    match config.compaction.strategy {
        Strategy::Cache => Strategy::Native,
        other => other,
    }
}

/// One compaction under `strategy` (see [`compactor_for`]).
pub async fn compact_now(
    ctx: &Context<'_>,
    plugins: &[Box<dyn CompactionPlugin>],
    strategy: Strategy,
    reason: CompactionReason,
    focus: Option<&str>,
    preview: bool,
    trigger: Trigger,
) -> Result<CompactOutcome> {
    compactor_for(strategy, preview, plugins).compact(ctx, CompactRequest { reason, focus, preview }, trigger).await
}
