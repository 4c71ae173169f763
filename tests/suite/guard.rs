//! Nothing escapes a share: every kind of the secret catalog, planted in a session's title, user
//! text, escaped tool-call arguments (a `.env` written through `write_file`) and a tool's output
//! (with a private key that crosses the Markdown shortening), is gone from the Markdown, JSON and
//! HTML exports and from the OTLP content; every near-miss is still there, untouched.

use serde_json::{json, Value};

use super::support::otlp::OtlpReceiver;
use super::support::{Answer, Harness, Reply};

struct Planted {
    secrets: Vec<String>,
    near_misses: Vec<String>,
    /// Every example, one per line.
    examples: String,
}

fn planted() -> Planted {
    let rules = alisio_engine::redact::catalog().unwrap();
    Planted {
        secrets: rules.iter().map(|r| r.secret.clone()).collect(),
        near_misses: rules.iter().map(|r| r.near_miss.clone()).collect(),
        examples: rules.iter().map(|r| r.example.as_str()).collect::<Vec<_>>().join("\n"),
    }
}

/// A key long enough that the Markdown export shortens the output it sits in, across the cut.
fn long_pem() -> String {
    let line = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASCBKcwggSjAgEAAoIBAQC7PLANTEDFAKEKEYLINE0123456";
    format!("-----BEGIN RSA PRIVATE KEY-----\n{}\n-----END RSA PRIVATE KEY-----", vec![line; 90].join("\n"))
}

fn escape_html(text: &str) -> String {
    text.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;").replace('"', "&quot;").replace('\'', "&#39;")
}

#[tokio::test]
async fn no_catalog_secret_leaves_in_any_format_and_no_near_miss_is_touched() {
    let p = planted();
    let pem = long_pem();
    let receiver = OtlpReceiver::start(Vec::new()).await;
    let dotenv = format!("# planted\n{}\n", p.examples);
    let h = Harness::with_config(
        vec![
            Reply::Answer(Answer::calls(&[
                ("w1", "write_file", json!({"path": ".env", "content": dotenv})),
                ("r1", "read_file", json!({"path": "notes.txt"})),
            ])),
            Reply::Answer(Answer::text("Both files are in place.")),
        ],
        json!({"plugins": [], "telemetry": {"otlp": {"endpoint": receiver.endpoint, "content": true}}}),
    )
    .await;
    std::fs::write(h.ws().join("notes.txt"), format!("{}\nkey follows\n{pem}\nend\n", p.examples)).unwrap();
    let prompt = format!("deploy with {}\n{}\nnear misses:\n{}", p.secrets[8], p.examples, p.near_misses.join("\n"));
    let run = h.run(&[], &prompt).await;
    run.assert_ok();
    let session = run.session();

    let mut outputs: Vec<(&str, String)> = Vec::new();
    for format in ["markdown", "json", "html"] {
        let path = h.home.path().join(format!("export.{format}"));
        let export =
            h.alisio(&["sessions", "export", &session, "--format", format, "--output", path.to_str().unwrap()]).await;
        export.assert_ok();
        assert!(export.stderr.contains("secrets redacted"), "{}", export.stderr);
        outputs.push((format, std::fs::read_to_string(&path).unwrap()));
    }
    // The JSON export's strings decoded, as a reader of it sees them.
    let decoded: Value = serde_json::from_str(&outputs[1].1).unwrap();
    outputs.push(("json (decoded)", strings(&decoded).join("\n")));
    let spans = receiver.wait_for_spans(4).await;
    let content: Vec<String> =
        spans.iter().flat_map(|s| s.attributes.values().filter_map(Value::as_str).map(str::to_string)).collect();
    outputs.push(("otlp content", content.join("\n")));

    for (format, text) in &outputs {
        let leaked: Vec<&String> = p.secrets.iter().filter(|s| text.contains(s.as_str())).collect();
        assert!(leaked.is_empty(), "{format} leaks {} secrets: {leaked:?}", leaked.len());
        assert!(!text.contains("PLANTEDFAKEKEYLINE"), "{format} keeps part of the private key");
        assert!(text.contains("[REDACTED:"), "{format} redacted nothing");
    }
    // Line by line: Markdown quotes user text (`> ` before each line).
    for near in p.near_misses.iter().flat_map(|n| n.lines()) {
        assert!(outputs[0].1.contains(near), "markdown changed the near-miss {near:?}");
        assert!(outputs[2].1.contains(&escape_html(near)), "html changed the near-miss {near:?}");
        assert!(outputs[3].1.contains(near), "json changed the near-miss {near:?}");
    }
    // The --json form lists each finding: kind, where, a masked preview.
    let listed = h.alisio(&["sessions", "export", &session, "--format", "markdown", "--json"]).await;
    listed.assert_ok();
    let doc = listed.json();
    let findings = doc["redactions"].as_array().unwrap();
    assert!(findings.len() >= p.secrets.len(), "{} findings for {} planted kinds", findings.len(), p.secrets.len());
    assert!(findings.iter().any(|f| f["where"] == "session title"), "{findings:?}");
    assert!(findings.iter().any(|f| f["where"].as_str().unwrap().contains("tool call w1 arguments")));
    for finding in findings {
        let preview = finding["preview"].as_str().unwrap();
        assert!(p.secrets.iter().all(|s| s.len() < 8 || !preview.contains(s.as_str())), "{preview}");
    }
}

/// `--redact-extra` takes a literal or a `/regex/`; a pattern that does not compile writes nothing.
#[tokio::test]
async fn extra_patterns_redact_more_and_a_bad_one_writes_nothing() {
    let h = Harness::with_config(vec![Reply::Answer(Answer::text("noted"))], json!({"plugins": []})).await;
    let session =
        h.run(&[], "the staging host is db-7.internal.example and ticket OPS-4411").await.assert_ok().session();
    let md = h
        .alisio(&[
            "sessions",
            "export",
            &session,
            "--format",
            "markdown",
            "--redact-extra",
            "db-7.internal.example",
            "--redact-extra",
            "/OPS-[0-9]+/",
        ])
        .await;
    md.assert_ok();
    assert!(!md.stdout.contains("db-7.internal") && !md.stdout.contains("OPS-4411"), "{}", md.stdout);
    assert!(md.stdout.contains("[REDACTED:extra]"));
    let out = h.home.path().join("never.md");
    let bad = h
        .alisio(&[
            "sessions",
            "export",
            &session,
            "--format",
            "markdown",
            "--redact-extra",
            "/([/",
            "--output",
            out.to_str().unwrap(),
        ])
        .await;
    assert_eq!(bad.code, 2, "{}", bad.stderr);
    assert!(bad.stderr.contains("--redact-extra"), "{}", bad.stderr);
    assert!(!out.exists(), "nothing written");
}

fn strings(value: &Value) -> Vec<String> {
    match value {
        Value::String(s) => vec![s.clone()],
        Value::Array(items) => items.iter().flat_map(strings).collect(),
        Value::Object(map) => map.values().flat_map(strings).collect(),
        _ => Vec::new(),
    }
}

/// A long past session reaches a healthy collector whole: 100,000 tool spans, none dropped (the
/// queue holds 4,096).
#[tokio::test]
async fn a_hundred_thousand_spans_all_reach_the_collector() {
    use alisio_engine::store::{journal, sessions::append_message, Store};
    use alisio_engine::transcript::{NewMessage, ToolCall};
    let receiver = OtlpReceiver::start(Vec::new()).await;
    let h = Harness::with_config(vec![], json!({"telemetry": {"otlp": {"endpoint": receiver.endpoint}}})).await;
    let store = Store::open(&h.db_path()).unwrap();
    let session = store.create_session(&h.ws().display().to_string(), "a long run").unwrap();
    const CALLS: usize = 100_000;
    store
        .write(|tx| {
            append_message(tx, &session.id, &NewMessage::user("run everything"))?;
            let calls: Vec<ToolCall> = (0..CALLS)
                .map(|i| ToolCall { id: format!("c{i}"), name: "list_dir".into(), arguments: "{}".into() })
                .collect();
            let seq = append_message(tx, &session.id, &NewMessage::assistant("", calls.clone(), None))?;
            journal::record_requested(tx, &session.id, seq, &calls)?;
            Ok(())
        })
        .unwrap();
    drop(store);
    let export = h.alisio(&["sessions", "export", &session.id, "--format", "otlp"]).await;
    export.assert_ok();
    assert!(export.stdout.contains(&format!("sent {} spans in 1 traces", CALLS + 1)), "{}", export.stdout);
    let spans = receiver.spans();
    assert_eq!(spans.len(), CALLS + 1, "every span arrived");
    assert_eq!(spans.iter().filter(|s| s.name == "execute_tool list_dir").count(), CALLS);
}

/// Content is capped (and says so); a collector that answers after the export timeout is a
/// failure reported once, as an event.
#[tokio::test]
async fn content_is_capped_and_a_late_collector_is_reported() {
    let receiver = OtlpReceiver::start(Vec::new()).await;
    let big = "x".repeat(60_000);
    let h = Harness::with_config(
        vec![Reply::Answer(Answer::text("read it"))],
        json!({"plugins": [], "telemetry": {"otlp": {"endpoint": receiver.endpoint, "content": true, "maxContentBytes": 4096}}}),
    )
    .await;
    let run = h.run(&[], &format!("a long prompt {big}")).await;
    run.assert_ok();
    let spans = receiver.wait_for_spans(2).await;
    let chat = spans.iter().find(|s| s.name.starts_with("chat ")).unwrap();
    let input = chat.attributes["gen_ai.input.messages"].as_str().unwrap();
    assert!(
        input.len() < 4200 && input.ends_with("bytes in full]"),
        "{} bytes: …{}",
        input.len(),
        &input[input.len().saturating_sub(60)..]
    );
    assert_eq!(chat.attributes["alisio.content.truncated"], true);

    let slow = OtlpReceiver::start_with_delay(Vec::new(), std::time::Duration::from_millis(2500)).await;
    let h = Harness::with_config(
        vec![Reply::Answer(Answer::text("fine"))],
        json!({"plugins": [], "telemetry": {"otlp": {"endpoint": slow.endpoint, "timeoutMs": 500}}}),
    )
    .await;
    let run = h.run(&[], "hello").await;
    run.assert_ok();
    let failed: Vec<Value> = run.events().into_iter().filter(|e| e["type"] == "telemetry_failed").collect();
    assert_eq!(failed.len(), 1, "{:?}", run.event_types());
}
