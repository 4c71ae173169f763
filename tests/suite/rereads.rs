//! Re-read forensics through the binary: a file and a command fetched before a compaction and
//! fetched again after it — which compaction hid them, what fetching them again cost, and what
//! held them (the model's checkpoint, or only Alisio's artifact trail).

use pretty_assertions::assert_eq;
use serde_json::{json, Value};

use super::support::{Answer, Harness, Reply};

fn script() -> Vec<Reply> {
    // The checkpoint names the command, not the file: the trail alone holds the file.
    let checkpoint = json!({"goal": "Count the notes", "instructions": [], "discoveries": ["`seq 1 40` printed 40 lines"],
                            "accomplished": ["Read the notes"], "currentState": "reading", "nextSteps": ["Count again"],
                            "relevantFiles": []});
    vec![
        Reply::Answer(Answer::calls(&[
            ("r1", "read_file", json!({"path": "notes.txt"})),
            ("s1", "shell", json!({"command": "seq 1 40"})),
        ])),
        Reply::Answer(Answer::text("The notes list three tasks.")),
        Reply::Answer(Answer::text("noted")),
        Reply::Answer(Answer::text(&checkpoint.to_string())),
        // After the compaction: the same file and the same command again (spaced differently),
        // and a file never fetched before.
        Reply::Answer(Answer::calls(&[
            ("r2", "read_file", json!({"path": "./notes.txt"})),
            ("s2", "shell", json!({"command": "seq  1 40"})),
            ("r3", "read_file", json!({"path": "other.txt"})),
        ])),
        Reply::Answer(Answer::text("Still three tasks.")),
    ]
}

#[tokio::test]
async fn a_file_and_a_command_fetched_again_after_a_compaction_are_reported_with_their_cost_and_holder() {
    let prices = json!({"test-model": {"input": 3, "output": 15, "since": "2020-01-01"}});
    let h =
        Harness::with_config(script(), json!({"plugins": [], "compaction": {"keepTurns": 1}, "prices": prices})).await;
    std::fs::write(h.ws().join("notes.txt"), "1. parser\n2. lexer\n3. docs\n".repeat(20)).unwrap();
    std::fs::write(h.ws().join("other.txt"), "other\n").unwrap();
    let first = h.run(&[], "Read the notes and count to 40").await;
    first.assert_ok();
    let id = first.session();
    h.run(&["--session", &id], "thanks").await.assert_ok();
    h.alisio(&["compact", &id, "--json"]).await.assert_ok();
    h.run(&["--session", &id], "Look again").await.assert_ok();

    // The figures from the database: the compaction, the asking messages, the results fetched again.
    let compaction =
        h.rows("SELECT id FROM compactions WHERE kind = 'checkpoint' AND status = 'applied'")[0][0].clone();
    let asked = |call: &str| {
        h.rows(&format!("SELECT seq FROM messages WHERE role = 'assistant' AND tool_calls LIKE '%\"{call}\"%'"))[0][0]
            .clone()
    };
    let tokens = |call: &str| {
        let chars = h.rows(&format!("SELECT length(content) FROM messages WHERE tool_call_id = '{call}'"))[0][0]
            .as_u64()
            .unwrap();
        chars.div_ceil(4)
    };
    let usd = |tokens: u64| json!((tokens as f64 * 3.0).round() / 1e6);
    let (file_tokens, command_tokens) = (tokens("r2"), tokens("s2"));
    assert!(file_tokens > 100, "the notes were read again whole: {file_tokens}");

    let run = h.alisio(&["calls", "rereads", &id, "--json"]).await;
    run.assert_ok();
    let expected = json!({"rereads": [
        {"compaction": compaction, "kind": "file", "target": "notes.txt", "seqBefore": asked("r1"), "seqAfter": asked("r2"),
         "tokens": file_tokens, "costUsd": usd(file_tokens), "heldBy": "trail"},
        {"compaction": compaction, "kind": "command", "target": "seq 1 40", "seqBefore": asked("s1"), "seqAfter": asked("s2"),
         "tokens": command_tokens, "costUsd": usd(command_tokens), "heldBy": "checkpoint"},
    ]});
    assert_eq!(run.json(), expected);

    let text = h.alisio(&["calls", "rereads", &id]).await;
    assert!(
        text.stdout.contains("notes.txt fetched at #") && text.stdout.contains("only the artifact trail held it"),
        "{}",
        text.stdout
    );
}

#[tokio::test]
async fn a_session_without_compactions_has_no_rereads() {
    let h = Harness::new(vec![
        Reply::Answer(Answer::calls(&[("r1", "read_file", json!({"path": "a.txt"}))])),
        Reply::Answer(Answer::calls(&[("r2", "read_file", json!({"path": "a.txt"}))])),
        Reply::Answer(Answer::text("done")),
    ])
    .await;
    std::fs::write(h.ws().join("a.txt"), "a\n").unwrap();
    let id = h.run(&[], "read a twice").await.assert_ok().session();
    let run = h.alisio(&["calls", "rereads", &id, "--json"]).await;
    assert_eq!(run.assert_ok().json(), json!({"rereads": Vec::<Value>::new()}));
}
