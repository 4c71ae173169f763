//! `alisio compact`: every mode of manual compaction.

use alisio_api::compaction::{self, ApplyProposal, CheckpointRequest, CompactRequest, ProposalRequest};
use alisio_api::sessions::SessionRequest;
use alisio_api::{ApiError, ApiResult, App};
use alisio_engine::compaction::CompactOutcome;

use crate::cli::args::CompactMode;
use crate::cli::output::Output;

pub async fn mode(app: &App, out: Output, mode: CompactMode) -> ApiResult<()> {
    let outcome = match mode {
        CompactMode::Lint { session, checkpoint } => {
            return out.show(&compaction::lint(app, CheckpointRequest { session, checkpoint }).await?)
        }
        CompactMode::Probe { session, checkpoint } => {
            return out.show(&compaction::probe(app, CheckpointRequest { session, checkpoint }).await?)
        }
        CompactMode::Undo { session } => {
            let reverted = compaction::undo(app, SessionRequest::new(session)).await?;
            if !out.json {
                println!("reverted {} record(s): {reverted:?}", reverted.len());
            }
            return Ok(());
        }
        CompactMode::Discard { session, proposal } => {
            compaction::discard(app, ProposalRequest { session, proposal }).await?;
            if !out.json {
                println!("proposal {proposal} discarded");
            }
            return Ok(());
        }
        CompactMode::Apply { session, proposal, checkpoint } => {
            let edited = match &checkpoint {
                Some(path) => Some(
                    std::fs::read_to_string(path)
                        .map_err(|e| ApiError::failed(format!("cannot read {}: {e}", path.display())))?,
                ),
                None => None,
            };
            compaction::apply(app, ApplyProposal { session, proposal, edited }).await?
        }
        CompactMode::Plan { session } => {
            return out.show(&compaction::strategies(app, SessionRequest::new(session)).await?);
        }
        CompactMode::Now { session, focus, strategy } => {
            compaction::compact(app, CompactRequest { session, focus, preview: false, strategy }).await?
        }
        CompactMode::Preview { session, focus } => {
            compaction::compact(app, CompactRequest { session, focus, preview: true, strategy: None }).await?
        }
    };
    if !out.json {
        crate::cli::human::print_compact(&outcome);
    }
    match outcome {
        CompactOutcome::Failed { error } => Err(ApiError::failed(format!("compaction failed: {error}"))),
        _ => Ok(()),
    }
}
