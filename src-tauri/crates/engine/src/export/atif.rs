//! ATIF (the Agent Trajectory Interchange Format, Harbor RFC 0001): a session as one
//! `trajectory.json` — a step per user message and per model answer, each answer with its tool
//! calls, the results they got as its observation, and the ledger's figures as its metrics.
//! Messages a compaction or a reduction derived are not steps (the trajectory is what happened);
//! each compaction is kept under `extra.alisio.compactions`. Written as v1.7: `trajectory_id`,
//! `llm_call_count` on each answer a model call produced, sub-agents embedded.

use std::collections::HashMap;

use serde_json::{json, Map, Value};

use crate::transcript::Role;
use crate::view::{StoredMessage, StoredView};

/// The ATIF version written (and the newest read).
pub const SCHEMA_VERSION: &str = "ATIF-v1.7";

/// The figures a trajectory's steps add up to.
#[derive(Default)]
struct Totals {
    prompt: u64,
    completion: u64,
    cached: u64,
    models: HashMap<String, usize>,
}

/// The trajectory of `view` (already redacted when the export redacts). A sub-agent's records
/// (kept off the model view, e.g. Claude Code's sidechains) are embedded as its own trajectory
/// (v1.7 `subagent_trajectories`, one per agent id, in order of first appearance).
pub fn trajectory(view: &StoredView) -> Value {
    // The ledger row that produced each answer.
    let calls: HashMap<i64, &crate::store::ModelCallRecord> =
        view.model_calls.iter().filter_map(|c| Some((c.response_seq?, c))).collect();
    let results: HashMap<&str, &StoredMessage> = view
        .messages
        .iter()
        .filter(|m| m.role == Role::Tool && m.created_by.is_none())
        .filter_map(|m| Some((m.tool_call_id.as_deref()?, m)))
        .collect();
    let happened = |m: &&StoredMessage| m.created_by.is_none() && !m.summary;
    let mut totals = Totals::default();
    let main: Vec<&StoredMessage> = view.messages.iter().filter(happened).filter(|m| !m.off_view).collect();
    let main_steps = steps(&main, &calls, &results, &mut totals);
    let mut agents: Vec<(&str, Vec<&StoredMessage>)> = Vec::new();
    for message in view.messages.iter().filter(happened).filter(|m| m.off_view) {
        let Some(agent) = message.meta.as_ref().and_then(|m| m.get("agentId")).and_then(Value::as_str) else {
            continue; // a local command's output: never part of what the agent did with a model
        };
        match agents.iter_mut().find(|(id, _)| *id == agent) {
            Some((_, messages)) => messages.push(message),
            None => agents.push((agent, vec![message])),
        }
    }
    let session = &view.session;
    let agent_name = session.source.map_or("alisio", |s| s.as_str());
    let subagents: Vec<Value> = agents
        .into_iter()
        .map(|(id, messages)| {
            let sub_steps = steps(&messages, &HashMap::new(), &results, &mut Totals::default());
            json!({
                "schema_version": SCHEMA_VERSION,
                "trajectory_id": format!("{}/{id}", session.id),
                "agent": {"name": agent_name, "version": agent_version(session.source), "extra": {"agentId": id}},
                "steps": sub_steps,
            })
        })
        .collect();
    let model = totals.models.into_iter().max_by_key(|(_, n)| *n).map(|(m, _)| m);
    let mut agent = json!({"name": agent_name, "version": agent_version(session.source)});
    if let Some(model) = model {
        agent["model_name"] = json!(model);
    }
    let compactions: Vec<Value> = view
        .compactions
        .iter()
        .map(|c| {
            // By step: the steps it summarized, and the first step after it happened (the message
            // it put into the view is its checkpoint) — what an import replays it by.
            let at = view.messages.iter().find(|m| m.created_by == Some(c.record.id)).map(|m| m.seq);
            let summarized: Vec<usize> = main
                .iter()
                .filter(|m| m.role != Role::Tool)
                .enumerate()
                .filter(|(_, m)| c.summarized_seqs.contains(&m.seq))
                .map(|(i, _)| i + 1)
                .collect();
            let at_step =
                at.and_then(|at| main.iter().filter(|m| m.role != Role::Tool).position(|m| m.seq > at).map(|i| i + 1));
            json!({"id": c.record.id, "kind": c.record.kind, "reason": c.record.reason, "status": c.record.status,
                   "summarizedSeqs": c.summarized_seqs, "checkpoint": c.record.checkpoint, "trigger": c.record.trigger,
                   "summarizedSteps": summarized, "atStep": at_step})
        })
        .collect();
    let mut document = json!({
        "schema_version": SCHEMA_VERSION,
        "session_id": session.id,
        "trajectory_id": session.id,
        "agent": agent,
        "steps": main_steps,
        "final_metrics": {
            "total_prompt_tokens": totals.prompt,
            "total_completion_tokens": totals.completion,
            "total_cached_tokens": totals.cached,
            "total_steps": main_steps.len(),
        },
        "extra": {"alisio": {"title": session.title, "workspace": session.workspace, "compactions": compactions}},
    });
    if !subagents.is_empty() {
        document["subagent_trajectories"] = Value::Array(subagents);
    }
    document
}

/// A step per user or system message and per answer (with its calls, their results as its
/// observation, and its ledger row's figures as its metrics).
fn steps(
    messages: &[&StoredMessage],
    calls: &HashMap<i64, &crate::store::ModelCallRecord>,
    results: &HashMap<&str, &StoredMessage>,
    totals: &mut Totals,
) -> Vec<Value> {
    let mut steps: Vec<Value> = Vec::new();
    for message in messages {
        let mut step = Map::new();
        step.insert("step_id".into(), json!(steps.len() + 1));
        if !message.created_at.is_empty() {
            step.insert("timestamp".into(), json!(message.created_at));
        }
        match message.role {
            Role::User => {
                step.insert("source".into(), json!("user"));
                step.insert("message".into(), json!(message.content));
            }
            Role::System => {
                step.insert("source".into(), json!("system"));
                step.insert("message".into(), json!(message.content));
            }
            Role::Tool => continue, // an observation of the answer that called it
            Role::Assistant => {
                step.insert("source".into(), json!("agent"));
                step.insert("message".into(), json!(message.content));
                if let Some(reasoning) = reasoning(message.meta.as_ref()) {
                    step.insert("reasoning_content".into(), json!(reasoning));
                }
                if !message.tool_calls.is_empty() {
                    let calls: Vec<Value> = message
                        .tool_calls
                        .iter()
                        .map(|c| {
                            let arguments = match serde_json::from_str::<Value>(&c.arguments) {
                                Ok(object @ Value::Object(_)) => object,
                                _ => json!({"raw": c.arguments}),
                            };
                            json!({"tool_call_id": c.id, "function_name": c.name, "arguments": arguments})
                        })
                        .collect();
                    step.insert("tool_calls".into(), Value::Array(calls));
                    let observed: Vec<Value> = message
                        .tool_calls
                        .iter()
                        .filter_map(|c| {
                            results.get(c.id.as_str()).map(|r| json!({"source_call_id": c.id, "content": r.content}))
                        })
                        .collect();
                    if !observed.is_empty() {
                        step.insert("observation".into(), json!({"results": observed}));
                    }
                }
                if let Some(call) = calls.get(&message.seq) {
                    step.insert("llm_call_count".into(), json!(1));
                    if !call.model.is_empty() {
                        step.insert("model_name".into(), json!(call.model));
                        *totals.models.entry(call.model.clone()).or_default() += 1;
                    }
                    let mut metrics = Map::new();
                    for (key, value) in [
                        ("prompt_tokens", call.prompt_tokens),
                        ("completion_tokens", call.completion_tokens),
                        ("cached_tokens", call.cached_tokens),
                    ] {
                        if let Some(v) = value {
                            metrics.insert(key.into(), json!(v));
                        }
                    }
                    if let Some(written) = call.cache_write_tokens {
                        metrics.insert("extra".into(), json!({"cache_creation_input_tokens": written}));
                    }
                    totals.prompt += call.prompt_tokens.unwrap_or(0);
                    totals.completion += call.completion_tokens.unwrap_or(0);
                    totals.cached += call.cached_tokens.unwrap_or(0);
                    if !metrics.is_empty() {
                        step.insert("metrics".into(), Value::Object(metrics));
                    }
                }
            }
        }
        steps.push(Value::Object(step));
    }
    steps
}

/// The version an ATIF producer must name: Alisio's own for its sessions; an imported session's
/// agent did not record one Alisio keeps.
fn agent_version(source: Option<crate::store::SourceKind>) -> &'static str {
    match source {
        None => env!("CARGO_PKG_VERSION"),
        Some(_) => "unknown",
    }
}

/// A message's reasoning, where its importer kept one (`thoughts`, `thinking`, `reasoning`).
fn reasoning(meta: Option<&Value>) -> Option<String> {
    let meta = meta?;
    for key in ["reasoning", "thinking", "thoughts"] {
        match meta.get(key) {
            Some(Value::String(s)) if !s.is_empty() => return Some(s.clone()),
            Some(Value::Array(parts)) if !parts.is_empty() => {
                let texts: Vec<String> = parts
                    .iter()
                    .map(|p| match p {
                        Value::String(s) => s.clone(),
                        other => other.get("description").and_then(Value::as_str).unwrap_or_default().to_string(),
                    })
                    .collect();
                return Some(texts.join("\n"));
            }
            _ => {}
        }
    }
    None
}
