//! Defects found by a hostile test of the CLI, each reproduced against the scripted server: secrets
//! reaching tools, interleaved processes, runaway tool processes, duplicate call ids, oversized
//! requests, hanging and raced file tools.

use serde_json::{json, Value};

use super::support::{Answer, Harness, Reply};

fn contains(haystack: &[u8], needle: &str) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle.as_bytes())
}

/// `shell` used to inherit the environment: `env` or `/proc/$PPID/environ` printed the key, which
/// was stored and sent to the server. Now tool processes never get it, and any echo of its value
/// (the parent's environ, the model's own text) is redacted before it is stored, shown or sent.
#[tokio::test]
async fn tool_processes_never_see_the_provider_key_and_its_value_is_redacted_everywhere() {
    let secret = "sk-alisio-test-SECRET-4242";
    let probe = "echo \"env:[$OPENAI_API_KEY] alias:[$TEAM_KEY]\"; tr '\\000' '\\n' < /proc/$PPID/environ | grep '^OPENAI_API_KEY='; true";
    // The key sits in the middle of the answer, so the scripted server streams it split in two.
    let answer = format!("I saw the key {secret} in the environment of the parent process, sorry.");
    let mut h = Harness::new(vec![
        Reply::Answer(Answer::calls(&[("probe", "shell", json!({"command": probe}))])),
        Reply::Answer(Answer::text(&answer)),
    ])
    .await;
    h.env.push(("OPENAI_API_KEY".into(), secret.into()));
    h.env.push(("TEAM_KEY".into(), secret.into()));
    let run = h.run(&[], &format!("check the environment (my key is {secret})")).await;
    run.assert_ok();
    let session = run.session();

    let result: String =
        h.db().query_row("SELECT content FROM messages WHERE role = 'tool'", [], |r| r.get(0)).unwrap();
    assert!(result.contains("env:[] alias:[]"), "the tool process got the key: {result}");
    assert!(result.contains("OPENAI_API_KEY=[redacted]"), "the parent's environ is redacted: {result}");
    let bodies = h.server.bodies();
    assert_eq!(bodies.len(), 2);
    for body in &bodies {
        assert!(!body.to_string().contains(secret), "sent to the server: {body}");
    }
    let shown = h.alisio(&["sessions", "show", &session, "--json"]).await;
    let texts: Vec<Value> = shown.json()["messages"].as_array().unwrap().iter().map(|m| m["content"].clone()).collect();
    assert!(texts.contains(&json!("I saw the key [redacted] in the environment of the parent process, sorry.")));
    for text in [&run.stdout, &run.stderr, &shown.stdout] {
        assert!(!text.contains(secret), "shown: {text}");
    }
    for entry in std::fs::read_dir(h.home.path()).unwrap() {
        let path = entry.unwrap().path();
        assert!(!contains(&std::fs::read(&path).unwrap(), secret), "stored in {}", path.display());
    }
}
