//! Anthropic's prompt cache as the scripted server keeps it: each request's prefix up to its last
//! `cache_control` breakpoint, what a request reads and writes, and the cache diagnostics.

use std::collections::HashMap;

use serde_json::{json, Value};

/// Tokens an Anthropic request read from the cache, wrote to it, and sent after its last breakpoint
/// (≈ 4 characters a token of the serialized request).
#[derive(Clone, Debug, Default)]
pub struct PromptCache {
    pub read: u64,
    pub written: u64,
    pub input: u64,
    /// The answer's message id.
    pub id: String,
    /// Cache diagnostics, when the request asked for them.
    pub diagnostics: Option<Value>,
}

/// Anthropic's cache diagnostics: a request naming `diagnostics.previous_message_id` is compared
/// with that one — the first of model (not kept here), system, tools and messages that differs.
pub fn diagnose(fingerprints: &mut HashMap<String, [String; 3]>, id: &str, body: &Value) -> Option<Value> {
    let asked = body.get("diagnostics")?;
    let unmarked = |v: &Value| {
        let mut v = v.clone();
        strip_cache_control(&mut v);
        v.to_string()
    };
    let now = [unmarked(&body["system"]), unmarked(&body["tools"]), unmarked(&body["messages"])];
    let verdict = match asked.get("previous_message_id").and_then(Value::as_str) {
        None => Value::Null,
        Some(previous) => match fingerprints.get(previous) {
            None => json!({"cache_miss_reason": {"type": "previous_message_not_found"}}),
            Some(before) => {
                // Messages only grow: a miss there is an earlier message that changed.
                let messages_kept = now[2].starts_with(before[2].trim_end_matches(']'));
                match (before[0] == now[0], before[1] == now[1], messages_kept) {
                    (false, ..) => json!({"cache_miss_reason": {"type": "system_changed"}}),
                    (_, false, _) => json!({"cache_miss_reason": {"type": "tools_changed"}}),
                    (_, _, false) => json!({"cache_miss_reason": {"type": "messages_changed"}}),
                    _ => json!({"cache_miss_reason": null}),
                }
            }
        },
    };
    fingerprints.insert(id.to_string(), now);
    Some(verdict)
}

/// Looks the request's cacheable prefix (system, tools, messages up to the last `cache_control`)
/// up among the earlier ones, keeps it, and counts.
pub fn prompt_cache(prefixes: &mut Vec<String>, body: &Value) -> PromptCache {
    let messages = body["messages"].as_array().cloned().unwrap_or_default();
    let marked =
        |m: &Value| m["content"].as_array().is_some_and(|c| c.iter().any(|b| b.get("cache_control").is_some()));
    let last = messages.iter().rposition(marked).map_or(0, |i| i + 1);
    // The breakpoints mark where the cache ends; they are not part of what is cached.
    let unmarked = |v: &Value| {
        let mut v = v.clone();
        strip_cache_control(&mut v);
        v.to_string()
    };
    let mut prefix = format!("{}{}", unmarked(&body["system"]), unmarked(&body["tools"]));
    prefix.extend(messages[..last].iter().map(unmarked));
    let tail: usize = messages[last..].iter().map(|m| m.to_string().len()).sum();
    let common =
        prefixes.iter().map(|p| p.bytes().zip(prefix.bytes()).take_while(|(a, b)| a == b).count()).max().unwrap_or(0);
    let cache = PromptCache {
        read: common as u64 / 4,
        written: (prefix.len() - common) as u64 / 4,
        input: tail as u64 / 4 + 1,
        ..Default::default()
    };
    prefixes.push(prefix);
    cache
}

fn strip_cache_control(value: &mut Value) {
    match value {
        Value::Object(map) => {
            map.remove("cache_control");
            map.values_mut().for_each(strip_cache_control);
        }
        Value::Array(items) => items.iter_mut().for_each(strip_cache_control),
        _ => {}
    }
}
