//! Following the agents' folders without reading them again and again: the file system says what
//! changed (`notify`: inotify here), and only those files are read. Where events cannot be had (a
//! file system without them, the watch limit reached) the folder is polled instead.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use notify::{EventKind, RecursiveMode, Watcher};
use tokio::sync::mpsc::{unbounded_channel, UnboundedReceiver, UnboundedSender};

use super::{detect, discover, ImportFailure, SourceKind};

/// What the file system said.
#[derive(Debug)]
pub enum Change {
    /// These paths were written, created or moved.
    Paths(Vec<PathBuf>),
    /// Events were lost (a queue overflowed): everything must be looked at again.
    Rescan,
}

/// Watches on the followed roots; changes arrive on `changes` until it is dropped.
pub struct Watch {
    _watchers: Vec<Box<dyn Watcher + Send>>,
    pub changes: UnboundedReceiver<Change>,
    /// Roots polled because events were unavailable for them.
    pub polled: Vec<PathBuf>,
}

fn handler(tx: UnboundedSender<Change>) -> impl notify::EventHandler {
    move |event: notify::Result<notify::Event>| {
        let change = match event {
            Ok(event) if event.need_rescan() => Change::Rescan,
            Ok(event) if matches!(event.kind, EventKind::Access(_)) => return,
            Ok(event) => Change::Paths(event.paths),
            Err(e) => {
                tracing::debug!("file watch error: {e}");
                Change::Rescan
            }
        };
        let _ = tx.send(change);
    }
}

/// Watches `roots` (directories recursively; a file through its directory, so an SQLite
/// database's `-wal` writes are seen), polling every `poll_every` only where events fail.
pub fn watch(roots: &[PathBuf], poll_every: Duration) -> Watch {
    let (tx, changes) = unbounded_channel();
    let mut watchers: Vec<Box<dyn Watcher + Send>> = Vec::new();
    let mut polled = Vec::new();
    for root in roots {
        let (target, mode) = if root.is_dir() {
            (root.clone(), RecursiveMode::Recursive)
        } else {
            (root.parent().map(Path::to_path_buf).unwrap_or_else(|| root.clone()), RecursiveMode::NonRecursive)
        };
        let native = notify::recommended_watcher(handler(tx.clone())).and_then(|mut w| {
            w.watch(&target, mode)?;
            Ok(w)
        });
        match native {
            Ok(w) => watchers.push(Box::new(w)),
            Err(e) => {
                tracing::info!("no file events for {} ({e}); it is polled every {poll_every:?}", target.display());
                let config = notify::Config::default().with_poll_interval(poll_every);
                match notify::PollWatcher::new(handler(tx.clone()), config).and_then(|mut w| {
                    w.watch(&target, mode)?;
                    Ok(w)
                }) {
                    Ok(w) => {
                        watchers.push(Box::new(w));
                        polled.push(target);
                    }
                    Err(e) => tracing::warn!("cannot follow {}: {e}", target.display()),
                }
            }
        }
    }
    Watch { _watchers: watchers, changes, polled }
}

/// The sources among changed `paths` that lie under `roots`: a database's `-wal`, `-shm` or
/// `-journal` stands for the database; a new directory is walked; a removed file is ignored.
pub fn changed_sources(
    roots: &[PathBuf],
    paths: impl IntoIterator<Item = PathBuf>,
) -> (Vec<(SourceKind, PathBuf)>, Vec<ImportFailure>) {
    let mut unique = BTreeSet::new();
    for path in paths {
        let text = path.to_string_lossy();
        let path = ["-wal", "-shm", "-journal"]
            .iter()
            .find_map(|suffix| text.strip_suffix(suffix).map(PathBuf::from))
            .unwrap_or(path);
        if roots.iter().any(|root| path.starts_with(root)) {
            unique.insert(path);
        }
    }
    let (mut found, mut errors) = (Vec::new(), Vec::new());
    for path in unique {
        match std::fs::symlink_metadata(&path) {
            Ok(meta) if meta.is_dir() => {
                let walked = discover(std::slice::from_ref(&path));
                found.extend(walked.found);
                errors.extend(walked.errors);
            }
            // A file of OpenCode's JSON storage: its storage folder is the source read again.
            Ok(meta) if meta.is_file() && path.ancestors().skip(1).any(super::opencode_storage::is_storage) => {
                if let Some(root) = path.ancestors().skip(1).find(|a| super::opencode_storage::is_storage(a)) {
                    found.push((SourceKind::OpenCode, root.to_path_buf()));
                }
            }
            Ok(meta) if meta.is_file() => match detect(&path) {
                Ok(Some(kind)) => found.push((kind, path)),
                Ok(None) => {}
                Err(e) => errors.push(ImportFailure { path: path.display().to_string(), error: e.to_string() }),
            },
            _ => {}
        }
    }
    found.dedup();
    (found, errors)
}
