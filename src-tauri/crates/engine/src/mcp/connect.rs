//! Starting and ending one MCP server. A stdio server runs in a process group of its own, watched
//! (its group dies with Alisio, even by SIGKILL) and ended on every path: when Alisio is done with
//! it, its stdin closes; a server still there after the grace period gets SIGTERM, then SIGKILL,
//! its whole group, awaited; one that fails or times out while starting is killed at once. An
//! answer too large for one message is noticed as it arrives, so the call fails at once instead of
//! waiting for its timeout.

use std::pin::Pin;
use std::process::Stdio;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;
use rmcp::service::ServiceExt;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::transport::StreamableHttpClientTransport;
use tokio::io::{AsyncRead, AsyncReadExt, ReadBuf};
use tokio::process::{Child, ChildStdout};

use super::{Client, McpTool, Server, STDERR_TAIL};
use crate::config::find_command;
use crate::lock;
use crate::tools::process::{ProcessGroup, Watchdog};

/// The longest message a server may send; a longer one is dropped by the transport.
pub const MAX_MESSAGE_BYTES: u64 = 16 * 1024 * 1024;
/// How long a server has to leave after its stdin closes, and again after SIGTERM.
const GRACE: Duration = Duration::from_secs(2);

/// A stdio server's process: its group, the watchdog on it, and what it has sent too much of.
pub struct ServerProcess {
    child: Child,
    group: Option<ProcessGroup>,
    _watchdog: Watchdog,
    /// How many messages over [`MAX_MESSAGE_BYTES`] the server has begun to send (a call compares
    /// it with the count when it began: the rest of an earlier one still arriving is not its own).
    pub oversized: Arc<AtomicU64>,
}

impl ServerProcess {
    /// Ends the server, waiting for it: its stdin is already closed (the client was cancelled),
    /// then SIGTERM, then SIGKILL to the whole group; what is left of the group is killed too.
    pub async fn end(mut self) {
        let exited = tokio::time::timeout(GRACE, self.child.wait()).await.is_ok();
        if !exited {
            self.signal(Signal::SIGTERM);
            if tokio::time::timeout(GRACE, self.child.wait()).await.is_err() {
                self.signal(Signal::SIGKILL);
                let _ = self.child.wait().await;
            }
        }
        // Helpers the server started in its group do not outlive it.
        if let Some(group) = self.group.take() {
            group.kill_leftovers();
        }
    }

    fn signal(&self, signal: Signal) {
        if let Some(group) = &self.group {
            let _ = killpg(Pid::from_raw(group.pgid), signal);
        }
    }
}

/// Dropped without [`ServerProcess::end`] (a start that failed or timed out, a panic): the group
/// is killed at once.
impl Drop for ServerProcess {
    fn drop(&mut self) {
        if let Some(group) = self.group.take() {
            let _ = killpg(Pid::from_raw(group.pgid), Signal::SIGKILL);
        }
    }
}

/// Starts `server` under its startup timeout: the client, its tools, and (stdio) its process.
pub async fn start_server(
    server: &Server,
    scrubbed_env: &[String],
) -> Result<(Client, Vec<McpTool>, Option<ServerProcess>), String> {
    let timeout = Duration::from_millis(server.config.startup_timeout_ms);
    let start = async {
        let (client, process) = connect(server, scrubbed_env).await?;
        let tools = client.list_all_tools().await.map_err(|e| format!("listing its tools failed: {e}"))?;
        let tools = tools
            .into_iter()
            .map(|t| McpTool {
                exposed: String::new(),
                server: server.name.clone(),
                tool: t.name.to_string(),
                description: t.description.as_deref().unwrap_or_default().to_string(),
                input_schema: serde_json::Value::Object((*t.input_schema).clone()),
            })
            .collect();
        Ok::<_, String>((client, tools, process))
    };
    // On a timeout the start is dropped, and with it the process (killed at once).
    match tokio::time::timeout(timeout, start).await {
        Ok(result) => result,
        Err(_) => Err(format!(
            "it did not finish starting within {} ms (mcpServers.{}.startupTimeoutMs)",
            server.config.startup_timeout_ms, server.name
        )),
    }
}

async fn connect(server: &Server, scrubbed_env: &[String]) -> Result<(Client, Option<ServerProcess>), String> {
    let config = &server.config;
    if let Some(url) = &config.url {
        let mut headers = std::collections::HashMap::new();
        let values = crate::config::header_values(&format!("mcpServers.{}.headers", server.name), &config.headers)
            .map_err(|e| e.to_string())?;
        for (name, value) in values {
            let name = reqwest::header::HeaderName::try_from(name.as_str())
                .map_err(|e| format!("headers.{name} is not a header name: {e}"))?;
            let value = reqwest::header::HeaderValue::try_from(value)
                .map_err(|e| format!("headers.{name} is not a valid header value: {e}"))?;
            headers.insert(name, value);
        }
        let http = crate::provider::http_client_builder()
            .connect_timeout(Duration::from_secs(10))
            .build()
            .map_err(|e| format!("cannot set up the HTTP client: {e}"))?;
        let transport = StreamableHttpClientTransport::with_client(
            http,
            StreamableHttpClientTransportConfig::with_uri(url.as_str()).custom_headers(headers),
        );
        let client = ().serve(transport).await.map_err(|e| format!("{url} did not complete the MCP handshake: {e}"))?;
        return Ok((client, None));
    }
    let command = config.command.as_deref().unwrap_or_default();
    let program = find_command(command, config.cwd.as_deref())
        .ok_or_else(|| format!("command {command:?} is not found (not an executable path, nor on PATH)"))?;
    let mut cmd = tokio::process::Command::new(program);
    cmd.args(&config.args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    for var in scrubbed_env {
        cmd.env_remove(var);
    }
    cmd.envs(&config.env);
    if let Some(dir) = &config.cwd {
        cmd.current_dir(dir);
    }
    let mut child = cmd.spawn().map_err(|e| format!("cannot start {command:?}: {e}"))?;
    let group = child.id().and_then(|pid| ProcessGroup::of_leader(pid as i32));
    let watchdog = Watchdog::start(group.map_or(0, |g| g.pgid));
    let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        return Err("its stdin or stdout could not be opened".into());
    };
    if let Some(stderr) = child.stderr.take() {
        keep_stderr_tail(stderr, server.stderr.clone());
    }
    let oversized = Arc::new(AtomicU64::new(0));
    let process = ServerProcess { child, group, _watchdog: watchdog, oversized: oversized.clone() };
    let stdout = Watched { inner: stdout, line: 0, oversized };
    let client = ().serve((stdout, stdin)).await.map_err(|e| format!("it did not complete the MCP handshake: {e}"))?;
    Ok((client, Some(process)))
}

/// The last [`STDERR_TAIL`] bytes the server wrote to stderr, to explain its failures.
fn keep_stderr_tail(mut stderr: tokio::process::ChildStderr, tail: Arc<Mutex<String>>) {
    tokio::spawn(async move {
        let mut buf = [0u8; 1024];
        while let Ok(n) = stderr.read(&mut buf).await {
            if n == 0 {
                break;
            }
            let mut kept = lock(&tail);
            kept.push_str(&String::from_utf8_lossy(&buf[..n]));
            if kept.len() > STDERR_TAIL {
                let cut = kept.len() - STDERR_TAIL;
                let cut = (cut..kept.len()).find(|&i| kept.is_char_boundary(i)).unwrap_or(kept.len());
                kept.drain(..cut);
            }
        }
    });
}

/// The server's stdout as read: the length of the message (line) being received is followed, and
/// each one that grows past [`MAX_MESSAGE_BYTES`] is counted once (the transport drops it).
struct Watched {
    inner: ChildStdout,
    line: u64,
    oversized: Arc<AtomicU64>,
}

impl AsyncRead for Watched {
    fn poll_read(mut self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &mut ReadBuf<'_>) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = &polled {
            let mut line = self.line;
            for byte in &buf.filled()[before..] {
                if *byte == b'\n' {
                    line = 0;
                } else {
                    line += 1;
                    if line == MAX_MESSAGE_BYTES + 1 {
                        self.oversized.fetch_add(1, Ordering::Relaxed);
                    }
                }
            }
            self.line = line;
        }
        polled
    }
}

/// `error`, followed by the last line the server wrote to stderr, if any.
pub fn with_stderr(error: String, stderr: &Mutex<String>) -> String {
    let tail = lock(stderr);
    match tail.lines().rev().find(|l| !l.trim().is_empty()) {
        Some(line) => format!("{error}; its last words: {}", line.trim()),
        None => error,
    }
}
