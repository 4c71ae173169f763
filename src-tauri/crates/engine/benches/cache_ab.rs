//! A/B benchmark of cache-compatible compaction on a real llama.cpp server: the same long history summarized by
//! (a) a rebuilt summarizer prompt, as OpenCode sends it (history pasted into one user message, no
//! tools, a fresh system prompt), and (b) Alisio's appended request (the live request unchanged,
//! plus one user message). Before every measured request the live request is sent once (as the
//! previous turn would have been), so the server's prefix cache holds it.
//!
//! Needs a server: `./tests/bench/llama_cache_ab.sh` starts one and runs this. Or set ALISIO_BENCH_URL
//! (e.g. http://127.0.0.1:18080/v1) and run `cargo bench -p alisio-engine --bench cache_ab`.

use std::time::Instant;

use alisio_engine::compaction::cache::HANDOFF_REQUEST;
use alisio_engine::config::Config;
use alisio_engine::provider::wire::WireItem;
use alisio_engine::provider::{build_body, Completion, Provider, RequestOptions};
use alisio_engine::store::sessions::append_message;
use alisio_engine::store::Store;
use alisio_engine::tools::catalog_json;
use alisio_engine::transcript::{NewMessage, ToolCall};
use alisio_engine::view::{system_prompt, PreparedRequest};
use serde_json::json;
use tokio_util::sync::CancellationToken;

type BoxError = Box<dyn std::error::Error>;

#[derive(Debug, Clone, Copy)]
struct Sample {
    prompt: u64,
    cached: u64,
    prompt_ms: f64,
    ttft_ms: f64,
    wall_ms: f64,
}

fn sample(c: &Completion, wall_ms: f64) -> Sample {
    Sample {
        prompt: c.usage.prompt_tokens.unwrap_or(0),
        cached: c.usage.cached_tokens.unwrap_or(0),
        prompt_ms: c.usage.prompt_ms.unwrap_or(f64::NAN),
        ttft_ms: c.ttft_ms.map(|t| t as f64).unwrap_or(f64::NAN),
        wall_ms,
    }
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(|a, b| a.total_cmp(b));
    values[values.len() / 2]
}

/// The three request bodies for one run's history: the live request (what the previous turn sent),
/// (b) the appended summary request and (a) the rebuilt summarizer prompt. Each run gets its own
/// history, as each real compaction does, so no run can hit a prompt cached by an earlier one.
fn requests(config: &Config, run: usize) -> Result<[serde_json::Value; 3], BoxError> {
    let nonce = format!("{run}-{}", std::process::id());
    // A long coding session: prompts, answers and tool results (≈ 5,000 tokens with the catalog).
    let dir = tempfile::tempdir()?;
    let store = Store::open(&dir.path().join("sessions.db"))?;
    let session = store.create_session("/work/project", "bench")?;
    store.write(|tx| {
        for i in 0..14 {
            let file = format!("src/module_{i}.rs");
            append_message(tx, &session.id, &NewMessage::user(format!(
                "[{nonce}] Step {i}: open {file}, check that the parser reports line numbers for every error, and fix what is missing."
            )))?;
            let call = ToolCall { id: format!("call_{i}"), name: "read_file".into(), arguments: json!({"path": file}).to_string() };
            append_message(tx, &session.id, &NewMessage::assistant(format!("Reading {file}."), vec![call], None))?;
            let body: String = (0..7).map(|l| format!("fn rule_{i}_{l}(input: &str) -> Result<Token, Error> {{ parse(input, {l}) }}\n")).collect();
            append_message(tx, &session.id, &NewMessage::tool_result(&format!("call_{i}"), body))?;
            append_message(tx, &session.id, &NewMessage::assistant(format!(
                "{file} now reports the line and column of each error; the tests for module {i} pass, and the next step is module {}.",
                i + 1
            ), vec![], None))?;
        }
        Ok(())
    })?;
    let live = store.live_messages(&session.id)?;
    let transcript: String = live
        .iter()
        .map(|m| {
            let calls: String = m.tool_calls.iter().map(|c| format!(" [calls {} {}]", c.name, c.arguments)).collect();
            format!("{}: {}{}\n", m.role.as_str(), m.content, calls)
        })
        .collect();
    let prepared = PreparedRequest::build(config.provider.api, system_prompt(config, &session.workspace), live, &[]);
    let live_body = build_body(
        &config.provider,
        &prepared.wire,
        &prepared.tools,
        RequestOptions { max_tokens: 1, tool_choice_none: false },
    );
    let mut appended = prepared.wire.clone();
    appended.push(WireItem::Text { role: "user", content: HANDOFF_REQUEST.into() });
    let appended_body = build_body(
        &config.provider,
        &appended,
        &prepared.tools,
        RequestOptions { max_tokens: 64, tool_choice_none: false },
    );
    let rebuilt = vec![
        WireItem::Text { role: "system", content: "You summarize coding sessions for a hand-off.".into() },
        WireItem::Text {
            role: "user",
            content: format!("Here is the conversation so far:\n\n{transcript}\n{HANDOFF_REQUEST}"),
        },
    ];
    let rebuilt_body = build_body(
        &config.provider,
        &rebuilt,
        &catalog_json(config.provider.api, &[]),
        RequestOptions { max_tokens: 64, tool_choice_none: false },
    );

    Ok([live_body, appended_body, rebuilt_body])
}

fn main() -> Result<(), BoxError> {
    let Ok(url) = std::env::var("ALISIO_BENCH_URL") else {
        println!(
            "cache_ab: set ALISIO_BENCH_URL to a running llama.cpp server, or run ./tests/bench/llama_cache_ab.sh"
        );
        return Ok(());
    };
    let runs: usize = std::env::var("ALISIO_BENCH_RUNS").ok().and_then(|r| r.parse().ok()).unwrap_or(3);
    let mut config = Config::default();
    config.provider.base_url = url;
    config.provider.model = std::env::var("ALISIO_BENCH_MODEL").unwrap_or_else(|_| "gemma3-270m".into());
    config.provider.timeout_ms = 600_000;
    let provider = Provider::new(&config.provider)?;

    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let cancel = CancellationToken::new();
    let send = |body: serde_json::Value| {
        let provider = &provider;
        let cancel = &cancel;
        async move {
            let started = Instant::now();
            let completion = provider.send(&body, &mut |_| {}, cancel).await?;
            Ok::<Sample, BoxError>(sample(&completion, started.elapsed().as_secs_f64() * 1000.0))
        }
    };
    let mut a = Vec::new();
    let mut b = Vec::new();
    runtime.block_on(async {
        for run in 0..runs {
            let [live_body, appended_body, rebuilt_body] = requests(&config, run)?;
            send(live_body.clone()).await?; // the previous turn: the server now caches the live prefix
            a.push(send(rebuilt_body).await?);
            send(live_body).await?;
            b.push(send(appended_body).await?);
            eprintln!("run {}: (a) {:?}\n        (b) {:?}", run + 1, a[run], b[run]);
        }
        Ok::<(), BoxError>(())
    })?;

    let row = |name: &str, s: &[Sample]| {
        let reprocessed = median(s.iter().map(|x| (x.prompt - x.cached) as f64 / x.prompt as f64 * 100.0).collect());
        format!(
            "| {name} | {:.0} | {:.0} | {reprocessed:.1} % | {:.0} | {:.0} | {:.0} |",
            median(s.iter().map(|x| x.prompt as f64).collect()),
            median(s.iter().map(|x| x.cached as f64).collect()),
            median(s.iter().map(|x| x.prompt_ms).collect()),
            median(s.iter().map(|x| x.ttft_ms).collect()),
            median(s.iter().map(|x| x.wall_ms).collect()),
        )
    };
    println!("medians over {runs} runs per case, model {}:\n", config.provider.model);
    println!("| case | prompt tokens | cached tokens | re-processed | prompt ms | TTFT ms | wall ms |");
    println!("|---|---|---|---|---|---|---|");
    println!("{}", row("(a) rebuilt summarizer prompt", &a));
    println!("{}", row("(b) appended request (Alisio)", &b));
    let ratio = |f: fn(&Sample) -> f64| median(a.iter().map(f).collect()) / median(b.iter().map(f).collect());
    println!(
        "\nratios (a)/(b): prompt phase {:.1}×, time to first token {:.1}×, wall {:.1}×",
        ratio(|s| s.prompt_ms),
        ratio(|s| s.ttft_ms),
        ratio(|s| s.wall_ms)
    );
    Ok(())
}
