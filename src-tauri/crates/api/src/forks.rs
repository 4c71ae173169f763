//! Fork and compare: a new session from what the model saw after any message of any
//! session, own or imported (`alisio sessions fork`, "Fork from here"); two sessions aligned
//! message by message with their totals (`alisio sessions diff`, the Compare view).

use alisio_engine::calls::compare::{self, SessionDiff};
use alisio_engine::calls::exact_start::exact_start;
use alisio_engine::store::sessions::ForkedFrom;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::error::{blocking, ApiError, ApiResult};
use crate::App;

#[derive(Debug, Clone, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct ForkRequest {
    pub session: String,
    /// The message after which the fork branches.
    pub at: i64,
    /// Default: "Fork of <title> at #<at>".
    #[serde(default)]
    #[ts(optional)]
    pub title: Option<String>,
    /// Where its tools work. Default: the source's workspace when it is a folder here, else the
    /// current directory (an imported session may come from another machine).
    #[serde(default)]
    #[ts(optional)]
    pub workspace: Option<String>,
}

/// The new session (`sessions fork --json`).
#[derive(Debug, Clone, Serialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct Forked {
    pub id: String,
    pub workspace: String,
    pub forked_from: ForkedFrom,
    /// Messages it starts with.
    pub messages: u64,
    /// The source's call whose exact request (the agent's log, or the proxy) it starts from;
    /// null when it starts from the transcript as rebuilt.
    pub from_call: Option<usize>,
}

#[derive(Debug, Clone, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct SessionDiffRequest {
    pub a: String,
    pub b: String,
    /// The aligned transcripts too (the Compare view).
    #[serde(default)]
    #[ts(optional)]
    pub messages: Option<bool>,
}

/// Forks a session after message `at`; the source is only read.
pub async fn fork(app: &App, request: ForkRequest) -> ApiResult<Forked> {
    let source = app.session(&request.session)?;
    let store = app.store()?;
    let workspace = match request.workspace {
        Some(dir) if !std::path::Path::new(&dir).is_dir() => {
            return Err(ApiError::invalid(format!("the workspace {dir} is not a folder")));
        }
        Some(dir) => dir,
        None if std::path::Path::new(&source.workspace).is_dir() => source.workspace.clone(),
        None => std::env::current_dir()
            .map_err(|e| ApiError::failed(format!("cannot read the current directory: {e}")))?
            .display()
            .to_string(),
    };
    blocking("forking the session", move || {
        // An imported session whose agent's request is known starts from that request.
        let exact = match source.source {
            Some(_) => exact_start(&store, &source, request.at)?,
            None => None,
        };
        let from_call = exact.as_ref().map(|e| e.call);
        let start = exact.map(|e| (e.messages, e.through_seq));
        let (fork, messages) = store.fork(&source, request.at, request.title.as_deref(), &workspace, start)?;
        let forked_from =
            fork.forked_from.clone().unwrap_or(ForkedFrom { session: source.id.to_string(), seq: request.at });
        Ok(Forked {
            id: fork.id.to_string(),
            workspace: fork.workspace.clone(),
            forked_from,
            messages: messages as u64,
            from_call,
        })
    })
    .await
}

/// Two sessions compared: the shared prefix, the first divergence, each side's totals.
pub async fn diff(app: &App, request: SessionDiffRequest) -> ApiResult<SessionDiff> {
    let (a, b) = (app.session(&request.a)?, app.session(&request.b)?);
    let (store, forensics) = (app.store()?, app.forensics()?);
    let messages = request.messages.unwrap_or(false);
    blocking("comparing the sessions", move || Ok(compare::diff(&store, &a, &b, &forensics, messages)?)).await
}
