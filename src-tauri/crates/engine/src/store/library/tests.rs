use std::path::Path;
use std::sync::Arc;

use super::*;
use crate::store::search::SearchFilter;

fn fixture(relative: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../tests/fixtures/import").join(relative)
}

/// Rows of `session` in every table that keeps rows per session, by table.
fn rows_of(store: &Store, session: &str) -> Vec<(String, i64)> {
    store
        .read(|conn| {
            let mut stmt = conn.prepare(
                "SELECT m.name FROM sqlite_master m, pragma_table_info(m.name) p
                 WHERE m.type = 'table' AND p.name = 'session_id' ORDER BY m.name",
            )?;
            let tables: Vec<String> = stmt.query_map([], |r| r.get(0))?.collect::<rusqlite::Result<_>>()?;
            let mut counts = Vec::new();
            for table in tables {
                let n: i64 = conn.query_row(
                    &format!("SELECT count(*) FROM \"{table}\" WHERE session_id = ?1"),
                    [session],
                    |r| r.get(0),
                )?;
                counts.push((table, n));
            }
            Ok(counts)
        })
        .unwrap()
}

async fn demo_and_import() -> (tempfile::TempDir, Arc<Store>, SessionId, SessionId) {
    let dir = tempfile::tempdir().unwrap();
    let store = Arc::new(Store::open(&dir.path().join("sessions.db")).unwrap());
    let demo = crate::demo::create_demo_session(store.clone(), &dir.path().join("demo")).await.unwrap();
    let demo = store.resolve_session(&demo).unwrap().id;
    let codex = "codex/2026/11/30/rollout-2026-11-30T17-48-49-01a22d92-df3a-72a1-bd0b-7184d9a4858e.jsonl";
    let report = crate::import::import(&store, &[fixture(codex)]);
    assert!(report.errors.is_empty(), "{report:?}");
    let imported = store.resolve_session(&report.imported[0].id).unwrap().id;
    (dir, store, demo, imported)
}

#[tokio::test]
async fn removing_a_session_takes_every_row_of_it_and_nothing_else() {
    let (_dir, store, demo, imported) = demo_and_import().await;
    let before = rows_of(&store, &demo);
    for table in ["messages", "model_calls", "compactions", "tool_calls", "events", "usage_daily"] {
        assert!(before.iter().any(|(t, n)| t == table && *n > 0), "the demo has {table} rows: {before:?}");
    }
    let imported_before = rows_of(&store, &imported);
    let word = SearchFilter { limit: 100, ..Default::default() };
    assert!(store.search("ParseError", &word).unwrap().hits.iter().any(|h| h.session == demo.as_str()));

    let removed = store.remove_session(&demo).unwrap();
    assert_eq!(removed.title, crate::demo::DEMO_TITLE);
    assert_eq!(removed.messages as i64, before.iter().find(|(t, _)| t == "messages").unwrap().1);

    assert!(rows_of(&store, &demo).iter().all(|(_, n)| *n == 0), "{:?}", rows_of(&store, &demo));
    assert_eq!(rows_of(&store, &imported), imported_before, "the other session is untouched");
    assert!(matches!(store.resolve_session(&demo), Err(Error::SessionNotFound(_))));
    assert!(store.search("ParseError", &word).unwrap().hits.iter().all(|h| h.session != demo.as_str()));
    let ids: Vec<SessionId> = store.list_sessions().unwrap().into_iter().map(|s| s.id).collect();
    assert_eq!(ids, vec![imported.clone()]);
}

#[tokio::test]
async fn an_imported_session_is_not_removed() {
    let (_dir, store, _demo, imported) = demo_and_import().await;
    let before = rows_of(&store, &imported);
    let err = store.remove_session(&imported).unwrap_err();
    assert!(matches!(&err, Error::Usage(m) if m.contains("imported from codex")), "{err}");
    assert_eq!(rows_of(&store, &imported), before);
}

#[tokio::test]
async fn a_title_given_in_alisio_is_kept_apart_from_the_agents() {
    let (_dir, store, _demo, imported) = demo_and_import().await;
    let agent = store.resolve_session(&imported).unwrap().title;
    store.rename_session(&imported, Some("  Parser line numbers ")).unwrap();

    let listed = store.list_sessions().unwrap().into_iter().find(|s| s.id == imported.as_str()).unwrap();
    assert_eq!((listed.title.as_str(), listed.agent_title.as_deref()), ("Parser line numbers", Some(agent.as_str())));
    assert_eq!(store.resolve_session(&imported).unwrap().title, "Parser line numbers");
    // A re-import that rewrites the agent's title leaves the given one shown.
    store.write(|tx| crate::store::sessions::set_title(tx, &imported, "Rewritten by the agent")).unwrap();
    let listed = store.list_sessions().unwrap().into_iter().find(|s| s.id == imported.as_str()).unwrap();
    assert_eq!(
        (listed.title.as_str(), listed.agent_title.as_deref()),
        ("Parser line numbers", Some("Rewritten by the agent"))
    );

    store.rename_session(&imported, Some("   ")).unwrap();
    let listed = store.list_sessions().unwrap().into_iter().find(|s| s.id == imported.as_str()).unwrap();
    assert_eq!((listed.title.as_str(), listed.agent_title), ("Rewritten by the agent", None));
    assert!(store.rename_session(&imported, Some(&"x".repeat(501))).is_err());
}

#[test]
fn library_facts_are_recorded_once_and_read_back() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("sessions.db")).unwrap();
    assert_eq!(store.library_fact(DEMO_MADE).unwrap(), None);
    store.record_library_fact(DEMO_MADE, "2026-12-03T10:00:00Z").unwrap();
    store.record_library_fact(DEMO_MADE, "2026-12-03T11:00:00Z").unwrap();
    assert_eq!(store.library_fact(DEMO_MADE).unwrap().as_deref(), Some("2026-12-03T11:00:00Z"));
}
