//! Where Alisio keeps its state (docs/configuration-guide.md): `$ALISIO_HOME`, or the platform data directory.

use std::path::{Path, PathBuf};

pub const DB_FILE: &str = "sessions.db";
pub const CONFIG_FILE: &str = "config.json";

/// `$ALISIO_HOME` when set and non-empty, else `<data dir>/alisio` (`~/.local/share/alisio` on Linux).
pub fn alisio_home() -> PathBuf {
    match std::env::var_os("ALISIO_HOME") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => dirs::data_dir().unwrap_or_else(|| PathBuf::from(".")).join("alisio"),
    }
}

/// Writes `bytes` to `path` whole — a temporary file beside it, then renamed — making its folder:
/// a reader never sees half a file, and a failed write leaves an older file as it was.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> crate::Result<()> {
    let failed = |e| crate::Error::io(format!("cannot write {}", path.display()), e);
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(failed)?;
    }
    let tmp = path.with_extension("alisio-tmp");
    std::fs::write(&tmp, bytes).and_then(|()| std::fs::rename(&tmp, path)).map_err(failed)
}
