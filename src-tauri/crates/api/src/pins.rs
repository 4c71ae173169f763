//! Pins: a message or a sentence every request after a checkpoint carries verbatim
//! (`alisio pin`, the window's pin button and Pinned panel).

use alisio_engine::store::pins::Pin;
use serde::Deserialize;
use ts_rs::TS;

use crate::error::{ApiError, ApiResult};
use crate::sessions::SessionRequest;
use crate::App;

#[derive(Debug, Clone, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PinRequest {
    pub session: String,
    /// Pin this message (its text as stored now)…
    pub seq: Option<i64>,
    /// …or this sentence.
    pub text: Option<String>,
}

#[derive(Debug, Clone, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PinRemove {
    pub session: String,
    pub id: i64,
}

/// Pins a message or a sentence; the new pin.
pub async fn add(app: &App, request: PinRequest) -> ApiResult<Pin> {
    if request.seq.is_some() && request.text.is_some() {
        return Err(ApiError::invalid("pin a message (seq) or a sentence (text), not both"));
    }
    let session = app.session(&request.session)?;
    Ok(app.store()?.add_pin(&session.id, request.seq, request.text.as_deref())?)
}

/// The session's pins, oldest first.
pub async fn list(app: &App, request: SessionRequest) -> ApiResult<Vec<Pin>> {
    let session = app.session(&request.session)?;
    Ok(app.store()?.pins(&session.id)?)
}

/// Removes a pin; the pins left.
pub async fn remove(app: &App, request: PinRemove) -> ApiResult<Vec<Pin>> {
    let session = app.session(&request.session)?;
    let store = app.store()?;
    store.remove_pin(&session.id, request.id)?;
    Ok(store.pins(&session.id)?)
}
