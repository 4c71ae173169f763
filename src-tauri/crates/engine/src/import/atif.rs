//! ATIF trajectories (`trajectory.json`, Harbor RFC 0001, v1.0 to v1.7; what `sessions export
//! --format atif` writes): one JSON document of steps — user and system messages, agent answers
//! with their tool calls, the observation of each call's result, the answer's metrics as a ledger
//! row. Multimodal content (v1.6) is read as its text with each image named in place; subagent
//! trajectories embedded in the document (v1.7) are kept apart from the model view, like Claude
//! Code's sidechains; an agent step that made no model call (`llm_call_count: 0`) has no ledger row.

use serde_json::{json, Value};

use super::sink::{title_of, Record, Sink, Usage};
use super::{str_at, value_at};
use crate::error::Result;
use crate::events::CompactionReason;
use crate::store::{Purpose, WireApi};
use crate::transcript::{Role, ToolCall};

/// Whether the head of a file names an ATIF schema version (the document itself is read whole).
pub fn looks_like(head: &[u8]) -> bool {
    let head = String::from_utf8_lossy(head);
    head.contains("\"schema_version\"") && head.contains("\"ATIF-v")
}

/// The trajectory's identity and whether it is one (`schema_version` ATIF-…, `steps` a list): its
/// `session_id`, or since v1.7, where that is left out, its `trajectory_id`.
pub fn identity(document: &Value) -> Option<&str> {
    let version = str_at(document, "/schema_version")?;
    (version.starts_with("ATIF-v") && document.get("steps").is_some_and(Value::is_array))
        .then(|| str_at(document, "/session_id").or_else(|| str_at(document, "/trajectory_id")))
        .flatten()
}

/// A step's message or an observation's content as text: a string as it is; content parts (v1.6)
/// joined, each image or other non-text part named by its kind and where it is kept.
pub fn text_of(content: Option<&Value>) -> String {
    match content {
        Some(Value::String(text)) => text.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .map(|part| match str_at(part, "/type") {
                Some("text") => str_at(part, "/text").unwrap_or_default().to_string(),
                kind => {
                    let media = str_at(part, "/source/media_type").unwrap_or("unknown type");
                    let path = str_at(part, "/source/path").unwrap_or("not kept");
                    format!("[{}: {media}, {path}]", kind.unwrap_or("part"))
                }
            })
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// Every step of `document` through `sink`, then the steps of each subagent trajectory embedded in
/// it (v1.7 `subagent_trajectories`), kept off the model view; returns the steps not read.
pub fn replay(sink: &mut Sink<'_, '_>, document: &Value, undated: &str) -> Result<Vec<(u64, String)>> {
    let mut skipped = replay_steps(sink, document, None, undated)?;
    // The trajectory's own total (it counts the subagents' calls too), kept as the producer's figure.
    if let Some(cost) = value_at(document, "/final_metrics/total_cost_usd").and_then(super::claude::picodollars) {
        sink.set_recorded_cost(cost)?;
    }
    for sub in document.get("subagent_trajectories").and_then(Value::as_array).into_iter().flatten() {
        // The agent id the producer gave (Alisio writes Claude Code's), else the document's own.
        let id = str_at(sub, "/agent/extra/agentId")
            .or_else(|| str_at(sub, "/trajectory_id"))
            .or_else(|| str_at(sub, "/session_id"))
            .unwrap_or("subagent");
        skipped.extend(replay_steps(sink, sub, Some(id), undated)?);
    }
    Ok(skipped)
}

/// The steps of one trajectory; `subagent` names an embedded subagent's trajectory, whose records
/// are kept apart (off the view, no title, no system prompt, no ledger rows of the main agent).
/// A step without a `timestamp` (optional in the RFC) takes its predecessor's, else `undated` (the
/// file's time): a call is priced by its date, and an undated one would never be.
fn replay_steps(
    sink: &mut Sink<'_, '_>,
    document: &Value,
    subagent: Option<&str>,
    undated: &str,
) -> Result<Vec<(u64, String)>> {
    let mut last_time = undated.to_string();
    let default_model = str_at(document, "/agent/model_name").unwrap_or_default().to_string();
    let mut skipped = Vec::new();
    let mut titled = subagent.is_some();
    let mut first = subagent.is_none();
    // Compactions Alisio exported with the trajectory (`extra.alisio.compactions`, by step): each
    // replayed where it happened, so an exported session imports with its checkpoints.
    let mut pending: Vec<&Value> = match subagent {
        None => {
            value_at(document, "/extra/alisio/compactions").and_then(Value::as_array).into_iter().flatten().collect()
        }
        Some(_) => Vec::new(),
    };
    pending
        .retain(|c| str_at(c, "/status") == Some("applied") && c.get("summarizedSteps").is_some_and(Value::is_array));
    let mut seqs_of: std::collections::HashMap<u64, Vec<i64>> = std::collections::HashMap::new();
    let apart = |record: Record| apart(record, subagent);
    for step in document["steps"].as_array().into_iter().flatten() {
        if let Some(time) = str_at(step, "/timestamp").filter(|t| !t.is_empty()) {
            last_time = time.to_string();
        }
        let step_id = step.get("step_id").and_then(Value::as_u64);
        let due: Vec<&Value> =
            pending.iter().copied().filter(|c| c["atStep"].as_u64().is_some_and(|a| Some(a) == step_id)).collect();
        pending.retain(|c| c["atStep"].as_u64().is_none_or(|a| Some(a) != step_id));
        for compaction in due {
            replay_compaction(sink, compaction, &seqs_of, &last_time)?;
        }
        let before = sink.state.next_seq;
        let at = last_time.clone();
        let message = text_of(step.get("message"));
        let id = step.get("step_id").map(|n| match subagent {
            Some(sub) => format!("{sub}/{n}"),
            None => n.to_string(),
        });
        let copied = step.get("is_copied_context").and_then(Value::as_bool) == Some(true);
        let record = |role: Role, text: String| {
            apart(Record::new(role, text, &at).id(id.as_deref()))
                .meta("copiedContext", if copied { json!(true) } else { Value::Null })
        };
        match str_at(step, "/source") {
            Some("system") if first => sink.set_system_prompt(&message)?,
            Some("system") => {
                sink.push(record(Role::System, message))?;
            }
            Some("user") => {
                if !titled && !message.trim().is_empty() {
                    sink.set_title(&title_of(&message))?;
                    titled = true;
                }
                sink.push(record(Role::User, message))?;
            }
            Some("agent") => {
                let request = sink.state.snapshot();
                let mut answer = record(Role::Assistant, message);
                if let Some(reasoning) = str_at(step, "/reasoning_content") {
                    answer = answer.meta("reasoning", json!(reasoning));
                }
                answer.tool_calls = tool_calls_of(step);
                let seq = sink.push(answer)?;
                for result in step.pointer("/observation/results").and_then(Value::as_array).into_iter().flatten() {
                    sink.push(apart(observation(result, &at)))?;
                }
                // A step with no model call behind it (v1.7 deterministic dispatch) has no ledger
                // row; nor has a subagent's step (its calls are not the main agent's requests).
                let called = step.get("llm_call_count").and_then(Value::as_u64) != Some(0) && subagent.is_none();
                if let Some(metrics) = step.get("metrics").filter(|m| m.is_object() && called) {
                    let model = str_at(step, "/model_name").unwrap_or(&default_model);
                    sink.model_call(&request, step_usage(metrics, model, seq, &at))?;
                }
            }
            other => {
                let n = step.get("step_id").and_then(Value::as_u64).unwrap_or(0);
                skipped.push((n, format!("a step whose source is {other:?}")));
            }
        }
        first = false;
        sink.touch(&at)?;
        if let Some(step_id) = step_id {
            seqs_of.insert(step_id, (before..sink.state.next_seq).collect());
        }
    }
    // A compaction after the last step (nothing followed it).
    for compaction in pending {
        replay_compaction(sink, compaction, &seqs_of, &last_time)?;
    }
    Ok(skipped)
}

/// A subagent's record, kept apart from the main conversation.
fn apart(mut record: Record, subagent: Option<&str>) -> Record {
    if let Some(id) = subagent {
        record.off_view = true;
        record = record.meta("sidechain", json!(true)).meta("agentId", json!(id));
    }
    record
}

/// An agent step's tool calls (arguments as the model wrote them: a lone `raw` string as such).
fn tool_calls_of(step: &Value) -> Vec<ToolCall> {
    let calls = step.get("tool_calls").and_then(Value::as_array).into_iter().flatten();
    calls
        .map(|c| ToolCall {
            id: str_at(c, "/tool_call_id").unwrap_or_default().to_string(),
            name: str_at(c, "/function_name").unwrap_or_default().to_string(),
            arguments: match c.get("arguments") {
                Some(Value::Object(o)) if o.len() == 1 && o.get("raw").is_some_and(Value::is_string) => {
                    o["raw"].as_str().unwrap_or_default().to_string()
                }
                Some(other) => other.to_string(),
                None => "{}".to_string(),
            },
        })
        .collect()
}

/// One observation result: a tool result, its `extra` kept as record fields.
fn observation(result: &Value, at: &str) -> Record {
    let mut observed = Record::new(Role::Tool, text_of(result.get("content")), at)
        .meta("subagentRefs", result.get("subagent_trajectory_ref").cloned().unwrap_or_default());
    if let Some(Value::Object(extra)) = result.get("extra") {
        for (key, value) in extra {
            observed = observed.meta(key, value.clone());
        }
    }
    observed.tool_call_id = str_at(result, "/source_call_id").map(str::to_string);
    observed
}

/// A step's metrics as a ledger row.
fn step_usage(metrics: &Value, model: &str, seq: i64, at: &str) -> Usage {
    let n = |key: &str| metrics.get(key).and_then(Value::as_u64);
    Usage {
        model: model.to_string(),
        prompt_tokens: n("prompt_tokens"),
        cached_tokens: n("cached_tokens"),
        cache_write_tokens: metrics.pointer("/extra/cache_creation_input_tokens").and_then(Value::as_u64),
        completion_tokens: n("completion_tokens"),
        recorded_cost_pd: metrics.get("cost_usd").and_then(super::claude::picodollars),
        response_seq: Some(seq),
        started_at: at.to_string(),
        ..Usage::new(Purpose::Turn, WireApi::Chat)
    }
}

/// A compaction Alisio exported: the steps it summarized leave the view, its checkpoint leads it.
fn replay_compaction(
    sink: &mut Sink<'_, '_>,
    compaction: &Value,
    seqs_of: &std::collections::HashMap<u64, Vec<i64>>,
    at: &str,
) -> Result<()> {
    let steps = compaction["summarizedSteps"].as_array().into_iter().flatten().filter_map(Value::as_u64);
    let summarized: std::collections::HashSet<i64> = steps.filter_map(|s| seqs_of.get(&s)).flatten().copied().collect();
    let keep: Vec<i64> = sink.state.live.iter().map(|l| l.seq).filter(|s| !summarized.contains(s)).collect();
    let reason = str_at(compaction, "/reason").and_then(|r| r.parse().ok()).unwrap_or(CompactionReason::Unknown);
    let trigger = serde_json::from_value(compaction["trigger"].clone()).ok();
    let id = sink.compaction(reason, &keep, None, serde_json::Map::new(), trigger, at)?;
    let text = match compaction.get("checkpoint") {
        Some(Value::Object(o)) if o.len() == 1 && o.get("text").is_some_and(Value::is_string) => {
            o["text"].as_str().unwrap_or_default().to_string()
        }
        Some(Value::Null) | None => String::new(),
        Some(other) => other.to_string(),
    };
    sink.checkpoint(id, Record::new(Role::User, text, at), true)?;
    Ok(())
}
