//! The budget guard run before every model call (SPEC S1.3, S1.6, S1.7): automatic compaction when
//! a trigger fires, then the hard limit — reduce the kept tail, one `budget` compaction per turn as
//! the last resort, and an actionable error instead of an oversized request.

use tokio_util::sync::CancellationToken;

use super::budget::{auto_compaction_due, budget_exceeded_message, over_hard_limit, CompactionAttempt, Pressure};
use super::reduction::{cut_content, plan_reduction, target, Sized};
use super::{content_kind, CompactOutcome};
use crate::agent::Engine;
use crate::error::{Error, Result};
use crate::events::{CompactionReason, Event, EventSink};
use crate::store::compactions::{self, Kind, NewCompaction, Status};
use crate::store::sessions::append_message;
use crate::store::Session;
use crate::tools::tool_catalog_chars;
use crate::transcript::NewMessage;
use crate::view::system_prompt;

/// Per-turn state: the last-resort `budget` compaction runs at most once per turn.
#[derive(Debug, Default)]
pub struct TurnBudget {
    pub budget_compaction_done: bool,
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

impl Engine {
    /// The next request's size, from stored lengths (no contents are read).
    pub fn pressure(&self, session: &Session) -> Result<Pressure> {
        let live = self.store.live_meta(&session.id)?;
        let system_chars = system_prompt(&self.config, &session.workspace).chars().count() as u64;
        Ok(Pressure {
            reducible_chars: system_chars + live.iter().map(|m| m.chars).sum::<u64>(),
            tool_catalog_chars: tool_catalog_chars(self.provider.config().api),
        })
    }

    /// The context window: `provider.contextWindow`, else what the server reports (asked once).
    pub async fn context_window(&self) -> Option<u64> {
        if let Some(window) = self.config.provider.context_window {
            return Some(window);
        }
        *self
            .reported_window
            .get_or_init(|| async {
                match self.provider.fetch_context_window().await {
                    Ok(window) => window,
                    Err(err) => {
                        tracing::debug!("no context window from the server: {err}");
                        None
                    }
                }
            })
            .await
    }

    /// Native strategy, before a model call.
    pub async fn guard_native_budget(
        &self,
        session: &Session,
        turn: &mut TurnBudget,
        sink: &dyn EventSink,
        cancel: &CancellationToken,
    ) -> Result<()> {
        let compaction = &self.config.compaction;
        let max_chars = self.config.limits.max_context_chars;
        let mut attempt = if compaction.auto { CompactionAttempt::Ran } else { CompactionAttempt::Disabled };
        let mut pressure = self.pressure(session)?;
        if compaction.auto {
            let window = self.context_window().await;
            if let Some(trigger) = auto_compaction_due(pressure, window, compaction.threshold, max_chars) {
                tracing::debug!(?trigger, "automatic compaction due");
                let outcome = self.compact(session, CompactionReason::Auto, None, false, sink, cancel).await?;
                attempt = CompactionAttempt::from(&outcome);
                pressure = self.pressure(session)?;
            }
        }
        if !over_hard_limit(pressure, max_chars) {
            return Ok(());
        }
        if self.reduce_kept_tail(session, sink)? {
            return Ok(());
        }
        if compaction.auto && !turn.budget_compaction_done {
            turn.budget_compaction_done = true;
            let outcome = self.compact(session, CompactionReason::Budget, None, false, sink, cancel).await?;
            attempt = CompactionAttempt::from(&outcome);
            if self.reduce_kept_tail(session, sink)? {
                return Ok(());
            }
        }
        let pressure = self.pressure(session)?;
        Err(Error::Budget(budget_exceeded_message(pressure.reducible_chars, max_chars, &attempt, &session.id)))
    }

    /// Cuts kept messages (largest first, rounds of descending limits) until instructions +
    /// transcript fit `limits.maxContextChars`, persisting reduced copies beside the originals.
    /// Returns whether the conversation now fits. Checkpoints are never cut.
    pub fn reduce_kept_tail(&self, session: &Session, sink: &dyn EventSink) -> Result<bool> {
        let max_chars = self.config.limits.max_context_chars;
        let live = self.store.live_meta(&session.id)?;
        let instruction_chars = system_prompt(&self.config, &session.workspace).chars().count() as u64;
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
            kind: Kind::Reduction,
            reason: "budget".into(),
            focus: None,
            partial: false,
            checkpoint: serde_json::json!({}),
            summarized_seqs: plan.cuts.iter().map(|&(i, _)| live[i].seq).collect(),
            summarized_chars: 0,
            checkpoint_chars: 0,
            before_chars: instruction_chars + plan.before,
            after_chars: instruction_chars + plan.after,
            plugin_reports: serde_json::json!([]),
            plugin_fields: serde_json::json!({}),
            inject_context: Vec::new(),
            model_call_id: None,
        };
        // Only the messages being cut are read in full.
        let originals = self.store.messages_by_seq(&session.id, &record.summarized_seqs)?;
        self.store.write(|tx| {
            let id = compactions::insert_compaction(tx, &session.id, &record, Status::Applied)?;
            compactions::hide_messages(tx, &session.id, id, &record.summarized_seqs)?;
            for (original, &(_, limit)) in originals.iter().zip(&plan.cuts) {
                let copy = NewMessage::reduced_copy(original, cut_content(&original.content, limit), id);
                append_message(tx, &session.id, &copy)?;
            }
            tx.execute("UPDATE compactions SET applied_at = created_at WHERE id = ?1", [id])?;
            Ok(())
        })?;
        self.emit_event(sink, &session.id, Event::ContextReduced { messages: plan.cuts.len() as u64 });
        Ok(fits)
    }
}
