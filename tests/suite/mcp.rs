//! MCP tool servers against real ones: PyPI's `mcp-server-time` and a small server built on
//! the official Python SDK (`tests/mcp/flaky_server.py`), both from the virtualenv that
//! `tests/mcp/setup.sh` makes, over stdio and streamable HTTP.

use std::path::PathBuf;

use pretty_assertions::assert_eq;
use serde_json::{json, Value};

use super::support::{conversation, Answer, Harness, Reply};

/// The virtualenv's bin directory (`tests/mcp/setup.sh`; `ALISIO_MCP_BIN` overrides).
fn venv_bin() -> PathBuf {
    let bin = std::env::var_os("ALISIO_MCP_BIN").map(PathBuf::from).unwrap_or_else(|| {
        PathBuf::from(std::env::var("HOME").unwrap()).join(".cache/alisio-mcp/venv-mcp-server-time-2026.10.19/bin")
    });
    assert!(bin.join("mcp-server-time").exists(), "{} has no mcp-server-time: run tests/mcp/setup.sh", bin.display());
    bin
}

fn time_server(permission: &str) -> Value {
    let command = venv_bin().join("mcp-server-time");
    json!({"command": command, "args": ["--local-timezone", "UTC"], "permission": permission})
}

fn flaky_server() -> Value {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/mcp/flaky_server.py");
    json!({"command": venv_bin().join("python"), "args": [script], "permission": "allow"})
}

/// The names in a request's `tools`.
fn tool_names(body: &Value) -> Vec<String> {
    body["tools"].as_array().unwrap().iter().map(|t| t["function"]["name"].as_str().unwrap().to_string()).collect()
}

const BUILTIN: [&str; 6] = ["read_file", "write_file", "edit_file", "list_dir", "grep", "shell"];

/// Tool results of request `n` (0-based), as (call id, content).
fn results(h: &Harness, n: usize) -> Vec<(String, String)> {
    conversation(&h.server.bodies()[n])
        .into_iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| (m["tool_call_id"].as_str().unwrap().to_string(), m["content"].as_str().unwrap().to_string()))
        .collect()
}

#[tokio::test]
async fn a_real_servers_tools_are_offered_called_and_answered_under_the_same_call_id() {
    let h = Harness::with_config(
        vec![
            Reply::Answer(Answer::calls(&[("call_t.1", "mcp__time__get_current_time", json!({"timezone": "UTC"}))])),
            Reply::Answer(Answer::text("it is now")),
        ],
        json!({"mcpServers": {"time": time_server("allow")}}),
    )
    .await;
    let run = h.run(&[], "what time is it?").await;
    run.assert_ok();
    let bodies = h.server.bodies();
    let mut expected: Vec<String> = BUILTIN.iter().map(|s| s.to_string()).collect();
    expected.extend(["mcp__time__get_current_time".into(), "mcp__time__convert_time".into()]);
    assert_eq!(tool_names(&bodies[0]), expected);
    let offered = &bodies[0]["tools"][6]["function"];
    assert_eq!(offered["parameters"]["properties"]["timezone"]["type"], "string", "the server's own schema: {offered}");
    assert!(offered["description"].as_str().unwrap().to_lowercase().contains("time"), "{offered}");

    let answered = results(&h, 1);
    assert_eq!(answered.len(), 1);
    assert_eq!(answered[0].0, "call_t.1");
    let reported: Value = serde_json::from_str(&answered[0].1).unwrap_or_else(|e| panic!("{e}: {}", answered[0].1));
    assert_eq!(reported["timezone"], "UTC");
    assert!(reported["datetime"].as_str().unwrap().starts_with("20"), "{reported}");
    let types = run.event_types();
    assert!(types.windows(2).any(|w| w == ["tool_started", "tool_finished"]), "{types:?}");
    assert!(!types.contains(&"mcp_server_failed".to_string()), "{types:?}");

    // The ledger rebuilds the exact body, MCP tools included, and the view counts them per server.
    let session = run.session();
    for (n, body) in bodies.iter().enumerate() {
        let shown = h.alisio(&["calls", "show", &session, &(n + 1).to_string(), "--json"]).await;
        assert_eq!(&shown.assert_ok().json()["request"], body, "call {}", n + 1);
    }
    let view = h.alisio(&["sessions", "show", &session, "--view", "model", "--json"]).await;
    let view = view.assert_ok().json();
    let catalog = view["toolCatalog"].as_array().unwrap();
    assert_eq!(catalog.iter().map(|c| c["server"].as_str().unwrap()).collect::<Vec<_>>(), ["builtin", "time"]);
    assert_eq!((catalog[0]["tools"].clone(), catalog[1]["tools"].clone()), (json!(6), json!(2)));
    let time_chars = catalog[1]["chars"].as_u64().unwrap();
    let tools_text = serde_json::to_string(&bodies[0]["tools"]).unwrap().chars().count() as u64;
    assert_eq!(view["toolCatalogChars"].as_u64().unwrap(), tools_text);
    assert_eq!(catalog[0]["chars"].as_u64().unwrap() + time_chars, tools_text, "the shares add up");
    assert!(time_chars > 400 && time_chars < tools_text, "{time_chars} of {tools_text}");

    let listed = h.alisio(&["mcp", "list", "--json"]).await;
    let listed = listed.assert_ok().json();
    let server = &listed[0];
    assert_eq!((server["name"].clone(), server["status"].clone()), (json!("time"), json!("ready")));
    assert_eq!(server["server"], "time");
    let chars: u64 = server["tools"].as_array().unwrap().iter().map(|t| t["chars"].as_u64().unwrap()).sum();
    assert_eq!(chars, time_chars);
}

#[tokio::test]
async fn an_mcp_servers_permission_asks_like_a_built_in_tool_and_deny_refuses() {
    let script = || {
        vec![
            Reply::Answer(Answer::calls(&[("t", "mcp__time__get_current_time", json!({"timezone": "UTC"}))])),
            Reply::Answer(Answer::text("ok")),
        ]
    };
    let asked = Harness::with_config(script(), json!({"mcpServers": {"time": time_server("ask")}})).await;
    asked.run(&[], "time?").await.assert_ok();
    let refusal = &results(&asked, 1)[0].1;
    assert!(
        refusal.contains("permission refused")
            && refusal.contains("mcpServers.time.permission")
            && refusal.contains("--yes"),
        "{refusal}"
    );
    let approved = Harness::with_config(script(), json!({"mcpServers": {"time": time_server("ask")}})).await;
    approved.run(&["--yes"], "time?").await.assert_ok();
    assert!(results(&approved, 1)[0].1.contains("\"datetime\""), "{:?}", results(&approved, 1));
    let denied = Harness::with_config(script(), json!({"mcpServers": {"time": time_server("deny")}})).await;
    denied.run(&["--yes"], "time?").await.assert_ok();
    let refusal = &results(&denied, 1)[0].1;
    assert!(refusal.contains("permission denied") && refusal.contains("mcpServers.time.permission"), "{refusal}");
    assert_eq!(denied.rows("SELECT state, ok FROM tool_calls"), vec![vec![json!("finished"), json!(0)]]);
}

#[tokio::test]
async fn a_server_that_dies_mid_call_is_reported_its_call_answered_and_its_tools_leave() {
    let h = Harness::with_config(
        vec![
            Reply::Answer(Answer::calls(&[("c1", "mcp__flaky__crash", json!({}))])),
            Reply::Answer(Answer::calls(&[("c2", "list_dir", json!({"path": "."}))])),
            Reply::Answer(Answer::text("carried on")),
        ],
        json!({"mcpServers": {"flaky": flaky_server(), "time": time_server("allow")}}),
    )
    .await;
    let run = h.run(&[], "crash it").await;
    run.assert_ok();
    let bodies = h.server.bodies();
    assert_eq!(bodies.len(), 3, "the turn went on");
    assert!(tool_names(&bodies[0]).contains(&"mcp__flaky__crash".to_string()));
    for body in &bodies[1..] {
        let names = tool_names(body);
        assert!(!names.iter().any(|n| n.starts_with("mcp__flaky__")), "{names:?}");
        assert!(names.contains(&"mcp__time__convert_time".to_string()), "the other server stays: {names:?}");
    }
    let answered = results(&h, 1);
    assert_eq!(answered[0].0, "c1");
    assert!(answered[0].1.starts_with("error: MCP server flaky: the server stopped"), "{}", answered[0].1);
    let failed: Vec<Value> = run.events().into_iter().filter(|e| e["type"] == "mcp_server_failed").collect();
    assert_eq!(failed.len(), 1, "reported once: {failed:?}");
    assert_eq!(failed[0]["server"], "flaky");
    assert!(failed[0]["error"].as_str().unwrap().contains("crashing on purpose"), "its stderr explains: {failed:?}");
    assert_eq!(h.rows("SELECT type FROM events WHERE type = 'mcp_server_failed'").len(), 1);
}

#[tokio::test]
async fn a_server_that_never_starts_is_reported_and_the_turn_runs_with_the_other_tools() {
    let h = Harness::with_config(
        vec![Reply::Answer(Answer::text("fine"))],
        json!({"mcpServers": {"stuck": {"command": "sleep", "args": ["30"], "startupTimeoutMs": 300}}}),
    )
    .await;
    let started = std::time::Instant::now();
    let run = h.run(&[], "hello").await;
    run.assert_ok();
    assert!(started.elapsed() < std::time::Duration::from_secs(20));
    assert_eq!(tool_names(&h.server.bodies()[0]), BUILTIN);
    let failed: Vec<Value> = run.events().into_iter().filter(|e| e["type"] == "mcp_server_failed").collect();
    assert_eq!(failed.len(), 1);
    assert_eq!(failed[0]["server"], "stuck");
    assert!(failed[0]["error"].as_str().unwrap().contains("mcpServers.stuck.startupTimeoutMs"), "{failed:?}");
    let listed = h.alisio(&["mcp", "list", "--json"]).await;
    let server = &listed.assert_ok().json()[0];
    assert_eq!(server["status"], "failed");
    assert!(server["error"].as_str().unwrap().contains("within 300 ms"), "{server}");
}

#[tokio::test]
async fn bad_mcp_settings_are_refused_naming_the_key_before_anything_runs() {
    // A command that is not installed here is not among them: that server fails to start, the run
    // goes on (`a_missing_mcp_command_fails_that_server_only`).
    let cases = [
        (json!({"url": "localhost:9000/mcp"}), "mcpServers.bad.url", "http"),
        (json!({"command": "sleep", "url": "http://127.0.0.1:9/mcp"}), "mcpServers.bad", "one"),
        (json!({}), "mcpServers.bad", "\"command\""),
        (
            json!({"url": "http://127.0.0.1:9/mcp", "headers": {"Authorization": "env:ALISIO_TEST_UNSET_TOKEN"}}),
            "mcpServers.bad.headers.Authorization",
            "ALISIO_TEST_UNSET_TOKEN",
        ),
    ];
    for (server, key, hint) in cases {
        let h =
            Harness::with_config(vec![Reply::Answer(Answer::text("never"))], json!({"mcpServers": {"bad": server}}))
                .await;
        let run = h.run(&[], "hello").await;
        assert_eq!(run.code, 2, "{}", run.stderr);
        assert!(run.stderr.contains(key) && run.stderr.contains(hint), "{key} / {hint}: {}", run.stderr);
        assert!(h.server.bodies().is_empty());
        assert!(!h.db_path().exists(), "nothing written");
    }
}

#[tokio::test]
async fn server_processes_never_see_the_provider_key_and_results_keep_their_parts() {
    let mut h = Harness::with_config(
        vec![
            Reply::Answer(Answer::calls(&[
                ("e", "mcp__flaky__environment", json!({})),
                ("s", "mcp__flaky__snapshot", json!({"label": "cat"})),
            ])),
            Reply::Answer(Answer::text("ok")),
        ],
        json!({"mcpServers": {"flaky": flaky_server()}}),
    )
    .await;
    h.env.push(("OPENAI_API_KEY".into(), "sk-live-abcdefghijklmnopqrstuvwx".into()));
    h.run(&[], "look").await.assert_ok();
    let answered = results(&h, 1);
    assert!(answered[0].1.split(' ').any(|v| v == "PATH"), "{}", answered[0].1);
    assert!(!answered[0].1.contains("OPENAI_API_KEY"), "{}", answered[0].1);
    assert_eq!(answered[1], ("s".to_string(), "snapshot of cat\n[image: image/png, 67 bytes]".to_string()));
}

#[tokio::test]
async fn a_streamable_http_server_is_used_like_a_stdio_one() {
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/mcp/flaky_server.py");
    let mut server = tokio::process::Command::new(venv_bin().join("python"))
        .args([script, "http", &port.to_string()])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while tokio::net::TcpStream::connect(("127.0.0.1", port)).await.is_err() {
        assert!(std::time::Instant::now() < deadline, "the HTTP MCP server did not start");
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let url = format!("http://127.0.0.1:{port}/mcp");
    let h = Harness::with_config(
        vec![
            Reply::Answer(Answer::calls(&[("h1", "mcp__remote__snapshot", json!({"label": "dog"}))])),
            Reply::Answer(Answer::text("ok")),
        ],
        json!({"mcpServers": {"remote": {"url": url, "headers": {"X-Team": "tools"}, "permission": "allow"}}}),
    )
    .await;
    h.run(&[], "over http").await.assert_ok();
    assert_eq!(results(&h, 1), vec![("h1".to_string(), "snapshot of dog\n[image: image/png, 67 bytes]".to_string())]);
    server.kill().await.unwrap();
}

#[tokio::test]
async fn a_server_that_dies_between_calls_leaves_the_next_request() {
    let h = Harness::with_config(
        vec![
            Reply::Answer(Answer::calls(&[("x1", "mcp__flaky__exit_soon", json!({}))])),
            Reply::Answer(Answer::calls(&[("s1", "shell", json!({"command": "sleep 1"}))])),
            Reply::Answer(Answer::text("done")),
        ],
        json!({"mcpServers": {"flaky": flaky_server()}}),
    )
    .await;
    let run = h.run(&[], "go").await;
    run.assert_ok();
    let bodies = h.server.bodies();
    assert_eq!(results(&h, 1), vec![("x1".to_string(), "leaving".to_string())]);
    assert!(tool_names(&bodies[1]).contains(&"mcp__flaky__exit_soon".to_string()), "still alive after answering");
    assert_eq!(tool_names(&bodies[2]), BUILTIN, "gone from the request after it died");
    let types = run.event_types();
    let failed = types.iter().position(|t| t == "mcp_server_failed").expect("reported");
    let last_call = types.iter().rposition(|t| t == "model_call").unwrap();
    assert!(failed < last_call, "reported before the next request: {types:?}");
    assert_eq!(types.iter().filter(|t| *t == "mcp_server_failed").count(), 1);
}

fn used(answer: Answer, (prompt, cached): (u64, u64)) -> Reply {
    Reply::Answer(Answer { usage: Some((prompt, 20, cached)), ..answer })
}

fn checkpoint_text(goal: &str) -> String {
    json!({
        "goal": goal, "instructions": ["answer briefly"], "discoveries": ["the time server answers"],
        "accomplished": "asked the time", "currentState": "idle", "nextSteps": ["continue"], "relevantFiles": [],
    })
    .to_string()
}

/// The summarizer's request extends the request before it: the same system prompt and `tools`
/// array byte for byte, that request's messages first, the summary request appended.
fn assert_extends(previous: &Value, summary: &Value) {
    assert_eq!(summary["tools"], previous["tools"], "the summarizer sends the catalog the last request sent");
    let (old, new) = (previous["messages"].as_array().unwrap(), summary["messages"].as_array().unwrap());
    assert!(new.len() > old.len(), "{} messages after {}", new.len(), old.len());
    assert_eq!(&new[..old.len()], &old[..], "the previous request's messages come first, unchanged");
    assert_eq!(new.last().unwrap()["role"], "user", "the summary request is appended last");
}

#[tokio::test]
async fn alisio_compact_from_the_cli_sends_the_catalog_the_last_request_sent_mcp_tools_included() {
    let h = Harness::with_config(
        // Each answer reports the previous request read from the cache, as a prefix-caching server does.
        vec![
            used(Answer::calls(&[("call_t.1", "mcp__time__get_current_time", json!({"timezone": "UTC"}))]), (1_000, 0)),
            used(Answer::text("it is now"), (1_100, 1_000)),
            used(Answer::text("second answer"), (1_200, 1_100)),
            used(Answer::text(&checkpoint_text("know the time")), (1_300, 1_200)),
        ],
        json!({"plugins": [], "compaction": {"keepTurns": 1}, "mcpServers": {"time": time_server("allow")}}),
    )
    .await;
    let session = h.run(&[], "what time is it?").await.assert_ok().session();
    h.run(&["--session", &session], "and now?").await.assert_ok();
    // `alisio compact` is its own process: it starts no MCP server.
    let compacted = h.alisio(&["compact", &session, "--json"]).await;
    compacted.assert_ok();
    let bodies = h.server.bodies();
    assert_eq!(bodies.len(), 4);
    assert!(
        tool_names(&bodies[3]).contains(&"mcp__time__get_current_time".to_string()),
        "{:?}",
        tool_names(&bodies[3])
    );
    assert_extends(&bodies[2], &bodies[3]);
    // The summarizer call is no break of the cache chain (nor is any call of this session).
    let breaks = h.alisio(&["calls", "breaks", &session, "--json"]).await.assert_ok().json();
    assert_eq!(breaks, json!([]));
}

#[tokio::test]
async fn automatic_compaction_with_an_mcp_server_extends_the_request_before_it() {
    let h = Harness::with_config(
        vec![
            Reply::Answer(Answer::text("answer 1")),
            Reply::Answer(Answer::text("answer 2")),
            Reply::Answer(Answer::text(&checkpoint_text("auto"))),
            Reply::Answer(Answer::text("answer 3")),
        ],
        json!({"plugins": [], "compaction": {"threshold": 0.5}, "mcpServers": {"time": time_server("allow")}}),
    )
    .await;
    // Window 8,000 tokens: compaction at 4,000 (16,000 characters, the catalog included).
    h.server.set_models(json!({"data": [{"id": "test-model", "context_length": 8000}]}));
    let session = h.run(&[], &format!("first {}", "x".repeat(3000))).await.assert_ok().session();
    h.run(&["--session", &session], "second").await.assert_ok();
    let third = h.run(&["--session", &session], &format!("third {}", "y".repeat(12000))).await;
    third.assert_ok();
    assert!(third.event_types().contains(&"compaction_completed".to_string()), "{:?}", third.event_types());
    let bodies = h.server.bodies();
    assert_eq!(bodies.len(), 4);
    assert_eq!(bodies[2]["tool_choice"], "none", "call 3 is the summarizer");
    assert!(tool_names(&bodies[2]).contains(&"mcp__time__convert_time".to_string()));
    assert_extends(&bodies[1], &bodies[2]);
}

#[tokio::test]
async fn a_call_nothing_answered_is_no_link_of_the_cache_chain() {
    let h = Harness::with_config(
        vec![
            Reply::Answer(Answer::text("answer 1")),
            Reply::Status(400, r#"{"error":{"message":"invalid request: the server is being restarted"}}"#.into()),
            Reply::Answer(Answer::text("answer 3")),
        ],
        json!({"plugins": []}),
    )
    .await;
    let session = h.run(&[], "first").await.assert_ok().session();
    let failed = h.run(&["--session", &session], "second").await;
    assert_ne!(failed.code, 0);
    h.run(&["--session", &session], "third").await.assert_ok();
    let calls = h.alisio(&["calls", "list", &session, "--json"]).await.assert_ok().json();
    assert_eq!(calls.as_array().unwrap().len(), 3);
    assert!(calls[1]["error"].is_string(), "{}", calls[1]);
    let breaks = h.alisio(&["calls", "breaks", &session, "--json"]).await.assert_ok().json();
    for b in breaks.as_array().unwrap() {
        assert_ne!(b["n"], 2, "the failed call is not judged: {b}");
        assert_ne!(b["against"], 2, "nor judged against: {b}");
    }
}
