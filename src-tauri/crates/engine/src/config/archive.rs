//! A team's archive: the PostgreSQL database `alisio push` sends sessions to, and who sends them.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};

/// One archive (`archives.NAME`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(default, rename_all = "camelCase")]
pub struct ArchiveConfig {
    /// `postgres://user@host:port/database`, without a password (see `passwordEnv`).
    pub url: String,
    /// The environment variable that holds the password; it is never stored.
    pub password_env: Option<String>,
    /// Redact secrets (the secret catalog) before anything leaves this machine.
    pub redact: bool,
    /// This machine's name in the archive; `null`: its host name.
    pub machine: Option<String>,
    /// Whose sessions these are; `null`: the login name (`$USER`).
    pub user: Option<String>,
}

impl Default for ArchiveConfig {
    fn default() -> Self {
        Self { url: String::new(), password_env: None, redact: true, machine: None, user: None }
    }
}

impl ArchiveConfig {
    /// The URL's shape: PostgreSQL, and no password in it.
    pub fn validate(&self, name: &str) -> Result<()> {
        let at = format!("archives.{name}.url");
        let Some(rest) = self.url.strip_prefix("postgres://").or_else(|| self.url.strip_prefix("postgresql://")) else {
            return Err(Error::Config(format!(
                "{at} = {:?} is not a PostgreSQL URL; write it as \"postgres://user@host:5432/database\"",
                self.url
            )));
        };
        let authority = rest.split(['/', '?']).next().unwrap_or_default();
        if authority.rsplit_once('@').is_some_and(|(credentials, _)| credentials.contains(':')) {
            return Err(Error::Config(format!(
                "{at} holds a password; take it out of the URL and name the environment variable that holds it in archives.{name}.passwordEnv"
            )));
        }
        for (key, value) in [("machine", &self.machine), ("user", &self.user)] {
            if value.as_deref().is_some_and(|v| v.trim().is_empty()) {
                return Err(Error::Config(format!(
                    "archives.{name}.{key} must not be empty (leave it out for the default)"
                )));
            }
        }
        Ok(())
    }

    /// The machine's name: `machine`, else the host name.
    pub fn machine_name(&self) -> String {
        if let Some(machine) = &self.machine {
            return machine.clone();
        }
        let from_file = |path: &str| std::fs::read_to_string(path).ok().map(|s| s.trim().to_string());
        std::env::var("HOSTNAME")
            .ok()
            .or_else(|| from_file("/proc/sys/kernel/hostname"))
            .or_else(|| from_file("/etc/hostname"))
            .filter(|h| !h.is_empty())
            .unwrap_or_else(|| "this-machine".into())
    }

    /// Whose sessions: `user`, else the login name.
    pub fn user_name(&self) -> String {
        self.user
            .clone()
            .or_else(|| std::env::var("USER").ok())
            .or_else(|| std::env::var("USERNAME").ok())
            .filter(|u| !u.is_empty())
            .unwrap_or_else(|| "unknown".into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_url_with_a_password_or_of_another_database_is_refused() {
        let with = |url: &str| ArchiveConfig { url: url.into(), ..ArchiveConfig::default() }.validate("team");
        assert!(with("postgres://ana@db.example:5432/alisio").is_ok());
        assert!(with("postgresql://db.example/alisio").is_ok());
        assert!(with("postgres://ana:hunter2@db/alisio").unwrap_err().to_string().contains("passwordEnv"));
        assert!(with("mysql://db/alisio").unwrap_err().to_string().contains("not a PostgreSQL URL"));
    }
}
