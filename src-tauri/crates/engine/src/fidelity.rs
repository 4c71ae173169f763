//! Checkpoint fidelity: does a checkpoint keep what the history it replaced
//! holds? Checked without a model, by the documented rules of docs/FIDELITY.md: the files the span
//! read, wrote or edited; the user's constraints; the last unresolved tool failure; the latest
//! request. Every missing item says why it was flagged.

use std::collections::{BTreeMap, HashMap, HashSet};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::transcript::{Message, Role};

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
const STOPWORDS: &[&str] = &[
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

/// File extensions a path mined from a shell command must have.
const EXTENSIONS: &[&str] = &[
    "rs", "py", "js", "ts", "tsx", "jsx", "go", "java", "kt", "c", "h", "cc", "cpp", "hpp", "cs", "rb", "php", "swift",
    "md", "txt", "json", "toml", "yaml", "yml", "sh", "html", "css", "scss", "sql", "xml", "csv", "lock", "cfg", "ini",
    "env", "log", "proto", "vue", "svelte",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum FileOp {
    Written,
    Edited,
    Read,
}

impl FileOp {
    fn verb(self) -> &'static str {
        match self {
            FileOp::Read => "read",
            FileOp::Written => "written",
            FileOp::Edited => "edited",
        }
    }
}

/// A path as the workspace names it: relative, without `./`.
fn normalize(path: &str, workspace: &str) -> String {
    let path = path.trim().trim_matches(|c| c == '"' || c == '\'');
    let root = workspace.trim_end_matches('/');
    let relative = if !root.is_empty() { path.strip_prefix(root).map(|p| p.trim_start_matches('/')) } else { None };
    let relative = relative.unwrap_or(path);
    relative.strip_prefix("./").unwrap_or(relative).to_string()
}

/// The shell command a call's arguments hold (`command` or `cmd`, a string or its words).
fn command_of(args: &Value) -> String {
    args.get("command")
        .or_else(|| args.get("cmd"))
        .map(|c| match c {
            Value::Array(parts) => parts.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(" "),
            other => other.as_str().unwrap_or_default().to_string(),
        })
        .unwrap_or_default()
}

/// The files one tool call writes or edits, as the workspace names them.
pub fn files_changed(name: &str, arguments: &str, workspace: &str) -> Vec<String> {
    files_of(name, arguments, workspace).into_iter().filter(|(_, op)| *op != FileOp::Read).map(|(p, _)| p).collect()
}

/// The files one tool call touches, with what it did to each.
fn files_of(name: &str, arguments: &str, workspace: &str) -> Vec<(String, FileOp)> {
    let lower = name.to_lowercase();
    let args: Value = serde_json::from_str(arguments).unwrap_or(Value::Null);
    let mut out = Vec::new();
    for key in ["path", "file_path", "filePath", "file", "filename", "notebook_path"] {
        if let Some(path) = args.get(key).and_then(Value::as_str).filter(|p| !p.trim().is_empty()) {
            let op = if ["write", "create"].iter().any(|w| lower.contains(w)) {
                FileOp::Written
            } else if ["edit", "patch", "replace"].iter().any(|w| lower.contains(w)) {
                FileOp::Edited
            } else if ["read", "view", "cat", "open"].iter().any(|w| lower.contains(w)) {
                FileOp::Read
            } else {
                continue; // listing or searching a path does not make it a file the work is about
            };
            out.push((normalize(path, workspace), op));
        }
    }
    // A patch names its files: `*** Update File: p`, `*** Add File: p`.
    let text = args.as_str().map(str::to_string).unwrap_or_else(|| arguments.to_string());
    for line in text.split("\\n").flat_map(|l| l.split('\n')) {
        for (marker, op) in [("*** Update File: ", FileOp::Edited), ("*** Add File: ", FileOp::Written)] {
            if let Some(path) = line.trim().strip_prefix(marker) {
                out.push((normalize(path.trim_end_matches('"'), workspace), op));
            }
        }
    }
    // A shell command: the words that look like files (mined where cheap).
    let command = command_of(&args);
    if !command.is_empty() {
        let separators = |c: char| c.is_whitespace() || ";|&()<`'\"".contains(c);
        let mut redirect = false;
        for word in command.split(separators).filter(|w| !w.is_empty()) {
            if word == ">" || word == ">>" || word.ends_with('>') {
                redirect = true;
                continue;
            }
            let word = word.trim_start_matches('>');
            let extension = word.rsplit_once('.').map(|(_, e)| e).unwrap_or("");
            let plausible = !word.starts_with('-')
                && !word.contains(['=', '$', '*', ':'])
                && word.contains('.')
                && EXTENSIONS.contains(&extension);
            if plausible {
                out.push((normalize(word, workspace), if redirect { FileOp::Written } else { FileOp::Read }));
            }
            redirect = false;
        }
    }
    out
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
    let mut missing = Vec::new();
    let mut checked = 0u32;

    // Files: what the span's tool calls read, wrote or edited.
    let mut files: BTreeMap<String, (BTreeMap<FileOp, u32>, Vec<i64>)> = BTreeMap::new();
    let mut calls: HashMap<&str, (&str, &str, i64)> = HashMap::new();
    for message in span.iter().filter(|m| m.role == Role::Assistant) {
        for call in &message.tool_calls {
            calls.insert(call.id.as_str(), (call.name.as_str(), call.arguments.as_str(), message.seq));
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
        checked += 1;
        let named = file_text.contains(&path) || (basename(&path).contains('.') && file_text.contains(basename(&path)));
        if !named {
            let what: Vec<String> =
                ops.iter().map(|(op, n)| format!("{} {n} time{}", op.verb(), if *n == 1 { "" } else { "s" })).collect();
            let place = if matches!(checkpoint, CheckpointText::Text(_)) { "the checkpoint" } else { "relevantFiles" };
            missing.push(Missing {
                kind: MissingKind::File,
                why: format!("{} in the replaced span, not named in {place}", what.join(", ")),
                value: path,
                seqs,
                section: MissingKind::File.section().into(),
            });
        }
    }

    // Instructions: user sentences that constrain the work.
    let users: Vec<&Message> = span.iter().filter(|m| is_user_text(m)).collect();
    let instructions = checkpoint.of(&["instructions"]);
    let mut seen = HashSet::new();
    for message in &users {
        for sentence in message.content.split(['.', '!', '?', '\n']).map(str::trim).filter(|s| !s.is_empty()) {
            let lower = format!(" {} ", sentence.to_lowercase().replace(['\u{2019}'], "'"));
            let Some(keyword) = CONSTRAINT_WORDS.iter().find(|k| lower.contains(&format!(" {k} "))) else { continue };
            if !seen.insert(sentence.to_string()) {
                continue;
            }
            checked += 1;
            let (found, total) = overlap(sentence, &instructions);
            if !covered((found, total)) {
                missing.push(Missing {
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

    // Error: the last failing tool result, unless a later run of the same tool on the same target
    // succeeded.
    let results: Vec<(&Message, (&str, &str, i64))> = span
        .iter()
        .filter(|m| m.role == Role::Tool)
        .filter_map(|m| m.tool_call_id.as_deref().and_then(|id| calls.get(id)).map(|c| (m, *c)))
        .collect();
    if let Some(index) = results.iter().rposition(|(m, _)| failed(m)) {
        let (result, (name, arguments, call_seq)) = results[index];
        let target = target_of(name, arguments, workspace);
        let resolved = results[index + 1..]
            .iter()
            .any(|(m, (n, a, _))| *n == name && target_of(n, a, workspace) == target && !failed(m));
        if !resolved {
            checked += 1;
            let state = checkpoint.of(&["currentState", "nextSteps"]);
            let first = excerpt(&result.content, 160);
            let mentioned = (!target.is_empty() && state.contains(&target))
                || (target.contains('.') && state.contains(basename(&target)))
                || covered(overlap(&first, &state));
            if !mentioned {
                missing.push(Missing {
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
    }

    // Task: the latest user request of the span.
    if let Some(latest) = users.last() {
        checked += 1;
        let goal = checkpoint.of(&["goal", "nextSteps"]);
        let (found, total) = overlap(&latest.content, &goal);
        if !covered((found, total)) {
            missing.push(Missing {
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

    let score = if checked == 0 { 1.0 } else { (checked as f64 - missing.len() as f64) / checked as f64 };
    Fidelity { score: (score * 1000.0).round() / 1000.0, checked, missing, pins: Vec::new() }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::transcript::ToolCall;

    fn message(seq: i64, role: Role, content: &str) -> Message {
        Message {
            seq,
            anchor: seq,
            role,
            content: content.into(),
            tool_calls: Vec::new(),
            tool_call_id: None,
            provider_items: None,
            compacted: false,
            summary: false,
            truncated: false,
            uncertain: false,
            reverted: false,
            created_by: None,
            compacted_by: None,
            created_at: String::new(),
            chars: content.chars().count() as u64,
            source_id: None,
            meta: None,
            off_view: false,
        }
    }

    fn call(seq: i64, id: &str, name: &str, arguments: serde_json::Value) -> Message {
        let mut m = message(seq, Role::Assistant, "");
        m.tool_calls.push(ToolCall { id: id.into(), name: name.into(), arguments: arguments.to_string() });
        m
    }

    fn result(seq: i64, id: &str, content: &str) -> Message {
        let mut m = message(seq, Role::Tool, content);
        m.tool_call_id = Some(id.into());
        m
    }

    /// A span: a constraint, edits to src/parser.rs (twice), a read, a failing test, a request.
    fn span() -> Vec<Message> {
        vec![
            message(1, Role::User, "Fix the parser. You must keep the public API of parse_config unchanged."),
            call(2, "c1", "read_file", json!({"path": "src/lexer.rs"})),
            result(3, "c1", "fn lex() {}"),
            call(4, "c2", "write_file", json!({"path": "/w/src/parser.rs", "content": "x"})),
            result(5, "c2", "wrote 1 byte"),
            call(6, "c3", "edit_file", json!({"path": "./src/parser.rs", "old": "x", "new": "y"})),
            result(7, "c3", "edited"),
            call(8, "c4", "shell", json!({"command": "cargo test --test parse > out.log"})),
            result(9, "c4", "test parse_line ... FAILED\n[exit code 101]"),
            message(10, Role::User, "Now report parse errors with line numbers"),
        ]
    }

    fn sections(value: serde_json::Value) -> Map<String, Value> {
        value.as_object().unwrap().clone()
    }

    #[test]
    fn a_faithful_checkpoint_keeps_everything() {
        let s = sections(json!({
            "goal": "Report parse errors with line numbers",
            "instructions": ["Keep the public API of parse_config unchanged"],
            "currentState": "cargo test --test parse fails: parse_line",
            "nextSteps": ["Fix parse_line, then report parse errors with line numbers"],
            "relevantFiles": ["src/parser.rs — rewritten", "src/lexer.rs", "out.log"],
        }));
        let f = assess(&span(), &CheckpointText::Sections(&s), "/w");
        assert_eq!(f.missing, Vec::<Missing>::new());
        assert_eq!((f.score, f.checked), (1.0, 6), "3 files, 1 constraint, 1 error, 1 task");
    }

    #[test]
    fn each_omission_is_reported_with_its_seqs_and_why() {
        let s = sections(json!({
            "goal": "Improve the lexer",
            "instructions": [],
            "currentState": "all good",
            "nextSteps": [],
            "relevantFiles": ["src/lexer.rs", "out.log"],
        }));
        let f = assess(&span(), &CheckpointText::Sections(&s), "/w");
        let got: Vec<(MissingKind, &str, Vec<i64>)> =
            f.missing.iter().map(|m| (m.kind, m.value.as_str(), m.seqs.clone())).collect();
        assert_eq!(
            got,
            vec![
                (MissingKind::File, "src/parser.rs", vec![4, 6]),
                (MissingKind::Instruction, "You must keep the public API of parse_config unchanged", vec![1]),
                (MissingKind::Error, "shell cargo test --test parse > out.log: test parse_line ... FAILED", vec![8, 9]),
                (MissingKind::Task, "Now report parse errors with line numbers", vec![10]),
            ]
        );
        assert_eq!(f.missing[0].why, "written 1 time, edited 1 time in the replaced span, not named in relevantFiles");
        assert_eq!(f.missing[0].section, "relevantFiles");
        assert!(f.missing[1].why.contains("\"must\""), "{}", f.missing[1].why);
        assert_eq!(f.checked, 6);
        assert_eq!(f.score, 0.333);
    }

    #[test]
    fn a_later_success_resolves_a_failure_and_text_checkpoints_are_read_whole() {
        let mut span = span();
        span.push(call(11, "c5", "shell", json!({"command": "cargo test --test parse > out.log"})));
        span.push(result(12, "c5", "ok\n[exit code 0]"));
        let text =
            "We edited src/parser.rs and read src/lexer.rs, out.log. Keep the public API of parse_config unchanged. \
                    Next: report parse errors with line numbers.";
        let f = assess(&span, &CheckpointText::Text(text), "/w");
        assert_eq!(f.missing, Vec::<Missing>::new(), "{:?}", f.missing);
        assert_eq!(f.checked, 5, "the resolved failure is not checked");
    }

    #[test]
    fn failures_recorded_by_other_agents_count() {
        let mut failing = result(2, "x", "boom");
        failing.meta = Some(json!({"exec": {"exitCode": 2}}));
        assert!(failed(&failing));
        failing.meta = Some(json!({"exit": 0}));
        assert!(!failed(&failing));
        failing.meta = Some(json!({"isError": true}));
        assert!(failed(&failing));
        assert!(failed(&result(3, "y", "Chunk ID: 1\nProcess exited with code 1\nOutput:\n")));
        assert!(!failed(&result(3, "y", "Process exited with code 0")));
    }

    #[test]
    fn nothing_to_check_scores_one() {
        let f = assess(&[], &CheckpointText::Text(""), "/w");
        assert_eq!((f.score, f.checked, f.missing.len()), (1.0, 0, 0));
    }

    #[test]
    fn the_artifact_trail_keeps_each_files_last_change_and_how_each_command_ended() {
        let log: String = (1..=40).map(|i| format!("case {i} ... ok\n")).collect::<String>()
            + "test budget ... FAILED (Q-1)\n39 passed, 1 failed\nexit code 1\n";
        let span = vec![
            call(1, "c1", "read_file", json!({"path": "/w/src/a.rs"})),
            result(2, "c1", "fn a() {}"),
            call(3, "c2", "shell", json!({"command": "sh check.sh"})),
            result(4, "c2", &log),
            call(5, "c3", "edit_file", json!({"path": "src/a.rs", "old": "fn a", "new": "fn a_renamed // T-9"})),
            result(6, "c3", "edited"),
            call(7, "c4", "read_file", json!({"path": "src/a.rs"})),
            result(8, "c4", "fn a_renamed() {}"),
            call(
                9,
                "c5",
                "write_file",
                json!({"path": "notes.md", "content": "# Notes\n\nBatches live in SQLite (I-6).\nmore\nmore"}),
            ),
            result(10, "c5", "wrote"),
        ];
        let trail = artifact_trail(&span, "/w");
        assert_eq!(
            trail.files,
            [
                "check.sh (read)",
                "src/a.rs (edited: fn a_renamed // T-9)",
                "notes.md (written: # Notes ⏎ Batches live in SQLite (I-6). ⏎ more)"
            ],
            "a read after an edit keeps what the edit said; the most recent last; a script a command ran is read"
        );
        assert_eq!(
            trail.commands,
            ["`sh check.sh` → test budget ... FAILED (Q-1) ⏎ 39 passed, 1 failed ⏎ exit code 1"]
        );
        // A write then an edit: both said; a search (no file of its own) like a command.
        let span = vec![
            call(1, "w", "write_file", json!({"path": "r.py", "content": "# Batches (I-6)\nSIZE = 100\n"})),
            result(2, "w", "wrote"),
            call(3, "e", "edit_file", json!({"path": "r.py", "old": "SIZE = 100", "new": "SIZE = 250  # T-3"})),
            result(4, "e", "edited"),
            call(5, "g", "grep", json!({"pattern": "TODO", "path": "ledger"})),
            result(6, "g", "ledger/cal.py:4:# TODO(P-1) leap second"),
        ];
        let trail = artifact_trail(&span, "/w");
        assert_eq!(trail.files, ["r.py (written: # Batches (I-6) ⏎ SIZE = 100; then edited: SIZE = 250  # T-3)"]);
        assert_eq!(trail.commands, ["`grep TODO ledger` → ledger/cal.py:4:# TODO(P-1) leap second"]);
        let long = "x".repeat(500);
        let trail = artifact_trail(&[call(1, "c", "write_file", json!({"path": "big", "content": long}))], "/w");
        assert!(trail.files[0].chars().count() < 230, "{}", trail.files[0]);
        assert!(artifact_trail(&[message(1, Role::User, "hi")], "/w").is_empty());
    }
}

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
const TRAIL_FILES: usize = 20;
const TRAIL_COMMANDS: usize = 8;
const TRAIL_EXCERPT: usize = 200;

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
fn one_line(text: &str) -> String {
    let joined = text.trim().split('\n').map(str::trim_end).collect::<Vec<_>>().join(" ⏎ ");
    if joined.chars().count() > TRAIL_EXCERPT {
        let cut: String = joined.chars().take(TRAIL_EXCERPT - 1).collect();
        format!("{cut}…")
    } else {
        joined
    }
}
