//! LiteLLM's price data (`model_prices_and_context_window.json`, the data ccusage and most
//! gateways price with), read into dated entries.
//!
//! The data is one object per model id with costs in USD per token: `input_cost_per_token`,
//! `output_cost_per_token`, `cache_read_input_token_cost`, `cache_creation_input_token_cost`
//! (5-minute writes) and `…_above_1hr` (1-hour writes), each also `…_above_{N}k_tokens` (a
//! prompt-length band) and `…_batches` / `…_flex` / `…_priority` (a tier). A snapshot is folded
//! into a [`History`]: a model's first appearance is its price from always, a later snapshot whose
//! price differs adds an entry dated that snapshot (one that only adds detail the data lacked — a
//! 1-hour write rate, a band, a tier — refines the entry it completes instead), and a model that
//! leaves the data keeps its last entry. The shipped table is the pinned snapshots of `tests/fixtures/prices/` folded in order;
//! `alisio prices update FILE` folds a newer one into `$ALISIO_HOME/prices/`.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::{Map, Value};

use super::book::{Origin, Price, PriceEntry, Rates, Schedule, Tier};
use super::parse_picodollars;
use crate::error::{Error, Result};

/// The table generated from the pinned snapshots (see the module's docs).
const TABLE: &str = include_str!("prices/litellm.json");

/// The cost fields kept from a model's object (the rest is not a token price).
const FIELDS: [&str; 6] = [
    "input_cost_per_token",
    "output_cost_per_token",
    "cache_read_input_token_cost",
    "cache_creation_input_token_cost",
    "cache_creation_input_token_cost_above_1hr",
    "input_cost_per_token_cache_hit",
];

/// One dated price of one id, as the data wrote it (its kept fields).
#[derive(Debug, Clone, PartialEq)]
pub struct Dated {
    /// `YYYY-MM-DD`, or `0000-01-01` for a model's first appearance.
    pub since: String,
    /// The snapshot it came from (`LiteLLM 1.80.0`).
    pub from: String,
    pub fields: Map<String, Value>,
}

/// Every id's dated prices, oldest first.
pub type History = BTreeMap<String, Vec<Dated>>;

/// A snapshot folded into a history.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Counts {
    /// Ids with no entry before.
    pub added: u64,
    /// Ids whose price differs: a dated entry added.
    pub changed: u64,
    pub unchanged: u64,
}

/// What a cost field is: the dimension, its band (prompt tokens above) and tier.
fn field(key: &str) -> Option<(&'static str, Option<u64>, Option<Tier>)> {
    let (rest, tier) = [("_batches", Tier::Batch), ("_flex", Tier::Flex), ("_priority", Tier::Priority)]
        .iter()
        .find_map(|(suffix, tier)| key.strip_suffix(suffix).map(|r| (r, Some(*tier))))
        .unwrap_or((key, None));
    let (rest, band) = match rest.strip_suffix("k_tokens").and_then(|r| r.rsplit_once("_above_")) {
        Some((head, n)) if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) => {
            (head, Some(n.parse::<u64>().ok()? * 1000))
        }
        _ => (rest, None),
    };
    FIELDS.iter().find(|f| **f == rest).map(|f| (*f, band, tier))
}

/// A model's object reduced to the fields priced from, when it is a token-priced text model.
pub fn kept(model: &Value) -> Option<Map<String, Value>> {
    let object = model.as_object()?;
    let mode = object.get("mode").and_then(Value::as_str);
    if !matches!(mode, None | Some("chat" | "completion" | "responses")) {
        return None;
    }
    let mut out = Map::new();
    if let Some(provider) = object.get("litellm_provider") {
        out.insert("litellm_provider".into(), provider.clone());
    }
    for (key, value) in object {
        if value.is_number() && field(key).is_some() {
            out.insert(key.clone(), value.clone());
        }
    }
    if !out.contains_key("input_cost_per_token") {
        tiered(object.get("tiered_pricing"), &mut out);
    }
    price(&out).map(|_| out)
}

/// `tiered_pricing` (`[{"range": [0, 32000], "input_cost_per_token", …}, {"range": [32000, 128000], …}]`,
/// prices by prompt length) written as the bands the other models use: the tier from 0 as the
/// base, each other one as `…_above_{N}k_tokens` of its lower bound.
fn tiered(tiers: Option<&Value>, out: &mut Map<String, Value>) {
    let Some(tiers) = tiers.and_then(Value::as_array) else { return };
    let mut written = Map::new();
    for tier in tiers {
        let Some(low) = tier.pointer("/range/0").and_then(Value::as_f64) else { return };
        if low < 0.0 || low.fract() != 0.0 || (low as u64) % 1000 != 0 {
            return;
        }
        let suffix = if low == 0.0 { String::new() } else { format!("_above_{}k_tokens", low as u64 / 1000) };
        for (key, value) in tier.as_object().into_iter().flatten() {
            if value.is_number() && FIELDS.contains(&key.as_str()) {
                written.insert(format!("{key}{suffix}"), value.clone());
            }
        }
    }
    if written.contains_key("input_cost_per_token") {
        out.extend(written);
    }
}

/// Every priced model of a snapshot, by lower-case id (the first of ids differing only in case).
pub fn models(snapshot: &Value) -> Result<BTreeMap<String, Map<String, Value>>> {
    let object = snapshot
        .as_object()
        .ok_or_else(|| Error::Usage("not LiteLLM price data: the file is not a JSON object of models".into()))?;
    let mut out = BTreeMap::new();
    for (id, model) in object {
        if let Some(fields) = kept(model) {
            out.entry(id.to_lowercase()).or_insert(fields);
        }
    }
    if out.is_empty() {
        return Err(Error::Usage(
            "not LiteLLM price data: no model has `input_cost_per_token` and `output_cost_per_token`".into(),
        ));
    }
    Ok(out)
}

/// A field's cost in picodollars per token (read from its decimal text).
fn cost(fields: &Map<String, Value>, key: &str) -> Option<u128> {
    let number = fields.get(key)?.as_number()?;
    u128::try_from(parse_picodollars(&number.to_string())?).ok()
}

/// The price a model's kept fields state; `None` without an input and an output cost.
pub fn price(fields: &Map<String, Value>) -> Option<Price> {
    // Every (dimension, band, tier) the fields give.
    let mut given: HashMap<(&'static str, Option<u64>, Option<Tier>), u128> = HashMap::new();
    for key in fields.keys() {
        if let (Some(k), Some(v)) = (field(key), cost(fields, key)) {
            given.insert(k, v);
        }
    }
    let get = |dim: &'static str, band: Option<u64>, tier: Option<Tier>| given.get(&(dim, band, tier)).copied();
    let input = get("input_cost_per_token", None, None)?;
    let output = get("output_cost_per_token", None, None)?;
    let cached = get("cache_read_input_token_cost", None, None)
        .or_else(|| get("input_cost_per_token_cache_hit", None, None))
        .unwrap_or(input);
    let write = get("cache_creation_input_token_cost", None, None).unwrap_or(input);
    // Anthropic bills a 1-hour cache write at twice the input price, on its API, Bedrock and
    // Vertex alike (docs.anthropic.com/en/docs/build-with-claude/prompt-caching#pricing); the data
    // states it for recent models only.
    let anthropic = matches!(
        fields.get("litellm_provider").and_then(Value::as_str),
        Some("anthropic" | "bedrock" | "bedrock_converse" | "vertex_ai-anthropic_models")
    ) && given.contains_key(&("cache_creation_input_token_cost", None, None));
    let one_hour = |stated: Option<u128>, input: u128, otherwise: u128| match stated {
        Some(rate) => rate,
        None if anthropic => 2 * input,
        None => otherwise,
    };
    let base = Rates {
        input,
        cached_input: cached,
        cache_write: write,
        cache_write_1h: one_hour(get("cache_creation_input_token_cost_above_1hr", None, None), input, write),
        output,
    };
    // At a band or tier, a dimension the data leaves out is the one below it.
    let rates_at = |band: Option<u64>, tier: Option<Tier>, below: &Rates| {
        let input = get("input_cost_per_token", band, tier).unwrap_or(below.input);
        Rates {
            input,
            cached_input: get("cache_read_input_token_cost", band, tier).unwrap_or(below.cached_input),
            cache_write: get("cache_creation_input_token_cost", band, tier).unwrap_or(below.cache_write),
            cache_write_1h: one_hour(
                get("cache_creation_input_token_cost_above_1hr", band, tier),
                input,
                below.cache_write_1h,
            ),
            output: get("output_cost_per_token", band, tier).unwrap_or(below.output),
        }
    };
    let thresholds = |tier: Option<Tier>| {
        let mut t: Vec<u64> =
            given.keys().filter(|(_, b, k)| *k == tier && b.is_some()).filter_map(|(_, b, _)| *b).collect();
        t.sort_unstable();
        t.dedup();
        t
    };
    let mut bands = Vec::new();
    let mut below = base;
    for above in thresholds(None) {
        below = rates_at(Some(above), None, &below);
        bands.push((above, below));
    }
    let standard = Schedule { base, bands };
    let mut tiers = Vec::new();
    for tier in [Tier::Batch, Tier::Flex, Tier::Priority] {
        if get("input_cost_per_token", None, Some(tier)).is_none()
            && get("output_cost_per_token", None, Some(tier)).is_none()
        {
            continue;
        }
        let tier_base = rates_at(None, Some(tier), &standard.base);
        let mut levels: Vec<u64> = thresholds(Some(tier));
        levels.extend(standard.bands.iter().map(|(t, _)| *t));
        levels.sort_unstable();
        levels.dedup();
        let bands = levels
            .into_iter()
            .map(|above| (above, rates_at(Some(above), Some(tier), &standard.at(above + 1))))
            .collect();
        tiers.push((tier, Schedule { base: tier_base, bands }));
    }
    Some(Price { standard, tiers })
}

/// Folds a snapshot's models into `history`: new ids from always, changed prices from `date`.
/// Returns the counts and the entries it added.
pub fn fold(
    history: &mut History,
    snapshot: &BTreeMap<String, Map<String, Value>>,
    from: &str,
    date: &str,
) -> (Counts, History) {
    let mut counts = Counts::default();
    let mut added = History::new();
    for (id, fields) in snapshot {
        let Some(new) = price(fields) else { continue };
        let dated = |since: &str| Dated { since: since.to_string(), from: from.to_string(), fields: fields.clone() };
        match history.get_mut(id) {
            None => {
                counts.added += 1;
                history.insert(id.clone(), vec![dated("0000-01-01")]);
                added.insert(id.clone(), vec![dated("0000-01-01")]);
            }
            Some(list) => {
                let last = list.last().and_then(|d| price(&d.fields));
                if last.as_ref() == Some(&new) {
                    counts.unchanged += 1;
                    continue;
                }
                counts.changed += 1;
                // Only detail added (a dimension, a band, a tier the data lacked, every price it had
                // the same): the earlier entry was incomplete, not a different price. It is refined
                // from its own date.
                let previous =
                    list.last().map(|d| (d.since.clone(), d.fields.iter().all(|(k, v)| fields.get(k) == Some(v))));
                let since = match previous {
                    Some((since, true)) => since,
                    _ => date.to_string(),
                };
                if list.last().is_some_and(|d| d.since == since) {
                    list.pop();
                }
                list.push(dated(&since));
                added.insert(id.clone(), vec![dated(&since)]);
            }
        }
    }
    (counts, added)
}

/// A history as the table and update files write it: one line per id.
pub fn write(history: &History, about: &str, snapshots: &[Value]) -> String {
    let mut out = String::from("{\n");
    out += &format!("  \"about\": {},\n", Value::from(about));
    out += &format!("  \"snapshots\": {},\n", Value::from(snapshots.to_vec()));
    out += "  \"models\": {\n";
    let lines: Vec<String> = history
        .iter()
        .map(|(id, entries)| {
            let entries: Vec<Value> = entries
                .iter()
                .map(|d| {
                    let mut object = Map::new();
                    object.insert("since".into(), d.since.clone().into());
                    object.insert("from".into(), d.from.clone().into());
                    object.extend(d.fields.clone());
                    Value::Object(object)
                })
                .collect();
            format!("    {}: {}", Value::from(id.as_str()), Value::from(entries))
        })
        .collect();
    out += &lines.join(",\n");
    out += "\n  }\n}\n";
    out
}

/// Reads a table or update file.
pub fn read(text: &str) -> Result<History> {
    let file: Value = serde_json::from_str(text)?;
    let mut history = History::new();
    for (id, entries) in file.get("models").and_then(Value::as_object).into_iter().flatten() {
        let list = entries
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|e| {
                let mut fields = e.as_object()?.clone();
                let since = fields.remove("since")?.as_str()?.to_string();
                let from = fields.remove("from").and_then(|f| f.as_str().map(str::to_string)).unwrap_or_default();
                Some(Dated { since, from, fields })
            })
            .collect();
        history.insert(id.clone(), list);
    }
    Ok(history)
}

/// The table shipped with Alisio.
pub fn shipped_table() -> Result<History> {
    read(TABLE)
}

/// Entries by id, each priced from its fields (an entry whose fields no longer price is left out).
pub fn entries(history: &History, origin: Origin) -> HashMap<String, Vec<PriceEntry>> {
    history
        .iter()
        .map(|(id, list)| {
            let entries = list
                .iter()
                .filter_map(|d| {
                    Some(PriceEntry {
                        pattern: id.clone(),
                        since: d.since.clone(),
                        price: price(&d.fields)?,
                        origin,
                        source: d.from.clone(),
                    })
                })
                .collect();
            (id.clone(), entries)
        })
        .collect()
}

/// Where loaded snapshots' entries are kept.
pub fn updates_dir(home: &Path) -> PathBuf {
    home.join("prices")
}

/// The update files under `home`, in the order they were loaded (their names begin with the date).
pub fn updates(home: &Path) -> Result<Vec<(PathBuf, History)>> {
    let dir = updates_dir(home);
    let mut paths: Vec<PathBuf> = match std::fs::read_dir(&dir) {
        Ok(entries) => entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .collect(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(Error::Config(format!("{}: {e}", dir.display()))),
    };
    paths.sort();
    paths
        .into_iter()
        .map(|path| {
            let text = std::fs::read_to_string(&path).map_err(|e| Error::Config(format!("{}: {e}", path.display())))?;
            let history = read(&text).map_err(|e| Error::Config(format!("{}: {e}", path.display())))?;
            Ok((path, history))
        })
        .collect()
}

/// `alisio prices update FILE`: folds a LiteLLM-format snapshot into what the table and earlier
/// updates hold; its new and changed entries (dated `date`) are written to
/// `$ALISIO_HOME/prices/DATE-N.json`. Nothing is written when nothing changed.
pub fn update(home: &Path, file: &Path, date: &str) -> Result<Counts> {
    if chrono::NaiveDate::parse_from_str(date, "%Y-%m-%d").is_err() {
        return Err(Error::Usage(format!("--since must be a date (YYYY-MM-DD), not {date:?}")));
    }
    let text = std::fs::read_to_string(file).map_err(|e| Error::Usage(format!("{}: {e}", file.display())))?;
    let snapshot: Value = serde_json::from_str(&text)
        .map_err(|e| Error::Usage(format!("{}: not LiteLLM price data (invalid JSON: {e})", file.display())))?;
    let models = models(&snapshot).map_err(|e| Error::Usage(format!("{}: {e}", file.display())))?;
    let mut history = shipped_table()?;
    for (_, update) in updates(home)? {
        for (id, mut list) in update {
            let known = history.entry(id).or_default();
            known.append(&mut list);
            known.sort_by(|a, b| a.since.cmp(&b.since));
        }
    }
    let name = file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let from = format!("update {date} ({name})");
    let (counts, added) = fold(&mut history, &models, &from, date);
    if !added.is_empty() {
        let dir = updates_dir(home);
        std::fs::create_dir_all(&dir).map_err(|e| Error::Config(format!("{}: {e}", dir.display())))?;
        let path = (1..)
            .map(|n| dir.join(format!("{date}-{n}.json")))
            .find(|p| !p.exists())
            .unwrap_or_else(|| dir.join(format!("{date}.json")));
        let snapshots = [serde_json::json!({"name": from, "date": date, "file": file.display().to_string()})];
        let body =
            write(&added, "Prices loaded with `alisio prices update`: entries new or changed since.", &snapshots);
        let tmp = path.with_extension("json.tmp");
        std::fs::write(&tmp, body)
            .and_then(|_| std::fs::rename(&tmp, &path))
            .map_err(|e| Error::Config(format!("{}: {e}", path.display())))?;
    }
    Ok(counts)
}

#[cfg(test)]
mod tests;
