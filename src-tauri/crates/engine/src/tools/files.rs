//! File tools: `read_file`, `write_file`, `edit_file`, `list_dir`, `grep`. Blocking I/O, run off the
//! async runtime by the caller. Paths are already confined to the workspace.

use std::io::Read;
use std::path::Path;

use super::output::{annotate, Capture, MAX_OUTPUT_BYTES};
use super::paths::display_relative;
use super::ToolOutput;

const MAX_GREP_MATCHES: usize = 1000;
const MAX_GREP_LINE_CHARS: usize = 500;

pub fn read_file(path: &Path, shown: &str) -> ToolOutput {
    let file = match std::fs::File::open(path) {
        Ok(file) => file,
        Err(err) => return ToolOutput::error(format!("cannot read {shown}: {err}")),
    };
    if path.is_dir() {
        return ToolOutput::error(format!("{shown} is a directory; use list_dir"));
    }
    let mut capture = Capture::default();
    let mut buf = vec![0u8; 256 * 1024];
    let mut reader = std::io::BufReader::new(file);
    loop {
        match reader.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => capture.push(&buf[..n], MAX_OUTPUT_BYTES),
            Err(err) => return ToolOutput::error(format!("cannot read {shown}: {err}")),
        }
    }
    let (text, lossy, dropped) = capture.into_text();
    let output_bytes = text.len() as u64 + dropped;
    ToolOutput { ok: true, content: annotate(text, lossy, dropped), lossy, dropped_bytes: dropped, output_bytes }
}

pub fn write_file(path: &Path, shown: &str, content: &str) -> ToolOutput {
    if let Some(parent) = path.parent() {
        if let Err(err) = std::fs::create_dir_all(parent) {
            return ToolOutput::error(format!("cannot create the directory for {shown}: {err}"));
        }
    }
    match std::fs::write(path, content) {
        Ok(()) => ToolOutput::ok(format!("wrote {} bytes to {shown}", content.len())),
        Err(err) => ToolOutput::error(format!("cannot write {shown}: {err}")),
    }
}

pub fn edit_file(path: &Path, shown: &str, old: &str, new: &str) -> ToolOutput {
    if old.is_empty() {
        return ToolOutput::error("`old` must not be empty; use write_file to create a file".into());
    }
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(err) => return ToolOutput::error(format!("cannot read {shown} as UTF-8 text: {err}")),
    };
    match text.matches(old).count() {
        0 => ToolOutput::error(format!("`old` text was not found in {shown}; read the file and copy it exactly")),
        1 => match std::fs::write(path, text.replacen(old, new, 1)) {
            Ok(()) => ToolOutput::ok(format!(
                "edited {shown}: replaced {} chars with {}",
                old.chars().count(),
                new.chars().count()
            )),
            Err(err) => ToolOutput::error(format!("cannot write {shown}: {err}")),
        },
        n => ToolOutput::error(format!(
            "`old` text occurs {n} times in {shown}; include more surrounding text so it is unique"
        )),
    }
}

pub fn list_dir(path: &Path, shown: &str) -> ToolOutput {
    let entries = match std::fs::read_dir(path) {
        Ok(entries) => entries,
        Err(err) => return ToolOutput::error(format!("cannot list {shown}: {err}")),
    };
    let mut names: Vec<String> = entries
        .filter_map(|entry| entry.ok())
        .map(|entry| {
            let name = entry.file_name().to_string_lossy().into_owned();
            if entry.file_type().map(|t| t.is_dir()).unwrap_or(false) {
                format!("{name}/")
            } else {
                name
            }
        })
        .collect();
    names.sort();
    if names.is_empty() {
        return ToolOutput::ok(format!("{shown} is empty"));
    }
    ToolOutput::ok(names.join("\n"))
}

pub fn grep(workspace: &Path, root: &Path, pattern: &str) -> ToolOutput {
    let regex = match regex::Regex::new(pattern) {
        Ok(regex) => regex,
        Err(err) => return ToolOutput::error(format!("invalid pattern: {err}")),
    };
    let mut lines = Vec::new();
    let mut more = false;
    let mut stack = vec![root.to_path_buf()];
    while let Some(path) = stack.pop() {
        if more {
            break;
        }
        let Ok(meta) = std::fs::symlink_metadata(&path) else { continue };
        if meta.is_dir() {
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            if path != root && matches!(name.as_str(), ".git" | "node_modules" | "target") {
                continue;
            }
            if let Ok(entries) = std::fs::read_dir(&path) {
                let mut children: Vec<_> = entries.filter_map(|e| e.ok()).map(|e| e.path()).collect();
                children.sort_by(|a, b| b.cmp(a));
                stack.extend(children);
            }
            continue;
        }
        if !meta.is_file() {
            continue;
        }
        let Ok(bytes) = std::fs::read(&path) else { continue };
        if bytes.iter().take(8192).any(|b| *b == 0) {
            continue;
        }
        let text = String::from_utf8_lossy(&bytes);
        for (number, line) in text.lines().enumerate() {
            if regex.is_match(line) {
                if lines.len() == MAX_GREP_MATCHES {
                    more = true;
                    break;
                }
                let line: String = line.chars().take(MAX_GREP_LINE_CHARS).collect();
                lines.push(format!("{}:{}:{}", display_relative(workspace, &path), number + 1, line));
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
