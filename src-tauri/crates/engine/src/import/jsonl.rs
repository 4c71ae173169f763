//! JSONL sources, read incrementally: the cursor (offset, line, fingerprints of what was read),
//! the session a source maps to, batches of lines through one importer per format.

use std::fs::File;
use std::io::{BufRead, BufReader, Seek, SeekFrom};
use std::path::Path;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{Error, Result};
use crate::store::{imported, Store, Tx};
use sink::{Sink, SinkState};

use super::*;
use crate::store::SessionId;

/// How far a JSONL source has been read, and the importer's state at that point.
#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Cursor<S> {
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
pub(super) fn fingerprint(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(*b)).wrapping_mul(0x100_0000_01b3))
}

pub(super) const FINGERPRINT_BYTES: u64 = 4096;

/// Fingerprints of the bytes before `offset`, read without moving the file's position — from the
/// file being read, not whatever the path names now.
pub(super) fn fingerprints(file: &File, offset: u64) -> std::io::Result<(u64, u64)> {
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

pub(super) fn modified_ms(meta: &std::fs::Metadata) -> i64 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// The identity of a JSONL source session, read from its first records.
pub(super) struct Identity {
    source_id: String,
    workspace: String,
    created_at: String,
}

pub(super) fn identify(kind: SourceKind, path: &Path) -> Result<Identity> {
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
pub fn session_id(kind: SourceKind, source_id: &str) -> SessionId {
    SessionId::from_string(
        uuid::Uuid::new_v5(
            &uuid::Uuid::NAMESPACE_URL,
            format!("alisio-import:{}:{source_id}", kind.as_str()).as_bytes(),
        )
        .to_string(),
    )
}

/// The session a source session at `path` is stored as. The same source id in two files (a copied
/// rollout, one Claude Code file in two project folders, a backup) is two sessions: the first file
/// read keeps the plain id, any other is keyed by id and path — stable however often it is read.
/// A source whose file moved (the old path is gone) keeps its session.
pub(super) fn resolve_session(store: &Store, kind: SourceKind, source_id: &str, path: &Path) -> Result<SessionId> {
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
pub(super) fn upsert_session(store: &Store, identity: &imported::ImportedIdentity<'_>) -> Result<Option<String>> {
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
pub(super) fn claim(store: &Store, session: &SessionId, control: &Control<'_>) -> Result<crate::claim::SessionClaim> {
    crate::claim::SessionClaim::wait(store.home(), session, "import", &|| control.cancelled())
}

/// The model view and next seq of a stored session, to go on appending to it.
pub(super) fn sink_state(tx: &Tx<'_>, session: &SessionId) -> Result<SinkState> {
    let (next_seq, rows, order) = imported::append_state(tx, session)?;
    Ok(SinkState::new(next_seq, rows, order))
}

/// A JSONL format's per-record mapping.
pub(super) enum LineImporter {
    Codex(codex::Codex),
    Claude(claude::Claude),
    Qwen(qwen::Qwen),
    Pi(pi::Pi),
    Copilot(copilot::Copilot),
    Gemini(gemini::Gemini),
}

impl LineImporter {
    /// The importer of `kind` for `path`, resumed from the state its cursor kept.
    fn resume(kind: SourceKind, path: &Path, state: Value) -> LineImporter {
        match kind {
            SourceKind::Codex => {
                let mut codex: codex::Codex = serde_json::from_value(state).unwrap_or_default();
                codex.path = path.to_path_buf();
                LineImporter::Codex(codex)
            }
            SourceKind::QwenCode => LineImporter::Qwen(serde_json::from_value(state).unwrap_or_default()),
            SourceKind::Pi => {
                let mut pi: pi::Pi = serde_json::from_value(state).unwrap_or_default();
                pi.path = path.to_path_buf();
                LineImporter::Pi(pi)
            }
            SourceKind::CopilotCli => LineImporter::Copilot(serde_json::from_value(state).unwrap_or_default()),
            SourceKind::GeminiCli => LineImporter::Gemini(serde_json::from_value(state).unwrap_or_default()),
            _ => {
                let mut claude: claude::Claude = serde_json::from_value(state).unwrap_or_default();
                // A sub-agent's own file (`agent-*.jsonl`): its sidechain is the thread shown.
                if path.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.starts_with("agent-")) {
                    claude.own_sidechain = Some(true);
                }
                claude.path = path.to_path_buf();
                LineImporter::Claude(claude)
            }
        }
    }

    /// The state the cursor keeps, to resume from.
    fn state(&self) -> Result<Value> {
        Ok(match self {
            LineImporter::Codex(c) => serde_json::to_value(c)?,
            LineImporter::Claude(c) => serde_json::to_value(c)?,
            LineImporter::Qwen(c) => serde_json::to_value(c)?,
            LineImporter::Pi(c) => serde_json::to_value(c)?,
            LineImporter::Copilot(c) => serde_json::to_value(c)?,
            LineImporter::Gemini(c) => serde_json::to_value(c)?,
        })
    }

    /// One line of the file: its record mapped, or why it was skipped (into `skipped`). Returns
    /// the skip of an incomplete last line, which stops the reading there.
    fn read(
        &mut self,
        sink: &mut Sink<'_, '_>,
        skipped: &mut Vec<Skipped>,
        line: &[u8],
        number: u64,
    ) -> Result<Option<Skipped>> {
        let complete = line.last() == Some(&b'\n');
        let text = trim_line(line);
        let parsed = if text.is_empty() { None } else { Some(serde_json::from_slice::<Value>(text)) };
        match parsed {
            // The writer is still on this line: leave it for the next import.
            Some(Err(e)) if !complete => {
                return Ok(Some(Skipped {
                    line: Position::Line(number),
                    reason: format!("incomplete last line (no newline; the file may still be written): {e}"),
                }))
            }
            Some(Err(e)) => push_skip(skipped, number, format!("not JSON: {e}")),
            Some(Ok(record)) if !record.is_object() => push_skip(skipped, number, "not a JSON object".into()),
            Some(Ok(record)) => {
                if let Skip::Yes(reason) = self.line(sink, &record)? {
                    push_skip(skipped, number, reason);
                }
            }
            None => {}
        }
        Ok(None)
    }

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
pub(super) const BATCH_LINES: usize = 20_000;
pub(super) const BATCH_BYTES: usize = 32 << 20;
pub(super) const MAX_SKIPPED_KEPT: usize = 1000;

/// How many times an import starts over when the file is rewritten under it before giving up.
pub(super) const REWRITES_TOLERATED: usize = 3;

pub(super) fn import_jsonl(
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
pub(super) fn up_to_date(store: &Store, session: &SessionId, path: &Path) -> Result<Option<Vec<Skipped>>> {
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

/// Where a reading of a source starts.
enum Resumed {
    /// Nothing changed since the last reading.
    UpToDate(Cursor<Value>),
    From(Cursor<Value>),
    /// The file was rewritten in place: read again from its start.
    Rewritten,
}

fn resume(
    store: &Store,
    session: &SessionId,
    path: &Path,
    file: &File,
    meta: &std::fs::Metadata,
    cursor: Option<Cursor<Value>>,
) -> Result<Resumed> {
    let same_prefix =
        |c: &Cursor<Value>| c.offset <= meta.len() && fingerprints(file, c.offset).ok() == Some((c.head, c.tail));
    Ok(match cursor {
        Some(c) if same_prefix(&c) && c.size == meta.len() && c.modified == modified_ms(meta) => Resumed::UpToDate(c),
        Some(c) if same_prefix(&c) => Resumed::From(c),
        Some(_) => {
            let earlier = store.write(|tx| imported::supersede(tx, session))?;
            tracing::info!(
                "{} was rewritten; it is read again from its start (the earlier reading is session {earlier})",
                path.display()
            );
            Resumed::Rewritten
        }
        None => Resumed::From(Cursor::default()),
    })
}

pub(super) fn read_jsonl(
    store: &Store,
    kind: SourceKind,
    path: &Path,
    identity: &Identity,
    session: &SessionId,
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
    let mut cursor = match resume(store, session, path, &file, &meta, cursor)? {
        Resumed::UpToDate(c) => return finished(store, kind, path, &identity.source_id, session, c.skipped, 0),
        Resumed::From(c) => c,
        Resumed::Rewritten => {
            stored_cursor = None;
            Cursor::default()
        }
    };
    let mut importer = LineImporter::resume(kind, path, cursor.state.take());
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
                let number = cursor.line + 1;
                if let Some(skip) = importer.read(&mut sink, &mut cursor.skipped, &line, number)? {
                    pending_skip = Some(skip);
                    done = true;
                    break;
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
            cursor.state = importer.state()?;
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

pub(super) fn trim_line(line: &[u8]) -> &[u8] {
    let end = line.iter().rposition(|b| !b.is_ascii_whitespace()).map_or(0, |i| i + 1);
    &line[..end]
}

pub(super) fn push_skip(skipped: &mut Vec<Skipped>, line: u64, reason: String) {
    if skipped.len() < MAX_SKIPPED_KEPT {
        skipped.push(Skipped { line: Position::Line(line), reason });
    }
}

pub(super) fn finished(
    store: &Store,
    kind: SourceKind,
    path: &Path,
    source_id: &str,
    session: &SessionId,
    skipped: Vec<Skipped>,
    added: u64,
) -> Result<ImportedSession> {
    if let Ok(modified) = path.metadata().and_then(|m| m.modified()) {
        let at = chrono::DateTime::<chrono::Utc>::from(modified).to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
        imported::date_if_undated(store, session, &at)?;
    }
    let (title, messages, tool_calls, compactions) = imported::counts(store, session)?;
    Ok(ImportedSession {
        id: session.clone(),
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
pub(super) fn with_threads(store: &Store, session: ImportedSession) -> Result<Vec<ImportedSession>> {
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
