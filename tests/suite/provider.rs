//! The provider strategy against scripted servers that speak the APIs' own context management
//! (tests/suite/support/context.rs): Anthropic's server compaction and context editing, the
//! Responses API's compaction item and `/responses/compact`. The requests are snapshot-tested; what
//! the next request re-processes is read from the server's prompt cache.

use serde_json::{json, Value};

use super::support::{Answer, Harness, Reply};

fn config(api: &str, provider: Value) -> Value {
    json!({"provider": {"api": api, "model": "scripted-model", "stream": true, "apiKeyEnv": "ALISIO_TEST_PROVIDER_KEY"},
           "plugins": [], "compaction": {"strategy": "provider", "provider": provider}})
}

/// A request as a snapshot: one line per message (role, then each block or item, long text cut),
/// then `context_management` and the options; the workspace path as `<workspace>`.
fn render(body: &Value, workspace: &str) -> String {
    let short = |v: &Value| {
        let text = v.as_str().map(str::to_string).unwrap_or_else(|| v.to_string()).replace(workspace, "<workspace>");
        let text = text.replace('\n', "⏎");
        match text.chars().count() {
            n if n > 120 => format!("{}… ({n} chars)", text.chars().take(120).collect::<String>()),
            _ => text,
        }
    };
    let mut out = Vec::new();
    let items =
        body.get("messages").or_else(|| body.get("input")).and_then(Value::as_array).cloned().unwrap_or_default();
    for item in items {
        let head = item["role"].as_str().or_else(|| item["type"].as_str()).unwrap_or("?").to_string();
        let parts: Vec<String> = match &item["content"] {
            Value::Array(blocks) => blocks
                .iter()
                .map(|b| {
                    let body =
                        b.get("text").or_else(|| b.get("content")).or_else(|| b.get("input")).unwrap_or(&Value::Null);
                    format!("[{}] {}", b["type"].as_str().unwrap_or("?"), short(body))
                })
                .collect(),
            Value::Null => vec![short(&json!(item.as_object().map(|o| o.keys().cloned().collect::<Vec<_>>())))],
            other => vec![short(other)],
        };
        out.push(format!("{head}: {}", parts.join(" | ")));
    }
    if let Some(field) = body.get("context_management") {
        out.push(format!("context_management: {field}"));
    }
    let mut options: Vec<String> = body
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(k, _)| {
            !matches!(k.as_str(), "messages" | "input" | "tools" | "system" | "context_management" | "instructions")
        })
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    options.sort();
    out.push(format!("options: {}", options.join(" ")));
    out.join("\n")
}

fn snapshot(h: &Harness, path_end: &str) -> Vec<String> {
    let workspace = h.ws().canonicalize().unwrap().display().to_string();
    h.server.received().iter().filter(|r| r.path.ends_with(path_end)).map(|r| render(&r.body, &workspace)).collect()
}

/// A file of `n` numbered lines of about 80 characters.
fn big_file(n: usize) -> String {
    (0..n)
        .map(|i| format!("line {i:06}: the quick brown fox jumps over the lazy dog, again and again and again\n"))
        .collect()
}

#[tokio::test]
async fn anthropic_server_compaction_becomes_a_provider_record_the_next_turn_starts_from() {
    let script = vec![
        Reply::Answer(Answer::calls(&[("toolu_big", "read_file", json!({"path": "big.txt"}))])),
        Reply::Answer(Answer::text("I read big.txt.")),
        Reply::Answer(Answer::text("Tabs it is.")),
    ];
    let mut h = Harness::with_config(script, config("anthropic", json!({"trigger": 50_000}))).await;
    h.env.push(("ALISIO_TEST_PROVIDER_KEY".into(), "sk-ant-scripted".into()));
    std::fs::write(h.ws().join("big.txt"), big_file(3_000)).unwrap();
    std::fs::write(h.ws().join("AGENTS.md"), "Indent with tabs.\n").unwrap();
    let first = h.run(&[], "read big.txt").await;
    first.assert_ok();
    let session = first.session();
    assert!(first.event_types().contains(&"compaction_completed".to_string()), "{}", first.stdout);
    let second = h.run(&["--session", &session], "how should I indent?").await;
    second.assert_ok();

    let turns: Vec<_> = h.server.received().into_iter().filter(|r| r.is_model_call()).collect();
    assert_eq!(turns.len(), 3);
    for r in &turns {
        assert_eq!(r.headers.get("anthropic-beta").map(String::as_str), Some("compact-2026-01-12"));
        assert_eq!(r.body["context_management"]["edits"][0]["trigger"]["value"], 50_000);
    }
    insta::assert_snapshot!("anthropic_turn_after_server_compaction", snapshot(&h, "/messages")[2]);

    // The record: the server's summary as its checkpoint, everything before the answer hidden.
    let rows =
        h.rows("SELECT reason, status, json_extract(checkpoint, '$.text'), summarized_messages FROM compactions");
    assert_eq!(rows.len(), 1, "{rows:?}");
    assert_eq!((rows[0][0].as_str(), rows[0][1].as_str()), (Some("provider"), Some("applied")));
    let summary = rows[0][2].as_str().unwrap();
    assert!(summary.starts_with("Summary of the conversation so far") && summary.contains("big.txt"), "{summary}");
    assert_eq!(rows[0][3], json!(3), "the prompt, the call and its result");
    // The ledger bills the compaction's own step: its input beside the message's.
    let billed = h.rows("SELECT prompt_tokens FROM model_calls ORDER BY id");
    assert!(billed[1][0].as_u64().unwrap() > 50_000, "{billed:?}");
    // The view is the next request: the model view of the session now ends where turn 3 began.
    let view = h.alisio(&["sessions", "show", &session, "--view", "model", "--json"]).await;
    let messages = view.assert_ok().json()["messages"].clone();
    assert_eq!(messages[0]["role"], "system", "the system prompt first, as the body takes it out");
    assert_eq!(messages[1]["content"][0]["type"], "compaction");
    assert_eq!(messages[2]["role"], "system", "the pins restated as a system message: {messages:#}");
    // The prefix cache after the compaction: turn 3 re-reads only what followed the block.
    let cached = h.rows("SELECT cached_tokens, cache_write_tokens FROM model_calls ORDER BY id");
    assert!(cached[2][1].as_u64().unwrap() < 1_000, "turn 3 writes little: {cached:?}");
}

#[tokio::test]
async fn anthropic_context_editing_is_recorded_with_its_figures_and_the_history_stays_whole() {
    let read = |id: &str, path: &str| Reply::Answer(Answer::calls(&[(id, "read_file", json!({"path": path}))]));
    let script = vec![read("toolu_a", "a.txt"), read("toolu_b", "b.txt"), Reply::Answer(Answer::text("Both read."))];
    let provider =
        json!({"clearToolUses": true, "clearToolUsesTrigger": 1_000, "keepToolUses": 1, "clearAtLeast": 500});
    let mut h = Harness::with_config(script, config("anthropic", provider)).await;
    h.env.push(("ALISIO_TEST_PROVIDER_KEY".into(), "sk-ant-scripted".into()));
    std::fs::write(h.ws().join("a.txt"), big_file(60)).unwrap();
    std::fs::write(h.ws().join("b.txt"), big_file(60)).unwrap();
    h.run(&[], "read a.txt and b.txt").await.assert_ok();
    let turns: Vec<_> = h.server.received().into_iter().filter(|r| r.is_model_call()).collect();
    assert_eq!(
        turns[2].headers.get("anthropic-beta").map(String::as_str),
        Some("context-management-2025-06-27,compact-2026-01-12")
    );
    insta::assert_snapshot!("anthropic_turn_with_context_editing", snapshot(&h, "/messages")[2]);
    let rows =
        h.rows("SELECT reason, json_extract(checkpoint, '$.appliedEdits'), summarized_messages FROM compactions");
    assert_eq!(rows.len(), 1, "recorded once, when the server first cleared: {rows:?}");
    let edits: Value = serde_json::from_str(rows[0][1].as_str().unwrap()).unwrap();
    assert_eq!(edits[0]["cleared_tool_uses"], 1);
    assert!(edits[0]["cleared_input_tokens"].as_u64().unwrap() > 1_000);
    assert_eq!(rows[0][2], json!(0), "nothing hidden here: the server edits, the history stays whole");
    assert_eq!(h.rows("SELECT COUNT(*) FROM messages WHERE compacted = 1")[0][0], json!(0));
}

#[tokio::test]
async fn responses_compaction_item_is_kept_opaque_and_sent_back_verbatim() {
    let script = vec![
        Reply::Answer(Answer::calls(&[("call_big", "read_file", json!({"path": "big.txt"}))])),
        Reply::Answer(Answer::text("I read big.txt.")),
        Reply::Answer(Answer::text("Next.")),
    ];
    let h = Harness::with_config(script, config("responses", json!({"trigger": 2_000}))).await;
    std::fs::write(h.ws().join("big.txt"), big_file(150)).unwrap();
    let first = h.run(&[], "read big.txt").await;
    first.assert_ok();
    let session = first.session();
    h.run(&["--session", &session], "next").await.assert_ok();
    let bodies = h.server.bodies();
    assert_eq!(bodies[1]["context_management"], json!([{"type": "compaction", "compact_threshold": 2_000}]));
    insta::assert_snapshot!("responses_turn_after_server_compaction", snapshot(&h, "/responses")[2]);
    // The item exactly as issued, first after the system prompt; nothing before it.
    let input = bodies[2]["input"].as_array().unwrap();
    assert_eq!(input[1]["type"], "compaction");
    assert_eq!(input[1]["encrypted_content"], "gAAAAB00000001scripted-opaque-state");
    let rows =
        h.rows("SELECT json_extract(checkpoint, '$.opaque'), json_extract(checkpoint, '$.text') FROM compactions");
    assert_eq!(rows[0][0], json!(1));
    assert!(rows[0][1].as_str().unwrap().starts_with("[opaque compaction item cmp_001"), "{rows:?}");
}

#[tokio::test]
async fn by_hand_responses_compacts_through_the_standalone_endpoint_and_anthropic_pauses() {
    // Responses: POST /responses/compact, its items the new start of the history.
    let script = vec![
        Reply::Answer(Answer::calls(&[("call_1", "read_file", json!({"path": "notes.txt"}))])),
        Reply::Answer(Answer::text("Read.")),
        Reply::Answer(Answer::text("After.")),
    ];
    let h = Harness::with_config(script, config("responses", json!({}))).await;
    std::fs::write(h.ws().join("notes.txt"), "remember ERR-42\n").unwrap();
    let session = h.run(&[], "read notes.txt").await.assert_ok().session();
    let run = h.alisio(&["compact", &session, "--strategy", "provider", "--json"]).await;
    assert_eq!(run.assert_ok().event_types(), ["compaction_started", "compaction_completed"], "{}", run.stdout);
    h.run(&["--session", &session], "go on").await.assert_ok();
    let compact: Vec<_> = h.server.received().into_iter().filter(|r| r.path.ends_with("/responses/compact")).collect();
    assert_eq!(compact.len(), 1);
    assert!(compact[0].body["instructions"].as_str().unwrap().starts_with("You are Alisio"));
    insta::assert_snapshot!("responses_standalone_compact_request", snapshot(&h, "/responses/compact")[0]);
    insta::assert_snapshot!("responses_turn_after_standalone_compact", snapshot(&h, "/responses")[2]);
    let ledger = h.rows("SELECT purpose, json_extract(params, '$.endpoint') FROM model_calls ORDER BY id");
    assert_eq!(ledger[2], vec![json!("compaction"), json!("responses/compact")]);

    // Anthropic: asked at its minimum trigger to compact and pause; under it, nothing happens.
    let script = vec![Reply::Answer(Answer::text("Hello.")), Reply::Answer(Answer::text("Unused."))];
    let mut small = Harness::with_config(script, config("anthropic", json!({}))).await;
    small.env.push(("ALISIO_TEST_PROVIDER_KEY".into(), "sk-ant-scripted".into()));
    let session = small.run(&[], "hi").await.assert_ok().session();
    let run = small.alisio(&["compact", &session, "--strategy", "provider", "--json"]).await;
    assert_eq!(run.assert_ok().event_types(), ["compaction_skipped"]);
    let body = &small.server.bodies()[1];
    assert_eq!(body["context_management"]["edits"][0]["pause_after_compaction"], true);
    assert_eq!(body["context_management"]["edits"][0]["trigger"]["value"], 50_000);

    // Chat Completions has no such thing: said, nothing sent.
    let chat = Harness::with_config(vec![Reply::Answer(Answer::text("Hi."))], config("chat", json!({}))).await;
    let session = chat.run(&[], "hi").await.assert_ok().session();
    let run = chat.alisio(&["compact", &session, "--strategy", "provider", "--json"]).await;
    assert!(run.assert_ok().stdout.contains("the chat API has no server-side compaction"), "{}", run.stdout);
    assert_eq!(chat.server.bodies().len(), 1);
}
