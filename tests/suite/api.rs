//! The application API without a window: commands as the window calls them (by name, JSON in and
//! out, through `dispatch`) and as the CLI calls them (typed functions), events collected.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use alisio_api::compaction::CompactRequest;
use alisio_api::views::{MessageRequest, PageRequest, SinceRequest, StoredRequest};
use alisio_api::{Access, App, AppOptions, Approvals, UiEvent};
use serde_json::json;

use super::support::{Answer, Harness, Reply};

/// The application as the window opens it, its events collected.
fn window_app(h: &Harness, profile: Option<&str>) -> (App, Arc<Mutex<Vec<UiEvent>>>) {
    let events = Arc::new(Mutex::new(Vec::new()));
    let sink = events.clone();
    let app = App::open(AppOptions {
        home: h.home.path().to_path_buf(),
        overlay: None,
        profile: profile.map(str::to_string),
        access: Access::WriteOrRead,
        approvals: Approvals::Ask,
        emit: Arc::new(move |e| sink.lock().unwrap().push(e)),
    })
    .unwrap();
    (app, events)
}

/// Invokes a command the way the window does: by name, with a JSON request.
async fn invoke(app: &App, command: &str, request: serde_json::Value) -> serde_json::Value {
    match alisio_api::dispatch(app, command, request).await {
        Some(Ok(answer)) => answer,
        Some(Err(err)) => panic!("{command} failed: {err:?}"),
        None => panic!("no command {command}"),
    }
}

fn stored(session: &str, limit: Option<u32>) -> StoredRequest {
    StoredRequest { session: session.to_string(), limit }
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
    let (app, events) = window_app(&h, None);
    // A new session: its id is only known once the engine creates it.
    let request = json!({"session": null, "prompt": "go", "workspace": h.ws()});
    let session = invoke(&app, "turns_start", request).await.as_str().unwrap().to_string();
    let (id, asked_for) = wait_for(&events, |e| match e {
        UiEvent::PermissionRequest { id, session, call, .. } => Some((*id, (session.clone(), call.id.clone()))),
        _ => None,
    })
    .await;
    assert_eq!(asked_for, (session.clone(), "p1".to_string()));
    invoke(&app, "turns_answer_permission", json!({"id": id, "approve": true})).await;
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
    let (app, _events) = window_app(&h, None);

    let page = alisio_api::views::stored(&app, stored(&session, Some(2))).await.unwrap();
    assert!(page.has_older);
    assert_eq!(page.messages.len(), 2);
    let (anchor, seq) = (page.messages[0].anchor, page.messages[0].seq);
    let older = alisio_api::views::older(&app, PageRequest { session: session.clone(), anchor, seq, limit: 100 })
        .await
        .unwrap();
    let full = alisio_api::views::stored(&app, stored(&session, None)).await.unwrap();
    let paged: Vec<i64> = older.iter().chain(page.messages.iter()).map(|m| m.seq).collect();
    let all: Vec<i64> = full.messages.iter().map(|m| m.seq).collect();
    assert_eq!(paged, all, "pages join into the whole transcript in order");

    let copy = full.messages.iter().find(|m| m.truncated).expect("the 40,000-line output was trimmed");
    let request = MessageRequest { session: session.clone(), seq: copy.seq };
    let diff = alisio_api::views::trimmed_diff(&app, request).await.unwrap();
    assert_eq!(diff.original_chars, full.messages.iter().find(|m| m.seq == diff.original_seq).unwrap().chars);
    assert_eq!(diff.reduced_chars, 8000);
    assert!(diff.lines.iter().any(|l| l.text.contains("truncated by context budget")));

    let meter = invoke(&app, "views_context_meter", json!({"session": session})).await;
    assert_eq!(meter["strategy"], "native");
    assert_eq!(meter["maxContextChars"], 20000);
    let meter =
        alisio_api::views::context_meter(&app, alisio_api::sessions::SessionRequest::new(&session)).await.unwrap();
    assert_eq!(meter.max_context_chars, 20000);

    // Compacting from the window: the answer is not the seven-section JSON, so it is kept as text.
    let outcome = alisio_api::compaction::compact(
        &app,
        CompactRequest { session: session.clone(), focus: None, preview: false, strategy: None },
    )
    .await
    .unwrap();
    assert!(
        matches!(outcome, alisio_engine::compaction::CompactOutcome::Completed { partial: false, .. }),
        "{outcome:?}"
    );
    let view = alisio_api::views::stored(&app, stored(&session, None)).await.unwrap();
    // The model's text, then the artifact trail (the lines before the budget's cut, not its marker).
    let text = view.compactions.last().unwrap().record.checkpoint["text"].as_str().unwrap().to_string();
    assert!(text.starts_with("{\"goal\": \"g\"}\n\nCommands run (recorded by Alisio):\n- `seq 1 40000` → "), "{text}");
    assert!(!text.contains("truncated by context budget"), "{text}");
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
    let (app, _) = window_app(&h, None);
    let shown = alisio_api::views::stored(&app, stored(&session, None)).await.unwrap();
    let last = shown.messages.last().unwrap();
    let (anchor, seq) = (last.anchor, last.seq);
    h.run(&["--session", &session], "second").await.assert_ok();
    let fresh = alisio_api::views::since(&app, SinceRequest { session: session.clone(), anchor, seq }).await.unwrap();
    let contents: Vec<&str> = fresh.messages.iter().map(|m| m.content.as_str()).collect();
    assert_eq!(contents, ["second", "second answer"], "only what came after the last message shown");
    assert_eq!(fresh.model_calls.len(), 2, "the ledger comes whole");
}

/// `--profile` reaches the window, and Settings → Test, the context meter and `alisio models` all
/// report the same window in force: the profile's `contextWindow` before the server's report.
#[tokio::test]
async fn the_window_honours_the_profile_and_test_meter_and_models_agree_on_the_window() {
    let h = Harness::with_config(vec![Reply::Answer(Answer::text("hi"))], json!({"plugins": []})).await;
    let url = h.server.base_url.clone();
    h.server.set_models(json!({"data": [{"id": "small", "context_length": 4096}]}));
    let config = json!({
        "provider": {"baseUrl": url, "model": "small", "maxRetries": 0, "timeoutMs": 10000},
        "profiles": {"roomy": {"baseUrl": url, "model": "small", "apiKeyEnv": null, "contextWindow": 32768}},
        "plugins": [],
    });
    std::fs::write(h.home.path().join("config.json"), config.to_string()).unwrap();
    let session = h.run(&[], "hello").await.assert_ok().session();

    // Without the flag the server's window is in force; with `--profile roomy` the profile's.
    let (plain, _) = window_app(&h, None);
    let meter = invoke(&plain, "views_context_meter", json!({"session": session})).await;
    assert_eq!((meter["windowTokens"].clone(), meter["windowSource"].clone()), (json!(4096), json!("models")));
    let (app, _) = window_app(&h, Some("roomy"));
    let meter = invoke(&app, "views_context_meter", json!({"session": session})).await;
    assert_eq!((meter["windowTokens"].clone(), meter["windowSource"].clone()), (json!(32768), json!("profile")));
    let settings = invoke(&app, "config_get", json!({})).await;
    assert_eq!(settings["profile"], "roomy");

    // Test connection on the profile (an unsaved document with it active) says the same.
    let raw = json!({"provider": config["provider"], "profiles": config["profiles"], "activeProfile": "roomy"});
    let tested = invoke(&app, "config_test_connection", json!({"raw": raw})).await;
    assert_eq!((tested["contextWindow"].clone(), tested["windowSource"].clone()), (json!(32768), json!("profile")));
    assert_eq!(tested["reportedContextWindow"], 4096, "the server's own report is shown beside it");
    let models = h.alisio(&["models", "--profile", "roomy", "--json"]).await;
    models.assert_ok();
    let doc = models.json();
    assert_eq!((doc["contextWindow"].clone(), doc["windowSource"].clone()), (json!(32768), json!("profile")));
}

/// Every hand-written TypeScript file under `dir` (the generated bindings, schema and api.ts aside).
fn ui_sources(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    for path in std::fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()) {
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if path.is_dir() {
            ui_sources(&path, out);
        } else if (name.ends_with(".ts") || name.ends_with(".tsx"))
            && !matches!(name.as_str(), "bindings.ts" | "configSchema.ts" | "api.ts")
        {
            out.push(path);
        }
    }
}

/// Every command the window's TypeScript invokes is a command of the application API, and the
/// dispatcher answers each name it lists (an unknown one is refused, not ignored).
#[tokio::test]
async fn every_window_command_is_an_api_function() {
    let ui = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../ui/src");
    let api_ts = std::fs::read_to_string(ui.join("api.ts")).unwrap();
    let mut invoked = Vec::new();
    for line in api_ts.lines().filter(|l| l.contains("invoke<")) {
        let name = line.split("invoke<").nth(1).and_then(|rest| rest.split('"').nth(1)).unwrap();
        invoked.push(name.to_string());
    }
    let mut commands: Vec<String> = alisio_api::COMMANDS.iter().map(|c| c.to_string()).collect();
    invoked.sort();
    commands.sort();
    assert_eq!(invoked, commands, "ui/src/api.ts and the registry list the same commands");
    // The views call `api.<name>(…)`: each name is one api.ts declares.
    let mut sources = Vec::new();
    ui_sources(&ui, &mut sources);
    assert!(sources.len() > 30, "{} UI sources", sources.len());
    for path in sources {
        let text = std::fs::read_to_string(&path).unwrap();
        for (at, _) in text.match_indices("api.") {
            let name: String = text[at + 4..].chars().take_while(|c| c.is_ascii_alphanumeric()).collect();
            if text[at + 4 + name.len()..].starts_with('(') {
                assert!(
                    api_ts.contains(&format!("  {name}: (request")),
                    "{} calls api.{name}, which is no command",
                    path.display()
                );
            }
        }
    }
    let h = Harness::new(vec![]).await;
    let (app, _) = window_app(&h, None);
    assert!(alisio_api::dispatch(&app, "no_such_command", json!({})).await.is_none());
    let refused = alisio_api::dispatch(&app, "views_stored", json!({"session": 5})).await.unwrap().unwrap_err();
    assert_eq!(refused.code, alisio_api::ErrorCode::Invalid, "{refused:?}");
}

/// An MCP server whose command is not installed here fails to start, is reported, and the turn
/// goes on — it is not a configuration error that stops every run.
#[tokio::test]
async fn a_missing_mcp_command_fails_that_server_only() {
    let h = Harness::with_config(
        vec![Reply::Answer(Answer::text("still here"))],
        json!({"plugins": [], "mcpServers": {"ghost": {"command": "alisio-no-such-mcp-server"}}}),
    )
    .await;
    let run = h.run(&[], "hello").await;
    run.assert_ok();
    let failed: Vec<_> = run.events().into_iter().filter(|e| e["type"] == "mcp_server_failed").collect();
    assert_eq!(failed.len(), 1, "{:?}", run.events());
    assert_eq!(failed[0]["server"], "ghost");
    let listed = h.alisio(&["mcp", "list", "--json"]).await;
    listed.assert_ok();
    let servers = listed.json();
    assert_eq!((servers[0]["name"].clone(), servers[0]["status"].clone()), (json!("ghost"), json!("failed")));
}

/// A command never loads the window's toolkit: `alisio` is linked without WebKitGTK or GTK (they
/// cost every command ≈ 110 ms before `main`), and the window is the separate `alisio-window`.
#[test]
fn the_cli_binary_links_no_window_toolkit() {
    let out = std::process::Command::new("ldd").arg(super::support::BIN).output().unwrap();
    assert!(out.status.success(), "ldd failed: {}", String::from_utf8_lossy(&out.stderr));
    let libraries = String::from_utf8_lossy(&out.stdout);
    for toolkit in ["webkit", "gtk", "javascriptcore", "soup"] {
        assert!(!libraries.contains(toolkit), "alisio links {toolkit}:\n{libraries}");
    }
    let window = std::path::Path::new(super::support::BIN).with_file_name("alisio-window");
    let out = std::process::Command::new("ldd").arg(&window).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("webkit2gtk"), "alisio-window is the window");
}

/// Without a subcommand `alisio` opens the window by running `alisio-window` from its own folder;
/// where that binary is missing it says so and how to build it, instead of failing obscurely.
#[test]
fn alisio_without_a_subcommand_names_a_missing_window_binary() {
    let dir = tempfile::tempdir().unwrap();
    let lone = dir.path().join("alisio");
    std::fs::copy(super::support::BIN, &lone).unwrap();
    // A process another test forks while the copy is open for writing holds it open: the kernel
    // then refuses to run the copy (ETXTBSY) until that child has exec'd. Wait that moment out.
    let out = (0..100)
        .find_map(|_| match std::process::Command::new(&lone).output() {
            Err(err) if err.kind() == std::io::ErrorKind::ExecutableFileBusy => {
                std::thread::sleep(std::time::Duration::from_millis(20));
                None
            }
            other => Some(other.unwrap()),
        })
        .expect("the copy stayed busy for 2 s");
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("alisio-window") && stderr.contains("is missing"), "{stderr}");
    assert!(stderr.contains("cargo build -p alisio"), "{stderr}");
}
