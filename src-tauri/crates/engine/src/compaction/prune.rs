//! Line pruning (`compaction.strategy: "prune"`): a verbatim baseline with no summarizer call.
//! Before the last `keepTurns` turns, long tool outputs and answers lose whole lines — never a word
//! rewritten: each keeps its first and last lines, every line that reads like a finding (an error,
//! a failure, a warning, a file named) and, given a focus, every line holding one of its words;
//! each run of deleted lines leaves one line saying how many. Users' messages, pinned messages and
//! results holding a pin stay whole. The originals are hidden behind the pruned copies (as a
//! reduction: undone like any compaction).

use std::collections::BTreeSet;

use crate::context::Context;
use crate::error::Result;
use crate::events::CompactionReason;
use crate::store::compactions::Trigger;
use crate::transcript::{Message, Role};

use super::boundary::select_safe_boundary;
use super::mask::{protected, replace_with_copies, skipped, Protected, Reduction};
use super::summarize::{shape_of, CompactOutcome};

/// Lines always kept at the start and at the end of a pruned text.
pub const HEAD_LINES: usize = 8;
pub const TAIL_LINES: usize = 8;
/// A text of no more lines than this is left whole.
const MIN_LINES: usize = HEAD_LINES + TAIL_LINES + 4;

/// Words that make a line a finding, whatever the focus.
const SALIENT: &[&str] = &[
    "error",
    "fail",
    "panic",
    "warning",
    "exception",
    "traceback",
    "assert",
    "denied",
    "not found",
    "fatal",
    "expected",
];

/// What stands for a run of deleted lines.
pub fn gap_line(lines: usize) -> String {
    format!("[… {lines} line{} pruned]", if lines == 1 { "" } else { "s" })
}

/// The words of a focus a line must hold one of to be kept (three letters or more, lowercased,
/// words with no meaning of their own left out).
pub fn focus_terms(focus: Option<&str>) -> Vec<String> {
    let terms: BTreeSet<String> = focus
        .unwrap_or_default()
        .split(|c: char| !c.is_alphanumeric() && c != '_' && c != '.' && c != '/' && c != '-')
        .map(|w| w.trim_matches(|c: char| !c.is_alphanumeric()).to_lowercase())
        .filter(|w| w.chars().count() >= 3 && !crate::fidelity::STOPWORDS.contains(&w.as_str()))
        .collect();
    terms.into_iter().collect()
}

fn keeps(line: &str, terms: &[String]) -> bool {
    let lower = line.to_lowercase();
    SALIENT.iter().any(|w| lower.contains(w))
        || crate::fidelity::names_a_file(line)
        || terms.iter().any(|t| lower.contains(t.as_str()))
}

/// `text` with whole lines deleted, or `None` when it is too short to prune or pruning would not
/// make it shorter. The lines kept are the text's own, in order.
pub fn prune_text(text: &str, terms: &[String]) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    let n = lines.len();
    if n <= MIN_LINES {
        return None;
    }
    let mut out: Vec<String> = Vec::new();
    let mut gap = 0usize;
    for (i, line) in lines.iter().enumerate() {
        if i < HEAD_LINES || i >= n - TAIL_LINES || keeps(line, terms) {
            if gap > 0 {
                out.push(gap_line(gap));
                gap = 0;
            }
            out.push((*line).to_string());
        } else {
            gap += 1;
        }
    }
    let pruned = out.join("\n");
    (pruned.chars().count() < text.chars().count()).then_some(pruned)
}

/// Whether `message` may lose lines: a tool result or an answer (not a user's message, a
/// checkpoint, a copy already reduced unless cut by the budget), holding no pin.
fn prunable(message: &Message, protected: &Protected) -> bool {
    matches!(message.role, Role::Tool | Role::Assistant)
        && !message.summary
        && (message.created_by.is_none() || message.truncated)
        && !protected.covers(message)
}

/// What pruning would change in `live`: the messages before the kept turns, each with its
/// pruned text. Shared by the compaction and the dialog's preview.
pub struct PrunePlan<'m> {
    pub targets: Vec<&'m Message>,
    pub copies: Vec<String>,
    pub pruned_chars: u64,
    pub kept_chars: u64,
}

/// The plan for `live` keeping the last `keep_turns` turns; `Err` says why nothing can be pruned.
pub fn plan<'m>(
    live: &'m [Message],
    protected: &Protected,
    keep_turns: u32,
    focus: Option<&str>,
) -> std::result::Result<PrunePlan<'m>, String> {
    let shapes: Vec<_> = live.iter().map(shape_of).collect();
    let cut = select_safe_boundary(&shapes, keep_turns).map_err(|skip| skip.message().to_string())?;
    let terms = focus_terms(focus);
    let (targets, copies): (Vec<&Message>, Vec<String>) = live[..cut]
        .iter()
        .filter(|m| prunable(m, protected))
        .filter_map(|m| Some((m, prune_text(&m.content, &terms)?)))
        .unzip();
    if targets.is_empty() {
        return Err(format!(
            "there is no tool output or answer before the kept turns longer than {MIN_LINES} lines to prune"
        ));
    }
    let pruned_chars = targets.iter().map(|m| m.chars).sum();
    let kept_chars = copies.iter().map(|text| text.chars().count() as u64).sum();
    Ok(PrunePlan { targets, copies, pruned_chars, kept_chars })
}

/// Prunes the messages before the kept turns. `Skipped` when there is nothing to prune.
pub async fn prune(ctx: &Context<'_>, focus: Option<&str>, trigger: &Trigger) -> Result<CompactOutcome> {
    let live = ctx.store.live_messages(&ctx.session.id)?;
    let PrunePlan { targets, copies, pruned_chars, kept_chars } =
        match plan(&live, &protected(ctx)?, ctx.config.compaction.keep_turns, focus) {
            Ok(plan) => plan,
            Err(why) => return Ok(skipped(ctx, &why)),
        };
    let reduction = Reduction { targets, texts: copies, removed_chars: pruned_chars, kept_chars, truncated: true };
    replace_with_copies(ctx, &live, CompactionReason::Prune, focus, trigger.clone(), reduction)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn log(lines: usize) -> String {
        (1..=lines).map(|i| format!("step {i}: compiled module_{i}")).collect::<Vec<_>>().join("\n")
    }

    #[test]
    fn whole_lines_go_and_every_kept_line_is_the_texts_own() {
        let mut text = log(60);
        text = text.replace("step 30: compiled module_30", "error[E0308]: mismatched types in module_30");
        text = text.replace("step 40: compiled module_40", "  --> src/parser.rs:12:5");
        let pruned = prune_text(&text, &[]).unwrap();
        let kept: Vec<&str> = pruned.lines().filter(|l| !l.starts_with("[… ")).collect();
        assert!(kept.iter().all(|l| text.lines().any(|o| o == *l)), "no line rewritten: {pruned}");
        assert_eq!(&kept[..8], &text.lines().take(8).collect::<Vec<_>>()[..], "the head is kept");
        assert_eq!(&kept[kept.len() - 8..], &text.lines().skip(52).collect::<Vec<_>>()[..], "the tail is kept");
        assert!(kept.contains(&"error[E0308]: mismatched types in module_30"));
        assert!(kept.contains(&"  --> src/parser.rs:12:5"), "a line naming a file is a finding");
        let gaps: Vec<&str> = pruned.lines().filter(|l| l.starts_with("[… ")).collect();
        assert_eq!(gaps, vec!["[… 21 lines pruned]", "[… 9 lines pruned]", "[… 12 lines pruned]"]);
    }

    #[test]
    fn a_focus_keeps_the_lines_that_hold_its_words() {
        let text = log(60);
        let terms = focus_terms(Some("What about module_33?"));
        assert_eq!(terms, vec!["module_33".to_string()]);
        let pruned = prune_text(&text, &terms).unwrap();
        assert!(pruned.lines().any(|l| l == "step 33: compiled module_33"), "{pruned}");
        assert!(!pruned.lines().any(|l| l == "step 34: compiled module_34"));
    }

    #[test]
    fn short_texts_are_left_whole() {
        assert_eq!(prune_text(&log(MIN_LINES), &[]), None);
        assert!(prune_text(&log(MIN_LINES + 1), &[]).is_some());
    }
}
