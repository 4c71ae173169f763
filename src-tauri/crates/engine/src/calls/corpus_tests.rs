//! The requests of other agents' real sessions against the bodies those agents really sent
//! (tests/fixtures/import/requests: the scripted server's log while the real CLIs wrote the
//! sessions of tests/fixtures/import).

use std::path::{Path, PathBuf};

use pretty_assertions::assert_eq;
use serde_json::Value;

use super::{list, show, CallDetail, Forensics};
use crate::import::import;
use crate::store::{Purpose, RequestSource, Session, Store};

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../tests/fixtures/import")
}

fn imported(store: &Store, path: &str) -> Session {
    let report = import(store, &[fixtures().join(path)]);
    assert!(report.errors.is_empty(), "{report:?}");
    store.resolve_session(&report.imported[0].id).unwrap()
}

fn logged(agent: &str, file: &str) -> Value {
    let text = std::fs::read_to_string(fixtures().join("../requests").join(agent).join(file)).unwrap();
    serde_json::from_str::<Value>(&text).unwrap()["body"].take()
}

/// The trimmed log: bodies by their number in the log.
fn trimmed_log(agent: &str) -> Vec<Value> {
    let text =
        std::fs::read_to_string(fixtures().join("../requests").join(agent).join("requests.trimmed.jsonl")).unwrap();
    text.lines().map(|l| serde_json::from_str::<Value>(l).unwrap()).collect()
}

/// Whether `ours` is the body the trimmed log shows: the same keys, items and short strings; a
/// long string there is its start and its length (`...[N chars]`). The trimmed log was written from
/// a log a few characters off the whole bodies kept beside it (their long system texts differ by
/// a handful of characters), so a long string must share the start the log shows, not its length.
fn like_trimmed(ours: &Value, log: &Value, at: &str) -> Result<(), String> {
    match (ours, log) {
        (Value::String(a), Value::String(b)) => match b.rsplit_once("...[") {
            Some((start, rest)) if rest.ends_with(" chars]") => {
                let start: String = start.chars().take(300).collect();
                (a.chars().count() > 400 && a.starts_with(&start))
                    .then_some(())
                    .ok_or(format!("{at}: {a:.80} vs {b:.80}"))
            }
            _ => (a == b).then_some(()).ok_or(format!("{at}: {a:.80} vs {b:.80}")),
        },
        (Value::Array(a), Value::Array(b)) if a.len() == b.len() => {
            a.iter().zip(b).enumerate().try_for_each(|(i, (x, y))| like_trimmed(x, y, &format!("{at}/{i}")))
        }
        (Value::Object(a), Value::Object(b)) if a.len() == b.len() => a.iter().try_for_each(|(k, x)| {
            b.get(k).ok_or(format!("{at}/{k}: not sent")).and_then(|y| like_trimmed(x, y, &format!("{at}/{k}")))
        }),
        _ => (ours == log).then_some(()).ok_or(format!("{at}: {ours:.80} vs {log:.80}")),
    }
}

/// What Claude Code's log leaves out: `metadata`, `stream` and the billing-header block.
fn without_unlogged(mut body: Value) -> Value {
    let map = body.as_object_mut().unwrap();
    map.shift_remove("metadata");
    map.shift_remove("stream");
    if let Some(system) = map.get_mut("system").and_then(Value::as_array_mut) {
        if system.first().and_then(|b| b["text"].as_str()).is_some_and(|t| t.starts_with("x-anthropic-billing-header"))
        {
            system.remove(0);
        }
    }
    body
}

fn tool_names(body: &mut Value) {
    if let Some(tools) = body.get_mut("tools").and_then(Value::as_array_mut) {
        for tool in tools.iter_mut() {
            *tool = Value::String(format!("<tool {}>", tool["name"].as_str().unwrap_or_default()));
        }
    }
}

#[test]
fn claude_code_calls_are_the_bodies_it_sent_and_its_summaries_are_labelled_rows() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("sessions.db")).unwrap();
    let log = trimmed_log("claude-code");
    // The log's numbers of each session's calls, `None` for its compaction's summary call.
    let manual: Vec<Option<usize>> = (1..=9).map(Some).chain([None, Some(11), Some(12)]).collect();
    let auto: Vec<Option<usize>> = (13..=26).map(Some).chain([Some(51), None, Some(53), Some(54)]).collect();
    let sessions = [
        ("claude/-home-dev-work-claude-proj/46c4be69-b0e3-487e-97a4-c6832402089e.jsonl", manual, 11, 10),
        ("claude/-home-dev-work-claude-proj2/faaaa1c5-4d1d-4d48-89dc-36ff50d7fd83.jsonl", auto, 53, 52),
    ];
    for (path, numbers, whole, summarizer) in sessions {
        let session = imported(&store, path);
        let summary = list(&store, &session, &Forensics::new(&crate::config::ConfigFile::default()).unwrap()).unwrap();
        assert_eq!(summary.len(), numbers.len(), "every call of the file is a ledger row");
        for (i, number) in numbers.iter().enumerate() {
            let detail: CallDetail = show(&store, &session, i + 1).unwrap();
            let Some(number) = number else {
                // The summary call Claude Code does not log: a reconstructed row, never exact.
                assert_eq!(
                    (detail.purpose, detail.request_source, detail.exact),
                    (Purpose::Compaction, RequestSource::Reconstructed, false)
                );
                let sent = logged(
                    "claude-code",
                    &format!(
                        "req{summarizer}-{}",
                        if summarizer == 10 {
                            "manual-compaction-summarizer.json"
                        } else {
                            "auto-compaction-summarizer.json"
                        }
                    ),
                );
                // What it shows is the conversation summarized, and it says what it lacks.
                assert!(detail.request.get("max_tokens").is_none() && detail.request.get("stream").is_none());
                let parts: Vec<&str> = detail.missing.iter().map(|m| m.part.as_str()).collect();
                assert_eq!(parts, ["tools", "params"], "the system prompt is the one its log recorded");
                let shown = detail.request["messages"][0]["content"].as_str().unwrap_or_default();
                assert!(shown.contains(sent["system"][2]["text"].as_str().unwrap()));
                assert!(detail.missing.iter().all(|m| m.estimated_tokens > 0));
                let tools_sent = crate::transcript::estimate_tokens(sent["tools"].to_string().chars().count() as u64);
                let tools_said = detail.missing[0].estimated_tokens;
                assert!(tools_said.abs_diff(tools_sent) * 10 <= tools_sent, "tools ≈ {tools_sent}, said {tools_said}");
                assert!(!detail.omitted.is_empty(), "the summarizer's instructions are said to be left out");
                continue;
            };
            assert_eq!((detail.request_source, detail.exact), (RequestSource::AgentLog, true), "call {}", i + 1);
            assert_eq!(detail.purpose, Purpose::Turn);
            let mut ours = detail.request.clone();
            tool_names(&mut ours);
            let sent = without_unlogged(log[number - 1]["body"].clone());
            if let Err(difference) = like_trimmed(&ours, &sent, "") {
                panic!("call {} is not request {number} of the log: {difference}", i + 1);
            }
            if *number == whole {
                // Kept whole in the log: equal key for key, tools and long texts included.
                let sent = without_unlogged(logged(
                    "claude-code",
                    &format!("req{whole}-first-after-{}-compaction.json", if whole == 11 { "manual" } else { "auto" }),
                ));
                assert_eq!(detail.request, sent);
                let keys: Vec<&String> = detail.request.as_object().unwrap().keys().collect();
                let sent_keys: Vec<&String> = sent.as_object().unwrap().keys().collect();
                assert_eq!(keys, sent_keys, "in the order sent");
                assert!(detail.omitted.iter().any(|o| o.contains("billing-header")));
                assert!(detail.composition.tools.iter().map(|t| t.chars).sum::<u64>() > 0);
                assert!(detail.composition.system.chars > 0 && detail.composition.checkpoint.chars > 0);
            }
        }
    }
}

#[test]
fn codex_and_opencode_calls_are_labelled_reconstructed_and_invent_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("sessions.db")).unwrap();
    let sources = [
        (
            "codex/2026/11/30/rollout-2026-11-30T17-48-49-01a22d92-df3a-72a1-bd0b-7184d9a4858e.jsonl",
            "codex",
            vec!["tools", "system"],
        ),
        ("opencode/opencode.db", "opencode", vec!["tools", "system"]),
    ];
    for (path, agent, must_miss) in sources {
        let session = imported(&store, path);
        let sent = logged(agent, "req11-first-after-manual-compaction.json");
        let sent_keys: Vec<&str> = sent.as_object().unwrap().keys().map(String::as_str).collect();
        let calls = list(&store, &session, &Forensics::new(&crate::config::ConfigFile::default()).unwrap()).unwrap();
        assert!(!calls.is_empty());
        for call in &calls {
            assert_eq!((call.request_source, call.exact), (RequestSource::Reconstructed, false));
            let detail = show(&store, &session, call.n).unwrap();
            // Only keys the agent sends, and none made up.
            for key in detail.request.as_object().unwrap().keys() {
                assert!(sent_keys.contains(&key.as_str()), "{agent} never sent {key:?}");
            }
            assert!(detail.request.get("max_tokens").is_none() && detail.request.get("stream").is_none());
            for part in &must_miss {
                let missing = detail.missing.iter().find(|m| m.part == *part);
                assert!(
                    missing.is_some_and(|m| m.estimated_tokens > 0),
                    "{agent}: {part} missing: {:?}",
                    detail.missing
                );
            }
        }
    }
}

/// A Claude Code log that names a message it never wrote: the row is put together with a
/// placeholder, and so says it is not exact and lists what is missing. A response written over
/// several records (parallel tool calls) is found whole for the log's reference to it.
#[test]
fn a_logged_request_naming_a_part_never_written_is_not_exact_and_a_split_response_is_found_whole() {
    use serde_json::json;
    let forensics = Forensics::new(&crate::config::ConfigFile::default()).unwrap();
    let source = std::fs::read_to_string(
        fixtures().join("claude/-home-dev-work-claude-proj/46c4be69-b0e3-487e-97a4-c6832402089e.jsonl"),
    )
    .unwrap();
    let lines: Vec<&str> = source.lines().collect();
    let blobs: Vec<usize> = (0..lines.len()).filter(|&i| lines[i].contains("\"type\":\"api-request-blob\"")).collect();
    // Each blob left out in turn: those only the log held leave a gap.
    let mut gaps = 0;
    for skip in blobs {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("46c4be69-b0e3-487e-97a4-c6832402089e.jsonl");
        let kept: Vec<&str> = lines.iter().enumerate().filter(|(i, _)| *i != skip).map(|(_, l)| *l).collect();
        std::fs::write(&path, kept.join("\n") + "\n").unwrap();
        let store = Store::open(&dir.path().join("s.db")).unwrap();
        let report = import(&store, &[path]);
        let session = store.resolve_session(&report.imported[0].id).unwrap();
        for (i, row) in list(&store, &session, &forensics).unwrap().iter().enumerate() {
            let detail = show(&store, &session, i + 1).unwrap();
            let placeholder = detail.request.to_string().contains("[not in the log:");
            assert_eq!(row.exact, detail.exact, "the list and the call agree");
            if placeholder {
                gaps += 1;
                assert!(!detail.exact, "a body with a placeholder never says exact");
                assert!(
                    detail.missing.iter().any(|m| m.part == "messages" && m.estimated_tokens > 0),
                    "{:?}",
                    detail.missing
                );
            } else if detail.request_source == RequestSource::AgentLog {
                assert!(detail.exact);
            }
        }
    }
    assert!(gaps > 0, "some blob is held only by the log");

    // Two records of one response (two tool_use blocks), then a logged request that names the
    // response whole: it is found, and the row is exact.
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("7a1e0c33-0000-4000-8000-000000000001.jsonl");
    let a = json!({"type": "tool_use", "id": "toolu_A", "name": "Read", "input": {"file_path": "a.rs"}});
    let b = json!({"type": "tool_use", "id": "toolu_B", "name": "Read", "input": {"file_path": "b.rs"}});
    let usage = json!({"input_tokens": 10, "output_tokens": 3});
    let whole = json!({"role": "assistant", "content": [a, b]});
    let at = "2026-11-30T10:00:00.000Z";
    let records = [
        json!({"type": "user", "uuid": "u1", "parentUuid": null, "sessionId": "s", "timestamp": at, "message": {"role": "user", "content": "read both"}}),
        json!({"type": "assistant", "uuid": "a1", "parentUuid": "u1", "sessionId": "s", "timestamp": at, "message": {"id": "msg_1", "role": "assistant", "model": "m", "content": [a], "usage": usage}}),
        json!({"type": "assistant", "uuid": "a2", "parentUuid": "a1", "sessionId": "s", "timestamp": at, "message": {"id": "msg_1", "role": "assistant", "model": "m", "content": [b], "usage": usage}}),
        json!({"type": "api-request", "id": "rq2", "querySource": "print", "timestamp": at, "keep": 0,
               "tail": [crate::calls::claude_log::part_hash(&json!({"role": "user", "content": "read both"})),
                        crate::calls::claude_log::part_hash(&whole)],
               "params": {"model": "m"}}),
        json!({"type": "assistant", "uuid": "a3", "parentUuid": "a2", "sessionId": "s", "timestamp": at, "message": {"id": "msg_2", "role": "assistant", "model": "m", "content": [{"type": "text", "text": "done"}], "usage": usage}}),
    ];
    std::fs::write(&path, records.iter().map(Value::to_string).collect::<Vec<_>>().join("\n") + "\n").unwrap();
    let store = Store::open(&dir.path().join("s.db")).unwrap();
    let report = import(&store, &[path]);
    let session = store.resolve_session(&report.imported[0].id).unwrap();
    let detail = show(&store, &session, 2).unwrap();
    assert_eq!(detail.request_source, RequestSource::AgentLog);
    assert!(detail.exact, "{}", detail.request);
    assert_eq!(detail.request["messages"][1], whole, "the two records as the one message sent");
}
