//! *When* a session's history is compacted: the guard the agent loop calls around each model call,
//! chosen once per session and model (`compaction.strategy`, `cacheCompact.models`). The native
//! guard checks its trigger before a call (`native`), the cache guard trips on the server-reported
//! usage after a step (`cache`); a provider's refusal as too long is the overflow trigger. Each
//! trigger is a fraction of the window in force ([`threshold_in_force`]; `cacheCompact.threshold`
//! is written as a percentage). The compaction itself is the compactor's (`compactor`). Per-turn
//! state (the native last-resort latch, the cache trip) lives in the guard value, which the loop
//! creates at the start of each turn.

use futures_util::future::BoxFuture;
use serde::Serialize;

use super::budget::{Pressure, WINDOW_TRUST_LIMIT};
use super::cache::{self, cache_strategy_applies};
use super::compactor::{compact_now, default_strategy};
use super::fit::pressure;
use super::native;
use super::plugins::CompactionPlugin;
use super::provider;
use super::summarize::CompactOutcome;
use crate::config::{Config, Strategy};
use crate::context::Context;
use crate::error::Result;
use crate::events::CompactionReason;
use crate::provider::{Completion, Window, WindowSource};
use crate::store::compactions::Trigger;
use crate::transcript::{estimate_tokens, CHARS_PER_TOKEN};

/// Whether the calls of an answer may run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ToolGate {
    Run,
    /// The step is stopped (the context filled up): answer the calls as not run.
    Stop,
}

/// What happens after a step's tools ran.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StepEnd {
    /// Nothing changed: the turn goes on while the model calls tools.
    Continue,
    /// The context was cut and the turn ends here.
    EndTurn,
    /// The context was cut; the turn goes on with this user message.
    Resume(String),
}

/// The hooks the agent loop calls around each model call.
pub trait ContextGuard: Send {
    /// Before a model call: make the next request fit (compact, reduce, or refuse with the budget error).
    fn before_call<'a>(&'a mut self, ctx: &'a Context<'a>) -> BoxFuture<'a, Result<()>>;

    /// After an answer was stored, before its tool calls run.
    fn after_answer<'a>(
        &'a mut self,
        ctx: &'a Context<'a>,
        completion: &'a Completion,
        request_chars: u64,
    ) -> BoxFuture<'a, Result<ToolGate>>;

    /// After the step's tool calls were answered.
    fn after_step<'a>(&'a mut self, ctx: &'a Context<'a>) -> BoxFuture<'a, Result<StepEnd>>;
}

/// The strategy in force for `config`'s provider and model: exactly one compactor acts.
pub fn guard_for<'p>(config: &Config, plugins: &'p [Box<dyn CompactionPlugin>]) -> Box<dyn ContextGuard + 'p> {
    if cache_strategy_applies(config) {
        Box::new(CacheGuard::default())
    } else if config.compaction.strategy == Strategy::Provider {
        Box::new(ProviderGuard)
    } else {
        Box::new(NativeGuard { plugins, turn: native::TurnMemory::default() })
    }
}

/// The strategy in force for the session's provider and model: `cache` only where
/// `cacheCompact.models` applies it (elsewhere a `cache` setting compacts natively).
pub fn strategy_in_force(config: &Config) -> Strategy {
    match config.compaction.strategy {
        Strategy::Cache if !cache_strategy_applies(config) => Strategy::Native,
        other => other,
    }
}

/// The trigger in force, as a fraction of the window: `cacheCompact.threshold` (a percentage) for
/// the cache strategy, `compaction.threshold` for the others.
pub fn threshold_in_force(config: &Config) -> f64 {
    match strategy_in_force(config) {
        Strategy::Cache => config.cache_compact.threshold_fraction(),
        _ => config.compaction.threshold,
    }
}

/// Whether a provider's error says the request was over the model's context (OpenAI, vLLM,
/// llama.cpp, Anthropic, Gemini and OpenRouter phrase it differently).
pub fn is_context_overflow(error: &str) -> bool {
    const SIGNS: [&str; 8] = [
        "context_length_exceeded",
        "maximum context length",
        "exceeds the available context size",
        "exceed_context_size_error",
        "prompt is too long",
        "exceeds the context window",
        "input token count",
        "context length exceeded",
    ];
    let error = error.to_ascii_lowercase();
    SIGNS.iter().any(|sign| error.contains(sign))
}

/// The provider refused the request as too long (`error`): one compaction under the default
/// strategy, trigger `overflow` with the request's estimate. The caller retries once when it completed.
pub async fn compact_after_overflow(
    ctx: &Context<'_>,
    plugins: &[Box<dyn CompactionPlugin>],
    error: &str,
) -> Result<CompactOutcome> {
    tracing::debug!(error, "the provider refused the request as too long; compacting");
    let trigger = Trigger {
        kind: crate::store::compactions::TriggerKind::Overflow,
        prompt_tokens: Some(pressure(ctx)?.request_tokens()),
        window: ctx.model.context_window().await,
        threshold: None,
    };
    let strategy = default_strategy(ctx.config);
    compact_now(ctx, plugins, strategy, CompactionReason::Auto, None, false, trigger).await
}

/// Native: checkpoints before a call when a trigger fires; the hard limit at every call.
struct NativeGuard<'p> {
    plugins: &'p [Box<dyn CompactionPlugin>],
    /// What the guard remembers within a turn.
    turn: native::TurnMemory,
}

impl ContextGuard for NativeGuard<'_> {
    fn before_call<'a>(&'a mut self, ctx: &'a Context<'a>) -> BoxFuture<'a, Result<()>> {
        Box::pin(native::guard(ctx, self.plugins, &mut self.turn))
    }

    fn after_answer<'a>(
        &'a mut self,
        _: &'a Context<'a>,
        _: &'a Completion,
        _: u64,
    ) -> BoxFuture<'a, Result<ToolGate>> {
        Box::pin(async { Ok(ToolGate::Run) })
    }

    fn after_step<'a>(&'a mut self, _: &'a Context<'a>) -> BoxFuture<'a, Result<StepEnd>> {
        Box::pin(async { Ok(StepEnd::Continue) })
    }
}

/// Provider: the server compacts (each turn asks it to); the guard records what it did — a
/// compaction the last answer carried once its step is answered, the edits it reported.
struct ProviderGuard;

impl ContextGuard for ProviderGuard {
    fn before_call<'a>(&'a mut self, ctx: &'a Context<'a>) -> BoxFuture<'a, Result<()>> {
        Box::pin(async move { provider::record_server_compaction(ctx, None).map(|_| ()) })
    }

    fn after_answer<'a>(
        &'a mut self,
        ctx: &'a Context<'a>,
        completion: &'a Completion,
        request_chars: u64,
    ) -> BoxFuture<'a, Result<ToolGate>> {
        Box::pin(async move {
            provider::record_context_edits(ctx, completion, request_chars)?;
            Ok(ToolGate::Run)
        })
    }

    fn after_step<'a>(&'a mut self, ctx: &'a Context<'a>) -> BoxFuture<'a, Result<StepEnd>> {
        Box::pin(async move {
            provider::record_server_compaction(ctx, None)?;
            Ok(StepEnd::Continue)
        })
    }
}

/// Cache-compatible: trips on the server-reported usage after a step, then summarizes by appending and cuts.
#[derive(Default)]
struct CacheGuard {
    /// The step's trip, with its figures.
    tripped: Option<Trigger>,
}

impl ContextGuard for CacheGuard {
    fn before_call<'a>(&'a mut self, ctx: &'a Context<'a>) -> BoxFuture<'a, Result<()>> {
        Box::pin(async move { cache::guard(ctx) })
    }

    fn after_answer<'a>(
        &'a mut self,
        ctx: &'a Context<'a>,
        completion: &'a Completion,
        request_chars: u64,
    ) -> BoxFuture<'a, Result<ToolGate>> {
        Box::pin(async move {
            self.tripped = cache::trip_after_step(ctx, completion, estimate_tokens(request_chars)).await?;
            let stop = self.tripped.is_some() && ctx.config.cache_compact.abort_on_trip;
            Ok(if stop { ToolGate::Stop } else { ToolGate::Run })
        })
    }

    fn after_step<'a>(&'a mut self, ctx: &'a Context<'a>) -> BoxFuture<'a, Result<StepEnd>> {
        Box::pin(async move {
            let Some(trigger) = self.tripped.take() else {
                return Ok(StepEnd::Continue);
            };
            if !matches!(cache::cache_compact(ctx, trigger).await?, CompactOutcome::Completed { .. }) {
                return Ok(StepEnd::Continue);
            }
            let settings = &ctx.config.cache_compact;
            Ok(if settings.auto_resume { StepEnd::Resume(settings.resume_prompt.clone()) } else { StepEnd::EndTurn })
        })
    }
}

/// Where the next request stands against the limits in force, for the context meter: computed
/// once here, forwarded by the API, drawn by the window.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ContextMeter {
    /// The strategy in force ([`strategy_in_force`]).
    pub strategy: Strategy,
    pub window_tokens: Option<u64>,
    pub window_source: Option<WindowSource>,
    /// False when no window is known or it is reported above [`WINDOW_TRUST_LIMIT`] tokens: the
    /// character budget decides.
    pub window_trusted: bool,
    /// The limit the meter is drawn against: the trusted window, else `maxContextChars` in tokens.
    pub limit_tokens: u64,
    /// The trigger in force, a fraction of `limitTokens` ([`threshold_in_force`]).
    pub threshold: f64,
    pub max_context_chars: u64,
    pub reducible_chars: u64,
    pub tool_catalog_chars: u64,
    pub estimated_tokens: u64,
    /// `estimatedTokens` over `limitTokens`, at most 1.
    pub used: f64,
    /// The tool catalog's share of `limitTokens`, at most 1.
    pub catalog: f64,
    /// Whether the next request is at or past the trigger.
    pub over: bool,
}

/// The meter for a request of `pressure` under `config`, with `window` the window in force.
pub fn meter(config: &Config, pressure: Pressure, window: Option<Window>) -> ContextMeter {
    let trusted = window.filter(|w| w.tokens <= WINDOW_TRUST_LIMIT);
    let limit_tokens = trusted.map_or(config.limits.max_context_chars / CHARS_PER_TOKEN, |w| w.tokens).max(1);
    let threshold = threshold_in_force(config);
    let estimated_tokens = pressure.request_tokens();
    let share = |tokens: u64| (tokens as f64 / limit_tokens as f64).min(1.0);
    ContextMeter {
        strategy: strategy_in_force(config),
        window_tokens: window.map(|w| w.tokens),
        window_source: window.map(|w| w.source),
        window_trusted: trusted.is_some(),
        limit_tokens,
        threshold,
        max_context_chars: config.limits.max_context_chars,
        reducible_chars: pressure.reducible_chars,
        tool_catalog_chars: pressure.tool_catalog_chars,
        estimated_tokens,
        used: share(estimated_tokens),
        catalog: share(estimate_tokens(pressure.tool_catalog_chars)),
        over: estimated_tokens as f64 >= threshold * limit_tokens as f64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::{Window, WindowSource};

    #[test]
    fn the_meter_measures_against_the_trusted_window_under_the_strategy_in_force() {
        let resolve = |file: &crate::config::ConfigFile| Config::resolve(file.clone()).unwrap();
        let mut file = crate::config::ConfigFile::default();
        file.compaction.threshold = 0.85;
        file.cache_compact.threshold = 60.0;
        let pressure = Pressure { reducible_chars: 30_000, tool_catalog_chars: 4_000 };
        let window = Some(Window { tokens: 10_000, source: WindowSource::Models });
        let m = meter(&resolve(&file), pressure, window);
        assert_eq!((m.limit_tokens, m.estimated_tokens, m.window_trusted), (10_000, 8_500, true));
        assert!((m.used - 0.85).abs() < 1e-9 && (m.catalog - 0.1).abs() < 1e-9);
        assert!(m.over, "8,500 of 10,000 tokens is at the 85 % trigger");
        // A window above the trust limit, or none: maxContextChars / 4 decides.
        let huge = Some(Window { tokens: 5_000_000, source: WindowSource::Models });
        let m = meter(&resolve(&file), pressure, huge);
        assert_eq!((m.window_trusted, m.limit_tokens), (false, file.limits.max_context_chars / 4));
        assert_eq!(meter(&resolve(&file), pressure, None).limit_tokens, file.limits.max_context_chars / 4);
        // Each of the four strategies is named as configured; cache's trigger is its own, as a fraction.
        for strategy in
            [Strategy::Native, Strategy::Cache, Strategy::Mask, Strategy::Hybrid, Strategy::Prune, Strategy::Provider]
        {
            file.compaction.strategy = strategy;
            let m = meter(&resolve(&file), pressure, window);
            assert_eq!(m.strategy, strategy);
            assert_eq!(m.threshold, if strategy == Strategy::Cache { 0.6 } else { 0.85 });
        }
        // Cache where `cacheCompact.models` does not apply it compacts natively.
        file.compaction.strategy = Strategy::Cache;
        file.cache_compact.models = vec!["other/model".into()];
        assert_eq!(meter(&resolve(&file), pressure, window).strategy, Strategy::Native);
    }

    #[test]
    fn context_overflow_is_told_from_other_refusals() {
        let overflows = [
            // OpenAI / vLLM
            r#"answered HTTP 400: {"error":{"message":"This model's maximum context length is 8192 tokens. However, your messages resulted in 9000 tokens.","code":"context_length_exceeded"}}"#,
            // llama.cpp server
            r#"answered HTTP 400: {"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error"}}"#,
            // Anthropic
            r#"answered HTTP 400: {"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"}}"#,
            // Gemini
            "answered HTTP 400: The input token count (1200000) exceeds the maximum number of tokens allowed (1048576).",
        ];
        for error in overflows {
            assert!(is_context_overflow(error), "{error}");
        }
        let others = [
            r#"answered HTTP 400: {"error":{"message":"Invalid value for 'tool_choice'","code":"invalid_value"}}"#,
            "answered HTTP 429 after 3 tries: Rate limit reached for requests",
            "answered HTTP 401: invalid api key",
        ];
        for error in others {
            assert!(!is_context_overflow(error), "{error}");
        }
    }
}
