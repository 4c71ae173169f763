//! Sources read whole: ATIF trajectories, Claude Code and chat documents, Codex documents, Cline and
//! Roo Code task folders, OpenCode (one file or its JSON storage).

use std::io::BufReader;
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{Error, Result};
use crate::store::{imported, Store};
use sink::{Sink, SinkState};

use super::*;

/// An ATIF trajectory, read whole: a document rewritten since its last reading is read again (the
/// earlier reading kept as a superseded session, as for any rewritten source).
pub(super) fn import_atif(store: &Store, path: &Path, control: &Control<'_>) -> Result<ImportedSession> {
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
pub(super) fn import_claude_document(store: &Store, path: &Path, control: &Control<'_>) -> Result<ImportedSession> {
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
pub(super) fn import_chat_document(
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
pub(super) fn import_codex_document(store: &Store, path: &Path, control: &Control<'_>) -> Result<ImportedSession> {
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
pub(super) fn read_stamped(p: &Path) -> Result<Option<(Value, String)>> {
    let Ok(file) = open_regular(p) else { return Ok(None) };
    let meta = file.metadata().map_err(|e| Error::io(format!("cannot read {}", p.display()), e))?;
    let value: Value = serde_json::from_reader(BufReader::new(file))
        .map_err(|e| Error::Unreadable(format!("{} is not readable JSON: {e}", p.display())))?;
    Ok(Some((value, format!("{}:{}", meta.len(), modified_ms(&meta)))))
}

/// A Cline session, read whole (its transcript is rewritten whole after each message): with its
/// latest compaction and its row beside it. A changed transcript is read again, the earlier reading
/// kept as a superseded session.
pub(super) fn import_cline(store: &Store, path: &Path, control: &Control<'_>) -> Result<ImportedSession> {
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
pub(super) fn import_task(store: &Store, path: &Path, control: &Control<'_>) -> Result<ImportedSession> {
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
pub(super) struct Whole<'a> {
    kind: SourceKind,
    source_id: &'a str,
    stamp: String,
    title: &'a str,
    workspace: &'a str,
    created_at: &'a str,
}

/// Reads a whole document into its session unless the stored stamp says it is already read; a
/// session read before is superseded first. `replay` writes the messages and returns what it skipped.
pub(super) fn import_whole(
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
pub(super) struct OpenCodeCursor {
    #[serde(flatten)]
    state: opencode::OpenCode,
    skipped: Vec<Skipped>,
}

pub(super) fn import_opencode(
    store: &Store,
    kind: SourceKind,
    path: &Path,
    control: &Control<'_>,
) -> Result<Vec<ImportedSession>> {
    let mut conn = opencode::open(path)?;
    // One read transaction: every session is read from the same snapshot of committed data.
    let snapshot = conn.transaction()?;
    let sessions = opencode::sessions(&snapshot)?;
    let out = import_opencode_sessions(
        store,
        kind,
        path,
        control,
        sessions,
        opencode::is_complete,
        &mut |id, after, limit| opencode::messages_after(&snapshot, id, after, limit),
    )?;
    snapshot.rollback()?;
    Ok(out)
}

/// OpenCode's JSON storage from before its database (1.1 and earlier: `storage/session/…`,
/// `storage/message/<session>/…`, `storage/part/<message>/…`), read as the database is.
pub(super) fn import_opencode_storage(
    store: &Store,
    dir: &Path,
    control: &Control<'_>,
) -> Result<Vec<ImportedSession>> {
    let storage = opencode_storage::Storage::read(dir)?;
    let sessions = storage.sessions();
    // A message file is whole once written; one still running has a tool part still pending.
    let kind = SourceKind::OpenCode;
    import_opencode_sessions(
        store,
        kind,
        dir,
        control,
        sessions,
        opencode::has_no_running_tool,
        &mut |id, after, limit| Ok(storage.messages_after(id, after, limit)),
    )
}

/// The messages of OpenCode session `id` after `(time, id)`, at most `limit`.
type MessagesAfter<'a> = dyn FnMut(&str, Option<(i64, String)>, usize) -> Result<Vec<opencode::SourceMessage>> + 'a;

/// Imports OpenCode's sessions from one store (its database or its JSON storage), each from its
/// cursor on, in batches.
pub(super) fn import_opencode_sessions(
    store: &Store,
    kind: SourceKind,
    path: &Path,
    control: &Control<'_>,
    sessions: Vec<opencode::SourceSession>,
    is_complete: fn(&opencode::SourceMessage) -> bool,
    messages_after: &mut MessagesAfter<'_>,
) -> Result<Vec<ImportedSession>> {
    let path_text = path.display().to_string();
    let mut out = Vec::new();
    for source in sessions {
        let created = opencode::iso(source.created);
        let session = resolve_session(store, kind, &source.id, path)?;
        // Nothing new since the stored cursor: no claim and no write.
        if let Some((Some(stored), Some(stored_path))) = imported::import_state(store, &session)? {
            let cursor: Option<OpenCodeCursor> = serde_json::from_str(&stored).ok();
            if let Some(cursor) = cursor.filter(|_| stored_path == path_text) {
                if messages_after(&source.id, cursor.state.last.clone(), 1)?.is_empty() {
                    out.push(finished(store, kind, path, &source.id, &session, cursor.skipped, 0)?);
                    continue;
                }
            }
        }
        let _claim = claim(store, &session, control)?;
        // A title request that never succeeded leaves a placeholder: the first prompt stands for it.
        let title = match source.title.as_str() {
            "" => source.id.clone(),
            placeholder if opencode::is_placeholder_title(placeholder) => {
                let first = messages_after(&source.id, None, opencode::MESSAGES_PER_BATCH)?;
                first.iter().find_map(opencode::prompt_text).map_or(source.id.clone(), |t| super::sink::title_of(&t))
            }
            title => title.to_string(),
        };
        let mut stored = upsert_session(
            store,
            &imported::ImportedIdentity {
                id: &session,
                source: kind,
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
                    imported::set_parent(tx, &session, &session_id(kind, parent), None)?;
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
        out.push(finished(store, kind, path, &source.id, &session, cursor.skipped, added)?);
    }
    Ok(out)
}
