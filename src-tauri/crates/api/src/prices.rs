//! Prices: which entry prices a model id and why (`alisio prices show`), and loading a newer
//! LiteLLM snapshot into `$ALISIO_HOME/prices/` (`alisio prices update`). Offline: a snapshot is a
//! file the user fetched; nothing is downloaded.

use std::path::PathBuf;

use alisio_engine::cost::book::{self, PriceShown};
use alisio_engine::cost::litellm::{self, Counts};
use serde::Deserialize;
use ts_rs::TS;

use crate::error::{blocking, ApiResult};
use crate::App;

#[derive(Debug, Clone, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PriceShowRequest {
    /// A model id as an agent or a gateway writes it.
    pub model: String,
    /// `YYYY-MM-DD` (default: today).
    #[ts(optional)]
    pub at: Option<String>,
}

#[derive(Debug, Clone, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PriceUpdateRequest {
    /// A LiteLLM `model_prices_and_context_window.json`.
    pub file: String,
    /// `YYYY-MM-DD`: the day its changed prices take effect (default: today).
    #[ts(optional)]
    pub since: Option<String>,
}

/// The entry that prices `model` on a date, and why (or why none does).
pub async fn show(app: &App, request: PriceShowRequest) -> ApiResult<PriceShown> {
    let at = book::day_or_today(request.at.as_deref(), "--at")?;
    let forensics = app.forensics()?;
    Ok(forensics.book.show(&request.model, &at))
}

/// Loads a LiteLLM-format snapshot: new models priced from always, changed prices from `since`.
pub async fn update(app: &App, request: PriceUpdateRequest) -> ApiResult<Counts> {
    let since = book::day_or_today(request.since.as_deref(), "--since")?;
    let home = app.home().to_path_buf();
    let file = PathBuf::from(request.file);
    blocking("loading prices", move || Ok(litellm::update(&home, &file, &since)?)).await
}
