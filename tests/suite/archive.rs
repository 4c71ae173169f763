//! A team's archive on a real PostgreSQL server (support/postgres.rs): two homes push as two
//! machines; nothing secret reaches it; a second push sends nothing; the team's usage and search
//! read it; a push killed anywhere and resumed leaves it equal to the home; `--watch` follows.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use super::support::postgres::{Postgres, PASSWORD};
use super::support::{Answer, Harness, Reply};

pub(super) const SECRET: &str = "ghp_Zq8vQ2mN4xL7tR1yK9wB3cF6hJ0pD5sA2eUu";
pub(super) const PASSWORD_ENV: &str = "ALISIO_TEST_ARCHIVE_PASSWORD";

pub(super) fn archive_config(pg: &Postgres, machine: &str, user: &str) -> Value {
    json!({"plugins": [], "prices": {"test-model": {"input": 3, "output": 15, "since": "2020-01-01"}},
           "archives": {"team": {"url": pg.url(), "passwordEnv": PASSWORD_ENV, "machine": machine, "user": user}}})
}

pub(super) async fn home(pg: &Postgres, machine: &str, user: &str, script: Vec<Reply>) -> Harness {
    let mut h = Harness::with_config(script, archive_config(pg, machine, user)).await;
    h.env.push((PASSWORD_ENV.into(), PASSWORD.into()));
    h
}

/// A Claude Code session of `pairs` prompts and answers, written where Claude Code keeps them.
pub(super) fn claude_session(dir: &std::path::Path, pairs: usize) -> std::path::PathBuf {
    let folder = dir.join(".claude/projects/-tmp-proj");
    std::fs::create_dir_all(&folder).unwrap();
    let path = folder.join("5e55b1a0-0000-4000-8000-00000000b16a.jsonl");
    let mut out = String::new();
    let mut parent = Value::Null;
    for i in 0..pairs {
        let common = |uuid: &str, parent: &Value| {
            json!({"parentUuid": parent, "isSidechain": false, "uuid": uuid, "timestamp": format!("2026-11-0{}T10:{:02}:{:02}.000Z", 1 + i % 9, (i / 60) % 60, i % 60),
                   "cwd": "/tmp/proj", "sessionId": "5e55b1a0-0000-4000-8000-00000000b16a", "version": "2.1.332", "userType": "external"})
        };
        let mut user = common(&format!("00000000-0000-4000-8000-{:012}", 2 * i), &parent);
        user["type"] = json!("user");
        user["message"] =
            json!({"role": "user", "content": format!("step {i}: check parser case {i} and report ERR-{i}")});
        let mut answer = common(&format!("00000000-0000-4000-8000-{:012}", 2 * i + 1), &user["uuid"]);
        answer["type"] = json!("assistant");
        answer["message"] = json!({"id": format!("msg_{i:06}"), "type": "message", "role": "assistant", "model": "claude-sonnet-4-20250514",
                                   "content": [{"type": "text", "text": format!("case {i} passes; nothing to report")}], "stop_reason": "end_turn",
                                   "usage": {"input_tokens": 100, "output_tokens": 12}});
        parent = answer["uuid"].clone();
        out.push_str(&format!("{user}\n{answer}\n"));
    }
    std::fs::write(&path, out).unwrap();
    path
}

#[tokio::test]
async fn two_homes_push_as_two_machines_nothing_secret_leaves_and_the_team_reads_it() {
    let pg = Postgres::start();
    let script = vec![
        Reply::Answer(Answer::calls(&[("r1", "read_file", json!({"path": "notes.txt"}))])),
        Reply::Answer(Answer::text("The notes name ERR-42 and a token I will not repeat.")),
        Reply::Answer(Answer::text("Done.")),
    ];
    let ana = home(&pg, "laptop-ana", "ana", script).await;
    // Every rule of the secret catalog planted by its own example, beside the token.
    let catalog = alisio_engine::redact::catalog().unwrap();
    let planted: String = catalog.iter().map(|rule| format!("{}\n", rule.example)).collect();
    std::fs::write(ana.ws().join("notes.txt"), format!("ERR-42 in src/parser.rs\ntoken={SECRET}\n{planted}")).unwrap();
    let session = ana.run(&[], "what do notes.txt say?").await.assert_ok().session();

    let dry = ana.alisio(&["push", "--dry-run", "--json"]).await.assert_ok().json();
    assert_eq!((dry["sessions"].as_u64(), dry["dryRun"].as_bool()), (Some(1), Some(true)), "{dry}");
    assert!(dry["redactions"].as_u64().unwrap() >= 1, "the planted token is counted: {dry}");
    assert_eq!(pg.count("SELECT count(*) FROM messages"), 0, "a dry run sends nothing");

    let pushed = ana.alisio(&["push", "--json"]).await.assert_ok().json();
    let stored = ana.rows(&format!("SELECT count(*) FROM messages WHERE session_id = '{session}'"))[0][0].as_u64();
    assert_eq!((pushed["sessions"].as_u64(), pushed["messages"].as_u64()), (Some(1), stored), "{pushed}");
    assert_eq!((pushed["calls"].as_u64(), pushed["machine"].as_str()), (Some(2), Some("laptop-ana")));
    let again = ana.alisio(&["push", "--json"]).await.assert_ok().json();
    assert_eq!((again["sessions"].as_u64(), again["messages"].as_u64()), (Some(0), Some(0)), "idempotent: {again}");

    // Nothing of the token, nor of any secret of the catalog, anywhere in the archive.
    let escaped = |s: &str| s.replace('\'', "''").replace('\\', "\\\\").replace('%', "\\%").replace('_', "\\_");
    let mut secrets: Vec<String> = catalog.iter().map(|r| r.secret.clone()).collect();
    secrets.push(SECRET.to_string());
    // Each secret as the archive would hold it in text or in JSON (escapes aside), one query a table.
    let needles: Vec<String> = secrets
        .iter()
        .map(|s| {
            format!("'%{}%'", escaped(&s.chars().filter(|c| !"\n\r\"\\".contains(*c)).take(24).collect::<String>()))
        })
        .collect();
    for table in ["sessions", "messages", "calls", "compactions", "pins", "session_rows"] {
        let leaked = pg.sql(&format!(
            "SELECT needle FROM unnest(ARRAY[{}]) AS needle WHERE EXISTS (SELECT 1 FROM {table} t WHERE t::text LIKE needle)",
            needles.join(", ")
        ));
        assert!(leaked.is_empty(), "reached {table}: {leaked:?}");
    }
    assert!(
        pg.count("SELECT count(*) FROM messages WHERE content LIKE '%[REDACTED%' OR content LIKE '%redacted%'") >= 1
    );

    // A second machine: an imported Claude Code session.
    let ben = home(&pg, "desktop-ben", "ben", vec![]).await;
    let file = claude_session(ben.ws(), 40);
    ben.alisio(&["import", file.to_str().unwrap()]).await.assert_ok();
    ben.alisio(&["push", "--to", "team"]).await.assert_ok();
    assert_eq!(
        pg.sql("SELECT machine, user_name, agent, count(*) FROM sessions GROUP BY 1, 2, 3 ORDER BY 1"),
        ["desktop-ben|ben|claude-code|1", "laptop-ana|ana|alisio|1"]
    );

    // The team's usage: by user, each home's own figures; the dollars summed as integers.
    let team = ana.alisio(&["usage", "--archive", "team", "--by", "user", "--json"]).await.assert_ok().json();
    let rows: Vec<(String, u64)> = team["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["key"].as_str().unwrap().into(), r["calls"].as_u64().unwrap()))
        .collect();
    let ana_calls = ana.alisio(&["usage", "--json"]).await.json()["total"]["calls"].as_u64().unwrap();
    let ben_calls = ben.alisio(&["usage", "--json"]).await.json()["total"]["calls"].as_u64().unwrap();
    assert!(rows.contains(&("ana".into(), ana_calls)) && rows.contains(&("ben".into(), ben_calls)), "{team:#}");
    let ana_cost = ana.alisio(&["usage", "--json"]).await.json()["total"]["costUsd"].clone();
    let ana_row = team["rows"].as_array().unwrap().iter().find(|r| r["key"] == "ana").unwrap();
    assert_eq!(ana_row["costUsd"], ana_cost, "priced as the home prices it");
    let by_machine = ben.alisio(&["usage", "--archive", "team", "--by", "machine", "--json"]).await.json();
    assert_eq!(by_machine["rows"].as_array().unwrap().len(), 2);
    assert_eq!(ana.alisio(&["usage", "--by", "user"]).await.code, 2, "--by user needs --archive");

    // The team's search: tokens as typed, across machines, filtered by user.
    for query in ["ERR-42", "notes.txt", "src/parser.rs"] {
        let found = ben.alisio(&["search", query, "--archive", "team", "--json"]).await.assert_ok().json();
        assert!(found["hits"].as_array().unwrap().iter().any(|h| h["user"] == "ana"), "{query}: {found:#}");
    }
    let bens = ana.alisio(&["search", "ERR-7", "--archive", "team", "--user", "ben", "--json"]).await.json();
    assert!(
        bens["total"].as_u64().unwrap() >= 1
            && bens["hits"].as_array().unwrap().iter().all(|h| h["machine"] == "desktop-ben")
    );
    assert_eq!(ana.alisio(&["search", SECRET, "--archive", "team", "--json"]).await.json()["total"], 0);
}

#[tokio::test]
async fn a_push_killed_anywhere_and_resumed_leaves_the_archive_equal_to_the_home() {
    let pg = Postgres::start();
    let h = home(&pg, "kill-trials", "kim", vec![]).await;
    let file = claude_session(h.ws(), 2_600);
    h.alisio(&["import", file.to_str().unwrap()]).await.assert_ok();
    // Killed before anything was written, then each time the archive has reached another page.
    let total = 5_200;
    let mut partial = Vec::new();
    for target in [0u64, 1_000, 2_000, 4_000] {
        let mut child = h.command(&["push"]).spawn().unwrap();
        let started = Instant::now();
        loop {
            let held: u64 = pg.try_first("SELECT count(*) FROM messages").and_then(|n| n.parse().ok()).unwrap_or(0);
            let exited = child.try_wait().unwrap().is_some();
            if held >= target || exited || started.elapsed() > Duration::from_secs(30) {
                break;
            }
            tokio::time::sleep(Duration::from_millis(2)).await;
        }
        let _ = child.start_kill();
        let _ = child.wait().await;
        let held: u64 = pg.try_first("SELECT count(*) FROM messages").and_then(|n| n.parse().ok()).unwrap_or(0);
        eprintln!("killed once the archive held {target}: {held} of {total} messages held");
        partial.push(held);
    }
    assert!(partial.iter().any(|&n| n > 0 && n < total), "a push was killed midway: {partial:?}");
    h.alisio(&["push"]).await.assert_ok();
    let local: Vec<String> = h
        .rows("SELECT seq, content FROM messages ORDER BY seq")
        .iter()
        .map(|r| format!("{}|{}", r[0], r[1].as_str().unwrap()))
        .collect();
    let archived = pg.sql("SELECT seq, content FROM messages ORDER BY seq");
    assert_eq!(archived.len(), local.len());
    assert!(archived == local, "the archive holds the home's messages, each once");
    let calls = h.rows("SELECT count(*) FROM model_calls")[0][0].as_u64().unwrap();
    assert_eq!(pg.count("SELECT count(*) FROM calls"), calls);
    assert_eq!(h.alisio(&["push", "--json"]).await.json()["messages"], 0);
}

#[tokio::test]
async fn watch_sends_a_new_message_within_moments_and_bad_settings_are_refused() {
    let pg = Postgres::start();
    let h = home(&pg, "watcher", "wes", vec![Reply::Answer(Answer::text("One.")), Reply::Answer(Answer::text("Two."))])
        .await;
    let session = h.run(&[], "first").await.assert_ok().session();
    let mut watch = h.command(&["push", "--watch", "--json"]).spawn().unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while pg.try_first("SELECT count(*) FROM sessions").as_deref() != Some("1") {
        assert!(Instant::now() < deadline, "the first round reached the archive");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    h.run(&["--session", &session], "second").await.assert_ok();
    let written = Instant::now();
    let wanted = h.rows("SELECT count(*) FROM messages")[0][0].as_u64().unwrap();
    while pg.count("SELECT count(*) FROM messages") < wanted {
        assert!(written.elapsed() < Duration::from_secs(10), "the new turn reached the archive");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    eprintln!("a new turn reached the archive {} ms after it was written", written.elapsed().as_millis());
    let _ = watch.start_kill();
    let _ = watch.wait().await;

    // Refused with the reason: a password in the URL, a variable not set, an unknown archive.
    let mut config = archive_config(&pg, "m", "u");
    config["archives"]["team"]["url"] = json!(format!("postgres://alisio:{PASSWORD}@127.0.0.1:{}/postgres", pg.port));
    std::fs::write(h.home.path().join("bad.json"), config.to_string()).unwrap();
    let bad = h.alisio(&["--config", h.home.path().join("bad.json").to_str().unwrap(), "push"]).await;
    assert_eq!(bad.code, 2, "{}", bad.stderr);
    assert!(bad.stderr.contains("passwordEnv") && !bad.stderr.contains(PASSWORD), "{}", bad.stderr);
    let unknown = h.alisio(&["push", "--to", "elsewhere"]).await;
    assert!(unknown.code == 2 && unknown.stderr.contains("archives: team"), "{}", unknown.stderr);
    let mut no_password = Harness::with_config(vec![], archive_config(&pg, "m", "u")).await;
    no_password.env.retain(|(k, _)| k != PASSWORD_ENV);
    let refused = no_password.alisio(&["push"]).await;
    assert!(refused.code == 2 && refused.stderr.contains(PASSWORD_ENV), "{}", refused.stderr);
}
