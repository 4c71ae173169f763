//! The archive's schema, with migrations of its own: each is applied once, in order, under an
//! advisory lock (two pushes starting together migrate once); an archive migrated by a newer Alisio
//! is refused, never changed. docs/archive.md describes every table.

use crate::{Archive, ArchiveError, Result};

/// Each migration, in order; its number is its place in this list, from 1.
const MIGRATIONS: &[&str] = &[
    // 1: sessions, messages (full text and trigrams), calls priced, compactions, pins.
    r#"
CREATE EXTENSION IF NOT EXISTS pg_trgm;
CREATE TABLE sessions (
    machine       text NOT NULL,
    id            text NOT NULL,
    user_name     text NOT NULL,
    title         text NOT NULL,
    agent         text NOT NULL,
    project       text NOT NULL,
    started_at    text NOT NULL,
    last_active   text NOT NULL,
    parent        text,
    forked_from   text,
    forked_at_seq bigint,
    messages      bigint NOT NULL DEFAULT 0,
    calls         bigint NOT NULL DEFAULT 0,
    pushed_seq    bigint NOT NULL DEFAULT 0,
    pushed_call   bigint NOT NULL DEFAULT 0,
    fingerprint   text NOT NULL DEFAULT '',
    pushed_at     timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (machine, id)
);
CREATE INDEX sessions_recent ON sessions (last_active DESC);
CREATE TABLE messages (
    machine       text NOT NULL,
    session_id    text NOT NULL,
    seq           bigint NOT NULL,
    role          text NOT NULL,
    content       text NOT NULL,
    tool_calls    jsonb NOT NULL DEFAULT '[]',
    tool_call_id  text,
    summary       boolean NOT NULL DEFAULT false,
    compacted_by  bigint,
    created_at    text NOT NULL,
    search        tsvector GENERATED ALWAYS AS (to_tsvector('simple', content)) STORED,
    PRIMARY KEY (machine, session_id, seq),
    FOREIGN KEY (machine, session_id) REFERENCES sessions ON DELETE CASCADE
);
CREATE INDEX messages_search ON messages USING gin (search);
CREATE INDEX messages_trigrams ON messages USING gin (content gin_trgm_ops);
CREATE TABLE calls (
    machine            text NOT NULL,
    session_id         text NOT NULL,
    id                 bigint NOT NULL,
    purpose            text NOT NULL,
    api                text NOT NULL,
    model              text NOT NULL,
    started_at         text NOT NULL,
    prompt_tokens      bigint NOT NULL DEFAULT 0,
    cached_tokens      bigint NOT NULL DEFAULT 0,
    cache_write_tokens bigint NOT NULL DEFAULT 0,
    completion_tokens  bigint NOT NULL DEFAULT 0,
    cost_pico          bigint,
    savings_pico       bigint,
    PRIMARY KEY (machine, session_id, id),
    FOREIGN KEY (machine, session_id) REFERENCES sessions ON DELETE CASCADE
);
CREATE INDEX calls_started ON calls (started_at);
CREATE TABLE compactions (
    machine      text NOT NULL,
    session_id   text NOT NULL,
    id           bigint NOT NULL,
    kind         text NOT NULL,
    reason       text NOT NULL,
    status       text NOT NULL,
    checkpoint   jsonb NOT NULL,
    before_chars bigint NOT NULL,
    after_chars  bigint NOT NULL,
    created_at   text NOT NULL,
    PRIMARY KEY (machine, session_id, id),
    FOREIGN KEY (machine, session_id) REFERENCES sessions ON DELETE CASCADE
);
CREATE TABLE pins (
    machine    text NOT NULL,
    session_id text NOT NULL,
    id         bigint NOT NULL,
    seq        bigint,
    text       text NOT NULL,
    PRIMARY KEY (machine, session_id, id),
    FOREIGN KEY (machine, session_id) REFERENCES sessions ON DELETE CASCADE
);
"#,
    // 2: each session whole, as its home keeps it: the rows of its tables, so another home (what
    // `alisio serve` reads) can hold it exactly.
    r#"
ALTER TABLE sessions ADD COLUMN row jsonb;
ALTER TABLE messages ADD COLUMN row jsonb;
CREATE TABLE session_rows (
    machine    text NOT NULL,
    session_id text NOT NULL,
    tbl        text NOT NULL,
    n          bigint NOT NULL,
    row        jsonb NOT NULL,
    PRIMARY KEY (machine, session_id, tbl, n),
    FOREIGN KEY (machine, session_id) REFERENCES sessions ON DELETE CASCADE
);
"#,
    // 3: who may read the archive through `alisio serve`.
    r#"
CREATE TABLE serve_tokens (
    id         bigserial PRIMARY KEY,
    label      text NOT NULL,
    hash       text NOT NULL UNIQUE,
    created_at timestamptz NOT NULL DEFAULT now(),
    revoked_at timestamptz
);
"#,
    // 4: each session's line in the library as its home shows it (the served library reads it).
    r#"
ALTER TABLE sessions ADD COLUMN summary jsonb;
"#,
];

/// The schema version this Alisio writes.
pub const VERSION: i64 = MIGRATIONS.len() as i64;

/// Brings the archive's schema to [`VERSION`]; refuses one a newer Alisio migrated.
pub async fn migrate(archive: &Archive) -> Result<()> {
    let client = &archive.client;
    let fail = |e| archive.fail(e);
    client
        .batch_execute(
            "CREATE TABLE IF NOT EXISTS archive_schema (version bigint PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())",
        )
        .await
        .map_err(fail)?;
    client.batch_execute("BEGIN; SELECT pg_advisory_xact_lock(7301)").await.map_err(fail)?;
    let result = async {
        let row = client.query_one("SELECT coalesce(max(version), 0) FROM archive_schema", &[]).await.map_err(fail)?;
        let at: i64 = row.get(0);
        if at > VERSION {
            return Err(ArchiveError::Config(format!(
                "the archive {} has schema {at}, written by a newer Alisio; this one writes schema {VERSION}: upgrade Alisio to push to it",
                archive.name
            )));
        }
        for (i, sql) in MIGRATIONS.iter().enumerate().skip(at as usize) {
            client.batch_execute(sql).await.map_err(fail)?;
            client.execute("INSERT INTO archive_schema (version) VALUES ($1)", &[&(i as i64 + 1)]).await.map_err(fail)?;
        }
        Ok(())
    }
    .await;
    let end = if result.is_ok() { "COMMIT" } else { "ROLLBACK" };
    client.batch_execute(end).await.map_err(fail)?;
    result
}
