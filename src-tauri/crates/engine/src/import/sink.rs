//! Where every importer writes: messages, compactions and ledger rows of one imported session,
//! with the model view (the messages the agent would send next) kept as the records arrive.

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use crate::error::Result;
use crate::events::CompactionReason;
use crate::store::compactions::{insert_compaction, CheckpointDetail, NewCompaction, RecordDetail, Status, Trigger};
use crate::store::imported::{self, Placement, RequestShape};
use crate::store::SessionId;
use crate::store::{seq_ranges, Tx};
use crate::transcript::{message_chars, Role};

pub use crate::store::imported::{Record, TitleFrom, Usage};

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

/// The request a response answered: the model view as it was when the response began.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Snapshot {
    pub ranges: Vec<[i64; 2]>,
    pub chars: u64,
}

/// The state of one imported session while it is read: kept across write batches, so each record
/// costs the same however long the session already is.
#[derive(Debug, Clone, Default)]
pub struct SinkState {
    pub next_seq: i64,
    /// The model view in request order.
    pub live: Vec<Live>,
    /// The view's seqs as ranges. A gap holding only off-view messages (a sub-agent's thread, a
    /// bookkeeping record) is bridged — a request's reader leaves those out — so a request is a
    /// few ranges, not one per message, and storing one per call stays linear.
    ranges: Vec<[i64; 2]>,
    /// Every message after the last range is off view: the next live one extends it.
    bridged: bool,
    chars: u64,
    /// The newest record time seen and not yet written to the session's last activity (as an
    /// instant in microseconds, and as written).
    touched: Option<(i64, String)>,
    /// Messages stored this batch and not yet in the search index (row id, content).
    unindexed: Vec<(i64, String)>,
    /// Messages added by this import run.
    pub added: u64,
    /// The sessions of sub-agent threads the source holds inside its file (Claude Code's
    /// sidechains), by the importer's key for the thread: each a session of its own.
    threads: std::collections::BTreeMap<String, Thread>,
    /// The session's agent, once asked.
    kind: Option<crate::store::SourceKind>,
}

/// A sub-agent thread's session while its parent's source is read.
#[derive(Debug, Clone)]
struct Thread {
    session: SessionId,
    state: SinkState,
}

/// What a sub-agent thread's session is: its source id, its first record's time, and the tool call
/// of the parent that started it when the records say.
#[derive(Debug, Clone, Default)]
pub struct ThreadSpec {
    pub source_id: String,
    pub created_at: String,
    pub parent_tool_call: Option<String>,
}

impl SinkState {
    /// The state of a stored session: `rows` are its messages not hidden by a compaction, in seq
    /// order, as (seq, chars, off view); `order` is the live view in request order.
    pub fn new(next_seq: i64, rows: impl IntoIterator<Item = (i64, u64, bool)>, order: Vec<i64>) -> Self {
        let mut state = SinkState { next_seq, ..SinkState::default() };
        let mut chars = std::collections::HashMap::new();
        let mut last = 0;
        for (seq, size, off_view) in rows {
            if seq != last + 1 {
                state.bridged = false;
            }
            last = seq;
            if !off_view {
                state.extend(seq, size);
                chars.insert(seq, size);
            }
        }
        state.bridged &= last == next_seq - 1;
        state.live = order.into_iter().map(|seq| Live { seq, chars: chars.get(&seq).copied().unwrap_or(0) }).collect();
        state
    }

    /// Adds live message `seq` (the newest) to the ranges.
    fn extend(&mut self, seq: i64, chars: u64) {
        match self.ranges.last_mut() {
            Some(range) if self.bridged => range[1] = seq,
            _ => self.ranges.push([seq, seq]),
        }
        self.bridged = true;
        self.chars += chars;
    }

    /// The current model view as a request snapshot.
    pub fn snapshot(&self) -> Snapshot {
        Snapshot { ranges: self.ranges.clone(), chars: self.chars }
    }

    fn live_chars(&self) -> u64 {
        self.chars
    }

    /// The view is now `live` (after a compaction).
    fn replace(&mut self, live: Vec<Live>) {
        let mut seqs: Vec<i64> = live.iter().map(|l| l.seq).collect();
        seqs.sort_unstable();
        self.ranges = seq_ranges(seqs);
        self.bridged = self.ranges.last().is_some_and(|r| r[1] == self.next_seq - 1);
        self.chars = live.iter().map(|l| l.chars).sum();
        self.live = live;
    }
}

pub struct Sink<'a, 't> {
    pub tx: &'a Tx<'t>,
    pub session: &'a SessionId,
    pub state: &'a mut SinkState,
}

impl<'t> Sink<'_, 't> {
    /// Stores `record` at the end of the transcript (or at `anchor`) and returns its seq.
    pub fn push(&mut self, record: Record) -> Result<i64> {
        self.insert(record, None, None, false)
    }

    fn insert(&mut self, record: Record, anchor: Option<i64>, created_by: Option<i64>, summary: bool) -> Result<i64> {
        let seq = self.state.next_seq.max(1);
        self.state.next_seq = seq + 1;
        let chars = message_chars(&record.content, &record.tool_calls);
        let placement = Placement { seq, anchor, created_by, summary };
        let row = imported::insert_message(self.tx, self.session, &record, placement, chars)?;
        let off_view = record.off_view;
        self.state.unindexed.push((row, record.content));
        if !off_view {
            self.state.live.push(Live { seq, chars });
            self.state.extend(seq, chars);
        }
        self.state.added += 1;
        Ok(seq)
    }

    /// The seq of the message imported from source record `id`, if any.
    pub fn seq_of(&self, id: &str) -> Result<Option<i64>> {
        imported::seq_of(self.tx, self.session, id)
    }

    /// Records a compaction the source made: every live message not in `keep` is hidden by it.
    /// The checkpoint itself is added by [`Sink::checkpoint`] (it may come in a later record).
    pub fn compaction(
        &mut self,
        reason: CompactionReason,
        keep: &[i64],
        model_call_id: Option<i64>,
        fields: Map<String, Value>,
        trigger: Option<Trigger>,
        at: &str,
    ) -> Result<i64> {
        let before = self.state.live_chars();
        let (kept, hidden): (Vec<Live>, Vec<Live>) = self.state.live.iter().partition(|l| keep.contains(&l.seq));
        let mut span: Vec<i64> = hidden.iter().map(|l| l.seq).collect();
        span.sort_unstable();
        let record = NewCompaction {
            trigger,
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
        imported::date_compaction(self.tx, id, at)?;
        crate::store::compactions::hide_messages(self.tx, self.session, id, &span)?;
        self.state.replace(kept);
        Ok(id)
    }

    /// Adds a message a compaction put into the view (a retained prompt, re-inserted context).
    pub fn restated(&mut self, compaction: i64, record: Record) -> Result<i64> {
        self.insert(record, None, Some(compaction), false)
    }

    /// Adds a message a compaction put into the view at `anchor` (read after the messages
    /// anchored before it: a restated first prompt ahead of what the compaction kept).
    pub fn restated_at(&mut self, compaction: i64, record: Record, anchor: i64) -> Result<i64> {
        self.insert(record, Some(anchor), Some(compaction), false)
    }

    /// The seq a message must be anchored at to lead the view (just before the first live one).
    pub fn lead_anchor(&self) -> Option<i64> {
        self.state.live.iter().map(|l| l.seq).min().map(|s| s - 1)
    }

    /// Adds compaction `id`'s checkpoint: with `lead`, first in the view (anchored just before the
    /// messages the compaction kept, so the stored view shows it where the model reads it);
    /// otherwise at the end, where the source wrote it.
    pub fn checkpoint(&mut self, id: i64, record: Record, lead: bool) -> Result<i64> {
        let anchor = if lead { self.lead_anchor() } else { None };
        self.checkpoint_at(id, record, anchor)
    }

    /// Adds compaction `id`'s checkpoint read right after the messages anchored at `anchor` (at
    /// the end with none): Roo Code's truncation marker, sent right after the first prompt.
    pub fn checkpoint_at(&mut self, id: i64, record: Record, anchor: Option<i64>) -> Result<i64> {
        let text = record.content.clone();
        let seq = self.insert(record, anchor, Some(id), true)?;
        if let Some(anchor) = anchor {
            // Pushed last, read where its anchor puts it.
            if let Some(entry) = self.state.live.pop() {
                let at = self.state.live.iter().position(|l| l.seq > anchor).unwrap_or(self.state.live.len());
                self.state.live.insert(at, entry);
            }
        }
        let after = self.state.live_chars();
        let fidelity = self.fidelity_of(id, &text)?;
        imported::set_checkpoint(self.tx, id, &text, after, &serde_json::to_value(&fidelity)?)?;
        Ok(seq)
    }

    /// What `text` keeps of the messages compaction `id` hid.
    fn fidelity_of(&self, id: i64, text: &str) -> Result<crate::fidelity::Fidelity> {
        let (workspace, ranges) = imported::compaction_span(self.tx, id)?;
        let span = imported::messages_at(self.tx, self.session, &crate::view::expand_ranges(&ranges))?;
        Ok(crate::fidelity::assess(&span, &crate::fidelity::CheckpointText::Text(text), &workspace))
    }

    /// Adds a ledger row for a request whose body was `request` and whose answer `usage` says.
    pub fn model_call(&mut self, request: &Snapshot, usage: Usage) -> Result<i64> {
        imported::insert_call(
            self.tx,
            self.session,
            RequestShape { ranges: &request.ranges, chars: request.chars },
            &usage,
        )
    }

    /// The sink of sub-agent thread `key` (its session made at the first record, under this one).
    pub fn thread(&mut self, key: &str, spec: impl FnOnce() -> ThreadSpec) -> Result<Sink<'_, 't>> {
        if !self.state.threads.contains_key(key) {
            let spec = spec();
            let kind = self.kind()?;
            let id = super::session_id(kind, &spec.source_id);
            imported::open_thread(
                self.tx,
                self.session,
                &id,
                &spec.source_id,
                &spec.created_at,
                spec.parent_tool_call.as_deref(),
            )?;
            let (next_seq, rows, order) = imported::append_state(self.tx, &id)?;
            let state = SinkState::new(next_seq, rows, order);
            self.state.threads.insert(key.to_string(), Thread { session: id, state });
        }
        let Some(thread) = self.state.threads.get_mut(key) else {
            return Err(crate::error::Error::Unreadable(format!("thread {key} was not opened")));
        };
        Ok(Sink { tx: self.tx, session: &thread.session, state: &mut thread.state })
    }

    /// Updates ledger row `call` with the figures of a later record of the same response.
    pub fn update_call(&self, call: i64, usage: &Usage) -> Result<()> {
        imported::update_call_usage(self.tx, call, usage)
    }

    /// The agent the session is read from.
    fn kind(&mut self) -> Result<crate::store::SourceKind> {
        match self.state.kind {
            Some(kind) => Ok(kind),
            None => {
                let kind = imported::source_of(self.tx, self.session)?;
                self.state.kind = Some(kind);
                Ok(kind)
            }
        }
    }

    /// Titles the session `title` from `from`, unless a stronger source already titled it.
    pub fn offer_title(&self, title: &str, from: imported::TitleFrom) -> Result<()> {
        imported::offer_title(self.tx, self.session, title, from)
    }

    /// Keeps a title the agent wrote for its record `leaf`, which may be in another file.
    pub fn put_agent_title(&mut self, leaf: &str, title: &str) -> Result<()> {
        let kind = self.kind()?;
        imported::put_agent_title(self.tx, kind, leaf, title)
    }

    /// The title the agent wrote (anywhere) for its record `id`.
    pub fn agent_title(&mut self, id: &str) -> Result<Option<String>> {
        let kind = self.kind()?;
        imported::agent_title(self.tx, kind, id)
    }

    /// A rewind (the agent's `/rewind`): stored messages from `seq` on leave the model's view; the
    /// stored view keeps them, marked `rewound`.
    pub fn rewind(&mut self, seq: i64) -> Result<()> {
        imported::rewind_from(self.tx, self.session, seq)?;
        let kept: Vec<Live> = self.state.live.iter().copied().filter(|l| l.seq < seq).collect();
        self.state.replace(kept);
        Ok(())
    }

    /// Adds `key: value` to what stored message `seq` keeps of its record.
    pub fn mark(&self, seq: i64, key: &str, value: Value) -> Result<()> {
        imported::set_meta_key(self.tx, self.session, seq, key, &value)
    }

    /// Names the session that started this one (a sub-agent's own file) and the tool call that did.
    pub fn set_parent(&self, parent: &str, tool_call: Option<&str>) -> Result<()> {
        imported::set_parent(self.tx, self.session, parent, tool_call)
    }

    /// The whole session's cost as the agent recorded it, in picodollars.
    pub fn set_recorded_cost(&self, picodollars: i64) -> Result<()> {
        imported::set_recorded_cost(self.tx, self.session, picodollars)
    }

    /// Names message `seq` as the answer of ledger row `call`.
    pub fn answered(&self, call: i64, seq: i64) -> Result<()> {
        imported::set_response_seq(self.tx, call, seq)
    }

    /// How many of the parts `hashes` names the session holds none of.
    pub fn missing_parts(&self, hashes: &[&str]) -> Result<u64> {
        imported::missing_parts(self.tx, self.session, hashes)
    }

    /// Notes that ledger row `call`'s logged request names `gaps` parts nowhere to be found.
    pub fn set_request_gaps(&self, call: i64, gaps: u64) -> Result<()> {
        imported::set_request_gaps(self.tx, call, gaps)
    }

    /// Keeps a part the agent's request log refers to by hash.
    pub fn part(&self, hash: &str, kind: &str, body: &Value) -> Result<()> {
        imported::put_part(self.tx, self.session, hash, kind, body)
    }

    pub fn set_title(&self, title: &str) -> Result<()> {
        imported::set_title(self.tx, self.session, title)
    }

    pub fn set_system_prompt(&self, prompt: &str) -> Result<()> {
        imported::set_system_prompt(self.tx, self.session, prompt)
    }

    /// Moves the session's last activity to `at` (the source's time of its newest record), when
    /// the batch is written ([`Sink::flush`]).
    pub fn touch(&mut self, at: &str) -> Result<()> {
        // Only a time: a record's placeholder or garbage in its time field is no activity. Times
        // are compared as instants (agents write them with different precisions and offsets).
        let Ok(instant) = chrono::DateTime::parse_from_rfc3339(at) else { return Ok(()) };
        let instant = instant.timestamp_micros();
        if self.state.touched.as_ref().is_none_or(|(t, _)| *t < instant) {
            self.state.touched = Some((instant, at.to_string()));
        }
        Ok(())
    }

    /// Writes what the batch kept in memory: its messages' search index, the session's last
    /// activity.
    pub fn flush(&mut self) -> Result<()> {
        imported::index_messages(self.tx, &std::mem::take(&mut self.state.unindexed))?;
        if let Some((_, at)) = self.state.touched.take() {
            imported::touch(self.tx, self.session, &at)?;
        }
        let tx = self.tx;
        for thread in self.state.threads.values_mut() {
            Sink { tx, session: &thread.session, state: &mut thread.state }.flush()?;
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
