//! The artifact trail: the files a replaced span touched and how its last commands ended, recorded
//! beside the model's checkpoint.

use std::collections::HashMap;

use serde_json::Value;

use crate::transcript::{Message, Role};

use super::*;

/// What Alisio records of a replaced span's artifacts beside the model's checkpoint, so they
/// survive however well the model summarizes: each file touched with its last change, and the
/// last commands with how their output ended. Compact by construction (a few lines each, the most
/// recent first kept).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ArtifactTrail {
    /// `path (edited: …)`, `path (written: …; then edited: …)`, `path (read)` — in the order last
    /// touched.
    pub files: Vec<String>,
    /// ``command` → its output's last lines`, and likewise any other tool that is not a file's
    /// (a search, a listing).
    pub commands: Vec<String>,
}

/// Files kept in a trail, commands kept, and characters of each excerpt.
pub(super) const TRAIL_FILES: usize = 20;
pub(super) const TRAIL_COMMANDS: usize = 8;
pub(super) const TRAIL_EXCERPT: usize = 200;

impl ArtifactTrail {
    pub fn is_empty(&self) -> bool {
        self.files.is_empty() && self.commands.is_empty()
    }
}

/// The trail of `span`: tool calls and their results, read in order.
pub fn artifact_trail(span: &[Message], workspace: &str) -> ArtifactTrail {
    let results: HashMap<&str, &str> = span
        .iter()
        .filter(|m| m.role == Role::Tool)
        .filter_map(|m| Some((m.tool_call_id.as_deref()?, m.content.as_str())))
        .collect();
    // path → (last touch order, what was written, what the last edit said, read only).
    let mut files: HashMap<String, (usize, Option<String>, Option<String>)> = HashMap::new();
    let mut commands: Vec<String> = Vec::new();
    let mut order = 0usize;
    for call in span.iter().filter(|m| m.role == Role::Assistant).flat_map(|m| &m.tool_calls) {
        order += 1;
        let args: Value = serde_json::from_str(&call.arguments).unwrap_or(Value::Null);
        let text = |key: &str| args.get(key).and_then(Value::as_str).unwrap_or_default();
        let touched = files_of(&call.name, &call.arguments, workspace);
        for (path, op) in &touched {
            if path.is_empty() {
                continue;
            }
            let entry = files.entry(path.clone()).or_insert((order, None, None));
            entry.0 = order;
            match op {
                FileOp::Written => {
                    let head: Vec<&str> = text("content").lines().filter(|l| !l.trim().is_empty()).take(3).collect();
                    // A new content: what earlier edits said no longer holds.
                    *entry = (order, Some(one_line(&head.join("\n"))), None);
                }
                FileOp::Edited => {
                    let new = ["new", "new_string", "newString", "replacement"]
                        .iter()
                        .map(|k| text(k))
                        .find(|t| !t.is_empty());
                    entry.2 = Some(new.map(one_line).unwrap_or_default());
                }
                FileOp::Read => {}
            }
        }
        let command = command_of(&args);
        // A command, or a tool that touched no file (a search, a listing): how its output ended.
        let shown = if !command.trim().is_empty() {
            Some(command)
        } else if touched.is_empty() && call.name.len() <= 40 {
            let args = match &args {
                Value::Object(map) => map.values().filter_map(Value::as_str).collect::<Vec<_>>().join(" "),
                _ => String::new(),
            };
            Some(format!("{} {args}", call.name).trim().to_string())
        } else {
            None
        };
        let output = results.get(call.id.as_str()).copied().unwrap_or_default();
        // A call Alisio answered as not run did nothing worth recording.
        let not_run = output.trim_start().trim_start_matches("error:").trim_start().starts_with("not run — ");
        if let Some(shown) = shown.filter(|_| !not_run) {
            // A result cut by the budget ends with the cut's marker: the lines before it.
            let tail: Vec<&str> = output
                .lines()
                .rev()
                .filter(|l| !l.trim().is_empty() && !l.contains(crate::transcript::TRUNCATION_MARKER))
                .take(3)
                .collect();
            let tail: Vec<&str> = tail.into_iter().rev().collect();
            let ended = if tail.is_empty() { "no output".to_string() } else { one_line(&tail.join("\n")) };
            commands.push(format!("`{}` → {ended}", one_line(&shown)));
        }
    }
    let files: HashMap<String, (usize, String)> = files
        .into_iter()
        .map(|(path, (order, written, edited))| {
            let said = match (written, edited) {
                (Some(w), Some(e)) => format!("{path} (written: {w}; then edited: {e})"),
                (Some(w), None) => format!("{path} (written: {w})"),
                (None, Some(e)) if !e.is_empty() => format!("{path} (edited: {e})"),
                (None, Some(_)) => format!("{path} (edited)"),
                (None, None) => format!("{path} (read)"),
            };
            (path, (order, said))
        })
        .collect();
    let mut files: Vec<(usize, String)> = files.into_values().collect();
    files.sort_by_key(|(order, _)| std::cmp::Reverse(*order));
    files.truncate(TRAIL_FILES);
    files.reverse();
    let skip = commands.len().saturating_sub(TRAIL_COMMANDS);
    ArtifactTrail { files: files.into_iter().map(|(_, f)| f).collect(), commands: commands.split_off(skip) }
}

/// `text` on one line (newlines shown as ` ⏎ `), cut to the excerpt length.
pub(super) fn one_line(text: &str) -> String {
    let joined = text.trim().split('\n').map(str::trim_end).collect::<Vec<_>>().join(" ⏎ ");
    if joined.chars().count() > TRAIL_EXCERPT {
        let cut: String = joined.chars().take(TRAIL_EXCERPT - 1).collect();
        format!("{cut}…")
    } else {
        joined
    }
}
