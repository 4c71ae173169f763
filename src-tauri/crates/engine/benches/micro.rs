//! Micro-benchmarks (divan) of the engine's hot paths that every request, usage row or search goes
//! through: pricing a model id as written, a call's cost, the band of a prompt, plain-text search
//! queries, the model id's normalised forms, Anthropic usage read from a record. Run with
//! `cargo bench -p alisio-engine --bench micro`; `ALISIO_BENCH_SMOKE=1` (or `cargo test --benches`)
//! runs each once. The product benchmarks (whole libraries, the window, a real model) are listed
//! in tests/bench/README.md.

use std::collections::BTreeMap;
use std::sync::OnceLock;

use alisio_engine::cost::book::band_level;
use alisio_engine::cost::{names, AnthropicUsage, PriceBook, Tokens};
use alisio_engine::store::search::plain_query;
use divan::{black_box, Bencher};

fn main() {
    divan::main();
}

/// The shipped prices, read once (a benchmark without them measures nothing: it stops).
#[allow(clippy::expect_used)]
fn book() -> &'static PriceBook {
    static BOOK: OnceLock<PriceBook> = OnceLock::new();
    BOOK.get_or_init(|| PriceBook::new(&BTreeMap::new()).expect("the shipped prices"))
}

/// Ids as agents and gateways write them: found as written, or after one or several rules.
const IDS: [&str; 5] = [
    "claude-sonnet-4-5-20250929",
    "us.anthropic.claude-sonnet-4-5-20250929-v1:0",
    "openrouter/anthropic/claude-sonnet-4.5",
    "kimi-k2-thinking",
    "qwen2.5-coder:7b",
];

#[divan::bench(args = IDS)]
fn price_entry_of_an_id(id: &str) -> bool {
    book().entry(black_box(id), "2026-11-30").is_some()
}

#[divan::bench]
fn price_of_a_call(bencher: Bencher) {
    let tokens =
        Tokens { prompt: 180_000, cached: 150_000, cache_write: 20_000, cache_write_1h: 5_000, completion: 900 };
    bencher.bench(|| book().price(black_box("claude-sonnet-4-5-20250929"), "2026-11-30", &tokens, None));
}

#[divan::bench(args = [1_000, 150_000, 300_000, 900_000])]
fn band_of_a_prompt(prompt: u64) -> u8 {
    band_level(black_box(prompt))
}

#[divan::bench(args = ["gpt-4o", "src/parser.rs notes.txt ERR-42", "say \"hi foo::bar"])]
fn plain_text_as_a_query(text: &str) -> Option<String> {
    plain_query(black_box(text), true)
}

#[divan::bench(args = IDS)]
fn normalised_forms_of_an_id(id: &str) -> usize {
    names::candidates(black_box(id)).len()
}

#[divan::bench]
fn anthropic_usage_of_a_record(bencher: Bencher) {
    let usage = serde_json::json!({"input_tokens": 3, "cache_read_input_tokens": 90_000, "cache_creation_input_tokens": 2_000,
        "cache_creation": {"ephemeral_5m_input_tokens": 1_500, "ephemeral_1h_input_tokens": 500}, "output_tokens": 400});
    bencher.bench(|| AnthropicUsage::read(black_box(&usage)));
}
