//! The `shell` tool: `sh -c` in the workspace, in its own process group, which is killed as a whole
//! on timeout, on cancel, when the command exits (no stragglers), or if the runner itself goes away:
//! a watchdog (`setpriv --pdeathsig`, where util-linux has it) kills the group when the Alisio
//! process dies, even by SIGKILL, and the journal records the group so the next start can kill
//! whatever a watchdog could not.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;
use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::output::{annotate, Capture, MAX_OUTPUT_BYTES};
use super::process::{ProcessGroup, Watchdog};
use super::ToolOutput;

pub const DEFAULT_TIMEOUT_MS: u64 = 120_000;
pub const MAX_TIMEOUT_MS: u64 = 1_800_000;

/// Kills the process group when dropped, so an abandoned run never leaves processes behind.
struct GroupGuard(i32);

impl Drop for GroupGuard {
    fn drop(&mut self) {
        let _ = killpg(Pid::from_raw(self.0), Signal::SIGKILL);
    }
}

fn spawn_reader<R: AsyncRead + Unpin + Send + 'static>(reader: Option<R>) -> JoinHandle<Capture> {
    tokio::spawn(async move {
        let mut capture = Capture::default();
        let Some(mut reader) = reader else { return capture };
        let mut buf = vec![0u8; 64 * 1024];
        loop {
            match reader.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => capture.push(&buf[..n], MAX_OUTPUT_BYTES),
            }
        }
        capture
    })
}

async fn collect(handle: JoinHandle<Capture>) -> Capture {
    match tokio::time::timeout(Duration::from_secs(2), handle).await {
        Ok(Ok(capture)) => capture,
        _ => Capture::default(),
    }
}

/// Runs `command` with `sh -c` in `workspace`, without the variables in `scrubbed_env`;
/// `on_spawn` learns the process group as soon as it exists.
pub async fn run_shell(
    workspace: &Path,
    scrubbed_env: &[String],
    command: &str,
    timeout_ms: u64,
    cancel: &CancellationToken,
    on_spawn: &(dyn Fn(ProcessGroup) + Sync),
) -> ToolOutput {
    let timeout_ms = timeout_ms.clamp(1, MAX_TIMEOUT_MS);
    let mut shell = tokio::process::Command::new("sh");
    for name in scrubbed_env {
        shell.env_remove(name);
    }
    let mut child = match shell
        .arg("-c")
        .arg(command)
        .current_dir(workspace)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true)
        .spawn()
    {
        Ok(child) => child,
        Err(err) => return ToolOutput::error(format!("cannot start sh: {err}")),
    };
    let Some(pid) = child.id() else {
        return ToolOutput::error("the shell exited before it could be tracked".to_string());
    };
    let guard = GroupGuard(pid as i32);
    if let Some(group) = ProcessGroup::of_leader(pid as i32) {
        on_spawn(group);
    }
    let watchdog = Watchdog::start(pid as i32);
    let stdout = spawn_reader(child.stdout.take());
    let stderr = spawn_reader(child.stderr.take());

    let outcome = tokio::select! {
        status = child.wait() => Ok(status),
        _ = tokio::time::sleep(Duration::from_millis(timeout_ms)) => Err(format!("[timed out after {timeout_ms} ms; the command's process group was killed]")),
        _ = cancel.cancelled() => Err("[cancelled; the command's process group was killed]".to_string()),
    };
    drop(guard);
    drop(watchdog);
    let (out_text, out_lossy, out_dropped) = collect(stdout).await.into_text();
    let (err_text, err_lossy, err_dropped) = collect(stderr).await.into_text();

    let mut text = out_text;
    if !err_text.is_empty() {
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text.push_str("[stderr]\n");
        text.push_str(&err_text);
    }
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    let ok = match &outcome {
        Ok(Ok(status)) => {
            match status.code() {
                Some(code) => text.push_str(&format!("[exit code {code}]")),
                None => text.push_str("[killed by a signal]"),
            }
            status.success()
        }
        Ok(Err(err)) => {
            text.push_str(&format!("[could not wait for the command: {err}]"));
            false
        }
        Err(note) => {
            text.push_str(note);
            false
        }
    };
    let lossy = out_lossy || err_lossy;
    let dropped = out_dropped + err_dropped;
    let output_bytes = text.len() as u64 + dropped;
    ToolOutput { ok, content: annotate(text, lossy, dropped), lossy, dropped_bytes: dropped, output_bytes }
}
