//! Sessions and their append-only messages.

use rusqlite::{params, OptionalExtension, Row};
use serde::{Deserialize, Serialize};

pub use super::messages::append_message;
pub(crate) use super::messages::{message_from_row, MESSAGE_COLUMNS};
use super::{Store, Tx};
use crate::error::{Error, Result};
use crate::events::now_rfc3339;
pub use crate::ids::SessionId;

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
    /// Kilo Code's CLI: OpenCode's database, in Kilo's own folder.
    #[serde(rename = "kilo")]
    #[strum(serialize = "kilo")]
    Kilo,
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
    pub parent_session: Option<SessionId>,
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
    pub id: SessionId,
    /// The title shown: the one given in Alisio if the session was renamed, else the agent's own
    /// (its title record, else its first real prompt) or the one Alisio chose.
    pub title: String,
    /// The agent's own title, when the session was renamed in Alisio (kept apart, unchanged).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub agent_title: Option<String>,
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
    /// Model calls the session made or recorded (replays left out).
    pub calls: u64,
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
    /// In a team's archive: the machine that pushed it, and who.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub machine: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub user: Option<String>,
}

/// The columns of a session row, in the order `session_from_row` reads them.
pub(crate) const SESSION_COLUMNS: &str =
    "id, coalesce(renamed_title, title), workspace, created_at, updated_at, source, source_path, forked_from, forked_at_seq, source_id, \
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

/// The transcript position of message `seq`.
pub fn anchor_of(tx: &Tx<'_>, session: &SessionId, seq: i64) -> Result<i64> {
    Ok(tx.conn().query_row(
        "SELECT anchor FROM messages WHERE session_id = ?1 AND seq = ?2",
        params![session, seq],
        |r| r.get(0),
    )?)
}

pub fn set_title(tx: &Tx<'_>, session: &SessionId, title: &str) -> Result<()> {
    tx.conn().execute("UPDATE sessions SET title = ?2 WHERE id = ?1", params![session, title])?;
    Ok(())
}

impl Store {
    /// The number (`1..n`) of the call of `session` whose answer holds tool call `id` (the call
    /// that started a sub-agent), if any.
    pub fn call_with_tool_call(&self, session: &SessionId, id: &str) -> Result<Option<usize>> {
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
    pub fn recorded_cost(&self, session: &SessionId) -> Result<Option<i64>> {
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
            id: SessionId::from_string(uuid::Uuid::now_v7().to_string()),
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

    /// The system prompt an imported session's source recorded ("" when it recorded none).
    pub fn imported_system_prompt(&self, session: &SessionId) -> Result<String> {
        self.read(|conn| {
            Ok(conn
                .query_row("SELECT coalesce(system_prompt, '') FROM sessions WHERE id = ?1", [session], |r| r.get(0))
                .optional()?
                .unwrap_or_default())
        })
    }

    /// How many messages the model still sees, and their characters.
    pub fn live_totals(&self, session: &SessionId) -> Result<(u64, u64)> {
        self.read(|conn| {
            Ok(conn.query_row(
                "SELECT count(*), coalesce(sum(chars), 0) FROM messages
                 WHERE session_id = ?1 AND compacted = 0 AND off_view = 0",
                [session],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )?)
        })
    }
}
