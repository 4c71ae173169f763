//! What one operation on one session needs — store, configuration, model caller, session, event
//! sink and cancellation — passed down instead of a shared object every module extends.

use tokio_util::sync::CancellationToken;

use crate::config::Config;
use crate::events::{Envelope, Event, EventSink};
use crate::mcp::McpHub;
use crate::model::ModelCaller;
use crate::secrets::Secrets;
use crate::store::{Session, Store, WireApi};
use crate::transcript::Message;
use crate::view::{system_prompt, PreparedRequest};

/// Which tool catalog a request carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Catalog {
    /// The tools in force now: the built-in ones and the MCP tools of the servers that are ready.
    InForce,
    /// The `tools` array the session's last answered request sent, byte for byte: a summary
    /// extends that request, so a prompt cache reuses all of it only if the catalog is the same —
    /// whether or not the MCP servers run in this process (`alisio compact` starts none). The one
    /// in force when no request was recorded (or it went to another wire API).
    LastSent,
}

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
    pub fn session_id(&self) -> &crate::store::SessionId {
        &self.session.id
    }

    /// The catalog entries of the MCP tools the next request offers (servers that are ready;
    /// past the catalog's budget, `tool_search` and the tools it loaded).
    pub fn mcp_specs(&self) -> crate::Result<Vec<crate::tools::ToolSpec>> {
        let tools = self.mcp.tools();
        let window = self.model.known_window();
        Ok(crate::mcp::catalog::in_force(self.store, self.config, &self.session.id, &tools, window)?.specs)
    }

    /// The one request builder: every request Alisio sends (a turn, the summarizer of every
    /// strategy, a probe, an overflow retry, a fork's first turn) is the system prompt, `catalog`
    /// and `live` as the configured wire API writes them; the caller adds only its params and,
    /// for a summary, the appended request.
    pub fn prepare(&self, live: Vec<Message>, catalog: Catalog) -> crate::Result<PreparedRequest> {
        let api = self.config.provider.api;
        let system = system_prompt(self.config, &self.session.workspace);
        if catalog == Catalog::LastSent {
            if let Some((sent_api, tools)) = self.store.last_sent_catalog(&self.session.id)? {
                if sent_api == WireApi::from(api) {
                    let tools = tools.unwrap_or_else(|| crate::tools::request_tools(api, &[]));
                    return Ok(PreparedRequest::with_tools(api, system, live, tools));
                }
            }
        }
        Ok(PreparedRequest::build(api, system, live, &self.mcp_specs()?))
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
