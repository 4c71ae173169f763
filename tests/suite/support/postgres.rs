//! A real PostgreSQL server for the archive tests: Debian's `initdb` and `pg_ctl` on a scratch
//! directory and a free port of 127.0.0.1, password authentication (scram-sha-256) for user
//! `alisio`, stopped when dropped. PostgreSQL refuses to run as root: as root, it runs as the
//! `postgres` user.

use std::path::{Path, PathBuf};
use std::process::Command;

pub const USER: &str = "alisio";
pub const PASSWORD: &str = "archive-test-password";

pub struct Postgres {
    dir: tempfile::TempDir,
    pub port: u16,
}

fn tool(name: &str) -> PathBuf {
    for dir in
        ["/usr/local/bin", "/usr/lib/postgresql/17/bin", "/usr/lib/postgresql/16/bin", "/usr/lib/postgresql/15/bin"]
    {
        let path = Path::new(dir).join(name);
        if path.exists() {
            return path;
        }
    }
    PathBuf::from(name)
}

fn is_root() -> bool {
    Command::new("id").arg("-u").output().is_ok_and(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
}

/// `program args…`, as the `postgres` user when this runs as root.
fn as_owner(program: &Path) -> Command {
    if is_root() {
        let mut command = Command::new("runuser");
        command.args(["-u", "postgres", "--"]).arg(program);
        command
    } else {
        Command::new(program)
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").and_then(|l| l.local_addr()).map(|a| a.port()).unwrap()
}

impl Postgres {
    pub fn start() -> Postgres {
        let dir = tempfile::tempdir().unwrap();
        if is_root() {
            let status = Command::new("chown").args(["-R", "postgres"]).arg(dir.path()).status().unwrap();
            assert!(status.success(), "chown the scratch directory to postgres");
        }
        let pwfile = dir.path().join("pw");
        std::fs::write(&pwfile, PASSWORD).unwrap();
        if is_root() {
            Command::new("chown").arg("postgres").arg(&pwfile).status().unwrap();
        }
        let data = dir.path().join("data");
        let out = as_owner(&tool("initdb"))
            .arg("-D")
            .arg(&data)
            .args(["-U", USER, "-A", "scram-sha-256", "--no-sync"])
            .arg(format!("--pwfile={}", pwfile.display()))
            .output()
            .expect("initdb (Debian's postgresql) is installed");
        assert!(out.status.success(), "initdb: {}", String::from_utf8_lossy(&out.stderr));
        let port = free_port();
        let options = format!("-p {port} -k {} -c listen_addresses=127.0.0.1 -c fsync=off", dir.path().display());
        let out = as_owner(&tool("pg_ctl"))
            .arg("-D")
            .arg(&data)
            .args(["-o", &options, "-l"])
            .arg(dir.path().join("log"))
            .args(["-w", "start"])
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "pg_ctl start: {} {}",
            String::from_utf8_lossy(&out.stderr),
            std::fs::read_to_string(dir.path().join("log")).unwrap_or_default()
        );
        Postgres { dir, port }
    }

    /// The archive's URL (no password in it).
    pub fn url(&self) -> String {
        format!("postgres://{USER}@127.0.0.1:{}/postgres", self.port)
    }

    /// One query's rows, `|`-separated, through `psql`.
    pub fn sql(&self, query: &str) -> Vec<String> {
        let out = Command::new("psql")
            .env("PGPASSWORD", PASSWORD)
            .args(["-h", "127.0.0.1", "-p", &self.port.to_string(), "-U", USER, "-d", "postgres", "-At", "-c", query])
            .output()
            .unwrap();
        assert!(out.status.success(), "psql {query}: {}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8_lossy(&out.stdout).lines().map(str::to_string).collect()
    }

    /// The first column of the first row, or `None` when the query fails (a table not made yet).
    pub fn try_first(&self, query: &str) -> Option<String> {
        let out = Command::new("psql")
            .env("PGPASSWORD", PASSWORD)
            .args(["-h", "127.0.0.1", "-p", &self.port.to_string(), "-U", USER, "-d", "postgres", "-At", "-c", query])
            .output()
            .ok()?;
        out.status
            .success()
            .then(|| String::from_utf8_lossy(&out.stdout).lines().next().unwrap_or_default().to_string())
    }

    /// The first column of the first row, as a number.
    pub fn count(&self, query: &str) -> u64 {
        self.sql(query).first().and_then(|r| r.parse().ok()).unwrap_or_else(|| panic!("not a number: {query}"))
    }
}

impl Drop for Postgres {
    fn drop(&mut self) {
        let _ = as_owner(&tool("pg_ctl"))
            .arg("-D")
            .arg(self.dir.path().join("data"))
            .args(["-m", "immediate", "stop"])
            .output();
    }
}
