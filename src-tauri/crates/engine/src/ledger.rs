//! Sending a request through the model-call ledger: the row is written before the request goes
//! out (with the records that form it), and the error is written if it fails. Every model call —
//! turns, compaction summaries, cache hand-offs — goes through here.

use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use crate::agent::Engine;
use crate::config::Api;
use crate::error::{Error, Result};
use crate::events::now_rfc3339;
use crate::provider::{Completion, RequestOptions};
use crate::store::{ModelCallStart, ModelCallUpdate, Session};
use crate::transcript::estimate_tokens;
use crate::view::PreparedRequest;

/// One request: the prepared live view, optionally with a user message appended to it.
pub struct Outgoing<'a> {
    pub purpose: &'a str,
    pub prepared: &'a PreparedRequest,
    pub appended: Option<&'a str>,
    pub options: RequestOptions,
}

impl Engine {
    /// Records the request in the ledger, sends it, and records a failure. On success the caller
    /// completes the row (`finish_model_call`) once it knows what the answer became.
    pub(crate) async fn send_recorded(
        &self,
        session: &Session,
        outgoing: Outgoing<'_>,
        on_delta: &mut (dyn FnMut(&str) + Send),
        cancel: &CancellationToken,
    ) -> Result<(i64, Completion)> {
        let Outgoing { purpose, prepared, appended, options } = outgoing;
        let mut body = self.provider.build_body(&prepared.wire, &prepared.tools, options);
        let mut params = json!({"maxTokens": options.max_tokens, "stream": self.provider.config().stream});
        if options.tool_choice_none {
            params["toolChoice"] = json!("none");
        }
        let mut request_chars = prepared.request_chars();
        if let Some(text) = appended {
            let key = match self.provider.config().api {
                Api::Chat => "messages",
                Api::Responses => "input",
            };
            if let Some(items) = body.get_mut(key).and_then(Value::as_array_mut) {
                items.push(json!({"role": "user", "content": text}));
            }
            params["appendedUserMessage"] = json!(text);
            request_chars += text.chars().count() as u64;
        }
        let started_at = now_rfc3339();
        let call_id = self.store.insert_model_call(&ModelCallStart {
            session: &session.id,
            purpose,
            api: self.api_name(),
            model: &self.provider.config().model,
            system_prompt: &prepared.system,
            message_ranges: &prepared.ranges,
            params: &params,
            tool_catalog_chars: prepared.tool_catalog_chars,
            request_chars,
            estimated_tokens: estimate_tokens(request_chars),
            started_at: &started_at,
        })?;
        match self.provider.send(&body, on_delta, cancel).await {
            Ok(completion) => Ok((call_id, completion)),
            Err(err) => {
                let error = if matches!(err, Error::Cancelled) { "cancelled".to_string() } else { err.to_string() };
                self.store.finish_model_call(call_id, &ModelCallUpdate { error: Some(error), ..Default::default() })?;
                Err(err)
            }
        }
    }

    pub(crate) fn api_name(&self) -> &'static str {
        match self.provider.config().api {
            Api::Chat => "chat",
            Api::Responses => "responses",
        }
    }

    pub(crate) fn ledger_update(&self, completion: &Completion, response_seq: Option<i64>) -> ModelCallUpdate {
        let usage = &completion.usage;
        ModelCallUpdate {
            prompt_tokens: usage.prompt_tokens,
            cached_tokens: usage.cached_tokens,
            completion_tokens: usage.completion_tokens,
            prompt_ms: usage.prompt_ms,
            ttft_ms: completion.ttft_ms,
            duration_ms: completion.duration_ms,
            finish_reason: completion.finish_reason.clone(),
            error: None,
            response_seq,
        }
    }
}
