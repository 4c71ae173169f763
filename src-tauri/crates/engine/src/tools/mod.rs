//! The built-in tools (docs/agent.md): their catalog as the model sees it, permission checks, and
//! dispatch. Every path is confined to the session's workspace.

mod files;
pub mod output;
pub mod paths;
pub mod process;
mod shell;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use futures_util::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use tokio_util::sync::CancellationToken;

use crate::config::{Api, Permission, PermissionsConfig};
use crate::transcript::ToolCall;

/// What a tool returned: the text stored and shown to the model, and how it was captured.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutput {
    pub ok: bool,
    pub content: String,
    pub lossy: bool,
    pub dropped_bytes: u64,
    pub output_bytes: u64,
}

impl ToolOutput {
    pub fn ok(content: String) -> Self {
        let output_bytes = content.len() as u64;
        Self { ok: true, content, lossy: false, dropped_bytes: 0, output_bytes }
    }

    pub fn error(message: String) -> Self {
        let content = format!("error: {message}");
        let output_bytes = content.len() as u64;
        Self { ok: false, content, lossy: false, dropped_bytes: 0, output_bytes }
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    pub parameters: Value,
}

/// The fixed tool catalog, in the order the model sees it.
pub fn catalog() -> Vec<ToolSpec> {
    let path = json!({"type": "string", "description": "Path relative to the workspace root"});
    vec![
        ToolSpec {
            name: "read_file".into(),
            description: "Read a text file from the workspace.".into(),
            parameters: json!({"type": "object", "properties": {"path": path}, "required": ["path"], "additionalProperties": false}),
        },
        ToolSpec {
            name: "write_file".into(),
            description: "Create or overwrite a file in the workspace with the given content.".into(),
            parameters: json!({"type": "object", "properties": {"path": path, "content": {"type": "string"}}, "required": ["path", "content"], "additionalProperties": false}),
        },
        ToolSpec {
            name: "edit_file".into(),
            description: "Replace the single occurrence of `old` with `new` in a workspace file.".into(),
            parameters: json!({"type": "object", "properties": {"path": path, "old": {"type": "string"}, "new": {"type": "string"}}, "required": ["path", "old", "new"], "additionalProperties": false}),
        },
        ToolSpec {
            name: "list_dir".into(),
            description: "List the entries of a workspace directory (directories end with /).".into(),
            parameters: json!({"type": "object", "properties": {"path": path}, "required": ["path"], "additionalProperties": false}),
        },
        ToolSpec {
            name: "grep".into(),
            description: "Search files under a workspace path (default: the whole workspace) for a regular expression; prints path:line:text.".into(),
            parameters: json!({"type": "object", "properties": {"pattern": {"type": "string"}, "path": path}, "required": ["pattern"], "additionalProperties": false}),
        },
        ToolSpec {
            name: "shell".into(),
            description: "Run a shell command (sh -c) in the workspace root. Output is stdout, then stderr, then the exit code.".into(),
            parameters: json!({"type": "object", "properties": {"command": {"type": "string"}, "timeoutMs": {"type": "integer", "minimum": 1, "description": "Default 120000"}}, "required": ["command"], "additionalProperties": false}),
        },
    ]
}

/// The `tools` array of a request, in the wire shape of `api`.
pub fn catalog_json(api: Api, specs: &[ToolSpec]) -> Value {
    let tools: Vec<Value> = specs
        .iter()
        .map(|spec| match api {
            Api::Chat => json!({"type": "function", "function": {"name": spec.name, "description": spec.description, "parameters": spec.parameters}}),
            Api::Responses => json!({"type": "function", "name": spec.name, "description": spec.description, "parameters": spec.parameters}),
            Api::Anthropic => json!({"name": spec.name, "description": spec.description, "input_schema": spec.parameters}),
        })
        .collect();
    Value::Array(tools)
}

/// The `tools` array of a request: the built-in tools, then `extra` (the MCP tools in force).
pub fn request_tools(api: Api, extra: &[ToolSpec]) -> Value {
    let mut specs = catalog();
    specs.extend_from_slice(extra);
    catalog_json(api, &specs)
}

/// Characters of the serialized tool catalog (what every request carries).
pub fn tool_catalog_chars(api: Api, extra: &[ToolSpec]) -> u64 {
    catalog_chars(&request_tools(api, extra))
}

/// Characters one tool appended after the built-in ones adds to a `tools` array: its entry and
/// the comma before it (so the built-in array plus each added tool is the whole catalog).
pub fn added_tool_chars(api: Api, spec: &ToolSpec) -> u64 {
    catalog_chars(&catalog_json(api, std::slice::from_ref(spec))) - 2 + 1
}

/// Characters of a serialized `tools` array.
pub fn catalog_chars(tools: &Value) -> u64 {
    tools.to_string().chars().count() as u64
}

/// What decides whether a tool call may run: one of the built-in permissions, or an MCP server's.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum PermissionKind {
    /// `permissions.shell`
    Shell,
    /// `permissions.write` (`write_file`, `edit_file`)
    Write,
    /// `mcpServers.<server>.permission`
    Mcp { server: String },
}

impl PermissionKind {
    /// The built-in permission guarding tool `name`, if any.
    pub fn of_tool(name: &str) -> Option<PermissionKind> {
        match name {
            "shell" => Some(PermissionKind::Shell),
            "write_file" | "edit_file" => Some(PermissionKind::Write),
            _ => None,
        }
    }

    /// The configuration key that sets it, as messages name it.
    pub fn config_key(&self) -> String {
        match self {
            PermissionKind::Shell => "permissions.shell".into(),
            PermissionKind::Write => "permissions.write".into(),
            PermissionKind::Mcp { server } => format!("mcpServers.{server}.permission"),
        }
    }
}

/// Decides tool calls whose permission is `ask`.
pub trait Approver: Send + Sync {
    fn approve<'a>(&'a self, call: &'a ToolCall, permission: &'a PermissionKind) -> BoxFuture<'a, bool>;
}

/// Approves (`--yes`) or refuses every call that asks.
pub struct FixedApprover(pub bool);

impl Approver for FixedApprover {
    fn approve<'a>(&'a self, _call: &'a ToolCall, _permission: &'a PermissionKind) -> BoxFuture<'a, bool> {
        let answer = self.0;
        Box::pin(async move { answer })
    }
}

pub struct ToolEnv {
    /// Canonical workspace root.
    pub workspace: PathBuf,
    pub permissions: PermissionsConfig,
    pub approver: Arc<dyn Approver>,
    /// Environment variables tool processes must not inherit (the secrets' holders).
    pub scrubbed_env: Vec<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PathArgs {
    path: String,
}
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WriteArgs {
    path: String,
    content: String,
}
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EditArgs {
    path: String,
    old: String,
    new: String,
}
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct GrepArgs {
    pattern: String,
    path: Option<String>,
}
#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct ShellArgs {
    command: String,
    timeout_ms: Option<u64>,
}

fn parse<T: serde::de::DeserializeOwned>(call: &ToolCall) -> Result<T, ToolOutput> {
    let arguments = if call.arguments.trim().is_empty() { "{}" } else { call.arguments.as_str() };
    serde_json::from_str(arguments)
        .map_err(|err| ToolOutput::error(format!("invalid arguments for {}: {err}", call.name)))
}

impl ToolEnv {
    /// Checks permissions; `Err` carries the refusal the model gets as the tool's result.
    pub async fn check_permission(&self, call: &ToolCall) -> Result<(), ToolOutput> {
        let Some(kind) = PermissionKind::of_tool(&call.name) else { return Ok(()) };
        let setting = match kind {
            PermissionKind::Shell => self.permissions.shell,
            _ => self.permissions.write,
        };
        self.check(call, &kind, setting).await
    }

    /// Applies `setting` (what `kind` is set to) to `call`: allowed, refused, or asked of the approver.
    pub async fn check(&self, call: &ToolCall, kind: &PermissionKind, setting: Permission) -> Result<(), ToolOutput> {
        let key = kind.config_key();
        match setting {
            Permission::Allow => Ok(()),
            Permission::Deny => {
                Err(ToolOutput::error(format!("permission denied: {key} is \"deny\", so `{}` may not run", call.name)))
            }
            Permission::Ask => {
                if self.approver.approve(call, kind).await {
                    Ok(())
                } else {
                    Err(ToolOutput::error(format!(
                        "permission refused: `{}` needs approval ({key} is \"ask\") and it was not approved. \
                         The user can approve tools with --yes in the CLI, or set {key} to \"allow\"",
                        call.name
                    )))
                }
            }
        }
    }

    /// The requested path relative to the workspace root. Escapes are refused here with a clear
    /// message; the file tools then open it through the workspace handle, which refuses escapes
    /// again at the moment of access (a swap after this check cannot lead outside).
    fn resolve(&self, requested: &str) -> Result<files::Target, ToolOutput> {
        let path = paths::resolve_in_workspace(&self.workspace, requested).map_err(ToolOutput::error)?;
        let shown = paths::display_relative(&self.workspace, &path);
        let relative = match path.strip_prefix(&self.workspace) {
            Ok(rel) if !rel.as_os_str().is_empty() => rel.to_path_buf(),
            _ => PathBuf::from("."),
        };
        Ok(files::Target { relative, shown })
    }

    /// Runs one call (permissions already checked). Never panics on bad input: errors are results.
    /// `on_spawn` learns the process group of a call that starts one.
    pub async fn execute(
        &self,
        call: &ToolCall,
        cancel: &CancellationToken,
        on_spawn: &(dyn Fn(process::ProcessGroup) + Sync),
    ) -> ToolOutput {
        match self.execute_inner(call, cancel, on_spawn).await {
            Ok(output) | Err(output) => output,
        }
    }

    async fn execute_inner(
        &self,
        call: &ToolCall,
        cancel: &CancellationToken,
        on_spawn: &(dyn Fn(process::ProcessGroup) + Sync),
    ) -> Result<ToolOutput, ToolOutput> {
        let output = match call.name.as_str() {
            "read_file" => {
                let args: PathArgs = parse(call)?;
                let target = self.resolve(&args.path)?;
                self.file_tool(move |ws| ws.read_file(&target)).await
            }
            "write_file" => {
                let args: WriteArgs = parse(call)?;
                let target = self.resolve(&args.path)?;
                self.file_tool(move |ws| ws.write_file(&target, &args.content)).await
            }
            "edit_file" => {
                let args: EditArgs = parse(call)?;
                let target = self.resolve(&args.path)?;
                self.file_tool(move |ws| ws.edit_file(&target, &args.old, &args.new)).await
            }
            "list_dir" => {
                let args: PathArgs = parse(call)?;
                let target = self.resolve(&args.path)?;
                self.file_tool(move |ws| ws.list_dir(&target)).await
            }
            "grep" => {
                let args: GrepArgs = parse(call)?;
                let target = self.resolve(args.path.as_deref().unwrap_or("."))?;
                self.file_tool(move |ws| ws.grep(&target, &args.pattern)).await
            }
            "shell" => {
                let args: ShellArgs = parse(call)?;
                shell::run_shell(
                    &self.workspace,
                    &self.scrubbed_env,
                    &args.command,
                    args.timeout_ms.unwrap_or(shell::DEFAULT_TIMEOUT_MS),
                    cancel,
                    on_spawn,
                )
                .await
            }
            other => ToolOutput::error(format!(
                "unknown tool `{other}`; available: read_file, write_file, edit_file, list_dir, grep, shell"
            )),
        };
        Ok(output)
    }
}

/// How long a file tool may take before the agent stops waiting for it.
pub const FILE_TOOL_TIMEOUT: Duration = Duration::from_secs(60);

impl ToolEnv {
    /// Runs a file tool on a blocking thread against a handle on the workspace, under
    /// [`FILE_TOOL_TIMEOUT`] (a stuck file system must not hang the turn).
    async fn file_tool(&self, f: impl FnOnce(&files::Workspace) -> ToolOutput + Send + 'static) -> ToolOutput {
        let root = self.workspace.clone();
        let work = tokio::task::spawn_blocking(move || match files::Workspace::open(&root) {
            Ok(ws) => f(&ws),
            Err(err) => ToolOutput::error(format!("cannot open the workspace {}: {err}", root.display())),
        });
        match tokio::time::timeout(FILE_TOOL_TIMEOUT, work).await {
            Ok(Ok(output)) => output,
            Ok(Err(err)) => ToolOutput::error(format!("the tool crashed: {err}")),
            Err(_) => ToolOutput::error(format!(
                "the tool did not finish within {} s and was abandoned",
                FILE_TOOL_TIMEOUT.as_secs()
            )),
        }
    }
}

/// Canonicalizes a workspace directory.
pub fn canonical_workspace(dir: &Path) -> std::io::Result<PathBuf> {
    std::fs::canonicalize(dir)
}
