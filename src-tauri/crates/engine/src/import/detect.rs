//! What a path holds: the agent whose files it is (by content, then by name and place), and the
//! walk that finds them under a directory, with what it could not read and why.

use std::fs::File;
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

use super::*;

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
    match by_head(path, &mut file)? {
        Some(decided) => Ok(decided),
        None => by_records(file),
    }
}

/// What the file's first bytes settle: a database, a task's conversation, a whole JSON document
/// (`Some(None)`: not an agent's file at all); `None` when its records must tell.
fn by_head(path: &Path, file: &mut File) -> std::io::Result<Option<Option<SourceKind>>> {
    let mut head = [0u8; 16];
    let n = file.read(&mut head)?;
    if n == 16 && &head == b"SQLite format 3\0" {
        // A corrupt or locked database is named as such, not taken for an unknown format.
        let conn = opencode::open(path).map_err(|e| std::io::Error::other(e.to_string()))?;
        // Kilo Code's CLI keeps OpenCode's database under its own name (`kilo.db`, a channel's
        // `kilo-<channel>.db`), in its own folder.
        let named = path.file_name().is_some_and(|n| n.to_string_lossy().starts_with("kilo"));
        let kilo = named || path.parent().and_then(|d| d.file_name()).is_some_and(|d| d == "kilo");
        let kind = if kilo { SourceKind::Kilo } else { SourceKind::OpenCode };
        return Ok(Some(opencode::is_opencode(&conn).then_some(kind)));
    }
    if tasks::is_history(path) && head[..n].iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'[') {
        // An extension task's conversation (a JSON array): whose, by its folder.
        let dir = path.parent().unwrap_or(path);
        let roo = dir.join("history_item.json").is_file()
            || ["roo-cline", ".vscode-mock"].iter().any(|m| dir.to_string_lossy().contains(m));
        return Ok(Some(Some(if roo { SourceKind::RooCode } else { SourceKind::Cline })));
    }
    if head[..n].iter().find(|b| !b.is_ascii_whitespace()).is_none_or(|b| *b != b'{') {
        return Ok(Some(None));
    }
    file.seek(SeekFrom::Start(0))?;
    // An ATIF trajectory is one (usually pretty-printed) document: its head names the schema.
    let mut head = vec![0u8; 8192];
    let n = file.read(&mut head)?;
    if atif::looks_like(&head[..n]) {
        return Ok(Some(Some(SourceKind::Atif)));
    }
    if cline::looks_like(&head[..n]) {
        return Ok(Some(Some(SourceKind::Cline)));
    }
    if claude::is_document(&head[..n]) {
        return Ok(Some(Some(SourceKind::ClaudeCode)));
    }
    if codex::is_document(&head[..n]) {
        return Ok(Some(Some(SourceKind::Codex)));
    }
    if gemini::is_document(&head[..n]) {
        // Qwen Code 0.1 wrote Gemini CLI's documents (its answers `"type": "qwen"`, under ~/.qwen).
        let qwen = String::from_utf8_lossy(&head[..n]).contains("\"type\": \"qwen\"")
            || path.components().any(|c| c.as_os_str() == ".qwen");
        return Ok(Some(Some(if qwen { SourceKind::QwenCode } else { SourceKind::GeminiCli })));
    }
    Ok(None)
}

/// A JSONL file's first records: whose they are.
fn by_records(mut file: File) -> std::io::Result<Option<SourceKind>> {
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

pub(super) fn walk_in(path: &Path, out: &mut Discovered, top: bool) {
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
