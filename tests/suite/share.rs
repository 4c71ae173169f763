//! Sessions beyond one desk: exports with redaction, and traces to a real OTLP/HTTP
//! receiver that decodes the protobuf payloads.

use std::collections::HashSet;

use pretty_assertions::assert_eq;
use serde_json::{json, Value};

use super::support::otlp::{OtlpReceiver, Span};
use super::support::{Answer, Harness, Reply};

const KEY: &str = "sk-proj-Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2Rr1Qq0";
const PROMPT_WORDS: &str = "please list the workspace";

fn telemetry(endpoint: &str, extra: Value) -> Value {
    let mut otlp = json!({"endpoint": endpoint});
    super::support::merge(&mut otlp, extra);
    json!({"telemetry": {"otlp": otlp}})
}

fn by_name<'a>(spans: &'a [Span], name: &str) -> Vec<&'a Span> {
    spans.iter().filter(|s| s.name == name).collect()
}

fn two_step_script() -> Vec<Reply> {
    vec![
        Reply::Answer(Answer {
            usage: Some((120, 9, 100)),
            ..Answer::calls(&[("call_ls.1", "list_dir", json!({"path": "."}))])
        }),
        Reply::Answer(Answer { usage: Some((150, 12, 120)), ..Answer::text("the workspace holds notes.txt") }),
    ]
}

#[tokio::test]
async fn a_turn_is_one_trace_of_genai_spans_without_content_unless_asked() {
    let receiver = OtlpReceiver::start(Vec::new()).await;
    let mut h = Harness::with_config(
        two_step_script(),
        telemetry(
            &receiver.endpoint,
            json!({"headers": {"Authorization": "env:ALISIO_TEST_OTLP_AUTH", "X-Team": "tools"}}),
        ),
    )
    .await;
    h.env.push(("ALISIO_TEST_OTLP_AUTH".into(), "Basic dGVhbTpzZWNyZXQtdG9rZW4=".into()));
    std::fs::write(h.ws().join("notes.txt"), "n").unwrap();
    let run = h.run(&[], &format!("{PROMPT_WORDS} {KEY}")).await;
    run.assert_ok();
    let session = run.session();
    let spans = receiver.wait_for_spans(4).await;
    let names: HashSet<&str> = spans.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, HashSet::from(["invoke_agent alisio", "chat test-model", "execute_tool list_dir"]));
    let turn = by_name(&spans, "invoke_agent alisio");
    assert_eq!(turn.len(), 1);
    let turn = turn[0];
    assert_eq!(turn.parent_span_id, "", "the turn is the root");
    assert_eq!(turn.service, "alisio");
    assert!(spans.iter().all(|s| !s.error), "nothing failed");
    for span in spans.iter().filter(|s| s.name != "invoke_agent alisio") {
        assert_eq!(
            (span.trace_id.as_str(), span.parent_span_id.as_str()),
            (turn.trace_id.as_str(), turn.span_id.as_str()),
            "{}",
            span.name
        );
        assert!(
            span.start_unix_nano >= turn.start_unix_nano && span.end_unix_nano <= turn.end_unix_nano,
            "{}",
            span.name
        );
        assert_eq!(span.attributes["gen_ai.conversation.id"], json!(session));
    }
    let chats = by_name(&spans, "chat test-model");
    assert_eq!(chats.len(), 2);
    let first = &chats.iter().min_by_key(|s| s.start_unix_nano).unwrap().attributes;
    assert_eq!(first["gen_ai.operation.name"], "chat");
    assert_eq!(first["gen_ai.provider.name"], "openai");
    assert_eq!(first["gen_ai.request.model"], "test-model");
    assert_eq!(
        (first["gen_ai.usage.input_tokens"].clone(), first["gen_ai.usage.output_tokens"].clone()),
        (json!(120), json!(9))
    );
    assert_eq!(first["gen_ai.usage.cache_read.input_tokens"], json!(100));
    assert_eq!(first["gen_ai.response.finish_reasons"], json!(["tool_calls"]));
    let tool = &by_name(&spans, "execute_tool list_dir")[0].attributes;
    assert_eq!(
        (tool["gen_ai.tool.name"].clone(), tool["gen_ai.tool.call.id"].clone()),
        (json!("list_dir"), json!("call_ls.1"))
    );
    // No content without `content: true`, and never the key.
    assert!(spans.iter().all(|s| !s.attributes.contains_key("gen_ai.input.messages")));
    for request in receiver.requests() {
        let raw = String::from_utf8_lossy(&request.body);
        assert!(!raw.contains(PROMPT_WORDS) && !raw.contains(KEY) && !raw.contains("notes.txt"), "content left");
        assert_eq!(request.path, "/v1/traces");
        assert_eq!(request.headers["content-type"], "application/x-protobuf");
        assert_eq!(request.headers["authorization"], "Basic dGVhbTpzZWNyZXQtdG9rZW4=");
        assert_eq!(request.headers["x-team"], "tools");
    }
    // The header's value stays out of what is stored and printed.
    let stored = std::fs::read(h.db_path()).unwrap();
    assert!(!String::from_utf8_lossy(&stored).contains("dGVhbTpzZWNyZXQtdG9rZW4"));
    assert!(!run.stdout.contains("dGVhbTpzZWNyZXQtdG9rZW4") && !run.stderr.contains("dGVhbTpzZWNyZXQtdG9rZW4"));
}

#[tokio::test]
async fn with_content_the_messages_go_along_redacted() {
    let receiver = OtlpReceiver::start(Vec::new()).await;
    let h = Harness::with_config(two_step_script(), telemetry(&receiver.endpoint, json!({"content": true}))).await;
    h.run(&[], &format!("{PROMPT_WORDS} {KEY}")).await.assert_ok();
    let spans = receiver.wait_for_spans(4).await;
    let chats = by_name(&spans, "chat test-model");
    let last = chats.iter().max_by_key(|s| s.start_unix_nano).unwrap();
    let input = last.attributes["gen_ai.input.messages"].as_str().unwrap();
    assert!(
        input.contains(PROMPT_WORDS) && input.contains("[REDACTED:api_key]") && input.contains("call_ls.1"),
        "{input}"
    );
    let output = last.attributes["gen_ai.output.messages"].as_str().unwrap();
    assert!(output.contains("the workspace holds notes.txt"), "{output}");
    for request in receiver.requests() {
        assert!(!String::from_utf8_lossy(&request.body).contains(KEY), "the key left the machine");
    }
}

#[tokio::test]
async fn a_collector_that_is_down_costs_one_warning_and_the_turn_completes() {
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let h =
        Harness::with_config(two_step_script(), telemetry(&format!("http://127.0.0.1:{closed}/v1/traces"), json!({})))
            .await;
    let run = h.run(&[], PROMPT_WORDS).await;
    run.assert_ok();
    let types = run.event_types();
    assert!(types.contains(&"turn_completed".to_string()), "{types:?}");
    assert_eq!(types.iter().filter(|t| *t == "telemetry_failed").count(), 1, "{types:?}");
    let failed = run.events().into_iter().find(|e| e["type"] == "telemetry_failed").unwrap();
    assert!(failed["endpoint"].as_str().unwrap().contains(&closed.to_string()));
    assert_eq!(run.stderr.matches("did not take").count(), 1, "one warning: {}", run.stderr);
    assert_eq!(h.rows("SELECT count(*) FROM events WHERE type = 'telemetry_failed'"), vec![vec![json!(1)]]);
}

#[tokio::test]
async fn a_collector_that_answers_500_then_recovers_gets_the_next_turn() {
    let receiver = OtlpReceiver::start(vec![500]).await;
    let mut script = two_step_script();
    script.push(Reply::Answer(Answer::text("again")));
    let h = Harness::with_config(script, telemetry(&receiver.endpoint, json!({}))).await;
    let first = h.run(&[], PROMPT_WORDS).await;
    first.assert_ok();
    assert_eq!(first.event_types().iter().filter(|t| *t == "telemetry_failed").count(), 1);
    let session = first.session();
    let second = h.run(&["--session", &session], "and now?").await;
    second.assert_ok();
    assert!(!second.event_types().contains(&"telemetry_failed".to_string()), "{}", second.stdout);
    let spans = receiver.wait_for_spans(2).await;
    let turns = by_name(&spans, "invoke_agent alisio");
    assert_eq!(turns.len(), 1, "the failed batch is dropped, the next one arrives");
    assert_eq!(by_name(&spans, "chat test-model").len(), 1);
    assert_eq!(receiver.requests().iter().map(|r| r.status).collect::<Vec<_>>(), [500, 200]);
}

#[tokio::test]
async fn a_past_session_is_exported_as_traces_at_the_times_it_happened() {
    let h = Harness::new(two_step_script()).await;
    let run = h.run(&[], PROMPT_WORDS).await;
    run.assert_ok();
    let session = run.session();
    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    let receiver = OtlpReceiver::start(Vec::new()).await;
    let overlay = h.home.path().join("otlp.json");
    std::fs::write(&overlay, telemetry(&receiver.endpoint, json!({})).to_string()).unwrap();
    let exported =
        h.alisio(&["--config", overlay.to_str().unwrap(), "sessions", "export", &session, "--format", "otlp"]).await;
    exported.assert_ok();
    assert!(exported.stdout.contains("sent 4 spans in 1 traces"), "{}", exported.stdout);
    let spans = receiver.spans();
    assert_eq!(spans.len(), 4);
    let started: Vec<String> = h
        .rows("SELECT started_at FROM model_calls ORDER BY id")
        .into_iter()
        .map(|r| r[0].as_str().unwrap().to_string())
        .collect();
    let mut chat_starts: Vec<u64> = by_name(&spans, "chat test-model").iter().map(|s| s.start_unix_nano).collect();
    chat_starts.sort();
    let recorded: Vec<u64> = started
        .iter()
        .map(|t| chrono::DateTime::parse_from_rfc3339(t).unwrap().timestamp_nanos_opt().unwrap() as u64)
        .collect();
    assert_eq!(chat_starts, recorded, "the ledger's times, not the export's");

    // No endpoint: a clear error naming the key.
    let missing = h.alisio(&["sessions", "export", &session, "--format", "otlp"]).await;
    assert_eq!(missing.code, 2, "{}", missing.stderr);
    assert!(missing.stderr.contains("telemetry.otlp.endpoint"), "{}", missing.stderr);
}

#[tokio::test]
async fn bad_telemetry_settings_are_refused_before_anything_runs() {
    let cases = [
        (json!({"endpoint": "localhost:4318/v1/traces"}), "telemetry.otlp.endpoint"),
        (
            json!({"endpoint": "http://127.0.0.1:4318/v1/traces", "headers": {"x-api-key": "env:ALISIO_TEST_UNSET"}}),
            "telemetry.otlp.headers.x-api-key",
        ),
        (json!({"protocol": "grpc"}), "telemetry.otlp.protocol"),
    ];
    for (otlp, key) in cases {
        let h = Harness::with_config(vec![Reply::Answer(Answer::text("never"))], json!({"telemetry": {"otlp": otlp}}))
            .await;
        let run = h.run(&[], "hello").await;
        assert_eq!(run.code, 2, "{}", run.stderr);
        assert!(run.stderr.contains(key), "{key}: {}", run.stderr);
        assert!(h.server.bodies().is_empty());
    }
}

#[tokio::test]
async fn exports_for_people_and_programs_redact_secrets_unless_told_not_to() {
    let long_output = format!("{}\nGITHUB_TOKEN=ghp_0123456789abcdefghijABCDEFGHIJ012345\n", "x".repeat(6000));
    let h = Harness::with_config(
        vec![
            Reply::Answer(Answer::calls(&[("r1", "read_file", json!({"path": "big.log"}))])),
            Reply::Answer(Answer::text("The log ends with a token; commit 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b stays.")),
            Reply::Answer(Answer::text(r#"{"goal": "Read the log", "instructions": [], "discoveries": ["big.log has a token"], "accomplished": [], "currentState": "read", "nextSteps": ["rotate it"], "relevantFiles": ["big.log"]}"#)),
        ],
        json!({"compaction": {"keepTurns": 0}, "plugins": []}),
    )
    .await;
    std::fs::write(h.ws().join("big.log"), &long_output).unwrap();
    let run = h.run(&[], &format!("read big.log; my key is {KEY}")).await;
    run.assert_ok();
    let session = run.session();
    h.alisio(&["compact", &session, "--focus", "the token", "--json"]).await.assert_ok();

    let md = h.alisio(&["sessions", "export", &session, "--format", "markdown"]).await;
    md.assert_ok();
    let text = &md.stdout;
    assert!(!text.contains(KEY) && !text.contains("ghp_0123456789"), "secrets left");
    assert!(text.contains("[REDACTED:api_key]") && text.contains("[REDACTED:github_token]"), "{text}");
    assert!(text.contains("9f86d081884c7d659a2feaa0c55ad015a3bf4f1b"), "a hash is not a secret");
    assert!(text.contains("**Tool call** `read_file` (`r1`)"), "{text}");
    assert!(text.contains("characters in full"), "the long output is shortened with its size");
    assert!(text.contains("## Compaction #1 · checkpoint · manual (applied)"), "{text}");
    assert!(text.contains("Focus: the token") && text.contains("### Next steps\n\n- rotate it"), "{text}");
    // The key is in the title (the prompt's first line), in the prompt, and in the compaction's
    // fidelity record (the prompt is the task it checked): the whole session is redacted, whatever
    // a format shows of it.
    assert!(md.stderr.contains("4 secrets redacted (api_key 3, github_token 1)"), "{}", md.stderr);
    assert!(md.stderr.contains("api_key in session title: sk-p… (38 chars)"), "{}", md.stderr);

    let out = h.home.path().join("session.json");
    let js = h.alisio(&["sessions", "export", &session, "--format", "json", "--output", out.to_str().unwrap()]).await;
    js.assert_ok();
    let doc: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    let keys: Vec<&str> = doc.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys, ["v", "session", "messages", "compactions", "modelCalls"]);
    assert_eq!(doc["v"], 1);
    assert_eq!(doc["session"]["id"], json!(session));
    assert_eq!(doc["modelCalls"].as_array().unwrap().len(), 3);
    assert_eq!(doc["compactions"][0]["focus"], "the token");
    let raw = doc.to_string();
    assert!(!raw.contains(KEY) && raw.contains("[REDACTED:api_key]"));
    assert!(js.stderr.contains("secrets redacted"), "{}", js.stderr);

    let plain = h.alisio(&["sessions", "export", &session, "--format", "json", "--no-redact"]).await;
    plain.assert_ok();
    assert!(plain.stdout.contains(KEY) && !plain.stderr.contains("redacted"), "{}", plain.stderr);
}

#[tokio::test]
async fn a_manual_compaction_is_a_trace_of_its_own_with_its_summarizer_call() {
    let receiver = OtlpReceiver::start(Vec::new()).await;
    let checkpoint = json!({"goal": "List the workspace", "instructions": [], "discoveries": [], "accomplished": ["listed"],
        "currentState": "done", "nextSteps": [], "relevantFiles": []});
    let mut script = two_step_script();
    script.push(Reply::Answer(Answer::text(&checkpoint.to_string())));
    let h = Harness::with_config(
        script,
        json!({"compaction": {"keepTurns": 0}, "plugins": [], "telemetry": {"otlp": {"endpoint": receiver.endpoint}}}),
    )
    .await;
    let run = h.run(&[], PROMPT_WORDS).await;
    run.assert_ok();
    let session = run.session();
    receiver.wait_for_spans(4).await;
    h.alisio(&["compact", &session, "--json"]).await.assert_ok();
    let spans = receiver.wait_for_spans(6).await;
    let compaction = by_name(&spans, "compaction manual");
    assert_eq!(compaction.len(), 1, "{:?}", spans.iter().map(|s| &s.name).collect::<Vec<_>>());
    let compaction = compaction[0];
    assert_eq!(compaction.parent_span_id, "", "outside a turn it is its own trace");
    assert_eq!(compaction.attributes["alisio.compaction.reason"], "manual");
    assert_eq!(compaction.attributes["alisio.compaction.partial"], false);
    let before = compaction.attributes["alisio.compaction.before_tokens"].as_i64().unwrap();
    let after = compaction.attributes["alisio.compaction.after_tokens"].as_i64().unwrap();
    assert!(before > 0 && after > 0, "{before} → {after}");
    let summarizer: Vec<&Span> = spans.iter().filter(|s| s.parent_span_id == compaction.span_id).collect();
    assert_eq!(summarizer.len(), 1);
    assert_eq!(summarizer[0].name, "chat test-model");
    assert_eq!(summarizer[0].trace_id, compaction.trace_id);
    assert_eq!(summarizer[0].attributes["alisio.call.purpose"], "compaction");
}
