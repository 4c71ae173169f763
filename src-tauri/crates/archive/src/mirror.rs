//! The archive held as homes: one home per machine that pushed (its ids are that machine's, so
//! they never clash), each session restored whole from the rows its push kept. `alisio serve`
//! answers every view of a session from these homes with the same code the window runs on a local
//! one; pulling again restores only the sessions whose fingerprint changed.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use alisio_engine::store::rows::Row;
use alisio_engine::store::Store;
use serde_json::Value;

use crate::{Archive, ArchiveError, Result};

/// The homes of an archive's machines, under `dir`.
pub struct Mirror {
    dir: PathBuf,
    /// Each machine's home.
    pub homes: BTreeMap<String, PathBuf>,
    /// Which machine holds each session (the first machine, should two push the same id).
    pub sessions: BTreeMap<String, String>,
}

/// The fact a home keeps of the fingerprint it restored a session at.
fn fact(id: &str) -> String {
    format!("archive-fingerprint:{id}")
}

/// A folder name for a machine (its name, unsafe characters replaced).
fn folder(machine: &str) -> String {
    machine.chars().map(|c| if c.is_ascii_alphanumeric() || "-_.".contains(c) { c } else { '_' }).collect()
}

impl Mirror {
    pub fn new(dir: &Path) -> Mirror {
        Mirror { dir: dir.to_path_buf(), homes: BTreeMap::new(), sessions: BTreeMap::new() }
    }

    fn store(&mut self, machine: &str) -> Result<Store> {
        let home = self.dir.join(folder(machine));
        std::fs::create_dir_all(&home)
            .map_err(|e| ArchiveError::Config(format!("cannot make the archive's copy at {}: {e}", home.display())))?;
        self.homes.insert(machine.to_string(), home.clone());
        Ok(Store::open(&home.join(alisio_engine::home::DB_FILE))?)
    }

    /// Restores every session whose fingerprint changed since the last pull; the number restored.
    pub async fn pull(&mut self, archive: &Archive) -> Result<u64> {
        let client = &archive.client;
        let fail = |e| archive.fail(e);
        let rows = client
            .query(
                "SELECT machine, id, fingerprint, row FROM sessions WHERE row IS NOT NULL AND fingerprint <> ''
                 ORDER BY machine, id",
                &[],
            )
            .await
            .map_err(fail)?;
        let mut stores: BTreeMap<String, Store> = BTreeMap::new();
        let mut restored = 0;
        for r in rows {
            let (machine, id, fingerprint): (String, String, String) = (r.get(0), r.get(1), r.get(2));
            if self.sessions.get(&id).is_some_and(|m| m != &machine) {
                tracing::warn!("session {id} was pushed from {machine} and from another machine; the first is served");
                continue;
            }
            self.sessions.insert(id.clone(), machine.clone());
            if !stores.contains_key(&machine) {
                let store = self.store(&machine)?;
                stores.insert(machine.clone(), store);
            }
            let store = &stores[&machine];
            if store.library_fact(&fact(&id))?.as_deref() == Some(fingerprint.as_str()) {
                continue;
            }
            let Value::Object(session_row) = r.get::<_, Value>(3) else { continue };
            let messages: Vec<Row> = client
                .query(
                    "SELECT row || jsonb_build_object('content', content) FROM messages
                     WHERE machine = $1 AND session_id = $2 AND row IS NOT NULL ORDER BY seq",
                    &[&machine, &id],
                )
                .await
                .map_err(fail)?
                .into_iter()
                .filter_map(|m| match m.get::<_, Value>(0) {
                    Value::Object(row) => Some(row),
                    _ => None,
                })
                .collect();
            let others: Vec<(String, Row)> = client
                .query(
                    "SELECT tbl, row FROM session_rows WHERE machine = $1 AND session_id = $2 ORDER BY tbl, n",
                    &[&machine, &id],
                )
                .await
                .map_err(fail)?
                .into_iter()
                .filter_map(|o| match o.get::<_, Value>(1) {
                    Value::Object(row) => Some((o.get(0), row)),
                    _ => None,
                })
                .collect();
            store.restore_rows(&id, &session_row, &messages, &others)?;
            store.record_library_fact(&fact(&id), &fingerprint)?;
            restored += 1;
        }
        Ok(restored)
    }
}
