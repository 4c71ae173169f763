//! Confines tool paths to the session's workspace. Symlinks are resolved component by component,
//! so neither `..`, an absolute path nor a link pointing outside can escape.

use std::path::{Component, Path, PathBuf};

/// Resolves `requested` against `workspace` (which must already be canonical) and returns the
/// resolved path, or a message for the model when it lies outside.
pub fn resolve_in_workspace(workspace: &Path, requested: &str) -> Result<PathBuf, String> {
    if requested.contains('\0') {
        return Err("path contains a NUL byte".into());
    }
    let requested_path = Path::new(requested);
    let mut current = if requested_path.is_absolute() { PathBuf::from("/") } else { workspace.to_path_buf() };
    for component in requested_path.components() {
        match component {
            Component::RootDir | Component::Prefix(_) | Component::CurDir => {}
            Component::ParentDir => {
                current.pop();
            }
            Component::Normal(name) => {
                let next = current.join(name);
                current = match std::fs::symlink_metadata(&next) {
                    Ok(_) => std::fs::canonicalize(&next).map_err(|e| format!("cannot resolve {requested}: {e}"))?,
                    Err(_) => next,
                };
            }
        }
    }
    if current.starts_with(workspace) {
        Ok(current)
    } else {
        Err(format!(
            "refused: {requested} resolves to {} which is outside the workspace {}; tools may only touch files inside it",
            current.display(),
            workspace.display()
        ))
    }
}

/// A path relative to the workspace, for messages.
pub fn display_relative(workspace: &Path, path: &Path) -> String {
    match path.strip_prefix(workspace) {
        Ok(rel) if rel.as_os_str().is_empty() => ".".into(),
        Ok(rel) => rel.display().to_string(),
        Err(_) => path.display().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_are_refused_and_inside_paths_resolve() {
        let root = tempfile::tempdir().unwrap();
        let ws = root.path().join("ws");
        std::fs::create_dir_all(ws.join("src")).unwrap();
        std::fs::write(root.path().join("secret.txt"), "s").unwrap();
        std::os::unix::fs::symlink(root.path().join("secret.txt"), ws.join("link")).unwrap();
        std::os::unix::fs::symlink(root.path(), ws.join("up")).unwrap();
        let ws = std::fs::canonicalize(&ws).unwrap();

        for ok in ["src", "./src/new.rs", "src/../a.txt", "new/dir/file", &ws.join("x").display().to_string()] {
            let resolved = resolve_in_workspace(&ws, ok).unwrap_or_else(|e| panic!("{ok}: {e}"));
            assert!(resolved.starts_with(&ws), "{ok}");
        }
        for bad in ["../secret.txt", "/etc/passwd", "link", "up/secret.txt", "src/../../secret.txt", "up"] {
            let err = resolve_in_workspace(&ws, bad).unwrap_err();
            assert!(err.contains("outside the workspace"), "{bad}: {err}");
        }
    }
}
