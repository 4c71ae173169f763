//! One step of a turn: the model called through the ledger, its answer stored with its tool
//! calls journaled, the calls run (or answered as not run) and their results stored.

use crate::context::{Catalog, Context};
use crate::error::{Error, Result};
use crate::events::{Envelope, Event};
use crate::model::{Outgoing, Purpose};
use crate::provider::{Completion, RequestOptions};
use crate::store::journal::{self, Finish};
use crate::store::sessions::append_message;
use crate::tools::{PermissionKind, ToolEnv, ToolOutput};
use crate::transcript::{NewMessage, ToolCall};

use super::*;

/// One answer of the model as stored: the answer, the request's size, and the journal rows of its
/// tool calls in call order.
pub(super) struct Step {
    pub(super) completion: Completion,
    pub(super) request_chars: u64,
    pub(super) journal: Vec<i64>,
}

/// Sends the live transcript, stores the answer (and its tool calls as requested) in one
/// transaction, and records the call in the ledger.
pub(super) async fn call_model(ctx: &Context<'_>) -> Result<Step> {
    let session = ctx.session;
    let live = ctx.store.live_messages(&session.id)?;
    let prepared = ctx.prepare(live, Catalog::InForce)?;
    let options = RequestOptions { max_tokens: ctx.config.limits.max_output_tokens, tool_choice_none: false };
    // Streamed text is shown as it arrives, less any secret (which may arrive split in pieces).
    let mut stream = ctx.secrets.stream();
    let show = |text: String| {
        if !text.is_empty() {
            ctx.sink.emit(&Envelope::new(&session.id, Event::TextDelta { text }));
        }
    };
    let mut on_delta = |piece: &str| show(stream.push(piece));
    let context_management = crate::compaction::provider::turn_field(ctx).await;
    let outgoing = Outgoing {
        purpose: Purpose::Turn,
        prepared: &prepared,
        appended: None,
        options,
        context_management,
        standalone: false,
    };
    let sent = ctx.model.send_recorded(ctx.store, &session.id, outgoing, &mut on_delta, ctx.cancel).await;
    show(stream.finish());
    let (call_id, mut completion) = sent?;
    // What the model wrote is stored (and so sent back) without secrets.
    ctx.secrets.redact_in_place(&mut completion.text);
    for call in &mut completion.tool_calls {
        ctx.secrets.redact_in_place(&mut call.arguments);
    }
    distinguish_repeated_call_ids(&mut completion);
    let message = NewMessage::assistant(
        completion.text.clone(),
        completion.tool_calls.clone(),
        completion.provider_items.clone(),
    );
    let (seq, journal) = ctx.store.write(|tx| {
        let seq = append_message(tx, &session.id, &message)?;
        let journal = journal::record_requested(tx, &session.id, seq, &completion.tool_calls)?;
        Ok((seq, journal))
    })?;
    ctx.model.finish(ctx.store, call_id, &completion, Some(seq))?;
    let usage = &completion.usage;
    ctx.emit(Event::ModelCall {
        prompt_tokens: usage.prompt_tokens,
        cached_tokens: usage.cached_tokens,
        completion_tokens: usage.completion_tokens,
        ttft_ms: completion.ttft_ms,
        duration_ms: completion.duration_ms,
        request_chars: prepared.request_chars(),
    });
    Ok(Step { completion, request_chars: prepared.request_chars(), journal })
}

/// A server that gives two calls of one answer the same id would leave one of them without its
/// own result, and strict servers refuse such a history. The first keeps its id byte for byte;
/// each repeat becomes `<id>~2`, `<id>~3`… (in opaque Responses items too), so every call is
/// answered exactly once.
pub(super) fn distinguish_repeated_call_ids(completion: &mut Completion) {
    let mut seen: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
    let mut renamed: Vec<(String, usize, String)> = Vec::new();
    for call in &mut completion.tool_calls {
        let count = seen.entry(call.id.clone()).or_insert(0);
        *count += 1;
        if *count > 1 {
            let new_id = format!("{}~{count}", call.id);
            renamed.push((call.id.clone(), *count, new_id.clone()));
            call.id = new_id;
        }
    }
    let Some(serde_json::Value::Array(items)) = completion.provider_items.as_mut() else { return };
    for (old, occurrence, new_id) in renamed {
        let item = items
            .iter_mut()
            .filter(|i| i.get("type").and_then(|t| t.as_str()) == Some("function_call"))
            .filter(|i| i.get("call_id").and_then(|c| c.as_str()) == Some(old.as_str()))
            .nth(occurrence - 1);
        if let Some(item) = item {
            item["call_id"] = serde_json::Value::String(new_id);
        }
    }
}

/// Answers calls that will not run (the step was stopped), keeping every call paired.
pub(super) fn answer_unrun(ctx: &Context<'_>, calls: &[(&ToolCall, i64)], why: &str) -> Result<()> {
    for &(call, journal_id) in calls {
        store_result(ctx, journal_id, call, ToolOutput::error(why.into()))?;
        ctx.emit(Event::ToolFinished { call_id: call.id.clone(), name: call.name.clone(), ok: false });
    }
    Ok(())
}

/// Runs the calls of one answer in order. Each call is durably marked started before it runs;
/// its result and the journal's "finished" land in one transaction.
/// Calls and their journal rows are paired by position, never by id.
pub(super) async fn run_tools(ctx: &Context<'_>, env: &ToolEnv, calls: &[(&ToolCall, i64)]) -> Result<()> {
    for &(call, journal_id) in calls {
        if ctx.cancel.is_cancelled() {
            store_result(ctx, journal_id, call, ToolOutput::error(CANCELLED_RESULT.into()))?;
            continue;
        }
        if call.name == crate::mcp::catalog::TOOL_SEARCH {
            // The deferred MCP catalog's search: it reads the tools' definitions, nothing else.
            ctx.store.mark_tool_started(journal_id)?;
            ctx.emit(Event::ToolStarted { call_id: call.id.clone(), name: call.name.clone() });
            let output = ctx.mcp.search(&call.arguments);
            let ok = output.ok;
            store_result(ctx, journal_id, call, output)?;
            ctx.emit(Event::ToolFinished { call_id: call.id.clone(), name: call.name.clone(), ok });
            continue;
        }
        let mcp = call.name.starts_with("mcp__").then(|| ctx.mcp.route(&call.name));
        let permitted = match &mcp {
            None => env.check_permission(call).await,
            Some(None) => Err(ToolOutput::error(format!(
                "the MCP tool `{}` is not available: its server is not running",
                call.name
            ))),
            Some(Some((server, setting))) => {
                env.check(call, &PermissionKind::Mcp { server: server.clone() }, *setting).await
            }
        };
        let output = match permitted {
            Err(refusal) => refusal,
            Ok(()) if mcp.is_some() => {
                ctx.store.mark_tool_started(journal_id)?;
                ctx.emit(Event::ToolStarted { call_id: call.id.clone(), name: call.name.clone() });
                ctx.mcp.call(&call.name, &call.arguments, ctx.cancel).await
            }
            Ok(()) => {
                ctx.store.mark_tool_started(journal_id)?;
                ctx.emit(Event::ToolStarted { call_id: call.id.clone(), name: call.name.clone() });
                let record = |group| {
                    if let Err(err) = ctx.store.record_tool_process(journal_id, group) {
                        tracing::warn!("could not record the process group of {}: {err}", call.id);
                    }
                };
                env.execute(call, ctx.cancel, &record).await
            }
        };
        let ok = output.ok;
        store_result(ctx, journal_id, call, output)?;
        ctx.emit(Event::ToolFinished { call_id: call.id.clone(), name: call.name.clone(), ok });
    }
    if ctx.cancel.is_cancelled() {
        return Err(Error::Cancelled);
    }
    Ok(())
}

/// Reports each MCP server that failed since the last step, once (its tools are already gone).
pub(super) fn report_mcp_failures(ctx: &Context<'_>) {
    for (server, error) in ctx.mcp.take_failures() {
        ctx.emit(Event::McpServerFailed { server, error });
    }
}

/// Stores a call's result (without secrets) and finishes its journal row, in one transaction.
pub(super) fn store_result(ctx: &Context<'_>, journal_id: i64, call: &ToolCall, mut output: ToolOutput) -> Result<()> {
    ctx.secrets.redact_in_place(&mut output.content);
    ctx.store.write(|tx| {
        let seq = append_message(tx, ctx.session_id(), &NewMessage::tool_result(&call.id, output.content))?;
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
