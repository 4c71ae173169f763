//! `alisio proxy`: a recording pass-through between an agent and its model server. Every request
//! goes to the upstream byte for byte, headers included; the answer comes back as it arrives,
//! chunk by chunk, status and headers unchanged. Requests to a model (`…/chat/completions`,
//! `…/responses`, `…/messages`) are recorded once the answer has ended: the body without the
//! caller's credentials, the answer as received, status, time to first byte, duration, usage —
//! into the imported session whose call it was ([`join`]), else into this run's `proxy` session.
//!
//! The server is axum (hyper); the upstream client is the provider's (reqwest on rustls), with
//! redirects passed back to the agent rather than followed.

pub mod capture;
pub mod join;

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::{Body, Bytes};
use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderName, Response, StatusCode};
use serde::Serialize;
use tokio_util::sync::CancellationToken;

use crate::error::{Error, Result};
use crate::events::now_rfc3339;
use crate::store::{SessionId, Store};
use capture::{captured, credentials, recorded_api, Exchange, RECEIVED_CAP};

/// Where `alisio proxy` listens unless told otherwise.
pub const DEFAULT_LISTEN: &str = "127.0.0.1:8788";

/// The largest request body passed on (an agent's request with images stays well below).
const REQUEST_CAP: usize = 256 << 20;

/// How long stopping waits for answers still streaming before it cuts them.
const STOP_GRACE: Duration = Duration::from_secs(2);

#[derive(Debug, Clone)]
pub struct ProxyOptions {
    /// The model server requests go to (`URL` + the request's path and query).
    pub upstream: String,
    pub listen: String,
    /// The directory the proxy session is said to belong to.
    pub workspace: String,
}

/// What the proxy reports while it runs (`alisio proxy --json` prints each as one line).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "type", rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum ProxyEvent {
    Listening {
        address: String,
    },
    /// A model call recorded: in `session` as its call `n`.
    Captured {
        session: String,
        n: usize,
        path: String,
        status: u16,
        prompt_tokens: Option<u64>,
        cached_tokens: Option<u64>,
    },
    /// The upstream could not be reached, or a call could not be recorded.
    Error {
        message: String,
    },
}

pub type OnEvent = Arc<dyn Fn(ProxyEvent) + Send + Sync>;

struct Shared {
    store: Arc<Store>,
    client: reqwest::Client,
    upstream: String,
    workspace: String,
    session: Mutex<Option<SessionId>>,
    on_event: OnEvent,
}

/// A running proxy.
pub struct Proxy {
    address: SocketAddr,
    cancel: CancellationToken,
    task: tokio::task::JoinHandle<()>,
}

impl Proxy {
    /// Binds `options.listen` and serves until [`Proxy::stop`].
    pub async fn start(store: Arc<Store>, options: ProxyOptions, on_event: OnEvent) -> Result<Proxy> {
        let upstream = options.upstream.trim().trim_end_matches('/').to_string();
        match reqwest::Url::parse(&upstream) {
            Ok(url) if matches!(url.scheme(), "http" | "https") => {}
            _ => return Err(Error::Usage(format!("--upstream must be an http:// or https:// URL, not {upstream:?}"))),
        }
        let listener = tokio::net::TcpListener::bind(&options.listen)
            .await
            .map_err(|e| Error::Usage(format!("cannot listen on {}: {e}", options.listen)))?;
        let address = listener.local_addr().map_err(|e| Error::io("the proxy's address", e))?;
        let client = crate::provider::http_client_builder()
            .connect_timeout(Duration::from_secs(10))
            .tcp_nodelay(true)
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|e| Error::Config(format!("cannot build the proxy's HTTP client: {e}")))?;
        let shared = Arc::new(Shared {
            store,
            client,
            upstream,
            workspace: options.workspace,
            session: Mutex::new(None),
            on_event: on_event.clone(),
        });
        let router = axum::Router::new().fallback(forward).with_state(shared);
        // Small writes (headers, then a body; one event after another) go out at once: with
        // Nagle's algorithm each would wait for the peer's delayed acknowledgement.
        let listener = axum::serve::ListenerExt::tap_io(listener, |tcp| {
            if let Err(e) = tcp.set_nodelay(true) {
                tracing::debug!("TCP_NODELAY: {e}");
            }
        });
        let cancel = CancellationToken::new();
        let stopped = cancel.clone();
        let task = tokio::spawn(async move {
            let serve = axum::serve(listener, router).with_graceful_shutdown(stopped.cancelled_owned());
            if let Err(e) = serve.await {
                tracing::warn!("the proxy stopped: {e}");
            }
        });
        on_event(ProxyEvent::Listening { address: address.to_string() });
        Ok(Proxy { address, cancel, task })
    }

    pub fn address(&self) -> SocketAddr {
        self.address
    }

    /// Stops listening; answers still streaming get [`STOP_GRACE`] to end.
    pub async fn stop(self) {
        self.cancel.cancel();
        let mut task = self.task;
        if tokio::time::timeout(STOP_GRACE, &mut task).await.is_err() {
            task.abort();
        }
    }
}

/// Headers that belong to one connection, not to the request or answer passed on.
fn hop_by_hop(name: &HeaderName) -> bool {
    matches!(
        name.as_str(),
        "connection" | "keep-alive" | "proxy-connection" | "te" | "trailer" | "transfer-encoding" | "upgrade" | "host"
    )
}

async fn forward(State(shared): State<Arc<Shared>>, request: Request) -> Response<Body> {
    let started = Instant::now();
    let started_at = now_rfc3339();
    let (parts, body) = request.into_parts();
    let path = parts.uri.path_and_query().map_or_else(|| parts.uri.path().to_string(), |p| p.as_str().to_string());
    let api = (parts.method == axum::http::Method::POST).then(|| recorded_api(parts.uri.path())).flatten();
    let body = match axum::body::to_bytes(body, REQUEST_CAP).await {
        Ok(body) => body,
        Err(e) => {
            return failure(StatusCode::PAYLOAD_TOO_LARGE, &format!("alisio proxy: cannot read the request: {e}"))
        }
    };
    let mut headers = HeaderMap::new();
    for (name, value) in parts.headers.iter().filter(|(n, _)| !hop_by_hop(n) && *n != header::CONTENT_LENGTH) {
        headers.append(name.clone(), value.clone());
    }
    let url = format!("{}{path}", shared.upstream);
    let sent = shared.client.request(parts.method.clone(), &url).headers(headers).body(body.clone()).send().await;
    let recording = api.map(|api| Exchange {
        path: parts.uri.path().to_string(),
        api,
        request: body.to_vec(),
        credentials: credentials(parts.headers.iter().filter_map(|(n, v)| Some((n.as_str(), v.to_str().ok()?)))),
        status: 0,
        received: Vec::new(),
        received_truncated: false,
        encoding: None,
        ttfb_ms: None,
        duration_ms: 0,
        error: None,
        started_at,
    });
    let upstream = match sent {
        Ok(upstream) => upstream,
        Err(e) => {
            let message = format!("alisio proxy: the upstream {} did not answer: {}", shared.upstream, plain(&e));
            (shared.on_event)(ProxyEvent::Error { message: message.clone() });
            if let Some(mut exchange) = recording {
                exchange.status = StatusCode::BAD_GATEWAY.as_u16();
                exchange.error = Some(message.clone());
                exchange.duration_ms = started.elapsed().as_millis() as u64;
                record(shared.clone(), exchange);
            }
            return failure(StatusCode::BAD_GATEWAY, &message);
        }
    };
    let status = upstream.status();
    let mut answer = Response::builder().status(status);
    for (name, value) in upstream.headers().iter().filter(|(n, _)| !hop_by_hop(n)) {
        answer = answer.header(name, value);
    }
    let encoding = upstream.headers().get(header::CONTENT_ENCODING).and_then(|v| v.to_str().ok()).map(str::to_string);
    let tee = Tee {
        chunks: Box::pin(upstream.bytes_stream()),
        recording: recording.map(|mut x| {
            x.status = status.as_u16();
            x.encoding = encoding;
            (x, shared)
        }),
        received: Vec::new(),
        kept: 0,
        started,
    };
    answer.body(Body::from_stream(tee)).unwrap_or_else(|e| failure(StatusCode::BAD_GATEWAY, &e.to_string()))
}

/// The answer on its way back: each chunk is handed on as it arrives (polled by the agent's
/// connection itself, so nothing is queued between the two sockets) and copied into the recording,
/// which is written when the answer ends, breaks off or the agent hangs up (the stream is dropped).
struct Tee {
    chunks: std::pin::Pin<Box<dyn futures_util::Stream<Item = reqwest::Result<Bytes>> + Send>>,
    recording: Option<(Exchange, Arc<Shared>)>,
    /// The answer's chunks so far (shared with what was sent, not copied), up to [`RECEIVED_CAP`].
    received: Vec<Bytes>,
    kept: usize,
    started: Instant,
}

impl Tee {
    fn finish(&mut self, error: Option<String>) {
        if let Some((mut x, shared)) = self.recording.take() {
            if x.error.is_none() {
                x.error = error;
            }
            x.duration_ms = self.started.elapsed().as_millis() as u64;
            x.received = std::mem::take(&mut self.received).concat();
            record(shared, x);
        }
    }
}

impl futures_util::Stream for Tee {
    type Item = std::io::Result<Bytes>;

    fn poll_next(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Self::Item>> {
        use std::task::Poll;
        match self.chunks.as_mut().poll_next(cx) {
            Poll::Pending => Poll::Pending,
            Poll::Ready(Some(Ok(bytes))) => {
                let this = &mut *self;
                if let Some((x, _)) = this.recording.as_mut() {
                    x.ttfb_ms.get_or_insert(this.started.elapsed().as_millis() as u64);
                    let room = RECEIVED_CAP.saturating_sub(this.kept);
                    x.received_truncated |= bytes.len() > room;
                    if room > 0 {
                        this.received.push(bytes.slice(..bytes.len().min(room)));
                        this.kept += bytes.len().min(room);
                    }
                }
                Poll::Ready(Some(Ok(bytes)))
            }
            Poll::Ready(Some(Err(e))) => {
                let message = format!("the upstream's answer broke off: {}", plain(&e));
                self.finish(Some(message.clone()));
                Poll::Ready(Some(Err(std::io::Error::other(message))))
            }
            Poll::Ready(None) => {
                self.finish(None);
                Poll::Ready(None)
            }
        }
    }
}

impl Drop for Tee {
    fn drop(&mut self) {
        // Dropped before the end: the agent closed the connection (or the proxy is stopping).
        self.finish(Some("the agent closed the connection before the answer ended".into()));
    }
}

/// An error's message with its causes, as one line.
fn plain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        text.push_str(": ");
        text.push_str(&cause.to_string());
        source = cause.source();
    }
    text
}

/// An answer of the proxy's own, in the error shape the OpenAI and Anthropic clients read.
fn failure(status: StatusCode, message: &str) -> Response<Body> {
    let body = serde_json::json!({"type": "error", "error": {"type": "proxy_error", "message": message}});
    let mut response = Response::new(Body::from(body.to_string()));
    *response.status_mut() = status;
    response.headers_mut().insert(header::CONTENT_TYPE, header::HeaderValue::from_static("application/json"));
    response
}

/// Records an exchange off the async threads: into the imported session it belongs to when one
/// is found, else into this run's proxy session; then says where it went.
fn record(shared: Arc<Shared>, exchange: Exchange) {
    let work = move || {
        let path = exchange.path.clone();
        let call = captured(exchange);
        let (status, prompt_tokens, cached_tokens) = (call.status, call.prompt_tokens, call.cached_tokens);
        let landed = (|| -> Result<(String, usize)> {
            let session = proxy_session(&shared)?;
            let (row, n) = shared.store.insert_captured(&session, &call)?;
            // The imported sessions it may continue: those holding its last prompt, however old
            // (an agent resumes a session of last month); its fingerprint decides which it is.
            let prompts = join::fingerprint(&call.body).map(|p| p.last_prompts).unwrap_or_default();
            for prompt in prompts {
                for imported in shared.store.imported_sessions_with_prompt(&prompt)? {
                    for (into, capture) in join::adopt(&shared.store, &imported)? {
                        if capture == row {
                            if let Some((session, n)) = shared.store.call_number(into)? {
                                return Ok((session.to_string(), n));
                            }
                        }
                    }
                }
            }
            Ok((session.to_string(), n))
        })();
        match landed {
            Ok((session, n)) => {
                (shared.on_event)(ProxyEvent::Captured { session, n, path, status, prompt_tokens, cached_tokens })
            }
            Err(e) => {
                (shared.on_event)(ProxyEvent::Error { message: format!("a call to {path} was not recorded: {e}") })
            }
        }
    };
    // Outside the runtime (an answer dropped while it shuts down) it is written at once.
    match tokio::runtime::Handle::try_current() {
        Ok(runtime) => drop(runtime.spawn_blocking(work)),
        Err(_) => work(),
    }
}

/// This run's session for calls that join no imported session (made at the first call).
fn proxy_session(shared: &Shared) -> Result<SessionId> {
    let mut session = shared.session.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some(id) = session.as_ref() {
        return Ok(id.clone());
    }
    let id = shared.store.create_proxy_session(&shared.upstream, &shared.workspace)?;
    *session = Some(id.clone());
    Ok(id)
}
