//! Side-by-side diffs of trimmed tool outputs: what was stored beside what the model got. Computed
//! with `similar` on a bounded window, so multi-megabyte outputs produce a bounded payload.

use serde::Serialize;
use similar::{ChangeTag, TextDiff};
use ts_rs::TS;

/// Diffs look at most this much of each side; the rest is summarized.
pub const WINDOW_CHARS: usize = 512 * 1024;
/// Unchanged runs keep this many lines of context around changes.
const CONTEXT_LINES: usize = 3;
/// At most this many lines per change block are sent; the rest are counted.
const MAX_BLOCK_LINES: usize = 400;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum LineTag {
    Equal,
    Delete,
    Insert,
    /// A collapsed run: `text` says how many lines were left out.
    Skipped,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct DiffLine {
    pub tag: LineTag,
    pub old_line: Option<u32>,
    pub new_line: Option<u32>,
    pub text: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct TrimmedDiff {
    /// The reduced copy the model got, and the stored original.
    pub seq: i64,
    pub original_seq: i64,
    pub tool_call_id: Option<String>,
    pub original_chars: u64,
    pub reduced_chars: u64,
    pub cut_chars: u64,
    /// Characters of the original beyond the diff window (not diffed, only counted).
    pub beyond_window_chars: u64,
    pub lines: Vec<DiffLine>,
}

fn window(text: &str) -> (&str, u64) {
    match text.char_indices().nth(WINDOW_CHARS) {
        Some((end, _)) => (&text[..end], text[end..].chars().count() as u64),
        None => (text, 0),
    }
}

/// Line diff of `original` → `reduced`, with long unchanged runs and long blocks collapsed.
pub fn line_diff(original: &str, reduced: &str) -> (Vec<DiffLine>, u64) {
    let (old, beyond) = window(original);
    let (new, _) = window(reduced);
    let diff = TextDiff::configure().timeout(std::time::Duration::from_millis(500)).diff_lines(old, new);
    let mut raw: Vec<DiffLine> = Vec::new();
    for change in diff.iter_all_changes() {
        let tag = match change.tag() {
            ChangeTag::Equal => LineTag::Equal,
            ChangeTag::Delete => LineTag::Delete,
            ChangeTag::Insert => LineTag::Insert,
        };
        raw.push(DiffLine {
            tag,
            old_line: change.old_index().map(|i| i as u32 + 1),
            new_line: change.new_index().map(|i| i as u32 + 1),
            text: change.value().trim_end_matches('\n').to_string(),
        });
    }
    (collapse(raw), beyond)
}

fn skipped(count: usize, what: &str) -> DiffLine {
    DiffLine { tag: LineTag::Skipped, old_line: None, new_line: None, text: format!("{count} {what} lines not shown") }
}

fn collapse(lines: Vec<DiffLine>) -> Vec<DiffLine> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let tag = lines[i].tag;
        let start = i;
        while i < lines.len() && lines[i].tag == tag {
            i += 1;
        }
        let run = &lines[start..i];
        if tag == LineTag::Equal {
            let keep_head = if start == 0 { 0 } else { CONTEXT_LINES };
            let keep_tail = if i == lines.len() { 0 } else { CONTEXT_LINES };
            if run.len() > keep_head + keep_tail + 1 {
                out.extend_from_slice(&run[..keep_head]);
                out.push(skipped(run.len() - keep_head - keep_tail, "unchanged"));
                out.extend_from_slice(&run[run.len() - keep_tail..]);
                continue;
            }
        } else if run.len() > MAX_BLOCK_LINES {
            out.extend_from_slice(&run[..MAX_BLOCK_LINES]);
            out.push(skipped(run.len() - MAX_BLOCK_LINES, if tag == LineTag::Delete { "removed" } else { "added" }));
            continue;
        }
        out.extend_from_slice(run);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cut_output_diffs_as_kept_lines_then_removed_lines_and_the_marker() {
        let original: String = (1..=1000).map(|i| format!("line {i}\n")).collect();
        let reduced = format!("{}… [truncated by context budget]", &original[..60]);
        let (lines, beyond) = line_diff(&original, &reduced);
        assert_eq!(beyond, 0);
        assert_eq!(lines[0].tag, LineTag::Skipped, "unchanged head collapsed: {:?}", &lines[..3]);
        assert!(lines.iter().any(|l| l.tag == LineTag::Insert && l.text.contains("truncated by context budget")));
        let removed = lines.iter().filter(|l| l.tag == LineTag::Delete).count();
        assert_eq!(removed, MAX_BLOCK_LINES);
        assert!(lines.iter().any(|l| l.tag == LineTag::Skipped && l.text.contains("removed lines not shown")));
    }

    #[test]
    fn huge_outputs_are_windowed() {
        let original = "x".repeat(WINDOW_CHARS + 10_000);
        let (_, beyond) = line_diff(&original, "x");
        assert_eq!(beyond, 10_000);
    }
}
