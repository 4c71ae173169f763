//! The ledger as text: calls, one request, a diff, a replay.

use alisio_engine::calls::{
    CacheBreak, CallComposition, CallDetail, CallDiff, CallSummary, CompactionCost, ReplayReport,
};
use alisio_engine::cost::book::{PriceShown, ShownRates};
use alisio_engine::cost::litellm::Counts;
use alisio_engine::cost::usage::UsageReport;
use alisio_engine::cost::Money;

use crate::cli::output::Human;

impl Human for Vec<CallSummary> {
    fn print(&self) {
        let calls = self;
        for c in calls {
            let opt = |v: Option<u64>| v.map_or("–".to_string(), |v| v.to_string());
            println!(
                "{:>3}  {:<13} {:<13} {}  {} chars  prompt {}  cached {}  completion {}  ttft {} ms  {}  {}{}",
                c.n,
                c.purpose,
                c.request_source,
                c.started_at,
                c.request_chars,
                opt(c.prompt_tokens),
                opt(c.cached_tokens),
                opt(c.completion_tokens),
                opt(c.ttft_ms),
                c.finish_reason.as_deref().unwrap_or("–"),
                money(c.cost_usd),
                c.error.as_deref().map(|e| format!("  error: {e}")).unwrap_or_default()
            );
        }
    }
}

impl Human for CallDetail {
    fn print(&self) {
        let detail = self;
        let how = if detail.exact { "exact" } else { "reconstructed" };
        println!("call {} ({}; {how}, from {})", detail.n, detail.purpose, detail.request_source);
        for part in &detail.missing {
            println!("  not recorded by the agent: {} (≈ {} tokens)", part.part, part.estimated_tokens);
        }
        for part in &detail.omitted {
            println!("  left out of its log: {part}");
        }
        let c = &detail.composition;
        let tools: u64 = c.tools.iter().map(|t| t.tokens).sum();
        println!(
            "  made of (≈ tokens): system {}  tools {tools}  checkpoint {}  injected {}  user {}  assistant {}  tool results {}",
            c.system.tokens, c.checkpoint.tokens, c.injected.tokens, c.user.tokens, c.assistant.tokens, c.tool_results.tokens
        );
        println!("request:\n{}", serde_json::to_string_pretty(&detail.request).unwrap_or_default());
        match &detail.response {
            Some(response) => println!("response:\n{}", serde_json::to_string_pretty(response).unwrap_or_default()),
            None => println!("response: (none recorded)"),
        }
    }
}

impl Human for Vec<CallComposition> {
    fn print(&self) {
        println!(
            "  n  purpose       source         system   tools  checkp.  inject.    user  assist.  results  (≈ tokens)"
        );
        for c in self {
            let p = &c.composition;
            let tools: u64 = p.tools.iter().map(|t| t.tokens).sum();
            let unrecorded: u64 = c.missing.iter().map(|m| m.estimated_tokens).sum();
            println!(
                "{:>3}  {:<13} {:<13} {:>7} {:>7} {:>8} {:>8} {:>7} {:>8} {:>8}{}{}",
                c.n,
                c.purpose,
                if c.exact { "exact" } else { "reconstructed" },
                p.system.tokens,
                tools,
                p.checkpoint.tokens,
                p.injected.tokens,
                p.user.tokens,
                p.assistant.tokens,
                p.tool_results.tokens,
                if unrecorded > 0 { format!("  + ≈ {unrecorded} not recorded") } else { String::new() },
                if c.cache_break { "  (cache break)" } else { "" }
            );
        }
    }
}

impl Human for CallDiff {
    fn print(&self) {
        let diff = self;
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
        if let Some(cause) = diff.cause {
            println!(
                "cache miss: {} — {} tokens processed again, {}{}",
                cause.explain(),
                diff.lost_tokens.unwrap_or(0),
                money(diff.miss_cost_usd),
                diff.agent_reason.as_deref().map(|r| format!(" (the agent says: {r})")).unwrap_or_default()
            );
        }
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
}

impl Human for ReplayReport {
    fn print(&self) {
        let report = self;
        let text = |v: &Option<serde_json::Value>| {
            v.as_ref().and_then(|r| r["text"].as_str()).unwrap_or("(no answer recorded)").to_string()
        };
        println!("call {} replayed as call {} on {}", report.replay_of, report.n, report.model);
        println!("original:\n{}", text(&report.original));
        println!("replay:\n{}", text(&report.replay));
    }
}

/// `$0.004213`, or "unpriced".
fn money(value: Option<Money>) -> String {
    value.map_or_else(|| "unpriced".to_string(), |m| m.to_string())
}

impl Human for Vec<CacheBreak> {
    fn print(&self) {
        if self.is_empty() {
            println!("No cache break or miss: every call reused what the one before it left in the cache.");
        }
        for b in self {
            let reason = b.agent_reason.as_deref().map(|r| format!("  (the agent says: {r})")).unwrap_or_default();
            println!(
                "{:>3} against {:<3} {:<10} {} tokens processed again, {}  — {}{reason}",
                b.n,
                b.against,
                serde_json::to_value(b.cause).ok().and_then(|v| v.as_str().map(str::to_string)).unwrap_or_default(),
                b.lost_tokens,
                money(b.miss_cost_usd),
                b.cause.explain(),
            );
        }
    }
}

impl Human for UsageReport {
    fn print(&self) {
        println!(
            "{:<38} {:>7} {:>12} {:>12} {:>10} {:>10} {:>12} {:>10} {:>6}",
            "", "calls", "prompt", "cached", "written", "output", "cost", "saved", "hit %"
        );
        for row in self.rows.iter().chain(std::iter::once(&self.total)) {
            let key = match &row.label {
                Some(label) => format!("{} {}", &row.key[..row.key.len().min(8)], label),
                None => row.key.clone(),
            };
            let key: String = key.chars().take(38).collect();
            let unpriced =
                if row.unpriced_calls > 0 { format!("  ({} unpriced)", row.unpriced_calls) } else { String::new() };
            println!(
                "{key:<38} {:>7} {:>12} {:>12} {:>10} {:>10} {:>12} {:>10} {:>6}{unpriced}",
                row.calls,
                row.prompt_tokens,
                row.cached_tokens,
                row.cache_write_tokens,
                row.completion_tokens,
                money(row.cost_usd),
                money(row.cache_savings_usd),
                row.cache_hit_rate.map_or("–".to_string(), |r| format!("{:.1}", r * 100.0)),
            );
        }
        if !self.unpriced_models.is_empty() {
            let models: Vec<String> =
                self.unpriced_models.iter().map(|m| format!("{} ({} calls)", m.model, m.calls)).collect();
            println!("\nunpriced: {}", models.join(", "));
            if let Some(hint) = &self.price_hint {
                println!("to price them: {hint}");
            }
        }
    }
}

impl Human for PriceShown {
    fn print(&self) {
        println!("{}", self.why);
        let rates = |r: &ShownRates| {
            format!(
                "input ${} · cached ${} · cache write ${} (1 h ${}) · output ${}",
                r.input, r.cached_input, r.cache_write, r.cache_write_1h, r.output
            )
        };
        if let Some(entry) = &self.entry {
            println!("  {}  per million tokens  [{}]", rates(&entry.rates), entry.source);
            for band in &entry.bands {
                println!("  above {} prompt tokens: {}", band.above.unwrap_or(0), rates(band));
            }
            for tier in &entry.tiers {
                println!("  {} tier: {}", tier.tier.as_str(), rates(&tier.rates));
            }
        }
        if self.history.len() > 1 {
            println!("history of {}:", self.normalized);
            for e in &self.history {
                println!("  {:<10}  {}  [{}]", e.since.as_deref().unwrap_or("always"), rates(&e.rates), e.source);
            }
        }
    }
}

impl Human for Counts {
    fn print(&self) {
        println!(
            "{} models added, {} changed (a dated entry each), {} unchanged",
            self.added, self.changed, self.unchanged
        );
    }
}

impl Human for alisio_engine::calls::rereads::Rereads {
    fn print(&self) {
        if self.rereads.is_empty() {
            println!("Nothing was fetched again after a compaction.");
        }
        for r in &self.rereads {
            let held = match r.held_by {
                Some(alisio_engine::calls::rereads::HeldBy::Checkpoint) => "the checkpoint held it",
                Some(alisio_engine::calls::rereads::HeldBy::Trail) => "only the artifact trail held it",
                None => "nothing held it",
            };
            println!(
                "compaction #{}: {} fetched at #{} and again at #{}: {} tokens, {}; {held}",
                r.compaction,
                r.target,
                r.seq_before,
                r.seq_after,
                r.tokens,
                r.cost_usd.map_or("no price".to_string(), |usd| format!("${usd:.6}"))
            );
        }
    }
}

impl Human for Vec<CompactionCost> {
    fn print(&self) {
        if self.is_empty() {
            println!("No compaction in this session.");
        }
        for c in self {
            match c.n {
                Some(n) => println!(
                    "compaction #{}: summary call {n}, {} prompt tokens ({} cached): {}; as a rebuilt prompt {}; saved {}",
                    c.compaction,
                    c.prompt_tokens,
                    c.cached_tokens,
                    money(c.summary_cost_usd),
                    money(c.rebuilt_cost_usd),
                    money(c.saved_usd)
                ),
                None => println!("compaction #{}: no summary call recorded", c.compaction),
            }
        }
    }
}
