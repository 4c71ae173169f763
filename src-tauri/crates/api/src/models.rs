//! The model server in force: its models and the window in force (`alisio models`).

use alisio_engine::provider::{ModelsReport, Provider};

use crate::error::ApiResult;
use crate::sessions::Nothing;
use crate::App;

/// Asks the configured server (with `--profile`, that profile's) for its models and window.
pub async fn list(app: &App, _: Nothing) -> ApiResult<ModelsReport> {
    Ok(Provider::new(&app.config().provider)?.report().await?)
}
