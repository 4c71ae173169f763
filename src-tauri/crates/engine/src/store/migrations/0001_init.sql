-- Alisio schema v1. History is append-only: rows are added; originals are only ever *marked*.

CREATE TABLE sessions (
    id          TEXT PRIMARY KEY,
    title       TEXT NOT NULL,
    workspace   TEXT NOT NULL,
    created_at  TEXT NOT NULL,
    updated_at  TEXT NOT NULL
);

CREATE TABLE messages (
    id              INTEGER PRIMARY KEY,
    session_id      TEXT NOT NULL REFERENCES sessions(id),
    -- monotonic per session; the only ordering of history
    seq             INTEGER NOT NULL,
    -- transcript position: own seq, or the seq of the original this record stands in for
    anchor          INTEGER NOT NULL,
    role            TEXT NOT NULL CHECK (role IN ('system', 'user', 'assistant', 'tool')),
    content         TEXT NOT NULL,
    -- characters of content plus tool calls, so budgets never need to read contents
    chars           INTEGER NOT NULL,
    tool_calls      TEXT,
    tool_call_id    TEXT,
    provider_items  TEXT,
    compacted       INTEGER NOT NULL DEFAULT 0,
    summary         INTEGER NOT NULL DEFAULT 0,
    truncated       INTEGER NOT NULL DEFAULT 0,
    uncertain       INTEGER NOT NULL DEFAULT 0,
    created_at      TEXT NOT NULL,
    UNIQUE (session_id, seq)
);
CREATE INDEX messages_live ON messages (session_id, compacted, anchor, seq);

-- Tool-call journal: requested -> started -> finished | uncertain -> acknowledged.
CREATE TABLE tool_calls (
    id              INTEGER PRIMARY KEY,
    session_id      TEXT NOT NULL REFERENCES sessions(id),
    call_id         TEXT NOT NULL,
    name            TEXT NOT NULL,
    arguments       TEXT NOT NULL,
    assistant_seq   INTEGER NOT NULL,
    state           TEXT NOT NULL CHECK (state IN ('requested', 'started', 'finished', 'uncertain', 'acknowledged')),
    ok              INTEGER,
    result_seq      INTEGER,
    output_bytes    INTEGER,
    dropped_bytes   INTEGER NOT NULL DEFAULT 0,
    lossy           INTEGER NOT NULL DEFAULT 0,
    requested_at    TEXT NOT NULL,
    started_at      TEXT,
    finished_at     TEXT,
    acknowledged_at TEXT
);
CREATE INDEX tool_calls_session ON tool_calls (session_id, state);

-- One row per model request; `message_ranges` lists the seqs (as [from, to] ranges) that formed it,
-- so the exact request can be rebuilt from the messages table.
CREATE TABLE model_calls (
    id                  INTEGER PRIMARY KEY,
    session_id          TEXT NOT NULL REFERENCES sessions(id),
    purpose             TEXT NOT NULL,
    api                 TEXT NOT NULL,
    model               TEXT NOT NULL,
    system_prompt       TEXT NOT NULL,
    message_ranges      TEXT NOT NULL,
    params              TEXT NOT NULL,
    tool_catalog_chars  INTEGER NOT NULL,
    request_chars       INTEGER NOT NULL,
    estimated_tokens    INTEGER NOT NULL,
    prompt_tokens       INTEGER,
    cached_tokens       INTEGER,
    completion_tokens   INTEGER,
    prompt_ms           REAL,
    ttft_ms             INTEGER,
    duration_ms         INTEGER,
    finish_reason       TEXT,
    error               TEXT,
    response_seq        INTEGER,
    started_at          TEXT NOT NULL
);
CREATE INDEX model_calls_session ON model_calls (session_id, id);

CREATE TABLE events (
    id          INTEGER PRIMARY KEY,
    session_id  TEXT NOT NULL,
    type        TEXT NOT NULL,
    body        TEXT NOT NULL,
    ts          TEXT NOT NULL
);
CREATE INDEX events_session ON events (session_id, id);
