//! Sessions as text: the list, the stored view, the model view, recovery, an import round.

use alisio_engine::agent::RecoverReport;
use alisio_engine::import::ImportReport;
use alisio_engine::store::SessionSummary;
use alisio_engine::view::{ModelView, StoredView};
use serde::Serialize;

use super::excerpt;
use crate::cli::output::Human;

impl Human for Vec<SessionSummary> {
    fn print(&self) {
        let sessions = self;
        if sessions.is_empty() {
            println!("no sessions yet — start one with `alisio run \"…\"`");
            return;
        }
        println!("{:<36}  {:>5}  {:>9}  {:<24}  title", "id", "live", "compacted", "last activity");
        for s in sessions {
            let badge = if s.uncertain_tool_calls > 0 { "  [uncertain tool results]" } else { "" };
            let source = s.source.map(|source| format!("[{source}] ")).unwrap_or_default();
            println!(
                "{:<36}  {:>5}  {:>9}  {:<24}  {source}{}{badge}",
                s.id, s.live_messages, s.compacted_messages, s.last_activity, s.title
            );
        }
    }
}

impl Human for StoredView {
    fn print(&self) {
        let view = self;
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
}

impl Human for ModelView {
    fn print(&self) {
        let view = self;
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
}

impl Human for RecoverReport {
    fn print(&self) {
        let report = self;
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
}

/// A round of an import: everything the first time, then only the sessions that grew (`--watch`).
pub struct Round<'a> {
    pub report: &'a ImportReport,
    pub first: bool,
}

impl Serialize for Round<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.report.serialize(serializer)
    }
}

/// One line per imported session; skipped records and unreadable files on stderr.
impl Human for Round<'_> {
    fn print(&self) {
        use alisio_engine::import::Position;
        let (report, first) = (self.report, self.first);
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
}

impl Human for alisio_engine::store::search::SearchResult {
    /// Hits grouped by session, the sessions in the order of their best hit, each with its count.
    fn print(&self) {
        if self.hits.is_empty() {
            println!("No message matches.");
        }
        let mut sessions: Vec<&str> = Vec::new();
        for hit in &self.hits {
            if !sessions.contains(&hit.session.as_str()) {
                sessions.push(&hit.session);
            }
        }
        for session in sessions {
            let hits: Vec<_> = self.hits.iter().filter(|h| h.session == session).collect();
            let first = hits[0];
            let count = if hits.len() == 1 { "1 match".to_string() } else { format!("{} matches", hits.len()) };
            println!("{}  {}  ({}, {}; {count})", session, first.title, first.source, first.project);
            for hit in hits {
                println!("  #{:<5} {:<9} {}  {}", hit.seq, hit.role, hit.at, hit.snippet.replace('\n', " "));
            }
        }
        if self.total as usize > self.hits.len() {
            println!("{} of {} matches shown (--limit for more)", self.hits.len(), self.total);
        }
    }
}

impl Human for alisio_engine::store::pins::Pin {
    fn print(&self) {
        let what = self.seq.map_or("a sentence".to_string(), |seq| format!("message #{seq}"));
        println!("Pinned {what} as pin {}: every request after a checkpoint carries it verbatim.", self.id);
    }
}

impl Human for Vec<alisio_engine::store::pins::Pin> {
    fn print(&self) {
        if self.is_empty() {
            println!("No pins (rules files from compaction.pinFiles are pinned at each compaction).");
        }
        for pin in self {
            let from = pin.seq.map_or("text".to_string(), |seq| format!("#{seq}"));
            let first = pin.text.lines().next().unwrap_or_default();
            let more = if pin.text.lines().nth(1).is_some() { " …" } else { "" };
            println!("{:>4}  {from:<7} {first}{more}", pin.id);
        }
    }
}

/// `pin --remove`: the pin removed and those left.
#[derive(serde::Serialize)]
pub struct PinRemoved {
    pub id: i64,
    pub left: Vec<alisio_engine::store::pins::Pin>,
}

impl Human for PinRemoved {
    fn print(&self) {
        println!("Removed pin {}; {} left.", self.id, self.left.len());
    }
}

impl Human for alisio_engine::store::Session {
    fn print(&self) {
        println!("{}  {}", self.id, self.title);
    }
}

impl Human for alisio_engine::store::library::Removed {
    fn print(&self) {
        println!(
            "Removed {} \"{}\" ({} messages, {} model calls).",
            self.session, self.title, self.messages, self.calls
        );
    }
}

impl Human for alisio_api::forks::Forked {
    fn print(&self) {
        println!(
            "Forked {} at message #{} into {} ({} messages, workspace {}); continue it with `alisio run --session {} \"…\"`.",
            self.forked_from.session, self.forked_from.seq, self.id, self.messages, self.workspace, self.id
        );
        if let Some(n) = self.from_call {
            println!("It starts from call {n}'s exact request, as the agent sent it.");
        }
    }
}

impl Human for alisio_engine::calls::compare::SessionDiff {
    fn print(&self) {
        println!("{} messages shared", self.shared_messages);
        match &self.first_divergence {
            None => println!("no divergence: the transcripts are the same"),
            Some(d) => {
                let side = |seq: Option<i64>, text: &Option<String>| match (seq, text) {
                    (Some(seq), Some(text)) => format!("#{seq} {}", super::excerpt(&text.replace('\n', " "), 100)),
                    _ => "(ended)".to_string(),
                };
                println!("first divergence:\n  A {}\n  B {}", side(d.a, &d.before), side(d.b, &d.after));
            }
        }
        let (a, b) = (&self.a, &self.b);
        let row = |name: &str, x: u64, y: u64| {
            println!("{name:<18} {x:>12} {y:>12} {:>+12}", y as i128 - x as i128);
        };
        println!("\n{:<18} {:>12} {:>12} {:>12}", "", "A", "B", "B − A");
        row("calls", a.calls, b.calls);
        row("prompt tokens", a.prompt_tokens, b.prompt_tokens);
        row("cached tokens", a.cached_tokens, b.cached_tokens);
        row("completion tokens", a.completion_tokens, b.completion_tokens);
        row("compactions", a.compactions, b.compactions);
        let cost = |c: Option<alisio_engine::cost::Money>| c.map_or("-".to_string(), |m| m.to_string());
        println!("{:<18} {:>12} {:>12}", "cost", cost(a.cost_usd), cost(b.cost_usd));
        let mut tools: Vec<&String> = a.tools.keys().chain(b.tools.keys()).collect();
        tools.sort();
        tools.dedup();
        for tool in tools {
            let count = |t: &std::collections::BTreeMap<String, u64>| t.get(tool).copied().unwrap_or(0);
            row(&format!("tool {tool}"), count(&a.tools), count(&b.tools));
        }
        let only = |x: &[String], y: &[String]| x.iter().filter(|f| !y.contains(f)).cloned().collect::<Vec<_>>();
        println!("files, both: {}", a.files.iter().filter(|f| b.files.contains(f)).count());
        println!("files, A only: {}", only(&a.files, &b.files).join(", "));
        println!("files, B only: {}", only(&b.files, &a.files).join(", "));
    }
}
