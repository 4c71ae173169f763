//! The UI's files (`ui/dist`), built into the binary for `alisio serve`.

use std::sync::Arc;

#[derive(rust_embed::Embed)]
#[folder = "../ui/dist"]
struct Ui;

/// What `alisio serve` serves a path of the UI with: its bytes and its content type.
pub fn ui() -> alisio_api::serve::Assets {
    Arc::new(|path: &str| {
        let file = Ui::get(path)?;
        Some((file.data, content_type(path)))
    })
}

fn content_type(path: &str) -> &'static str {
    match path.rsplit('.').next().unwrap_or_default() {
        "html" => "text/html; charset=utf-8",
        "js" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "ico" => "image/x-icon",
        "json" => "application/json",
        "woff2" => "font/woff2",
        _ => "application/octet-stream",
    }
}
