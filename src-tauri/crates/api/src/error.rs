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
    /// The session has unacknowledged uncertain tool results (exit 3).
    Uncertain,
    /// Stopped by the user (Ctrl-C; exit 130).
    Cancelled,
    /// Provider, budget, database or other runtime failure (exit 1).
    Failed,
}

impl ErrorCode {
    /// The CLI's exit code for this kind of failure (docs/cli.md).
    pub fn exit_code(self) -> i32 {
        match self {
            ErrorCode::Invalid => 2,
            ErrorCode::Uncertain => 3,
            ErrorCode::Cancelled => 130,
            ErrorCode::Failed => 1,
        }
    }
}

impl From<alisio_engine::Error> for ApiError {
    fn from(err: alisio_engine::Error) -> Self {
        let code = match err.exit_code() {
            2 => ErrorCode::Invalid,
            3 => ErrorCode::Uncertain,
            130 => ErrorCode::Cancelled,
            _ => ErrorCode::Failed,
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

/// A `--source` filter checked against the sources there are (an unknown one is a usage error
/// naming them, never a filter that silently lists nothing).
pub fn checked_source(source: Option<String>) -> ApiResult<Option<String>> {
    source.map(|s| alisio_engine::import::agents::source_filter(&s).map_err(ApiError::invalid)).transpose()
}

/// Runs blocking store work off the async runtime; a task that panicked is a failure, not a hang.
pub async fn blocking<T: Send + 'static>(
    what: &str,
    work: impl FnOnce() -> ApiResult<T> + Send + 'static,
) -> ApiResult<T> {
    tokio::task::spawn_blocking(work).await.map_err(|e| ApiError::failed(format!("{what} failed: {e}")))?
}
