//! The demo session: on a machine with no model server, Alisio produces a session by itself by
//! running its own agent loop and compaction against the in-process [`ScriptedClient`]. It shows
//! tool calls, a trimmed tool output, a checkpoint, a partial checkpoint and an uncertain tool call
//! waiting to be acknowledged.

use std::path::Path;
use std::sync::Arc;

use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use crate::agent::{Engine, TurnRequest};
use crate::compaction::ManualCompaction;
use crate::config::{self, Config};
use crate::error::{Error, Result};
use crate::events::Envelope;
use crate::model::scripted::{answer as scripted_answer, cut_answer, tool_calls, ScriptedClient};
use crate::store::journal;
use crate::store::sessions::append_message;
use crate::store::Store;
use crate::tools::FixedApprover;
use crate::transcript::{NewMessage, ToolCall};

pub const DEMO_TITLE: &str = "Demo — parser error reporting (built-in scripted provider, no model server)";

fn answer(text: &str) -> Value {
    scripted_answer(text, 900, 640)
}

fn calls(text: &str, calls: &[(&str, &str, Value)]) -> Value {
    tool_calls(text, calls, 1200, 1024)
}

/// Answers for turns, and answers for summarizer calls.
fn script() -> ScriptedClient {
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
    ScriptedClient::new(turns, [answer(&checkpoint.to_string()), cut_answer(partial, 2100)])
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
    let raw = json!({
        "provider": {"id": "demo", "baseUrl": "http://scripted.invalid/v1", "model": "scripted-demo", "stream": false,
                     "contextWindow": 32768, "maxRetries": 0},
        "compaction": {"auto": false, "keepTurns": 1, "maxOutputTokens": 512},
        "limits": {"maxContextChars": 24000},
        "permissions": {"shell": "deny", "write": "allow"},
        "plugins": [],
    });
    let config: Config = config::from_value(&raw)?;
    let engine = Engine::with_client(config, store.clone(), Arc::new(script()))?;
    let quiet = |_: &Envelope| {};
    let cancel = CancellationToken::new();
    async {
        let turn = |session: Option<String>, prompt: &str| TurnRequest {
            session,
            prompt: prompt.into(),
            workspace: workspace.to_path_buf(),
            approver: Arc::new(FixedApprover(true)),
        };
        let first =
            engine.run_turn(turn(None, "Where are configuration parse errors reported?"), &quiet, &cancel).await?;
        let id = crate::store::SessionId::from_string(first.session);
        store.write(|tx| crate::store::sessions::set_title(tx, &id, DEMO_TITLE))?;
        engine.run_turn(turn(Some(id.to_string()), "Show me why the build fails."), &quiet, &cancel).await?;
        let session = store.resolve_session(&id)?;
        let focused = ManualCompaction { focus: Some("parser error reporting"), ..Default::default() };
        engine.compact(&session, &focused, &quiet, &cancel).await?;
        engine.run_turn(turn(Some(id.to_string()), "Add the line number to ParseError."), &quiet, &cancel).await?;
        engine.compact(&session, &ManualCompaction::default(), &quiet, &cancel).await?;
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
            journal::record_started(tx, ids[0])
        })?;
        Ok::<String, Error>(id.to_string())
    }
    .await
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::compactions::Kind;
    use crate::store::{JournalState, SessionId};

    /// The demo runs the real loop and compaction on the in-process script: it ends with every
    /// part the window shows.
    #[tokio::test]
    async fn the_demo_session_has_every_part_the_window_shows() {
        let dir = tempfile::tempdir().unwrap();
        let store = Arc::new(Store::open(&dir.path().join("sessions.db")).unwrap());
        let id = create_demo_session(store.clone(), &dir.path().join("demo")).await.unwrap();
        let id = SessionId::from_string(id);

        let session = store.resolve_session(&id).unwrap();
        assert_eq!(session.title, DEMO_TITLE);
        let records = store.compactions(&id).unwrap();
        let checkpoints: Vec<(Option<&str>, bool)> =
            records.iter().filter_map(|r| r.checkpoint()).map(|c| (c.focus.as_deref(), c.partial)).collect();
        assert_eq!(checkpoints, vec![(Some("parser error reporting"), false), (None, true)]);
        assert!(records.iter().any(|r| r.kind() == Kind::Reduction), "the build log was trimmed to fit");
        let messages = store.all_messages(&id).unwrap();
        assert!(messages.iter().any(|m| m.truncated && m.content.ends_with("[truncated by context budget]")));
        let journal = store.journal(&id).unwrap();
        let started: Vec<&str> =
            journal.iter().filter(|e| e.state == JournalState::Started).map(|e| e.call_id.as_str()).collect();
        assert_eq!(started, vec!["call_tests-5"], "one call waits to be acknowledged");
        let ledger = store.model_calls(&id).unwrap();
        let purposes: Vec<&str> = ledger.iter().map(|c| c.purpose.as_str()).collect();
        assert_eq!(purposes.iter().filter(|p| **p == "compaction").count(), 2, "{purposes:?}");
        assert!(ledger.iter().all(|c| c.error.is_none()), "every scripted call was answered");
    }
}
