//! A session as Markdown, for people: the turns, each tool call with its result (long outputs keep
//! their head and tail and say their full size), each compaction as a section. Rendered from a
//! view that was already redacted, so nothing is shortened before it is redacted.

use std::collections::HashSet;
use std::fmt::Write as _;

use serde_json::Value;

use super::{LONG_OUTPUT_CHARS, SECTIONS};
use crate::transcript::Role;
use crate::view::{CompactionView, StoredMessage, StoredView};

/// The transcript for people: turns, tool calls with their results, each compaction as a section.
pub fn markdown(view: &StoredView) -> String {
    let s = &view.session;
    let mut out = String::new();
    let _ = writeln!(out, "# {}\n", one_line(&s.title));
    let _ = write!(out, "Session `{}` · workspace `{}` · started {}", s.id, s.workspace, s.created_at);
    if let Some(source) = &s.source {
        let _ = write!(out, " · imported from {source} (`{}`)", s.source_path.as_deref().unwrap_or("?"));
    }
    let calls = view.model_calls.len();
    let _ = writeln!(out, " · {} messages · {calls} model calls\n", view.messages.len());
    let mut shown: HashSet<i64> = HashSet::new();
    let mut turn = 0;
    for message in &view.messages {
        if let Some(record) = message.created_by {
            if shown.insert(record) {
                if let Some(c) = view.compactions.iter().find(|c| c.record.id == record) {
                    compaction_section(&mut out, c);
                }
            }
            if message.summary {
                continue; // the checkpoint is the section just written
            }
        }
        if message.role == Role::User && message.created_by.is_none() {
            turn += 1;
            let _ = writeln!(out, "## Turn {turn} · {}\n", message.created_at);
        }
        message_block(&mut out, message);
    }
    let others: Vec<&CompactionView> = view.compactions.iter().filter(|c| !shown.contains(&c.record.id)).collect();
    if !others.is_empty() {
        out.push_str("## Other compaction records\n\n");
        for c in others {
            compaction_section(&mut out, c);
        }
    }
    out
}

fn message_block(out: &mut String, m: &StoredMessage) {
    let mut notes = Vec::new();
    if m.compacted {
        notes.push(match m.compacted_by {
            Some(id) => format!("compacted by #{id}: no longer sent"),
            None => "compacted: no longer sent".into(),
        });
    }
    if m.truncated {
        notes.push("cut to fit the context budget".into());
    }
    if m.uncertain {
        notes.push("uncertain".into());
    }
    let note = if notes.is_empty() { String::new() } else { format!(" _({})_", notes.join("; ")) };
    match m.role {
        Role::User => {
            let _ = writeln!(out, "**User**{note}\n\n{}\n", quote(&m.content));
        }
        Role::System => {
            let _ = writeln!(out, "**System**{note}\n\n{}\n", quote(&m.content));
        }
        Role::Assistant => {
            if !m.content.trim().is_empty() || m.tool_calls.is_empty() {
                let _ = writeln!(out, "**Assistant**{note}\n\n{}\n", m.content.trim());
            }
            for call in &m.tool_calls {
                let _ = writeln!(out, "**Tool call** `{}` (`{}`){note}\n", call.name, call.id);
                let _ = writeln!(out, "{}", fenced(&pretty_arguments(&call.arguments), "json"));
            }
        }
        Role::Tool => {
            let id = m.tool_call_id.as_deref().unwrap_or("?");
            let _ = writeln!(out, "**Result** (`{id}`){note}\n");
            let _ = writeln!(out, "{}", fenced(&shorten(&m.content, LONG_OUTPUT_CHARS), ""));
        }
    }
}

fn compaction_section(out: &mut String, c: &CompactionView) {
    let r = &c.record;
    let (kind, reason, status) = (r.kind.as_str(), r.reason.as_str(), r.status.as_str());
    let _ = writeln!(out, "## Compaction #{} · {kind} · {reason} ({status}) · {}\n", r.id, r.created_at);
    if let Some(focus) = r.focus.as_deref().filter(|f| !f.trim().is_empty()) {
        let _ = writeln!(out, "Focus: {}\n", one_line(focus));
    }
    let _ = writeln!(
        out,
        "Replaced {} messages ({} chars); the request went from {} to {} chars{}.\n",
        r.summarized_messages,
        r.summarized_chars,
        r.before_chars,
        r.after_chars,
        if r.partial { "; partial: the summary was cut by its output budget" } else { "" }
    );
    if let Some(f) = &r.fidelity {
        let _ =
            writeln!(out, "Fidelity {:.0}% ({} missing of {} checked).\n", f.score * 100.0, f.missing.len(), f.checked);
    }
    if let Some(sections) = r.checkpoint.get("sections").and_then(Value::as_object) {
        for (name, heading) in SECTIONS {
            match sections.get(name) {
                Some(Value::Array(items)) if !items.is_empty() => {
                    let _ = writeln!(out, "### {heading}\n");
                    for item in items.iter().filter_map(Value::as_str) {
                        let _ = writeln!(out, "- {}", one_line(item));
                    }
                    out.push('\n');
                }
                Some(Value::String(text)) if !text.trim().is_empty() => {
                    let _ = writeln!(out, "### {heading}\n\n{}\n", text.trim());
                }
                _ => {}
            }
        }
    } else if let Some(text) = r.checkpoint.get("text").and_then(Value::as_str) {
        let _ = writeln!(out, "### Checkpoint\n\n{}\n", quote(text));
    }
}

/// Text over `limit` characters: its head and tail, with the full size noted between them.
pub fn shorten(text: &str, limit: usize) -> String {
    let total = text.chars().count();
    if total <= limit {
        return text.to_string();
    }
    let head: String = text.chars().take(limit / 2).collect();
    let tail: String = text.chars().skip(total - limit / 4).collect();
    format!("{head}\n[… shortened: {total} characters in full, {} not shown …]\n{tail}", total - limit / 2 - limit / 4)
}

pub(super) fn pretty_arguments(arguments: &str) -> String {
    serde_json::from_str::<Value>(arguments)
        .ok()
        .and_then(|v| serde_json::to_string_pretty(&v).ok())
        .unwrap_or_else(|| arguments.to_string())
}

/// A fenced block whose fence is longer than any backtick run inside.
fn fenced(text: &str, lang: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    format!("{fence}{lang}\n{}\n{fence}\n", text.trim_end_matches('\n'))
}

fn quote(text: &str) -> String {
    text.trim_end().lines().map(|l| format!("> {l}")).collect::<Vec<_>>().join("\n")
}

pub(super) fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_outputs_keep_head_and_tail_and_say_their_size() {
        let text: String = (0..10_000).map(|i| char::from(b'a' + (i % 26) as u8)).collect();
        let short = shorten(&text, LONG_OUTPUT_CHARS);
        assert!(short.starts_with(&text[..2000]) && short.ends_with(&text[9000..]));
        assert!(short.contains("[… shortened: 10000 characters in full, 7000 not shown …]"), "{short}");
        assert_eq!(shorten("small", LONG_OUTPUT_CHARS), "small");
        assert_eq!(fenced("a ``` b", ""), "````\na ``` b\n````\n");
    }
}
