//! What the team reads from the archive, in the shapes a home's `usage` and `search` print: usage
//! summed by PostgreSQL in integer picodollars (grouped also by user and machine), and search by
//! PostgreSQL's full text ranked, every token of a plain query matched literally (trigram-indexed,
//! so `foo::bar` and `notes.txt` are found as typed).

use alisio_engine::cost::usage::{UnpricedModel, UsageBy, UsageQuery, UsageReport, UsageRow};
use alisio_engine::cost::Money;
use alisio_engine::store::search::SearchHit;
use serde::Serialize;

use crate::{Archive, Result};

/// The SQL expression a call's group key is.
fn key_of(by: UsageBy) -> &'static str {
    match by {
        UsageBy::Day => "substr(c.started_at, 1, 10)",
        UsageBy::Week => "to_char(substr(c.started_at, 1, 10)::date, 'IYYY-\"W\"IW')",
        UsageBy::Month => "substr(c.started_at, 1, 7)",
        UsageBy::Session => "s.machine || '/' || s.id",
        UsageBy::Model => "c.model",
        UsageBy::Project => "s.project",
        UsageBy::Source => "s.agent",
        UsageBy::User => "s.user_name",
        UsageBy::Machine => "s.machine",
    }
}

/// Usage over every pushed session (`fold_subagents` does not apply: sub-agents are sessions of
/// their own here).
pub async fn usage(archive: &Archive, query: &UsageQuery) -> Result<UsageReport> {
    let key = key_of(query.by);
    // An `until` day includes all of it.
    let until = query.until.as_ref().map(|u| if u.len() == 10 { format!("{u}T99") } else { u.clone() });
    let sql = format!(
        "SELECT {key} AS key, min(s.title), count(*), sum(c.prompt_tokens)::bigint, sum(c.cached_tokens)::bigint,
                sum(c.cache_write_tokens)::bigint, sum(c.completion_tokens)::bigint, sum(c.cost_pico)::text,
                sum(c.savings_pico)::text, count(*) FILTER (WHERE c.cost_pico IS NULL), count(DISTINCT (s.machine, s.id))
         FROM calls c JOIN sessions s ON s.machine = c.machine AND s.id = c.session_id
         WHERE c.purpose <> 'replay' AND ($1::text IS NULL OR c.started_at >= $1) AND ($2::text IS NULL OR c.started_at < $2)
           AND ($3::text IS NULL OR s.agent = $3) AND ($4::text IS NULL OR c.model = $4)
         GROUP BY 1"
    );
    let params: [&(dyn tokio_postgres::types::ToSql + Sync); 4] = [&query.since, &until, &query.source, &query.model];
    let rows = archive.client.query(&sql, &params).await.map_err(|e| archive.fail(e))?;
    let mut total = UsageRow { key: "total".into(), ..UsageRow::default() };
    let mut out = Vec::new();
    for r in rows {
        let money = |i: usize| r.get::<_, Option<String>>(i).and_then(|t| t.parse::<u128>().ok()).map(Money);
        let row = UsageRow {
            key: r.get::<_, Option<String>>(0).unwrap_or_default(),
            label: (query.by == UsageBy::Session).then(|| r.get::<_, Option<String>>(1)).flatten(),
            calls: r.get::<_, i64>(2) as u64,
            prompt_tokens: r.get::<_, Option<i64>>(3).unwrap_or(0) as u64,
            cached_tokens: r.get::<_, Option<i64>>(4).unwrap_or(0) as u64,
            cache_write_tokens: r.get::<_, Option<i64>>(5).unwrap_or(0) as u64,
            completion_tokens: r.get::<_, Option<i64>>(6).unwrap_or(0) as u64,
            cost_usd: money(7),
            cache_savings_usd: money(8),
            cache_hit_rate: None,
            unpriced_calls: r.get::<_, i64>(9) as u64,
            sessions: r.get::<_, i64>(10) as u64,
        };
        add(&mut total, &row);
        out.push(with_rate(row));
    }
    let sessions = archive
        .client
        .query_one(
            "SELECT count(DISTINCT (c.machine, c.session_id)) FROM calls c JOIN sessions s ON s.machine = c.machine AND s.id = c.session_id
             WHERE c.purpose <> 'replay' AND ($1::text IS NULL OR c.started_at >= $1) AND ($2::text IS NULL OR c.started_at < $2)
               AND ($3::text IS NULL OR s.agent = $3) AND ($4::text IS NULL OR c.model = $4)",
            &params,
        )
        .await
        .map_err(|e| archive.fail(e))?;
    total.sessions = sessions.get::<_, i64>(0) as u64;
    match query.by {
        UsageBy::Day | UsageBy::Week | UsageBy::Month => out.sort_by(|a, b| a.key.cmp(&b.key)),
        _ => out.sort_by(|a, b| b.cost_usd.cmp(&a.cost_usd).then(b.calls.cmp(&a.calls)).then(a.key.cmp(&b.key))),
    }
    let unpriced = archive
        .client
        .query(
            "SELECT model, count(*) FROM calls WHERE cost_pico IS NULL AND purpose <> 'replay' GROUP BY model ORDER BY 2 DESC, 1",
            &[],
        )
        .await
        .map_err(|e| archive.fail(e))?;
    let unpriced_models: Vec<UnpricedModel> =
        unpriced.iter().map(|r| UnpricedModel { model: r.get(0), calls: r.get::<_, i64>(1) as u64 }).collect();
    Ok(UsageReport { by: query.by, rows: out, total: with_rate(total), unpriced_models, price_hint: None })
}

fn add(total: &mut UsageRow, row: &UsageRow) {
    total.calls += row.calls;
    total.prompt_tokens += row.prompt_tokens;
    total.cached_tokens += row.cached_tokens;
    total.cache_write_tokens += row.cache_write_tokens;
    total.completion_tokens += row.completion_tokens;
    total.unpriced_calls += row.unpriced_calls;
    let sum = |a: Option<Money>, b: Option<Money>| match (a, b) {
        (None, None) => None,
        (a, b) => Some(Money(a.map_or(0, |m| m.0) + b.map_or(0, |m| m.0))),
    };
    total.cost_usd = sum(total.cost_usd, row.cost_usd);
    total.cache_savings_usd = sum(total.cache_savings_usd, row.cache_savings_usd);
}

fn with_rate(mut row: UsageRow) -> UsageRow {
    row.cache_hit_rate = (row.prompt_tokens > 0).then(|| row.cached_tokens as f64 / row.prompt_tokens as f64);
    row
}

/// A hit of the archive's search: a home's hit, with the machine and the user.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ArchiveHit {
    #[serde(flatten)]
    #[cfg_attr(feature = "ts", ts(flatten))]
    pub hit: SearchHit,
    pub machine: String,
    pub user: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct ArchiveSearch {
    pub hits: Vec<ArchiveHit>,
    pub total: u64,
}

/// What to look for.
#[derive(Debug, Clone, Default)]
pub struct SearchQuery {
    pub text: String,
    /// `text` is PostgreSQL web-search syntax (words, "phrases", OR, -word) instead of plain text.
    pub fts: bool,
    pub source: Option<String>,
    pub project: Option<String>,
    pub role: Option<String>,
    pub machine: Option<String>,
    pub user: Option<String>,
    pub limit: u64,
}

/// `%token%` for ILIKE, its wildcards escaped.
fn like(token: &str) -> String {
    let escaped = token.replace('\\', "\\\\").replace('%', "\\%").replace('_', "\\_");
    format!("%{escaped}%")
}

/// Every pushed message matching `query`, best first: a full-text match ranks first, then the newest.
pub async fn search(archive: &Archive, query: &SearchQuery) -> Result<ArchiveSearch> {
    let tokens: Vec<String> =
        query.text.split_whitespace().map(|t| t.trim_matches('"').to_string()).filter(|t| !t.is_empty()).collect();
    if tokens.is_empty() {
        return Ok(ArchiveSearch { hits: Vec::new(), total: 0 });
    }
    let patterns: Vec<String> = tokens.iter().map(|t| like(t)).collect();
    // Each plain token its own condition, so PostgreSQL reads the trigram index for each.
    let first_pattern = 7;
    let matches = if query.fts {
        "m.search @@ websearch_to_tsquery('simple', $1)".to_string()
    } else {
        (0..patterns.len()).map(|i| format!("m.content ILIKE ${}", first_pattern + i)).collect::<Vec<_>>().join(" AND ")
    };
    // $1 typed in both queries, whichever way the match is made.
    let filters = "$1::text IS NOT NULL AND ($2::text IS NULL OR s.agent = $2) AND ($3::text IS NULL OR s.project = $3)
        AND ($4::text IS NULL OR m.role = $4) AND ($5::text IS NULL OR s.machine = $5) AND ($6::text IS NULL OR s.user_name = $6)";
    let text = query.text.clone();
    let mut params: Vec<&(dyn tokio_postgres::types::ToSql + Sync)> =
        vec![&text, &query.source, &query.project, &query.role, &query.machine, &query.user];
    if !query.fts {
        params.extend(patterns.iter().map(|p| p as &(dyn tokio_postgres::types::ToSql + Sync)));
    }
    let from = "FROM messages m JOIN sessions s ON s.machine = m.machine AND s.id = m.session_id";
    let (first_at, limit_at) = (params.len() + 1, params.len() + 2);
    let sql = format!(
        "SELECT m.session_id, m.seq, m.role, s.agent, s.project, m.created_at, s.title, s.machine, s.user_name,
                substr(m.content, greatest(strpos(lower(m.content), lower(${first_at})) - 60, 1), 200)
         {from} WHERE {matches} AND {filters}
         ORDER BY ts_rank(m.search, plainto_tsquery('simple', $1)) DESC, m.created_at DESC LIMIT ${limit_at}"
    );
    let first = tokens[0].clone();
    let limit = query.limit.max(1) as i64;
    let mut with_first = params.clone();
    with_first.push(&first);
    with_first.push(&limit);
    let rows = archive.client.query(&sql, &with_first).await.map_err(|e| archive.fail(e))?;
    let total = archive
        .client
        .query_one(&format!("SELECT count(*) {from} WHERE {matches} AND {filters}"), &params)
        .await
        .map_err(|e| archive.fail(e))?;
    let hits = rows
        .iter()
        .map(|r| ArchiveHit {
            hit: SearchHit {
                session: r.get(0),
                seq: r.get(1),
                role: r.get(2),
                source: r.get(3),
                project: r.get(4),
                at: r.get(5),
                title: r.get(6),
                snippet: mark(&r.get::<_, String>(9), &tokens),
            },
            machine: r.get(7),
            user: r.get(8),
        })
        .collect();
    Ok(ArchiveSearch { hits, total: total.get::<_, i64>(0) as u64 })
}

/// `text` with each token (case aside) between `[` and `]`, on one line.
fn mark(text: &str, tokens: &[String]) -> String {
    let mut out = text.replace('\n', " ");
    for token in tokens {
        let lower = out.to_lowercase();
        if let Some(at) = lower.find(&token.to_lowercase()) {
            if out.is_char_boundary(at) && out.is_char_boundary(at + token.len()) {
                out = format!("{}[{}]{}", &out[..at], &out[at..at + token.len()], &out[at + token.len()..]);
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_token_is_matched_as_typed_and_marked() {
        assert_eq!(like("50%_off\\"), "%50\\%\\_off\\\\%");
        assert_eq!(mark("see notes.txt\nnow", &["NOTES.TXT".into()]), "see [notes.txt] now");
    }
}
