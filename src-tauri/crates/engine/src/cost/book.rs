//! The price book: every dated entry Alisio knows, and which one prices a call.
//!
//! Four layers, the later over the earlier for the models it names:
//! 1. the table generated from pinned LiteLLM snapshots (`prices/litellm.json`): a model's first
//!    appearance is its price from always (no call can name a model before it exists); each later
//!    snapshot whose price differs adds an entry dated that snapshot. A model that leaves the data
//!    keeps its last price;
//! 2. the overlay (`prices/overlay.json`): a model's whole history, by hand, with its source,
//!    where the data lacks it (prices before a cut) or has it wrong;
//! 3. snapshots loaded since with `alisio prices update` (`$ALISIO_HOME/prices/*.json`), whose
//!    changes are entries dated the day they were loaded;
//! 4. config `prices`: patterns with `*`, replacing the layers above for the ids they match.
//!
//! An id finds its entry as written first, then in the forms of [`super::names`]. Each price has
//! its rates, any number of prompt-length bands (the whole call at a band's rates above its
//! threshold), and the batch / flex / priority tiers the data states.

use std::collections::{BTreeMap, HashMap};
use std::path::Path;
use std::sync::OnceLock;

use serde::Serialize;
use serde_json::Value;

use super::litellm;
use super::names::{self, Candidate};
use super::{per_token, Money, Priced, Tokens};
use crate::config::PriceConfig;
use crate::error::{Error, Result};

/// The bands the daily sums keep apart (prompt tokens above each): every threshold in the
/// shipped data. A config or update band outside them makes `usage` read calls one by one.
pub const BAND_THRESHOLDS: [u64; 7] = [32_000, 100_000, 128_000, 200_000, 256_000, 272_000, 512_000];

/// How many of [`BAND_THRESHOLDS`] a prompt is above (the daily sums' `band`).
pub fn band_level(prompt_tokens: u64) -> u8 {
    BAND_THRESHOLDS.iter().filter(|t| prompt_tokens > **t).count() as u8
}

/// Rates of one model at one band and tier (picodollars per token).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Rates {
    pub input: u128,
    pub cached_input: u128,
    /// Writes to the 5-minute cache.
    pub cache_write: u128,
    /// Writes to the 1-hour cache.
    pub cache_write_1h: u128,
    pub output: u128,
}

impl Rates {
    pub fn price(&self, t: &Tokens) -> Priced {
        let one_hour = t.cache_write_1h.min(t.cache_write);
        let cost = t.uncached() as u128 * self.input
            + t.cached as u128 * self.cached_input
            + (t.cache_write - one_hour) as u128 * self.cache_write
            + one_hour as u128 * self.cache_write_1h
            + t.completion as u128 * self.output;
        let savings = t.cached as u128 * self.input.saturating_sub(self.cached_input);
        Priced { cost: Money(cost), savings: Money(savings) }
    }
}

/// A service tier a call was billed at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum Tier {
    Batch,
    Flex,
    Priority,
}

impl Tier {
    /// A tier as APIs and agents record it (`priority`, `flex`, `batch`); `None` for the standard
    /// one (`standard`, `default`, `auto`) and for what is not a tier.
    pub fn parse(text: &str) -> Option<Tier> {
        match text.trim().to_ascii_lowercase().as_str() {
            "batch" | "batches" => Some(Tier::Batch),
            "flex" => Some(Tier::Flex),
            "priority" => Some(Tier::Priority),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Tier::Batch => "batch",
            Tier::Flex => "flex",
            Tier::Priority => "priority",
        }
    }
}

/// Rates by prompt length: `base` up to the first band, then each band's from above its
/// threshold (ascending).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Schedule {
    pub base: Rates,
    pub bands: Vec<(u64, Rates)>,
}

impl Schedule {
    /// The rates a prompt of `prompt_tokens` is priced at, whole.
    pub fn at(&self, prompt_tokens: u64) -> Rates {
        self.bands.iter().rev().find(|(above, _)| prompt_tokens > *above).map_or(self.base, |(_, r)| *r)
    }

    /// The rates for prompts at band level `level` of [`BAND_THRESHOLDS`]; every band of this
    /// schedule must be one of them.
    pub fn at_level(&self, level: u8) -> Rates {
        let above = |t: u64| BAND_THRESHOLDS.iter().position(|b| *b == t).is_some_and(|i| (i as u8) < level);
        self.bands.iter().rev().find(|(t, _)| above(*t)).map_or(self.base, |(_, r)| *r)
    }
}

/// One model's price: standard rates and the tiers the data states.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Price {
    pub standard: Schedule,
    pub tiers: Vec<(Tier, Schedule)>,
}

impl Price {
    pub fn schedule(&self, tier: Option<Tier>) -> &Schedule {
        tier.and_then(|t| self.tiers.iter().find(|(k, _)| *k == t)).map_or(&self.standard, |(_, s)| s)
    }

    fn thresholds(&self) -> impl Iterator<Item = u64> + '_ {
        std::iter::once(&self.standard)
            .chain(self.tiers.iter().map(|(_, s)| s))
            .flat_map(|s| s.bands.iter().map(|(t, _)| *t))
    }
}

/// Where an entry comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum Origin {
    Table,
    Overlay,
    Update,
    Config,
}

/// One dated price of one model (or, from config, of a pattern).
#[derive(Debug, Clone, PartialEq)]
pub struct PriceEntry {
    /// The id the table knows the model by, or a config pattern with `*`.
    pub pattern: String,
    /// `YYYY-MM-DD`; from then on, until a later entry. `0000-01-01`: from always.
    pub since: String,
    pub price: Price,
    pub origin: Origin,
    /// The snapshot, page or file it was read from.
    pub source: String,
}

/// Every price Alisio knows.
#[derive(Debug, Clone)]
pub struct PriceBook {
    config: Vec<PriceEntry>,
    /// By id: the entries in force one after another (sorted by `since`), as shipped (read once
    /// per process and shared by every book)…
    shipped: &'static HashMap<String, Vec<PriceEntry>>,
    /// …and, for the ids the loaded snapshots touch, the shipped entries with theirs merged in.
    updated: HashMap<String, Vec<PriceEntry>>,
    /// Whether every band is one the daily sums keep apart.
    daily_bands: bool,
}

/// Whether every band of the shipped layers is one the daily sums keep apart (once per process).
fn shipped_bands_are_kept() -> Result<bool> {
    static KEPT: OnceLock<bool> = OnceLock::new();
    let shipped = shipped()?;
    Ok(*KEPT.get_or_init(|| {
        shipped
            .values()
            .flatten()
            .flat_map(|e| e.price.thresholds().collect::<Vec<_>>())
            .all(|t| BAND_THRESHOLDS.contains(&t))
    }))
}

/// The shipped layers (table and overlay), read once per process.
fn shipped() -> Result<&'static HashMap<String, Vec<PriceEntry>>> {
    static SHIPPED: OnceLock<std::result::Result<HashMap<String, Vec<PriceEntry>>, String>> = OnceLock::new();
    SHIPPED
        .get_or_init(|| {
            let table = litellm::shipped_table().map_err(|e| e.to_string())?;
            let mut known = litellm::entries(&table, Origin::Table);
            for (id, entries) in overlay().map_err(|e| e.to_string())? {
                known.insert(id, entries);
            }
            Ok(known)
        })
        .as_ref()
        .map_err(|e| Error::Config(format!("the shipped price table: {e}")))
}

const OVERLAY: &str = include_str!("prices/overlay.json");

/// The overlay's histories by id.
fn overlay() -> Result<BTreeMap<String, Vec<PriceEntry>>> {
    let file: Value = serde_json::from_str(OVERLAY)?;
    let mut out = BTreeMap::new();
    for (id, model) in file.get("models").and_then(Value::as_object).into_iter().flatten() {
        let source = model.get("source").and_then(Value::as_str).unwrap_or_default();
        let mut entries = Vec::new();
        for dated in model.get("history").and_then(Value::as_array).into_iter().flatten() {
            let mut e = entry(dated, id, Origin::Overlay)?;
            e.source = format!("overlay: {source}");
            entries.push(e);
        }
        entries.sort_by(|a, b| a.since.cmp(&b.since));
        out.insert(id.to_lowercase(), entries);
    }
    Ok(out)
}

fn rates(value: &Value, what: &str, fallback: Option<&Rates>) -> Result<Rates> {
    let number = |key: &str| value.get(key).and_then(Value::as_f64);
    let required = |key: &str, fallback: Option<u128>| -> Result<u128> {
        match (number(key), fallback) {
            (Some(p), _) => per_token(p, what),
            (None, Some(f)) => Ok(f),
            (None, None) => Err(Error::Config(format!("{what}: `{key}` is required"))),
        }
    };
    let input = required("input", fallback.map(|r| r.input))?;
    let output = required("output", fallback.map(|r| r.output))?;
    let optional =
        |key: &str, default: u128| number(key).map(|p| per_token(p, what)).transpose().map(|v| v.unwrap_or(default));
    let cached_input = optional("cachedInput", fallback.map_or(input, |r| r.cached_input))?;
    let cache_write = optional("cacheWrite", fallback.map_or(input, |r| r.cache_write))?;
    let cache_write_1h = optional("cacheWrite1h", fallback.map_or(cache_write, |r| r.cache_write_1h))?;
    Ok(Rates { input, cached_input, cache_write, cache_write_1h, output })
}

/// An entry written as config and the overlay write them (USD per million tokens).
fn entry(value: &Value, pattern: &str, origin: Origin) -> Result<PriceEntry> {
    let what = format!("prices.{pattern}");
    let since = value.get("since").and_then(Value::as_str).unwrap_or("0000-01-01").to_string();
    if chrono::NaiveDate::parse_from_str(&since, "%Y-%m-%d").is_err() && since != "0000-01-01" {
        return Err(Error::Config(format!("{what}.since: {since:?} is not a date (YYYY-MM-DD)")));
    }
    let base = rates(value, &what, None)?;
    let mut bands: Vec<(u64, Rates)> = Vec::new();
    let written = value.get("bands").and_then(Value::as_array).cloned().unwrap_or_default();
    for band in value.get("longContext").into_iter().chain(&written) {
        let above = band
            .get("above")
            .and_then(Value::as_u64)
            .ok_or_else(|| Error::Config(format!("{what}: a band's `above` (prompt tokens) is required")))?;
        bands.push((above, rates(band, &format!("{what} above {above}"), None)?));
    }
    bands.sort_by_key(|(above, _)| *above);
    Ok(PriceEntry {
        pattern: pattern.to_lowercase(),
        since,
        price: Price { standard: Schedule { base, bands }, tiers: Vec::new() },
        origin,
        source: match origin {
            Origin::Config => "config `prices`".into(),
            _ => String::new(),
        },
    })
}

/// Which entry prices an id on a date, and why.
#[derive(Debug, Clone)]
pub struct Found<'a> {
    pub entry: &'a PriceEntry,
    /// The form of the id that found it.
    pub name: String,
    pub rules: Vec<&'static str>,
}

impl PriceBook {
    /// The shipped table and overlay with config `prices` over them (no loaded updates).
    pub fn new(config: &BTreeMap<String, PriceConfig>) -> Result<PriceBook> {
        PriceBook::load(config, None)
    }

    /// Every layer: the shipped ones, the snapshots loaded into `home` (when given), config.
    pub fn load(config: &BTreeMap<String, PriceConfig>, home: Option<&Path>) -> Result<PriceBook> {
        let shipped = shipped()?;
        let mut updated: HashMap<String, Vec<PriceEntry>> = HashMap::new();
        if let Some(home) = home {
            for (_, update) in litellm::updates(home)? {
                for (id, mut entries) in litellm::entries(&update, Origin::Update) {
                    let list = updated.entry(id).or_insert_with_key(|id| shipped.get(id).cloned().unwrap_or_default());
                    list.append(&mut entries);
                    list.sort_by(|a, b| a.since.cmp(&b.since));
                }
            }
        }
        let config = config
            .iter()
            .map(|(pattern, price)| entry(&serde_json::to_value(price)?, pattern, Origin::Config))
            .collect::<Result<Vec<_>>>()?;
        let daily_bands = config
            .iter()
            .chain(updated.values().flatten())
            .flat_map(|e| e.price.thresholds().collect::<Vec<_>>())
            .all(|t| BAND_THRESHOLDS.contains(&t))
            && shipped_bands_are_kept()?;
        Ok(PriceBook { config, shipped, updated, daily_bands })
    }

    /// Whether the daily sums can price every call (every band is one they keep apart).
    pub fn daily_bands(&self) -> bool {
        self.daily_bands
    }

    /// Every id the table, overlay and updates know.
    pub fn ids(&self) -> impl Iterator<Item = &str> {
        let added = self.updated.keys().filter(|id| !self.shipped.contains_key(*id));
        self.shipped.keys().chain(added).map(String::as_str)
    }

    /// The entries of the id `name`, oldest first (none: not known).
    fn known(&self, name: &str) -> Option<&Vec<PriceEntry>> {
        self.updated.get(name).or_else(|| self.shipped.get(name))
    }

    /// The entry in force for `model` on `date` (`YYYY-MM-DD…`) and the form of the id that
    /// found it: config first (its most specific pattern), then the id as written, then each
    /// normalised form; the first form with entries decides, even when none had begun by then.
    pub fn find(&self, model: &str, date: &str) -> Option<Found<'_>> {
        let day = date.get(..10).unwrap_or(date);
        let forms = names::candidates(model);
        for Candidate { name, rules } in &forms {
            let matching: Vec<&PriceEntry> = self.config.iter().filter(|e| glob(&e.pattern, name)).collect();
            if let Some(best) = matching.iter().map(|e| specificity(&e.pattern)).max() {
                let entry = matching
                    .into_iter()
                    .filter(|e| specificity(&e.pattern) == best && e.since.as_str() <= day)
                    .max_by(|a, b| a.since.cmp(&b.since))?;
                return Some(Found { entry, name: name.clone(), rules: rules.clone() });
            }
        }
        for Candidate { name, rules } in forms {
            if let Some(entries) = self.known(&name) {
                let entry = entries.iter().rev().find(|e| e.since.as_str() <= day)?;
                return Some(Found { entry, name, rules });
            }
        }
        None
    }

    /// The entry in force for `model` on `date`.
    pub fn entry(&self, model: &str, date: &str) -> Option<&PriceEntry> {
        self.find(model, date).map(|f| f.entry)
    }

    /// Every entry of the id `name` (as the table knows it), oldest first.
    pub fn history(&self, name: &str) -> &[PriceEntry] {
        self.known(name).map_or(&[], Vec::as_slice)
    }

    /// The rates a call is priced at: its tier's, at its prompt's band.
    pub fn rates(&self, model: &str, date: &str, prompt_tokens: u64, tier: Option<Tier>) -> Option<Rates> {
        Some(self.entry(model, date)?.price.schedule(tier).at(prompt_tokens))
    }

    /// A call's cost, or `None` when its model has no price.
    pub fn price(&self, model: &str, date: &str, tokens: &Tokens, tier: Option<Tier>) -> Option<Priced> {
        Some(self.rates(model, date, tokens.prompt, tier)?.price(tokens))
    }
}

/// How specific a pattern is: its literal characters, and an exact name above any pattern.
fn specificity(pattern: &str) -> (usize, bool) {
    (pattern.chars().filter(|c| *c != '*').count(), !pattern.contains('*'))
}

/// `*` matches any run of characters; everything else itself.
fn glob(pattern: &str, name: &str) -> bool {
    let parts: Vec<&str> = pattern.split('*').collect();
    if parts.len() == 1 {
        return pattern == name;
    }
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !name.starts_with(first) || name.len() < first.len() + last.len() || !name.ends_with(last) {
        return false;
    }
    let mut rest = &name[first.len()..name.len() - last.len()];
    for part in &parts[1..parts.len() - 1] {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    true
}

/// Rates as shown: USD per million tokens.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ShownRates {
    /// Prompt tokens the rates apply above (bands only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub above: Option<u64>,
    pub input: f64,
    pub cached_input: f64,
    pub cache_write: f64,
    pub cache_write_1h: f64,
    pub output: f64,
}

impl ShownRates {
    fn of(rates: &Rates, above: Option<u64>) -> ShownRates {
        let usd = |pd: u128| pd as f64 / 1e6;
        ShownRates {
            above,
            input: usd(rates.input),
            cached_input: usd(rates.cached_input),
            cache_write: usd(rates.cache_write),
            cache_write_1h: usd(rates.cache_write_1h),
            output: usd(rates.output),
        }
    }
}

/// A tier's rates as shown.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ShownTier {
    pub tier: Tier,
    #[serde(flatten)]
    pub rates: ShownRates,
    pub bands: Vec<ShownRates>,
}

/// One entry as `prices show` gives it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ShownEntry {
    pub pattern: String,
    /// `YYYY-MM-DD`, or null: from always.
    pub since: Option<String>,
    pub source: String,
    pub origin: Origin,
    #[serde(flatten)]
    pub rates: ShownRates,
    pub bands: Vec<ShownRates>,
    pub tiers: Vec<ShownTier>,
}

impl ShownEntry {
    fn of(entry: &PriceEntry) -> ShownEntry {
        let bands = |s: &Schedule| s.bands.iter().map(|(above, r)| ShownRates::of(r, Some(*above))).collect();
        ShownEntry {
            pattern: entry.pattern.clone(),
            since: (entry.since != "0000-01-01").then(|| entry.since.clone()),
            source: entry.source.clone(),
            origin: entry.origin,
            rates: ShownRates::of(&entry.price.standard.base, None),
            bands: bands(&entry.price.standard),
            tiers: entry
                .price
                .tiers
                .iter()
                .map(|(tier, s)| ShownTier { tier: *tier, rates: ShownRates::of(&s.base, None), bands: bands(s) })
                .collect(),
        }
    }
}

/// `alisio prices show MODEL`: which entry prices an id on a date, and why (or why none does).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct PriceShown {
    pub model: String,
    /// The form of the id that found its entries (the id as written, lower case, when none did).
    pub normalized: String,
    pub entry: Option<ShownEntry>,
    pub why: String,
    /// Every entry of that id, oldest first (the one in force among them).
    pub history: Vec<ShownEntry>,
}

impl PriceBook {
    /// Which entry prices `model` on `date` (`YYYY-MM-DD`), and why.
    pub fn show(&self, model: &str, date: &str) -> PriceShown {
        let forms = names::candidates(model);
        if let Some(found) = self.find(model, date) {
            let how = if found.rules.is_empty() { "as written".to_string() } else { found.rules.join(", ") };
            let layer = match found.entry.origin {
                Origin::Config => "config `prices`",
                Origin::Table => "the table of LiteLLM's data",
                Origin::Overlay => "the overlay (history by hand)",
                Origin::Update => "a snapshot loaded with `alisio prices update`",
            };
            let since = match found.entry.since.as_str() {
                "0000-01-01" => "from always".to_string(),
                day => format!("since {day}"),
            };
            let why = format!("`{}` found as `{}` ({how}) in {layer}; this entry in force {since}", model, found.name);
            let history = match found.entry.origin {
                Origin::Config => vec![ShownEntry::of(found.entry)],
                _ => self.history(&found.name).iter().map(ShownEntry::of).collect(),
            };
            return PriceShown {
                model: model.into(),
                normalized: found.name,
                entry: Some(ShownEntry::of(found.entry)),
                why,
                history,
            };
        }
        let day = date.get(..10).unwrap_or(date);
        let tried: Vec<String> = forms.iter().map(|c| format!("`{}`", c.name)).collect();
        let later = forms.iter().find_map(|c| {
            let first = self
                .config
                .iter()
                .filter(|e| glob(&e.pattern, &c.name))
                .map(|e| e.since.as_str())
                .min()
                .or_else(|| self.known(&c.name).and_then(|l| l.first()).map(|e| e.since.as_str()))?;
            Some((c.name.clone(), first.to_string()))
        });
        let (normalized, why, history) = match later {
            Some((name, first)) => {
                let history = self.history(&name).iter().map(ShownEntry::of).collect();
                (name.clone(), format!("`{name}` has no price before {first}: calls on {day} are unpriced"), history)
            }
            None => (
                forms.first().map(|c| c.name.clone()).unwrap_or_default(),
                format!(
                    "no entry names `{model}` (tried {}): its calls are unpriced, never guessed. `alisio prices update FILE` \
                     loads a newer LiteLLM snapshot; config `prices` prices a model no snapshot names",
                    tried.join(", ")
                ),
                Vec::new(),
            ),
        };
        PriceShown { model: model.into(), normalized, entry: None, why, history }
    }
}

/// `YYYY-MM-DD` as given (checked), or today's (UTC) when none is.
pub fn day_or_today(text: Option<&str>, what: &str) -> Result<String> {
    match text {
        None => Ok(chrono::Utc::now().format("%Y-%m-%d").to_string()),
        Some(day) if chrono::NaiveDate::parse_from_str(day, "%Y-%m-%d").is_ok() => Ok(day.to_string()),
        Some(other) => Err(Error::Usage(format!("{what} must be a date (YYYY-MM-DD), not {other:?}"))),
    }
}

/// The day after `YYYY-MM-DD` (for an inclusive `--until`); the text itself when it is no date.
pub fn next_day(day: &str) -> String {
    chrono::NaiveDate::parse_from_str(day, "%Y-%m-%d")
        .ok()
        .and_then(|d| d.succ_opt())
        .map_or_else(|| day.to_string(), |d| d.format("%Y-%m-%d").to_string())
}
