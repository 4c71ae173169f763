//! Calls `alisio proxy` captured: a session of source `proxy` per proxy run, a ledger row per call
//! (its body as `request_ref`, the answer as received), and their moving into the imported session
//! whose call they were.

use rusqlite::{params, OptionalExtension};
use serde_json::Value;

use super::{Purpose, SessionId, SourceKind, Store, WireApi};
use crate::error::Result;

/// A call as the proxy saw it (credentials already taken out).
#[derive(Debug, Clone)]
pub struct CapturedCall {
    pub api: WireApi,
    pub model: String,
    pub path: String,
    /// The request body as sent (JSON; a body that was not JSON as a string).
    pub body: Value,
    pub request_chars: u64,
    /// What came back: `{"status", "received"}` (the answer's bytes as text), and usage.
    pub response: Value,
    pub status: u16,
    pub prompt_tokens: Option<u64>,
    pub cached_tokens: Option<u64>,
    pub cache_write_tokens: Option<u64>,
    pub completion_tokens: Option<u64>,
    pub ttft_ms: Option<u64>,
    pub duration_ms: u64,
    pub error: Option<String>,
    pub started_at: String,
    pub key: Option<String>,
    pub prefix_key: Option<String>,
}

/// A captured call not yet joined to an imported session, as joining needs it.
#[derive(Debug, Clone)]
pub struct CaptureKey {
    pub id: i64,
    pub key: Option<String>,
    pub prefix_key: Option<String>,
    pub started_at: String,
    /// The request offered tools (an agent's turn does; its side calls often do not).
    pub has_tools: bool,
}

impl Store {
    /// A session for what one proxy run captures that joins no imported session.
    pub fn create_proxy_session(&self, upstream: &str, workspace: &str) -> Result<SessionId> {
        let id = SessionId::from_string(uuid::Uuid::now_v7().to_string());
        let now = crate::events::now_rfc3339();
        self.write(|tx| {
            tx.conn().execute(
                "INSERT INTO sessions (id, title, workspace, created_at, updated_at, source, source_path, source_id)
                 VALUES (?1, ?2, ?3, ?4, ?4, ?5, ?6, ?1)",
                params![
                    id.as_str(),
                    format!("Captured calls to {upstream}"),
                    workspace,
                    now,
                    SourceKind::Proxy,
                    upstream
                ],
            )?;
            Ok(())
        })?;
        Ok(id)
    }

    /// Records a captured call in `session`; returns its row and its number there (`1..n`).
    pub fn insert_captured(&self, session: &SessionId, call: &CapturedCall) -> Result<(i64, usize)> {
        self.write(|tx| {
            let conn = tx.conn();
            conn.execute(
                "INSERT INTO model_calls (session_id, purpose, api, model, system_prompt, message_ranges, params,
                     tool_catalog_chars, request_chars, estimated_tokens, prompt_tokens, cached_tokens,
                     completion_tokens, ttft_ms, duration_ms, error, response, started_at, request_source,
                     request_ref, request_key, request_prefix_key, cache_write_tokens)
                 VALUES (?1, ?2, ?3, ?4, '', '[]', ?5, 0, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, 'proxy', ?16, ?17, ?18, ?19)",
                params![
                    session,
                    Purpose::Turn,
                    call.api,
                    call.model,
                    serde_json::json!({"path": call.path, "status": call.status}).to_string(),
                    call.request_chars,
                    crate::transcript::estimate_tokens(call.request_chars),
                    call.prompt_tokens,
                    call.cached_tokens,
                    call.completion_tokens,
                    call.ttft_ms,
                    call.duration_ms,
                    call.error,
                    call.response.to_string(),
                    call.started_at,
                    call.body.to_string(),
                    call.key,
                    call.prefix_key,
                    call.cache_write_tokens,
                ],
            )?;
            let row = conn.last_insert_rowid();
            conn.execute("UPDATE sessions SET updated_at = ?2 WHERE id = ?1", params![session, call.started_at])?;
            let n: i64 = conn.query_row(
                "SELECT count(*) FROM model_calls WHERE session_id = ?1 AND id <= ?2",
                params![session, row],
                |r| r.get(0),
            )?;
            Ok((row, n as usize))
        })
    }

    /// Whether any captured call waits for the imported session it belongs to.
    pub fn has_unjoined_captures(&self) -> Result<bool> {
        self.read(|conn| {
            let found: Option<i64> = conn
                .query_row(
                    "SELECT 1 FROM model_calls c JOIN sessions s ON s.id = c.session_id
                     WHERE s.source = 'proxy' AND c.request_source = 'proxy' LIMIT 1",
                    [],
                    |r| r.get(0),
                )
                .optional()?;
            Ok(found.is_some())
        })
    }

    /// Captured calls not yet joined whose fingerprint (or fingerprint without an appended
    /// instruction) is one of `keys`, in the order captured.
    pub fn unjoined_captures(&self, keys: &[String]) -> Result<Vec<CaptureKey>> {
        self.read(|conn| {
            let mut stmt = conn.prepare_cached(
                "SELECT c.id, c.request_key, c.request_prefix_key, c.started_at, c.request_ref
                 FROM model_calls c JOIN sessions s ON s.id = c.session_id
                 WHERE s.source = 'proxy' AND c.request_source = 'proxy' AND (c.request_key = ?1 OR c.request_prefix_key = ?1)",
            )?;
            let mut out: Vec<CaptureKey> = Vec::new();
            for key in keys {
                let rows = stmt.query_map([key], |r| {
                    let body: Option<String> = r.get(4)?;
                    let has_tools = body
                        .and_then(|b| serde_json::from_str::<Value>(&b).ok())
                        .and_then(|b| b.get("tools").and_then(Value::as_array).map(|t| !t.is_empty()))
                        .unwrap_or(false);
                    Ok(CaptureKey { id: r.get(0)?, key: r.get(1)?, prefix_key: r.get(2)?, started_at: r.get(3)?, has_tools })
                })?;
                for row in rows {
                    let row = row?;
                    if !out.iter().any(|c| c.id == row.id) {
                        out.push(row);
                    }
                }
            }
            out.sort_by_key(|c| c.id);
            Ok(out)
        })
    }

    /// Makes captured call `capture` the exact body of ledger row `row` (an imported call): the
    /// row takes its body, timing and status, and the capture leaves the proxy session.
    pub fn join_capture(&self, row: i64, capture: i64) -> Result<()> {
        self.write(|tx| {
            let conn = tx.conn();
            conn.execute(
                "UPDATE model_calls SET request_source = 'proxy',
                     request_ref = (SELECT request_ref FROM model_calls WHERE id = ?2),
                     ttft_ms = COALESCE(ttft_ms, (SELECT ttft_ms FROM model_calls WHERE id = ?2)),
                     duration_ms = COALESCE(duration_ms, (SELECT duration_ms FROM model_calls WHERE id = ?2)),
                     request_key = (SELECT request_key FROM model_calls WHERE id = ?2)
                 WHERE id = ?1",
                params![row, capture],
            )?;
            conn.execute("DELETE FROM model_calls WHERE id = ?1", [capture])?;
            Ok(())
        })
    }

    /// Imported sessions that hold a user message reading `text`, however old, the most recently
    /// active first (recency only orders candidates; the caller checks each by its fingerprint).
    /// The lookup goes through the index of user messages by the start of their text (`+content`
    /// keeps SQLite from folding the full comparison into the indexed one, which loses the index).
    pub fn imported_sessions_with_prompt(&self, text: &str) -> Result<Vec<SessionId>> {
        self.read(|conn| {
            let mut stmt = conn.prepare_cached(
                "SELECT s.id FROM sessions s
                 WHERE s.source IS NOT NULL AND s.source != 'proxy' AND s.id IN (
                     SELECT session_id FROM messages
                     WHERE role = 'user' AND substr(content, 1, 120) = substr(?1, 1, 120) AND +content = ?1)
                 ORDER BY s.updated_at DESC, s.id",
            )?;
            let rows = stmt.query_map(params![text], |r| r.get::<_, String>(0))?;
            rows.map(|r| Ok(SessionId::from_string(r?))).collect()
        })
    }

    /// The number (`1..n`) of ledger row `row` in its session, and the session.
    pub fn call_number(&self, row: i64) -> Result<Option<(SessionId, usize)>> {
        self.read(|conn| {
            let found: Option<(String, i64)> = conn
                .query_row(
                    "SELECT session_id, (SELECT count(*) FROM model_calls o WHERE o.session_id = c.session_id AND o.id <= c.id)
                     FROM model_calls c WHERE c.id = ?1",
                    [row],
                    |r| Ok((r.get(0)?, r.get(1)?)),
                )
                .optional()?;
            Ok(found.map(|(s, n)| (SessionId::from_string(s), n as usize)))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::super::store_with_messages;

    /// A session imported long ago is still found by its prompt, and the lookup is an index search,
    /// not a scan of every message.
    #[test]
    fn an_imported_session_is_found_by_its_prompt_however_old() {
        let (_dir, store, session) = store_with_messages(3);
        store
            .write(|tx| {
                tx.conn().execute(
                    "UPDATE sessions SET source = 'codex', updated_at = '2020-01-01T00:00:00.000Z' WHERE id = ?1",
                    [session.id.as_str()],
                )?;
                Ok(())
            })
            .unwrap();
        let found = store.imported_sessions_with_prompt("m1").unwrap();
        assert_eq!(found, vec![session.id.clone()]);
        assert!(store.imported_sessions_with_prompt("m").unwrap().is_empty(), "the whole text must match");

        let plan: Vec<String> = store
            .read(|c| {
                let mut stmt = c.prepare(
                    "EXPLAIN QUERY PLAN SELECT session_id FROM messages
                     WHERE role = 'user' AND substr(content, 1, 120) = substr(?1, 1, 120) AND +content = ?1",
                )?;
                let rows = stmt.query_map(["m1"], |r| r.get::<_, String>(3))?;
                Ok(rows.collect::<rusqlite::Result<Vec<_>>>()?)
            })
            .unwrap();
        assert!(plan.iter().any(|p| p.contains("SEARCH") && p.contains("messages_user_prompt")), "{plan:?}");
    }
}
