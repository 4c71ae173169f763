//! Compaction as text: an outcome, a lint, a probe.

use alisio_engine::compaction::probe::ProbeReport;
use alisio_engine::compaction::{CompactOutcome, StrategyPreview};
use alisio_engine::view::LintReport;

use super::excerpt;
use crate::cli::output::Human;

pub fn print_compact(outcome: &CompactOutcome) {
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

/// `compact --lint`: the score, then each missing item with why and where.
impl Human for LintReport {
    fn print(&self) {
        let report = self;
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
}

/// `compact --probe`: each question with the two answers and their agreement.
impl Human for ProbeReport {
    fn print(&self) {
        let report = self;
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
}

impl Human for Vec<StrategyPreview> {
    fn print(&self) {
        println!(
            "{:<8} {:>9} {:>16} {:>11} {:>10} {:>7}",
            "STRATEGY", "BEFORE", "AFTER", "SUMMARIZER", "SUMMARIZED", "MASKED"
        );
        for p in self {
            if let Some(why) = &p.unavailable {
                println!("{:<8} {:>9} {why}", p.strategy.to_string(), p.before_tokens);
                continue;
            }
            let after = match p.checkpoint_max_tokens {
                Some(max) => format!("{} + ≤{max}", p.after_tokens),
                None => p.after_tokens.to_string(),
            };
            let summarizer = p.summarizer_tokens.map_or("-".to_string(), |t| t.to_string());
            println!(
                "{:<8} {:>9} {after:>16} {summarizer:>11} {:>10} {:>7}",
                p.strategy.to_string(),
                p.before_tokens,
                p.summarized,
                p.masked
            );
        }
        println!("(tokens, estimated; \"+ ≤N\": the checkpoint the model writes, at most N)");
    }
}

impl Human for alisio_engine::bench::BakeOff {
    fn print(&self) {
        println!(
            "{:<8} {:>6} {:>10}  {:<40} {:>10} {:>10} {:>10} {:>11} {:>10}",
            "arm",
            "points",
            "probes",
            "by kind (kept/total)",
            "summ. in",
            "summ. out",
            "next req",
            "reprocessed",
            "cost"
        );
        for arm in &self.arms {
            let kinds: Vec<String> =
                arm.probes.by_kind.iter().map(|(k, t)| format!("{k} {}/{}", t.kept, t.total)).collect();
            println!(
                "{:<8} {:>6} {:>10}  {:<40} {:>10} {:>10} {:>10} {:>11} {:>10}",
                arm.strategy,
                arm.points,
                format!("{}/{}", arm.probes.kept, arm.probes.total),
                kinds.join(", "),
                arm.summarizer_tokens_in,
                arm.summarizer_tokens_out,
                arm.next_request_tokens,
                arm.reprocessed_tokens,
                arm.cost_usd.map_or("no price".to_string(), |usd| format!("${usd:.4}"))
            );
            for why in &arm.skipped {
                println!("         skipped: {why}");
            }
        }
    }
}
