//! The agent loop over Chat Completions (streamed and whole) and the Responses API.

use pretty_assertions::assert_eq;
use serde_json::{json, Value};

use super::support::{conversation, Answer, Harness, Reply};

#[tokio::test]
async fn streamed_turn_sends_the_exact_request_and_records_the_rows() {
    let h =
        Harness::new(vec![Reply::Answer(Answer { usage: Some((120, 7, 96)), ..Answer::text("Hello there") })]).await;
    let run = h.run(&[], "say hello").await;
    run.assert_ok();
    assert_eq!(run.event_types(), ["session", "model_call", "turn_completed"]);
    let events = run.events();
    let session = run.session();
    for event in &events {
        assert_eq!(event["v"], 1);
        assert_eq!(event["session"], session.as_str());
        assert!(event["ts"].as_str().unwrap().contains('T'));
    }
    assert_eq!(events[1]["promptTokens"], 120);
    assert_eq!(events[1]["cachedTokens"], 96);
    assert_eq!(events[1]["completionTokens"], 7);
    assert_eq!(events[2]["text"], "Hello there");

    let bodies = h.server.bodies();
    assert_eq!(bodies.len(), 1);
    let body = &bodies[0];
    assert_eq!(body["model"], "test-model");
    assert_eq!(body["stream"], true);
    assert_eq!(body["stream_options"], json!({"include_usage": true}));
    assert_eq!(body["max_tokens"], 8192);
    assert_eq!(body["messages"][0]["role"], "system");
    assert_eq!(conversation(body), vec![json!({"role": "user", "content": "say hello"})]);
    let tools: Vec<&str> =
        body["tools"].as_array().unwrap().iter().map(|t| t["function"]["name"].as_str().unwrap()).collect();
    assert_eq!(tools, ["read_file", "write_file", "edit_file", "list_dir", "grep", "shell"]);

    assert_eq!(
        h.rows("SELECT seq, role, content, compacted FROM messages ORDER BY seq"),
        vec![
            vec![json!(1), json!("user"), json!("say hello"), json!(0)],
            vec![json!(2), json!("assistant"), json!("Hello there"), json!(0)]
        ]
    );
    assert_eq!(
        h.rows("SELECT purpose, message_ranges, prompt_tokens, cached_tokens, completion_tokens, finish_reason, response_seq, error FROM model_calls"),
        vec![vec![json!("turn"), json!("[[1,1]]"), json!(120), json!(96), json!(7), json!("stop"), json!(2), Value::Null]]
    );
    let recorded: Vec<String> =
        h.rows("SELECT type FROM events ORDER BY id").into_iter().map(|r| r[0].as_str().unwrap().to_string()).collect();
    assert_eq!(recorded, ["session", "model_call", "turn_completed"]);
    assert_eq!(h.server.received()[0].headers.get("authorization"), None, "no key configured, no header");
}

#[tokio::test]
async fn whole_answers_work_without_streaming() {
    let h = Harness::with_config(
        vec![
            Reply::Answer(Answer::calls(&[("c1", "list_dir", json!({"path": "."}))])),
            Reply::Answer(Answer::text("done")),
        ],
        json!({"provider": {"stream": false}}),
    )
    .await;
    std::fs::write(h.ws().join("a.txt"), "x").unwrap();
    let run = h.run(&[], "list").await;
    run.assert_ok();
    let bodies = h.server.bodies();
    assert_eq!(bodies[0]["stream"], false);
    assert!(bodies[0].get("stream_options").is_none());
    assert_eq!(conversation(&bodies[1])[2], json!({"role": "tool", "tool_call_id": "c1", "content": "a.txt"}));
    assert_eq!(run.events().last().unwrap()["text"], "done");
}

#[tokio::test]
async fn several_calls_with_split_deltas_run_in_order_with_ids_unchanged() {
    let odd = "call_1-Zq.9/x";
    let h = Harness::new(vec![
        Reply::Answer(Answer {
            text: "Let me look.".into(),
            ..Answer::calls(&[
                (odd, "read_file", json!({"path": "notes.txt"})),
                ("call:2 ünïcode", "write_file", json!({"path": "out/new.txt", "content": "written"})),
                ("3", "grep", json!({"pattern": "hel+o"})),
            ])
        }),
        Reply::Answer(Answer::text("All done.")),
    ])
    .await;
    std::fs::write(h.ws().join("notes.txt"), "hello notes").unwrap();
    let run = h.run(&[], "work").await;
    run.assert_ok();
    assert_eq!(
        run.event_types(),
        [
            "session",
            "model_call",
            "tool_started",
            "tool_finished",
            "tool_started",
            "tool_finished",
            "tool_started",
            "tool_finished",
            "model_call",
            "turn_completed"
        ]
    );
    assert_eq!(run.events()[2]["callId"], odd);
    assert_eq!(std::fs::read_to_string(h.ws().join("out/new.txt")).unwrap(), "written");

    let second = conversation(&h.server.bodies()[1]);
    assert_eq!(
        second,
        vec![
            json!({"role": "user", "content": "work"}),
            json!({"role": "assistant", "content": "Let me look.", "tool_calls": [
                {"id": odd, "type": "function", "function": {"name": "read_file", "arguments": "{\"path\":\"notes.txt\"}"}},
                {"id": "call:2 ünïcode", "type": "function", "function": {"name": "write_file", "arguments": "{\"path\":\"out/new.txt\",\"content\":\"written\"}"}},
                {"id": "3", "type": "function", "function": {"name": "grep", "arguments": "{\"pattern\":\"hel+o\"}"}},
            ]}),
            json!({"role": "tool", "tool_call_id": odd, "content": "hello notes"}),
            json!({"role": "tool", "tool_call_id": "call:2 ünïcode", "content": "wrote 7 bytes to out/new.txt"}),
            json!({"role": "tool", "tool_call_id": "3", "content": "notes.txt:1:hello notes"}),
        ]
    );
    assert_eq!(
        h.rows("SELECT call_id, name, state, ok, result_seq FROM tool_calls ORDER BY id"),
        vec![
            vec![json!(odd), json!("read_file"), json!("finished"), json!(1), json!(3)],
            vec![json!("call:2 ünïcode"), json!("write_file"), json!("finished"), json!(1), json!(4)],
            vec![json!("3"), json!("grep"), json!("finished"), json!(1), json!(5)],
        ]
    );
}

#[tokio::test]
async fn a_continued_session_sends_its_history_and_the_model_view_matches_the_next_request() {
    let h =
        Harness::new(vec![Reply::Answer(Answer::text("first answer")), Reply::Answer(Answer::text("second answer"))])
            .await;
    let session = h.run(&[], "first").await.assert_ok().session();

    let view = h.alisio(&["sessions", "show", &session, "--view", "model", "--json"]).await;
    view.assert_ok();
    let view = view.json();
    let run = h.run(&["--session", &session[..8]], "second").await;
    run.assert_ok();
    assert_eq!(run.session(), session);

    let sent = &h.server.bodies()[1];
    let mut expected = view["messages"].as_array().unwrap().clone();
    expected.push(json!({"role": "user", "content": "second"}));
    assert_eq!(
        sent["messages"].as_array().unwrap(),
        &expected,
        "the model view is exactly what the next request carries"
    );
    let chars: u64 = view["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["content"].as_str().unwrap().chars().count() as u64)
        .sum();
    assert_eq!(view["chars"], chars);
    let catalog = sent["tools"].to_string().chars().count() as u64;
    assert_eq!(view["toolCatalogChars"], catalog);
    assert_eq!(view["estimatedTokens"], (chars + catalog).div_ceil(4));

    let stored = h.alisio(&["sessions", "show", &session, "--json"]).await.json();
    let seqs: Vec<i64> = stored["messages"].as_array().unwrap().iter().map(|m| m["seq"].as_i64().unwrap()).collect();
    assert_eq!(seqs, [1, 2, 3, 4]);
    assert_eq!(stored["messages"][3]["content"], "second answer");
    assert_eq!(stored["modelCalls"].as_array().unwrap().len(), 2);

    let list = h.alisio(&["sessions", "list", "--json"]).await.json();
    assert_eq!(list[0]["id"], session.as_str());
    assert_eq!(list[0]["liveMessages"], 4);
    assert_eq!(list[0]["compactedMessages"], 0);
}

#[tokio::test]
async fn responses_api_sends_opaque_items_back_unchanged() {
    let reasoning = json!({"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "gAAAA-opaque=="});
    let h = Harness::with_config(
        vec![
            Reply::Answer(Answer {
                opaque_items: vec![reasoning.clone()],
                ..Answer::calls(&[("fc-1", "list_dir", json!({"path": "."}))])
            }),
            Reply::Answer(Answer::text("empty dir")),
        ],
        json!({"provider": {"api": "responses"}}),
    )
    .await;
    let run = h.run(&[], "look").await;
    run.assert_ok();
    let received: Vec<_> = h.server.received().into_iter().filter(|r| r.is_model_call()).collect();
    assert!(received[0].path.ends_with("/v1/responses"));
    let body = &received[1].body;
    assert_eq!(body["max_output_tokens"], 8192);
    assert_eq!(body["tools"][0]["name"], "read_file");
    let input = body["input"].as_array().unwrap();
    assert_eq!(input[1], json!({"role": "user", "content": "look"}));
    assert_eq!(input[2], reasoning, "opaque reasoning goes back byte for byte");
    assert_eq!(input[3]["type"], "function_call");
    assert_eq!(input[3]["call_id"], "fc-1");
    assert_eq!(input[4], json!({"type": "function_call_output", "call_id": "fc-1", "output": ". is empty"}));
    assert_eq!(run.events().last().unwrap()["text"], "empty dir");
}

#[tokio::test]
async fn the_step_limit_stops_a_looping_model_with_a_clear_error() {
    let call = || Reply::Answer(Answer::calls(&[("loop", "list_dir", json!({"path": "."}))]));
    let h = Harness::with_config(vec![call(), call(), call()], json!({"limits": {"maxStepsPerTurn": 2}})).await;
    let run = h.run(&[], "loop forever").await;
    assert_eq!(run.code, 1);
    assert!(run.stderr.contains("limits.maxStepsPerTurn = 2"), "{}", run.stderr);
    assert_eq!(h.server.bodies().len(), 2);
    assert_eq!(run.event_types().last().unwrap(), "error");
}

#[tokio::test]
async fn unparsable_tool_arguments_are_kept_stored_and_sent_back_wrapped() {
    let cut = "{\"path\": \"no";
    let h = Harness::new(vec![
        Reply::Answer(Answer {
            tool_calls: vec![("bad-1".into(), "read_file".into(), cut.into())],
            usage: Some((100, 10, 0)),
            ..Default::default()
        }),
        Reply::Answer(Answer::text("sorry")),
    ])
    .await;
    h.run(&[], "read it").await.assert_ok();
    let sent = conversation(&h.server.bodies()[1]);
    assert_eq!(sent[1]["tool_calls"][0]["id"], "bad-1");
    assert_eq!(sent[1]["tool_calls"][0]["function"]["arguments"], json!({"invalid_arguments": cut}).to_string());
    assert!(sent[2]["content"].as_str().unwrap().starts_with("error: invalid arguments for read_file"), "{}", sent[2]);
    let stored = h.rows("SELECT tool_calls FROM messages WHERE seq = 2");
    let calls: Value = serde_json::from_str(stored[0][0].as_str().unwrap()).unwrap();
    assert_eq!(calls[0]["arguments"], cut, "the stored call keeps what the model produced");
}
