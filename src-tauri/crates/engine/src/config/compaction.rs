//! The compaction settings: the strategy, its trigger and kept turns, the provider strategy's
//! requests to the server, and the cache-compatible strategy's own settings.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Which compactor acts when the context fills up.
#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    Serialize,
    Deserialize,
    JsonSchema,
    strum::IntoStaticStr,
    strum::EnumString,
    strum::Display,
)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
#[strum(serialize_all = "lowercase")]
pub enum Strategy {
    Native,
    Cache,
    // `mask`: old tool results masked by a one-line placeholder, no summarizer call;
    // `hybrid`: mask first, summarize only when masking cannot bring the request under the
    // threshold; `prune`: whole lines of old tool outputs and answers deleted, nothing rewritten,
    // no summarizer call; `provider`: the API's own server-side compaction and context editing
    // (Anthropic Messages, OpenAI Responses; docs/compaction.md). (Plain comments: a doc comment
    // would make the schema's enum a `oneOf`.)
    Mask,
    Hybrid,
    Prune,
    Provider,
}

/// The API's own compaction (`compaction.strategy: "provider"`): what each request asks the
/// server to do. Anthropic: server compaction (`compact_20260112`) and context editing
/// (`clear_tool_uses_20250919`, `clear_thinking_20251015`); Responses: `context_management`
/// compaction, and `/responses/compact` for a compaction asked for by hand.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, rename_all = "camelCase")]
pub struct ProviderCompactionConfig {
    /// Input tokens at which the server compacts; `null`: `compaction.threshold` of the window in
    /// force (Anthropic's own minimum, 50,000, applies there).
    #[schemars(range(min = 1000))]
    pub trigger: Option<u64>,
    /// Anthropic: the summarization prompt, replacing the server's own; `null`: the server's.
    pub instructions: Option<String>,
    /// Anthropic: clear old tool results on the server past `clearToolUsesTrigger` input tokens.
    pub clear_tool_uses: bool,
    /// Input tokens at which tool results are cleared; `null`: the server's default (100,000).
    #[schemars(range(min = 1000))]
    pub clear_tool_uses_trigger: Option<u64>,
    /// Most recent tool uses kept when clearing.
    #[schemars(range(min = 0, max = 1000))]
    pub keep_tool_uses: u32,
    /// Clear at least this many input tokens each time, so a cleared prefix is worth its cache.
    #[schemars(range(min = 1))]
    pub clear_at_least: Option<u64>,
    /// Anthropic: clear thinking blocks of earlier turns (`clear_thinking_20251015`).
    pub clear_thinking: bool,
    /// Anthropic: after a server compaction, restate the pins as a system message after the
    /// compaction (mid-conversation system messages) instead of user text.
    pub pins_as_system_message: bool,
}

impl Default for ProviderCompactionConfig {
    fn default() -> Self {
        Self {
            trigger: None,
            instructions: None,
            clear_tool_uses: false,
            clear_tool_uses_trigger: None,
            keep_tool_uses: 3,
            clear_at_least: None,
            clear_thinking: false,
            pins_as_system_message: true,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, rename_all = "camelCase")]
pub struct CompactionConfig {
    /// Compact automatically when the trigger fires (manual compaction works either way).
    pub auto: bool,
    /// Share of the window at which automatic compaction fires.
    #[schemars(range(min = 0.1, max = 0.99))]
    pub threshold: f64,
    /// Recent turns kept verbatim.
    #[schemars(range(min = 0, max = 20))]
    pub keep_turns: u32,
    /// The summarizer's own output budget.
    #[schemars(range(min = 256, max = 1_000_000))]
    pub max_output_tokens: u32,
    pub strategy: Strategy,
    /// Workspace files whose contents are pinned: read at each compaction and carried verbatim
    /// after the checkpoint.
    pub pin_files: Vec<String>,
    /// Add to each checkpoint, beside what the model wrote, the files the replaced messages touched
    /// (with their last change) and how the last commands' output ended.
    pub artifact_trail: bool,
    /// The API's own compaction, for `strategy: "provider"`.
    pub provider: ProviderCompactionConfig,
}

impl Default for CompactionConfig {
    fn default() -> Self {
        Self {
            auto: true,
            threshold: 0.85,
            keep_turns: 2,
            max_output_tokens: 16_000,
            strategy: Strategy::Native,
            pin_files: vec!["AGENTS.md".into(), "CLAUDE.md".into()],
            artifact_trail: true,
            provider: ProviderCompactionConfig::default(),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, rename_all = "camelCase")]
pub struct CacheCompactConfig {
    /// Percent of the context limit at which the cache strategy trips.
    #[schemars(range(min = 1, max = 99))]
    pub threshold: f64,
    /// `providerID/modelID` entries the cache strategy applies to; empty: every model.
    pub models: Vec<String>,
    /// The hand-off summary's output budget.
    #[schemars(range(min = 16, max = 1_000_000))]
    pub summary_max_tokens: u32,
    /// The context limit when the provider reports no window.
    #[schemars(range(min = 1024, max = 100_000_000))]
    pub context_limit: u64,
    /// After the cut, continue the turn with `resumePrompt`.
    pub auto_resume: bool,
    /// When the trip fires, answer the step's pending tool calls as not run.
    pub abort_on_trip: bool,
    /// At the hard limit, never reduce tool outputs before the cut (that would break the cached prefix).
    pub disable_prune: bool,
    /// Log each trip decision and the summary request's cache figures.
    pub debug: bool,
    /// The user message `autoResume` sends after a cut.
    pub resume_prompt: String,
}

impl CacheCompactConfig {
    /// `threshold` as a fraction of the limit, the unit every other trigger is written in.
    pub fn threshold_fraction(&self) -> f64 {
        self.threshold / 100.0
    }
}

impl Default for CacheCompactConfig {
    fn default() -> Self {
        Self {
            threshold: 68.0,
            models: Vec::new(),
            summary_max_tokens: 1200,
            context_limit: 131_072,
            auto_resume: true,
            abort_on_trip: true,
            disable_prune: true,
            debug: false,
            resume_prompt: "Continue the task from the summary above.".into(),
        }
    }
}
