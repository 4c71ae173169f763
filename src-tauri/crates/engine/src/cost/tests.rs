use super::*;
use crate::config::{LongContextConfig, PriceConfig};

fn price(input: f64, cached: Option<f64>, write: Option<f64>, output: f64, since: Option<&str>) -> PriceConfig {
    PriceConfig {
        input,
        cached_input: cached,
        cache_write: write,
        output,
        since: since.map(str::to_string),
        long_context: None,
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
    let tokens = Tokens { prompt: 10_000, cached: 6_000, cache_write: 1_000, completion: 500 };
    let priced = book.price("m", "2026-11-30T10:00:00Z", &tokens).unwrap();
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
    let short = Tokens { prompt: 200_000, cached: 0, cache_write: 0, completion: 1_000 };
    let long = Tokens { prompt: 200_001, ..short };
    let at = "2026-11-30";
    // claude-sonnet-4-5: $3 / $15, above 200k tokens $6 / $22.50.
    assert_eq!(book.price("claude-sonnet-4-5-20250929", at, &short).unwrap().cost.micros(), 600_000 + 15_000);
    assert_eq!(book.price("claude-sonnet-4-5-20250929", at, &long).unwrap().cost.micros(), 1_200_006 + 22_500);
}

#[test]
fn a_model_without_a_price_is_unpriced_and_provider_prefixes_do_not_matter() {
    let book = PriceBook::new(&BTreeMap::new()).unwrap();
    let tokens = Tokens { prompt: 1000, ..Tokens::default() };
    assert!(book.price("qwen2.5-coder:7b", "2026-11-30", &tokens).is_none(), "a local model is never guessed");
    assert!(book.price("gpt-5-turbo-imaginary", "2026-11-30", &tokens).is_none());
    assert_eq!(book.price("anthropic/claude-haiku-4-5", "2026-11-30", &tokens).unwrap().cost.micros(), 1_000);
    assert_eq!(book.price("models/gemini-2.5-flash", "2026-11-30", &tokens).unwrap().cost.micros(), 300);
    // Before its first price took effect a model is unpriced too.
    assert!(book.price("claude-haiku-4-5", "2025-01-01", &tokens).is_none());
    // The most specific pattern wins: gpt-5.1-codex-mini is not priced as gpt-5.1.
    assert_eq!(book.price("gpt-5.1-codex-mini", "2026-11-30", &tokens).unwrap().cost.micros(), 250);
    assert_eq!(book.price("gpt-5.1-codex", "2026-11-30", &tokens).unwrap().cost.micros(), 1_250);
}

#[test]
fn a_price_change_on_a_date_reprices_only_later_calls() {
    let mut config = BTreeMap::new();
    config.insert("m".to_string(), price(1.0, None, None, 2.0, Some("2026-01-01")));
    config.insert("m*".to_string(), price(9.0, None, None, 9.0, None));
    let book = PriceBook::new(&config).unwrap();
    let tokens = Tokens { prompt: 1_000_000, ..Tokens::default() };
    assert_eq!(book.price("m", "2026-03-01T00:00:00Z", &tokens).unwrap().cost.micros(), 1_000_000);
    // The exact name is more specific than `m*`: before its date, m is unpriced.
    assert!(book.price("m", "2025-12-31T23:59:59Z", &tokens).is_none());

    let mut config = BTreeMap::new();
    config.insert("m".to_string(), price(1.0, None, None, 2.0, Some("2026-01-01")));
    let mut book = PriceBook::new(&config).unwrap();
    let later =
        entry(&serde_json::json!({"model": "m", "since": "2026-06-01", "input": 4, "output": 8}), None, "config")
            .unwrap();
    book.config.push(later);
    assert_eq!(book.price("m", "2026-05-31T12:00:00Z", &tokens).unwrap().cost.micros(), 1_000_000);
    assert_eq!(book.price("m", "2026-06-01T00:00:00Z", &tokens).unwrap().cost.micros(), 4_000_000);
}

#[test]
fn config_replaces_the_table_for_the_models_it_names() {
    let mut config = BTreeMap::new();
    config.insert("claude-haiku-4-5*".to_string(), price(2.0, Some(0.2), None, 10.0, None));
    let book = PriceBook::new(&config).unwrap();
    let tokens = Tokens { prompt: 1_000_000, cached: 0, cache_write: 500_000, completion: 0 };
    // No cacheWrite given: writes are priced as input.
    assert_eq!(book.price("claude-haiku-4-5", "2026-11-30", &tokens).unwrap().cost.micros(), 2_000_000);
    assert_eq!(book.entry("claude-haiku-4-5", "2026-11-30").unwrap().origin, "config");
    assert_eq!(book.entry("claude-opus-4-5", "2026-11-30").unwrap().origin, "table");
}

#[test]
fn the_table_reads_and_every_entry_is_dated() {
    let book = PriceBook::new(&BTreeMap::new()).unwrap();
    assert!(book.table.len() >= 30);
    for e in &book.table {
        assert!(chrono::NaiveDate::parse_from_str(&e.since, "%Y-%m-%d").is_ok(), "{}", e.pattern);
        assert!(e.rates.cached_input <= e.rates.input, "{}", e.pattern);
    }
    let band = LongContextConfig { above: 10, input: 1.0, cached_input: None, cache_write: None, output: 1.0 };
    let mut config = BTreeMap::new();
    config.insert("x".to_string(), PriceConfig { long_context: Some(band), ..price(0.5, None, None, 0.5, None) });
    let book = PriceBook::new(&config).unwrap();
    assert_eq!(book.rates("x", "2026-01-01", 11).unwrap().input, 1_000_000);
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
