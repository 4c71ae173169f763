//! `alisio serve --archive NAME`: the window's UI in a browser, read-only, over a team's archive —
//! the application API's registry behind a second transport. `POST /api/COMMAND` takes the
//! command's JSON request and answers its JSON, as the window's IPC does; every request needs a
//! token (`Authorization: Bearer`, or the cookie `POST /api/login` sets); a command that writes is
//! refused (403). Every view of a session is answered by the same functions the window calls, on a
//! copy of the archive held as one home per machine (`alisio_archive::mirror`, pulled again every
//! few seconds); the library lists every machine's sessions; search and usage are the archive's
//! own (PostgreSQL's full text; sums across the team). Pages carry the window's CSP.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

mod http;

use alisio_archive::mirror::Mirror;
use alisio_archive::Archive;
use serde_json::Value;

use crate::app::{Access, AppOptions, Approvals};
use crate::error::{ApiError, ApiResult};
use crate::{App, Emit};

/// The UI's files: a path under `ui/dist` → its bytes and content type.
pub type Assets = Arc<dyn Fn(&str) -> Option<(Cow<'static, [u8]>, &'static str)> + Send + Sync>;

/// Where the server listens unless told otherwise.
pub const DEFAULT_LISTEN: &str = "127.0.0.1:8790";

pub(super) struct Served {
    pub(super) archive: Archive,
    pub(super) mirror: tokio::sync::RwLock<Mirror>,
    /// One application per machine's home.
    pub(super) apps: tokio::sync::RwLock<BTreeMap<String, Arc<App>>>,
    pub(super) assets: Assets,
    /// Requests answered at once.
    pub(super) slots: tokio::sync::Semaphore,
}

/// Serves archive `name` on `listen` until interrupted; `on_ready` hears the address bound.
pub async fn serve(
    app: &App,
    name: Option<&str>,
    listen: &str,
    assets: Assets,
    on_ready: impl FnOnce(SocketAddr),
) -> ApiResult<()> {
    let name = crate::archive::archive_name(app, name)?;
    let archive = Archive::open(&app.config().archives, &name).await?;
    let mut mirror = Mirror::new(&app.home().join("archives").join(&name));
    mirror.pull(&archive).await?;
    let apps = open_apps(&mirror, &BTreeMap::new())?;
    let served = Arc::new(Served {
        archive,
        mirror: tokio::sync::RwLock::new(mirror),
        apps: tokio::sync::RwLock::new(apps),
        assets,
        slots: tokio::sync::Semaphore::new(16),
    });
    let addr: SocketAddr = listen
        .parse()
        .map_err(|_| ApiError::invalid(format!("--listen {listen:?} is not an address like 127.0.0.1:8790")))?;
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| ApiError::failed(format!("cannot listen on {addr}: {e}")))?;
    on_ready(listener.local_addr().map_err(|e| ApiError::failed(e.to_string()))?);
    let refresh = tokio::spawn(refresh(served.clone(), app.operation()));
    let router = axum::Router::new()
        .route("/api/login", axum::routing::post(http::login))
        .route("/api/{command}", axum::routing::post(http::command))
        .fallback(http::asset)
        .layer(axum::extract::DefaultBodyLimit::max(http::MAX_BODY))
        .with_state(served);
    let cancel = app.operation();
    let result = axum::serve(listener, router).with_graceful_shutdown(async move { cancel.cancelled().await }).await;
    refresh.abort();
    result.map_err(|e| ApiError::failed(format!("the server stopped: {e}")))
}

/// An application for each machine's home that `held` has none for yet.
fn open_apps(mirror: &Mirror, held: &BTreeMap<String, Arc<App>>) -> ApiResult<BTreeMap<String, Arc<App>>> {
    let mut apps = BTreeMap::new();
    for (machine, home) in mirror.homes.iter().filter(|(m, _)| !held.contains_key(*m)) {
        let options = AppOptions {
            home: home.clone(),
            overlay: None,
            profile: None,
            access: Access::Read,
            approvals: Approvals::Fixed(false),
            emit: Arc::new(|_| {}) as Emit,
        };
        apps.insert(machine.clone(), Arc::new(App::open(options)?));
    }
    Ok(apps)
}

/// Pulls what was pushed since, every few seconds; a new machine gets its application.
async fn refresh(served: Arc<Served>, cancel: tokio_util::sync::CancellationToken) {
    loop {
        tokio::select! {
            _ = tokio::time::sleep(Duration::from_secs(3)) => {}
            _ = cancel.cancelled() => return,
        }
        let mut mirror = served.mirror.write().await;
        if let Err(e) = mirror.pull(&served.archive).await {
            tracing::warn!("pulling the archive failed: {e}");
            continue;
        }
        // Only a machine seen for the first time gets an application of its own.
        let mut held = served.apps.write().await;
        match open_apps(&mirror, &held) {
            Ok(apps) => held.extend(apps),
            Err(e) => tracing::warn!("a machine's copy cannot be opened: {}", e.message),
        }
    }
}

/// A served command: the team's library, search and usage from every machine; a session's views
/// from the home of the machine that pushed it.
pub(super) async fn route(served: &Served, name: &str, payload: Value) -> ApiResult<Value> {
    let apps = served.apps.read().await;
    match name {
        "sessions_list" => library(served, &payload).await,
        "usage_sessions" => {
            let mut all = Vec::new();
            for app in apps.values() {
                match crate::dispatch(app, name, payload.clone()).await {
                    Some(Ok(Value::Array(list))) => all.extend(list),
                    Some(Err(e)) => return Err(e),
                    _ => {}
                }
            }
            all.sort_by(|a, b| b["lastActivity"].as_str().cmp(&a["lastActivity"].as_str()));
            Ok(Value::Array(all))
        }
        "search_messages" => {
            let request = crate::archive::ArchiveSearchRequest {
                archive: None,
                query: payload["query"].as_str().unwrap_or_default().to_string(),
                fts: payload["fts"].as_bool().unwrap_or(false),
                source: payload["source"].as_str().map(str::to_string),
                project: payload["project"].as_str().map(str::to_string),
                role: payload["role"].as_str().map(str::to_string),
                machine: None,
                user: None,
                limit: payload["limit"].as_u64(),
            };
            let found = alisio_archive::query::search(&served.archive, &crate::archive::search_query(request)).await?;
            Ok(serde_json::to_value(found).map_err(|e| ApiError::failed(e.to_string()))?)
        }
        "usage_report" => {
            let by = payload["by"].as_str().unwrap_or("day").parse()?;
            let query = alisio_engine::cost::usage::UsageQuery {
                by,
                since: payload["since"].as_str().map(str::to_string),
                until: payload["until"].as_str().map(str::to_string),
                source: payload["source"].as_str().map(str::to_string),
                model: payload["model"].as_str().map(str::to_string),
                fold_subagents: false,
            };
            let report = alisio_archive::query::usage(&served.archive, &query).await?;
            Ok(serde_json::to_value(report).map_err(|e| ApiError::failed(e.to_string()))?)
        }
        _ => {
            // A session names the machine; a comparison goes to the machine of its first session.
            let session = payload.get("session").or_else(|| payload.get("a")).and_then(Value::as_str);
            let app = match session {
                Some(session) => {
                    let mirror = served.mirror.read().await;
                    // The first id at or after the prefix is the one it starts, if any (ids ordered).
                    let found = mirror.sessions.range(session.to_string()..).next();
                    let machine = found.filter(|(id, _)| id.starts_with(session)).map(|(_, m)| m.clone());
                    match machine.and_then(|m| apps.get(&m).cloned()) {
                        Some(app) => app,
                        None => return Err(ApiError::from(alisio_engine::Error::SessionNotFound(session.to_string()))),
                    }
                }
                None => match apps.values().next() {
                    Some(app) => app.clone(),
                    None => return Err(ApiError::invalid("nothing has been pushed to this archive yet")),
                },
            };
            crate::dispatch(&app, name, payload).await.unwrap_or_else(|| Err(ApiError::invalid("no such command")))
        }
    }
}

/// The team's library: every pushed session's line as its home showed it, with the machine and
/// the user, newest first — one query, whatever the number of machines.
async fn library(served: &Served, filter: &Value) -> ApiResult<Value> {
    let rows = served
        .archive
        .query(
            "SELECT summary || jsonb_build_object('machine', machine, 'user', user_name) FROM sessions
             WHERE summary IS NOT NULL AND ($1::text IS NULL OR project = $1) AND ($2::text IS NULL OR agent = $2)
             ORDER BY last_active DESC, machine, id",
            &[&filter["project"].as_str(), &filter["source"].as_str()],
        )
        .await?;
    Ok(Value::Array(rows.into_iter().map(|r| r.get::<_, Value>(0)).collect()))
}
