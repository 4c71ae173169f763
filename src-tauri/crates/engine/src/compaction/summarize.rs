//! Summarizing a span into a checkpoint (docs/compaction.md): a structured checkpoint from the
//! current provider replaces old messages, which stay stored and marked compacted. Proposals can be
//! previewed, edited and applied; the newest compaction can be undone exactly.

use crate::fidelity::{assess, CheckpointText, Fidelity};
use std::time::Duration;

use serde::Serialize;
use serde_json::{json, Map, Value};

use crate::context::{Catalog, Context};
use crate::error::{Error, Result};
use crate::events::{CompactionReason, Event, Size};
use crate::model::{Outgoing, Purpose};
use crate::provider::{Completion, RequestOptions};
use crate::store::compactions::{self, CheckpointDetail, NewCompaction, RecordDetail, Status, Trigger};
use crate::store::JournalState;
use crate::transcript::{estimate_tokens, Message, Role};

use super::boundary::{select_safe_boundary, Shape};
use super::checkpoint::{add_trail, parse_checkpoint, render, summary_request, Checkpoint, OutputField, Parsed};
use super::plugins::{with_timeout, AfterCompact, BeforeCompact, CompactionPlugin};

/// What a compaction attempt came to.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "outcome", rename_all = "camelCase")]
pub enum CompactOutcome {
    Completed { compaction: i64, partial: bool },
    Proposed { proposal: i64, partial: bool, checkpoint: Checkpoint, rendered: String, fidelity: Box<Fidelity> },
    Skipped { reason: String },
    Failed { error: String },
}

pub fn shape_of(message: &Message) -> Shape {
    Shape {
        role: message.role,
        summary: message.summary,
        calls: message.tool_calls.iter().map(|c| c.id.clone()).collect(),
        answers: message.tool_call_id.clone(),
    }
}

/// `span` with each tool result a reduction or a masking stands in for replaced by the stored
/// original (through both, when a budget cut was masked): what the artifact trail records is what
/// the tool returned, not its placeholder.
pub(super) fn originals(ctx: &Context<'_>, span: &[Message]) -> Vec<Message> {
    span.iter()
        .map(|m| {
            let mut message = m.clone();
            for _ in 0..4 {
                let Some(by) = message.created_by.filter(|_| message.role == Role::Tool && !message.summary) else {
                    break;
                };
                match ctx.store.hidden_original(ctx.session_id(), by, message.anchor) {
                    Ok(Some(original)) => message = original,
                    _ => break,
                }
            }
            message
        })
        .collect()
}

/// How much of `live` the summarizer reads: all of it but what arrived after the last request was
/// sent — the trailing new prompt, or tool results with the answer that called them — where that
/// lies in the kept turns (from `cut`). The rest is a prefix of the last request, in the server's
/// cache; the trailing part would otherwise be read twice, by the summarizer and after the checkpoint.
pub fn summarizer_reads(live: &[Message], cut: usize) -> usize {
    let mut end = live.len();
    while end > cut && matches!(live[end - 1].role, Role::User | Role::Tool) && !live[end - 1].summary {
        end -= 1;
    }
    // Results left out take the call with them: a call is never sent without its results.
    let called = |m: &Message| m.role == Role::Assistant && !m.tool_calls.is_empty();
    if end > cut && end < live.len() && called(&live[end - 1]) && live[end].role == Role::Tool {
        end -= 1;
    }
    end
}

fn excerpt(text: &str, max: usize) -> String {
    let line = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("").trim();
    let mut out: String = line.chars().take(max).collect();
    if line.chars().count() > max {
        out.push('…');
    }
    out
}

/// The checkpoint as plugins and the stored record see it.
fn checkpoint_value(checkpoint: &Checkpoint) -> Value {
    match (&checkpoint.sections, &checkpoint.text) {
        (Some(sections), _) => json!({"sections": sections}),
        (None, Some(text)) => json!({"text": text}),
        (None, None) => json!({}),
    }
}

fn uncertain_calls(ctx: &Context<'_>) -> Result<Vec<String>> {
    Ok(ctx
        .store
        .unresolved_tool_calls(ctx.session_id())?
        .into_iter()
        .filter(|e| matches!(e.state, JournalState::Started | JournalState::Uncertain))
        .map(|e| format!("{} {}", e.name, e.call_id))
        .collect())
}

/// Compacts the session's live history. Manual compaction of a session with uncertain
/// tool results is refused (exit 3); automatic compaction skips it. With `preview`, the
/// checkpoint is stored as a proposal and nothing is hidden.
pub async fn compact(
    ctx: &Context<'_>,
    plugins: &[Box<dyn CompactionPlugin>],
    reason: CompactionReason,
    focus: Option<&str>,
    preview: bool,
    trigger: Trigger,
) -> Result<CompactOutcome> {
    let session = ctx.session;
    if let Some(skipped) = refuse_if_uncertain(ctx, reason)? {
        return Ok(skipped);
    }
    let live = ctx.store.live_messages(&session.id)?;
    let shapes: Vec<Shape> = live.iter().map(shape_of).collect();
    let cut = match select_safe_boundary(&shapes, ctx.config.compaction.keep_turns) {
        Ok(cut) => cut,
        Err(skip) => {
            let why = skip.message().to_string();
            ctx.emit(Event::CompactionSkipped { reason: why.clone() });
            return Ok(CompactOutcome::Skipped { reason: why });
        }
    };
    let focus = focus.map(str::trim).filter(|f| !f.is_empty()).map(str::to_string);
    ctx.emit(Event::CompactionStarted { reason, focus: focus.clone() });

    // beforeCompact: instructions and output fields for the same summarizer call.
    let hooks = before_hooks(ctx, plugins, reason, focus.as_deref()).await;
    let all_fields: Vec<OutputField> = hooks.fields.iter().flat_map(|(_, f)| f.iter().cloned()).collect();

    // The live request as last sent, unchanged, with the summary request appended: a prefix cache
    // can reuse it. What arrived since and stays in the kept turns (a command's output, a new
    // prompt) is left out: it is read once, after the checkpoint, not also by the summarizer.
    let kept_from = live.get(cut).map(|m| excerpt(&m.content, 80)).filter(|s| !s.is_empty());
    let request_text = summary_request(focus.as_deref(), kept_from.as_deref(), &hooks.instructions, &all_fields);
    let summarized: Vec<Message> = live[..cut].to_vec();
    let anchor = summarized.last().map(|m| m.anchor).unwrap_or(0);
    let max_tokens = ctx.config.compaction.max_output_tokens;
    let options = RequestOptions { max_tokens, tool_choice_none: true };
    let mut read = live;
    let unread = read.split_off(summarizer_reads(&read, cut));
    let unread_chars: u64 = unread.iter().map(|m| m.chars).sum();
    let (call_id, completion, read_chars) =
        match request_summary(ctx, Purpose::Compaction, read, &request_text, options).await? {
            Ok(sent) => sent,
            Err(failed) => return Ok(failed),
        };
    let before_chars = read_chars + unread_chars;
    let truncated = completion.finish_reason.as_deref() == Some("length");
    let mut parsed = match parse_checkpoint(&completion.text, truncated, &all_fields) {
        Ok(parsed) => parsed,
        Err(why) => return Ok(unparsed(ctx, why, truncated, max_tokens)),
    };

    // What the replaced messages did to files and what their commands returned: recorded, not summarized.
    if ctx.config.compaction.artifact_trail {
        let span = originals(ctx, &summarized);
        add_trail(&mut parsed.checkpoint, &crate::fidelity::artifact_trail(&span, &session.workspace));
    }

    // afterCompact: each plugin gets the checkpoint and its own fields.
    let (inject, reports) = after_hooks(ctx, plugins, &hooks.fields, &parsed).await;

    let rendered = render(&parsed.checkpoint, parsed.partial);
    let summarized_chars: u64 = summarized.iter().map(|m| m.chars).sum();
    let checkpoint_chars = rendered.chars().count() as u64;
    let inject_chars: u64 = inject.iter().map(|c| c.chars().count() as u64).sum();
    let pinned = super::pins::block(ctx)?;
    let pinned_chars = pinned.as_ref().map_or(0, |b| b.chars());
    let after_chars = before_chars - summarized_chars + checkpoint_chars + pinned_chars + inject_chars;
    let span: Vec<i64> = summarized.iter().map(|m| m.seq).collect();
    let checkpoint_json = serde_json::to_value(&parsed.checkpoint)?;
    let mut fidelity = assess(&summarized, &CheckpointText::from_value(&checkpoint_json), &session.workspace);
    fidelity.pins = super::pins::PinnedBlock::kept(pinned.as_ref());
    let record = NewCompaction {
        reason,
        span,
        before_chars,
        after_chars,
        detail: RecordDetail::Checkpoint(Box::new(CheckpointDetail {
            focus: focus.clone(),
            partial: parsed.partial,
            checkpoint: serde_json::to_value(&parsed.checkpoint)?,
            summarized_chars,
            checkpoint_chars,
            plugin_reports: reports.clone(),
            plugin_fields: parsed.checkpoint.plugin_fields.clone(),
            inject_context: inject.clone(),
            model_call_id: Some(call_id),
            fidelity: Some(fidelity.clone()),
        })),
        trigger: Some(trigger),
    };
    if preview {
        return propose(ctx, &record, parsed, rendered, checkpoint_json, fidelity);
    }
    let added =
        compactions::Added { checkpoint: &rendered, pinned: pinned.as_ref().map(|b| b.text.as_str()), inject: &inject };
    apply(ctx, &record, anchor, &added, parsed.partial)
}

/// An uncertain tool result stops a compaction: a manual one is refused (exit 3), an automatic one
/// skipped with the command that settles it.
fn refuse_if_uncertain(ctx: &Context<'_>, reason: CompactionReason) -> Result<Option<CompactOutcome>> {
    let uncertain = uncertain_calls(ctx)?;
    if uncertain.is_empty() {
        return Ok(None);
    }
    let session = &ctx.session.id;
    if reason == CompactionReason::Manual {
        return Err(Error::Uncertain {
            session: session.to_string(),
            count: uncertain.len(),
            calls: uncertain.join(", "),
            killed: String::new(),
        });
    }
    let why =
        format!("the session has uncertain tool results; run `alisio sessions recover {session} --acknowledge` first");
    ctx.emit(Event::CompactionSkipped { reason: why.clone() });
    Ok(Some(CompactOutcome::Skipped { reason: why }))
}

/// The summarizer's answer is no checkpoint: the compaction failed, saying why (and, when it ran
/// out of output, what to raise).
fn unparsed(ctx: &Context<'_>, why: String, truncated: bool, max_tokens: u32) -> CompactOutcome {
    let error = if truncated {
        format!(
            "{why}: the summarizer hit its output budget (compaction.maxOutputTokens = {max_tokens}). \
             Raise compaction.maxOutputTokens and compact again"
        )
    } else {
        why
    };
    ctx.emit(Event::CompactionFailed { error: error.clone() });
    CompactOutcome::Failed { error }
}

/// A previewed checkpoint, stored as a proposal to edit and apply or discard.
fn propose(
    ctx: &Context<'_>,
    record: &NewCompaction,
    parsed: Parsed,
    rendered: String,
    checkpoint_json: Value,
    fidelity: Fidelity,
) -> Result<CompactOutcome> {
    let proposal =
        ctx.store.write(|tx| compactions::insert_compaction(tx, &ctx.session.id, record, Status::Proposed))?;
    ctx.emit(Event::CompactionProposed {
        proposal,
        partial: parsed.partial,
        checkpoint: checkpoint_json,
        fidelity: Some(fidelity.clone()),
    });
    Ok(CompactOutcome::Proposed {
        proposal,
        partial: parsed.partial,
        checkpoint: parsed.checkpoint,
        rendered,
        fidelity: Box::new(fidelity),
    })
}

/// The checkpoint applied: recorded, the span hidden behind it, what it adds appended.
fn apply(
    ctx: &Context<'_>,
    record: &NewCompaction,
    anchor: i64,
    added: &compactions::Added<'_>,
    partial: bool,
) -> Result<CompactOutcome> {
    let session = &ctx.session.id;
    let id = ctx.store.write(|tx| {
        let id = compactions::insert_compaction(tx, session, record, Status::Applied)?;
        compactions::apply_checkpoint(tx, session, id, anchor, added, &record.span)?;
        Ok(id)
    })?;
    emit_completed(ctx, record);
    Ok(CompactOutcome::Completed { compaction: id, partial })
}

/// What the plugins' `beforeCompact` hooks asked for: instructions, and per plugin (by index) the
/// output fields it wants the summarizer to fill.
struct BeforeHooks {
    instructions: Vec<String>,
    fields: Vec<(usize, Vec<OutputField>)>,
}

/// Runs every plugin's `beforeCompact` under `pluginHooks.timeoutMs`; a failure is reported
/// (`plugin_hook_failed`) and the compaction goes on without that plugin.
async fn before_hooks(
    ctx: &Context<'_>,
    plugins: &[Box<dyn CompactionPlugin>],
    reason: CompactionReason,
    focus: Option<&str>,
) -> BeforeHooks {
    let timeout = Duration::from_millis(ctx.config.plugin_hooks.timeout_ms);
    let input = BeforeCompact {
        session: ctx.session.id.to_string(),
        workspace: ctx.session.workspace.clone(),
        reason: reason.as_str().into(),
        focus: focus.map(str::to_string),
    };
    let mut hooks = BeforeHooks { instructions: Vec::new(), fields: Vec::new() };
    for (index, plugin) in plugins.iter().enumerate() {
        match with_timeout(timeout, plugin.before_compact(&input)).await {
            Ok(out) => {
                hooks.instructions.extend(out.instructions);
                hooks.fields.push((index, out.output_fields));
            }
            Err(error) => {
                ctx.emit(Event::PluginHookFailed { plugin: plugin.name().into(), hook: "beforeCompact".into(), error })
            }
        }
    }
    hooks
}

/// Runs `afterCompact` for the plugins whose `beforeCompact` answered, each with the checkpoint
/// and its own fields. Returns the context to inject after the checkpoint and the reports.
async fn after_hooks(
    ctx: &Context<'_>,
    plugins: &[Box<dyn CompactionPlugin>],
    fields: &[(usize, Vec<OutputField>)],
    parsed: &Parsed,
) -> (Vec<String>, Vec<Value>) {
    let timeout = Duration::from_millis(ctx.config.plugin_hooks.timeout_ms);
    let checkpoint = checkpoint_value(&parsed.checkpoint);
    let mut inject = Vec::new();
    let mut reports = Vec::new();
    for (index, wanted) in fields {
        let plugin = &plugins[*index];
        let own: Map<String, Value> = wanted
            .iter()
            .filter_map(|f| parsed.checkpoint.plugin_fields.get(&f.name).map(|v| (f.name.clone(), v.clone())))
            .collect();
        let input = AfterCompact {
            session: ctx.session.id.to_string(),
            workspace: ctx.session.workspace.clone(),
            checkpoint: checkpoint.clone(),
            partial: parsed.partial,
            fields: own,
        };
        match with_timeout(timeout, plugin.after_compact(&input)).await {
            Ok(out) => {
                inject.extend(out.inject_context.filter(|c| !c.trim().is_empty()));
                if let Some(mut report) = out.report {
                    if let Value::Object(map) = &mut report {
                        map.insert("plugin".into(), json!(plugin.name()));
                    }
                    reports.push(report);
                }
            }
            Err(error) => {
                ctx.emit(Event::PluginHookFailed { plugin: plugin.name().into(), hook: "afterCompact".into(), error })
            }
        }
    }
    (inject, reports)
}

/// Sends the live request unchanged with `appended` as one last user message, so a server with a
/// prefix cache can reuse it, through the ledger. Returns the call, the answer and the live
/// request's size (instructions + transcript). A failed call becomes `compaction_failed` and the
/// `Failed` outcome; cancellation stays an error.
pub(crate) async fn request_summary(
    ctx: &Context<'_>,
    purpose: Purpose,
    live: Vec<Message>,
    appended: &str,
    options: RequestOptions,
) -> Result<Result<(i64, Completion, u64), CompactOutcome>> {
    let prepared = ctx.prepare(live, Catalog::LastSent)?;
    let outgoing = Outgoing {
        purpose,
        prepared: &prepared,
        appended: Some(appended),
        options,
        context_management: None,
        standalone: false,
    };
    match ctx.model.send_recorded(ctx.store, ctx.session_id(), outgoing, &mut |_| {}, ctx.cancel).await {
        Ok((call_id, mut completion)) => {
            // The summary is stored (as the checkpoint and in the ledger): without secrets.
            ctx.secrets.redact_in_place(&mut completion.text);
            ctx.model.finish(ctx.store, call_id, &completion, None)?;
            Ok(Ok((call_id, completion, prepared.chars)))
        }
        Err(Error::Cancelled) => Err(Error::Cancelled),
        Err(err) => {
            let error = err.to_string();
            ctx.emit(Event::CompactionFailed { error: error.clone() });
            Ok(Err(CompactOutcome::Failed { error }))
        }
    }
}

pub(super) fn emit_completed(ctx: &Context<'_>, record: &NewCompaction) {
    let RecordDetail::Checkpoint(checkpoint) = &record.detail else { return };
    ctx.emit(Event::CompactionCompleted {
        reason: record.reason,
        partial: checkpoint.partial,
        before: Size { chars: record.before_chars, tokens: estimate_tokens(record.before_chars) },
        after: Size { chars: record.after_chars, tokens: estimate_tokens(record.after_chars) },
        summarized_messages: record.span.len() as u64,
        summarized_chars: checkpoint.summarized_chars,
        checkpoint_chars: checkpoint.checkpoint_chars,
        plugin_reports: checkpoint.plugin_reports.clone(),
        fidelity: checkpoint.fidelity.clone(),
    });
}

/// Applies a stored proposal, optionally with an edited checkpoint (JSON sections or plain text).
pub fn apply_proposal(ctx: &Context<'_>, proposal: i64, edited: Option<&str>) -> Result<CompactOutcome> {
    let session = ctx.session;
    let not_open = || Error::Usage(format!("there is no open proposal {proposal} in session {}", session.id));
    let record =
        ctx.store.compaction(&session.id, proposal)?.filter(|r| r.status == Status::Proposed).ok_or_else(not_open)?;
    let RecordDetail::Checkpoint(proposed) = &record.detail else { return Err(not_open()) };
    let (checkpoint, partial) = match edited {
        Some(text) => {
            let parsed = parse_checkpoint(text, false, &[])
                .map_err(|e| Error::Usage(format!("the edited checkpoint is not usable: {e}")))?;
            (parsed.checkpoint, false)
        }
        None => (serde_json::from_value::<Checkpoint>(proposed.checkpoint.clone())?, proposed.partial),
    };
    let rendered = render(&checkpoint, partial);
    let span = record.span_seqs();
    let last = *span.last().ok_or_else(|| Error::Usage("the proposal summarizes nothing".into()))?;
    let checkpoint_chars = rendered.chars().count() as u64;
    let after_chars = record.after_chars + checkpoint_chars - proposed.checkpoint_chars;
    // The request after applying must fit the hard limit: an edited checkpoint can make it larger.
    let live = ctx.store.live_meta(&session.id)?;
    let hidden: std::collections::HashSet<i64> = span.iter().copied().collect();
    let span_chars: u64 = live.iter().filter(|m| hidden.contains(&m.seq)).map(|m| m.chars).sum();
    let inject_chars: u64 = proposed.inject_context.iter().map(|c| c.chars().count() as u64).sum();
    let next = super::fit::pressure(ctx)?.reducible_chars - span_chars + checkpoint_chars + inject_chars;
    let limit = ctx.config.limits.max_context_chars;
    if next > limit {
        return Err(Error::Budget(format!(
            "Context budget exceeded (approximately {next} characters of conversation; limit {limit}). The edited \
             checkpoint is {checkpoint_chars} characters: shorten it and apply the proposal again \
             (`alisio compact {} --apply {proposal} --checkpoint FILE`).",
            session.id
        )));
    }
    // The checkpoint as applied (perhaps edited) is checked again against the span.
    let checkpoint_json = serde_json::to_value(&checkpoint)?;
    let applied_checkpoint = checkpoint_json.clone();
    let replaced = ctx.store.messages_by_seq(&session.id, &span)?;
    let mut fidelity = assess(&replaced, &CheckpointText::from_value(&checkpoint_json), &session.workspace);
    // Pins as they are now: the proposal may have waited while pins or rules files changed.
    let pinned = super::pins::block(ctx)?;
    fidelity.pins = super::pins::PinnedBlock::kept(pinned.as_ref());
    let applied = NewCompaction {
        reason: record.reason,
        span,
        before_chars: record.before_chars,
        after_chars,
        detail: RecordDetail::Checkpoint(Box::new(CheckpointDetail {
            partial,
            checkpoint: checkpoint_json,
            checkpoint_chars,
            fidelity: Some(fidelity.clone()),
            ..(**proposed).clone()
        })),
        trigger: record.trigger.clone(),
    };
    ctx.store.write(|tx| {
        let anchor = crate::store::sessions::anchor_of(tx, &session.id, last)?;
        let completion = compactions::ProposalCompletion {
            checkpoint: &applied_checkpoint,
            partial,
            checkpoint_chars,
            after_chars,
            fidelity: &fidelity,
        };
        compactions::complete_proposal(tx, proposal, &completion)?;
        compactions::apply_checkpoint(
            tx,
            &session.id,
            proposal,
            anchor,
            &compactions::Added {
                checkpoint: &rendered,
                pinned: pinned.as_ref().map(|b| b.text.as_str()),
                inject: &proposed.inject_context,
            },
            &applied.span,
        )?;
        Ok(())
    })?;
    emit_completed(ctx, &applied);
    Ok(CompactOutcome::Completed { compaction: proposal, partial })
}

/// Reverts the newest compaction (and reductions after it): originals are live again, the
/// checkpoint and reduced copies are marked reverted. Returns the reverted record ids.
pub fn undo_compaction(ctx: &Context<'_>) -> Result<Vec<i64>> {
    let ids = ctx.store.undo_latest_compaction(ctx.session_id())?;
    ctx.emit(Event::CompactionReverted { compactions: ids.clone() });
    Ok(ids)
}
