//! The provider strategy (`compaction.strategy: "provider"`): the API compacts, Alisio records
//! what it did. Each turn asks the server for compaction past the trigger (and, on Anthropic, for
//! the context editing configured) — see `provider::context_management`. An answer that carries a
//! compaction (Anthropic's readable `compaction` block, Responses' opaque `compaction` item) is
//! the new start of the history: the messages before it are hidden behind a compaction record of
//! reason `provider` whose checkpoint is the block's summary (or the item, described as opaque),
//! and the pins are restated after it — as a mid-conversation system message on Anthropic. Edits
//! the server reports (`applied_edits`) are recorded with their figures; the history stays whole,
//! as the API wants it. By hand (and for the bake-off), Anthropic is asked to compact and pause
//! (`pause_after_compaction`), Responses through `POST /responses/compact`.

use serde_json::{json, Value};

use super::pins;
use super::summarize::CompactOutcome;
use crate::config::Api;
use crate::context::{Catalog, Context};
use crate::error::Result;
use crate::events::{CompactionReason, Event, Size};
use crate::fidelity::{assess, CheckpointText};
use crate::model::{Outgoing, Purpose};
use crate::provider::context_management::{checkpoint_of, compaction_item, request_field, ANTHROPIC_MIN_TRIGGER};
use crate::provider::{Completion, RequestOptions};
use crate::store::compactions::{self, CheckpointDetail, NewCompaction, RecordDetail, Status, Trigger, TriggerKind};
use crate::store::sessions::append_message;
use crate::transcript::{estimate_tokens, Message, NewMessage, Role, CHARS_PER_TOKEN};

/// The input tokens past which the server compacts: `compaction.provider.trigger`, else
/// `compaction.threshold` of the window in force (of `limits.maxContextChars` when none is known).
pub async fn trigger_tokens(ctx: &Context<'_>) -> u64 {
    let settings = &ctx.config.compaction;
    if let Some(tokens) = settings.provider.trigger {
        return tokens;
    }
    let limit = match ctx.model.context_window().await {
        Some(window) => window,
        None => ctx.config.limits.max_context_chars / CHARS_PER_TOKEN,
    };
    (limit as f64 * settings.threshold) as u64
}

/// The `context_management` a turn carries under the provider strategy (none otherwise, and
/// none on Chat Completions).
pub async fn turn_field(ctx: &Context<'_>) -> Option<Value> {
    if super::strategy_in_force(ctx.config) != crate::config::Strategy::Provider {
        return None;
    }
    let trigger = trigger_tokens(ctx).await;
    request_field(ctx.config.provider.api, &ctx.config.compaction.provider, trigger, false)
}

/// When the newest live answer carrying a compaction has live messages before it: the record
/// that hides them, the pins restated after the answer's step. `None` when there is nothing new.
pub fn record_server_compaction(ctx: &Context<'_>, trigger: Option<Trigger>) -> Result<Option<i64>> {
    let live = ctx.store.live_messages(ctx.session_id())?;
    let Some(at) = live.iter().rposition(|m| compaction_item(m.provider_items.as_ref()).is_some()) else {
        return Ok(None);
    };
    if at == 0 {
        return Ok(None);
    }
    let item = compaction_item(live[at].provider_items.as_ref()).cloned().unwrap_or(Value::Null);
    let calls = ctx.store.model_calls(ctx.session_id())?;
    let call = calls.iter().rev().find(|c| c.response_seq == Some(live[at].seq));
    let trigger = trigger.unwrap_or_else(|| Trigger {
        kind: TriggerKind::Threshold,
        prompt_tokens: call.and_then(|c| c.prompt_tokens),
        window: ctx.model.known_window(),
        threshold: Some(ctx.config.compaction.threshold),
    });
    let id = record(ctx, &live, at, &item, trigger, call.map(|c| c.id))?;
    Ok(Some(id))
}

/// Hides `live[..at]` behind a record whose checkpoint is `item`, and restates the pins.
fn record(
    ctx: &Context<'_>,
    live: &[Message],
    at: usize,
    item: &Value,
    trigger: Trigger,
    call: Option<i64>,
) -> Result<i64> {
    let reason = CompactionReason::Provider;
    ctx.emit(Event::CompactionStarted { reason, focus: None });
    let checkpoint = checkpoint_of(item);
    let readable = checkpoint.get("opaque").is_none();
    let text = checkpoint["text"].as_str().unwrap_or_default().to_string();
    let span = &live[..at];
    let block = pins::block(ctx)?;
    let mut fidelity = readable.then(|| assess(span, &CheckpointText::Text(&text), &ctx.session.workspace));
    if let Some(f) = fidelity.as_mut() {
        f.pins = pins::PinnedBlock::kept(block.as_ref());
    }
    let instructions = crate::view::system_prompt(ctx.config, &ctx.session.workspace).chars().count() as u64;
    let all: u64 = live.iter().map(|m| m.chars).sum();
    let summarized_chars: u64 = span.iter().map(|m| m.chars).sum();
    let pinned_chars = block.as_ref().map_or(0, pins::PinnedBlock::chars);
    let new = NewCompaction {
        reason,
        span: span.iter().map(|m| m.seq).collect(),
        before_chars: instructions + all,
        after_chars: instructions + all - summarized_chars + pinned_chars,
        detail: RecordDetail::Checkpoint(Box::new(CheckpointDetail {
            focus: None,
            partial: false,
            checkpoint,
            summarized_chars,
            checkpoint_chars: text.chars().count() as u64,
            plugin_reports: Vec::new(),
            plugin_fields: Default::default(),
            inject_context: Vec::new(),
            model_call_id: call,
            fidelity: fidelity.clone(),
        })),
        trigger: Some(trigger),
    };
    let system_pins =
        ctx.config.provider.api == Api::Anthropic && ctx.config.compaction.provider.pins_as_system_message;
    let session = ctx.session_id();
    let id = ctx.store.write(|tx| {
        let id = compactions::insert_compaction(tx, session, &new, Status::Applied)?;
        compactions::hide_messages(tx, session, id, &new.span)?;
        if let Some(block) = &block {
            let role = if system_pins { Role::System } else { Role::User };
            compactions::append_pinned(tx, session, id, &NewMessage::pinned(role, &block.text, id))?;
        }
        compactions::applied_when_created(tx, id)?;
        Ok(id)
    })?;
    ctx.emit(Event::CompactionCompleted {
        reason,
        partial: false,
        before: Size { chars: new.before_chars, tokens: estimate_tokens(new.before_chars) },
        after: Size { chars: new.after_chars, tokens: estimate_tokens(new.after_chars) },
        summarized_messages: new.span.len() as u64,
        summarized_chars,
        checkpoint_chars: text.chars().count() as u64,
        plugin_reports: Vec::new(),
        fidelity,
    });
    Ok(id)
}

/// Records what the server's context editing did to the last request, unless it did the same as
/// last time (the server edits every request past its trigger; the history here stays whole).
pub fn record_context_edits(ctx: &Context<'_>, completion: &Completion, request_chars: u64) -> Result<()> {
    let Some(edits) = completion.context_edits.as_ref() else { return Ok(()) };
    let records = ctx.store.compactions(ctx.session_id())?;
    let last = records.iter().rev().find_map(|r| r.checkpoint()?.checkpoint.get("appliedEdits").cloned());
    if last.as_ref() == Some(edits) {
        return Ok(());
    }
    let figure = |key: &str| edits.as_array().into_iter().flatten().filter_map(|e| e.get(key)?.as_u64()).sum::<u64>();
    let (cleared_uses, cleared_tokens) = (figure("cleared_tool_uses"), figure("cleared_input_tokens"));
    let text = format!(
        "The server's context editing cleared {cleared_uses} tool use{} ({cleared_tokens} input tokens) from this \
         request; the history here is whole.",
        if cleared_uses == 1 { "" } else { "s" }
    );
    let cleared_chars = (cleared_tokens * CHARS_PER_TOKEN).min(request_chars);
    let new = NewCompaction {
        reason: CompactionReason::Provider,
        span: Vec::new(),
        before_chars: request_chars,
        after_chars: request_chars - cleared_chars,
        detail: RecordDetail::Checkpoint(Box::new(CheckpointDetail {
            focus: None,
            partial: false,
            checkpoint: json!({"text": text, "appliedEdits": edits}),
            summarized_chars: cleared_chars,
            checkpoint_chars: 0,
            plugin_reports: Vec::new(),
            plugin_fields: Default::default(),
            inject_context: Vec::new(),
            model_call_id: None,
            fidelity: None,
        })),
        trigger: Some(Trigger {
            kind: TriggerKind::Threshold,
            prompt_tokens: completion.usage.prompt_tokens,
            window: ctx.model.known_window(),
            threshold: None,
        }),
    };
    ctx.store.write(|tx| {
        let id = compactions::insert_compaction(tx, ctx.session_id(), &new, Status::Applied)?;
        compactions::applied_when_created(tx, id)
    })?;
    Ok(())
}

/// A compaction by the provider now (by hand, after an overflow, in the bake-off): Anthropic is
/// asked to compact at its minimum trigger and pause; Responses compacts through
/// `/responses/compact`. Chat Completions has no such thing.
pub async fn compact_by_provider(ctx: &Context<'_>, trigger: Trigger) -> Result<CompactOutcome> {
    let api = ctx.config.provider.api;
    if api == Api::Chat {
        return Ok(skipped(
            ctx,
            "the chat API has no server-side compaction; the provider strategy needs provider.api \"anthropic\" or \"responses\"",
        ));
    }
    let live = ctx.store.live_messages(ctx.session_id())?;
    if live.len() < 2 {
        return Ok(skipped(ctx, "there is nothing before the last message to compact"));
    }
    let prepared = ctx.prepare(live, Catalog::LastSent)?;
    let settings = &ctx.config.compaction;
    let options = RequestOptions { max_tokens: settings.max_output_tokens, tool_choice_none: true };
    let (context_management, standalone) = match api {
        Api::Anthropic => (request_field(api, &settings.provider, ANTHROPIC_MIN_TRIGGER, true), false),
        _ => (None, true),
    };
    let outgoing = Outgoing {
        purpose: Purpose::Compaction,
        prepared: &prepared,
        appended: None,
        options,
        context_management,
        standalone,
    };
    let (call_id, completion) =
        ctx.model.send_recorded(ctx.store, ctx.session_id(), outgoing, &mut |_| {}, ctx.cancel).await?;
    let Some(item) = compaction_item(completion.provider_items.as_ref()).cloned() else {
        ctx.model.finish(ctx.store, call_id, &completion, None)?;
        let tokens = completion.usage.prompt_tokens.map_or("?".to_string(), |t| t.to_string());
        return Ok(skipped(
            ctx,
            &format!("the server did not compact: the request ({tokens} input tokens) is under its trigger"),
        ));
    };
    // What the server gave back is the new start of the history: Anthropic's block (an answer
    // of its own), or the compacted items Responses returned, whole.
    let message = match api {
        Api::Anthropic => NewMessage::assistant(String::new(), Vec::new(), Some(json!([item]))),
        _ => NewMessage::provider_summary(
            checkpoint_of(&item)["text"].as_str().unwrap_or_default(),
            completion.provider_items.clone(),
        ),
    };
    let seq = ctx.store.write(|tx| append_message(tx, ctx.session_id(), &message))?;
    ctx.model.finish(ctx.store, call_id, &completion, Some(seq))?;
    let live = ctx.store.live_messages(ctx.session_id())?;
    let at = live.iter().position(|m| m.seq == seq).unwrap_or(live.len() - 1);
    let trigger = Trigger { prompt_tokens: trigger.prompt_tokens.or(completion.usage.prompt_tokens), ..trigger };
    let id = record(ctx, &live, at, &item, trigger, Some(call_id))?;
    Ok(CompactOutcome::Completed { compaction: id, partial: false })
}

fn skipped(ctx: &Context<'_>, why: &str) -> CompactOutcome {
    ctx.emit(Event::CompactionSkipped { reason: why.to_string() });
    CompactOutcome::Skipped { reason: why.to_string() }
}
