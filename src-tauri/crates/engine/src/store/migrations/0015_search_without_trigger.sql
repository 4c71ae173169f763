-- The search index is written by the store next to each message (`search::index_message`), not
-- by a trigger: a trigger that writes a virtual table makes every INSERT a statement savepoint,
-- and FTS5 flushes its pending terms at each one — a segment per message, merged again and again.
-- Messages are never updated in content or deleted, so the update and delete triggers stay as a
-- guard.
DROP TRIGGER messages_fts_insert;
