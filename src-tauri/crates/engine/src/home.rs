//! Where Alisio keeps its state (README "Configuration"): `$ALISIO_HOME`, or the platform data directory.

use std::path::PathBuf;

pub const DB_FILE: &str = "sessions.db";
pub const CONFIG_FILE: &str = "config.json";

/// `$ALISIO_HOME` when set and non-empty, else `<data dir>/alisio` (`~/.local/share/alisio` on Linux).
pub fn alisio_home() -> PathBuf {
    match std::env::var_os("ALISIO_HOME") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => dirs::data_dir().unwrap_or_else(|| PathBuf::from(".")).join("alisio"),
    }
}
