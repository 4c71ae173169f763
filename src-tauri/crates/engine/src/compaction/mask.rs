//! Observation masking (`compaction.strategy: "mask"`): no summarizer call. Tool results older
//! than the last `keepTurns` turns are replaced in the request by one line naming their size and
//! call id; calls and results stay paired under their ids, the stored originals are untouched
//! (hidden behind copies, like a reduction), and the record, of reason `mask`, is undone like any
//! compaction. `hybrid` masks first and summarizes only when that is not enough (`native`).

use crate::context::Context;
use crate::error::Result;
use crate::events::{CompactionReason, Event, Size};
use crate::store::compactions::{self, NewCompaction, RecordDetail, Status, Trigger, TriggerKind};
use crate::store::sessions::append_message;
use crate::transcript::{estimate_tokens, Message, NewMessage, Role};

use super::boundary::select_safe_boundary;
use super::summarize::{shape_of, CompactOutcome};

/// What a masked tool result reads in the request.
pub fn placeholder(chars: u64, call_id: &str) -> String {
    format!("[output omitted: {chars} chars, call {call_id}]")
}

/// What masking must leave whole: pinned messages, and any result holding a pin's text — a pinned
/// sentence or a rules file of `compaction.pinFiles` the agent read.
#[derive(Debug, Clone, Default)]
pub struct Protected {
    seqs: Vec<i64>,
    texts: Vec<String>,
}

/// The session's pins and rules files now.
pub fn protected(ctx: &Context<'_>) -> Result<Protected> {
    let seqs = ctx.store.pins(ctx.session_id())?.into_iter().filter_map(|p| p.seq).collect();
    let texts = super::pins::block(ctx)?
        .map(|b| b.texts().map(str::trim).filter(|t| !t.is_empty()).map(str::to_string).collect())
        .unwrap_or_default();
    Ok(Protected { seqs, texts })
}

/// Whether `message` is a tool result masking may replace: an original result or one cut by the
/// budget (a truncated copy), not already a placeholder (a copy that is not truncated), and
/// holding no pin.
fn maskable(message: &Message, protected: &Protected) -> bool {
    message.role == Role::Tool
        && !message.summary
        && (message.created_by.is_none() || message.truncated)
        && message.tool_call_id.is_some()
        && !protected.covers(message)
}

impl Protected {
    /// Whether `message` is pinned or holds a pin's text.
    pub fn covers(&self, message: &Message) -> bool {
        self.seqs.contains(&message.seq) || self.texts.iter().any(|t| message.content.contains(t.as_str()))
    }
}

/// What masking would replace in `live`: the tool results before the kept turns, each with its
/// placeholder. Shared by the compaction and the dialog's preview.
pub struct MaskPlan<'m> {
    pub targets: Vec<&'m Message>,
    /// `(seq, placeholder)` per target.
    pub copies: Vec<(i64, String)>,
    pub masked_chars: u64,
    pub placeholder_chars: u64,
}

/// The plan for `live` keeping the last `keep_turns` turns; `Err` says why nothing can be masked.
pub fn plan<'m>(
    live: &'m [Message],
    protected: &Protected,
    keep_turns: u32,
) -> std::result::Result<MaskPlan<'m>, String> {
    let shapes: Vec<_> = live.iter().map(shape_of).collect();
    let cut = select_safe_boundary(&shapes, keep_turns).map_err(|skip| skip.message().to_string())?;
    // A result no longer than its placeholder stays: masking it would save nothing.
    let (targets, copies): (Vec<&Message>, Vec<(i64, String)>) = live[..cut]
        .iter()
        .filter(|m| maskable(m, protected))
        .map(|m| (m, placeholder(m.content.chars().count() as u64, m.tool_call_id.as_deref().unwrap_or_default())))
        .filter(|(m, text)| m.content.chars().count() > text.chars().count())
        .map(|(m, text)| (m, (m.seq, text)))
        .unzip();
    if targets.is_empty() {
        return Err("there is no tool result before the kept turns longer than its placeholder".to_string());
    }
    let masked_chars = targets.iter().map(|m| m.chars).sum();
    let placeholder_chars = copies.iter().map(|(_, text)| text.chars().count() as u64).sum();
    Ok(MaskPlan { targets, copies, masked_chars, placeholder_chars })
}

/// Masks the tool results before the kept turns. `Skipped` when there is none.
pub async fn mask(ctx: &Context<'_>, trigger: &Trigger) -> Result<CompactOutcome> {
    let live = ctx.store.live_messages(&ctx.session.id)?;
    let MaskPlan { targets, copies, masked_chars, placeholder_chars } =
        match plan(&live, &protected(ctx)?, ctx.config.compaction.keep_turns) {
            Ok(plan) => plan,
            Err(why) => return Ok(skipped(ctx, &why)),
        };
    // A masking step keeps the figures that fired it; an overflow stays an overflow.
    let trigger = match trigger.kind {
        TriggerKind::Overflow => trigger.clone(),
        _ => trigger.as_kind(TriggerKind::Mask),
    };
    let texts = copies.into_iter().map(|(_, text)| text).collect();
    // A placeholder is not a cut of the text: the views show it as masked, not trimmed.
    let reduction =
        Reduction { targets, texts, removed_chars: masked_chars, kept_chars: placeholder_chars, truncated: false };
    replace_with_copies(ctx, &live, CompactionReason::Mask, None, trigger, reduction)
}

/// What a reduction without a summarizer does to the messages before the kept turns: each target
/// hidden behind a copy with the text given (a placeholder, the lines kept).
pub(super) struct Reduction<'m> {
    pub targets: Vec<&'m Message>,
    pub texts: Vec<String>,
    /// Characters of the targets, and of the copies that stand for them.
    pub removed_chars: u64,
    pub kept_chars: u64,
    /// Whether the views show the copies as cut texts (trimmed outputs) rather than masked.
    pub truncated: bool,
}

/// Records `reduction` (reason `reason`) in one write — its record, the targets hidden, their
/// copies — with the events a compaction emits; undone like any compaction.
pub(super) fn replace_with_copies(
    ctx: &Context<'_>,
    live: &[Message],
    reason: CompactionReason,
    focus: Option<&str>,
    trigger: Trigger,
    reduction: Reduction<'_>,
) -> Result<CompactOutcome> {
    let session = ctx.session;
    ctx.emit(Event::CompactionStarted { reason, focus: focus.map(str::to_string) });
    // Instructions + transcript, as every compaction record measures the request.
    let instructions = crate::view::system_prompt(ctx.config, &session.workspace).chars().count() as u64;
    let before_chars: u64 = instructions + live.iter().map(|m| m.chars).sum::<u64>();
    let record = NewCompaction {
        reason,
        span: reduction.targets.iter().map(|m| m.seq).collect(),
        before_chars,
        after_chars: before_chars - reduction.removed_chars + reduction.kept_chars,
        detail: RecordDetail::Reduction,
        trigger: Some(trigger),
    };
    let id = ctx.store.write(|tx| {
        let id = compactions::insert_compaction(tx, &session.id, &record, Status::Applied)?;
        compactions::hide_messages(tx, &session.id, id, &record.span)?;
        for (original, text) in reduction.targets.iter().zip(&reduction.texts) {
            let mut copy = NewMessage::reduced_copy(original, text.clone(), id);
            copy.truncated = reduction.truncated;
            append_message(tx, &session.id, &copy)?;
        }
        compactions::applied_when_created(tx, id)?;
        Ok(id)
    })?;
    ctx.emit(Event::CompactionCompleted {
        reason,
        partial: false,
        before: Size { chars: record.before_chars, tokens: estimate_tokens(record.before_chars) },
        after: Size { chars: record.after_chars, tokens: estimate_tokens(record.after_chars) },
        summarized_messages: record.span.len() as u64,
        summarized_chars: reduction.removed_chars,
        checkpoint_chars: reduction.kept_chars,
        plugin_reports: Vec::new(),
        fidelity: None,
    });
    Ok(CompactOutcome::Completed { compaction: id, partial: false })
}

pub(super) fn skipped(ctx: &Context<'_>, why: &str) -> CompactOutcome {
    ctx.emit(Event::CompactionSkipped { reason: why.to_string() });
    CompactOutcome::Skipped { reason: why.to_string() }
}
