//! Every agent whose sessions Alisio reads, in one table: its name as people write it, what it
//! writes and where, and the versions the conformance corpus covers. `--help`, error messages,
//! `--source` filters, the default locations and the window's agent names all read this table;
//! adding an agent is one format module and one row here.

use serde::Serialize;

use crate::store::SourceKind;

/// One agent Alisio reads.
#[derive(Clone, Copy, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct Agent {
    /// The source name sessions carry (`claude-code`).
    pub kind: SourceKind,
    /// Its name as people write it (`Claude Code`).
    pub name: &'static str,
    /// A short badge for lists (`CC`).
    pub badge: &'static str,
    /// What it writes and where, for messages that name the formats.
    pub files: &'static str,
    /// The versions whose files the conformance corpus holds.
    pub versions: &'static str,
    /// Parts of a path that place a file in this agent's folders: a JSON file there that is not
    /// read is listed as unread, with why.
    pub marks: &'static [&'static str],
    /// Files the agent keeps beside its sessions that are read with them (by how a name ends).
    pub companions: &'static [&'static str],
    /// Where it keeps its sessions on this machine (Linux and macOS), by the environment.
    #[serde(skip)]
    #[cfg_attr(feature = "ts", ts(skip))]
    pub locations: fn(&Env) -> Vec<std::path::PathBuf>,
}

/// The environment default locations are found in: the home folder and the variables that move
/// an agent's folders.
pub struct Env {
    pub home: std::path::PathBuf,
}

impl Env {
    pub fn current() -> Env {
        Env { home: std::env::var_os("HOME").map(std::path::PathBuf::from).unwrap_or_default() }
    }

    /// A variable naming a folder (unset or empty: none).
    pub fn dir(&self, name: &str) -> Option<std::path::PathBuf> {
        std::env::var_os(name).filter(|v| !v.is_empty()).map(std::path::PathBuf::from)
    }

    /// `$XDG_DATA_HOME`, else `~/.local/share`.
    fn data(&self) -> std::path::PathBuf {
        self.dir("XDG_DATA_HOME").unwrap_or_else(|| self.home.join(".local/share"))
    }

    /// The task folders of a VS Code extension in each build's global storage that exists here
    /// (`$XDG_CONFIG_HOME`, else `~/.config`, and macOS's `~/Library/Application Support`); the
    /// first root's `Code` always, so the list says where to look.
    fn extension_tasks(&self, extension: &str) -> Vec<std::path::PathBuf> {
        let roots = [
            self.dir("XDG_CONFIG_HOME").unwrap_or_else(|| self.home.join(".config")),
            self.home.join("Library/Application Support"),
        ];
        let mut out = Vec::new();
        for (i, root) in roots.iter().enumerate() {
            for build in ["Code", "Code - Insiders", "VSCodium", "Cursor", "Windsurf"] {
                let tasks = root.join(build).join("User/globalStorage").join(extension).join("tasks");
                if tasks.is_dir() || (i == 0 && build == "Code") {
                    out.push(tasks);
                }
            }
        }
        out
    }
}

fn claude_locations(env: &Env) -> Vec<std::path::PathBuf> {
    vec![env.dir("CLAUDE_CONFIG_DIR").unwrap_or_else(|| env.home.join(".claude")).join("projects")]
}

fn codex_locations(env: &Env) -> Vec<std::path::PathBuf> {
    vec![env.dir("CODEX_HOME").unwrap_or_else(|| env.home.join(".codex")).join("sessions")]
}

fn opencode_locations(env: &Env) -> Vec<std::path::PathBuf> {
    let root = env.data().join("opencode");
    // The database from 1.2 on, the JSON storage before.
    vec![root.join("opencode.db"), root.join("storage")]
}

fn kilo_locations(env: &Env) -> Vec<std::path::PathBuf> {
    let data = env.data().join("kilo");
    // `KILO_DB` moves the database: an absolute path, or a name in Kilo's data folder.
    match env.dir("KILO_DB").filter(|db| db.as_os_str() != ":memory:") {
        Some(db) if db.is_absolute() => vec![db],
        Some(name) => vec![data.join(name)],
        None => vec![data.join("kilo.db")],
    }
}

fn gemini_locations(env: &Env) -> Vec<std::path::PathBuf> {
    vec![env.dir("GEMINI_CLI_HOME").unwrap_or_else(|| env.home.clone()).join(".gemini").join("tmp")]
}

fn qwen_locations(env: &Env) -> Vec<std::path::PathBuf> {
    let root = env.dir("QWEN_HOME").unwrap_or_else(|| env.home.join(".qwen"));
    // JSONL chats from 0.5 on; the first versions' JSON chats under tmp/.
    vec![root.join("projects"), root.join("tmp")]
}

fn pi_locations(env: &Env) -> Vec<std::path::PathBuf> {
    vec![env.dir("PI_CODING_AGENT_SESSION_DIR").unwrap_or_else(|| {
        env.dir("PI_CODING_AGENT_DIR").unwrap_or_else(|| env.home.join(".pi").join("agent")).join("sessions")
    })]
}

fn copilot_locations(env: &Env) -> Vec<std::path::PathBuf> {
    vec![env.dir("COPILOT_HOME").unwrap_or_else(|| env.home.join(".copilot")).join("session-state")]
}

fn cline_locations(env: &Env) -> Vec<std::path::PathBuf> {
    let data = env.dir("CLINE_DIR").unwrap_or_else(|| env.home.join(".cline")).join("data");
    let mut out = vec![data.join("sessions"), data.join("tasks")];
    out.extend(env.extension_tasks("saoudrizwan.claude-dev"));
    out
}

fn roo_locations(env: &Env) -> Vec<std::path::PathBuf> {
    // Roo Code's CLI keeps the extension's storage in a mock of VS Code's.
    let mut out = vec![env.home.join(".vscode-mock/global-storage/tasks")];
    out.extend(env.extension_tasks("rooveterinaryinc.roo-cline"));
    out
}

fn no_locations(_: &Env) -> Vec<std::path::PathBuf> {
    Vec::new()
}

/// The agents, in the order `--help` and the window list them.
pub const AGENTS: &[Agent] = &[
    Agent {
        kind: SourceKind::ClaudeCode,
        name: "Claude Code",
        badge: "CC",
        files: "~/.claude/projects/<dir>/<uuid>.jsonl (sub-agents in <uuid>/subagents/)",
        versions: "0.2.114 – 2.1.332",
        marks: &["/.claude/projects/"],
        companions: &[".meta.json", "custom-title.json"],
        locations: claude_locations,
    },
    Agent {
        kind: SourceKind::Codex,
        name: "Codex",
        badge: "CX",
        files: "~/.codex/sessions/…/rollout-*.jsonl (and the first releases' rollout-*.json)",
        versions: "0.1.2504172351 – 0.171.0",
        marks: &["/.codex/sessions/", "/rollout-"],
        companions: &[],
        locations: codex_locations,
    },
    Agent {
        kind: SourceKind::OpenCode,
        name: "OpenCode",
        badge: "OC",
        files: "~/.local/share/opencode/opencode.db (before 1.2: storage/session/…)",
        versions: "1.1.65 – 1.18.33",
        marks: &["/opencode/storage/"],
        companions: &[],
        locations: opencode_locations,
    },
    Agent {
        kind: SourceKind::Kilo,
        name: "Kilo Code",
        badge: "KI",
        files: "~/.local/share/kilo/kilo.db (OpenCode's database, Kilo Code CLI)",
        versions: "CLI 7.0.33 – 7.7.9",
        marks: &["/kilo/"],
        companions: &[],
        locations: kilo_locations,
    },
    Agent {
        kind: SourceKind::GeminiCli,
        name: "Gemini CLI",
        badge: "GE",
        files: "~/.gemini/tmp/<project>/chats/session-*.jsonl (before 0.39: session-*.json)",
        versions: "0.10.0 – 0.61.0",
        marks: &["/.gemini/tmp/"],
        companions: &["logs.json"],
        locations: gemini_locations,
    },
    Agent {
        kind: SourceKind::QwenCode,
        name: "Qwen Code",
        badge: "QW",
        files: "~/.qwen/projects/<dir>/chats/<uuid>.jsonl (0.1: ~/.qwen/tmp/<hash>/chats/session-*.json)",
        versions: "0.1.4 – 0.24.4",
        marks: &["/.qwen/projects/", "/.qwen/tmp/"],
        companions: &["logs.json"],
        locations: qwen_locations,
    },
    Agent {
        kind: SourceKind::Pi,
        name: "pi",
        badge: "PI",
        files: "~/.pi/agent/sessions/<dir>/<time>_<uuid>.jsonl",
        versions: "0.30.2 – 0.73.1",
        marks: &["/.pi/agent/sessions/"],
        companions: &[],
        locations: pi_locations,
    },
    Agent {
        kind: SourceKind::CopilotCli,
        name: "Copilot CLI",
        badge: "GH",
        files: "~/.copilot/session-state/<uuid>/events.jsonl",
        versions: "1.0.12 – 1.0.102",
        marks: &["/.copilot/session-state/"],
        companions: &["/index.json", "workspace.json"],
        locations: copilot_locations,
    },
    Agent {
        kind: SourceKind::Cline,
        name: "Cline",
        badge: "CL",
        files: "~/.cline/data/sessions/<id>/<id>.messages.json, tasks/<id>/api_conversation_history.json",
        versions: "CLI 1.0.10 – 3.0.65 (extension core 3.52.0 – 3.82.0)",
        marks: &["/.cline/data/", "/saoudrizwan.claude-dev/"],
        companions: &[
            "ui_messages.json",
            "taskHistory.json",
            "context_history.json",
            "task_metadata.json",
            ".compaction.json",
        ],
        locations: cline_locations,
    },
    Agent {
        kind: SourceKind::RooCode,
        name: "Roo Code",
        badge: "RO",
        files: "the extension's tasks/<id>/api_conversation_history.json",
        versions: "CLI 0.1.17 (extension 3.52.1)",
        marks: &["/rooveterinaryinc.roo-cline/", "/.vscode-mock/global-storage/"],
        companions: &[
            "ui_messages.json",
            "history_item.json",
            "_index.json",
            "task_metadata.json",
            "context_history.json",
        ],
        locations: roo_locations,
    },
    Agent {
        kind: SourceKind::Atif,
        name: "ATIF",
        badge: "AT",
        files: "an ATIF trajectory (trajectory.json, v1.0 – v1.7)",
        versions: "ATIF-v1.5 (Harbor's golden trajectories) – v1.7 (Alisio's own)",
        marks: &[],
        companions: &[],
        locations: no_locations,
    },
];

/// Why a file in an agent's folders was not read as a session, or `None` when it is no agent's
/// (or is read with the sessions beside it). `path` holds no session Alisio recognised.
pub fn unread_reason(path: &std::path::Path) -> Option<String> {
    let text = path.to_string_lossy();
    let name = path.file_name()?.to_string_lossy().to_string();
    if !(name.ends_with(".json") || name.ends_with(".jsonl")) {
        return None;
    }
    let agent = AGENTS.iter().find(|a| a.marks.iter().any(|m| text.contains(m)))?;
    if agent.companions.iter().any(|c| name.ends_with(c)) {
        return None;
    }
    // Cline's session row (`<id>.json`) beside its messages (`<id>.messages.json`).
    if agent.kind == SourceKind::Cline {
        let stem = name.trim_end_matches(".json");
        if path.with_file_name(format!("{stem}.messages.json")).is_file() {
            return None;
        }
    }
    let size = path.metadata().map(|m| m.len()).unwrap_or(0);
    let first = std::fs::read_to_string(path)
        .ok()
        .and_then(|t| t.lines().next().and_then(|l| serde_json::from_str::<serde_json::Value>(l).ok()));
    let gemini_stub = agent.kind == SourceKind::GeminiCli && first.as_ref().is_some_and(super::gemini::is_metadata);
    Some(if size == 0 {
        format!("in {}'s folders, but empty", agent.name)
    } else if gemini_stub {
        "a Gemini CLI chat's headers with no message: the stub it writes when a resumed session starts in a new \
         minute (the session is read from its other file)"
            .to_string()
    } else {
        format!(
            "in {}'s folders, but no session record Alisio reads in its first lines (a file the agent keeps \
             for something else, a version not read yet, or a stub with headers only)",
            agent.name
        )
    })
}

/// The table row of `kind` (every agent has one; `proxy` is not an agent and has none).
pub fn agent(kind: SourceKind) -> Option<&'static Agent> {
    AGENTS.iter().find(|a| a.kind == kind)
}

/// The agent named `name` (its source name), or an error naming every known one.
pub fn parse(name: &str) -> Result<SourceKind, String> {
    AGENTS
        .iter()
        .find(|a| a.kind.as_str() == name)
        .map(|a| a.kind)
        .ok_or_else(|| format!("unknown agent {name:?}; the agents are: {}", names().join(", ")))
}

/// A `--source` value as sessions carry it: `alisio` (Alisio's own), `proxy` (calls captured by
/// `alisio proxy` that joined no imported session) or an agent's name; anything else is an error
/// naming every one.
/// Where a session comes from: Alisio's own, an agent's files, or the recording proxy — what every
/// `--source` filter takes. An unknown name is refused naming the known ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    Alisio,
    Agent(SourceKind),
    Proxy,
}

impl Source {
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Alisio => "alisio",
            Source::Agent(kind) => kind.as_str(),
            Source::Proxy => "proxy",
        }
    }
}

impl std::fmt::Display for Source {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Source {
    type Err = String;
    fn from_str(name: &str) -> Result<Source, String> {
        match name {
            "alisio" => Ok(Source::Alisio),
            "proxy" => Ok(Source::Proxy),
            _ => AGENTS.iter().find(|a| a.kind.as_str() == name).map(|a| Source::Agent(a.kind)).ok_or_else(|| {
                format!("unknown source {name:?}; the sources are: alisio, {}, proxy", names().join(", "))
            }),
        }
    }
}

impl serde::Serialize for Source {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> std::result::Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> serde::Deserialize<'de> for Source {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> std::result::Result<Source, D::Error> {
        let name = String::deserialize(deserializer)?;
        name.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(feature = "ts")]
impl ts_rs::TS for Source {
    type WithoutGenerics = Source;
    type OptionInnerType = Source;
    fn name(_: &ts_rs::Config) -> String {
        "Source".into()
    }
    fn decl_concrete(cfg: &ts_rs::Config) -> String {
        Self::decl(cfg)
    }
    fn decl(_: &ts_rs::Config) -> String {
        "type Source = \"alisio\" | SourceKind | \"proxy\";".into()
    }
    fn inline(_: &ts_rs::Config) -> String {
        "Source".into()
    }
    fn inline_flattened(_: &ts_rs::Config) -> String {
        "Source".into()
    }
    fn output_path() -> Option<std::path::PathBuf> {
        None
    }
}

pub fn source_filter(name: &str) -> Result<String, String> {
    if name == "alisio" || name == "proxy" || AGENTS.iter().any(|a| a.kind.as_str() == name) {
        return Ok(name.to_string());
    }
    Err(format!("unknown source {name:?}; the sources are: alisio, {}, proxy", names().join(", ")))
}

/// The source names of every agent, in table order.
pub fn names() -> Vec<&'static str> {
    AGENTS.iter().map(|a| a.kind.as_str()).collect()
}

/// Every format, for messages: "a Claude Code session (~/.claude/…), a Codex session (…), …".
pub fn formats() -> String {
    AGENTS.iter().map(|a| format!("{} ({})", a.name, a.files)).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_agent_is_in_the_table_once() {
        let mut names = names();
        let count = names.len();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), count, "an agent is in the table twice");
        assert!(parse("claude").unwrap_err().contains("claude-code"), "an unknown name lists the known ones");
        assert_eq!(parse("codex"), Ok(SourceKind::Codex));
        assert_eq!(source_filter("alisio").as_deref(), Ok("alisio"));
        let unknown = source_filter("claude").unwrap_err();
        assert!(unknown.contains("claude-code") && unknown.contains("proxy"), "{unknown}");
        use strum::IntoEnumIterator;
        for kind in SourceKind::iter().filter(|k| *k != SourceKind::Proxy) {
            assert!(agent(kind).is_some(), "{kind} has no row in the table");
        }
    }
}
