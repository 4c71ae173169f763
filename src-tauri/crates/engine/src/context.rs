//! What one operation on one session needs — store, configuration, model caller, session, event
//! sink and cancellation — passed down instead of a shared object every module extends.

use tokio_util::sync::CancellationToken;

use crate::config::Config;
use crate::events::{Envelope, Event, EventSink};
use crate::mcp::McpHub;
use crate::model::ModelCaller;
use crate::secrets::Secrets;
use crate::store::{Session, Store};

pub struct Context<'a> {
    pub store: &'a Store,
    pub config: &'a Config,
    pub model: &'a ModelCaller,
    /// Values redacted from everything stored, shown or sent.
    pub secrets: &'a Secrets,
    /// The MCP servers whose tools each request offers beside the built-in ones.
    pub mcp: &'a McpHub,
    pub session: &'a Session,
    pub sink: &'a dyn EventSink,
    pub cancel: &'a CancellationToken,
}

impl Context<'_> {
    pub fn session_id(&self) -> &str {
        &self.session.id
    }

    /// The catalog entries of the MCP tools the next request offers (servers that are ready;
    /// past the catalog's budget, `tool_search` and the tools it loaded).
    pub fn mcp_specs(&self) -> crate::Result<Vec<crate::tools::ToolSpec>> {
        let tools = self.mcp.tools();
        let window = self.model.known_window();
        Ok(crate::mcp::catalog::in_force(self.store, self.config, &self.session.id, &tools, window)?.specs)
    }

    /// Records the event in the session's event log, then hands it to the sink; secrets are
    /// redacted from its text first.
    pub fn emit(&self, mut event: Event) {
        event.redact_text(|text| {
            self.secrets.redact_in_place(text);
        });
        let envelope = Envelope::new(&self.session.id, event);
        if let Err(err) = self.store.record_event(&envelope) {
            tracing::warn!("could not record an event: {err}");
        }
        self.sink.emit(&envelope);
    }
}
