//! The native strategy's guard, run before every model call (README "Compaction"): automatic
//! compaction when a trigger fires, then the hard limit — reduce the kept tail, one `budget`
//! compaction per turn as the last resort, and an actionable error instead of an oversized request.

use super::budget::{auto_compaction_due, budget_exceeded_message, over_hard_limit, CompactionAttempt};
use super::fit::{pressure, reduce_kept_tail};
use super::plugins::CompactionPlugin;
use super::summarize::{compact, CompactOutcome};
use crate::context::Context;
use crate::error::{Error, Result};
use crate::events::CompactionReason;

impl From<&CompactOutcome> for CompactionAttempt {
    fn from(outcome: &CompactOutcome) -> Self {
        match outcome {
            CompactOutcome::Completed { .. } | CompactOutcome::Proposed { .. } => CompactionAttempt::Ran,
            CompactOutcome::Skipped { .. } => CompactionAttempt::Skipped,
            CompactOutcome::Failed { error } => CompactionAttempt::Failed(error.clone()),
        }
    }
}

/// Before a model call: automatic compaction when due, then the hard limit. `budget_compaction_done`
/// is the turn's memory that the last-resort `budget` compaction already ran.
pub(super) async fn guard(
    ctx: &Context<'_>,
    plugins: &[Box<dyn CompactionPlugin>],
    budget_compaction_done: &mut bool,
) -> Result<()> {
    let compaction = &ctx.config.compaction;
    let max_chars = ctx.config.limits.max_context_chars;
    let mut attempt = if compaction.auto { CompactionAttempt::Ran } else { CompactionAttempt::Disabled };
    let mut pressure = pressure(ctx)?;
    if compaction.auto {
        let window = ctx.model.context_window().await;
        if let Some(trigger) = auto_compaction_due(pressure, window, compaction.threshold, max_chars) {
            tracing::debug!(?trigger, "automatic compaction due");
            let outcome = compact(ctx, plugins, CompactionReason::Auto, None, false).await?;
            attempt = CompactionAttempt::from(&outcome);
            pressure = self::pressure(ctx)?;
        }
    }
    if !over_hard_limit(pressure, max_chars) {
        return Ok(());
    }
    if reduce_kept_tail(ctx)? {
        return Ok(());
    }
    if compaction.auto && !*budget_compaction_done {
        *budget_compaction_done = true;
        let outcome = compact(ctx, plugins, CompactionReason::Budget, None, false).await?;
        attempt = CompactionAttempt::from(&outcome);
        if reduce_kept_tail(ctx)? {
            return Ok(());
        }
    }
    let pressure = self::pressure(ctx)?;
    Err(Error::Budget(budget_exceeded_message(pressure.reducible_chars, max_chars, &attempt, ctx.session_id())))
}
