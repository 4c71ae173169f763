//! The optional model probe of a checkpoint (`alisio compact SESSION --probe [N]`): the configured
//! model answers a fixed set of questions once over the full history (the compaction's span put
//! back) and once over the compacted view; the answers are shown side by side with a simple
//! agreement measure. Model-judged, unlike the rule-based fidelity; stored as ledger calls of
//! purpose `probe`, never part of the transcript.

use serde::Serialize;
use serde_json::Value;

use super::summarize::request_summary;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::model::Purpose;
use crate::provider::RequestOptions;
use crate::transcript::Message;

/// `(JSON key, question)`, in the order asked.
pub const QUESTIONS: [(&str, &str); 4] = [
    ("goal", "What is the goal of this session?"),
    ("files", "Which files were read, written or edited?"),
    ("openErrors", "Which errors or failing tests are still unresolved?"),
    ("nextStep", "What is the next step?"),
];

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ProbeAnswer {
    pub key: String,
    pub question: String,
    pub full: String,
    pub compacted: String,
    /// Shared significant words over all significant words of both answers (Jaccard), 0–1.
    pub agreement: f64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ProbeReport {
    pub compaction: i64,
    /// Always true: these answers are the model's, not checked rules.
    pub model_judged: bool,
    /// The two ledger calls (full history, compacted view).
    pub calls: Vec<i64>,
    pub answers: Vec<ProbeAnswer>,
    /// The mean agreement of the answers.
    pub agreement: f64,
}

fn prompt() -> String {
    let mut out = String::from(
        "Answer from the conversation above only, without calling tools, as one JSON object with these keys:\n",
    );
    for (key, question) in QUESTIONS {
        out.push_str(&format!("- \"{key}\": {question}\n"));
    }
    out.push_str("Use a string for goal and nextStep, a list of strings for files and openErrors.");
    out
}

/// The value of `key` in an answer (its JSON object, possibly fenced), as text; the whole answer
/// when it is not JSON.
fn answer_for(text: &str, key: &str) -> String {
    let trimmed = text.trim().trim_start_matches("```json").trim_start_matches("```").trim_end_matches("```");
    match serde_json::from_str::<Value>(trimmed.trim()) {
        Ok(Value::Object(map)) => match map.get(key) {
            Some(Value::String(s)) => s.clone(),
            Some(Value::Array(items)) => items
                .iter()
                .map(|i| i.as_str().map(str::to_string).unwrap_or_else(|| i.to_string()))
                .collect::<Vec<_>>()
                .join("\n"),
            Some(other) => other.to_string(),
            None => String::new(),
        },
        _ => text.to_string(),
    }
}

fn jaccard(a: &str, b: &str) -> f64 {
    let a: std::collections::HashSet<String> = crate::fidelity::significant_words(a).into_iter().collect();
    let b: std::collections::HashSet<String> = crate::fidelity::significant_words(b).into_iter().collect();
    if a.is_empty() && b.is_empty() {
        return 1.0;
    }
    let shared = a.intersection(&b).count() as f64;
    let all = a.union(&b).count() as f64;
    ((shared / all) * 1000.0).round() / 1000.0
}

/// Probes checkpoint record `n` (default: the newest applied one).
pub async fn probe(ctx: &Context<'_>, n: Option<i64>) -> Result<ProbeReport> {
    let session = ctx.session;
    let records = ctx.store.compactions(&session.id)?;
    let applied =
        records.iter().filter(|c| c.checkpoint().is_some() && c.status == crate::store::compactions::Status::Applied);
    let chosen = match n {
        Some(id) => applied.clone().find(|c| c.id == id),
        None => applied.clone().next_back(),
    }
    .ok_or_else(|| {
        Error::Usage(format!(
            "session {} has no applied checkpoint {}",
            session.id,
            n.map(|i| i.to_string()).unwrap_or_default()
        ))
    })?;
    let compacted: Vec<Message> = ctx.store.live_messages(&session.id)?;
    // The full history: the compacted view without what this compaction added, with its span back.
    let mut full: Vec<Message> = compacted.iter().filter(|m| m.created_by != Some(chosen.id)).cloned().collect();
    full.extend(ctx.store.messages_by_seq(&session.id, &chosen.span_seqs())?);
    full.sort_by_key(|m| (m.anchor, m.seq));
    let options = RequestOptions { max_tokens: ctx.config.compaction.max_output_tokens, tool_choice_none: true };
    let question = prompt();
    let mut calls = Vec::new();
    let mut texts = Vec::new();
    for view in [full, compacted] {
        match request_summary(ctx, Purpose::Probe, view, &question, options).await? {
            Ok((call, completion, _)) => {
                calls.push(call);
                texts.push(completion.text);
            }
            Err(outcome) => return Err(Error::Provider(format!("the probe failed: {outcome:?}"))),
        }
    }
    let answers: Vec<ProbeAnswer> = QUESTIONS
        .iter()
        .map(|(key, question)| {
            let full = answer_for(&texts[0], key);
            let compacted = answer_for(&texts[1], key);
            ProbeAnswer {
                key: key.to_string(),
                question: question.to_string(),
                agreement: jaccard(&full, &compacted),
                full,
                compacted,
            }
        })
        .collect();
    let agreement = answers.iter().map(|a| a.agreement).sum::<f64>() / answers.len() as f64;
    Ok(ProbeReport {
        compaction: chosen.id,
        model_judged: true,
        calls,
        answers,
        agreement: (agreement * 1000.0).round() / 1000.0,
    })
}
