//! Benchmark: building the model view of a session of 100,000 stored messages (50,000 of them
//! compacted) from a real SQLite file. Run with `cargo bench -p alisio-engine --bench model_view`.
//! Prints min / median / p90 over repeated runs; target: median ≤ 100 ms.

use std::time::{Duration, Instant};

use alisio_engine::config::Config;
use alisio_engine::store::Store;
use alisio_engine::view::model_view;

#[path = "support/long_session.rs"]
mod long_session;

const MESSAGES: usize = 100_000;
const COMPACTED: usize = 50_000;
const RUNS: usize = 30;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = tempfile::tempdir()?;
    let store = Store::open(&dir.path().join("sessions.db"))?;
    let session = store.create_session("/tmp/bench-workspace", "benchmark")?;
    let started = Instant::now();
    long_session::populate_long_session(&store, &session.id, MESSAGES, COMPACTED)?;
    println!("populated {MESSAGES} messages ({COMPACTED} compacted) in {:.1} s", started.elapsed().as_secs_f64());

    let config = Config::default();
    let mut times: Vec<Duration> = Vec::with_capacity(RUNS);
    let mut live = 0;
    for _ in 0..RUNS {
        let t = Instant::now();
        let view = model_view(&store, &config, &session, &[], None)?;
        times.push(t.elapsed());
        live = view.messages.len();
        std::hint::black_box(&view);
    }
    times.sort();
    let t = Instant::now();
    for _ in 0..5 {
        std::hint::black_box(store.live_messages(&session.id)?);
    }
    println!("live_messages alone: {:.1} ms", t.elapsed().as_secs_f64() * 200.0);
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!(
        "model view ({live} messages sent): min {:.1} ms, median {:.1} ms, p90 {:.1} ms over {RUNS} runs",
        ms(times[0]),
        ms(times[RUNS / 2]),
        ms(times[RUNS * 9 / 10])
    );
    Ok(())
}
