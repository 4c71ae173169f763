//! Human-readable output of the CLI (the `--json` forms are the stable ones).

use std::io::Write;

use alisio_engine::agent::RecoverReport;
use alisio_engine::events::{Envelope, Event};
use alisio_engine::store::SessionSummary;
use alisio_engine::view::{ModelView, StoredView};
use serde_json::Value;

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

pub fn print_sessions(sessions: &[SessionSummary]) {
    if sessions.is_empty() {
        println!("no sessions yet — start one with `alisio run \"…\"`");
        return;
    }
    println!("{:<36}  {:>5}  {:>9}  {:<24}  title", "id", "live", "compacted", "last activity");
    for s in sessions {
        let badge = if s.uncertain_tool_calls > 0 { "  [uncertain tool results]" } else { "" };
        let source = s.source.as_deref().map(|source| format!("[{source}] ")).unwrap_or_default();
        println!(
            "{:<36}  {:>5}  {:>9}  {:<24}  {source}{}{badge}",
            s.id, s.live_messages, s.compacted_messages, s.last_activity, s.title
        );
    }
}

fn excerpt(text: &str, max: usize) -> String {
    let mut out: String = text.chars().take(max).collect();
    if text.chars().count() > max {
        out.push_str(&format!(" … ({} chars)", text.chars().count()));
    }
    out
}

pub fn print_stored(view: &StoredView) {
    println!("session {}  {}", view.session.id, view.session.title);
    println!("workspace {}", view.session.workspace);
    if let (Some(source), Some(path)) = (&view.session.source, &view.session.source_path) {
        println!("imported from {source} ({path}), read-only");
    }
    for m in &view.messages {
        let flags: Vec<&str> = [
            (m.compacted, "compacted"),
            (m.summary, "summary"),
            (m.truncated, "truncated"),
            (m.uncertain, "uncertain"),
            (m.reverted, "reverted"),
        ]
        .into_iter()
        .filter_map(|(on, name)| on.then_some(name))
        .collect();
        let flags = if flags.is_empty() { String::new() } else { format!(" [{}]", flags.join(", ")) };
        let id = m.tool_call_id.as_deref().map(|id| format!(" ({id})")).unwrap_or_default();
        println!("\n#{} {}{id}{flags}", m.seq, m.role.as_str());
        if !m.content.is_empty() {
            println!("{}", excerpt(&m.content, 2000));
        }
        for call in &m.tool_calls {
            println!("→ {} ({}) {}", call.name, call.id, excerpt(&call.arguments, 500));
        }
    }
    for c in &view.compactions {
        let r = &c.record;
        println!(
            "\ncompaction {} ({:?}, {}, {:?}){}: {} messages, {} → {} chars",
            r.id,
            r.kind,
            r.reason,
            r.status,
            if r.partial { " partial" } else { "" },
            c.summarized_seqs.len(),
            r.before_chars,
            r.after_chars
        );
    }
}

pub fn print_model_view(view: &ModelView) {
    println!(
        "next request to {} ({:?}): {} messages, {} chars + {} chars of tool catalog ≈ {} tokens",
        view.model,
        view.api,
        view.messages.len(),
        view.chars,
        view.tool_catalog_chars,
        view.estimated_tokens
    );
    if view.tool_catalog.len() > 1 {
        let shares: Vec<String> =
            view.tool_catalog.iter().map(|s| format!("{} {} tools {} chars", s.server, s.tools, s.chars)).collect();
        println!("tool catalog: {}", shares.join(" · "));
    }
    for message in &view.messages {
        println!("\n{}", excerpt(&serde_json::to_string(message).unwrap_or_default(), 2000));
    }
}

pub fn print_mcp_servers(servers: &[alisio_engine::mcp::ServerStatus]) {
    if servers.is_empty() {
        println!("no MCP servers configured (config key mcpServers)");
    }
    for server in servers {
        let permission = format!("{:?}", server.permission).to_lowercase();
        match &server.error {
            Some(error) => {
                println!("{} ({}, {permission}): {} — {error}", server.name, server.transport, server.status)
            }
            None => println!(
                "{} ({}, {permission}): {}, {} tools",
                server.name,
                server.transport,
                server.status,
                server.tools.len()
            ),
        }
        for tool in &server.tools {
            println!("  {:<64} {:>6} chars", tool.name, tool.chars);
        }
    }
}

pub fn print_recover(report: &RecoverReport) {
    if report.acknowledged.is_empty() && report.not_run.is_empty() {
        println!("session {}: nothing to recover", report.session);
        return;
    }
    for killed in &report.killed {
        println!("killed the leftover process group of {killed}, which was still running");
    }
    for entry in &report.acknowledged {
        println!("recorded \"result unknown\" for {} ({}) {}", entry.name, entry.call_id, entry.arguments);
    }
    for entry in &report.not_run {
        println!("recorded \"not run\" for {} ({}) — it never started", entry.name, entry.call_id);
    }
    println!("session {} can continue: `alisio run --session {} …`", report.session, report.session);
}

pub fn print_models(doc: &Value) {
    println!("server {} answered /models", doc["baseUrl"].as_str().unwrap_or(""));
    let ids: Vec<&str> =
        doc["models"]["data"].as_array().into_iter().flatten().filter_map(|m| m["id"].as_str()).collect();
    println!("models: {}", if ids.is_empty() { "(none listed)".to_string() } else { ids.join(", ") });
    let window = |v: &Value| v.as_u64().map(|n| format!("{n} tokens")).unwrap_or_else(|| "unknown".into());
    println!(
        "context window of {}: reported {}, configured {}",
        doc["model"].as_str().unwrap_or(""),
        window(&doc["reportedContextWindow"]),
        window(&doc["configuredContextWindow"])
    );
}

pub fn print_compact(outcome: &alisio_engine::compaction::CompactOutcome) {
    use alisio_engine::compaction::CompactOutcome;
    match outcome {
        CompactOutcome::Completed { compaction, partial } => {
            println!("compaction {compaction} applied{}", if *partial { " (partial checkpoint)" } else { "" })
        }
        CompactOutcome::Proposed { proposal, rendered, partial, fidelity, .. } => {
            println!("proposal {proposal}{}:\n\n{rendered}\n", if *partial { " (partial)" } else { "" });
            println!("fidelity {:.2} ({} checked)", fidelity.score, fidelity.checked);
            for item in &fidelity.missing {
                println!("  missing {:?} {:?}: {} (add it to {})", item.kind, item.value, item.why, item.section);
            }
            println!("apply it with `alisio compact SESSION --apply {proposal} [--checkpoint FILE]`, or discard it with `--discard {proposal}`");
        }
        CompactOutcome::Skipped { reason } => println!("nothing compacted: {reason}"),
        CompactOutcome::Failed { error } => println!("compaction failed: {error}"),
    }
}

pub fn print_calls(calls: &[alisio_engine::calls::CallSummary]) {
    for c in calls {
        let opt = |v: Option<u64>| v.map_or("–".to_string(), |v| v.to_string());
        println!(
            "{:>3}  {:<13} {}  {} chars  prompt {}  cached {}  completion {}  ttft {} ms  {}{}",
            c.n,
            c.purpose,
            c.started_at,
            c.request_chars,
            opt(c.prompt_tokens),
            opt(c.cached_tokens),
            opt(c.completion_tokens),
            opt(c.ttft_ms),
            c.finish_reason.as_deref().unwrap_or("–"),
            c.error.as_deref().map(|e| format!("  error: {e}")).unwrap_or_default()
        );
    }
}

pub fn print_call(detail: &alisio_engine::calls::CallDetail) {
    println!("call {} ({})", detail.n, detail.purpose);
    println!("request:\n{}", serde_json::to_string_pretty(&detail.request).unwrap_or_default());
    match &detail.response {
        Some(response) => println!("response:\n{}", serde_json::to_string_pretty(response).unwrap_or_default()),
        None => println!("response: (none recorded)"),
    }
}

pub fn print_call_diff(diff: &alisio_engine::calls::CallDiff) {
    println!(
        "call {} against {}: common prefix {} of {} chars (≈ {} tokens); server reported {} cached tokens; {}",
        diff.n,
        diff.against,
        diff.common_prefix_chars,
        diff.against_chars,
        diff.common_prefix_tokens,
        diff.cached_tokens.map_or("no".to_string(), |c| c.to_string()),
        if diff.cache_break { "the cache breaks" } else { "the prefix is kept" }
    );
    let d = &diff.first_divergence;
    if d.part != "none" {
        let index = d.index.map(|i| format!(" {i}")).unwrap_or_default();
        println!(
            "first divergence: {}{index} at {}\n  before: {}\n  after:  {}",
            d.part,
            if d.path.is_empty() { "/" } else { &d.path },
            d.before,
            d.after
        );
    }
}

pub fn print_replay(report: &alisio_engine::calls::ReplayReport) {
    let text = |v: &Option<serde_json::Value>| {
        v.as_ref().and_then(|r| r["text"].as_str()).unwrap_or("(no answer recorded)").to_string()
    };
    println!("call {} replayed as call {} on {}", report.replay_of, report.n, report.model);
    println!("original:\n{}", text(&report.original));
    println!("replay:\n{}", text(&report.replay));
}

/// One line per imported session; skipped records and unreadable files on stderr.
pub fn print_import(report: &alisio_engine::import::ImportReport, first: bool) {
    use alisio_engine::import::Position;
    for session in report.imported.iter().filter(|s| first || s.added > 0) {
        let new = if session.added > 0 { format!(", {} new", session.added) } else { String::new() };
        println!(
            "{} {} -> {}  {:?}: {} messages, {} tool calls, {} compactions{new}",
            session.source.as_str(),
            session.source_id,
            session.id,
            session.title,
            session.messages,
            session.tool_calls,
            session.compactions,
        );
        for skipped in &session.skipped {
            let at = match &skipped.line {
                Position::Line(n) => format!("line {n}"),
                Position::Row(id) => format!("row {id}"),
            };
            eprintln!("  skipped {} {at}: {}", session.path, skipped.reason);
        }
    }
    for failure in &report.errors {
        eprintln!("alisio: cannot import {}: {}", failure.path, failure.error);
    }
}

/// `compact --lint`: the score, then each missing item with why and where.
pub fn print_lint(report: &alisio_engine::view::LintReport) {
    let f = &report.fidelity;
    println!(
        "checkpoint #{} ({}, {}): fidelity {:.2} — {} of {} checked items kept",
        report.compaction,
        report.reason,
        report.status.as_str(),
        f.score,
        f.checked as usize - f.missing.len(),
        f.checked
    );
    for item in &f.missing {
        let seqs: Vec<String> = item.seqs.iter().map(|s| format!("#{s}")).collect();
        println!("  missing {:?} {:?} ({}): {}", item.kind, item.value, seqs.join(", "), item.why);
    }
}

/// `compact --probe`: each question with the two answers and their agreement.
pub fn print_probe(report: &alisio_engine::compaction::probe::ProbeReport) {
    println!(
        "checkpoint #{} probed by the model (model-judged, calls {:?}): agreement {:.2}",
        report.compaction, report.calls, report.agreement
    );
    for a in &report.answers {
        println!("\n{} (agreement {:.2})", a.question, a.agreement);
        println!("  full history:   {}", excerpt(&a.full.replace('\n', "; "), 200));
        println!("  compacted view: {}", excerpt(&a.compacted.replace('\n', "; "), 200));
    }
}
