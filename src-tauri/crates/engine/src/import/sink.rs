//! Where every importer writes: messages, compactions and ledger rows of one imported session,
//! with the model view (the messages the agent would send next) kept as the records arrive.

use rusqlite::{params, Transaction};
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use crate::error::Result;
use crate::events::CompactionReason;
use crate::store::compactions::{insert_compaction, CheckpointDetail, NewCompaction, RecordDetail, Status};
use crate::store::seq_ranges;
use crate::transcript::{estimate_tokens, message_chars, Role, ToolCall};

/// A message as an importer maps it from a source record.
#[derive(Debug, Clone)]
pub struct Record {
    pub role: Role,
    pub content: String,
    pub tool_calls: Vec<ToolCall>,
    pub tool_call_id: Option<String>,
    pub provider_items: Option<Value>,
    /// The source's id for the record, verbatim.
    pub source_id: Option<String>,
    /// What the record holds beyond the mapped fields (kept, never dropped).
    pub meta: Map<String, Value>,
    /// Kept in the stored view but never part of the model's view.
    pub off_view: bool,
    pub created_at: String,
}

impl Record {
    pub fn new(role: Role, content: impl Into<String>, created_at: &str) -> Self {
        Record {
            role,
            content: content.into(),
            tool_calls: Vec::new(),
            tool_call_id: None,
            provider_items: None,
            source_id: None,
            meta: Map::new(),
            off_view: false,
            created_at: created_at.to_string(),
        }
    }

    pub fn id(mut self, id: Option<&str>) -> Self {
        self.source_id = id.map(str::to_string);
        self
    }

    pub fn meta(mut self, key: &str, value: Value) -> Self {
        if !value.is_null() {
            self.meta.insert(key.to_string(), value);
        }
        self
    }
}

/// A live message of the model view: its seq and the characters it adds to a request.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Live {
    pub seq: i64,
    pub chars: u64,
}

/// What a ledger row needs that the request snapshot does not give.
#[derive(Debug, Clone, Default)]
pub struct Usage {
    pub purpose: &'static str,
    pub api: &'static str,
    pub model: String,
    pub prompt_tokens: Option<u64>,
    pub cached_tokens: Option<u64>,
    pub completion_tokens: Option<u64>,
    pub duration_ms: Option<u64>,
    pub ttft_ms: Option<u64>,
    pub finish_reason: Option<String>,
    pub response_seq: Option<i64>,
    pub response: Option<Value>,
    pub started_at: String,
}

/// The request a response answered: the model view as it was when the response began.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Snapshot {
    pub ranges: Vec<[i64; 2]>,
    pub chars: u64,
}

/// The state of one imported session that outlives a write batch.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct SinkState {
    pub next_seq: i64,
    /// The model view in request order.
    pub live: Vec<Live>,
    /// Messages added by this import run (not persisted across runs).
    #[serde(skip)]
    pub added: u64,
}

impl SinkState {
    /// The current model view as a request snapshot.
    pub fn snapshot(&self) -> Snapshot {
        let mut seqs: Vec<i64> = self.live.iter().map(|l| l.seq).collect();
        // Ranges are a set; rebuilding a request orders them as the transcript does.
        seqs.sort_unstable();
        Snapshot { ranges: seq_ranges(seqs), chars: self.live.iter().map(|l| l.chars).sum() }
    }

    fn live_chars(&self) -> u64 {
        self.live.iter().map(|l| l.chars).sum()
    }
}

pub struct Sink<'a, 't> {
    pub tx: &'a Transaction<'t>,
    pub session: &'a str,
    pub state: &'a mut SinkState,
}

impl Sink<'_, '_> {
    /// Stores `record` at the end of the transcript (or at `anchor`) and returns its seq.
    pub fn push(&mut self, record: Record) -> Result<i64> {
        self.insert(record, None, None, false)
    }

    fn insert(&mut self, record: Record, anchor: Option<i64>, created_by: Option<i64>, summary: bool) -> Result<i64> {
        let seq = self.state.next_seq.max(1);
        self.state.next_seq = seq + 1;
        let chars = message_chars(&record.content, &record.tool_calls);
        let tool_calls =
            if record.tool_calls.is_empty() { None } else { Some(serde_json::to_string(&record.tool_calls)?) };
        let meta = if record.meta.is_empty() { None } else { Some(Value::Object(record.meta).to_string()) };
        let mut stmt = self.tx.prepare_cached(
            "INSERT INTO messages (session_id, seq, anchor, role, content, chars, tool_calls, tool_call_id,
                                   provider_items, created_at, summary, created_by, source_id, meta, off_view)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15)",
        )?;
        stmt.execute(params![
            self.session,
            seq,
            anchor.unwrap_or(seq),
            record.role.as_str(),
            record.content,
            chars as i64,
            tool_calls,
            record.tool_call_id,
            record.provider_items.as_ref().map(Value::to_string),
            record.created_at,
            summary,
            created_by,
            record.source_id,
            meta,
            record.off_view,
        ])?;
        if !record.off_view {
            self.state.live.push(Live { seq, chars });
        }
        self.state.added += 1;
        Ok(seq)
    }

    /// The seq of the message imported from source record `id`, if any.
    pub fn seq_of(&self, id: &str) -> Result<Option<i64>> {
        let mut stmt =
            self.tx.prepare_cached("SELECT min(seq) FROM messages WHERE session_id = ?1 AND source_id = ?2")?;
        Ok(stmt.query_row(params![self.session, id], |r| r.get(0))?)
    }

    /// Records a compaction the source made: every live message not in `keep` is hidden by it.
    /// The checkpoint itself is added by [`Sink::checkpoint`] (it may come in a later record).
    pub fn compaction(
        &mut self,
        reason: CompactionReason,
        keep: &[i64],
        model_call_id: Option<i64>,
        fields: Map<String, Value>,
        at: &str,
    ) -> Result<i64> {
        let before = self.state.live_chars();
        let (kept, hidden): (Vec<Live>, Vec<Live>) = self.state.live.iter().partition(|l| keep.contains(&l.seq));
        let mut span: Vec<i64> = hidden.iter().map(|l| l.seq).collect();
        span.sort_unstable();
        let record = NewCompaction {
            reason,
            span: span.clone(),
            before_chars: before,
            after_chars: kept.iter().map(|l| l.chars).sum(),
            detail: RecordDetail::Checkpoint(Box::new(CheckpointDetail {
                focus: None,
                partial: false,
                checkpoint: json!({"text": ""}),
                summarized_chars: hidden.iter().map(|l| l.chars).sum(),
                checkpoint_chars: 0,
                plugin_reports: Vec::new(),
                plugin_fields: fields,
                inject_context: Vec::new(),
                model_call_id,
                fidelity: None,
            })),
        };
        let id = insert_compaction(self.tx, self.session, &record, Status::Applied)?;
        self.tx.execute("UPDATE compactions SET created_at = ?2, applied_at = ?2 WHERE id = ?1", params![id, at])?;
        crate::store::compactions::hide_messages(self.tx, self.session, id, &span)?;
        self.state.live = kept;
        Ok(id)
    }

    /// Adds a message a compaction put into the view (a retained prompt, re-inserted context).
    pub fn restated(&mut self, compaction: i64, record: Record) -> Result<i64> {
        self.insert(record, None, Some(compaction), false)
    }

    /// Adds compaction `id`'s checkpoint: with `lead`, first in the view (anchored just before the
    /// messages the compaction kept, so the stored view shows it where the model reads it);
    /// otherwise at the end, where the source wrote it.
    pub fn checkpoint(&mut self, id: i64, record: Record, lead: bool) -> Result<i64> {
        let text = record.content.clone();
        let first_kept = if lead { self.state.live.iter().map(|l| l.seq).min() } else { None };
        let anchor = first_kept.map(|s| s - 1);
        let seq = self.insert(record, anchor, Some(id), true)?;
        if anchor.is_some() {
            // The checkpoint leads the view: it was pushed last, it is read first.
            if let Some(entry) = self.state.live.pop() {
                self.state.live.insert(0, entry);
            }
        }
        let after = self.state.live_chars();
        let fidelity = self.fidelity_of(id, &text)?;
        self.tx.execute(
            "UPDATE compactions SET checkpoint = ?2, checkpoint_chars = ?3, after_chars = ?4, fidelity = ?5 WHERE id = ?1",
            params![
                id,
                json!({"text": text}).to_string(),
                text.chars().count() as i64,
                after as i64,
                serde_json::to_string(&fidelity)?
            ],
        )?;
        Ok(seq)
    }

    /// What `text` keeps of the messages compaction `id` hid (I13).
    fn fidelity_of(&self, id: i64, text: &str) -> Result<crate::fidelity::Fidelity> {
        let (workspace, ranges): (String, String) = self.tx.query_row(
            "SELECT s.workspace, c.summarized_ranges FROM compactions c JOIN sessions s ON s.id = c.session_id WHERE c.id = ?1",
            [id],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )?;
        let seqs = crate::view::expand_ranges(&serde_json::from_str(&ranges)?);
        let mut stmt = self.tx.prepare_cached(&format!(
            "SELECT {} FROM messages WHERE session_id = ?1 AND seq = ?2",
            crate::store::sessions::MESSAGE_COLUMNS
        ))?;
        let mut span = Vec::with_capacity(seqs.len());
        for seq in seqs {
            span.push(stmt.query_row(params![self.session, seq], crate::store::sessions::message_from_row)?);
        }
        Ok(crate::fidelity::assess(&span, &crate::fidelity::CheckpointText::Text(text), &workspace))
    }

    /// Adds a ledger row for a request whose body was `request` and whose answer `usage` says.
    pub fn model_call(&mut self, request: &Snapshot, usage: Usage) -> Result<i64> {
        let mut stmt = self.tx.prepare_cached(
            "INSERT INTO model_calls (session_id, purpose, api, model, system_prompt, message_ranges, params,
                 tool_catalog_chars, request_chars, estimated_tokens, prompt_tokens, cached_tokens,
                 completion_tokens, ttft_ms, duration_ms, finish_reason, response_seq, response, started_at)
             VALUES (?1, ?2, ?3, ?4, '', ?5, ?6, 0, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17)",
        )?;
        stmt.execute(params![
            self.session,
            usage.purpose,
            usage.api,
            usage.model,
            serde_json::to_string(&request.ranges)?,
            json!({"reconstructed": true}).to_string(),
            request.chars as i64,
            estimate_tokens(request.chars) as i64,
            usage.prompt_tokens.map(|v| v as i64),
            usage.cached_tokens.map(|v| v as i64),
            usage.completion_tokens.map(|v| v as i64),
            usage.ttft_ms.map(|v| v as i64),
            usage.duration_ms.map(|v| v as i64),
            usage.finish_reason,
            usage.response_seq,
            usage.response.as_ref().map(Value::to_string),
            usage.started_at,
        ])?;
        Ok(self.tx.last_insert_rowid())
    }

    pub fn set_title(&self, title: &str) -> Result<()> {
        self.tx.execute("UPDATE sessions SET title = ?2 WHERE id = ?1", params![self.session, title])?;
        Ok(())
    }

    pub fn set_system_prompt(&self, prompt: &str) -> Result<()> {
        self.tx.execute("UPDATE sessions SET system_prompt = ?2 WHERE id = ?1", params![self.session, prompt])?;
        Ok(())
    }

    /// Moves the session's last activity to `at` (the source's time of its newest record).
    pub fn touch(&self, at: &str) -> Result<()> {
        if !at.is_empty() {
            self.tx.execute(
                "UPDATE sessions SET updated_at = max(updated_at, ?2) WHERE id = ?1",
                params![self.session, at],
            )?;
        }
        Ok(())
    }
}

/// A title from a prompt: its first line, at most 80 characters.
pub fn title_of(text: &str) -> String {
    let line = text.lines().find(|l| !l.trim().is_empty()).unwrap_or("").trim();
    let mut title: String = line.chars().take(80).collect();
    if line.chars().count() > 80 {
        title.push('…');
    }
    title
}
