//! The window's backend (`alisio-ipc`) without a window: commands as plain calls, events collected.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use alisio_ipc::{Backend, CompactRequest, UiEvent};
use serde_json::json;

use super::support::{Answer, Harness, Reply};

fn backend(h: &Harness) -> (Backend, Arc<Mutex<Vec<UiEvent>>>) {
    let events = Arc::new(Mutex::new(Vec::new()));
    let sink = events.clone();
    let backend = Backend::open(h.home.path(), None, Arc::new(move |e| sink.lock().unwrap().push(e))).unwrap();
    (backend, events)
}

async fn wait_for<T>(events: &Arc<Mutex<Vec<UiEvent>>>, pick: impl Fn(&UiEvent) -> Option<T>) -> T {
    for _ in 0..400 {
        if let Some(found) = events.lock().unwrap().iter().find_map(&pick) {
            return found;
        }
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
    panic!("event not seen: {:?}", events.lock().unwrap());
}

#[tokio::test]
async fn a_turn_from_the_window_asks_before_a_tool_and_streams_events() {
    let marker = tempfile::tempdir().unwrap();
    let approved = marker.path().join("approved.txt");
    let h = Harness::with_config(
        vec![
            Reply::Answer(Answer::calls(&[(
                "p1",
                "shell",
                json!({"command": format!("echo yes > {}", approved.display())}),
            )])),
            Reply::Answer(Answer::text("done")),
        ],
        json!({"permissions": {"shell": "ask"}, "plugins": []}),
    )
    .await;
    let (backend, events) = backend(&h);
    // A new session: its id is only known once the engine creates it.
    let session = backend.run_turn(None, "go".into()).await.unwrap();
    let (id, asked_for) = wait_for(&events, |e| match e {
        UiEvent::PermissionRequest { id, session, call, .. } => Some((*id, (session.clone(), call.id.clone()))),
        _ => None,
    })
    .await;
    assert_eq!(asked_for, (session.clone(), "p1".to_string()));
    backend.answer_permission(id, true).unwrap();
    let error = wait_for(&events, |e| match e {
        UiEvent::TurnFinished { error, .. } => Some(error.clone()),
        _ => None,
    })
    .await;
    assert_eq!(error, None);
    assert_eq!(std::fs::read_to_string(&approved).unwrap(), "yes\n", "the approved call ran");
    let deltas = events
        .lock()
        .unwrap()
        .iter()
        .filter(|e| matches!(e, UiEvent::Engine { envelope } if envelope.event == alisio_engine::events::Event::TextDelta { text: "do".into() }))
        .count();
    assert_eq!(deltas, 1, "streamed text reaches the window");
}

#[tokio::test]
async fn long_sessions_page_and_trimmed_outputs_diff() {
    let mut script = vec![
        Reply::Answer(Answer::calls(&[("big", "shell", json!({"command": "seq 1 40000"}))])),
        Reply::Answer(Answer::text("ok")),
    ];
    script.push(Reply::Answer(Answer::text("{\"goal\": \"g\"}")));
    let h = Harness::with_config(script, json!({"limits": {"maxContextChars": 20000}, "plugins": []})).await;
    let session = h.run(&[], "count").await.assert_ok().session();
    let (backend, _events) = backend(&h);

    let page = backend.stored_view(&session, Some(2)).unwrap();
    assert!(page.has_older);
    assert_eq!(page.messages.len(), 2);
    let older = backend.older_messages(&session, page.messages[0].anchor, page.messages[0].seq, 100).unwrap();
    let full = backend.stored_view(&session, None).unwrap();
    let paged: Vec<i64> = older.iter().chain(page.messages.iter()).map(|m| m.seq).collect();
    let all: Vec<i64> = full.messages.iter().map(|m| m.seq).collect();
    assert_eq!(paged, all, "pages join into the whole transcript in order");

    let copy = full.messages.iter().find(|m| m.truncated).expect("the 40,000-line output was trimmed");
    let diff = backend.trimmed_diff(&session, copy.seq).await.unwrap();
    assert_eq!(diff.original_chars, full.messages.iter().find(|m| m.seq == diff.original_seq).unwrap().chars);
    assert_eq!(diff.reduced_chars, 8000);
    assert!(diff.lines.iter().any(|l| l.text.contains("truncated by context budget")));

    let meter = backend.context_meter(&session).await.unwrap();
    assert_eq!(meter.strategy, "native");
    assert_eq!(meter.max_context_chars, 20000);

    // Compacting from the window: the answer is not the seven-section JSON, so it is kept as text.
    let outcome =
        backend.compact(CompactRequest { session: session.clone(), focus: None, preview: false }).await.unwrap();
    assert!(
        matches!(outcome, alisio_engine::compaction::CompactOutcome::Completed { partial: false, .. }),
        "{outcome:?}"
    );
    let view = backend.stored_view(&session, None).unwrap();
    assert_eq!(view.compactions.last().unwrap().record.checkpoint, json!({"text": "{\"goal\": \"g\"}"}));
}

/// A running turn's new messages reach the window without the history being fetched again.
#[tokio::test]
async fn new_messages_arrive_without_refetching_the_history() {
    let h = Harness::with_config(
        vec![Reply::Answer(Answer::text("first answer")), Reply::Answer(Answer::text("second answer"))],
        json!({"plugins": []}),
    )
    .await;
    let run = h.run(&[], "first").await;
    run.assert_ok();
    let session = run.session();
    let (backend, _) = backend(&h);
    let shown = backend.stored_view(&session, None).unwrap();
    let last = shown.messages.last().unwrap();
    let (anchor, seq) = (last.anchor, last.seq);
    h.run(&["--session", &session], "second").await.assert_ok();
    let fresh = backend.stored_view_since(&session, anchor, seq).unwrap();
    let contents: Vec<&str> = fresh.messages.iter().map(|m| m.content.as_str()).collect();
    assert_eq!(contents, ["second", "second answer"], "only what came after the last message shown");
    assert_eq!(fresh.model_calls.len(), 2, "the ledger comes whole");
}
