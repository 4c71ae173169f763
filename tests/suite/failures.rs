//! Bad input and broken servers: clear errors, right exit codes, nothing lost, no secret leaked.

use pretty_assertions::assert_eq;
use serde_json::{json, Value};

use super::support::{Answer, Harness, Reply};

#[tokio::test]
async fn invalid_config_exits_2_naming_the_key_before_any_request() {
    let cases = [
        (json!({"compaction": {"threshold": 1.5}}), "compaction.threshold = 1.5 is out of range (allowed 0.1–0.99)"),
        (json!({"compaction": {"keepTurns": 40}}), "compaction.keepTurns = 40 is out of range (allowed 0–20)"),
        (json!({"compaction": {"keepTurns": "two"}}), "compaction.keepTurns"),
        (json!({"permissions": {"shell": "maybe"}}), "permissions.shell"),
        (json!({"limits": {"maxContextChars": "lots"}}), "limits.maxContextChars"),
    ];
    for (overlay, message) in cases {
        let h = Harness::new(vec![Reply::Answer(Answer::text("never sent"))]).await;
        let file = h.home.path().join("overlay.json");
        std::fs::write(&file, overlay.to_string()).unwrap();
        let run = h.alisio(&["run", "--config", file.to_str().unwrap(), "hi"]).await;
        assert_eq!(run.code, 2, "{overlay}: {}", run.stderr);
        assert!(run.stderr.contains(message), "{overlay}: {}", run.stderr);
        assert!(h.server.received().is_empty(), "nothing is sent with an invalid config");
    }
    let h = Harness::new(vec![]).await;
    std::fs::write(h.home.path().join("config.json"), "{ not json").unwrap();
    let run = h.alisio(&["sessions", "list"]).await;
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("config.json is not valid JSON"), "{}", run.stderr);
}

/// The user's turn survives every provider failure, and the ledger records the error.
fn assert_turn_kept(h: &Harness, prompt: &str) {
    assert_eq!(h.rows("SELECT role, content FROM messages"), vec![vec![json!("user"), json!(prompt)]]);
    let errors = h.rows("SELECT error FROM model_calls");
    assert_eq!(errors.len(), 1);
    assert!(errors[0][0].is_string(), "the failed call is in the ledger with its error");
}

#[tokio::test]
async fn server_errors_are_retried_then_reported() {
    let h = Harness::with_config(
        vec![
            Reply::Status(500, "{\"error\":\"boom\"}".into()),
            Reply::Status(503, "{\"error\":\"still down\"}".into()),
        ],
        json!({"provider": {"maxRetries": 1}}),
    )
    .await;
    let run = h.run(&[], "keep me").await;
    assert_eq!(run.code, 1);
    assert!(
        run.stderr.contains("answered HTTP 503")
            && run.stderr.contains("after 2 attempts")
            && run.stderr.contains("still down"),
        "{}",
        run.stderr
    );
    assert_eq!(h.server.bodies().len(), 2, "one retry");
    assert_eq!(run.event_types(), ["session", "error"]);
    assert_turn_kept(&h, "keep me");
}

#[tokio::test]
async fn a_silent_server_times_out() {
    let h = Harness::with_config(vec![Reply::Hang], json!({"provider": {"timeoutMs": 300}})).await;
    let run = h.run(&[], "slow").await;
    assert_eq!(run.code, 1);
    assert!(run.stderr.contains("provider.timeoutMs"), "{}", run.stderr);
    assert_turn_kept(&h, "slow");
}

#[tokio::test]
async fn malformed_and_cut_answers_are_clear_errors() {
    let h =
        Harness::with_config(vec![Reply::Raw("this is not json".into())], json!({"provider": {"stream": false}})).await;
    let run = h.run(&[], "malformed").await;
    assert_eq!(run.code, 1);
    assert!(run.stderr.contains("not valid JSON"), "{}", run.stderr);
    assert_turn_kept(&h, "malformed");

    let h = Harness::new(vec![Reply::CutStream(Answer::text("a long answer that never finishes"))]).await;
    let run = h.run(&[], "cut").await;
    assert_eq!(run.code, 1);
    assert!(run.stderr.contains("closed the stream before the answer was complete"), "{}", run.stderr);
    assert_turn_kept(&h, "cut");

    let h = Harness::new(vec![Reply::Raw("data: {broken\n\n".into())]).await;
    let run = h.run(&[], "garbled").await;
    assert_eq!(run.code, 1);
    assert!(run.stderr.contains("not valid JSON"), "{}", run.stderr);
}

#[tokio::test]
async fn an_unreachable_server_names_the_url_and_the_setting() {
    let h = Harness::new(vec![]).await;
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let file = h.home.path().join("dead.json");
    std::fs::write(&file, json!({"provider": {"baseUrl": format!("http://127.0.0.1:{port}/v1")}}).to_string()).unwrap();
    let run = h.alisio(&["run", "--config", file.to_str().unwrap(), "hello?"]).await;
    assert_eq!(run.code, 1);
    assert!(run.stderr.contains(&format!("http://127.0.0.1:{port}/v1/chat/completions")), "{}", run.stderr);
    assert!(run.stderr.contains("provider.baseUrl") && run.stderr.contains("refused"), "{}", run.stderr);
}

#[tokio::test]
async fn the_api_key_goes_out_as_a_bearer_token_and_nowhere_else() {
    let secret = "sk-alisio-test-SECRET-4242";
    let mut h = Harness::new(vec![
        Reply::Answer(Answer::calls(&[("env", "shell", json!({"command": "echo checking"}))])),
        Reply::Answer(Answer::text("ok")),
        Reply::Status(401, format!("{{\"error\": \"invalid api key {secret}\"}}")),
    ])
    .await;
    h.env.push(("OPENAI_API_KEY".into(), secret.into()));
    h.env.push(("ALISIO_LOG".into(), "trace".into()));
    let ok = h.run(&[], "first").await;
    ok.assert_ok();
    let session = ok.session();
    let failed = h.run(&["--session", &session], "second").await;
    assert_eq!(failed.code, 1);
    assert!(failed.stderr.contains("invalid api key [redacted]"), "{}", failed.stderr);
    for received in h.server.received() {
        assert_eq!(
            received.headers.get("authorization").map(String::as_str),
            Some(format!("Bearer {secret}").as_str())
        );
    }
    let shown = h.alisio(&["sessions", "show", &session, "--json"]).await;
    for text in [&ok.stdout, &ok.stderr, &failed.stdout, &failed.stderr, &shown.stdout] {
        assert!(!text.contains(secret), "secret leaked: {text}");
    }
    for path in super::support::files_under(h.home.path()) {
        let bytes = std::fs::read(&path).unwrap();
        assert!(!bytes.windows(secret.len()).any(|w| w == secret.as_bytes()), "secret in a stored file");
    }
}

#[tokio::test]
async fn corrupt_foreign_and_newer_databases_are_refused_untouched() {
    let h = Harness::new(vec![]).await;
    let garbage = vec![0x42u8; 8192];
    std::fs::write(h.db_path(), &garbage).unwrap();
    let run = h.alisio(&["sessions", "list"]).await;
    assert_eq!(run.code, 1);
    assert!(
        run.stderr.contains("is not a valid SQLite database") && run.stderr.contains("left untouched"),
        "{}",
        run.stderr
    );
    assert_eq!(std::fs::read(h.db_path()).unwrap(), garbage);

    std::fs::remove_file(h.db_path()).unwrap();
    rusqlite::Connection::open(h.db_path()).unwrap().execute_batch("PRAGMA user_version = 99;").unwrap();
    let run = h.alisio(&["sessions", "list"]).await;
    // A home from a newer release is the user's to fix (exit 2, as an invalid config is), naming
    // both releases (this home, from before releases recorded themselves, says only "newer").
    assert_eq!(run.code, 2);
    assert!(run.stderr.contains("written by Alisio a newer release (schema 99)"), "{}", run.stderr);

    std::fs::remove_file(h.db_path()).unwrap();
    let run = h.alisio(&["sessions", "show", "nope"]).await;
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("no session matches `nope`"), "{}", run.stderr);
}

#[tokio::test]
async fn the_models_command_reads_the_context_window_from_the_server() {
    let h = Harness::new(vec![]).await;
    h.server.set_models(json!({"object": "list", "data": [{"id": "other", "context_length": 4096}, {"id": "test-model", "max_model_len": 32768}]}));
    let run = h.alisio(&["models", "--json"]).await;
    run.assert_ok();
    let doc = run.json();
    assert_eq!(doc["reportedContextWindow"], 32768);
    assert_eq!(doc["models"]["data"][1]["id"], "test-model");
    let paths: Vec<String> = h.server.received().into_iter().map(|r| r.path).collect();
    assert_eq!(paths, ["/v1/models"], "one request: the window comes from the same list");
}

/// Each common server's way of reporting its window, and which source gave the window in force.
#[tokio::test]
async fn the_window_is_discovered_on_every_common_server() {
    type Setup = fn(&super::support::ScriptedServer);
    let cases: [(&str, Setup, Value, &str); 6] = [
        (
            "vLLM",
            |s| s.set_models(json!({"data": [{"id": "test-model", "max_model_len": 32768}]})),
            json!(32768),
            "models",
        ),
        (
            "OpenRouter",
            |s| s.set_models(json!({"data": [{"id": "test-model", "context_length": 200000}]})),
            json!(200000),
            "models",
        ),
        (
            "llama.cpp",
            |s| {
                s.set_models(json!({"data": [{"id": "test-model", "meta": {"n_ctx_train": 131072}}]}));
                s.set_route("/props", json!({"default_generation_settings": {"n_ctx": 8192}}));
            },
            json!(8192),
            "props",
        ),
        (
            "Ollama, loaded",
            |s| {
                s.set_models(json!({"object": "list", "data": [{"id": "test-model"}]}));
                s.set_route(
                    "/api/show",
                    json!({"model_info": {"general.architecture": "qwen2", "qwen2.context_length": 32768}}),
                );
                s.set_route("/api/ps", json!({"models": [{"name": "test-model", "context_length": 4096}]}));
            },
            json!(4096),
            "ollama",
        ),
        (
            "Ollama, not loaded",
            |s| {
                s.set_models(json!({"object": "list", "data": [{"id": "test-model"}]}));
                s.set_route(
                    "/api/show",
                    json!({"model_info": {"general.architecture": "qwen2", "qwen2.context_length": 32768}}),
                );
            },
            json!(32768),
            "ollama",
        ),
        (
            "LM Studio",
            |s| {
                s.set_models(json!({"object": "list", "data": [{"id": "test-model"}]}));
                s.set_route(
                    "/api/v0/models",
                    json!({"data": [{"id": "test-model", "max_context_length": 32768, "loaded_context_length": 8192}]}),
                );
            },
            json!(8192),
            "lmstudio",
        ),
    ];
    for (server, setup, window, source) in cases {
        let h = Harness::new(vec![]).await;
        setup(&h.server);
        let doc = h.alisio(&["models", "--json"]).await.json();
        assert_eq!(
            (doc["reportedContextWindow"].clone(), doc["windowSource"].clone()),
            (window, json!(source)),
            "{server}"
        );
    }
    let h = Harness::with_config(vec![], json!({"provider": {"contextWindow": 1000}})).await;
    h.server.set_models(json!({"data": [{"id": "test-model", "max_model_len": 32768}]}));
    let doc = h.alisio(&["models", "--json"]).await.json();
    assert_eq!((doc["configuredContextWindow"].clone(), doc["windowSource"].clone()), (json!(1000), json!("provider")));
}
