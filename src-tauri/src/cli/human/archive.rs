//! A team's archive as text: what a push sent, and the archive's search hits.

use alisio_archive::push::PushReport;
use alisio_archive::query::ArchiveSearch;

use crate::cli::output::Human;

impl Human for PushReport {
    fn print(&self) {
        let verb = if self.dry_run { "would send" } else { "sent" };
        println!(
            "{} {verb} {} session{} ({} messages, {} calls) to {} as {}@{}; {} secret{} redacted",
            if self.dry_run { "A push" } else { "Pushed:" },
            self.sessions,
            if self.sessions == 1 { "" } else { "s" },
            self.messages,
            self.calls,
            self.archive,
            self.user,
            self.machine,
            self.redactions,
            if self.redactions == 1 { "" } else { "s" },
        );
    }
}

impl Human for ArchiveSearch {
    fn print(&self) {
        for found in &self.hits {
            let hit = &found.hit;
            let session: String = hit.session.chars().take(8).collect();
            println!(
                "{}@{} {session} #{} {} · {}: {}",
                found.user, found.machine, hit.seq, hit.title, hit.role, hit.snippet
            );
        }
        println!("{} match{} in the archive", self.total, if self.total == 1 { "" } else { "es" });
    }
}

impl Human for alisio_archive::tokens::NewToken {
    fn print(&self) {
        println!(
            "Token {} ({}) made; it is shown this once — give it to whoever reads the archive:",
            self.id, self.label
        );
        println!("{}", self.token);
    }
}

impl Human for Vec<alisio_archive::tokens::TokenInfo> {
    fn print(&self) {
        if self.is_empty() {
            println!("No tokens yet: alisio serve token create --label NAME");
        }
        for token in self {
            let state = match &token.revoked_at {
                Some(at) => format!("revoked {at}"),
                None => "in force".to_string(),
            };
            println!("{:>4}  {:<24} made {}  {state}", token.id, token.label, token.created_at);
        }
    }
}
