//! The session store: one SQLite file (`$ALISIO_HOME/sessions.db`), written through one place.
//! Migrations are embedded and applied in one IMMEDIATE transaction; WAL and a busy timeout are on;
//! a file that is not ours, corrupt, or from a newer Alisio is refused and never overwritten.

pub mod captured;
pub mod compactions;
mod forks;
pub mod imported;
pub mod journal;
mod ledger;
pub mod library;
pub mod messages;
pub mod pins;
mod pushed;
pub mod rows;
pub mod search;
pub mod sessions;
pub mod usage;

use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};
use std::time::Duration;

use rusqlite::{Connection, ErrorCode, OpenFlags, Transaction, TransactionBehavior};

pub use captured::{CaptureKey, CapturedCall};
pub use journal::{JournalEntry, JournalState};
pub use ledger::{ModelCallRecord, ModelCallStart, ModelCallUpdate, Purpose, RequestSource, WireApi};
pub use sessions::{Session, SessionId, SessionSummary, SourceKind};

use crate::error::{Error, Result};

// Embedded migrations `(file name, SQL)`, derived by build.rs from `migrations/`; the fresh schema
// *is* these files applied in order, and `user_version` counts how many were applied.
include!(concat!(env!("OUT_DIR"), "/migrations.rs"));

pub const SCHEMA_VERSION: i64 = MIGRATIONS.len() as i64;

const BUSY_TIMEOUT: Duration = Duration::from_secs(5);

pub struct Store {
    conn: Mutex<Connection>,
    path: PathBuf,
}

impl Store {
    /// Opens (creating if needed) the database at `path` and brings its schema up to date.
    pub fn open(path: &Path) -> Result<Store> {
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)
                .map_err(|e| Error::io(format!("cannot create the data directory {}", dir.display()), e))?;
        }
        let db_error = |problem: String| Error::Database { path: path.to_path_buf(), problem };
        let conn = Connection::open_with_flags(
            path,
            OpenFlags::SQLITE_OPEN_READ_WRITE | OpenFlags::SQLITE_OPEN_CREATE | OpenFlags::SQLITE_OPEN_URI,
        )
        .map_err(|e| db_error(format!("cannot be opened: {e}")))?;
        conn.busy_timeout(BUSY_TIMEOUT)?;

        // Read before writing anything, so a foreign or corrupt file is never touched.
        probe(&conn, path)?;
        conn.query_row("PRAGMA journal_mode = WAL", [], |r| r.get::<_, String>(0))
            .map_err(|e| db_error(describe_open_error(&e)))?;
        conn.execute_batch("PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL; PRAGMA cache_size = -32768;")?;
        let store = Store { conn: Mutex::new(conn), path: path.to_path_buf() };
        store.migrate()?;
        // The release that last wrote the home: an older one refusing it can name it.
        if store.library_fact("written_by")?.as_deref() != Some(env!("CARGO_PKG_VERSION")) {
            store.record_library_fact("written_by", env!("CARGO_PKG_VERSION"))?;
        }
        Ok(store)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The directory the database lives in (`$ALISIO_HOME`), where session claims are kept.
    pub fn home(&self) -> &Path {
        self.path.parent().unwrap_or(Path::new("."))
    }

    /// Opens an existing, up-to-date database without writing to it or its directory (a read-only
    /// `$ALISIO_HOME` works): for commands that only show. A missing or older database is opened
    /// as [`Store::open`] does (creating or upgrading it needs a write).
    pub fn open_for_reading(path: &Path) -> Result<Store> {
        if !path.exists() {
            return Store::open(path);
        }
        let db_error = |problem: String| Error::Database { path: path.to_path_buf(), problem };
        let read_only = OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_URI;
        let attempt = |conn: Connection| -> Result<(Connection, i64)> {
            conn.busy_timeout(BUSY_TIMEOUT)?;
            let version = probe(&conn, path)?;
            Ok((conn, version))
        };
        let opened = Connection::open_with_flags(path, read_only)
            .map_err(|e| db_error(describe_open_error(&e)))
            .and_then(attempt)
            .or_else(|_| {
                // A WAL database in a directory we cannot write opens only as immutable.
                let uri = format!("file:{}?immutable=1", path.display());
                Connection::open_with_flags(uri, read_only)
                    .map_err(|e| db_error(describe_open_error(&e)))
                    .and_then(attempt)
            });
        match opened {
            Ok((conn, version)) if version == SCHEMA_VERSION => {
                Ok(Store { conn: Mutex::new(conn), path: path.to_path_buf() })
            }
            Ok(_) => Store::open(path),
            Err(err) => Err(err),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Connection> {
        // A panic while holding the lock cannot leave a half-written transaction behind (it rolls
        // back on drop), so the connection is still usable.
        self.conn.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Applies the migrations this database lacks. Foreign keys are off while they run (a table
    /// rebuild needs that, and it cannot change inside a transaction) and checked before commit.
    fn migrate(&self) -> Result<()> {
        let version: i64 = self.read(|c| Ok(c.query_row("PRAGMA user_version", [], |r| r.get(0))?))?;
        if version >= SCHEMA_VERSION {
            return Ok(());
        }
        self.read(|c| Ok(c.execute_batch("PRAGMA foreign_keys = OFF")?))?;
        let migrated = self.write(|tx| {
            let version: i64 = tx.conn().query_row("PRAGMA user_version", [], |r| r.get(0))?;
            for (index, (_, sql)) in MIGRATIONS.iter().enumerate().skip(version.max(0) as usize) {
                tx.conn().execute_batch(sql)?;
                tx.conn().pragma_update(None, "user_version", (index + 1) as i64)?;
            }
            let broken: i64 = tx.conn().query_row("SELECT count(*) FROM pragma_foreign_key_check", [], |r| r.get(0))?;
            if broken > 0 {
                return Err(Error::Database {
                    path: self.path.clone(),
                    problem: format!("has {broken} rows whose references broke while upgrading; nothing was changed"),
                });
            }
            Ok(())
        });
        self.read(|c| Ok(c.execute_batch("PRAGMA foreign_keys = ON")?))?;
        migrated.map_err(|e| match e {
            Error::Sqlite(err) => Error::Database { path: self.path.clone(), problem: describe_open_error(&err) },
            other => other,
        })
    }

    /// Runs `f` in one IMMEDIATE transaction: everything it writes lands, or nothing does. `f`
    /// writes only through the store's functions (they take the [`Tx`]); SQL lives here.
    pub fn write<T>(&self, f: impl FnOnce(&Tx<'_>) -> Result<T>) -> Result<T> {
        let mut conn = self.lock();
        let tx = Tx(conn.transaction_with_behavior(TransactionBehavior::Immediate)?);
        let out = f(&tx)?;
        tx.0.commit()?;
        Ok(out)
    }

    pub(in crate::store) fn read<T>(&self, f: impl FnOnce(&Connection) -> Result<T>) -> Result<T> {
        let conn = self.lock();
        f(&conn)
    }
}

/// One write transaction of the store. Code outside `store/` can only hand it to the store's
/// functions: the store is the only writer, and the only place SQL is written.
pub struct Tx<'c>(Transaction<'c>);

impl<'c> Tx<'c> {
    pub(in crate::store) fn conn(&self) -> &Transaction<'c> {
        &self.0
    }
}

/// Reads the schema version without writing: refuses a corrupt file, a foreign SQLite file and a
/// newer schema, each left untouched.
fn probe(conn: &Connection, path: &Path) -> Result<i64> {
    let db_error = |problem: String| Error::Database { path: path.to_path_buf(), problem };
    let probe = conn.query_row("SELECT count(*) FROM sqlite_master", [], |r| r.get::<_, i64>(0));
    let table_count = probe.map_err(|e| db_error(describe_open_error(&e)))?;
    let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
    if version > SCHEMA_VERSION {
        // The release that wrote it, as it recorded itself (homes from before 0023 did not).
        let written_by: Option<String> =
            conn.query_row("SELECT value FROM library_state WHERE key = 'written_by'", [], |r| r.get(0)).ok();
        return Err(Error::NewerHome {
            path: path.to_path_buf(),
            schema: version,
            written_by: written_by.unwrap_or_else(|| "a newer release".into()),
            ours: env!("CARGO_PKG_VERSION"),
            ours_schema: SCHEMA_VERSION,
        });
    }
    if version == 0 && table_count > 0 {
        return Err(db_error(
            "is an SQLite database that Alisio did not create; it was left untouched. \
             Set ALISIO_HOME to another directory or move the file aside."
                .into(),
        ));
    }
    Ok(version)
}

fn describe_open_error(err: &rusqlite::Error) -> String {
    match err.sqlite_error_code() {
        Some(ErrorCode::NotADatabase) | Some(ErrorCode::DatabaseCorrupt) => {
            "is not a valid SQLite database (it may be corrupt); it was left untouched. \
             Move it aside to start fresh, or set ALISIO_HOME to another directory."
                .into()
        }
        Some(ErrorCode::DatabaseBusy) | Some(ErrorCode::DatabaseLocked) => {
            format!(
                "is locked by another process (waited {} s). Close the other Alisio and try again.",
                BUSY_TIMEOUT.as_secs()
            )
        }
        Some(ErrorCode::ReadOnly) | Some(ErrorCode::CannotOpen) | Some(ErrorCode::PermissionDenied) => {
            format!("cannot be written ({err}); check the file's permissions")
        }
        _ => format!("cannot be used: {err}"),
    }
}

/// Packs sorted seqs into inclusive `[from, to]` ranges.
pub fn seq_ranges(seqs: impl IntoIterator<Item = i64>) -> Vec<[i64; 2]> {
    let mut ranges: Vec<[i64; 2]> = Vec::new();
    for seq in seqs {
        match ranges.last_mut() {
            Some(last) if last[1] + 1 == seq => last[1] = seq,
            _ => ranges.push([seq, seq]),
        }
    }
    ranges
}

/// A fresh store with one session of `n` user messages (`m0`…), for tests of paging and views.
#[cfg(test)]
pub(crate) fn store_with_messages(n: usize) -> (tempfile::TempDir, Store, Session) {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let store = Store::open(&dir.path().join("s.db")).unwrap_or_else(|e| panic!("{e}"));
    let session = store.create_session("/w", "t").unwrap_or_else(|e| panic!("{e}"));
    store
        .write(|tx| {
            for i in 0..n {
                sessions::append_message(tx, &session.id, &crate::transcript::NewMessage::user(format!("m{i}")))?;
            }
            Ok(())
        })
        .unwrap_or_else(|e| panic!("{e}"));
    (dir, store, session)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paging_from_the_end_returns_the_transcript_in_order() {
        let (_dir, store, session) = store_with_messages(10);
        let mut pages = Vec::new();
        let mut before = None;
        loop {
            let page = store.messages_before(&session.id, before, 3).unwrap();
            if page.is_empty() {
                break;
            }
            before = Some((page[0].anchor, page[0].seq));
            pages.push(page.iter().map(|m| m.seq).collect::<Vec<_>>());
        }
        assert_eq!(pages, vec![vec![8, 9, 10], vec![5, 6, 7], vec![2, 3, 4], vec![1]]);
    }

    #[test]
    fn paging_forward_follows_the_transcript() {
        let (_dir, store, session) = store_with_messages(10);
        let seqs = |page: Vec<crate::transcript::Message>| page.iter().map(|m| m.seq).collect::<Vec<_>>();
        assert_eq!(seqs(store.messages_after_page(&session.id, (3, 3), 4).unwrap()), vec![4, 5, 6, 7]);
        assert_eq!(seqs(store.messages_after_page(&session.id, (8, 8), 4).unwrap()), vec![9, 10]);
        assert_eq!(store.position_of(&session.id, 6).unwrap(), Some((6, 6)));
        assert_eq!(store.position_of(&session.id, 99).unwrap(), None);
    }

    /// Every `CREATE INDEX name` in the migration files, read from the directory itself.
    fn indexes_in_migration_files() -> Vec<String> {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/store/migrations");
        let mut names = Vec::new();
        for entry in std::fs::read_dir(dir).unwrap() {
            let sql = std::fs::read_to_string(entry.unwrap().path()).unwrap();
            for line in sql.lines() {
                let words: Vec<&str> = line.split_whitespace().collect();
                if let ["CREATE", "INDEX", name, ..] | ["CREATE", "UNIQUE", "INDEX", name, ..] = words.as_slice() {
                    names.push(name.to_string());
                }
            }
        }
        names.sort();
        names.dedup();
        names
    }

    #[test]
    fn every_migration_file_is_applied() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/store/migrations");
        let files = std::fs::read_dir(dir)
            .unwrap()
            .filter(|e| e.as_ref().unwrap().path().extension().is_some_and(|x| x == "sql"))
            .count();
        assert_eq!(SCHEMA_VERSION as usize, files, "a migration file is not in the applied set");
        assert!(indexes_in_migration_files().contains(&"messages_transcript".to_string()));
    }

    /// A database left at each earlier schema version, with data in it, opens with this build:
    /// the schema is brought up to date (every index present) and nothing stored is lost.
    #[test]
    fn databases_at_every_earlier_version_upgrade_with_data_intact() {
        let dir = tempfile::tempdir().unwrap();
        let expected = indexes_in_migration_files();
        for version in 0..SCHEMA_VERSION as usize {
            let path = dir.path().join(format!("v{version}.db"));
            {
                let conn = Connection::open(&path).unwrap();
                for (_, sql) in &MIGRATIONS[..version] {
                    conn.execute_batch(sql).unwrap();
                }
                conn.pragma_update(None, "user_version", version as i64).unwrap();
                if version >= 1 {
                    conn.execute_batch(
                        "INSERT INTO sessions (id, title, workspace, created_at, updated_at)
                             VALUES ('s1', 'old', '/w', '2026-01-01T00:00:00Z', '2026-01-01T00:00:00Z');
                         INSERT INTO messages (session_id, seq, anchor, role, content, chars, created_at)
                             VALUES ('s1', 1, 1, 'user', 'hello', 5, '2026-01-01T00:00:00Z'),
                                    ('s1', 2, 2, 'assistant', 'hi', 2, '2026-01-01T00:00:01Z');",
                    )
                    .unwrap();
                }
            }
            let store = Store::open(&path).unwrap();
            let (user_version, mut indexes) = store
                .read(|c| {
                    let v: i64 = c.query_row("PRAGMA user_version", [], |r| r.get(0))?;
                    let mut stmt =
                        c.prepare("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL")?;
                    let names = stmt.query_map([], |r| r.get::<_, String>(0))?.collect::<rusqlite::Result<Vec<_>>>()?;
                    Ok((v, names))
                })
                .unwrap();
            indexes.sort();
            assert_eq!(user_version, SCHEMA_VERSION, "from version {version}");
            assert_eq!(indexes, expected, "from version {version}");
            if version >= 1 {
                let page = store.messages_before(&SessionId::from_string("s1".into()), None, 10).unwrap();
                let contents: Vec<(i64, &str)> = page.iter().map(|m| (m.seq, m.content.as_str())).collect();
                assert_eq!(contents, vec![(1, "hello"), (2, "hi")], "from version {version}");
            }
        }
    }

    #[test]
    fn ranges_pack_runs() {
        assert_eq!(seq_ranges([1, 2, 3, 5, 7, 8]), vec![[1, 3], [5, 5], [7, 8]]);
        assert!(seq_ranges([]).is_empty());
    }

    #[test]
    fn refuses_foreign_corrupt_and_newer_databases_without_touching_them() {
        let dir = tempfile::tempdir().unwrap();
        let garbage = dir.path().join("garbage.db");
        std::fs::write(&garbage, b"this is not sqlite at all, just some bytes................").unwrap();
        let before = std::fs::read(&garbage).unwrap();
        let err = Store::open(&garbage).err().unwrap().to_string();
        assert!(err.contains("not a valid SQLite database"), "{err}");
        assert_eq!(std::fs::read(&garbage).unwrap(), before);

        let newer = dir.path().join("newer.db");
        {
            let c = Connection::open(&newer).unwrap();
            c.execute_batch("PRAGMA user_version = 999;").unwrap();
        }
        let err = Store::open(&newer).err().unwrap().to_string();
        assert!(err.contains("written by Alisio a newer release (schema 999)"), "{err}");
        // A home that says which release wrote it is refused naming both releases.
        let named = dir.path().join("named.db");
        {
            let c = Connection::open(&named).unwrap();
            c.execute_batch(
                "CREATE TABLE library_state (key TEXT PRIMARY KEY, value TEXT NOT NULL);
                 INSERT INTO library_state VALUES ('written_by', '9.4.0'); PRAGMA user_version = 999;",
            )
            .unwrap();
        }
        let before = std::fs::read(&named).unwrap();
        let err = Store::open(&named).err().unwrap();
        assert!(matches!(err, Error::NewerHome { schema: 999, .. }), "{err}");
        let text = err.to_string();
        let ours = format!("this is Alisio {} (schema up to {SCHEMA_VERSION})", env!("CARGO_PKG_VERSION"));
        assert!(text.contains("written by Alisio 9.4.0 (schema 999)") && text.contains(&ours), "{text}");
        assert_eq!(std::fs::read(&named).unwrap(), before, "left untouched");

        let fresh = dir.path().join("fresh.db");
        Store::open(&fresh).unwrap();
        let store = Store::open(&fresh).unwrap();
        assert_eq!(store.library_fact("written_by").unwrap().as_deref(), Some(env!("CARGO_PKG_VERSION")));
        let version: i64 = store.read(|c| Ok(c.query_row("PRAGMA user_version", [], |r| r.get(0))?)).unwrap();
        assert_eq!(version, SCHEMA_VERSION);
    }
}
