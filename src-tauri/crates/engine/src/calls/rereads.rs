//! Re-read forensics (`alisio calls rereads`): the files and commands a session fetched again
//! after a compaction hid the result it had fetched before — what each cost to fetch again, and
//! whether the checkpoint, or Alisio's artifact trail beside it, held what was fetched.

use std::collections::HashMap;

use serde::Serialize;

use crate::cost::book::Tier;
use crate::cost::{Money, Tokens};
use crate::error::Result;
use crate::fidelity::{artifact_trail, fetch_of, CheckpointText, Fetch};
use crate::store::compactions::{CompactionRecord, Status};
use crate::store::{ModelCallRecord, Session, Store};
use crate::transcript::{estimate_tokens, Message, Role};

use super::Forensics;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub enum RereadKind {
    File,
    Command,
}

/// What held the fetched thing once the compaction replaced it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub enum HeldBy {
    /// The model's checkpoint names it.
    Checkpoint,
    /// Only the artifact trail Alisio recorded beside the checkpoint names it.
    Trail,
}

/// One thing fetched again after the compaction that hid its earlier fetch.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Reread {
    /// The compaction that hid the earlier fetch.
    pub compaction: i64,
    pub kind: RereadKind,
    /// The file's workspace path, or the command.
    pub target: String,
    /// The message that asked for the earlier fetch, and the one that fetched it again.
    pub seq_before: i64,
    pub seq_after: i64,
    /// The result fetched again (estimated from its characters).
    pub tokens: u64,
    /// Those tokens as uncached input of the call that first carried them, at its model's price
    /// on its day; `null` when that model has no price (or no call carried them yet).
    pub cost_usd: Option<f64>,
    pub held_by: Option<HeldBy>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Rereads {
    pub rereads: Vec<Reread>,
}

/// A fetch: the assistant message that asked for it, and its result's message.
struct Fetched<'a> {
    seq: i64,
    fetch: Fetch,
    hidden_by: Option<i64>,
    result: Option<&'a Message>,
}

/// Every re-read of the session, in the order they happened.
pub fn rereads(store: &Store, record: &Session, forensics: &Forensics) -> Result<Rereads> {
    let messages = store.all_messages(&record.id)?;
    let compactions: HashMap<i64, CompactionRecord> = store
        .compactions(&record.id)?
        .into_iter()
        .filter(|c| c.status == Status::Applied && c.checkpoint().is_some())
        .map(|c| (c.id, c))
        .collect();
    let calls = store.model_calls(&record.id)?;
    let fetches = fetches(&messages, &record.workspace);
    let mut last: HashMap<&Fetch, &Fetched<'_>> = HashMap::new();
    let mut held = HeldCache::default();
    let mut out = Vec::new();
    for fetched in &fetches {
        if let Some(before) = last.get(&fetched.fetch) {
            // The earlier fetch was hidden by a compaction this one comes after.
            let hider = before.hidden_by.and_then(|id| compactions.get(&id));
            if let Some(compaction) = hider.filter(|c| c.span_seqs().last().is_some_and(|&end| fetched.seq > end)) {
                let tokens = fetched.result.map_or(0, |m| estimate_tokens(m.content.chars().count() as u64));
                let (target, kind) = match &fetched.fetch {
                    Fetch::File(path) => (path.clone(), RereadKind::File),
                    Fetch::Command(command) => (command.clone(), RereadKind::Command),
                };
                out.push(Reread {
                    compaction: compaction.id,
                    kind,
                    held_by: held.of(compaction, &messages, &record.workspace, &target),
                    target,
                    seq_before: before.seq,
                    seq_after: fetched.seq,
                    cost_usd: fetched.result.and_then(|m| input_cost(&calls, m, tokens, forensics)).map(Money::usd),
                    tokens,
                });
            }
        }
        last.insert(&fetched.fetch, fetched);
    }
    Ok(Rereads { rereads: out })
}

/// The session's fetches in order, each with the compaction that hid it (if one did).
fn fetches<'a>(messages: &'a [Message], workspace: &str) -> Vec<Fetched<'a>> {
    let results: HashMap<&str, &Message> = messages
        .iter()
        .filter(|m| m.role == Role::Tool)
        .filter_map(|m| Some((m.tool_call_id.as_deref()?, m)))
        .collect();
    let mut out = Vec::new();
    for message in messages.iter().filter(|m| m.role == Role::Assistant) {
        for call in &message.tool_calls {
            let Some(fetch) = fetch_of(&call.name, &call.arguments, workspace) else { continue };
            let result = results.get(call.id.as_str()).copied();
            // A fetch is hidden when its result is (the call and its result go together).
            let hidden_by = result.and_then(|r| r.compacted_by).or(message.compacted_by);
            out.push(Fetched { seq: message.seq, fetch, hidden_by, result });
        }
    }
    out
}

/// `tokens` as uncached input of the first call made after `result` was stored.
fn input_cost(calls: &[ModelCallRecord], result: &Message, tokens: u64, forensics: &Forensics) -> Option<Money> {
    let call = calls.iter().find(|c| c.started_at.as_str() >= result.created_at.as_str())?;
    let tier = call.service_tier.as_deref().and_then(Tier::parse);
    let input = Tokens { prompt: tokens, ..Tokens::default() };
    forensics.book.price(&call.model, &call.started_at, &input, tier).map(|p| p.cost)
}

/// Each compaction's checkpoint text (its trail's lines taken out) and trail, worked out once.
#[derive(Default)]
struct HeldCache {
    texts: HashMap<i64, (String, String)>,
}

impl HeldCache {
    fn of(
        &mut self,
        compaction: &CompactionRecord,
        messages: &[Message],
        workspace: &str,
        target: &str,
    ) -> Option<HeldBy> {
        let (model, trail) = self.texts.entry(compaction.id).or_insert_with(|| {
            let span: Vec<Message> =
                messages.iter().filter(|m| m.compacted_by == Some(compaction.id)).cloned().collect();
            let trail = artifact_trail(&span, workspace);
            let items: Vec<&String> = trail.files.iter().chain(&trail.commands).collect();
            let stored =
                compaction.checkpoint().map(|c| CheckpointText::from_value(&c.checkpoint).all()).unwrap_or_default();
            // The trail's items were appended to the checkpoint word for word: what is left is the model's.
            let model = items.iter().fold(stored, |text, item| text.replace(item.as_str(), ""));
            (model, items.iter().map(|i| i.as_str()).collect::<Vec<_>>().join("\n"))
        });
        if model.contains(target) {
            Some(HeldBy::Checkpoint)
        } else if trail.contains(target) {
            Some(HeldBy::Trail)
        } else {
            None
        }
    }
}
