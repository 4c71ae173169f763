//! Two sessions side by side (`alisio sessions diff`, the Compare view): their transcripts
//! aligned message by message up to the first divergence, and what each cost and did.
//!
//! What is aligned: for a fork and its source, the source as its model saw it up to the fork
//! point and then its later messages, against the fork's own messages (neither side's later
//! compactions applied); for any other pair, each session's messages as they happened (no
//! compaction applied, no checkpoint). Two messages match when role, text, tool names and
//! arguments match — call ids differ between runs and are not compared.

use std::collections::BTreeMap;

use serde::Serialize;

use super::{list, Forensics};
use crate::cost::Money;
use crate::error::Result;
use crate::store::{Session, Store};
use crate::transcript::{Message, Role};

/// What a session cost and did.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct SessionTotals {
    pub calls: u64,
    pub prompt_tokens: u64,
    pub cached_tokens: u64,
    pub completion_tokens: u64,
    /// The priced calls' cost; null when none has a price.
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub cost_usd: Option<Money>,
    /// Compactions applied (checkpoints and maskings).
    pub compactions: u64,
    /// Tool calls by tool name.
    pub tools: BTreeMap<String, u64>,
    /// Files written or edited, as the workspace names them.
    pub files: Vec<String>,
}

/// Where the two transcripts first differ: each side's message there (null past its end) and
/// their texts, A's `before`, B's `after`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct SessionDivergence {
    pub a: Option<i64>,
    pub b: Option<i64>,
    pub before: Option<String>,
    pub after: Option<String>,
}

/// One side of the alignment, for the Compare view.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct AlignedMessage {
    pub seq: i64,
    pub role: Role,
    pub text: String,
    /// Tool names this message calls.
    pub calls: Vec<String>,
    pub summary: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct SessionDiff {
    pub shared_messages: u64,
    /// Null when the transcripts are the same.
    pub first_divergence: Option<SessionDivergence>,
    pub a: SessionTotals,
    pub b: SessionTotals,
    /// The aligned transcripts (`--json` leaves them out: `sessions show` has them).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[cfg_attr(feature = "ts", ts(optional))]
    pub messages: Option<[Vec<AlignedMessage>; 2]>,
}

/// Compares `a` and `b`; with `messages`, the aligned transcripts come along.
pub fn diff(store: &Store, a: &Session, b: &Session, forensics: &Forensics, messages: bool) -> Result<SessionDiff> {
    // A fork point: the source seen as its model saw it there.
    let point = |x: &Session, y: &Session| y.forked_from.as_ref().filter(|f| f.session == *x.id).map(|f| f.seq);
    let (until_a, until_b) = match (point(a, b), point(b, a)) {
        (Some(seq), _) => (seq, 0),
        (_, Some(seq)) => (0, seq),
        _ => (0, 0),
    };
    let left = store.view_at(&a.id, i64::MAX, until_a)?;
    let right = store.view_at(&b.id, i64::MAX, until_b)?;
    let shared = left.iter().zip(&right).take_while(|(x, y)| same(x, y)).count();
    let first_divergence = (shared < left.len().max(right.len())).then(|| SessionDivergence {
        a: left.get(shared).map(|m| m.seq),
        b: right.get(shared).map(|m| m.seq),
        before: left.get(shared).map(text),
        after: right.get(shared).map(text),
    });
    let aligned = |view: &[Message]| view.iter().map(aligned).collect::<Vec<_>>();
    Ok(SessionDiff {
        shared_messages: shared as u64,
        first_divergence,
        a: totals(store, a, forensics)?,
        b: totals(store, b, forensics)?,
        messages: messages.then(|| [aligned(&left), aligned(&right)]),
    })
}

fn same(x: &Message, y: &Message) -> bool {
    x.role == y.role
        && x.content == y.content
        && x.tool_calls.len() == y.tool_calls.len()
        && x.tool_calls.iter().zip(&y.tool_calls).all(|(c, d)| c.name == d.name && c.arguments == d.arguments)
}

/// A message as one line of text: its content, or the calls it makes.
fn text(m: &Message) -> String {
    if m.content.trim().is_empty() && !m.tool_calls.is_empty() {
        m.tool_calls.iter().map(|c| format!("{}({})", c.name, c.arguments)).collect::<Vec<_>>().join(" ")
    } else {
        m.content.clone()
    }
}

fn aligned(m: &Message) -> AlignedMessage {
    AlignedMessage {
        seq: m.seq,
        role: m.role,
        text: text(m),
        calls: m.tool_calls.iter().map(|c| c.name.clone()).collect(),
        summary: m.summary,
    }
}

/// The session's totals: the ledger's calls (priced as `calls` prices them), its applied
/// compactions, and the tools and files of its messages as they happened.
pub fn totals(store: &Store, session: &Session, forensics: &Forensics) -> Result<SessionTotals> {
    let calls = list(store, session, forensics)?;
    let priced: Vec<Money> = calls.iter().filter_map(|c| c.cost_usd).collect();
    let compactions = store
        .compactions(&session.id)?
        .iter()
        .filter(|r| r.status == crate::store::compactions::Status::Applied)
        .filter(|r| {
            r.checkpoint().is_some()
                || matches!(r.reason, crate::events::CompactionReason::Mask | crate::events::CompactionReason::Prune)
        })
        .count() as u64;
    let mut tools = BTreeMap::new();
    let mut files = Vec::new();
    for message in store.view_at(&session.id, i64::MAX, 0)? {
        for call in &message.tool_calls {
            *tools.entry(call.name.clone()).or_insert(0) += 1;
            for file in crate::fidelity::files_changed(&call.name, &call.arguments, &session.workspace) {
                if !files.contains(&file) {
                    files.push(file);
                }
            }
        }
    }
    Ok(SessionTotals {
        calls: calls.len() as u64,
        prompt_tokens: calls.iter().filter_map(|c| c.prompt_tokens).sum(),
        cached_tokens: calls.iter().filter_map(|c| c.cached_tokens).sum(),
        completion_tokens: calls.iter().filter_map(|c| c.completion_tokens).sum(),
        cost_usd: (!priced.is_empty()).then(|| priced.into_iter().sum()),
        compactions,
        tools,
        files,
    })
}
