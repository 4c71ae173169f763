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
