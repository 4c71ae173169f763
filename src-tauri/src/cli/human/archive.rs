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
        for hit in &self.hits {
            let session: String = hit.session.chars().take(8).collect();
            println!(
                "{}@{} {session} #{} {} · {}: {}",
                hit.user, hit.machine, hit.seq, hit.title, hit.role, hit.snippet
            );
        }
        println!("{} match{} in the archive", self.total, if self.total == 1 { "" } else { "es" });
    }
}
