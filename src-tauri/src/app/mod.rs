//! The desktop window: Tauri around the application API. The webview invokes API commands by name
//! (`ui/src/api.ts`, generated from the same registry); one invoke handler hands each to
//! [`alisio_api::dispatch`] with its JSON request. Application events reach the window as
//! `alisio://event`.

use std::sync::Arc;
use std::time::Duration;

use alisio_api::{Access, ApiError, App, AppOptions, Approvals, UiEvent};
use alisio_engine::home::alisio_home;
use tauri::ipc::{Invoke, InvokeBody, InvokeError, InvokeResponseBody};
use tauri::{Emitter, Manager};

use crate::WindowArgs;

pub const EVENT: &str = "alisio://event";

/// Opens the window with the same options as any command (`--config`, `--profile`). Returns the
/// process exit code.
pub fn run(args: WindowArgs) -> i32 {
    composite_in_software();
    let result = tauri::Builder::default()
        .setup(move |app| {
            let handle = app.handle().clone();
            let emit = Arc::new(move |event: UiEvent| {
                if let Err(err) = handle.emit(EVENT, &event) {
                    tracing::warn!("cannot deliver an event to the window: {err}");
                }
            });
            let opened = App::open(AppOptions {
                home: alisio_home(),
                overlay: args.config.clone(),
                profile: args.profile.clone(),
                access: Access::WriteOrRead,
                approvals: Approvals::Ask,
                emit,
            })?;
            let opened = Arc::new(opened);
            // Whether the demo is due is decided on the library as it is before anything is followed.
            if let Err(err) = alisio_api::sessions::note_start(&opened) {
                tracing::warn!("cannot read the library: {err}");
            }
            // The agents' default locations are followed while the window is open.
            let follower = opened.clone();
            tauri::async_runtime::spawn(async move {
                // The list paints first: the first round reads every followed file.
                follower.listed(Duration::from_secs(15)).await;
                if let Err(err) = alisio_api::import::follow(&follower, &[], Duration::from_secs(1), |_| {}).await {
                    tracing::warn!("cannot follow the agents' sessions: {err}");
                }
            });
            // Sessions another process imports, runs or renames reach the list too.
            let watcher = opened.clone();
            tauri::async_runtime::spawn(async move {
                if let Err(err) = alisio_api::sessions::watch_library(&watcher, Duration::from_secs(2)).await {
                    tracing::warn!("cannot watch the library: {err}");
                }
            });
            app.manage(opened);
            for window in app.webview_windows().values() {
                lean_caches(window);
            }
            Ok(())
        })
        .invoke_handler(invoke)
        .build(tauri::generate_context!("tauri.conf.json"));
    match result {
        Ok(window) => {
            window.run(|handle, event| {
                if let tauri::RunEvent::Exit = event {
                    if let Some(app) = handle.try_state::<Arc<App>>() {
                        app.interrupt();
                        tauri::async_runtime::block_on(app.close());
                    }
                }
            });
            0
        }
        Err(err) => {
            eprintln!("alisio: the window could not start: {err}");
            1
        }
    }
}

/// Every command the webview invokes is an application-API function, run with its JSON request.
fn invoke(invoke: Invoke) -> bool {
    let Invoke { message, resolver, .. } = invoke;
    let name = message.command().to_string();
    if !alisio_api::COMMANDS.contains(&name.as_str()) {
        resolver.reject(ApiError::invalid(format!("no command {name}")));
        return true;
    }
    let payload = match message.payload() {
        InvokeBody::Json(value) => value.clone(),
        InvokeBody::Raw(_) => {
            resolver.reject(ApiError::invalid(format!("{name}: the request must be JSON")));
            return true;
        }
    };
    let app = message.webview().state::<Arc<App>>().inner().clone();
    resolver.respond_async_serialized(async move {
        let answer = alisio_api::dispatch(&app, &name, payload).await;
        match answer.unwrap_or_else(|| Err(ApiError::invalid(format!("no command {name}")))) {
            Ok(value) => Ok(InvokeResponseBody::Json(value.to_string())),
            Err(err) => Err(InvokeError::from(serde_json::to_value(err).unwrap_or_default())),
        }
    });
    true
}

/// The window shows one local page and never navigates, yet WebKit sizes its memory and page
/// caches for a browser by default (decoded resources, back/forward pages kept whole). The
/// document-viewer model, meant for an application showing one local document, turns them off.
fn lean_caches(window: &tauri::WebviewWindow) {
    #[cfg(target_os = "linux")]
    {
        let applied = window.with_webview(|webview| {
            use webkit2gtk::{WebContextExt, WebViewExt};
            if let Some(context) = webview.inner().context() {
                context.set_cache_model(webkit2gtk::CacheModel::DocumentViewer);
            }
        });
        if let Err(err) = applied {
            tracing::warn!("cannot size the window's caches: {err}");
        }
    }
}

/// The window is lists of text: WebKitGTK's accelerated compositing gives it nothing but a GL
/// backing store per layer. Turned off (unless the variable is already set; `0` keeps it on), the
/// web process of a 100,000-message session scrolled end to end peaks at ~280 MB instead of ~440,
/// and scrolls faster (figures: docs/ARCHITECTURE.md "Memory"). Called before any thread exists.
fn composite_in_software() {
    const VAR: &str = "WEBKIT_DISABLE_COMPOSITING_MODE";
    if cfg!(target_os = "linux") && std::env::var_os(VAR).is_none() {
        std::env::set_var(VAR, "1");
    }
}
