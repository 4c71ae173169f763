//! Compaction plugin hooks: `beforeCompact` adds instructions and output fields to the
//! summarizer call; `afterCompact` gets the checkpoint and its own fields and may inject context and
//! report. Built-in plugins implement the trait; external ones are commands speaking JSON on
//! stdin/stdout. Every hook runs under `pluginHooks.timeoutMs`.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use futures_util::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use super::checkpoint::OutputField;
use crate::config::PluginConfig;
use crate::error::{Error, Result};

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BeforeCompact {
    pub session: String,
    pub workspace: String,
    pub reason: String,
    pub focus: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct BeforeOutput {
    pub instructions: Option<String>,
    pub output_fields: Vec<OutputField>,
}

#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AfterCompact {
    pub session: String,
    pub workspace: String,
    /// The checkpoint (`sections` or `text`).
    pub checkpoint: Value,
    pub partial: bool,
    /// This plugin's own fields, extracted from the summarizer's answer.
    pub fields: Map<String, Value>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct AfterOutput {
    pub inject_context: Option<String>,
    /// Shown in the UI; its `summary` is the headline.
    pub report: Option<Value>,
}

pub trait CompactionPlugin: Send + Sync {
    fn name(&self) -> &str;
    fn before_compact<'a>(
        &'a self,
        input: &'a BeforeCompact,
    ) -> BoxFuture<'a, std::result::Result<BeforeOutput, String>>;
    fn after_compact<'a>(&'a self, input: &'a AfterCompact) -> BoxFuture<'a, std::result::Result<AfterOutput, String>>;
}

/// Builds the configured plugins; an unknown built-in is a config error.
pub fn from_config(configs: &[PluginConfig], home: &Path) -> Result<Vec<Box<dyn CompactionPlugin>>> {
    configs
        .iter()
        .enumerate()
        .map(|(i, config)| -> Result<Box<dyn CompactionPlugin>> {
            match (&config.command, config.builtin, config.name.as_str()) {
                (Some(command), _, _) => Ok(Box::new(CommandPlugin {
                    name: config.name.clone(),
                    command: command.clone(),
                    args: config.args.clone(),
                })),
                (None, true, "memory") => Ok(Box::new(MemoryPlugin { dir: home.join("memory") })),
                (None, _, other) => Err(Error::Config(format!(
                    "plugins[{i}]: there is no built-in plugin named {other:?} (built-ins: memory); give a \"command\" for an external one"
                ))),
            }
        })
        .collect()
}

/// Runs a hook future under the host's time limit.
pub async fn with_timeout<T>(
    timeout: Duration,
    hook: BoxFuture<'_, std::result::Result<T, String>>,
) -> std::result::Result<T, String> {
    match tokio::time::timeout(timeout, hook).await {
        Ok(result) => result,
        Err(_) => Err(format!("timed out after {} ms (pluginHooks.timeoutMs)", timeout.as_millis())),
    }
}

/// An external plugin: `command args…`, one JSON request on stdin, one JSON answer on stdout.
pub struct CommandPlugin {
    name: String,
    command: String,
    args: Vec<String>,
}

impl CommandPlugin {
    async fn call(&self, request: Value) -> std::result::Result<Value, String> {
        let mut child = tokio::process::Command::new(&self.command)
            .args(&self.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", self.command))?;
        if let Some(mut stdin) = child.stdin.take() {
            stdin
                .write_all(request.to_string().as_bytes())
                .await
                .map_err(|e| format!("cannot write its input: {e}"))?;
        }
        let mut stdout = String::new();
        if let Some(mut out) = child.stdout.take() {
            out.read_to_string(&mut stdout).await.map_err(|e| format!("cannot read its output: {e}"))?;
        }
        let mut stderr = String::new();
        if let Some(mut err) = child.stderr.take() {
            let _ = err.read_to_string(&mut stderr).await;
        }
        let status = child.wait().await.map_err(|e| e.to_string())?;
        if !status.success() {
            let excerpt: String = stderr.trim().chars().take(300).collect();
            return Err(format!("exited with {status}: {excerpt}"));
        }
        serde_json::from_str(stdout.trim()).map_err(|e| format!("answered with invalid JSON ({e})"))
    }
}

impl CompactionPlugin for CommandPlugin {
    fn name(&self) -> &str {
        &self.name
    }

    fn before_compact<'a>(
        &'a self,
        input: &'a BeforeCompact,
    ) -> BoxFuture<'a, std::result::Result<BeforeOutput, String>> {
        Box::pin(async move {
            let answer = self.call(json!({"hook": "beforeCompact", "input": input})).await?;
            serde_json::from_value(answer).map_err(|e| format!("answered beforeCompact with an unexpected shape ({e})"))
        })
    }

    fn after_compact<'a>(&'a self, input: &'a AfterCompact) -> BoxFuture<'a, std::result::Result<AfterOutput, String>> {
        Box::pin(async move {
            let answer = self.call(json!({"hook": "afterCompact", "input": input})).await?;
            serde_json::from_value(answer).map_err(|e| format!("answered afterCompact with an unexpected shape ({e})"))
        })
    }
}

/// The built-in memory plugin: asks the summarizer for durable facts, keeps them per workspace in
/// `$ALISIO_HOME/memory/`, injects them after the checkpoint and reports how many it saved.
pub struct MemoryPlugin {
    dir: PathBuf,
}

const MEMORY_FIELD: &str = "memory";
const MAX_FACTS: usize = 200;
const MAX_INJECTED: usize = 50;

#[derive(Debug, Default, Serialize, Deserialize)]
struct MemoryFile {
    workspace: String,
    facts: Vec<String>,
}

impl MemoryPlugin {
    fn file_for(&self, workspace: &str) -> PathBuf {
        // FNV-1a: a stable, dependency-free file name per workspace path.
        let hash =
            workspace.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x0100_0000_01b3));
        self.dir.join(format!("{hash:016x}.json"))
    }

    fn save(&self, workspace: &str, new_facts: &[String]) -> std::result::Result<(usize, Vec<String>), String> {
        let path = self.file_for(workspace);
        let mut file: MemoryFile = match std::fs::read_to_string(&path) {
            Ok(text) => serde_json::from_str(&text)
                .map_err(|e| format!("{} is corrupt ({e}); move it aside", path.display()))?,
            Err(_) => MemoryFile { workspace: workspace.to_string(), facts: Vec::new() },
        };
        let mut saved = 0;
        for fact in new_facts {
            let fact = fact.trim();
            if !fact.is_empty() && !file.facts.iter().any(|f| f == fact) {
                file.facts.push(fact.to_string());
                saved += 1;
            }
        }
        if file.facts.len() > MAX_FACTS {
            let excess = file.facts.len() - MAX_FACTS;
            file.facts.drain(..excess);
        }
        if saved > 0 {
            std::fs::create_dir_all(&self.dir).map_err(|e| format!("cannot create {}: {e}", self.dir.display()))?;
            let tmp = path.with_extension("json.tmp");
            let text = serde_json::to_string_pretty(&file).map_err(|e| e.to_string())?;
            std::fs::write(&tmp, text).map_err(|e| format!("cannot write {}: {e}", tmp.display()))?;
            std::fs::rename(&tmp, &path).map_err(|e| format!("cannot replace {}: {e}", path.display()))?;
        }
        Ok((saved, file.facts))
    }
}

impl CompactionPlugin for MemoryPlugin {
    fn name(&self) -> &str {
        "memory"
    }

    fn before_compact<'a>(
        &'a self,
        _input: &'a BeforeCompact,
    ) -> BoxFuture<'a, std::result::Result<BeforeOutput, String>> {
        Box::pin(async move {
            Ok(BeforeOutput {
                instructions: Some(
                    "Also list durable facts about this workspace that will matter in future sessions (conventions, \
                     commands that work, pitfalls) in the \"memory\" field; use [] when there are none."
                        .into(),
                ),
                output_fields: vec![OutputField {
                    name: MEMORY_FIELD.into(),
                    description: "durable facts about this workspace worth remembering (list of short strings)".into(),
                }],
            })
        })
    }

    fn after_compact<'a>(&'a self, input: &'a AfterCompact) -> BoxFuture<'a, std::result::Result<AfterOutput, String>> {
        Box::pin(async move {
            let facts: Vec<String> = match input.fields.get(MEMORY_FIELD) {
                Some(Value::Array(items)) => items.iter().filter_map(Value::as_str).map(str::to_string).collect(),
                Some(Value::String(one)) if !one.trim().is_empty() => vec![one.clone()],
                _ => Vec::new(),
            };
            let (saved, all) = self.save(&input.workspace, &facts)?;
            let inject_context = if all.is_empty() {
                None
            } else {
                let start = all.len().saturating_sub(MAX_INJECTED);
                let lines: Vec<String> = all[start..].iter().map(|f| format!("- {f}")).collect();
                Some(format!("## Remembered facts about this workspace\n{}", lines.join("\n")))
            };
            Ok(AfterOutput {
                inject_context,
                report: Some(json!({
                    "summary": format!("saved {saved} new fact(s); {} remembered for this workspace", all.len()),
                    "saved": saved,
                    "remembered": all.len(),
                })),
            })
        })
    }
}
