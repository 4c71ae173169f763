//! The conformance corpus (tests/fixtures/compat): every agent's session files across versions,
//! recorded from the real CLIs or kept as fixtures by other readers of these formats, each imported
//! into a fresh store and compared with the figures taken from the file's own records
//! (`expected.json`, `thirdparty.json`; made by the scripts in `compat/tools/`, never from Alisio).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{agents, import};
use crate::store::{SourceKind, Store};
use crate::transcript::Role;

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../tests/fixtures/compat")
}

/// One import path of the corpus with what its records say.
struct Entry {
    kind: SourceKind,
    agent: String,
    path: String,
    sessions: Vec<Value>,
}

fn entries(kind: SourceKind) -> Vec<Entry> {
    let agent = kind.as_str();
    let mut out = Vec::new();
    for file in ["expected.json", "thirdparty.json"] {
        let path = corpus().join(agent).join(file);
        let Ok(text) = std::fs::read_to_string(&path) else { continue };
        let list: Vec<Value> = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        for entry in list {
            out.push(Entry {
                kind,
                agent: agent.to_string(),
                path: entry["path"].as_str().unwrap_or_default().to_string(),
                sessions: entry["sessions"].as_array().cloned().unwrap_or_default(),
            });
        }
    }
    out
}

/// What Alisio made of one source session, in the corpus's terms.
#[derive(Debug, Default)]
struct Figures {
    parent: Option<crate::store::SessionId>,
    title: String,
    last_activity: String,
    prompts: u64,
    tool_calls: u64,
    tool_results: u64,
    compactions: u64,
    calls: u64,
    prompt_tokens: u64,
    cached_tokens: u64,
    cache_write_tokens: u64,
    cache_write_1h_tokens: u64,
    completion_tokens: u64,
    recorded_cost_usd: Option<f64>,
}

fn figures(store: &Store, id: &str) -> Figures {
    let session = store.resolve_session(id).unwrap();
    let id = &session.id;
    let messages = store.all_messages(id).unwrap();
    // The agent's own records: not a compaction's restated copies or checkpoints.
    let own: Vec<_> = messages.iter().filter(|m| m.created_by.is_none() && !m.summary).collect();
    let prompts = own.iter().filter(|m| super::is_prompt(m)).count() as u64;
    // Distinct call ids (a call written without one, as a trimmed copy may, has none to count).
    let calls: BTreeSet<&str> =
        own.iter().flat_map(|m| m.tool_calls.iter().map(|c| c.id.as_str())).filter(|id| !id.is_empty()).collect();
    let results: BTreeSet<&str> = own
        .iter()
        .filter(|m| m.role == Role::Tool)
        .filter_map(|m| m.tool_call_id.as_deref())
        .filter(|id| !id.is_empty())
        .collect();
    let ledger = store.model_calls(id).unwrap();
    let sum = |f: &dyn Fn(&crate::store::ModelCallRecord) -> Option<u64>| ledger.iter().filter_map(f).sum::<u64>();
    Figures {
        parent: session.parent_session.clone(),
        title: session.title.clone(),
        last_activity: session.updated_at.clone(),
        prompts,
        tool_calls: calls.len() as u64,
        tool_results: results.len() as u64,
        compactions: store.compactions(id).unwrap().len() as u64,
        // Calls the agent recorded figures for (a row Alisio rebuilt for a call the agent made but
        // did not record, such as a summarizer's, has none).
        calls: ledger
            .iter()
            .filter(|c| c.prompt_tokens.is_some() || c.completion_tokens.is_some())
            .map(|c| c.requests)
            .sum(),
        prompt_tokens: sum(&|c| c.prompt_tokens),
        cached_tokens: sum(&|c| c.cached_tokens),
        cache_write_tokens: sum(&|c| c.cache_write_tokens),
        cache_write_1h_tokens: sum(&|c| c.cache_write_1h_tokens),
        completion_tokens: sum(&|c| c.completion_tokens),
        recorded_cost_usd: store.recorded_cost(id).unwrap().map(|pd| pd as f64 / 1e12),
    }
}

/// The same instant, whatever precision or offset each side writes it with.
fn same_time(a: &str, b: &str) -> bool {
    let parse = |s: &str| chrono::DateTime::parse_from_rfc3339(s).map(|t| t.timestamp_millis());
    match (parse(a), parse(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => a == b,
    }
}

/// A title as the records say it, or shortened to the library's length with an ellipsis; a
/// slash command (Claude Code's `<command-name>` markup) is titled `/name args`.
fn same_title(ours: &str, theirs: &str) -> bool {
    let tag = |tag: &str| -> Option<String> {
        let start = theirs.find(&format!("<{tag}>"))? + tag.len() + 2;
        let end = theirs[start..].find(&format!("</{tag}>"))? + start;
        Some(theirs[start..end].trim().to_string())
    };
    let command = tag("command-name").map(|name| {
        let name = if name.starts_with('/') { name } else { format!("/{name}") };
        match tag("command-args").filter(|a| !a.is_empty()) {
            Some(args) => format!("{name} {args}"),
            None => name,
        }
    });
    let theirs = command.as_deref().unwrap_or(theirs).trim();
    let theirs = theirs.lines().find(|l| !l.trim().is_empty()).unwrap_or(theirs).trim();
    ours == theirs || ours.strip_suffix('…').is_some_and(|start| theirs.starts_with(start.trim_end()))
}

fn compare(kind: SourceKind, expected: &Value, ours: &Figures) -> Vec<String> {
    let mut out = Vec::new();
    let mut count = |key: &str, value: u64| {
        if let Some(want) = expected.get(key).and_then(Value::as_u64) {
            if want != value {
                out.push(format!("{key}: {value}, the records say {want}"));
            }
        }
    };
    count("prompts", ours.prompts);
    count("toolCalls", ours.tool_calls);
    count("toolResults", ours.tool_results);
    count("compactions", ours.compactions);
    count("calls", ours.calls);
    count("promptTokens", ours.prompt_tokens);
    count("cachedTokens", ours.cached_tokens);
    count("cacheWriteTokens", ours.cache_write_tokens);
    count("cacheWrite1hTokens", ours.cache_write_1h_tokens);
    count("completionTokens", ours.completion_tokens);
    if let Some(want) = expected.get("title").and_then(Value::as_str) {
        if !same_title(&ours.title, want) {
            out.push(format!("title: {:?}, the records say {want:?}", ours.title));
        }
    }
    if let Some(want) = expected.get("lastActivity").and_then(Value::as_str) {
        if !same_time(&ours.last_activity, want) {
            out.push(format!("lastActivity: {}, the records say {want}", ours.last_activity));
        }
    }
    match expected.get("recordedCostUsd") {
        Some(Value::String(want)) => {
            let want: f64 = want.parse().unwrap_or(f64::NAN);
            if ours.recorded_cost_usd.is_none_or(|c| (c - want).abs() > 1e-9) {
                out.push(format!("recordedCostUsd: {:?}, the records say {want}", ours.recorded_cost_usd));
            }
        }
        Some(Value::Null) if ours.recorded_cost_usd.is_some() => {
            out.push(format!("recordedCostUsd: {:?}, the records say none", ours.recorded_cost_usd))
        }
        _ => {}
    }
    // The parent by its source id, as the session Alisio keeps it in (it may not be imported).
    let want_parent = expected.get("parent").and_then(Value::as_str);
    if expected.get("parent").is_some() && want_parent.map(|p| super::session_id(kind, p)) != ours.parent {
        out.push(format!("parent: {:?}, the records say {want_parent:?}", ours.parent));
    }
    out
}

/// Imports one corpus path into a fresh store; returns what differs from its records.
fn check(entry: &Entry) -> Vec<String> {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("s.db")).unwrap();
    let path = corpus().join(&entry.agent).join(&entry.path);
    let report = import(&store, std::slice::from_ref(&path));
    let mut problems: Vec<String> = report.errors.iter().map(|e| format!("not read: {}", e.error)).collect();
    let ours: BTreeMap<String, String> =
        report.imported.iter().map(|s| (s.source_id.clone(), s.id.to_string())).collect();
    for expected in &entry.sessions {
        let source_id = expected["sourceId"].as_str().unwrap_or_default();
        match ours.get(source_id) {
            None => {
                problems.push(format!("{source_id}: no session (Alisio read {:?})", ours.keys().collect::<Vec<_>>()))
            }
            Some(id) => {
                for p in compare(entry.kind, expected, &figures(&store, id)) {
                    problems.push(format!("{source_id}: {p}"));
                }
            }
        }
    }
    // A file the records say holds no session is named as unread, with why (never skipped silently).
    if entry.sessions.is_empty() && path.is_file() && report.imported.is_empty() {
        let named = report.unread.iter().any(|u| Path::new(&u.path) == path) || !report.unknown.is_empty();
        if !named {
            problems.push("holds no session and is not listed as unread".into());
        }
    }
    let wanted: BTreeSet<&str> = entry.sessions.iter().filter_map(|s| s["sourceId"].as_str()).collect();
    for extra in ours.keys().filter(|k| !wanted.contains(k.as_str())) {
        problems.push(format!("{extra}: a session the records do not hold"));
    }
    problems
}

/// Every file of every agent's corpus is read as its records say.
#[test]
fn every_file_of_every_agent_reads_as_its_records_say() {
    let only = std::env::var("ALISIO_CORPUS_AGENT").ok();
    let mut failures = Vec::new();
    let mut checked = 0;
    for kind in agents::AGENTS.iter().map(|a| a.kind) {
        let agent = kind.as_str();
        if only.as_deref().is_some_and(|o| o != agent) {
            continue;
        }
        let list = entries(kind);
        if list.is_empty() {
            failures.push(format!("{agent}: no corpus in {}", corpus().join(agent).display()));
        }
        for entry in list {
            checked += 1;
            let problems = check(&entry);
            if !problems.is_empty() {
                failures.push(format!("{}/{}:\n    {}", entry.agent, entry.path, problems.join("\n    ")));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {checked} corpus paths differ from their records:\n{}",
        failures.len(),
        failures.join("\n")
    );
}
