//! The engine's one error type. Every message says what happened and what to do next.

use std::path::PathBuf;

pub type Result<T, E = Error> = std::result::Result<T, E>;

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A configuration file or value is invalid (exit code 2).
    #[error("invalid config: {0}")]
    Config(String),

    /// The command line asked for something that cannot be done as asked (exit code 2).
    #[error("{0}")]
    Usage(String),

    #[error("no session matches `{0}` (see `alisio sessions list`)")]
    SessionNotFound(String),

    #[error("session id prefix `{0}` is ambiguous; give more characters")]
    AmbiguousSession(String),

    /// The session has tool calls whose outcome is unknown (exit code 3).
    #[error(
        "session {session} has {count} tool call(s) with an uncertain result ({calls}); Alisio never re-runs them. \
         Inspect their effects, then run `alisio sessions recover {session} --acknowledge`{killed}"
    )]
    Uncertain {
        session: String,
        count: usize,
        calls: String,
        /// Empty, or a sentence naming the leftover process groups that were just killed.
        killed: String,
    },

    /// Another live process is driving the session (exit code 1).
    #[error(
        "session {session} is being driven by {holder}; one process drives a session at a time. \
         Wait for it to finish, or stop it (its claim ends with it)"
    )]
    Busy { session: String, holder: String },

    #[error("the database at {path} {problem}")]
    Database { path: PathBuf, problem: String },

    /// A home written by a newer Alisio (exit code 2): left untouched.
    #[error(
        "the database at {path} was written by Alisio {written_by} (schema {schema}); this is Alisio {ours} (schema up \
         to {ours_schema}), which cannot read it. It was left untouched: upgrade Alisio, or set ALISIO_HOME to another \
         directory"
    )]
    NewerHome { path: PathBuf, schema: i64, written_by: String, ours: &'static str, ours_schema: i64 },

    #[error("database error: {0}")]
    Sqlite(#[from] rusqlite::Error),

    #[error("{0}")]
    Provider(String),

    /// A file given to read could not be read (exit code 1).
    #[error("{0}")]
    Unreadable(String),

    /// Redaction could not run, so nothing was shared (exit code 1).
    #[error("redaction cannot run ({0}); nothing was written or sent")]
    Redaction(String),

    #[error("{0}")]
    StepLimit(String),

    #[error("{0}")]
    Budget(String),

    #[error("cancelled")]
    Cancelled,

    /// A source file was rewritten in place while it was read (the importer starts over).
    #[error("the file was rewritten while it was read")]
    Rewritten,

    #[error("{context}: {source}")]
    Io { context: String, source: std::io::Error },

    #[error("{0}")]
    Json(#[from] serde_json::Error),
}

impl Error {
    pub fn io(context: impl Into<String>, source: std::io::Error) -> Self {
        Error::Io { context: context.into(), source }
    }
}
