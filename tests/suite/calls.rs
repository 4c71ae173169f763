//! The model-call ledger through `alisio calls`: every request rebuilt exactly as the server
//! received it, and request diffs that say where the prompt cache breaks.

use pretty_assertions::assert_eq;
use serde_json::{json, Value};

use super::support::{Answer, Harness, Reply};

fn checkpoint() -> String {
    json!({"goal": "g", "instructions": [], "discoveries": [], "accomplished": ["a"], "currentState": "s",
           "nextSteps": ["n"], "relevantFiles": []})
    .to_string()
}

#[tokio::test]
async fn every_call_is_rebuilt_exactly_and_diffs_say_where_the_prefix_breaks() {
    for stream in [true, false] {
        let h = Harness::with_config(
            vec![
                Reply::Answer(Answer::calls(&[("c-1", "list_dir", json!({"path": "."}))])),
                Reply::Answer(Answer::text(&"one ".repeat(800))),
                Reply::Answer(Answer::text("two")),
                Reply::Answer(Answer::text(&checkpoint())),
                Reply::Answer(Answer::text("three")),
            ],
            json!({"provider": {"stream": stream}, "compaction": {"keepTurns": 1}}),
        )
        .await;
        let first = h.run(&[], "look around").await;
        first.assert_ok();
        let session = first.session();
        h.run(&["--session", &session], "second").await.assert_ok();
        h.alisio(&["compact", &session, "--json"]).await.assert_ok();
        h.run(&["--session", &session], "third").await.assert_ok();

        let list = h.alisio(&["calls", "list", &session, "--json"]).await.json();
        let purposes: Vec<Value> = list.as_array().unwrap().iter().map(|c| json!([c["n"], c["purpose"]])).collect();
        assert_eq!(
            purposes,
            [json!([1, "turn"]), json!([2, "turn"]), json!([3, "turn"]), json!([4, "compaction"]), json!([5, "turn"])]
        );
        assert_eq!(list[0]["finishReason"], "tool_calls");
        assert_eq!(list[1]["promptTokens"], 100);

        // Each rebuilt request equals, key for key, the body the server received.
        let bodies = h.server.bodies();
        for (i, body) in bodies.iter().enumerate() {
            let shown = h.alisio(&["calls", "show", &session, &(i + 1).to_string(), "--json"]).await.json();
            assert_eq!(&shown["request"], body, "call {} (stream {stream})", i + 1);
        }
        let shown = h.alisio(&["calls", "show", &session, "1", "--json"]).await.json();
        assert_eq!((shown["requestSource"].as_str(), shown["exact"].as_bool()), (Some("alisio"), Some(true)));
        assert_eq!(shown["missing"], json!([]));
        // What it is made of adds up to the request, by part; the tools are the built-ins.
        let c = &shown["composition"];
        assert_eq!(c["tools"][0]["server"], "builtin");
        let tools: usize = bodies[0]["tools"].as_array().unwrap().iter().map(|t| t.to_string().chars().count()).sum();
        assert_eq!(c["tools"][0]["chars"].as_u64(), Some(tools as u64));
        assert!(c["system"]["chars"].as_u64() > Some(0) && c["user"]["chars"].as_u64() > Some(0));
        let after = h.alisio(&["calls", "show", &session, "5", "--json"]).await.json();
        let checkpoint = after["composition"]["checkpoint"]["chars"].as_u64().unwrap();
        let summary = bodies[4]["messages"][1]["content"].as_str().unwrap().chars().count() as u64;
        assert_eq!(checkpoint, summary, "the checkpoint is counted as a checkpoint, not as the user's");
        assert_eq!(shown["response"]["toolCalls"][0]["id"], "c-1");
        assert_eq!(shown["response"]["finishReason"], "tool_calls");

        // Appending keeps the prefix: call 2 carries all of call 1, then adds the call and its result.
        let d = h.alisio(&["calls", "diff", &session, "2", "--json"]).await.json();
        assert_eq!((d["cacheBreak"].clone(), d["firstDivergence"]["part"].clone()), (json!(false), json!("messages")));
        assert_eq!(
            (d["firstDivergence"]["index"].clone(), d["firstDivergence"]["before"].clone()),
            (json!(2), json!("(absent)"))
        );
        assert_eq!(d["commonPrefixChars"], d["againstChars"]);
        // The summarizer is the live request with the summary request appended: no break, and
        // against the live request it extends, the divergence is the appended message.
        let d = h.alisio(&["calls", "diff", &session, "4", "--json"]).await.json();
        assert_eq!(d["cacheBreak"], false);
        assert_eq!(
            (d["firstDivergence"]["part"].clone(), d["firstDivergence"]["index"].clone()),
            (json!("messages"), json!(6))
        );
        assert_eq!(d["firstDivergence"]["after"], "two");
        assert!(d["paramChanges"].as_array().unwrap().iter().any(|p| p["key"] == "tool_choice"), "{d}");
        let appended = bodies[3]["messages"].as_array().unwrap().len() - 1;
        let live = h.alisio(&["calls", "show", &session, "4", "--json"]).await.json();
        assert!(
            live["request"]["messages"][appended]["content"].as_str().unwrap().contains("goal"),
            "the summary request is last"
        );
        // After the compaction the checkpoint replaces the first turn: the prefix breaks at message 1.
        let d = h.alisio(&["calls", "diff", &session, "5", "--against", "3", "--json"]).await.json();
        assert_eq!(d["cacheBreak"], true);
        assert_eq!(
            (d["firstDivergence"]["part"].clone(), d["firstDivergence"]["index"].clone()),
            (json!("messages"), json!(1))
        );
        assert_eq!(d["firstDivergence"]["path"], "/content");
        assert_eq!(d["firstDivergence"]["before"], "look around");
        assert!(d["commonPrefixChars"].as_u64().unwrap() < d["againstChars"].as_u64().unwrap());

        // Session figures: what the server reported over the calls, and the compaction.
        let sessions = h.alisio(&["sessions", "list", "--json"]).await.json();
        assert_eq!(
            (sessions[0]["promptTokens"].clone(), sessions[0]["completionTokens"].clone()),
            (json!(500), json!(50))
        );
        assert_eq!(sessions[0]["compactions"], 1);
        assert!(sessions[0]["savedChars"].as_u64().unwrap() > 0);

        let missing = h.alisio(&["calls", "show", &session, "9"]).await;
        assert_eq!(missing.code, 2);
        assert!(missing.stderr.contains("has 5 model call(s); there is no call 9"), "{}", missing.stderr);
    }
}

#[tokio::test]
async fn replay_sends_the_exact_request_again_and_keeps_it_out_of_the_transcript() {
    let h = Harness::new(vec![
        Reply::Answer(Answer::text("original answer")),
        Reply::Answer(Answer::text("replayed answer")),
        Reply::Answer(Answer::text("other model's answer")),
    ])
    .await;
    let run = h.run(&[], "question").await;
    run.assert_ok();
    let session = run.session();
    let messages_before = h.rows("SELECT count(*) FROM messages");

    let replay = h.alisio(&["calls", "replay", &session, "1", "--json"]).await;
    replay.assert_ok();
    let report = replay.json();
    assert_eq!((report["n"].clone(), report["replayOf"].clone()), (json!(2), json!(1)));
    assert_eq!(report["original"]["text"], "original answer");
    assert_eq!(report["replay"]["text"], "replayed answer");
    let bodies = h.server.bodies();
    assert_eq!(bodies[1], bodies[0], "the exact request, again");

    // Another model through --config: only the model changes.
    let other = h.home.path().join("other.json");
    std::fs::write(&other, json!({"provider": {"model": "other-model"}}).to_string()).unwrap();
    let replay = h.alisio(&["calls", "replay", &session, "1", "--config", other.to_str().unwrap(), "--json"]).await;
    replay.assert_ok();
    let mut expected = bodies[0].clone();
    expected["model"] = json!("other-model");
    assert_eq!(h.server.bodies()[2], expected);

    let list = h.alisio(&["calls", "list", &session, "--json"]).await.json();
    let purposes: Vec<&str> = list.as_array().unwrap().iter().map(|c| c["purpose"].as_str().unwrap()).collect();
    assert_eq!(purposes, ["turn", "replay", "replay"]);
    assert_eq!(h.rows("SELECT count(*) FROM messages"), messages_before, "the transcript is untouched");
}

/// Responses-API requests (with opaque items sent back) and cache hand-off summaries are rebuilt
/// exactly too.
#[tokio::test]
async fn responses_api_and_cache_summary_calls_are_rebuilt_exactly() {
    let reasoning = json!({"type": "reasoning", "id": "rs_1", "encrypted_content": "opaque-bytes", "summary": []});
    let h = Harness::with_config(
        vec![
            Reply::Answer(Answer {
                usage: Some((7000, 30, 0)),
                opaque_items: vec![reasoning],
                ..Answer::calls(&[("c-1", "list_dir", json!({"path": "."}))])
            }),
            Reply::Answer(Answer::text("summary of the work")),
            Reply::Answer(Answer::text("resumed and done")),
        ],
        json!({"provider": {"api": "responses", "contextWindow": 10000},
               "compaction": {"strategy": "cache"},
               "cacheCompact": {"abortOnTrip": false, "autoResume": true}}),
    )
    .await;
    let run = h.run(&[], "work").await;
    run.assert_ok();
    let session = run.session();
    let list = h.alisio(&["calls", "list", &session, "--json"]).await.json();
    let purposes: Vec<&str> = list.as_array().unwrap().iter().map(|c| c["purpose"].as_str().unwrap()).collect();
    assert_eq!(purposes, ["turn", "cache-summary", "turn"]);
    for (i, body) in h.server.bodies().iter().enumerate() {
        let shown = h.alisio(&["calls", "show", &session, &(i + 1).to_string(), "--json"]).await.json();
        assert_eq!(&shown["request"], body, "call {}", i + 1);
    }
}
