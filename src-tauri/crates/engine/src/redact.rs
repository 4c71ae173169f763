//! Redaction of secrets from text that leaves the machine (exports, telemetry content):
//! API keys (`sk-…`, `ghp_…`, `github_pat_…`, `xox[abp]-…`, `AKIA…`), private-key blocks,
//! `Bearer …` tokens and `*_KEY=` / `*_TOKEN=` / `*_SECRET=` / `PASSWORD=` assignments become
//! `[REDACTED:<kind>]`. Hashes, UUIDs and base64 blobs that are not keys are left alone: every
//! pattern needs a key's own prefix or an assignment's name. Pure.

use std::collections::BTreeMap;
use std::sync::LazyLock;

use regex::{Captures, Regex};

/// What was redacted, by kind.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Redactions {
    pub by_kind: BTreeMap<&'static str, u64>,
}

impl Redactions {
    pub fn total(&self) -> u64 {
        self.by_kind.values().sum()
    }

    pub fn add(&mut self, other: &Redactions) {
        for (kind, n) in &other.by_kind {
            *self.by_kind.entry(kind).or_default() += n;
        }
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

/// `(kind, pattern, group)`: the text of capture `group` (0: the whole match) is replaced.
static PATTERNS: LazyLock<Vec<(&'static str, Regex, usize)>> = LazyLock::new(|| {
    // Every pattern is covered by the tests below, so none is dropped unnoticed.
    let p = |kind, re: &str, group| Regex::new(re).ok().map(|re| (kind, re, group));
    [
        p(
            "private_key",
            r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----[\s\S]*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----",
            0,
        ),
        p("github_token", r"\bgithub_pat_[A-Za-z0-9_]{22,}", 0),
        p("github_token", r"\bgh[pousr]_[A-Za-z0-9]{30,}", 0),
        p("slack_token", r"\bxox[abp]-[A-Za-z0-9-]{10,}", 0),
        p("aws_access_key", r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b", 0),
        p("api_key", r"\bsk-(?:[A-Za-z0-9]+-)*[A-Za-z0-9_]{20,}", 0),
        p("bearer_token", r"(?i)\bbearer\s+([A-Za-z0-9._~+/-]{12,}=*)", 1),
        p(
            "secret_assignment",
            r#"\b(?:[A-Za-z0-9_]*_(?:KEY|TOKEN|SECRET)|[A-Za-z0-9_]*PASSWORD)\s*[=:]\s*("[^"\n]+"|'[^'\n]+'|[^\s"',;]+)"#,
            1,
        ),
    ]
    .into_iter()
    .flatten()
    .collect()
});

/// `text` with every secret replaced, and what was replaced.
pub fn redact(text: &str) -> (String, Redactions) {
    let mut out = text.to_string();
    let mut found = Redactions::default();
    for (kind, pattern, group) in PATTERNS.iter() {
        if !pattern.is_match(&out) {
            continue;
        }
        let mut n = 0;
        let replaced = pattern.replace_all(&out, |caps: &Captures<'_>| {
            let whole = caps.get(0).map_or("", |m| m.as_str());
            let Some(secret) = caps.get(*group) else { return whole.to_string() };
            // An earlier pattern's marker is not a secret again.
            if secret.as_str().contains("[REDACTED:") {
                return whole.to_string();
            }
            n += 1;
            let start = secret.start() - caps.get(0).map_or(0, |m| m.start());
            format!("{}[REDACTED:{kind}]{}", &whole[..start], &whole[start + secret.len()..])
        });
        out = replaced.into_owned();
        if n > 0 {
            *found.by_kind.entry(kind).or_default() += n;
        }
    }
    (out, found)
}

/// Redacts every string inside `value` (keys are left as they are).
pub fn redact_json(value: &mut serde_json::Value, found: &mut Redactions) {
    match value {
        serde_json::Value::String(text) => {
            let (clean, seen) = redact(text);
            if seen.total() > 0 {
                *text = clean;
                found.add(&seen);
            }
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(|v| redact_json(v, found)),
        serde_json::Value::Object(map) => map.values_mut().for_each(|v| redact_json(v, found)),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn real_looking_secrets_are_replaced_by_kind() {
        let cases = [
            ("key sk-proj-AbCdEf0123456789ghijKLMNopqrstUV done", "key [REDACTED:api_key] done", "api_key"),
            ("export OPENAI=sk-abcdefghijklmnopqrstuvwxyz012345", "export OPENAI=[REDACTED:api_key]", "api_key"),
            ("token ghp_0123456789abcdefghijABCDEFGHIJ012345", "token [REDACTED:github_token]", "github_token"),
            ("github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz", "[REDACTED:github_token]", "github_token"),
            ("slack xoxb-1234567890-0987654321-AbCdEfGhIjKl", "slack [REDACTED:slack_token]", "slack_token"),
            ("aws AKIAIOSFODNN7EXAMPLE here", "aws [REDACTED:aws_access_key] here", "aws_access_key"),
            ("Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.abc", "Authorization: Bearer [REDACTED:bearer_token]", "bearer_token"),
            ("DATABASE_PASSWORD=hunter2hunter2 next", "DATABASE_PASSWORD=[REDACTED:secret_assignment] next", "secret_assignment"),
            ("STRIPE_SECRET_KEY=\"rk_live_abc123\"", "STRIPE_SECRET_KEY=[REDACTED:secret_assignment]", "secret_assignment"),
            ("MY_TOKEN: abc.def.ghi", "MY_TOKEN: [REDACTED:secret_assignment]", "secret_assignment"),
            (
                "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQ\n-----END OPENSSH PRIVATE KEY-----\nafter",
                "[REDACTED:private_key]\nafter",
                "private_key",
            ),
        ];
        for (text, want, kind) in cases {
            let (got, found) = redact(text);
            assert_eq!(got, want, "{text}");
            assert_eq!(found.by_kind.get(kind), Some(&1), "{text}: {found:?}");
            assert_eq!(found.total(), 1, "{text}: {found:?}");
        }
    }

    #[test]
    fn near_misses_stay_untouched() {
        let untouched = [
            "commit 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08",
            "sha1 da39a3ee5e6b4b0d3255bfef95601890afd80709",
            "session 01a22d92-df3a-72a1-bd0b-7184d9a4858e",
            "blob aGVsbG8gd29ybGQgdGhpcyBpcyBub3QgYSBrZXkgYXQgYWxsIGp1c3QgYmFzZTY0",
            "the task-manager skips ask-me and disk-usage",
            "sk-short",
            "MAX_TOKENS=4096 is not a secret? it is an assignment of a *_TOKENS name",
            "bearer of bad news",
            "PASSWORD_HINT is a field name, KEYBOARD=us",
            "AKIA is a prefix but AKIAshort is not a key",
            "[REDACTED:api_key] stays as it is",
        ];
        for text in untouched {
            let (got, found) = redact(text);
            assert_eq!(got, text);
            assert_eq!(found.total(), 0, "{text}");
        }
    }

    #[test]
    fn json_strings_are_redacted_and_counted() {
        let mut value =
            serde_json::json!({"a": ["x sk-abcdefghijklmnopqrstuvwxyz0123", {"b": "API_KEY=abcdef123"}], "n": 3});
        let mut found = Redactions::default();
        redact_json(&mut value, &mut found);
        assert_eq!(value["a"][0], "x [REDACTED:api_key]");
        assert_eq!(value["a"][1]["b"], "API_KEY=[REDACTED:secret_assignment]");
        assert_eq!(found.summary(), "2 secrets redacted (api_key 1, secret_assignment 1)");
    }
}
