//! Redaction of secrets from everything that leaves the machine (exports, telemetry content).
//! The secret catalog is data (`catalog.json`, README beside it): each rule a kind, a pattern, the
//! capture group that is the secret, a FAKE example it must catch and a near-miss it must not.
//! Rules run in file order; each secret becomes `[REDACTED:<kind>]`. A [`Redactor`] adds the
//! user's own patterns (`--redact-extra`) and the strings the user un-marked as false positives,
//! and applies all of it to *decoded* values: a string that holds JSON (tool-call arguments) is
//! parsed and its own strings redacted. Fail closed: a catalog that does not compile is an error,
//! and callers write nothing. Pure.

use std::collections::{BTreeMap, HashSet};
use std::sync::LazyLock;

use regex::{Captures, Regex};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::{Error, Result};

/// Findings listed one by one (counted beyond that).
const MAX_LISTED: usize = 2000;

/// One rule of the catalog as written.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CatalogRule {
    pub kind: String,
    pub description: String,
    pub pattern: String,
    pub group: usize,
    pub example: String,
    pub secret: String,
    pub near_miss: String,
    pub source: String,
}

/// The catalog as shipped.
pub fn catalog() -> Result<Vec<CatalogRule>> {
    serde_json::from_str(include_str!("catalog.json"))
        .map_err(|e| Error::Redaction(format!("the secret catalog cannot be read: {e}")))
}

struct Rule {
    kind: String,
    regex: Regex,
    group: usize,
}

/// The catalog compiled once per process; an error says why redaction cannot run.
static COMPILED: LazyLock<std::result::Result<Vec<Rule>, String>> = LazyLock::new(|| {
    let rules = catalog().map_err(|e| e.to_string())?;
    rules
        .into_iter()
        .map(|r| {
            let regex = Regex::new(&r.pattern).map_err(|e| format!("secret rule {} does not compile: {e}", r.kind))?;
            if r.group >= regex.captures_len() {
                return Err(format!("secret rule {} names capture group {} it does not have", r.kind, r.group));
            }
            Ok(Rule { kind: r.kind, regex, group: r.group })
        })
        .collect()
});

/// One secret found: its kind, where it was, and a preview that shows only its start and size.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
pub struct Finding {
    pub kind: String,
    #[serde(rename = "where")]
    #[cfg_attr(feature = "ts", ts(rename = "where"))]
    pub at: String,
    pub preview: String,
}

/// What was redacted: by kind, and each finding (the first [`MAX_LISTED`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Redactions {
    pub by_kind: BTreeMap<String, u64>,
    pub findings: Vec<Finding>,
    /// The text of each finding, in the same order: only to un-mark a false positive by its
    /// number ([`Redactions::texts_of`]); never shown or written.
    secrets: Vec<String>,
}

impl Redactions {
    pub fn total(&self) -> u64 {
        self.by_kind.values().sum()
    }

    pub fn add(&mut self, other: &Redactions) {
        for (kind, n) in &other.by_kind {
            *self.by_kind.entry(kind.clone()).or_default() += n;
        }
        let room = MAX_LISTED.saturating_sub(self.findings.len());
        self.findings.extend(other.findings.iter().take(room).cloned());
        self.secrets.extend(other.secrets.iter().take(room).cloned());
    }

    fn found(&mut self, kind: &str, at: &str, secret: &str) {
        *self.by_kind.entry(kind.to_string()).or_default() += 1;
        if self.findings.len() < MAX_LISTED {
            self.findings.push(Finding { kind: kind.to_string(), at: at.to_string(), preview: preview(secret) });
            self.secrets.push(secret.to_string());
        }
    }

    /// The texts of findings `numbers` (indexes into `findings`): what a user un-marked.
    pub fn texts_of(&self, numbers: &[usize]) -> Vec<String> {
        numbers.iter().filter_map(|&n| self.secrets.get(n).cloned()).collect()
    }

    /// `3 secrets redacted (api_key 2, bearer_token 1)`.
    pub fn summary(&self) -> String {
        let total = self.total();
        let kinds: Vec<String> = self.by_kind.iter().map(|(k, n)| format!("{k} {n}")).collect();
        let noun = if total == 1 { "secret" } else { "secrets" };
        if kinds.is_empty() {
            format!("{total} {noun} redacted")
        } else {
            format!("{total} {noun} redacted ({})", kinds.join(", "))
        }
    }
}

/// A secret as a review may show it: at most its first four characters (fewer for short ones),
/// then its size — never enough to use it.
pub fn preview(secret: &str) -> String {
    let chars = secret.chars().count();
    let shown = if chars >= 16 { 4 } else { chars / 4 };
    let head: String = secret.chars().take(shown).collect();
    format!("{head}… ({chars} chars)")
}

/// The catalog plus what the user adds or un-marks for one share.
pub struct Redactor {
    extra: Vec<Rule>,
    keep: HashSet<String>,
    rules: &'static [Rule],
}

impl Redactor {
    /// The catalog alone. Fails when it cannot run (nothing may then leave unredacted).
    pub fn catalog() -> Result<Redactor> {
        Redactor::new(&[], &[])
    }

    /// The catalog, with `extra` patterns (a literal string, or a regex written `/…/`) redacted as
    /// kind `extra`, and `keep`: exact texts the user un-marked (false positives) left as they are.
    pub fn new(extra: &[String], keep: &[String]) -> Result<Redactor> {
        let rules = COMPILED.as_ref().map_err(|e| Error::Redaction(e.clone()))?;
        let extra = extra
            .iter()
            .filter(|p| !p.is_empty())
            .map(|p| {
                let source = match p.strip_prefix('/').and_then(|r| r.strip_suffix('/')) {
                    Some(re) if !re.is_empty() => re.to_string(),
                    _ => regex::escape(p),
                };
                let regex = Regex::new(&source)
                    .map_err(|e| Error::Usage(format!("--redact-extra {p:?} is not a valid pattern: {e}")))?;
                Ok(Rule { kind: "extra".into(), regex, group: 0 })
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Redactor { extra, keep: keep.iter().filter(|k| !k.is_empty()).cloned().collect(), rules })
    }

    /// `text` with every secret replaced; each is recorded as found at `at`.
    pub fn text(&self, text: &str, at: &str, found: &mut Redactions) -> String {
        let mut out = text.to_string();
        for rule in self.extra.iter().chain(self.rules.iter()) {
            if !rule.regex.is_match(&out) {
                continue;
            }
            let replaced = rule.regex.replace_all(&out, |caps: &Captures<'_>| {
                let whole = caps.get(0).map_or("", |m| m.as_str());
                let Some(secret) = caps.get(rule.group).filter(|s| !s.as_str().is_empty()) else {
                    return whole.to_string();
                };
                // An earlier rule's marker is not a secret again; an un-marked text stays.
                if secret.as_str().contains("[REDACTED:") || self.keep.contains(secret.as_str()) {
                    return whole.to_string();
                }
                found.found(&rule.kind, at, secret.as_str());
                let start = secret.start() - caps.get(0).map_or(0, |m| m.start());
                format!("{}[REDACTED:{}]{}", &whole[..start], rule.kind, &whole[start + secret.len()..])
            });
            out = replaced.into_owned();
        }
        out
    }

    /// Like [`Redactor::text`], but a string that is itself JSON (tool-call arguments, a nested
    /// document) is decoded first: its strings are redacted as values, escapes resolved, and it is
    /// written back as JSON. Anything else is redacted as text.
    pub fn decoded(&self, text: &str, at: &str, found: &mut Redactions) -> String {
        let trimmed = text.trim_start();
        if trimmed.starts_with('{') || trimmed.starts_with('[') {
            if let Ok(mut value) = serde_json::from_str::<Value>(text) {
                let before = found.total();
                self.json(&mut value, at, found);
                if found.total() == before {
                    return text.to_string();
                }
                return serde_json::to_string(&value).unwrap_or_else(|_| self.text(text, at, found));
            }
        }
        self.text(text, at, found)
    }

    /// Every string inside `value` (keys are names, left as they are), decoded as [`Redactor::decoded`] does.
    pub fn json(&self, value: &mut Value, at: &str, found: &mut Redactions) {
        match value {
            Value::String(text) => {
                let clean = self.decoded(text, at, found);
                if clean != *text {
                    *text = clean;
                }
            }
            Value::Array(items) => items.iter_mut().for_each(|v| self.json(v, at, found)),
            Value::Object(map) => map.values_mut().for_each(|v| self.json(v, at, found)),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests;
