//! What a model call cost. Prices come from a table generated from pinned snapshots of LiteLLM's
//! price data (`cost/prices/litellm.json`, each snapshot's changes a dated entry), a small
//! hand-kept overlay for the history and the errors that data has (`cost/prices/overlay.json`,
//! each with its source), snapshots loaded later with `alisio prices update` (`$ALISIO_HOME/prices/`)
//! and config `prices`, which replaces all of them for the models it names. A call is priced by
//! the entry in force on its date; a model without one is unpriced — never guessed. See
//! `book` for how an id finds its entry.
//!
//! Money is integer picodollars (10⁻¹² USD): a price of USD p per million tokens is p·10⁶
//! picodollars per token, exact for any price written with up to six decimals, so a cost is tokens
//! × an integer and sums are exact. It is shown in USD rounded to the micro-dollar.

use std::fmt;

use serde::Serialize;

use crate::error::{Error, Result};

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

/// The tokens of one call, as its server (or its agent) reported them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tokens {
    /// Every input token: uncached, read from the cache and written to it.
    pub prompt: u64,
    pub cached: u64,
    pub cache_write: u64,
    /// The part of `cache_write` written to a 1-hour cache (priced apart).
    pub cache_write_1h: u64,
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

pub mod book;
pub mod litellm;
pub mod names;
pub mod tokens;
pub mod usage;

pub use book::{PriceBook, PriceEntry, Rates, Tier};
pub use tokens::AnthropicUsage;

#[cfg(test)]
mod tests;
