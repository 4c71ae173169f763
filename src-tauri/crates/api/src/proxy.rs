//! The recording proxy (`alisio proxy`, the window's Proxy panel): started and stopped here, its
//! calls and errors counted, each event pushed as [`UiEvent::Proxy`].

use std::sync::{Arc, Mutex};

use alisio_engine::lock;
use alisio_engine::proxy::{Proxy, ProxyEvent, ProxyOptions, DEFAULT_LISTEN};
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::error::{ApiError, ApiResult};
use crate::events::UiEvent;
use crate::sessions::Nothing;
use crate::App;

/// The errors the status keeps (the newest).
const ERRORS_KEPT: usize = 10;

#[derive(Debug, Clone, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ProxyStart {
    /// The model server requests go to (`https://api.openai.com`, `http://127.0.0.1:8080`…).
    pub upstream: String,
    /// Where to listen (default `127.0.0.1:8788`; port 0 picks a free one).
    pub listen: Option<String>,
}

/// The proxy now: where to point an agent, what it captured, what went wrong lately.
#[derive(Debug, Clone, Default, PartialEq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ProxyStatus {
    pub running: bool,
    /// The base URL to paste into the agent's configuration.
    pub address: Option<String>,
    pub upstream: Option<String>,
    pub captured: u64,
    /// The newest calls captured (session, number, path, status, tokens), newest last.
    pub recent: Vec<ProxyEvent>,
    pub errors: Vec<String>,
}

/// A running proxy and what it has reported.
pub(crate) struct Running {
    proxy: Proxy,
    status: Arc<Mutex<ProxyStatus>>,
}

/// Starts the proxy (one per application; a second start is refused while one runs).
pub async fn start(app: &App, request: ProxyStart) -> ApiResult<ProxyStatus> {
    let mut slot = app.proxy.lock().await;
    if slot.is_some() {
        return Err(ApiError::invalid("the proxy is already running; stop it first"));
    }
    let store = app.store()?;
    let status = Arc::new(Mutex::new(ProxyStatus {
        running: true,
        upstream: Some(request.upstream.trim().to_string()),
        ..ProxyStatus::default()
    }));
    let (kept, emit) = (status.clone(), app.options.emit.clone());
    let on_event = Arc::new(move |event: ProxyEvent| {
        {
            let mut status = lock(&kept);
            match &event {
                ProxyEvent::Listening { .. } => {}
                ProxyEvent::Captured { .. } => {
                    status.captured += 1;
                    status.recent.push(event.clone());
                    let excess = status.recent.len().saturating_sub(ERRORS_KEPT);
                    status.recent.drain(..excess);
                }
                ProxyEvent::Error { message } => {
                    status.errors.push(message.clone());
                    let excess = status.errors.len().saturating_sub(ERRORS_KEPT);
                    status.errors.drain(..excess);
                }
            }
        }
        emit(UiEvent::Proxy { event });
    });
    let workspace = std::env::current_dir().map(|d| d.display().to_string()).unwrap_or_default();
    let listen = request.listen.filter(|l| !l.trim().is_empty()).unwrap_or_else(|| DEFAULT_LISTEN.to_string());
    let options = ProxyOptions { upstream: request.upstream, listen, workspace };
    let proxy = Proxy::start(store, options, on_event).await?;
    lock(&status).address = Some(format!("http://{}", proxy.address()));
    let now = lock(&status).clone();
    *slot = Some(Running { proxy, status });
    Ok(now)
}

/// Stops the proxy (answers still streaming get two seconds to end).
pub async fn stop(app: &App, _: Nothing) -> ApiResult<ProxyStatus> {
    let running = app.proxy.lock().await.take();
    let Some(running) = running else { return Ok(ProxyStatus::default()) };
    running.proxy.stop().await;
    let mut status = lock(&running.status).clone();
    status.running = false;
    Ok(status)
}

/// Whether the proxy runs, where, and what it has captured.
pub async fn status(app: &App, _: Nothing) -> ApiResult<ProxyStatus> {
    let slot = app.proxy.lock().await;
    Ok(slot.as_ref().map(|r| lock(&r.status).clone()).unwrap_or_default())
}

/// Stops a proxy the application is closing with.
pub(crate) async fn stop_running(running: Running) {
    running.proxy.stop().await;
}
