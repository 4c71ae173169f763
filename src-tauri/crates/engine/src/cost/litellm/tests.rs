use std::io::Read;
use std::path::PathBuf;

use super::*;
use crate::cost::book::PriceBook;
use crate::cost::Tokens;

fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../tests/fixtures/prices")
}

fn snapshot(file: &str) -> Value {
    let bytes = std::fs::read(fixtures().join(file)).unwrap();
    let mut text = String::new();
    flate2::read::GzDecoder::new(&bytes[..]).read_to_string(&mut text).unwrap();
    serde_json::from_str(&text).unwrap()
}

fn manifest() -> Vec<Value> {
    let text = std::fs::read_to_string(fixtures().join("snapshots.json")).unwrap();
    let manifest: Value = serde_json::from_str(&text).unwrap();
    manifest["snapshots"].as_array().unwrap().clone()
}

const ABOUT: &str = "Generated from the pinned LiteLLM snapshots of tests/fixtures/prices (see snapshots.json there): \
    for each model id, its prices as the data states them (USD per token), each entry from `since` on \
    (0000-01-01: the model's first appearance, from always). Do not edit: regenerate.";

#[test]
fn the_shipped_table_is_the_pinned_snapshots_folded_in_order() {
    let mut history = History::new();
    let mut listed = Vec::new();
    for s in manifest() {
        let models = models(&snapshot(s["file"].as_str().unwrap())).unwrap();
        fold(&mut history, &models, s["name"].as_str().unwrap(), s["date"].as_str().unwrap());
        listed.push(serde_json::json!({"name": s["name"], "date": s["date"], "source": s["source"]}));
    }
    let generated = write(&history, ABOUT, &listed);
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("src/cost/prices/litellm.json");
    if std::env::var_os("ALISIO_UPDATE_PRICES").is_some() {
        std::fs::write(&path, &generated).unwrap();
    }
    assert!(generated == TABLE, "the shipped table is stale: regenerate it with ALISIO_UPDATE_PRICES=1");
    assert_eq!(read(&generated).unwrap(), history, "the table reads back as written");
}

#[test]
fn every_model_of_the_current_snapshot_is_priced_as_it_states() {
    let book = PriceBook::new(&Default::default()).unwrap();
    let last = manifest().last().unwrap().clone();
    let current = models(&snapshot(last["file"].as_str().unwrap())).unwrap();
    assert!(current.len() > 3_500, "{} priced models", current.len());
    let tokens =
        Tokens { prompt: 1_000_000, cached: 200_000, cache_write: 100_000, cache_write_1h: 40_000, completion: 50_000 };
    let mut overlaid = 0;
    for (id, fields) in &current {
        let found = book.find(id, "2026-12-01").unwrap_or_else(|| panic!("{id} is unpriced"));
        assert_eq!(found.name, *id, "{id} is found as written");
        if found.entry.origin == Origin::Overlay {
            overlaid += 1;
            continue;
        }
        let stated = price(fields).unwrap();
        assert_eq!(found.entry.price, stated, "{id}");
        assert_eq!(
            book.price(id, "2026-12-01", &tokens, None).unwrap(),
            stated.standard.at(tokens.prompt).price(&tokens),
            "{id}"
        );
    }
    assert!(overlaid < 20, "{overlaid} ids overlaid");
}

#[test]
fn every_band_of_the_data_is_one_the_daily_sums_keep_apart() {
    assert!(PriceBook::new(&Default::default()).unwrap().daily_bands());
}

#[test]
fn fields_read_as_bands_tiers_and_one_hour_writes() {
    let fields: Map<String, Value> = serde_json::from_value(serde_json::json!({
        "input_cost_per_token": 3e-6, "output_cost_per_token": 1.5e-5,
        "cache_read_input_token_cost": 3e-7, "cache_creation_input_token_cost": 3.75e-6,
        "cache_creation_input_token_cost_above_1hr": 6e-6,
        "input_cost_per_token_above_200k_tokens": 6e-6, "output_cost_per_token_above_200k_tokens": 2.25e-5,
        "input_cost_per_token_above_272k_tokens": 7e-6,
        "input_cost_per_token_priority": 5e-6, "output_cost_per_token_priority": 2.5e-5,
        "input_cost_per_token_above_12hr": 1.0
    }))
    .unwrap();
    let p = price(&fields).unwrap();
    let s = &p.standard;
    assert_eq!(
        (s.base.input, s.base.cached_input, s.base.cache_write, s.base.cache_write_1h),
        (3_000_000, 300_000, 3_750_000, 6_000_000)
    );
    assert_eq!(s.bands.iter().map(|(t, _)| *t).collect::<Vec<_>>(), [200_000, 272_000]);
    assert_eq!(s.at(200_000).input, 3_000_000, "the band is above its threshold");
    assert_eq!(s.at(200_001).input, 6_000_000);
    assert_eq!(s.at(272_001).input, 7_000_000);
    assert_eq!(s.at(272_001).output, 22_500_000, "a dimension the band leaves out is the band's below");
    assert_eq!(s.at(272_001).cached_input, 300_000);
    assert_eq!(s.at_level(crate::cost::book::band_level(250_000)).input, 6_000_000);
    assert_eq!(s.at_level(crate::cost::book::band_level(300_000)).input, 7_000_000);
    let priority = p.schedule(Some(Tier::Priority));
    assert_eq!(
        (priority.base.input, priority.base.output, priority.base.cached_input),
        (5_000_000, 25_000_000, 300_000)
    );
    assert_eq!(p.schedule(Some(Tier::Flex)), s, "a tier the data does not state is the standard one");
}

#[test]
fn an_update_adds_new_models_from_always_and_changes_from_its_date() {
    let home = tempfile::tempdir().unwrap();
    let file = home.path().join("model_prices.json");
    let current = snapshot(manifest().last().unwrap()["file"].as_str().unwrap());
    std::fs::write(
        &file,
        serde_json::json!({
            "sample_spec": {"input_cost_per_token": 0.0},
            "gpt-4o": current["gpt-4o"],
            "claude-opus-4-5": {"litellm_provider": "anthropic", "mode": "chat", "input_cost_per_token": 4e-6,
                        "output_cost_per_token": 2e-5},
            "acme-coder-9": {"litellm_provider": "acme", "mode": "chat", "input_cost_per_token": 1e-6,
                        "output_cost_per_token": 2e-6},
            "text-embedding-9": {"mode": "embedding", "input_cost_per_token": 1e-7, "output_cost_per_token": 0.0}
        })
        .to_string(),
    )
    .unwrap();
    let tokens = Tokens { prompt: 1_000_000, ..Tokens::default() };
    let before = PriceBook::load(&Default::default(), Some(home.path())).unwrap();
    assert!(before.price("acme-coder-9", "2026-12-01", &tokens, None).is_none());
    let opus = before.price("claude-opus-4-5", "2026-12-20", &tokens, None).unwrap().cost;

    let counts = update(home.path(), &file, "2026-12-10").unwrap();
    assert_eq!(counts, Counts { added: 1, changed: 1, unchanged: 1 });
    let after = PriceBook::load(&Default::default(), Some(home.path())).unwrap();
    assert_eq!(after.price("acme-coder-9", "2025-01-01", &tokens, None).unwrap().cost.micros(), 1_000_000);
    assert_eq!(after.price("claude-opus-4-5", "2026-12-09", &tokens, None).unwrap().cost, opus, "history is kept");
    assert_eq!(after.price("claude-opus-4-5", "2026-12-10", &tokens, None).unwrap().cost.micros(), 4_000_000);
    assert_eq!(after.entry("claude-opus-4-5", "2026-12-10").unwrap().origin, Origin::Update);

    // The same snapshot again changes nothing and writes nothing.
    assert_eq!(update(home.path(), &file, "2026-12-11").unwrap(), Counts { added: 0, changed: 0, unchanged: 3 });
    assert_eq!(std::fs::read_dir(updates_dir(home.path())).unwrap().count(), 1);

    std::fs::write(&file, "[1, 2]").unwrap();
    assert!(update(home.path(), &file, "2026-12-11").unwrap_err().to_string().contains("not LiteLLM price data"));
}

#[test]
fn detail_the_data_adds_later_refines_the_entry_it_completes() {
    let snapshot = |fields: Value| -> BTreeMap<String, Map<String, Value>> {
        BTreeMap::from([("m".to_string(), serde_json::from_value(fields).unwrap())])
    };
    let mut history = History::new();
    let first = serde_json::json!({"input_cost_per_token": 3e-6, "output_cost_per_token": 1.5e-5, "cache_creation_input_token_cost": 3.75e-6});
    fold(&mut history, &snapshot(first.clone()), "one", "2025-01-01");
    // The 1-hour write rate appears: the same price, better known — from always.
    let mut second = first.clone();
    second["cache_creation_input_token_cost_above_1hr"] = 6e-6.into();
    let (counts, _) = fold(&mut history, &snapshot(second.clone()), "two", "2025-06-01");
    assert_eq!(counts.changed, 1);
    assert_eq!(history["m"].len(), 1);
    assert_eq!(history["m"][0].since, "0000-01-01");
    assert_eq!(price(&history["m"][0].fields).unwrap().standard.base.cache_write_1h, 6_000_000);
    // The input price changes: a dated entry.
    let mut third = second;
    third["input_cost_per_token"] = 2e-6.into();
    fold(&mut history, &snapshot(third), "three", "2025-09-01");
    assert_eq!(history["m"].iter().map(|d| d.since.as_str()).collect::<Vec<_>>(), ["0000-01-01", "2025-09-01"]);
}
