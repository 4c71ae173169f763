//! The secrets a configuration names (the provider's API key; later profiles', MCP servers' and
//! telemetry headers'): kept out of tool processes' environments, and redacted from every text
//! Alisio stores, shows or sends — tool output, model text, prompts, events. A value shorter than
//! [`MIN_REDACTED_LEN`] is still kept from tools but not searched for in text (it would match
//! ordinary words).

use std::borrow::Cow;

use crate::config::Config;

/// What a secret's value becomes in text.
pub const REDACTED: &str = "[redacted]";

/// Values shorter than this are not searched for in text.
pub const MIN_REDACTED_LEN: usize = 8;

#[derive(Debug, Clone, Default)]
pub struct Secrets {
    /// Environment variables that hold a secret (by name).
    names: Vec<String>,
    /// The secret values, longest first (so a value containing another is replaced whole).
    values: Vec<String>,
}

impl Secrets {
    /// The secrets `config` names, read from this process's environment.
    pub fn from_config(config: &Config) -> Self {
        let mut names: Vec<&str> = config.provider.key_env_names.iter().map(String::as_str).collect();
        names.push(config.provider.api_key_env.as_str());
        Self::from_env_names(names)
    }

    pub fn from_env_names<'a>(names: impl IntoIterator<Item = &'a str>) -> Self {
        let names: Vec<String> = names.into_iter().filter(|n| !n.is_empty()).map(str::to_string).collect();
        let values = names.iter().filter_map(|n| std::env::var(n).ok()).collect();
        Self::new(names, values)
    }

    pub(crate) fn new(names: Vec<String>, mut values: Vec<String>) -> Self {
        values.retain(|v| !v.trim().is_empty());
        values.sort_by_key(|v| std::cmp::Reverse(v.len()));
        values.dedup();
        Self { names, values }
    }

    /// `text` with every secret value replaced by [`REDACTED`].
    pub fn redact<'t>(&self, text: &'t str) -> Cow<'t, str> {
        let mut out = Cow::Borrowed(text);
        for value in self.values.iter().filter(|v| v.len() >= MIN_REDACTED_LEN) {
            if out.contains(value.as_str()) {
                out = Cow::Owned(out.replace(value.as_str(), REDACTED));
            }
        }
        out
    }

    /// Redacts in place; returns whether anything changed.
    pub fn redact_in_place(&self, text: &mut String) -> bool {
        match self.redact(text) {
            Cow::Borrowed(_) => false,
            Cow::Owned(redacted) => {
                *text = redacted;
                true
            }
        }
    }

    /// The environment variables a tool process must not inherit: the named ones, and any other
    /// whose value contains a secret (the same key exported under another name).
    pub fn env_to_remove(&self) -> Vec<String> {
        let mut out = self.names.clone();
        for (name, value) in std::env::vars_os() {
            let value = value.to_string_lossy();
            if self.values.iter().any(|secret| value.contains(secret.as_str())) {
                out.push(name.to_string_lossy().into_owned());
            }
        }
        out.sort();
        out.dedup();
        out
    }

    /// A redactor for text that arrives in pieces (streamed deltas).
    pub fn stream(&self) -> StreamRedactor<'_> {
        StreamRedactor { secrets: self, pending: String::new() }
    }
}

/// Redacts streamed text whose secrets may be split across pieces: it holds back the longest tail
/// that could still become a secret, and releases it once it cannot.
pub struct StreamRedactor<'s> {
    secrets: &'s Secrets,
    pending: String,
}

impl StreamRedactor<'_> {
    /// Adds a piece; returns the text that is safe to show now (possibly empty).
    pub fn push(&mut self, piece: &str) -> String {
        self.pending.push_str(piece);
        self.secrets.redact_in_place(&mut self.pending);
        let hold = self.held_tail();
        let release = self.pending.len() - hold;
        let shown: String = self.pending[..release].to_string();
        self.pending.drain(..release);
        shown
    }

    /// The rest, at the end of the stream.
    pub fn finish(mut self) -> String {
        self.secrets.redact_in_place(&mut self.pending);
        std::mem::take(&mut self.pending)
    }

    /// Bytes at the end of `pending` that are a proper prefix of some secret.
    fn held_tail(&self) -> usize {
        let mut hold = 0;
        for secret in self.secrets.values.iter().filter(|v| v.len() >= MIN_REDACTED_LEN) {
            for (start, _) in self.pending.char_indices() {
                let tail = &self.pending[start..];
                if tail.len() < secret.len() && secret.starts_with(tail) {
                    hold = hold.max(tail.len());
                    break;
                }
            }
        }
        hold
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn secrets() -> Secrets {
        Secrets::new(vec!["KEY".into()], vec!["sk-abcdef123456".into(), "short".into()])
    }

    #[test]
    fn values_are_replaced_and_short_ones_left_alone() {
        let s = secrets();
        assert_eq!(s.redact("key=sk-abcdef123456; again sk-abcdef123456"), "key=[redacted]; again [redacted]");
        assert_eq!(s.redact("a short word"), "a short word");
        assert!(matches!(s.redact("nothing here"), Cow::Borrowed(_)));
    }

    #[test]
    fn a_secret_split_across_pieces_never_shows() {
        let s = secrets();
        let mut stream = s.stream();
        let mut shown = String::new();
        for piece in ["Your key is sk-ab", "cdef12", "3456 and ", "sk-abc", "?"] {
            shown.push_str(&stream.push(piece));
            assert!(!shown.contains("sk-abcdef"), "{shown}");
        }
        shown.push_str(&stream.finish());
        assert_eq!(shown, "Your key is [redacted] and sk-abc?");
    }
}
