//! The desktop window: a thin Tauri layer over `alisio-ipc`. Commands become `Backend` calls on the
//! async runtime; backend events are forwarded to the window as `alisio://event`.

mod commands;

use std::sync::Arc;

use alisio_engine::home::alisio_home;
use alisio_ipc::{Backend, UiEvent};
use tauri::{Emitter, Manager};

use crate::cli::GlobalArgs;

pub const EVENT: &str = "alisio://event";

/// Opens the window. Returns the process exit code.
pub fn run(global: GlobalArgs) -> i32 {
    composite_in_software();
    let result = tauri::Builder::default()
        .setup(move |app| {
            let handle = app.handle().clone();
            let emit = Arc::new(move |event: UiEvent| {
                if let Err(err) = handle.emit(EVENT, &event) {
                    tracing::warn!("cannot deliver an event to the window: {err}");
                }
            });
            let backend = Backend::open(&alisio_home(), global.config.clone(), emit)?;
            backend.watch_sources();
            app.manage(backend);
            Ok(())
        })
        .invoke_handler(tauri::generate_handler![
            commands::ensure_demo,
            commands::list_sessions,
            commands::stored_view,
            commands::older_messages,
            commands::past_request,
            commands::context_meter,
            commands::trimmed_diff,
            commands::compact,
            commands::apply_proposal,
            commands::discard_proposal,
            commands::undo_compaction,
            commands::acknowledge_uncertain,
            commands::run_turn,
            commands::cancel_turn,
            commands::answer_permission,
            commands::get_config,
            commands::save_config,
            commands::test_connection,
            commands::call_list,
            commands::call_detail,
            commands::request_diff,
            commands::cache_report,
            commands::export_chart,
            commands::export_session,
            commands::stored_view_since,
            commands::import_sources,
            commands::import_paths,
            commands::newer_messages,
            commands::messages_around,
            commands::model_view_page,
            commands::find_servers,
        ])
        .run(tauri::generate_context!("tauri.conf.json"));
    match result {
        Ok(()) => 0,
        Err(err) => {
            eprintln!("alisio: the window could not start: {err}");
            1
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
