//! Benchmark: importing a large Codex CLI rollout (about 100 MB: 20,000 tool calls, 5 compactions),
//! written by a generator with the record shapes of the real rollouts in tests/fixtures/import.
//! Run with `cargo bench -p alisio-engine --bench import_rollout`.
//! Prints the import time, the peak RSS during the import, and the time of an unchanged re-import;
//! targets: ≤ 10 s, ≤ 200 MB, ≤ 1 s.

use std::io::{BufWriter, Write};
use std::path::Path;
use std::time::Instant;

use alisio_engine::import;
use alisio_engine::store::Store;
use serde_json::{json, Value};

const CALLS: usize = 20_000;
const COMPACTIONS: usize = 5;
const OUTPUT_CHARS: usize = 1_600;

/// The rollout being written, line by line (never held in memory).
struct Rollout {
    out: BufWriter<std::fs::File>,
    ordinal: u64,
    response: u64,
    prompts: Vec<String>,
}

impl Rollout {
    fn line(&mut self, kind: &str, payload: Value, metadata: Option<Value>) -> std::io::Result<()> {
        let (ordinal, second) = (self.ordinal, self.ordinal / 10);
        let mut record = json!({
            "timestamp": format!("2026-11-30T{:02}:{:02}:{:02}.{:03}Z", 10 + second / 3600 % 12, second / 60 % 60, second % 60, ordinal % 1000),
            "ordinal": ordinal,
            "type": kind,
            "payload": payload,
        });
        if let Some(m) = metadata {
            record["metadata"] = m;
        }
        self.ordinal += 1;
        serde_json::to_writer(&mut self.out, &record).map_err(std::io::Error::other)?;
        self.out.write_all(b"\n")
    }

    fn usage(&mut self, turn: &str, input: usize, cached: usize, output: usize) -> std::io::Result<()> {
        self.response += 1;
        let usage = json!({"input_tokens": input, "cached_input_tokens": cached, "output_tokens": output});
        self.line(
            "token_usage_record",
            json!({"response_id": format!("resp_{}", self.response), "turn_id": turn, "usage": usage}),
            None,
        )
    }

    /// A turn's start: its context and the user's prompt.
    fn turn_start(&mut self, call: usize, turn: &str) -> std::io::Result<()> {
        let started = json!({"type": "task_started", "turn_id": turn, "turn_attribution": {"turn_id": turn}, "model_context_window": 95000});
        self.line("event_msg", started, None)?;
        self.line("turn_context", json!({"turn_id": turn, "cwd": "/home/dev/work/big", "model": "mock"}), None)?;
        let prompt = format!("DO exec_command {{\"cmd\":\"cargo test --test step{call}\"}} — étape {call} ✓");
        self.prompts.push(prompt.clone());
        let message = json!({"type": "message", "id": format!("msg_u{call}"), "role": "user", "content": [{"type": "input_text", "text": prompt}]});
        self.line("response_item", message, Some(json!({"history_sequence": call})))
    }

    /// One command call, its usage, its output.
    fn call(&mut self, call: usize, turn: &str, id: &str) -> std::io::Result<()> {
        let arguments = json!({"cmd": format!("cargo test --test step{call}")}).to_string();
        let item = json!({"type": "function_call", "id": format!("fc_{call}"), "name": "exec_command", "arguments": arguments, "call_id": id});
        self.line("response_item", item, None)?;
        self.usage(turn, 20000 + call, 19000 + call, 12)?;
        let output: String = format!("line {call}: ok\n").repeat(OUTPUT_CHARS / 14);
        let completed = json!({"type": "item_completed", "turn_id": turn, "item": {"type": "CommandExecution", "id": id,
            "command": ["/bin/bash", "-lc", "cargo test"], "aggregated_output": output, "exit_code": (call % 7 == 0) as i32,
            "duration": {"secs": 0, "nanos": 18728}}});
        self.line("event_msg", completed, None)?;
        let result = json!({"type": "function_call_output", "id": format!("fco_{call}"), "call_id": id,
            "output": format!("Chunk ID: {call:06x}\nWall time: 0.0000 seconds\nProcess exited with code 0\nOutput:\n{output}")});
        self.line("response_item", result, None)?;
        self.line(
            "event_msg",
            json!({"type": "token_count", "info": {"last_token_usage": {"input_tokens": 20000}}}),
            None,
        )
    }

    /// A turn's end: the answer, its usage, `task_complete`.
    fn turn_end(&mut self, call: usize, turn: &str, id: &str) -> std::io::Result<()> {
        let answer = json!({"type": "message", "id": format!("msg_a{call}"), "role": "assistant", "content": [{"type": "output_text", "text": format!("ack {id}")}]});
        self.line("response_item", answer, None)?;
        self.usage(turn, 20100 + call, 20000 + call, 5)?;
        self.line("event_msg", json!({"type": "task_complete", "turn_id": turn, "duration_ms": 191}), None)
    }

    /// An automatic compaction inside the turn: the summarizer's answer, its usage, `compacted`.
    fn compaction(&mut self, call: usize, turn: &str, window: usize) -> std::io::Result<()> {
        let summary = "{\"goal\": \"finish the parser\", \"nextSteps\": [\"run the tests\"]}";
        let answer = json!({"type": "message", "id": format!("msg_s{call}"), "role": "assistant", "content": [{"type": "output_text", "text": summary}]});
        self.line("response_item", answer, Some(json!({"compaction_output": true})))?;
        self.usage(turn, 90000, 80000, 74)?;
        let message = format!("Another language model started to solve this problem and produced a summary of its thinking process.\n{summary}");
        let mut history: Vec<Value> = self.prompts.iter().enumerate().map(|(i, p)| json!({"type": "message", "id": format!("msg_r{call}_{i}"), "role": "user", "content": [{"type": "input_text", "text": p}]})).collect();
        history.push(json!({"type": "message", "role": "user", "content": [{"type": "input_text", "text": message}]}));
        let compacted = json!({"message": message, "replacement_history": history, "window_number": window, "compaction_response_id": format!("resp_{}", self.response)});
        self.line("compacted", compacted, None)
    }
}

/// Writes the rollout and returns its size in bytes.
fn generate(path: &Path) -> std::io::Result<u64> {
    let mut rollout =
        Rollout { out: BufWriter::new(std::fs::File::create(path)?), ordinal: 0, response: 0, prompts: Vec::new() };
    let thread = "01a22d92-df3a-72a1-bd0b-7184d9a4858e";
    rollout.line(
        "session_meta",
        json!({"id": thread, "session_id": thread, "cwd": "/home/dev/work/big", "cli_version": "0.171.0",
               "model_provider": "mock", "base_instructions": {"text": "You are a coding agent. ".repeat(800)}}),
        None,
    )?;
    let per_compaction = CALLS / (COMPACTIONS + 1);
    for call in 0..CALLS {
        let turn = format!("turn-{}", call / 4);
        if call % 4 == 0 {
            rollout.turn_start(call, &turn)?;
        }
        let id = format!("call_{call}-Zq.9/x");
        rollout.call(call, &turn, &id)?;
        if call % 4 == 3 {
            rollout.turn_end(call, &turn, &id)?;
        }
        if call > 0 && call % per_compaction == 0 && call / per_compaction <= COMPACTIONS {
            rollout.compaction(call, &turn, call / per_compaction)?;
        }
    }
    rollout.out.flush()?;
    Ok(std::fs::metadata(path)?.len())
}

/// Peak resident memory of this process (VmHWM), in MB.
fn peak_rss_mb() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kb: f64 = status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|v| v.parse().ok())
        .unwrap_or(0.0);
    kb / 1024.0
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let rollout = dir.path().join("rollout-2026-11-30T10-00-00-01a22d92-df3a-72a1-bd0b-7184d9a4858e.jsonl");
    let started = Instant::now();
    let bytes = generate(&rollout)?;
    println!(
        "generated {:.1} MB ({CALLS} tool calls, {COMPACTIONS} compactions) in {:.1} s",
        bytes as f64 / 1e6,
        started.elapsed().as_secs_f64()
    );

    let store = Store::open(&dir.path().join("sessions.db"))?;
    // Peak RSS from here on (Linux: writing 5 to clear_refs resets VmHWM).
    std::fs::write("/proc/self/clear_refs", "5")?;
    let base = peak_rss_mb();
    let started = Instant::now();
    let report = import::import(&store, std::slice::from_ref(&rollout));
    let first = started.elapsed();
    let session = report.imported.first().ok_or("nothing imported")?;
    println!(
        "import: {:.2} s, peak RSS {:.0} MB (process before: {base:.0} MB); {} messages, {} tool calls, {} compactions, {} skipped",
        first.as_secs_f64(),
        peak_rss_mb(),
        session.messages,
        session.tool_calls,
        session.compactions,
        session.skipped.len()
    );
    assert_eq!(session.tool_calls as usize, CALLS);
    assert_eq!(session.compactions as usize, COMPACTIONS);

    let started = Instant::now();
    let again = import::import(&store, &[rollout]);
    println!(
        "unchanged re-import: {:.3} s ({} new messages)",
        started.elapsed().as_secs_f64(),
        again.imported.first().map_or(0, |s| s.added)
    );
    Ok(())
}
