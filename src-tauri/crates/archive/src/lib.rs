//! A team's archive: every developer's sessions in one PostgreSQL database. `alisio push` sends a
//! home's sessions there — messages, the ledger priced, compactions, pins, forks — labelled with the
//! machine and the user, redacted before anything leaves (`push`); the team reads it with the same
//! shapes as a home's usage and search (`query`). The archive has its own schema and migrations
//! (`schema`, docs/archive.md). PostgreSQL does the indexing: full text (`tsvector`) and trigrams
//! (`pg_trgm`) for the tokens code is made of.

pub mod mirror;
pub mod push;
pub mod query;
pub mod schema;
pub mod tokens;

use alisio_engine::config::ArchiveConfig;
use tokio_postgres::NoTls;

/// What can go wrong with an archive.
#[derive(Debug, thiserror::Error)]
pub enum ArchiveError {
    /// The archive named is not configured, or its settings cannot work (exit 2).
    #[error("{0}")]
    Config(String),
    /// The archive could not be reached or refused (exit 1).
    #[error("{0}")]
    Unreachable(String),
    /// A query failed.
    #[error("the archive {archive} answered with an error: {message}")]
    Postgres { archive: String, message: String },
    #[error(transparent)]
    Engine(#[from] alisio_engine::Error),
}

pub type Result<T> = std::result::Result<T, ArchiveError>;

/// A connected archive: its name, the machine and user this home pushes as.
pub struct Archive {
    pub name: String,
    pub machine: String,
    pub user: String,
    pub(crate) client: tokio_postgres::Client,
    connection: tokio::task::JoinHandle<()>,
}

impl Drop for Archive {
    fn drop(&mut self) {
        self.connection.abort();
    }
}

impl Archive {
    /// Connects to archive `name` of `archives` and brings its schema up to date.
    pub async fn open(archives: &std::collections::BTreeMap<String, ArchiveConfig>, name: &str) -> Result<Archive> {
        let Some(config) = archives.get(name) else {
            let known: Vec<&str> = archives.keys().map(String::as_str).collect();
            return Err(ArchiveError::Config(if known.is_empty() {
                format!("no archive is named `{name}`: add one under \"archives\" in the config (docs/archive.md)")
            } else {
                format!("no archive is named `{name}` (archives: {})", known.join(", "))
            }));
        };
        let archive = Self::connect(name, config).await?;
        schema::migrate(&archive).await?;
        Ok(archive)
    }

    async fn connect(name: &str, config: &ArchiveConfig) -> Result<Archive> {
        config.validate(name)?;
        let mut pg: tokio_postgres::Config =
            config.url.parse().map_err(|e| ArchiveError::Config(format!("archives.{name}.url cannot be read: {e}")))?;
        if let Some(var) = &config.password_env {
            match std::env::var(var) {
                Ok(password) => {
                    pg.password(password);
                }
                Err(_) => {
                    return Err(ArchiveError::Config(format!(
                        "archives.{name}.passwordEnv names {var}, which is not set in this environment"
                    )))
                }
            }
        }
        pg.application_name("alisio").connect_timeout(std::time::Duration::from_secs(10));
        let (client, connection) = pg.connect(NoTls).await.map_err(|e| {
            ArchiveError::Unreachable(format!(
                "could not reach the archive {name} at {} ({e})",
                redacted_url(&config.url)
            ))
        })?;
        let connection = tokio::spawn(async move {
            if let Err(e) = connection.await {
                tracing::warn!("the archive connection ended: {e}");
            }
        });
        Ok(Archive {
            name: name.to_string(),
            machine: config.machine_name(),
            user: config.user_name(),
            client,
            connection,
        })
    }

    /// One query's rows (for readers beside this crate: the served library).
    pub async fn query(
        &self,
        sql: &str,
        params: &[&(dyn tokio_postgres::types::ToSql + Sync)],
    ) -> Result<Vec<tokio_postgres::Row>> {
        self.client.query(sql, params).await.map_err(|e| self.fail(e))
    }

    pub(crate) fn fail(&self, e: tokio_postgres::Error) -> ArchiveError {
        push::fail(&self.name, e)
    }
}

/// A URL as messages show it: without anything between `//` and `@` but the user.
fn redacted_url(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(start), Some(at)) if at > start => {
            let user = url[start + 3..at].split(':').next().unwrap_or_default();
            format!("{}{user}{}", &url[..start + 3], &url[at..])
        }
        _ => url.to_string(),
    }
}
