//! The line-prune strategy through the binary: old tool outputs lose whole lines — every line the
//! model still gets is the output's own — a focus keeps its lines, no model is called, the
//! originals stay stored and undo restores the request byte for byte.

use pretty_assertions::assert_eq;
use serde_json::{json, Value};

use super::support::{Answer, Harness, Reply};

/// A build log of `n` lines, one failing.
fn build_log(n: usize) -> String {
    (1..=n)
        .map(|i| match i {
            25 => "error[E0308]: mismatched types".to_string(),
            26 => "  --> src/parser.rs:12:5".to_string(),
            _ => format!("   Compiling crate_{i} v0.1.{i}"),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

async fn model_messages(h: &Harness, session: &str) -> Vec<Value> {
    let run = h.alisio(&["sessions", "show", session, "--view", "model", "--json"]).await;
    run.assert_ok();
    run.json()["messages"].as_array().unwrap().clone()
}

fn result_of<'a>(messages: &'a [Value], call: &str) -> &'a str {
    let found = messages.iter().find(|m| m["role"] == "tool" && m["tool_call_id"] == call);
    found.unwrap_or_else(|| panic!("no result of {call}"))["content"].as_str().unwrap()
}

#[tokio::test]
async fn pruning_deletes_whole_lines_keeps_findings_and_the_focus_and_undo_restores_the_request() {
    let h = Harness::with_config(
        vec![
            Reply::Answer(Answer::calls(&[("build", "shell", json!({"command": "cat build.log"}))])),
            Reply::Answer(Answer::text("The build fails in the parser.")),
            Reply::Answer(Answer::text("noted")),
            Reply::Answer(Answer::text("one more")),
        ],
        json!({"plugins": [], "compaction": {"keepTurns": 1}}),
    )
    .await;
    let log = build_log(80);
    std::fs::write(h.ws().join("build.log"), &log).unwrap();
    let session = h.run(&[], "Why does the build fail?").await.assert_ok().session();
    h.run(&["--session", &session], "thanks").await.assert_ok();
    let before = model_messages(&h, &session).await;
    let calls_before = h.server.bodies().len();
    let original = result_of(&before, "build").to_string();
    assert!(original.contains("Compiling crate_50"), "the tool read the whole log");

    let run = h.alisio(&["compact", &session, "--strategy", "prune", "--focus", "crate_50", "--json"]).await;
    run.assert_ok();
    assert_eq!(run.event_types(), ["compaction_started", "compaction_completed"]);
    assert_eq!(
        (run.events()[0]["reason"].as_str(), run.events()[0]["focus"].as_str()),
        (Some("prune"), Some("crate_50"))
    );
    assert_eq!(h.server.bodies().len(), calls_before, "pruning calls no model");

    let after = model_messages(&h, &session).await;
    assert_eq!(after.len(), before.len(), "every message keeps its place");
    let pruned = result_of(&after, "build");
    let (kept, gaps): (Vec<&str>, Vec<&str>) = pruned.lines().partition(|l| !l.starts_with("[… "));
    let own: Vec<&str> = original.lines().collect();
    assert!(kept.iter().all(|l| own.contains(l)), "every line kept is the output's own: {pruned}");
    for line in ["error[E0308]: mismatched types", "  --> src/parser.rs:12:5", "   Compiling crate_50 v0.1.50"] {
        assert!(kept.contains(&line), "{line:?} kept: {pruned}");
    }
    assert!(!kept.contains(&"   Compiling crate_40 v0.1.40"), "{pruned}");
    let dropped: usize =
        gaps.iter().map(|g| g.trim_start_matches("[… ").split(' ').next().unwrap().parse::<usize>().unwrap()).sum();
    assert_eq!(kept.len() + dropped, own.len(), "each gap counts the lines it stands for: {gaps:?}");
    // Everything else is untouched; the original stays stored.
    for (b, a) in before.iter().zip(&after) {
        if b["tool_call_id"] != "build" {
            assert_eq!(a, b);
        }
    }
    assert_eq!(
        h.rows("SELECT kind, reason, status FROM compactions"),
        vec![vec![json!("reduction"), json!("prune"), json!("applied")]]
    );
    let hidden = h.rows("SELECT content FROM messages WHERE compacted_by = 1");
    assert_eq!(hidden, vec![vec![json!(original)]]);

    // The next request the server receives carries the pruned output.
    h.run(&["--session", &session], "and now?").await.assert_ok();
    let sent = h.server.bodies().last().unwrap()["messages"].as_array().unwrap().clone();
    assert_eq!(result_of(&sent, "build"), pruned);

    // Undo restores the history the model gets, byte for byte.
    h.alisio(&["compact", &session, "--undo", "--json"]).await.assert_ok();
    assert_eq!(result_of(&model_messages(&h, &session).await, "build"), original);
}

#[tokio::test]
async fn the_plan_sizes_pruning_and_short_outputs_are_left_whole() {
    let h = Harness::with_config(
        vec![
            Reply::Answer(Answer::calls(&[("short", "shell", json!({"command": "seq 1 5"}))])),
            Reply::Answer(Answer::text("five")),
            Reply::Answer(Answer::text("ok")),
        ],
        json!({"plugins": [], "compaction": {"keepTurns": 1}}),
    )
    .await;
    let session = h.run(&[], "count to five").await.assert_ok().session();
    h.run(&["--session", &session], "thanks").await.assert_ok();
    let plan = h.alisio(&["compact", &session, "--plan", "--json"]).await;
    let prune = plan.assert_ok().json().as_array().unwrap().iter().find(|p| p["strategy"] == "prune").cloned().unwrap();
    assert_eq!(prune["pruned"], 0);
    assert!(prune["unavailable"].as_str().unwrap().contains("longer than 20 lines"), "{prune}");
    let run = h.alisio(&["compact", &session, "--strategy", "prune", "--json"]).await;
    assert_eq!(run.assert_ok().event_types(), ["compaction_skipped"]);
}
