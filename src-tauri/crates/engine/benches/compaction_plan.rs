//! Benchmark: compaction planning and kept-tail reduction planning on a synthetic session of
//! 100,000 messages carrying 1 GB of content. Planning needs lengths only, so the content is
//! described, not allocated. Run with `cargo bench -p alisio-engine --bench compaction_plan`.
//! Prints min / median / p90 over repeated runs; target: median ≤ 20 ms.

use std::time::{Duration, Instant};

use alisio_engine::compaction::boundary::{select_safe_boundary, Shape};
use alisio_engine::compaction::budget::{auto_compaction_due, Pressure};
use alisio_engine::compaction::reduction::{plan_reduction, target, Cuttable, Sized};

const MESSAGES: usize = 100_000;
const CONTENT_BYTES: u64 = 1_000_000_000;
const RUNS: usize = 30;

fn main() {
    // Turns of: user prompt, then assistant call + tool result pairs, then a final answer.
    let mut shapes = Vec::with_capacity(MESSAGES);
    let mut sizes = Vec::with_capacity(MESSAGES);
    let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let mut call = 0usize;
    while shapes.len() < MESSAGES {
        shapes.push(Shape::user());
        sizes.push((Cuttable::Text, 0u64));
        for _ in 0..(next() % 8) {
            let id = format!("call_{call}");
            call += 1;
            shapes.push(Shape::assistant(&[&id]));
            sizes.push((Cuttable::Text, 0));
            shapes.push(Shape::tool(&id));
            sizes.push((Cuttable::ToolResult, 0));
        }
        shapes.push(Shape::assistant(&[]));
        sizes.push((Cuttable::Text, 0));
    }
    shapes.truncate(MESSAGES);
    sizes.truncate(MESSAGES);
    // Spread 1 GB: tool results get most of it, texts a little.
    let weights: Vec<u64> = sizes
        .iter()
        .map(|(kind, _)| if *kind == Cuttable::ToolResult { 40 + next() % 40 } else { 1 + next() % 3 })
        .collect();
    let total_weight: u64 = weights.iter().sum();
    let items: Vec<Sized> = sizes
        .iter()
        .zip(&weights)
        .map(|((kind, _), w)| Sized { kind: *kind, content_chars: CONTENT_BYTES * w / total_weight, fixed_chars: 40 })
        .collect();
    let content: u64 = items.iter().map(|i| i.content_chars).sum();
    println!("synthetic session: {} messages, {:.2} GB of content", items.len(), content as f64 / 1e9);

    let mut times: Vec<Duration> = Vec::with_capacity(RUNS);
    let mut summary = String::new();
    for _ in 0..RUNS {
        let t = Instant::now();
        let reducible: u64 = items.iter().map(|i| i.content_chars + i.fixed_chars).sum();
        let due = auto_compaction_due(
            Pressure { reducible_chars: reducible, tool_catalog_chars: 2_000 },
            Some(128_000),
            0.85,
            800_000,
        );
        let cut = select_safe_boundary(&shapes, 2);
        let kept = &items[*cut.as_ref().unwrap_or(&0)..];
        let plan = plan_reduction(kept, target(800_000, 1_000));
        let full = plan_reduction(&items, target(800_000, 1_000));
        times.push(t.elapsed());
        summary = format!(
            "trigger {:?}; boundary {:?}; kept-tail plan: {} cuts, fits {}; whole-session plan: {} cuts, fits {}",
            due.is_some(),
            cut,
            plan.cuts.len(),
            plan.fits,
            full.cuts.len(),
            full.fits
        );
        std::hint::black_box((&plan, &full));
    }
    times.sort();
    let ms = |d: Duration| d.as_secs_f64() * 1000.0;
    println!("{summary}");
    println!(
        "planning + reduction: min {:.1} ms, median {:.1} ms, p90 {:.1} ms over {RUNS} runs",
        ms(times[0]),
        ms(times[RUNS / 2]),
        ms(times[RUNS * 9 / 10])
    );
}
