//! Benchmark: `alisio usage` over 5,000 sessions and 500,000 model calls in a real SQLite file
//! (four priced models and one unpriced, 90 days, long prompts past a long-context band). Prints
//! min / median / max per grouping over repeated runs; target: ≤ 200 ms.
//! Run with `cargo bench -p alisio-engine --bench usage` (`ALISIO_BENCH_SMOKE=1`: 50 sessions).
//! The first model's price is given in config with three prompt-length bands (100k, 200k and
//! 272k tokens), as GPT-5.4 and Gemini price long prompts.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use alisio_engine::config::{LongContextConfig, PriceConfig};
use alisio_engine::cost::usage::{report, UsageBy, UsageQuery};
use alisio_engine::cost::PriceBook;
use alisio_engine::store::imported::{insert_call, RequestShape, Usage};
use alisio_engine::store::{Purpose, Store, WireApi};

const MODELS: [&str; 5] =
    ["claude-sonnet-4-5-20250929", "gpt-5", "gemini-2.5-pro", "claude-haiku-4-5", "qwen3-coder:30b"];
const RUNS: usize = 10;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let smoke = std::env::var_os("ALISIO_BENCH_SMOKE").is_some();
    let (sessions, per_session) = if smoke { (50, 100) } else { (5_000, 100) };
    let dir = tempfile::tempdir()?;
    let store = Store::open(&dir.path().join("sessions.db"))?;
    let started = Instant::now();
    let mut ids = Vec::with_capacity(sessions);
    for s in 0..sessions {
        ids.push(store.create_session(&format!("/home/dev/project-{}", s % 40), &format!("session {s}"))?.id);
    }
    store.write(|tx| {
        for (s, id) in ids.iter().enumerate() {
            for c in 0..per_session {
                let day = (s * 90 / sessions) as u32;
                let mut usage = Usage::new(Purpose::Turn, WireApi::Messages);
                usage.model = MODELS[(s + c / 50) % MODELS.len()].to_string();
                usage.prompt_tokens = Some(20_000 + (c as u64 * 2_311) % 230_000);
                usage.cached_tokens = Some(15_000 + (c as u64 * 1_009) % 5_000);
                usage.cache_write_tokens = Some(c as u64 % 7 * 300);
                usage.completion_tokens = Some(300 + c as u64 % 900);
                usage.started_at =
                    format!("2026-{:02}-{:02}T{:02}:{:02}:00.000Z", 9 + day / 30, 1 + day % 30, c / 60 % 24, c % 60);
                insert_call(tx, id, RequestShape { ranges: &[], chars: 80_000 }, &usage)?;
            }
        }
        Ok(())
    })?;
    let calls = sessions * per_session;
    println!("populated {sessions} sessions, {calls} calls in {:.1} s", started.elapsed().as_secs_f64());

    let band = |above: u64, input: f64| LongContextConfig { above, input, output: input * 5.0, ..Default::default() };
    let mut prices = BTreeMap::new();
    for (model, above, input) in [(MODELS[0], 100_000, 4.0), (MODELS[1], 200_000, 2.5), (MODELS[2], 272_000, 2.5)] {
        let config =
            PriceConfig { input: 1.25, output: 10.0, long_context: Some(band(above, input)), ..Default::default() };
        prices.insert(model.to_string(), config);
    }
    let book = PriceBook::new(&prices)?;
    let t = Instant::now();
    let mut n = 0u64;
    store.each_call_usage(&Default::default(), false, |c| n += c.prompt_tokens)?;
    println!("every call read one by one (what the daily sums spare): {:.1} ms", t.elapsed().as_secs_f64() * 1000.0);
    std::hint::black_box(n);
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    for by in [
        UsageBy::Day,
        UsageBy::Week,
        UsageBy::Month,
        UsageBy::Session,
        UsageBy::Model,
        UsageBy::Project,
        UsageBy::Source,
    ] {
        let query = UsageQuery { by, since: None, until: None, source: None, model: None, fold_subagents: false };
        let mut times = Vec::with_capacity(RUNS);
        let mut rows = 0;
        let mut total = None;
        for _ in 0..RUNS {
            let t = Instant::now();
            let r = report(&store, &book, &query)?;
            times.push(t.elapsed());
            rows = r.rows.len();
            total = Some(r.total);
        }
        times.sort();
        let total = total.unwrap_or_default();
        if total.calls != calls as u64 {
            return Err(format!("the report counted {} calls of {calls}", total.calls).into());
        }
        println!(
            "usage --by {by:?}: {rows} rows; min {:.1} ms, median {:.1} ms, max {:.1} ms over {RUNS} runs \
             (target ≤ 200 ms); total {} calls, cost ${:.2}, {} unpriced",
            ms(times[0]),
            ms(times[RUNS / 2]),
            ms(times[RUNS - 1]),
            total.calls,
            total.cost_usd.map_or(0.0, |m| m.usd()),
            total.unpriced_calls,
        );
    }
    Ok(())
}
