-- Pins (I19): a message's text or a sentence, carried verbatim right after every checkpoint.
CREATE TABLE pins (
    id          INTEGER PRIMARY KEY,
    session_id  TEXT NOT NULL REFERENCES sessions(id),
    -- the message pinned, if a message was; its text as it was then
    seq         INTEGER,
    text        TEXT NOT NULL,
    created_at  TEXT NOT NULL
);
CREATE INDEX pins_session ON pins (session_id, id);
