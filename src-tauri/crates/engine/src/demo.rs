//! The demo session: on a machine with no model server, Alisio produces a session by itself by
//! running its own agent loop and compaction against a built-in scripted provider on 127.0.0.1. It
//! shows tool calls, a trimmed tool output, a checkpoint, a partial checkpoint and an uncertain
//! tool call waiting to be acknowledged.

use std::collections::VecDeque;
use std::path::Path;
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use crate::agent::{Engine, TurnRequest};
use crate::config::{self, Config};
use crate::error::{Error, Result};
use crate::events::{CompactionReason, Envelope};
use crate::store::journal;
use crate::store::sessions::append_message;
use crate::store::Store;
use crate::tools::FixedApprover;
use crate::transcript::{NewMessage, ToolCall};

pub const DEMO_TITLE: &str = "Demo — parser error reporting (built-in scripted provider, no model server)";

fn answer(text: &str) -> Value {
    json!({"choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
           "usage": {"prompt_tokens": 900, "completion_tokens": 40, "prompt_tokens_details": {"cached_tokens": 640}}})
}

fn calls(text: &str, calls: &[(&str, &str, Value)]) -> Value {
    let calls: Vec<Value> = calls
        .iter()
        .map(|(id, name, args)| json!({"id": id, "type": "function", "function": {"name": name, "arguments": args.to_string()}}))
        .collect();
    json!({"choices": [{"index": 0, "message": {"role": "assistant", "content": text, "tool_calls": calls}, "finish_reason": "tool_calls"}],
           "usage": {"prompt_tokens": 1200, "completion_tokens": 30, "prompt_tokens_details": {"cached_tokens": 1024}}})
}

fn cut(text: &str) -> Value {
    json!({"choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "length"}],
           "usage": {"prompt_tokens": 2100, "completion_tokens": 512}})
}

/// Answers for turns, and answers for summarizer calls (which carry `tool_choice: "none"`).
struct Script {
    turns: VecDeque<Value>,
    summaries: VecDeque<Value>,
}

fn script() -> Script {
    let checkpoint = json!({
        "goal": "Make the configuration parser report every error with its line number.",
        "instructions": ["Keep the public API of parse_config unchanged", "Run the tests after each change"],
        "discoveries": ["Errors are built in src/parser.rs by ParseError::new", "The build log shows 3 failing tests in tests/parse.rs"],
        "accomplished": ["Found where errors are reported", "Read the failing build log"],
        "currentState": "ParseError has no line field yet.",
        "nextSteps": ["Add a line field to ParseError", "Pass the line from the tokenizer", "Re-run the tests"],
        "relevantFiles": ["src/parser.rs", "tests/parse.rs", "build.log"],
    });
    let partial = r#"{"goal": "Make the configuration parser report every error with its line number.", "instructions": ["Keep the public API of parse_config unchanged"], "discoveries": ["ParseError now carries the line", "The tokenizer tracks lines in Cursor::line"], "accomplished": ["Added the line field to ParseError", "Threaded the line through the tok"#;
    let turns = vec![
        calls(
            "I'll look for where parse errors are created.",
            &[
                ("call_grep-1", "grep", json!({"pattern": "ParseError::new"})),
                ("call_read.parser/2", "read_file", json!({"path": "src/parser.rs"})),
            ],
        ),
        answer("Parse errors are created in src/parser.rs by `ParseError::new(message)`; no line number is recorded."),
        calls("Let me read the build log.", &[("call_log-3", "read_file", json!({"path": "build.log"}))]),
        answer("The log is long; the three failing tests are in tests/parse.rs and all expect a line number in the message."),
        calls(
            "Adding the line field.",
            &[(
                "call_edit-4",
                "edit_file",
                json!({"path": "src/parser.rs", "old": "pub struct ParseError { pub message: String }", "new": "pub struct ParseError { pub message: String, pub line: usize }"}),
            )],
        ),
        answer("ParseError now has a `line` field. Next: pass the line from the tokenizer."),
    ];
    Script { turns: turns.into(), summaries: vec![answer(&checkpoint.to_string()), cut(partial)].into() }
}

/// Serves the script as an OpenAI-compatible chat endpoint (whole answers, no streaming).
async fn serve(listener: TcpListener, script: Arc<Mutex<Script>>, stop: CancellationToken) {
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            _ = stop.cancelled() => return,
        };
        let Ok((mut socket, _)) = accepted else { return };
        let script = script.clone();
        tokio::spawn(async move {
            let mut buf = Vec::new();
            let mut chunk = [0u8; 16 * 1024];
            // Read the head, then the body by Content-Length.
            let (head_end, length) = loop {
                let Ok(n) = socket.read(&mut chunk).await else { return };
                if n == 0 {
                    return;
                }
                buf.extend_from_slice(&chunk[..n]);
                if let Some(pos) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                    let head = String::from_utf8_lossy(&buf[..pos]).to_ascii_lowercase();
                    let length = head
                        .lines()
                        .find_map(|l| l.strip_prefix("content-length:"))
                        .and_then(|v| v.trim().parse::<usize>().ok())
                        .unwrap_or(0);
                    break (pos + 4, length);
                }
            };
            while buf.len() < head_end + length {
                match socket.read(&mut chunk).await {
                    Ok(0) | Err(_) => return,
                    Ok(n) => buf.extend_from_slice(&chunk[..n]),
                }
            }
            let is_post = buf.starts_with(b"POST");
            let request: Value = serde_json::from_slice(&buf[head_end..]).unwrap_or(Value::Null);
            let summarizer = request.get("tool_choice").and_then(Value::as_str) == Some("none");
            let next = match script.lock() {
                Ok(mut s) if is_post && summarizer => s.summaries.pop_front(),
                Ok(mut s) if is_post => s.turns.pop_front(),
                _ => None,
            };
            let (status, body) = match next {
                Some(answer) => ("200 OK", answer.to_string()),
                None => {
                    ("404 Not Found", "{\"error\": \"the demo script has no answer for this request\"}".to_string())
                }
            };
            let response = format!(
                "HTTP/1.1 {status}\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
            let _ = socket.write_all(response.as_bytes()).await;
            let _ = socket.shutdown().await;
        });
    }
}

fn write_workspace(dir: &Path) -> Result<()> {
    let io = |e| Error::io(format!("cannot prepare the demo workspace {}", dir.display()), e);
    std::fs::create_dir_all(dir.join("src")).map_err(io)?;
    std::fs::create_dir_all(dir.join("tests")).map_err(io)?;
    std::fs::write(
        dir.join("src/parser.rs"),
        "pub struct ParseError { pub message: String }\n\nimpl ParseError {\n    pub fn new(message: &str) -> Self {\n        ParseError { message: message.to_string() }\n    }\n}\n\npub fn parse_config(text: &str) -> Result<Config, ParseError> {\n    let mut cursor = Cursor::new(text);\n    cursor.expect('{').map_err(|_| ParseError::new(\"expected {\"))?;\n    todo!()\n}\n",
    )
    .map_err(io)?;
    std::fs::write(dir.join("tests/parse.rs"), "#[test]\nfn reports_line() {\n    let err = parse_config(\"\\n\\n}\").unwrap_err();\n    assert_eq!(err.line, 3);\n}\n").map_err(io)?;
    let mut log = String::new();
    for i in 0..1800 {
        log.push_str(&format!("   Compiling crate_{i} v0.1.{} (registry)\n", i % 7));
    }
    log.push_str(
        "test parse::reports_line ... FAILED\ntest parse::reports_column ... FAILED\ntest parse::nested ... FAILED\n",
    );
    std::fs::write(dir.join("build.log"), log).map_err(io)
}

/// Creates the demo session in `store` and returns its id.
pub async fn create_demo_session(store: Arc<Store>, workspace: &Path) -> Result<String> {
    write_workspace(workspace)?;
    let listener =
        TcpListener::bind("127.0.0.1:0").await.map_err(|e| Error::io("cannot start the demo provider", e))?;
    let addr = listener.local_addr().map_err(|e| Error::io("cannot start the demo provider", e))?;
    let stop = CancellationToken::new();
    tokio::spawn(serve(listener, Arc::new(Mutex::new(script())), stop.clone()));

    let raw = json!({
        "provider": {"id": "demo", "baseUrl": format!("http://{addr}/v1"), "model": "scripted-demo", "stream": false,
                     "contextWindow": 32768, "maxRetries": 0},
        "compaction": {"auto": false, "keepTurns": 1, "maxOutputTokens": 512},
        "limits": {"maxContextChars": 24000},
        "permissions": {"shell": "deny", "write": "allow"},
        "plugins": [],
    });
    let config: Config = config::from_value(&raw)?;
    let engine = Engine::new(config, store.clone())?;
    let quiet = |_: &Envelope| {};
    let cancel = CancellationToken::new();
    let result = async {
        let turn = |session: Option<String>, prompt: &str| TurnRequest {
            session,
            prompt: prompt.into(),
            workspace: workspace.to_path_buf(),
            approver: Arc::new(FixedApprover(true)),
        };
        let first =
            engine.run_turn(turn(None, "Where are configuration parse errors reported?"), &quiet, &cancel).await?;
        let id = first.session;
        store.write(|tx| {
            tx.execute("UPDATE sessions SET title = ?2 WHERE id = ?1", (&id, DEMO_TITLE))?;
            Ok(())
        })?;
        engine.run_turn(turn(Some(id.clone()), "Show me why the build fails."), &quiet, &cancel).await?;
        let session = store.resolve_session(&id)?;
        engine
            .compact(&session, CompactionReason::Manual, Some("parser error reporting"), false, &quiet, &cancel)
            .await?;
        engine.run_turn(turn(Some(id.clone()), "Add the line number to ParseError."), &quiet, &cancel).await?;
        engine.compact(&session, CompactionReason::Manual, None, false, &quiet, &cancel).await?;
        // A tool call that was running when the process died: started, never finished.
        let call = ToolCall {
            id: "call_tests-5".into(),
            name: "shell".into(),
            arguments: json!({"command": "cargo test --test parse"}).to_string(),
        };
        store.write(|tx| {
            append_message(tx, &id, &NewMessage::user("Run the parser tests."))?;
            let seq = append_message(tx, &id, &NewMessage::assistant("Running the tests.", vec![call.clone()], None))?;
            let ids = journal::record_requested(tx, &id, seq, std::slice::from_ref(&call))?;
            tx.execute("UPDATE tool_calls SET state = 'started', started_at = requested_at WHERE id = ?1", [ids[0]])?;
            Ok(())
        })?;
        Ok::<String, Error>(id)
    }
    .await;
    stop.cancel();
    result
}
