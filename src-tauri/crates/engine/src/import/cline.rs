//! Cline CLI 3.x sessions (`~/.cline/data/sessions/<id>/<id>.messages.json`,
//! docs/formats/cline.md): one JSON document rewritten whole — the system prompt and every message
//! in Anthropic-like blocks, each answer with its metrics — beside `<id>.compaction.json`, the
//! latest compaction (the summary and the messages it kept), and `<id>.json`, the session's row.

use serde_json::{json, Value};

use super::sink::{title_of, Record, Sink, Usage};
use super::str_at;
use crate::error::Result;
use crate::events::CompactionReason;
use crate::store::{Purpose, WireApi};
use crate::transcript::Role;

/// Whether the head of a file is a Cline transcript (`<id>.messages.json`).
pub fn looks_like(head: &[u8]) -> bool {
    let head = String::from_utf8_lossy(head);
    head.contains("\"sessionId\"") && head.contains("\"origin\"") && head.contains("\"messages\"")
}

/// The Cline session a transcript document holds.
pub fn identity(document: &Value) -> Option<&str> {
    document.get("messages").filter(|m| m.is_array())?;
    str_at(document, "/sessionId")
}

/// A typed prompt as sent: Cline stores it inside `<user_input mode="…">`, the request carries it bare.
fn unwrap_input(text: &str) -> &str {
    let Some(rest) = text.strip_prefix("<user_input") else { return text };
    let Some(start) = rest.find('>') else { return text };
    rest[start + 1..].strip_suffix("</user_input>").unwrap_or(&rest[start + 1..])
}

/// The transcript through `sink`, with the latest compaction (`compaction`) applied where it
/// was made: after its first `source_message_count` messages.
pub fn replay(sink: &mut Sink<'_, '_>, document: &Value, compaction: Option<&Value>) -> Result<()> {
    if let Some(prompt) = str_at(document, "/system_prompt") {
        sink.set_system_prompt(prompt)?;
    }
    let messages = document["messages"].as_array().cloned().unwrap_or_default();
    let cut = compaction
        .and_then(|c| c.get("source_message_count").and_then(Value::as_u64))
        .map(|n| n as usize)
        .filter(|n| *n <= messages.len());
    let mut titled = false;
    for (index, message) in messages.iter().enumerate() {
        if Some(index) == cut {
            compact(sink, compaction.unwrap_or(&Value::Null))?;
        }
        message_records(sink, message, &mut titled)?;
    }
    if cut == Some(messages.len()) {
        compact(sink, compaction.unwrap_or(&Value::Null))?;
    }
    Ok(())
}

fn message_records(sink: &mut Sink<'_, '_>, message: &Value, titled: &mut bool) -> Result<()> {
    let at = message.get("ts").and_then(Value::as_i64).map(super::opencode::iso).unwrap_or_default();
    let id = str_at(message, "/id");
    let blocks = message.get("content").and_then(Value::as_array).cloned().unwrap_or_default();
    match str_at(message, "/role") {
        Some("assistant") => {
            let request = sink.state.snapshot();
            let mut texts = Vec::new();
            let mut thinking = Vec::new();
            let mut calls = Vec::new();
            for block in &blocks {
                match str_at(block, "/type") {
                    Some("text") => texts.push(str_at(block, "/text").unwrap_or_default().to_string()),
                    Some("thinking") => thinking.push(str_at(block, "/thinking").unwrap_or_default().to_string()),
                    Some("tool_use") => calls.push(super::tool_call(block, "input")),
                    _ => {}
                }
            }
            let mut answer = Record::new(Role::Assistant, texts.join("\n\n"), &at).id(id);
            if !thinking.is_empty() {
                answer = answer.meta("thinking", json!(thinking));
            }
            answer.tool_calls = calls;
            let seq = sink.push(answer)?;
            if let Some(metrics) = message.get("metrics").filter(|m| m.is_object()) {
                let n = |key: &str| metrics.get(key).and_then(Value::as_u64);
                sink.model_call(
                    &request,
                    Usage {
                        model: str_at(message, "/modelInfo/id").unwrap_or_default().to_string(),
                        prompt_tokens: n("inputTokens"),
                        cached_tokens: n("cacheReadTokens"),
                        cache_write_tokens: n("cacheWriteTokens").filter(|w| *w > 0),
                        completion_tokens: n("outputTokens"),
                        response_seq: Some(seq),
                        started_at: at.clone(),
                        ..Usage::new(Purpose::Turn, WireApi::Chat)
                    },
                )?;
            }
        }
        _ => {
            let mut texts = Vec::new();
            for block in &blocks {
                match str_at(block, "/type") {
                    Some("text") => texts.push(unwrap_input(str_at(block, "/text").unwrap_or_default()).to_string()),
                    Some("tool_result") => {
                        // On the wire a result is the JSON of its content (a batch's {query, result, success}s).
                        let content = match block.get("content") {
                            Some(Value::String(s)) => s.clone(),
                            Some(other) => other.to_string(),
                            None => String::new(),
                        };
                        let mut result = Record::new(Role::Tool, content, &at).id(id);
                        result.tool_call_id = str_at(block, "/tool_use_id").map(str::to_string);
                        sink.push(result)?;
                    }
                    _ => {}
                }
            }
            if !texts.is_empty() {
                let text = texts.join("\n\n");
                if !*titled && !text.trim().is_empty() {
                    sink.set_title(&title_of(&text))?;
                    *titled = true;
                }
                sink.push(Record::new(Role::User, text, &at).id(id))?;
            }
        }
    }
    Ok(())
}

/// The compaction: the messages it kept (by id) stay, the rest is replaced by its summary.
fn compact(sink: &mut Sink<'_, '_>, compaction: &Value) -> Result<()> {
    let messages = compaction["messages"].as_array().cloned().unwrap_or_default();
    let mut keep = Vec::new();
    for message in &messages {
        if let Some(id) = str_at(message, "/id") {
            if let Some(seq) = sink.seq_of(id)? {
                keep.push(seq);
            }
        }
    }
    // Results are stored beside their message's id: the kept ones stay with it.
    let live: Vec<i64> = sink.state.live.iter().map(|l| l.seq).collect();
    let first_kept = keep.iter().min().copied();
    let keep: Vec<i64> = match first_kept {
        Some(first) => live.into_iter().filter(|seq| *seq >= first).collect(),
        None => Vec::new(),
    };
    let summary = messages
        .iter()
        .find(|m| str_at(m, "/metadata/kind") == Some("compaction_summary"))
        .map(|m| {
            m["content"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(|b| str_at(b, "/text"))
                .collect::<Vec<_>>()
                .join("\n\n")
        })
        .unwrap_or_default();
    let at = str_at(compaction, "/updated_at").unwrap_or_default().to_string();
    let mut fields = serde_json::Map::new();
    for key in ["source_message_count", "source_last_message_key", "source_prefix_hash"] {
        if let Some(v) = compaction.get(key).filter(|v| !v.is_null()) {
            fields.insert(key.to_string(), v.clone());
        }
    }
    // Cline records neither who asked nor the figures (only the latest compaction is kept).
    let id = sink.compaction(CompactionReason::Unknown, &keep, None, fields, None, &at)?;
    sink.checkpoint(id, Record::new(Role::User, summary, &at), true)?;
    Ok(())
}
