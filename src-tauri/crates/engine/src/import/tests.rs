//! Imports of the real session files in tests/fixtures/import (written by the real CLIs), checked
//! field by field against what each agent stored and sent.

use std::io::Write;
use std::path::{Path, PathBuf};

use pretty_assertions::assert_eq;
use serde_json::{json, Value};

use super::*;
use crate::config::Config;
use crate::events::CompactionReason;
use crate::store::compactions::Status;
use crate::store::{Purpose, RequestSource};
use crate::transcript::Role;
use crate::view::{model_view, stored_view};

pub(super) fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../tests/fixtures/import")
}

const CODEX_A: &str = "codex/2026/11/30/rollout-2026-11-30T17-48-49-01a22d92-df3a-72a1-bd0b-7184d9a4858e.jsonl";
const CODEX_B: &str = "codex/2026/11/30/rollout-2026-11-30T17-50-34-01a22d94-79df-79e1-9ef3-7650cc760a82.jsonl";
const CLAUDE_MANUAL: &str = "claude/-home-dev-work-claude-proj/46c4be69-b0e3-487e-97a4-c6832402089e.jsonl";
const CLAUDE_AUTO: &str = "claude/-home-dev-work-claude-proj2/faaaa1c5-4d1d-4d48-89dc-36ff50d7fd83.jsonl";

pub(super) fn store() -> (tempfile::TempDir, Store) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(&dir.path().join("sessions.db")).unwrap();
    (dir, store)
}

pub(super) fn import_one(store: &Store, path: &Path) -> ImportedSession {
    let report = import(store, &[path.to_path_buf()]);
    assert!(report.errors.is_empty() && report.unknown.is_empty(), "{report:?}");
    assert_eq!(report.imported.len(), 1, "{report:?}");
    report.imported.into_iter().next().unwrap()
}

fn texts(view: &crate::view::ModelView) -> Vec<String> {
    view.messages
        .iter()
        .map(|m| {
            let v = serde_json::to_value(m).unwrap();
            let body = v["content"].as_str().or(v["output"].as_str()).unwrap_or_default().to_string();
            let role = v["role"].as_str().or(v["type"].as_str()).unwrap_or_default().to_string();
            format!("{role}: {}", body.chars().take(40).collect::<String>())
        })
        .collect()
}

#[test]
fn codex_manual_compaction_maps_history_ledger_and_next_request() {
    let (_dir, store) = store();
    let imported = import_one(&store, &fixtures().join(CODEX_A));
    assert_eq!(imported.source, SourceKind::Codex);
    assert_eq!(imported.source_id, "01a22d92-df3a-72a1-bd0b-7184d9a4858e");
    // 14 history messages (the summarizer's answer is not one), 5 calls, 5 outputs, 8 restated.
    assert_eq!((imported.messages, imported.tool_calls, imported.compactions), (32, 5, 1));
    assert!(imported.skipped.is_empty());

    let stored = stored_view(&store, &session_of(&store, &imported.id)).unwrap();
    assert_eq!(stored.session.source, Some(SourceKind::Codex));
    assert_eq!(stored.session.workspace, "/home/dev/work/codex/proj");
    let calls: Vec<&str> = stored.messages.iter().flat_map(|m| m.tool_calls.iter().map(|c| c.id.as_str())).collect();
    assert_eq!(calls, ["call_1-Zq.9/x", "call_3-Zq.9/x", "call_5-Zq.9/x", "call_7-Zq.9/x", "call_11-Zq.9/x"]);
    let results: Vec<&str> = stored.messages.iter().filter_map(|m| m.tool_call_id.as_deref()).collect();
    assert_eq!(results, calls, "each output answers its call, verbatim");
    assert!(
        !stored.messages.iter().any(|m| m.role == Role::Assistant && m.content.contains("MARKER-GOAL")),
        "the summarizer's answer is not shown as a reply"
    );
    let first_output = stored.messages.iter().find(|m| m.tool_call_id.is_some()).unwrap();
    assert_eq!(first_output.meta.as_ref().unwrap()["exec"]["exitCode"], json!(0));
    assert_eq!(first_output.created_at, "2026-11-30T17:48:50.037Z");

    let compaction = &stored.compactions[0];
    assert_eq!(compaction.record.reason, CompactionReason::Manual);
    assert_eq!(compaction.summarized_seqs.len(), 20, "everything before the compaction left the view");
    assert!(stored.messages.iter().filter(|m| compaction.summarized_seqs.contains(&m.seq)).all(|m| m.compacted));
    // Imported checkpoints are checked like Alisio's own: the summary never names notes.txt.
    let fidelity = compaction.record.fidelity.as_ref().expect("an imported checkpoint carries its fidelity");
    let file = fidelity.missing.iter().find(|m| m.kind == crate::fidelity::MissingKind::File).unwrap();
    assert_eq!(file.value, "notes.txt");
    assert!(file.why.starts_with("written 1 time, read 3 times"), "{}", file.why);

    // The ledger: one call per token_usage_record, the tenth the summarizer's.
    assert_eq!(stored.model_calls.len(), 12);
    let usage: Vec<(Option<u64>, Option<u64>, Option<u64>)> =
        stored.model_calls.iter().map(|c| (c.prompt_tokens, c.cached_tokens, c.completion_tokens)).collect();
    assert_eq!(usage[0], (Some(5270), Some(0), Some(1)));
    assert_eq!(usage[10], (Some(5724), Some(4429), Some(1)));
    assert_eq!(stored.model_calls[9].purpose, crate::store::Purpose::Compaction);
    assert_eq!(compaction.record.model_call_id, Some(stored.model_calls[9].id));

    // What Codex sends next: base instructions, the retained prompts, the re-inserted context,
    // the summary, then turn 6 (request 11 and what followed).
    // Its base instructions are not shown: it sends a shorter version the rollout does not hold.
    let view = model_view(&store, &Config::default(), &session_of(&store, &imported.id), &[], None).unwrap();
    assert!(view.reconstructed);
    let missing: Vec<(&str, u64)> = view.missing.iter().map(|m| (m.part.as_str(), m.estimated_tokens)).collect();
    assert_eq!(missing.iter().map(|m| m.0).collect::<Vec<_>>(), ["system", "tools", "params"]);
    assert!(missing.iter().all(|m| m.1 > 0), "{missing:?}");
    let got = texts(&view);
    assert_eq!(
        got,
        [
            "user: DO exec_command {\"cmd\":\"echo hello from ",
            "user: DO exec_command {\"cmd\":\"printf \\\"alpha\\\\",
            "user: DO exec_command {\"cmd\":\"cat notes.txt; l",
            "user: DO exec_command {\"cmd\":\"grep -n beta not",
            "system: <skills_instructions>\n## Skills\nA skill ",
            "user: <environment_context>\n  <cwd>/home/dev/w",
            "user: SAY all four turns done",
            "user: Another language model started to solve ",
            "user: DO exec_command {\"cmd\":\"echo after compa",
            "function_call: ",
            "function_call_output: Chunk ID: f38726\nWall time: 0.0000 secon",
            "assistant: ack call_11-Zq.9/x",
        ]
    );
    // A call's request is rebuilt from the records it was formed from.
    let (body, _) =
        crate::calls::request_body(&store, &session_of(&store, &imported.id), &stored.model_calls[10]).unwrap();
    let input = body["input"].as_array().unwrap();
    assert_eq!(input.last().unwrap()["content"], "DO exec_command {\"cmd\":\"echo after compaction; cat notes.txt\"}");
    assert_eq!(body["tools"], Value::Null, "an imported call's tools are not invented");
    let detail = crate::calls::show(&store, &session_of(&store, &imported.id), 11).unwrap();
    assert_eq!(detail.response.unwrap()["toolCalls"][0]["id"], "call_11-Zq.9/x", "the answer is the stored reply");
}

#[test]
fn codex_automatic_compactions_are_recorded_in_order() {
    let (_dir, store) = store();
    let imported = import_one(&store, &fixtures().join(CODEX_B));
    let stored = stored_view(&store, &session_of(&store, &imported.id)).unwrap();
    let reasons: Vec<CompactionReason> = stored.compactions.iter().map(|c| c.record.reason).collect();
    assert_eq!(reasons, [CompactionReason::Auto; 3]);
    assert!(stored.compactions.iter().all(|c| c.record.status == Status::Applied));
    let windows: Vec<&Value> = stored.compactions.iter().map(|c| &c.record.plugin_fields["window_number"]).collect();
    assert_eq!(windows, [&json!(1), &json!(2), &json!(3)]);
    // Each checkpoint is the last item of its replacement history.
    for compaction in &stored.compactions {
        let checkpoint = stored
            .messages
            .iter()
            .find(|m| m.created_by == Some(compaction.record.id) && m.summary)
            .expect("a checkpoint message");
        assert!(checkpoint.content.starts_with("Another language model started"));
    }
}

#[test]
fn claude_code_manual_compaction_keeps_the_preserved_reply_after_the_summary() {
    let (_dir, store) = store();
    let imported = import_one(&store, &fixtures().join(CLAUDE_MANUAL));
    assert_eq!(imported.source, SourceKind::ClaudeCode);
    assert_eq!(imported.source_id, "46c4be69-b0e3-487e-97a4-c6832402089e");
    assert_eq!((imported.tool_calls, imported.compactions), (5, 1));
    let stored = stored_view(&store, &session_of(&store, &imported.id)).unwrap();
    assert_eq!(stored.compactions[0].record.reason, CompactionReason::Manual);
    assert_eq!(stored.compactions[0].record.plugin_fields["preTokens"], json!(3092));
    let trigger = serde_json::to_value(&stored.compactions[0].record.trigger).unwrap();
    assert_eq!(trigger, json!({"kind": "manual", "promptTokens": 3092, "window": null, "threshold": null}));
    let ids: Vec<&str> = stored.messages.iter().flat_map(|m| m.tool_calls.iter().map(|c| c.id.as_str())).collect();
    assert_eq!(ids.len(), 5);
    assert!(ids.iter().all(|id| id.starts_with("toolu_")), "{ids:?}");
    let results: Vec<&str> = stored.messages.iter().filter_map(|m| m.tool_call_id.as_deref()).collect();
    assert_eq!(results, ids);
    // The ledger: one row per logged request (each answered by a response), cached tokens from
    // cache_read_input_tokens, and the compaction's summary call Claude Code does not log.
    assert_eq!(stored.model_calls.len(), 12);
    let summary = &stored.model_calls[9];
    assert_eq!((summary.purpose, summary.request_source), (Purpose::Compaction, RequestSource::Reconstructed));
    assert_eq!(stored.compactions[0].record.model_call_id, Some(summary.id));
    assert!(stored
        .model_calls
        .iter()
        .filter(|c| c.id != summary.id)
        .all(|c| c.request_source == RequestSource::AgentLog));
    assert_eq!(stored.model_calls[1].cached_tokens, Some(197));
    assert_eq!(stored.model_calls[1].prompt_tokens, Some(2460 + 197));

    let view = model_view(&store, &Config::default(), &session_of(&store, &imported.id), &[], None).unwrap();
    let got = texts(&view);
    assert!(got[1].starts_with("user: This session is being continued"), "{got:?}");
    assert_eq!(got[2], "assistant: all four turns done", "the preserved reply follows the summary");
    assert!(got.iter().any(|t| t.starts_with("user: <local-command-caveat>")));
    assert_eq!(got.last().unwrap(), "assistant: ack toolu_11mock");
    assert!(!got.iter().any(|t| t.contains("DO Bash {\"command\":\"echo hello from turn1")), "turn 1 was compacted");
}

#[test]
fn claude_code_auto_compaction_and_local_command_output() {
    let (_dir, store) = store();
    let imported = import_one(&store, &fixtures().join(CLAUDE_AUTO));
    let stored = stored_view(&store, &session_of(&store, &imported.id)).unwrap();
    assert_eq!(stored.compactions[0].record.reason, CompactionReason::Auto);
    let trigger = serde_json::to_value(&stored.compactions[0].record.trigger).unwrap();
    assert_eq!(trigger["kind"], "threshold", "Claude Code's auto compaction fired on its threshold");
    assert!(trigger["promptTokens"].as_u64().is_some(), "with the tokens it recorded: {trigger}");
    let local =
        stored.messages.iter().find(|m| m.content.starts_with("<local-command-stdout>## Context Usage")).unwrap();
    assert!(local.off_view, "a local command's output is shown but never sent");
    assert_eq!(local.meta.as_ref().unwrap()["subtype"], "local_command");
    let view = model_view(&store, &Config::default(), &session_of(&store, &imported.id), &[], None).unwrap();
    let got = texts(&view);
    assert!(got[1].starts_with("user: This session is being continued"), "{got:?}");
    assert_eq!(got[2], "assistant: pretend the context is now large");
    assert!(!got.iter().any(|t| t.contains("## Context Usage")));
}

#[test]
fn opencode_database_sessions_with_manual_and_auto_compactions() {
    let (_dir, store) = store();
    let report = import(&store, &[fixtures().join("opencode/opencode.db")]);
    assert!(report.errors.is_empty(), "{report:?}");
    let by_title = |title: &str| report.imported.iter().find(|s| s.title == title).unwrap().clone();
    let manual = by_title("corpus-manual");
    let auto = by_title("corpus-auto");
    assert_eq!(manual.source_id, "ses_dd26eb074ffenpOs2hjVwkdumC");
    assert_eq!((manual.tool_calls, manual.compactions), (5, 1));

    let stored = stored_view(&store, &session_of(&store, &manual.id)).unwrap();
    assert_eq!(stored.session.workspace, "/home/dev/work/opencode/proj");
    assert_eq!(stored.compactions[0].record.reason, CompactionReason::Manual);
    let first_call = stored.messages.iter().find(|m| !m.tool_calls.is_empty()).unwrap();
    assert_eq!(first_call.tool_calls[0].id, "call_1-Zq.9/x");
    assert_eq!(first_call.tool_calls[0].name, "bash");
    let result = stored.messages.iter().find(|m| m.tool_call_id.as_deref() == Some("call_1-Zq.9/x")).unwrap();
    assert_eq!(result.content, "hello from turn1\n1\n2\n3\n");
    assert_eq!(result.meta.as_ref().unwrap()["exit"], json!(0));
    let summarizer = stored.model_calls.iter().find(|c| c.purpose == crate::store::Purpose::Compaction).unwrap();
    assert_eq!(
        (summarizer.prompt_tokens, summarizer.cached_tokens, summarizer.completion_tokens),
        (Some(821), Some(5), Some(74))
    );

    let view = model_view(&store, &Config::default(), &session_of(&store, &manual.id), &[], None).unwrap();
    let got = texts(&view);
    assert_eq!(got[0], "user: What did we do so far?");
    assert!(got[1].starts_with("assistant: {\"goal\": \"MARKER-GOAL"), "{got:?}");
    assert!(got[2].starts_with("user: DO bash {\"command\":\"echo after compac"), "{got:?}");

    let stored = stored_view(&store, &session_of(&store, &auto.id)).unwrap();
    assert_eq!(stored.compactions[0].record.reason, CompactionReason::Auto);
    let synthetic = stored.messages.iter().find(|m| m.content.starts_with("Continue if you have next steps")).unwrap();
    assert_eq!(synthetic.meta.as_ref().unwrap()["synthetic"], json!(true));
    assert!(!synthetic.compacted);
}

/// Rows of a session that must not change between equivalent imports.
fn rows(store: &Store, session: &str) -> Vec<String> {
    let stored = stored_view(store, &session_of(store, session)).unwrap();
    let mut out: Vec<String> = stored
        .messages
        .iter()
        .map(|m| format!("{} {} {:?} {} {} {:?}", m.seq, m.anchor, m.role, m.compacted, m.content.len(), m.source_id))
        .collect();
    out.extend(stored.compactions.iter().map(|c| format!("{:?} {:?}", c.record.reason, c.summarized_seqs)));
    out.extend(
        stored
            .model_calls
            .iter()
            .map(|c| format!("{} {} {:?} {:?}", c.purpose, c.message_ranges, c.prompt_tokens, c.response_seq)),
    );
    out
}

#[test]
fn importing_again_changes_nothing_and_appends_what_was_written_since() {
    for fixture in [CODEX_A, CODEX_B, CLAUDE_MANUAL, CLAUDE_AUTO] {
        let (_dir, whole) = store();
        let full = import_one(&whole, &fixtures().join(fixture));
        let again = import_one(&whole, &fixtures().join(fixture));
        assert_eq!((again.id.clone(), again.messages, again.added), (full.id.clone(), full.messages, 0));
        let expected = rows(&whole, &full.id);

        // The same file, written in three steps (cut mid-line once), imported after each.
        let source = std::fs::read(fixtures().join(fixture)).unwrap();
        let (_dir2, growing) = store();
        let work = tempfile::tempdir().unwrap();
        let path = work.path().join(Path::new(fixture).file_name().unwrap());
        let cuts = [source.len() / 3, source.len() / 3 * 2 + 7, source.len()];
        let mut written = 0;
        let mut file = std::fs::File::create(&path).unwrap();
        for cut in cuts {
            file.write_all(&source[written..cut]).unwrap();
            file.flush().unwrap();
            written = cut;
            import_one(&growing, &path);
        }
        assert_eq!(rows(&growing, &full.id), expected, "{fixture}");
    }
}

#[test]
fn garbage_and_a_cut_last_line_are_reported_and_the_rest_imported() {
    let (_dir, store) = store();
    let work = tempfile::tempdir().unwrap();
    let path = work.path().join("rollout-x.jsonl");
    let source = std::fs::read_to_string(fixtures().join(CODEX_A)).unwrap();
    let lines: Vec<&str> = source.lines().collect();
    let mut text = lines[..20].join("\n");
    text.push_str("\nthis is not json\n");
    text.push_str(&lines[20..].join("\n")[..]);
    text.push('\n');
    text.push_str(r#"{"timestamp":"2026-11-30T17:49:00.000Z","type":"response_item","payload":{"type":"mess"#);
    std::fs::write(&path, &text).unwrap();
    let imported = import_one(&store, &path);
    let skipped: Vec<(Position, bool)> =
        imported.skipped.iter().map(|s| (s.line.clone(), s.reason.starts_with("not JSON"))).collect();
    assert_eq!(skipped, [(Position::Line(21), true), (Position::Line(lines.len() as u64 + 2), false)]);
    assert!(imported.skipped[1].reason.contains("incomplete last line"));
    assert_eq!(imported.messages, 32, "every other record was imported");

    // The writer finishes the line: it is imported, and nothing is duplicated.
    text.push_str(r#"age","role":"user","content":[{"type":"input_text","text":"late prompt"}]}}"#);
    text.push('\n');
    std::fs::write(&path, &text).unwrap();
    let again = import_one(&store, &path);
    assert_eq!((again.messages, again.added), (33, 1));
    assert_eq!(again.skipped.len(), 1, "the finished line is no longer reported");
}

#[test]
fn a_source_rewritten_in_place_is_read_again_without_duplicates() {
    let (_dir, store) = store();
    let work = tempfile::tempdir().unwrap();
    let path = work.path().join("session.jsonl");
    std::fs::copy(fixtures().join(CLAUDE_MANUAL), &path).unwrap();
    let first = import_one(&store, &path);
    let text = std::fs::read_to_string(&path).unwrap().replace("hello from turn1", "HELLO FROM TURN1");
    std::fs::write(&path, text).unwrap();
    let second = import_one(&store, &path);
    assert_eq!((second.id.clone(), second.messages), (first.id, first.messages));
    let stored = stored_view(&store, &session_of(&store, &second.id)).unwrap();
    assert!(stored.messages.iter().any(|m| m.content.contains("HELLO FROM TURN1")));
    assert!(!stored.messages.iter().any(|m| m.content.contains("hello from turn1")));
}

#[test]
fn an_opencode_database_is_read_while_opencode_writes_it_in_wal_mode() {
    let (_dir, store) = store();
    let work = tempfile::tempdir().unwrap();
    let path = work.path().join("opencode.db");
    std::fs::copy(fixtures().join("opencode/opencode.db"), &path).unwrap();
    let writer = rusqlite::Connection::open(&path).unwrap();
    writer.query_row("PRAGMA journal_mode = WAL", [], |r| r.get::<_, String>(0)).unwrap();
    let session = "ses_dd26eb074ffenpOs2hjVwkdumC";
    let first = import(&store, std::slice::from_ref(&path));
    let before = first.imported.iter().find(|s| s.source_id == session).unwrap().messages;

    // OpenCode keeps writing (a transaction open across the import), then commits a new turn.
    writer.execute_batch("BEGIN IMMEDIATE").unwrap();
    let insert = |id: &str, at: i64, data: Value, part: Value| {
        writer
            .execute(
                "INSERT INTO message (id, session_id, time_created, time_updated, data) VALUES (?1, ?2, ?3, ?3, ?4)",
                rusqlite::params![id, session, at, data.to_string()],
            )
            .unwrap();
        writer
            .execute(
                "INSERT INTO part (id, message_id, session_id, time_created, time_updated, data) VALUES (?1, ?2, ?3, ?4, ?4, ?5)",
                rusqlite::params![format!("prt_{id}"), id, session, at, part.to_string()],
            )
            .unwrap();
    };
    insert(
        "msg_zz1",
        1_896_060_900_000,
        json!({"role": "user", "time": {"created": 1_896_060_900_000i64}}),
        json!({"type": "text", "text": "one more"}),
    );
    let during = import(&store, std::slice::from_ref(&path));
    assert!(during.errors.is_empty(), "{during:?}");
    let unchanged = during.imported.iter().find(|s| s.source_id == session).unwrap().messages;
    assert_eq!(unchanged, before, "uncommitted rows are not read");
    writer.execute_batch("COMMIT").unwrap();
    let after = import(&store, std::slice::from_ref(&path));
    let grown = after.imported.iter().find(|s| s.source_id == session).unwrap();
    assert_eq!((grown.messages, grown.added), (before + 1, 1));
}

#[test]
fn paths_that_hold_no_known_format_are_told_apart_from_unreadable_ones() {
    let (_dir, store) = store();
    let work = tempfile::tempdir().unwrap();
    std::fs::write(work.path().join("notes.txt"), "hello").unwrap();
    std::fs::write(work.path().join("other.jsonl"), "{\"a\": 1}\n").unwrap();
    let report = import(&store, &[work.path().to_path_buf(), work.path().join("missing.jsonl")]);
    assert_eq!(report.unknown, [work.path().to_path_buf()]);
    assert_eq!(report.errors.len(), 1);
    assert!(report.errors[0].path.ends_with("missing.jsonl"));
    // Directories are walked: the fixtures hold two rollouts, two Claude sessions, two OpenCode ones.
    let report = import(&store, &[fixtures()]);
    let mut sources: Vec<&str> = report.imported.iter().map(|s| s.source.as_str()).collect();
    sources.sort();
    assert_eq!(sources, ["claude-code", "claude-code", "codex", "codex", "opencode", "opencode"]);
}

#[test]
fn claude_code_sidechains_are_sessions_of_their_own_and_parallel_calls_count_once_in_the_ledger() {
    let (_dir, store) = store();
    let work = tempfile::tempdir().unwrap();
    let path = work.path().join("46c4be69-b0e3-487e-97a4-c6832402089e.jsonl");
    let source = std::fs::read_to_string(fixtures().join(CLAUDE_MANUAL)).unwrap();
    let lines: Vec<&str> = source.lines().collect();
    // Spliced after the first tool result: a sub-agent's exchange, then a response that called two
    // tools at once (one record per tool_use, the same message id, as Claude Code writes them).
    let at = lines.iter().position(|l| l.contains("\"tool_result\"")).unwrap() + 1;
    let base = json!({"sessionId": "46c4be69-b0e3-487e-97a4-c6832402089e", "cwd": "/home/dev/work/claude-proj", "timestamp": "2026-11-30T17:50:58.000Z"});
    let record = |extra: Value| {
        let mut r = base.clone();
        r.as_object_mut().unwrap().extend(extra.as_object().unwrap().clone());
        r.to_string()
    };
    let usage = json!({"input_tokens": 10, "cache_read_input_tokens": 2500, "cache_creation_input_tokens": 700, "output_tokens": 3, "cache_miss_reason": "tools_changed"});
    let spliced = [
        record(
            json!({"type": "user", "uuid": "sc-1", "parentUuid": null, "isSidechain": true, "agentId": "a1", "message": {"role": "user", "content": "Explore: find the parser — 解析"}}),
        ),
        record(
            json!({"type": "assistant", "uuid": "sc-2", "parentUuid": "sc-1", "isSidechain": true, "agentId": "a1", "message": {"id": "msg_side", "role": "assistant", "model": "m", "content": [{"type": "text", "text": "src/parser.rs"}], "usage": usage}}),
        ),
        record(
            json!({"type": "assistant", "uuid": "p-1", "parentUuid": "x", "isSidechain": false, "message": {"id": "msg_par", "role": "assistant", "model": "m", "content": [{"type": "tool_use", "id": "toolu_A", "name": "Read", "input": {"file_path": "a.rs"}}], "usage": usage}}),
        ),
        record(
            json!({"type": "assistant", "uuid": "p-2", "parentUuid": "p-1", "isSidechain": false, "message": {"id": "msg_par", "role": "assistant", "model": "m", "content": [{"type": "tool_use", "id": "toolu_B", "name": "Read", "input": {"file_path": "b.rs"}}], "usage": usage}}),
        ),
        record(
            json!({"type": "user", "uuid": "p-3", "parentUuid": "p-1", "isSidechain": false, "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_A", "content": "fn a() {}", "is_error": false}]}}),
        ),
        record(
            json!({"type": "user", "uuid": "p-4", "parentUuid": "p-2", "isSidechain": false, "message": {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_B", "content": "no such file", "is_error": true}]}}),
        ),
    ];
    let mut text: Vec<String> = lines[..at].iter().map(|l| l.to_string()).collect();
    text.extend(spliced);
    text.extend(lines[at..].iter().map(|l| l.to_string()));
    std::fs::write(&path, text.join("\n") + "\n").unwrap();

    // The sub-agent is a session of its own under the main one; the main view never holds it.
    let report = import(&store, std::slice::from_ref(&path));
    assert!(report.errors.is_empty(), "{report:?}");
    let ids: Vec<&str> = report.imported.iter().map(|s| s.source_id.as_str()).collect();
    assert_eq!(ids, ["46c4be69-b0e3-487e-97a4-c6832402089e", "agent-a1"]);
    let (imported, agent) = (&report.imported[0], &report.imported[1]);
    let stored = stored_view(&store, &session_of(&store, &imported.id)).unwrap();
    assert!(!stored.messages.iter().any(|m| m.content.contains("解析")), "the sub-agent's records are its own");
    let sub = stored_view(&store, &session_of(&store, &agent.id)).unwrap();
    assert_eq!(
        sub.messages.iter().map(|m| m.content.as_str()).collect::<Vec<_>>(),
        ["Explore: find the parser — 解析", "src/parser.rs"]
    );
    assert_eq!(session_of(&store, &agent.id).parent_session.as_deref(), Some(imported.id.as_str()));
    assert_eq!(sub.model_calls.len(), 1, "the sub-agent's call is in its own ledger, once");
    assert_eq!(
        stored.model_calls.len(),
        13,
        "the sub-agent's call is not the main thread's; the parallel pair is one; the summary call is one"
    );
    // Cache creation tokens are cache writes (and part of the prompt); the agent's own miss reason is kept.
    let parallel = stored.model_calls.iter().find(|c| c.cache_write_tokens == Some(700)).unwrap();
    assert_eq!((parallel.prompt_tokens, parallel.cached_tokens), (Some(3210), Some(2500)));
    assert_eq!(parallel.agent_cache_reason.as_deref(), Some("tools_changed"));
    let failed = stored.messages.iter().find(|m| m.tool_call_id.as_deref() == Some("toolu_B")).unwrap();
    assert_eq!(failed.meta.as_ref().unwrap()["isError"], json!(true));
    let view = model_view(&store, &Config::default(), &session_of(&store, &imported.id), &[], None).unwrap();
    assert!(!texts(&view).iter().any(|t| t.contains("解析")), "a sub-agent's records never reach the main view");
}

/// The stored session of an import, resolved as the application resolves a command's argument.
fn session_of(store: &Store, id: &str) -> crate::store::Session {
    store.resolve_session(id).unwrap()
}

#[test]
fn value_at_reads_what_a_json_pointer_reads() {
    let doc = json!({"a": {"b": [10, {"c": "x"}], "d~e": 1, "f/g": 2, "": 3}, "0": "zero"});
    for pointer in [
        "", "/a", "/a/b", "/a/b/0", "/a/b/1/c", "/a/b/01", "/a/b/+1", "/a/b/2", "/a/d~0e", "/a/f~1g", "/a/", "/0",
        "/x/y", "a",
    ] {
        assert_eq!(value_at(&doc, pointer), doc.pointer(pointer), "{pointer}");
    }
}

/// Claude Code 2.1 keeps a sub-agent in `<session>/subagents/agent-*.jsonl` with a `.meta.json`
/// naming the tool call that started it: imported with the session, it is a session of its own
/// whose parent is that session and that call; its calls count once, in its own ledger.
#[test]
fn a_sub_agents_file_is_its_own_session_linked_to_the_call_that_started_it() {
    let (_dir, store) = store();
    let project = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../../tests/fixtures/compat/claude-code/2.1.332/.claude/projects/-tmp-compat-claude-code-proj");
    let report = import(&store, &[project]);
    assert!(report.errors.is_empty(), "{report:?}");
    let agent = report.imported.iter().find(|s| s.source_id == "agent-a2fc91385821ca00d").unwrap();
    let main = report.imported.iter().find(|s| s.source_id == "bd371720-6f90-4fd2-86f3-56ca28391bd5").unwrap();
    let stored = stored_view(&store, &session_of(&store, &agent.id)).unwrap();
    let parent = stored.parent.unwrap();
    assert_eq!(parent.session, main.id);
    // The call that started it: the main session's answer holding the Agent tool call.
    let n = parent.call.expect("the call is named");
    let main_view = stored_view(&store, &session_of(&store, &main.id)).unwrap();
    let row = &main_view.model_calls[n - 1];
    let answer = main_view.messages.iter().find(|m| Some(m.seq) == row.response_seq).unwrap();
    let holder = main_view.messages.iter().find(|m| m.tool_calls.iter().any(|c| c.id == "toolu_06mock0")).unwrap();
    assert!(answer.seq <= holder.seq, "call {n} answered with the Agent call (its first record at {})", answer.seq);
    // Its calls are its own; the main session lists it as one sub-agent.
    assert_eq!(stored.model_calls.len(), 2);
    let listed = store.list_sessions().unwrap();
    let main_row = listed.iter().find(|s| s.id == main.id).unwrap();
    assert_eq!(main_row.subagents, 1);
    assert_eq!(listed.iter().find(|s| s.id == agent.id).unwrap().parent.as_deref(), Some(main.id.as_str()));
}
