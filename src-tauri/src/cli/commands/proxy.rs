//! `alisio proxy`: the recording proxy in the foreground until Ctrl-C; its events are the output.

use alisio_api::proxy::{self, ProxyStart};
use alisio_api::sessions::Nothing;
use alisio_api::{ApiResult, App};

pub async fn run(app: &App, upstream: String, listen: String) -> ApiResult<()> {
    proxy::start(app, ProxyStart { upstream, listen: Some(listen) }).await?;
    app.interrupted().await;
    proxy::stop(app, Nothing {}).await?;
    Ok(())
}
