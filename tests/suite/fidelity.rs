//! Checkpoint fidelity through the binary: a summarizer whose checkpoint forgets a written
//! file, a constraint, a failing test and the latest request; what the events, `sessions show`
//! and `compact --lint` report; an edited proposal that adds them back scores higher. (The
//! artifact trail is off here: it would put the written file back on its own.)

use pretty_assertions::assert_eq;
use serde_json::{json, Value};

use super::support::{Answer, Harness, Reply};

fn forgetful() -> String {
    json!({"goal": "tidy up", "instructions": [], "discoveries": [], "accomplished": [], "currentState": "fine",
           "nextSteps": [], "relevantFiles": []})
    .to_string()
}

/// Turn 1: a constraint, a written file and a failing test; turn 2: the latest request; turn 3.
fn script(summary: String) -> Vec<Reply> {
    vec![
        Reply::Answer(Answer::calls(&[(
            "w1",
            "write_file",
            json!({"path": "src/parser.rs", "content": "fn parse() {}\n"}),
        )])),
        Reply::Answer(Answer::calls(&[("t1", "shell", json!({"command": "exit 3"}))])),
        Reply::Answer(Answer::text("wrote the parser; the test fails")),
        Reply::Answer(Answer::text("noted")),
        Reply::Answer(Answer::text("ok")),
        Reply::Answer(Answer::text(&summary)),
    ]
}

async fn session(h: &Harness) -> String {
    let first = h.run(&[], "Write the parser. Never change the public API of parse_config.").await;
    first.assert_ok();
    let id = first.session();
    h.run(&["--session", &id], "Report parse errors with line numbers").await.assert_ok();
    h.run(&["--session", &id], "thanks").await.assert_ok();
    id
}

fn kinds(fidelity: &Value) -> Vec<(String, String, Value)> {
    fidelity["missing"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["kind"].as_str().unwrap().into(), m["value"].as_str().unwrap().into(), m["seqs"].clone()))
        .collect()
}

#[tokio::test]
async fn a_forgetful_checkpoint_is_reported_in_events_show_and_lint() {
    let h = Harness::with_config(
        script(forgetful()),
        json!({"plugins": [], "compaction": {"keepTurns": 1, "artifactTrail": false}}),
    )
    .await;
    let id = session(&h).await;
    let run = h.alisio(&["compact", &id, "--json"]).await;
    run.assert_ok();
    let completed = run.events().into_iter().find(|e| e["type"] == "compaction_completed").unwrap();
    let fidelity = &completed["fidelity"];
    assert_eq!(
        kinds(fidelity),
        vec![
            ("file".into(), "src/parser.rs".into(), json!([2])),
            ("instruction".into(), "Never change the public API of parse_config".into(), json!([1])),
            ("error".into(), "shell exit 3: [exit code 3]".into(), json!([4, 5])),
            ("task".into(), "Report parse errors with line numbers".into(), json!([7])),
        ]
    );
    assert_eq!((fidelity["checked"].as_u64(), fidelity["score"].as_f64()), (Some(4), Some(0.0)));
    assert!(fidelity["missing"][0]["why"].as_str().unwrap().starts_with("written 1 time in the replaced span"));

    let shown = h.alisio(&["sessions", "show", &id, "--json"]).await.json();
    assert_eq!(&shown["compactions"][0]["fidelity"], fidelity);
    let lint = h.alisio(&["compact", &id, "--lint", "--json"]).await;
    lint.assert_ok();
    let lint = lint.json();
    assert_eq!(
        (lint["compaction"].clone(), lint["score"].clone()),
        (shown["compactions"][0]["id"].clone(), json!(0.0))
    );
    assert_eq!(kinds(&lint), kinds(fidelity));
    assert_eq!(h.server.received().iter().filter(|r| r.is_model_call()).count(), 6, "lint asks no model");
    let human = h.alisio(&["compact", &id, "--lint"]).await;
    assert!(human.stdout.contains("fidelity 0.00") && human.stdout.contains("src/parser.rs"), "{}", human.stdout);
}

#[tokio::test]
async fn adding_the_missing_items_to_a_proposal_raises_its_score() {
    let h = Harness::with_config(
        script(forgetful()),
        json!({"plugins": [], "compaction": {"keepTurns": 1, "artifactTrail": false}}),
    )
    .await;
    let id = session(&h).await;
    let run = h.alisio(&["compact", &id, "--preview", "--json"]).await;
    run.assert_ok();
    let proposed = run.events().into_iter().find(|e| e["type"] == "compaction_proposed").unwrap();
    assert_eq!(proposed["fidelity"]["missing"].as_array().unwrap().len(), 4);
    let mut sections = proposed["checkpoint"]["sections"].clone();
    for missing in proposed["fidelity"]["missing"].as_array().unwrap().iter().take(3) {
        let section = missing["section"].as_str().unwrap();
        let value = missing["value"].clone();
        match &mut sections[section] {
            Value::Array(items) => items.push(value),
            slot => *slot = value,
        }
    }
    let edited = h.home.path().join("edited.json");
    std::fs::write(&edited, sections.to_string()).unwrap();
    let proposal = proposed["proposal"].as_i64().unwrap().to_string();
    let run =
        h.alisio(&["compact", &id, "--apply", &proposal, "--checkpoint", edited.to_str().unwrap(), "--json"]).await;
    run.assert_ok();
    let completed = &run.events()[0];
    assert_eq!(completed["fidelity"]["score"], json!(0.75));
    assert_eq!(kinds(&completed["fidelity"]).len(), 1, "only the latest request is still missing");
}

#[tokio::test]
async fn the_probe_asks_the_model_over_both_views_and_keeps_it_out_of_the_transcript() {
    let mut replies = script(forgetful());
    let full = json!({"goal": "write the parser", "files": ["src/parser.rs"], "openErrors": ["exit 3"], "nextStep": "report parse errors"});
    let compacted = json!({"goal": "tidy up", "files": [], "openErrors": [], "nextStep": "report parse errors"});
    replies.push(Reply::Answer(Answer::text(&full.to_string())));
    replies.push(Reply::Answer(Answer::text(&format!("```json\n{compacted}\n```"))));
    let h =
        Harness::with_config(replies, json!({"plugins": [], "compaction": {"keepTurns": 1, "artifactTrail": false}}))
            .await;
    let id = session(&h).await;
    h.alisio(&["compact", &id, "--json"]).await.assert_ok();
    let messages = h.rows("SELECT count(*) FROM messages");

    let run = h.alisio(&["compact", &id, "--probe", "--json"]).await;
    run.assert_ok();
    let report = run.json();
    assert_eq!(report["modelJudged"], true);
    let answers = report["answers"].as_array().unwrap();
    assert_eq!(answers.len(), 4);
    assert_eq!(
        (answers[0]["full"].as_str(), answers[0]["compacted"].as_str()),
        (Some("write the parser"), Some("tidy up"))
    );
    assert_eq!(answers[1]["full"], "src/parser.rs");
    assert_eq!((answers[3]["agreement"].as_f64(), answers[1]["agreement"].as_f64()), (Some(1.0), Some(0.0)));

    let bodies = h.server.bodies();
    let (over_full, over_compacted) = (&bodies[bodies.len() - 2], &bodies[bodies.len() - 1]);
    let text = |body: &Value| body["messages"].to_string();
    for body in [over_full, over_compacted] {
        assert_eq!(body["tool_choice"], "none");
        let last = body["messages"].as_array().unwrap().last().unwrap()["content"].as_str().unwrap().to_string();
        assert!(last.contains("\"openErrors\": Which errors or failing tests are still unresolved?"), "{last}");
    }
    assert!(text(over_full).contains("Never change the public API") && !text(over_full).contains("## Checkpoint"));
    assert!(
        text(over_compacted).contains("## Checkpoint") && !text(over_compacted).contains("Never change the public API")
    );
    assert_eq!(h.rows("SELECT count(*) FROM messages"), messages, "the probe is not part of the transcript");
    assert_eq!(
        h.rows("SELECT purpose FROM model_calls ORDER BY id DESC LIMIT 2"),
        vec![vec![json!("probe")], vec![json!("probe")]]
    );
}
