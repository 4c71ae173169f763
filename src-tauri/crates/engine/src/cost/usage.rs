//! `alisio usage`: tokens, cost, cache hit rate and savings over every session — Alisio's own and
//! imported alike — by day, week, month, session, model, project or source.
//!
//! One pass over the daily sums (or, where they cannot answer, the ledger). Cost is linear in
//! tokens, so tokens are summed per group and rates in force (the entry for the call's model on
//! its date, at its prompt-length band and service tier) and each sum is priced once at the end —
//! exact, and the same as pricing call by call. The report names the models it could not price.

use std::collections::{HashMap, HashSet};

use serde::Serialize;

use super::{Money, PriceBook, Rates, Tier, Tokens};
use crate::error::{Error, Result};
use crate::store::usage::{CallUsage, SessionRef, UsageFilter};
use crate::store::Store;

/// What usage is grouped by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
pub enum UsageBy {
    Day,
    Week,
    Month,
    Session,
    Model,
    Project,
    Source,
    /// Who pushed the session (a team's archive only).
    User,
    /// The machine it was pushed from (a team's archive only).
    Machine,
}

impl std::str::FromStr for UsageBy {
    type Err = Error;
    fn from_str(text: &str) -> Result<UsageBy> {
        Ok(match text {
            "day" => UsageBy::Day,
            "week" => UsageBy::Week,
            "month" => UsageBy::Month,
            "session" => UsageBy::Session,
            "model" => UsageBy::Model,
            "project" => UsageBy::Project,
            "source" => UsageBy::Source,
            "user" => UsageBy::User,
            "machine" => UsageBy::Machine,
            other => {
                return Err(Error::Usage(format!(
                    "--by must be day, week, month, session, model, project or source (user or machine with --archive), not {other:?}"
                )))
            }
        })
    }
}

/// One group's figures (also the total).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct UsageRow {
    pub key: String,
    /// What the key stands for where it is an id (a session's title).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    pub calls: u64,
    pub prompt_tokens: u64,
    pub cached_tokens: u64,
    pub cache_write_tokens: u64,
    pub completion_tokens: u64,
    /// The priced calls' cost; `null` when none of the group's calls has a price.
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub cost_usd: Option<Money>,
    #[cfg_attr(feature = "ts", ts(type = "number | null"))]
    pub cache_savings_usd: Option<Money>,
    /// Cached over prompt tokens; `null` without prompt tokens.
    pub cache_hit_rate: Option<f64>,
    /// Calls whose model has no price on their date (their cost is not in `costUsd`).
    pub unpriced_calls: u64,
    /// Sessions behind the group.
    pub sessions: u64,
}

/// A model without a price, and its calls in the report.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct UnpricedModel {
    pub model: String,
    pub calls: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct UsageReport {
    pub by: UsageBy,
    pub rows: Vec<UsageRow>,
    pub total: UsageRow,
    /// The models of `total.unpricedCalls`, most calls first.
    pub unpriced_models: Vec<UnpricedModel>,
    /// What prices them, when some are unpriced.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub price_hint: Option<String>,
}

/// Which calls and how to group them.
#[derive(Debug, Clone)]
pub struct UsageQuery {
    pub by: UsageBy,
    /// `YYYY-MM-DD` (or a timestamp): calls from then on.
    pub since: Option<String>,
    /// `YYYY-MM-DD`: calls up to the end of that day (a timestamp: before it).
    pub until: Option<String>,
    /// `alisio`, `codex`, `claude-code`, `opencode`, `proxy`, …
    pub source: Option<String>,
    /// Only calls to this model.
    pub model: Option<String>,
    /// With `by: session`, a sub-agent's calls count in the session that started it (the one at
    /// the top of its chain of parents) instead of in its own row.
    pub fold_subagents: bool,
}

#[derive(Default, Clone, Copy)]
struct Sums {
    calls: u64,
    tokens: [u64; 5],
}

impl Sums {
    fn add(&mut self, calls: u64, t: &Tokens) {
        self.calls += calls;
        for (sum, v) in self.tokens.iter_mut().zip([t.prompt, t.cached, t.cache_write, t.cache_write_1h, t.completion])
        {
            *sum += v;
        }
    }

    fn tokens(&self) -> Tokens {
        let [prompt, cached, cache_write, cache_write_1h, completion] = self.tokens;
        Tokens { prompt, cached, cache_write, cache_write_1h, completion }
    }
}

/// A group being summed: tokens per price in force (`None`: unpriced), and its sessions.
#[derive(Default)]
struct Group {
    by_price: HashMap<Option<Rates>, Sums>,
    /// Indexes into the session list.
    sessions: HashSet<usize>,
}

impl Group {
    fn row(&self, key: String, label: Option<String>) -> UsageRow {
        let mut row = UsageRow { key, label, sessions: self.sessions.len() as u64, ..UsageRow::default() };
        for (rates, sums) in &self.by_price {
            let t = sums.tokens();
            row.calls += sums.calls;
            row.prompt_tokens += t.prompt;
            row.cached_tokens += t.cached;
            row.cache_write_tokens += t.cache_write;
            row.completion_tokens += t.completion;
            match rates {
                Some(rates) => {
                    let priced = rates.price(&t);
                    *row.cost_usd.get_or_insert(Money::ZERO) += priced.cost;
                    *row.cache_savings_usd.get_or_insert(Money::ZERO) += priced.savings;
                }
                None => row.unpriced_calls += sums.calls,
            }
        }
        row.cache_hit_rate = (row.prompt_tokens > 0).then(|| row.cached_tokens as f64 / row.prompt_tokens as f64);
        row
    }

    fn merge(&mut self, other: &Group) {
        for (rates, sums) in &other.by_price {
            let into = self.by_price.entry(*rates).or_default();
            into.calls += sums.calls;
            for (a, b) in into.tokens.iter_mut().zip(sums.tokens) {
                *a += b;
            }
        }
        self.sessions.extend(&other.sessions);
    }
}

/// What prices a model the report could not.
pub const PRICE_HINT: &str = "alisio prices update FILE (a newer LiteLLM model_prices_and_context_window.json), \
    or config `prices` for a model no snapshot names (a local one); `alisio prices show MODEL` says why a model has no price";

fn iso_week(day: &str) -> String {
    match chrono::NaiveDate::parse_from_str(day, "%Y-%m-%d") {
        Ok(date) => {
            let week = chrono::Datelike::iso_week(&date);
            format!("{}-W{:02}", week.year(), week.week())
        }
        Err(_) => day.to_string(),
    }
}

/// The session at the top of `session`'s chain of parents (itself when it has none); a parent not
/// in the store ends the chain, as does a loop.
fn root_of<'s>(session: &'s SessionRef, sessions: &'s [SessionRef], by_id: &HashMap<&str, usize>) -> &'s str {
    let mut at = session;
    for _ in 0..64 {
        match at.parent.as_deref().and_then(|p| by_id.get(p)) {
            Some(i) => at = &sessions[*i],
            None => break,
        }
    }
    at.id.as_str()
}

/// The calls `query` bounds, and whether its bounds are whole days (what the daily sums answer).
fn bounds(query: &UsageQuery) -> Result<(UsageFilter, bool)> {
    if let Some(since) = &query.since {
        if since.len() < 10 || chrono::NaiveDate::parse_from_str(&since[..10], "%Y-%m-%d").is_err() {
            return Err(Error::Usage(format!("--since must be a date (YYYY-MM-DD), not {since:?}")));
        }
    }
    let until = match &query.until {
        Some(until) if until.len() == 10 => {
            Some(super::book::next_day(&super::book::day_or_today(Some(until), "--until")?))
        }
        other => other.clone(),
    };
    // The daily sums answer unless the bounds are finer than days (or, the caller checks, a band
    // is not one they keep apart: a config or update band outside `BAND_THRESHOLDS`).
    let is_day = |d: &Option<String>| d.as_ref().is_none_or(|d| d.len() == 10);
    let whole_days = is_day(&query.since) && is_day(&until);
    Ok((UsageFilter { since: query.since.clone(), until }, whole_days))
}

/// The usage report `query` asks for; `sessions_of` also lists the sessions behind that key.
pub fn report(store: &Store, book: &PriceBook, query: &UsageQuery) -> Result<UsageReport> {
    let (report, _) = run(store, book, query, None)?;
    Ok(report)
}

/// The sessions behind one row of a report (its key as the report gives it), most recent first.
pub fn sessions_of(store: &Store, book: &PriceBook, query: &UsageQuery, key: &str) -> Result<Vec<SessionRef>> {
    Ok(run(store, book, query, Some(key))?.1)
}

fn run(
    store: &Store,
    book: &PriceBook,
    query: &UsageQuery,
    wanted: Option<&str>,
) -> Result<(UsageReport, Vec<SessionRef>)> {
    let (filter, daily_bounds) = bounds(query)?;
    let daily = daily_bounds && book.daily_bands();
    let sessions = store.session_refs()?;
    let by_id: HashMap<&str, usize> = sessions.iter().enumerate().map(|(i, s)| (s.id.as_str(), i)).collect();

    // Keys by index; what a call's key is, remembered per session or per day.
    let mut keys: Vec<String> = Vec::new();
    let mut key_index: HashMap<String, usize> = HashMap::new();
    let mut groups: Vec<Group> = Vec::new();
    let mut intern = |key: &str, keys: &mut Vec<String>, groups: &mut Vec<Group>| -> usize {
        if let Some(i) = key_index.get(key) {
            return *i;
        }
        keys.push(key.to_string());
        groups.push(Group::default());
        key_index.insert(key.to_string(), keys.len() - 1);
        keys.len() - 1
    };
    // Per session: its index in `sessions` and its group (`None`: another source than asked).
    let mut session_key: HashMap<String, Option<(usize, usize)>> = HashMap::new();
    let mut model_key: HashMap<String, usize> = HashMap::new();
    let mut last_day = String::new();
    let mut day_key = 0usize;
    // The price in force per model, re-resolved when the day changes.
    let mut prices: HashMap<String, (String, Option<super::PriceEntry>)> = HashMap::new();
    let mut unpriced: HashMap<String, u64> = HashMap::new();

    store.each_call_usage(&filter, daily, |call| {
        if query.model.as_deref().is_some_and(|m| m != call.model) {
            return;
        }
        let (session, group_of_session) = match session_key.get(call.session) {
            Some(Some(known)) => *known,
            Some(None) => return,
            None => {
                let found = by_id.get(call.session).map(|i| (*i, &sessions[*i]));
                let wanted = found.filter(|(_, s)| query.source.as_ref().is_none_or(|source| *source == s.source));
                let known = wanted.map(|(i, s)| {
                    let key = match query.by {
                        UsageBy::Session if query.fold_subagents => root_of(s, &sessions, &by_id),
                        UsageBy::Session => s.id.as_str(),
                        UsageBy::Project => s.project.as_str(),
                        UsageBy::Source => s.source.as_str(),
                        _ => return (i, 0),
                    };
                    (i, intern(key, &mut keys, &mut groups))
                });
                session_key.insert(call.session.to_string(), known);
                match known {
                    Some(known) => known,
                    None => return,
                }
            }
        };
        let day = call.started_at.get(..10).unwrap_or(call.started_at);
        let key = match query.by {
            UsageBy::Day | UsageBy::Week | UsageBy::Month => {
                if day != last_day {
                    last_day = day.to_string();
                    let key = match query.by {
                        UsageBy::Day => day.to_string(),
                        UsageBy::Week => iso_week(day),
                        _ => day.get(..7).unwrap_or(day).to_string(),
                    };
                    day_key = intern(&key, &mut keys, &mut groups);
                }
                day_key
            }
            UsageBy::Model => match model_key.get(call.model) {
                Some(k) => *k,
                None => {
                    let k = intern(call.model, &mut keys, &mut groups);
                    model_key.insert(call.model.to_string(), k);
                    k
                }
            },
            UsageBy::Session | UsageBy::Project | UsageBy::Source | UsageBy::User | UsageBy::Machine => {
                group_of_session
            }
        };
        let (tokens, rates) = priced(book, &mut prices, &call, day);
        if rates.is_none() {
            *unpriced.entry(call.model.to_string()).or_default() += call.calls;
        }
        let group = &mut groups[key];
        group.by_price.entry(rates).or_default().add(call.calls, &tokens);
        group.sessions.insert(session);
    })?;

    Ok(summed(query, keys, &groups, sessions, wanted, unpriced))
}

/// The report of the groups summed, and the sessions behind row `wanted`.
fn summed(
    query: &UsageQuery,
    keys: Vec<String>,
    groups: &[Group],
    sessions: Vec<SessionRef>,
    wanted: Option<&str>,
    unpriced: HashMap<String, u64>,
) -> (UsageReport, Vec<SessionRef>) {
    let titles: HashMap<&str, &str> = sessions.iter().map(|s| (s.id.as_str(), s.title.as_str())).collect();
    let mut total = Group::default();
    let mut rows: Vec<UsageRow> = Vec::with_capacity(keys.len());
    let mut behind: HashSet<usize> = HashSet::new();
    for (key, group) in keys.into_iter().zip(groups) {
        total.merge(group);
        if wanted == Some(key.as_str()) {
            behind.extend(&group.sessions);
        }
        let label = (query.by == UsageBy::Session).then(|| titles.get(key.as_str()).map(|t| t.to_string())).flatten();
        rows.push(group.row(key, label));
    }
    match query.by {
        UsageBy::Day | UsageBy::Week | UsageBy::Month => rows.sort_by(|a, b| a.key.cmp(&b.key)),
        _ => rows.sort_by(|a, b| b.cost_usd.cmp(&a.cost_usd).then(b.calls.cmp(&a.calls)).then(a.key.cmp(&b.key))),
    }
    let mut listed: Vec<SessionRef> =
        sessions.into_iter().enumerate().filter(|(i, _)| behind.contains(i)).map(|(_, s)| s).collect();
    listed.reverse();
    let mut unpriced_models: Vec<UnpricedModel> =
        unpriced.into_iter().map(|(model, calls)| UnpricedModel { model, calls }).collect();
    unpriced_models.sort_by(|a, b| b.calls.cmp(&a.calls).then(a.model.cmp(&b.model)));
    let price_hint = (!unpriced_models.is_empty()).then(|| PRICE_HINT.to_string());
    let total = total.row("total".into(), None);
    (UsageReport { by: query.by, rows, total, unpriced_models, price_hint }, listed)
}

/// A call's (or a day's sums') tokens and the rates they are priced at: the entry in force for
/// its model on its day (looked up once per model and day), its tier's, at its band.
fn priced(
    book: &PriceBook,
    prices: &mut HashMap<String, (String, Option<super::PriceEntry>)>,
    call: &CallUsage<'_>,
    day: &str,
) -> (Tokens, Option<Rates>) {
    let entry = match prices.get(call.model) {
        Some((at, entry)) if at == day => entry.as_ref(),
        _ => {
            let entry = book.entry(call.model, day).cloned();
            prices.insert(call.model.to_string(), (day.to_string(), entry));
            prices.get(call.model).and_then(|(_, e)| e.as_ref())
        }
    };
    let tokens = Tokens {
        prompt: call.prompt_tokens,
        cached: call.cached_tokens,
        cache_write: call.cache_write_tokens,
        cache_write_1h: call.cache_write_1h_tokens,
        completion: call.completion_tokens,
    };
    let rates: Option<Rates> = entry.map(|e| {
        let schedule = e.price.schedule(Tier::parse(call.tier));
        match call.band {
            Some(level) => schedule.at_level(level),
            None => schedule.at(tokens.prompt),
        }
    });
    (tokens, rates)
}
