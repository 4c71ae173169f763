//! Cache-compatible compaction (docs/compaction.md): trip on the
//! server-reported tokens after each step, ask for a hand-off summary by *appending* a user message
//! to the unchanged previous request (so a prefix cache can reuse it), then send later requests as
//! system + tools + summary + new turns. The cut is a `cache` compaction record, so the boundary is
//! in the database (it survives restarts) and the stored view still shows everything.

use serde_json::json;

use super::budget::{budget_exceeded_message, over_hard_limit, CompactionAttempt};
use super::fit::{pressure, reduce_kept_tail};
use super::summarize::{emit_completed, request_summary, CompactOutcome};
use crate::config::{Config, Strategy};
use crate::context::Context;
use crate::error::{Error, Result};
use crate::events::{CompactionReason, Event};
use crate::model::Purpose;
use crate::provider::{Completion, RequestOptions};
use crate::store::compactions::{self, CheckpointDetail, NewCompaction, RecordDetail, Status, Trigger, TriggerKind};
use crate::transcript::estimate_tokens;

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
pub fn check_trip(total_tokens: u64, limit: u64, threshold: f64, latched: bool) -> (bool, bool) {
    // Tokens are whole: a millionth of one absorbs the fraction's rounding (0.68 × 10,000).
    let over = total_tokens as f64 >= threshold * limit as f64 - 1e-6;
    match (over, latched) {
        (false, _) => (false, false),
        (true, false) => (true, true),
        (true, true) => (false, true),
    }
}

fn debug(config: &Config, what: std::fmt::Arguments<'_>) {
    if config.cache_compact.debug {
        eprintln!("[cacheCompact] {what}");
    }
}

/// After a step: compares the server-reported total tokens with the window and updates the latch.
/// The trip with its figures, or `None`.
pub(super) async fn trip_after_step(
    ctx: &Context<'_>,
    completion: &Completion,
    request_tokens: u64,
) -> Result<Option<Trigger>> {
    let session = ctx.session;
    let usage = &completion.usage;
    let total = match (usage.prompt_tokens, usage.completion_tokens) {
        (Some(prompt), completion_tokens) => prompt + completion_tokens.unwrap_or(0),
        (None, _) => request_tokens + estimate_tokens(completion.text.chars().count() as u64),
    };
    let limit = ctx.model.context_window().await.unwrap_or(ctx.config.cache_compact.context_limit);
    let latched = ctx.store.cache_latched(&session.id)?;
    let (trip, latched_after) = check_trip(total, limit, ctx.config.cache_compact.threshold_fraction(), latched);
    if latched_after != latched {
        ctx.store.set_cache_latched(&session.id, latched_after)?;
    }
    debug(
        ctx.config,
        format_args!(
            "step used {total} tokens of {limit} (threshold {}%, cached {:?}): {}",
            ctx.config.cache_compact.threshold,
            usage.cached_tokens,
            if trip {
                "trip"
            } else if latched_after {
                "latched"
            } else {
                "below"
            }
        ),
    );
    Ok(trip.then(|| Trigger {
        kind: TriggerKind::Threshold,
        prompt_tokens: Some(total),
        window: Some(limit),
        threshold: Some(ctx.config.cache_compact.threshold_fraction()),
    }))
}

/// Summarizes by appending to the unchanged live request, then cuts the outbound context.
pub(super) async fn cache_compact(ctx: &Context<'_>, trigger: Trigger) -> Result<CompactOutcome> {
    let session = ctx.session;
    ctx.emit(Event::CompactionStarted { reason: CompactionReason::Cache, focus: None });
    let live = ctx.store.live_messages(&session.id)?;
    let summarized_seqs: Vec<i64> = live.iter().map(|m| m.seq).collect();
    let summarized_chars: u64 = live.iter().map(|m| m.chars).sum();
    let anchor = live.last().map(|m| m.anchor).unwrap_or(0);
    // Same system prompt, same tools array, same messages: only the appended request is new.
    let options = RequestOptions { max_tokens: ctx.config.cache_compact.summary_max_tokens, tool_choice_none: false };
    let (call_id, completion, before_chars) =
        match request_summary(ctx, Purpose::CacheSummary, live, HANDOFF_REQUEST, options).await? {
            Ok(sent) => sent,
            Err(failed) => return Ok(failed),
        };
    debug(
        ctx.config,
        format_args!(
            "summary request: {:?} prompt tokens, {:?} cached, {:?} ms prompt processing",
            completion.usage.prompt_tokens, completion.usage.cached_tokens, completion.usage.prompt_ms
        ),
    );
    let summary = completion.text.trim();
    if summary.is_empty() {
        // The hand-off keeps the tools (the prefix must stay the same), so a model may call one.
        let error = match completion.tool_calls.first() {
            Some(call) => format!(
                "the model answered the hand-off request with a tool call ({}) instead of a summary, so nothing was cut",
                call.name
            ),
            None => "the model returned an empty summary, so nothing was cut".to_string(),
        };
        ctx.emit(Event::CompactionFailed { error: error.clone() });
        return Ok(CompactOutcome::Failed { error });
    }
    let partial = completion.finish_reason.as_deref() == Some("length");
    let span = ctx.store.messages_by_seq(&session.id, &summarized_seqs)?;
    // The hand-off, then what the cut messages did to files and what their commands returned.
    let mut summary = summary.to_string();
    if ctx.config.compaction.artifact_trail {
        let originals = super::summarize::originals(ctx, &span);
        summary
            .push_str(&super::checkpoint::trail_text(&crate::fidelity::artifact_trail(&originals, &session.workspace)));
    }
    let content = format!("{SUMMARY_HEADING}\n\n{summary}");
    let checkpoint_chars = content.chars().count() as u64;
    let mut fidelity =
        crate::fidelity::assess(&span, &crate::fidelity::CheckpointText::Text(&summary), &session.workspace);
    let pinned = super::pins::block(ctx)?;
    let pinned_chars = pinned.as_ref().map_or(0, |b| b.chars());
    fidelity.pins = super::pins::PinnedBlock::kept(pinned.as_ref());
    let record = NewCompaction {
        reason: CompactionReason::Cache,
        span: summarized_seqs,
        before_chars,
        after_chars: before_chars - summarized_chars + checkpoint_chars + pinned_chars,
        detail: RecordDetail::Checkpoint(Box::new(CheckpointDetail {
            focus: None,
            partial,
            checkpoint: json!({"text": summary}),
            summarized_chars,
            checkpoint_chars,
            plugin_reports: Vec::new(),
            plugin_fields: serde_json::Map::new(),
            inject_context: Vec::new(),
            model_call_id: Some(call_id),
            fidelity: Some(fidelity),
        })),
        trigger: Some(trigger),
    };
    let id = ctx.store.write(|tx| {
        let id = compactions::insert_compaction(tx, &session.id, &record, Status::Applied)?;
        compactions::apply_checkpoint(
            tx,
            &session.id,
            id,
            anchor,
            &compactions::Added { checkpoint: &content, pinned: pinned.as_ref().map(|b| b.text.as_str()), inject: &[] },
            &record.span,
        )?;
        Ok(id)
    })?;
    debug(ctx.config, format_args!("cut {} messages behind a {checkpoint_chars}-char summary", record.span.len()));
    emit_completed(ctx, &record);
    Ok(CompactOutcome::Completed { compaction: id, partial })
}

/// Cache strategy, before a model call: the hard limit still holds, but nothing before the
/// boundary is rewritten when `disablePrune` is on (it would break the cached prefix).
pub(super) fn guard(ctx: &Context<'_>) -> Result<()> {
    let max_chars = ctx.config.limits.max_context_chars;
    if !over_hard_limit(pressure(ctx)?, max_chars) {
        return Ok(());
    }
    if !ctx.config.cache_compact.disable_prune && reduce_kept_tail(ctx)? {
        return Ok(());
    }
    let pressure = pressure(ctx)?;
    Err(Error::Budget(budget_exceeded_message(
        pressure.reducible_chars,
        max_chars,
        &CompactionAttempt::Disabled,
        ctx.session_id(),
    )))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_latch_trips_once_and_rearms_below_the_threshold() {
        let limit = 10_000;
        assert_eq!(check_trip(6_700, limit, 0.68, false), (false, false));
        assert_eq!(check_trip(6_800, limit, 0.68, false), (true, true));
        assert_eq!(check_trip(9_000, limit, 0.68, true), (false, true), "still above: no second trip");
        assert_eq!(check_trip(1_000, limit, 0.68, true), (false, false), "re-armed");
        assert_eq!(check_trip(7_000, limit, 0.68, false), (true, true));
    }

    #[test]
    fn strategy_selection_by_model() {
        let resolve = |file: &crate::config::ConfigFile| Config::resolve(file.clone()).unwrap();
        let mut file = crate::config::ConfigFile::default();
        assert!(!cache_strategy_applies(&resolve(&file)));
        file.compaction.strategy = Strategy::Cache;
        assert!(cache_strategy_applies(&resolve(&file)), "empty list = every model");
        file.cache_compact.models = vec!["local/other".into()];
        assert!(!cache_strategy_applies(&resolve(&file)));
        file.cache_compact.models.push("local/default".into());
        assert!(cache_strategy_applies(&resolve(&file)));
    }
}
