//! Pins end to end: `alisio pin`, the rules files of `compaction.pinFiles`, and the block
//! every request after a checkpoint carries right after it — checked in the bodies the scripted
//! server received, across ten compactions of each strategy.

use pretty_assertions::assert_eq;
use serde_json::{json, Value};

use super::support::{Answer, Harness, Reply};

const SENTENCE: &str = "Never edit files under vendor/: they are generated.";
const CHECKPOINT_HEADING: &str = "## Checkpoint — summary of the earlier conversation";
const CACHE_HEADING: &str = "## Prior work summary";

fn checkpoint(n: usize) -> Reply {
    let sections = json!({
        "goal": format!("goal after compaction {n}"), "instructions": [], "discoveries": [], "accomplished": "",
        "currentState": "idle", "nextSteps": ["continue"], "relevantFiles": [],
    });
    Reply::Answer(Answer::text(&sections.to_string()))
}

fn content(message: &Value) -> &str {
    message["content"].as_str().unwrap_or_default()
}

/// The messages of a request body right after the (last) message starting with `heading`.
fn after_heading<'a>(body: &'a Value, heading: &str) -> (&'a Value, Option<&'a Value>) {
    let messages = body["messages"].as_array().unwrap();
    let at = messages.iter().rposition(|m| content(m).starts_with(heading)).unwrap_or_else(|| {
        panic!("no {heading} in the request: {body:#}");
    });
    (&messages[at], messages.get(at + 1))
}

fn pin_ids(h: &Harness, session: &str) -> Vec<Value> {
    let mut ids: Vec<Value> = pins(h, session).iter().map(|p| p["id"].clone()).collect();
    ids.push(json!("AGENTS.md"));
    ids
}

fn pins(h: &Harness, session: &str) -> Vec<Value> {
    let rows = h.rows(&format!("SELECT id, seq, text FROM pins WHERE session_id = '{session}' ORDER BY id"));
    rows.into_iter().map(|r| json!({"id": r[0], "seq": r[1], "text": r[2]})).collect()
}

async fn show(h: &Harness, session: &str) -> Value {
    let run = h.alisio(&["sessions", "show", session, "--json"]).await;
    run.assert_ok();
    run.json()
}

/// Each compaction's fidelity names every pin, kept.
fn assert_fidelity_keeps(shown: &Value, ids: &[Value], compactions: usize) {
    let records = shown["compactions"].as_array().unwrap();
    assert_eq!(records.len(), compactions);
    for record in records {
        let kept: Vec<Value> = record["fidelity"]["pins"].as_array().unwrap().to_vec();
        let expected: Vec<Value> = ids.iter().map(|id| json!({"id": id, "kept": true})).collect();
        assert_eq!(kept, expected, "compaction {}", record["id"]);
    }
}

#[tokio::test]
async fn pins_and_rules_files_follow_every_native_checkpoint_verbatim() {
    let mut script = vec![Reply::Answer(Answer::text("answer 1")), Reply::Answer(Answer::text("answer 2"))];
    for n in 1..=10 {
        script.push(checkpoint(n));
        script.push(Reply::Answer(Answer::text(&format!("answer after {n}"))));
    }
    let h = Harness::with_config(script, json!({"plugins": [], "compaction": {"keepTurns": 1}})).await;
    std::fs::write(h.ws().join("AGENTS.md"), "Run ./tests/run before every commit.\n").unwrap();
    let session = h.run(&[], "first question").await.assert_ok().session();
    h.run(&["--session", &session], "second question").await.assert_ok();

    // A message and a sentence, pinned from the CLI.
    let pinned = h.alisio(&["pin", &session, "--seq", "1", "--json"]).await;
    pinned.assert_ok();
    assert_eq!(pinned.json(), json!({"id": 1, "seq": 1, "text": "first question"}));
    h.alisio(&["pin", &session, "--text", SENTENCE, "--json"]).await.assert_ok();
    let listed = h.alisio(&["pin", &session, "--list", "--json"]).await;
    listed.assert_ok();
    assert_eq!(
        listed.json(),
        json!([{"id": 1, "seq": 1, "text": "first question"}, {"id": 2, "seq": null, "text": SENTENCE}])
    );

    for n in 1..=10 {
        if n == 6 {
            // A rules file edited between compactions: the next block carries the new text only.
            std::fs::write(h.ws().join("AGENTS.md"), "Run ./tests/run and cargo fmt before every commit.\n").unwrap();
        }
        h.alisio(&["compact", &session, "--json"]).await.assert_ok();
        h.run(&["--session", &session], &format!("question after {n}")).await.assert_ok();
        let bodies = h.server.bodies();
        let (checkpoint, next) = after_heading(bodies.last().unwrap(), CHECKPOINT_HEADING);
        assert!(content(checkpoint).contains(&format!("goal after compaction {n}")), "compaction {n}");
        let block = content(next.expect("a message after the checkpoint"));
        assert!(block.starts_with("## Pinned"), "compaction {n}: {block}");
        assert!(block.contains("\nfirst question\n") && block.contains(&format!("\n{SENTENCE}\n")), "{block}");
        let rules = if n < 6 { "Run ./tests/run before" } else { "Run ./tests/run and cargo fmt before" };
        assert!(block.contains(&format!("### AGENTS.md\n\n{rules}")), "compaction {n}: {block}");
        if n >= 6 {
            assert!(!block.contains("Run ./tests/run before"), "the old rules are gone: {block}");
        }
        // One block per request: the previous one was summarized with its checkpoint.
        let blocks = bodies.last().unwrap()["messages"].as_array().unwrap().iter();
        assert_eq!(blocks.filter(|m| content(m).starts_with("## Pinned")).count(), 1);
    }
    let shown = show(&h, &session).await;
    assert_fidelity_keeps(&shown, &pin_ids(&h, &session), 10);
    let manual = json!({"kind": "manual", "promptTokens": null, "window": null, "threshold": null});
    assert!(shown["compactions"].as_array().unwrap().iter().all(|c| c["trigger"] == manual), "{shown:#}");

    // The stored view marks the block; removing a pin leaves it out of the next block.
    let stored = h.alisio(&["sessions", "show", &session, "--view", "stored", "--json"]).await;
    stored.assert_ok();
    let kinds: Vec<Value> = stored.json()["messages"].as_array().unwrap().iter().map(|m| m["kind"].clone()).collect();
    assert_eq!(kinds.iter().filter(|k| *k == "pinned").count(), 10, "{kinds:?}");
    let removed = h.alisio(&["pin", &session, "--remove", "2", "--json"]).await;
    removed.assert_ok();
    assert_eq!(removed.json()["left"], json!([{"id": 1, "seq": 1, "text": "first question"}]));
    let missing = h.alisio(&["pin", &session, "--remove", "2"]).await;
    assert_eq!(missing.code, 2);
    assert!(missing.stderr.contains("has no pin 2"), "{}", missing.stderr);
}

#[tokio::test]
async fn pins_follow_every_cache_summary_verbatim() {
    let usage = |answer: Answer, prompt: u64| Reply::Answer(Answer { usage: Some((prompt, 10, 0)), ..answer });
    let mut script = vec![usage(Answer::text("first answer"), 1000)];
    for n in 1..=10 {
        script.push(usage(Answer::calls(&[(&format!("c{n}"), "list_dir", json!({"path": "."}))]), 7000));
        script.push(usage(Answer::text(&format!("GOAL: ship. DONE: step {n}.")), 7100));
        script.push(usage(Answer::text(&format!("resumed {n}")), 500));
    }
    let config = json!({"plugins": [], "compaction": {"strategy": "cache", "pinFiles": ["RULES.md"]},
                        "cacheCompact": {"contextLimit": 10000}});
    let h = Harness::with_config(script, config).await;
    std::fs::write(h.ws().join("RULES.md"), "Answer in English.\n").unwrap();
    std::fs::write(h.ws().join("AGENTS.md"), "not pinned: not in pinFiles\n").unwrap();
    let session = h.run(&[], "first").await.assert_ok().session();
    h.alisio(&["pin", &session, "--text", SENTENCE]).await.assert_ok();
    for n in 1..=10 {
        h.run(&["--session", &session], &format!("turn {n}")).await.assert_ok();
        let bodies = h.server.bodies();
        let resumed = bodies.last().unwrap();
        let (summary, next) = after_heading(resumed, CACHE_HEADING);
        assert!(content(summary).contains(&format!("DONE: step {n}.")), "cut {n}");
        let block = content(next.expect("a message after the summary"));
        assert!(block.starts_with("## Pinned") && block.contains(&format!("\n{SENTENCE}\n")), "cut {n}: {block}");
        assert!(block.contains("### RULES.md\n\nAnswer in English.\n") && !block.contains("not pinned"), "{block}");
    }
    let shown = show(&h, &session).await;
    assert_fidelity_keeps(&shown, &[json!(1), json!("RULES.md")], 10);
    // Each cut says why: the step's 7,000 prompt + 10 completion tokens of the 10,000 limit, at 68 %.
    let tripped = json!({"kind": "threshold", "promptTokens": 7010, "window": 10000, "threshold": 0.68});
    assert!(shown["compactions"].as_array().unwrap().iter().all(|c| c["trigger"] == tripped), "{shown:#}");
}

/// The tool message answering `call` in a list of request messages.
fn tool_result<'a>(messages: &'a [Value], call: &str) -> &'a Value {
    messages
        .iter()
        .find(|m| m["role"] == "tool" && m["tool_call_id"] == call)
        .unwrap_or_else(|| panic!("no result of {call}"))
}

async fn model_messages(h: &Harness, session: &str) -> Vec<Value> {
    let run = h.alisio(&["sessions", "show", session, "--view", "model", "--json"]).await;
    run.assert_ok();
    run.json()["messages"].as_array().unwrap().clone()
}

#[tokio::test]
async fn masking_replaces_old_tool_results_keeps_the_pairs_and_undo_restores_the_request() {
    let h = Harness::with_config(
        vec![
            Reply::Answer(Answer::calls(&[("call_a", "list_dir", json!({"path": "."}))])),
            Reply::Answer(Answer::text("done 1")),
            Reply::Answer(Answer::calls(&[("call_b", "list_dir", json!({"path": "."}))])),
            Reply::Answer(Answer::text("done 2")),
            Reply::Answer(Answer::text("answer 3")),
            Reply::Answer(Answer::text("answer 4")),
        ],
        json!({"plugins": [], "compaction": {"strategy": "mask", "keepTurns": 1}}),
    )
    .await;
    // Listings longer than their placeholder (a shorter result is left as it is).
    for i in 0..20 {
        std::fs::write(h.ws().join(format!("notes-{i:02}.txt")), "a file for list_dir to find\n").unwrap();
    }
    let session = h.run(&[], "list it").await.assert_ok().session();
    h.run(&["--session", &session], "list it again").await.assert_ok();
    h.run(&["--session", &session], "and now?").await.assert_ok();
    let before = model_messages(&h, &session).await;
    let calls_before = h.server.bodies().len();

    let masked = h.alisio(&["compact", &session, "--json"]).await;
    masked.assert_ok();
    assert_eq!(masked.event_types(), ["compaction_started", "compaction_completed"]);
    assert_eq!(masked.events()[0]["reason"], "mask");
    assert_eq!(h.server.bodies().len(), calls_before, "masking calls no model");
    let after = model_messages(&h, &session).await;
    assert_eq!(after.len(), before.len(), "every message keeps its place");
    for call in ["call_a", "call_b"] {
        let original = tool_result(&before, call)["content"].as_str().unwrap().chars().count();
        assert_eq!(tool_result(&after, call)["content"], format!("[output omitted: {original} chars, call {call}]"));
        // The call that asked for it is still there, under the same id, right before it.
        let at = after.iter().position(|m| m["role"] == "tool" && m["tool_call_id"] == call).unwrap();
        assert_eq!(after[at - 1]["tool_calls"][0]["id"], call);
    }
    // Everything but the results is untouched; the originals stay stored.
    for (b, a) in before.iter().zip(&after) {
        if b["role"] != "tool" {
            assert_eq!(a, b);
        }
    }
    assert_eq!(
        h.rows("SELECT kind, reason, status FROM compactions"),
        vec![vec![json!("reduction"), json!("mask"), json!("applied")]]
    );
    assert_eq!(
        h.rows("SELECT trigger FROM compactions"),
        vec![vec![json!(r#"{"kind":"mask","promptTokens":null,"window":null,"threshold":null}"#)]]
    );
    let originals = h.rows("SELECT tool_call_id FROM messages WHERE compacted_by = 1 ORDER BY seq");
    assert_eq!(originals, vec![vec![json!("call_a")], vec![json!("call_b")]]);

    // Undo restores the request byte for byte.
    h.alisio(&["compact", &session, "--undo", "--json"]).await.assert_ok();
    assert_eq!(model_messages(&h, &session).await, before);

    // Masked again, the next request the server receives carries the placeholders.
    h.alisio(&["compact", &session, "--json"]).await.assert_ok();
    h.run(&["--session", &session], "one more").await.assert_ok();
    let sent = h.server.bodies().last().unwrap()["messages"].as_array().unwrap().clone();
    assert!(tool_result(&sent, "call_a")["content"].as_str().unwrap().starts_with("[output omitted: "));
    let again = h.alisio(&["compact", &session, "--json"]).await;
    again.assert_ok();
    assert_eq!(again.event_types(), ["compaction_skipped"], "placeholders are not masked twice");
}

/// Ten compactions under `strategy` (`mask` or `hybrid`), a turn with a long listing before each;
/// a pinned tool result and a tool result holding a pinned sentence are never masked, and after a
/// hybrid's summary the pins follow its checkpoint. Returns the harness and session.
async fn ten_compactions(strategy: &str) -> (Harness, String) {
    let hybrid = strategy == "hybrid";
    let mut script = vec![
        Reply::Answer(Answer::calls(&[("call_log", "read_file", json!({"path": "build.log"}))])),
        Reply::Answer(Answer::calls(&[("call_rules", "read_file", json!({"path": "rules.txt"}))])),
        Reply::Answer(Answer::calls(&[("call_agents", "read_file", json!({"path": "AGENTS.md"}))])),
        Reply::Answer(Answer::text("read all three")),
        Reply::Answer(Answer::calls(&[("call_ls0", "list_dir", json!({"path": "."}))])),
        Reply::Answer(Answer::text("listed 0")),
    ];
    for n in 1..=10 {
        script.push(Reply::Answer(Answer::calls(&[(&format!("call_ls{n}"), "list_dir", json!({"path": "."}))])));
        script.push(Reply::Answer(Answer::text(&format!("listed {n}"))));
        if hybrid {
            script.push(checkpoint(n));
        }
    }
    script.push(Reply::Answer(Answer::text("last")));
    let config = json!({"plugins": [], "compaction": {"strategy": strategy, "keepTurns": 1, "auto": false}});
    let h = Harness::with_config(script, config).await;
    // Window 2,000 tokens at 85 %: each turn's long prompt keeps a masked request over it, so
    // hybrid summarizes too.
    h.server.set_models(json!({"data": [{"id": "test-model", "context_length": 2000}]}));
    let log: String = (1..=40).map(|i| format!("build step {i:02}: LOG-FACT-{i:02} compiled\n")).collect();
    std::fs::write(h.ws().join("build.log"), &log).unwrap();
    std::fs::write(h.ws().join("rules.txt"), format!("House rules, read once.\n{SENTENCE}\nThat is all.\n")).unwrap();
    // A rules file of compaction.pinFiles the agent read: its result is a pin too.
    std::fs::write(
        h.ws().join("AGENTS.md"),
        format!("# Rules\n\nAmounts are integer cents (RULE-4242).\n{}", "Keep it so. ".repeat(8)),
    )
    .unwrap();
    for i in 0..40 {
        std::fs::write(h.ws().join(format!("listing-entry-{i:02}.txt")), "x").unwrap();
    }
    let session = h.run(&[], "read build.log and rules.txt").await.assert_ok().session();
    let log_seq = h.rows(&format!(
        "SELECT seq FROM messages WHERE session_id = '{session}' AND role = 'tool' AND tool_call_id = 'call_log'"
    ))[0][0]
        .as_i64()
        .unwrap();
    h.alisio(&["pin", &session, "--seq", &log_seq.to_string()]).await.assert_ok();
    h.alisio(&["pin", &session, "--text", SENTENCE]).await.assert_ok();
    let filler = "Please keep going with the listing, and mind the rules. ".repeat(30);
    h.run(&["--session", &session], &format!("list the files (0) {filler}")).await.assert_ok();
    for n in 1..=10 {
        h.run(&["--session", &session], &format!("list the files ({n}) {filler}")).await.assert_ok();
        let compacted = h.alisio(&["compact", &session, "--json"]).await;
        compacted.assert_ok();
        let types = compacted.event_types();
        assert_eq!(
            types.iter().filter(|t| *t == "compaction_completed").count(),
            if hybrid { 2 } else { 1 },
            "{types:?}"
        );
        // What the next request carries: every pin, verbatim.
        let messages = model_messages(&h, &session).await;
        let text = serde_json::to_string(&messages).unwrap();
        assert!(
            text.contains("LOG-FACT-37") && text.contains(SENTENCE) && text.contains("RULE-4242"),
            "compaction {n}: {text}"
        );
        let masked = messages.iter().filter(|m| content(m).starts_with("[output omitted: ")).count();
        if hybrid {
            let at = messages.iter().rposition(|m| content(m).starts_with(CHECKPOINT_HEADING)).expect("a checkpoint");
            let block = content(&messages[at + 1]);
            assert!(block.starts_with("## Pinned") && block.contains(&format!("\n{SENTENCE}\n")), "{block}");
            assert!(block.contains("LOG-FACT-37"), "{block}");
            // The trail records what the masked listings returned, not their placeholders.
            let checkpoint = content(&messages[at]);
            assert!(
                checkpoint.contains("`list_dir .` → ") && checkpoint.contains("listing-entry-39.txt"),
                "{checkpoint}"
            );
        } else {
            // Every listing but the kept turn's is masked; the pinned results never are.
            assert_eq!(masked, n, "compaction {n}");
            assert!(!content(tool_result(&messages, "call_log")).starts_with("[output omitted"));
            assert!(content(tool_result(&messages, "call_rules")).contains(SENTENCE));
            assert!(content(tool_result(&messages, "call_agents")).contains("RULE-4242"));
        }
    }
    (h, session)
}

#[tokio::test]
async fn pins_survive_ten_maskings_and_ten_hybrid_compactions() {
    let (h, session) = ten_compactions("mask").await;
    let reasons =
        h.rows(&format!("SELECT reason FROM compactions WHERE session_id = '{session}' AND status = 'applied'"));
    assert_eq!(reasons, vec![vec![json!("mask")]; 10]);

    let (h, session) = ten_compactions("hybrid").await;
    let reasons = h.rows(&format!("SELECT reason FROM compactions WHERE session_id = '{session}' ORDER BY id"));
    let expected: Vec<Vec<Value>> = (0..10).flat_map(|_| [vec![json!("mask")], vec![json!("manual")]]).collect();
    assert_eq!(reasons, expected, "each hybrid compaction masks, then summarizes what is still over the threshold");
    // The summaries' fidelity names both pins and the rules file, kept.
    let shown = show(&h, &session).await;
    let checkpoints: Vec<&Value> =
        shown["compactions"].as_array().unwrap().iter().filter(|c| c["kind"] == "checkpoint").collect();
    assert_eq!(checkpoints.len(), 10);
    for c in checkpoints {
        let kept = json!([{"id": 1, "kept": true}, {"id": 2, "kept": true}, {"id": "AGENTS.md", "kept": true}]);
        assert_eq!(c["fidelity"]["pins"], kept, "{c:#}");
    }
}
