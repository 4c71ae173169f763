//! `alisio models` and `alisio mcp list`: the model server and the MCP servers in force.

use alisio_api::sessions::Nothing;
use alisio_api::{mcp, models, ApiResult, App};

use crate::cli::output::Output;

pub async fn models(app: &App, out: Output) -> ApiResult<()> {
    out.show(&models::list(app, Nothing {}).await?)
}

pub async fn mcp(app: &App, out: Output) -> ApiResult<()> {
    out.show(&mcp::list(app, Nothing {}).await?)
}
