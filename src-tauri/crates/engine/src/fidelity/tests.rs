use serde_json::json;

use super::*;
use crate::transcript::ToolCall;

fn message(seq: i64, role: Role, content: &str) -> Message {
    Message {
        seq,
        anchor: seq,
        role,
        content: content.into(),
        tool_calls: Vec::new(),
        tool_call_id: None,
        provider_items: None,
        compacted: false,
        summary: false,
        truncated: false,
        uncertain: false,
        reverted: false,
        created_by: None,
        compacted_by: None,
        created_at: String::new(),
        chars: content.chars().count() as u64,
        source_id: None,
        meta: None,
        off_view: false,
    }
}

fn call(seq: i64, id: &str, name: &str, arguments: serde_json::Value) -> Message {
    let mut m = message(seq, Role::Assistant, "");
    m.tool_calls.push(ToolCall { id: id.into(), name: name.into(), arguments: arguments.to_string() });
    m
}

fn result(seq: i64, id: &str, content: &str) -> Message {
    let mut m = message(seq, Role::Tool, content);
    m.tool_call_id = Some(id.into());
    m
}

/// A span: a constraint, edits to src/parser.rs (twice), a read, a failing test, a request.
fn span() -> Vec<Message> {
    vec![
        message(1, Role::User, "Fix the parser. You must keep the public API of parse_config unchanged."),
        call(2, "c1", "read_file", json!({"path": "src/lexer.rs"})),
        result(3, "c1", "fn lex() {}"),
        call(4, "c2", "write_file", json!({"path": "/w/src/parser.rs", "content": "x"})),
        result(5, "c2", "wrote 1 byte"),
        call(6, "c3", "edit_file", json!({"path": "./src/parser.rs", "old": "x", "new": "y"})),
        result(7, "c3", "edited"),
        call(8, "c4", "shell", json!({"command": "cargo test --test parse > out.log"})),
        result(9, "c4", "test parse_line ... FAILED\n[exit code 101]"),
        message(10, Role::User, "Now report parse errors with line numbers"),
    ]
}

fn sections(value: serde_json::Value) -> Map<String, Value> {
    value.as_object().unwrap().clone()
}

#[test]
fn a_faithful_checkpoint_keeps_everything() {
    let s = sections(json!({
        "goal": "Report parse errors with line numbers",
        "instructions": ["Keep the public API of parse_config unchanged"],
        "currentState": "cargo test --test parse fails: parse_line",
        "nextSteps": ["Fix parse_line, then report parse errors with line numbers"],
        "relevantFiles": ["src/parser.rs — rewritten", "src/lexer.rs", "out.log"],
    }));
    let f = assess(&span(), &CheckpointText::Sections(&s), "/w");
    assert_eq!(f.missing, Vec::<Missing>::new());
    assert_eq!((f.score, f.checked), (1.0, 6), "3 files, 1 constraint, 1 error, 1 task");
}

#[test]
fn each_omission_is_reported_with_its_seqs_and_why() {
    let s = sections(json!({
        "goal": "Improve the lexer",
        "instructions": [],
        "currentState": "all good",
        "nextSteps": [],
        "relevantFiles": ["src/lexer.rs", "out.log"],
    }));
    let f = assess(&span(), &CheckpointText::Sections(&s), "/w");
    let got: Vec<(MissingKind, &str, Vec<i64>)> =
        f.missing.iter().map(|m| (m.kind, m.value.as_str(), m.seqs.clone())).collect();
    assert_eq!(
        got,
        vec![
            (MissingKind::File, "src/parser.rs", vec![4, 6]),
            (MissingKind::Instruction, "You must keep the public API of parse_config unchanged", vec![1]),
            (MissingKind::Error, "shell cargo test --test parse > out.log: test parse_line ... FAILED", vec![8, 9]),
            (MissingKind::Task, "Now report parse errors with line numbers", vec![10]),
        ]
    );
    assert_eq!(f.missing[0].why, "written 1 time, edited 1 time in the replaced span, not named in relevantFiles");
    assert_eq!(f.missing[0].section, "relevantFiles");
    assert!(f.missing[1].why.contains("\"must\""), "{}", f.missing[1].why);
    assert_eq!(f.checked, 6);
    assert_eq!(f.score, 0.333);
}

#[test]
fn a_later_success_resolves_a_failure_and_text_checkpoints_are_read_whole() {
    let mut span = span();
    span.push(call(11, "c5", "shell", json!({"command": "cargo test --test parse > out.log"})));
    span.push(result(12, "c5", "ok\n[exit code 0]"));
    let text =
        "We edited src/parser.rs and read src/lexer.rs, out.log. Keep the public API of parse_config unchanged. \
                Next: report parse errors with line numbers.";
    let f = assess(&span, &CheckpointText::Text(text), "/w");
    assert_eq!(f.missing, Vec::<Missing>::new(), "{:?}", f.missing);
    assert_eq!(f.checked, 5, "the resolved failure is not checked");
}

#[test]
fn failures_recorded_by_other_agents_count() {
    let mut failing = result(2, "x", "boom");
    failing.meta = Some(json!({"exec": {"exitCode": 2}}));
    assert!(failed(&failing));
    failing.meta = Some(json!({"exit": 0}));
    assert!(!failed(&failing));
    failing.meta = Some(json!({"isError": true}));
    assert!(failed(&failing));
    assert!(failed(&result(3, "y", "Chunk ID: 1\nProcess exited with code 1\nOutput:\n")));
    assert!(!failed(&result(3, "y", "Process exited with code 0")));
}

#[test]
fn nothing_to_check_scores_one() {
    let f = assess(&[], &CheckpointText::Text(""), "/w");
    assert_eq!((f.score, f.checked, f.missing.len()), (1.0, 0, 0));
}

#[test]
fn the_artifact_trail_keeps_each_files_last_change_and_how_each_command_ended() {
    let log: String = (1..=40).map(|i| format!("case {i} ... ok\n")).collect::<String>()
        + "test budget ... FAILED (Q-1)\n39 passed, 1 failed\nexit code 1\n";
    let span = vec![
        call(1, "c1", "read_file", json!({"path": "/w/src/a.rs"})),
        result(2, "c1", "fn a() {}"),
        call(3, "c2", "shell", json!({"command": "sh check.sh"})),
        result(4, "c2", &log),
        call(5, "c3", "edit_file", json!({"path": "src/a.rs", "old": "fn a", "new": "fn a_renamed // T-9"})),
        result(6, "c3", "edited"),
        call(7, "c4", "read_file", json!({"path": "src/a.rs"})),
        result(8, "c4", "fn a_renamed() {}"),
        call(
            9,
            "c5",
            "write_file",
            json!({"path": "notes.md", "content": "# Notes\n\nBatches live in SQLite (I-6).\nmore\nmore"}),
        ),
        result(10, "c5", "wrote"),
    ];
    let trail = artifact_trail(&span, "/w");
    assert_eq!(
        trail.files,
        [
            "check.sh (read)",
            "src/a.rs (edited: fn a_renamed // T-9)",
            "notes.md (written: # Notes ⏎ Batches live in SQLite (I-6). ⏎ more)"
        ],
        "a read after an edit keeps what the edit said; the most recent last; a script a command ran is read"
    );
    assert_eq!(trail.commands, ["`sh check.sh` → test budget ... FAILED (Q-1) ⏎ 39 passed, 1 failed ⏎ exit code 1"]);
    // A write then an edit: both said; a search (no file of its own) like a command.
    let span = vec![
        call(1, "w", "write_file", json!({"path": "r.py", "content": "# Batches (I-6)\nSIZE = 100\n"})),
        result(2, "w", "wrote"),
        call(3, "e", "edit_file", json!({"path": "r.py", "old": "SIZE = 100", "new": "SIZE = 250  # T-3"})),
        result(4, "e", "edited"),
        call(5, "g", "grep", json!({"pattern": "TODO", "path": "ledger"})),
        result(6, "g", "ledger/cal.py:4:# TODO(P-1) leap second"),
    ];
    let trail = artifact_trail(&span, "/w");
    assert_eq!(trail.files, ["r.py (written: # Batches (I-6) ⏎ SIZE = 100; then edited: SIZE = 250  # T-3)"]);
    assert_eq!(trail.commands, ["`grep TODO ledger` → ledger/cal.py:4:# TODO(P-1) leap second"]);
    let long = "x".repeat(500);
    let trail = artifact_trail(&[call(1, "c", "write_file", json!({"path": "big", "content": long}))], "/w");
    assert!(trail.files[0].chars().count() < 230, "{}", trail.files[0]);
    assert!(artifact_trail(&[message(1, Role::User, "hi")], "/w").is_empty());
}
