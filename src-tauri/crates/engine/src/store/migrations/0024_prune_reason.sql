-- The line-prune strategy (I21): its records are reductions of reason 'prune'; 'provider' is
-- reserved for compactions the provider's API made. SQLite cannot change a CHECK constraint in
-- place, so the table is rebuilt as 0017 did (foreign keys off while migrations run; ids kept, so
-- messages.created_by / compacted_by still point at their records).
CREATE TABLE compactions_new (
    id                   INTEGER PRIMARY KEY,
    session_id           TEXT NOT NULL REFERENCES sessions(id),
    kind                 TEXT NOT NULL CHECK (kind IN ('checkpoint', 'reduction')),
    reason               TEXT NOT NULL CHECK (reason IN ('manual', 'auto', 'budget', 'cache', 'unknown', 'mask', 'prune', 'provider')),
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
    reverted_at          TEXT,
    fidelity             TEXT,
    trigger              TEXT
);
INSERT INTO compactions_new SELECT * FROM compactions;
DROP TABLE compactions;
ALTER TABLE compactions_new RENAME TO compactions;
CREATE INDEX compactions_session ON compactions (session_id, id);
