//! The agent loop: a user turn runs model → tool calls → results → model … until the model answers
//! without tool calls. Every step is journaled so a crash leaves a state that can be explained:
//! a tool that started and never finished is uncertain and is never re-run automatically (SPEC S3).

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Serialize;
use tokio_util::sync::CancellationToken;

use crate::compaction::plugins::CompactionPlugin;
use crate::compaction::TurnBudget;
use crate::config::Config;
use crate::error::{Error, Result};
use crate::events::{Envelope, Event, EventSink};
use crate::ledger::Outgoing;
use crate::provider::{Completion, Provider, RequestOptions};
use crate::store::journal::{self, Finish, JournalEntry, JournalState};
use crate::store::sessions::append_message;
use crate::store::{Session, Store};
use crate::tools::{Approver, ToolEnv, ToolOutput};
use crate::transcript::{estimate_tokens, NewMessage, ToolCall};
use crate::view::{system_prompt, PreparedRequest};

/// The result recorded for a call whose outcome is unknown (SPEC S3).
pub const UNCERTAIN_RESULT: &str = "result unknown — the process stopped while this tool was running, so Alisio \
    cannot say whether it completed. It was not re-run and nothing was undone; check its effects before relying on them.";

/// The result recorded for a call that was requested but provably never started.
pub const NOT_RUN_RESULT: &str = "not run — the process stopped before this tool started, so it had no effect.";

const ABORTED_RESULT: &str =
    "not run — the context filled up, so this step was stopped to summarize the work before continuing.";

const CANCELLED_RESULT: &str = "not run — the turn was cancelled before this tool started.";

pub struct Engine {
    pub config: Config,
    pub store: Arc<Store>,
    pub provider: Provider,
    pub(crate) plugins: Vec<Box<dyn CompactionPlugin>>,
    /// The window the server reported, asked at most once per engine.
    pub(crate) reported_window: tokio::sync::OnceCell<Option<u64>>,
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
}

impl Engine {
    pub fn new(config: Config, store: Arc<Store>) -> Result<Self> {
        let provider = Provider::new(&config.provider)?;
        let home = store.path().parent().map(Path::to_path_buf).unwrap_or_default();
        let plugins = crate::compaction::plugins::from_config(&config.plugins, &home)?;
        Ok(Self { config, store, provider, plugins, reported_window: tokio::sync::OnceCell::new() })
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
                self.store.create_session(&workspace.to_string_lossy(), &title_of(&request.prompt))?
            }
        };
        self.emit_event(sink, &session.id, Event::Session { id: session.id.clone() });
        let result = self.run_turn_in(&session, &request, sink, cancel).await;
        if let Err(err) = &result {
            self.emit_event(sink, &session.id, Event::Error { message: err.to_string() });
        }
        result
    }

    async fn run_turn_in(
        &self,
        session: &Session,
        request: &TurnRequest,
        sink: &dyn EventSink,
        cancel: &CancellationToken,
    ) -> Result<TurnOutcome> {
        self.settle_interrupted_calls(&session.id)?;
        let workspace = Path::new(&session.workspace);
        let env = ToolEnv {
            workspace: crate::tools::canonical_workspace(workspace)
                .map_err(|e| Error::io(format!("the session's workspace {} is not usable", workspace.display()), e))?,
            permissions: self.config.permissions.clone(),
            approver: request.approver.clone(),
        };
        self.store.write(|tx| append_message(tx, &session.id, &NewMessage::user(request.prompt.clone())))?;

        let limits = &self.config.limits;
        let mut tokens_used: u64 = 0;
        let mut budget = TurnBudget::default();
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
            let cache = self.cache_strategy_active();
            if cache {
                self.guard_cache_budget(session, sink)?;
            } else {
                self.guard_native_budget(session, &mut budget, sink, cancel).await?;
            }
            let (completion, request_chars) = self.call_model(session, sink, cancel).await?;
            tokens_used +=
                completion.usage.prompt_tokens.unwrap_or(0) + completion.usage.completion_tokens.unwrap_or(0);
            let tripped =
                cache && self.cache_trip_after_step(session, &completion, estimate_tokens(request_chars)).await?;
            let finished = completion.tool_calls.is_empty();
            if !finished {
                if tripped && self.config.cache_compact.abort_on_trip {
                    // Stop the step: the answer is kept, its calls are answered as cancelled.
                    self.cancel_calls(session, &completion.tool_calls, ABORTED_RESULT, sink)?;
                } else {
                    self.run_tools(session, &env, &completion.tool_calls, sink, cancel).await?;
                }
            }
            let cut = tripped
                && matches!(
                    self.cache_compact(session, sink, cancel).await?,
                    crate::compaction::CompactOutcome::Completed { .. }
                );
            if finished || (cut && !self.config.cache_compact.auto_resume) {
                self.emit_event(sink, &session.id, Event::TurnCompleted { text: completion.text.clone() });
                return Ok(TurnOutcome { session: session.id.clone(), text: completion.text, steps: step });
            }
            if cut {
                let resume = NewMessage::user(self.config.cache_compact.resume_prompt.clone());
                self.store.write(|tx| append_message(tx, &session.id, &resume))?;
            }
        }
        Err(Error::StepLimit(format!(
            "stopped after {max} model calls in one turn without a final answer (limits.maxStepsPerTurn = {max}). \
             Raise the limit, or continue with `alisio run --session {id} \"continue\"`",
            max = limits.max_steps_per_turn,
            id = session.id
        )))
    }

    /// Sends the live transcript, stores the answer (and its tool calls as requested) in one
    /// transaction, and records the call in the ledger.
    async fn call_model(
        &self,
        session: &Session,
        sink: &dyn EventSink,
        cancel: &CancellationToken,
    ) -> Result<(Completion, u64)> {
        let live = self.store.live_messages(&session.id)?;
        let prepared = PreparedRequest::build(&self.provider, system_prompt(&self.config, &session.workspace), live);
        let options = RequestOptions { max_tokens: self.config.limits.max_output_tokens, tool_choice_none: false };
        let session_id = session.id.clone();
        let mut on_delta = |text: &str| {
            sink.emit(&Envelope::new(&session_id, Event::TextDelta { text: text.to_string() }));
        };
        let outgoing = Outgoing { purpose: "turn", prepared: &prepared, appended: None, options };
        let (call_id, completion) = self.send_recorded(session, outgoing, &mut on_delta, cancel).await?;
        let message = NewMessage::assistant(
            completion.text.clone(),
            completion.tool_calls.clone(),
            completion.provider_items.clone(),
        );
        let seq = self.store.write(|tx| {
            let seq = append_message(tx, &session.id, &message)?;
            journal::record_requested(tx, &session.id, seq, &completion.tool_calls)?;
            Ok(seq)
        })?;
        self.store.finish_model_call(call_id, &self.ledger_update(&completion, Some(seq)))?;
        let usage = &completion.usage;
        self.emit_event(
            sink,
            &session.id,
            Event::ModelCall {
                prompt_tokens: usage.prompt_tokens,
                cached_tokens: usage.cached_tokens,
                completion_tokens: usage.completion_tokens,
                ttft_ms: completion.ttft_ms,
                duration_ms: completion.duration_ms,
                request_chars: prepared.request_chars(),
            },
        );
        Ok((completion, prepared.request_chars()))
    }

    /// Answers calls that will not run (the step was stopped), keeping every call paired.
    fn cancel_calls(&self, session: &Session, calls: &[ToolCall], why: &str, sink: &dyn EventSink) -> Result<()> {
        let pending = self.store.unresolved_tool_calls(&session.id)?;
        for call in calls {
            if let Some(entry) = pending.iter().find(|e| e.call_id == call.id && e.state == JournalState::Requested) {
                self.store_result(&session.id, entry.id, call, &ToolOutput::error(why.into()))?;
                self.emit_event(
                    sink,
                    &session.id,
                    Event::ToolFinished { call_id: call.id.clone(), name: call.name.clone(), ok: false },
                );
            }
        }
        Ok(())
    }

    /// Runs the calls of one answer in order. Each call is durably marked started before it runs;
    /// its result and the journal's "finished" land in one transaction.
    async fn run_tools(
        &self,
        session: &Session,
        env: &ToolEnv,
        calls: &[ToolCall],
        sink: &dyn EventSink,
        cancel: &CancellationToken,
    ) -> Result<()> {
        let pending = self.store.unresolved_tool_calls(&session.id)?;
        for call in calls {
            let entry = pending
                .iter()
                .find(|e| e.call_id == call.id && e.state == JournalState::Requested)
                .ok_or_else(|| Error::Provider(format!("tool call {} is missing from the journal", call.id)))?;
            if cancel.is_cancelled() {
                self.store_result(&session.id, entry.id, call, &ToolOutput::error(CANCELLED_RESULT.into()))?;
                continue;
            }
            let output = match env.check_permission(call).await {
                Err(refusal) => refusal,
                Ok(()) => {
                    self.store.mark_tool_started(entry.id)?;
                    self.emit_event(
                        sink,
                        &session.id,
                        Event::ToolStarted { call_id: call.id.clone(), name: call.name.clone() },
                    );
                    env.execute(call, cancel).await
                }
            };
            self.store_result(&session.id, entry.id, call, &output)?;
            self.emit_event(
                sink,
                &session.id,
                Event::ToolFinished { call_id: call.id.clone(), name: call.name.clone(), ok: output.ok },
            );
        }
        if cancel.is_cancelled() {
            return Err(Error::Cancelled);
        }
        Ok(())
    }

    fn store_result(&self, session: &str, journal_id: i64, call: &ToolCall, output: &ToolOutput) -> Result<()> {
        self.store.write(|tx| {
            let seq = append_message(tx, session, &NewMessage::tool_result(&call.id, output.content.clone()))?;
            journal::record_finished(
                tx,
                journal_id,
                Finish {
                    ok: output.ok,
                    result_seq: seq,
                    output_bytes: output.output_bytes as i64,
                    dropped_bytes: output.dropped_bytes as i64,
                    lossy: output.lossy,
                },
            )
        })
    }

    /// Before a turn: calls that started and never finished make the session uncertain (refused
    /// until acknowledged); calls that were requested but never started are answered as not run.
    fn settle_interrupted_calls(&self, session: &str) -> Result<()> {
        let unresolved = self.store.unresolved_tool_calls(session)?;
        if unresolved.is_empty() {
            return Ok(());
        }
        let uncertain: Vec<&JournalEntry> =
            unresolved.iter().filter(|e| matches!(e.state, JournalState::Started | JournalState::Uncertain)).collect();
        if !uncertain.is_empty() {
            self.store.mark_started_uncertain(session)?;
            return Err(Error::Uncertain {
                session: session.to_string(),
                count: uncertain.len(),
                calls: uncertain.iter().map(|e| format!("{} {}", e.name, e.call_id)).collect::<Vec<_>>().join(", "),
            });
        }
        self.store.write(|tx| {
            for entry in &unresolved {
                let seq = append_message(tx, session, &NewMessage::tool_result(&entry.call_id, NOT_RUN_RESULT))?;
                journal::record_finished(
                    tx,
                    entry.id,
                    Finish { ok: false, result_seq: seq, output_bytes: 0, dropped_bytes: 0, lossy: false },
                )?;
            }
            Ok(())
        })
    }

    /// SPEC S3: records each uncertain call's uncertainty as its result (and answers calls that
    /// never started as not run), in call order, in one transaction. Re-runs and undoes nothing.
    pub fn recover(&self, session: &str) -> Result<RecoverReport> {
        let record = self.store.resolve_session(session)?;
        let unresolved = self.store.unresolved_tool_calls(&record.id)?;
        let mut report = RecoverReport { session: record.id.clone(), acknowledged: Vec::new(), not_run: Vec::new() };
        self.store.write(|tx| {
            for entry in &unresolved {
                if entry.state == JournalState::Requested {
                    let seq = append_message(tx, &record.id, &NewMessage::tool_result(&entry.call_id, NOT_RUN_RESULT))?;
                    journal::record_finished(
                        tx,
                        entry.id,
                        Finish { ok: false, result_seq: seq, output_bytes: 0, dropped_bytes: 0, lossy: false },
                    )?;
                    report.not_run.push(entry.clone());
                } else {
                    let mut message = NewMessage::tool_result(&entry.call_id, UNCERTAIN_RESULT);
                    message.uncertain = true;
                    let seq = append_message(tx, &record.id, &message)?;
                    journal::record_acknowledged(tx, entry.id, seq)?;
                    report.acknowledged.push(entry.clone());
                }
            }
            Ok(())
        })?;
        Ok(report)
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
