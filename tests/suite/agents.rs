//! Sessions of the next agents, imported from the files their real CLIs wrote against a scripted
//! server (tests/fixtures/agents/, each with its RUN.md), checked against the requests that server
//! received (`requests.jsonl`).

use std::path::{Path, PathBuf};

use pretty_assertions::assert_eq;
use serde_json::Value;

use super::support::Harness;

pub(super) fn fixtures(agent: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/fixtures/agents").join(agent)
}

fn requests(agent: &str) -> Vec<Value> {
    std::fs::read_to_string(fixtures(agent).join("requests.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// A chat request's text parts, joined (Qwen Code sends content as text parts).
fn text_of(message: &Value) -> String {
    match &message["content"] {
        Value::String(s) => s.clone(),
        Value::Array(parts) => parts.iter().filter_map(|p| p["text"].as_str()).collect::<Vec<_>>().join("\n"),
        _ => String::new(),
    }
}

#[tokio::test]
async fn qwen_code_chats_import_as_qwen_code_with_calls_tokens_and_their_compressions() {
    let h = Harness::new(vec![]).await;
    let home = fixtures("qwen").join("home/.qwen");
    let doc = h.alisio(&["import", home.to_str().unwrap(), "--json"]).await.assert_ok().json();
    assert_eq!(doc["errors"], serde_json::json!([]));
    let imported = doc["imported"].as_array().unwrap();
    // Uuid-named JSONL like Claude Code's, told apart by their records.
    assert_eq!(imported.len(), 2);
    assert!(imported.iter().all(|s| s["source"] == "qwen-code"), "{imported:#?}");
    assert!(imported.iter().all(|s| s["toolCalls"] == 7 && s["compactions"] == 1), "{imported:#?}");

    // Every request the server received is a row of the ledger, with the server's tokens.
    let received = requests("qwen");
    let mut calls = 0;
    for session in imported {
        let id = session["id"].as_str().unwrap();
        let list = h.alisio(&["calls", "list", id, "--json"]).await.assert_ok().json();
        let list = list.as_array().unwrap();
        calls += list.len();
        assert!(list
            .iter()
            .all(|c| c["promptTokens"].as_u64() > Some(0) && c["cachedTokens"].as_u64() <= c["promptTokens"].as_u64()));
        assert_eq!(list.iter().filter(|c| c["purpose"] == "compaction").count(), 1);
    }
    assert_eq!(calls, received.len(), "one ledger row per request the server received");

    // The manual /compress: its trigger and figures, and the view it left — the state snapshot,
    // the acknowledgement, then what followed — as the next request carried it.
    let manual = imported.iter().find(|s| s["title"].as_str().unwrap().contains("hello from turn1")).unwrap();
    let id = manual["id"].as_str().unwrap();
    let shown = h.alisio(&["sessions", "show", id, "--json"]).await.json();
    let compaction = &shown["compactions"][0];
    assert_eq!(
        (compaction["reason"].clone(), compaction["trigger"]["kind"].clone()),
        ("manual".into(), "manual".into())
    );
    assert_eq!(compaction["trigger"]["promptTokens"], 9511);
    let model = h.alisio(&["sessions", "show", id, "--view", "model", "--json"]).await.json();
    let view = model["messages"].as_array().unwrap();
    let after = received.iter().find(|r| r["n"] == 14).unwrap()["body"]["messages"].as_array().unwrap().clone();
    // (The request adds the CLI's <system-reminder> parts, which the file does not keep.)
    assert!(
        text_of(&after[1]).contains(&text_of(&view[0])),
        "the checkpoint is the state snapshot the request carried"
    );
    assert!(text_of(&view[0]).contains("<state_snapshot>"));
    assert_eq!((view[1]["role"].clone(), text_of(&view[1])), ("assistant".into(), text_of(&after[2])));
    // Tool calls under the ids the model gave, each with its output.
    let summarized = received.iter().find(|r| r["n"] == 13).unwrap()["body"]["messages"].as_array().unwrap().clone();
    let sent_ids: Vec<String> = summarized
        .iter()
        .flat_map(|m| m["tool_calls"].as_array().cloned().unwrap_or_default())
        .map(|c| c["id"].as_str().unwrap().to_string())
        .collect();
    let stored: Vec<String> = shown["messages"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["toolCalls"].as_array().cloned().unwrap_or_default())
        .map(|c| c["id"].as_str().unwrap().to_string())
        .collect();
    assert_eq!(stored[..sent_ids.len()], sent_ids[..]);
    let failed = shown["messages"].as_array().unwrap().iter().find(|m| m["toolCallId"] == "call_10-Zq.9/x").unwrap();
    assert!(failed["content"].as_str().unwrap().starts_with("error: File path must be absolute"));

    // The automatic one, mid-turn: its trigger says so.
    let auto = imported.iter().find(|s| s["id"] != manual["id"]).unwrap();
    let shown = h.alisio(&["sessions", "show", auto["id"].as_str().unwrap(), "--json"]).await.json();
    assert_eq!(shown["compactions"][0]["trigger"]["kind"], "threshold");

    // Imported again: the same sessions, nothing added.
    let messages = h.rows("SELECT count(*) FROM messages");
    let again = h.alisio(&["import", home.to_str().unwrap(), "--json"]).await.assert_ok().json();
    assert_eq!(
        again["imported"].as_array().unwrap().iter().map(|s| s["id"].clone()).collect::<Vec<_>>(),
        imported.iter().map(|s| s["id"].clone()).collect::<Vec<_>>()
    );
    assert_eq!(h.rows("SELECT count(*) FROM messages"), messages);
}

#[tokio::test]
async fn pi_sessions_import_with_calls_recorded_tokens_and_the_view_after_each_compaction() {
    let h = Harness::new(vec![]).await;
    let home = fixtures("pi").join("home");
    let doc = h.alisio(&["import", home.to_str().unwrap(), "--json"]).await.assert_ok().json();
    assert_eq!(doc["errors"], serde_json::json!([]));
    let imported = doc["imported"].as_array().unwrap();
    assert_eq!(imported.len(), 2);
    assert!(imported.iter().all(|s| s["source"] == "pi" && s["skipped"] == serde_json::json!([])), "{imported:#?}");
    let compactions: Vec<u64> = imported.iter().map(|s| s["compactions"].as_u64().unwrap()).collect();
    assert_eq!(compactions.iter().sum::<u64>(), 6, "1 manual + 5 automatic (RUN.md)");

    // One ledger row per model request the server received (pi does not record its summarizer
    // calls: those are the requests whose only message is the <conversation> to summarize).
    let received = requests("pi");
    let turns = received.iter().filter(|r| !text_of(&r["body"]["messages"][1]).starts_with("<conversation>")).count();
    let mut calls = Vec::new();
    for session in imported {
        let list = h.alisio(&["calls", "list", session["id"].as_str().unwrap(), "--json"]).await.assert_ok().json();
        calls.extend(list.as_array().unwrap().clone());
    }
    assert_eq!(calls.len(), turns);
    // pi's `input` leaves out the cache: the prompt is input + cache read + cache write.
    let first_with_cache = calls.iter().find(|c| c["cachedTokens"].as_u64() > Some(0)).unwrap();
    assert!(first_with_cache["promptTokens"].as_u64() > first_with_cache["cachedTokens"].as_u64());

    // After the manual compaction the view is what request 14 carried: the summary, then the
    // records from firstKeptEntryId on.
    let manual = imported.iter().find(|s| s["title"].as_str().unwrap().contains("hello from turn1")).unwrap();
    let id = manual["id"].as_str().unwrap();
    let model = h.alisio(&["sessions", "show", id, "--view", "model", "--json"]).await.json();
    let view = model["messages"].as_array().unwrap();
    let after = received[13]["body"]["messages"].as_array().unwrap();
    let prompt =
        after.iter().position(|m| text_of(m).starts_with("DO bash {\"command\":\"echo after compaction")).unwrap();
    let sent: Vec<(String, String)> =
        after[1..prompt].iter().map(|m| (m["role"].as_str().unwrap().to_string(), text_of(m))).collect();
    let shown: Vec<(String, String)> =
        view[..prompt - 1].iter().map(|m| (m["role"].as_str().unwrap().to_string(), text_of(m))).collect();
    assert_eq!(shown, sent);
    assert!(shown[0].1.starts_with("The conversation history before this point was compacted"));
    let shown = h.alisio(&["sessions", "show", id, "--json"]).await.json();
    assert_eq!(shown["compactions"][0]["kind"], "checkpoint");
}

/// The model view's messages after the system prompt the agent recorded (a request's own first
/// message is its system prompt too).
async fn model_view(h: &Harness, id: &str) -> Vec<Value> {
    let view = h.alisio(&["sessions", "show", id, "--view", "model", "--json"]).await.json();
    let messages = view["messages"].as_array().unwrap();
    let skip = usize::from(messages.first().is_some_and(|m| m["role"] == "system"));
    messages[skip..].to_vec()
}

/// The view of a model request as (role, text, call ids): what the comparisons below look at.
fn shape(messages: &[Value]) -> Vec<(String, String, Vec<String>)> {
    messages
        .iter()
        .map(|m| {
            let ids = m["tool_calls"]
                .as_array()
                .into_iter()
                .flatten()
                .map(|c| c["id"].as_str().unwrap().to_string())
                .collect();
            (m["role"].as_str().unwrap().to_string(), text_of(m), ids)
        })
        .collect()
}

#[tokio::test]
async fn copilot_cli_sessions_import_with_every_call_and_the_summary_message_it_sends() {
    let h = Harness::new(vec![]).await;
    let home = fixtures("copilot").join("home/.copilot");
    let doc = h.alisio(&["import", home.to_str().unwrap(), "--json"]).await.assert_ok().json();
    assert_eq!(doc["errors"], serde_json::json!([]));
    let imported = doc["imported"].as_array().unwrap();
    assert_eq!(imported.len(), 2, "the two events.jsonl; workspace.yaml, checkpoints and databases are not sessions");
    assert!(imported.iter().all(|s| s["source"] == "copilot-cli" && s["compactions"] == 1), "{imported:#?}");

    // Every request the server received — turns and both summarizer calls — is a ledger row.
    let received = requests("copilot");
    let mut rows = 0;
    for session in imported {
        let list = h.alisio(&["calls", "list", session["id"].as_str().unwrap(), "--json"]).await.assert_ok().json();
        rows += list.as_array().unwrap().len();
        assert_eq!(list.as_array().unwrap().iter().filter(|c| c["purpose"] == "compaction").count(), 1);
    }
    assert_eq!(rows, received.len());
    let request =
        |n: u64| received.iter().find(|r| r["n"] == n).unwrap()["body"]["messages"].as_array().unwrap().clone();

    // Manual /compact: the next request is the summary message (every prompt, then the summary)
    // and the new prompt as sent.
    let manual = imported.iter().find(|s| s["title"].as_str().unwrap().contains("hello from turn1")).unwrap();
    let view = model_view(&h, manual["id"].as_str().unwrap()).await;
    let sent = request(13);
    assert_eq!(shape(&view[..2]), shape(&sent[1..3]));
    let shown = h.alisio(&["sessions", "show", manual["id"].as_str().unwrap(), "--json"]).await.json();
    assert_eq!(shown["compactions"][0]["trigger"]["kind"], "manual");
    assert_eq!(shown["compactions"][0]["trigger"]["promptTokens"], 11010);
    // Its summarizer's request: the messages Copilot logged are the ones the server received
    // (request 12, key for key); its tools and params, not logged, are listed as missing.
    let list = h.alisio(&["calls", "list", manual["id"].as_str().unwrap(), "--json"]).await.json();
    let summarizer = list.as_array().unwrap().iter().find(|c| c["purpose"] == "compaction").unwrap();
    let n = summarizer["n"].to_string();
    let detail = h.alisio(&["calls", "show", manual["id"].as_str().unwrap(), &n, "--json"]).await.assert_ok().json();
    assert_eq!(detail["request"]["messages"], Value::Array(request(12)));
    assert_eq!((detail["requestSource"].clone(), detail["exact"].clone()), ("reconstructed".into(), false.into()));
    let missing: Vec<(&str, u64)> = detail["missing"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| (m["part"].as_str().unwrap(), m["estimatedTokens"].as_u64().unwrap()))
        .collect();
    assert_eq!(missing[0], ("tools", 5698), "the size Copilot recorded for its tool definitions");
    assert_eq!(missing[1].0, "params");

    // Automatic, in the background: the call and result made meanwhile stay after the summary.
    let auto = imported.iter().find(|s| s["id"] != manual["id"]).unwrap();
    let view = model_view(&h, auto["id"].as_str().unwrap()).await;
    let sent = request(26);
    assert_eq!(shape(&view[..3]), shape(&sent[1..4]));
    assert_eq!(view[1]["tool_calls"][0]["id"], "call_25-Zq.9/x");
}

/// A Gemini API content's text parts, joined.
fn gemini_text(content: &Value) -> String {
    content["parts"].as_array().into_iter().flatten().filter_map(|p| p["text"].as_str()).collect::<Vec<_>>().join("\n")
}

#[tokio::test]
async fn gemini_cli_chats_replay_their_change_log_into_sessions_compressions_and_calls() {
    let h = Harness::new(vec![]).await;
    let home = fixtures("gemini").join("home/.gemini");
    let doc = h.alisio(&["import", home.to_str().unwrap(), "--json"]).await.assert_ok().json();
    assert_eq!(doc["errors"], serde_json::json!([]));
    let imported = doc["imported"].as_array().unwrap();
    // Three files, two sessions: a restart's stub file holds no message.
    assert_eq!(imported.len(), 2, "{imported:#?}");
    assert!(imported.iter().all(|s| s["source"] == "gemini-cli"));
    let manual = imported.iter().find(|s| s["title"].as_str().unwrap().contains("hello from turn1")).unwrap();
    let auto = imported.iter().find(|s| s["id"] != manual["id"]).unwrap();
    assert_eq!(
        (manual["compactions"].clone(), auto["compactions"].clone()),
        (1.into(), 3.into()),
        "1 /compress, 3 automatic (RUN.md)"
    );

    // A ledger row per chat request; the summarizer's two calls per compression leave no tokens in
    // the file (their system instruction names them).
    let received = requests("gemini");
    let chat = received
        .iter()
        .filter(|r| !r["body"]["systemInstruction"].to_string().contains("specialized system component"))
        .count();
    let mut rows = 0;
    for session in imported {
        let list = h.alisio(&["calls", "list", session["id"].as_str().unwrap(), "--json"]).await.assert_ok().json();
        rows += list.as_array().unwrap().len();
    }
    assert_eq!(rows, chat);

    // After /compress the view is what request 14 sent: the session context and the snapshot
    // (sent as one content), "Got it", then the kept tail under the wire's call ids.
    let view = model_view(&h, manual["id"].as_str().unwrap()).await;
    let contents = received[13]["body"]["contents"].as_array().unwrap();
    let first = gemini_text(&contents[0]);
    assert!(first.contains(&text_of(&view[0])) && first.contains(&text_of(&view[1])), "{first}");
    assert!(text_of(&view[1]).starts_with("<state_snapshot>"));
    assert_eq!(text_of(&view[2]), gemini_text(&contents[1]));
    assert_eq!(view[4]["tool_calls"][0]["id"], contents[3]["parts"][0]["functionCall"]["id"]);
    assert_eq!(view[5]["tool_call_id"], contents[4]["parts"][0]["functionResponse"]["id"]);
}

/// Copies a directory tree (the fixtures' agent homes).
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap();
        }
    }
}

/// Every session file under `dir` with the given ending.
fn files_ending(dir: &Path, ending: &str) -> Vec<PathBuf> {
    super::support::files_under(dir).into_iter().filter(|p| p.to_string_lossy().ends_with(ending)).collect()
}

/// With no path, `import` reads every new agent's default location; `--watch` follows what their
/// sessions append, and a re-import adds nothing.
/// A Cline task and a Roo Code task written up to their tenth message, as by an extension still
/// running (each rewrites its files whole); returns each file with its whole text.
fn tasks_half_written(home: &Path) -> Vec<(PathBuf, String)> {
    let mut rewrites = Vec::new();
    for task in [
        home.join(".cline/data/tasks/1796227972969"),
        home.join(".vscode-mock/global-storage/tasks/5d77545f-7196-401c-907e-e41d0ca96701"),
    ] {
        let read = |name: &str| -> Vec<Value> {
            serde_json::from_str(&std::fs::read_to_string(task.join(name)).unwrap()).unwrap()
        };
        let (history, ui) = (read("api_conversation_history.json"), read("ui_messages.json"));
        let until = history[9]["ts"].as_i64().unwrap();
        let early: Vec<&Value> = ui.iter().filter(|u| u["ts"].as_i64().unwrap() <= until).collect();
        for (name, whole, part) in [
            ("api_conversation_history.json", Value::from(history.clone()), serde_json::json!(history[..10])),
            ("ui_messages.json", Value::from(ui.clone()), serde_json::json!(early)),
        ] {
            std::fs::write(task.join(name), part.to_string()).unwrap();
            rewrites.push((task.join(name), whole.to_string()));
        }
    }
    rewrites
}

/// Each JSONL session file written up to its middle, as by an agent still running; returns each
/// file with the lines still to come.
fn files_half_written(home: &Path) -> Vec<(PathBuf, String)> {
    let mut rest = Vec::new();
    for (dir, ending) in [(".qwen", ".jsonl"), (".pi", ".jsonl"), (".copilot", "events.jsonl"), (".gemini", ".jsonl")] {
        for file in files_ending(&home.join(dir), ending) {
            if file.ends_with("usage_record.jsonl") {
                continue;
            }
            let text = std::fs::read_to_string(&file).unwrap();
            let lines: Vec<&str> = text.lines().collect();
            let half = lines.len() / 2;
            std::fs::write(&file, format!("{}\n", lines[..half].join("\n"))).unwrap();
            rest.push((file, lines[half..].join("\n")));
        }
    }
    rest
}

#[tokio::test]
async fn every_new_agent_is_read_from_its_default_location_and_followed_as_it_writes() {
    let mut h = Harness::new(vec![]).await;
    let home = tempfile::tempdir().unwrap();
    for (agent, dot) in
        [("qwen", ".qwen"), ("pi", ".pi"), ("copilot", ".copilot"), ("gemini", ".gemini"), ("cline", ".cline")]
    {
        copy_tree(&fixtures(agent).join("home").join(dot), &home.path().join(dot));
    }
    // Cline's task folders beside its 3.x sessions; Roo Code's CLI storage.
    for sub in ["tasks", "state"] {
        copy_tree(
            &fixtures("cline-tasks").join("home/.cline/data").join(sub),
            &home.path().join(".cline/data").join(sub),
        );
    }
    copy_tree(&fixtures("roo").join("home/.vscode-mock"), &home.path().join(".vscode-mock"));
    // Tasks written up to their tenth message and session files up to their middle, as by agents
    // still running: what each will write next.
    let rewrites = tasks_half_written(home.path());
    let rest = files_half_written(home.path());
    h.env.push(("HOME".into(), home.path().display().to_string()));
    for name in [
        "QWEN_HOME",
        "PI_CODING_AGENT_DIR",
        "PI_CODING_AGENT_SESSION_DIR",
        "COPILOT_HOME",
        "GEMINI_CLI_HOME",
        "CODEX_HOME",
        "XDG_DATA_HOME",
        "XDG_CONFIG_HOME",
        "CLINE_DIR",
    ] {
        h.env.push((name.into(), String::new()));
    }
    let mut watch = h.command(&["import", "--watch"]).spawn().unwrap();
    let count = || {
        let flags = rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY;
        let Ok(conn) = rusqlite::Connection::open_with_flags(h.db_path(), flags) else { return (0, 0) };
        let n = |sql: &str| conn.query_row(sql, [], |r| r.get::<_, i64>(0)).unwrap_or(0);
        // Messages of the sessions as last read (a rewritten task's earlier reading is superseded).
        let live =
            "SELECT count(*) FROM messages WHERE session_id IN (SELECT id FROM sessions WHERE source_id IS NOT NULL)";
        (n("SELECT count(DISTINCT source) FROM sessions WHERE source IS NOT NULL"), n(live))
    };
    let wait = |done: &dyn Fn((i64, i64)) -> bool, what: &str| {
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
        while !done(count()) {
            assert!(std::time::Instant::now() < deadline, "the watched import never {what}: {:?}", count());
            std::thread::sleep(std::time::Duration::from_millis(200));
        }
    };
    wait(&|(sources, _)| sources == 6, "read the six agents' default locations");
    std::thread::sleep(std::time::Duration::from_millis(1500));
    let halfway = count().1;
    for (file, tail) in &rest {
        let mut f = std::fs::OpenOptions::new().append(true).open(file).unwrap();
        std::io::Write::write_all(&mut f, format!("{tail}\n").as_bytes()).unwrap();
    }
    for (file, whole) in &rewrites {
        std::fs::write(file, whole).unwrap();
    }
    // As many messages as a one-shot import of the complete files holds.
    let whole = Harness::new(vec![]).await;
    let mut expected = 0;
    for (agent, dot) in [
        ("qwen", ".qwen"),
        ("pi", ".pi"),
        ("copilot", ".copilot"),
        ("gemini", ".gemini"),
        ("cline", ".cline"),
        ("cline-tasks", ".cline"),
        ("roo", ".vscode-mock"),
    ] {
        let dir = fixtures(agent).join("home").join(dot);
        let doc = whole.alisio(&["import", dir.to_str().unwrap(), "--json"]).await.assert_ok().json();
        expected += doc["imported"].as_array().unwrap().iter().map(|s| s["messages"].as_i64().unwrap()).sum::<i64>();
    }
    wait(&|(_, messages)| messages >= expected, "caught up with what the agents appended");
    assert!(halfway < expected);
    std::thread::sleep(std::time::Duration::from_millis(1500));
    assert_eq!(count().1, expected, "nothing was imported twice");
    watch.kill().await.unwrap();

    // Imported again: nothing new.
    let again = h.alisio(&["import", "--json"]).await.assert_ok().json();
    let sources: std::collections::BTreeSet<&str> =
        again["imported"].as_array().unwrap().iter().map(|s| s["source"].as_str().unwrap()).collect();
    assert_eq!(
        sources.into_iter().collect::<Vec<_>>(),
        ["cline", "copilot-cli", "gemini-cli", "pi", "qwen-code", "roo"]
    );
    assert_eq!(count().1, expected);
}

#[tokio::test]
async fn cline_sessions_import_with_their_latest_compaction_and_every_chat_call() {
    let h = Harness::new(vec![]).await;
    let home = fixtures("cline").join("home/.cline");
    let doc = h.alisio(&["import", home.to_str().unwrap(), "--json"]).await.assert_ok().json();
    assert_eq!(doc["errors"], serde_json::json!([]));
    let imported = doc["imported"].as_array().unwrap();
    // The transcripts only: the rows, compactions, settings, logs and databases beside them are not sessions.
    assert_eq!(imported.len(), 2, "{imported:#?}");
    assert!(imported.iter().all(|s| s["source"] == "cline" && s["compactions"] == 1), "{imported:#?}");

    // A ledger row per chat request (the summarizer's calls leave nothing in the files).
    let received = requests("cline");
    let chat: Vec<&Value> = received
        .iter()
        .filter(|r| !text_of(&r["body"]["messages"][0]).starts_with("Summarize the provided coding session"))
        .collect();
    let mut rows = 0;
    for session in imported {
        rows += h
            .alisio(&["calls", "list", session["id"].as_str().unwrap(), "--json"])
            .await
            .json()
            .as_array()
            .unwrap()
            .len();
    }
    assert_eq!(rows, chat.len());

    // The view after /compact is what request 13 sent: the summary, then the messages it kept,
    // prompts without Cline's <user_input> wrapper, results as the JSON the wire carried.
    let manual = imported.iter().find(|s| s["title"].as_str().unwrap().contains("hello from turn1")).unwrap();
    let view = model_view(&h, manual["id"].as_str().unwrap()).await;
    let sent = received[12]["body"]["messages"].as_array().unwrap();
    assert!(text_of(&sent[1]).starts_with("Context summary:"));
    assert_eq!(shape(&view[..sent.len() - 2]), shape(&sent[1..sent.len() - 1]));
    // The automatic ones: only the latest is kept in the files; the view is what the last request sent.
    let auto = imported.iter().find(|s| s["id"] != manual["id"]).unwrap();
    let view = model_view(&h, auto["id"].as_str().unwrap()).await;
    let last = received.last().unwrap()["body"]["messages"].as_array().unwrap();
    assert_eq!(shape(&view[..last.len() - 1]), shape(&last[1..]));
}

/// A request message as (role, text blocks joined as the importers join them, call ids, the id
/// of the call it answers).
fn sent_shape(messages: &[Value]) -> Vec<(String, String, Vec<String>, Option<String>)> {
    messages
        .iter()
        .map(|m| {
            let text = match &m["content"] {
                Value::String(s) => s.clone(),
                Value::Array(parts) => parts.iter().filter_map(|p| p["text"].as_str()).collect::<Vec<_>>().join("\n\n"),
                _ => String::new(),
            };
            let ids = m["tool_calls"].as_array().into_iter().flatten();
            let ids = ids.map(|c| c["id"].as_str().unwrap().to_string()).collect();
            (m["role"].as_str().unwrap().to_string(), text, ids, m["tool_call_id"].as_str().map(str::to_string))
        })
        .collect()
}

/// Imports an extension's task folders and checks every ledger row against the request the
/// server received for it, in order (tasks by their start): an answer's row rebuilds the request
/// as sent but for the system prompt; a summarizer's row stands for the summarizer's request.
/// Returns each session (by start) with its compactions' reasons and its turn rows' prompt tokens.
async fn tasks_against_requests(agent: &str, dir: &str, source: &str) -> Vec<(Value, Vec<String>, u64)> {
    let h = Harness::new(vec![]).await;
    let home = fixtures(agent).join(dir);
    let doc = h.alisio(&["import", home.to_str().unwrap(), "--json"]).await.assert_ok().json();
    assert_eq!(doc["errors"], serde_json::json!([]));
    let mut sessions = Vec::new();
    for session in doc["imported"].as_array().unwrap() {
        assert_eq!(session["source"], source, "{session:#}");
        let shown = h.alisio(&["sessions", "show", session["id"].as_str().unwrap(), "--json"]).await.json();
        sessions.push((shown["session"]["createdAt"].as_str().unwrap().to_string(), session.clone(), shown));
    }
    sessions.sort_by(|a, b| a.0.cmp(&b.0));
    let received = requests(agent);
    let mut next = 0;
    let mut out = Vec::new();
    for (_, session, shown) in sessions {
        let id = session["id"].as_str().unwrap();
        let calls = h.alisio(&["calls", "list", id, "--json"]).await.assert_ok().json();
        let mut prompt = 0;
        for call in calls.as_array().unwrap() {
            let body = &received[next]["body"];
            next += 1;
            let n = call["n"].to_string();
            let detail = h.alisio(&["calls", "show", id, &n, "--json"]).await.assert_ok().json();
            assert_eq!(detail["requestSource"], "reconstructed");
            if call["purpose"] == "compaction" {
                assert!(text_of(&body["messages"][0]).contains("summariz"), "request {next} is a summarizer's");
                continue;
            }
            prompt += call["promptTokens"].as_u64().unwrap();
            let rebuilt: Vec<Value> = detail["request"]["messages"]
                .as_array()
                .unwrap()
                .iter()
                .filter(|m| m["role"] != "system")
                .cloned()
                .collect();
            let sent = body["messages"].as_array().unwrap();
            assert_eq!(sent[0]["role"], "system");
            assert_eq!(sent_shape(&rebuilt), sent_shape(&sent[1..]), "{agent} request {next} ({id} call {n})");
            // The system prompt is not in the task's files: said so, with its size estimated.
            assert!(detail["missing"].as_array().unwrap().iter().any(|m| m["part"] == "system"), "{detail:#}");
        }
        let reasons =
            shown["compactions"].as_array().unwrap().iter().map(|c| c["reason"].as_str().unwrap().to_string());
        out.push((session, reasons.collect(), prompt));
    }
    assert_eq!(next, received.len(), "one ledger row per request the server received");
    out
}

#[tokio::test]
async fn cline_task_folders_import_with_each_request_as_sent_through_truncations_and_condenses() {
    let tasks = tasks_against_requests("cline-tasks", "home/.cline/data", "cline").await;
    let list: Vec<Value> = serde_json::from_str(
        &std::fs::read_to_string(fixtures("cline-tasks").join("home/.cline/data/state/taskHistory.json")).unwrap(),
    )
    .unwrap();
    let reasons: Vec<Vec<String>> = tasks.iter().map(|(_, r, _)| r.clone()).collect();
    let s = |v: &[&str]| v.iter().map(|r| r.to_string()).collect::<Vec<_>>();
    // /smol; four truncations; none; one truncation; the model's summarize_task.
    assert_eq!(reasons, [s(&["manual"]), s(&["budget"; 4]), s(&[]), s(&["budget"]), s(&["auto"])]);
    for (session, _, prompt) in &tasks {
        // The agent's own totals: every answer's prompt tokens, each counted once.
        let item = list.iter().find(|t| session["sourceId"] == t["id"]).unwrap();
        assert_eq!(*prompt, item["tokensIn"].as_u64().unwrap(), "{}", session["title"]);
        assert!(item["task"].as_str().unwrap().starts_with(session["title"].as_str().unwrap().trim_end_matches('…')));
    }
}

#[tokio::test]
async fn roo_code_task_folders_import_with_each_request_as_sent_through_condenses_and_truncation_markers() {
    let tasks = tasks_against_requests("roo", "home/.vscode-mock", "roo").await;
    let reasons: Vec<Vec<String>> = tasks.iter().map(|(_, r, _)| r.clone()).collect();
    let s = |v: &[&str]| v.iter().map(|r| r.to_string()).collect::<Vec<_>>();
    assert_eq!(reasons, [s(&[]), s(&["auto", "auto"]), s(&["budget"; 6])]);
    let storage = fixtures("roo").join("home/.vscode-mock/global-storage/tasks");
    for (session, _, prompt) in &tasks {
        let item: Value = serde_json::from_str(
            &std::fs::read_to_string(storage.join(session["sourceId"].as_str().unwrap()).join("history_item.json"))
                .unwrap(),
        )
        .unwrap();
        assert_eq!(*prompt, item["tokensIn"].as_u64().unwrap(), "{}", session["title"]);
    }
}
