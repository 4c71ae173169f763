//! `alisio proxy` through the real binary, between an HTTP client and the scripted server: bodies
//! passed on byte for byte both ways, streams passed on as they arrive, status codes unchanged,
//! credentials never stored, and captured calls joined to the imported sessions they were.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use futures_util::StreamExt;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, BufReader, Lines};
use tokio::process::{Child, ChildStdout};

use crate::suite::support::server::{chat_chunks, Answer, Reply};
use crate::suite::support::Harness;

const SECRET: &str = "sk-test-proxy-SECRET-0042";

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures")
}

pub(crate) struct Running {
    pub(crate) child: Child,
    lines: Lines<BufReader<ChildStdout>>,
    pub(crate) base: String,
}

impl Running {
    /// The next JSON line the proxy printed.
    pub(crate) async fn next(&mut self) -> Value {
        let line = tokio::time::timeout(Duration::from_secs(20), self.lines.next_line()).await;
        let line = line.expect("the proxy printed nothing for 20 s").unwrap().expect("the proxy ended");
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON: {line}: {e}"))
    }
}

pub(crate) async fn proxy(h: &Harness) -> Running {
    let upstream = h.server.base_url.trim_end_matches("/v1").to_string();
    let mut child = h
        .command(&["proxy", "--upstream", &upstream, "--listen", "127.0.0.1:0", "--json"])
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let mut running = Running { child, lines, base: String::new() };
    let listening = running.next().await;
    assert_eq!(listening["type"], "listening", "{listening}");
    running.base = format!("http://{}", listening["address"].as_str().unwrap());
    running
}

pub(crate) fn client() -> reqwest::Client {
    alisio_engine::provider::http_client_builder().build().unwrap()
}

/// Every byte of the database (and its write-ahead log).
fn database_bytes(h: &Harness) -> Vec<u8> {
    let mut bytes = std::fs::read(h.db_path()).unwrap();
    bytes.extend(std::fs::read(h.db_path().with_extension("db-wal")).unwrap_or_default());
    bytes
}

/// A paced Anthropic stream through the proxy: its first event arrives while the server still
/// writes the rest, and the whole arrives unchanged.
async fn anthropic_stream_arrives_piece_by_piece(http: &reqwest::Client, base: &str, expected: &str) {
    let started = Instant::now();
    let streamed = http
        .post(format!("{base}/v1/messages?beta=true"))
        .header("x-api-key", SECRET)
        .body(r#"{"model":"claude","stream":true,"max_tokens":10,"messages":[{"role":"user","content":"hi"}]}"#)
        .send()
        .await
        .unwrap();
    let mut pieces = streamed.bytes_stream();
    let first = pieces.next().await.unwrap().unwrap();
    let first_at = started.elapsed();
    let mut rest = Vec::new();
    while let Some(piece) = pieces.next().await {
        rest.extend_from_slice(&piece.unwrap());
    }
    assert!(
        first_at < Duration::from_millis(1000),
        "the first event came after {first_at:?}: the stream was held back"
    );
    assert!(started.elapsed() >= Duration::from_millis(1400));
    assert_eq!([first.to_vec(), rest].concat(), expected.as_bytes());
}

#[tokio::test]
async fn calls_pass_byte_for_byte_stream_as_they_come_and_are_stored_without_credentials() {
    let answer = Answer::text("hello through the proxy");
    let anthropic = [
        "event: message_start\ndata: {\"type\":\"message_start\",\"message\":{\"id\":\"msg_1\",\"usage\":{\"input_tokens\":3,\"cache_read_input_tokens\":90,\"cache_creation_input_tokens\":7,\"output_tokens\":1}}}\n\n",
        "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"hi\"}}\n\n",
        "event: message_delta\ndata: {\"type\":\"message_delta\",\"delta\":{\"stop_reason\":\"end_turn\"},\"usage\":{\"output_tokens\":4}}\n\n",
    ];
    let h = Harness::new(vec![
        Reply::Answer(answer.clone()),
        Reply::Status(429, r#"{"error":{"message":"slow down","type":"rate_limit"}}"#.into()),
        Reply::Paced(anthropic.iter().map(|s| s.to_string()).collect(), Duration::from_millis(700)),
    ])
    .await;
    h.server.set_models(json!({"data": [{"id": "m"}]}));
    let mut proxy = proxy(&h).await;
    let http = client();

    // A streamed Chat Completions call, its body written the way no serializer would write it.
    let sent = format!(
        "{{ \"model\":\"m\",  \"stream\": true,\n \"messages\":[{{\"role\":\"user\",\"content\":\"hi — ünïcode\"}}], \"api_key\": \"{SECRET}\" }}"
    );
    let answer_bytes = http
        .post(format!("{}/v1/chat/completions", proxy.base))
        .header("authorization", format!("Bearer {SECRET}"))
        .header("x-agent-header", "kept")
        .header("content-type", "application/json")
        .body(sent.clone())
        .send()
        .await
        .unwrap();
    assert_eq!(answer_bytes.status(), 200);
    let answer_bytes = answer_bytes.bytes().await.unwrap();
    let mut expected: String = chat_chunks(&answer).iter().map(|c| format!("data: {c}\n\n")).collect();
    expected.push_str("data: [DONE]\n\n");
    assert_eq!(String::from_utf8_lossy(&answer_bytes), expected, "the answer's bytes, unchanged");
    let received = h.server.received();
    assert_eq!(received[0].raw, sent.as_bytes(), "the request's bytes, unchanged");
    assert_eq!(received[0].headers["x-agent-header"], "kept");
    assert_eq!(received[0].headers["authorization"], format!("Bearer {SECRET}"), "the agent's key reaches its server");
    assert_eq!(received[0].path, "/v1/chat/completions");
    let captured = proxy.next().await;
    assert_eq!(
        (&captured["type"], &captured["n"], &captured["path"], &captured["status"], &captured["promptTokens"]),
        (&json!("captured"), &json!(1), &json!("/v1/chat/completions"), &json!(200), &json!(100))
    );
    let session = captured["session"].as_str().unwrap().to_string();

    // An upstream error reaches the agent as it was sent, and is recorded.
    let limited = http
        .post(format!("{}/v1/chat/completions", proxy.base))
        .body(r#"{"model":"m","messages":[]}"#)
        .send()
        .await
        .unwrap();
    assert_eq!(limited.status(), 429);
    assert_eq!(limited.text().await.unwrap(), r#"{"error":{"message":"slow down","type":"rate_limit"}}"#);
    assert_eq!(proxy.next().await["status"], 429);

    // Anything else passes through unrecorded.
    let models = http.get(format!("{}/v1/models", proxy.base)).send().await.unwrap();
    assert_eq!(models.json::<Value>().await.unwrap(), json!({"data": [{"id": "m"}]}));

    // An Anthropic stream arrives piece by piece while the server is still writing it.
    anthropic_stream_arrives_piece_by_piece(&http, &proxy.base, &anthropic.concat()).await;
    let captured = proxy.next().await;
    assert_eq!(
        (&captured["path"], &captured["promptTokens"], &captured["cachedTokens"]),
        (&json!("/v1/messages"), &json!(100), &json!(90))
    );

    // What is stored: three calls, exact, their bodies, never the key.
    let calls = h.alisio(&["calls", "list", &session, "--json"]).await.json();
    let calls = calls.as_array().unwrap();
    assert_eq!(calls.len(), 3, "GET /v1/models is not a model call");
    assert!(calls.iter().all(|c| c["requestSource"] == "proxy" && c["exact"] == true));
    let shown = h.alisio(&["calls", "show", &session, "1", "--json"]).await.json();
    let mut body: Value = serde_json::from_str(&sent).unwrap();
    body["api_key"] = json!("[credential]");
    assert_eq!(shown["request"], body);
    assert_eq!(shown["response"]["received"], expected);
    let sessions = h.alisio(&["sessions", "list", "--json"]).await.json();
    assert_eq!(sessions[0]["source"], "proxy");
    proxy.child.kill().await.unwrap();
    let bytes = database_bytes(&h);
    assert!(!bytes.windows(SECRET.len()).any(|w| w == SECRET.as_bytes()), "the key is in the database");
}

#[tokio::test]
async fn an_upstream_that_does_not_answer_is_a_502_the_agent_can_read() {
    let h = Harness::new(vec![]).await;
    let dead = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
    let mut child = h
        .command(&["proxy", "--upstream", &format!("http://{dead}"), "--listen", "127.0.0.1:0", "--json"])
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let listening: Value = serde_json::from_str(&lines.next_line().await.unwrap().unwrap()).unwrap();
    let base = format!("http://{}", listening["address"].as_str().unwrap());
    let answer =
        client().post(format!("{base}/v1/responses")).body(r#"{"model":"m","input":[]}"#).send().await.unwrap();
    assert_eq!(answer.status(), 502);
    let text = answer.text().await.unwrap();
    assert!(text.contains("did not answer"), "{text}");
    let mut seen = Vec::new();
    for _ in 0..2 {
        let line = tokio::time::timeout(Duration::from_secs(10), lines.next_line()).await.unwrap().unwrap().unwrap();
        seen.push(serde_json::from_str::<Value>(&line).unwrap()["type"].as_str().unwrap().to_string());
    }
    seen.sort();
    assert_eq!(seen, ["captured", "error"]);
    // A bad upstream is a usage error, said before anything listens.
    let bad = h.alisio(&["proxy", "--upstream", "ftp://x", "--listen", "127.0.0.1:0"]).await;
    assert_eq!(bad.code, 2, "{}", bad.stderr);
    assert!(bad.stderr.contains("http:// or https://"), "{}", bad.stderr);
}

/// The body an agent really sent (tests/fixtures/requests, the corpus server's log).
fn logged(agent: &str, file: &str) -> (String, Value) {
    let text = std::fs::read_to_string(fixtures().join("requests").join(agent).join(file)).unwrap();
    let record: Value = serde_json::from_str(&text).unwrap();
    (record["path"].as_str().unwrap().to_string(), record["body"].clone())
}

async fn import(h: &Harness, path: &str) -> Value {
    let path = fixtures().join("import").join(path);
    h.alisio(&["import", path.to_str().unwrap(), "--json"]).await.json()["imported"].clone()
}

/// An agent resumes a session of last month (Codex resume, Claude Code `--continue`): the captured
/// call still joins the imported session it continues, found by its fingerprint, not its age.
#[tokio::test]
async fn a_captured_call_joins_an_imported_session_thirty_days_old() {
    let h = Harness::new(vec![Reply::Raw("data: {}\n\n".into())]).await;
    let name = "rollout-2026-11-30T17-48-49-01a22d92-df3a-72a1-bd0b-7184d9a4858e.jsonl";
    let original = std::fs::read_to_string(fixtures().join("import/codex/2026/11/30").join(name)).unwrap();
    let month_ago = (chrono::Utc::now() - chrono::Duration::days(30)).format("%Y-%m-%d").to_string();
    let dated = h.home.path().join(name.replace("2026-11-30", &month_ago));
    std::fs::write(&dated, original.replace("2026-11-30", &month_ago)).unwrap();
    let imported = h.alisio(&["import", dated.to_str().unwrap(), "--json"]).await.json();
    let codex = imported["imported"][0]["id"].as_str().unwrap().to_string();
    let listed = h.alisio(&["sessions", "list", "--json"]).await.json();
    let active = listed.as_array().unwrap().iter().find(|s| s["id"] == json!(codex)).unwrap()["lastActivity"].clone();
    assert!(active.as_str().unwrap().starts_with(&month_ago), "the session is a month old: {active}");

    let mut proxy = proxy(&h).await;
    let (path, body) = logged("codex", "req11-first-after-manual-compaction.json");
    client().post(format!("{}{path}", proxy.base)).body(body.to_string()).send().await.unwrap().bytes().await.unwrap();
    let captured = proxy.next().await;
    assert_eq!((&captured["session"], &captured["n"]), (&json!(codex), &json!(11)), "{captured}");
    let shown = h.alisio(&["calls", "show", &codex, "11", "--json"]).await.json();
    assert_eq!((&shown["requestSource"], &shown["request"]), (&json!("proxy"), &body));
    proxy.child.kill().await.unwrap();
}

#[tokio::test]
async fn captured_calls_become_the_exact_bodies_of_the_imported_calls_they_were() {
    let h = Harness::new(vec![
        Reply::Raw("data: {}\n\n".into()),
        Reply::Raw("data: {}\n\n".into()),
        Reply::Raw("data: {}\n\n".into()),
    ])
    .await;
    // Codex imported first, then its call 11 captured: it joins at once.
    let codex =
        import(&h, "codex/2026/11/30/rollout-2026-11-30T17-48-49-01a22d92-df3a-72a1-bd0b-7184d9a4858e.jsonl").await;
    let codex = codex[0]["id"].as_str().unwrap().to_string();
    let mut proxy = proxy(&h).await;
    let http = client();
    let (path, body) = logged("codex", "req11-first-after-manual-compaction.json");
    http.post(format!("{}{path}", proxy.base)).body(body.to_string()).send().await.unwrap().bytes().await.unwrap();
    let captured = proxy.next().await;
    assert_eq!((&captured["session"], &captured["n"]), (&json!(codex), &json!(11)), "{captured}");
    let shown = h.alisio(&["calls", "show", &codex, "11", "--json"]).await.json();
    assert_eq!((&shown["requestSource"], &shown["exact"]), (&json!("proxy"), &json!(true)));
    assert_eq!(shown["request"], body, "the body Codex sent, whole: instructions, tools, options");
    assert_eq!(shown["missing"], json!([]));
    let tools: u64 =
        shown["composition"]["tools"].as_array().unwrap().iter().map(|t| t["chars"].as_u64().unwrap()).sum();
    assert!(tools > 10_000, "its tools are in the composition: {tools}");
    let others = h.alisio(&["calls", "show", &codex, "10", "--json"]).await.json();
    assert_eq!(others["requestSource"], "reconstructed");

    // Claude Code's compaction summary (not in its log) captured before the session is imported:
    // it waits in the proxy session, then becomes the reconstructed row's exact body.
    let (path, body) = logged("claude-code", "req10-manual-compaction-summarizer.json");
    http.post(format!("{}{path}", proxy.base)).body(body.to_string()).send().await.unwrap().bytes().await.unwrap();
    let captured = proxy.next().await;
    let waiting = captured["session"].as_str().unwrap().to_string();
    assert_ne!(waiting, codex);
    let claude = import(&h, "claude/-home-dev-work-claude-proj/46c4be69-b0e3-487e-97a4-c6832402089e.jsonl").await;
    let claude = claude[0]["id"].as_str().unwrap().to_string();
    let summary = h.alisio(&["calls", "show", &claude, "10", "--json"]).await.json();
    assert_eq!((&summary["purpose"], &summary["requestSource"]), (&json!("compaction"), &json!("proxy")));
    assert_eq!(summary["request"], body);
    let left = h.alisio(&["calls", "list", &waiting, "--json"]).await.json();
    assert_eq!(left, json!([]), "the capture moved; nothing is kept twice");

    // A call no imported session holds stays in the proxy session.
    let stray = json!({"model": "m", "messages": [{"role": "user", "content": "a question nobody imported"}]});
    http.post(format!("{}/v1/chat/completions", proxy.base))
        .body(stray.to_string())
        .send()
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap();
    let captured = proxy.next().await;
    assert_eq!(captured["session"], json!(waiting));
    proxy.child.kill().await.unwrap();
}
