//! Which files a tool call read, wrote or edited, and the target it acted on, from its name and
//! arguments (the built-in tools, MCP file tools and shell commands).

use serde_json::Value;

/// File extensions a path mined from a shell command must have.
pub(super) const EXTENSIONS: &[&str] = &[
    "rs", "py", "js", "ts", "tsx", "jsx", "go", "java", "kt", "c", "h", "cc", "cpp", "hpp", "cs", "rb", "php", "swift",
    "md", "txt", "json", "toml", "yaml", "yml", "sh", "html", "css", "scss", "sql", "xml", "csv", "lock", "cfg", "ini",
    "env", "log", "proto", "vue", "svelte",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum FileOp {
    Written,
    Edited,
    Read,
}

impl FileOp {
    pub(super) fn verb(self) -> &'static str {
        match self {
            FileOp::Read => "read",
            FileOp::Written => "written",
            FileOp::Edited => "edited",
        }
    }
}

/// A path as the workspace names it: relative, without `./`.
pub(super) fn normalize(path: &str, workspace: &str) -> String {
    let path = path.trim().trim_matches(|c| c == '"' || c == '\'');
    let root = workspace.trim_end_matches('/');
    let relative = if !root.is_empty() { path.strip_prefix(root).map(|p| p.trim_start_matches('/')) } else { None };
    let relative = relative.unwrap_or(path);
    relative.strip_prefix("./").unwrap_or(relative).to_string()
}

/// The shell command a call's arguments hold (`command` or `cmd`, a string or its words).
pub(super) fn command_of(args: &Value) -> String {
    args.get("command")
        .or_else(|| args.get("cmd"))
        .map(|c| match c {
            Value::Array(parts) => parts.iter().filter_map(Value::as_str).collect::<Vec<_>>().join(" "),
            other => other.as_str().unwrap_or_default().to_string(),
        })
        .unwrap_or_default()
}

/// The files one tool call writes or edits, as the workspace names them.
pub fn files_changed(name: &str, arguments: &str, workspace: &str) -> Vec<String> {
    files_of(name, arguments, workspace).into_iter().filter(|(_, op)| *op != FileOp::Read).map(|(p, _)| p).collect()
}

/// The files one tool call touches, with what it did to each.
pub(super) fn files_of(name: &str, arguments: &str, workspace: &str) -> Vec<(String, FileOp)> {
    let lower = name.to_lowercase();
    let args: Value = serde_json::from_str(arguments).unwrap_or(Value::Null);
    let mut out = Vec::new();
    for key in ["path", "file_path", "filePath", "file", "filename", "notebook_path"] {
        if let Some(path) = args.get(key).and_then(Value::as_str).filter(|p| !p.trim().is_empty()) {
            let op = if ["write", "create"].iter().any(|w| lower.contains(w)) {
                FileOp::Written
            } else if ["edit", "patch", "replace"].iter().any(|w| lower.contains(w)) {
                FileOp::Edited
            } else if ["read", "view", "cat", "open"].iter().any(|w| lower.contains(w)) {
                FileOp::Read
            } else {
                continue; // listing or searching a path does not make it a file the work is about
            };
            out.push((normalize(path, workspace), op));
        }
    }
    // A patch names its files: `*** Update File: p`, `*** Add File: p`.
    let text = args.as_str().map(str::to_string).unwrap_or_else(|| arguments.to_string());
    for line in text.split("\\n").flat_map(|l| l.split('\n')) {
        for (marker, op) in [("*** Update File: ", FileOp::Edited), ("*** Add File: ", FileOp::Written)] {
            if let Some(path) = line.trim().strip_prefix(marker) {
                out.push((normalize(path.trim_end_matches('"'), workspace), op));
            }
        }
    }
    // A shell command: the words that look like files (mined where cheap).
    let command = command_of(&args);
    if !command.is_empty() {
        let separators = |c: char| c.is_whitespace() || ";|&()<`'\"".contains(c);
        let mut redirect = false;
        for word in command.split(separators).filter(|w| !w.is_empty()) {
            if word == ">" || word == ">>" || word.ends_with('>') {
                redirect = true;
                continue;
            }
            let word = word.trim_start_matches('>');
            let extension = word.rsplit_once('.').map(|(_, e)| e).unwrap_or("");
            let plausible = !word.starts_with('-')
                && !word.contains(['=', '$', '*', ':'])
                && word.contains('.')
                && EXTENSIONS.contains(&extension);
            if plausible {
                out.push((normalize(word, workspace), if redirect { FileOp::Written } else { FileOp::Read }));
            }
            redirect = false;
        }
    }
    out
}

/// What a tool call fetched into the context, as a re-read is recognised by: a file it read
/// (`File`, its workspace path), else the command it ran or the call itself (`Command`: a shell
/// command's text with its whitespace collapsed; any other tool's name and arguments). Calls that
/// only write or edit fetch nothing.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Fetch {
    File(String),
    Command(String),
}

pub fn fetch_of(name: &str, arguments: &str, workspace: &str) -> Option<Fetch> {
    let touched = files_of(name, arguments, workspace);
    if let Some((path, _)) = touched.iter().find(|(p, op)| *op == FileOp::Read && !p.is_empty()) {
        return Some(Fetch::File(path.clone()));
    }
    if !touched.is_empty() {
        return None;
    }
    let args: Value = serde_json::from_str(arguments).unwrap_or(Value::Null);
    let command = command_of(&args);
    let text = if command.trim().is_empty() { format!("{name} {}", arguments.trim()) } else { command };
    Some(Fetch::Command(text.split_whitespace().collect::<Vec<_>>().join(" ")))
}

/// Whether a line names a file: a word with a path's shape and a known extension (`src/a.rs:12`,
/// `notes.txt`).
pub fn names_a_file(line: &str) -> bool {
    line.split(|c: char| c.is_whitespace() || "()[]{}<>'\"`,;".contains(c)).any(|word| {
        let word = word.split(':').next().unwrap_or_default();
        word.rsplit_once('.').is_some_and(|(stem, ext)| !stem.is_empty() && EXTENSIONS.contains(&ext))
    })
}
