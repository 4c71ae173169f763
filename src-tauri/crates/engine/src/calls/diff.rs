//! Two requests compared in the order a server renders them (system, tools, messages, params):
//! the shared prefix, the first divergence, what changed (`alisio calls diff`), and per call whether
//! its prefix broke against the previous one.

use serde::Serialize;
use serde_json::Value;

use super::{breaks, calls_of, nth, BreakCause, Forensics, Rebuilder};
use crate::cost::Money;
use crate::error::Result;
use crate::store::{Session, Store};
use crate::transcript::estimate_tokens;

/// `calls diff`: how request `n` compares with request `against`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct CallDiff {
    pub n: usize,
    pub against: usize,
    pub common_prefix_chars: u64,
    pub against_chars: u64,
    pub common_prefix_tokens: u64,
    pub cached_tokens: Option<u64>,
    pub cache_break: bool,
    pub first_divergence: Divergence,
    /// Characters of request `n` in rendering order (system, tools, messages).
    pub new_chars: u64,
    /// Messages (system excluded) at the same index in both requests and equal.
    pub same_messages: usize,
    /// Messages added, removed or changed, by index in the request.
    pub message_changes: Vec<MessageChange>,
    pub tool_changes: ToolChanges,
    pub param_changes: Vec<ParamChange>,
    /// Why the cache broke or missed (`null`: it did not).
    pub cause: Option<BreakCause>,
    /// The cause the agent itself recorded, when it did.
    pub agent_reason: Option<String>,
    /// Tokens of `against` the server had to process again.
    pub lost_tokens: Option<u64>,
    /// Those tokens priced as input minus as cached input.
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub miss_cost_usd: Option<Money>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct MessageChange {
    pub index: usize,
    /// `added`, `removed` or `changed`.
    pub change: &'static str,
    pub role: String,
    /// The message's text (its content, or the whole item as JSON when it has no text content).
    pub before: Option<String>,
    pub after: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ToolChanges {
    pub added: Vec<String>,
    pub removed: Vec<String>,
    pub changed: Vec<String>,
    /// The same tools in another order (a reordered catalog breaks a prefix cache).
    pub reordered: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ParamChange {
    pub key: String,
    pub before: Option<Value>,
    pub after: Option<Value>,
}

/// A message's text for reading and diffing.
pub(super) fn message_text(item: &Value) -> String {
    match item.get("content") {
        Some(Value::String(text)) if item.get("tool_calls").is_none() => text.clone(),
        _ => serde_json::to_string_pretty(item).unwrap_or_default(),
    }
}

fn role_of(item: &Value) -> String {
    item.get("role").or_else(|| item.get("type")).and_then(Value::as_str).unwrap_or("item").to_string()
}

fn tool_name(tool: &Value) -> String {
    tool.pointer("/function/name").or_else(|| tool.get("name")).and_then(Value::as_str).unwrap_or("?").to_string()
}

/// Messages compared by position; tools by name; params by key.
fn structural_changes(old: &Rendered, new: &Rendered) -> (usize, Vec<MessageChange>, ToolChanges, Vec<ParamChange>) {
    let pick = |r: &Rendered, part: &str| -> Vec<(usize, Value)> {
        r.units.iter().filter(|(p, _, _)| *p == part).map(|(_, i, v)| (i.unwrap_or(0), v.clone())).collect()
    };
    let (old_messages, new_messages) = (pick(old, "messages"), pick(new, "messages"));
    let mut same = 0;
    let mut changes = Vec::new();
    for i in 0..old_messages.len().max(new_messages.len()) {
        match (old_messages.get(i), new_messages.get(i)) {
            (Some((_, a)), Some((_, b))) if a == b => same += 1,
            (Some((index, a)), Some((_, b))) => changes.push(MessageChange {
                index: *index,
                change: "changed",
                role: role_of(b),
                before: Some(message_text(a)),
                after: Some(message_text(b)),
            }),
            (Some((index, a)), None) => changes.push(MessageChange {
                index: *index,
                change: "removed",
                role: role_of(a),
                before: Some(message_text(a)),
                after: None,
            }),
            (None, Some((index, b))) => changes.push(MessageChange {
                index: *index,
                change: "added",
                role: role_of(b),
                before: None,
                after: Some(message_text(b)),
            }),
            (None, None) => {}
        }
    }
    let (old_tools, new_tools) = (pick(old, "tools"), pick(new, "tools"));
    let names = |tools: &[(usize, Value)]| tools.iter().map(|(_, t)| tool_name(t)).collect::<Vec<_>>();
    let (old_names, new_names) = (names(&old_tools), names(&new_tools));
    let find =
        |tools: &[(usize, Value)], name: &str| tools.iter().find(|(_, t)| tool_name(t) == name).map(|(_, t)| t.clone());
    let tool_changes = ToolChanges {
        added: new_names.iter().filter(|n| !old_names.contains(n)).cloned().collect(),
        removed: old_names.iter().filter(|n| !new_names.contains(n)).cloned().collect(),
        changed: new_names
            .iter()
            .filter(|n| old_names.contains(n) && find(&old_tools, n) != find(&new_tools, n))
            .cloned()
            .collect(),
        reordered: {
            let common_old: Vec<&String> = old_names.iter().filter(|n| new_names.contains(n)).collect();
            let common_new: Vec<&String> = new_names.iter().filter(|n| old_names.contains(n)).collect();
            common_old != common_new
        },
    };
    let mut keys: Vec<&String> = new.params.keys().chain(old.params.keys()).collect();
    keys.sort();
    keys.dedup();
    let param_changes = keys
        .into_iter()
        .filter(|k| old.params.get(*k) != new.params.get(*k))
        .map(|k| ParamChange { key: k.clone(), before: old.params.get(k).cloned(), after: new.params.get(k).cloned() })
        .collect();
    (same, changes, tool_changes, param_changes)
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Divergence {
    /// `system`, `tools`, `messages`, `params` or `none`.
    pub part: &'static str,
    /// The message's index in the request's `messages` (or `input`), or the tool's index.
    pub index: Option<usize>,
    /// JSON pointer inside that item.
    pub path: String,
    pub before: String,
    pub after: String,
}

/// A request split the way a server renders it: system, tools, messages; the rest are params.
pub(super) struct Rendered {
    pub(super) units: Vec<(&'static str, Option<usize>, Value)>,
    pub(super) params: serde_json::Map<String, Value>,
}

/// A value as a prompt cache compares it: cache breakpoints (`cache_control`) are markers, not
/// content, and one plain text block is the same prompt as its text.
fn cache_form(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut out: serde_json::Map<String, Value> =
                map.iter().filter(|(k, _)| *k != "cache_control").map(|(k, v)| (k.clone(), cache_form(v))).collect();
            if let Some(Value::Array(blocks)) = out.get("content") {
                if let [block] = blocks.as_slice() {
                    if block.get("type").and_then(Value::as_str) == Some("text")
                        && block.as_object().is_some_and(|b| b.len() == 2)
                    {
                        let text = block["text"].clone();
                        out.insert("content".into(), text);
                    }
                }
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(cache_form).collect()),
        other => other.clone(),
    }
}

pub(super) fn render(body: &Value) -> Rendered {
    let body = &cache_form(body);
    let key = if body.get("input").is_some() { "input" } else { "messages" };
    let items = body.get(key).and_then(Value::as_array).cloned().unwrap_or_default();
    let mut units = Vec::new();
    let mut rest = items.into_iter().enumerate();
    // The system prompt: Anthropic's `system`, Responses' `instructions`, or the first message.
    match body.get("system").or_else(|| body.get("instructions")) {
        Some(system) => units.push(("system", None, system.clone())),
        None => {
            if let Some((_, system)) = rest.next() {
                units.push(("system", None, system));
            }
        }
    }
    let tools = body.get("tools").and_then(Value::as_array).cloned().unwrap_or_default();
    units.extend(tools.into_iter().enumerate().map(|(i, t)| ("tools", Some(i), t)));
    units.extend(rest.map(|(i, m)| ("messages", Some(i), m)));
    let params = body
        .as_object()
        .map(|o| {
            o.iter().filter(|(k, _)| !matches!(k.as_str(), "messages" | "input" | "tools" | "system" | "instructions"))
        })
        .into_iter()
        .flatten()
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    Rendered { units, params }
}

pub(super) fn excerpt(value: Option<&Value>) -> String {
    let text = match value {
        None => return "(absent)".into(),
        Some(Value::String(s)) => s.clone(),
        Some(other) => other.to_string(),
    };
    let mut out: String = text.chars().take(80).collect();
    if text.chars().count() > 80 {
        out.push('…');
    }
    out
}

fn escape_pointer(key: &str) -> String {
    key.replace('~', "~0").replace('/', "~1")
}

/// The first place two values differ, as a JSON pointer with both sides there.
pub(super) fn first_difference(before: &Value, after: &Value, path: String) -> Option<(String, String, String)> {
    if before == after {
        return None;
    }
    match (before, after) {
        (Value::Object(b), Value::Object(a)) => {
            for key in a.keys().chain(b.keys().filter(|k| !a.contains_key(*k))) {
                let here = format!("{path}/{}", escape_pointer(key));
                match (b.get(key), a.get(key)) {
                    (Some(x), Some(y)) => {
                        if let Some(found) = first_difference(x, y, here) {
                            return Some(found);
                        }
                    }
                    (x, y) => return Some((here, excerpt(x), excerpt(y))),
                }
            }
            None
        }
        (Value::Array(b), Value::Array(a)) => {
            for i in 0..b.len().max(a.len()) {
                let here = format!("{path}/{i}");
                match (b.get(i), a.get(i)) {
                    (Some(x), Some(y)) => {
                        if let Some(found) = first_difference(x, y, here) {
                            return Some(found);
                        }
                    }
                    (x, y) => return Some((here, excerpt(x), excerpt(y))),
                }
            }
            None
        }
        _ => Some((path, excerpt(Some(before)), excerpt(Some(after)))),
    }
}

fn common_prefix(a: &str, b: &str) -> u64 {
    a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count() as u64
}

/// Characters the two rendered requests share from the start, and where they first diverge
/// (`None` when all of `old` is a prefix of `new`).
pub(super) fn shared_prefix(old: &Rendered, new: &Rendered) -> (u64, Option<Divergence>) {
    let text = |v: &Value| v.to_string();
    let mut prefix = 0u64;
    for (i, (part, index, old_value)) in old.units.iter().enumerate() {
        match new.units.get(i) {
            Some((new_part, _, new_value)) if new_part == part && new_value == old_value => {
                prefix += text(old_value).chars().count() as u64;
            }
            Some((new_part, new_index, new_value)) if new_part == part => {
                prefix += common_prefix(&text(old_value), &text(new_value));
                let (path, before, after) = first_difference(old_value, new_value, String::new()).unwrap_or_default();
                return (prefix, Some(Divergence { part: new_part, index: *new_index, path, before, after }));
            }
            // Parts differ at this position: one request has an item of the earlier part the other
            // lacks (a tool removed: the old request's tool stands where the new one's first
            // message does). Like is compared with like: that item against its absence.
            Some((new_part, new_index, new_value)) => {
                let divergence = if rank(part) < rank(new_part) {
                    Divergence {
                        part,
                        index: *index,
                        path: String::new(),
                        before: excerpt(Some(old_value)),
                        after: "(absent)".into(),
                    }
                } else {
                    Divergence {
                        part: new_part,
                        index: *new_index,
                        path: String::new(),
                        before: "(absent)".into(),
                        after: excerpt(Some(new_value)),
                    }
                };
                return (prefix, Some(divergence));
            }
            None => {
                let divergence = Divergence {
                    part,
                    index: *index,
                    path: String::new(),
                    before: excerpt(Some(old_value)),
                    after: "(absent)".into(),
                };
                return (prefix, Some(divergence));
            }
        }
    }
    (prefix, None)
}

/// The order of a request's parts as rendered: system, tools, messages, params.
fn rank(part: &str) -> u8 {
    match part {
        "system" => 0,
        "tools" => 1,
        "messages" => 2,
        _ => 3,
    }
}

pub(super) fn rendered_chars(r: &Rendered) -> u64 {
    r.units.iter().map(|(_, _, v)| v.to_string().chars().count() as u64).sum()
}

/// Per call: whether its prefix broke against the previous call, what could be reused, and what the
/// server reported cached (each request rebuilt once).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct CallCache {
    pub n: usize,
    pub cache_break: bool,
    pub common_prefix_tokens: u64,
    pub cached_tokens: Option<u64>,
}

pub fn cache_report(store: &Store, record: &Session) -> Result<Vec<CallCache>> {
    let (id, calls) = calls_of(store, record)?;
    let mut rebuilder = Rebuilder::new(store, &id, record.source);
    let mut previous: Option<Rendered> = None;
    let mut out = Vec::with_capacity(calls.len());
    for (i, call) in calls.iter().enumerate() {
        let rendered = render(&rebuilder.rebuild(call)?.body);
        let (prefix, divergence) = match &previous {
            Some(old) => shared_prefix(old, &rendered),
            None => (0, None),
        };
        out.push(CallCache {
            n: i + 1,
            cache_break: divergence.is_some(),
            common_prefix_tokens: estimate_tokens(prefix),
            cached_tokens: call.cached_tokens,
        });
        previous = Some(rendered);
    }
    Ok(out)
}

/// Compares request `n` with `against` (default `n − 1`) in rendering order.
pub fn diff(
    store: &Store,
    record: &Session,
    n: usize,
    against: Option<usize>,
    forensics: &Forensics,
) -> Result<CallDiff> {
    let (id, calls) = calls_of(store, record)?;
    let against = against.unwrap_or(n.saturating_sub(1));
    let (new_call, old_call) = (nth(&calls, n, &id)?, nth(&calls, against, &id)?);
    let mut rebuilder = Rebuilder::new(store, &id, record.source);
    let old_body = rebuilder.rebuild(&old_call)?.body;
    let new_body = rebuilder.rebuild(&new_call)?.body;
    let (new, old) = (render(&new_body), render(&old_body));
    let against_chars = rendered_chars(&old);
    let (prefix, divergence) = shared_prefix(&old, &new);
    let cache_break = divergence.is_some();
    let new_chars = rendered_chars(&new);
    let (same_messages, message_changes, tool_changes, param_changes) = structural_changes(&old, &new);
    let compactions = store.compactions(&id)?;
    let judge = breaks::Judge { book: &forensics.book, ttl_seconds: forensics.ttl_seconds, compactions: &compactions };
    let verdict = judge.judge((&old_call, &old), (&new_call, &new), prefix, divergence.as_ref());
    // When all of `against` is kept, the first divergence is the first item `n` adds (e.g. a
    // summarizer's appended request); only when nothing is added do the params decide.
    let first_divergence = divergence.unwrap_or_else(|| {
        if let Some((part, index, value)) = new.units.get(old.units.len()) {
            let shown = if *part == "messages" { Value::String(message_text(value)) } else { value.clone() };
            let after = excerpt(Some(&shown));
            return Divergence { part, index: *index, path: String::new(), before: "(absent)".into(), after };
        }
        let params =
            first_difference(&Value::Object(old.params.clone()), &Value::Object(new.params.clone()), String::new());
        match params {
            Some((path, before, after)) => Divergence { part: "params", index: None, path, before, after },
            None => Divergence {
                part: "none",
                index: None,
                path: String::new(),
                before: String::new(),
                after: String::new(),
            },
        }
    });
    Ok(CallDiff {
        n,
        against,
        common_prefix_chars: prefix,
        against_chars,
        common_prefix_tokens: estimate_tokens(prefix),
        cached_tokens: new_call.cached_tokens,
        cache_break,
        first_divergence,
        new_chars,
        same_messages,
        message_changes,
        tool_changes,
        param_changes,
        agent_reason: verdict.as_ref().and(new_call.agent_cache_reason.clone()),
        cause: verdict.as_ref().map(|v| v.cause),
        lost_tokens: verdict.as_ref().map(|v| v.lost_tokens),
        miss_cost_usd: verdict.and_then(|v| v.miss_cost),
    })
}
