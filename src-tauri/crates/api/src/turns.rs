//! User turns: run one to its answer (the CLI waits for it; the window starts it and follows its
//! events), stop one, answer a tool's permission question.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use alisio_engine::agent::{TurnOutcome, TurnRequest};
use alisio_engine::events::{Envelope, Event};
use alisio_engine::lock;
use alisio_engine::tools::{Approver, FixedApprover, PermissionKind};
use alisio_engine::transcript::ToolCall;
use futures_util::future::BoxFuture;
use serde::Deserialize;
use tokio::sync::oneshot;
use ts_rs::TS;

use crate::app::{Approvals, Live};
use crate::error::{ApiError, ApiResult};
use crate::events::{Emit, UiEvent};
use crate::sessions::SessionRequest;
use crate::App;

#[derive(Debug, Clone, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct RunTurn {
    /// Continue this session (id or unique prefix); none starts a new one.
    pub session: Option<String>,
    pub prompt: String,
    /// The workspace of a new session (default: the current directory).
    #[ts(optional)]
    #[serde(default)]
    pub workspace: Option<String>,
}

#[derive(Debug, Clone, Deserialize, TS)]
#[serde(rename_all = "camelCase")]
pub struct PermissionAnswer {
    pub id: u64,
    pub approve: bool,
}

/// Runs a turn to its answer (`alisio run`); events go where the application sends them.
pub async fn run(app: &App, request: RunTurn) -> ApiResult<TurnOutcome> {
    let turn = prepare(app, request)?;
    let engine = app.engine()?;
    let cancel = app.operation();
    let sink = app.sink();
    let known = turn.session.clone();
    let outcome = engine.run_turn(turn, &sink, &cancel).await;
    if let Some(id) = outcome.as_ref().map(|o| o.session.clone()).ok().or(known) {
        app.touched(&id);
    }
    Ok(outcome?)
}

/// Starts a turn in the background (the window); progress arrives as events and its end as
/// [`UiEvent::TurnFinished`]. Returns the session id as soon as the engine has it.
pub async fn start(app: &App, request: RunTurn) -> ApiResult<String> {
    let mut turn = prepare(app, request)?;
    let engine = app.engine()?;
    // The session id is known once the engine has created or resolved it: wait for that event.
    let (id_tx, id_rx) = oneshot::channel::<String>();
    let id_tx = Mutex::new(Some(id_tx));
    let emit = app.options.emit.clone();
    let live = app.live.clone();
    let cancel = app.operation();
    let session_id = Arc::new(Mutex::new(String::new()));
    if app.options.approvals == Approvals::Ask {
        turn.approver =
            Arc::new(WindowApprover { session: session_id.clone(), live: live.clone(), emit: emit.clone() });
    }
    tokio::spawn(async move {
        let seen = session_id.clone();
        let (live_for_sink, cancel_for_sink, emit_for_sink) = (live.clone(), cancel.clone(), emit.clone());
        let sink = move |envelope: &Envelope| {
            if let Event::Session { id } = &envelope.event {
                *lock(&seen) = id.clone();
                lock(&live_for_sink).turns.insert(id.clone(), cancel_for_sink.clone());
                if let Some(tx) = lock(&id_tx).take() {
                    let _ = tx.send(id.clone());
                }
            }
            emit_for_sink(UiEvent::Engine { envelope: envelope.clone() });
        };
        let result = engine.run_turn(turn, &sink, &cancel).await;
        let id = lock(&session_id).clone();
        lock(&live).turns.remove(&id);
        emit(UiEvent::TurnFinished { session: id, error: result.err().map(|e| e.to_string()) });
    });
    id_rx.await.map_err(|_| ApiError::failed("the turn ended before it started"))
}

/// Stops the session's running turn (its tool's process group is killed); false when none runs.
pub async fn cancel(app: &App, request: SessionRequest) -> ApiResult<bool> {
    Ok(match lock(&app.live).turns.get(&request.session) {
        Some(cancel) => {
            cancel.cancel();
            true
        }
        None => false,
    })
}

/// The user's answer to a `PermissionRequest`.
pub async fn answer_permission(app: &App, request: PermissionAnswer) -> ApiResult<()> {
    let sender = lock(&app.live)
        .permissions
        .remove(&request.id)
        .ok_or_else(|| ApiError::invalid(format!("no pending permission request {}", request.id)))?;
    let _ = sender.send(request.approve);
    Ok(())
}

fn prepare(app: &App, request: RunTurn) -> ApiResult<TurnRequest> {
    if request.prompt.trim().is_empty() {
        return Err(ApiError::invalid("the prompt is empty"));
    }
    let workspace = match (&request.session, request.workspace) {
        (Some(id), _) => PathBuf::from(app.session(id)?.workspace),
        (None, Some(dir)) => PathBuf::from(dir),
        (None, None) => {
            std::env::current_dir().map_err(|e| ApiError::invalid(format!("cannot read the current directory: {e}")))?
        }
    };
    let approve = match app.options.approvals {
        Approvals::Fixed(yes) => yes,
        Approvals::Ask => false,
    };
    Ok(TurnRequest {
        session: request.session,
        prompt: request.prompt,
        workspace,
        approver: Arc::new(FixedApprover(approve)),
    })
}

/// Asks the window before running tools whose permission is "ask".
struct WindowApprover {
    /// Filled in by the turn's session event (a new session's id is known only then).
    session: Arc<Mutex<String>>,
    live: Arc<Mutex<Live>>,
    emit: Emit,
}

impl Approver for WindowApprover {
    fn approve<'a>(&'a self, call: &'a ToolCall, permission: &'a PermissionKind) -> BoxFuture<'a, bool> {
        Box::pin(async move {
            let (tx, rx) = oneshot::channel();
            let id = {
                let mut live = lock(&self.live);
                live.next_permission += 1;
                let id = live.next_permission;
                live.permissions.insert(id, tx);
                id
            };
            (self.emit)(UiEvent::PermissionRequest {
                id,
                session: lock(&self.session).clone(),
                call: call.clone(),
                permission: permission.config_key(),
            });
            rx.await.unwrap_or(false)
        })
    }
}
