//! The native strategy's guard, run before every model call (docs/compaction.md): automatic
//! compaction when a trigger fires, then the hard limit — reduce the kept tail, one `budget`
//! compaction per turn as the last resort, and an actionable error instead of an oversized request.

use super::budget::{
    auto_compaction_due, budget_exceeded_message, compaction_futile, over_hard_limit, CompactionAttempt,
};
use super::fit::{pressure, reduce_kept_tail};
use super::plugins::CompactionPlugin;
use super::summarize::{compact, CompactOutcome};
use crate::context::Context;
use crate::error::{Error, Result};
use crate::events::{CompactionReason, Event};
use crate::store::compactions::{Trigger, TriggerKind};
use crate::view::system_prompt;

/// What the guard remembers within a turn.
#[derive(Debug, Default)]
pub(super) struct TurnMemory {
    /// The last-resort `budget` compaction runs at most once per turn.
    budget_compaction_done: bool,
    /// The session was told once that compaction cannot help (what it cannot shrink is too big).
    told_futile: bool,
}

impl From<&CompactOutcome> for CompactionAttempt {
    fn from(outcome: &CompactOutcome) -> Self {
        match outcome {
            CompactOutcome::Completed { .. } | CompactOutcome::Proposed { .. } => CompactionAttempt::Ran,
            CompactOutcome::Skipped { .. } => CompactionAttempt::Skipped,
            CompactOutcome::Failed { error } => CompactionAttempt::Failed(error.clone()),
        }
    }
}

/// Before a model call: automatic compaction when due — unless what it cannot shrink (the
/// instructions and the tool catalog) alone reaches the trigger: then the session is told why,
/// once a turn, instead — then the hard limit.
pub(super) async fn guard(
    ctx: &Context<'_>,
    plugins: &[Box<dyn CompactionPlugin>],
    turn: &mut TurnMemory,
) -> Result<()> {
    let compaction = &ctx.config.compaction;
    let max_chars = ctx.config.limits.max_context_chars;
    let mut attempt = if compaction.auto { CompactionAttempt::Ran } else { CompactionAttempt::Disabled };
    let mut pressure = pressure(ctx)?;
    if compaction.auto {
        let window = ctx.model.context_window().await;
        if let Some(trigger) = auto_compaction_due(pressure, window, compaction.threshold, max_chars) {
            let instructions = system_prompt(ctx.config, &ctx.session.workspace).chars().count() as u64;
            let fixed = instructions + pressure.tool_catalog_chars;
            if compaction_futile(trigger, fixed, compaction.threshold) {
                if !turn.told_futile {
                    turn.told_futile = true;
                    ctx.emit(Event::CompactionSkipped {
                        reason: format!(
                            "compaction cannot help: the instructions and the tool catalog alone are ≈ {} tokens \
                             ({} of them tools), at or past the trigger; disable MCP servers you do not need, \
                             or lower mcp.maxCatalogTokens so their tools wait behind tool_search",
                            crate::transcript::estimate_tokens(fixed),
                            crate::transcript::estimate_tokens(pressure.tool_catalog_chars)
                        ),
                    });
                }
            } else {
                tracing::debug!(?trigger, "automatic compaction due");
                let fired = trigger.record(compaction.threshold);
                let strategy = super::compactor::default_strategy(ctx.config);
                let outcome =
                    super::compactor::compact_now(ctx, plugins, strategy, CompactionReason::Auto, None, false, fired)
                        .await?;
                attempt = CompactionAttempt::from(&outcome);
                pressure = self::pressure(ctx)?;
            }
        }
    }
    if !over_hard_limit(pressure, max_chars) {
        return Ok(());
    }
    if reduce_kept_tail(ctx)? {
        return Ok(());
    }
    if compaction.auto && !turn.budget_compaction_done {
        turn.budget_compaction_done = true;
        let fired = Trigger {
            kind: TriggerKind::Budget,
            prompt_tokens: Some(pressure.request_tokens()),
            window: None,
            threshold: None,
        };
        let outcome = compact(ctx, plugins, CompactionReason::Budget, None, false, fired).await?;
        attempt = CompactionAttempt::from(&outcome);
        if reduce_kept_tail(ctx)? {
            return Ok(());
        }
    }
    let pressure = self::pressure(ctx)?;
    Err(Error::Budget(budget_exceeded_message(pressure.reducible_chars, max_chars, &attempt, ctx.session_id())))
}
