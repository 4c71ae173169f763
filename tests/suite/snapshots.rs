//! What the model sees, as snapshots: the request bodies a turn with a tool call, a native
//! compaction and a cache hand-off send, rendered one item per line (role, then content; tool calls
//! and results with their ids). A change to any of them shows up here as a diff to review — the
//! product's own claim, as a test. Update with `INSTA_UPDATE=always cargo test -p alisio --test all
//! snapshots` and review the `.snap` files.

use serde_json::{json, Value};

use super::support::{Answer, Harness, Reply};

/// One line per message: `role: content` (newlines shown as `⏎`, long text cut), tool calls and
/// results with their ids, then the request's options; the workspace path becomes `<workspace>`.
fn render(body: &Value, workspace: &str) -> String {
    let mut out = Vec::new();
    let short = |text: &str| {
        let text = text.replace(workspace, "<workspace>").replace('\n', "⏎");
        if text.chars().count() > 160 {
            format!("{}… ({} chars)", text.chars().take(160).collect::<String>(), text.chars().count())
        } else {
            text
        }
    };
    for (i, message) in body["messages"].as_array().into_iter().flatten().enumerate() {
        let role = message["role"].as_str().unwrap_or("?");
        let mut line = format!("{i:02}:{role}");
        if let Some(id) = message["tool_call_id"].as_str() {
            line.push_str(&format!(" [{id}]"));
        }
        line.push_str(&format!(": {}", short(message["content"].as_str().unwrap_or(""))));
        for call in message["tool_calls"].as_array().into_iter().flatten() {
            line.push_str(&format!(
                " → {}({}) [{}]",
                call["function"]["name"].as_str().unwrap_or("?"),
                short(call["function"]["arguments"].as_str().unwrap_or("")),
                call["id"].as_str().unwrap_or("?")
            ));
        }
        out.push(line);
    }
    let tools: Vec<&str> =
        body["tools"].as_array().into_iter().flatten().filter_map(|t| t["function"]["name"].as_str()).collect();
    out.push(format!("tools: {}", tools.join(", ")));
    let mut options: Vec<String> = body
        .as_object()
        .into_iter()
        .flatten()
        .filter(|(k, _)| !matches!(k.as_str(), "messages" | "tools"))
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    options.sort();
    out.push(format!("options: {}", options.join(" ")));
    out.join("\n")
}

fn rendered(h: &Harness) -> Vec<String> {
    let workspace = h.ws().canonicalize().unwrap().display().to_string();
    h.server.bodies().iter().map(|b| render(b, &workspace)).collect()
}

#[tokio::test]
async fn a_turn_with_a_tool_call_then_a_native_compaction() {
    let checkpoint = json!({
        "goal": "Count the files", "instructions": ["Keep it short"], "discoveries": ["notes.txt exists"],
        "accomplished": ["Listed the workspace"], "currentState": "Listed", "nextSteps": ["Report"],
        "relevantFiles": ["notes.txt"]
    });
    let h = Harness::with_config(
        vec![
            Reply::Answer(Answer::calls(&[("call_1", "list_dir", json!({"path": "."}))])),
            Reply::Answer(Answer::text("One file: notes.txt.")),
            Reply::Answer(Answer::text("A second question answered.")),
            Reply::Answer(Answer::text(&checkpoint.to_string())),
            Reply::Answer(Answer::text("After the checkpoint.")),
        ],
        json!({"plugins": [], "compaction": {"keepTurns": 1}}),
    )
    .await;
    std::fs::write(h.ws().join("notes.txt"), "alpha\n").unwrap();
    let session = h.run(&[], "What files are here? Keep it short.").await.assert_ok().session();
    h.run(&["--session", &session], "And a second question.").await.assert_ok();
    h.alisio(&["compact", &session, "--focus", "the file count", "--json"]).await.assert_ok();
    h.run(&["--session", &session], "Go on.").await.assert_ok();
    let requests = rendered(&h);
    assert_eq!(requests.len(), 5);
    insta::assert_snapshot!("turn_first_request", requests[0]);
    insta::assert_snapshot!("turn_after_tool_result", requests[1]);
    insta::assert_snapshot!("native_compaction_summary_request", requests[3]);
    insta::assert_snapshot!("first_request_after_native_compaction", requests[4]);
}

#[tokio::test]
async fn a_cache_hand_off_and_the_request_after_it() {
    let usage = |answer: Answer, prompt: u64| Reply::Answer(Answer { usage: Some((prompt, 10, 0)), ..answer });
    let h = Harness::with_config(
        vec![
            usage(Answer::text("first answer"), 2000),
            usage(Answer::text("second answer"), 7000),
            Reply::Answer(Answer { usage: Some((7100, 40, 7000)), ..Answer::text("GOAL: ship. NEXT: tests.") }),
            usage(Answer::text("third answer"), 600),
        ],
        json!({"plugins": [], "compaction": {"strategy": "cache"},
               "cacheCompact": {"contextLimit": 10000, "autoResume": false}}),
    )
    .await;
    let session = h.run(&[], "first").await.assert_ok().session();
    h.run(&["--session", &session], "second").await.assert_ok();
    h.run(&["--session", &session], "third").await.assert_ok();
    let requests = rendered(&h);
    assert_eq!(requests.len(), 4, "{requests:#?}");
    insta::assert_snapshot!("cache_hand_off_request", requests[2]);
    insta::assert_snapshot!("first_request_after_cache_hand_off", requests[3]);
}
