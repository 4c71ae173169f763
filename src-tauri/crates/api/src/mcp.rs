//! MCP tool servers: each configured server started and listed with its tools.

use alisio_engine::mcp::{McpHub, ServerStatus};

use crate::error::ApiResult;
use crate::sessions::Nothing;
use crate::App;

/// Starts every configured server (under its startup timeout) and lists its status and tools
/// with the characters each adds to a request (`alisio mcp list`).
pub async fn list(app: &App, _: Nothing) -> ApiResult<Vec<ServerStatus>> {
    let config = app.config();
    let hub = McpHub::for_config(&config);
    hub.start().await;
    let servers = hub.statuses(config.provider.api);
    hub.shutdown().await;
    Ok(servers)
}
