//! `alisio calls`: the ledger, one request, two requests compared, one sent again.

use alisio_api::calls::{self, CallRequest, DiffRequest};
use alisio_api::sessions::SessionRequest;
use alisio_api::{ApiResult, App};

use crate::cli::args::CallsCommand;
use crate::cli::output::Output;

pub async fn command(app: &App, out: Output, command: CallsCommand) -> ApiResult<()> {
    match command {
        CallsCommand::List { session } => out.show(&calls::list(app, SessionRequest::new(session)).await?),
        CallsCommand::Show { session, n } => out.show(&calls::show(app, CallRequest { session, n }).await?),
        CallsCommand::Composition { session } => {
            out.show(&calls::compositions(app, SessionRequest::new(session)).await?)
        }
        CallsCommand::Diff { session, n, against } => {
            out.show(&calls::diff(app, DiffRequest { session, n, against }).await?.diff)
        }
        CallsCommand::Savings { session } => {
            out.show(&calls::compaction_costs(app, SessionRequest::new(session)).await?)
        }
        CallsCommand::Rereads { session } => out.show(&calls::rereads(app, SessionRequest::new(session)).await?),
        CallsCommand::Breaks { session } => out.show(&calls::breaks(app, SessionRequest::new(session)).await?),
        CallsCommand::Replay { session, n } => out.show(&calls::replay(app, CallRequest { session, n }).await?),
    }
}
