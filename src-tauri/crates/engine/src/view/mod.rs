//! What the model sees and what is stored. The model view is built by the same code that builds
//! requests, so `sessions show --view model` is exactly the next request's `messages`.

use serde::Serialize;

use crate::config::{Api, Config};
use crate::error::Result;
use crate::mcp::catalog::{in_force, Offered, TOOL_SEARCH};
use crate::mcp::{CatalogShare, McpTool};
use crate::provider::wire::WireItem;
use crate::provider::wire_messages;
use crate::store::SessionId;
use crate::store::{Session, SourceKind, Store};
use crate::tools;
use crate::transcript::{estimate_tokens, Message};

mod request;
mod stored;

pub use request::{system_prompt, PreparedRequest};
pub use stored::*;

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ModelView {
    pub session: String,
    pub api: Api,
    pub model: String,
    pub messages: Vec<WireItem>,
    pub tool_catalog_chars: u64,
    /// What each source of tools adds to the request: `builtin`, then each ready MCP server.
    pub tool_catalog: Vec<CatalogShare>,
    pub chars: u64,
    pub estimated_tokens: u64,
    /// An imported session's view: what that agent would send next, rebuilt from its records.
    pub reconstructed: bool,
    /// What that agent sends that its records leave out, with estimated sizes.
    pub missing: Vec<MissingPart>,
}

/// A part of a request its agent sent but did not record.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct MissingPart {
    /// `system` | `tools` | `params`
    pub part: String,
    /// An estimate from the tokens the agent recorded for the call, less what is shown.
    pub estimated_tokens: u64,
}

/// The options an agent sends beside the conversation (limits, sampling, streaming, reasoning)
/// come to a few dozen characters.
const PARAMS_ESTIMATE: u64 = 16;

/// What an agent sent that a request rebuilt from its records lacks: `prompt_tokens` (what the
/// agent recorded the request cost) less `shown_tokens`, split between the system prompt (when
/// `source`'s records leave it out too) and the tools; the options are listed too. No part it
/// sent is estimated at 0.
pub fn missing_parts(
    source: SourceKind,
    prompt_tokens: Option<u64>,
    shown_tokens: u64,
    system_shown: bool,
) -> Vec<MissingPart> {
    let unshown = prompt_tokens.map_or(0, |t| t.saturating_sub(shown_tokens)).max(2);
    let part = |part: &str, estimated_tokens: u64| MissingPart {
        part: part.into(),
        estimated_tokens: estimated_tokens.max(1),
    };
    let mut missing = Vec::new();
    if system_shown {
        missing.push(part("tools", unshown));
    } else {
        let system = unshown * system_share(source) / 100;
        missing.push(part("system", system));
        missing.push(part("tools", unshown - system));
    }
    missing.push(part("params", PARAMS_ESTIMATE));
    missing
}

/// Of what an agent's records leave out, the share (percent) its system prompt takes beside its
/// tools, as measured on the requests the real CLIs sent (tests/fixtures/requests): OpenCode ≈ 9.5k
/// system and ≈ 28k tool characters, Codex ≈ 17.7k and ≈ 18.7k, Claude Code ≈ 7.5k and ≈ 32k.
fn system_share(source: SourceKind) -> u64 {
    match source {
        SourceKind::Codex => 49,
        SourceKind::ClaudeCode => 19,
        _ => 25,
    }
}

/// The tool catalog's characters per source as the request carries it: the built-in tools (with
/// the array's brackets), `tool_search` when MCP tools are deferred, then each MCP server's tools
/// sent (and how many of its tools wait behind the search); they add up to the whole catalog.
pub fn catalog_shares(api: Api, mcp: &[McpTool], offered: &Offered) -> Vec<CatalogShare> {
    let builtin = tools::catalog();
    let chars = tools::catalog_chars(&tools::catalog_json(api, &builtin));
    let share = |server: &str, chars| CatalogShare { server: server.into(), tools: 1, chars, deferred: 0 };
    let mut shares = vec![CatalogShare { tools: builtin.len() as u64, ..share("builtin", chars) }];
    if let Some(search) = offered.specs.iter().find(|s| s.name == TOOL_SEARCH) {
        shares.push(share(TOOL_SEARCH, tools::added_tool_chars(api, search)));
    }
    for tool in mcp {
        let sent = offered.sent.contains(&tool.exposed);
        let chars = if sent { tools::added_tool_chars(api, &crate::mcp::spec(tool)) } else { 0 };
        let (tools, deferred) = if sent { (1, 0) } else { (0, 1) };
        match shares.iter_mut().find(|s| s.server == tool.server) {
            Some(share) => {
                share.tools += tools;
                share.chars += chars;
                share.deferred += deferred;
            }
            None => shares.push(CatalogShare { server: tool.server.clone(), tools, chars, deferred }),
        }
    }
    shares
}

/// The next request of `session`; `mcp`: the MCP tools of the ready servers, `window` the window
/// in force (it sets the catalog's budget: past it, what the request carries is `tool_search`).
pub fn model_view(
    store: &Store,
    config: &Config,
    record: &Session,
    mcp: &[McpTool],
    window: Option<u64>,
) -> Result<ModelView> {
    let live = store.live_messages(&record.id)?;
    if let Some(source) = record.source {
        return imported_view(store, &record.id, source, live);
    }
    let offered = in_force(store, config, &record.id, mcp, window)?;
    let prepared =
        PreparedRequest::build(config.provider.api, system_prompt(config, &record.workspace), live, &offered.specs);
    Ok(ModelView {
        tool_catalog: catalog_shares(config.provider.api, mcp, &offered),
        session: record.id.to_string(),
        api: config.provider.api,
        model: config.provider.model.clone(),
        estimated_tokens: estimate_tokens(prepared.request_chars()),
        chars: prepared.chars,
        tool_catalog_chars: prepared.tool_catalog_chars,
        messages: prepared.wire,
        reconstructed: false,
        missing: Vec::new(),
    })
}

/// Rows `offset..offset + limit` of the model view — row 0 the system prompt, then one row per
/// live message with the wire items it becomes — and the view's totals, read without loading the
/// other rows: a window shows the next request of a session of any length in pages.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ModelViewPage {
    pub session: String,
    pub api: Api,
    pub model: String,
    pub total_rows: u64,
    pub offset: u64,
    pub rows: Vec<Vec<WireItem>>,
    pub tool_catalog_chars: u64,
    pub tool_catalog: Vec<CatalogShare>,
    pub chars: u64,
    pub estimated_tokens: u64,
    pub reconstructed: bool,
    pub missing: Vec<MissingPart>,
}

pub fn model_view_page(
    store: &Store,
    config: &Config,
    record: &Session,
    offset: u64,
    limit: u64,
    mcp: &[McpTool],
    window: Option<u64>,
) -> Result<ModelViewPage> {
    let mut recorded = None;
    let (api, model, system, catalog_chars, shares) = match record.source {
        Some(source) => {
            let shape = imported_request_shape(store, &record.id, source)?;
            recorded = Some((source, shape.prompt_tokens, shape.has_system));
            (shape.api, shape.model, shape.system, 0, Vec::new())
        }
        None => {
            let api = config.provider.api;
            let offered = in_force(store, config, &record.id, mcp, window)?;
            let catalog = tools::tool_catalog_chars(api, &offered.specs);
            let shares = catalog_shares(api, mcp, &offered);
            (api, config.provider.model.clone(), system_prompt(config, &record.workspace), catalog, shares)
        }
    };
    let (live, live_chars) = store.live_totals(&record.id)?;
    let head = u64::from(!system.is_empty());
    let mut rows = Vec::new();
    if offset < head && limit > 0 {
        rows.push(vec![WireItem::Text { role: "system", content: system.clone() }]);
    }
    let first = offset.saturating_sub(head);
    let take = limit.saturating_sub(rows.len() as u64);
    for message in store.live_page(&record.id, first, take)? {
        rows.push(wire_messages(api, "", vec![message]));
    }
    let chars = system.chars().count() as u64 + live_chars;
    Ok(ModelViewPage {
        session: record.id.to_string(),
        api,
        model,
        total_rows: head + live,
        offset,
        rows,
        tool_catalog_chars: catalog_chars,
        tool_catalog: shares,
        estimated_tokens: estimate_tokens(chars + catalog_chars),
        chars,
        reconstructed: record.source.is_some(),
        missing: recorded
            .map(|(source, tokens, shown)| missing_parts(source, tokens, estimate_tokens(chars), shown))
            .unwrap_or_default(),
    })
}

/// The next request of an imported session: the source's system prompt (when it recorded one)
/// and its live messages, in the shape of the API that agent speaks; what its records leave out
/// (tools, often the system prompt, the options) is listed as missing.
fn imported_view(store: &Store, session: &SessionId, source: SourceKind, live: Vec<Message>) -> Result<ModelView> {
    let shape = imported_request_shape(store, session, source)?;
    let chars = shape.system.chars().count() as u64 + live.iter().map(|m| m.chars).sum::<u64>();
    Ok(ModelView {
        session: session.to_string(),
        api: shape.api,
        model: shape.model,
        messages: wire_messages(shape.api, &shape.system, live),
        tool_catalog_chars: 0,
        tool_catalog: Vec::new(),
        chars,
        estimated_tokens: estimate_tokens(chars),
        reconstructed: true,
        missing: missing_parts(source, shape.prompt_tokens, estimate_tokens(chars), shape.has_system),
    })
}

/// How an imported session's requests are sent, as far as its records tell.
struct ImportedShape {
    api: Api,
    /// The model of its newest call.
    model: String,
    /// The system prompt its requests carry ("" when the agent did not record it; Codex records
    /// base instructions longer than the developer message it sends them as).
    system: String,
    has_system: bool,
    /// The prompt tokens its newest call reported.
    prompt_tokens: Option<u64>,
}

fn imported_request_shape(store: &Store, session: &SessionId, source: SourceKind) -> Result<ImportedShape> {
    let calls = store.model_calls(session)?;
    let model = calls.iter().rev().map(|c| c.model.clone()).find(|m| !m.is_empty());
    let prompt_tokens = calls.iter().rev().find_map(|c| c.prompt_tokens);
    let system = match source {
        SourceKind::Codex => String::new(),
        _ => store.imported_system_prompt(session)?,
    };
    let has_system = !system.is_empty();
    Ok(ImportedShape { api: source.api(), model: model.unwrap_or_default(), system, has_system, prompt_tokens })
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_window_around_a_message_holds_a_third_before_it() {
        let (_dir, store, session) = crate::store::store_with_messages(10);
        let around = super::stored::messages_around(&store, &session, 6, 6).unwrap();
        assert_eq!(around.iter().map(|m| m.seq).collect::<Vec<_>>(), vec![4, 5, 6, 7, 8, 9]);
        let newer = super::stored::newer_messages(&store, &session, (9, 9), 5).unwrap();
        assert_eq!(newer.iter().map(|m| m.seq).collect::<Vec<_>>(), vec![10]);
        assert!(super::stored::messages_around(&store, &session, 99, 6).is_err());
    }

    /// Pages of the model view put together are the model view.
    #[test]
    fn model_view_pages_add_up_to_the_model_view() {
        let (_dir, store, session) = crate::store::store_with_messages(10);
        let config = crate::config::Config::default();
        let whole = super::model_view(&store, &config, &session, &[], None).unwrap();
        let mut rows = Vec::new();
        let mut offset = 0;
        loop {
            let page = super::model_view_page(&store, &config, &session, offset, 4, &[], None).unwrap();
            assert_eq!(page.total_rows, 11);
            assert_eq!((page.chars, page.tool_catalog_chars), (whole.chars, whole.tool_catalog_chars));
            if page.rows.is_empty() {
                break;
            }
            offset += page.rows.len() as u64;
            rows.extend(page.rows.into_iter().flatten());
        }
        assert_eq!(rows, whole.messages);
    }
}
