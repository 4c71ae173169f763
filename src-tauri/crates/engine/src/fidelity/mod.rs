//! Checkpoint fidelity: does a checkpoint keep what the history it replaced
//! holds? Checked without a model, by the documented rules of docs/FIDELITY.md: the files the span
//! read, wrote or edited; the user's constraints; the last unresolved tool failure; the latest
//! request. Every missing item says why it was flagged.

use std::collections::{BTreeMap, HashMap, HashSet};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::transcript::{Message, Role};

mod paths;
mod trail;

use paths::*;
pub use paths::{fetch_of, files_changed, names_a_file, Fetch};
pub use trail::{artifact_trail, ArtifactTrail};

/// `(field, heading)` of a checkpoint's seven sections, in order.
pub const CHECKPOINT_SECTIONS: [(&str, &str); 7] = [
    ("goal", "Goal"),
    ("instructions", "User instructions/constraints"),
    ("discoveries", "Discoveries"),
    ("accomplished", "Accomplished"),
    ("currentState", "Current state"),
    ("nextSteps", "Next steps"),
    ("relevantFiles", "Relevant files"),
];

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum MissingKind {
    File,
    Instruction,
    Error,
    Task,
}

impl MissingKind {
    pub const ALL: [MissingKind; 4] =
        [MissingKind::File, MissingKind::Instruction, MissingKind::Error, MissingKind::Task];

    /// Its name, as stored and shown (`file`, `instruction`, `error`, `task`).
    pub fn as_str(self) -> &'static str {
        match self {
            MissingKind::File => "file",
            MissingKind::Instruction => "instruction",
            MissingKind::Error => "error",
            MissingKind::Task => "task",
        }
    }

    /// The checkpoint section an item of this kind belongs in ("add to checkpoint").
    pub fn section(self) -> &'static str {
        match self {
            MissingKind::File => "relevantFiles",
            MissingKind::Instruction => "instructions",
            MissingKind::Error => "currentState",
            MissingKind::Task => "nextSteps",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Missing {
    pub kind: MissingKind,
    pub value: String,
    /// The messages of the replaced span where it appears.
    pub seqs: Vec<i64>,
    pub why: String,
    /// The checkpoint section that should carry it.
    pub section: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Fidelity {
    /// `(checked - missing) / checked`; 1.0 when there was nothing to check.
    pub score: f64,
    pub checked: u32,
    pub missing: Vec<Missing>,
    /// Each pin, kept when the request after the checkpoint carries it verbatim.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    #[cfg_attr(feature = "ts", ts(optional = nullable))]
    pub pins: Vec<PinKept>,
}

/// Which pin: a stored one by its id, or a rules file by its name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(untagged)]
pub enum PinId {
    Stored(i64),
    File(String),
}

/// Whether a compaction's request carries a pin verbatim (`fidelity.pins`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct PinKept {
    pub id: PinId,
    pub kept: bool,
}

/// A checkpoint as the checks read it: its sections, or one text standing for all of them.
pub enum CheckpointText<'a> {
    Sections(&'a Map<String, Value>),
    Text(&'a str),
}

impl CheckpointText<'_> {
    /// From a stored checkpoint value (`{"sections": …}` or `{"text": …}`).
    pub fn from_value(value: &Value) -> CheckpointText<'_> {
        match value.get("sections").and_then(Value::as_object) {
            Some(sections) => CheckpointText::Sections(sections),
            None => CheckpointText::Text(value.get("text").and_then(Value::as_str).unwrap_or_default()),
        }
    }

    /// Every section's text, in order (all of a text checkpoint).
    pub fn all(&self) -> String {
        self.of(&CHECKPOINT_SECTIONS.map(|(field, _)| field))
    }

    /// The text of `sections` (all of a text checkpoint).
    fn of(&self, sections: &[&str]) -> String {
        match self {
            CheckpointText::Text(text) => text.to_string(),
            CheckpointText::Sections(map) => {
                let mut out = String::new();
                for section in sections {
                    match map.get(*section) {
                        Some(Value::String(s)) => out.push_str(s),
                        Some(Value::Array(items)) => {
                            for item in items {
                                out.push_str(
                                    item.as_str().map(str::to_string).unwrap_or_else(|| item.to_string()).as_str(),
                                );
                                out.push('\n');
                            }
                        }
                        Some(other) => out.push_str(&other.to_string()),
                        None => {}
                    }
                    out.push('\n');
                }
                out
            }
        }
    }
}

/// Words that carry no meaning of their own for the overlap measure.
pub const STOPWORDS: &[&str] = &[
    "the", "and", "for", "that", "this", "with", "from", "you", "your", "are", "was", "were", "but", "not", "all",
    "any", "can", "has", "have", "had", "its", "into", "out", "our", "their", "them", "then", "than", "there", "these",
    "those", "what", "when", "where", "which", "who", "why", "how", "will", "would", "should", "could", "must",
    "never", "always", "keep", "only", "don", "dont", "does", "did", "doing", "done", "please", "make", "sure", "also",
    "just", "very", "more", "most", "some", "such", "each", "other", "about", "after", "before", "again", "once",
    "here", "now", "let", "use", "using", "want", "need", "like", "get", "got", "too", "one", "two", "avoid", "ensure",
    "without",
];

/// Keywords that make a user sentence a constraint.
const CONSTRAINT_WORDS: &[&str] = &[
    "must",
    "don't",
    "dont",
    "do not",
    "never",
    "always",
    "keep",
    "only",
    "avoid",
    "make sure",
    "ensure",
    "should not",
    "shouldn't",
    "without",
];

/// The share of a text's significant words a counterpart must contain to count as covering it.
pub const COVERAGE: f64 = 0.5;

pub(crate) fn significant_words(text: &str) -> Vec<String> {
    let mut seen = HashSet::new();
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .map(str::to_lowercase)
        .filter(|w| w.chars().count() >= 3 && !STOPWORDS.contains(&w.as_str()))
        .filter(|w| seen.insert(w.clone()))
        .collect()
}

/// The share of `needle`'s significant words found in `haystack` (1.0 when it has none).
fn overlap(needle: &str, haystack: &str) -> (usize, usize) {
    let words = significant_words(needle);
    let hay: HashSet<String> = significant_words(haystack).into_iter().collect();
    (words.iter().filter(|w| hay.contains(*w)).count(), words.len())
}

fn covered((found, total): (usize, usize)) -> bool {
    total == 0 || found as f64 / total as f64 >= COVERAGE
}

/// Whether a tool result reports a failure (Alisio's `error:` results and non-zero exit codes,
/// and the failure flags imported formats record).
fn failed(result: &Message) -> bool {
    if let Some(meta) = &result.meta {
        if meta.get("isError").and_then(Value::as_bool) == Some(true)
            || meta.get("status").and_then(Value::as_str) == Some("error")
        {
            return true;
        }
        let exit = meta.get("exit").or_else(|| meta.pointer("/exec/exitCode")).and_then(Value::as_i64);
        if let Some(code) = exit {
            return code != 0;
        }
    }
    let text = result.content.trim_end();
    if text.starts_with("error:") {
        return true;
    }
    let last_line = text.lines().last().unwrap_or_default();
    let code = last_line
        .strip_prefix("[exit code ")
        .and_then(|r| r.strip_suffix(']'))
        .or_else(|| text.lines().find_map(|l| l.strip_prefix("Process exited with code ")))
        .and_then(|c| c.trim().parse::<i64>().ok());
    code.is_some_and(|c| c != 0)
}

fn excerpt(text: &str, max: usize) -> String {
    let line = text.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("");
    let mut out: String = line.chars().take(max).collect();
    if line.chars().count() > max {
        out.push('…');
    }
    out
}

/// The target of a tool call for "the same tool on the same target": its file, else its command.
fn target_of(name: &str, arguments: &str, workspace: &str) -> String {
    let args: Value = serde_json::from_str(arguments).unwrap_or(Value::Null);
    for key in ["path", "file_path", "filePath", "file", "command", "cmd"] {
        match args.get(key) {
            Some(Value::String(s)) if key.contains("ath") || key == "file" => return normalize(s, workspace),
            Some(Value::String(s)) => return s.trim().to_string(),
            Some(Value::Array(parts)) => {
                return parts.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(" ");
            }
            _ => {}
        }
    }
    name.to_string()
}

/// A message the user typed: not a checkpoint, not context an agent injected in the user's role
/// (`<system-reminder>`, `<environment_context>`, attachments, meta and synthetic records).
fn is_user_text(m: &Message) -> bool {
    let injected = m.meta.as_ref().is_some_and(|meta| {
        ["attachment", "isMeta", "synthetic", "generated"]
            .iter()
            .any(|k| meta.get(*k).is_some_and(|v| v != &Value::Bool(false)))
    });
    m.role == Role::User
        && !m.summary
        && !injected
        && !m.content.trim().is_empty()
        && !m.content.trim_start().starts_with('<')
}

fn basename(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}

/// Checks `checkpoint` against `span`, the messages it replaced (in transcript order).
pub fn assess(span: &[Message], checkpoint: &CheckpointText<'_>, workspace: &str) -> Fidelity {
    assess_by_kind(span, checkpoint, workspace).0
}

/// [`assess`], with how many items of each kind were checked.
pub fn assess_by_kind(
    span: &[Message],
    checkpoint: &CheckpointText<'_>,
    workspace: &str,
) -> (Fidelity, Vec<(MissingKind, u32)>) {
    let users: Vec<&Message> = span.iter().filter(|m| is_user_text(m)).collect();
    let mut rules = Rules { missing: Vec::new(), checked: 0, by_kind: [0; 4] };
    rules.files(span, checkpoint, workspace);
    rules.instructions(&users, checkpoint);
    rules.last_error(span, checkpoint, workspace);
    rules.task(&users, checkpoint);
    let Rules { missing, checked, by_kind } = rules;
    let score = if checked == 0 { 1.0 } else { (checked as f64 - missing.len() as f64) / checked as f64 };
    let fidelity = Fidelity { score: (score * 1000.0).round() / 1000.0, checked, missing, pins: Vec::new() };
    (fidelity, MissingKind::ALL.into_iter().zip(by_kind).collect())
}

/// The rules of docs/FIDELITY.md, each adding what it checked and what it found missing.
struct Rules {
    missing: Vec<Missing>,
    checked: u32,
    /// Checked per kind, in the order of [`MissingKind::ALL`].
    by_kind: [u32; 4],
}

/// The span's tool calls by id: name, arguments and the seq of the message that made them.
fn calls_of(span: &[Message]) -> HashMap<&str, (&str, &str, i64)> {
    let mut calls = HashMap::new();
    for message in span.iter().filter(|m| m.role == Role::Assistant) {
        for call in &message.tool_calls {
            calls.insert(call.id.as_str(), (call.name.as_str(), call.arguments.as_str(), message.seq));
        }
    }
    calls
}

impl Rules {
    fn check(&mut self, kind: MissingKind) {
        self.checked += 1;
        self.by_kind[MissingKind::ALL.iter().position(|k| *k == kind).unwrap_or(0)] += 1;
    }

    /// Files: what the span's tool calls read, wrote or edited.
    fn files(&mut self, span: &[Message], checkpoint: &CheckpointText<'_>, workspace: &str) {
        let mut files: BTreeMap<String, (BTreeMap<FileOp, u32>, Vec<i64>)> = BTreeMap::new();
        for message in span.iter().filter(|m| m.role == Role::Assistant) {
            for call in &message.tool_calls {
                for (path, op) in files_of(&call.name, &call.arguments, workspace) {
                    if path.is_empty() {
                        continue;
                    }
                    let entry = files.entry(path).or_default();
                    *entry.0.entry(op).or_default() += 1;
                    if !entry.1.contains(&message.seq) {
                        entry.1.push(message.seq);
                    }
                }
            }
        }
        let file_text = checkpoint.of(&["relevantFiles"]);
        for (path, (ops, seqs)) in files {
            self.check(MissingKind::File);
            let named =
                file_text.contains(&path) || (basename(&path).contains('.') && file_text.contains(basename(&path)));
            if !named {
                let what: Vec<String> = ops
                    .iter()
                    .map(|(op, n)| format!("{} {n} time{}", op.verb(), if *n == 1 { "" } else { "s" }))
                    .collect();
                let place =
                    if matches!(checkpoint, CheckpointText::Text(_)) { "the checkpoint" } else { "relevantFiles" };
                self.missing.push(Missing {
                    kind: MissingKind::File,
                    why: format!("{} in the replaced span, not named in {place}", what.join(", ")),
                    value: path,
                    seqs,
                    section: MissingKind::File.section().into(),
                });
            }
        }
    }

    /// Instructions: user sentences that constrain the work.
    fn instructions(&mut self, users: &[&Message], checkpoint: &CheckpointText<'_>) {
        let instructions = checkpoint.of(&["instructions"]);
        let mut seen = HashSet::new();
        for message in users {
            for sentence in message.content.split(['.', '!', '?', '\n']).map(str::trim).filter(|s| !s.is_empty()) {
                let lower = format!(" {} ", sentence.to_lowercase().replace(['\u{2019}'], "'"));
                let Some(keyword) = CONSTRAINT_WORDS.iter().find(|k| lower.contains(&format!(" {k} "))) else {
                    continue;
                };
                if !seen.insert(sentence.to_string()) {
                    continue;
                }
                self.check(MissingKind::Instruction);
                let (found, total) = overlap(sentence, &instructions);
                if !covered((found, total)) {
                    self.missing.push(Missing {
                        kind: MissingKind::Instruction,
                        value: sentence.to_string(),
                        seqs: vec![message.seq],
                        why: format!(
                            "a user constraint (\"{keyword}\"); {found} of its {total} significant words are in instructions (needs {} %)",
                            (COVERAGE * 100.0) as u32
                        ),
                        section: MissingKind::Instruction.section().into(),
                    });
                }
            }
        }
    }

    /// Error: the last failing tool result, unless a later run of the same tool on the same
    /// target succeeded.
    fn last_error(&mut self, span: &[Message], checkpoint: &CheckpointText<'_>, workspace: &str) {
        let calls = calls_of(span);
        let results: Vec<(&Message, (&str, &str, i64))> = span
            .iter()
            .filter(|m| m.role == Role::Tool)
            .filter_map(|m| m.tool_call_id.as_deref().and_then(|id| calls.get(id)).map(|c| (m, *c)))
            .collect();
        let Some(index) = results.iter().rposition(|(m, _)| failed(m)) else { return };
        let (result, (name, arguments, call_seq)) = results[index];
        let target = target_of(name, arguments, workspace);
        let resolved = results[index + 1..]
            .iter()
            .any(|(m, (n, a, _))| *n == name && target_of(n, a, workspace) == target && !failed(m));
        if resolved {
            return;
        }
        self.check(MissingKind::Error);
        let state = checkpoint.of(&["currentState", "nextSteps"]);
        let first = excerpt(&result.content, 160);
        let mentioned = (!target.is_empty() && state.contains(&target))
            || (target.contains('.') && state.contains(basename(&target)))
            || covered(overlap(&first, &state));
        if !mentioned {
            self.missing.push(Missing {
                kind: MissingKind::Error,
                value: format!("{name} {}: {first}", excerpt(&target, 80)),
                seqs: vec![call_seq, result.seq],
                why: "the last failing tool result of the replaced span (no later success of the same tool on the same target), \
                      not mentioned in currentState or nextSteps"
                    .into(),
                section: MissingKind::Error.section().into(),
            });
        }
    }

    /// Task: the latest user request of the span.
    fn task(&mut self, users: &[&Message], checkpoint: &CheckpointText<'_>) {
        let Some(latest) = users.last() else { return };
        self.check(MissingKind::Task);
        let goal = checkpoint.of(&["goal", "nextSteps"]);
        let (found, total) = overlap(&latest.content, &goal);
        if !covered((found, total)) {
            self.missing.push(Missing {
                kind: MissingKind::Task,
                value: excerpt(&latest.content, 200),
                seqs: vec![latest.seq],
                why: format!(
                    "the latest user request of the replaced span; {found} of its {total} significant words are in goal or nextSteps (needs {} %)",
                    (COVERAGE * 100.0) as u32
                ),
                section: MissingKind::Task.section().into(),
            });
        }
    }
}

#[cfg(test)]
mod tests;
