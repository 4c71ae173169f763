//! Kilo Code's CLI (OpenCode's database under its own name): read from its default location as
//! the `kilo` agent, followed while it writes, read again with nothing new.

use std::path::Path;

use super::support::Harness;

fn kilo_db(version: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/fixtures/compat/kilo")
        .join(version)
        .join(".local/share/kilo/kilo.db")
}

/// The rows of `session` in `table` (every column), to write back later.
fn take_rows(
    conn: &rusqlite::Connection,
    table: &str,
    column: &str,
    session: &str,
) -> Vec<Vec<rusqlite::types::Value>> {
    let mut stmt = conn.prepare(&format!("SELECT * FROM {table} WHERE {column} = ?1")).unwrap();
    let width = stmt.column_count();
    let rows = stmt
        .query_map([session], |r| (0..width).map(|i| r.get::<_, rusqlite::types::Value>(i)).collect())
        .unwrap()
        .collect::<rusqlite::Result<Vec<Vec<_>>>>()
        .unwrap();
    conn.execute(&format!("DELETE FROM {table} WHERE {column} = ?1"), [session]).unwrap();
    rows
}

fn put_rows(conn: &rusqlite::Connection, table: &str, rows: &[Vec<rusqlite::types::Value>]) {
    for row in rows {
        let marks = vec!["?"; row.len()].join(", ");
        conn.execute(&format!("INSERT INTO {table} VALUES ({marks})"), rusqlite::params_from_iter(row)).unwrap();
    }
}

#[tokio::test]
async fn kilo_is_read_from_its_default_location_followed_and_read_again_with_nothing_new() {
    let mut h = Harness::new(vec![]).await;
    let home = tempfile::tempdir().unwrap();
    let db = home.path().join(".local/share/kilo/kilo.db");
    std::fs::create_dir_all(db.parent().unwrap()).unwrap();
    std::fs::copy(kilo_db("7.7.9"), &db).unwrap();
    // One session is written later, as by a Kilo still running.
    let later = "ses_dc4fa14b7ffeDhDfCbe9F6pTHR";
    let conn = rusqlite::Connection::open(&db).unwrap();
    let parts = take_rows(&conn, "part", "session_id", later);
    let messages = take_rows(&conn, "message", "session_id", later);
    let session = take_rows(&conn, "session", "id", later);
    drop(conn);
    h.env.push(("HOME".into(), home.path().display().to_string()));
    h.env.push(("XDG_DATA_HOME".into(), String::new()));

    let mut watch = h.command(&["import", "--watch"]).spawn().unwrap();
    let sessions = || {
        let flags = rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY;
        let Ok(c) = rusqlite::Connection::open_with_flags(h.db_path(), flags) else { return (0, 0) };
        let n = |sql: &str| c.query_row(sql, [], |r| r.get::<_, i64>(0)).unwrap_or(0);
        (
            n("SELECT count(*) FROM sessions WHERE source = 'kilo'"),
            n("SELECT count(*) FROM messages m JOIN sessions s ON s.id = m.session_id WHERE s.source = 'kilo'"),
        )
    };
    let wait = |done: &dyn Fn((i64, i64)) -> bool, what: &str| {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while !done(sessions()) {
            assert!(std::time::Instant::now() < deadline, "the watched import never {what}: {:?}", sessions());
            std::thread::sleep(std::time::Duration::from_millis(200));
        }
    };
    wait(&|(n, _)| n == 1, "read Kilo's default location");
    let conn = rusqlite::Connection::open(&db).unwrap();
    put_rows(&conn, "session", &session);
    put_rows(&conn, "message", &messages);
    put_rows(&conn, "part", &parts);
    drop(conn);
    // As many messages as a one-shot import of the whole database holds.
    let whole = Harness::new(vec![]).await;
    let doc = whole.alisio(&["import", kilo_db("7.7.9").to_str().unwrap(), "--json"]).await.assert_ok().json();
    let expected: i64 = doc["imported"].as_array().unwrap().iter().map(|s| s["messages"].as_i64().unwrap()).sum();
    assert!(doc["imported"].as_array().unwrap().iter().all(|s| s["source"] == "kilo"), "{doc:#}");
    wait(&|(n, m)| n == 2 && m >= expected, "followed what Kilo wrote");
    watch.kill().await.unwrap();

    let again = h.alisio(&["import", "--json"]).await.assert_ok().json();
    let imported = again["imported"].as_array().unwrap();
    assert_eq!(imported.len(), 2, "{again:#}");
    assert!(imported.iter().all(|s| s["source"] == "kilo" && s["messages"].as_i64().is_some()), "{again:#}");
    assert_eq!(sessions(), (2, expected), "nothing imported twice");
    // The placeholder title gives way to the first prompt; the agent is named from the table.
    let listed = h.alisio(&["sessions", "list", "--source", "kilo", "--json"]).await.assert_ok().json();
    let titles: Vec<&str> = listed.as_array().unwrap().iter().map(|s| s["title"].as_str().unwrap()).collect();
    assert!(titles.iter().all(|t| !t.starts_with("New session - ")), "{titles:?}");
    let help = h.alisio(&["import", "--help"]).await.assert_ok().stdout.clone();
    assert!(help.contains("Kilo Code") && help.contains("kilo.db"), "{help}");
}
