//! What to quote in a bug report: the release, the commit it was built from, the home in use and
//! the database schema it reads (the window's About; `alisio --version` on the command line).

use serde::Serialize;
use ts_rs::TS;

use crate::error::ApiResult;
use crate::sessions::Nothing;
use crate::App;

#[derive(Debug, Clone, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct About {
    pub version: String,
    pub commit: String,
    /// `$ALISIO_HOME`.
    pub home: String,
    /// The newest database schema this release reads.
    pub schema: i64,
}

pub async fn about(app: &App, _: Nothing) -> ApiResult<About> {
    Ok(About {
        version: env!("CARGO_PKG_VERSION").to_string(),
        commit: env!("ALISIO_COMMIT").to_string(),
        home: app.home().display().to_string(),
        schema: alisio_engine::store::SCHEMA_VERSION,
    })
}
