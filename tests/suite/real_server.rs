//! Against a real llama.cpp server (xllamacpp + Gemma 3 270M from PyPI), started by this test from
//! the interpreter `./tests/run` prepares. Checks streaming with usage, cached tokens in the
//! ledger, the context window read from the server, the cache strategy's appended summary request
//! served from the prefix cache, and a server restart between requests.

use std::process::Stdio;
use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, BufReader};

use super::support::Harness;

struct LlamaServer {
    child: tokio::process::Child,
    base_url: String,
}

impl LlamaServer {
    async fn start(port: u16) -> Self {
        let python = std::env::var("ALISIO_LLAMA_PYTHON")
            .expect("ALISIO_LLAMA_PYTHON is not set: run the real-server tests through ./tests/run");
        let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/llama/serve.py");
        let mut child = tokio::process::Command::new(python)
            .args([script, "--port", &port.to_string(), "--ctx", "8192"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("start serve.py");
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let ready = tokio::time::timeout(Duration::from_secs(180), async {
            while let Ok(Some(line)) = lines.next_line().await {
                if let Some(url) = line.strip_prefix("ready ") {
                    return Some(url.to_string());
                }
            }
            None
        })
        .await
        .ok()
        .flatten()
        .expect("the llama.cpp server did not become ready");
        Self { child, base_url: ready }
    }

    async fn stop(mut self) {
        let _ = self.child.start_kill();
        let _ = self.child.wait().await;
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

fn prose(topic: &str, words: usize) -> String {
    let base = format!("The {topic} module parses configuration files and reports errors with line numbers. ");
    let mut out = String::new();
    while out.split_whitespace().count() < words {
        out.push_str(&base);
    }
    out
}

fn turn_calls(h: &Harness) -> Vec<Value> {
    h.rows("SELECT purpose, prompt_tokens, cached_tokens, completion_tokens, prompt_ms, ttft_ms, error FROM model_calls ORDER BY id")
        .into_iter()
        .map(|r| json!({"purpose": r[0], "prompt": r[1], "cached": r[2], "completion": r[3], "promptMs": r[4], "ttftMs": r[5], "error": r[6]}))
        .collect()
}

/// A harness on the real server: `config` beside the provider and limits both tests use, the
/// workspace at a fixed path (the system prompt, and so the greedy answers, stay the same every run).
async fn harness_on(server: &LlamaServer, workspace: &str, config: Value) -> Harness {
    let mut config = config;
    config["provider"] =
        json!({"baseUrl": server.base_url, "model": "gemma3-270m", "timeoutMs": 120000, "maxRetries": 2});
    config["limits"] = json!({"maxOutputTokens": 24});
    config["plugins"] = json!([]);
    config["permissions"] = json!({"shell": "deny", "write": "deny"});
    let mut h = Harness::with_config(vec![], config).await;
    let workdir = std::env::temp_dir().join(workspace);
    let _ = std::fs::remove_dir_all(&workdir);
    std::fs::create_dir_all(&workdir).unwrap();
    h.workdir = Some(workdir);
    h
}

#[tokio::test]
#[ignore = "needs a real llama.cpp server: run ./tests/run"]
async fn real_llama_server_streams_reports_usage_and_serves_the_appended_summary_from_cache() {
    let port = free_port();
    let server = LlamaServer::start(port).await;
    let h = harness_on(
        &server,
        "alisio-real-server-workspace",
        json!({"compaction": {"strategy": "cache"}, "cacheCompact": {"threshold": 25, "summaryMaxTokens": 48}}),
    )
    .await;

    // The context window comes from the server (/v1/models meta, /props n_ctx).
    let models = h.alisio(&["models", "--json"]).await;
    models.assert_ok();
    assert_eq!(models.json()["reportedContextWindow"], 8192);

    // Streaming chat with usage; the ledger records what the server reported.
    let first = h.run(&[], &format!("Read this and answer in one line. {}", prose("parser", 700))).await;
    first.assert_ok();
    let session = first.session();
    let calls = turn_calls(&h);
    assert_eq!(calls.len(), 1, "{calls:?}");
    let first_prompt = calls[0]["prompt"].as_u64().unwrap();
    assert!(first_prompt > 1000 && first_prompt < 2048, "below 25 % of 8192: {calls:?}");
    assert!(calls[0]["completion"].as_u64().unwrap() > 0);
    assert!(calls[0]["ttftMs"].is_u64() && calls[0]["promptMs"].is_f64(), "{calls:?}");
    assert!(calls[0]["cached"].is_u64(), "cached tokens are recorded: {calls:?}");

    // The second turn crosses 25 % of the window: the hand-off summary is appended to the
    // unchanged request, so the server serves almost all of it from its prefix cache.
    let second = h.run(&["--session", &session], &format!("Now also read this. {}", prose("lexer", 900))).await;
    second.assert_ok();
    let types = second.event_types();
    assert!(types.contains(&"compaction_started".to_string()), "{types:?} {:?}", turn_calls(&h));
    let calls = turn_calls(&h);
    let summary = calls.iter().position(|c| c["purpose"] == "cache-summary").expect("a cache summary call");
    let previous_prompt = calls[summary - 1]["prompt"].as_u64().unwrap();
    let cached = calls[summary]["cached"].as_u64().unwrap();
    assert!(
        cached as f64 >= 0.95 * previous_prompt as f64,
        "the summary request reused {cached} of the previous {previous_prompt} prompt tokens: {calls:?}"
    );

    // A server restart drops the cache: the next request is still correct, only colder.
    server.stop().await;
    let server = LlamaServer::start(port).await;
    let third = h.run(&["--session", &session], "One more line, please.").await;
    third.assert_ok();
    let calls = turn_calls(&h);
    let last = calls.last().unwrap();
    assert_eq!(last["error"], Value::Null);
    assert_eq!(last["cached"], 0, "nothing cached after a restart: {calls:?}");
    eprintln!("model calls against the real server: {calls:#?}");
    server.stop().await;
}

/// The MCP time server of `tests/mcp/setup.sh` (`ALISIO_MCP_BIN`).
fn time_server() -> Value {
    let bin = std::env::var("ALISIO_MCP_BIN").map(std::path::PathBuf::from).unwrap_or_else(|_| {
        std::path::PathBuf::from(std::env::var("HOME").unwrap())
            .join(".cache/alisio-mcp/venv-mcp-server-time-2026.10.19/bin")
    });
    json!({"command": bin.join("mcp-server-time"), "args": ["--local-timezone", "UTC"], "permission": "allow"})
}

#[tokio::test]
#[ignore = "needs the llama.cpp server of ./tests/run"]
async fn a_manual_compaction_from_the_cli_with_an_mcp_server_is_served_from_the_prefix_cache() {
    let port = free_port();
    let server = LlamaServer::start(port).await;
    let h = harness_on(
        &server,
        "alisio-real-server-mcp-workspace",
        json!({"compaction": {"keepTurns": 1, "maxOutputTokens": 256}, "mcpServers": {"time": time_server()}}),
    )
    .await;

    let first = h.run(&[], &format!("Read this and answer in one line. {}", prose("parser", 500))).await;
    first.assert_ok();
    let session = first.session();
    h.run(&["--session", &session], &format!("Now also read this. {}", prose("lexer", 300))).await.assert_ok();
    // `alisio compact` starts no MCP server: its summarizer request must still carry the catalog
    // the last turn sent, or the server re-reads everything from the tool definitions on.
    h.alisio(&["compact", &session, "--json"]).await;
    let calls = turn_calls(&h);
    let summary = calls.iter().position(|c| c["purpose"] == "compaction").expect("a compaction call");
    let previous_prompt = calls[summary - 1]["prompt"].as_u64().unwrap();
    let cached = calls[summary]["cached"].as_u64().unwrap();
    assert!(
        cached as f64 >= 0.95 * previous_prompt as f64,
        "the summary request reused {cached} of the previous {previous_prompt} prompt tokens: {calls:?}"
    );
    eprintln!("model calls against the real server, MCP configured: {calls:#?}");
    let tools = h.rows("SELECT tools FROM model_calls ORDER BY id");
    assert!(tools.iter().all(|r| r[0].as_str().is_some_and(|t| t.contains("mcp__time__"))), "{tools:?}");
    server.stop().await;
}
