//! The compaction bake-off (`alisio bench compaction`): real sessions — own or imported — forked
//! at chosen points and compacted there by each strategy, side by side. Each arm is asked the same
//! probes, built from the history before the kept turns (the files read, written or edited, the
//! users' constraints, the last unresolved error, the latest request: the rules of
//! docs/FIDELITY.md) and checked exactly against the request the arm leaves; beside them, what the
//! arm cost: the summarizer's tokens, the next request, what a prefix cache would process again,
//! and the dollars at the prices in force. The forks are removed afterwards; the sessions are only
//! read. For an imported session, the agent's own recorded summaries are an arm too (`agent`).

mod judge;

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::agent::Engine;
use crate::calls::{request_body, Forensics};
use crate::compaction::{shape_of, CompactOutcome, ManualCompaction};
use crate::config::Strategy;
use crate::cost::book::Tier;
use crate::cost::{Money, Tokens};
use crate::error::{Error, Result};
use crate::events::Envelope;
use crate::fidelity::{assess_by_kind, CheckpointText, MissingKind};
use crate::store::{Purpose, Session};
use crate::transcript::{estimate_tokens, Message};
use crate::view::{model_view, ModelView};

pub use judge::Judge;

/// One arm of the bake-off: a strategy, or the agent's own summaries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArmKind {
    Strategy(Strategy),
    Agent,
}

impl ArmKind {
    pub fn parse(text: &str) -> Option<ArmKind> {
        match text.trim() {
            "agent" => Some(ArmKind::Agent),
            other => other.parse().ok().map(ArmKind::Strategy),
        }
    }

    fn name(self) -> String {
        match self {
            ArmKind::Strategy(s) => s.to_string(),
            ArmKind::Agent => "agent".to_string(),
        }
    }
}

/// Where each session is compacted.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Points {
    /// After its last message.
    End,
    /// After message SEQ.
    At(i64),
    /// After every N-th message.
    Every(usize),
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Tally {
    pub total: u64,
    pub kept: u64,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Probes {
    pub total: u64,
    pub kept: u64,
    /// Of `kept`, those the judge model (`--judge`) vouched for where the exact check missed.
    pub judged: u64,
    /// By probe kind: `file`, `instruction`, `error`, `task`.
    pub by_kind: BTreeMap<String, Tally>,
}

/// One arm's figures, summed over every session and point it ran at.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Arm {
    pub strategy: String,
    /// The points it ran at (skipped ones not counted: see `skipped`).
    pub points: u64,
    pub probes: Probes,
    pub summarizer_tokens_in: u64,
    pub summarizer_tokens_out: u64,
    /// The request after the compaction, as Alisio estimates it.
    pub next_request_tokens: u64,
    /// Tokens a prefix cache holding the request before would process again: the summarizer's
    /// request and the next one, each past the prefix it shares with the request before.
    pub reprocessed_tokens: u64,
    /// The summarizer call and the next request at the prices in force; null when a model has none.
    pub cost_usd: Option<f64>,
    /// Points where the arm could not compact, with why.
    pub skipped: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct BakeOff {
    pub arms: Vec<Arm>,
}

/// What one arm made of one point.
struct Outcome {
    probes: Probes,
    summarizer_in: u64,
    summarizer_out: u64,
    next: u64,
    reprocessed: u64,
    cost: Option<Money>,
}

impl Arm {
    fn new(kind: ArmKind) -> Arm {
        Arm {
            strategy: kind.name(),
            points: 0,
            probes: Probes::default(),
            summarizer_tokens_in: 0,
            summarizer_tokens_out: 0,
            next_request_tokens: 0,
            reprocessed_tokens: 0,
            cost_usd: None,
            skipped: Vec::new(),
        }
    }

    fn add(&mut self, outcome: Outcome, cost: &mut Option<Money>) {
        self.points += 1;
        self.probes.total += outcome.probes.total;
        self.probes.kept += outcome.probes.kept;
        self.probes.judged += outcome.probes.judged;
        for (kind, tally) in outcome.probes.by_kind {
            let sum = self.probes.by_kind.entry(kind).or_default();
            sum.total += tally.total;
            sum.kept += tally.kept;
        }
        self.summarizer_tokens_in += outcome.summarizer_in;
        self.summarizer_tokens_out += outcome.summarizer_out;
        self.next_request_tokens += outcome.next;
        self.reprocessed_tokens += outcome.reprocessed;
        if let Some(c) = outcome.cost {
            *cost = Some(cost.unwrap_or_default() + c);
        }
    }
}

/// The seqs a session is compacted after. `--every N` points move forward to the first message
/// after which no tool call waits for its result (a fork cannot split a call from its result).
fn points_of(messages: &[Message], points: Points) -> Vec<i64> {
    let last = messages.last().map(|m| m.seq);
    match points {
        Points::End => last.into_iter().collect(),
        Points::At(seq) => vec![seq],
        Points::Every(n) => {
            let safe = safe_seqs(messages);
            let mut out: Vec<i64> = Vec::new();
            for wanted in messages.iter().skip(n.max(1) - 1).step_by(n.max(1)).map(|m| m.seq) {
                if let Some(&seq) = safe.iter().find(|&&s| s >= wanted) {
                    if out.last() != Some(&seq) {
                        out.push(seq);
                    }
                }
            }
            out
        }
    }
}

/// The seqs after which every tool call asked for so far has its result.
fn safe_seqs(messages: &[Message]) -> Vec<i64> {
    let mut waiting: std::collections::HashSet<&str> = std::collections::HashSet::new();
    let mut out = Vec::new();
    for m in messages {
        waiting.extend(m.tool_calls.iter().map(|c| c.id.as_str()));
        if let Some(id) = &m.tool_call_id {
            waiting.remove(id.as_str());
        }
        if waiting.is_empty() {
            out.push(m.seq);
        }
    }
    out
}

/// Runs the bake-off: every session, at every point, under every arm.
pub async fn bake_off(
    engine: &Engine,
    forensics: &Forensics,
    sessions: &[Session],
    points: Points,
    arms: &[ArmKind],
    judge: Option<&Judge>,
    cancel: &CancellationToken,
) -> Result<BakeOff> {
    let mut out: Vec<(Arm, Option<Money>)> = arms.iter().map(|k| (Arm::new(*k), None)).collect();
    for session in sessions {
        let messages = engine.store().all_messages(&session.id)?;
        for seq in points_of(&messages, points) {
            for ((arm, cost), kind) in out.iter_mut().zip(arms) {
                if cancel.is_cancelled() {
                    return Err(Error::Cancelled);
                }
                let result = match kind {
                    ArmKind::Strategy(strategy) => {
                        strategy_arm(engine, forensics, session, seq, *strategy, judge, cancel).await
                    }
                    ArmKind::Agent => agent_arm(engine, session, seq, judge, cancel).await,
                };
                match result? {
                    Ok(outcome) => arm.add(outcome, cost),
                    Err(why) => arm.skipped.push(format!("{} at #{seq}: {why}", session.id)),
                }
            }
        }
    }
    Ok(BakeOff {
        arms: out
            .into_iter()
            .map(|(mut arm, cost)| {
                arm.cost_usd = cost.map(Money::usd);
                arm
            })
            .collect(),
    })
}

/// One strategy at one point: a fork compacted, measured, probed and removed.
async fn strategy_arm(
    engine: &Engine,
    forensics: &Forensics,
    source: &Session,
    seq: i64,
    strategy: Strategy,
    judge: Option<&Judge>,
    cancel: &CancellationToken,
) -> Result<std::result::Result<Outcome, String>> {
    let store = engine.store();
    let title = format!("Bake-off: {strategy} on {} at #{seq}", source.title);
    let (fork, _) = store.fork(source, seq, Some(&title), &source.workspace, None)?;
    let result = async {
        let before = model_view(store, engine.config(), &fork, &[], None)?;
        let live = store.live_messages(&fork.id)?;
        let quiet = |_: &Envelope| {};
        let manual = ManualCompaction { strategy: Some(strategy), ..Default::default() };
        let outcome = engine.compact(&fork, &manual, &quiet, cancel).await?;
        if let CompactOutcome::Skipped { reason } = outcome {
            return Ok(Err(reason));
        }
        let after = model_view(store, engine.config(), &fork, &[], None)?;
        let text = view_text(&after);
        let span = before_kept(&live, engine.config().compaction.keep_turns);
        let probes = probes(span, &CheckpointText::Text(&text), &fork.workspace, judge, &text, cancel).await?;
        let mut measured = measure(store, forensics, &fork, &before, &after, engine.config())?;
        measured.probes = probes;
        Ok(Ok(measured))
    }
    .await;
    store.remove_session(&fork.id)?;
    result
}

/// The agent's own recorded summary nearest after `seq`, checked against what it replaced.
async fn agent_arm(
    engine: &Engine,
    session: &Session,
    seq: i64,
    judge: Option<&Judge>,
    cancel: &CancellationToken,
) -> Result<std::result::Result<Outcome, String>> {
    if session.source.is_none() {
        return Ok(Err("an agent arm needs an imported session".into()));
    }
    let store = engine.store();
    let records = store.compactions(&session.id)?;
    let Some(record) =
        records.iter().find(|r| r.checkpoint().is_some() && r.span_seqs().last().is_some_and(|&s| s <= seq))
    else {
        return Ok(Err("the agent recorded no summary before this point".into()));
    };
    let messages = store.all_messages(&session.id)?;
    let span: Vec<Message> = messages.iter().filter(|m| m.compacted_by == Some(record.id)).cloned().collect();
    let checkpoint = record.checkpoint().map(|c| c.checkpoint.clone()).unwrap_or(Value::Null);
    let text = CheckpointText::from_value(&checkpoint);
    let read = checkpoint.to_string();
    let probes = probes(&span, &text, &session.workspace, judge, &read, cancel).await?;
    let next = record.after_chars;
    Ok(Ok(Outcome {
        probes,
        summarizer_in: 0,
        summarizer_out: 0,
        next: estimate_tokens(next),
        reprocessed: 0,
        cost: None,
    }))
}

/// The history before the kept turns: what the probes are built from.
fn before_kept(live: &[Message], keep_turns: u32) -> &[Message] {
    let shapes: Vec<_> = live.iter().map(shape_of).collect();
    let cut = crate::compaction::boundary::select_safe_boundary(&shapes, keep_turns).unwrap_or(0);
    &live[..cut]
}

/// The probes over `span`, checked exactly against `text`; with a judge, the ones that are not
/// facts and were not found are put to it, reading `request`.
async fn probes(
    span: &[Message],
    text: &CheckpointText<'_>,
    workspace: &str,
    judge: Option<&Judge>,
    request: &str,
    cancel: &CancellationToken,
) -> Result<Probes> {
    let (mut fidelity, checked) = assess_by_kind(span, text, workspace);
    let mut judged = 0;
    if let Some(judge) = judge {
        let rescued = judge.rescued(&fidelity.missing, request, cancel).await?;
        judged = rescued.len() as u64;
        let mut index = 0;
        fidelity.missing.retain(|_| {
            index += 1;
            !rescued.contains(&(index - 1))
        });
    }
    Ok(Probes { judged, ..tally(&fidelity, &checked) })
}

fn tally(fidelity: &crate::fidelity::Fidelity, checked: &[(MissingKind, u32)]) -> Probes {
    let mut probes = Probes::default();
    for (kind, total) in checked {
        let missing = fidelity.missing.iter().filter(|m| m.kind == *kind).count() as u64;
        let total = u64::from(*total);
        probes.total += total;
        probes.kept += total - missing.min(total);
        probes.by_kind.insert(kind.as_str().to_string(), Tally { total, kept: total - missing.min(total) });
    }
    probes
}

/// Every text the request carries, one after another.
fn view_text(view: &ModelView) -> String {
    items(view).iter().map(Value::to_string).collect::<Vec<_>>().join("\n")
}

/// Chars of `items` past the prefix they share with `cached`, item by item.
fn past_prefix(cached: &[Value], items: &[Value]) -> u64 {
    let shared = cached.iter().zip(items).take_while(|(a, b)| a == b).count();
    items[shared..].iter().map(|i| i.to_string().chars().count() as u64).sum()
}

/// The request's items as sent (JSON), for comparing and reading them.
fn items(view: &ModelView) -> Vec<Value> {
    view.messages.iter().filter_map(|m| serde_json::to_value(m).ok()).collect()
}

/// The arm's tokens and dollars: its summarizer call (as the server reported it), the next
/// request, and what a prefix cache holding `before` would process again of each.
fn measure(
    store: &crate::store::Store,
    forensics: &Forensics,
    fork: &Session,
    before: &ModelView,
    after: &ModelView,
    config: &crate::config::Config,
) -> Result<Outcome> {
    let cached = items(before);
    let next_items = items(after);
    let next_reprocessed = estimate_tokens(past_prefix(&cached, &next_items));
    let mut outcome = Outcome {
        probes: Probes::default(),
        summarizer_in: 0,
        summarizer_out: 0,
        next: after.estimated_tokens,
        reprocessed: next_reprocessed,
        cost: None,
    };
    let calls = store.model_calls(&fork.id)?;
    let summarizer = calls.iter().rev().find(|c| matches!(c.purpose, Purpose::Compaction | Purpose::CacheSummary));
    let mut cost = Money::default();
    let mut priced = true;
    if let Some(call) = summarizer {
        outcome.summarizer_in = call.prompt_tokens.unwrap_or(call.estimated_tokens);
        outcome.summarizer_out = call.completion_tokens.unwrap_or(0);
        let (body, _) = request_body(store, fork, call)?;
        let sent: Vec<Value> = body["messages"].as_array().cloned().unwrap_or_default();
        let share =
            past_prefix(&cached, &sent) as f64 / sent.iter().map(|i| i.to_string().len() as f64).sum::<f64>().max(1.0);
        outcome.reprocessed += (outcome.summarizer_in as f64 * share).round() as u64;
        match forensics.price(call) {
            Some(p) => cost += p.cost,
            None => priced = false,
        }
    }
    let next =
        Tokens { prompt: outcome.next, cached: outcome.next.saturating_sub(next_reprocessed), ..Tokens::default() };
    let today = crate::events::now_rfc3339();
    match forensics.book.price(&config.provider.model, &today, &next, None::<Tier>) {
        Some(p) => cost += p.cost,
        None => priced = false,
    }
    outcome.cost = priced.then_some(cost);
    Ok(outcome)
}
