//! The library: a title of the user's kept apart from the agent's, removing a session of Alisio's
//! own with everything stored of it, and the demo only for a library empty at its first start.

use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use alisio_api::sessions::Nothing;
use alisio_api::{Access, App, AppOptions, Approvals, UiEvent};
use serde_json::Value;

use super::support::Harness;

const CODEX_A: &str = "codex/2026/11/30/rollout-2026-11-30T17-48-49-01a22d92-df3a-72a1-bd0b-7184d9a4858e.jsonl";

fn fixture(relative: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/import").join(relative).display().to_string()
}

/// The application as the window opens it (a fresh start each call).
fn window_start(h: &Harness) -> App {
    let app = App::open(AppOptions {
        home: h.home.path().to_path_buf(),
        overlay: None,
        profile: None,
        access: Access::WriteOrRead,
        approvals: Approvals::Ask,
        emit: Arc::new(|_| {}),
    })
    .unwrap();
    alisio_api::sessions::note_start(&app).unwrap();
    app
}

async fn listed(h: &Harness) -> Vec<Value> {
    h.alisio(&["sessions", "list", "--json"]).await.assert_ok().json().as_array().unwrap().clone()
}

#[tokio::test]
async fn the_demo_comes_to_an_empty_library_once_and_a_removed_one_stays_removed() {
    let h = Harness::new(vec![]).await;
    let app = window_start(&h);
    let demo =
        alisio_api::sessions::ensure_demo(&app, Nothing {}).await.unwrap().expect("an empty library gets the demo");
    // Asked again (the window reloaded): the same one demo.
    assert_eq!(alisio_api::sessions::ensure_demo(&app, Nothing {}).await.unwrap(), None);
    let sessions = listed(&h).await;
    assert_eq!(sessions.len(), 1);
    let (messages, calls) = (sessions[0]["liveMessages"].as_u64().unwrap(), sessions[0]["calls"].as_u64().unwrap());
    assert!(messages > 0 && calls > 0, "{sessions:?}");
    drop(app);

    let removed = h.alisio(&["sessions", "remove", &demo[..8], "--json"]).await;
    let removed = removed.assert_ok().json();
    assert_eq!(removed["session"], demo.as_str());
    assert!(removed["title"].as_str().unwrap().starts_with("Demo"), "{removed}");
    assert_eq!(removed["calls"], calls);
    assert!(listed(&h).await.is_empty());
    let left = h.rows("SELECT (SELECT count(*) FROM messages) + (SELECT count(*) FROM model_calls) + (SELECT count(*) FROM compactions) + (SELECT count(*) FROM tool_calls) + (SELECT count(*) FROM usage_daily)");
    assert_eq!(left[0][0], 0, "nothing of the demo is left");

    // The next start, the library empty again: the removed demo does not come back.
    let app = window_start(&h);
    assert_eq!(alisio_api::sessions::ensure_demo(&app, Nothing {}).await.unwrap(), None);
    assert!(listed(&h).await.is_empty());
}

#[tokio::test]
async fn a_library_that_holds_sessions_at_its_first_start_gets_no_demo() {
    let h = Harness::new(vec![]).await;
    h.alisio(&["import", &fixture(CODEX_A), "--json"]).await.assert_ok();
    let app = window_start(&h);
    assert_eq!(alisio_api::sessions::ensure_demo(&app, Nothing {}).await.unwrap(), None);
    let sessions = listed(&h).await;
    assert_eq!(sessions.len(), 1);
    assert_eq!(sessions[0]["source"], "codex");
}

#[tokio::test]
async fn a_title_of_the_users_is_kept_apart_and_an_imported_session_is_not_removed() {
    let h = Harness::new(vec![]).await;
    h.alisio(&["import", &fixture(CODEX_A), "--json"]).await.assert_ok();
    let before = listed(&h).await.remove(0);
    let (id, agent) = (before["id"].as_str().unwrap().to_string(), before["title"].as_str().unwrap().to_string());
    assert!(before.get("agentTitle").is_none(), "{before}");

    let renamed = h.alisio(&["sessions", "rename", &id, "Parser: line numbers in errors", "--json"]).await;
    assert_eq!(renamed.assert_ok().json()["title"], "Parser: line numbers in errors");
    let row = listed(&h).await.remove(0);
    assert_eq!(
        (row["title"].as_str(), row["agentTitle"].as_str()),
        (Some("Parser: line numbers in errors"), Some(agent.as_str()))
    );
    // Read again from its file (the agent's title rewritten on the way): the given title stays.
    h.alisio(&["import", &fixture(CODEX_A), "--json"]).await.assert_ok();
    assert_eq!(listed(&h).await[0]["title"], "Parser: line numbers in errors");
    let shown = h.alisio(&["sessions", "show", &id, "--json"]).await.assert_ok().json();
    assert_eq!(shown["session"]["title"], "Parser: line numbers in errors", "{}", shown["session"]);

    h.alisio(&["sessions", "rename", &id, "--json"]).await.assert_ok();
    let row = listed(&h).await.remove(0);
    assert_eq!((row["title"].as_str(), row.get("agentTitle")), (Some(agent.as_str()), None));

    let refused = h.alisio(&["sessions", "remove", &id]).await;
    assert_eq!(refused.code, 2, "{}", refused.stderr);
    assert!(refused.stderr.contains("imported from codex"), "{}", refused.stderr);
    assert_eq!(listed(&h).await.len(), 1, "nothing was removed");
}

#[tokio::test]
async fn the_window_hears_when_another_process_changes_the_library_and_not_its_own_writes() {
    let h = Harness::new(vec![]).await;
    let events = Arc::new(Mutex::new(Vec::new()));
    let sink = events.clone();
    let app = Arc::new(
        App::open(AppOptions {
            home: h.home.path().to_path_buf(),
            overlay: None,
            profile: None,
            access: Access::WriteOrRead,
            approvals: Approvals::Ask,
            emit: Arc::new(move |e| sink.lock().unwrap().push(e)),
        })
        .unwrap(),
    );
    let watcher = app.clone();
    tokio::spawn(async move { alisio_api::sessions::watch_library(&watcher, Duration::from_millis(50)).await });
    let changes = || events.lock().unwrap().iter().filter(|e| matches!(e, UiEvent::LibraryChanged {})).count();
    let settle = || tokio::time::sleep(Duration::from_millis(400));

    settle().await;
    assert_eq!(changes(), 0, "nothing changed yet");
    h.alisio(&["import", &fixture(CODEX_A), "--json"]).await.assert_ok();
    settle().await;
    // (Another process's import commits more than once: heard at least once.)
    let heard = changes();
    assert!(heard >= 1, "an import by another process is heard");
    // The window's own write: its list is refreshed by what made it, not by this.
    let id = listed(&h).await[0]["id"].as_str().unwrap().to_string();
    let request = alisio_api::sessions::RenameRequest { session: id.clone(), title: Some("Mine".into()) };
    alisio_api::sessions::rename(&app, request).await.unwrap();
    settle().await;
    assert_eq!(changes(), heard, "its own writes are not reported back");
    h.alisio(&["sessions", "rename", &id, "Theirs"]).await.assert_ok();
    settle().await;
    assert!(changes() > heard, "another process's rename is heard");
    app.interrupt();
}

#[tokio::test]
async fn the_windows_follower_waits_for_the_first_list_to_be_read() {
    let h = Harness::new(vec![]).await;
    let app = Arc::new(window_start(&h));
    let waiter = app.clone();
    let follower = tokio::spawn(async move { waiter.listed(Duration::from_secs(60)).await });
    tokio::time::sleep(Duration::from_millis(200)).await;
    assert!(!follower.is_finished(), "nothing read the list yet");
    alisio_api::sessions::list(&app, Default::default()).await.unwrap();
    tokio::time::timeout(Duration::from_secs(10), follower)
        .await
        .expect("the list was read: the follower goes")
        .unwrap();
    // Once read, later waits do not wait.
    tokio::time::timeout(Duration::from_secs(10), app.listed(Duration::from_secs(60))).await.unwrap();
}
