//! The importer under load and hostile timing: two importers on one source, long sessions, a stop
//! asked for mid-import, a file rewritten while it is read, copies of one source, bad and locked
//! OpenCode databases. Each case lost or corrupted data before the importer handled it.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use pretty_assertions::assert_eq;
use serde_json::json;

use super::*;

fn store_at(dir: &Path) -> Store {
    Store::open(&dir.join("sessions.db")).unwrap()
}

/// A Codex rollout of `turns` turns (5 lines each, after the session meta), session id `id`.
fn codex_rollout(id: &str, turns: usize, word: &str) -> String {
    let mut out = String::new();
    let mut line = |v: serde_json::Value| {
        out.push_str(&v.to_string());
        out.push('\n');
    };
    let at = "2026-11-30T17:48:49.883Z";
    line(json!({"timestamp": at, "type": "session_meta", "payload": {"id": id, "cwd": "/w", "model": "m"}}));
    for t in 0..turns {
        let call = format!("call_{t}");
        line(json!({"timestamp": at, "type": "response_item",
            "payload": {"type": "message", "role": "user", "content": [{"type": "input_text", "text": format!("{word} {t}")}]}}));
        line(json!({"timestamp": at, "type": "response_item",
            "payload": {"type": "function_call", "name": "shell", "arguments": "{}", "call_id": call}}));
        line(json!({"timestamp": at, "type": "response_item",
            "payload": {"type": "function_call_output", "call_id": call, "output": format!("out {t}")}}));
        line(json!({"timestamp": at, "type": "response_item",
            "payload": {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "ok"}]}}));
        line(json!({"timestamp": at, "type": "token_usage_record",
            "payload": {"response_id": format!("resp_{t}"), "usage": {"input_tokens": 10, "output_tokens": 1}}}));
    }
    out
}

/// A Claude Code session of `turns` turns, each ending with a `system` notice (not model input).
fn claude_session(id: &str, turns: usize) -> String {
    let mut out = String::new();
    let mut parent = serde_json::Value::Null;
    let mut n = 0;
    let mut line = |mut v: serde_json::Value| {
        n += 1;
        let uuid = format!("00000000-0000-4000-8000-{n:012}");
        v["uuid"] = json!(uuid);
        v["parentUuid"] = parent.clone();
        v["sessionId"] = json!(id);
        v["cwd"] = json!("/w");
        v["isSidechain"] = json!(false);
        v["timestamp"] = json!("2026-11-30T17:51:26.322Z");
        parent = json!(uuid);
        out.push_str(&v.to_string());
        out.push('\n');
    };
    for t in 0..turns {
        line(json!({"type": "user", "message": {"role": "user", "content": format!("task {t}")}}));
        line(
            json!({"type": "assistant", "message": {"id": format!("msg_{t}_a"), "role": "assistant", "model": "claude",
            "content": [{"type": "tool_use", "id": format!("tu_{t}"), "name": "Bash", "input": {"command": "ls"}}],
            "usage": {"input_tokens": 10, "cache_read_input_tokens": 0, "output_tokens": 1}}}),
        );
        line(json!({"type": "user", "message": {"role": "user",
            "content": [{"type": "tool_result", "tool_use_id": format!("tu_{t}"), "content": "a.txt"}]}}));
        line(
            json!({"type": "assistant", "message": {"id": format!("msg_{t}_b"), "role": "assistant", "model": "claude",
            "content": [{"type": "text", "text": "done"}],
            "usage": {"input_tokens": 10, "cache_read_input_tokens": 0, "output_tokens": 1}}}),
        );
        line(json!({"type": "system", "subtype": "turn_duration", "content": "", "level": "info"}));
    }
    out
}

/// A fresh home with one Codex rollout of 10,000 turns whose prompts start with `word`.
fn home_with_rollout(name: &str, word: &str) -> (tempfile::TempDir, PathBuf, Store) {
    let dir = tempfile::tempdir().unwrap();
    let rollout = dir.path().join(name);
    write(&rollout, &codex_rollout(name, 10_000, word));
    let store = store_at(dir.path());
    (dir, rollout, store)
}

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// A figure read from the store's file, as another process would.
fn count(store: &Store, sql: &str) -> i64 {
    rusqlite::Connection::open(store.path()).unwrap().query_row(sql, [], |r| r.get(0)).unwrap()
}

#[test]
fn two_importers_on_one_source_store_each_record_once() {
    let dir = tempfile::tempdir().unwrap();
    let rollout = dir.path().join("src/rollout-a.jsonl");
    // Three batches of lines: the importers interleave between them.
    write(&rollout, &codex_rollout("one", 10_000, "hello"));
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    drop(store_at(&home));
    let threads: Vec<_> = (0..2)
        .map(|_| {
            let (home, rollout) = (home.clone(), rollout.clone());
            std::thread::spawn(move || import(&store_at(&home), &[rollout]))
        })
        .collect();
    for thread in threads {
        let report = thread.join().unwrap();
        assert!(report.errors.is_empty(), "{report:?}");
    }
    let store = store_at(&home);
    assert_eq!(count(&store, "SELECT count(*) FROM sessions"), 1);
    // 4 messages and one ledger row per turn, each once.
    assert_eq!(count(&store, "SELECT count(*) FROM messages"), 40_000);
    assert_eq!(count(&store, "SELECT count(*) FROM model_calls"), 10_000);
}

#[test]
fn a_long_claude_code_session_stores_each_request_in_a_few_ranges() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("p/11111111-1111-4111-8111-111111111111.jsonl");
    write(&file, &claude_session("11111111-1111-4111-8111-111111111111", 1_500));
    let store = store_at(dir.path());
    let report = import(&store, std::slice::from_ref(&file));
    assert!(report.errors.is_empty(), "{report:?}");
    let calls = count(&store, "SELECT count(*) FROM model_calls");
    assert_eq!(calls, 3_000);
    // Each request is the whole view so far; the system notices between turns are bridged, so
    // storing every request costs the same per call however long the session is.
    let widest = count(&store, "SELECT max(json_array_length(message_ranges)) FROM model_calls");
    assert_eq!(widest, 1, "one range per request");
    let bytes = count(&store, "SELECT sum(length(message_ranges)) FROM model_calls");
    assert!(bytes < calls * 24, "{bytes} bytes of ranges for {calls} calls");
    // What the last request carried: every turn's messages, none of the notices.
    let session = store.resolve_session(&report.imported[0].id).unwrap();
    let (_, last) = crate::calls::call(&store, &session, calls as usize).unwrap();
    let messages = crate::calls::rebuild::messages(&store, &session.id, session.source, &last).unwrap();
    assert_eq!(messages.1.len(), 4 * 1_500 - 1, "{:?}", &messages.1[..3]);
}

#[test]
fn a_stop_asked_for_mid_import_keeps_what_was_committed_and_the_next_import_goes_on() {
    let (_dir, rollout, store) = home_with_rollout("rollout-b.jsonl", "hello");
    let cancel = tokio_util::sync::CancellationToken::new();
    let stop = |_: &Progress| cancel.cancel();
    let control = Control { cancel: Some(&cancel), progress: Some(&stop) };
    let result = import_with(&store, std::slice::from_ref(&rollout), &control);
    assert!(matches!(result, Err(Error::Cancelled)), "{result:?}");
    let kept = count(&store, "SELECT count(*) FROM messages");
    assert!(kept > 0 && kept < 40_000, "the first batch is kept, not the rest: {kept}");
    let report = import(&store, &[rollout]);
    assert_eq!(report.imported[0].messages, 40_000, "{report:?}");
    assert_eq!(count(&store, "SELECT count(*) FROM model_calls"), 10_000);
}

#[test]
fn a_file_rewritten_while_it_is_read_is_read_again_whole() {
    let (_dir, rollout, store) = home_with_rollout("rollout-c.jsonl", "old");
    let rewritten = AtomicBool::new(false);
    let rewrite = |_: &Progress| {
        if !rewritten.swap(true, Ordering::SeqCst) {
            // In place, same inode: what was read so far no longer is the file.
            let mut file = std::fs::OpenOptions::new().write(true).truncate(true).open(&rollout).unwrap();
            file.write_all(codex_rollout("rollout-c.jsonl", 10_000, "new").as_bytes()).unwrap();
        }
    };
    let control = Control { cancel: None, progress: Some(&rewrite) };
    let report = import_with(&store, std::slice::from_ref(&rollout), &control).unwrap();
    assert!(report.errors.is_empty(), "{report:?}");
    let id = &report.imported[0].id;
    let text = |word: &str| {
        count(&store, &format!("SELECT count(*) FROM messages WHERE session_id = '{id}' AND content LIKE '{word} %'"))
    };
    assert_eq!((text("old"), text("new")), (0, 10_000), "the session holds the new file alone");
    assert_eq!(report.imported[0].messages, 40_000);
}

#[test]
fn one_source_id_in_two_files_is_two_sessions_that_stay_put() {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("a/rollout-x.jsonl");
    let b = dir.path().join("b/rollout-x.jsonl");
    write(&a, &codex_rollout("same", 3, "first"));
    write(&b, &codex_rollout("same", 4, "second"));
    let store = store_at(dir.path());
    let roots = [dir.path().join("a"), dir.path().join("b")];
    let first = import(&store, &roots);
    let ids: Vec<_> = first.imported.iter().map(|s| (s.id.clone(), s.messages)).collect();
    assert_eq!(ids.len(), 2, "{first:?}");
    assert_ne!(ids[0].0, ids[1].0, "two files, two sessions");
    assert_eq!((ids[0].1, ids[1].1), (12, 16), "each holds its own file");
    for _ in 0..3 {
        let again = import(&store, &roots);
        let now: Vec<_> = again.imported.iter().map(|s| (s.id.clone(), s.messages)).collect();
        assert_eq!(now, ids);
        assert!(again.imported.iter().all(|s| s.added == 0), "nothing read again: {again:?}");
    }
    assert_eq!(count(&store, "SELECT count(*) FROM sessions"), 2, "no superseded copies");
}

fn opencode_copy(dir: &Path) -> PathBuf {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../tests/fixtures/import/opencode/opencode.db");
    let db = dir.join("opencode.db");
    let conn = rusqlite::Connection::open(&source).unwrap();
    conn.execute("VACUUM INTO ?1", [db.display().to_string()]).unwrap();
    db
}

#[test]
fn a_bad_opencode_row_is_skipped_and_counted_the_rest_imported() {
    let dir = tempfile::tempdir().unwrap();
    let db = opencode_copy(dir.path());
    let conn = rusqlite::Connection::open(&db).unwrap();
    let (bad, total): (String, i64) =
        conn.query_row("SELECT min(id), count(*) FROM message", [], |r| Ok((r.get(0)?, r.get(1)?))).unwrap();
    conn.execute("UPDATE message SET data = X'FF00FF' WHERE id = ?1", [&bad]).unwrap();
    conn.execute("UPDATE message SET time_created = 'soon' WHERE id = (SELECT max(id) FROM message)", []).unwrap();
    drop(conn);
    let store = store_at(dir.path());
    let report = import(&store, &[db]);
    assert!(report.errors.is_empty(), "{report:?}");
    let skipped: Vec<_> = report.imported.iter().flat_map(|s| s.skipped.iter()).collect();
    assert!(
        skipped.iter().any(|s| s.line == Position::Row(bad.clone()) && s.reason.contains("message data")),
        "{skipped:?}"
    );
    let messages: u64 = report.imported.iter().map(|s| s.messages).sum();
    assert!(messages as i64 >= total - 2, "{messages} of {total}");
}

#[test]
fn a_corrupt_database_is_named_as_such() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("opencode.db");
    let mut bytes = b"SQLite format 3\0".to_vec();
    bytes.extend(std::iter::repeat_n(0xA5u8, 8192));
    std::fs::write(&db, bytes).unwrap();
    let store = store_at(&made(dir.path().join("home")));
    let report = import(&store, std::slice::from_ref(&db));
    assert!(report.unknown.is_empty(), "not an unknown format: {report:?}");
    assert!(report.errors[0].error.contains("corrupt"), "{report:?}");
}

#[test]
fn an_opencode_database_locked_by_a_writer_is_left_for_later_never_read_uncommitted() {
    let dir = tempfile::tempdir().unwrap();
    let db = opencode_copy(dir.path());
    let writer = rusqlite::Connection::open(&db).unwrap();
    writer.pragma_update(None, "journal_mode", "DELETE").unwrap();
    writer.execute_batch("BEGIN EXCLUSIVE; DELETE FROM part; DELETE FROM message;").unwrap();
    let store = store_at(&made(dir.path().join("home")));
    let report = import(&store, std::slice::from_ref(&db));
    assert_eq!(count(&store, "SELECT count(*) FROM messages"), 0, "nothing read from a locked database");
    assert!(report.errors.iter().any(|e| e.error.contains("locked")), "{report:?}");
    writer.execute_batch("ROLLBACK").unwrap();
    let report = import(&store, &[db]);
    assert!(report.errors.is_empty(), "{report:?}");
    assert!(count(&store, "SELECT count(*) FROM messages") > 0, "read once the writer is done");
}

/// `path`, created.
fn made(path: PathBuf) -> PathBuf {
    std::fs::create_dir_all(&path).unwrap();
    path
}
