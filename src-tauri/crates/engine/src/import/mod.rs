//! Sessions of other agents (`alisio import`): Codex CLI rollouts, Claude Code
//! sessions and OpenCode databases, recognised by content and read into the session store,
//! read-only and incrementally. Each source session becomes one Alisio session with a stable id;
//! importing again appends what the source wrote since (a source rewritten in place is read
//! again from its start). Files are streamed line by line and written in bounded batches, so a
//! large rollout never sits in memory.

pub mod agents;
mod atif;
mod claude;
mod cline;

mod codex;
mod copilot;
mod detect;
mod documents;
mod gemini;
mod jsonl;
mod opencode;
mod opencode_storage;
mod pi;
mod qwen;
mod sink;
pub(crate) mod tasks;
pub mod watch;

use std::path::PathBuf;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{Error, Result};
use crate::store::{imported, Store};
use crate::transcript::ToolCall;

pub use opencode::COMPACTION_PROMPT as OPENCODE_COMPACTION_PROMPT;

pub use crate::store::SourceKind;
pub use detect::{detect, discover, open_regular, Discovered, Unread};
use documents::*;
pub use jsonl::session_id;
use jsonl::*;

/// Whether a stored message is a prompt someone typed (or a slash command), not a tool result,
/// meta record or context the agent injected — or a reply typed by the user that the agent
/// delivered as a tool's result (Roo Code, Cline: marked `prompt`).
pub fn is_prompt(message: &crate::transcript::Message) -> bool {
    let meta = message.meta.as_ref();
    if meta.and_then(|m| m.get("prompt")).and_then(Value::as_bool) == Some(true) {
        return true;
    }
    message.role == crate::transcript::Role::User
        && !message.summary
        && !message.content.trim().is_empty()
        && meta.and_then(|m| m.get("isMeta")).and_then(Value::as_bool) != Some(true)
        // OpenCode's and Kilo Code's re-posted prompts and reminders (text the user did not type).
        && meta.and_then(|m| m.get("synthetic")).and_then(Value::as_bool) != Some(true)
        && (!crate::calls::composition::is_injected(&message.content) || message.content.contains("<command-name>"))
}

/// Where a record could not be read: its line (JSONL) or row id (OpenCode).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(untagged)]
pub enum Position {
    Line(u64),
    Row(String),
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Skipped {
    pub line: Position,
    pub reason: String,
}

/// One source session as imported (`imported[]`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ImportedSession {
    pub id: crate::store::SessionId,
    pub source: SourceKind,
    pub path: String,
    pub source_id: String,
    pub title: String,
    pub messages: u64,
    pub tool_calls: u64,
    pub compactions: u64,
    pub skipped: Vec<Skipped>,
    /// Messages this run added (0 when the source had nothing new).
    #[serde(skip)]
    pub added: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ImportFailure {
    pub path: String,
    pub error: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ImportReport {
    pub imported: Vec<ImportedSession>,
    pub errors: Vec<ImportFailure>,
    /// Files in an agent's folders that hold no session Alisio reads, with why.
    pub unread: Vec<Unread>,
    /// Paths given that hold no session in a known format.
    #[serde(skip)]
    pub unknown: Vec<PathBuf>,
}

/// Whether an importer took a record or skipped it (and why).
#[derive(Debug, Clone, PartialEq)]
pub enum Skip {
    No,
    Yes(String),
}

/// A string at a JSON pointer.
pub(crate) fn str_at<'a>(value: &'a Value, pointer: &str) -> Option<&'a str> {
    value_at(value, pointer).and_then(Value::as_str)
}

/// A tool call block of an agent's message (`id`, `name`, and the arguments object under
/// `arguments_key`: `input` in Anthropic's shape, `arguments` in pi's) as a transcript call.
pub(crate) fn tool_call(block: &Value, arguments_key: &str) -> ToolCall {
    ToolCall {
        id: str_at(block, "/id").unwrap_or_default().to_string(),
        name: str_at(block, "/name").unwrap_or_default().to_string(),
        arguments: block.get(arguments_key).map(Value::to_string).unwrap_or_else(|| "{}".into()),
    }
}

/// `Value::pointer` without its per-token allocation (it unescapes every token into a new string):
/// called a few times for every line of every session, it was 7 % of a large Codex import's
/// samples. Tokens with an escape (`~0`, `~1`) go the slow way.
pub(crate) fn value_at<'a>(value: &'a Value, pointer: &str) -> Option<&'a Value> {
    if pointer.is_empty() || pointer.contains('~') {
        return value.pointer(pointer);
    }
    let rest = pointer.strip_prefix('/')?;
    rest.split('/').try_fold(value, |target, token| match target {
        Value::Object(map) => map.get(token),
        Value::Array(list) if !token.starts_with('+') && (token == "0" || !token.starts_with('0')) => {
            token.parse::<usize>().ok().and_then(|i| list.get(i))
        }
        _ => None,
    })
}

/// A default location of an agent's sessions, and whether it exists here.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct SourceLocation {
    pub source: SourceKind,
    pub path: String,
    pub exists: bool,
}

/// Every agent's default locations (from the agents' table), and whether each exists here.
pub fn default_locations() -> Vec<SourceLocation> {
    let env = agents::Env::current();
    agents::AGENTS
        .iter()
        .flat_map(|agent| (agent.locations)(&env).into_iter().map(move |path| (agent.kind, path)))
        .map(|(source, path)| SourceLocation { source, exists: path.exists(), path: path.display().to_string() })
        .collect()
}

/// A default location with what it holds: the sessions found there and how many of that agent's
/// sessions are in the store.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct SourceSummary {
    #[serde(flatten)]
    pub location: SourceLocation,
    pub sessions: u64,
    pub imported: u64,
}

/// The default locations (those that exist counted) for the window's Sources list.
pub fn source_summaries(store: &Store) -> Result<Vec<SourceSummary>> {
    let mut out = Vec::new();
    for location in default_locations() {
        let mut sessions = 0;
        if location.exists {
            for (kind, path) in discover(&[PathBuf::from(&location.path)]).found {
                sessions += match kind {
                    SourceKind::OpenCode if path.is_dir() => {
                        opencode_storage::Storage::read(&path).map_or(0, |s| s.sessions().len() as u64)
                    }
                    SourceKind::OpenCode | SourceKind::Kilo => opencode::session_count(&path),
                    _ => 1,
                };
            }
        }
        let imported = imported::count_from(store, location.source, &location.path)?;
        out.push(SourceSummary { location, sessions, imported });
    }
    Ok(out)
}

/// How far an import has gone, for a progress bar: after each batch and each file.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Progress {
    pub files: u64,
    pub files_done: u64,
    /// Bytes of the files found, and how many of them have been read (a file found up to date
    /// counts whole).
    pub bytes: u64,
    pub bytes_done: u64,
    /// The file being read.
    pub path: String,
}

/// What steers an import from outside: a stop asked for (Ctrl-C; honoured between batches, with
/// everything committed so far consistent) and where progress goes.
#[derive(Default)]
pub struct Control<'a> {
    pub cancel: Option<&'a tokio_util::sync::CancellationToken>,
    pub progress: Option<&'a (dyn Fn(&Progress) + Sync)>,
}

impl Control<'_> {
    fn cancelled(&self) -> bool {
        self.cancel.is_some_and(|c| c.is_cancelled())
    }
}

/// Imports every session under `paths`. A file that cannot be read is reported in
/// `errors`; the others are imported regardless.
pub fn import(store: &Store, paths: &[PathBuf]) -> ImportReport {
    import_with(store, paths, &Control::default()).unwrap_or_default()
}

/// [`import`], stopped by `control.cancel` between batches ([`Error::Cancelled`]) and reporting
/// progress.
pub fn import_with(store: &Store, paths: &[PathBuf], control: &Control<'_>) -> Result<ImportReport> {
    import_found(store, discover(paths), control)
}

/// Imports sources already found (the follower knows which files changed).
pub fn import_found(store: &Store, discovered: Discovered, control: &Control<'_>) -> Result<ImportReport> {
    let Discovered { found, mut errors, unknown, unread } = discovered;
    let sizes: Vec<u64> = found.iter().map(|(_, p)| p.metadata().map(|m| m.len()).unwrap_or(0)).collect();
    let mut progress = Progress {
        files: found.len() as u64,
        files_done: 0,
        bytes: sizes.iter().sum(),
        bytes_done: 0,
        path: String::new(),
    };
    let mut imported = Vec::new();
    for ((kind, path), size) in found.into_iter().zip(sizes) {
        if control.cancelled() {
            return Err(Error::Cancelled);
        }
        progress.path = path.display().to_string();
        let base = progress.bytes_done;
        let report = |done: u64| {
            if let Some(tell) = control.progress {
                tell(&Progress { bytes_done: base + done.min(size), ..progress.clone() });
            }
        };
        let result = match kind {
            SourceKind::OpenCode if path.is_dir() => import_opencode_storage(store, &path, control),
            SourceKind::OpenCode | SourceKind::Kilo => import_opencode(store, kind, &path, control),
            SourceKind::Atif => import_atif(store, &path, control).map(|s| vec![s]),
            SourceKind::Cline | SourceKind::RooCode if tasks::is_history(&path) => {
                import_task(store, &path, control).map(|s| vec![s])
            }
            SourceKind::Cline => import_cline(store, &path, control).map(|s| vec![s]),
            SourceKind::GeminiCli | SourceKind::QwenCode if path.extension().is_some_and(|e| e == "json") => {
                import_chat_document(store, kind, &path, control).map(|s| vec![s])
            }
            SourceKind::Codex if path.extension().is_some_and(|e| e == "json") => {
                import_codex_document(store, &path, control).map(|s| vec![s])
            }
            SourceKind::ClaudeCode if claude::is_document_path(&path) => {
                import_claude_document(store, &path, control).and_then(|s| with_threads(store, s))
            }
            _ => import_jsonl(store, kind, &path, control, &report).and_then(|s| with_threads(store, s)),
        };
        match result {
            Ok(sessions) => imported.extend(sessions),
            Err(Error::Cancelled) => return Err(Error::Cancelled),
            Err(e) => errors.push(ImportFailure { path: path.display().to_string(), error: e.to_string() }),
        }
        progress.files_done += 1;
        progress.bytes_done = base + size;
        if let Some(tell) = control.progress {
            tell(&progress);
        }
    }
    // Calls `alisio proxy` captured before their session was imported become its exact bodies.
    for session in imported.iter().filter(|s| s.added > 0) {
        if let Err(e) = crate::proxy::join::adopt(store, &session.id) {
            tracing::warn!("captured calls were not joined to {}: {e}", session.id);
        }
    }
    Ok(ImportReport { imported, errors, unread, unknown })
}

#[cfg(test)]
mod corpus_tests;
#[cfg(test)]
mod load_tests;
#[cfg(test)]
mod mangle_tests;
#[cfg(test)]
mod tests;
