//! The orchestration, driven through the real agent loop and store with the in-process scripted
//! model: trigger → plan → one transaction; cache trip → summary → cut; budget → reduce →
//! last-resort compaction → error. Each asserts on the requests the model received and the rows
//! in a real SQLite file.

use std::sync::{Arc, Mutex};

use pretty_assertions::assert_eq;
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use super::{Engine, TurnRequest, ABORTED_RESULT};
use crate::compaction::cache::{HANDOFF_REQUEST, SUMMARY_HEADING};
use crate::config::{self, Config};
use crate::error::Error;
use crate::events::{CompactionReason, Envelope};
use crate::model::scripted::{answer, tool_calls};
use crate::model::ScriptedClient;
use crate::store::compactions::Status;
use crate::store::Store;
use crate::tools::FixedApprover;

struct Fixture {
    _dir: tempfile::TempDir,
    workspace: std::path::PathBuf,
    store: Arc<Store>,
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let workspace = dir.path().join("ws");
    std::fs::create_dir_all(&workspace).unwrap();
    let store = Arc::new(Store::open(&dir.path().join("sessions.db")).unwrap());
    Fixture { _dir: dir, workspace, store }
}

fn config(raw: Value) -> Config {
    let mut base =
        json!({"provider": {"stream": false}, "plugins": [], "permissions": {"shell": "allow", "write": "allow"}});
    merge(&mut base, raw);
    config::from_value(&base).unwrap()
}

fn merge(base: &mut Value, patch: Value) {
    match (base, patch) {
        (Value::Object(base), Value::Object(patch)) => {
            for (key, value) in patch {
                merge(base.entry(key).or_insert(Value::Null), value);
            }
        }
        (base, patch) => *base = patch,
    }
}

/// Collects the event types, in order.
#[derive(Default)]
struct Events(Mutex<Vec<Value>>);

impl Events {
    fn types(&self) -> Vec<String> {
        self.0.lock().unwrap().iter().map(|e| e["type"].as_str().unwrap().to_string()).collect()
    }
}

impl crate::events::EventSink for Events {
    fn emit(&self, envelope: &Envelope) {
        let value = serde_json::to_value(envelope).unwrap();
        if value["type"] != "text_delta" {
            self.0.lock().unwrap().push(value);
        }
    }
}

async fn turn(
    engine: &Engine,
    fx: &Fixture,
    session: Option<&str>,
    prompt: &str,
    events: &Events,
) -> crate::Result<crate::store::SessionId> {
    let request = TurnRequest {
        session: session.map(str::to_string),
        prompt: prompt.into(),
        workspace: fx.workspace.clone(),
        approver: Arc::new(FixedApprover(true)),
    };
    Ok(crate::store::SessionId::from_string(engine.run_turn(request, events, &CancellationToken::new()).await?.session))
}

fn messages(body: &Value) -> Vec<Value> {
    body["messages"].as_array().unwrap().clone()
}

fn checkpoint_answer() -> Value {
    let sections = json!({
        "goal": "Answer the user's questions", "instructions": [], "discoveries": ["the first answer was long"],
        "accomplished": ["answered once"], "currentState": "waiting", "nextSteps": ["answer again"],
        "relevantFiles": [],
    });
    answer(&sections.to_string(), 100, 0)
}

#[tokio::test]
async fn an_automatic_compaction_plans_from_the_trigger_and_lands_in_one_record() {
    let fx = fixture();
    let long = "x".repeat(3000);
    let client =
        Arc::new(ScriptedClient::new([answer(&long, 100, 0), answer("second answer", 100, 0)], [checkpoint_answer()]));
    let config = config(json!({"compaction": {"keepTurns": 1, "threshold": 0.5}, "limits": {"maxContextChars": 6000}}));
    let engine = Engine::with_client(config, fx.store.clone(), client.clone()).unwrap();
    let events = Events::default();
    let id = turn(&engine, &fx, None, "first question", &events).await.unwrap();
    assert!(engine.store().compactions(&id).unwrap().is_empty(), "under the trigger: nothing compacted");

    turn(&engine, &fx, Some(&id), "second question", &events).await.unwrap();

    let received = client.received();
    assert_eq!(received.len(), 3, "turn 1, the summarizer, turn 2");
    // The summarizer got the live request as last sent with one appended user message and no
    // tools allowed; the new prompt, kept after the checkpoint, is not read twice.
    let summarizer = messages(&received[1]);
    assert_eq!(received[1]["tool_choice"], "none");
    assert_eq!(received[1]["tools"], received[0]["tools"]);
    let turn1 = messages(&received[0]);
    assert_eq!(summarizer[..2], turn1[..], "same system prompt and history");
    assert_eq!(summarizer[2]["content"], json!(long));
    assert_eq!(summarizer.len(), 4);
    assert!(summarizer[3]["content"].as_str().unwrap().contains("goal"), "the summary request asks for the sections");
    // One applied record: the first turn is hidden behind a checkpoint; the second turn is kept.
    let records = engine.store().compactions(&id).unwrap();
    assert_eq!(records.len(), 1);
    assert_eq!((records[0].reason, records[0].status), (CompactionReason::Auto, Status::Applied));
    assert_eq!(records[0].span_seqs(), vec![1, 2]);
    let stored = engine.store().all_messages(&id).unwrap();
    let compacted: Vec<i64> = stored.iter().filter(|m| m.compacted).map(|m| m.seq).collect();
    assert_eq!(compacted, vec![1, 2]);
    // Turn 2's request carries the checkpoint instead of the long answer.
    let sent = messages(&received[2]);
    assert!(sent.iter().all(|m| m["content"] != long.as_str()));
    assert!(sent[1]["content"].as_str().unwrap().contains("answer again"), "{:?}", sent[1]);
    assert_eq!(sent[2]["content"], "second question");
    let types = events.types();
    let started = types.iter().position(|t| t == "compaction_started").unwrap();
    assert_eq!(types[started + 1], "compaction_completed");
}

#[tokio::test]
async fn a_cache_trip_summarizes_by_appending_then_cuts_and_resumes() {
    let fx = fixture();
    let client = Arc::new(ScriptedClient::new(
        [
            tool_calls("writing", &[("call_w", "write_file", json!({"path": "out.txt", "content": "x"}))], 7000, 0),
            answer("Wrote nothing yet; next: write out.txt.", 7100, 6900),
            answer("done", 500, 0),
        ],
        [],
    ));
    let config = config(json!({
        "provider": {"contextWindow": 10000},
        "compaction": {"strategy": "cache"},
        "cacheCompact": {"threshold": 68, "abortOnTrip": true, "autoResume": true},
    }));
    let engine = Engine::with_client(config, fx.store.clone(), client.clone()).unwrap();
    let events = Events::default();
    let id = turn(&engine, &fx, None, "write out.txt", &events).await.unwrap();

    assert!(!fx.workspace.join("out.txt").exists(), "the tripped step's call must not run");
    let received = client.received();
    assert_eq!(received.len(), 3, "the turn, the hand-off summary, the resumed turn");
    // The summary request is the previous request unchanged plus the answer, its result and the hand-off.
    let first = messages(&received[0]);
    let summary = messages(&received[1]);
    assert_eq!(summary[..first.len()], first[..]);
    assert_eq!(summary[first.len()]["tool_calls"][0]["id"], "call_w");
    assert_eq!(summary[first.len() + 1]["content"], format!("error: {ABORTED_RESULT}"));
    assert_eq!(summary[first.len() + 2]["content"], HANDOFF_REQUEST);
    assert_eq!(received[1]["tools"], received[0]["tools"]);
    // After the cut: system, the summary, the resume prompt.
    let resumed = messages(&received[2]);
    assert_eq!(resumed.len(), 3);
    assert_eq!(resumed[0], first[0]);
    // The hand-off, then the artifact trail Alisio recorded of the cut messages.
    assert_eq!(
        resumed[1]["content"],
        format!("{SUMMARY_HEADING}\n\nWrote nothing yet; next: write out.txt.\n\nFiles touched (recorded by Alisio):\n- out.txt (written: x)")
    );
    assert_eq!(resumed[2]["content"], engine.config().cache_compact.resume_prompt);
    let records = engine.store().compactions(&id).unwrap();
    assert_eq!(records.len(), 1);
    assert_eq!(records[0].reason, CompactionReason::Cache);
    assert!(!engine.store().cache_latched(&id).unwrap(), "the resumed request (500 tokens) re-armed the latch");
}

#[tokio::test]
async fn over_the_hard_limit_it_reduces_tries_the_last_resort_once_then_refuses_without_sending() {
    let fx = fixture();
    let client = Arc::new(ScriptedClient::new([answer("short answer", 100, 0)], [checkpoint_answer()]));
    let small = config(json!({"compaction": {"keepTurns": 1}, "limits": {"maxContextChars": 4000}}));
    let engine = Engine::with_client(small, fx.store.clone(), client.clone()).unwrap();
    let events = Events::default();
    let id = turn(&engine, &fx, None, "first question", &events).await.unwrap();

    // Instructions alone now fill the limit: nothing the engine may cut can make the request fit.
    let strict = config(json!({
        "compaction": {"keepTurns": 1}, "limits": {"maxContextChars": 4000}, "instructions": "Be careful. ".repeat(330),
    }));
    let engine = Engine::with_client(strict, fx.store.clone(), client.clone()).unwrap();
    let events = Events::default();
    let err = turn(&engine, &fx, Some(&id), &"y".repeat(6000), &events).await.unwrap_err();

    let Error::Budget(message) = err else { panic!("expected the budget error, got {err:?}") };
    assert!(message.starts_with("Context budget exceeded (approximately "), "{message}");
    assert!(message.contains("limit 4000"), "{message}");
    assert!(message.contains("Automatic compaction failed"), "{message}");
    // The summarizer would carry the same oversized conversation: it is refused like any request.
    let received = client.received();
    assert_eq!(received.len(), 1, "only turn 1: neither the summary requests nor the oversized turn were sent");
    let reasons: Vec<CompactionReason> = engine.store().compactions(&id).unwrap().iter().map(|r| r.reason).collect();
    assert_eq!(reasons, vec![CompactionReason::Budget], "the prompt was cut in place");
    let types = events.types();
    assert!(types.contains(&"context_reduced".to_string()), "{types:?}");
    // What compaction cannot shrink (the instructions) alone passes the trigger: the automatic
    // compaction is not attempted, the session is told why; the last resort still runs once.
    assert_eq!(types.iter().filter(|t| *t == "compaction_skipped").count(), 1, "{types:?}");
    assert_eq!(types.iter().filter(|t| *t == "compaction_failed").count(), 1, "the last resort: {types:?}");
    assert_eq!(types.last().map(String::as_str), Some("error"));
}
