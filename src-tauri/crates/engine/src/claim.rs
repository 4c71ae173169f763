//! One process per session: the process driving a session (a turn, a compaction, a recovery)
//! claims it with an exclusive `flock` on `$ALISIO_HOME/locks/<session>.lock`, which names the
//! holder. The operating system drops the lock when the process dies, however it dies, so a crash
//! never leaves a session blocked; views ask whether a claim is held to tell a tool call that is
//! running in a live process from one whose process is gone.

use std::fs::File;
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use nix::errno::Errno;
use nix::fcntl::{Flock, FlockArg};

use crate::error::{Error, Result};
use crate::ids::SessionId;

/// How long `acquire` waits out a view that is probing the claim at the same moment.
const PROBE_GRACE: Duration = Duration::from_millis(500);

/// A held claim; dropping it releases the session.
pub struct SessionClaim {
    _lock: Flock<File>,
}

/// Who holds a claim, as it wrote itself into the lock file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Holder {
    pub pid: Option<u32>,
    pub operation: String,
}

impl std::fmt::Display for Holder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.pid {
            Some(pid) => write!(f, "process {pid} ({})", self.operation),
            None => write!(f, "another process ({})", self.operation),
        }
    }
}

fn lock_path(home: &Path, session: &str) -> PathBuf {
    home.join("locks").join(format!("{session}.lock"))
}

fn read_holder(file: &mut File) -> Holder {
    let mut text = String::new();
    let _ = file.rewind().and_then(|()| file.read_to_string(&mut text));
    let mut lines = text.lines();
    let pid = lines.next().and_then(|l| l.trim().parse().ok());
    let operation = lines.next().unwrap_or("alisio").trim().to_string();
    Holder { pid, operation }
}

impl SessionClaim {
    /// Claims `session` for this process, or fails naming the live process that holds it.
    pub fn acquire(home: &Path, session: &SessionId, operation: &str) -> Result<SessionClaim> {
        let path = lock_path(home, session);
        let io = |e| Error::io(format!("cannot claim session {session} ({})", path.display()), e);
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(io)?;
        }
        let mut file =
            std::fs::OpenOptions::new().read(true).write(true).create(true).truncate(false).open(&path).map_err(io)?;
        let started = Instant::now();
        let mut lock = loop {
            match Flock::lock(file, FlockArg::LockExclusiveNonblock) {
                Ok(lock) => break lock,
                Err((mut back, Errno::EWOULDBLOCK)) => {
                    // A view holds the lock for an instant to probe it; a driving process holds it.
                    if started.elapsed() >= PROBE_GRACE {
                        return Err(Error::Busy {
                            session: session.to_string(),
                            holder: read_holder(&mut back).to_string(),
                        });
                    }
                    std::thread::sleep(Duration::from_millis(20));
                    file = back;
                }
                Err((_, errno)) => return Err(io(std::io::Error::from(errno))),
            }
        };
        let me = format!("{}\nalisio {operation}\n", std::process::id());
        lock.set_len(0).and_then(|()| lock.rewind()).and_then(|()| lock.write_all(me.as_bytes())).map_err(io)?;
        Ok(SessionClaim { _lock: lock })
    }

    /// Claims `session`, waiting while another process holds it, until `cancelled` says to stop.
    pub fn wait(
        home: &Path,
        session: &SessionId,
        operation: &str,
        cancelled: &dyn Fn() -> bool,
    ) -> Result<SessionClaim> {
        loop {
            match SessionClaim::acquire(home, session, operation) {
                Err(Error::Busy { .. }) if !cancelled() => std::thread::sleep(Duration::from_millis(50)),
                Err(Error::Busy { .. }) => return Err(Error::Cancelled),
                other => return other,
            }
        }
    }

    /// The live process that holds `session`, if any (read-only: works on a read-only home).
    pub fn holder(home: &Path, session: &SessionId) -> Option<Holder> {
        let file = File::open(lock_path(home, session)).ok()?;
        match Flock::lock(file, FlockArg::LockSharedNonblock) {
            Ok(_unlocked_on_drop) => None,
            Err((mut file, Errno::EWOULDBLOCK)) => Some(read_holder(&mut file)),
            Err(_) => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_claim_excludes_others_names_its_holder_and_dies_with_its_owner() {
        let home = tempfile::tempdir().unwrap();
        let (s, other) = (SessionId::from_string("s".into()), SessionId::from_string("other".into()));
        assert_eq!(SessionClaim::holder(home.path(), &s), None);
        let claim = SessionClaim::acquire(home.path(), &s, "run").unwrap();
        let holder = SessionClaim::holder(home.path(), &s).unwrap();
        assert_eq!(holder, Holder { pid: Some(std::process::id()), operation: "alisio run".into() });
        let err = SessionClaim::acquire(home.path(), &s, "compact").err().unwrap().to_string();
        assert!(err.contains(&format!("process {} (alisio run)", std::process::id())), "{err}");
        assert!(SessionClaim::acquire(home.path(), &other, "run").is_ok(), "claims are per session");
        drop(claim);
        assert_eq!(SessionClaim::holder(home.path(), &s), None);
        SessionClaim::acquire(home.path(), &s, "compact").unwrap();
    }
}
