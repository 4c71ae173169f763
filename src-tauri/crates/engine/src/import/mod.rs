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
mod gemini;
mod opencode;
mod opencode_storage;
mod pi;
mod qwen;
mod sink;
pub(crate) mod tasks;
pub mod watch;

use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{Error, Result};
use crate::store::{imported, Store, Tx};
use crate::transcript::ToolCall;
use sink::{Sink, SinkState};

pub use opencode::COMPACTION_PROMPT as OPENCODE_COMPACTION_PROMPT;

pub use crate::store::SourceKind;

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
    pub id: String,
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
                    SourceKind::OpenCode => opencode::session_count(&path),
                    _ => 1,
                };
            }
        }
        let imported = imported::count_from(store, location.source, &location.path)?;
        out.push(SourceSummary { location, sessions, imported });
    }
    Ok(out)
}

/// Opens `path` for reading only if it is a regular file, without ever blocking: a FIFO, socket
/// or device (or a file swapped for one) is refused at once instead of waiting for a writer.
pub fn open_regular(path: &Path) -> std::io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags((nix::fcntl::OFlag::O_NONBLOCK | nix::fcntl::OFlag::O_NOCTTY).bits())
        .open(path)?;
    if !file.metadata()?.is_file() {
        return Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a regular file"));
    }
    Ok(file)
}

/// Recognises a file by its content.
pub fn detect(path: &Path) -> std::io::Result<Option<SourceKind>> {
    let mut file = open_regular(path)?;
    let mut head = [0u8; 16];
    let n = file.read(&mut head)?;
    if n == 16 && &head == b"SQLite format 3\0" {
        // A corrupt or locked database is named as such, not taken for an unknown format.
        let conn = opencode::open(path).map_err(|e| std::io::Error::other(e.to_string()))?;
        return Ok(opencode::is_opencode(&conn).then_some(SourceKind::OpenCode));
    }
    if tasks::is_history(path) && head[..n].iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'[') {
        // An extension task's conversation (a JSON array): whose, by its folder.
        let dir = path.parent().unwrap_or(path);
        let roo = dir.join("history_item.json").is_file()
            || ["roo-cline", ".vscode-mock"].iter().any(|m| dir.to_string_lossy().contains(m));
        return Ok(Some(if roo { SourceKind::RooCode } else { SourceKind::Cline }));
    }
    if head[..n].iter().find(|b| !b.is_ascii_whitespace()).is_none_or(|b| *b != b'{') {
        return Ok(None);
    }
    file.seek(SeekFrom::Start(0))?;
    // An ATIF trajectory is one (usually pretty-printed) document: its head names the schema.
    let mut head = vec![0u8; 8192];
    let n = file.read(&mut head)?;
    if atif::looks_like(&head[..n]) {
        return Ok(Some(SourceKind::Atif));
    }
    if cline::looks_like(&head[..n]) {
        return Ok(Some(SourceKind::Cline));
    }
    if claude::is_document(&head[..n]) {
        return Ok(Some(SourceKind::ClaudeCode));
    }
    if codex::is_document(&head[..n]) {
        return Ok(Some(SourceKind::Codex));
    }
    if gemini::is_document(&head[..n]) {
        // Qwen Code 0.1 wrote Gemini CLI's documents (its answers `"type": "qwen"`, under ~/.qwen).
        let qwen = String::from_utf8_lossy(&head[..n]).contains("\"type\": \"qwen\"")
            || path.components().any(|c| c.as_os_str() == ".qwen");
        return Ok(Some(if qwen { SourceKind::QwenCode } else { SourceKind::GeminiCli }));
    }
    file.seek(SeekFrom::Start(0))?;
    let mut reader = BufReader::new(file);
    let mut line = Vec::new();
    let mut gemini_metadata = false;
    let mut codex_head = false;
    let mut claude_maybe = false;
    let mut qwen_maybe = false;
    for index in 0..50 {
        line.clear();
        if reader.by_ref().take(1 << 20).read_until(b'\n', &mut line)? == 0 {
            break;
        }
        let Ok(record) = serde_json::from_slice::<Value>(&line) else { continue };
        let kind = record.get("type").and_then(Value::as_str).unwrap_or_default();
        if index == 0 && codex::is_first_line(&record) {
            if kind == "session_meta" {
                return Ok(Some(SourceKind::Codex));
            }
            // A rollout before 0.39: its first line alone could be anything's; its items tell.
            codex_head = true;
            continue;
        }
        if (codex_head && codex::is_bare_item(&record)) || codex::is_envelope(&record) {
            return Ok(Some(SourceKind::Codex));
        }
        if index == 0 && pi::is_header(&record) {
            return Ok(Some(SourceKind::Pi));
        }
        if index == 0 && copilot::is_start(&record) {
            return Ok(Some(SourceKind::CopilotCli));
        }
        // Gemini CLI: metadata, then messages (a restart's stub file holds none and is no session).
        if gemini::is_metadata(&record) {
            gemini_metadata = true;
            continue;
        }
        if gemini_metadata && gemini::is_message(&record) {
            return Ok(Some(SourceKind::GeminiCli));
        }
        // Qwen Code's records look like Claude Code's (uuid chains, sessionId, cwd) but carry
        // Gemini `parts` and a `provenance`: told apart by their records, not the file's shape.
        // A Qwen Code chat holds messages; a file of its bookkeeping records alone holds none.
        if qwen::is_record(&record) {
            if matches!(kind, "user" | "assistant" | "tool_result") {
                return Ok(Some(SourceKind::QwenCode));
            }
            qwen_maybe = true;
            continue;
        }
        // Claude Code's own transcript records settle it; its bookkeeping records (which other
        // agents' files resemble, a Qwen Code chat opening with a `system` record) only if
        // nothing else claims the file.
        if claude::is_record(&record) {
            if matches!(kind, "user" | "assistant") || record.get("type").is_none() {
                return Ok(Some(SourceKind::ClaudeCode));
            }
            claude_maybe = true;
        }
    }
    // Qwen Code's bookkeeping alone is no session (its records are told apart from Claude Code's).
    Ok((claude_maybe && !qwen_maybe).then_some(SourceKind::ClaudeCode))
}

/// A file in an agent's folders that was not read as a session, and why (`unread[]`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Unread {
    pub path: String,
    pub reason: String,
}

/// What a walk of the paths given found.
#[derive(Debug, Default)]
pub struct Discovered {
    /// Every file (or OpenCode storage folder) holding sessions, with its agent.
    pub found: Vec<(SourceKind, PathBuf)>,
    /// Paths that could not be read.
    pub errors: Vec<ImportFailure>,
    /// Paths given that hold no session in a known format.
    pub unknown: Vec<PathBuf>,
    /// Files in an agent's folders not read as sessions, with why.
    pub unread: Vec<Unread>,
}

/// Every file under `paths` (directories walked, symlinked directories not followed) with the
/// format it holds; paths that hold none are listed apart, and files in an agent's folders that
/// are no session are named with why (never skipped without a word).
pub fn discover(paths: &[PathBuf]) -> Discovered {
    let mut out = Discovered::default();
    for path in paths {
        let before = out.found.len();
        let errors_before = out.errors.len();
        walk_in(path, &mut out, true);
        if out.found.len() == before && out.errors.len() == errors_before {
            out.unknown.push(path.clone());
        }
    }
    out
}

fn walk_in(path: &Path, out: &mut Discovered, top: bool) {
    let fail = |out: &mut Discovered, e: std::io::Error| {
        out.errors.push(ImportFailure { path: path.display().to_string(), error: e.to_string() })
    };
    match std::fs::metadata(path) {
        Err(e) => fail(out, e),
        // A FIFO, socket or device is never a session: skipped inside a tree, refused when named.
        Ok(meta) if !meta.is_dir() && !meta.is_file() => {
            if top {
                fail(out, std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a regular file or directory"));
            }
        }
        // OpenCode's JSON storage is one source (its sessions spread over three folders).
        Ok(meta) if meta.is_dir() && opencode_storage::is_storage(path) => {
            out.found.push((SourceKind::OpenCode, path.to_path_buf()))
        }
        Ok(meta) if meta.is_dir() => {
            let mut entries = match std::fs::read_dir(path) {
                Ok(entries) => entries.filter_map(|e| e.ok()).collect::<Vec<_>>(),
                Err(e) => return fail(out, e),
            };
            entries.sort_by_key(|e| e.file_name());
            for entry in entries {
                let is_link_dir = entry.file_type().is_ok_and(|t| t.is_symlink())
                    && entry.path().metadata().is_ok_and(|m| m.is_dir());
                if !is_link_dir {
                    walk_in(&entry.path(), out, false);
                }
            }
        }
        Ok(_) => match detect(path) {
            Ok(Some(kind)) => out.found.push((kind, path.to_path_buf())),
            Ok(None) => {
                if let Some(reason) = agents::unread_reason(path) {
                    out.unread.push(Unread { path: path.display().to_string(), reason });
                }
            }
            Err(e) => fail(out, e),
        },
    }
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
            SourceKind::OpenCode => import_opencode(store, &path, control),
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

/// How far a JSONL source has been read, and the importer's state at that point.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Cursor<S> {
    offset: u64,
    line: u64,
    size: u64,
    modified: i64,
    /// Fingerprints of the first bytes and of the bytes before `offset`: a file rewritten in
    /// place (not appended to) is read again from its start.
    head: u64,
    tail: u64,
    skipped: Vec<Skipped>,
    state: S,
}

/// FNV-1a: a fixed, dependency-free fingerprint of a few kilobytes.
fn fingerprint(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(*b)).wrapping_mul(0x100_0000_01b3))
}

const FINGERPRINT_BYTES: u64 = 4096;

/// Fingerprints of the bytes before `offset`, read without moving the file's position — from the
/// file being read, not whatever the path names now.
fn fingerprints(file: &File, offset: u64) -> std::io::Result<(u64, u64)> {
    use std::os::unix::fs::FileExt;
    let read_at = |from: u64, len: u64| -> std::io::Result<u64> {
        let mut buf = vec![0u8; len as usize];
        file.read_exact_at(&mut buf, from)?;
        Ok(fingerprint(&buf))
    };
    let head = read_at(0, offset.min(FINGERPRINT_BYTES))?;
    let tail_len = offset.min(FINGERPRINT_BYTES);
    let tail = read_at(offset - tail_len, tail_len)?;
    Ok((head, tail))
}

fn modified_ms(meta: &std::fs::Metadata) -> i64 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// The identity of a JSONL source session, read from its first records.
struct Identity {
    source_id: String,
    workspace: String,
    created_at: String,
}

fn identify(kind: SourceKind, path: &Path) -> Result<Identity> {
    let reader =
        BufReader::new(open_regular(path).map_err(|e| Error::io(format!("cannot read {}", path.display()), e))?);
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or_default().to_string();
    let mut identity = Identity { source_id: String::new(), workspace: String::new(), created_at: String::new() };
    if kind == SourceKind::GeminiCli {
        // The project's root is beside its chats: `tmp/<project>/.project_root`.
        let root = path.parent().and_then(Path::parent).map(|p| p.join(".project_root"));
        identity.workspace = root.and_then(|p| std::fs::read_to_string(p).ok()).unwrap_or_default().trim().to_string();
    }
    for line in reader.split(b'\n').take(200) {
        let line = line.map_err(|e| Error::io(format!("cannot read {}", path.display()), e))?;
        let Ok(record) = serde_json::from_slice::<Value>(&line) else { continue };
        if identity.created_at.is_empty() {
            identity.created_at = str_at(&record, "/timestamp").unwrap_or_default().to_string();
        }
        match kind {
            SourceKind::GeminiCli => {
                if let Some(id) = str_at(&record, "/sessionId") {
                    identity.source_id = id.to_string();
                    break;
                }
            }
            SourceKind::CopilotCli => {
                identity.source_id = str_at(&record, "/data/sessionId").unwrap_or(&stem).to_string();
                identity.workspace = str_at(&record, "/data/context/cwd").unwrap_or_default().to_string();
                break;
            }
            SourceKind::Pi => {
                identity.source_id = str_at(&record, "/id").unwrap_or(&stem).to_string();
                identity.workspace = str_at(&record, "/cwd").unwrap_or_default().to_string();
                break;
            }
            SourceKind::Codex => {
                // From 0.39 the session is the first record's payload; before, the record itself.
                let payload = record.get("payload").unwrap_or(&record);
                identity.source_id =
                    str_at(payload, "/id").or_else(|| str_at(payload, "/session_id")).unwrap_or(&stem).to_string();
                identity.workspace = str_at(payload, "/cwd").unwrap_or_default().to_string();
                break;
            }
            _ => {
                if identity.source_id.is_empty() {
                    if let Some(id) = str_at(&record, "/sessionId") {
                        identity.source_id = id.to_string();
                    }
                }
                if let Some(cwd) = str_at(&record, "/cwd") {
                    identity.workspace = cwd.to_string();
                    break;
                }
            }
        }
    }
    // A Claude Code file is one session (its name is the session id; a sub-agent's file has its
    // own name but the parent's sessionId), so the file name identifies it.
    if matches!(kind, SourceKind::ClaudeCode | SourceKind::QwenCode) && !stem.is_empty()
        || identity.source_id.is_empty()
    {
        identity.source_id = stem;
    }
    Ok(identity)
}

/// The Alisio session id of a source session: the same on every machine and every import.
pub fn session_id(kind: SourceKind, source_id: &str) -> String {
    uuid::Uuid::new_v5(&uuid::Uuid::NAMESPACE_URL, format!("alisio-import:{}:{source_id}", kind.as_str()).as_bytes())
        .to_string()
}

/// The session a source session at `path` is stored as. The same source id in two files (a copied
/// rollout, one Claude Code file in two project folders, a backup) is two sessions: the first file
/// read keeps the plain id, any other is keyed by id and path — stable however often it is read.
/// A source whose file moved (the old path is gone) keeps its session.
fn resolve_session(store: &Store, kind: SourceKind, source_id: &str, path: &Path) -> Result<String> {
    let plain = session_id(kind, source_id);
    let path_text = path.display().to_string();
    Ok(match imported::import_state(store, &plain)? {
        Some((_, Some(stored))) if stored != path_text && Path::new(&stored).exists() => {
            session_id(kind, &format!("{source_id}\u{0}{path_text}"))
        }
        _ => plain,
    })
}

/// Finds or creates the session of `identity`; returns its stored cursor.
fn upsert_session(store: &Store, identity: &imported::ImportedIdentity<'_>) -> Result<Option<String>> {
    // A known session whose source has not moved needs no write (a watch asks twice a second).
    if let Some((cursor, stored_path)) = imported::import_state(store, identity.id)? {
        if stored_path.as_deref() == Some(identity.path) {
            return Ok(cursor);
        }
    }
    imported::upsert_session(store, identity)
}

/// Claims a source session for this import: a second import of it (the window's follower and a
/// terminal's `import --watch`, two one-shot imports) waits until this one is done, then finds
/// the cursor advanced.
fn claim(store: &Store, session: &str, control: &Control<'_>) -> Result<crate::claim::SessionClaim> {
    crate::claim::SessionClaim::wait(store.home(), session, "import", &|| control.cancelled())
}

/// The model view and next seq of a stored session, to go on appending to it.
fn sink_state(tx: &Tx<'_>, session: &str) -> Result<SinkState> {
    let (next_seq, rows, order) = imported::append_state(tx, session)?;
    Ok(SinkState::new(next_seq, rows, order))
}

/// A JSONL format's per-record mapping.
enum LineImporter {
    Codex(codex::Codex),
    Claude(claude::Claude),
    Qwen(qwen::Qwen),
    Pi(pi::Pi),
    Copilot(copilot::Copilot),
    Gemini(gemini::Gemini),
}

impl LineImporter {
    fn line(&mut self, sink: &mut Sink<'_, '_>, record: &Value) -> Result<Skip> {
        match self {
            LineImporter::Codex(c) => c.line(sink, record),
            LineImporter::Claude(c) => c.line(sink, record),
            LineImporter::Qwen(c) => c.line(sink, record),
            LineImporter::Pi(c) => c.line(sink, record),
            LineImporter::Copilot(c) => c.line(sink, record),
            LineImporter::Gemini(c) => c.line(sink, record),
        }
    }
}

/// Lines (or bytes) written per transaction: bounded memory and WAL, and progress that survives
/// an interruption.
const BATCH_LINES: usize = 20_000;
const BATCH_BYTES: usize = 32 << 20;
const MAX_SKIPPED_KEPT: usize = 1000;

/// How many times an import starts over when the file is rewritten under it before giving up.
const REWRITES_TOLERATED: usize = 3;

fn import_jsonl(
    store: &Store,
    kind: SourceKind,
    path: &Path,
    control: &Control<'_>,
    progress: &dyn Fn(u64),
) -> Result<ImportedSession> {
    let identity = identify(kind, path)?;
    let session = resolve_session(store, kind, &identity.source_id, path)?;
    // A source read whole and unchanged since needs no claim and no write (the common case of a
    // re-import or a watch round).
    if let Some(skipped) = up_to_date(store, &session, path)? {
        return finished(store, kind, path, &identity.source_id, &session, skipped, 0);
    }
    let _claim = claim(store, &session, control)?;
    let mut rewrites = 0;
    loop {
        match read_jsonl(store, kind, path, &identity, &session, control, progress) {
            Err(Error::Rewritten) if rewrites < REWRITES_TOLERATED => {
                rewrites += 1;
                let earlier = store.write(|tx| imported::supersede(tx, &session))?;
                tracing::info!(
                    "{} was rewritten while it was read; it is read again from its start (the partial reading \
                     is session {earlier})",
                    path.display()
                );
            }
            other => return other,
        }
    }
}

/// The skipped records of session `session` when `path` is the file it was read from, read whole,
/// and unchanged since (size, time and fingerprints as the cursor says).
fn up_to_date(store: &Store, session: &str, path: &Path) -> Result<Option<Vec<Skipped>>> {
    let Some((Some(stored), Some(stored_path))) = imported::import_state(store, session)? else { return Ok(None) };
    if Path::new(&stored_path) != path {
        return Ok(None);
    }
    let Ok(cursor) = serde_json::from_str::<Cursor<serde::de::IgnoredAny>>(&stored) else { return Ok(None) };
    let Ok(file) = open_regular(path) else { return Ok(None) };
    let Ok(meta) = file.metadata() else { return Ok(None) };
    let same = cursor.size == meta.len()
        && cursor.modified == modified_ms(&meta)
        && fingerprints(&file, cursor.offset).ok() == Some((cursor.head, cursor.tail));
    Ok(same.then_some(cursor.skipped))
}

fn read_jsonl(
    store: &Store,
    kind: SourceKind,
    path: &Path,
    identity: &Identity,
    session: &str,
    control: &Control<'_>,
    progress: &dyn Fn(u64),
) -> Result<ImportedSession> {
    let unreadable = |e: std::io::Error| Error::io(format!("cannot read {}", path.display()), e);
    let mut file = open_regular(path).map_err(unreadable)?;
    let meta = file.metadata().map_err(unreadable)?;
    let path_text = path.display().to_string();
    let stored = upsert_session(
        store,
        &imported::ImportedIdentity {
            id: session,
            source: kind,
            source_id: &identity.source_id,
            path: &path_text,
            title: &identity.source_id,
            workspace: &identity.workspace,
            created_at: &identity.created_at,
        },
    )?;
    let cursor: Option<Cursor<Value>> = stored.as_deref().and_then(|c| serde_json::from_str(c).ok());
    // The cursor as stored: each batch advances it only from there (compare and set).
    let mut stored_cursor = stored;
    let same_prefix = |file: &File, c: &Cursor<Value>| {
        c.offset <= meta.len() && fingerprints(file, c.offset).ok() == Some((c.head, c.tail))
    };
    let mut cursor = match cursor {
        Some(c) if same_prefix(&file, &c) && c.size == meta.len() && c.modified == modified_ms(&meta) => {
            return finished(store, kind, path, &identity.source_id, session, c.skipped, 0);
        }
        Some(c) if same_prefix(&file, &c) => c,
        Some(_) => {
            let earlier = store.write(|tx| imported::supersede(tx, session))?;
            tracing::info!(
                "{} was rewritten; it is read again from its start (the earlier reading is session {earlier})",
                path.display()
            );
            stored_cursor = None;
            Cursor::default()
        }
        None => Cursor::default(),
    };
    let mut importer = match kind {
        SourceKind::Codex => {
            let mut codex: codex::Codex = serde_json::from_value(cursor.state.take()).unwrap_or_default();
            codex.path = path.to_path_buf();
            LineImporter::Codex(codex)
        }
        SourceKind::QwenCode => LineImporter::Qwen(serde_json::from_value(cursor.state.take()).unwrap_or_default()),
        SourceKind::Pi => {
            let mut pi: pi::Pi = serde_json::from_value(cursor.state.take()).unwrap_or_default();
            pi.path = path.to_path_buf();
            LineImporter::Pi(pi)
        }
        SourceKind::CopilotCli => {
            LineImporter::Copilot(serde_json::from_value(cursor.state.take()).unwrap_or_default())
        }
        SourceKind::GeminiCli => LineImporter::Gemini(serde_json::from_value(cursor.state.take()).unwrap_or_default()),
        _ => {
            let mut claude: claude::Claude = serde_json::from_value(cursor.state.take()).unwrap_or_default();
            // A sub-agent's own file (`agent-*.jsonl`): its sidechain is the thread shown.
            if path.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with("agent-")) {
                claude.own_sidechain = Some(true);
            }
            claude.path = path.to_path_buf();
            LineImporter::Claude(claude)
        }
    };
    file.seek(SeekFrom::Start(cursor.offset)).map_err(unreadable)?;
    let mut reader = BufReader::with_capacity(1 << 20, file);
    let mut state: Option<SinkState> = None;
    let mut added = 0;
    let mut line = Vec::new();
    let mut pending_skip = None;
    let mut done = false;
    while !done {
        if control.cancelled() {
            return Err(Error::Cancelled);
        }
        let committed = (cursor.offset, cursor.head, cursor.tail);
        // A failed batch is rolled back: the next reading starts from the stored cursor.
        let (text, batch_added) = store.write(|tx| {
            let state = match &mut state {
                Some(state) => state,
                None => state.insert(sink_state(tx, session)?),
            };
            let mut sink = Sink { tx, session, state };
            let (mut lines, mut bytes) = (0, 0);
            while lines < BATCH_LINES && bytes < BATCH_BYTES {
                line.clear();
                let n = reader.read_until(b'\n', &mut line).map_err(unreadable)?;
                if n == 0 {
                    done = true;
                    break;
                }
                let complete = line.last() == Some(&b'\n');
                let number = cursor.line + 1;
                let text = trim_line(&line);
                let parsed = if text.is_empty() { None } else { Some(serde_json::from_slice::<Value>(text)) };
                match parsed {
                    Some(Err(e)) if !complete => {
                        // The writer is still on this line: leave it for the next import.
                        pending_skip = Some(Skipped {
                            line: Position::Line(number),
                            reason: format!("incomplete last line (no newline; the file may still be written): {e}"),
                        });
                        done = true;
                        break;
                    }
                    Some(Err(e)) => push_skip(&mut cursor.skipped, number, format!("not JSON: {e}")),
                    Some(Ok(record)) if !record.is_object() => {
                        push_skip(&mut cursor.skipped, number, "not a JSON object".into())
                    }
                    Some(Ok(record)) => {
                        if let Skip::Yes(reason) = importer.line(&mut sink, &record)? {
                            push_skip(&mut cursor.skipped, number, reason);
                        }
                    }
                    None => {}
                }
                cursor.line = number;
                cursor.offset += n as u64;
                lines += 1;
                bytes += n;
            }
            sink.flush()?;
            let file = reader.get_ref();
            // What was committed before must still be what the file holds: a file rewritten in
            // place while it is read is read again, never stored half old and half new.
            if committed.0 > 0 && fingerprints(file, committed.0).map_err(unreadable)? != (committed.1, committed.2) {
                return Err(Error::Rewritten);
            }
            cursor.state = match &importer {
                LineImporter::Codex(c) => serde_json::to_value(c)?,
                LineImporter::Claude(c) => serde_json::to_value(c)?,
                LineImporter::Qwen(c) => serde_json::to_value(c)?,
                LineImporter::Pi(c) => serde_json::to_value(c)?,
                LineImporter::Copilot(c) => serde_json::to_value(c)?,
                LineImporter::Gemini(c) => serde_json::to_value(c)?,
            };
            (cursor.head, cursor.tail) = fingerprints(file, cursor.offset).map_err(unreadable)?;
            let whole = done && pending_skip.is_none();
            // The size/mtime shortcut holds only when the whole file was read.
            (cursor.size, cursor.modified) = if whole { (meta.len(), modified_ms(&meta)) } else { (u64::MAX, 0) };
            let text = serde_json::to_string(&cursor)?;
            imported::advance_cursor(tx, session, stored_cursor.as_deref(), &text)?;
            Ok((text, std::mem::take(&mut sink.state.added)))
        })?;
        stored_cursor = Some(text);
        added += batch_added;
        progress(cursor.offset);
    }
    let mut skipped = cursor.skipped;
    skipped.extend(pending_skip);
    finished(store, kind, path, &identity.source_id, session, skipped, added)
}

fn trim_line(line: &[u8]) -> &[u8] {
    let end = line.iter().rposition(|b| !b.is_ascii_whitespace()).map_or(0, |i| i + 1);
    &line[..end]
}

fn push_skip(skipped: &mut Vec<Skipped>, line: u64, reason: String) {
    if skipped.len() < MAX_SKIPPED_KEPT {
        skipped.push(Skipped { line: Position::Line(line), reason });
    }
}

fn finished(
    store: &Store,
    kind: SourceKind,
    path: &Path,
    source_id: &str,
    session: &str,
    skipped: Vec<Skipped>,
    added: u64,
) -> Result<ImportedSession> {
    if let Ok(modified) = path.metadata().and_then(|m| m.modified()) {
        let at = chrono::DateTime::<chrono::Utc>::from(modified).to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
        imported::date_if_undated(store, session, &at)?;
    }
    let (title, messages, tool_calls, compactions) = imported::counts(store, session)?;
    Ok(ImportedSession {
        id: session.to_string(),
        source: kind,
        path: path.display().to_string(),
        source_id: source_id.to_string(),
        title,
        messages,
        tool_calls,
        compactions,
        skipped,
        added,
    })
}

/// A session read from a file, and the sessions of the sub-agent threads read from inside it.
fn with_threads(store: &Store, session: ImportedSession) -> Result<Vec<ImportedSession>> {
    let mut out = Vec::new();
    for id in imported::threads_of(store, &session.id)? {
        let thread = store.resolve_session(&id)?;
        let (title, messages, tool_calls, compactions) = imported::counts(store, &id)?;
        out.push(ImportedSession {
            id,
            source: session.source,
            path: session.path.clone(),
            source_id: thread.source_id.unwrap_or_default(),
            title,
            messages,
            tool_calls,
            compactions,
            skipped: Vec::new(),
            added: if session.added > 0 { messages } else { 0 },
        });
    }
    out.insert(0, session);
    Ok(out)
}

/// An ATIF trajectory, read whole: a document rewritten since its last reading is read again (the
/// earlier reading kept as a superseded session, as for any rewritten source).
fn import_atif(store: &Store, path: &Path, control: &Control<'_>) -> Result<ImportedSession> {
    let unreadable = |e: std::io::Error| Error::io(format!("cannot read {}", path.display()), e);
    let file = open_regular(path).map_err(unreadable)?;
    let meta = file.metadata().map_err(unreadable)?;
    let document: Value = serde_json::from_reader(BufReader::new(file))
        .map_err(|e| Error::Unreadable(format!("{} is not a readable ATIF trajectory: {e}", path.display())))?;
    let Some(source_id) = atif::identity(&document) else {
        return Err(Error::Unreadable(format!(
            "{} is not an ATIF trajectory (it needs schema_version \"ATIF-v…\", session_id and steps)",
            path.display()
        )));
    };
    let whole = Whole {
        kind: SourceKind::Atif,
        source_id,
        stamp: format!("{}:{}", meta.len(), modified_ms(&meta)),
        title: str_at(&document, "/extra/alisio/title").unwrap_or(source_id),
        workspace: str_at(&document, "/extra/alisio/workspace").unwrap_or_default(),
        created_at: str_at(&document, "/steps/0/timestamp").unwrap_or_default(),
    };
    let undated = chrono::DateTime::<chrono::Utc>::from(meta.modified().unwrap_or(std::time::UNIX_EPOCH))
        .to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
    import_whole(store, path, control, whole, |sink| {
        let skipped = atif::replay(sink, &document, &undated)?;
        Ok(skipped
            .into_iter()
            .map(|(n, reason)| Skipped { line: Position::Row(format!("step {n}")), reason })
            .collect())
    })
}

/// Claude Code's records as one document (`{"loglines": [...]}`, a web session as fetched), read
/// whole with the same reader as its JSONL files.
fn import_claude_document(store: &Store, path: &Path, control: &Control<'_>) -> Result<ImportedSession> {
    let Some((document, stamp)) = read_stamped(path)? else {
        return Err(Error::Unreadable(format!("cannot read {}", path.display())));
    };
    let Some(records) = document.get("loglines").and_then(Value::as_array) else {
        return Err(Error::Unreadable(format!("{} holds no `loglines` array", path.display())));
    };
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or_default().to_string();
    let first = |key: &str| records.iter().find_map(|r| str_at(r, key)).unwrap_or_default().to_string();
    let (workspace, created_at) = (first("/cwd"), first("/timestamp"));
    let whole = Whole {
        kind: SourceKind::ClaudeCode,
        source_id: &stem,
        stamp,
        title: &stem,
        workspace: &workspace,
        created_at: &created_at,
    };
    import_whole(store, path, control, whole, |sink| {
        let mut reader = claude::Claude::default();
        reader.path = path.to_path_buf();
        let mut skipped = Vec::new();
        for (index, record) in records.iter().enumerate() {
            let reason = if record.is_object() {
                match reader.line(sink, record)? {
                    Skip::Yes(reason) => Some(reason),
                    Skip::No => None,
                }
            } else {
                Some("not a JSON object".to_string())
            };
            if let Some(reason) = reason {
                skipped.push(Skipped { line: Position::Row(format!("logline {index}")), reason });
            }
        }
        Ok(skipped)
    })
}

/// A chat of Gemini CLI before 0.39 (or Qwen Code 0.1): one JSON document, rewritten whole.
fn import_chat_document(
    store: &Store,
    kind: SourceKind,
    path: &Path,
    control: &Control<'_>,
) -> Result<ImportedSession> {
    let Some((document, stamp)) = read_stamped(path)? else {
        return Err(Error::Unreadable(format!("cannot read {}", path.display())));
    };
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or_default();
    let source_id = str_at(&document, "/sessionId").unwrap_or(stem).to_string();
    // The project's root is beside its chats (`tmp/<project>/.project_root`) where it was written.
    let root = path.parent().and_then(Path::parent).map(|p| p.join(".project_root"));
    let workspace = root.and_then(|p| std::fs::read_to_string(p).ok()).unwrap_or_default().trim().to_string();
    let created_at = str_at(&document, "/startTime").unwrap_or_default().to_string();
    let whole =
        Whole { kind, source_id: &source_id, stamp, title: &source_id, workspace: &workspace, created_at: &created_at };
    import_whole(store, path, control, whole, |sink| {
        let skipped = gemini::Gemini::default().document(sink, &document)?;
        Ok(skipped
            .into_iter()
            .map(|(index, reason)| Skipped { line: Position::Row(format!("message {index}")), reason })
            .collect())
    })
}

/// A rollout document of Codex's first releases (`{"session": {id, timestamp, instructions},
/// "items": [...]}`), rewritten whole at each save, read whole with the rollouts' reader.
fn import_codex_document(store: &Store, path: &Path, control: &Control<'_>) -> Result<ImportedSession> {
    let Some((document, stamp)) = read_stamped(path)? else {
        return Err(Error::Unreadable(format!("cannot read {}", path.display())));
    };
    let session = document.get("session").filter(|s| s.is_object()).cloned().unwrap_or_default();
    let Some(items) = document.get("items").and_then(Value::as_array) else {
        return Err(Error::Unreadable(format!("{} holds no `items` array", path.display())));
    };
    let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or_default();
    let source_id = str_at(&session, "/id").unwrap_or(stem).to_string();
    let created_at = str_at(&session, "/timestamp").unwrap_or_default().to_string();
    let whole = Whole {
        kind: SourceKind::Codex,
        source_id: &source_id,
        stamp,
        title: &source_id,
        workspace: "",
        created_at: &created_at,
    };
    import_whole(store, path, control, whole, |sink| {
        let mut reader = codex::Codex::default();
        reader.path = path.to_path_buf();
        // The items carry no times: each is dated by the save.
        let mut first = session.clone();
        first.as_object_mut().map(|o| o.remove("type"));
        reader.line(sink, &first)?;
        let mut skipped = Vec::new();
        for (index, item) in items.iter().enumerate() {
            let mut item = item.clone();
            if let Some(object) = item.as_object_mut() {
                object.entry("timestamp").or_insert_with(|| Value::String(created_at.clone()));
            }
            let bare = item.get("payload").is_none() && item.get("type").is_some();
            let reason = match bare {
                true => match reader.line(sink, &item)? {
                    Skip::Yes(reason) => Some(reason),
                    Skip::No => None,
                },
                false => Some("not a response item".to_string()),
            };
            if let Some(reason) = reason {
                skipped.push(Skipped { line: Position::Row(format!("item {index}")), reason });
            }
        }
        Ok(skipped)
    })
}

/// A JSON document beside a session's file with its stamp (size and time), or `None` where there
/// is no readable regular file.
fn read_stamped(p: &Path) -> Result<Option<(Value, String)>> {
    let Ok(file) = open_regular(p) else { return Ok(None) };
    let meta = file.metadata().map_err(|e| Error::io(format!("cannot read {}", p.display()), e))?;
    let value: Value = serde_json::from_reader(BufReader::new(file))
        .map_err(|e| Error::Unreadable(format!("{} is not readable JSON: {e}", p.display())))?;
    Ok(Some((value, format!("{}:{}", meta.len(), modified_ms(&meta)))))
}

/// A Cline session, read whole (its transcript is rewritten whole after each message): with its
/// latest compaction and its row beside it. A changed transcript is read again, the earlier reading
/// kept as a superseded session.
fn import_cline(store: &Store, path: &Path, control: &Control<'_>) -> Result<ImportedSession> {
    let Some((document, stamp)) = read_stamped(path)? else {
        return Err(Error::Unreadable(format!("cannot read {}", path.display())));
    };
    let Some(source_id) = cline::identity(&document) else {
        return Err(Error::Unreadable(format!("{} is not a Cline transcript", path.display())));
    };
    let sibling = |ending: &str| path.with_file_name(format!("{source_id}{ending}"));
    let compaction = read_stamped(&sibling(".compaction.json"))?;
    let row = read_stamped(&sibling(".json"))?.map(|(v, _)| v).unwrap_or(Value::Null);
    let whole = Whole {
        kind: SourceKind::Cline,
        source_id,
        stamp: format!("{stamp}+{}", compaction.as_ref().map_or("", |(_, s)| s.as_str())),
        title: str_at(&row, "/metadata/title").unwrap_or(source_id),
        workspace: str_at(&row, "/cwd").unwrap_or_default(),
        created_at: str_at(&row, "/started_at").unwrap_or_default(),
    };
    import_whole(store, path, control, whole, |sink| {
        cline::replay(sink, &document, compaction.as_ref().map(|(c, _)| c))?;
        // The session's row: when it ended, and what Cline counted it cost (its own calls).
        if let Some(ended) = str_at(&row, "/ended_at") {
            sink.touch(ended)?;
        }
        if let Some(cost) = value_at(&row, "/metadata/totalCost").and_then(claude::picodollars) {
            sink.set_recorded_cost(cost)?;
        }
        Ok(Vec::new())
    })
}

/// An extension's task folder (Cline, Roo Code), read whole: its conversation with the chat's
/// records and the agent's own files beside it. A changed task is read again, the earlier reading
/// kept as a superseded session.
fn import_task(store: &Store, path: &Path, control: &Control<'_>) -> Result<ImportedSession> {
    let Some((Value::Array(history), stamp)) = read_stamped(path)? else {
        return Err(Error::Unreadable(format!("{} is not a task's conversation (a JSON array)", path.display())));
    };
    let dir = path.parent().unwrap_or(path);
    let source_id = dir.file_name().map(|n| n.to_string_lossy().to_string()).unwrap_or_default();
    let (ui, ui_stamp) = match read_stamped(&dir.join("ui_messages.json")).ok().flatten() {
        Some((Value::Array(ui), stamp)) => (ui, stamp),
        _ => (Vec::new(), String::new()),
    };
    let json_of = |name: &str| read_stamped(&dir.join(name)).ok().flatten().map(|(v, _)| v).unwrap_or(Value::Null);
    // Roo Code's own record of the task, else Cline's entry in its task list.
    let mut item = json_of("history_item.json");
    if item.is_null() {
        let list = dir.parent().and_then(Path::parent).map(|data| data.join("state/taskHistory.json"));
        if let Some(Some((Value::Array(tasks), _))) = list.map(|l| read_stamped(&l).ok().flatten()) {
            item = tasks.into_iter().find(|t| str_at(t, "/id") == Some(source_id.as_str())).unwrap_or(Value::Null);
        }
    }
    let task = tasks::Task { history, ui, item, context: json_of("context_history.json") };
    let kind = task.agent(dir);
    let (title, workspace, created_at) = (task.title(), task.workspace(), task.created_at());
    let whole = Whole {
        kind,
        source_id: &source_id,
        stamp: format!("{stamp}+{ui_stamp}"),
        title: &title,
        workspace: &workspace,
        created_at: &created_at,
    };
    let recorded = value_at(&task.item, "/totalCost").and_then(claude::picodollars);
    import_whole(store, path, control, whole, |sink| {
        tasks::replay(sink, &task, kind)?;
        // The task's own total (its requests, condenses and those that failed included).
        if let Some(cost) = recorded {
            sink.set_recorded_cost(cost)?;
        }
        Ok(Vec::new())
    })
}

/// A source read whole at each change: who it is, and the stamp (sizes and times) that tells a
/// changed document from one already read.
struct Whole<'a> {
    kind: SourceKind,
    source_id: &'a str,
    stamp: String,
    title: &'a str,
    workspace: &'a str,
    created_at: &'a str,
}

/// Reads a whole document into its session unless the stored stamp says it is already read; a
/// session read before is superseded first. `replay` writes the messages and returns what it skipped.
fn import_whole(
    store: &Store,
    path: &Path,
    control: &Control<'_>,
    whole: Whole<'_>,
    replay: impl FnOnce(&mut Sink<'_, '_>) -> Result<Vec<Skipped>>,
) -> Result<ImportedSession> {
    let Whole { kind, source_id, stamp, title, workspace, created_at } = whole;
    let session = resolve_session(store, kind, source_id, path)?;
    let path_text = path.display().to_string();
    if let Some((Some(stored), Some(stored_path))) = imported::import_state(store, &session)? {
        if stored == stamp && stored_path == path_text {
            return finished(store, kind, path, source_id, &session, Vec::new(), 0);
        }
    }
    let _claim = claim(store, &session, control)?;
    let identity = imported::ImportedIdentity {
        id: &session,
        source: kind,
        source_id,
        path: &path_text,
        title,
        workspace,
        created_at,
    };
    let stored = upsert_session(store, &identity)?;
    let (skipped, added) = store.write(|tx| {
        if stored.is_some() {
            imported::supersede(tx, &session)?;
        }
        let mut state = sink_state(tx, &session)?;
        let mut sink = Sink { tx, session: &session, state: &mut state };
        let skipped = replay(&mut sink)?;
        sink.flush()?;
        imported::set_cursor(tx, &session, &stamp)?;
        Ok((skipped, state.added))
    })?;
    finished(store, kind, path, source_id, &session, skipped, added)
}

#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct OpenCodeCursor {
    #[serde(flatten)]
    state: opencode::OpenCode,
    skipped: Vec<Skipped>,
}

fn import_opencode(store: &Store, path: &Path, control: &Control<'_>) -> Result<Vec<ImportedSession>> {
    let mut conn = opencode::open(path)?;
    // One read transaction: every session is read from the same snapshot of committed data.
    let snapshot = conn.transaction()?;
    let sessions = opencode::sessions(&snapshot)?;
    let out =
        import_opencode_sessions(store, path, control, sessions, opencode::is_complete, &mut |id, after, limit| {
            opencode::messages_after(&snapshot, id, after, limit)
        })?;
    snapshot.rollback()?;
    Ok(out)
}

/// OpenCode's JSON storage from before its database (1.1 and earlier: `storage/session/…`,
/// `storage/message/<session>/…`, `storage/part/<message>/…`), read as the database is.
fn import_opencode_storage(store: &Store, dir: &Path, control: &Control<'_>) -> Result<Vec<ImportedSession>> {
    let storage = opencode_storage::Storage::read(dir)?;
    let sessions = storage.sessions();
    // A message file is whole once written; one still running has a tool part still pending.
    import_opencode_sessions(store, dir, control, sessions, opencode::has_no_running_tool, &mut |id, after, limit| {
        Ok(storage.messages_after(id, after, limit))
    })
}

/// The messages of OpenCode session `id` after `(time, id)`, at most `limit`.
type MessagesAfter<'a> = dyn FnMut(&str, Option<(i64, String)>, usize) -> Result<Vec<opencode::SourceMessage>> + 'a;

/// Imports OpenCode's sessions from one store (its database or its JSON storage), each from its
/// cursor on, in batches.
fn import_opencode_sessions(
    store: &Store,
    path: &Path,
    control: &Control<'_>,
    sessions: Vec<opencode::SourceSession>,
    is_complete: fn(&opencode::SourceMessage) -> bool,
    messages_after: &mut MessagesAfter<'_>,
) -> Result<Vec<ImportedSession>> {
    let path_text = path.display().to_string();
    let mut out = Vec::new();
    for source in sessions {
        let title = if source.title.is_empty() { source.id.clone() } else { source.title.clone() };
        let created = opencode::iso(source.created);
        let session = resolve_session(store, SourceKind::OpenCode, &source.id, path)?;
        // Nothing new since the stored cursor: no claim and no write.
        if let Some((Some(stored), Some(stored_path))) = imported::import_state(store, &session)? {
            let cursor: Option<OpenCodeCursor> = serde_json::from_str(&stored).ok();
            if let Some(cursor) = cursor.filter(|_| stored_path == path_text) {
                if messages_after(&source.id, cursor.state.last.clone(), 1)?.is_empty() {
                    out.push(finished(store, SourceKind::OpenCode, path, &source.id, &session, cursor.skipped, 0)?);
                    continue;
                }
            }
        }
        let _claim = claim(store, &session, control)?;
        let mut stored = upsert_session(
            store,
            &imported::ImportedIdentity {
                id: &session,
                source: SourceKind::OpenCode,
                source_id: &source.id,
                path: &path_text,
                title: &title,
                workspace: &source.directory,
                created_at: &created,
            },
        )?;
        let mut cursor: OpenCodeCursor =
            stored.as_deref().and_then(|c| serde_json::from_str(c).ok()).unwrap_or_default();
        let mut state: Option<SinkState> = None;
        let mut added = 0;
        // In batches of messages: a long session is never held whole in memory.
        loop {
            if control.cancelled() {
                return Err(Error::Cancelled);
            }
            let messages = messages_after(&source.id, cursor.state.last.clone(), opencode::MESSAGES_PER_BATCH)?;
            let complete: Vec<_> = messages.iter().take_while(|m| is_complete(m)).collect();
            if complete.is_empty() {
                break;
            }
            let text = store.write(|tx| {
                let state = match &mut state {
                    Some(state) => state,
                    None => state.insert(sink_state(tx, &session)?),
                };
                let mut sink = Sink { tx, session: &session, state };
                if source.updated > 0 {
                    sink.touch(&opencode::iso(source.updated))?;
                }
                if let Some(parent) = &source.parent {
                    imported::set_title(tx, &session, &format!("{title} (sub-agent of {parent})"))?;
                    imported::set_parent(tx, &session, &session_id(SourceKind::OpenCode, parent), None)?;
                }
                for message in &complete {
                    for (row, reason) in cursor.state.message(&mut sink, message)? {
                        if cursor.skipped.len() < MAX_SKIPPED_KEPT {
                            cursor.skipped.push(Skipped { line: Position::Row(row), reason });
                        }
                    }
                }
                sink.flush()?;
                added += std::mem::take(&mut sink.state.added);
                let text = serde_json::to_string(&cursor)?;
                imported::advance_cursor(tx, &session, stored.as_deref(), &text)?;
                Ok(text)
            })?;
            stored = Some(text);
            if complete.len() < messages.len() || messages.len() < opencode::MESSAGES_PER_BATCH {
                break;
            }
        }
        out.push(finished(store, SourceKind::OpenCode, path, &source.id, &session, cursor.skipped, added)?);
    }
    Ok(out)
}

#[cfg(test)]
mod corpus_tests;
#[cfg(test)]
mod load_tests;
#[cfg(test)]
mod tests;
