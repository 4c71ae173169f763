//! Sessions and their append-only messages.

use rusqlite::{params, Connection, OptionalExtension, Row};
use serde::{Deserialize, Serialize};

use super::{Store, Tx};
use crate::error::{Error, Result};
use crate::events::now_rfc3339;
use crate::transcript::{message_chars, Message, MessageMeta, NewMessage, Role, ToolCall};

/// The agents whose sessions Alisio reads.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    strum::IntoStaticStr,
    strum::EnumString,
    strum::Display,
    strum::EnumIter,
)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub enum SourceKind {
    #[serde(rename = "codex")]
    #[strum(serialize = "codex")]
    Codex,
    #[serde(rename = "claude-code")]
    #[strum(serialize = "claude-code")]
    ClaudeCode,
    #[serde(rename = "opencode")]
    #[strum(serialize = "opencode")]
    OpenCode,
    #[serde(rename = "qwen-code")]
    #[strum(serialize = "qwen-code")]
    QwenCode,
    #[serde(rename = "pi")]
    #[strum(serialize = "pi")]
    Pi,
    #[serde(rename = "copilot-cli")]
    #[strum(serialize = "copilot-cli")]
    CopilotCli,
    #[serde(rename = "gemini-cli")]
    #[strum(serialize = "gemini-cli")]
    GeminiCli,
    #[serde(rename = "cline")]
    #[strum(serialize = "cline")]
    Cline,
    #[serde(rename = "roo")]
    #[strum(serialize = "roo")]
    RooCode,
    /// An ATIF trajectory (`trajectory.json`), whoever wrote it.
    #[serde(rename = "atif")]
    #[strum(serialize = "atif")]
    Atif,
    /// Calls `alisio proxy` captured that joined no imported session.
    #[serde(rename = "proxy")]
    #[strum(serialize = "proxy")]
    Proxy,
}

impl SourceKind {
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// The API shape the agent speaks, for the reconstructed model view.
    pub fn api(self) -> crate::config::Api {
        match self {
            SourceKind::Codex => crate::config::Api::Responses,
            _ => crate::config::Api::Chat,
        }
    }

    pub fn parse(text: &str) -> Option<SourceKind> {
        text.parse().ok()
    }
}

/// A session's full id, as stored: what a command's session argument (an id or a unique prefix)
/// becomes once resolved ([`Store::resolve_session`]).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS), ts(type = "string"))]
pub struct SessionId(String);

/// On the wire a session id is its text.
impl Serialize for SessionId {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

impl SessionId {
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// An id the store made or read (a new session, an imported session's stable id).
    pub(crate) fn from_string(id: String) -> Self {
        SessionId(id)
    }
}

impl std::ops::Deref for SessionId {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for SessionId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl AsRef<str> for SessionId {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl From<SessionId> for String {
    fn from(id: SessionId) -> String {
        id.0
    }
}

impl PartialEq<str> for SessionId {
    fn eq(&self, other: &str) -> bool {
        self.0 == other
    }
}

impl PartialEq<&str> for SessionId {
    fn eq(&self, other: &&str) -> bool {
        self.0 == *other
    }
}

impl PartialEq<String> for SessionId {
    fn eq(&self, other: &String) -> bool {
        &self.0 == other
    }
}

impl rusqlite::ToSql for SessionId {
    fn to_sql(&self) -> rusqlite::Result<rusqlite::types::ToSqlOutput<'_>> {
        self.0.to_sql()
    }
}

impl rusqlite::types::FromSql for SessionId {
    fn column_result(value: rusqlite::types::ValueRef<'_>) -> rusqlite::types::FromSqlResult<Self> {
        String::column_result(value).map(SessionId)
    }
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Session {
    pub id: SessionId,
    pub title: String,
    pub workspace: String,
    pub created_at: String,
    pub updated_at: String,
    /// The agent an imported session was read from; absent for Alisio's own sessions, which are
    /// the only ones `run` and `compact` may change.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub source: Option<SourceKind>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub source_path: Option<String>,
    /// The session and message this one was forked from.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub forked_from: Option<ForkedFrom>,
    /// The source's own id of an imported session.
    #[serde(skip)]
    #[cfg_attr(feature = "ts", ts(skip))]
    pub source_id: Option<String>,
    /// The session that started this one, for a sub-agent's session, and the tool call that did
    /// when its records name it.
    #[serde(skip)]
    #[cfg_attr(feature = "ts", ts(skip))]
    pub parent_session: Option<String>,
    #[serde(skip)]
    #[cfg_attr(feature = "ts", ts(skip))]
    pub parent_tool_call: Option<String>,
}

/// Where a fork came from: the source session and the message after which it branched.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ForkedFrom {
    pub session: String,
    pub seq: i64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct SessionSummary {
    pub id: String,
    pub title: String,
    pub workspace: String,
    pub live_messages: u64,
    pub compacted_messages: u64,
    pub uncertain_tool_calls: u64,
    /// Tool calls running now in the live process that drives the session.
    pub running_tool_calls: u64,
    /// Reported by the server over the session's calls (replays left out).
    pub prompt_tokens: u64,
    pub cached_tokens: u64,
    pub completion_tokens: u64,
    /// Applied checkpoints, and the characters applied compactions and reductions took out of the
    /// request (an estimate of tokens saved is a quarter of that).
    pub compactions: u64,
    pub saved_chars: u64,
    pub created_at: String,
    pub last_activity: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub source: Option<SourceKind>,
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub source_path: Option<String>,
    /// The workspace (an imported session's working directory), as usage and search group by it.
    pub project: String,
    /// What the session's calls cost, USD rounded to the micro-dollar (summed in integer
    /// picodollars by `cost::usage`); `null` when none of them has a price.
    pub cost_usd: Option<f64>,
    /// Calls whose model has no price (not in `costUsd`).
    pub unpriced_calls: u64,
    /// Sub-agent sessions this one started.
    pub subagents: u64,
    /// The session that started this one (a sub-agent's), or null.
    pub parent: Option<String>,
}

pub(crate) const MESSAGE_COLUMNS: &str = "seq, anchor, role, content, tool_calls, tool_call_id, provider_items, \
                               compacted, summary, truncated, uncertain, created_at, chars, reverted, created_by, compacted_by, \
                               source_id, meta, off_view";

/// The columns of a session row, in the order `session_from_row` reads them.
pub(crate) const SESSION_COLUMNS: &str =
    "id, title, workspace, created_at, updated_at, source, source_path, forked_from, forked_at_seq, source_id, \
     parent_session, parent_tool_call";

fn session_from_row(row: &Row<'_>) -> rusqlite::Result<Session> {
    Ok(Session {
        id: row.get(0)?,
        title: row.get(1)?,
        workspace: row.get(2)?,
        created_at: row.get(3)?,
        updated_at: row.get(4)?,
        source: row.get(5)?,
        source_path: row.get(6)?,
        forked_from: match (row.get::<_, Option<String>>(7)?, row.get::<_, Option<i64>>(8)?) {
            (Some(session), Some(seq)) => Some(ForkedFrom { session, seq }),
            _ => None,
        },
        source_id: row.get(9)?,
        parent_session: row.get(10)?,
        parent_tool_call: row.get(11)?,
    })
}

/// Maps a row; a row the engine cannot interpret is an error, never silently skipped.
pub(crate) fn message_from_row(row: &Row<'_>) -> rusqlite::Result<Message> {
    let bad = |column: usize, what: String| {
        rusqlite::Error::FromSqlConversionFailure(column, rusqlite::types::Type::Text, what.into())
    };
    let role: String = row.get(2)?;
    let role = Role::parse(&role).ok_or_else(|| bad(2, format!("unknown role {role:?}")))?;
    let tool_calls: Option<String> = row.get(4)?;
    let tool_calls: Vec<ToolCall> = match tool_calls {
        Some(text) => serde_json::from_str(&text).map_err(|e| bad(4, format!("tool_calls: {e}")))?,
        None => Vec::new(),
    };
    let provider_items: Option<String> = row.get(6)?;
    let provider_items = match provider_items {
        Some(text) => Some(serde_json::from_str(&text).map_err(|e| bad(6, format!("provider_items: {e}")))?),
        None => None,
    };
    Ok(Message {
        seq: row.get(0)?,
        anchor: row.get(1)?,
        role,
        content: row.get(3)?,
        tool_calls,
        tool_call_id: row.get(5)?,
        provider_items,
        compacted: row.get(7)?,
        summary: row.get(8)?,
        truncated: row.get(9)?,
        uncertain: row.get(10)?,
        created_at: row.get(11)?,
        chars: row.get(12)?,
        reverted: row.get(13)?,
        created_by: row.get(14)?,
        compacted_by: row.get(15)?,
        source_id: row.get(16)?,
        meta: match row.get::<_, Option<String>>(17)? {
            Some(text) => Some(serde_json::from_str(&text).map_err(|e| bad(17, format!("meta: {e}")))?),
            None => None,
        },
        off_view: row.get(18)?,
    })
}

/// The transcript position of message `seq`.
pub fn anchor_of(tx: &Tx<'_>, session: &str, seq: i64) -> Result<i64> {
    Ok(tx.conn().query_row(
        "SELECT anchor FROM messages WHERE session_id = ?1 AND seq = ?2",
        params![session, seq],
        |r| r.get(0),
    )?)
}

pub fn set_title(tx: &Tx<'_>, session: &str, title: &str) -> Result<()> {
    tx.conn().execute("UPDATE sessions SET title = ?2 WHERE id = ?1", params![session, title])?;
    Ok(())
}

impl Store {
    /// The number (`1..n`) of the call of `session` whose answer holds tool call `id` (the call
    /// that started a sub-agent), if any.
    pub fn call_with_tool_call(&self, session: &str, id: &str) -> Result<Option<usize>> {
        let needle = serde_json::json!({ "id": id }).to_string();
        let needle = needle.trim_start_matches('{').trim_end_matches('}').to_string();
        self.read(|conn| {
            let n: Option<i64> = conn.query_row(
                "WITH holder AS (SELECT min(seq) AS seq FROM messages
                                 WHERE session_id = ?1 AND tool_calls IS NOT NULL AND instr(tool_calls, ?2) > 0),
                      answer AS (SELECT max(id) AS id FROM model_calls, holder
                                 WHERE session_id = ?1 AND response_seq IS NOT NULL AND response_seq <= holder.seq)
                 SELECT CASE WHEN answer.id IS NULL THEN NULL
                             ELSE (SELECT count(*) FROM model_calls WHERE session_id = ?1 AND id <= answer.id) END
                 FROM answer",
                params![session, needle],
                |r| r.get(0),
            )?;
            Ok(n.map(|n| n as usize))
        })
    }

    /// What the agent itself recorded the session cost, in picodollars: its figure for the whole
    /// session where it keeps one, else the sum of what it recorded per call; `None` when it
    /// recorded neither.
    pub fn recorded_cost(&self, session: &str) -> Result<Option<i64>> {
        self.read(|conn| {
            Ok(conn.query_row(
                "SELECT coalesce(s.recorded_cost_pd,
                                 (SELECT sum(recorded_cost_pd) FROM model_calls WHERE session_id = s.id))
                 FROM sessions s WHERE s.id = ?1",
                [session],
                |r| r.get(0),
            )?)
        })
    }

    pub fn create_session(&self, workspace: &str, title: &str) -> Result<Session> {
        let now = now_rfc3339();
        let session = Session {
            id: SessionId(uuid::Uuid::now_v7().to_string()),
            title: title.to_string(),
            workspace: workspace.to_string(),
            created_at: now.clone(),
            updated_at: now,
            source: None,
            source_path: None,
            forked_from: None,
            source_id: None,
            parent_session: None,
            parent_tool_call: None,
        };
        self.write(|tx| {
            tx.conn().execute(
                "INSERT INTO sessions (id, title, workspace, created_at, updated_at) VALUES (?1, ?2, ?3, ?4, ?5)",
                params![session.id, session.title, session.workspace, session.created_at, session.updated_at],
            )?;
            Ok(())
        })?;
        Ok(session)
    }

    /// Finds a session by its full id or a unique prefix of it.
    pub fn resolve_session(&self, id_or_prefix: &str) -> Result<Session> {
        self.read(|conn| {
            let exact = conn
                .query_row(
                    &format!("SELECT {SESSION_COLUMNS} FROM sessions WHERE id = ?1"),
                    [id_or_prefix],
                    session_from_row,
                )
                .optional()?;
            if let Some(session) = exact {
                return Ok(session);
            }
            if id_or_prefix.is_empty() {
                return Err(Error::SessionNotFound(String::new()));
            }
            let mut stmt =
                conn.prepare(&format!("SELECT {SESSION_COLUMNS} FROM sessions WHERE substr(id, 1, ?2) = ?1 LIMIT 2"))?;
            let found: Vec<Session> = stmt
                .query_map(params![id_or_prefix, id_or_prefix.chars().count() as i64], session_from_row)?
                .collect::<rusqlite::Result<_>>()?;
            match found.len() {
                1 => Ok(found.into_iter().next().ok_or_else(|| Error::SessionNotFound(id_or_prefix.into()))?),
                0 => Err(Error::SessionNotFound(id_or_prefix.into())),
                _ => Err(Error::AmbiguousSession(id_or_prefix.into())),
            }
        })
    }

    /// Sessions, newest activity first, with live / compacted counts.
    pub fn list_sessions(&self) -> Result<Vec<SessionSummary>> {
        self.read(|conn| {
            let mut stmt = conn.prepare(
                "SELECT s.id, s.title, s.workspace, s.created_at, s.updated_at,
                        (SELECT count(*) FROM messages m WHERE m.session_id = s.id AND m.compacted = 0 AND m.off_view = 0),
                        (SELECT count(*) FROM messages m WHERE m.session_id = s.id AND m.compacted = 1),
                        (SELECT count(*) FROM tool_calls t WHERE t.session_id = s.id AND t.state IN ('started', 'uncertain')),
                        (SELECT count(*) FROM tool_calls t WHERE t.session_id = s.id AND t.state = 'started'),
                        (SELECT coalesce(sum(prompt_tokens), 0) FROM model_calls c WHERE c.session_id = s.id AND c.purpose != 'replay'),
                        (SELECT coalesce(sum(cached_tokens), 0) FROM model_calls c WHERE c.session_id = s.id AND c.purpose != 'replay'),
                        (SELECT coalesce(sum(completion_tokens), 0) FROM model_calls c WHERE c.session_id = s.id AND c.purpose != 'replay'),
                        (SELECT count(*) FROM compactions k WHERE k.session_id = s.id AND k.kind = 'checkpoint' AND k.status = 'applied'),
                        (SELECT coalesce(sum(max(k.before_chars - k.after_chars, 0)), 0) FROM compactions k WHERE k.session_id = s.id AND k.status = 'applied'),
                        s.source, s.source_path,
                        (SELECT count(*) FROM sessions c WHERE c.parent_session = s.id), s.parent_session
                 FROM sessions s ORDER BY s.updated_at DESC, s.id DESC",
            )?;
            let rows = stmt.query_map([], |row| {
                Ok(SessionSummary {
                    id: row.get(0)?,
                    title: row.get(1)?,
                    workspace: row.get(2)?,
                    created_at: row.get(3)?,
                    last_activity: row.get(4)?,
                    live_messages: row.get(5)?,
                    compacted_messages: row.get(6)?,
                    uncertain_tool_calls: row.get(7)?,
                    running_tool_calls: row.get(8)?,
                    prompt_tokens: row.get(9)?,
                    cached_tokens: row.get(10)?,
                    completion_tokens: row.get(11)?,
                    compactions: row.get(12)?,
                    saved_chars: row.get(13)?,
                    source: row.get(14)?,
                    source_path: row.get(15)?,
                    cost_usd: None,
                    unpriced_calls: 0,
                    project: String::new(),
                    subagents: row.get(16)?,
                    parent: row.get(17)?,
                })
            })?;
            let mut sessions: Vec<SessionSummary> = rows.collect::<rusqlite::Result<_>>()?;
            // A started call is running while a live process drives its session; uncertain otherwise.
            for s in sessions.iter_mut().filter(|s| s.running_tool_calls > 0) {
                if crate::claim::SessionClaim::holder(self.home(), &s.id).is_some() {
                    s.uncertain_tool_calls -= s.running_tool_calls;
                } else {
                    s.running_tool_calls = 0;
                }
            }
            Ok(sessions)
        })
    }

    /// The system prompt an imported session's source recorded ("" when it recorded none).
    pub fn imported_system_prompt(&self, session: &str) -> Result<String> {
        self.read(|conn| {
            Ok(conn
                .query_row("SELECT coalesce(system_prompt, '') FROM sessions WHERE id = ?1", [session], |r| r.get(0))
                .optional()?
                .unwrap_or_default())
        })
    }

    /// How many messages the model still sees, and their characters.
    pub fn live_totals(&self, session: &str) -> Result<(u64, u64)> {
        self.read(|conn| {
            Ok(conn.query_row(
                "SELECT count(*), coalesce(sum(chars), 0) FROM messages
                 WHERE session_id = ?1 AND compacted = 0 AND off_view = 0",
                [session],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )?)
        })
    }

    /// From seq `from` on, in insertion order: each message's seq, whether it is a prompt the user
    /// typed (not a checkpoint or a generated message), and when it was stored — what the
    /// telemetry needs of the messages, without their contents.
    pub fn message_times(&self, session: &str, from: i64) -> Result<Vec<(i64, bool, String)>> {
        self.read(|conn| {
            let mut stmt = conn.prepare_cached(
                "SELECT seq, role = 'user' AND created_by IS NULL AND summary = 0, created_at FROM messages
                 WHERE session_id = ?1 AND seq >= ?2 ORDER BY seq",
            )?;
            let rows = stmt.query_map(params![session, from], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })
    }

    /// The seq the next stored message of the session will get.
    pub fn next_seq(&self, session: &str) -> Result<i64> {
        self.read(|conn| {
            Ok(conn.query_row(
                "SELECT coalesce(max(seq), 0) + 1 FROM messages WHERE session_id = ?1",
                [session],
                |r| r.get(0),
            )?)
        })
    }

    /// Live messages `offset..offset + limit` in transcript order (a page of the model view).
    pub fn live_page(&self, session: &str, offset: u64, limit: u64) -> Result<Vec<Message>> {
        self.read(|conn| {
            let mut stmt = conn.prepare_cached(&format!(
                "SELECT {MESSAGE_COLUMNS} FROM messages WHERE session_id = ?1 AND compacted = 0 AND off_view = 0
                 ORDER BY anchor, seq LIMIT ?2 OFFSET ?3"
            ))?;
            let rows = stmt.query_map(params![session, limit as i64, offset as i64], message_from_row)?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })
    }

    /// Messages the model still sees, in transcript order.
    pub fn live_messages(&self, session: &str) -> Result<Vec<Message>> {
        self.read(|conn| query_messages(conn, session, true))
    }

    /// Whether the cache strategy's trip latch is set (it re-arms below the threshold).
    pub fn cache_latched(&self, session: &str) -> Result<bool> {
        self.read(|conn| {
            Ok(conn.query_row("SELECT cache_latched FROM sessions WHERE id = ?1", [session], |r| r.get(0))?)
        })
    }

    pub fn set_cache_latched(&self, session: &str, latched: bool) -> Result<()> {
        self.write(|tx| {
            tx.conn().execute("UPDATE sessions SET cache_latched = ?2 WHERE id = ?1", params![session, latched])?;
            Ok(())
        })
    }

    /// Live messages without their contents, for budgets and planning.
    pub fn live_meta(&self, session: &str) -> Result<Vec<MessageMeta>> {
        self.read(|conn| query_meta(conn, session))
    }

    /// The given messages (by seq), in the order asked.
    pub fn messages_by_seq(&self, session: &str, seqs: &[i64]) -> Result<Vec<Message>> {
        self.read(|conn| {
            let mut stmt = conn.prepare_cached(&format!(
                "SELECT {MESSAGE_COLUMNS} FROM messages WHERE session_id = ?1 AND seq = ?2"
            ))?;
            seqs.iter().map(|seq| Ok(stmt.query_row(params![session, seq], message_from_row)?)).collect()
        })
    }

    /// The contents of the live tool results that answered calls of tool `name` (what a
    /// `tool_search` returned, for the tools it loaded).
    pub fn live_results_of(&self, session: &str, name: &str) -> Result<Vec<String>> {
        self.read(|conn| {
            let mut stmt = conn.prepare_cached(
                "SELECT r.content FROM messages r
                 WHERE r.session_id = ?1 AND r.role = 'tool' AND r.compacted = 0 AND r.off_view = 0
                   AND r.tool_call_id IN (
                     SELECT json_extract(call.value, '$.id') FROM messages a, json_each(a.tool_calls) call
                     WHERE a.session_id = ?1 AND a.tool_calls IS NOT NULL AND a.compacted = 0
                       AND json_extract(call.value, '$.name') = ?2)",
            )?;
            let rows = stmt.query_map(params![session, name], |r| r.get(0))?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })
    }

    /// The newest message record `by` hid at transcript position `anchor`: the original a reduced
    /// copy stands in for.
    pub fn hidden_original(&self, session: &str, by: i64, anchor: i64) -> Result<Option<Message>> {
        self.read(|conn| {
            Ok(conn
                .query_row(
                    &format!(
                        "SELECT {MESSAGE_COLUMNS} FROM messages WHERE session_id = ?1 AND compacted_by = ?2 AND anchor = ?3
                         ORDER BY seq DESC LIMIT 1"
                    ),
                    params![session, by, anchor],
                    message_from_row,
                )
                .optional()?)
        })
    }

    /// Up to `limit` stored messages (compacted ones included) that come before `before`
    /// (`(anchor, seq)`, or the end), in transcript order — for paging a long session from its end.
    pub fn messages_before(&self, session: &str, before: Option<(i64, i64)>, limit: usize) -> Result<Vec<Message>> {
        self.read(|conn| {
            let (anchor, seq) = before.unwrap_or((i64::MAX, i64::MAX));
            let mut stmt = conn.prepare_cached(&format!(
                "SELECT {MESSAGE_COLUMNS} FROM messages WHERE session_id = ?1 AND (anchor, seq) < (?2, ?3)
                 ORDER BY anchor DESC, seq DESC LIMIT ?4"
            ))?;
            let rows = stmt.query_map(params![session, anchor, seq, limit as i64], message_from_row)?;
            let mut page: Vec<Message> = rows.collect::<rusqlite::Result<_>>()?;
            page.reverse();
            Ok(page)
        })
    }

    /// The stored messages that come after `after` (`(anchor, seq)`) in transcript order: what a
    /// running turn appended since a view was loaded.
    pub fn messages_after(&self, session: &str, after: (i64, i64)) -> Result<Vec<Message>> {
        self.messages_after_page(session, after, usize::MAX)
    }

    /// Up to `limit` stored messages after `after` (`(anchor, seq)`), in transcript order — for
    /// paging forward through a long session.
    pub fn messages_after_page(&self, session: &str, after: (i64, i64), limit: usize) -> Result<Vec<Message>> {
        self.read(|conn| {
            let mut stmt = conn.prepare_cached(&format!(
                "SELECT {MESSAGE_COLUMNS} FROM messages WHERE session_id = ?1 AND (anchor, seq) > (?2, ?3)
                 ORDER BY anchor, seq LIMIT ?4"
            ))?;
            let limit = i64::try_from(limit).unwrap_or(i64::MAX);
            let rows = stmt.query_map(params![session, after.0, after.1, limit], message_from_row)?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })
    }

    /// The transcript position `(anchor, seq)` of message `seq`.
    pub fn position_of(&self, session: &str, seq: i64) -> Result<Option<(i64, i64)>> {
        self.read(|conn| {
            Ok(conn
                .query_row(
                    "SELECT anchor, seq FROM messages WHERE session_id = ?1 AND seq = ?2",
                    params![session, seq],
                    |r| Ok((r.get(0)?, r.get(1)?)),
                )
                .optional()?)
        })
    }

    /// Every stored message, compacted ones included, in transcript order.
    pub fn all_messages(&self, session: &str) -> Result<Vec<Message>> {
        self.read(|conn| query_messages(conn, session, false))
    }

    /// The seqs of checkpoint messages: the first message each compaction added (the rest it
    /// added are injected context).
    pub fn checkpoint_seqs(&self, session: &str) -> Result<std::collections::HashSet<i64>> {
        self.read(|conn| {
            let mut stmt = conn.prepare_cached(
                "SELECT MIN(seq) FROM messages WHERE session_id = ?1 AND summary = 1 AND created_by IS NOT NULL
                 GROUP BY created_by",
            )?;
            let rows = stmt.query_map([session], |row| row.get::<_, i64>(0))?;
            Ok(rows.collect::<rusqlite::Result<_>>()?)
        })
    }
}

/// Metadata of the live messages in transcript order (contents are not read).
fn query_meta(conn: &Connection, session: &str) -> Result<Vec<MessageMeta>> {
    let mut stmt = conn.prepare_cached(
        "SELECT seq, anchor, role, summary, chars, tool_calls, tool_call_id FROM messages
         WHERE session_id = ?1 AND compacted = 0 AND off_view = 0 ORDER BY anchor, seq",
    )?;
    let rows = stmt.query_map([session], |row| {
        let role: String = row.get(2)?;
        let role = Role::parse(&role).ok_or_else(|| {
            rusqlite::Error::FromSqlConversionFailure(
                2,
                rusqlite::types::Type::Text,
                format!("unknown role {role:?}").into(),
            )
        })?;
        let chars: u64 = row.get(4)?;
        let calls: Option<String> = row.get(5)?;
        let calls: Vec<ToolCall> = match calls {
            Some(text) => serde_json::from_str(&text)
                .map_err(|e| rusqlite::Error::FromSqlConversionFailure(5, rusqlite::types::Type::Text, e.into()))?,
            None => Vec::new(),
        };
        let call_chars = message_chars("", &calls);
        let argument_chars = calls.iter().map(|c| c.arguments.chars().count() as u64).sum();
        Ok(MessageMeta {
            seq: row.get(0)?,
            anchor: row.get(1)?,
            role,
            summary: row.get(3)?,
            chars,
            content_chars: chars.saturating_sub(call_chars),
            argument_chars,
            calls: calls.into_iter().map(|c| c.id).collect(),
            answers: row.get(6)?,
        })
    })?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

fn query_messages(conn: &Connection, session: &str, live_only: bool) -> Result<Vec<Message>> {
    let filter = if live_only { "AND compacted = 0 AND off_view = 0" } else { "" };
    let sql = format!("SELECT {MESSAGE_COLUMNS} FROM messages WHERE session_id = ?1 {filter} ORDER BY anchor, seq");
    let mut stmt = conn.prepare_cached(&sql)?;
    let rows = stmt.query_map([session], message_from_row)?;
    Ok(rows.collect::<rusqlite::Result<_>>()?)
}

/// Appends a message at the end of the session's transcript and returns its seq.
pub fn append_message(tx: &Tx<'_>, session: &str, message: &NewMessage) -> Result<i64> {
    let seq: i64 = tx.conn().query_row(
        "SELECT coalesce(max(seq), 0) + 1 FROM messages WHERE session_id = ?1",
        [session],
        |r| r.get(0),
    )?;
    let now = now_rfc3339();
    let tool_calls =
        if message.tool_calls.is_empty() { None } else { Some(serde_json::to_string(&message.tool_calls)?) };
    let provider_items = message.provider_items.as_ref().map(serde_json::to_string).transpose()?;
    tx.conn().execute(
        "INSERT INTO messages (session_id, seq, anchor, role, content, chars, tool_calls, tool_call_id, provider_items,
                               uncertain, created_at, summary, truncated, created_by)
         VALUES (?1, ?2, ?11, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?12, ?13, ?14)",
        params![
            session,
            seq,
            message.role.as_str(),
            message.content,
            message_chars(&message.content, &message.tool_calls) as i64,
            tool_calls,
            message.tool_call_id,
            provider_items,
            message.uncertain,
            now,
            message.anchor.unwrap_or(seq),
            message.summary,
            message.truncated,
            message.created_by,
        ],
    )?;
    super::search::index_message(tx.conn(), tx.conn().last_insert_rowid(), &message.content)?;
    tx.conn().execute("UPDATE sessions SET updated_at = ?2 WHERE id = ?1", params![session, now])?;
    Ok(seq)
}
