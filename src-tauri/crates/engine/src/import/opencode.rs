//! OpenCode's SQLite store (`opencode.db`): `message` rows with their `part` rows, in order;
//! a `compaction` part + the `summary: true` assistant message form a compaction.
//! The database is opened read-only and read inside one transaction: a consistent snapshot even
//! while OpenCode keeps writing it.

use std::path::Path;

use rusqlite::{params, Connection, OpenFlags};
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use super::sink::{Record, Sink, Usage};
use super::value_at;
use crate::error::{Error, Result};
use crate::events::CompactionReason;
use crate::store::{Purpose, WireApi};
use crate::transcript::{Role, ToolCall};

/// What OpenCode shows the model in place of the compaction part (generated, never stored).
pub const COMPACTION_PROMPT: &str = "What did we do so far?";

/// One session row of the database.
#[derive(Debug, Clone)]
pub struct SourceSession {
    pub id: String,
    pub title: String,
    pub directory: String,
    pub parent: Option<String>,
    pub created: i64,
    /// When OpenCode last updated the session (epoch ms; 0 when it does not say).
    pub updated: i64,
}

/// A message with its parts, as stored.
#[derive(Debug, Clone)]
pub struct SourceMessage {
    pub id: String,
    pub created: i64,
    /// The latest `time_updated` of its row and its parts' rows (epoch ms; 0: not recorded).
    pub updated: i64,
    pub data: Result<Value, String>,
    pub parts: Vec<(String, Result<Value, String>)>,
}

/// Opens `path` without writing it, read-only, reading only committed data: a database a writer
/// holds locked is refused (the next import or round reads it), never read as an immutable file
/// — that would take rows a transaction may still roll back. Only a database whose directory
/// cannot hold the WAL index (read-only media: nothing writes it) is opened as immutable.
pub fn open(path: &Path) -> Result<Connection> {
    let flags = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_URI | OpenFlags::SQLITE_OPEN_NO_MUTEX;
    let attempt = |conn: Connection| -> rusqlite::Result<Connection> {
        conn.busy_timeout(std::time::Duration::from_secs(2))?;
        conn.query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get::<_, i64>(0))?;
        Ok(conn)
    };
    let refused = |e: rusqlite::Error| {
        let problem = match e.sqlite_error_code() {
            Some(rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked) => {
                "is locked by a process writing it; it is read once the write is done (import again)".to_string()
            }
            Some(rusqlite::ErrorCode::DatabaseCorrupt | rusqlite::ErrorCode::NotADatabase) => {
                format!("is a corrupt SQLite database ({e}); nothing was read from it")
            }
            _ => format!("cannot be read as an OpenCode database: {e}"),
        };
        Error::Unreadable(format!("{} {problem}", path.display()))
    };
    match Connection::open_with_flags(path, flags).and_then(attempt) {
        Ok(conn) => Ok(conn),
        Err(e) if e.sqlite_error_code() == Some(rusqlite::ErrorCode::CannotOpen) => {
            let uri = format!("file:{}?immutable=1", path.display());
            Connection::open_with_flags(uri, flags).and_then(attempt).map_err(refused)
        }
        Err(e) => Err(refused(e)),
    }
}

/// How many sessions an OpenCode database holds (0 when it cannot be read).
pub fn session_count(path: &Path) -> u64 {
    open(path)
        .ok()
        .and_then(|c| c.query_row("SELECT count(*) FROM session", [], |r| r.get::<_, u64>(0)).ok())
        .unwrap_or(0)
}

/// Whether `conn` holds OpenCode's tables.
pub fn is_opencode(conn: &Connection) -> bool {
    let tables: i64 = conn
        .query_row(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('session', 'message', 'part')",
            [],
            |r| r.get(0),
        )
        .unwrap_or(0);
    tables == 3
}

/// A column as text whatever SQLite stored in it (a number, a blob of UTF-8), or why not.
fn text(row: &rusqlite::Row<'_>, index: usize) -> Result<String, String> {
    use rusqlite::types::ValueRef;
    match row.get_ref(index).map_err(|e| e.to_string())? {
        ValueRef::Text(t) | ValueRef::Blob(t) => String::from_utf8(t.to_vec()).map_err(|_| "not UTF-8 text".into()),
        ValueRef::Integer(i) => Ok(i.to_string()),
        ValueRef::Real(f) => Ok(f.to_string()),
        ValueRef::Null => Err("empty (NULL)".into()),
    }
}

fn number(row: &rusqlite::Row<'_>, index: usize) -> i64 {
    row.get::<_, i64>(index).ok().or_else(|| text(row, index).ok()?.parse().ok()).unwrap_or(0)
}

/// The database's sessions; a row that cannot be one (no id) is skipped.
pub fn sessions(conn: &Connection) -> Result<Vec<SourceSession>> {
    let mut stmt = conn.prepare("SELECT id, title, directory, parent_id, time_created, time_updated FROM session")?;
    let rows = stmt.query_map([], |r| {
        Ok(text(r, 0).ok().map(|id| SourceSession {
            id,
            title: text(r, 1).unwrap_or_default(),
            directory: text(r, 2).unwrap_or_default(),
            parent: text(r, 3).ok(),
            created: number(r, 4),
            updated: number(r, 5),
        }))
    })?;
    let mut out: Vec<SourceSession> = rows.collect::<rusqlite::Result<Vec<_>>>()?.into_iter().flatten().collect();
    out.sort_by(|a, b| (a.created, &a.id).cmp(&(b.created, &b.id)));
    Ok(out)
}

/// Messages read per write batch: memory stays bounded however long the session is.
pub const MESSAGES_PER_BATCH: usize = 200;

/// Up to `limit` of the session's messages after `after` (`(time_created, id)`), with their
/// parts, in order. A row whose data cannot be read is returned with the reason, to be skipped.
pub fn messages_after(
    conn: &Connection,
    session: &str,
    after: Option<(i64, String)>,
    limit: usize,
) -> Result<Vec<SourceMessage>> {
    let (time, id) = after.unwrap_or((i64::MIN, String::new()));
    let mut stmt = conn.prepare_cached(
        "SELECT id, time_created, data, time_updated FROM message
         WHERE session_id = ?1 AND (time_created > ?2 OR (time_created = ?2 AND id > ?3))
         ORDER BY time_created, id LIMIT ?4",
    )?;
    let mut parts = conn.prepare_cached("SELECT id, data, time_updated FROM part WHERE message_id = ?1 ORDER BY id")?;
    let rows = stmt.query_map(params![session, time, id, limit as i64], |r| {
        Ok((text(r, 0).unwrap_or_default(), number(r, 1), text(r, 2), number(r, 3)))
    })?;
    let mut out = Vec::new();
    for row in rows {
        let (id, created, data, mut updated) = row?;
        let list = parts.query_map([&id], |r| Ok((text(r, 0).unwrap_or_default(), text(r, 1), number(r, 2))))?;
        let parts = list
            .map(|row| {
                let (pid, data, part_updated) = row?;
                updated = updated.max(part_updated);
                let parsed = data
                    .map_err(|e| format!("part data: {e}"))
                    .and_then(|d| serde_json::from_str(&d).map_err(|e| format!("part data is not JSON: {e}")));
                Ok((pid, parsed))
            })
            .collect::<rusqlite::Result<Vec<_>>>()?;
        out.push(SourceMessage {
            data: data
                .map_err(|e| format!("message data: {e}"))
                .and_then(|d| serde_json::from_str(&d).map_err(|e| format!("message data is not JSON: {e}"))),
            parts,
            id,
            created,
            updated,
        });
    }
    Ok(out)
}

/// Whether OpenCode has finished writing `message` (later rows may still be in flight).
pub fn is_complete(message: &SourceMessage) -> bool {
    let Ok(data) = &message.data else { return true };
    if data["role"] == "assistant" {
        return value_at(data, "/time/completed").is_some_and(|t| !t.is_null()) && has_no_running_tool(message);
    }
    !message.parts.is_empty()
}

/// Whether none of `message`'s tool parts is still pending or running.
pub fn has_no_running_tool(message: &SourceMessage) -> bool {
    !message.parts.iter().any(|(_, p)| {
        p.as_ref()
            .is_ok_and(|p| matches!(value_at(p, "/state/status").and_then(Value::as_str), Some("pending" | "running")))
    })
}

#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct OpenCode {
    /// The last message imported: `(time_created, id)`.
    pub last: Option<(i64, String)>,
    /// A `compaction` part seen (its `auto` flag), waiting for the summary message.
    pending: Option<Option<bool>>,
}

/// Epoch milliseconds as RFC 3339.
pub fn iso(ms: i64) -> String {
    chrono::DateTime::from_timestamp_millis(ms)
        .map(|t| t.to_rfc3339_opts(chrono::SecondsFormat::Millis, true))
        .unwrap_or_default()
}

impl OpenCode {
    /// Imports one message; the skipped parts (or the whole message) are reported by row id.
    pub fn message(&mut self, sink: &mut Sink<'_, '_>, message: &SourceMessage) -> Result<Vec<(String, String)>> {
        self.last = Some((message.created, message.id.clone()));
        let mut skipped = Vec::new();
        let data = match &message.data {
            Ok(data) => data,
            Err(reason) => return Ok(vec![(message.id.clone(), reason.clone())]),
        };
        let parts: Vec<(&str, &Value)> = message
            .parts
            .iter()
            .filter_map(|(id, p)| match p {
                Ok(p) => Some((id.as_str(), p)),
                Err(reason) => {
                    skipped.push((id.clone(), reason.clone()));
                    None
                }
            })
            .collect();
        let at = iso(value_at(data, "/time/created").and_then(Value::as_i64).unwrap_or(message.created));
        match data["role"].as_str() {
            Some("user") => self.user(sink, message, &parts, &at)?,
            Some("assistant") => self.assistant(sink, message, data, &parts, &at)?,
            _ => skipped.push((message.id.clone(), "a message whose role is neither user nor assistant".into())),
        }
        sink.touch(&at)?;
        // A part written later (a tool's end, a step's finish) is activity too.
        let latest = latest_time(data, &parts).unwrap_or(0).max(message.updated);
        if latest > 0 {
            sink.touch(&iso(latest))?;
        }
        Ok(skipped)
    }

    fn user(
        &mut self,
        sink: &mut Sink<'_, '_>,
        message: &SourceMessage,
        parts: &[(&str, &Value)],
        at: &str,
    ) -> Result<()> {
        let mut texts = Vec::new();
        let mut synthetic = true;
        let mut other = Vec::new();
        for (_, part) in parts {
            match part["type"].as_str() {
                Some("compaction") => self.pending = Some(part["auto"].as_bool()),
                Some("text") => {
                    synthetic &= part["synthetic"].as_bool() == Some(true);
                    texts.push(part["text"].as_str().unwrap_or_default().to_string());
                }
                _ => other.push((*part).clone()),
            }
        }
        // A message whose parts were never written (the first releases): its text is kept in its
        // summary's body.
        if texts.is_empty() && other.is_empty() && message.parts.is_empty() {
            if let Some(body) =
                message.data.as_ref().ok().and_then(|d| value_at(d, "/summary/body")).and_then(Value::as_str)
            {
                texts.push(body.to_string());
                synthetic = false;
            }
        }
        if texts.is_empty() && other.is_empty() {
            return Ok(());
        }
        let record = Record::new(Role::User, texts.join("\n\n"), at)
            .id(Some(&message.id))
            .meta("synthetic", if synthetic && !texts.is_empty() { json!(true) } else { Value::Null })
            .meta("parts", if other.is_empty() { Value::Null } else { Value::Array(other) });
        sink.push(record)?;
        Ok(())
    }

    fn assistant(
        &mut self,
        sink: &mut Sink<'_, '_>,
        message: &SourceMessage,
        data: &Value,
        parts: &[(&str, &Value)],
        at: &str,
    ) -> Result<()> {
        let request = sink.state.snapshot();
        let mut texts = Vec::new();
        let mut calls = Vec::new();
        let mut results = Vec::new();
        let mut other = Vec::new();
        for (id, part) in parts {
            match part["type"].as_str() {
                Some("text") => texts.push(part["text"].as_str().unwrap_or_default().to_string()),
                Some("tool") => {
                    let call_id = part["callID"].as_str().unwrap_or(id).to_string();
                    let input = value_at(part, "/state/input").cloned().unwrap_or_else(|| json!({}));
                    calls.push(ToolCall {
                        id: call_id.clone(),
                        name: part["tool"].as_str().unwrap_or_default().to_string(),
                        arguments: input.to_string(),
                    });
                    let state = &part["state"];
                    let output = state["output"].as_str().or_else(|| state["error"].as_str()).unwrap_or_default();
                    let mut result = Record::new(Role::Tool, output, at)
                        .id(Some(id))
                        .meta("status", state.get("status").cloned().unwrap_or_default())
                        .meta("exit", value_at(state, "/metadata/exit").cloned().unwrap_or_default())
                        .meta("title", state.get("title").cloned().unwrap_or_default())
                        .meta("time", state.get("time").cloned().unwrap_or_default());
                    if let Some(start) = value_at(state, "/time/end").and_then(Value::as_i64) {
                        result.created_at = iso(start);
                    }
                    result.tool_call_id = Some(call_id);
                    results.push(result);
                }
                _ => other.push((*part).clone()),
            }
        }
        let text = texts.join("\n\n");
        let model = data["modelID"].as_str().unwrap_or_default().to_string();
        let summary = data["summary"].as_bool() == Some(true);
        let mut record = Record::new(Role::Assistant, text, at)
            .id(Some(&message.id))
            .meta("model", json!(model))
            .meta("provider", data.get("providerID").cloned().unwrap_or_default())
            .meta("agent", data.get("agent").cloned().unwrap_or_default())
            .meta("finish", data.get("finish").cloned().unwrap_or_default())
            .meta("parts", if other.is_empty() { Value::Null } else { Value::Array(other) });
        record.tool_calls = calls;
        let seq = if summary {
            let reason = match self.pending.take() {
                Some(Some(true)) => CompactionReason::Auto,
                Some(Some(false)) => CompactionReason::Manual,
                _ => CompactionReason::Unknown,
            };
            let id = sink.compaction(reason, &[], None, Map::new(), None, at)?;
            let prompt = Record::new(Role::User, COMPACTION_PROMPT, at).meta("generated", json!(true));
            sink.restated(id, prompt)?;
            sink.checkpoint(id, record, false)?
        } else {
            sink.push(record)?
        };
        for result in results {
            sink.push(result)?;
        }
        let call = sink.model_call(&request, usage_of(data, model, summary, seq, at))?;
        if summary {
            crate::store::imported::link_summary_call(sink.tx, sink.session, call, seq)?;
        }
        if let Some(done) = value_at(data, "/time/completed").and_then(Value::as_i64) {
            sink.touch(&iso(done))?;
        }
        Ok(())
    }
}

/// An assistant message's figures as OpenCode recorded them (input apart from cache reads and
/// writes; the cost from its model table, in USD).
fn usage_of(data: &Value, model: String, summary: bool, seq: i64, at: &str) -> Usage {
    let tokens = &data["tokens"];
    let input = tokens["input"].as_u64();
    let read = value_at(tokens, "/cache/read").and_then(Value::as_u64);
    let write = value_at(tokens, "/cache/write").and_then(Value::as_u64).unwrap_or(0);
    let created = value_at(data, "/time/created").and_then(Value::as_i64);
    let completed = value_at(data, "/time/completed").and_then(Value::as_i64);
    Usage {
        purpose: if summary { Purpose::Compaction } else { Purpose::Turn },
        api: WireApi::Chat,
        model,
        prompt_tokens: input.map(|i| i + read.unwrap_or(0) + write),
        cached_tokens: read,
        cache_write_tokens: input.map(|_| write),
        completion_tokens: completion_of(tokens, input.map(|i| i + read.unwrap_or(0) + write)),
        recorded_cost_pd: data.get("cost").filter(|c| c.is_number()).and_then(super::claude::picodollars),
        duration_ms: created.zip(completed).map(|(a, b)| (b - a).max(0) as u64),
        finish_reason: data["finish"].as_str().map(str::to_string),
        response_seq: Some(seq),
        started_at: at.to_string(),
        ..Usage::new(Purpose::Turn, WireApi::Chat)
    }
}

/// The answer's completion tokens. Reasoning is part of `output` in some releases (their `total` is
/// input + cache + output) and apart from it in others (Kilo Code 7.7: total = … + reasoning):
/// decided by the total, added when there is none.
fn completion_of(tokens: &Value, prompt: Option<u64>) -> Option<u64> {
    let output = tokens["output"].as_u64()?;
    let reasoning = tokens["reasoning"].as_u64().unwrap_or(0);
    let total = tokens["total"].as_u64();
    Some(match (reasoning, total, prompt) {
        (0, _, _) => output,
        (_, Some(total), Some(prompt)) if total == prompt + output => output,
        _ => output + reasoning,
    })
}

/// The latest time (epoch ms) a message or its parts record: every `time` object's numbers.
fn latest_time(data: &Value, parts: &[(&str, &Value)]) -> Option<i64> {
    std::iter::once(data)
        .chain(parts.iter().map(|(_, p)| *p))
        .filter_map(|v| v["time"].as_object())
        .flat_map(|t| t.values().filter_map(Value::as_i64))
        .max()
}

/// The title OpenCode (and Kilo Code) give a session until a title request succeeds:
/// `New session - <time>`.
pub fn is_placeholder_title(title: &str) -> bool {
    title.strip_prefix("New session - ").is_some_and(|time| chrono::DateTime::parse_from_rfc3339(time.trim()).is_ok())
}

/// The text a user typed in `message` (not a re-posted synthetic prompt), if it is one.
pub fn prompt_text(message: &SourceMessage) -> Option<String> {
    let data = message.data.as_ref().ok()?;
    if data["role"].as_str() != Some("user") {
        return None;
    }
    let texts: Vec<&str> = message
        .parts
        .iter()
        .filter_map(|(_, p)| p.as_ref().ok())
        .filter(|p| p["type"] == "text" && p["synthetic"].as_bool() != Some(true))
        .filter_map(|p| p["text"].as_str())
        .collect();
    (!texts.is_empty()).then(|| texts.join("\n\n"))
}
