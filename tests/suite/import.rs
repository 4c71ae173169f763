//! `alisio import` through the real binary: the document it prints, its exit codes, the
//! sessions it leaves (read-only to `run` and `compact`), default locations and `--watch`.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::suite::support::Harness;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/import")
}

const CODEX_A: &str = "codex/2026/11/30/rollout-2026-11-30T17-48-49-01a22d92-df3a-72a1-bd0b-7184d9a4858e.jsonl";

#[tokio::test]
async fn import_prints_one_document_and_sessions_carry_their_source() {
    let h = Harness::new(vec![]).await;
    let dir = fixtures();
    let run = h.alisio(&["import", dir.to_str().unwrap(), "--json"]).await;
    run.assert_ok();
    let doc = run.json();
    assert_eq!(doc["errors"], serde_json::json!([]));
    let imported = doc["imported"].as_array().unwrap();
    assert_eq!(imported.len(), 6);
    let codex = imported.iter().find(|s| s["sourceId"] == "01a22d92-df3a-72a1-bd0b-7184d9a4858e").unwrap();
    let keys: Vec<&str> = codex.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys, ["id", "source", "path", "sourceId", "title", "messages", "toolCalls", "compactions", "skipped"]);
    assert_eq!((codex["source"].as_str(), codex["toolCalls"].as_u64()), (Some("codex"), Some(5)));
    let id = codex["id"].as_str().unwrap();

    // The same sources again: the same ids, nothing added.
    let again = h.alisio(&["import", dir.to_str().unwrap(), "--json"]).await.json();
    let ids = |d: &Value| d["imported"].as_array().unwrap().iter().map(|s| s["id"].clone()).collect::<Vec<_>>();
    assert_eq!(ids(&again), ids(&doc));
    assert_eq!(h.rows("SELECT count(*) FROM sessions")[0][0], 6);

    let list = h.alisio(&["sessions", "list", "--json"]).await.json();
    let listed = list.as_array().unwrap().iter().find(|s| s["id"] == id).unwrap();
    assert_eq!(listed["source"], "codex");
    assert!(listed["sourcePath"].as_str().unwrap().ends_with(".jsonl"));
    let shown = h.alisio(&["sessions", "show", id, "--json"]).await.json();
    assert_eq!(shown["session"]["source"], "codex");
    assert_eq!(shown["compactions"][0]["reason"], "manual");
    let model = h.alisio(&["sessions", "show", id, "--view", "model", "--json"]).await.json();
    assert_eq!(model["reconstructed"], true);
    assert!(model["missing"]
        .as_array()
        .unwrap()
        .iter()
        .any(|m| m["part"] == "tools" && m["estimatedTokens"].as_u64() > Some(0)));
    let calls = h.alisio(&["calls", "list", id, "--json"]).await.json();
    assert_eq!(calls.as_array().unwrap().len(), 12);
    assert!(calls.as_array().unwrap().iter().all(|c| c["requestSource"] == "reconstructed" && c["exact"] == false));
    // A reconstructed request says so, invents no options and lists what its agent left out.
    let call = h.alisio(&["calls", "show", id, "2", "--json"]).await.json();
    assert_eq!((call["requestSource"].as_str(), call["exact"].as_bool()), (Some("reconstructed"), Some(false)));
    assert!(call["request"].get("max_tokens").is_none() && call["request"].get("stream").is_none());
    let parts: Vec<&str> = call["missing"].as_array().unwrap().iter().map(|m| m["part"].as_str().unwrap()).collect();
    assert_eq!(parts, ["system", "tools", "params"]);
    assert!(call["composition"]["user"]["chars"].as_u64() > Some(0));

    // Claude Code logged its requests: exact, from the agent's log.
    let claude = imported.iter().find(|s| s["sourceId"] == "46c4be69-b0e3-487e-97a4-c6832402089e").unwrap();
    let claude = claude["id"].as_str().unwrap();
    let call = h.alisio(&["calls", "show", claude, "11", "--json"]).await.json();
    assert_eq!((call["requestSource"].as_str(), call["exact"].as_bool()), (Some("agent-log"), Some(true)));
    assert_eq!(call["request"]["max_tokens"], 128000);
    assert_eq!(call["request"]["tools"].as_array().unwrap().len(), 12);
    let servers: Vec<&str> =
        call["composition"]["tools"].as_array().unwrap().iter().map(|t| t["server"].as_str().unwrap()).collect();
    assert_eq!(servers, ["agent"]);
}

#[tokio::test]
async fn imported_sessions_refuse_run_and_compact() {
    let h = Harness::new(vec![]).await;
    let path = fixtures().join(CODEX_A);
    let doc = h.alisio(&["import", path.to_str().unwrap(), "--json"]).await.json();
    let id = doc["imported"][0]["id"].as_str().unwrap().to_string();
    let before = h.rows("SELECT count(*) FROM messages");
    for args in [vec!["run", "--session", &id, "more"], vec!["compact", &id], vec!["compact", &id, "--undo"]] {
        let run = h.alisio(&args).await;
        assert_eq!(run.code, 2, "{args:?}: {}", run.stderr);
        assert!(run.stderr.contains("imported from codex") && run.stderr.contains("read-only"), "{}", run.stderr);
    }
    assert_eq!(h.rows("SELECT count(*) FROM messages"), before, "nothing was written");
    assert!(h.server.received().is_empty(), "no model was asked");
}

#[tokio::test]
async fn exit_codes_name_unknown_formats_and_unreadable_files() {
    let h = Harness::new(vec![]).await;
    let other = h.ws().join("notes");
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(other.join("a.txt"), "hello").unwrap();
    let run = h.alisio(&["import", other.to_str().unwrap()]).await;
    assert_eq!(run.code, 2, "{}", run.stderr);
    // The message names every agent and what it writes, from the agents' table.
    for agent in alisio_engine::import::agents::AGENTS {
        assert!(run.stderr.contains(agent.name) && run.stderr.contains(agent.files), "{}: {}", agent.name, run.stderr);
    }

    let missing = h.ws().join("missing.jsonl");
    let run = h.alisio(&["import", missing.to_str().unwrap(), "--json"]).await;
    assert_eq!(run.code, 1, "{}", run.stderr);
    assert_eq!(run.json()["errors"][0]["path"], missing.to_str().unwrap());
}

#[tokio::test]
async fn default_locations_are_read_when_no_path_is_given() {
    let mut h = Harness::new(vec![]).await;
    let home = tempfile::tempdir().unwrap();
    let codex_home = home.path().join("codex-home");
    let sessions = codex_home.join("sessions/2026/11/30");
    std::fs::create_dir_all(&sessions).unwrap();
    std::fs::copy(fixtures().join(CODEX_A), sessions.join(Path::new(CODEX_A).file_name().unwrap())).unwrap();
    let data = home.path().join("data/opencode");
    std::fs::create_dir_all(&data).unwrap();
    std::fs::copy(fixtures().join("opencode/opencode.db"), data.join("opencode.db")).unwrap();
    h.env.push(("HOME".into(), home.path().display().to_string()));
    h.env.push(("CODEX_HOME".into(), codex_home.display().to_string()));
    h.env.push(("XDG_DATA_HOME".into(), home.path().join("data").display().to_string()));
    let doc = h.alisio(&["import", "--json"]).await.json();
    let mut sources: Vec<&str> =
        doc["imported"].as_array().unwrap().iter().map(|s| s["source"].as_str().unwrap()).collect();
    sources.sort();
    assert_eq!(sources, ["codex", "opencode", "opencode"]);
}

#[tokio::test]
async fn watch_imports_what_a_running_session_appends() {
    let h = Harness::new(vec![]).await;
    let dir = h.ws().join("sessions");
    std::fs::create_dir_all(&dir).unwrap();
    let source = std::fs::read_to_string(fixtures().join(CODEX_A)).unwrap();
    let lines: Vec<&str> = source.lines().collect();
    let path = dir.join(Path::new(CODEX_A).file_name().unwrap());
    std::fs::write(&path, format!("{}\n", lines[..40].join("\n"))).unwrap();

    let mut watch = h.command(&["import", dir.to_str().unwrap(), "--watch"]).spawn().unwrap();
    // The database may exist before its tables do (the watcher is creating it): count 0 then.
    let count = || {
        if !h.db_path().exists() {
            return 0;
        }
        let flags = rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY;
        let Ok(conn) = rusqlite::Connection::open_with_flags(h.db_path(), flags) else { return 0 };
        conn.query_row("SELECT count(*) FROM messages", [], |r| r.get::<_, i64>(0)).unwrap_or(0)
    };
    let wait_for = |want: i64| {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if count() >= want {
                return;
            }
            assert!(Instant::now() < deadline, "the watched import never reached {want} messages");
            std::thread::sleep(Duration::from_millis(100));
        }
    };
    wait_for(1);
    let first = count();
    let mut file = std::fs::OpenOptions::new().append(true).open(&path).unwrap();
    writeln!(file, "{}", lines[40..].join("\n")).unwrap();
    file.flush().unwrap();
    wait_for(32);
    assert!(first < 32);
    assert_eq!(count(), 32, "nothing was imported twice");
    watch.kill().await.unwrap();
}

#[tokio::test]
async fn a_fifo_in_the_tree_is_skipped_and_one_named_is_refused_without_hanging() {
    let h = Harness::new(vec![]).await;
    let tree = h.home.path().join("tree");
    std::fs::create_dir_all(&tree).unwrap();
    let rollout =
        fixtures().join("codex/2026/11/30/rollout-2026-11-30T17-48-49-01a22d92-df3a-72a1-bd0b-7184d9a4858e.jsonl");
    std::fs::copy(&rollout, tree.join("rollout-2026-11-30T17-48-49-01a22d92-df3a-72a1-bd0b-7184d9a4858e.jsonl"))
        .unwrap();
    // Opened for reading, a FIFO with no writer blocks forever.
    let fifo = tree.join("a-fifo.jsonl");
    nix::unistd::mkfifo(&fifo, nix::sys::stat::Mode::S_IRUSR | nix::sys::stat::Mode::S_IWUSR).unwrap();

    let started = Instant::now();
    let run = h.alisio(&["import", tree.to_str().unwrap(), "--json"]).await;
    run.assert_ok();
    assert!(started.elapsed() < Duration::from_secs(30));
    let report = run.json();
    assert_eq!(report["imported"].as_array().unwrap().len(), 1, "{report}");
    assert_eq!(report["errors"], serde_json::json!([]), "a FIFO inside a tree is no session and no error");

    let named = h.alisio(&["import", fifo.to_str().unwrap(), "--json"]).await;
    assert_eq!(named.code, 1, "{} {}", named.stdout, named.stderr);
    assert!(named.stdout.contains("not a regular file"), "{}", named.stdout);
}

/// A Codex rollout of `turns` turns (4 messages and a ledger row each).
fn long_rollout(path: &Path, turns: usize) {
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    let at = "2026-11-30T17:48:49.883Z";
    let meta = serde_json::json!({"timestamp": at, "type": "session_meta", "payload": {"id": "long", "cwd": "/w"}});
    writeln!(out, "{meta}").unwrap();
    for t in 0..turns {
        for payload in [
            serde_json::json!({"type": "message", "role": "user", "content": [{"type": "input_text", "text": format!("turn {t}")}]}),
            serde_json::json!({"type": "function_call", "name": "shell", "arguments": "{}", "call_id": format!("c{t}")}),
            serde_json::json!({"type": "function_call_output", "call_id": format!("c{t}"), "output": "ok"}),
            serde_json::json!({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "done"}]}),
        ] {
            writeln!(out, "{}", serde_json::json!({"timestamp": at, "type": "response_item", "payload": payload}))
                .unwrap();
        }
        let usage = serde_json::json!({"timestamp": at, "type": "token_usage_record",
            "payload": {"response_id": format!("r{t}"), "usage": {"input_tokens": 1, "output_tokens": 1}}});
        writeln!(out, "{usage}").unwrap();
    }
}

#[tokio::test]
async fn ctrl_c_stops_an_import_between_batches_and_the_next_import_goes_on() {
    let h = Harness::new(vec![]).await;
    let path = h.ws().join("rollout-long.jsonl");
    long_rollout(&path, 30_000);
    let mut import = h.command(&["import", path.to_str().unwrap(), "--json"]).spawn().unwrap();
    let count = |sql: &str| {
        let flags = rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY;
        let Ok(conn) = rusqlite::Connection::open_with_flags(h.db_path(), flags) else { return 0 };
        conn.query_row(sql, [], |r| r.get::<_, i64>(0)).unwrap_or(0)
    };
    let deadline = Instant::now() + Duration::from_secs(60);
    while count("SELECT count(*) FROM messages") == 0 {
        assert!(Instant::now() < deadline, "the import never committed a batch");
        std::thread::sleep(Duration::from_millis(20));
    }
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(import.id().unwrap() as i32), nix::sys::signal::SIGINT).unwrap();
    let status = tokio::time::timeout(Duration::from_secs(30), import.wait()).await.expect("Ctrl-C stops it").unwrap();
    let kept = count("SELECT count(*) FROM messages");
    if status.code() == Some(130) {
        // Stopped between batches: what is stored is exactly the lines the stored cursor passed.
        assert!(kept < 120_000, "{kept}");
        let line = count("SELECT json_extract(source_cursor, '$.line') FROM sessions") - 1;
        let (turns, rest) = (line / 5, line % 5);
        assert_eq!(kept, 4 * turns + rest.min(4), "messages of the lines read");
        assert_eq!(count("SELECT count(*) FROM model_calls"), turns, "ledger rows of the lines read");
    } else {
        assert_eq!(status.code(), Some(0), "finished before the signal arrived");
    }
    let again = h.alisio(&["import", path.to_str().unwrap(), "--json"]).await;
    again.assert_ok();
    assert_eq!(count("SELECT count(*) FROM messages"), 120_000, "the rest, each record once");
    assert_eq!(count("SELECT count(*) FROM model_calls"), 30_000);
}

#[tokio::test]
async fn watch_follows_a_folder_made_after_it_started() {
    let h = Harness::new(vec![]).await;
    let root = h.ws().join("sessions");
    std::fs::create_dir_all(&root).unwrap();
    let mut watch = h.command(&["import", root.to_str().unwrap(), "--watch"]).spawn().unwrap();
    // The first round (nothing there) done, the watch is on.
    std::thread::sleep(Duration::from_millis(1500));
    let day = root.join("2026/11/30");
    std::fs::create_dir_all(&day).unwrap();
    std::fs::copy(fixtures().join(CODEX_A), day.join(Path::new(CODEX_A).file_name().unwrap())).unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let rows = if h.db_path().exists() { h.rows("SELECT count(*) FROM messages") } else { vec![] };
        if rows.first().and_then(|r| r[0].as_i64()) == Some(32) {
            break;
        }
        assert!(Instant::now() < deadline, "a session in a new folder was never imported: {rows:?}");
        std::thread::sleep(Duration::from_millis(100));
    }
    watch.kill().await.unwrap();
}
