-- Compaction and reduction records. Each applied record hides originals (messages.compacted_by)
-- and adds new messages (messages.created_by); undo reverses exactly those marks.

CREATE TABLE compactions (
    id                   INTEGER PRIMARY KEY,
    session_id           TEXT NOT NULL REFERENCES sessions(id),
    -- 'checkpoint': a summary replaced a span; 'reduction': kept messages were cut to fit the budget
    kind                 TEXT NOT NULL CHECK (kind IN ('checkpoint', 'reduction')),
    reason               TEXT NOT NULL CHECK (reason IN ('manual', 'auto', 'budget', 'cache')),
    focus                TEXT,
    status               TEXT NOT NULL CHECK (status IN ('proposed', 'applied', 'discarded', 'reverted')),
    partial              INTEGER NOT NULL DEFAULT 0,
    -- the validated checkpoint: {"sections": {...}} or {"text": "..."}; '{}' for reductions
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
CREATE INDEX compactions_session ON compactions (session_id, id);

ALTER TABLE messages ADD COLUMN created_by INTEGER REFERENCES compactions(id);
ALTER TABLE messages ADD COLUMN compacted_by INTEGER REFERENCES compactions(id);
ALTER TABLE messages ADD COLUMN reverted INTEGER NOT NULL DEFAULT 0;
CREATE INDEX messages_created_by ON messages (created_by) WHERE created_by IS NOT NULL;
CREATE INDEX messages_compacted_by ON messages (compacted_by) WHERE compacted_by IS NOT NULL;
