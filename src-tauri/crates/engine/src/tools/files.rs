//! File tools: `read_file`, `write_file`, `edit_file`, `list_dir`, `grep`. Blocking I/O, run off the
//! async runtime by the caller, with a timeout.
//!
//! Every access goes through a `cap_std::fs::Dir` handle on the workspace root: paths are opened
//! relative to it and cannot leave it, even when a directory is swapped for a symlink while the
//! tool runs (cap-std uses `openat2` with `RESOLVE_BENEATH` where the kernel has it, and resolves
//! component by component without following links out otherwise). Only regular files are read or
//! written: FIFOs, sockets and devices are refused (they are opened non-blocking, so a FIFO can
//! never hang the agent). A hard link inside the workspace is a file inside it: the tools read and
//! write it like any other file, whatever other names it has.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use cap_std::fs::{Dir, OpenOptions, OpenOptionsExt};
use nix::fcntl::OFlag;

use super::output::{annotate, Capture, MAX_OUTPUT_BYTES};
use super::ToolOutput;

const MAX_GREP_MATCHES: usize = 1000;
const MAX_GREP_LINE_CHARS: usize = 500;

/// The workspace root as a directory handle.
pub struct Workspace {
    dir: Dir,
}

/// A path inside the workspace, relative to its root (`.` for the root), and how to show it.
pub struct Target {
    pub relative: PathBuf,
    pub shown: String,
}

fn not_regular(shown: &str) -> ToolOutput {
    ToolOutput::error(format!(
        "{shown} is not a regular file (a FIFO, socket or device); file tools only read and write regular files"
    ))
}

/// Why an open failed, in the model's terms.
fn open_error(what: &str, shown: &str, err: &std::io::Error) -> ToolOutput {
    if err.kind() == std::io::ErrorKind::PermissionDenied && err.to_string().contains("outside") {
        ToolOutput::error(format!("refused: {shown} leads outside the workspace; tools may only touch files inside it"))
    } else if err.raw_os_error() == Some(nix::errno::Errno::ENXIO as i32) {
        not_regular(shown)
    } else {
        ToolOutput::error(format!("cannot {what} {shown}: {err}"))
    }
}

impl Workspace {
    pub fn open(root: &Path) -> std::io::Result<Self> {
        Ok(Self { dir: Dir::open_ambient_dir(root, cap_std::ambient_authority())? })
    }

    /// Opens a regular file for reading; anything else is refused without blocking.
    fn open_regular(&self, target: &Target) -> Result<cap_std::fs::File, ToolOutput> {
        let mut options = OpenOptions::new();
        options.read(true).custom_flags((OFlag::O_NONBLOCK | OFlag::O_NOCTTY).bits());
        let file = self.dir.open_with(&target.relative, &options).map_err(|e| open_error("read", &target.shown, &e))?;
        let meta = file.metadata().map_err(|e| open_error("read", &target.shown, &e))?;
        if meta.is_dir() {
            return Err(ToolOutput::error(format!("{} is a directory; use list_dir", target.shown)));
        }
        if !meta.is_file() {
            return Err(not_regular(&target.shown));
        }
        Ok(file)
    }

    fn read_bytes(&self, target: &Target, cap: usize) -> Result<Capture, ToolOutput> {
        let file = self.open_regular(target)?;
        let mut capture = Capture::default();
        let mut buf = vec![0u8; 256 * 1024];
        let mut reader = std::io::BufReader::new(file);
        loop {
            match reader.read(&mut buf) {
                Ok(0) => return Ok(capture),
                Ok(n) => capture.push(&buf[..n], cap),
                Err(err) => return Err(ToolOutput::error(format!("cannot read {}: {err}", target.shown))),
            }
        }
    }

    /// Replaces a regular file's contents (creating it and its directories when missing).
    fn write_regular(&self, target: &Target, content: &[u8]) -> Result<(), ToolOutput> {
        if let Some(parent) = target.relative.parent().filter(|p| !p.as_os_str().is_empty()) {
            self.dir.create_dir_all(parent).map_err(|e| open_error("create the directory for", &target.shown, &e))?;
        }
        let mut options = OpenOptions::new();
        options.write(true).create(true).custom_flags((OFlag::O_NONBLOCK | OFlag::O_NOCTTY).bits());
        let mut file =
            self.dir.open_with(&target.relative, &options).map_err(|e| open_error("write", &target.shown, &e))?;
        let meta = file.metadata().map_err(|e| open_error("write", &target.shown, &e))?;
        if !meta.is_file() {
            return Err(not_regular(&target.shown));
        }
        file.set_len(0)
            .and_then(|()| file.write_all(content))
            .map_err(|e| ToolOutput::error(format!("cannot write {}: {e}", target.shown)))
    }

    pub fn read_file(&self, target: &Target) -> ToolOutput {
        let capture = match self.read_bytes(target, MAX_OUTPUT_BYTES) {
            Ok(capture) => capture,
            Err(refusal) => return refusal,
        };
        let (text, lossy, dropped) = capture.into_text();
        let output_bytes = text.len() as u64 + dropped;
        ToolOutput { ok: true, content: annotate(text, lossy, dropped), lossy, dropped_bytes: dropped, output_bytes }
    }

    pub fn write_file(&self, target: &Target, content: &str) -> ToolOutput {
        match self.write_regular(target, content.as_bytes()) {
            Ok(()) => ToolOutput::ok(format!("wrote {} bytes to {}", content.len(), target.shown)),
            Err(refusal) => refusal,
        }
    }

    pub fn edit_file(&self, target: &Target, old: &str, new: &str) -> ToolOutput {
        if old.is_empty() {
            return ToolOutput::error("`old` must not be empty; use write_file to create a file".into());
        }
        let capture = match self.read_bytes(target, usize::MAX) {
            Ok(capture) => capture,
            Err(refusal) => return refusal,
        };
        let Ok(text) = String::from_utf8(capture.bytes) else {
            return ToolOutput::error(format!("cannot read {} as UTF-8 text", target.shown));
        };
        let shown = &target.shown;
        match text.matches(old).count() {
            0 => ToolOutput::error(format!("`old` text was not found in {shown}; read the file and copy it exactly")),
            1 => match self.write_regular(target, text.replacen(old, new, 1).as_bytes()) {
                Ok(()) => ToolOutput::ok(format!(
                    "edited {shown}: replaced {} chars with {}",
                    old.chars().count(),
                    new.chars().count()
                )),
                Err(refusal) => refusal,
            },
            n => ToolOutput::error(format!(
                "`old` text occurs {n} times in {shown}; include more surrounding text so it is unique"
            )),
        }
    }

    /// One entry a line, directories ending with `/`. A name that could be misread (a newline or
    /// other control character, surrounding spaces, a quote or backslash) is written as a JSON
    /// string, so every line is exactly one entry.
    pub fn list_dir(&self, target: &Target) -> ToolOutput {
        let entries = match self.dir.read_dir(&target.relative) {
            Ok(entries) => entries,
            Err(err) => return open_error("list", &target.shown, &err),
        };
        let mut names: Vec<String> = entries
            .filter_map(|entry| entry.ok())
            .map(|entry| {
                let name = entry.file_name().to_string_lossy().into_owned();
                let suffix = if entry.file_type().map(|t| t.is_dir()).unwrap_or(false) { "/" } else { "" };
                format!("{}{suffix}", quote_name(&name))
            })
            .collect();
        names.sort();
        if names.is_empty() {
            return ToolOutput::ok(format!("{} is empty", target.shown));
        }
        ToolOutput::ok(names.join("\n"))
    }

    pub fn grep(&self, root: &Target, pattern: &str) -> ToolOutput {
        let regex = match regex::Regex::new(pattern) {
            Ok(regex) => regex,
            Err(err) => return ToolOutput::error(format!("invalid pattern: {err}")),
        };
        let mut lines = Vec::new();
        let mut more = false;
        let mut stack = vec![root.relative.clone()];
        while let Some(path) = stack.pop() {
            if more {
                break;
            }
            // Links are not followed: only what lies in the workspace itself is searched.
            let Ok(meta) = self.dir.symlink_metadata(&path) else { continue };
            if meta.is_dir() {
                let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
                if path != root.relative && matches!(name.as_str(), ".git" | "node_modules" | "target") {
                    continue;
                }
                if let Ok(entries) = self.dir.read_dir(&path) {
                    let mut children: Vec<PathBuf> =
                        entries.filter_map(|e| e.ok()).map(|e| path.join(e.file_name())).collect();
                    children.sort_by(|a, b| b.cmp(a));
                    stack.extend(children);
                }
                continue;
            }
            if !meta.is_file() {
                continue;
            }
            let shown = shown_path(&path);
            let Ok(capture) = self.read_bytes(&Target { relative: path, shown: shown.clone() }, usize::MAX) else {
                continue;
            };
            if capture.bytes.iter().take(8192).any(|b| *b == 0) {
                continue;
            }
            let text = String::from_utf8_lossy(&capture.bytes);
            for (number, line) in text.lines().enumerate() {
                if regex.is_match(line) {
                    if lines.len() == MAX_GREP_MATCHES {
                        more = true;
                        break;
                    }
                    let line: String = line.chars().take(MAX_GREP_LINE_CHARS).collect();
                    lines.push(format!("{shown}:{}:{line}", number + 1));
                }
            }
        }
        if lines.is_empty() {
            return ToolOutput::ok("no matches".into());
        }
        if more {
            lines.push(format!("[stopped after {MAX_GREP_MATCHES} matches; narrow the pattern or the path]"));
        }
        ToolOutput::ok(lines.join("\n"))
    }
}

/// A workspace-relative path as the model sees it (`./x` → `x`).
fn shown_path(relative: &Path) -> String {
    let shown = relative.display().to_string();
    shown.strip_prefix("./").map(str::to_string).unwrap_or(shown)
}

fn quote_name(name: &str) -> String {
    let plain =
        !name.is_empty() && name.trim() == name && !name.chars().any(|c| c.is_control() || c == '"' || c == '\\');
    if plain {
        name.to_string()
    } else {
        serde_json::Value::String(name.to_string()).to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn target(relative: &str) -> Target {
        Target { relative: PathBuf::from(relative), shown: relative.to_string() }
    }

    #[test]
    fn fifos_sockets_and_devices_are_refused_without_blocking() {
        let dir = tempfile::tempdir().unwrap();
        nix::unistd::mkfifo(&dir.path().join("pipe"), nix::sys::stat::Mode::S_IRWXU).unwrap();
        let _socket = std::os::unix::net::UnixListener::bind(dir.path().join("sock")).unwrap();
        std::os::unix::fs::symlink("/dev/zero", dir.path().join("zero")).unwrap();
        let ws = Workspace::open(dir.path()).unwrap();
        for name in ["pipe", "sock"] {
            for output in
                [ws.read_file(&target(name)), ws.write_file(&target(name), "x"), ws.edit_file(&target(name), "a", "b")]
            {
                assert!(!output.ok, "{name}: {output:?}");
                assert!(
                    output.content.contains("not a regular file") || output.content.contains("cannot"),
                    "{name}: {}",
                    output.content
                );
            }
        }
        let zero = ws.read_file(&target("zero"));
        assert!(!zero.ok && zero.content.contains("outside the workspace"), "{}", zero.content);
    }

    #[test]
    fn list_dir_lines_are_one_entry_each() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("plain.txt"), "").unwrap();
        std::fs::write(dir.path().join("two\nlines"), "").unwrap();
        std::fs::create_dir(dir.path().join(" sub ")).unwrap();
        let ws = Workspace::open(dir.path()).unwrap();
        let listing = ws.list_dir(&target(".")).content;
        assert_eq!(listing.lines().collect::<Vec<_>>(), ["\" sub \"/", "\"two\\nlines\"", "plain.txt"]);
    }

    /// A directory swapped for a symlink to the outside while writes go on: nothing lands outside.
    #[test]
    fn raced_writes_never_leave_the_workspace() {
        let root = tempfile::tempdir().unwrap();
        let ws_path = root.path().join("ws");
        let outside = root.path().join("outside");
        std::fs::create_dir_all(ws_path.join("d")).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let swapper = {
            let (ws_path, outside, stop) = (ws_path.clone(), outside.clone(), stop.clone());
            std::thread::spawn(move || {
                let (d, real, link) = (ws_path.join("d"), ws_path.join("d.real"), ws_path.join("d.link"));
                std::os::unix::fs::symlink(&outside, &link).unwrap();
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    let _ = std::fs::rename(&d, &real);
                    let _ = std::fs::rename(&link, &d);
                    std::thread::yield_now();
                    let _ = std::fs::rename(&d, &link);
                    let _ = std::fs::rename(&real, &d);
                }
            })
        };
        let ws = Workspace::open(&ws_path).unwrap();
        for _ in 0..5000 {
            let _ = ws.write_file(&target("d/pwned.txt"), "x");
        }
        stop.store(true, std::sync::atomic::Ordering::Relaxed);
        swapper.join().unwrap();
        assert!(!outside.join("pwned.txt").exists(), "a raced write escaped the workspace");
    }
}
