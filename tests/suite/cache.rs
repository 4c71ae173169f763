//! Cache-compatible compaction against the scripted server: the trip, the appended
//! summary request, the trimmed requests after it, and the failure cases.

use pretty_assertions::assert_eq;
use serde_json::{json, Value};

use super::support::{conversation, Answer, Harness, Reply};

const RESUME: &str = "Continue the task from the summary above.";

fn with_usage(answer: Answer, prompt: u64) -> Reply {
    Reply::Answer(Answer { usage: Some((prompt, 10, 0)), ..answer })
}

fn cache_config(extra: Value) -> Value {
    let mut config =
        json!({"plugins": [], "compaction": {"strategy": "cache"}, "cacheCompact": {"contextLimit": 10000}});
    super::support::merge(&mut config, extra);
    config
}

fn types(run: &super::support::Run) -> Vec<String> {
    run.event_types()
}

#[tokio::test]
async fn a_trip_summarizes_by_appending_then_trims_outbound_requests_across_restarts() {
    let h = Harness::with_config(
        vec![
            with_usage(Answer::text("first answer"), 2000),
            with_usage(Answer::calls(&[("never", "list_dir", json!({"path": "."}))]), 7000),
            Reply::Answer(Answer {
                usage: Some((7100, 40, 7000)),
                ..Answer::text("GOAL: ship. DONE: parser. NEXT: tests.")
            }),
            with_usage(Answer::text("resumed"), 500),
            with_usage(Answer::text("third answer"), 600),
        ],
        cache_config(json!({})),
    )
    .await;
    let session = h.run(&[], "first").await.assert_ok().session();
    let second = h.run(&["--session", &session], "second").await;
    second.assert_ok();
    assert_eq!(
        types(&second),
        [
            "session",
            "model_call",
            "tool_finished",
            "compaction_started",
            "compaction_completed",
            "model_call",
            "turn_completed"
        ]
    );
    assert_eq!(second.events()[3]["reason"], "cache");
    assert_eq!(second.events()[2]["ok"], false, "abortOnTrip: the requested call is answered as cancelled");
    assert_eq!(h.rows("SELECT state, ok FROM tool_calls"), vec![vec![json!("finished"), json!(0)]]);

    let bodies = h.server.bodies();
    assert_eq!(bodies.len(), 4);
    // The summary request is the previous request, unchanged, with messages appended.
    let previous = bodies[1]["messages"].as_array().unwrap();
    let summary = bodies[2]["messages"].as_array().unwrap();
    assert_eq!(&summary[..previous.len()], previous.as_slice(), "same system prompt and messages");
    assert_eq!(bodies[2]["tools"], bodies[1]["tools"], "same tools array");
    assert!(bodies[2].get("tool_choice").is_none());
    assert_eq!(bodies[2]["max_tokens"], 1200);
    assert_eq!(summary[previous.len()]["tool_calls"][0]["id"], "never");
    assert!(summary[previous.len() + 1]["content"].as_str().unwrap().starts_with("error: not run"));
    assert!(summary.last().unwrap()["content"].as_str().unwrap().contains("hand-off summary"));

    // Afterwards: system + tools + the summary + the turns after the boundary (autoResume's prompt).
    let resumed = conversation(&bodies[3]);
    assert_eq!(
        resumed,
        vec![
            json!({"role": "user", "content": "## Prior work summary\n\nGOAL: ship. DONE: parser. NEXT: tests."}),
            json!({"role": "user", "content": RESUME}),
        ]
    );
    assert_eq!(bodies[3]["tools"], bodies[1]["tools"]);
    assert_eq!(h.rows("SELECT cache_latched FROM sessions"), vec![vec![json!(0)]], "re-armed below the threshold");

    // A new process (an app restart) keeps the boundary: it lives in the database.
    h.run(&["--session", &session], "third").await.assert_ok();
    let third = conversation(&h.server.bodies()[4]);
    assert_eq!(third.len(), 4, "summary, continue prompt, resumed answer, new prompt");
    assert_eq!(third[2], json!({"role": "assistant", "content": "resumed"}));
    assert_eq!(third[3], json!({"role": "user", "content": "third"}));

    // The stored view still shows the whole conversation; the ledger has the cache figures.
    let stored = h.alisio(&["sessions", "show", &session, "--json"]).await.json();
    let compacted = stored["messages"].as_array().unwrap().iter().filter(|m| m["compacted"] == true).count();
    assert_eq!(compacted, 5, "first turn, second prompt, the cancelled call and its result stay stored");
    assert_eq!(stored["compactions"][0]["reason"], "cache");
    let calls = stored["modelCalls"].as_array().unwrap();
    assert_eq!(calls[2]["purpose"], "cache-summary");
    assert_eq!(calls[2]["cachedTokens"], 7000);
    assert_eq!(calls[2]["promptTokens"], 7100);
}

#[tokio::test]
async fn an_empty_summary_cuts_nothing_and_the_latch_holds() {
    let h = Harness::with_config(
        vec![
            with_usage(Answer::calls(&[("c1", "list_dir", json!({"path": "."}))]), 8000),
            with_usage(Answer::text("   "), 8100),
            with_usage(Answer::text("done anyway"), 8200),
        ],
        cache_config(json!({})),
    )
    .await;
    let run = h.run(&[], "go").await;
    run.assert_ok();
    assert_eq!(
        types(&run),
        [
            "session",
            "model_call",
            "tool_finished",
            "compaction_started",
            "compaction_failed",
            "model_call",
            "turn_completed"
        ]
    );
    assert!(run.events()[4]["error"].as_str().unwrap().contains("empty summary, so nothing was cut"));
    let last = conversation(&h.server.bodies()[2]);
    assert_eq!(last[0], json!({"role": "user", "content": "go"}), "nothing was cut");
    assert_eq!(h.rows("SELECT count(*) FROM compactions"), vec![vec![json!(0)]]);
    assert_eq!(h.rows("SELECT cache_latched FROM sessions"), vec![vec![json!(1)]], "still above: no second trip");
}

#[tokio::test]
async fn a_tool_loop_crossing_the_threshold_finishes_its_step_when_abort_is_off() {
    let call = |id: &str| Answer::calls(&[(id, "shell", json!({"command": format!("echo {id} >> ran.txt")}))]);
    let h = Harness::with_config(
        vec![
            with_usage(call("a"), 3000),
            with_usage(call("b"), 5000),
            with_usage(call("c"), 7000),
            with_usage(Answer::text("summary of a, b and c"), 7100),
            with_usage(Answer::text("finished"), 400),
        ],
        cache_config(json!({"cacheCompact": {"abortOnTrip": false}})),
    )
    .await;
    let run = h.run(&[], "loop").await;
    run.assert_ok();
    assert_eq!(std::fs::read_to_string(h.ws().join("ran.txt")).unwrap(), "a\nb\nc\n", "the crossing step's tool ran");
    let bodies = h.server.bodies();
    let summary = bodies[3]["messages"].as_array().unwrap();
    assert_eq!(summary[summary.len() - 2]["content"], "[exit code 0]", "the summary request follows the tool result");
    assert_eq!(conversation(&bodies[4])[1], json!({"role": "user", "content": RESUME}));
    assert_eq!(run.events().last().unwrap()["text"], "finished");
}

#[tokio::test]
async fn auto_resume_off_ends_the_turn_after_the_cut() {
    let h = Harness::with_config(
        vec![
            with_usage(Answer::calls(&[("x", "list_dir", json!({"path": "."}))]), 9000),
            with_usage(Answer::text("sum"), 9100),
        ],
        cache_config(json!({"cacheCompact": {"autoResume": false}})),
    )
    .await;
    let run = h.run(&[], "go").await;
    run.assert_ok();
    assert_eq!(types(&run).last().unwrap(), "turn_completed");
    assert_eq!(h.server.bodies().len(), 2, "no continue turn is sent");
}

#[tokio::test]
async fn a_model_outside_the_list_uses_the_native_strategy() {
    let h = Harness::with_config(
        vec![
            with_usage(Answer::text("one"), 9000),
            Reply::Answer(Answer::text("cache summary")),
            with_usage(Answer::text("two"), 9500),
        ],
        cache_config(json!({"cacheCompact": {"models": ["local/test-model"]}})),
    )
    .await;
    let first = h.run(&[], "first").await;
    first.assert_ok();
    assert!(types(&first).contains(&"compaction_completed".to_string()), "test-model is in the list");
    let session = first.session();

    let other = h.home.path().join("other.json");
    std::fs::write(&other, json!({"provider": {"model": "other-model"}}).to_string()).unwrap();
    let run = h.alisio(&["run", "--json", "--config", other.to_str().unwrap(), "--session", &session, "second"]).await;
    run.assert_ok();
    assert_eq!(types(&run), ["session", "model_call", "turn_completed"], "no cache trip for other-model");
    let body = &h.server.bodies()[2];
    assert_eq!(body["model"], "other-model");
    assert!(conversation(body)[0]["content"].as_str().unwrap().starts_with("## Prior work summary"));
}
