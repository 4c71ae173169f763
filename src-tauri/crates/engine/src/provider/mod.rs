//! The provider client: OpenAI Chat Completions (streamed or whole), the Responses API and
//! Anthropic Messages, bounded retries with backoff, a timeout, cancellation, and context-window
//! discovery. The API key comes from the environment, goes out as a bearer token (`x-api-key` for
//! Anthropic), and appears nowhere else.

pub(crate) mod anthropic;
pub(crate) mod chat;
mod chunks;
pub mod context_management;
pub mod finder;
mod report;
pub(crate) mod responses;
mod window;
pub mod wire;

use std::time::{Duration, Instant};

use eventsource_stream::{EventStreamError, Eventsource};
use futures_util::StreamExt;
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use crate::config::{Api, ProviderConfig};
use crate::error::{Error, Result};
use crate::transcript::{Message, ToolCall};

pub use report::{configured_window, model_ids, window_in_force, ModelsReport};
pub use window::{parse_context_window, Window, WindowSource};
use wire::WireItem;

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Usage {
    pub prompt_tokens: Option<u64>,
    pub cached_tokens: Option<u64>,
    /// Input written to the prompt cache (servers that report it: Anthropic's cache creation).
    pub cache_write_tokens: Option<u64>,
    pub completion_tokens: Option<u64>,
    pub prompt_ms: Option<f64>,
}

impl Usage {
    fn merge(&mut self, other: &Usage) {
        self.prompt_tokens = other.prompt_tokens.or(self.prompt_tokens);
        self.cached_tokens = other.cached_tokens.or(self.cached_tokens);
        self.cache_write_tokens = other.cache_write_tokens.or(self.cache_write_tokens);
        self.completion_tokens = other.completion_tokens.or(self.completion_tokens);
        self.prompt_ms = other.prompt_ms.or(self.prompt_ms);
    }

    /// llama.cpp's `timings` (`cache_n`, `prompt_n`, `prompt_ms`) fill what `usage` left out.
    fn merge_llama_timings(&mut self, timings: Option<&chunks::LlamaTimings>) {
        let Some(t) = timings else { return };
        self.cached_tokens = self.cached_tokens.or(t.cache_n);
        if self.prompt_tokens.is_none() {
            if let Some(n) = t.prompt_n {
                self.prompt_tokens = Some(n + t.cache_n.unwrap_or(0));
            }
        }
        self.prompt_ms = self.prompt_ms.or(t.prompt_ms);
        if self.completion_tokens.is_none() {
            self.completion_tokens = t.predicted_n;
        }
    }
}

/// One answer of the model.
#[derive(Debug, Clone, PartialEq)]
pub struct Completion {
    pub text: String,
    pub tool_calls: Vec<ToolCall>,
    pub provider_items: Option<Value>,
    pub finish_reason: Option<String>,
    pub usage: Usage,
    pub ttft_ms: Option<u64>,
    pub duration_ms: u64,
    /// The answer's id as the server gave it (Anthropic's message id).
    pub response_id: Option<String>,
    /// What the server said about its prompt cache for this request (Anthropic's `diagnostics`).
    pub cache_diagnostics: Option<Value>,
    /// What the server's context editing did to this request (Anthropic's
    /// `context_management.applied_edits`), when it did something.
    pub context_edits: Option<Value>,
}

/// Per-request options.
#[derive(Debug, Clone, Copy)]
pub struct RequestOptions {
    pub max_tokens: u32,
    /// Forbid tool calls while still sending the tool catalog (keeps the prompt prefix identical).
    pub tool_choice_none: bool,
}

/// The conversation part of a request: chat `messages` or Responses `input`.
pub fn wire_messages(api: Api, system: &str, messages: Vec<Message>) -> Vec<WireItem> {
    match api {
        Api::Chat => chat::wire_messages(system, messages),
        Api::Responses => responses::wire_input(system, messages),
        Api::Anthropic => anthropic::wire_messages(system, messages),
    }
}

/// The full request body for `config`'s API, model and streaming mode.
pub fn build_body(config: &ProviderConfig, wire: &[WireItem], tools: &Value, options: RequestOptions) -> Value {
    let stream = config.stream;
    let mut body = match config.api {
        Api::Chat => {
            let mut body =
                json!({"model": config.model, "messages": wire, "stream": stream, "max_tokens": options.max_tokens});
            if stream {
                body["stream_options"] = json!({"include_usage": true});
            }
            body
        }
        Api::Responses => json!({
            "model": config.model,
            "input": wire,
            "stream": stream,
            "max_output_tokens": options.max_tokens,
            "store": false,
            "include": ["reasoning.encrypted_content"],
        }),
        Api::Anthropic => {
            return anthropic::body(&config.model, wire, tools, options.max_tokens, stream, options.tool_choice_none)
        }
    };
    if tools.as_array().is_some_and(|t| !t.is_empty()) {
        body["tools"] = tools.clone();
        if options.tool_choice_none {
            body["tool_choice"] = json!("none");
        }
    }
    body
}

/// Parses a whole (non-streamed) answer in `api`'s shape; the error says what was wrong with it.
pub fn parse_answer(api: Api, value: &Value) -> std::result::Result<Completion, String> {
    match api {
        Api::Chat => chat::parse_completion(value),
        Api::Responses => responses::parse_response(value),
        Api::Anthropic => anthropic::parse_message(value),
    }
}

/// The Messages API version every Anthropic request names.
pub const ANTHROPIC_VERSION: &str = "2023-06-01";

/// The beta that makes Anthropic compare a request with the one before it (`provider.cacheDiagnostics`).
pub const CACHE_DIAGNOSTICS_BETA: &str = "cache-diagnosis-2026-04-07";

pub struct Provider {
    http: reqwest::Client,
    config: ProviderConfig,
    api_key: Option<String>,
}

/// An HTTP client builder with TLS ready: one rustls with the `ring` provider for every client in
/// the process (model servers, MCP servers), installed on first use.
pub fn http_client_builder() -> reqwest::ClientBuilder {
    ensure_tls();
    reqwest::Client::builder()
}

/// Installs rustls's `ring` provider as the process default (once) before any client is built.
pub fn ensure_tls() {
    static TLS: std::sync::Once = std::sync::Once::new();
    TLS.call_once(|| {
        // Another part of the process may have installed one already; either serves.
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
}

impl Provider {
    pub fn new(config: &ProviderConfig) -> Result<Self> {
        let http = http_client_builder()
            .connect_timeout(Duration::from_secs(10))
            .read_timeout(Duration::from_millis(config.timeout_ms))
            .user_agent(concat!("alisio/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| Error::Provider(format!("cannot set up the HTTP client: {e}")))?;
        let api_key = std::env::var(&config.api_key_env).ok().filter(|k| !k.trim().is_empty());
        Ok(Self { http, config: config.clone(), api_key })
    }

    pub fn config(&self) -> &ProviderConfig {
        &self.config
    }

    pub fn endpoint(&self) -> String {
        let base = self.config.base_url.trim_end_matches('/');
        match self.config.api {
            Api::Chat => format!("{base}/chat/completions"),
            Api::Responses => format!("{base}/responses"),
            Api::Anthropic => format!("{base}/messages"),
        }
    }

    /// The key as the API wants it: a bearer token, or Anthropic's `x-api-key` with its version
    /// and the betas the request uses (cache diagnostics, `body`'s context management).
    fn authorized(&self, request: reqwest::RequestBuilder, body: Option<&Value>) -> reqwest::RequestBuilder {
        match (self.config.api, &self.api_key) {
            (Api::Anthropic, key) => {
                let mut request = request.header("anthropic-version", ANTHROPIC_VERSION);
                let mut betas = body.map(context_management::betas).unwrap_or_default();
                if self.config.cache_diagnostics {
                    betas.insert(0, CACHE_DIAGNOSTICS_BETA);
                }
                if !betas.is_empty() {
                    request = request.header("anthropic-beta", betas.join(","));
                }
                match key {
                    Some(key) => request.header("x-api-key", key),
                    None => request,
                }
            }
            (_, Some(key)) => request.bearer_auth(key),
            (_, None) => request,
        }
    }

    fn redact(&self, text: String) -> String {
        match &self.api_key {
            Some(key) if key.len() >= 4 => text.replace(key.as_str(), "[redacted]"),
            _ => text,
        }
    }

    fn fail(&self, url: &str, what: String) -> Error {
        Error::Provider(self.redact(format!("the model server at {url} {what}")))
    }

    fn describe_send_error(&self, url: &str, err: &reqwest::Error) -> Error {
        if err.is_timeout() {
            self.fail(url, format!("did not answer within {} ms (provider.timeoutMs)", self.config.timeout_ms))
        } else if err.is_connect() {
            // The innermost cause is the useful one ("Connection refused (os error 111)").
            let mut cause: &dyn std::error::Error = err;
            while let Some(inner) = cause.source() {
                cause = inner;
            }
            let kind = match self.config.api {
                Api::Anthropic => "an Anthropic Messages API",
                Api::Chat | Api::Responses => "an OpenAI-compatible server",
            };
            Error::Provider(self.redact(format!(
                "could not reach the model server at {url} ({cause}). Start {kind} there, \
                 or set provider.baseUrl (and provider.model) in $ALISIO_HOME/config.json or a file passed with --config."
            )))
        } else {
            self.fail(url, format!("could not be used: {err}"))
        }
    }

    /// Sends one request, calling `on_delta` with streamed text. Retries 429, 5xx and connection
    /// failures (before any answer arrived) with exponential backoff.
    pub async fn send(
        &self,
        body: &Value,
        on_delta: &mut (dyn FnMut(&str) + Send),
        cancel: &CancellationToken,
    ) -> Result<Completion> {
        self.send_to(self.endpoint(), body, on_delta, cancel).await
    }

    /// The Responses API's standalone compaction (`POST {baseUrl}/responses/compact`): the
    /// window's items in, the compacted items out (an opaque `compaction` item among them), as
    /// the answer's `provider_items`; no text.
    pub async fn compact(&self, body: &Value, cancel: &CancellationToken) -> Result<Completion> {
        let url = format!("{}/responses/compact", self.config.base_url.trim_end_matches('/'));
        let completion = self.send_to(url, body, &mut |_| {}, cancel).await?;
        Ok(Completion { text: String::new(), tool_calls: Vec::new(), ..completion })
    }

    async fn send_to(
        &self,
        url: String,
        body: &Value,
        on_delta: &mut (dyn FnMut(&str) + Send),
        cancel: &CancellationToken,
    ) -> Result<Completion> {
        let started = Instant::now();
        let mut attempt: u32 = 0;
        let response = loop {
            let request = self.authorized(self.http.post(&url).json(body), Some(body));
            let outcome = tokio::select! {
                outcome = request.send() => outcome,
                _ = cancel.cancelled() => return Err(Error::Cancelled),
            };
            let retry_after = match outcome {
                Ok(response) if response.status().is_success() => break response,
                Ok(response) => {
                    let status = response.status();
                    let retryable = status.as_u16() == 429 || status.is_server_error();
                    let retry_after = response
                        .headers()
                        .get(reqwest::header::RETRY_AFTER)
                        .and_then(|v| v.to_str().ok())
                        .and_then(|v| v.trim().parse::<u64>().ok())
                        .map(|s| Duration::from_secs(s.min(60)));
                    let text = response.text().await.unwrap_or_default();
                    if !retryable || attempt >= self.config.max_retries {
                        let excerpt: String = text.chars().take(500).collect();
                        let tries =
                            if attempt > 0 { format!(" (after {} attempts)", attempt + 1) } else { String::new() };
                        return Err(self.fail(&url, format!("answered HTTP {status}{tries}: {excerpt}")));
                    }
                    retry_after
                }
                Err(err) => {
                    let retryable = err.is_connect() || err.is_timeout() || err.is_request();
                    if !retryable || attempt >= self.config.max_retries {
                        return Err(self.describe_send_error(&url, &err));
                    }
                    None
                }
            };
            let backoff = retry_after
                .unwrap_or(Duration::from_millis(self.config.retry_base_ms.saturating_mul(1 << attempt.min(10))));
            tracing::warn!(attempt = attempt + 1, backoff_ms = backoff.as_millis() as u64, "retrying model request");
            tokio::select! {
                _ = tokio::time::sleep(backoff) => {}
                _ = cancel.cancelled() => return Err(Error::Cancelled),
            }
            attempt += 1;
        };

        let streamed = body.get("stream").and_then(Value::as_bool).unwrap_or(false);
        let content_type = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("")
            .to_ascii_lowercase();
        let is_json = content_type.contains("json");
        let is_stream = content_type.starts_with("text/event-stream");
        // Say what arrived when it is neither an event stream nor JSON (a proxy's HTML page, say);
        // a JSON answer to a streamed request is a server that ignored `stream`, and is read whole.
        if !(content_type.is_empty() || is_json || is_stream) {
            let text = tokio::select! {
                text = response.text() => text.unwrap_or_default(),
                _ = cancel.cancelled() => return Err(Error::Cancelled),
            };
            let excerpt: String = text.chars().take(300).collect();
            let kind = content_type.as_str();
            let wanted = if streamed { "an event stream" } else { "JSON" };
            return Err(self.fail(&url, format!("answered HTTP 200 with {kind} instead of {wanted}: {excerpt}")));
        }
        let streamed = streamed && !is_json;
        let mut completion = if streamed {
            self.read_stream(&url, response, started, on_delta, cancel).await?
        } else {
            let text = tokio::select! {
                text = response.text() => text.map_err(|e| self.describe_send_error(&url, &e))?,
                _ = cancel.cancelled() => return Err(Error::Cancelled),
            };
            let value: Value = serde_json::from_str(&text).map_err(|e| {
                let excerpt: String = text.chars().take(200).collect();
                self.fail(&url, format!("sent an answer that is not valid JSON ({e}): {excerpt}"))
            })?;
            let completion = parse_answer(self.config.api, &value).map_err(|what| self.fail(&url, what))?;
            if !completion.text.is_empty() {
                on_delta(&completion.text);
            }
            Completion { ttft_ms: Some(started.elapsed().as_millis() as u64), ..completion }
        };
        completion.duration_ms = started.elapsed().as_millis() as u64;
        Ok(completion)
    }

    async fn read_stream(
        &self,
        url: &str,
        response: reqwest::Response,
        started: Instant,
        on_delta: &mut (dyn FnMut(&str) + Send),
        cancel: &CancellationToken,
    ) -> Result<Completion> {
        let mut chat_stream = chat::ChatStream::default();
        let mut responses_stream = responses::ResponsesStream::default();
        let mut anthropic_stream = anthropic::AnthropicStream::default();
        let mut ttft_ms = None;
        let mut events = response.bytes_stream().eventsource();
        loop {
            let event = tokio::select! {
                event = events.next() => event,
                _ = cancel.cancelled() => return Err(Error::Cancelled),
            };
            let data = match event {
                None => break,
                Some(Ok(event)) => event.data,
                Some(Err(EventStreamError::Transport(err))) if err.is_timeout() => {
                    return Err(self.fail(
                        url,
                        format!("stopped sending for more than {} ms (provider.timeoutMs)", self.config.timeout_ms),
                    ));
                }
                Some(Err(EventStreamError::Transport(err))) => {
                    return Err(self.fail(url, format!("broke off the stream: {err}")));
                }
                Some(Err(EventStreamError::Utf8(err))) => {
                    return Err(self.fail(url, format!("sent a stream that is not UTF-8 ({err})")));
                }
                Some(Err(EventStreamError::Parser(err))) => {
                    return Err(self.fail(url, format!("sent a malformed event stream ({err})")));
                }
            };
            let delta = match self.config.api {
                Api::Chat => chat_stream.apply(&data),
                Api::Responses => responses_stream.apply(&data),
                Api::Anthropic => anthropic_stream.apply(&data),
            }
            .map_err(|what| self.fail(url, what))?;
            if ttft_ms.is_none() {
                ttft_ms = Some(started.elapsed().as_millis() as u64);
            }
            if let Some(text) = delta {
                on_delta(&text);
            }
            let done = match self.config.api {
                Api::Chat => chat_stream.done,
                Api::Responses => responses_stream.done(),
                Api::Anthropic => anthropic_stream.done,
            };
            if done {
                break;
            }
        }
        let completion = match self.config.api {
            Api::Chat => chat_stream.finish(),
            Api::Responses => responses_stream.finish(),
            Api::Anthropic => anthropic_stream.finish(),
        }
        .map_err(|what| self.fail(url, what))?;
        Ok(Completion { ttft_ms, ..completion })
    }

    /// The model's context window as the server reports it (`GET {baseUrl}/models`, then the
    /// server-specific sources); `Ok(None)` when it does not say.
    pub async fn fetch_context_window(&self) -> Result<Option<Window>> {
        let base = self.config.base_url.trim_end_matches('/');
        let models = self.get_json(&format!("{base}/models")).await?;
        self.discover_window(models.as_ref()).await
    }

    /// The window in force from an already fetched `/models` document, else from llama.cpp's
    /// `/props`, Ollama's `/api/ps` and `/api/show`, LM Studio's `/api/v0/models` (each asked only
    /// when the previous ones gave no loaded window). A loaded window wins over a trained maximum.
    pub async fn discover_window(&self, models: Option<&Value>) -> Result<Option<Window>> {
        let model = self.config.model.as_str();
        let base = self.config.base_url.trim_end_matches('/');
        let root = base.strip_suffix("/v1").unwrap_or(base);
        let mut trained: Option<Window> = None;
        let mut consider = |reported: window::Reported, source: WindowSource| {
            if trained.is_none() {
                trained = reported.trained.map(|tokens| Window { tokens, source });
            }
            reported.loaded.map(|tokens| Window { tokens, source })
        };
        if let Some(found) = models.and_then(|doc| consider(window::from_models(doc, model), WindowSource::Models)) {
            return Ok(Some(found));
        }
        let props = self.get_json(&format!("{root}/props")).await.unwrap_or(None);
        if let Some(found) = props.and_then(|doc| consider(window::from_props(&doc), WindowSource::Props)) {
            return Ok(Some(found));
        }
        let ps = self.get_json(&format!("{root}/api/ps")).await.unwrap_or(None);
        let show = self.post_json(&format!("{root}/api/show"), &json!({"model": model})).await.unwrap_or(None);
        if ps.is_some() || show.is_some() {
            if let Some(found) = consider(window::from_ollama(ps.as_ref(), show.as_ref(), model), WindowSource::Ollama)
            {
                return Ok(Some(found));
            }
        }
        let lmstudio = self.get_json(&format!("{root}/api/v0/models")).await.unwrap_or(None);
        if let Some(found) =
            lmstudio.and_then(|doc| consider(window::from_lmstudio(&doc, model), WindowSource::Lmstudio))
        {
            return Ok(Some(found));
        }
        Ok(trained)
    }

    /// The model list as the server reports it (for a connection test).
    pub async fn list_models(&self) -> Result<Value> {
        let base = self.config.base_url.trim_end_matches('/');
        let url = format!("{base}/models");
        self.get_json(&url).await?.ok_or_else(|| self.fail(&url, "answered /models with nothing usable".into()))
    }

    async fn post_json(&self, url: &str, body: &Value) -> Result<Option<Value>> {
        self.lookup_json(url, self.http.post(url).json(body)).await
    }

    async fn get_json(&self, url: &str) -> Result<Option<Value>> {
        self.lookup_json(url, self.http.get(url)).await
    }

    /// Sends a lookup (not a model request) with the key; `Ok(None)` when the server answers with
    /// an error status or something that is not JSON.
    async fn lookup_json(&self, url: &str, request: reqwest::RequestBuilder) -> Result<Option<Value>> {
        let response = self.authorized(request, None).send().await.map_err(|e| self.describe_send_error(url, &e))?;
        if !response.status().is_success() {
            return Ok(None);
        }
        Ok(response.json::<Value>().await.ok())
    }
}
