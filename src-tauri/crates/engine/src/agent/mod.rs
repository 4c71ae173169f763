//! The agent loop: a user turn runs model → tool calls → results → model … until the model answers
//! without tool calls. Every step is journaled so a crash leaves a state that can be explained:
//! a tool that started and never finished is uncertain and is never re-run automatically (README
//! "Crashes and uncertain tool results"). The top of the engine: it drives compaction through the
//! session's [`ContextGuard`] and the model through the [`ModelCaller`]; nothing imports it back.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Serialize;
use tokio_util::sync::CancellationToken;

use crate::calls::{self, ReplayReport};
use crate::claim::SessionClaim;
use crate::compaction::plugins::{self, CompactionPlugin};
use crate::compaction::{self, guard_for, CompactOutcome, Pressure, StepEnd, ToolGate};
use crate::config::Config;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::events::{CompactionReason, Envelope, Event, EventSink};
use crate::mcp::McpHub;
use crate::model::{ModelCaller, ModelClient};
use crate::provider::Provider;
use crate::secrets::Secrets;
use crate::store::journal::JournalEntry;
use crate::store::sessions::append_message;
use crate::store::{Session, Store};
use crate::telemetry::Telemetry;
use crate::tools::{Approver, ToolEnv};
use crate::transcript::{NewMessage, ToolCall};

mod recovery;
mod turn;

use recovery::*;
use turn::*;

/// The result recorded for a call whose outcome is unknown (docs/agent.md).
pub const UNCERTAIN_RESULT: &str = "result unknown — the process stopped while this tool was running, so Alisio \
    cannot say whether it completed. It was not re-run and nothing was undone; check its effects before relying on them.";

/// The result recorded for a call that was requested but provably never started.
pub const NOT_RUN_RESULT: &str = "not run — the process stopped before this tool started, so it had no effect.";

const ABORTED_RESULT: &str =
    "not run — the context filled up, so this step was stopped to summarize the work before continuing.";

const CANCELLED_RESULT: &str = "not run — the turn was cancelled before this tool started.";

/// The engine for one configuration and database: the entry points the CLI and the window call.
pub struct Engine {
    config: Config,
    store: Arc<Store>,
    model: ModelCaller,
    plugins: Vec<Box<dyn CompactionPlugin>>,
    secrets: Secrets,
    mcp: Arc<McpHub>,
    telemetry: Arc<Telemetry>,
}

pub struct TurnRequest {
    /// Continue this session (id or unique prefix); `None` starts a new one.
    pub session: Option<String>,
    pub prompt: String,
    /// Workspace of a new session (an existing session keeps its own).
    pub workspace: PathBuf,
    pub approver: Arc<dyn Approver>,
}

#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct TurnOutcome {
    pub session: String,
    pub text: String,
    pub steps: u32,
}

#[derive(Debug, Clone, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct RecoverReport {
    pub session: String,
    /// Calls whose uncertainty was recorded as their result.
    pub acknowledged: Vec<JournalEntry>,
    /// Calls that never started, answered as not run.
    pub not_run: Vec<JournalEntry>,
    /// Leftover process groups of uncertain calls that were still running and were killed first.
    pub killed: Vec<String>,
}

impl Engine {
    /// An engine that talks to the configured OpenAI-compatible server over HTTP.
    pub fn new(config: Config, store: Arc<Store>) -> Result<Self> {
        let provider = Provider::new(&config.provider)?;
        Self::with_client(config, store, Arc::new(provider))
    }

    /// An engine that sends its requests to `client` (the demo and tests use a scripted one).
    pub fn with_client(config: Config, store: Arc<Store>, client: Arc<dyn ModelClient>) -> Result<Self> {
        let home = store.path().parent().map(Path::to_path_buf).unwrap_or_default();
        let plugins = plugins::from_config(&config.plugins, &home)?;
        let model = ModelCaller::new(config.provider.clone(), config.limits.max_context_chars, client);
        let secrets = Secrets::from_config(&config);
        let mcp = Arc::new(McpHub::new(&config.mcp_servers, secrets.env_to_remove()));
        let telemetry = Arc::new(Telemetry::new(&config.telemetry.otlp)?);
        Ok(Self { config, store, model, plugins, secrets, mcp, telemetry })
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The OTLP pipeline (off without `telemetry.otlp.endpoint`).
    pub fn telemetry(&self) -> &Arc<Telemetry> {
        &self.telemetry
    }

    /// Sends the spans still queued (a process about to exit), bounded by the export timeout, and
    /// reports a collector failure as an event of `session` once.
    pub async fn flush_telemetry(&self, session: Option<&str>, sink: &dyn EventSink) {
        if !self.telemetry.enabled() {
            return;
        }
        let telemetry = self.telemetry.clone();
        let _ = tokio::task::spawn_blocking(move || telemetry.flush()).await;
        let Some((endpoint, error)) = self.telemetry.take_failure() else { return };
        match session.and_then(|id| self.store.resolve_session(id).ok()) {
            Some(record) => {
                let cancel = CancellationToken::new();
                self.context(&record, sink, &cancel).emit(Event::TelemetryFailed { endpoint, error });
            }
            None => tracing::warn!("telemetry: the collector at {endpoint} did not take the spans: {error}"),
        }
    }

    /// The configured MCP servers (started by the first turn, or by [`McpHub::start`]).
    pub fn mcp(&self) -> &Arc<McpHub> {
        &self.mcp
    }

    pub fn store(&self) -> &Arc<Store> {
        &self.store
    }

    /// Claims the session for this process for one operation (one process drives a session).
    /// A session imported from another agent is read-only: every operation that changes it is
    /// refused here, before anything is written.
    fn claim(&self, session: &Session, operation: &str) -> Result<SessionClaim> {
        if let Some(source) = &session.source {
            return Err(Error::Usage(format!(
                "session {} was imported from {source} ({}) and is read-only; `{operation}` works on Alisio's own sessions",
                session.id,
                session.source_path.as_deref().unwrap_or("?"),
            )));
        }
        SessionClaim::acquire(self.store.home(), &session.id, operation)
    }

    fn context<'a>(
        &'a self,
        session: &'a Session,
        sink: &'a dyn EventSink,
        cancel: &'a CancellationToken,
    ) -> Context<'a> {
        Context {
            store: &self.store,
            config: &self.config,
            model: &self.model,
            secrets: &self.secrets,
            mcp: &self.mcp,
            session,
            sink,
            cancel,
        }
    }

    /// Runs one user turn to completion. The session event is emitted first; on failure an `error`
    /// event is emitted and the user's message stays stored.
    pub async fn run_turn(
        &self,
        request: TurnRequest,
        sink: &dyn EventSink,
        cancel: &CancellationToken,
    ) -> Result<TurnOutcome> {
        let session = match &request.session {
            Some(id) => self.store.resolve_session(id)?,
            None => {
                let workspace = crate::tools::canonical_workspace(&request.workspace).map_err(|e| {
                    Error::io(format!("cannot use {} as the workspace", request.workspace.display()), e)
                })?;
                let title = title_of(&self.secrets.redact(&request.prompt));
                self.store.create_session(&workspace.to_string_lossy(), &title)?
            }
        };
        let _claim = self.claim(&session, "run")?;
        let ctx = self.context(&session, sink, cancel);
        ctx.emit(Event::Session { id: session.id.to_string() });
        let first_seq = self.store.next_seq(&session.id)?;
        let result = self.run_turn_in(&ctx, &request).await;
        if let Err(err) = &result {
            ctx.emit(Event::Error { message: err.to_string() });
        }
        // The turn's spans, from what was recorded (queued; the exporter sends them in the background).
        self.telemetry.export_turn(&self.store, &session.id, first_seq);
        if let Some((endpoint, error)) = self.telemetry.take_failure() {
            ctx.emit(Event::TelemetryFailed { endpoint, error });
        }
        result
    }

    async fn run_turn_in(&self, ctx: &Context<'_>, request: &TurnRequest) -> Result<TurnOutcome> {
        let session = ctx.session;
        settle_interrupted_calls(ctx.store, &session.id)?;
        let workspace = Path::new(&session.workspace);
        let env = ToolEnv {
            workspace: crate::tools::canonical_workspace(workspace)
                .map_err(|e| Error::io(format!("the session's workspace {} is not usable", workspace.display()), e))?,
            permissions: self.config.permissions.clone(),
            approver: request.approver.clone(),
            scrubbed_env: self.secrets.env_to_remove(),
        };
        let prompt = self.secrets.redact(&request.prompt).into_owned();
        self.store.write(|tx| append_message(tx, &session.id, &NewMessage::user(prompt)))?;
        self.mcp.start().await;

        let limits = &self.config.limits;
        let mut strategy = guard_for(&self.config, &self.plugins);
        let mut tokens_used: u64 = 0;
        let mut overflowed = false;
        for step in 1..=limits.max_steps_per_turn {
            if let Some(max) = limits.max_tokens {
                if tokens_used >= max {
                    return Err(Error::Budget(format!(
                        "this turn used {tokens_used} tokens, reaching limits.maxTokens ({max}); \
                         raise the limit or continue with `alisio run --session {}`",
                        session.id
                    )));
                }
            }
            report_mcp_failures(ctx);
            strategy.before_call(ctx).await?;
            let sent = match call_model(ctx).await {
                // Refused as too long: compact once per turn and send again.
                Err(Error::Provider(error))
                    if compaction::is_context_overflow(&error) && ctx.config.compaction.auto && !overflowed =>
                {
                    overflowed = true;
                    let outcome = compaction::compact_after_overflow(ctx, &self.plugins, &error).await?;
                    if !matches!(outcome, CompactOutcome::Completed { .. }) {
                        return Err(Error::Provider(error));
                    }
                    strategy.before_call(ctx).await?;
                    call_model(ctx).await?
                }
                sent => sent?,
            };
            let Step { completion, request_chars, journal } = sent;
            tokens_used +=
                completion.usage.prompt_tokens.unwrap_or(0) + completion.usage.completion_tokens.unwrap_or(0);
            let gate = strategy.after_answer(ctx, &completion, request_chars).await?;
            let finished = completion.tool_calls.is_empty();
            let calls: Vec<(&ToolCall, i64)> = completion.tool_calls.iter().zip(journal).collect();
            if !finished {
                match gate {
                    ToolGate::Run => run_tools(ctx, &env, &calls).await?,
                    ToolGate::Stop => answer_unrun(ctx, &calls, ABORTED_RESULT)?,
                }
            }
            let end = strategy.after_step(ctx).await?;
            match end {
                StepEnd::Resume(prompt) if !finished => {
                    self.store.write(|tx| append_message(tx, &session.id, &NewMessage::user(prompt)))?;
                }
                StepEnd::Continue if !finished => {}
                StepEnd::Continue | StepEnd::EndTurn | StepEnd::Resume(_) => {
                    ctx.emit(Event::TurnCompleted { text: completion.text.clone() });
                    return Ok(TurnOutcome { session: session.id.to_string(), text: completion.text, steps: step });
                }
            }
        }
        Err(Error::StepLimit(format!(
            "stopped after {max} model calls in one turn without a final answer (limits.maxStepsPerTurn = {max}). \
             Raise the limit, or continue with `alisio run --session {id} \"continue\"`",
            max = limits.max_steps_per_turn,
            id = session.id
        )))
    }

    /// Compacts the session's live history now (docs/compaction.md). Manual compaction of a session
    /// with uncertain tool results is refused (exit 3); with `preview` the checkpoint is stored as a
    /// proposal and nothing is hidden.
    pub async fn compact(
        &self,
        session: &Session,
        request: &compaction::ManualCompaction<'_>,
        sink: &dyn EventSink,
        cancel: &CancellationToken,
    ) -> Result<CompactOutcome> {
        let _claim = self.claim(session, "compact")?;
        let ctx = self.context(session, sink, cancel);
        // Record times have millisecond precision: start the window at the millisecond.
        let since = std::time::SystemTime::now() - std::time::Duration::from_millis(1);
        let trigger = crate::store::compactions::Trigger::manual();
        let strategy = request.strategy.unwrap_or_else(|| compaction::default_strategy(&self.config));
        let reason = CompactionReason::Manual;
        let outcome =
            compaction::compact_now(&ctx, &self.plugins, strategy, reason, request.focus, request.preview, trigger)
                .await;
        self.telemetry.export_compactions(&self.store, &session.id, since);
        outcome
    }

    /// What each strategy would make of the next request now (the compaction dialog); nothing is
    /// applied and no model is asked.
    pub async fn strategy_previews(&self, session: &Session) -> Result<Vec<compaction::StrategyPreview>> {
        let cancel = CancellationToken::new();
        compaction::preview::strategies(&self.context(session, &|_: &Envelope| {}, &cancel)).await
    }

    /// Asks the model the probe questions over the full history and over the compacted view of
    /// checkpoint `n` (default: the newest applied one); both calls go to the ledger as `probe`.
    pub async fn probe_compaction(
        &self,
        session: &Session,
        n: Option<i64>,
        sink: &dyn EventSink,
        cancel: &CancellationToken,
    ) -> Result<compaction::probe::ProbeReport> {
        let _claim = self.claim(session, "compact --probe")?;
        let ctx = self.context(session, sink, cancel);
        compaction::probe::probe(&ctx, n).await
    }

    /// Applies a stored proposal, optionally with an edited checkpoint (JSON sections or plain text).
    pub fn apply_proposal(
        &self,
        session: &Session,
        proposal: i64,
        edited: Option<&str>,
        sink: &dyn EventSink,
    ) -> Result<CompactOutcome> {
        let _claim = self.claim(session, "compact --apply")?;
        let cancel = CancellationToken::new();
        compaction::apply_proposal(&self.context(session, sink, &cancel), proposal, edited)
    }

    /// Reverts the newest compaction (and reductions after it); returns the reverted record ids.
    pub fn undo_compaction(&self, session: &Session, sink: &dyn EventSink) -> Result<Vec<i64>> {
        let _claim = self.claim(session, "compact --undo")?;
        let cancel = CancellationToken::new();
        compaction::undo_compaction(&self.context(session, sink, &cancel))
    }

    /// The next request's size, from stored lengths (no contents are read).
    pub fn pressure(&self, session: &Session) -> Result<Pressure> {
        let cancel = CancellationToken::new();
        compaction::pressure(&self.context(session, &|_: &Envelope| {}, &cancel))
    }

    /// The context meter of `session`'s next request (figures, trust, the strategy in force).
    pub async fn context_meter(&self, session: &Session) -> Result<compaction::guard::ContextMeter> {
        let pressure = self.pressure(session)?;
        Ok(compaction::guard::meter(&self.config, pressure, self.window().await))
    }

    /// The window in force and the source that gave it.
    pub async fn window(&self) -> Option<crate::provider::Window> {
        self.model.window().await
    }

    /// Sends call `n`'s exact request again to the configured provider (its model may differ) and
    /// records it as a `replay` call; the transcript is not touched, so no claim is needed.
    pub async fn replay_call(&self, session: &Session, n: usize, cancel: &CancellationToken) -> Result<ReplayReport> {
        let (id, original) = calls::call(&self.store, session, n)?;
        let (body, original_response) = calls::request_body(&self.store, session, &original)?;
        let (system, _) = self.store.model_call_payload(original.id)?;
        let (call_id, mut completion) = self.model.replay(&self.store, &id, &original, &system, body, cancel).await?;
        self.secrets.redact_in_place(&mut completion.text);
        self.model.finish(&self.store, call_id, &completion, None)?;
        let replay = self.store.model_call_payload(call_id)?.1;
        let number = self.store.model_calls(&id)?.iter().position(|c| c.id == call_id).map_or(0, |i| i + 1);
        Ok(ReplayReport {
            n: number,
            replay_of: n,
            model: self.config.provider.model.clone(),
            original: original_response,
            replay,
        })
    }
}

/// A session title: the prompt's first line, at most 80 characters.
fn title_of(prompt: &str) -> String {
    let line = prompt.lines().find(|l| !l.trim().is_empty()).unwrap_or("").trim();
    let mut title: String = line.chars().take(80).collect();
    if line.chars().count() > 80 {
        title.push('…');
    }
    title
}

#[cfg(test)]
mod tests;
