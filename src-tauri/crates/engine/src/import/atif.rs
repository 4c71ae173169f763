//! ATIF trajectories (`trajectory.json`, Harbor RFC 0001; what `sessions export --format atif`
//! writes): one JSON document of steps — user and system messages, agent answers with their tool
//! calls, the observation of each call's result, the answer's metrics as a ledger row.

use serde_json::{json, Value};

use super::sink::{title_of, Record, Sink, Usage};
use super::str_at;
use crate::error::Result;
use crate::store::{Purpose, WireApi};
use crate::transcript::{Role, ToolCall};

/// Whether the head of a file names an ATIF schema version (the document itself is read whole).
pub fn looks_like(head: &[u8]) -> bool {
    let head = String::from_utf8_lossy(head);
    head.contains("\"schema_version\"") && head.contains("\"ATIF-v")
}

/// The trajectory's session id and whether it is one (`schema_version` ATIF-…, `steps` a list).
pub fn identity(document: &Value) -> Option<&str> {
    let version = str_at(document, "/schema_version")?;
    (version.starts_with("ATIF-v") && document.get("steps").is_some_and(Value::is_array))
        .then(|| str_at(document, "/session_id"))
        .flatten()
}

/// Every step of `document` through `sink`; returns how many steps could not be read.
pub fn replay(sink: &mut Sink<'_, '_>, document: &Value) -> Result<Vec<(u64, String)>> {
    let default_model = str_at(document, "/agent/model_name").unwrap_or_default().to_string();
    let mut skipped = Vec::new();
    let mut titled = false;
    let mut first = true;
    for step in document["steps"].as_array().into_iter().flatten() {
        let at = str_at(step, "/timestamp").unwrap_or_default().to_string();
        let message = str_at(step, "/message").unwrap_or_default().to_string();
        let id = step.get("step_id").map(Value::to_string);
        match str_at(step, "/source") {
            Some("system") if first => sink.set_system_prompt(&message)?,
            Some("system") => {
                sink.push(Record::new(Role::System, message, &at).id(id.as_deref()))?;
            }
            Some("user") => {
                if !titled && !message.trim().is_empty() {
                    sink.set_title(&title_of(&message))?;
                    titled = true;
                }
                sink.push(Record::new(Role::User, message, &at).id(id.as_deref()))?;
            }
            Some("agent") => {
                let request = sink.state.snapshot();
                let mut answer = Record::new(Role::Assistant, message, &at).id(id.as_deref());
                if let Some(reasoning) = str_at(step, "/reasoning_content") {
                    answer = answer.meta("reasoning", json!(reasoning));
                }
                answer.tool_calls = step
                    .get("tool_calls")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
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
                    .collect();
                let seq = sink.push(answer)?;
                for result in step.pointer("/observation/results").and_then(Value::as_array).into_iter().flatten() {
                    let mut observed = Record::new(Role::Tool, str_at(result, "/content").unwrap_or_default(), &at);
                    observed.tool_call_id = str_at(result, "/source_call_id").map(str::to_string);
                    sink.push(observed)?;
                }
                if let Some(metrics) = step.get("metrics").filter(|m| m.is_object()) {
                    let n = |key: &str| metrics.get(key).and_then(Value::as_u64);
                    sink.model_call(
                        &request,
                        Usage {
                            model: str_at(step, "/model_name")
                                .map(str::to_string)
                                .unwrap_or_else(|| default_model.clone()),
                            prompt_tokens: n("prompt_tokens"),
                            cached_tokens: n("cached_tokens"),
                            cache_write_tokens: metrics
                                .pointer("/extra/cache_creation_input_tokens")
                                .and_then(Value::as_u64),
                            completion_tokens: n("completion_tokens"),
                            response_seq: Some(seq),
                            started_at: at.clone(),
                            ..Usage::new(Purpose::Turn, WireApi::Chat)
                        },
                    )?;
                }
            }
            other => {
                let n = step.get("step_id").and_then(Value::as_u64).unwrap_or(0);
                skipped.push((n, format!("a step whose source is {other:?}")));
            }
        }
        first = false;
        sink.touch(&at)?;
    }
    Ok(skipped)
}
