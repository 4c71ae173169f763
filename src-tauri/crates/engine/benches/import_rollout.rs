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

/// Writes the rollout line by line (never held in memory) and returns its size in bytes.
fn generate(path: &Path) -> std::io::Result<u64> {
    let mut out = BufWriter::new(std::fs::File::create(path)?);
    let mut ordinal = 0u64;
    let mut line = |out: &mut BufWriter<std::fs::File>, kind: &str, payload: Value, metadata: Option<Value>| {
        let second = ordinal / 10;
        let mut record = json!({
            "timestamp": format!("2026-11-30T{:02}:{:02}:{:02}.{:03}Z", 10 + second / 3600 % 12, second / 60 % 60, second % 60, ordinal % 1000),
            "ordinal": ordinal,
            "type": kind,
            "payload": payload,
        });
        if let Some(m) = metadata {
            record["metadata"] = m;
        }
        ordinal += 1;
        serde_json::to_writer(&mut *out, &record).map_err(std::io::Error::other)?;
        out.write_all(b"\n")
    };
    let thread = "01a22d92-df3a-72a1-bd0b-7184d9a4858e";
    line(
        &mut out,
        "session_meta",
        json!({"id": thread, "session_id": thread, "cwd": "/home/dev/work/big", "cli_version": "0.171.0",
               "model_provider": "mock", "base_instructions": {"text": "You are a coding agent. ".repeat(800)}}),
        None,
    )?;
    let per_compaction = CALLS / (COMPACTIONS + 1);
    let mut prompts: Vec<String> = Vec::new();
    let mut response = 0;
    for call in 0..CALLS {
        let turn = format!("turn-{}", call / 4);
        if call % 4 == 0 {
            line(
                &mut out,
                "event_msg",
                json!({"type": "task_started", "turn_id": turn, "turn_attribution": {"turn_id": turn}, "model_context_window": 95000}),
                None,
            )?;
            line(
                &mut out,
                "turn_context",
                json!({"turn_id": turn, "cwd": "/home/dev/work/big", "model": "mock"}),
                None,
            )?;
            let prompt = format!("DO exec_command {{\"cmd\":\"cargo test --test step{call}\"}} — étape {call} ✓");
            prompts.push(prompt.clone());
            line(
                &mut out,
                "response_item",
                json!({"type": "message", "id": format!("msg_u{call}"), "role": "user", "content": [{"type": "input_text", "text": prompt}]}),
                Some(json!({"history_sequence": call})),
            )?;
        }
        let id = format!("call_{call}-Zq.9/x");
        let arguments = json!({"cmd": format!("cargo test --test step{call}")}).to_string();
        line(
            &mut out,
            "response_item",
            json!({"type": "function_call", "id": format!("fc_{call}"), "name": "exec_command", "arguments": arguments, "call_id": id}),
            None,
        )?;
        response += 1;
        line(
            &mut out,
            "token_usage_record",
            json!({"response_id": format!("resp_{response}"), "turn_id": turn,
            "usage": {"input_tokens": 20000 + call, "cached_input_tokens": 19000 + call, "output_tokens": 12}}),
            None,
        )?;
        let output: String = format!("line {call}: ok\n").repeat(OUTPUT_CHARS / 14);
        line(
            &mut out,
            "event_msg",
            json!({"type": "item_completed", "turn_id": turn, "item": {"type": "CommandExecution", "id": id,
            "command": ["/bin/bash", "-lc", "cargo test"], "aggregated_output": output, "exit_code": (call % 7 == 0) as i32,
            "duration": {"secs": 0, "nanos": 18728}}}),
            None,
        )?;
        line(
            &mut out,
            "response_item",
            json!({"type": "function_call_output", "id": format!("fco_{call}"), "call_id": id,
            "output": format!("Chunk ID: {call:06x}\nWall time: 0.0000 seconds\nProcess exited with code 0\nOutput:\n{output}")}),
            None,
        )?;
        line(
            &mut out,
            "event_msg",
            json!({"type": "token_count", "info": {"last_token_usage": {"input_tokens": 20000}}}),
            None,
        )?;
        if call % 4 == 3 {
            line(
                &mut out,
                "response_item",
                json!({"type": "message", "id": format!("msg_a{call}"), "role": "assistant", "content": [{"type": "output_text", "text": format!("ack {id}")}]}),
                None,
            )?;
            response += 1;
            line(
                &mut out,
                "token_usage_record",
                json!({"response_id": format!("resp_{response}"), "turn_id": turn, "usage": {"input_tokens": 20100 + call, "cached_input_tokens": 20000 + call, "output_tokens": 5}}),
                None,
            )?;
            line(&mut out, "event_msg", json!({"type": "task_complete", "turn_id": turn, "duration_ms": 191}), None)?;
        }
        if call > 0 && call % per_compaction == 0 && call / per_compaction <= COMPACTIONS {
            // An automatic compaction inside the turn: the summarizer's answer, its usage, `compacted`.
            let summary = "{\"goal\": \"finish the parser\", \"nextSteps\": [\"run the tests\"]}";
            response += 1;
            line(
                &mut out,
                "response_item",
                json!({"type": "message", "id": format!("msg_s{call}"), "role": "assistant", "content": [{"type": "output_text", "text": summary}]}),
                Some(json!({"compaction_output": true})),
            )?;
            line(
                &mut out,
                "token_usage_record",
                json!({"response_id": format!("resp_{response}"), "turn_id": turn, "usage": {"input_tokens": 90000, "cached_input_tokens": 80000, "output_tokens": 74}}),
                None,
            )?;
            let message = format!("Another language model started to solve this problem and produced a summary of its thinking process.\n{summary}");
            let mut history: Vec<Value> = prompts.iter().enumerate().map(|(i, p)| json!({"type": "message", "id": format!("msg_r{call}_{i}"), "role": "user", "content": [{"type": "input_text", "text": p}]})).collect();
            history
                .push(json!({"type": "message", "role": "user", "content": [{"type": "input_text", "text": message}]}));
            line(
                &mut out,
                "compacted",
                json!({"message": message, "replacement_history": history, "window_number": call / per_compaction, "compaction_response_id": format!("resp_{response}")}),
                None,
            )?;
        }
    }
    out.flush()?;
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
