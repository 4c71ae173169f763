//! Text for people: how each answer of the application API reads in a terminal, and engine events
//! as they happen (the `--json` forms are the stable ones).

mod archive;
mod calls;
mod compaction;
mod servers;
pub(crate) mod sessions;

use std::io::Write;

use alisio_engine::events::{Envelope, Event};

pub use compaction::print_compact;
pub use sessions::Round;

pub fn print_event(envelope: &Envelope) {
    let mut out = std::io::stdout().lock();
    match &envelope.event {
        Event::Session { id } => {
            let _ = writeln!(out, "session {id}");
        }
        Event::TextDelta { text } => {
            let _ = write!(out, "{text}");
        }
        Event::TurnCompleted { .. } => {
            let _ = writeln!(out);
        }
        Event::ToolStarted { call_id, name } => eprintln!("\n[tool {name} ({call_id}) started]"),
        Event::ToolFinished { call_id, name, ok } => {
            eprintln!("[tool {name} ({call_id}) {}]", if *ok { "finished" } else { "failed" })
        }
        Event::CompactionStarted { reason, .. } => eprintln!("[compacting ({reason:?})…]"),
        Event::CompactionCompleted { before, after, partial, .. } => eprintln!(
            "[compacted: {} → {} chars{}]",
            before.chars,
            after.chars,
            if *partial { ", partial checkpoint: consider raising compaction.maxOutputTokens" } else { "" }
        ),
        Event::CompactionSkipped { reason } => eprintln!("[compaction skipped: {reason}]"),
        Event::CompactionFailed { error } => eprintln!("[compaction failed: {error}]"),
        Event::ContextReduced { messages } => eprintln!("[{messages} kept message(s) cut to fit the context budget]"),
        Event::CompactionProposed { .. } => {}
        Event::CompactionReverted { compactions } => eprintln!("[reverted compaction record(s) {compactions:?}]"),
        Event::PluginHookFailed { plugin, hook, error } => eprintln!("[plugin {plugin} {hook} failed: {error}]"),
        Event::TelemetryFailed { endpoint, error } => {
            eprintln!(
                "[telemetry: the collector at {endpoint} did not take the spans: {error}; the turn is not affected]"
            )
        }
        Event::McpServerFailed { server, error } => {
            eprintln!("[MCP server {server} failed: {error}; its tools are left out, the turn goes on]")
        }
        Event::ModelCall { .. } | Event::Error { .. } => {}
    }
    let _ = out.flush();
}

pub(crate) fn excerpt(text: &str, max: usize) -> String {
    let mut out: String = text.chars().take(max).collect();
    if text.chars().count() > max {
        out.push_str(&format!(" … ({} chars)", text.chars().count()));
    }
    out
}
