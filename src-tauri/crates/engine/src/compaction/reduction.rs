//! Reducing a huge kept tail in place (docs/compaction.md). Planning is pure and needs only lengths; applying
//! a plan cuts contents on character boundaries and appends the marker. Checkpoints are never cut.

/// Appended to every cut content.
pub const MARKER: &str = crate::transcript::TRUNCATION_MARKER;

/// Transcript target floor: the reduction never aims below this many characters.
pub const TARGET_FLOOR: u64 = 4000;

/// Descending per-message limits, one per round.
pub const TOOL_RESULT_LIMITS: [u64; 5] = [8000, 4096, 2048, 1024, 512];
pub const TEXT_LIMITS: [u64; 5] = [16000, 8192, 4096, 2048, 1024];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Cuttable {
    ToolResult,
    /// User or assistant text.
    Text,
    /// Checkpoints and injected context: never cut.
    Never,
}

/// A live message as the planner sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Sized {
    pub kind: Cuttable,
    /// Characters of content (the only part a cut changes).
    pub content_chars: u64,
    /// Characters that stay whatever happens (tool-call names and arguments).
    pub fixed_chars: u64,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    /// `(index, new content length in chars)`, in index order.
    pub cuts: Vec<(usize, u64)>,
    pub before: u64,
    pub after: u64,
    pub fits: bool,
}

/// The transcript's character target: `max(4000, maxContextChars − instructions)`.
pub fn target(max_context_chars: u64, instruction_chars: u64) -> u64 {
    TARGET_FLOOR.max(max_context_chars.saturating_sub(instruction_chars))
}

/// Plans cuts, largest first within each round of descending limits (ties by position), stopping
/// as soon as the transcript fits `target` or every message sits at its floor.
pub fn plan_reduction(messages: &[Sized], target: u64) -> Plan {
    let before: u64 = messages.iter().map(|m| m.content_chars + m.fixed_chars).sum();
    let mut lengths: Vec<u64> = messages.iter().map(|m| m.content_chars).collect();
    let mut total = before;
    let mut cut = vec![false; messages.len()];
    'rounds: for round in 0..TOOL_RESULT_LIMITS.len() {
        if total <= target {
            break;
        }
        let limit_of = |kind: Cuttable| match kind {
            Cuttable::ToolResult => Some(TOOL_RESULT_LIMITS[round]),
            Cuttable::Text => Some(TEXT_LIMITS[round]),
            Cuttable::Never => None,
        };
        let mut over: Vec<usize> = (0..messages.len())
            .filter(|&i| limit_of(messages[i].kind).is_some_and(|limit| lengths[i] > limit))
            .collect();
        over.sort_by(|&a, &b| lengths[b].cmp(&lengths[a]).then(a.cmp(&b)));
        for i in over {
            if total <= target {
                break 'rounds;
            }
            let Some(limit) = limit_of(messages[i].kind) else { continue };
            total -= lengths[i] - limit;
            lengths[i] = limit;
            cut[i] = true;
        }
    }
    let cuts = (0..messages.len()).filter(|&i| cut[i]).map(|i| (i, lengths[i])).collect();
    Plan { cuts, before, after: total, fits: total <= target }
}

/// Cuts `content` to at most `limit` characters, the marker included, on a character boundary.
pub fn cut_content(content: &str, limit: u64) -> String {
    let limit = limit as usize;
    if content.chars().count() <= limit {
        return content.to_string();
    }
    let marker = format!("\n{MARKER}");
    let keep = limit.saturating_sub(marker.chars().count());
    let end = content.char_indices().nth(keep).map(|(i, _)| i).unwrap_or(content.len());
    let mut out = String::with_capacity(end + marker.len());
    out.push_str(&content[..end]);
    out.push_str(&marker);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(n: u64) -> Sized {
        Sized { kind: Cuttable::ToolResult, content_chars: n, fixed_chars: 0 }
    }
    fn text(n: u64) -> Sized {
        Sized { kind: Cuttable::Text, content_chars: n, fixed_chars: 0 }
    }

    #[test]
    fn largest_first_with_fewest_cuts() {
        // Two big tool results; cutting the largest alone reaches the target.
        let plan = plan_reduction(&[text(100), tool(50_000), tool(60_000)], 60_000);
        assert_eq!(plan.cuts, vec![(2, 8000)]);
        assert!(plan.fits);
        // Ties are broken by position.
        let plan = plan_reduction(&[tool(20_000), tool(20_000)], 28_500);
        assert_eq!(plan.cuts, vec![(0, 8000)]);
        // Checkpoints are never cut; when nothing else can give, the floors are reached.
        let checkpoint = Sized { kind: Cuttable::Never, content_chars: 9000, fixed_chars: 0 };
        let plan = plan_reduction(&[checkpoint, tool(9000), text(30_000)], 4000);
        assert_eq!(plan.cuts, vec![(1, 512), (2, 1024)]);
        assert!(!plan.fits);
        assert_eq!(plan.after, 9000 + 512 + 1024);
    }

    #[test]
    fn medium_results_are_cut_together_in_later_rounds() {
        // Many medium tool outputs each under 8000 but over the target together.
        let messages: Vec<Sized> = (0..40).map(|_| tool(5000)).collect();
        let plan = plan_reduction(&messages, 170_000);
        assert!(plan.fits);
        assert_eq!(plan.cuts.len(), 34, "the fewest cuts that reach the target");
        assert!(plan.cuts.iter().all(|&(_, len)| len == 4096));
        // A lower target needs the next round too.
        let plan = plan_reduction(&messages, 100_000);
        assert!(plan.fits && plan.cuts.iter().any(|&(_, len)| len == 2048));
    }

    #[test]
    fn cuts_respect_characters_and_carry_the_marker() {
        let content = "é".repeat(10_000);
        let cut = cut_content(&content, 1024);
        assert_eq!(cut.chars().count(), 1024);
        assert!(cut.ends_with(MARKER));
        assert_eq!(cut_content("short", 1024), "short");
    }

    #[test]
    fn property_fits_or_sits_at_floors() {
        // A deterministic pseudo-random sweep over shapes (xorshift), checking the invariants.
        let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..500 {
            let n = (next() % 60) as usize;
            let messages: Vec<Sized> = (0..n)
                .map(|_| {
                    let kind = match next() % 3 {
                        0 => Cuttable::ToolResult,
                        1 => Cuttable::Text,
                        _ => Cuttable::Never,
                    };
                    Sized { kind, content_chars: next() % 70_000, fixed_chars: next() % 300 }
                })
                .collect();
            let target = TARGET_FLOOR + next() % 400_000;
            let plan = plan_reduction(&messages, target);
            let mut lengths: Vec<u64> = messages.iter().map(|m| m.content_chars).collect();
            for &(i, len) in &plan.cuts {
                assert_ne!(messages[i].kind, Cuttable::Never, "checkpoints are never cut");
                assert!(len < messages[i].content_chars, "a cut shrinks");
                lengths[i] = len;
            }
            let after: u64 = lengths.iter().zip(&messages).map(|(l, m)| l + m.fixed_chars).sum();
            assert_eq!(after, plan.after);
            assert_eq!(lengths.len(), messages.len(), "count unchanged");
            let at_floor = messages.iter().zip(&lengths).all(|(m, &l)| match m.kind {
                Cuttable::ToolResult => l <= 512,
                Cuttable::Text => l <= 1024,
                Cuttable::Never => true,
            });
            assert!(plan.fits || at_floor, "fits the target or every message is at its floor");
            assert_eq!(plan.fits, after <= target);
        }
    }
}
