//! Compaction: when and how a session's history is summarized or cut to fit. The pure planners
//! (`boundary`, `budget`, `reduction`, `checkpoint`) decide; `summarize` (checkpoints, proposals,
//! undo) and `fit` (sizes, reduction in place) act on the store through the model caller. *When*
//! is the guard's (`guard`: the `ContextGuard` trait, the native and cache guards, the overflow
//! trigger, thresholds in one unit); *how* is the compactor's (`compactor`: one `Compactor` per
//! strategy). The guards use the compactors, never the reverse. Depends on the model layer, never
//! on the agent loop; this file only declares and re-exports.

pub mod boundary;
pub mod budget;
pub mod cache;
pub mod checkpoint;
pub mod compactor;
mod fit;
pub mod guard;
pub mod mask;
mod native;
pub mod pins;
pub mod plugins;
pub mod preview;
pub mod probe;
pub mod provider;
pub mod prune;
pub mod reduction;
mod summarize;

pub use budget::Pressure;
pub use compactor::{compact_now, compactor_for, default_strategy, CompactRequest, Compactor, ManualCompaction};
pub use fit::{pressure, reduce_kept_tail};
pub use guard::{
    compact_after_overflow, guard_for, is_context_overflow, strategy_in_force, threshold_in_force, ContextGuard,
    StepEnd, ToolGate,
};
pub use preview::StrategyPreview;
pub use summarize::{apply_proposal, compact, shape_of, undo_compaction, CompactOutcome};
