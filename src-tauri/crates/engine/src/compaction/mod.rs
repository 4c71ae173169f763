//! Compaction: when and how a session's history is summarized or cut to fit. The pure planners
//! (`boundary`, `budget`, `reduction`, `checkpoint`) decide; `summarize` (checkpoints, proposals,
//! undo) and `fit` (sizes, reduction in place) act on the store through the model caller; the two
//! strategies that decide *when* (`native`, `cache`) sit behind one trait in `strategy`. Depends on
//! the model layer, never on the agent loop; this file only declares and re-exports.

pub mod boundary;
pub mod budget;
pub mod cache;
pub mod checkpoint;
mod fit;
pub mod mask;
mod native;
pub mod pins;
pub mod plugins;
pub mod preview;
pub mod probe;
pub mod reduction;
pub mod strategy;
mod summarize;

pub use budget::Pressure;
pub use fit::{pressure, reduce_kept_tail};
pub use preview::StrategyPreview;
pub use strategy::{
    compact_after_overflow, compact_now, default_strategy, is_context_overflow, strategy_for, ContextStrategy,
    ManualCompaction, StepEnd, ToolGate,
};
pub use summarize::{apply_proposal, compact, shape_of, undo_compaction, CompactOutcome};
