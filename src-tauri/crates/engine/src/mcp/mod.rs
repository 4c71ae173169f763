//! MCP tool servers through the official SDK (`rmcp`): stdio child processes and
//! streamable-HTTP endpoints. The hub starts the configured servers once, offers their tools as
//! `mcp__<server>__<tool>`, runs calls under the server's timeout, and notices a server that died:
//! it is reported once (`mcp_server_failed`), its tools leave the next request, and a call in
//! flight gets an error result. A server process never sees the provider's keys, runs in a group
//! of its own and never outlives Alisio (`connect`); results are capped like the shell's (`output`).

pub mod catalog;
mod connect;
mod output;

use std::collections::{BTreeMap, HashSet};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use rmcp::model::CallToolRequestParams;
use rmcp::service::{RoleClient, RunningService};
use serde::Serialize;
use serde_json::{Map, Value};
use tokio::sync::OnceCell;
use tokio_util::sync::CancellationToken;

use crate::config::{Api, Config, McpServerConfig, Permission};
use crate::lock;
use crate::tools::{ToolOutput, ToolSpec};
use connect::{start_server, with_stderr, ServerProcess, MAX_MESSAGE_BYTES};
pub use output::tool_output;

/// Longest tool name the providers accept.
pub const MAX_TOOL_NAME: usize = 64;
const PREFIX: &str = "mcp__";
/// How much of a stdio server's stderr is kept to explain its failure.
const STDERR_TAIL: usize = 2048;

type Client = RunningService<RoleClient, ()>;

/// One tool of a server as the model sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct McpTool {
    /// `mcp__<server>__<tool>`, sanitised, at most 64 characters, unique.
    pub exposed: String,
    pub server: String,
    /// The name the server knows it by.
    pub tool: String,
    pub description: String,
    pub input_schema: Value,
}

/// Whether a server's tools are offered.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, strum::IntoStaticStr, strum::Display)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
#[strum(serialize_all = "lowercase")]
pub enum ServerState {
    Ready,
    Failed,
    Disabled,
}

/// How Alisio talks to a server.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, strum::IntoStaticStr, strum::Display)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "lowercase")]
#[strum(serialize_all = "lowercase")]
pub enum Transport {
    /// A child process on stdin/stdout.
    Stdio,
    /// Streamable HTTP.
    Http,
}

/// A server's state as `alisio mcp list` shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ServerStatus {
    pub name: String,
    /// The same name, under the key `toolCatalog` uses.
    pub server: String,
    pub transport: Transport,
    pub status: ServerState,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub permission: Permission,
    pub tools: Vec<ToolStatus>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct ToolStatus {
    /// The name offered to the model.
    pub name: String,
    /// The server's own name for it.
    pub tool: String,
    /// Characters this tool adds to the request's tool catalog.
    pub chars: u64,
}

/// What one source of tools adds to every request (`toolCatalog` of `--view model`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct CatalogShare {
    /// `builtin`, `tool_search`, or the MCP server's name.
    pub server: String,
    /// Tools sent.
    pub tools: u64,
    pub chars: u64,
    /// Tools of this server not sent: they wait behind `tool_search` (the catalog's budget).
    pub deferred: u64,
}

enum State {
    Ready { client: Arc<Client>, tools: Vec<McpTool> },
    Failed(String),
    Disabled,
}

struct Server {
    name: String,
    config: McpServerConfig,
    state: Mutex<State>,
    stderr: Arc<Mutex<String>>,
    /// A stdio server's process, ended when the hub shuts down (or at once if it is dropped).
    process: Mutex<Option<ServerProcess>>,
}

/// The configured MCP servers of one engine.
pub struct McpHub {
    servers: Vec<Server>,
    started: OnceCell<()>,
    /// Environment variables the server processes must not inherit (the secrets' holders).
    scrubbed_env: Vec<String>,
    /// Failures not yet reported as events.
    unreported: Mutex<Vec<(String, String)>>,
}

impl McpHub {
    pub fn new(servers: &BTreeMap<String, McpServerConfig>, scrubbed_env: Vec<String>) -> Self {
        let servers = servers
            .iter()
            .map(|(name, config)| Server {
                name: name.clone(),
                config: config.clone(),
                state: Mutex::new(if config.enabled { State::Failed("not started".into()) } else { State::Disabled }),
                stderr: Arc::default(),
                process: Mutex::default(),
            })
            .collect();
        Self { servers, started: OnceCell::new(), scrubbed_env, unreported: Mutex::default() }
    }

    /// The servers `config` names; their processes start without the keys `config` protects.
    pub fn for_config(config: &Config) -> Self {
        Self::new(&config.mcp_servers, crate::secrets::Secrets::from_config(config).env_to_remove())
    }

    pub fn is_empty(&self) -> bool {
        self.servers.is_empty()
    }

    /// Starts every enabled server (once; concurrently, each under its startup timeout).
    pub async fn start(&self) {
        self.started
            .get_or_init(|| async {
                let starts = self.servers.iter().filter(|s| s.config.enabled).map(|server| async move {
                    let result = start_server(server, &self.scrubbed_env).await;
                    let mut state = lock(&server.state);
                    match result {
                        Ok((client, tools, process)) => {
                            *lock(&server.process) = process;
                            *state = State::Ready { client: Arc::new(client), tools };
                        }
                        Err(error) => {
                            let error = with_stderr(error, &server.stderr);
                            tracing::warn!("MCP server {} failed to start: {error}", server.name);
                            lock(&self.unreported).push((server.name.clone(), error.clone()));
                            *state = State::Failed(error);
                        }
                    }
                });
                futures_util::future::join_all(starts).await;
                self.assign_names();
            })
            .await;
    }

    /// Gives every ready tool its model-facing name: sanitised, ≤ 64 characters, unique.
    fn assign_names(&self) {
        let mut taken: HashSet<String> = HashSet::new();
        for server in &self.servers {
            if let State::Ready { tools, .. } = &mut *lock(&server.state) {
                for tool in tools.iter_mut() {
                    tool.exposed = exposed_name(&server.name, &tool.tool, &taken);
                    taken.insert(tool.exposed.clone());
                }
            }
        }
    }

    /// Marks servers whose connection has closed as failed; returns the failures not reported yet.
    pub fn take_failures(&self) -> Vec<(String, String)> {
        for server in &self.servers {
            let mut state = lock(&server.state);
            if let State::Ready { client, .. } = &*state {
                if client.is_closed() || client.peer().is_transport_closed() {
                    let error = with_stderr("the server stopped (its connection closed)".into(), &server.stderr);
                    lock(&self.unreported).push((server.name.clone(), error.clone()));
                    *state = State::Failed(error);
                }
            }
        }
        std::mem::take(&mut *lock(&self.unreported))
    }

    /// The tools of the servers that are ready, in configuration order.
    pub fn tools(&self) -> Vec<McpTool> {
        self.servers
            .iter()
            .flat_map(|server| match &*lock(&server.state) {
                State::Ready { tools, .. } => tools.clone(),
                _ => Vec::new(),
            })
            .collect()
    }

    pub fn statuses(&self, api: Api) -> Vec<ServerStatus> {
        self.servers
            .iter()
            .map(|server| {
                let (status, error, tools) = match &*lock(&server.state) {
                    State::Ready { tools, .. } => (ServerState::Ready, None, tools.clone()),
                    State::Failed(error) => (ServerState::Failed, Some(error.clone()), Vec::new()),
                    State::Disabled => (ServerState::Disabled, None, Vec::new()),
                };
                ServerStatus {
                    name: server.name.clone(),
                    server: server.name.clone(),
                    transport: if server.config.url.is_some() { Transport::Http } else { Transport::Stdio },
                    status,
                    error,
                    permission: server.config.permission,
                    tools: tools
                        .iter()
                        .map(|t| ToolStatus {
                            name: t.exposed.clone(),
                            tool: t.tool.clone(),
                            chars: crate::tools::added_tool_chars(api, &spec(t)),
                        })
                        .collect(),
                }
            })
            .collect()
    }

    /// The server an `mcp__…` tool belongs to and the permission it runs under; `None` when no
    /// ready server offers it (any more).
    pub fn route(&self, exposed: &str) -> Option<(String, Permission)> {
        self.servers.iter().find_map(|server| match &*lock(&server.state) {
            State::Ready { tools, .. } if tools.iter().any(|t| t.exposed == exposed) => {
                Some((server.name.clone(), server.config.permission))
            }
            _ => None,
        })
    }

    /// Runs one call. Errors — a refused argument list, a timeout, the server gone — are results.
    pub async fn call(&self, exposed: &str, arguments: &str, cancel: &CancellationToken) -> ToolOutput {
        let found = self.servers.iter().find_map(|server| match &*lock(&server.state) {
            State::Ready { client, tools } => {
                tools.iter().find(|t| t.exposed == exposed).map(|t| (server, client.clone(), t.tool.clone()))
            }
            _ => None,
        });
        let Some((server, client, tool)) = found else {
            return ToolOutput::error(format!("the MCP tool `{exposed}` is not available (its server is not running)"));
        };
        let arguments = if arguments.trim().is_empty() { "{}" } else { arguments };
        let arguments: Map<String, Value> = match serde_json::from_str(arguments) {
            Ok(Value::Object(map)) => map,
            Ok(_) | Err(_) => {
                return ToolOutput::error(format!("invalid arguments for {exposed}: expected a JSON object"));
            }
        };
        let mut params = CallToolRequestParams::new(tool);
        params.arguments = Some(arguments);
        let timeout = Duration::from_millis(server.config.tool_timeout_ms);
        // An answer too large for one message is dropped by the transport: say so at once.
        // Only a message begun after this call's start is its answer.
        let oversized = lock(&server.process).as_ref().map(|p| p.oversized.clone());
        let begun = oversized.as_ref().map_or(0, |f| f.load(Ordering::Relaxed));
        let too_large = async {
            loop {
                tokio::time::sleep(Duration::from_millis(50)).await;
                if oversized.as_ref().is_some_and(|f| f.load(Ordering::Relaxed) > begun) {
                    return MAX_MESSAGE_BYTES;
                }
            }
        };
        let outcome = tokio::select! {
            outcome = tokio::time::timeout(timeout, client.call_tool(params)) => outcome,
            () = cancel.cancelled() => return ToolOutput::error("cancelled".into()),
            bytes = too_large => return ToolOutput::error(format!(
                "MCP server {} answered with a message of more than {bytes} bytes, over the {} MiB a message may \
                 have; the answer was dropped. Ask for less (a smaller range, a filter).",
                server.name,
                MAX_MESSAGE_BYTES / (1024 * 1024)
            )),
        };
        match outcome {
            Ok(Ok(result)) => tool_output(&serde_json::to_value(result).unwrap_or(Value::Null)),
            Ok(Err(err)) => {
                // A call that fails because the connection went away takes the server with it.
                let gone = client.is_closed() || client.peer().is_transport_closed();
                let reason = if gone {
                    let error = with_stderr(format!("the server stopped during a call ({err})"), &server.stderr);
                    let mut state = lock(&server.state);
                    if matches!(*state, State::Ready { .. }) {
                        lock(&self.unreported).push((server.name.clone(), error.clone()));
                        *state = State::Failed(error.clone());
                    }
                    error
                } else {
                    err.to_string()
                };
                ToolOutput::error(format!("MCP server {}: {reason}", server.name))
            }
            Err(_) => ToolOutput::error(format!(
                "MCP server {} did not answer within {} ms (mcpServers.{}.toolTimeoutMs)",
                server.name, server.config.tool_timeout_ms, server.name
            )),
        }
    }

    /// `tool_search` over every ready server's tools.
    pub fn search(&self, arguments: &str) -> ToolOutput {
        catalog::search(&self.tools(), arguments)
    }

    /// Stops every server and waits for it: the connection is closed (a stdio server's stdin
    /// with it), then a process that stays is sent SIGTERM, then SIGKILL, its whole group.
    pub async fn shutdown(&self) {
        let clients: Vec<Arc<Client>> = self
            .servers
            .iter()
            .filter_map(|s| match std::mem::replace(&mut *lock(&s.state), State::Disabled) {
                State::Ready { client, .. } => Some(client),
                _ => None,
            })
            .collect();
        for client in clients {
            client.cancellation_token().cancel();
        }
        let processes: Vec<ServerProcess> = self.servers.iter().filter_map(|s| lock(&s.process).take()).collect();
        futures_util::future::join_all(processes.into_iter().map(ServerProcess::end)).await;
    }
}

/// The catalog entry of a tool.
pub fn spec(tool: &McpTool) -> ToolSpec {
    ToolSpec {
        name: tool.exposed.clone(),
        description: tool.description.clone(),
        parameters: tool.input_schema.clone(),
    }
}

/// `mcp__<server>__<tool>` with characters outside `[A-Za-z0-9_-]` made `_`; a name over 64
/// characters, or one already taken, is cut and given a hash suffix of the original names.
pub fn exposed_name(server: &str, tool: &str, taken: &HashSet<String>) -> String {
    let clean = |s: &str| -> String {
        s.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '-' { c } else { '_' }).collect()
    };
    let name = format!("{PREFIX}{}__{}", clean(server), clean(tool));
    if name.len() <= MAX_TOOL_NAME && !taken.contains(&name) {
        return name;
    }
    let mut salt = 0u32;
    loop {
        let hash = fnv(&format!("{server}\u{0}{tool}\u{0}{salt}"));
        let suffix = format!("_{:08x}", hash as u32);
        let keep = name.len().min(MAX_TOOL_NAME - suffix.len());
        let candidate = format!("{}{suffix}", &name[..keep]);
        if !taken.contains(&candidate) {
            return candidate;
        }
        salt += 1;
    }
}

fn fnv(text: &str) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn names_are_sanitised_bounded_and_unique() {
        let mut taken = HashSet::new();
        assert_eq!(exposed_name("time", "get_current_time", &taken), "mcp__time__get_current_time");
        assert_eq!(exposed_name("my server", "do.it/now", &taken), "mcp__my_server__do_it_now");
        let long = exposed_name("a-very-long-server-name-indeed", "and_an_even_longer_tool_name_that_goes_on", &taken);
        assert_eq!(long.len(), MAX_TOOL_NAME);
        assert!(long.starts_with("mcp__a-very-long-server-name-indeed__and_an"), "{long}");
        taken.insert("mcp__x__a_b".to_string());
        // "a.b" and "a_b" both sanitise to a_b: the second gets a hashed name.
        let second = exposed_name("x", "a.b", &taken);
        assert_ne!(second, "mcp__x__a_b");
        assert!(second.starts_with("mcp__x__a_b_") && second.len() <= MAX_TOOL_NAME, "{second}");
        let other =
            exposed_name("a-very-long-server-name-indeed", "and_an_even_longer_tool_name_that_goes_on_2", &taken);
        assert_ne!(long, other);
    }

    #[test]
    fn results_keep_their_parts_and_note_binary_ones() {
        let result = json!({"content": [
            {"type": "text", "text": "first"},
            {"type": "image", "data": "aGVsbG8gd29ybGQh", "mimeType": "image/png"},
            {"type": "text", "text": "second"},
            {"type": "resource_link", "uri": "file:///tmp/x", "name": "x"}
        ]});
        let out = tool_output(&result);
        assert!(out.ok);
        assert_eq!(out.content, "first\n[image: image/png, 12 bytes]\nsecond\n[resource link: file:///tmp/x]");
        let failed = tool_output(&json!({"content": [{"type": "text", "text": "no such zone"}], "isError": true}));
        assert!(!failed.ok);
        assert_eq!(failed.content, "error: no such zone");
        let structured = tool_output(&json!({"content": [], "structuredContent": {"a": 1}}));
        assert_eq!(structured.content, "{\"a\":1}");
    }
}
