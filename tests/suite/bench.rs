//! The compaction bake-off through the binary: one session forked at its end and compacted by
//! three strategies; the same probes asked of each, their answers checked against what each left;
//! the summarizer's tokens only where a model was asked; the library untouched afterwards. An
//! imported session adds the agent's own summary as an arm.

use pretty_assertions::assert_eq;
use serde_json::{json, Value};

use super::support::{Answer, Harness, Reply};

fn forgetful() -> String {
    json!({"goal": "tidy up", "instructions": [], "discoveries": [], "accomplished": [], "currentState": "fine",
           "nextSteps": [], "relevantFiles": []})
    .to_string()
}

/// Turn 1 writes a file and runs a failing test under a constraint; turns 2 and 3 follow.
fn script() -> Vec<Reply> {
    vec![
        Reply::Answer(Answer::calls(&[(
            "w1",
            "write_file",
            json!({"path": "src/parser.rs", "content": "fn parse() {}\n"}),
        )])),
        Reply::Answer(Answer::calls(&[(
            "t1",
            "shell",
            json!({"command": "seq -f 'test %g ok' 1 300; echo 'error: test_line failed'; exit 3"}),
        )])),
        Reply::Answer(Answer::text("wrote the parser; the test fails")),
        Reply::Answer(Answer::text("noted")),
        Reply::Answer(Answer::text("ok")),
        // The bake-off's native arm: its summarizer forgets everything.
        Reply::Answer(Answer::text(&forgetful())),
    ]
}

fn arm<'a>(report: &'a Value, strategy: &str) -> &'a Value {
    report["arms"].as_array().unwrap().iter().find(|a| a["strategy"] == strategy).unwrap()
}

#[tokio::test]
async fn three_strategies_on_one_session_the_same_probes_checked_against_what_each_left() {
    let prices = json!({"test-model": {"input": 3, "output": 15, "since": "2020-01-01"}});
    let h =
        Harness::with_config(script(), json!({"plugins": [], "compaction": {"keepTurns": 1}, "prices": prices})).await;
    let first = h.run(&[], "Write the parser. Never change the public API of parse_config.").await;
    let id = first.assert_ok().session();
    h.run(&["--session", &id], "Report parse errors with line numbers").await.assert_ok();
    h.run(&["--session", &id], "thanks").await.assert_ok();
    let listed_before = h.alisio(&["sessions", "list", "--json"]).await.json();
    let messages_before = h.rows("SELECT count(*) FROM messages");
    let calls_before = h.server.bodies().len();

    let run = h.alisio(&["bench", "compaction", &id, "--strategies", "native,mask,prune", "--json"]).await;
    run.assert_ok();
    let report = run.json();
    let names: Vec<&str> = report["arms"].as_array().unwrap().iter().map(|a| a["strategy"].as_str().unwrap()).collect();
    assert_eq!(names, ["native", "mask", "prune"]);
    assert_eq!(h.server.bodies().len(), calls_before + 1, "only the native arm asked a model");

    // The same probes for every arm: the file written, the constraint, the failing test, the request.
    for name in ["native", "mask", "prune"] {
        let a = arm(&report, name);
        assert_eq!(a["points"], 1, "{a}");
        let kinds: Vec<(&str, &Value)> =
            a["probes"]["byKind"].as_object().unwrap().iter().map(|(k, v)| (k.as_str(), &v["total"])).collect();
        assert_eq!(
            kinds,
            vec![("error", &json!(1)), ("file", &json!(1)), ("instruction", &json!(1)), ("task", &json!(1))],
            "{name}: {a}"
        );
    }
    // The forgetful summary keeps only what Alisio's artifact trail put beside it (the file, the
    // failing command's last lines), not the constraint nor the request; masking and pruning leave
    // the messages that name all four (the failing command's call stays beside its placeholder).
    let native = &arm(&report, "native")["probes"]["byKind"];
    let kept: Vec<&Value> = ["file", "error", "instruction", "task"].iter().map(|k| &native[k]["kept"]).collect();
    assert_eq!(kept, vec![&json!(1), &json!(1), &json!(0), &json!(0)], "{report:#}");
    assert_eq!(
        (arm(&report, "mask")["probes"]["kept"].as_u64(), arm(&report, "prune")["probes"]["kept"].as_u64()),
        (Some(4), Some(4))
    );
    // Tokens: a summarizer only for native; the next request smallest after the summary.
    assert!(arm(&report, "native")["summarizerTokensIn"].as_u64().unwrap() > 0);
    assert_eq!(arm(&report, "mask")["summarizerTokensIn"], 0);
    // Each arm made the next request smaller than the one before (the 300-line output replaced,
    // masked or pruned).
    let next = |s: &str| arm(&report, s)["nextRequestTokens"].as_u64().unwrap();
    let before = h.alisio(&["sessions", "show", &id, "--view", "model", "--json"]).await.json()["estimatedTokens"]
        .as_u64()
        .unwrap();
    assert!(["native", "mask", "prune"].iter().all(|s| next(s) < before), "before {before}: {report:#}");
    // A prefix cache keeps more of a masked or pruned request than of a rebuilt one.
    let reprocessed = |s: &str| arm(&report, s)["reprocessedTokens"].as_u64().unwrap();
    assert!(reprocessed("mask") < next("mask") && reprocessed("prune") < next("prune"), "{report:#}");
    assert!(arm(&report, "native")["costUsd"].as_f64().unwrap() > 0.0);

    // The library is as it was: the forks were removed, the session only read.
    assert_eq!(h.alisio(&["sessions", "list", "--json"]).await.json(), listed_before);
    assert_eq!(h.rows("SELECT count(*) FROM messages"), messages_before);
    assert_eq!(h.rows("SELECT count(*) FROM sessions WHERE title LIKE 'Bake-off%'"), vec![vec![json!(0)]]);

    // Every second message: points between a call and its result move to the result.
    let every = h
        .alisio(&["bench", "compaction", &id, "--every", "2", "--strategies", "prune", "--json"])
        .await
        .assert_ok()
        .json();
    let prune = arm(&every, "prune");
    let tried = prune["points"].as_u64().unwrap() + prune["skipped"].as_array().unwrap().len() as u64;
    let stored = h.rows(&format!("SELECT count(*) FROM messages WHERE session_id = '{id}'"))[0][0].as_u64().unwrap();
    assert!(tried >= 3 && tried <= stored / 2, "{tried} points of {stored} messages: {every}");

    let text = h.alisio(&["bench", "compaction", &id, "--strategies", "mask"]).await;
    assert!(text.assert_ok().stdout.contains("mask"), "{}", text.stdout);
    let bad = h.alisio(&["bench", "compaction", &id, "--strategies", "magic"]).await;
    assert_eq!(bad.code, 2, "{}", bad.stderr);
    assert!(bad.stderr.contains("native, cache, mask, hybrid, prune, provider or agent"), "{}", bad.stderr);
}

#[tokio::test]
async fn an_imported_sessions_own_summary_is_an_arm() {
    let h = Harness::new(vec![]).await;
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/import/claude/-home-dev-work-claude-proj2/faaaa1c5-4d1d-4d48-89dc-36ff50d7fd83.jsonl");
    let imported = h.alisio(&["import", fixture.to_str().unwrap(), "--json"]).await.json();
    let id = imported["imported"][0]["id"].as_str().unwrap().to_string();
    let run = h.alisio(&["bench", "compaction", &id, "--strategies", "agent,mask", "--json"]).await;
    let report = run.assert_ok().json();
    let agent = arm(&report, "agent");
    assert_eq!(agent["points"], 1, "{report:#}");
    assert!(agent["probes"]["total"].as_u64().unwrap() > 0, "{agent}");
    assert_eq!(
        arm(&report, "mask")["points"].as_u64().unwrap()
            + arm(&report, "mask")["skipped"].as_array().unwrap().len() as u64,
        1
    );
}

#[tokio::test]
async fn a_judge_profile_vouches_for_what_the_exact_check_missed_and_only_for_what_is_not_a_fact() {
    let judge = super::support::ScriptedServer::start(vec![
        Reply::Answer(Answer::text("YES")),
        Reply::Answer(Answer::text("No.")),
    ])
    .await;
    let profiles = json!({"judge": {"baseUrl": judge.base_url, "model": "judge-model", "stream": false}});
    let h =
        Harness::with_config(script(), json!({"plugins": [], "compaction": {"keepTurns": 1}, "profiles": profiles}))
            .await;
    let first = h.run(&[], "Write the parser. Never change the public API of parse_config.").await;
    let id = first.assert_ok().session();
    h.run(&["--session", &id], "Report parse errors with line numbers").await.assert_ok();
    h.run(&["--session", &id], "thanks").await.assert_ok();
    let run = h.alisio(&["bench", "compaction", &id, "--strategies", "native", "--judge", "judge", "--json"]).await;
    let report = run.assert_ok().json();
    let native = arm(&report, "native");
    // The forgetful summary lost the constraint and the request; the judge was asked about those
    // two only (never about the file or the error, which are facts), said yes to the first.
    let asked = judge.bodies();
    assert_eq!(asked.len(), 2, "{asked:#?}");
    assert!(asked[0].to_string().contains("parse_config"), "{}", asked[0]);
    assert_eq!(asked[0]["model"], "judge-model");
    assert_eq!(
        (native["probes"]["kept"].as_u64(), native["probes"]["judged"].as_u64()),
        (Some(3), Some(1)),
        "{report:#}"
    );
    let bad = h.alisio(&["bench", "compaction", &id, "--judge", "nobody"]).await;
    assert_eq!(bad.code, 2, "{}", bad.stderr);
}
