//! The two compaction strategies behind one trait, chosen once per session and model
//! (`compaction.strategy`, `cacheCompact.models`): the agent loop calls the hooks and holds no
//! strategy flags of its own. Per-turn state (the native last-resort latch, the cache trip) lives
//! in the strategy value, which the loop creates at the start of each turn.

use futures_util::future::BoxFuture;

use super::budget::auto_compaction_due;
use super::cache::{self, cache_strategy_applies};
use super::fit::pressure;
use super::mask::mask;
use super::native;
use super::plugins::CompactionPlugin;
use super::summarize::{compact, CompactOutcome};
use crate::config::{Config, Strategy};
use crate::context::Context;
use crate::error::Result;
use crate::events::CompactionReason;
use crate::provider::Completion;
use crate::store::compactions::Trigger;
use crate::transcript::estimate_tokens;

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
pub trait ContextStrategy: Send {
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
pub fn strategy_for<'p>(config: &Config, plugins: &'p [Box<dyn CompactionPlugin>]) -> Box<dyn ContextStrategy + 'p> {
    if cache_strategy_applies(config) {
        Box::new(CacheStrategy::default())
    } else {
        Box::new(NativeStrategy { plugins, turn: native::TurnMemory::default() })
    }
}

/// A compaction asked for by hand (`alisio compact`, the compaction dialog).
#[derive(Debug, Clone, Copy, Default)]
pub struct ManualCompaction<'a> {
    /// Instructions for the summarizer.
    pub focus: Option<&'a str>,
    /// Store the checkpoint as a proposal and hide nothing.
    pub preview: bool,
    /// The strategy chosen; none: `default_strategy`.
    pub strategy: Option<Strategy>,
}

/// The strategy a compaction runs under when none is chosen: `compaction.strategy`, except that
/// `cache` compacts by hand (and where its models do not apply) with the native summary, as it
/// always has; the cache cut runs only when chosen explicitly or when its trip fires.
pub fn default_strategy(config: &Config) -> Strategy {
    match config.compaction.strategy {
        Strategy::Cache => Strategy::Native,
        other => other,
    }
}

/// One compaction under `strategy`: `mask` masks old tool results and calls no summarizer;
/// `hybrid` masks first and summarizes only when the request is still over the threshold; `cache`
/// summarizes by appending to the live request and cuts all of it; `native` summarizes all but the
/// kept turns. A preview always summarizes natively (only a checkpoint has something to review).
pub async fn compact_now(
    ctx: &Context<'_>,
    plugins: &[Box<dyn CompactionPlugin>],
    strategy: Strategy,
    reason: CompactionReason,
    focus: Option<&str>,
    preview: bool,
    trigger: Trigger,
) -> Result<CompactOutcome> {
    match strategy {
        Strategy::Mask if !preview => mask(ctx, &trigger).await,
        Strategy::Hybrid if !preview => {
            let masked = mask(ctx, &trigger).await?;
            let window = ctx.model.context_window().await;
            let settings = &ctx.config.compaction;
            let due =
                auto_compaction_due(pressure(ctx)?, window, settings.threshold, ctx.config.limits.max_context_chars);
            match due {
                // Still over after masking: the summary, on the figures masking left.
                Some(due) => compact(ctx, plugins, reason, focus, false, due.record(settings.threshold)).await,
                None => Ok(masked),
            }
        }
        Strategy::Cache if !preview => cache::cache_compact(ctx, trigger).await,
        _ => compact(ctx, plugins, reason, focus, preview, trigger).await,
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
struct NativeStrategy<'p> {
    plugins: &'p [Box<dyn CompactionPlugin>],
    /// What the guard remembers within a turn.
    turn: native::TurnMemory,
}

impl ContextStrategy for NativeStrategy<'_> {
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

/// Cache-compatible: trips on the server-reported usage after a step, then summarizes by appending and cuts.
#[derive(Default)]
struct CacheStrategy {
    /// The step's trip, with its figures.
    tripped: Option<Trigger>,
}

impl ContextStrategy for CacheStrategy {
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

#[cfg(test)]
mod tests {
    use super::is_context_overflow;

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
