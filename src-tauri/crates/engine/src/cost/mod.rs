//! What a model call cost. Prices come from the dated table shipped with Alisio
//! (`cost/prices.json`: USD per million tokens, each entry with the date it took effect and its
//! provider's page) or from config `prices`, which replaces the table for the models it names. A
//! call is priced by the entry in force on its date; a model without one is unpriced — never
//! guessed.
//!
//! Money is integer picodollars (10⁻¹² USD): a price of USD p per million tokens is p·10⁶
//! picodollars per token, exact for any price written with up to six decimals, so a cost is tokens
//! × an integer and sums are exact. It is shown in USD rounded to the micro-dollar.

use std::collections::BTreeMap;
use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::config::PriceConfig;
use crate::error::{Error, Result};

/// The shipped price table.
const TABLE: &str = include_str!("prices.json");

/// Picodollars (10⁻¹² USD): the unit every cost is computed and summed in.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Money(pub u128);

impl Money {
    pub const ZERO: Money = Money(0);

    /// Whole micro-dollars, rounded half up.
    pub fn micros(self) -> u128 {
        (self.0 + 500_000) / 1_000_000
    }

    /// USD rounded to the micro-dollar (for showing; never summed).
    pub fn usd(self) -> f64 {
        self.micros() as f64 / 1e6
    }
}

impl std::ops::Add for Money {
    type Output = Money;
    fn add(self, other: Money) -> Money {
        Money(self.0 + other.0)
    }
}

impl std::ops::AddAssign for Money {
    fn add_assign(&mut self, other: Money) {
        self.0 += other.0;
    }
}

impl std::iter::Sum for Money {
    fn sum<I: Iterator<Item = Money>>(iter: I) -> Money {
        iter.fold(Money::ZERO, |a, b| a + b)
    }
}

impl fmt::Display for Money {
    /// `$0.004213` under a dollar, `$12.50` from one on.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let micros = self.micros();
        if micros >= 1_000_000 {
            let cents = (micros + 5_000) / 10_000;
            write!(f, "${}.{:02}", cents / 100, cents % 100)
        } else {
            write!(f, "$0.{micros:06}")
        }
    }
}

impl Serialize for Money {
    /// A JSON number of USD, rounded to the micro-dollar.
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        serializer.serialize_f64(self.usd())
    }
}

/// USD per million tokens as written (`3`, `0.075`) → picodollars per token.
pub fn per_token(usd_per_million: f64, what: &str) -> Result<u128> {
    if !usd_per_million.is_finite() || usd_per_million < 0.0 {
        return Err(Error::Config(format!("{what}: a price must be a number of USD ≥ 0, not {usd_per_million}")));
    }
    // The shortest text that reads back as the same number: what was written.
    let text = format!("{usd_per_million}");
    let (whole, fraction) = text.split_once('.').unwrap_or((&text, ""));
    if fraction.len() > 6 || text.contains('e') {
        return Err(Error::Config(format!("{what}: {text} has more than six decimals")));
    }
    let whole: u128 = whole.parse().map_err(|_| Error::Config(format!("{what}: {text} is not a price")))?;
    let fraction: u128 = format!("{fraction:0<6}").parse().unwrap_or(0);
    Ok(whole * 1_000_000 + fraction)
}

/// A dollar figure an agent recorded, as written (`0.0230605`, `1.2e-5`, `"3"`), in whole
/// picodollars, rounded half away from zero; `None` for text that is not a finite number. Read
/// from its decimal text, never through a float's arithmetic.
pub fn parse_picodollars(text: &str) -> Option<i64> {
    let text = text.trim();
    let (negative, text) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text.strip_prefix('+').unwrap_or(text)),
    };
    let (mantissa, exponent) = match text.find(['e', 'E']) {
        Some(i) => (&text[..i], text[i + 1..].parse::<i32>().ok()?),
        None => (text, 0),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if whole.is_empty() && fraction.is_empty() || !whole.chars().chain(fraction.chars()).all(|c| c.is_ascii_digit()) {
        return None;
    }
    // digits × 10^(exponent − fraction digits + 12) picodollars.
    let digits: String = format!("{whole}{fraction}").trim_start_matches('0').to_string();
    let scale = exponent - fraction.len() as i32 + 12;
    let mut value: i128 = if digits.is_empty() { 0 } else { digits.get(..digits.len().min(30))?.parse().ok()? };
    let dropped = digits.len().saturating_sub(30) as i32;
    let scale = scale + dropped;
    if scale >= 0 {
        value = value.checked_mul(10i128.checked_pow(scale as u32)?)?;
    } else {
        let divisor = 10i128.checked_pow((-scale) as u32).unwrap_or(i128::MAX);
        value = (value + divisor / 2) / divisor;
    }
    let value = i64::try_from(value).ok()?;
    Some(if negative { -value } else { value })
}

/// Prices of one model (picodollars per token).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Rates {
    pub input: u128,
    pub cached_input: u128,
    pub cache_write: u128,
    pub output: u128,
}

/// One entry of the table or of config `prices`.
#[derive(Debug, Clone, PartialEq)]
pub struct PriceEntry {
    /// A model name, or a pattern with `*` (any characters).
    pub pattern: String,
    /// `YYYY-MM-DD`; from then on (until a later entry for the same pattern).
    pub since: String,
    pub rates: Rates,
    /// Above this many prompt tokens, the whole call at the second rates.
    pub long_context: Option<(u64, Rates)>,
    /// `table` or `config`.
    pub origin: &'static str,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct TableFile {
    providers: Vec<TableProvider>,
}

#[derive(Deserialize)]
struct TableProvider {
    models: Vec<Value>,
}

/// The tokens of one call, as its server (or its agent) reported them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tokens {
    /// Every input token: uncached, read from the cache and written to it.
    pub prompt: u64,
    pub cached: u64,
    pub cache_write: u64,
    pub completion: u64,
}

impl Tokens {
    /// Input tokens neither read from nor written to the cache.
    pub fn uncached(&self) -> u64 {
        self.prompt.saturating_sub(self.cached).saturating_sub(self.cache_write)
    }
}

/// A call's cost and what its cached tokens saved against the input price.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Priced {
    pub cost: Money,
    pub savings: Money,
}

impl Rates {
    pub fn price(&self, t: &Tokens) -> Priced {
        let cost = t.uncached() as u128 * self.input
            + t.cached as u128 * self.cached_input
            + t.cache_write as u128 * self.cache_write
            + t.completion as u128 * self.output;
        let savings = t.cached as u128 * self.input.saturating_sub(self.cached_input);
        Priced { cost: Money(cost), savings: Money(savings) }
    }
}

/// Every price Alisio knows: config `prices` first (for the models it names), then the table.
#[derive(Debug, Clone)]
pub struct PriceBook {
    config: Vec<PriceEntry>,
    table: Vec<PriceEntry>,
}

fn rates(value: &Value, what: &str) -> Result<Rates> {
    let number = |key: &str| value.get(key).and_then(Value::as_f64);
    let input = per_token(number("input").ok_or_else(|| Error::Config(format!("{what}: `input` is required")))?, what)?;
    let output =
        per_token(number("output").ok_or_else(|| Error::Config(format!("{what}: `output` is required")))?, what)?;
    Ok(Rates {
        input,
        cached_input: number("cachedInput").map(|p| per_token(p, what)).transpose()?.unwrap_or(input),
        cache_write: number("cacheWrite").map(|p| per_token(p, what)).transpose()?.unwrap_or(input),
        output,
    })
}

fn entry(value: &Value, pattern: Option<&str>, origin: &'static str) -> Result<PriceEntry> {
    let pattern = pattern.or_else(|| value.get("model").and_then(Value::as_str)).unwrap_or_default().to_string();
    let what = format!("prices.{pattern}");
    let since = value.get("since").and_then(Value::as_str).unwrap_or("0000-01-01").to_string();
    if chrono::NaiveDate::parse_from_str(&since, "%Y-%m-%d").is_err() && since != "0000-01-01" {
        return Err(Error::Config(format!("{what}.since: {since:?} is not a date (YYYY-MM-DD)")));
    }
    let long_context = match value.get("longContext") {
        Some(band) => {
            let above = band
                .get("above")
                .and_then(Value::as_u64)
                .ok_or_else(|| Error::Config(format!("{what}.longContext: `above` (prompt tokens) is required")))?;
            Some((above, rates(band, &format!("{what}.longContext"))?))
        }
        None => None,
    };
    Ok(PriceEntry { pattern: pattern.to_lowercase(), since, rates: rates(value, &what)?, long_context, origin })
}

impl PriceBook {
    /// The shipped table with config `prices` over it.
    pub fn new(config: &BTreeMap<String, PriceConfig>) -> Result<PriceBook> {
        let file: TableFile = serde_json::from_str(TABLE)?;
        let table = file
            .providers
            .iter()
            .flat_map(|p| p.models.iter())
            .map(|m| entry(m, None, "table"))
            .collect::<Result<Vec<_>>>()?;
        let config = config
            .iter()
            .map(|(pattern, price)| entry(&serde_json::to_value(price)?, Some(pattern), "config"))
            .collect::<Result<Vec<_>>>()?;
        Ok(PriceBook { config, table })
    }

    /// The entry in force for `model` on `date` (`YYYY-MM-DD…`): among the entries whose pattern
    /// matches it best (config's first, when any matches), the latest that had begun by then.
    pub fn entry(&self, model: &str, date: &str) -> Option<&PriceEntry> {
        let model = normalize(model);
        let day = date.get(..10).unwrap_or(date);
        [&self.config, &self.table].into_iter().find_map(|entries| {
            let matching: Vec<&PriceEntry> = entries.iter().filter(|e| glob(&e.pattern, &model)).collect();
            let best = matching.iter().map(|e| specificity(&e.pattern)).max()?;
            matching
                .into_iter()
                .filter(|e| specificity(&e.pattern) == best && e.since.as_str() <= day)
                .max_by(|a, b| a.since.cmp(&b.since))
        })
    }

    /// Every long-context band's threshold (prompt tokens).
    pub fn bands(&self) -> impl Iterator<Item = u64> + '_ {
        self.config.iter().chain(&self.table).filter_map(|e| e.long_context.map(|(above, _)| above))
    }

    /// The rates a call is priced at (its long-context band when its prompt is above it).
    pub fn rates(&self, model: &str, date: &str, prompt_tokens: u64) -> Option<Rates> {
        let entry = self.entry(model, date)?;
        Some(match entry.long_context {
            Some((above, band)) if prompt_tokens > above => band,
            _ => entry.rates,
        })
    }

    /// A call's cost, or `None` when its model has no price.
    pub fn price(&self, model: &str, date: &str, tokens: &Tokens) -> Option<Priced> {
        Some(self.rates(model, date, tokens.prompt)?.price(tokens))
    }
}

/// A model name as priced: lower case, without a provider prefix (`anthropic/…`, `models/…`).
pub fn normalize(model: &str) -> String {
    model.rsplit('/').next().unwrap_or(model).trim().to_lowercase()
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

pub mod tokens;
pub mod usage;

pub use tokens::AnthropicUsage;

#[cfg(test)]
mod tests;
