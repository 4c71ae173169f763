-- Where each ledger row's request body comes from, and what rebuilds it when it is not Alisio's own:
-- `request_source` 'alisio' | 'agent-log' | 'proxy' | 'reconstructed' (NULL on rows written before
-- this migration: Alisio's own, or reconstructed when params say so); `request_ref` the agent's own
-- record of the request (Claude Code: params, shape, kept and appended message parts, cache
-- breakpoints, the previous request of its chain) or, for a captured call, its body.
ALTER TABLE model_calls ADD COLUMN request_source TEXT;
ALTER TABLE model_calls ADD COLUMN request_ref TEXT;

-- Parts an agent's request log refers to by hash, stored once per session (linear in the log):
-- `shape` (system + tools) and `message` (a message as sent).
CREATE TABLE request_parts (
    session_id  TEXT NOT NULL REFERENCES sessions(id),
    hash        TEXT NOT NULL,
    kind        TEXT NOT NULL CHECK (kind IN ('shape', 'message')),
    body        TEXT NOT NULL,
    PRIMARY KEY (session_id, hash)
);
