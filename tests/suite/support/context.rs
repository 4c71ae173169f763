//! The scripted server's side of the APIs' own context management, as their documentation of
//! January 2026 describes it. Anthropic (`context_management.edits`): `compact_20260112` (beta
//! `compact-2026-01-12`, trigger at least 50,000 input tokens, default 150,000): past the trigger
//! the answer opens with a `compaction` block (streamed as `compaction_delta`), its sampling step
//! billed in `usage.iterations`, and from then on every block before the latest compaction block
//! is dropped; `pause_after_compaction` stops there (`stop_reason: "compaction"`);
//! `clear_tool_uses_20250919` (beta `context-management-2025-06-27`, default trigger 100,000):
//! the oldest tool results past `keep` are cleared on the server and reported in
//! `context_management.applied_edits` (in the final `message_delta` when streaming). Responses:
//! `context_management: [{"type": "compaction", "compact_threshold"}]` adds an opaque `compaction`
//! item before the answer; items before the latest one are dropped; `POST /responses/compact`
//! returns the user messages and a compaction item. An item the server never issued is refused.
//! Tokens are ≈ 4 characters of the serialized request, as the rest of the scripted server counts.

use std::collections::HashSet;

use serde_json::{json, Value};

const COMPACT_BETA: &str = "compact-2026-01-12";
const EDITING_BETA: &str = "context-management-2025-06-27";
const MIN_TRIGGER: u64 = 50_000;

/// What the server remembers: the compaction items it issued.
#[derive(Default)]
pub struct Managed {
    issued: HashSet<String>,
    count: u64,
}

/// What a request's context management does to its answer.
#[derive(Debug, Default)]
pub struct Applied {
    /// The request as the model reads it (blocks before a compaction dropped, tool uses cleared).
    pub effective: Value,
    /// The summary of a compaction made now (Anthropic), or the opaque item (Responses).
    pub compaction: Option<Value>,
    /// Tokens the compaction read and wrote.
    pub compaction_tokens: (u64, u64),
    pub edits: Option<Value>,
    pub pause: bool,
}

fn tokens(value: &Value) -> u64 {
    value.to_string().len() as u64 / 4
}

fn refuse(message: &str) -> (u16, String) {
    (400, json!({"type": "error", "error": {"type": "invalid_request_error", "message": message}}).to_string())
}

fn edit<'a>(edits: &'a [Value], prefix: &str) -> Option<&'a Value> {
    edits.iter().find(|e| e["type"].as_str().is_some_and(|t| t.starts_with(prefix)))
}

/// An Anthropic request's context management; `Err` is the API's refusal.
pub fn anthropic(managed: &mut Managed, body: &Value, beta: Option<&str>) -> Result<Applied, (u16, String)> {
    let mut effective = body.clone();
    drop_before_compaction(&mut effective);
    let mut applied = Applied::default();
    let Some(edits) = body.pointer("/context_management/edits").and_then(Value::as_array) else {
        applied.effective = effective;
        return Ok(applied);
    };
    let betas: Vec<&str> = beta.unwrap_or_default().split(',').map(str::trim).collect();
    if let Some(clear) = edit(edits, "clear_tool_uses") {
        if !betas.contains(&EDITING_BETA) {
            return Err(refuse(&format!("context_management: clear_tool_uses needs the beta {EDITING_BETA}")));
        }
        let trigger = clear.pointer("/trigger/value").and_then(Value::as_u64).unwrap_or(100_000);
        if tokens(&effective) >= trigger {
            let keep = clear.pointer("/keep/value").and_then(Value::as_u64).unwrap_or(3) as usize;
            let (cleared, freed) = clear_tool_results(&mut effective, keep);
            if cleared > 0 {
                applied.edits = Some(json!([{"type": "clear_tool_uses_20250919", "cleared_tool_uses": cleared,
                                               "cleared_input_tokens": freed}]));
            }
        }
    }
    if let Some(compact) = edit(edits, "compact_") {
        if !betas.contains(&COMPACT_BETA) {
            return Err(refuse(&format!("context_management: compact_20260112 needs the beta {COMPACT_BETA}")));
        }
        let trigger = compact.pointer("/trigger/value").and_then(Value::as_u64).unwrap_or(150_000);
        if trigger < MIN_TRIGGER {
            return Err(refuse("context_management.edits.compact_20260112.trigger: must be at least 50000"));
        }
        let read = tokens(&effective);
        if read >= trigger {
            let summary = summarize(&effective);
            managed.count += 1;
            applied.compaction_tokens = (read, summary.len() as u64 / 4 + 1);
            applied.compaction = Some(json!(summary));
            applied.pause = compact["pause_after_compaction"].as_bool().unwrap_or(false);
            // The answer is written from the summary and the request's last message.
            let last = effective["messages"].as_array().and_then(|m| m.last().cloned());
            effective["messages"] =
                json!([{"role": "assistant", "content": [{"type": "compaction", "content": summary}]}]);
            if let Some(last) = last {
                effective["messages"].as_array_mut().unwrap().push(last);
            }
        }
    }
    applied.effective = effective;
    Ok(applied)
}

/// Every message, and every block of the message holding it, before the latest compaction block.
fn drop_before_compaction(body: &mut Value) {
    let Some(messages) = body.get_mut("messages").and_then(Value::as_array_mut) else { return };
    let holds = |m: &Value| m["content"].as_array().is_some_and(|c| c.iter().any(|b| b["type"] == "compaction"));
    if let Some(at) = messages.iter().rposition(holds) {
        messages.drain(..at);
        let content = messages[0]["content"].as_array_mut().unwrap();
        let block = content.iter().rposition(|b| b["type"] == "compaction").unwrap();
        content.drain(..block);
    }
}

/// Clears all but the last `keep` tool results; (cleared, tokens freed).
fn clear_tool_results(body: &mut Value, keep: usize) -> (u64, u64) {
    let mut results: Vec<&mut Value> = body["messages"]
        .as_array_mut()
        .into_iter()
        .flatten()
        .flat_map(|m| m["content"].as_array_mut().into_iter().flatten())
        .filter(|b| b["type"] == "tool_result")
        .collect();
    let n = results.len().saturating_sub(keep);
    let mut freed = 0;
    for block in results.iter_mut().take(n) {
        freed += tokens(&block["content"]);
        block["content"] = json!("[tool result cleared by context management]");
    }
    (n as u64, freed)
}

/// A summary the way a model writes one: what was asked, the files named, the last request.
fn summarize(body: &Value) -> String {
    let mut asked = Vec::new();
    let mut files = Vec::new();
    for message in body["messages"].as_array().into_iter().flatten() {
        for block in message["content"].as_array().into_iter().flatten() {
            if message["role"] == "user" && block["type"] == "text" {
                asked.push(block["text"].as_str().unwrap_or_default().chars().take(200).collect::<String>());
            }
            if let Some(path) = block.pointer("/input/path").and_then(Value::as_str) {
                if !files.contains(&path.to_string()) {
                    files.push(path.to_string());
                }
            }
        }
    }
    format!(
        "Summary of the conversation so far. The user asked: {}. Files touched: {}.",
        asked.join(" / "),
        if files.is_empty() { "none".to_string() } else { files.join(", ") }
    )
}

/// The compaction block's events, opening the stream (indices after it shift by one), and the
/// iteration and the edits in the final `message_delta`.
pub fn decorate_anthropic_events(events: &mut Vec<Value>, applied: &Applied) {
    if let Some(summary) = &applied.compaction {
        for event in events.iter_mut() {
            if let Some(i) = event.get("index").and_then(Value::as_u64) {
                event["index"] = json!(i + 1);
            }
        }
        let at =
            events.iter().position(|e| e["type"] == "content_block_start" || e["type"] == "message_delta").unwrap();
        let opened = [
            json!({"type": "content_block_start", "index": 0, "content_block": {"type": "compaction", "content": ""}}),
            json!({"type": "content_block_delta", "index": 0, "delta": {"type": "compaction_delta", "content": summary}}),
            json!({"type": "content_block_stop", "index": 0}),
        ];
        events.splice(at..at, opened);
        if applied.pause {
            // Nothing after the block but the message's end.
            events.retain(|e| e.get("index").is_none_or(|i| i == 0));
        }
    }
    if let Some(delta) = events.iter_mut().find(|e| e["type"] == "message_delta") {
        decorate(delta, applied);
    }
}

/// The same, on a whole message.
pub fn decorate_anthropic_message(message: &mut Value, applied: &Applied) {
    if let Some(summary) = &applied.compaction {
        let content = message["content"].as_array_mut().unwrap();
        if applied.pause {
            content.clear();
        }
        content.insert(0, json!({"type": "compaction", "content": summary}));
    }
    decorate(message, applied);
}

fn decorate(value: &mut Value, applied: &Applied) {
    if applied.compaction.is_some() {
        let (read, wrote) = applied.compaction_tokens;
        value["usage"]["iterations"] = json!([{"type": "compaction", "input_tokens": read, "output_tokens": wrote},
                                              {"type": "message", "input_tokens": value["usage"]["input_tokens"],
                                               "output_tokens": value["usage"]["output_tokens"]}]);
        if applied.pause {
            let at = if value.get("delta").is_some() { "/delta/stop_reason" } else { "/stop_reason" };
            *value.pointer_mut(at).unwrap() = json!("compaction");
        }
    }
    if let Some(edits) = &applied.edits {
        value["context_management"] = json!({"applied_edits": edits});
    }
}

/// A Responses request's compaction: the opaque item to put before the answer, if the input
/// (past its latest compaction item) reaches the threshold; `Err` for an item never issued.
pub fn responses(managed: &mut Managed, body: &Value) -> Result<Option<Value>, (u16, String)> {
    let input = body["input"].as_array().cloned().unwrap_or_default();
    check_items(managed, &input)?;
    let Some(threshold) = body["context_management"]
        .as_array()
        .and_then(|c| c.iter().find(|e| e["type"] == "compaction"))
        .and_then(|e| e["compact_threshold"].as_u64())
    else {
        return Ok(None);
    };
    let from = input.iter().rposition(|i| i["type"] == "compaction").unwrap_or(0);
    if tokens(&Value::Array(input[from..].to_vec())) < threshold {
        return Ok(None);
    }
    Ok(Some(issue(managed)))
}

/// `POST /responses/compact`: the user messages kept, then the compaction item.
pub fn standalone(managed: &mut Managed, body: &Value) -> Result<Value, (u16, String)> {
    let input = body["input"].as_array().cloned().unwrap_or_default();
    check_items(managed, &input)?;
    let mut output: Vec<Value> = input.iter().filter(|i| i["role"] == "user").cloned().collect();
    output.push(issue(managed));
    let read = tokens(&body["input"]) + tokens(&body["instructions"]);
    Ok(
        json!({"id": format!("resp_cmp_{}", managed.count), "object": "response.compaction", "created_at": 1_790_000_000,
              "output": output, "usage": {"input_tokens": read, "output_tokens": 64, "total_tokens": read + 64,
                                          "input_tokens_details": {"cached_tokens": 0}}}),
    )
}

fn issue(managed: &mut Managed) -> Value {
    managed.count += 1;
    let opaque = format!("gAAAAB{:08}scripted-opaque-state", managed.count);
    managed.issued.insert(opaque.clone());
    json!({"type": "compaction", "id": format!("cmp_{:03}", managed.count), "encrypted_content": opaque})
}

fn check_items(managed: &Managed, input: &[Value]) -> Result<(), (u16, String)> {
    for item in input.iter().filter(|i| i["type"] == "compaction") {
        let content = item["encrypted_content"].as_str().unwrap_or_default();
        if !managed.issued.contains(content) {
            return Err(refuse("invalid compaction item: it was not issued by this server or was altered"));
        }
    }
    Ok(())
}
