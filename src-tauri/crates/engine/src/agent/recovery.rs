//! After a crash: calls that started and never finished are uncertain — their uncertainty is
//! recorded as their result, never re-run — and calls that never started are answered "not run".

use crate::error::{Error, Result};
use crate::store::journal::{self, Finish, JournalEntry, JournalState};
use crate::store::sessions::append_message;
use crate::store::Store;
use crate::transcript::NewMessage;

use super::*;
use crate::store::SessionId;

impl Engine {
    /// Records each uncertain call's uncertainty as its result (and answers calls that never
    /// started as not run), in call order, in one transaction. Re-runs and undoes nothing.
    pub fn recover(&self, session: &SessionId) -> Result<RecoverReport> {
        let record = self.store.resolve_session(session)?;
        let _claim = self.claim(&record, "sessions recover")?;
        let unresolved = self.store.unresolved_tool_calls(&record.id)?;
        let started: Vec<&JournalEntry> = unresolved.iter().filter(|e| e.state != JournalState::Requested).collect();
        let killed = kill_leftover_groups(&started);
        let mut report =
            RecoverReport { session: record.id.to_string(), acknowledged: Vec::new(), not_run: Vec::new(), killed };
        let anchors = late_result_anchors(&self.store, &record.id, &unresolved)?;
        self.store.write(|tx| {
            for (entry, anchor) in unresolved.iter().zip(&anchors) {
                if entry.state == JournalState::Requested {
                    let message =
                        NewMessage { anchor: *anchor, ..NewMessage::tool_result(&entry.call_id, NOT_RUN_RESULT) };
                    let seq = append_message(tx, &record.id, &message)?;
                    journal::record_finished(tx, entry.id, Finish::not_run(seq))?;
                    report.not_run.push(entry.clone());
                } else {
                    let mut message =
                        NewMessage { anchor: *anchor, ..NewMessage::tool_result(&entry.call_id, UNCERTAIN_RESULT) };
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

/// Where each late result goes: appended, or placed after its call when a later turn exists.
pub(super) fn late_result_anchors(
    store: &Store,
    session: &SessionId,
    entries: &[JournalEntry],
) -> Result<Vec<Option<i64>>> {
    entries.iter().map(|e| store.late_result_anchor(session, e.assistant_seq)).collect()
}

/// Kills what is left of the process groups of calls whose process died (a group outlives its
/// run only where no watchdog could act); returns a description of each group killed.
pub(super) fn kill_leftover_groups(entries: &[&JournalEntry]) -> Vec<String> {
    entries
        .iter()
        .filter_map(|e| {
            let group = e.process_group()?;
            group.kill_leftovers().then(|| format!("{} {} (process group {})", e.name, e.call_id, group.pgid))
        })
        .collect()
}

/// Before a turn: calls that started and never finished make the session uncertain (refused
/// until acknowledged); calls that were requested but never started are answered as not run.
pub(super) fn settle_interrupted_calls(store: &Store, session: &SessionId) -> Result<()> {
    let unresolved = store.unresolved_tool_calls(session)?;
    if unresolved.is_empty() {
        return Ok(());
    }
    let uncertain: Vec<&JournalEntry> =
        unresolved.iter().filter(|e| matches!(e.state, JournalState::Started | JournalState::Uncertain)).collect();
    if !uncertain.is_empty() {
        let killed = kill_leftover_groups(&uncertain);
        store.mark_started_uncertain(session)?;
        return Err(Error::Uncertain {
            session: session.to_string(),
            count: uncertain.len(),
            calls: uncertain.iter().map(|e| format!("{} {}", e.name, e.call_id)).collect::<Vec<_>>().join(", "),
            killed: if killed.is_empty() {
                String::new()
            } else {
                format!(". Their process groups were still running and have been killed now: {}", killed.join(", "))
            },
        });
    }
    let anchors = late_result_anchors(store, session, &unresolved)?;
    store.write(|tx| {
        for (entry, anchor) in unresolved.iter().zip(&anchors) {
            let message = NewMessage { anchor: *anchor, ..NewMessage::tool_result(&entry.call_id, NOT_RUN_RESULT) };
            let seq = append_message(tx, session, &message)?;
            journal::record_finished(tx, entry.id, Finish::not_run(seq))?;
        }
        Ok(())
    })
}
