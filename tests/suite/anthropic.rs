//! Anthropic Messages against a scripted Anthropic-compatible server: the request as the API
//! wants it (`x-api-key`, `anthropic-version`, three cache breakpoints, tool ids verbatim), its
//! events as the API streams them (`ping` included, an `error` event failing the turn), usage with
//! cache reads and writes in the ledger, and the cache-compatible strategy reading the previous
//! prefix from the server's prompt cache.

use pretty_assertions::assert_eq;
use serde_json::{json, Value};

use super::support::{Answer, Harness, Reply};

const KEY: &str = "sk-ant-api03-scripted-test-key";

fn anthropic(extra: Value) -> Value {
    let mut config = json!({"provider": {"api": "anthropic", "model": "claude-scripted", "apiKeyEnv": "ALISIO_TEST_ANTHROPIC_KEY", "stream": true},
                            "plugins": []});
    super::support::merge(&mut config, extra);
    config
}

fn breakpoint() -> Value {
    json!({"type": "ephemeral"})
}

#[tokio::test]
async fn a_turn_on_anthropic_sends_breakpoints_keeps_ids_and_records_cache_reads_and_writes() {
    let script = vec![
        Reply::Answer(Answer::calls(&[("toolu_01XyZ", "read_file", json!({"path": "notes.txt"}))])),
        Reply::Answer(Answer { usage: Some((0, 7, 0)), ..Answer::text("The notes say hello.") }),
    ];
    let mut h = Harness::with_config(script, anthropic(json!({}))).await;
    h.env.push(("ALISIO_TEST_ANTHROPIC_KEY".into(), KEY.into()));
    std::fs::write(h.ws().join("notes.txt"), "hello\n").unwrap();
    let run = h.run(&[], "what do the notes say?").await;
    run.assert_ok();
    assert!(run.stdout.contains("The notes say hello."));

    let received: Vec<_> = h.server.received().into_iter().filter(|r| r.is_model_call()).collect();
    assert_eq!(received.len(), 2);
    for r in &received {
        assert!(r.path.ends_with("/v1/messages"), "{}", r.path);
        assert_eq!(r.headers.get("x-api-key").map(String::as_str), Some(KEY));
        assert_eq!(r.headers.get("anthropic-version").map(String::as_str), Some("2023-06-01"));
        assert!(!r.headers.contains_key("authorization"), "the key goes as x-api-key only");
        let body = &r.body;
        assert_eq!(body["model"], "claude-scripted");
        assert_eq!(body["stream"], true);
        assert_eq!(body["system"].as_array().unwrap().last().unwrap()["cache_control"], breakpoint());
        let tools = body["tools"].as_array().unwrap();
        assert!(tools.iter().all(|t| t.get("input_schema").is_some() && t.get("function").is_none()));
        assert_eq!(tools.last().unwrap()["cache_control"], breakpoint());
        assert_eq!(tools.iter().filter(|t| t.get("cache_control").is_some()).count(), 1);
        let last = body["messages"].as_array().unwrap().last().unwrap();
        assert_eq!(last["content"].as_array().unwrap().last().unwrap()["cache_control"], breakpoint());
    }
    // The call and its result under the id the model gave, in Anthropic's blocks.
    let messages = received[1].body["messages"].as_array().unwrap();
    assert_eq!(messages.len(), 3, "{messages:#?}");
    assert_eq!(
        messages[1]["content"][0],
        json!({"type": "tool_use", "id": "toolu_01XyZ", "name": "read_file", "input": {"path": "notes.txt"}})
    );
    assert_eq!(messages[2]["role"], "user");
    assert_eq!(messages[2]["content"][0]["tool_use_id"], "toolu_01XyZ");
    assert_eq!(messages[2]["content"][0]["content"], "hello\n");

    // The ledger: the first call wrote the prefix to the cache, the second read it back.
    let rows = h.rows(
        "SELECT api, prompt_tokens, cached_tokens, cache_write_tokens, completion_tokens FROM model_calls ORDER BY id",
    );
    assert_eq!(rows.len(), 2);
    assert!(rows.iter().all(|r| r[0] == "messages"), "{rows:?}");
    let n = |v: &Value| v.as_u64().unwrap();
    assert_eq!(n(&rows[0][2]), 0);
    assert!(n(&rows[0][3]) > 0, "the first call writes the cache: {rows:?}");
    assert!(n(&rows[1][2]) >= n(&rows[0][3]), "the second reads the first's prefix: {rows:?}");
    assert_eq!(n(&rows[1][1]), n(&rows[1][2]) + n(&rows[1][3]) + (n(&rows[1][1]) - n(&rows[1][2]) - n(&rows[1][3])));
    assert_eq!(n(&rows[1][4]), 7);
    // The key is nowhere in the store.
    let db = std::fs::read(h.db_path()).unwrap();
    assert!(!String::from_utf8_lossy(&db).contains(KEY));
}

#[tokio::test]
async fn the_cache_strategy_on_anthropic_reads_the_previous_prefix_and_an_error_event_fails_the_turn() {
    let script = vec![
        Reply::Answer(Answer::calls(&[("toolu_A", "list_dir", json!({"path": "."}))])),
        Reply::Answer(Answer::text("GOAL: list the files. DONE: nothing yet. NEXT: list them again.")),
        Reply::Answer(Answer::text("resumed")),
        Reply::Paced(
            vec![
                "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"m\",\"usage\":{\"input_tokens\":5,\"output_tokens\":1}}}\n\n".into(),
                "event: ping\ndata: {\"type\":\"ping\"}\n\n".into(),
                "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n".into(),
            ],
            std::time::Duration::from_millis(10),
        ),
    ];
    let config = anthropic(
        json!({"compaction": {"strategy": "cache"}, "cacheCompact": {"contextLimit": 1024, "threshold": 50}}),
    );
    let h = Harness::with_config(script, config).await;
    let run = h.run(&[], "list the files").await;
    run.assert_ok();
    assert!(run.event_types().contains(&"compaction_completed".to_string()), "{:?}", run.event_types());
    let bodies = h.server.bodies();
    assert_eq!(bodies.len(), 3, "the step, the hand-off summary, the resumed step");
    // The hand-off: the previous request unchanged, then one user message after its breakpoint.
    let (step, summary) = (&bodies[0], &bodies[1]);
    assert_eq!(summary["system"], step["system"]);
    assert_eq!(summary["tools"], step["tools"]);
    let appended = summary["messages"].as_array().unwrap().last().unwrap();
    assert!(appended["content"][0].get("cache_control").is_none());
    assert!(appended["content"][0]["text"].as_str().unwrap().contains("summary"), "{appended}");
    // …and so it reads the step's prefix from the cache.
    let rows = h.rows("SELECT purpose, cached_tokens FROM model_calls ORDER BY id");
    assert_eq!(rows[1][0], "cache-summary");
    assert!(rows[1][1].as_u64().unwrap() > 0, "{rows:?}");
    let shown = h.alisio(&["sessions", "show", &run.session(), "--json"]).await.assert_ok().json();
    assert_eq!(shown["compactions"][0]["reason"], "cache");

    // A stream the API breaks off with an `error` event: the turn fails with the API's words.
    let failed = h.run(&["--session", &run.session()], "again").await;
    assert_eq!(failed.code, 1);
    assert!(failed.stderr.contains("overloaded_error"), "{}", failed.stderr);
}

/// With `provider.cacheDiagnostics` each request names the previous answer's id and carries the
/// beta header; the reason the API states for a miss is kept beside Alisio's own cause.
#[tokio::test]
async fn cache_diagnostics_name_the_previous_answer_and_the_stated_reason_sits_beside_alisios() {
    let checkpoint = json!({"goal": "g", "instructions": [], "discoveries": [], "accomplished": [], "currentState": "s",
                            "nextSteps": [], "relevantFiles": []});
    let script = vec![
        Reply::Answer(Answer::text("first answer")),
        Reply::Answer(Answer::text("second answer")),
        Reply::Answer(Answer::text(&checkpoint.to_string())),
        Reply::Answer(Answer::text("third answer")),
    ];
    let config = anthropic(json!({"provider": {"cacheDiagnostics": true}, "compaction": {"keepTurns": 1}}));
    let h = Harness::with_config(script, config).await;
    let session = h.run(&[], "first").await.assert_ok().session();
    h.run(&["--session", &session], "second").await.assert_ok();
    h.alisio(&["compact", &session]).await.assert_ok();
    h.run(&["--session", &session], "third").await.assert_ok();

    let received: Vec<_> = h.server.received().into_iter().filter(|r| r.is_model_call()).collect();
    assert_eq!(received.len(), 4);
    assert!(received
        .iter()
        .all(|r| r.headers.get("anthropic-beta").map(String::as_str) == Some("cache-diagnosis-2026-04-07")));
    let previous: Vec<Value> = received.iter().map(|r| r.body["diagnostics"]["previous_message_id"].clone()).collect();
    assert_eq!(previous[0], Value::Null, "the first request opts in with no previous answer");
    let ids: Vec<Value> = h
        .rows("SELECT json_extract(response, '$.id') FROM model_calls ORDER BY id")
        .into_iter()
        .map(|r| r[0].clone())
        .collect();
    assert_eq!(previous[1..], ids[..3], "each request names the answer before it");

    // After the compaction the history was rewritten: the API says messages_changed; Alisio's own
    // cause is the compaction.
    let breaks = h.alisio(&["calls", "breaks", &session, "--json"]).await.assert_ok().json();
    let after = breaks.as_array().unwrap().iter().find(|b| b["n"] == 4).unwrap_or_else(|| panic!("{breaks:#}"));
    assert_eq!(
        (after["cause"].clone(), after["agentReason"].clone()),
        (json!("compaction"), json!("messages_changed"))
    );
}

/// `calls replay` of a Claude Code call whose body its log recorded sends that body to the
/// Anthropic provider unchanged but for the model.
#[tokio::test]
async fn replaying_a_claude_code_call_sends_its_body_unchanged_but_for_the_model() {
    let h = Harness::with_config(vec![Reply::Answer(Answer::text("replayed"))], anthropic(json!({}))).await;
    let fixtures = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/import/claude");
    let imported = h.alisio(&["import", fixtures.to_str().unwrap(), "--json"]).await.assert_ok().json();
    let claude = imported["imported"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["sourceId"] == "46c4be69-b0e3-487e-97a4-c6832402089e")
        .unwrap();
    let id = claude["id"].as_str().unwrap();
    let original = h.alisio(&["calls", "show", id, "11", "--json"]).await.assert_ok().json();
    assert_eq!(original["requestSource"], "agent-log");
    let replay = h.alisio(&["calls", "replay", id, "11", "--json"]).await;
    replay.assert_ok();
    assert_eq!(replay.json()["replay"]["text"], "replayed");
    let sent = h.server.received().into_iter().filter(|r| r.is_model_call()).collect::<Vec<_>>();
    assert_eq!(sent.len(), 1);
    assert!(sent[0].path.ends_with("/messages"));
    let mut expected = original["request"].clone();
    expected["model"] = json!("claude-scripted");
    assert_eq!(sent[0].body, expected, "the logged body, but for the model");
}
