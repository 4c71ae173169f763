//! An error as both faces see it: a stable code (the window branches on it, the CLI turns it into
//! its exit code) and a message for people.

use serde::Serialize;
use ts_rs::TS;

#[derive(Debug, Clone, PartialEq, Serialize, TS, thiserror::Error)]
#[serde(rename_all = "camelCase")]
#[error("{message}")]
pub struct ApiError {
    pub code: ErrorCode,
    pub message: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub enum ErrorCode {
    /// Bad input or config (exit code 2 in the CLI).
    Invalid,
    /// No session has that id or prefix (exit 2).
    NotFound,
    /// The session has unacknowledged uncertain tool results (exit 3).
    Uncertain,
    /// Another process is working on the session (exit 1).
    Busy,
    /// The model server failed or refused (exit 1).
    Provider,
    /// The request cannot be brought under the limits, or the turn ran out of steps (exit 1).
    Budget,
    /// The database is corrupt, locked, read-only or unreadable (exit 1).
    Database,
    /// Stopped by the user (Ctrl-C; exit 130).
    Cancelled,
    /// Any other runtime failure (exit 1).
    Failed,
}

impl ErrorCode {
    /// The CLI's exit code for this kind of failure (docs/cli.md).
    pub fn exit_code(self) -> i32 {
        match self {
            ErrorCode::Invalid | ErrorCode::NotFound => 2,
            ErrorCode::Uncertain => 3,
            ErrorCode::Cancelled => 130,
            ErrorCode::Busy | ErrorCode::Provider | ErrorCode::Budget | ErrorCode::Database | ErrorCode::Failed => 1,
        }
    }
}

impl From<alisio_engine::Error> for ApiError {
    /// Each engine error's code, by its variant.
    fn from(err: alisio_engine::Error) -> Self {
        use alisio_engine::Error as E;
        let code = match &err {
            E::Config(_) | E::Usage(_) | E::AmbiguousSession(_) => ErrorCode::Invalid,
            E::SessionNotFound(_) => ErrorCode::NotFound,
            E::Uncertain { .. } => ErrorCode::Uncertain,
            E::Busy { .. } => ErrorCode::Busy,
            E::Provider(_) => ErrorCode::Provider,
            E::Budget(_) | E::StepLimit(_) => ErrorCode::Budget,
            E::Database { .. } | E::Sqlite(_) => ErrorCode::Database,
            // A home from a newer release is the user's choice of home to fix (exit 2).
            E::NewerHome { .. } => ErrorCode::Invalid,
            E::Cancelled => ErrorCode::Cancelled,
            E::Unreadable(_) | E::Redaction(_) | E::Rewritten | E::Io { .. } | E::Json(_) => ErrorCode::Failed,
        };
        ApiError { code, message: err.to_string() }
    }
}

impl ApiError {
    pub fn invalid(message: impl Into<String>) -> Self {
        ApiError { code: ErrorCode::Invalid, message: message.into() }
    }

    pub fn failed(message: impl Into<String>) -> Self {
        ApiError { code: ErrorCode::Failed, message: message.into() }
    }

    pub fn exit_code(&self) -> i32 {
        self.code.exit_code()
    }
}

pub type ApiResult<T> = Result<T, ApiError>;

/// Runs blocking store work off the async runtime; a task that panicked is a failure, not a hang.
pub async fn blocking<T: Send + 'static>(
    what: &str,
    work: impl FnOnce() -> ApiResult<T> + Send + 'static,
) -> ApiResult<T> {
    tokio::task::spawn_blocking(work).await.map_err(|e| ApiError::failed(format!("{what} failed: {e}")))?
}

#[cfg(test)]
mod tests {
    use super::*;
    use alisio_engine::Error;

    /// Each engine error keeps its own code (what the window branches on) and the CLI's exit code.
    #[test]
    fn engine_errors_map_to_codes_by_variant() {
        let cases = [
            (Error::Usage("--by".into()), ErrorCode::Invalid, 2),
            (Error::SessionNotFound("abc".into()), ErrorCode::NotFound, 2),
            (Error::Busy { session: "s".into(), holder: "pid 1".into() }, ErrorCode::Busy, 1),
            (Error::Provider("HTTP 500".into()), ErrorCode::Provider, 1),
            (Error::Budget("too big".into()), ErrorCode::Budget, 1),
            (Error::Database { path: "x.db".into(), problem: "corrupt".into() }, ErrorCode::Database, 1),
            (Error::Cancelled, ErrorCode::Cancelled, 130),
            (
                Error::NewerHome {
                    path: "x.db".into(),
                    schema: 99,
                    written_by: "9.0.0".into(),
                    ours: "0.1.0",
                    ours_schema: 24,
                },
                ErrorCode::Invalid,
                2,
            ),
            (Error::Rewritten, ErrorCode::Failed, 1),
        ];
        for (error, code, exit) in cases {
            let api = ApiError::from(error);
            assert_eq!((api.code, api.exit_code()), (code, exit), "{}", api.message);
        }
    }
}
