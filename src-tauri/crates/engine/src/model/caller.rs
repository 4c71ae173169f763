//! Sending a request through the model-call ledger: the row is written before the request goes
//! out (with the records that form it), and the error is written if it fails. Every model call —
//! turns, compaction summaries, cache hand-offs — goes through here.

use std::sync::Arc;

use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use super::ModelClient;
use crate::config::{Api, ProviderConfig};
use crate::error::{Error, Result};
use crate::events::now_rfc3339;
use crate::provider::context_management::{compact_body, COMPACT_ENDPOINT};
use crate::provider::{build_body, configured_window, Completion, RequestOptions, Window};
use crate::store::SessionId;
use crate::store::{ModelCallRecord, ModelCallStart, ModelCallUpdate, Purpose, Store};
use crate::transcript::estimate_tokens;
use crate::view::PreparedRequest;

/// One request: the prepared live view, optionally with a user message appended to it.
pub struct Outgoing<'a> {
    pub purpose: Purpose,
    pub prepared: &'a PreparedRequest,
    pub appended: Option<&'a str>,
    pub options: RequestOptions,
    /// The API's own context management for this request (`compaction.strategy: "provider"`).
    pub context_management: Option<Value>,
    /// Sent to the Responses API's `/responses/compact` instead (`model`, `instructions`,
    /// `input`), not to the model endpoint.
    pub standalone: bool,
}

/// The configured provider values, a client that answers, the window it reports (asked once),
/// and the hard limit every request is held to.
pub struct ModelCaller {
    client: Arc<dyn ModelClient>,
    config: ProviderConfig,
    /// `limits.maxContextChars`: instructions + transcript (+ an appended request) of any request.
    max_context_chars: u64,
    reported_window: tokio::sync::OnceCell<Option<Window>>,
}

impl ModelCaller {
    pub fn new(config: ProviderConfig, max_context_chars: u64, client: Arc<dyn ModelClient>) -> Self {
        Self { client, config, max_context_chars, reported_window: tokio::sync::OnceCell::new() }
    }

    pub fn config(&self) -> &ProviderConfig {
        &self.config
    }

    /// The context window: `provider.contextWindow`, else what the server reports (asked once).
    pub async fn context_window(&self) -> Option<u64> {
        self.window().await.map(|w| w.tokens)
    }

    /// The window in force and its source.
    pub async fn window(&self) -> Option<Window> {
        if let Some(configured) = configured_window(&self.config) {
            return Some(configured);
        }
        *self
            .reported_window
            .get_or_init(|| async {
                match self.client.fetch_context_window().await {
                    Ok(window) => window,
                    Err(err) => {
                        tracing::debug!("no context window from the server: {err}");
                        None
                    }
                }
            })
            .await
    }

    /// The window in force as far as it is known now: configured, or reported and already asked
    /// (no request is made).
    pub fn known_window(&self) -> Option<u64> {
        configured_window(&self.config).or(self.reported_window.get().copied().flatten()).map(|w| w.tokens)
    }

    /// Records the request in the ledger, sends it, and records a failure. On success the caller
    /// completes the row ([`ModelCaller::finish`]) once it knows what the answer became.
    pub async fn send_recorded(
        &self,
        store: &Store,
        session: &SessionId,
        outgoing: Outgoing<'_>,
        on_delta: &mut (dyn FnMut(&str) + Send),
        cancel: &CancellationToken,
    ) -> Result<(i64, Completion)> {
        let Outgoing { purpose, prepared, appended, options, context_management, standalone } = outgoing;
        let mut body = build_body(&self.config, &prepared.wire, &prepared.tools, options);
        let mut params = json!({"maxTokens": options.max_tokens, "stream": self.config.stream});
        if let Some(field) = context_management {
            body["context_management"] = field.clone();
            params["contextManagement"] = field;
        }
        if standalone {
            body = compact_body(&body);
            params["endpoint"] = json!(COMPACT_ENDPOINT);
        }
        // Anthropic's cache diagnostics: compared with the session's previous answer.
        if self.config.api == Api::Anthropic && self.config.cache_diagnostics {
            body["diagnostics"] = json!({"previous_message_id": store.last_response_id(session)?});
            params["cacheDiagnostics"] = json!(true);
        }
        if options.tool_choice_none {
            params["toolChoice"] = json!("none");
        }
        // Which profile's server answered (a session may switch profiles between calls).
        if let Some(profile) = &self.config.profile {
            params["profile"] = json!(profile);
        }
        let mut request_chars = prepared.request_chars();
        if let Some(text) = appended {
            let (key, message) = match self.config.api {
                Api::Chat => ("messages", json!({"role": "user", "content": text})),
                Api::Responses => ("input", json!({"role": "user", "content": text})),
                // After the last breakpoint: the request before it is read from cache.
                Api::Anthropic => ("messages", json!({"role": "user", "content": [{"type": "text", "text": text}]})),
            };
            if let Some(items) = body.get_mut(key).and_then(Value::as_array_mut) {
                items.push(message);
            }
            params["appendedUserMessage"] = json!(text);
            request_chars += text.chars().count() as u64;
        }
        // The hard limit holds for every request — turns, summaries, hand-offs: an oversized one is
        // never sent (the catalog does not count, as everywhere).
        let conversation_chars = request_chars - prepared.tool_catalog_chars;
        if conversation_chars > self.max_context_chars {
            return Err(Error::Budget(format!(
                "Context budget exceeded (approximately {conversation_chars} characters of conversation; limit {}). \
                 The {} request was not sent. Run `alisio compact {session}` with a focus, trim large tool outputs, \
                 or start a new session.",
                self.max_context_chars,
                purpose.as_str()
            )));
        }
        let started_at = now_rfc3339();
        let call_id = store.insert_model_call(&ModelCallStart {
            session,
            purpose,
            api: self.config.api.into(),
            model: &self.config.model,
            system_prompt: &prepared.system,
            message_ranges: &prepared.ranges,
            params: &params,
            tools: prepared.offers_mcp_tools.then_some(&prepared.tools),
            tool_catalog_chars: prepared.tool_catalog_chars,
            request_chars,
            estimated_tokens: estimate_tokens(request_chars),
            started_at: &started_at,
        })?;
        let sent = if standalone {
            self.client.compact(&body, cancel).await
        } else {
            self.client.send(&body, on_delta, cancel).await
        };
        match sent {
            Ok(completion) => Ok((call_id, completion)),
            Err(err) => {
                let error = if matches!(err, Error::Cancelled) { "cancelled".to_string() } else { err.to_string() };
                store.finish_model_call(call_id, &ModelCallUpdate { error: Some(error), ..Default::default() })?;
                Err(err)
            }
        }
    }

    /// Sends a past request's body again as it is (its model set to the configured one), recorded in
    /// the ledger as a `replay` with the records the original was formed from.
    pub async fn replay(
        &self,
        store: &Store,
        session: &SessionId,
        original: &ModelCallRecord,
        system_prompt: &str,
        mut body: Value,
        cancel: &CancellationToken,
    ) -> Result<(i64, Completion)> {
        body["model"] = json!(self.config.model);
        let mut params = original.params.clone();
        params["replayOf"] = json!(original.id);
        let ranges: Vec<[i64; 2]> = serde_json::from_value(original.message_ranges.clone())?;
        let tools = store.model_call_tools(original.id)?;
        let call_id = store.insert_model_call(&ModelCallStart {
            session,
            purpose: Purpose::Replay,
            api: original.api,
            model: &self.config.model,
            system_prompt,
            message_ranges: &ranges,
            params: &params,
            tools: tools.as_ref(),
            tool_catalog_chars: original.tool_catalog_chars,
            request_chars: original.request_chars,
            estimated_tokens: original.estimated_tokens,
            started_at: &now_rfc3339(),
        })?;
        match self.client.send(&body, &mut |_| {}, cancel).await {
            Ok(completion) => Ok((call_id, completion)),
            Err(err) => {
                store.finish_model_call(
                    call_id,
                    &ModelCallUpdate { error: Some(err.to_string()), ..Default::default() },
                )?;
                Err(err)
            }
        }
    }

    /// Completes the ledger row of a sent request with what the server reported.
    pub fn finish(
        &self,
        store: &Store,
        call_id: i64,
        completion: &Completion,
        response_seq: Option<i64>,
    ) -> Result<()> {
        let usage = &completion.usage;
        store.finish_model_call(
            call_id,
            &ModelCallUpdate {
                prompt_tokens: usage.prompt_tokens,
                cached_tokens: usage.cached_tokens,
                cache_write_tokens: usage.cache_write_tokens,
                completion_tokens: usage.completion_tokens,
                prompt_ms: usage.prompt_ms,
                ttft_ms: completion.ttft_ms,
                duration_ms: completion.duration_ms,
                finish_reason: completion.finish_reason.clone(),
                error: None,
                response_seq,
                cache_miss_reason: completion
                    .cache_diagnostics
                    .as_ref()
                    .and_then(|d| d.pointer("/cache_miss_reason/type"))
                    .and_then(Value::as_str)
                    .map(str::to_string),
                response: Some(json!({
                    "text": completion.text,
                    "toolCalls": completion.tool_calls,
                    "finishReason": completion.finish_reason,
                    "usage": {
                        "promptTokens": usage.prompt_tokens,
                        "cachedTokens": usage.cached_tokens,
                        "completionTokens": usage.completion_tokens,
                        "promptMs": usage.prompt_ms,
                    },
                    "providerItems": completion.provider_items,
                    "ttftMs": completion.ttft_ms,
                    "durationMs": completion.duration_ms,
                    "id": completion.response_id,
                    "cacheDiagnostics": completion.cache_diagnostics,
                })),
            },
        )
    }
}
