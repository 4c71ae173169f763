//! Test support: a scripted model server, a temporary `$ALISIO_HOME` and workspace, and a runner
//! for the real `alisio` binary.

pub mod context;
pub mod otlp;
pub mod postgres;
mod prompt_cache;
pub mod server;

use std::path::{Path, PathBuf};
use std::process::Stdio;

use serde_json::{json, Value};
pub use server::{Answer, Reply, ScriptedServer};

pub const BIN: &str = env!("CARGO_BIN_EXE_alisio");

pub struct Harness {
    pub home: tempfile::TempDir,
    pub workspace: tempfile::TempDir,
    pub server: ScriptedServer,
    pub env: Vec<(String, String)>,
    /// Runs `alisio` here instead of the temporary workspace (for prompts that must not vary).
    pub workdir: Option<PathBuf>,
}

pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl Run {
    /// JSONL events printed on stdout.
    pub fn events(&self) -> Vec<Value> {
        self.stdout
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSONL: {l:?}: {e}")))
            .collect()
    }

    pub fn event_types(&self) -> Vec<String> {
        self.events().iter().map(|e| e["type"].as_str().unwrap().to_string()).collect()
    }

    pub fn session(&self) -> String {
        let events = self.events();
        assert_eq!(events[0]["type"], "session", "the first line names the session: {}", self.stdout);
        events[0]["id"].as_str().unwrap().to_string()
    }

    pub fn json(&self) -> Value {
        serde_json::from_str(&self.stdout)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}\nstderr: {}", self.stdout, self.stderr))
    }

    #[track_caller]
    pub fn assert_ok(&self) -> &Self {
        assert_eq!(self.code, 0, "stdout:\n{}\nstderr:\n{}", self.stdout, self.stderr);
        self
    }
}

impl Harness {
    pub async fn new(script: Vec<Reply>) -> Self {
        Self::with_config(script, json!({})).await
    }

    /// A harness whose config points at a fresh scripted server, overlaid with `extra`.
    pub async fn with_config(script: Vec<Reply>, extra: Value) -> Self {
        let server = ScriptedServer::start(script).await;
        let home = tempfile::tempdir().unwrap();
        let workspace = tempfile::tempdir().unwrap();
        let mut config = json!({
            "provider": {"baseUrl": server.base_url, "model": "test-model", "maxRetries": 0, "retryBaseMs": 10, "timeoutMs": 10000},
            "permissions": {"shell": "allow", "write": "allow"},
        });
        merge(&mut config, extra);
        std::fs::write(home.path().join("config.json"), serde_json::to_string_pretty(&config).unwrap()).unwrap();
        Self { home, workspace, server, env: Vec::new(), workdir: None }
    }

    pub fn db_path(&self) -> PathBuf {
        self.home.path().join("sessions.db")
    }

    pub fn db(&self) -> rusqlite::Connection {
        rusqlite::Connection::open(self.db_path()).unwrap()
    }

    pub fn ws(&self) -> &Path {
        self.workspace.path()
    }

    pub fn command(&self, args: &[&str]) -> tokio::process::Command {
        let mut command = tokio::process::Command::new(BIN);
        command
            .args(args)
            .current_dir(self.workdir.as_deref().unwrap_or(self.workspace.path()))
            .env("ALISIO_HOME", self.home.path())
            .env_remove("OPENAI_API_KEY")
            .env_remove("ALISIO_LOG")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        for (key, value) in &self.env {
            command.env(key, value);
        }
        command
    }

    pub async fn alisio(&self, args: &[&str]) -> Run {
        let output = tokio::time::timeout(std::time::Duration::from_secs(60), self.command(args).output())
            .await
            .expect("alisio did not finish within 60 s")
            .unwrap();
        Run {
            code: output.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        }
    }

    /// `alisio run --json [extra…] PROMPT`
    pub async fn run(&self, extra: &[&str], prompt: &str) -> Run {
        let mut args = vec!["run", "--json"];
        args.extend_from_slice(extra);
        args.push(prompt);
        self.alisio(&args).await
    }

    /// Rows of `sql` as JSON-ish strings, for whole-table assertions.
    pub fn rows(&self, sql: &str) -> Vec<Vec<Value>> {
        let conn = self.db();
        let mut stmt = conn.prepare(sql).unwrap();
        let columns = stmt.column_count();
        stmt.query_map([], |row| {
            Ok((0..columns)
                .map(|i| match row.get_ref(i).unwrap() {
                    rusqlite::types::ValueRef::Null => Value::Null,
                    rusqlite::types::ValueRef::Integer(n) => json!(n),
                    rusqlite::types::ValueRef::Real(f) => json!(f),
                    rusqlite::types::ValueRef::Text(t) => json!(String::from_utf8_lossy(t)),
                    rusqlite::types::ValueRef::Blob(b) => json!(format!("<{} bytes>", b.len())),
                })
                .collect())
        })
        .unwrap()
        .map(|r| r.unwrap())
        .collect()
    }
}

pub fn merge(base: &mut Value, overlay: Value) {
    match (base, overlay) {
        (Value::Object(base), Value::Object(overlay)) => {
            for (key, value) in overlay {
                merge(base.entry(key).or_insert(Value::Null), value);
            }
        }
        (slot, value) => *slot = value,
    }
}

/// The `messages` of a chat request without the system prompt.
pub fn conversation(body: &Value) -> Vec<Value> {
    body["messages"].as_array().unwrap()[1..].to_vec()
}

/// Every file below `dir` (the database, its WAL, claims, memory…), for "nothing stored" checks.
pub fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
            } else {
                files.push(path);
            }
        }
    }
    files
}
