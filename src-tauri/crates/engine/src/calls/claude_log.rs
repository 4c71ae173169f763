//! Claude Code's own log of the requests it sent (docs/formats/claude-code-requests.md):
//! `api-request-shape` (the system blocks and tools, by `shapeHash`), `api-request-blob` (a message
//! as sent, by the SHA-256 of its canonical JSON) and `api-request` (one call: its params, the
//! messages it kept from the previous request of its chain, the parts it appended, its cache
//! breakpoints). Messages of the transcript are parts too, under the same hash. Parts are stored
//! once; each call keeps a small reference, and the body is put together when it is shown
//! ([`rebuild`]) — storage stays linear in the log.

use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};

use crate::store::Purpose;

/// The SHA-256 (hex) of `value` as canonical JSON: keys sorted, no spaces, non-ASCII as is.
pub fn part_hash(value: &Value) -> String {
    let digest = Sha256::digest(canonical(value).as_bytes());
    digest.iter().map(|b| format!("{b:02x}")).collect()
}

fn canonical(value: &Value) -> String {
    fn sorted(value: &Value) -> Value {
        match value {
            Value::Object(map) => {
                let mut keys: Vec<&String> = map.keys().collect();
                keys.sort();
                Value::Object(keys.into_iter().map(|k| (k.clone(), sorted(&map[k]))).collect())
            }
            Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
            other => other.clone(),
        }
    }
    sorted(value).to_string()
}

/// The parts a transcript message stands for: `{role, content}` as recorded, and — for text
/// content — as one text block (the form the log hashes).
pub fn transcript_parts(message: &Value) -> Vec<(String, Value)> {
    let (Some(role), Some(content)) = (message.get("role"), message.get("content")) else { return Vec::new() };
    let mut parts = vec![json!({"role": role, "content": content})];
    if let Some(text) = content.as_str() {
        parts.push(json!({"role": role, "content": [{"type": "text", "text": text}]}));
    }
    parts.into_iter().map(|p| (part_hash(&p), p)).collect()
}

/// What a call was for, from its `querySource`.
pub fn purpose(query_source: &str) -> Purpose {
    match query_source {
        "sdk" | "repl_main_thread" | "print" | "" => Purpose::Turn,
        s if s.contains("compact") => Purpose::Compaction,
        _ => Purpose::Side,
    }
}

/// The reference a ledger row keeps of an `api-request` record: its params, shape, kept count,
/// appended parts, cache breakpoints, and the row of the previous request of its chain.
pub fn reference(record: &Value, previous: Option<i64>) -> Value {
    let mut out = Map::new();
    for key in ["id", "querySource", "shapeHash", "params", "thread", "keep", "tail", "cacheControl", "requestDigest"] {
        if let Some(v) = record.get(key) {
            out.insert(key.to_string(), v.clone());
        }
    }
    out.insert("previous".into(), json!(previous));
    Value::Object(out)
}

/// What a rebuilt body leaves out that the agent sent: its log records neither `metadata` nor
/// `stream`, and not the first system block (a per-request billing header line); `betas` go as the
/// `anthropic-beta` header, not in the body.
pub const OMITTED: [&str; 3] = ["metadata", "stream", "system[0]: the x-anthropic-billing-header line"];

/// The body call `reference` sent, from its `shape`, its `messages` (kept from the previous
/// request, then the appended parts) and its params and cache breakpoints.
pub fn body(reference: &Value, shape: &Value, messages: Vec<Value>) -> Value {
    let params = reference.get("params").and_then(Value::as_object).cloned().unwrap_or_default();
    let mut body = Map::new();
    body.insert("model".into(), params.get("model").cloned().unwrap_or(Value::Null));
    body.insert("messages".into(), Value::Array(messages));
    body.insert("system".into(), shape.get("system").cloned().unwrap_or(json!([])));
    body.insert("tools".into(), shape.get("tools").cloned().unwrap_or(json!([])));
    for (key, value) in params {
        if key != "model" && key != "betas" {
            body.insert(key, value);
        }
    }
    let mut body = Value::Object(body);
    let targets = apply_cache_control(&mut body, reference.get("cacheControl"));
    as_sent(&mut body, &targets);
    body
}

/// Puts each recorded `cache_control` at its path; returns the messages it marked.
fn apply_cache_control(body: &mut Value, breakpoints: Option<&Value>) -> Vec<usize> {
    let mut marked = Vec::new();
    for breakpoint in breakpoints.and_then(Value::as_array).into_iter().flatten() {
        let Some(path) = breakpoint.get("path").and_then(Value::as_array) else { continue };
        if path.first().and_then(Value::as_str) == Some("messages") {
            marked.extend(path.get(1).and_then(Value::as_u64).map(|i| i as usize));
        }
        // A breakpoint on the first block of text content: the content becomes that block.
        if let [.., Value::String(key), Value::Number(first)] = path.as_slice() {
            if key == "content" && first.as_u64() == Some(0) {
                if let Some(content) = pointer_mut(body, &path[..path.len() - 1]) {
                    if let Some(text) = content.as_str().map(str::to_string) {
                        *content = json!([{"type": "text", "text": text}]);
                    }
                }
            }
        }
        let Some(target) = pointer_mut(body, path) else { continue };
        if let Some(text) = target.as_str().map(str::to_string) {
            *target = json!({"type": "text", "text": text});
        }
        if let Some(map) = target.as_object_mut() {
            map.insert("cache_control".into(), breakpoint.get("value").cloned().unwrap_or(Value::Null));
        }
    }
    marked
}

/// The value at a recorded path (`["messages", 1, "content", 0]`).
fn pointer_mut<'v>(value: &'v mut Value, path: &[Value]) -> Option<&'v mut Value> {
    let pointer: String = path
        .iter()
        .map(|step| match step {
            Value::String(key) => format!("/{}", key.replace('~', "~0").replace('/', "~1")),
            other => format!("/{other}"),
        })
        .collect();
    value.pointer_mut(&pointer)
}

/// The log keeps every message's content as blocks; Claude Code sends a user or system message
/// of one plain text block as a string, unless a cache breakpoint sits on it.
fn as_sent(body: &mut Value, marked: &[usize]) {
    let Some(messages) = body.get_mut("messages").and_then(Value::as_array_mut) else { return };
    for (i, message) in messages.iter_mut().enumerate() {
        let role = message.get("role").and_then(Value::as_str).unwrap_or_default();
        if marked.contains(&i) || !(role == "user" || role == "system") {
            continue;
        }
        let single = match message.get("content").and_then(Value::as_array).map(Vec::as_slice) {
            Some([block]) => block.as_object().filter(|b| b.len() == 2 && b.get("type") == Some(&json!("text"))),
            _ => None,
        };
        if let Some(text) = single.and_then(|b| b.get("text")).cloned() {
            message["content"] = text;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parts_hash_as_the_log_does() {
        // A blob of the corpus and its recorded hash.
        let message = json!({"role": "system", "content": [], "output_config": {"effort": "medium"}});
        assert_eq!(part_hash(&message), "d43ab0e0b8ec9db790a6459cb2f4bc4ffce02825ca05063162023be60912ced9");
    }

    #[test]
    fn cache_breakpoints_land_on_their_paths_and_plain_texts_go_as_strings() {
        let reference = json!({
            "params": {"model": "m", "betas": ["b"], "max_tokens": 10},
            "cacheControl": [{"path": ["system", 0], "value": {"type": "ephemeral"}},
                             {"path": ["messages", 1, "content", 0], "value": {"type": "ephemeral"}}]
        });
        let shape = json!({"system": [{"type": "text", "text": "s"}], "tools": []});
        let messages = vec![
            json!({"role": "user", "content": [{"type": "text", "text": "hi"}]}),
            json!({"role": "user", "content": [{"type": "text", "text": "again"}]}),
        ];
        let body = body(&reference, &shape, messages);
        assert_eq!(body["messages"][0]["content"], "hi");
        assert_eq!(body["messages"][1]["content"][0]["cache_control"], json!({"type": "ephemeral"}));
        assert_eq!(body["system"][0]["cache_control"], json!({"type": "ephemeral"}));
        let keys: Vec<&String> = body.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["model", "messages", "system", "tools", "max_tokens"]);
    }
}
