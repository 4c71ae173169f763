-- Sessions read from other agents (`alisio import`): where they came from, the source's own id
-- (one Alisio session per source session), how far the source has been read, and the system
-- prompt the source recorded (the model view and ledger of an imported session start with it).
ALTER TABLE sessions ADD COLUMN source TEXT;
ALTER TABLE sessions ADD COLUMN source_path TEXT;
ALTER TABLE sessions ADD COLUMN source_id TEXT;
ALTER TABLE sessions ADD COLUMN source_cursor TEXT;
ALTER TABLE sessions ADD COLUMN system_prompt TEXT;
CREATE UNIQUE INDEX sessions_source ON sessions (source, source_id) WHERE source IS NOT NULL;

-- An imported message keeps the source's record id and what Alisio does not map (as JSON);
-- `off_view` marks a record that is kept but never part of the model's view (a sub-agent's
-- record, a local command's output).
ALTER TABLE messages ADD COLUMN source_id TEXT;
ALTER TABLE messages ADD COLUMN meta TEXT;
ALTER TABLE messages ADD COLUMN off_view INTEGER NOT NULL DEFAULT 0;
CREATE INDEX messages_source_id ON messages (session_id, source_id) WHERE source_id IS NOT NULL;

-- A compaction another agent recorded may not say why it ran: reason 'unknown'. SQLite cannot
-- change a CHECK constraint in place, so the table is rebuilt (foreign keys are off while
-- migrations run and checked after them).
CREATE TABLE compactions_new (
    id                   INTEGER PRIMARY KEY,
    session_id           TEXT NOT NULL REFERENCES sessions(id),
    kind                 TEXT NOT NULL CHECK (kind IN ('checkpoint', 'reduction')),
    reason               TEXT NOT NULL CHECK (reason IN ('manual', 'auto', 'budget', 'cache', 'unknown')),
    focus                TEXT,
    status               TEXT NOT NULL CHECK (status IN ('proposed', 'applied', 'discarded', 'reverted')),
    partial              INTEGER NOT NULL DEFAULT 0,
    checkpoint           TEXT NOT NULL DEFAULT '{}',
    summarized_ranges    TEXT NOT NULL DEFAULT '[]',
    summarized_messages  INTEGER NOT NULL DEFAULT 0,
    summarized_chars     INTEGER NOT NULL DEFAULT 0,
    checkpoint_chars     INTEGER NOT NULL DEFAULT 0,
    before_chars         INTEGER NOT NULL,
    after_chars          INTEGER NOT NULL,
    plugin_reports       TEXT NOT NULL DEFAULT '[]',
    plugin_fields        TEXT NOT NULL DEFAULT '{}',
    inject_context       TEXT NOT NULL DEFAULT '[]',
    model_call_id        INTEGER,
    created_at           TEXT NOT NULL,
    applied_at           TEXT,
    reverted_at          TEXT
);
INSERT INTO compactions_new SELECT * FROM compactions;
DROP TABLE compactions;
ALTER TABLE compactions_new RENAME TO compactions;
CREATE INDEX compactions_session ON compactions (session_id, id);
