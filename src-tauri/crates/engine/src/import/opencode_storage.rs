//! OpenCode's JSON storage, before its SQLite database (1.1.65 and earlier: the folder
//! `~/.local/share/opencode/storage/`): `session/<project>/<id>.json` (the session row),
//! `message/<session>/<id>.json` and `part/<message>/<id>.json` — the same documents the database
//! later holds in its `data` columns. Read by what each document says (`sessionID`, `messageID`),
//! not by the folder it sits in: the first releases and other tools' copies lay them out
//! differently. The messages are then read as the database's are ([`super::opencode`]).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::opencode::{SourceMessage, SourceSession};
use super::str_at;
use crate::error::{Error, Result};

/// Whether `dir` is OpenCode's storage: a `message` folder beside a `session` or `part` folder
/// (or alone, in a folder named `storage`).
pub fn is_storage(dir: &Path) -> bool {
    dir.join("message").is_dir()
        && (dir.join("session").is_dir()
            || dir.join("part").is_dir()
            || dir.file_name().is_some_and(|n| n == "storage"))
}

/// Every JSON document under `dir` (a missing folder holds none), with its path.
fn documents(dir: &Path) -> Vec<(PathBuf, std::result::Result<Value, String>)> {
    let mut out = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else { continue };
        for entry in entries.filter_map(|e| e.ok()) {
            let path = entry.path();
            match entry.file_type() {
                Ok(t) if t.is_dir() => pending.push(path),
                Ok(t) if t.is_file() && path.extension().is_some_and(|e| e == "json") => {
                    let read = super::open_regular(&path)
                        .map_err(|e| e.to_string())
                        .and_then(|f| serde_json::from_reader(std::io::BufReader::new(f)).map_err(|e| e.to_string()));
                    out.push((path, read));
                }
                _ => {}
            }
        }
    }
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// A part's id and its document (or why it could not be read).
type Part = (String, std::result::Result<Value, String>);

/// The storage, read whole: sessions, and each session's messages with their parts in order.
pub struct Storage {
    sessions: Vec<SourceSession>,
    messages: BTreeMap<String, Vec<SourceMessage>>,
}

fn created(value: &Value) -> i64 {
    value.pointer("/time/created").and_then(Value::as_i64).unwrap_or(0)
}

impl Storage {
    pub fn read(dir: &Path) -> Result<Storage> {
        if !is_storage(dir) {
            return Err(Error::Unreadable(format!("{} is not OpenCode's storage folder", dir.display())));
        }
        // Parts by the message they belong to (their `messageID`, else their folder's name).
        let mut parts: BTreeMap<String, Vec<Part>> = BTreeMap::new();
        for (path, part) in documents(&dir.join("part")) {
            let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or_default().to_string();
            let folder = path.parent().and_then(Path::file_name).and_then(|n| n.to_str()).unwrap_or_default();
            let message = part.as_ref().ok().and_then(|p| str_at(p, "/messageID")).unwrap_or(folder).to_string();
            let id = part.as_ref().ok().and_then(|p| str_at(p, "/id")).map(str::to_string).unwrap_or(stem);
            parts.entry(message).or_default().push((id, part.map_err(|e| format!("part is not JSON: {e}"))));
        }
        let mut messages: BTreeMap<String, Vec<SourceMessage>> = BTreeMap::new();
        for (path, message) in documents(&dir.join("message")) {
            let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or_default().to_string();
            let folder = path.parent().and_then(Path::file_name).and_then(|n| n.to_str()).unwrap_or_default();
            let (session, id, time) = match &message {
                Ok(m) => (
                    str_at(m, "/sessionID").unwrap_or(folder).to_string(),
                    str_at(m, "/id").map(str::to_string).unwrap_or_else(|| stem.clone()),
                    created(m),
                ),
                Err(_) => (folder.to_string(), stem.clone(), 0),
            };
            let mut own = parts.remove(&id).unwrap_or_default();
            own.sort_by(|a, b| a.0.cmp(&b.0));
            messages.entry(session).or_default().push(SourceMessage {
                id,
                created: time,
                // JSON files keep their times inside (`time` objects), read with the message.
                updated: 0,
                data: message.map_err(|e| format!("message is not JSON: {e}")),
                parts: own,
            });
        }
        for list in messages.values_mut() {
            list.sort_by(|a, b| (a.created, &a.id).cmp(&(b.created, &b.id)));
        }
        let mut sessions: Vec<SourceSession> = documents(&dir.join("session"))
            .into_iter()
            .filter_map(|(_, s)| s.ok())
            .filter_map(|s| {
                Some(SourceSession {
                    id: str_at(&s, "/id")?.to_string(),
                    title: str_at(&s, "/title").unwrap_or_default().to_string(),
                    directory: str_at(&s, "/directory").unwrap_or_default().to_string(),
                    parent: str_at(&s, "/parentID").map(str::to_string),
                    created: created(&s),
                    updated: s.pointer("/time/updated").and_then(Value::as_i64).unwrap_or(0),
                })
            })
            .collect();
        // Messages whose session has no row of its own (a partial copy): a session still.
        for (id, list) in &messages {
            if !sessions.iter().any(|s| &s.id == id) {
                let directory = list
                    .iter()
                    .find_map(|m| m.data.as_ref().ok().and_then(|d| str_at(d, "/path/cwd").map(str::to_string)))
                    .unwrap_or_default();
                sessions.push(SourceSession {
                    id: id.clone(),
                    title: String::new(),
                    directory,
                    parent: None,
                    created: list.first().map_or(0, |m| m.created),
                    updated: 0,
                });
            }
        }
        sessions.sort_by(|a, b| (a.created, &a.id).cmp(&(b.created, &b.id)));
        Ok(Storage { sessions, messages })
    }

    pub fn sessions(&self) -> Vec<SourceSession> {
        self.sessions.clone()
    }

    /// Up to `limit` of session `id`'s messages after `after` (`(time created, id)`), in order.
    pub fn messages_after(&self, id: &str, after: Option<(i64, String)>, limit: usize) -> Vec<SourceMessage> {
        let Some(list) = self.messages.get(id) else { return Vec::new() };
        let start = match &after {
            Some((time, id)) => list.partition_point(|m| (m.created, &m.id) <= (*time, id)),
            None => 0,
        };
        list[start..].iter().take(limit).cloned().collect()
    }
}
