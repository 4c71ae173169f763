//! Cache-compatible compaction (SPEC S2, the opencode-cache-compact technique): trip on the
//! server-reported tokens after each step, ask for a hand-off summary by *appending* a user message
//! to the unchanged previous request (so a prefix cache can reuse it), then send later requests as
//! system + tools + summary + new turns. The cut is a `cache` compaction record, so the boundary is
//! in the database (it survives restarts) and the stored view still shows everything.

use serde_json::json;
use tokio_util::sync::CancellationToken;

use super::budget::{budget_exceeded_message, over_hard_limit, CompactionAttempt};
use super::CompactOutcome;
use crate::agent::Engine;
use crate::config::{Config, Strategy};
use crate::error::{Error, Result};
use crate::events::{CompactionReason, Event, EventSink};
use crate::ledger::Outgoing;
use crate::provider::{Completion, RequestOptions};
use crate::store::compactions::{self, Kind, NewCompaction, Status};
use crate::store::Session;
use crate::transcript::estimate_tokens;
use crate::view::{system_prompt, PreparedRequest};

/// Heading of the summary message the model gets after a cut.
pub const SUMMARY_HEADING: &str = "## Prior work summary";

/// The appended hand-off request.
pub const HANDOFF_REQUEST: &str = "Write a hand-off summary of the work so far, so it can continue from this summary \
    alone: the goal, files edited, commands and checks run with their results, known failures, decisions, and the \
    next step. Be concise and concrete. Do not call tools.";

/// Whether the cache strategy is the (only) compactor for the configured model.
pub fn cache_strategy_applies(config: &Config) -> bool {
    if config.compaction.strategy != Strategy::Cache {
        return false;
    }
    let models = &config.cache_compact.models;
    models.is_empty() || models.iter().any(|m| *m == format!("{}/{}", config.provider.id, config.provider.model))
}

/// The trip decision after a step: `(trip now, latch afterwards)`. The latch holds while usage stays
/// at or above the threshold and re-arms only once usage falls back below it.
pub fn check_trip(total_tokens: u64, limit: u64, threshold_percent: f64, latched: bool) -> (bool, bool) {
    let over = total_tokens as f64 * 100.0 >= threshold_percent * limit as f64;
    match (over, latched) {
        (false, _) => (false, false),
        (true, false) => (true, true),
        (true, true) => (false, true),
    }
}

impl Engine {
    pub fn cache_strategy_active(&self) -> bool {
        cache_strategy_applies(&self.config)
    }

    fn cache_debug(&self, what: std::fmt::Arguments<'_>) {
        if self.config.cache_compact.debug {
            eprintln!("[cacheCompact] {what}");
        }
    }

    /// After a step: compares the server-reported total tokens with the window and updates the latch.
    pub async fn cache_trip_after_step(
        &self,
        session: &Session,
        completion: &Completion,
        request_tokens: u64,
    ) -> Result<bool> {
        let usage = &completion.usage;
        let total = match (usage.prompt_tokens, usage.completion_tokens) {
            (Some(prompt), completion_tokens) => prompt + completion_tokens.unwrap_or(0),
            (None, _) => request_tokens + estimate_tokens(completion.text.chars().count() as u64),
        };
        let limit = self.context_window().await.unwrap_or(self.config.cache_compact.context_limit);
        let latched = self.store.cache_latched(&session.id)?;
        let (trip, latched_after) = check_trip(total, limit, self.config.cache_compact.threshold, latched);
        if latched_after != latched {
            self.store.set_cache_latched(&session.id, latched_after)?;
        }
        self.cache_debug(format_args!(
            "step used {total} tokens of {limit} (threshold {}%, cached {:?}): {}",
            self.config.cache_compact.threshold,
            usage.cached_tokens,
            if trip {
                "trip"
            } else if latched_after {
                "latched"
            } else {
                "below"
            }
        ));
        Ok(trip)
    }

    /// Summarizes by appending to the unchanged live request, then cuts the outbound context.
    pub async fn cache_compact(
        &self,
        session: &Session,
        sink: &dyn EventSink,
        cancel: &CancellationToken,
    ) -> Result<CompactOutcome> {
        self.emit_event(sink, &session.id, Event::CompactionStarted { reason: CompactionReason::Cache, focus: None });
        let live = self.store.live_messages(&session.id)?;
        let summarized_seqs: Vec<i64> = live.iter().map(|m| m.seq).collect();
        let summarized_chars: u64 = live.iter().map(|m| m.chars).sum();
        let anchor = live.last().map(|m| m.anchor).unwrap_or(0);
        let prepared = PreparedRequest::build(&self.provider, system_prompt(&self.config, &session.workspace), live);
        let max_tokens = self.config.cache_compact.summary_max_tokens;
        // Same system prompt, same tools array, same messages: only the appended request is new.
        let outgoing = Outgoing {
            purpose: "cache-summary",
            prepared: &prepared,
            appended: Some(HANDOFF_REQUEST),
            options: RequestOptions { max_tokens, tool_choice_none: false },
        };
        let (call_id, completion) = match self.send_summary(session, outgoing, sink, cancel).await? {
            Ok(sent) => sent,
            Err(failed) => return Ok(failed),
        };
        self.cache_debug(format_args!(
            "summary request: {:?} prompt tokens, {:?} cached, {:?} ms prompt processing",
            completion.usage.prompt_tokens, completion.usage.cached_tokens, completion.usage.prompt_ms
        ));
        let summary = completion.text.trim();
        if summary.is_empty() {
            let error = "the model returned an empty summary, so nothing was cut".to_string();
            self.emit_event(sink, &session.id, Event::CompactionFailed { error: error.clone() });
            return Ok(CompactOutcome::Failed { error });
        }
        let partial = completion.finish_reason.as_deref() == Some("length");
        let content = format!("{SUMMARY_HEADING}\n\n{summary}");
        let checkpoint_chars = content.chars().count() as u64;
        let record = NewCompaction {
            kind: Kind::Checkpoint,
            reason: "cache".into(),
            focus: None,
            partial,
            checkpoint: json!({"text": summary}),
            summarized_seqs,
            summarized_chars,
            checkpoint_chars,
            before_chars: prepared.chars,
            after_chars: prepared.chars - summarized_chars + checkpoint_chars,
            plugin_reports: json!([]),
            plugin_fields: json!({}),
            inject_context: Vec::new(),
            model_call_id: Some(call_id),
        };
        let id = self.store.write(|tx| {
            let id = compactions::insert_compaction(tx, &session.id, &record, Status::Applied)?;
            compactions::apply_checkpoint(tx, &session.id, id, anchor, &content, &[], &record.summarized_seqs)?;
            Ok(id)
        })?;
        self.cache_debug(format_args!(
            "cut {} messages behind a {checkpoint_chars}-char summary",
            record.summarized_seqs.len()
        ));
        self.emit_completed(sink, &session.id, CompactionReason::Cache, &record);
        Ok(CompactOutcome::Completed { compaction: id, partial })
    }

    /// Cache strategy, before a model call: the hard limit still holds, but nothing before the
    /// boundary is rewritten when `disablePrune` is on (it would break the cached prefix).
    pub fn guard_cache_budget(&self, session: &Session, sink: &dyn EventSink) -> Result<()> {
        let max_chars = self.config.limits.max_context_chars;
        if !over_hard_limit(self.pressure(session)?, max_chars) {
            return Ok(());
        }
        if !self.config.cache_compact.disable_prune && self.reduce_kept_tail(session, sink)? {
            return Ok(());
        }
        let pressure = self.pressure(session)?;
        Err(Error::Budget(budget_exceeded_message(
            pressure.reducible_chars,
            max_chars,
            &CompactionAttempt::Disabled,
            &session.id,
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_latch_trips_once_and_rearms_below_the_threshold() {
        let limit = 10_000;
        assert_eq!(check_trip(6_700, limit, 68.0, false), (false, false));
        assert_eq!(check_trip(6_800, limit, 68.0, false), (true, true));
        assert_eq!(check_trip(9_000, limit, 68.0, true), (false, true), "still above: no second trip");
        assert_eq!(check_trip(1_000, limit, 68.0, true), (false, false), "re-armed");
        assert_eq!(check_trip(7_000, limit, 68.0, false), (true, true));
    }

    #[test]
    fn strategy_selection_by_model() {
        let mut config = Config::default();
        assert!(!cache_strategy_applies(&config));
        config.compaction.strategy = Strategy::Cache;
        assert!(cache_strategy_applies(&config), "empty list = every model");
        config.cache_compact.models = vec!["local/other".into()];
        assert!(!cache_strategy_applies(&config));
        config.cache_compact.models.push("local/default".into());
        assert!(cache_strategy_applies(&config));
    }
}
