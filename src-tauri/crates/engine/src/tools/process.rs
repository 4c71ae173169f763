//! The process group a tool call runs in, as the journal records it, and what becomes of a group
//! whose run was killed: a watchdog kills it when the process that started it dies, and the next
//! start (or recovery) kills any member still alive. Linux `/proc` tells members and start times.

use nix::sys::signal::{killpg, Signal};
use nix::unistd::Pid;

/// A process group and the start time of its leader (clock ticks since boot).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProcessGroup {
    pub pgid: i32,
    pub started: u64,
}

/// `(pgrp, starttime)` of a live (not zombie) process, from `/proc/<pid>/stat`.
fn stat(pid: i32) -> Option<(i32, u64)> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name may hold spaces and parentheses: fields start after the last ')'.
    let rest = &text[text.rfind(')')? + 1..];
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // After the name: state(0) ppid(1) pgrp(2) … starttime(19).
    if matches!(fields.first(), Some(&"Z") | Some(&"X")) {
        return None;
    }
    Some((fields.get(2)?.parse().ok()?, fields.get(19)?.parse().ok()?))
}

impl ProcessGroup {
    /// The group led by `pid` (a process started in a group of its own).
    pub fn of_leader(pid: i32) -> Option<Self> {
        stat(pid).map(|(_, started)| ProcessGroup { pgid: pid, started })
    }

    /// Members still alive: processes in the group that started no earlier than its leader did.
    /// When a live leader with that number started at another time, the number was reused and
    /// nothing in the group is ours.
    pub fn live_members(&self) -> Vec<i32> {
        let Ok(entries) = std::fs::read_dir("/proc") else { return Vec::new() };
        let leader_reused = stat(self.pgid).is_some_and(|(pgrp, started)| pgrp == self.pgid && started != self.started);
        if leader_reused {
            return Vec::new();
        }
        entries
            .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
            .filter(|pid| stat(*pid).is_some_and(|(pgrp, started)| pgrp == self.pgid && started >= self.started))
            .collect()
    }

    /// Kills what is left of the group; returns whether anything was alive.
    pub fn kill_leftovers(&self) -> bool {
        if self.live_members().is_empty() {
            return false;
        }
        let _ = killpg(Pid::from_raw(self.pgid), Signal::SIGKILL);
        true
    }
}

use std::process::Stdio;

/// Kills a group of processes Alisio started if the Alisio process dies: the kernel sends the watchdog SIGTERM when
/// its parent exits (`--pdeathsig`), and its trap kills the group, then itself.
const WATCHDOG: &str =
    r#"trap 'kill -KILL -"$1" 2>/dev/null; kill -KILL 0' TERM; while :; do sleep 3600 & wait $!; done"#;

/// The watchdog's own group, killed (quietly, without its trap) when the tool ends normally; the
/// child handle lets the runtime reap it.
pub struct Watchdog(Option<tokio::process::Child>);

impl Watchdog {
    /// A watchdog for process group `group` (kills it when this process dies, even by SIGKILL).
    pub fn start(group: i32) -> Self {
        let spawned = tokio::process::Command::new("setpriv")
            .args(["--pdeathsig", "TERM", "--", "sh", "-c", WATCHDOG, "watchdog", &group.to_string()])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn();
        match spawned {
            Ok(child) => Watchdog(Some(child)),
            Err(err) => {
                tracing::debug!(
                    "no watchdog for process group {group} (setpriv: {err}); it is ended when Alisio ends it"
                );
                Watchdog(None)
            }
        }
    }
}

impl Drop for Watchdog {
    fn drop(&mut self) {
        if let Some(pgid) = self.0.as_ref().and_then(|child| child.id()) {
            let _ = killpg(Pid::from_raw(pgid as i32), Signal::SIGKILL);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::process::CommandExt;

    use super::*;

    #[test]
    fn a_leftover_group_is_found_and_killed_and_a_gone_one_is_left_alone() {
        let mut child =
            std::process::Command::new("sh").args(["-c", "sleep 30 & sleep 30"]).process_group(0).spawn().unwrap();
        let group = ProcessGroup::of_leader(child.id() as i32).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(100));
        assert!(group.live_members().len() >= 2, "sh and its sleeps");
        assert!(group.kill_leftovers());
        child.wait().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(100));
        assert!(group.live_members().is_empty());
        assert!(!group.kill_leftovers());
        let stale = ProcessGroup { pgid: group.pgid, started: group.started + 1_000_000_000 };
        assert!(stale.live_members().is_empty());
    }
}
