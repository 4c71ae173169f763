//! Which imported call a captured one was. Both are read the same way: the user's prompts and the
//! ids of the tool calls, in order, make a request's fingerprint — the same whether it is the body
//! on the wire (any of the three shapes) or the one rebuilt from the agent's records. A captured
//! call whose fingerprint is an imported call's becomes that call's exact body.

use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use crate::calls::composition::is_injected;
use crate::calls::Rebuilder;
use crate::error::Result;
use crate::store::{Purpose, RequestSource, SessionId, SourceKind, Store};

/// A request's fingerprint, and without its last prompt when an instruction was appended (a
/// summarizer's request is the conversation and one more user message).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fingerprint {
    pub key: String,
    pub prefix_key: Option<String>,
    /// The last prompts (newest first, at most two): what finds the sessions to look in.
    pub last_prompts: Vec<String>,
}

fn digest(value: &Value) -> String {
    Sha256::digest(value.to_string().as_bytes()).iter().map(|b| format!("{b:02x}")).collect()
}

/// The fingerprint of a request body (Chat Completions, Responses or Anthropic Messages).
pub fn fingerprint(body: &Value) -> Option<Fingerprint> {
    let items = body.get("messages").or_else(|| body.get("input")).and_then(Value::as_array)?;
    let (mut prompts, mut tool_ids) = (Vec::<String>::new(), Vec::<String>::new());
    let mut ends_with_prompt = false;
    for item in items {
        let role = item.get("role").and_then(Value::as_str);
        let kind = item.get("type").and_then(Value::as_str);
        ends_with_prompt = false;
        match (role, kind) {
            (Some("user"), _) => {
                let texts: Vec<&str> = match item.get("content") {
                    Some(Value::String(text)) => vec![text.as_str()],
                    Some(Value::Array(blocks)) => blocks
                        .iter()
                        .filter(|b| matches!(b.get("type").and_then(Value::as_str), Some("text" | "input_text")))
                        .filter_map(|b| b.get("text").and_then(Value::as_str))
                        .collect(),
                    _ => Vec::new(),
                };
                for text in texts.into_iter().filter(|t| is_prompt(t)) {
                    prompts.push(text.to_string());
                    ends_with_prompt = true;
                }
            }
            (Some("assistant"), _) => {
                for call in item.get("tool_calls").and_then(Value::as_array).into_iter().flatten() {
                    tool_ids.extend(call.get("id").and_then(Value::as_str).map(str::to_string));
                }
                for block in item.get("content").and_then(Value::as_array).into_iter().flatten() {
                    if block.get("type").and_then(Value::as_str) == Some("tool_use") {
                        tool_ids.extend(block.get("id").and_then(Value::as_str).map(str::to_string));
                    }
                }
            }
            (None, Some("function_call" | "custom_tool_call" | "local_shell_call")) => {
                tool_ids.extend(item.get("call_id").and_then(Value::as_str).map(str::to_string));
            }
            _ => {}
        }
    }
    let key = digest(&json!([prompts, tool_ids]));
    let prefix_key =
        (ends_with_prompt && !prompts.is_empty()).then(|| digest(&json!([prompts[..prompts.len() - 1], tool_ids])));
    let last_prompts = prompts.iter().rev().take(2).cloned().collect();
    Some(Fingerprint { key, prefix_key, last_prompts })
}

/// A user text that is the user's (or an agent's instruction), not context it added.
fn is_prompt(text: &str) -> bool {
    let text = text.trim_start();
    !text.is_empty() && !text.starts_with('<') && !is_injected(text)
}

/// Joins the captured calls that were calls of imported session `session` to them (each becomes
/// its call's exact body). Returns the pairs joined: (the imported row, the capture it took).
pub fn adopt(store: &Store, session: &SessionId) -> Result<Vec<(i64, i64)>> {
    let record = store.resolve_session(session)?;
    if matches!(record.source, None | Some(SourceKind::Proxy)) || !store.has_unjoined_captures()? {
        return Ok(Vec::new());
    }
    let rows: Vec<_> = store
        .model_calls(&record.id)?
        .into_iter()
        .filter(|c| c.request_source == RequestSource::Reconstructed)
        .collect();
    let mut rebuilder = Rebuilder::new(store, &record.id, record.source);
    let mut keyed = Vec::with_capacity(rows.len());
    for row in rows {
        if let Some(print) = fingerprint(&rebuilder.rebuild(&row)?.body) {
            keyed.push((row, print.key));
        }
    }
    let keys: Vec<String> = keyed.iter().map(|(_, k)| k.clone()).collect();
    let mut captures = store.unjoined_captures(&keys)?;
    let mut joined = Vec::new();
    for (row, key) in keyed {
        let full = |c: &&crate::store::CaptureKey| c.key.as_deref() == Some(key.as_str());
        let extended = |c: &&crate::store::CaptureKey| c.prefix_key.as_deref() == Some(key.as_str());
        // A summarizer's capture is the conversation and its appended instruction; a turn's is
        // the conversation itself, and it offered tools (a side call with the same prompt did not).
        let found = match row.purpose {
            Purpose::Compaction => captures.iter().find(extended).or_else(|| captures.iter().find(full)),
            _ => captures.iter().filter(full).find(|c| c.has_tools).or_else(|| captures.iter().find(full)),
        };
        if let Some(capture) = found.map(|c| c.id) {
            store.join_capture(row.id, capture)?;
            captures.retain(|c| c.id != capture);
            joined.push((row.id, capture));
        }
    }
    Ok(joined)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wire_and_the_rebuilt_request_have_one_fingerprint() {
        // Codex on the wire: blocks, a developer message and injected context the rebuild lacks.
        let wire = json!({"input": [
            {"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "You are…"}]},
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "<environment_context>…"}]},
            {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "DO it"}]},
            {"type": "function_call", "call_id": "call_1", "name": "shell", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "call_1", "output": "ok"}
        ], "tools": [{"type": "function", "name": "shell"}]});
        let rebuilt = json!({"model": "m", "input": [
            {"role": "user", "content": "DO it"},
            {"type": "function_call", "call_id": "call_1", "name": "shell", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "call_1", "output": "ok"}
        ]});
        let (a, b) = (fingerprint(&wire).unwrap(), fingerprint(&rebuilt).unwrap());
        assert_eq!(a.key, b.key);
        assert_eq!(a.prefix_key, None, "it ends with a tool result, not an appended instruction");

        // A summarizer's request: the same conversation and one instruction more.
        let mut summarizer = rebuilt.clone();
        summarizer["input"].as_array_mut().unwrap().push(json!({"role": "user", "content": "Summarize."}));
        let s = fingerprint(&summarizer).unwrap();
        assert_ne!(s.key, b.key);
        assert_eq!(s.prefix_key.as_deref(), Some(b.key.as_str()));
        assert_eq!(s.last_prompts, ["Summarize.", "DO it"]);

        // Anthropic: tool_use ids in the assistant's blocks, prompts among reminder blocks.
        let anthropic = json!({"messages": [
            {"role": "user", "content": [{"type": "text", "text": "<system-reminder>x</system-reminder>"}, {"type": "text", "text": "DO it"}]},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "call_1", "name": "Bash", "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "call_1", "content": "ok"}]}
        ]});
        assert_eq!(fingerprint(&anthropic).unwrap().key, b.key);
    }
}
