//! When to compact and when a request is too big to send (docs/compaction.md). Pure functions.

/// A declared window above this many tokens is not trusted (so `window × threshold` cannot hide
/// real pressure); the character fallback applies instead.
pub const WINDOW_TRUST_LIMIT: u64 = 2_000_000;

/// The size of the next request.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Pressure {
    /// Instructions + transcript: the part compaction and reduction can shrink.
    pub reducible_chars: u64,
    /// The fixed tool catalog, counted by the triggers but never by the hard limit.
    pub tool_catalog_chars: u64,
}

impl Pressure {
    pub fn request_chars(&self) -> u64 {
        self.reducible_chars + self.tool_catalog_chars
    }
    pub fn request_tokens(&self) -> u64 {
        crate::transcript::estimate_tokens(self.request_chars())
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Trigger {
    /// Estimated tokens of the full request reached `threshold × window`.
    Window { tokens: u64, window: u64 },
    /// No trusted window: estimated tokens of the full request reached `maxContextChars / 4`.
    FallbackWindow { tokens: u64, limit: u64 },
    /// Instructions + transcript reached `threshold × maxContextChars` (applies to every model).
    Characters { chars: u64, limit: u64 },
}

impl Trigger {
    /// As a compaction record keeps it: the figures it fired on.
    pub fn record(&self, threshold: f64) -> crate::store::compactions::Trigger {
        use crate::store::compactions::{Trigger as Record, TriggerKind};
        let (prompt_tokens, window, threshold) = match *self {
            Trigger::Window { tokens, window } => (tokens, Some(window), threshold),
            // No trusted window: the stand-in is maxContextChars / 4, reached whole.
            Trigger::FallbackWindow { tokens, limit } => (tokens, Some(limit), 1.0),
            Trigger::Characters { chars, .. } => (crate::transcript::estimate_tokens(chars), None, threshold),
        };
        Record { kind: TriggerKind::Threshold, prompt_tokens: Some(prompt_tokens), window, threshold: Some(threshold) }
    }
}

/// Whether automatic compaction is due before the next model call.
pub fn auto_compaction_due(
    pressure: Pressure,
    window: Option<u64>,
    threshold: f64,
    max_context_chars: u64,
) -> Option<Trigger> {
    let tokens = pressure.request_tokens();
    match window.filter(|w| *w <= WINDOW_TRUST_LIMIT) {
        Some(window) => {
            if tokens as f64 >= threshold * window as f64 {
                return Some(Trigger::Window { tokens, window });
            }
        }
        None => {
            let limit = max_context_chars / 4;
            if tokens >= limit {
                return Some(Trigger::FallbackWindow { tokens, limit });
            }
        }
    }
    let char_limit = (threshold * max_context_chars as f64).floor() as u64;
    if pressure.reducible_chars >= char_limit {
        return Some(Trigger::Characters { chars: pressure.reducible_chars, limit: char_limit });
    }
    None
}

/// Whether compaction cannot bring the request under `trigger` at all: what it cannot shrink —
/// the instructions and the tool catalog, `fixed_chars` — alone reaches it.
pub fn compaction_futile(trigger: Trigger, fixed_chars: u64, threshold: f64) -> bool {
    let fixed = crate::transcript::estimate_tokens(fixed_chars);
    match trigger {
        Trigger::Window { window, .. } => fixed as f64 >= threshold * window as f64,
        Trigger::FallbackWindow { limit, .. } => fixed >= limit,
        Trigger::Characters { .. } => false,
    }
}

/// The hard limit after compaction: only instructions + transcript count, never the tool catalog.
pub fn over_hard_limit(pressure: Pressure, max_context_chars: u64) -> bool {
    pressure.reducible_chars > max_context_chars
}

/// What automatic compaction did, for the budget error (its four forms).
#[derive(Debug, Clone, PartialEq)]
pub enum CompactionAttempt {
    Ran,
    Skipped,
    Failed(String),
    Disabled,
}

pub fn budget_exceeded_message(chars: u64, limit: u64, attempt: &CompactionAttempt, session: &str) -> String {
    let what = match attempt {
        CompactionAttempt::Ran => "ran but could not reduce it enough".to_string(),
        CompactionAttempt::Skipped => "was skipped because there is no safe boundary to summarize".to_string(),
        CompactionAttempt::Failed(error) => format!("failed ({error})"),
        CompactionAttempt::Disabled => "is disabled".to_string(),
    };
    format!(
        "Context budget exceeded (approximately {chars} characters of conversation; limit {limit}). \
         Automatic compaction {what}. Run `alisio compact {session}` with a focus, trim large tool outputs, \
         start a new session, or disable unneeded MCP servers via /plugins."
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(reducible: u64, catalog: u64) -> Pressure {
        Pressure { reducible_chars: reducible, tool_catalog_chars: catalog }
    }

    #[test]
    fn triggers() {
        let t = 0.85;
        let max = 800_000;
        // Known window: 85 % of 10,000 tokens = 8,500 tokens = 34,000 chars, catalog included.
        assert_eq!(auto_compaction_due(p(30_000, 3_995), Some(10_000), t, max), None);
        assert_eq!(
            auto_compaction_due(p(30_000, 4_000), Some(10_000), t, max),
            Some(Trigger::Window { tokens: 8_500, window: 10_000 })
        );
        // A huge declared window is not trusted: fallback to maxContextChars / 4 tokens.
        assert_eq!(
            auto_compaction_due(p(100_000, 0), Some(5_000_000), t, 100_000),
            Some(Trigger::FallbackWindow { tokens: 25_000, limit: 25_000 })
        );
        // The character rule fires even when a big (trusted) window says there is room.
        assert_eq!(
            auto_compaction_due(p(680_000, 0), Some(1_000_000), t, max),
            Some(Trigger::Characters { chars: 680_000, limit: 680_000 })
        );
        assert_eq!(auto_compaction_due(p(679_999, 0), Some(1_000_000), t, max), None);
        // Unknown window, below both rules.
        assert_eq!(auto_compaction_due(p(1_000, 100_000), None, t, max), None);
        // The catalog counts for the triggers but not for the hard limit.
        assert!(!over_hard_limit(p(800_000, 500_000), max));
        assert!(over_hard_limit(p(800_001, 0), max));
    }

    #[test]
    fn compaction_that_cannot_shrink_enough_is_futile() {
        let window = Trigger::Window { tokens: 30_000, window: 32_768 };
        // 120,000 chars of catalog ≈ 30,000 tokens: past 85 % of a 32k window on its own.
        assert!(compaction_futile(window, 120_000, 0.85));
        assert!(!compaction_futile(window, 40_000, 0.85));
        assert!(!compaction_futile(Trigger::Characters { chars: 1, limit: 1 }, u64::MAX / 8, 0.85));
    }

    #[test]
    fn budget_messages_have_the_exact_forms() {
        let m = budget_exceeded_message(912_345, 800_000, &CompactionAttempt::Skipped, "s1");
        assert!(m.starts_with(
            "Context budget exceeded (approximately 912345 characters of conversation; limit 800000). \
             Automatic compaction was skipped because there is no safe boundary to summarize."
        ));
        assert!(budget_exceeded_message(1, 2, &CompactionAttempt::Failed("boom".into()), "s")
            .contains("Automatic compaction failed (boom)."));
        assert!(budget_exceeded_message(1, 2, &CompactionAttempt::Disabled, "s")
            .contains("Automatic compaction is disabled."));
        assert!(budget_exceeded_message(1, 2, &CompactionAttempt::Ran, "s")
            .contains("Automatic compaction ran but could not reduce it enough."));
    }
}
