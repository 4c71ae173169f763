use std::collections::BTreeMap;

use super::book::{Origin, PriceBook};
use super::*;
use crate::config::{LongContextConfig, PriceConfig};

fn book_price(book: &PriceBook, model: &str, date: &str, tokens: &Tokens) -> Option<Priced> {
    book.price(model, date, tokens, None)
}

fn price(input: f64, cached: Option<f64>, write: Option<f64>, output: f64, since: Option<&str>) -> PriceConfig {
    PriceConfig {
        input,
        cached_input: cached,
        cache_write: write,
        output,
        since: since.map(str::to_string),
        ..PriceConfig::default()
    }
}

#[test]
fn prices_are_exact_picodollars_per_token() {
    assert_eq!(per_token(3.0, "x").unwrap(), 3_000_000);
    assert_eq!(per_token(0.075, "x").unwrap(), 75_000);
    assert_eq!(per_token(0.000001, "x").unwrap(), 1);
    assert_eq!(per_token(18.75, "x").unwrap(), 18_750_000);
    assert!(per_token(0.0000001, "x").is_err(), "more than six decimals");
    assert!(per_token(-1.0, "x").is_err());
}

#[test]
fn every_price_field_counts_as_the_formula_says() {
    let mut config = BTreeMap::new();
    config.insert("m".to_string(), price(3.0, Some(0.3), Some(3.75), 15.0, None));
    let book = PriceBook::new(&config).unwrap();
    let tokens = Tokens { prompt: 10_000, cached: 6_000, cache_write: 1_000, cache_write_1h: 0, completion: 500 };
    let priced = book_price(&book, "m", "2026-11-30T10:00:00Z", &tokens).unwrap();
    // 3,000 uncached × $3/M + 6,000 × $0.30/M + 1,000 × $3.75/M + 500 × $15/M
    // = 0.009 + 0.0018 + 0.00375 + 0.0075 = $0.02205
    assert_eq!(priced.cost.micros(), 22_050);
    assert_eq!(priced.cost.0, 22_050_000_000);
    // 6,000 × ($3 − $0.30)/M = $0.0162
    assert_eq!(priced.savings.micros(), 16_200);
    assert_eq!(priced.cost.to_string(), "$0.022050");
    assert_eq!(Money(12_345_000_000_000).to_string(), "$12.35");
}

#[test]
fn a_long_prompt_is_priced_whole_at_its_band() {
    let book = PriceBook::new(&BTreeMap::new()).unwrap();
    let short = Tokens { prompt: 200_000, completion: 1_000, ..Tokens::default() };
    let long = Tokens { prompt: 200_001, ..short };
    let at = "2026-11-30";
    // Gemini 2.5 Pro (Google's pricing page): $1.25 / $10, prompts above 200k tokens $2.50 / $15.
    assert_eq!(book_price(&book, "gemini-2.5-pro", at, &short).unwrap().cost.micros(), 250_000 + 10_000);
    assert_eq!(book_price(&book, "gemini-2.5-pro", at, &long).unwrap().cost.micros(), 500_003 + 15_000);
}

#[test]
fn one_hour_cache_writes_are_priced_at_their_own_rate() {
    let book = PriceBook::new(&BTreeMap::new()).unwrap();
    // Claude Sonnet 4.5 (Anthropic's pricing page): 5-minute writes $3.75, 1-hour writes $6 (2× input).
    let tokens = Tokens { prompt: 1_000_000, cache_write: 1_000_000, cache_write_1h: 400_000, ..Tokens::default() };
    let cost = book_price(&book, "claude-sonnet-4-5-20250929", "2026-11-30", &tokens).unwrap().cost;
    assert_eq!(cost.micros(), 600_000 * 3_750_000 / 1_000_000 + 400_000 * 6);
    let all_five_minutes = Tokens { cache_write_1h: 0, ..tokens };
    assert_eq!(
        book_price(&book, "claude-sonnet-4-5-20250929", "2026-11-30", &all_five_minutes).unwrap().cost.micros(),
        3_750_000
    );
}

#[test]
fn a_model_without_a_price_is_unpriced_and_provider_prefixes_do_not_matter() {
    let book = PriceBook::new(&BTreeMap::new()).unwrap();
    let tokens = Tokens { prompt: 1000, ..Tokens::default() };
    assert!(book_price(&book, "qwen2.5-coder:7b", "2026-11-30", &tokens).is_none(), "a local model is never guessed");
    assert!(book_price(&book, "gpt-5-turbo-imaginary", "2026-11-30", &tokens).is_none());
    assert!(book_price(&book, "gpt-5.1-codex-mini-imaginary", "2026-11-30", &tokens).is_none(), "no prefix match");
    assert_eq!(book_price(&book, "anthropic/claude-haiku-4-5", "2026-11-30", &tokens).unwrap().cost.micros(), 1_000);
    assert_eq!(book_price(&book, "models/gemini-2.5-flash", "2026-11-30", &tokens).unwrap().cost.micros(), 300);
    // Siblings are told apart: gpt-5.1-codex-mini is not priced as gpt-5.1, nor gpt-4o-2024-05-13 as gpt-4o.
    assert_eq!(book_price(&book, "gpt-5.1-codex-mini", "2026-11-30", &tokens).unwrap().cost.micros(), 250);
    assert_eq!(book_price(&book, "gpt-5.1-codex", "2026-11-30", &tokens).unwrap().cost.micros(), 1_250);
    assert_eq!(book_price(&book, "gpt-4o-2024-05-13", "2026-11-30", &tokens).unwrap().cost.micros(), 5_000);
    assert_eq!(book_price(&book, "gpt-4o-2024-08-06", "2026-11-30", &tokens).unwrap().cost.micros(), 2_500);
}

#[test]
fn a_price_change_on_a_date_reprices_only_later_calls() {
    let book = PriceBook::new(&BTreeMap::new()).unwrap();
    let tokens = Tokens { prompt: 1_000_000, ..Tokens::default() };
    // o3: $10 at launch, $2 from 2025-06-10 (the overlay; LiteLLM's data has only the later price).
    assert_eq!(book_price(&book, "o3", "2025-06-09T23:59:59Z", &tokens).unwrap().cost.micros(), 10_000_000);
    assert_eq!(book_price(&book, "o3", "2025-06-10T00:00:00Z", &tokens).unwrap().cost.micros(), 2_000_000);
    assert_eq!(book.entry("o3", "2025-05-01").unwrap().origin, Origin::Overlay);
    // DeepSeek's four prices of deepseek-chat.
    let at = |day: &str| book_price(&book, "deepseek-chat", day, &tokens).unwrap().cost.micros();
    assert_eq!(
        [at("2025-01-15"), at("2025-03-01"), at("2025-09-10"), at("2025-10-01")],
        [140_000, 270_000, 560_000, 280_000]
    );
    // Claude 3.5 Haiku: LiteLLM's first snapshot has its launch price, a later one its cut.
    let haiku = |day: &str| book_price(&book, "claude-3-5-haiku-20241022", day, &tokens).unwrap().cost.micros();
    assert_eq!([haiku("2024-12-01"), haiku("2025-08-01")], [1_000_000, 800_000]);

    let mut config = BTreeMap::new();
    config.insert("m".to_string(), price(1.0, None, None, 2.0, Some("2026-01-01")));
    config.insert("m*".to_string(), price(9.0, None, None, 9.0, None));
    let book = PriceBook::new(&config).unwrap();
    assert_eq!(book_price(&book, "m", "2026-03-01T00:00:00Z", &tokens).unwrap().cost.micros(), 1_000_000);
    // The exact name is more specific than `m*`: before its date, m is unpriced.
    assert!(book_price(&book, "m", "2025-12-31T23:59:59Z", &tokens).is_none());
}

#[test]
fn a_retired_model_keeps_its_last_price() {
    let book = PriceBook::new(&BTreeMap::new()).unwrap();
    let tokens = Tokens { prompt: 1_000_000, completion: 1_000_000, ..Tokens::default() };
    // Gone from the current snapshot, still named by old sessions (Anthropic: $3 / $15, $15 / $75, $0.25 / $1.25).
    for (id, micros) in [
        ("claude-3-5-sonnet-20241022", 18_000_000),
        ("claude-3-opus-20240229", 90_000_000),
        ("claude-3-haiku-20240307", 1_500_000),
    ] {
        assert_eq!(book_price(&book, id, "2026-11-30", &tokens).unwrap().cost.micros(), micros, "{id}");
    }
}

#[test]
fn config_replaces_the_table_for_the_models_it_names() {
    let mut config = BTreeMap::new();
    config.insert("claude-haiku-4-5*".to_string(), price(2.0, Some(0.2), None, 10.0, None));
    let book = PriceBook::new(&config).unwrap();
    let tokens = Tokens { prompt: 1_000_000, cache_write: 500_000, ..Tokens::default() };
    // No cacheWrite given: writes are priced as input.
    assert_eq!(book_price(&book, "claude-haiku-4-5", "2026-11-30", &tokens).unwrap().cost.micros(), 2_000_000);
    assert_eq!(book.entry("claude-haiku-4-5", "2026-11-30").unwrap().origin, Origin::Config);
    assert_eq!(book.entry("claude-opus-4-5", "2026-11-30").unwrap().origin, Origin::Table);
}

#[test]
fn config_takes_any_number_of_bands_and_the_daily_sums_keep_the_data_s() {
    let band =
        |above: u64, input: f64| LongContextConfig { above, input, output: input, ..LongContextConfig::default() };
    let mut config = BTreeMap::new();
    let bands = vec![band(272_000, 3.0), band(100_000, 2.0), band(200_000, 2.5)];
    config.insert("x".to_string(), PriceConfig { bands, ..price(1.0, None, None, 1.0, None) });
    let book = PriceBook::new(&config).unwrap();
    assert!(book.daily_bands(), "100k, 200k and 272k are bands the daily sums keep apart");
    let input = |prompt| book.rates("x", "2026-01-01", prompt, None).unwrap().input;
    assert_eq!(
        [input(100_000), input(100_001), input(200_001), input(272_001)],
        [1_000_000, 2_000_000, 2_500_000, 3_000_000]
    );
    for prompt in [50_000, 100_001, 150_000, 250_000, 300_000, 600_000] {
        let e = book.entry("x", "2026-01-01").unwrap();
        assert_eq!(e.price.standard.at_level(book::band_level(prompt)), e.price.standard.at(prompt), "{prompt}");
    }
    let mut config = BTreeMap::new();
    config
        .insert("y".to_string(), PriceConfig { bands: vec![band(150_000, 2.0)], ..price(1.0, None, None, 1.0, None) });
    assert!(!PriceBook::new(&config).unwrap().daily_bands(), "a band the sums do not keep: calls are read one by one");
}

#[test]
fn every_entry_is_dated_and_in_order() {
    let book = PriceBook::new(&BTreeMap::new()).unwrap();
    assert!(book.ids().count() > 3_500);
    for id in book.ids() {
        let history = book.history(id);
        assert!(!history.is_empty(), "{id}");
        for e in history {
            assert!(e.since == "0000-01-01" || chrono::NaiveDate::parse_from_str(&e.since, "%Y-%m-%d").is_ok(), "{id}");
        }
        assert!(history.windows(2).all(|w| w[0].since <= w[1].since), "{id}");
    }
}

#[test]
fn recorded_dollar_figures_become_whole_picodollars_from_their_text() {
    use super::parse_picodollars as pd;
    assert_eq!(pd("0.02306055"), Some(23_060_550_000));
    assert_eq!(pd("0.023060549999999999"), Some(23_060_550_000), "rounded half up at the picodollar");
    assert_eq!(pd("1.2e-5"), Some(12_000_000));
    assert_eq!(pd("3"), Some(3_000_000_000_000));
    assert_eq!(pd("0"), Some(0));
    assert_eq!(pd(".5"), Some(500_000_000_000));
    assert_eq!(pd("-0.25"), Some(-250_000_000_000));
    assert_eq!(pd("abc"), None);
    assert_eq!(pd(""), None);
    assert_eq!(pd("1e400"), None);
}

/// Model ids as agents and gateways write them (Claude Code direct, on Bedrock and on Vertex;
/// Codex; Gemini CLI; OpenCode and Crush through OpenRouter; Aider's LiteLLM ids; Qwen Code, Kimi
/// CLI and the vendors' own APIs), each with its provider's published price (USD per million
/// tokens: input, cached input, output) on 2026-11-30.
const REAL_IDS: &[(&str, f64, f64, f64)] = &[
    // Anthropic (docs.anthropic.com/en/docs/about-claude/pricing)
    ("claude-opus-4-7", 5.0, 0.5, 25.0),
    ("claude-opus-4-6", 5.0, 0.5, 25.0),
    ("claude-opus-4-5-20251101", 5.0, 0.5, 25.0),
    ("claude-sonnet-4-6", 3.0, 0.3, 15.0),
    ("claude-sonnet-4-5-20250929", 3.0, 0.3, 15.0),
    ("claude-sonnet-4-20250514", 3.0, 0.3, 15.0),
    ("claude-opus-4-1-20250805", 15.0, 1.5, 75.0),
    ("claude-opus-4-20250514", 15.0, 1.5, 75.0),
    ("claude-haiku-4-5-20251001", 1.0, 0.1, 5.0),
    ("claude-3-7-sonnet-20250219", 3.0, 0.3, 15.0),
    ("claude-3-5-sonnet-20241022", 3.0, 0.3, 15.0),
    ("claude-3-5-sonnet-latest", 3.0, 0.3, 15.0),
    ("claude-3-5-haiku-20241022", 0.8, 0.08, 4.0),
    ("claude-3-opus-20240229", 15.0, 1.5, 75.0),
    ("claude-3-haiku-20240307", 0.25, 0.03, 1.25),
    ("anthropic/claude-sonnet-4.5", 3.0, 0.3, 15.0),
    ("anthropic/claude-opus-4.5", 5.0, 0.5, 25.0),
    ("anthropic/claude-haiku-4.5", 1.0, 0.1, 5.0),
    ("openrouter/anthropic/claude-sonnet-4.5", 3.0, 0.3, 15.0),
    // Bedrock: the global profile at Anthropic's price, the geographic ones 10 % above it (as AWS states)
    ("global.anthropic.claude-sonnet-4-5-20250929-v1:0", 3.0, 0.3, 15.0),
    ("anthropic.claude-sonnet-4-5-20250929-v1:0", 3.0, 0.3, 15.0),
    ("us.anthropic.claude-sonnet-4-5-20250929-v1:0", 3.3, 0.33, 16.5),
    ("eu.anthropic.claude-haiku-4-5-20251001-v1:0", 1.1, 0.11, 5.5),
    ("us.anthropic.claude-opus-4-6-v1", 5.5, 0.55, 27.5),
    ("us.anthropic.claude-3-7-sonnet-20250219-v1:0", 3.0, 0.3, 15.0),
    ("anthropic.claude-3-5-sonnet-20241022-v2:0", 3.0, 0.3, 15.0),
    // Vertex, as Claude Code writes its ids there
    ("claude-sonnet-4-5@20250929", 3.0, 0.3, 15.0),
    ("claude-sonnet-4@20250514", 3.0, 0.3, 15.0),
    ("claude-opus-4-1@20250805", 15.0, 1.5, 75.0),
    ("claude-haiku-4-5@20251001", 1.0, 0.1, 5.0),
    // OpenAI (platform.openai.com/docs/pricing)
    ("gpt-5", 1.25, 0.125, 10.0),
    ("gpt-5-2025-08-07", 1.25, 0.125, 10.0),
    ("gpt-5-codex", 1.25, 0.125, 10.0),
    ("gpt-5-codex-mini", 0.25, 0.025, 2.0),
    ("gpt-5.1", 1.25, 0.125, 10.0),
    ("gpt-5.1-codex", 1.25, 0.125, 10.0),
    ("gpt-5.1-codex-max", 1.25, 0.125, 10.0),
    ("gpt-5.1-codex-mini", 0.25, 0.025, 2.0),
    ("gpt-5.2", 1.75, 0.175, 14.0),
    ("gpt-5.2-codex", 1.75, 0.175, 14.0),
    ("gpt-5.4", 2.5, 0.25, 15.0),
    ("gpt-5-mini", 0.25, 0.025, 2.0),
    ("gpt-5-nano", 0.05, 0.005, 0.4),
    ("gpt-5-pro", 15.0, 15.0, 120.0),
    ("o1", 15.0, 7.5, 60.0),
    ("o3-mini", 1.1, 0.55, 4.4),
    ("o3", 2.0, 0.5, 8.0),
    ("o4-mini", 1.1, 0.275, 4.4),
    ("gpt-4.1", 2.0, 0.5, 8.0),
    ("gpt-4.1-mini", 0.4, 0.1, 1.6),
    ("gpt-4o", 2.5, 1.25, 10.0),
    ("gpt-4o-2024-05-13", 5.0, 5.0, 15.0),
    ("gpt-4o-2024-08-06", 2.5, 1.25, 10.0),
    ("gpt-4o-mini", 0.15, 0.075, 0.6),
    ("gpt-4o-mini-realtime-preview", 0.6, 0.3, 2.4),
    ("codex-mini-latest", 1.5, 0.375, 6.0),
    ("openai/gpt-5", 1.25, 0.125, 10.0),
    ("azure/gpt-5", 1.25, 0.125, 10.0),
    // Google (ai.google.dev/gemini-api/docs/pricing)
    ("gemini-2.5-pro", 1.25, 0.125, 10.0),
    ("models/gemini-2.5-pro", 1.25, 0.125, 10.0),
    ("google/gemini-2.5-pro", 1.25, 0.125, 10.0),
    ("gemini-2.5-flash", 0.3, 0.03, 2.5),
    ("gemini/gemini-2.5-flash", 0.3, 0.03, 2.5),
    ("gemini-2.5-flash-lite", 0.1, 0.01, 0.4),
    ("gemini-2.0-flash", 0.1, 0.025, 0.4),
    ("gemini-3-pro-preview", 2.0, 0.2, 12.0),
    ("gemini-3-flash-preview", 0.5, 0.05, 3.0),
    ("gemini-3.1-pro-preview", 2.0, 0.2, 12.0),
    // DeepSeek (api-docs.deepseek.com/quick_start/pricing)
    ("deepseek-chat", 0.28, 0.028, 0.42),
    ("deepseek-reasoner", 0.28, 0.028, 0.42),
    ("deepseek/deepseek-chat", 0.28, 0.028, 0.42),
    // xAI, Moonshot, Z.ai, Alibaba, Mistral, MiniMax: bare as their CLIs write them, or a gateway's form
    ("grok-4", 3.0, 3.0, 15.0),
    ("xai/grok-4", 3.0, 3.0, 15.0),
    ("kimi-k2-0905-preview", 0.6, 0.15, 2.5),
    ("kimi-k2-thinking", 0.6, 0.15, 2.5),
    ("glm-4.6", 0.6, 0.11, 2.2),
    ("z-ai/glm-4.6", 0.6, 0.11, 2.2),
    ("qwen3-coder-plus", 1.0, 0.1, 5.0),
    ("devstral-medium-2507", 0.4, 0.4, 2.0),
    ("devstral-small-2507", 0.1, 0.1, 0.3),
    ("mistral/codestral-latest", 0.3, 0.03, 0.9),
    ("MiniMax-M2", 0.3, 0.03, 1.2),
];

#[test]
fn real_model_ids_are_priced_at_their_providers_prices() {
    assert!(REAL_IDS.len() >= 60);
    let book = PriceBook::new(&BTreeMap::new()).unwrap();
    for (id, input, cached, output) in REAL_IDS {
        let rates = book.rates(id, "2026-11-30", 1_000, None).unwrap_or_else(|| panic!("{id} is unpriced"));
        let want = |p: f64| per_token(p, id).unwrap();
        assert_eq!(
            (rates.input, rates.cached_input, rates.output),
            (want(*input), want(*cached), want(*output)),
            "{id}"
        );
    }
    // Prompt-length bands of a tiered price (Alibaba: above 32k, 128k and 256k tokens).
    let qwen = |prompt| book.rates("qwen3-coder-plus", "2026-11-30", prompt, None).unwrap().input;
    assert_eq!(
        [qwen(32_000), qwen(32_001), qwen(128_001), qwen(256_001)],
        [1_000_000, 1_800_000, 3_000_000, 6_000_000]
    );
    // GPT-5.4 above 272k tokens: $5 / $22.50.
    let gpt = book.rates("gpt-5.4", "2026-11-30", 272_001, None).unwrap();
    assert_eq!((gpt.input, gpt.output), (5_000_000, 22_500_000));
}
