//! The HTTP side of `alisio serve`: tokens on every API request (bearer or the page's cookie), the
//! read-only commands answered, the others refused, the UI's files with the window's CSP.

use std::sync::Arc;

use axum::body::{Body, Bytes};
use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, HeaderValue, Response, StatusCode};
use serde_json::{json, Value};

use super::{route, Served};

/// The commands served: those that only read. Anything else the registry knows is refused (403).
pub(super) const SERVED: &[&str] = &[
    "sessions_list",
    "app_about",
    "sessions_uncertain",
    "views_stored",
    "views_since",
    "views_older",
    "views_newer",
    "views_around",
    "views_model",
    "views_model_page",
    "views_trimmed_diff",
    "views_context_meter",
    "forks_diff",
    "usage_sessions",
    "compaction_lint",
    "calls_list",
    "calls_show",
    "calls_diff",
    "calls_cache_report",
    "calls_compositions",
    "calls_breaks",
    "calls_rereads",
    "calls_compaction_costs",
    "calls_past_request",
    "pins_list",
    "search_messages",
    "usage_report",
    "prices_show",
    "import_sources",
    "proxy_status",
    "config_get",
];

/// The window's policy, with the page's own origin for its requests.
pub(super) const CSP: &str =
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; font-src 'self'; \
                   connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'none'";

/// The most bytes a request body may have.
pub(super) const MAX_BODY: usize = 1 << 20;

/// The token a request carries: its bearer token, else the page's cookie.
fn token_of(headers: &HeaderMap) -> Option<String> {
    let bearer = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(|t| t.trim().to_string());
    bearer.or_else(|| {
        let cookies = headers.get(header::COOKIE)?.to_str().ok()?;
        cookies.split(';').find_map(|c| c.trim().strip_prefix("alisio_token=").map(str::to_string))
    })
}

fn answer(status: StatusCode, body: Value) -> Response<Body> {
    let mut response = Response::new(Body::from(body.to_string()));
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    secure(headers);
    response
}

fn refusal(status: StatusCode, code: &str, message: &str) -> Response<Body> {
    answer(status, json!({"code": code, "message": message}))
}

fn secure(headers: &mut HeaderMap) {
    headers.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(CSP));
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static("nosniff"));
    headers.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static("no-referrer"));
}

async fn authorized(served: &Served, headers: &HeaderMap) -> bool {
    match token_of(headers) {
        Some(token) => alisio_archive::tokens::valid(&served.archive, &token).await.unwrap_or(false),
        None => false,
    }
}

pub(super) async fn login(State(served): State<Arc<Served>>, body: Bytes) -> Response<Body> {
    let token = serde_json::from_slice::<Value>(&body).ok().and_then(|v| v["token"].as_str().map(str::to_string));
    let Some(token) = token.filter(|t| !t.is_empty() && !t.contains([';', '\r', '\n'])) else {
        return refusal(StatusCode::BAD_REQUEST, "invalid", "send {\"token\": \"…\"}");
    };
    if !alisio_archive::tokens::valid(&served.archive, &token).await.unwrap_or(false) {
        return refusal(StatusCode::UNAUTHORIZED, "unauthorized", "that token is not valid, or it was revoked");
    }
    let mut response = answer(StatusCode::NO_CONTENT, Value::Null);
    *response.body_mut() = Body::empty();
    let cookie = format!("alisio_token={token}; HttpOnly; SameSite=Strict; Path=/");
    if let Ok(value) = HeaderValue::from_str(&cookie) {
        response.headers_mut().insert(header::SET_COOKIE, value);
    }
    response
}

pub(super) async fn command(
    State(served): State<Arc<Served>>,
    Path(name): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Response<Body> {
    let Ok(_slot) = served.slots.acquire().await else {
        return refusal(StatusCode::SERVICE_UNAVAILABLE, "failed", "the server is stopping");
    };
    if !authorized(&served, &headers).await {
        return refusal(
            StatusCode::UNAUTHORIZED,
            "unauthorized",
            "this archive needs a token (alisio serve token create)",
        );
    }
    let payload: Value = if body.is_empty() {
        json!({})
    } else {
        match serde_json::from_slice(&body) {
            Ok(v) => v,
            Err(e) => return refusal(StatusCode::BAD_REQUEST, "invalid", &format!("the request is not JSON: {e}")),
        }
    };
    if name == "serve_info" {
        return answer(StatusCode::OK, json!({"archive": served.archive.name, "readOnly": true}));
    }
    if !SERVED.contains(&name.as_str()) {
        return if crate::COMMANDS.contains(&name.as_str()) {
            refusal(
                StatusCode::FORBIDDEN,
                "forbidden",
                &format!("{name} changes things; a served archive is read-only"),
            )
        } else {
            refusal(StatusCode::NOT_FOUND, "notFound", &format!("no command is named {name}"))
        };
    }
    match route(&served, &name, payload).await {
        Ok(value) => answer(StatusCode::OK, value),
        Err(e) => {
            let status = match e.exit_code() {
                2 => StatusCode::BAD_REQUEST,
                _ => StatusCode::INTERNAL_SERVER_ERROR,
            };
            answer(status, serde_json::to_value(&e).unwrap_or(Value::Null))
        }
    }
}

/// A file of the UI (`/` is its page), with the window's CSP.
pub(super) async fn asset(State(served): State<Arc<Served>>, uri: axum::http::Uri) -> Response<Body> {
    let path = uri.path().trim_start_matches('/');
    let path = if path.is_empty() { "index.html" } else { path };
    match (served.assets)(path) {
        Some((bytes, kind)) => {
            let mut response = Response::new(Body::from(bytes.into_owned()));
            response.headers_mut().insert(header::CONTENT_TYPE, HeaderValue::from_static(kind));
            secure(response.headers_mut());
            response
        }
        None => refusal(StatusCode::NOT_FOUND, "notFound", "no such file"),
    }
}
