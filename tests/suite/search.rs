//! `alisio search` and the session library's filters through the real binary: every stored message
//! of every session — own and imported, compacted ones and tool outputs included — searchable as
//! soon as it is written, best match first, with snippets; filters by source and project.

use pretty_assertions::assert_eq;
use serde_json::{json, Value};

use crate::suite::support::{Answer, Harness, Reply};

fn corpus() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/import")
}

async fn search(h: &Harness, args: &[&str]) -> Value {
    let mut all = vec!["search"];
    all.extend_from_slice(args);
    all.push("--json");
    let run = h.alisio(&all).await;
    run.assert_ok();
    run.json()
}

#[tokio::test]
async fn every_stored_message_is_found_at_once_with_its_session_and_a_snippet() {
    let h = Harness::new(vec![Reply::Answer(Answer::text("The zygomorphic parser is ready."))]).await;
    h.alisio(&["import", corpus().to_str().unwrap(), "--json"]).await.assert_ok();
    let run = h.run(&[], "Please build a zygomorphic parser").await;
    run.assert_ok();
    let own = run.session();

    // Written a moment ago: found without any rebuild, the user's and the model's message.
    let found = search(&h, &["zygomorphic"]).await;
    assert_eq!(found["total"], 2, "{found}");
    let hits = found["hits"].as_array().unwrap();
    assert!(hits.iter().all(|hit| hit["session"] == own.as_str() && hit["source"] == "alisio"));
    let roles: Vec<&str> = hits.iter().map(|hit| hit["role"].as_str().unwrap()).collect();
    assert!(roles.contains(&"user") && roles.contains(&"assistant"), "{roles:?}");
    assert!(hits[0]["snippet"].as_str().unwrap().contains("[zygomorphic]"), "{found}");

    // Imported tool outputs and messages a compaction hid are found too.
    let found = search(&h, &["\"hello from turn1\"", "--source", "codex"]).await;
    let hits = found["hits"].as_array().unwrap();
    assert!(!hits.is_empty(), "{found}");
    let session = hits[0]["session"].as_str().unwrap();
    let shown = h.alisio(&["sessions", "show", session, "--json"]).await.json();
    let compacted: Vec<i64> = shown["messages"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| m["compacted"] == true)
        .map(|m| m["seq"].as_i64().unwrap())
        .collect();
    assert!(
        hits.iter().any(|hit| compacted.contains(&hit["seq"].as_i64().unwrap())),
        "a compacted message matches: {found}"
    );
    let tools = search(&h, &["turn1", "--source", "claude-code"]).await;
    assert!(tools["hits"].as_array().unwrap().iter().any(|hit| hit["role"] == "tool"), "{tools}");

    // Filters and limits.
    let every = search(&h, &["turn1"]).await;
    let sources: std::collections::BTreeSet<&str> =
        every["hits"].as_array().unwrap().iter().map(|hit| hit["source"].as_str().unwrap()).collect();
    assert_eq!(sources.into_iter().collect::<Vec<_>>(), ["claude-code", "codex", "opencode"]);
    let one = search(&h, &["turn1", "--limit", "1"]).await;
    assert_eq!(one["hits"].as_array().unwrap().len(), 1);
    assert_eq!(one["total"], every["total"]);
    let project = every["hits"][0]["project"].as_str().unwrap().to_string();
    let narrowed = search(&h, &["turn1", "--project", &project]).await;
    assert!(narrowed["hits"].as_array().unwrap().iter().all(|hit| hit["project"] == project.as_str()));
    assert!(narrowed["total"].as_u64().unwrap() < every["total"].as_u64().unwrap());

    // With --fts, a query FTS5 cannot read is a usage error naming it; as plain text it is words.
    let bad = h.alisio(&["search", "AND OR", "--fts"]).await;
    assert_eq!(bad.code, 2, "{}", bad.stderr);
    assert!(bad.stderr.contains("is not valid"), "{}", bad.stderr);
    search(&h, &["AND OR"]).await;
}

/// What developers type, found as typed in an imported session: error codes, model names, symbols,
/// file names, paths, call ids, addresses, unbalanced quotes — each token literally, in any order.
#[tokio::test]
async fn plain_text_finds_ids_paths_file_names_symbols_and_model_names_as_typed() {
    let h = Harness::new(vec![]).await;
    let text = "ERR-42 came back from gpt-4o while foo::bar parsed notes.txt under src/parser.rs \
                (call_7f.Zq-9/x, ops@example.com, issue #1234); it said \"quoted fragment here";
    let dir = h.home.path().join("claude/projects/-tmp-search");
    std::fs::create_dir_all(&dir).unwrap();
    let record = json!({"parentUuid": null, "isSidechain": false, "type": "user", "uuid": "u1", "sessionId": "search-session",
        "cwd": "/tmp/search", "version": "2.1.0", "timestamp": "2026-11-30T10:00:00.000Z",
        "message": {"role": "user", "content": text}});
    let other = json!({"parentUuid": "u1", "isSidechain": false, "type": "user", "uuid": "u2", "sessionId": "search-session",
        "cwd": "/tmp/search", "version": "2.1.0", "timestamp": "2026-11-30T10:01:00.000Z",
        "message": {"role": "user", "content": "an unrelated line about gpt and 42 apart"}});
    let file = dir.join("search-session.jsonl");
    std::fs::write(&file, format!("{record}\n{other}\n")).unwrap();
    h.alisio(&["import", file.to_str().unwrap(), "--json"]).await.assert_ok();
    for query in [
        "ERR-42",
        "gpt-4o",
        "foo::bar",
        "notes.txt",
        "src/parser.rs",
        "call_7f.Zq-9/x",
        "ops@example.com",
        "#1234",
        "\"quoted",
        "fragment \"quoted",
        "parser.rs notes.txt",
    ] {
        let found = search(&h, &[query]).await;
        assert_eq!(found["total"], 1, "{query}: {found}");
        assert_eq!(found["hits"][0]["seq"], 1, "{query}: {found}");
    }
    // Tokens match literally: `gpt-4o` is not `gpt` and `4o` anywhere.
    assert_eq!(search(&h, &["gpt-42"]).await["total"], 0);
    // Only punctuation: nothing to look for, no error.
    assert_eq!(search(&h, &["::"]).await["total"], 0);
    // Filters: role, session, dates.
    let session = search(&h, &["ERR-42"]).await["hits"][0]["session"].as_str().unwrap().to_string();
    assert_eq!(search(&h, &["gpt", "--role", "user", "--session", &session]).await["total"], 2);
    assert_eq!(search(&h, &["gpt", "--role", "assistant"]).await["total"], 0);
    assert_eq!(search(&h, &["gpt", "--since", "2026-12-01"]).await["total"], 0);
    assert_eq!(search(&h, &["gpt", "--until", "2026-11-30"]).await["total"], 2);
    // As text, hits are grouped under their session with its count.
    let text = h.alisio(&["search", "gpt"]).await;
    text.assert_ok();
    assert!(
        text.stdout.starts_with(&format!("{session}  ")) && text.stdout.contains("; 2 matches)"),
        "{}",
        text.stdout
    );
    let bad = h.alisio(&["search", "gpt", "--role", "robot"]).await;
    assert_eq!(bad.code, 2, "{}", bad.stderr);
}

#[tokio::test]
async fn sessions_list_says_each_project_and_filters_by_project_and_source() {
    let h = Harness::new(vec![]).await;
    h.alisio(&["import", corpus().to_str().unwrap(), "--json"]).await.assert_ok();
    let all = h.alisio(&["sessions", "list", "--json"]).await.json();
    let all = all.as_array().unwrap();
    assert!(all.len() >= 3);
    assert!(all.iter().all(|s| s["project"] == s["workspace"] && s.get("costUsd").is_some()));
    let codex = h.alisio(&["sessions", "list", "--source", "codex", "--json"]).await.json();
    assert!(!codex.as_array().unwrap().is_empty());
    assert!(codex.as_array().unwrap().iter().all(|s| s["source"] == "codex"));
    let project = all[0]["project"].as_str().unwrap();
    let same = h.alisio(&["sessions", "list", "--project", project, "--json"]).await.json();
    let expected = all.iter().filter(|s| s["project"] == project).count();
    assert_eq!(same.as_array().unwrap().len(), expected);
    let none = h.alisio(&["sessions", "list", "--project", "/nowhere", "--json"]).await.json();
    assert_eq!(none, json!([]));
}
