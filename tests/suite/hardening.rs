//! Defects found by a hostile test of the CLI, each reproduced against the scripted server: secrets
//! reaching tools, interleaved processes, runaway tool processes, duplicate call ids, oversized
//! requests, hanging and raced file tools.

use std::os::unix::process::CommandExt;

use serde_json::{json, Value};

use super::support::{Answer, Harness, Reply};

fn contains(haystack: &[u8], needle: &str) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle.as_bytes())
}

/// `shell` used to inherit the environment: `env` or `/proc/$PPID/environ` printed the key, which
/// was stored and sent to the server. Now tool processes never get it, and any echo of its value
/// (the parent's environ, the model's own text) is redacted before it is stored, shown or sent.
#[tokio::test]
async fn tool_processes_never_see_the_provider_key_and_its_value_is_redacted_everywhere() {
    let secret = "sk-alisio-test-SECRET-4242";
    let probe = "echo \"env:[$OPENAI_API_KEY] alias:[$TEAM_KEY]\"; tr '\\000' '\\n' < /proc/$PPID/environ | grep '^OPENAI_API_KEY='; true";
    // The key sits in the middle of the answer, so the scripted server streams it split in two.
    let answer = format!("I saw the key {secret} in the environment of the parent process, sorry.");
    let mut h = Harness::new(vec![
        Reply::Answer(Answer::calls(&[("probe", "shell", json!({"command": probe}))])),
        Reply::Answer(Answer::text(&answer)),
    ])
    .await;
    h.env.push(("OPENAI_API_KEY".into(), secret.into()));
    h.env.push(("TEAM_KEY".into(), secret.into()));
    let run = h.run(&[], &format!("check the environment (my key is {secret})")).await;
    run.assert_ok();
    let session = run.session();

    let result: String =
        h.db().query_row("SELECT content FROM messages WHERE role = 'tool'", [], |r| r.get(0)).unwrap();
    assert!(result.contains("env:[] alias:[]"), "the tool process got the key: {result}");
    assert!(result.contains("OPENAI_API_KEY=[redacted]"), "the parent's environ is redacted: {result}");
    let bodies = h.server.bodies();
    assert_eq!(bodies.len(), 2);
    for body in &bodies {
        assert!(!body.to_string().contains(secret), "sent to the server: {body}");
    }
    let shown = h.alisio(&["sessions", "show", &session, "--json"]).await;
    let texts: Vec<Value> = shown.json()["messages"].as_array().unwrap().iter().map(|m| m["content"].clone()).collect();
    assert!(texts.contains(&json!("I saw the key [redacted] in the environment of the parent process, sorry.")));
    for text in [&run.stdout, &run.stderr, &shown.stdout] {
        assert!(!text.contains(secret), "shown: {text}");
    }
    for path in super::support::files_under(h.home.path()) {
        assert!(!contains(&std::fs::read(&path).unwrap(), secret), "stored in {}", path.display());
    }
}

/// `read_file` on a FIFO used to block forever. Non-regular files are refused at once.
#[tokio::test]
async fn read_file_on_a_fifo_is_refused_instead_of_hanging() {
    let h = Harness::new(vec![
        Reply::Answer(Answer::calls(&[
            ("r", "read_file", json!({"path": "pipe"})),
            ("w", "write_file", json!({"path": "pipe", "content": "x"})),
        ])),
        Reply::Answer(Answer::text("done")),
    ])
    .await;
    nix::unistd::mkfifo(&h.ws().join("pipe"), nix::sys::stat::Mode::S_IRWXU).unwrap();
    let started = std::time::Instant::now();
    let run = h.run(&[], "read the pipe").await;
    run.assert_ok();
    assert!(started.elapsed() < std::time::Duration::from_secs(30));
    let results = h.rows("SELECT content FROM messages WHERE role = 'tool' ORDER BY seq");
    assert_eq!(results.len(), 2);
    for row in results {
        assert!(row[0].as_str().unwrap().contains("pipe is not a regular file"), "{row:?}");
    }
}

/// 1000 racing `write_file` calls used to write `outside/pwned.txt` when a workspace directory was
/// swapped for a symlink between the path check and the write. Writes now go through a handle on
/// the workspace that refuses the escape at the moment of access.
#[tokio::test]
async fn file_tools_cannot_be_raced_out_of_the_workspace() {
    let calls: Vec<(String, &str, Value)> =
        (0..400).map(|i| (format!("w{i}"), "write_file", json!({"path": "d/pwned.txt", "content": "x"}))).collect();
    let calls: Vec<(&str, &str, Value)> =
        calls.iter().map(|(id, name, args)| (id.as_str(), *name, args.clone())).collect();
    let h = Harness::new(vec![Reply::Answer(Answer::calls(&calls)), Reply::Answer(Answer::text("done"))]).await;
    let outside = tempfile::tempdir().unwrap();
    std::fs::create_dir(h.ws().join("d")).unwrap();
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let swapper = {
        let (ws, outside, stop) = (h.ws().to_path_buf(), outside.path().to_path_buf(), stop.clone());
        std::thread::spawn(move || {
            let (d, real, link) = (ws.join("d"), ws.join("d.real"), ws.join("d.link"));
            std::os::unix::fs::symlink(&outside, &link).unwrap();
            while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                let _ = std::fs::rename(&d, &real);
                let _ = std::fs::rename(&link, &d);
                std::thread::yield_now();
                let _ = std::fs::rename(&d, &link);
                let _ = std::fs::rename(&real, &d);
            }
        })
    };
    let run = h.run(&[], "write many times").await;
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    swapper.join().unwrap();
    run.assert_ok();
    assert!(!outside.path().join("pwned.txt").exists(), "a raced write escaped the workspace");
    let results = h.rows("SELECT content FROM messages WHERE role = 'tool'");
    assert_eq!(results.len(), 400, "every call answered");
}

/// Two `run`s on one session used to interleave their transcripts, views called a call running in
/// another live process uncertain, and `recover --acknowledge` stored "result unknown" beside the
/// real result. Now the driving process claims the session: others are refused naming it, and
/// views show its call as running.
#[tokio::test]
async fn one_process_drives_a_session_and_views_show_its_live_call_as_running() {
    let h = Harness::new(vec![
        Reply::Answer(Answer::calls(&[(
            "slow",
            "shell",
            json!({"command": "echo started > started.txt; sleep 4; echo finished"}),
        )])),
        Reply::Answer(Answer::text("first done")),
    ])
    .await;
    let mut first = h.command(&["run", "--json", "first"]).spawn().unwrap();
    let pid = first.id().unwrap();
    for _ in 0..200 {
        if h.ws().join("started.txt").exists() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    assert!(h.ws().join("started.txt").exists(), "the tool started");
    let session = h.rows("SELECT id FROM sessions")[0][0].as_str().unwrap().to_string();

    let holder = format!("being driven by process {pid} (alisio run)");
    for args in [
        vec!["run", "--json", "--session", session.as_str(), "second"],
        vec!["compact", session.as_str()],
        vec!["sessions", "recover", session.as_str(), "--acknowledge"],
    ] {
        let refused = h.alisio(&args).await;
        assert_eq!(refused.code, 1, "{args:?}: {}", refused.stderr);
        assert!(refused.stderr.contains(&holder), "{args:?}: {}", refused.stderr);
    }
    let list = h.alisio(&["sessions", "list", "--json"]).await.json();
    assert_eq!((list[0]["uncertainToolCalls"].clone(), list[0]["runningToolCalls"].clone()), (json!(0), json!(1)));
    let shown = h.alisio(&["sessions", "show", &session, "--json"]).await.json();
    assert_eq!(shown["toolCalls"][0]["state"], "running");
    assert_eq!(shown["messages"][1]["uncertain"], false);

    assert!(first.wait().await.unwrap().success());
    let transcript: Vec<Value> = h
        .rows("SELECT role, content, tool_call_id FROM messages ORDER BY seq")
        .into_iter()
        .map(|r| json!([r[0], r[2]]))
        .collect();
    assert_eq!(
        transcript,
        vec![json!(["user", null]), json!(["assistant", null]), json!(["tool", "slow"]), json!(["assistant", null])],
        "nothing interleaved, one result for the call"
    );
    assert_eq!(h.rows("SELECT state FROM tool_calls"), vec![vec![json!("finished")]]);
    assert_eq!(h.server.bodies().len(), 2, "the refused run sent nothing");
    let list = h.alisio(&["sessions", "list", "--json"]).await.json();
    assert_eq!((list[0]["uncertainToolCalls"].clone(), list[0]["runningToolCalls"].clone()), (json!(0), json!(0)));
}

/// Waits until `path` exists (the tool started).
async fn wait_for(path: &std::path::Path) {
    for _ in 0..400 {
        if path.exists() {
            return;
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    panic!("{} never appeared", path.display());
}

/// Whether a heartbeat file still grows (a tool process is alive and writing).
async fn still_beating(path: &std::path::Path) -> bool {
    let before = std::fs::metadata(path).map(|m| m.len()).unwrap_or(0);
    tokio::time::sleep(std::time::Duration::from_millis(800)).await;
    std::fs::metadata(path).map(|m| m.len()).unwrap_or(0) > before
}

const HEARTBEAT: &str = "while :; do echo beat >> beat.txt; sleep 0.1; done";

/// After SIGKILL of `alisio`, the tool's process group used to keep running (re-parented to init)
/// and could change files after the user acknowledged the call. A watchdog now kills it with its
/// runner; the call stays uncertain and is never re-run.
#[tokio::test]
async fn a_killed_run_takes_its_tool_processes_with_it() {
    let h = Harness::new(vec![Reply::Answer(Answer::calls(&[("beat", "shell", json!({"command": HEARTBEAT}))]))]).await;
    let mut run = h.command(&["run", "--json", "start the heartbeat"]).spawn().unwrap();
    wait_for(&h.ws().join("beat.txt")).await;
    assert!(still_beating(&h.ws().join("beat.txt")).await);
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(run.id().unwrap() as i32), nix::sys::signal::Signal::SIGKILL)
        .unwrap();
    run.wait().await.unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;
    assert!(!still_beating(&h.ws().join("beat.txt")).await, "the tool outlived its run");
    let pgid = h.rows("SELECT pgid FROM tool_calls")[0][0].clone();
    assert!(pgid.as_i64().is_some_and(|p| p > 1), "the journal records the process group: {pgid}");
    let session = h.rows("SELECT id FROM sessions")[0][0].as_str().unwrap().to_string();
    assert_eq!(h.run(&["--session", &session], "next").await.code, 3);
}

/// SIGTERM used to end `alisio` and leave the group running. Now the group is killed and the call
/// recorded as cancelled before the process exits, so nothing is left uncertain.
#[tokio::test]
async fn sigterm_kills_the_running_tool_and_records_it() {
    let h = Harness::new(vec![
        Reply::Answer(Answer::calls(&[("beat", "shell", json!({"command": HEARTBEAT}))])),
        Reply::Answer(Answer::text("after the restart")),
    ])
    .await;
    let mut run = h.command(&["run", "--json", "start the heartbeat"]).spawn().unwrap();
    wait_for(&h.ws().join("beat.txt")).await;
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(run.id().unwrap() as i32), nix::sys::signal::Signal::SIGTERM)
        .unwrap();
    let status = tokio::time::timeout(std::time::Duration::from_secs(10), run.wait()).await.unwrap().unwrap();
    assert!(!status.success());
    assert!(!still_beating(&h.ws().join("beat.txt")).await, "the tool outlived SIGTERM");
    assert_eq!(h.rows("SELECT state, ok FROM tool_calls"), vec![vec![json!("finished"), json!(0)]]);
    let result: String =
        h.db().query_row("SELECT content FROM messages WHERE role = 'tool'", [], |r| r.get(0)).unwrap();
    assert!(result.contains("cancelled"), "{result}");
    let session = h.rows("SELECT id FROM sessions")[0][0].as_str().unwrap().to_string();
    h.run(&["--session", &session], "go on").await.assert_ok();
}

/// A group that no watchdog could stop (one recorded in the journal and still alive) is killed
/// before recovery, and the report says so.
#[tokio::test]
async fn recovery_kills_a_leftover_group_first_and_says_so() {
    let h =
        Harness::new(vec![Reply::Answer(Answer::calls(&[("beat", "shell", json!({"command": "sleep 30"}))]))]).await;
    let mut run = h.command(&["run", "--json", "sleep"]).spawn().unwrap();
    wait_for(&h.db_path()).await;
    let recorded = || -> bool {
        let Ok(conn) = rusqlite::Connection::open_with_flags(h.db_path(), rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
        else {
            return false;
        };
        conn.query_row("SELECT count(*) FROM tool_calls WHERE pgid IS NOT NULL", [], |r| r.get::<_, i64>(0))
            .is_ok_and(|n| n == 1)
    };
    for _ in 0..400 {
        if recorded() {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(25)).await;
    }
    assert!(recorded(), "the call's process group was recorded");
    nix::sys::signal::kill(nix::unistd::Pid::from_raw(run.id().unwrap() as i32), nix::sys::signal::Signal::SIGKILL)
        .unwrap();
    run.wait().await.unwrap();
    // Stand in for a group that escaped its watchdog: a live group of our own, recorded as the call's.
    let mut leftover =
        std::process::Command::new("sh").args(["-c", HEARTBEAT]).current_dir(h.ws()).process_group(0).spawn().unwrap();
    let pgid = leftover.id() as i64;
    let stat = std::fs::read_to_string(format!("/proc/{pgid}/stat")).unwrap();
    let started: i64 = stat[stat.rfind(')').unwrap() + 1..].split_whitespace().nth(19).unwrap().parse().unwrap();
    h.db().execute("UPDATE tool_calls SET pgid = ?1, pgid_started = ?2", [pgid, started]).unwrap();
    wait_for(&h.ws().join("beat.txt")).await;

    let session = h.rows("SELECT id FROM sessions")[0][0].as_str().unwrap().to_string();
    let recovered = h.alisio(&["sessions", "recover", &session, "--acknowledge", "--json"]).await;
    recovered.assert_ok();
    assert_eq!(recovered.json()["killed"], json!([format!("shell beat (process group {pgid})")]));
    leftover.wait().unwrap();
    assert!(!still_beating(&h.ws().join("beat.txt")).await, "the leftover group was killed");
}

/// A server that answered two calls with one id corrupted the session for good: both ran, the
/// journal kept one row `requested`, and the next run appended a "not run" after the final
/// answer. Calls and journal rows are now paired by position; a repeated id is stored as `<id>~2`.
#[tokio::test]
async fn repeated_call_ids_keep_the_history_valid() {
    let h = Harness::new(vec![
        Reply::Answer(Answer::calls(&[
            ("dup", "shell", json!({"command": "echo one"})),
            ("dup", "shell", json!({"command": "echo two"})),
        ])),
        Reply::Answer(Answer::text("both done")),
        Reply::Answer(Answer::text("ok")),
    ])
    .await;
    let first = h.run(&[], "run both").await;
    first.assert_ok();
    let session = first.session();
    assert_eq!(
        h.rows("SELECT call_id, state FROM tool_calls ORDER BY id"),
        vec![vec![json!("dup"), json!("finished")], vec![json!("dup~2"), json!("finished")]]
    );
    h.run(&["--session", &session], "next").await.assert_ok();
    let sent = super::support::conversation(&h.server.bodies()[2]);
    let shape: Vec<Value> = sent.iter().map(|m| json!([m["role"], m["tool_call_id"], m["content"]])).collect();
    assert_eq!(
        sent[1]["tool_calls"].as_array().unwrap().iter().map(|c| c["id"].clone()).collect::<Vec<_>>(),
        [json!("dup"), json!("dup~2")]
    );
    assert_eq!(shape[2][1], "dup");
    assert!(shape[2][2].as_str().unwrap().starts_with("one"), "{shape:?}");
    assert_eq!(shape[3][1], "dup~2");
    assert!(shape[3][2].as_str().unwrap().starts_with("two"), "{shape:?}");
    assert_eq!(shape[4], json!(["assistant", null, "both done"]));
    assert_eq!(shape[5], json!(["user", null, "next"]));

    // A call left without a result (as the old pairing left one) is answered in its place, never
    // after a later turn.
    let calls: String = h.db().query_row("SELECT tool_calls FROM messages WHERE seq = 2", [], |r| r.get(0)).unwrap();
    let mut calls: Vec<Value> = serde_json::from_str(&calls).unwrap();
    calls.push(json!({"id": "lost", "name": "shell", "arguments": "{}"}));
    let db = h.db();
    db.execute("UPDATE messages SET tool_calls = ?1 WHERE seq = 2", [serde_json::to_string(&calls).unwrap()]).unwrap();
    db.execute(
        "INSERT INTO tool_calls (session_id, call_id, name, arguments, assistant_seq, state, requested_at)
         VALUES (?1, 'lost', 'shell', '{}', 2, 'requested', '2026-01-01T00:00:00Z')",
        [&session],
    )
    .unwrap();
    h.alisio(&["sessions", "recover", &session, "--acknowledge"]).await.assert_ok();
    let view = h.alisio(&["sessions", "show", &session, "--view", "model", "--json"]).await.json();
    let order: Vec<Value> =
        view["messages"].as_array().unwrap()[1..].iter().map(|m| json!([m["role"], m["tool_call_id"]])).collect();
    assert_eq!(
        order[..6],
        [
            json!(["user", null]),
            json!(["assistant", null]),
            json!(["tool", "dup"]),
            json!(["tool", "dup~2"]),
            json!(["tool", "lost"]),
            json!(["assistant", null]),
        ]
    );
}

/// Characters of instructions + transcript a chat request carried (what the hard limit counts).
fn conversation_chars(body: &Value) -> usize {
    body["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            let calls: usize = m["tool_calls"].as_array().map_or(0, |calls| {
                calls
                    .iter()
                    .map(|c| {
                        c["id"].as_str().unwrap().chars().count()
                            + c["function"]["arguments"].as_str().unwrap().chars().count()
                            + c["function"]["name"].as_str().unwrap().chars().count()
                    })
                    .sum()
            });
            m["content"].as_str().map_or(0, |t| t.chars().count()) + calls
        })
        .sum()
}

/// After applying a huge edited checkpoint, the next summarizer request carried 3.1 M chars
/// against `maxContextChars` 800,000. An edited checkpoint over the limit is refused at apply
/// time, and no request — the summarizer's included — is ever sent over the limit.
#[tokio::test]
async fn no_request_is_sent_over_the_hard_limit_and_huge_edited_checkpoints_are_refused() {
    let limit = 6000;
    let sections = json!({"goal": "g", "instructions": [], "discoveries": [], "accomplished": [], "currentState": "s",
                          "nextSteps": [], "relevantFiles": []});
    let h = Harness::with_config(
        vec![
            Reply::Answer(Answer::text(&"b".repeat(2000))),
            Reply::Answer(Answer::text("second")),
            Reply::Answer(Answer::text(&sections.to_string())),
            Reply::Answer(Answer::text("third")),
        ],
        json!({"provider": {"contextWindow": 100000}, "compaction": {"keepTurns": 1, "threshold": 0.99},
               "limits": {"maxContextChars": limit}}),
    )
    .await;
    let first = h.run(&[], &"a".repeat(2000)).await;
    first.assert_ok();
    let session = first.session();
    h.run(&["--session", &session], "second question").await.assert_ok();
    let preview = h.alisio(&["compact", &session, "--preview", "--json"]).await;
    assert_eq!(preview.code, 0, "{}\n{}", preview.stdout, preview.stderr);
    let proposal = preview
        .events()
        .iter()
        .find(|e| e["type"] == "compaction_proposed")
        .unwrap_or_else(|| panic!("no proposal: {}", preview.stdout))["proposal"]
        .clone();
    let huge = h.home.path().join("huge.txt");
    std::fs::write(&huge, "x".repeat(3 * limit as usize)).unwrap();
    let proposal = proposal.to_string();
    let refused = h.alisio(&["compact", &session, "--apply", &proposal, "--checkpoint", huge.to_str().unwrap()]).await;
    assert_eq!(refused.code, 1, "{}", refused.stderr);
    assert!(
        refused.stderr.contains("Context budget exceeded") && refused.stderr.contains("shorten it"),
        "{}",
        refused.stderr
    );
    assert_eq!(h.rows("SELECT status FROM compactions"), vec![vec![json!("proposed")]], "nothing applied");

    // The transcript is just under the limit (turn 3 sent without automatic compaction): the
    // summarizer's request (the request as last sent plus the summary request) would be over it,
    // so it is not sent.
    let chars =
        h.alisio(&["sessions", "show", &session, "--view", "model", "--json"]).await.json()["chars"].as_u64().unwrap();
    let big = "c".repeat((limit - 30 - chars - "third".len() as u64) as usize);
    let manual_only = h.home.path().join("manual.json");
    std::fs::write(&manual_only, json!({"compaction": {"auto": false}}).to_string()).unwrap();
    let third = h.run(&["--session", &session, "--config", manual_only.to_str().unwrap()], &big).await;
    third.assert_ok();
    let compact = h.alisio(&["compact", &session, "--json"]).await;
    assert_eq!(compact.code, 1, "{}", compact.stderr);
    let failed =
        compact.events().into_iter().find(|e| e["type"] == "compaction_failed").expect("the summary was refused");
    assert!(failed["error"].as_str().unwrap().contains("The compaction request was not sent"), "{failed}");
    assert_eq!(h.server.bodies().len(), 4, "turns 1–3 and the preview's summary; no oversized summary");
    for body in h.server.bodies() {
        assert!(
            conversation_chars(&body) <= limit as usize,
            "a request over the limit was sent: {}",
            conversation_chars(&body)
        );
    }
}

/// 10 MB of tool-call arguments used to end the turn with "no safe boundary". They are stored as
/// produced, and the request that carries them again is cut like any long text.
#[tokio::test]
async fn huge_tool_call_arguments_are_stored_and_reduced_like_long_text() {
    let content = "z".repeat(10 * 1024 * 1024);
    let h = Harness::new(vec![
        Reply::Answer(Answer::calls(&[("big", "write_file", json!({"path": "big.txt", "content": content}))])),
        Reply::Answer(Answer::text("written")),
    ])
    .await;
    let run = h.run(&[], "write a big file").await;
    run.assert_ok();
    assert_eq!(std::fs::metadata(h.ws().join("big.txt")).unwrap().len(), content.len() as u64);
    let stored: String = h.db().query_row("SELECT tool_calls FROM messages WHERE seq = 2", [], |r| r.get(0)).unwrap();
    assert!(stored.len() > content.len(), "the call is stored as produced");
    let second = &h.server.bodies()[1];
    assert!(conversation_chars(second) <= 800_000, "{}", conversation_chars(second));
    let arguments = second["messages"][2]["tool_calls"][0]["function"]["arguments"].as_str().unwrap();
    assert!(arguments.contains("truncated by context budget"), "{}", &arguments[arguments.len().saturating_sub(200)..]);
    assert!(run.event_types().contains(&"context_reduced".to_string()));
}

/// An HTTP 200 `text/html` page (a captive portal, a misconfigured proxy) was reported as "closed
/// the stream". The error now says what arrived; a JSON answer to a streamed request is read whole.
#[tokio::test]
async fn an_html_page_is_named_and_a_json_answer_to_a_stream_request_is_read() {
    let page = "<html><body>Sign in to the guest network</body></html>";
    let h = Harness::new(vec![
        Reply::Typed("text/html; charset=utf-8".into(), page.into()),
        Reply::Typed(
            "application/json".into(),
            json!({"choices": [{"index": 0, "message": {"role": "assistant", "content": "whole"}, "finish_reason": "stop"}]})
                .to_string(),
        ),
    ])
    .await;
    let failed = h.run(&[], "hello").await;
    assert_eq!(failed.code, 1);
    assert!(
        failed.stderr.contains("answered HTTP 200 with text/html; charset=utf-8 instead of an event stream")
            && failed.stderr.contains("Sign in to the guest network"),
        "{}",
        failed.stderr
    );
    let session = failed.session();
    let ok = h.run(&["--session", &session], "again").await;
    ok.assert_ok();
    assert!(ok.events().iter().any(|e| e["type"] == "turn_completed" && e["text"] == "whole"));
}

/// `sessions list` and `sessions show` used to open the database for writing, and so failed on a
/// read-only `$ALISIO_HOME`. They now open it without writing.
#[tokio::test]
async fn showing_commands_work_on_a_read_only_home() {
    let h = Harness::new(vec![Reply::Answer(Answer::text("hello"))]).await;
    let run = h.run(&[], "hi").await;
    run.assert_ok();
    let session = run.session();
    // A read-only bind mount of the home (root can write through permissions, not through this).
    let home = h.home.path().display().to_string();
    let bin = super::support::BIN;
    let script = format!(
        "touch '{home}.started'; mount --bind -o ro '{home}' '{home}' || exit 99; \
         touch '{home}/probe' 2>/dev/null && exit 99; \
         '{bin}' sessions list --json > '{home}.list' && '{bin}' sessions show {session} --json > '{home}.show' \
         && '{bin}' sessions show {session} --view model --json > /dev/null"
    );
    let output = std::process::Command::new("unshare")
        .args(["-m", "sh", "-c", &script])
        .env("ALISIO_HOME", h.home.path())
        .output()
        .unwrap();
    let started = std::path::Path::new(&format!("{home}.started")).exists();
    if !started || output.status.code() == Some(99) {
        // Where namespaces or mounts are not permitted, the check above cannot be made.
        eprintln!("skipped: no read-only bind mount here: {}", String::from_utf8_lossy(&output.stderr));
        return;
    }
    assert_eq!(output.status.code(), Some(0), "{}", String::from_utf8_lossy(&output.stderr));
    let list: Value = serde_json::from_str(&std::fs::read_to_string(format!("{home}.list")).unwrap()).unwrap();
    assert_eq!(list[0]["id"], json!(session));
    let shown: Value = serde_json::from_str(&std::fs::read_to_string(format!("{home}.show")).unwrap()).unwrap();
    assert_eq!(shown["messages"][1]["content"], "hello");
}

/// `list_dir` printed a name with a newline as two lines, so the model could not tell entries
/// apart. Such names are now written as JSON strings: one line, one entry.
#[tokio::test]
async fn list_dir_output_is_unambiguous_for_names_with_newlines() {
    let h = Harness::new(vec![
        Reply::Answer(Answer::calls(&[("ls", "list_dir", json!({"path": "."}))])),
        Reply::Answer(Answer::text("listed")),
    ])
    .await;
    std::fs::write(h.ws().join("evil\nREADME.md"), "").unwrap();
    std::fs::write(h.ws().join("README.md"), "").unwrap();
    h.run(&[], "list").await.assert_ok();
    let listing: String =
        h.db().query_row("SELECT content FROM messages WHERE role = 'tool'", [], |r| r.get(0)).unwrap();
    assert_eq!(listing.lines().collect::<Vec<_>>(), ["\"evil\\nREADME.md\"", "README.md"]);
}

/// `alisio … | head`: a reader that stops reading ends the command quietly, in text and JSON
/// alike — no panic, no "Broken pipe", exit 0.
#[tokio::test]
async fn a_closed_pipe_ends_the_cli_quietly() {
    use tokio::io::AsyncReadExt;
    let h = Harness::new(vec![]).await;
    let corpus = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/import");
    h.alisio(&["import", corpus.to_str().unwrap(), "--json"]).await.assert_ok();
    let sessions = h.alisio(&["sessions", "list", "--json"]).await.json();
    let biggest = sessions.as_array().unwrap().iter().max_by_key(|s| s["messages"].as_u64().unwrap_or(0)).unwrap();
    let id = biggest["id"].as_str().unwrap().to_string();
    for args in [vec!["sessions", "show", id.as_str()], vec!["sessions", "show", id.as_str(), "--json"]] {
        let mut child = h.command(&args).spawn().unwrap();
        let mut stdout = child.stdout.take().unwrap();
        let mut first = [0u8; 16];
        stdout.read_exact(&mut first).await.unwrap();
        drop(stdout);
        let done = child.wait_with_output().await.unwrap();
        let stderr = String::from_utf8_lossy(&done.stderr);
        assert_eq!(done.status.code(), Some(0), "{args:?}: {stderr}");
        assert!(!stderr.contains("panicked") && !stderr.contains("Broken pipe"), "{args:?}: {stderr}");
    }
}
