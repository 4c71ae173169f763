//! Native compaction end to end: what the summarizer received, the events, the rows, and
//! what the model gets afterwards.

use std::time::Duration;

use pretty_assertions::assert_eq;
use serde_json::{json, Value};

use super::support::{conversation, Answer, Harness, Reply};

fn checkpoint(goal: &str, memory: &[&str]) -> String {
    json!({
        "goal": goal, "instructions": ["answer briefly"], "discoveries": ["the parser is in src/parse.rs"],
        "accomplished": "turns 1-2", "currentState": "idle", "nextSteps": ["continue"], "relevantFiles": ["src/parse.rs"],
        "memory": memory,
    })
    .to_string()
}

/// A session with `turns` finished turns (one text answer each).
async fn session_with_turns(h: &Harness, turns: usize) -> String {
    let mut session = String::new();
    for i in 1..=turns {
        let args: Vec<&str> = if session.is_empty() { vec![] } else { vec!["--session", session.as_str()] };
        let run = h.run(&args, &format!("question {i}")).await;
        run.assert_ok();
        session = run.session();
    }
    session
}

fn post_bodies(h: &Harness) -> Vec<Value> {
    h.server.bodies()
}

async fn model_view(h: &Harness, session: &str) -> Value {
    let run = h.alisio(&["sessions", "show", session, "--view", "model", "--json"]).await;
    run.assert_ok();
    run.json()
}

fn answers(n: usize) -> Vec<Reply> {
    (1..=n).map(|i| Reply::Answer(Answer::text(&format!("answer {i}")))).collect()
}

#[tokio::test]
async fn manual_compaction_with_a_focus_appends_to_the_live_request_and_replaces_the_span() {
    let mut script = answers(3);
    script.push(Reply::Answer(Answer::text(&checkpoint("fix the parser", &["tests run with ./tests/run"]))));
    script.push(Reply::Answer(Answer::text("answer 4")));
    let h = Harness::new(script).await;
    let session = session_with_turns(&h, 3).await;
    let before = model_view(&h, &session).await;

    let run = h.alisio(&["compact", &session, "--focus", "the parser bug", "--json"]).await;
    run.assert_ok();
    let events = run.events();
    assert_eq!(run.event_types(), ["compaction_started", "compaction_completed"]);
    assert_eq!(events[0]["reason"], "manual");
    assert_eq!(events[0]["focus"], "the parser bug");
    let done = &events[1];
    assert_eq!(done["partial"], false);
    assert_eq!(done["summarizedMessages"], 2, "turn 1 is summarized; turns 2 and 3 are kept");
    assert_eq!(done["summarizedChars"], ("question 1".len() + "answer 1".len()) as u64);
    assert!(done["before"]["chars"].as_u64().unwrap() > 0 && done["after"]["tokens"].as_u64().unwrap() > 0);
    assert_eq!(done["pluginReports"][0]["plugin"], "memory");
    assert_eq!(done["pluginReports"][0]["saved"], 1);

    // The summarizer got the live request unchanged, plus one user message with the focus.
    let summarizer = &post_bodies(&h)[3];
    let sent = summarizer["messages"].as_array().unwrap();
    assert_eq!(&sent[..sent.len() - 1], before["messages"].as_array().unwrap().as_slice());
    let ask = sent.last().unwrap();
    assert_eq!(ask["role"], "user");
    let ask = ask["content"].as_str().unwrap();
    assert!(ask.contains("Focus the checkpoint on: the parser bug"), "{ask}");
    assert!(ask.contains("\"currentState\"") && ask.contains("\"memory\""), "{ask}");
    assert_eq!(summarizer["tool_choice"], "none");
    assert_eq!(summarizer["tools"], post_bodies(&h)[2]["tools"], "same tools array");
    assert_eq!(summarizer["max_tokens"], 16000);

    // The rows: originals kept and marked, the checkpoint added, the record complete.
    assert_eq!(
        h.rows("SELECT seq, compacted, summary, compacted_by, created_by FROM messages ORDER BY anchor, seq"),
        vec![
            vec![json!(1), json!(1), json!(0), json!(1), Value::Null],
            vec![json!(2), json!(1), json!(0), json!(1), Value::Null],
            vec![json!(7), json!(0), json!(1), Value::Null, json!(1)],
            vec![json!(8), json!(0), json!(1), Value::Null, json!(1)],
            vec![json!(3), json!(0), json!(0), Value::Null, Value::Null],
            vec![json!(4), json!(0), json!(0), Value::Null, Value::Null],
            vec![json!(5), json!(0), json!(0), Value::Null, Value::Null],
            vec![json!(6), json!(0), json!(0), Value::Null, Value::Null],
        ]
    );
    assert_eq!(
        h.rows("SELECT kind, reason, focus, status, partial, summarized_ranges FROM compactions"),
        vec![vec![
            json!("checkpoint"),
            json!("manual"),
            json!("the parser bug"),
            json!("applied"),
            json!(0),
            json!("[[1,2]]")
        ]]
    );
    let memory_dir = h.home.path().join("memory");
    let memory = std::fs::read_dir(&memory_dir).unwrap().next().unwrap().unwrap().path();
    assert!(std::fs::read_to_string(memory).unwrap().contains("tests run with ./tests/run"));

    // The next request carries the checkpoint and the remembered facts instead of turn 1.
    h.run(&["--session", &session], "question 4").await.assert_ok();
    let next = conversation(&post_bodies(&h)[4]);
    let checkpoint_text = next[0]["content"].as_str().unwrap();
    assert!(checkpoint_text.starts_with("## Checkpoint"), "{checkpoint_text}");
    assert!(checkpoint_text.contains("### Goal\nfix the parser"));
    assert_eq!(next[1]["content"], "## Remembered facts about this workspace\n- tests run with ./tests/run");
    let rest: Vec<Value> = next[2..].to_vec();
    assert_eq!(
        rest,
        vec![
            json!({"role": "user", "content": "question 2"}),
            json!({"role": "assistant", "content": "answer 2"}),
            json!({"role": "user", "content": "question 3"}),
            json!({"role": "assistant", "content": "answer 3"}),
            json!({"role": "user", "content": "question 4"}),
        ]
    );

    // The stored view keeps everything, with the compaction and its sections.
    let stored = h.alisio(&["sessions", "show", &session, "--json"]).await.json();
    assert_eq!(stored["messages"].as_array().unwrap().len(), 10);
    assert_eq!(stored["messages"][0]["compacted"], true);
    assert_eq!(stored["compactions"][0]["summarizedSeqs"], json!([1, 2]));
    assert_eq!(stored["compactions"][0]["checkpoint"]["sections"]["goal"], "fix the parser");
    assert_eq!(stored["modelCalls"][3]["purpose"], "compaction");
}

#[tokio::test]
async fn preview_edit_apply_and_undo_restore_the_exact_model_view() {
    let mut script = answers(3);
    script.push(Reply::Answer(Answer::text(&checkpoint("proposed goal", &[]))));
    let h = Harness::with_config(script, json!({"plugins": []})).await;
    let session = session_with_turns(&h, 3).await;
    let before = model_view(&h, &session).await;

    let run = h.alisio(&["compact", &session, "--preview", "--json"]).await;
    run.assert_ok();
    assert_eq!(run.event_types(), ["compaction_started", "compaction_proposed"]);
    let proposal = run.events()[1]["proposal"].as_i64().unwrap();
    assert_eq!(run.events()[1]["checkpoint"]["sections"]["goal"], "proposed goal");
    assert_eq!(model_view(&h, &session).await, before, "a preview hides nothing");

    let edited = h.home.path().join("edited.json");
    std::fs::write(&edited, checkpoint("edited goal", &[])).unwrap();
    let run = h
        .alisio(&[
            "compact",
            &session,
            "--apply",
            &proposal.to_string(),
            "--checkpoint",
            edited.to_str().unwrap(),
            "--json",
        ])
        .await;
    run.assert_ok();
    assert_eq!(run.event_types(), ["compaction_completed"]);
    let after = model_view(&h, &session).await;
    assert!(after["messages"][1]["content"].as_str().unwrap().contains("### Goal\nedited goal"));
    assert_eq!(after["messages"].as_array().unwrap().len(), 1 + 1 + 4);

    let run = h.alisio(&["compact", &session, "--undo", "--json"]).await;
    run.assert_ok();
    assert_eq!(run.events()[0]["type"], "compaction_reverted");
    assert_eq!(model_view(&h, &session).await, before, "undo restores exactly the pre-compaction view");
    assert_eq!(
        h.rows("SELECT count(*), sum(compacted), sum(reverted) FROM messages"),
        vec![vec![json!(7), json!(1), json!(1)]],
        "nothing deleted: the checkpoint is kept, hidden and marked reverted"
    );
    assert_eq!(h.rows("SELECT status FROM compactions"), vec![vec![json!("reverted")]]);
    let again = h.alisio(&["compact", &session, "--undo"]).await;
    assert_eq!(again.code, 2);
    assert!(again.stderr.contains("no applied compaction to undo"));
}

#[tokio::test]
async fn a_summary_cut_by_the_output_budget_is_kept_as_partial_or_fails_when_unusable() {
    let cut = r#"{"goal": "keep going", "instructions": ["be brief"], "discoveries": ["half a fa"#;
    let mut script = answers(3);
    script.push(Reply::Answer(Answer { finish: Some("length".into()), ..Answer::text("{\"goal\": \"") }));
    script.push(Reply::Answer(Answer { finish: Some("length".into()), ..Answer::text(cut) }));
    let h = Harness::with_config(script, json!({"plugins": [], "compaction": {"maxOutputTokens": 512}})).await;
    let session = session_with_turns(&h, 3).await;
    let before = model_view(&h, &session).await;

    let failed = h.alisio(&["compact", &session, "--json"]).await;
    assert_eq!(failed.code, 1);
    assert_eq!(failed.event_types(), ["compaction_started", "compaction_failed"]);
    let error = failed.events()[1]["error"].as_str().unwrap().to_string();
    assert!(error.contains("compaction.maxOutputTokens = 512") && error.contains("Raise"), "{error}");
    assert_eq!(model_view(&h, &session).await, before, "a failed compaction changes nothing");
    assert_eq!(h.rows("SELECT count(*) FROM compactions"), vec![vec![json!(0)]]);

    let partial = h.alisio(&["compact", &session, "--json"]).await;
    partial.assert_ok();
    assert_eq!(partial.events()[1]["partial"], true);
    let stored = h.alisio(&["sessions", "show", &session, "--json"]).await.json();
    let record = &stored["compactions"][0];
    assert_eq!(record["partial"], true);
    assert_eq!(record["checkpoint"]["sections"]["discoveries"], json!(["half a fa"]));
    let view = model_view(&h, &session).await;
    let text = view["messages"][1]["content"].as_str().unwrap();
    assert!(text.contains("Partial") && text.contains("### Goal\nkeep going"), "{text}");
}

#[tokio::test]
async fn too_little_history_is_skipped_and_uncertain_sessions_are_refused() {
    let h = Harness::new(answers(1)).await;
    let session = session_with_turns(&h, 1).await;
    let run = h.alisio(&["compact", &session, "--json"]).await;
    run.assert_ok();
    assert_eq!(run.event_types(), ["compaction_skipped"]);
    assert_eq!(run.events()[0]["reason"], "there is no safe boundary to summarize");

    // Fake a crash mid-tool: an assistant call journaled as started, never finished.
    let conn = h.db();
    conn.execute_batch(&format!(
        "INSERT INTO messages (session_id, seq, anchor, role, content, chars, tool_calls, created_at)
           VALUES ('{session}', 3, 3, 'assistant', '', 10, '[{{\"id\":\"u1\",\"name\":\"shell\",\"arguments\":\"{{}}\"}}]', 'now');
         INSERT INTO tool_calls (session_id, call_id, name, arguments, assistant_seq, state, requested_at)
           VALUES ('{session}', 'u1', 'shell', '{{}}', 3, 'started', 'now');"
    ))
    .unwrap();
    let refused = h.alisio(&["compact", &session]).await;
    assert_eq!(refused.code, 3);
    assert!(refused.stderr.contains(&format!("alisio sessions recover {session} --acknowledge")), "{}", refused.stderr);
}

#[tokio::test]
async fn automatic_compaction_runs_before_the_model_call_when_the_window_fills() {
    let mut script = answers(2);
    script.push(Reply::Answer(Answer::text(&checkpoint("auto goal", &[]))));
    script.push(Reply::Answer(Answer::text("answer 3")));
    let h = Harness::with_config(script, json!({"plugins": [], "compaction": {"threshold": 0.5}})).await;
    let long = "x".repeat(3000);
    // Window from GET /models: 3000 tokens → compaction at 1500 tokens (6000 chars, catalog included).
    h.server.set_models(json!({"data": [{"id": "test-model", "context_length": 3000}]}));
    let first = h.run(&[], &format!("first {long}")).await;
    first.assert_ok();
    let session = first.session();
    h.run(&["--session", &session], "second").await.assert_ok();
    assert_eq!(post_bodies(&h).len(), 2, "no compaction while under the threshold");
    let third = h.run(&["--session", &session], &format!("third {long}")).await;
    third.assert_ok();
    assert_eq!(
        third.event_types(),
        ["session", "compaction_started", "compaction_completed", "model_call", "turn_completed"]
    );
    assert_eq!(third.events()[1]["reason"], "auto");
    let bodies = post_bodies(&h);
    assert_eq!(bodies[2]["tool_choice"], "none");
    let sent = conversation(&bodies[3]);
    assert!(sent[0]["content"].as_str().unwrap().contains("auto goal"));
    assert_eq!(sent[1], json!({"role": "user", "content": "second"}));
    assert_eq!(sent.len(), 4, "checkpoint, turn 2, turn 3's prompt");
    // Why it fired: the estimate of the request that crossed half of the 3,000-token window.
    let shown = h.alisio(&["sessions", "show", &session, "--json"]).await.assert_ok().json();
    let trigger = &shown["compactions"][0]["trigger"];
    assert_eq!(
        (&trigger["kind"], &trigger["window"], &trigger["threshold"]),
        (&json!("threshold"), &json!(3000), &json!(0.5))
    );
    assert!(trigger["promptTokens"].as_u64().unwrap() >= 1500, "{trigger}");

    // auto: false disables it entirely.
    let h =
        Harness::with_config(answers(3), json!({"plugins": [], "compaction": {"threshold": 0.5, "auto": false}})).await;
    h.server.set_models(json!({"data": [{"id": "test-model", "context_length": 3000}]}));
    let session = session_with_turns(&h, 2).await;
    let run = h.run(&["--session", &session], &format!("third {long}")).await;
    run.assert_ok();
    assert!(!run.event_types().iter().any(|t| t.starts_with("compaction")));
}

/// Issue #25: a command's big output that pushes the request over the threshold mid-turn is read
/// once — in the kept turns after the checkpoint — not also by the summarizer. The summarizer gets
/// the request as last sent (a prefix the server has cached) plus the summary request.
#[tokio::test]
async fn a_big_output_that_fires_compaction_mid_turn_is_read_once_not_by_the_summarizer() {
    let output: String = (1..=150).map(|i| format!("test case {i:03} ... ok (unique-output-{i:03})\n")).collect();
    let mut script = answers(2);
    script.push(Reply::Answer(Answer::calls(&[("call_log", "read_file", json!({"path": "test.log"}))])));
    script.push(Reply::Answer(Answer::text(&checkpoint("run the tests", &[]))));
    script.push(Reply::Answer(Answer::text("150 passed")));
    let h = Harness::with_config(script, json!({"plugins": [], "compaction": {"threshold": 0.5}})).await;
    std::fs::write(h.ws().join("test.log"), &output).unwrap();
    // Window 3,000 tokens → compaction at 1,500 (≈ 6,000 chars with the catalog): the 150 lines
    // (≈ 6,900 chars) cross it only once they are read.
    h.server.set_models(json!({"data": [{"id": "test-model", "context_length": 3000}]}));
    let session = session_with_turns(&h, 2).await;
    let run = h.run(&["--session", &session], "run the tests and read test.log").await;
    run.assert_ok();
    assert_eq!(
        run.event_types().iter().filter(|t| t.starts_with("compaction")).collect::<Vec<_>>(),
        ["compaction_started", "compaction_completed"]
    );
    let bodies = post_bodies(&h);
    assert_eq!(bodies.len(), 5, "two turns, the call, the summary, the answer");
    let (asked, summary, after) = (&bodies[2], &bodies[3], &bodies[4]);
    assert_eq!(summary["tool_choice"], "none", "call 4 is the summarizer");
    let reads = |body: &Value| body.to_string().matches("unique-output-077").count();
    assert_eq!(reads(summary), 0, "the summarizer does not read the output");
    assert_eq!(reads(after), 1, "the next request carries it once, in the kept turn");
    // The summarizer's messages: the request as last sent, then the one summary request.
    let (asked, summary) = (conversation(asked), conversation(summary));
    assert_eq!(summary[..summary.len() - 1], asked[..]);
    // The record's figures still measure the whole request.
    let shown = h.alisio(&["sessions", "show", &session, "--json"]).await.assert_ok().json();
    assert!(shown["compactions"][0]["beforeChars"].as_u64().unwrap() > output.len() as u64);
}

/// A request the provider refuses as too long is compacted once and sent again;
/// the record says why it fired. A second refusal in the same turn is the error.
#[tokio::test]
async fn a_request_refused_as_too_long_is_compacted_once_and_sent_again() {
    let refusal = json!({"error": {"message": "This model's maximum context length is 4096 tokens. However, your messages resulted in 5210 tokens.",
                                   "type": "invalid_request_error", "code": "context_length_exceeded"}})
    .to_string();
    let mut script = answers(2);
    script.push(Reply::Status(400, refusal.clone()));
    script.push(Reply::Answer(Answer::text(&checkpoint("after the overflow", &[]))));
    script.push(Reply::Answer(Answer::text("answer 3")));
    script.push(Reply::Status(400, refusal.clone()));
    script.push(Reply::Answer(Answer::text(&checkpoint("again", &[]))));
    script.push(Reply::Status(400, refusal));
    let h = Harness::with_config(script, json!({"plugins": [], "compaction": {"keepTurns": 1}})).await;
    let session = session_with_turns(&h, 2).await;
    let run = h.run(&["--session", &session], "question 3").await;
    run.assert_ok();
    assert_eq!(
        run.event_types(),
        ["session", "compaction_started", "compaction_completed", "model_call", "turn_completed"]
    );
    let bodies = post_bodies(&h);
    assert_eq!(bodies.len(), 5, "two turns, the refused call, the summary, the call sent again");
    assert_eq!(bodies[3]["tool_choice"], "none");
    let again = conversation(&bodies[4]);
    assert!(again[0]["content"].as_str().unwrap().contains("after the overflow"), "{again:#?}");
    assert_eq!(again.last().unwrap(), &json!({"role": "user", "content": "question 3"}));
    let shown = h.alisio(&["sessions", "show", &session, "--json"]).await.assert_ok().json();
    let trigger = &shown["compactions"][0]["trigger"];
    assert_eq!(trigger["kind"], "overflow");
    assert!(trigger["promptTokens"].as_u64().unwrap() > 0, "{trigger}");

    // Refused again after its compaction: the turn fails with the provider's message.
    let failed = h.run(&["--session", &session], "question 4").await;
    assert_eq!(failed.code, 1);
    assert!(failed.stderr.contains("maximum context length"), "{}", failed.stderr);
    assert_eq!(post_bodies(&h).len(), 8, "one compaction per turn, one retry");
}

#[tokio::test]
async fn an_irreducible_conversation_fails_with_the_budget_message_and_sends_nothing() {
    let instructions = "Follow the house rules. ".repeat(200);
    let h = Harness::with_config(
        vec![Reply::Answer(Answer::text("never"))],
        json!({"plugins": [], "instructions": instructions, "limits": {"maxContextChars": 4000}}),
    )
    .await;
    let run = h.run(&[], "hello").await;
    assert_eq!(run.code, 1);
    assert!(
        run.stderr.contains("Context budget exceeded (approximately ")
            && run.stderr.contains("characters of conversation; limit 4000). Automatic compaction was skipped because there is no safe boundary to summarize."),
        "{}",
        run.stderr
    );
    assert!(post_bodies(&h).is_empty(), "an oversized request is never sent");
    assert_eq!(
        run.event_types().iter().filter(|t| *t == "compaction_skipped").count(),
        2,
        "auto, then the one budget attempt"
    );

    let h = Harness::with_config(
        vec![],
        json!({"plugins": [], "instructions": instructions, "limits": {"maxContextChars": 4000}, "compaction": {"auto": false}}),
    )
    .await;
    let run = h.run(&[], "hello").await;
    assert_eq!(run.code, 1);
    assert!(run.stderr.contains("Automatic compaction is disabled."), "{}", run.stderr);
}

#[tokio::test]
async fn responses_mode_drops_opaque_items_of_the_summarized_span_only() {
    let reasoning = |n: usize| json!({"type": "reasoning", "id": format!("rs_{n}"), "summary": [], "encrypted_content": format!("enc-{n}")});
    let mut script: Vec<Reply> = (1..=3)
        .map(|n| Reply::Answer(Answer { opaque_items: vec![reasoning(n)], ..Answer::text(&format!("answer {n}")) }))
        .collect();
    script.push(Reply::Answer(Answer::text(&checkpoint("responses goal", &[]))));
    script.push(Reply::Answer(Answer::text("answer 4")));
    let h = Harness::with_config(script, json!({"plugins": [], "provider": {"api": "responses"}})).await;
    let session = session_with_turns(&h, 3).await;
    h.alisio(&["compact", &session]).await.assert_ok();
    h.run(&["--session", &session], "question 4").await.assert_ok();
    let input = post_bodies(&h)[4]["input"].as_array().unwrap().clone();
    let opaque: Vec<&Value> = input.iter().filter(|i| i["type"] == "reasoning").collect();
    assert_eq!(opaque, vec![&reasoning(2), &reasoning(3)], "turn 1's reasoning left with turn 1");
    assert!(input[1]["content"].as_str().unwrap().starts_with("## Checkpoint"));
}

#[tokio::test]
async fn sigkill_during_compaction_leaves_the_pre_or_post_state() {
    let mut script = answers(3);
    let trials = 50;
    for _ in 0..=trials {
        script.push(Reply::Answer(Answer::text(&checkpoint("crash goal", &["a fact"]))));
    }
    let h = Harness::with_config(script, json!({})).await;
    let session = session_with_turns(&h, 3).await;
    let template = h.home.path().join("template.db");
    h.db().execute_batch(&format!("VACUUM INTO '{}'", template.display())).unwrap();
    let pre = h.rows("SELECT seq, compacted FROM messages ORDER BY seq");
    // How long an uninterrupted compaction takes here, so the kills spread over its whole life.
    let started = std::time::Instant::now();
    h.command(&["compact", &session]).output().await.unwrap();
    let lifetime_us = (started.elapsed().as_micros() as u64).max(1000) * 6 / 5;
    let (mut pre_seen, mut post_seen) = (0, 0);
    let mut seed: u64 = 0x2545_F491_4F6C_DD1D;
    for _ in 0..trials {
        for suffix in ["", "-wal", "-shm"] {
            let _ = std::fs::remove_file(format!("{}{suffix}", h.db_path().display()));
        }
        std::fs::copy(&template, h.db_path()).unwrap();
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let delay = Duration::from_micros(seed % lifetime_us);
        let mut child = h.command(&["compact", &session]).spawn().unwrap();
        tokio::time::sleep(delay).await;
        let _ = child.start_kill();
        let _ = child.wait().await;
        let live = h.rows("SELECT seq, compacted FROM messages WHERE seq <= 6 ORDER BY seq");
        let records = h.rows("SELECT status FROM compactions");
        let added = h.rows("SELECT count(*) FROM messages WHERE seq > 6");
        if records.is_empty() {
            assert_eq!(live, pre, "no record: nothing may be hidden");
            assert_eq!(added, vec![vec![json!(0)]], "no record: nothing may be added");
            pre_seen += 1;
        } else {
            assert_eq!(records, vec![vec![json!("applied")]]);
            assert_eq!(live.iter().filter(|r| r[1] == json!(1)).count(), 2, "exactly the summarized span is hidden");
            assert_eq!(added, vec![vec![json!(2)]], "checkpoint and injected memory");
            post_seen += 1;
        }
    }
    eprintln!("crash trials: {pre_seen} left the pre-compaction state, {post_seen} the post-compaction state");
    assert_eq!(pre_seen + post_seen, trials);
    assert!(pre_seen > 0 && post_seen > 0, "kills landed both before and after the commit");
}

#[tokio::test]
async fn plugin_hooks_extend_the_summarizer_call_and_slow_hooks_are_skipped() {
    let notes = r###"x=$(cat); case "$x" in
        *beforeCompact*) echo '{"instructions": "Also list open TODOs.", "outputFields": [{"name": "todos", "description": "open TODOs"}]}' ;;
        *'"todos":["write docs"]'*) printf '%s' '{"injectContext": "## TODOs\n- write docs", "report": {"summary": "1 todo carried over"}}' ;;
        *) echo "unexpected input: $x" >&2; exit 1 ;;
      esac"###;
    let mut script = answers(3);
    let mut summary: Value = serde_json::from_str(&checkpoint("hooks", &[])).unwrap();
    summary["todos"] = json!(["write docs"]);
    script.push(Reply::Answer(Answer::text(&summary.to_string())));
    let h = Harness::with_config(
        script,
        json!({
            "pluginHooks": {"timeoutMs": 300},
            "plugins": [
                {"name": "slow", "command": "sh", "args": ["-c", "sleep 5"]},
                {"name": "notes", "command": "sh", "args": ["-c", notes]},
            ],
        }),
    )
    .await;
    let session = session_with_turns(&h, 3).await;
    let run = h.alisio(&["compact", &session, "--json"]).await;
    run.assert_ok();
    let events = run.events();
    let failed: Vec<(String, String)> = events
        .iter()
        .filter(|e| e["type"] == "plugin_hook_failed")
        .map(|e| (e["plugin"].as_str().unwrap().to_string(), e["hook"].as_str().unwrap().to_string()))
        .collect();
    assert_eq!(
        failed,
        [("slow".to_string(), "beforeCompact".to_string())],
        "afterCompact only runs for plugins whose beforeCompact answered"
    );
    assert!(events
        .iter()
        .any(|e| e["type"] == "plugin_hook_failed" && e["error"].as_str().unwrap().contains("timed out after 300 ms")));
    let done = events.last().unwrap();
    assert_eq!(done["type"], "compaction_completed");
    assert_eq!(done["pluginReports"], json!([{"summary": "1 todo carried over", "plugin": "notes"}]));

    let ask =
        post_bodies(&h)[3]["messages"].as_array().unwrap().last().unwrap()["content"].as_str().unwrap().to_string();
    assert!(ask.contains("Also list open TODOs.") && ask.contains("\"todos\": open TODOs"), "{ask}");
    let view = model_view(&h, &session).await;
    assert_eq!(view["messages"][2]["content"], "## TODOs\n- write docs");
    assert_eq!(h.rows("SELECT plugin_fields FROM compactions"), vec![vec![json!("{\"todos\":[\"write docs\"]}")]]);
}
