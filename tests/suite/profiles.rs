//! Connection profiles through the binary: `activeProfile` and `--profile` pick the server,
//! model, key variable and window; the ledger records which profile answered each call.

use pretty_assertions::assert_eq;
use serde_json::json;

use super::support::{Answer, Harness, Reply};

/// A harness whose plain `provider` points nowhere: only a profile reaches the scripted server.
async fn harness(replies: Vec<Reply>, active: Option<&str>) -> Harness {
    let h = Harness::with_config(replies, json!({})).await;
    let url = h.server.base_url.clone();
    let config = json!({
        "provider": {"baseUrl": "http://127.0.0.1:9/v1", "model": "nowhere", "maxRetries": 0, "timeoutMs": 10000},
        "permissions": {"shell": "allow", "write": "allow"},
        "profiles": {
            "local": {"baseUrl": url, "model": "local-model", "apiKeyEnv": null, "contextWindow": 12345},
            "keyed": {"baseUrl": url, "model": "keyed-model", "apiKeyEnv": "PROFILE_KEY"}
        },
        "activeProfile": active,
    });
    std::fs::write(h.home.path().join("config.json"), config.to_string()).unwrap();
    h
}

#[tokio::test]
async fn the_active_profile_and_the_flag_pick_server_model_key_and_window() {
    let mut h =
        harness(vec![Reply::Answer(Answer::text("one")), Reply::Answer(Answer::text("two"))], Some("local")).await;
    h.env.push(("PROFILE_KEY".into(), "sk-profile-secret-value-123".into()));
    h.env.push(("OPENAI_API_KEY".into(), "sk-base-secret-value-456".into()));

    // The server reports 4096 for the model; the profile's contextWindow comes first.
    h.server.set_models(json!({"data": [{"id": "local-model", "context_length": 4096}]}));
    let models = h.alisio(&["models", "--json"]).await;
    models.assert_ok();
    let doc = models.json();
    assert_eq!((doc["profile"].clone(), doc["windowSource"].clone()), (json!("local"), json!("profile")));
    assert_eq!(doc["model"], "local-model");
    assert_eq!(doc["reportedContextWindow"], 4096);

    let first = h.run(&[], "hello").await;
    first.assert_ok();
    let session = first.session();
    let second = h.run(&["--session", &session, "--profile", "keyed"], "again").await;
    second.assert_ok();

    let calls: Vec<_> = h.server.received().into_iter().filter(|r| r.is_model_call()).collect();
    assert_eq!(calls.len(), 2);
    assert_eq!(
        (calls[0].body["model"].clone(), calls[1].body["model"].clone()),
        (json!("local-model"), json!("keyed-model"))
    );
    assert_eq!(calls[0].headers.get("authorization"), None, "a profile with apiKeyEnv null sends no key");
    assert_eq!(calls[1].headers.get("authorization").map(String::as_str), Some("Bearer sk-profile-secret-value-123"));
    // The ledger says which profile answered each call.
    assert_eq!(
        h.rows("SELECT model, json_extract(params, '$.profile') FROM model_calls ORDER BY id"),
        vec![vec![json!("local-model"), json!("local")], vec![json!("keyed-model"), json!("keyed")]]
    );
    let stored = h.rows("SELECT group_concat(content) FROM messages")[0][0].to_string();
    assert!(!stored.contains("sk-profile-secret") && !stored.contains("sk-base-secret"));
}

#[tokio::test]
async fn an_unknown_profile_is_a_config_error_before_anything_is_sent() {
    let h = harness(vec![Reply::Answer(Answer::text("never"))], None).await;
    let run = h.run(&["--profile", "missing"], "hello").await;
    assert_eq!(run.code, 2, "{}", run.stderr);
    assert!(run.stderr.contains("\"missing\": no such profile (profiles: keyed, local)"), "{}", run.stderr);
    assert!(h.server.received().iter().all(|r| !r.is_model_call()));
}

#[tokio::test]
async fn the_finder_lists_the_servers_that_answer_with_their_models_and_window() {
    use alisio_engine::provider::finder::find_servers;
    let h = Harness::with_config(vec![], json!({})).await;
    h.server
        .set_models(json!({"object": "list", "data": [{"id": "qwen3:8b", "max_model_len": 32768}, {"id": "other"}]}));
    let port: u16 = h.server.base_url.rsplit(':').next().unwrap().trim_end_matches("/v1").parse().unwrap();
    // A port nothing listens on: bound, then released.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let found =
        find_servers("127.0.0.1", &[(closed, "Ollama"), (port, "vLLM")], std::time::Duration::from_millis(1500)).await;
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].name, "vLLM");
    assert_eq!(found[0].base_url, format!("http://127.0.0.1:{port}/v1"));
    assert_eq!(found[0].models, ["qwen3:8b", "other"]);
    assert_eq!(found[0].context_window, Some(32768));
    assert_eq!(serde_json::to_value(found[0].window_source).unwrap(), json!("models"));
}
