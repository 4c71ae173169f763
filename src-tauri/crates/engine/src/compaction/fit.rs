//! Making a request fit `limits.maxContextChars`: its size from stored lengths (no contents read),
//! and cutting the kept tail in place with reduced copies beside the originals. Used by both
//! strategies.

use super::budget::Pressure;
use super::reduction::{self, cut_content, plan_reduction, target, Sized};
use crate::context::Context;
use crate::error::Result;
use crate::events::{CompactionReason, Event};
use crate::store::compactions::{self, NewCompaction, RecordDetail, Status, Trigger, TriggerKind};
use crate::store::sessions::append_message;
use crate::tools::tool_catalog_chars;
use crate::transcript::{Message, MessageMeta, NewMessage, Role};
use crate::view::system_prompt;

/// A copy of `original` whose content and tool-call arguments together fit `limit` characters:
/// each part keeps a share of the limit proportional to its size (a cut argument is no longer
/// JSON, and goes out wrapped as `{"invalid_arguments": …}` like any unparsable arguments).
fn reduced_copy(original: &Message, limit: u64, created_by: i64) -> NewMessage {
    let parts: Vec<u64> = std::iter::once(&original.content)
        .chain(original.tool_calls.iter().map(|c| &c.arguments))
        .map(|text| text.chars().count() as u64)
        .collect();
    let total: u64 = parts.iter().sum::<u64>().max(1);
    let share = |len: u64| if total <= limit { len } else { (limit as u128 * len as u128 / total as u128) as u64 };
    let mut copy = NewMessage::reduced_copy(original, cut_content(&original.content, share(parts[0])), created_by);
    for (call, &len) in copy.tool_calls.iter_mut().zip(&parts[1..]) {
        call.arguments = cut_content(&call.arguments, share(len));
    }
    copy
}

/// How a reduction may treat a live message's content.
fn content_kind(message: &MessageMeta) -> reduction::Cuttable {
    if message.summary {
        reduction::Cuttable::Never
    } else if message.role == Role::Tool {
        reduction::Cuttable::ToolResult
    } else {
        reduction::Cuttable::Text
    }
}

/// The next request's size, from stored lengths (no contents are read).
pub fn pressure(ctx: &Context<'_>) -> Result<Pressure> {
    // One aggregate over the index: the meter is asked on every open, of sessions of any length.
    let (_, live_chars) = ctx.store.live_totals(ctx.session_id())?;
    let system_chars = system_prompt(ctx.config, &ctx.session.workspace).chars().count() as u64;
    Ok(Pressure {
        reducible_chars: system_chars + live_chars,
        tool_catalog_chars: tool_catalog_chars(ctx.config.provider.api, &ctx.mcp_specs()?),
    })
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
        .map(|m| {
            // Content and tool-call arguments can be cut; call ids and names stay.
            let cuttable = m.content_chars + m.argument_chars;
            Sized { kind: content_kind(m), content_chars: cuttable, fixed_chars: m.chars.saturating_sub(cuttable) }
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
        trigger: Some(Trigger {
            kind: TriggerKind::Budget,
            prompt_tokens: Some(crate::transcript::estimate_tokens(instruction_chars + plan.before)),
            window: None,
            threshold: None,
        }),
    };
    // Only the messages being cut are read in full.
    let originals = ctx.store.messages_by_seq(&session.id, &record.span)?;
    ctx.store.write(|tx| {
        let id = compactions::insert_compaction(tx, &session.id, &record, Status::Applied)?;
        compactions::hide_messages(tx, &session.id, id, &record.span)?;
        for (original, &(_, limit)) in originals.iter().zip(&plan.cuts) {
            append_message(tx, &session.id, &reduced_copy(original, limit, id))?;
        }
        compactions::applied_when_created(tx, id)
    })?;
    ctx.emit(Event::ContextReduced { messages: plan.cuts.len() as u64 });
    Ok(fits)
}
