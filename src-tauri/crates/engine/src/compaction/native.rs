//! The native strategy's guard, run before every model call (README "Compaction"): automatic
//! compaction when a trigger fires, then the hard limit — reduce the kept tail, one `budget`
//! compaction per turn as the last resort, and an actionable error instead of an oversized request.

use super::budget::{auto_compaction_due, budget_exceeded_message, over_hard_limit, CompactionAttempt};
use super::plugins::CompactionPlugin;
use super::reduction::{cut_content, plan_reduction, target, Sized};
use super::{compact, content_kind, pressure, CompactOutcome};
use crate::context::Context;
use crate::error::{Error, Result};
use crate::events::{CompactionReason, Event};
use crate::store::compactions::{self, NewCompaction, RecordDetail, Status};
use crate::store::sessions::append_message;
use crate::transcript::NewMessage;
use crate::view::system_prompt;

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
            pressure = super::pressure(ctx)?;
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
    let pressure = super::pressure(ctx)?;
    Err(Error::Budget(budget_exceeded_message(pressure.reducible_chars, max_chars, &attempt, ctx.session_id())))
}

/// Cuts kept messages (largest first, rounds of descending limits) until instructions +
/// transcript fit `limits.maxContextChars`, persisting reduced copies beside the originals.
/// Returns whether the conversation now fits. Checkpoints are never cut.
pub fn reduce_kept_tail(ctx: &Context<'_>) -> Result<bool> {
    let session = ctx.session;
    let max_chars = ctx.config.limits.max_context_chars;
    let live = ctx.store.live_meta(&session.id)?;
    let instruction_chars = system_prompt(ctx.config, &session.workspace).chars().count() as u64;
    let sized: Vec<Sized> = live
        .iter()
        .map(|m| Sized {
            kind: content_kind(m),
            content_chars: m.content_chars,
            fixed_chars: m.chars - m.content_chars,
        })
        .collect();
    let goal = target(max_chars, instruction_chars);
    let plan = plan_reduction(&sized, goal);
    let fits = instruction_chars + plan.after <= max_chars;
    if plan.cuts.is_empty() {
        return Ok(fits);
    }
    let record = NewCompaction {
        reason: CompactionReason::Budget,
        span: plan.cuts.iter().map(|&(i, _)| live[i].seq).collect(),
        before_chars: instruction_chars + plan.before,
        after_chars: instruction_chars + plan.after,
        detail: RecordDetail::Reduction,
    };
    // Only the messages being cut are read in full.
    let originals = ctx.store.messages_by_seq(&session.id, &record.span)?;
    ctx.store.write(|tx| {
        let id = compactions::insert_compaction(tx, &session.id, &record, Status::Applied)?;
        compactions::hide_messages(tx, &session.id, id, &record.span)?;
        for (original, &(_, limit)) in originals.iter().zip(&plan.cuts) {
            let copy = NewMessage::reduced_copy(original, cut_content(&original.content, limit), id);
            append_message(tx, &session.id, &copy)?;
        }
        tx.execute("UPDATE compactions SET applied_at = created_at WHERE id = ?1", [id])?;
        Ok(())
    })?;
    ctx.emit(Event::ContextReduced { messages: plan.cuts.len() as u64 });
    Ok(fits)
}
