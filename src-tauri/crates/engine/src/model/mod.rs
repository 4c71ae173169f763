//! The model client layer: a [`ModelClient`] answers requests (the HTTP [`Provider`], or the
//! in-process [`ScriptedClient`] used by the demo and the engine's tests), and the [`ModelCaller`]
//! sends every request through the model-call ledger. Compaction and the agent loop sit above this
//! layer; nothing here may import them (see docs/ARCHITECTURE.md).

mod caller;
pub mod scripted;

use futures_util::future::BoxFuture;
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::error::Result;
use crate::provider::{Completion, Provider, Window};

pub use crate::store::Purpose;
pub use caller::{ModelCaller, Outgoing};
pub use scripted::ScriptedClient;

/// Something that answers model requests. The request body is already in the wire shape of the
/// configured API (`provider::build_body`); the answer is one parsed [`Completion`].
pub trait ModelClient: Send + Sync {
    /// Sends one request, calling `on_delta` with text as it arrives.
    fn send<'a>(
        &'a self,
        body: &'a Value,
        on_delta: &'a mut (dyn FnMut(&str) + Send),
        cancel: &'a CancellationToken,
    ) -> BoxFuture<'a, Result<Completion>>;

    /// The context window the server reports for the configured model, and which source said it;
    /// `Ok(None)` when it does not say.
    fn fetch_context_window(&self) -> BoxFuture<'_, Result<Option<Window>>>;

    /// The Responses API's standalone compaction of a request's items (`/responses/compact`).
    fn compact<'a>(&'a self, body: &'a Value, cancel: &'a CancellationToken) -> BoxFuture<'a, Result<Completion>> {
        let _ = (body, cancel);
        Box::pin(async { Err(crate::error::Error::Provider("this model client has no /responses/compact".into())) })
    }
}

impl ModelClient for Provider {
    fn send<'a>(
        &'a self,
        body: &'a Value,
        on_delta: &'a mut (dyn FnMut(&str) + Send),
        cancel: &'a CancellationToken,
    ) -> BoxFuture<'a, Result<Completion>> {
        Box::pin(Provider::send(self, body, on_delta, cancel))
    }

    fn fetch_context_window(&self) -> BoxFuture<'_, Result<Option<Window>>> {
        Box::pin(Provider::fetch_context_window(self))
    }

    fn compact<'a>(&'a self, body: &'a Value, cancel: &'a CancellationToken) -> BoxFuture<'a, Result<Completion>> {
        Box::pin(Provider::compact(self, body, cancel))
    }
}
