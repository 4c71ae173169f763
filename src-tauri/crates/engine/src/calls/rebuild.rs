//! A past request as the server received it, and how we know: Alisio's own calls and captured
//! ones are exact; Claude Code's are put together from its own request log; the rest are rebuilt
//! from the session's records — and a rebuilt request invents nothing: keys the agent did not
//! record are absent, and the parts it did not record are listed as missing with their size
//! estimated from the tokens it recorded.

use serde_json::{json, Map, Value};

use super::claude_log;
use super::composition::{composition, Composition, Known};
use crate::config::{Api, ProviderConfig, ProviderFile};
use crate::error::Result;
use crate::provider::wire::WireItem;
use crate::provider::{build_body, wire_messages, RequestOptions};
use crate::store::SessionId;
use crate::store::{ModelCallRecord, RequestSource, SourceKind, Store, WireApi};
use crate::tools::{catalog, catalog_json};
use crate::transcript::estimate_tokens;
use crate::view::{expand_ranges, missing_parts, MissingPart};

/// A past request rebuilt: the body, the answer, where the body comes from and what it lacks.
#[derive(Debug, Clone, PartialEq)]
pub struct Rebuilt {
    pub body: Value,
    pub response: Option<Value>,
    pub source: RequestSource,
    /// The body is the one sent, whole (an agent's log that names parts it never wrote is not).
    pub exact: bool,
    pub missing: Vec<MissingPart>,
    /// What an exact body from an agent's log leaves out that the agent sent.
    pub omitted: Vec<String>,
}

/// Chains of Claude Code requests remembered while a session's calls are rebuilt in order, so
/// each is put together from the one before (never from the start of its chain again).
const REMEMBERED: usize = 4;

/// Rebuilds the requests of one session.
pub struct Rebuilder<'s> {
    store: &'s Store,
    session: SessionId,
    source: Option<SourceKind>,
    known: Option<Known>,
    /// The messages of the last few agent-log requests rebuilt, by ledger row.
    chains: Vec<(i64, Vec<Value>)>,
}

impl<'s> Rebuilder<'s> {
    pub fn new(store: &'s Store, session: &SessionId, source: Option<SourceKind>) -> Self {
        Self { store, session: session.clone(), source, known: None, chains: Vec::new() }
    }

    pub fn rebuild(&mut self, call: &ModelCallRecord) -> Result<Rebuilt> {
        let exact = |body, response| Rebuilt {
            body,
            response,
            source: call.request_source,
            exact: true,
            missing: Vec::new(),
            omitted: Vec::new(),
        };
        Ok(match call.request_source {
            RequestSource::AgentLog => {
                let body = self.agent_log(call)?;
                let mut rebuilt = Rebuilt {
                    omitted: claude_log::OMITTED.iter().map(|s| s.to_string()).collect(),
                    ..exact(body, imported_response(self.store, &self.session, call)?)
                };
                if call.request_gaps > 0 {
                    // Messages the log names and never wrote stand as placeholders: not exact, and
                    // what they held is counted as missing (the call's tokens less what is shown).
                    rebuilt.exact = false;
                    let shown = estimate_tokens(rebuilt.body.to_string().chars().count() as u64);
                    let estimated = call.prompt_tokens.map_or(0, |p| p.saturating_sub(shown)).max(1);
                    rebuilt.missing.push(MissingPart { part: "messages".into(), estimated_tokens: estimated });
                }
                rebuilt
            }
            RequestSource::Proxy => {
                let body = self.store.model_call_request_ref(call.id)?.unwrap_or(Value::Null);
                exact(body, self.store.model_call_payload(call.id)?.1)
            }
            RequestSource::Alisio => {
                let (body, response) = self.own(call)?;
                exact(body, response)
            }
            RequestSource::Reconstructed => self.reconstructed(call)?,
        })
    }

    /// What `body` is made of, its checkpoints and re-inserted context recognised.
    pub fn composition(&mut self, rebuilt: &Rebuilt) -> Result<Composition> {
        if self.known.is_none() {
            let (checkpoints, injected) = self.store.compaction_texts(&self.session)?;
            self.known = Some(Known { checkpoints, injected });
        }
        let own = rebuilt.source == RequestSource::Alisio;
        Ok(composition(&rebuilt.body, self.known.as_ref().unwrap_or(&Known::default()), own))
    }

    /// Alisio's own request: the same body builder with the recorded options and tools.
    fn own(&self, call: &ModelCallRecord) -> Result<(Value, Option<Value>)> {
        let (api, wire, response) = messages(self.store, &self.session, self.source, call)?;
        let params = &call.params;
        let provider = ProviderConfig::from(ProviderFile {
            api,
            model: call.model.clone(),
            stream: params.get("stream").and_then(Value::as_bool).unwrap_or(false),
            ..ProviderFile::default()
        });
        let options = RequestOptions {
            max_tokens: params.get("maxTokens").and_then(Value::as_u64).unwrap_or(0) as u32,
            tool_choice_none: params.get("toolChoice").and_then(Value::as_str) == Some("none"),
        };
        // MCP tools offered with the built-ins were recorded with the call.
        let tools = self.store.model_call_tools(call.id)?.unwrap_or_else(|| catalog_json(api, &catalog()));
        let mut body = build_body(&provider, &wire, &tools, options);
        // What the provider strategy asked the server to do, and where a standalone compaction went.
        if let Some(field) = params.get("contextManagement") {
            body["context_management"] = field.clone();
        }
        if params.get("endpoint").and_then(Value::as_str) == Some(crate::provider::context_management::COMPACT_ENDPOINT)
        {
            body = crate::provider::context_management::compact_body(&body);
        }
        Ok((body, response))
    }

    /// Only what the agent recorded: the model and the conversation; no options, no tools.
    fn reconstructed(&self, call: &ModelCallRecord) -> Result<Rebuilt> {
        let (api, wire, response) = messages(self.store, &self.session, self.source, call)?;
        let key = if api == Api::Responses { "input" } else { "messages" };
        let system_shown = matches!(wire.first(), Some(WireItem::Text { role: "system", .. }))
            && self.source != Some(SourceKind::Codex);
        let mut body = Map::new();
        if !call.model.is_empty() {
            body.insert("model".into(), json!(call.model));
        }
        body.insert(key.into(), serde_json::to_value(&wire)?);
        let body = Value::Object(body);
        let shown = estimate_tokens(body.to_string().chars().count() as u64);
        let source = self.source.unwrap_or(SourceKind::OpenCode);
        // Rows an importer could only estimate (a compaction its agent did not log) carry what
        // the agent's last logged request held of each part.
        let reference = self.store.model_call_request_ref(call.id)?.unwrap_or(Value::Null);
        // The agent logged the request's messages but not all of it (Copilot CLI's summarizer):
        // those messages as sent, the rest listed as missing.
        if let Some(logged) = reference.get("messages").filter(|m| m.is_array()) {
            let mut body = Map::new();
            if !call.model.is_empty() {
                body.insert("model".into(), json!(call.model));
            }
            body.insert(key.into(), logged.clone());
            let tools = reference.pointer("/estimates/tools").and_then(Value::as_u64).filter(|t| *t > 0);
            let missing = tools
                .map(|t| MissingPart { part: "tools".into(), estimated_tokens: t })
                .into_iter()
                .chain(missing_parts(source, None, 0, true).into_iter().filter(|m| m.part == "params"))
                .collect();
            return Ok(Rebuilt {
                body: Value::Object(body),
                response,
                source: call.request_source,
                exact: false,
                missing,
                omitted: Vec::new(),
            });
        }
        let omitted = reference["omitted"].as_array().into_iter().flatten().filter_map(Value::as_str);
        let omitted = omitted.map(str::to_string).collect();
        let missing = match reference.get("estimates") {
            Some(estimates) => ["system", "tools"]
                .iter()
                .filter(|part| !(system_shown && **part == "system"))
                .filter_map(|part| {
                    let tokens = estimates.get(*part).and_then(Value::as_u64).filter(|t| *t > 0)?;
                    Some(MissingPart { part: part.to_string(), estimated_tokens: tokens })
                })
                .chain(missing_parts(source, None, 0, true).into_iter().filter(|m| m.part == "params"))
                .collect(),
            None => missing_parts(source, call.prompt_tokens, shown, system_shown),
        };
        Ok(Rebuilt { body, response, source: call.request_source, exact: false, missing, omitted })
    }

    /// Claude Code's own record: the shape, the kept and appended parts, the params.
    fn agent_log(&mut self, call: &ModelCallRecord) -> Result<Value> {
        let reference = self.store.model_call_request_ref(call.id)?.unwrap_or(Value::Null);
        // The chain back to a request that kept nothing (or one rebuilt a moment ago): each keeps
        // a prefix of the one before.
        let mut chain = vec![reference.clone()];
        let mut messages: Vec<Value> = Vec::new();
        loop {
            let last = &chain[chain.len() - 1];
            let Some(previous) = last["previous"].as_i64().filter(|_| keep(last) > 0) else { break };
            if let Some((_, remembered)) = self.chains.iter().find(|(id, _)| *id == previous) {
                messages = remembered.clone();
                break;
            }
            match self.store.model_call_request_ref(previous)? {
                Some(earlier) => chain.push(earlier),
                None => break,
            }
        }
        for link in chain.iter().rev() {
            messages.truncate(keep(link));
            let tail: Vec<&str> = link["tail"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
            for (hash, part) in tail.iter().zip(self.store.request_parts(&self.session, &tail)?) {
                messages.push(
                    part.unwrap_or_else(|| json!({"role": "user", "content": format!("[not in the log: {hash}]")})),
                );
            }
        }
        if self.chains.len() == REMEMBERED {
            self.chains.remove(0);
        }
        self.chains.push((call.id, messages.clone()));
        let shape_hash = reference["shapeHash"].as_str().unwrap_or_default();
        let shape = self.store.request_parts(&self.session, &[shape_hash])?.pop().flatten().unwrap_or(Value::Null);
        Ok(claude_log::body(&reference, &shape, messages))
    }
}

fn keep(reference: &Value) -> usize {
    reference["keep"].as_u64().unwrap_or(0) as usize
}

/// The conversation part of a past request (system prompt, the stored records it was formed
/// from, and any appended request), with the API it was sent to and the answer received.
pub fn messages(
    store: &Store,
    session: &SessionId,
    source: Option<SourceKind>,
    call: &ModelCallRecord,
) -> Result<(Api, Vec<WireItem>, Option<Value>)> {
    let api = match call.api {
        WireApi::Responses => Api::Responses,
        // Alisio's own Anthropic calls are rebuilt as sent; an imported Claude Code call is shown
        // in the chat shape its records were mapped to.
        WireApi::Messages if call.request_source == RequestSource::Alisio => Api::Anthropic,
        WireApi::Chat | WireApi::Messages => Api::Chat,
    };
    let (mut system, mut response) = store.model_call_payload(call.id)?;
    if call.request_source != RequestSource::Alisio {
        // Codex records base instructions longer than the developer message it sends them as:
        // shown neither, listed as missing.
        system = match source {
            Some(SourceKind::Codex) => String::new(),
            _ => store.imported_system_prompt(session)?,
        };
        if response.is_none() {
            response = imported_response(store, session, call)?;
        }
    }
    let mut messages = store.messages_by_seq(session, &expand_ranges(&call.message_ranges))?;
    // An imported request's ranges bridge off-view messages (a sub-agent's thread): never sent.
    messages.retain(|m| !m.off_view);
    messages.sort_by_key(|m| (m.anchor, m.seq));
    let mut wire = wire_messages(api, &system, messages);
    if let Some(text) = call.params.get("appendedUserMessage").and_then(Value::as_str) {
        wire.push(WireItem::Text { role: "user", content: text.to_string() });
    }
    Ok((api, wire, response))
}

/// The answer of an imported call, from the message its agent stored for it, in the shape of
/// the answers Alisio records itself.
fn imported_response(store: &Store, session: &SessionId, call: &ModelCallRecord) -> Result<Option<Value>> {
    let Some(seq) = call.response_seq else { return Ok(None) };
    let Some(message) = store.messages_by_seq(session, &[seq])?.pop() else { return Ok(None) };
    Ok(Some(json!({
        "text": message.content,
        "toolCalls": message.tool_calls,
        "finishReason": call.finish_reason,
        "usage": {
            "promptTokens": call.prompt_tokens,
            "cachedTokens": call.cached_tokens,
            "completionTokens": call.completion_tokens,
        },
        "durationMs": call.duration_ms,
    })))
}
