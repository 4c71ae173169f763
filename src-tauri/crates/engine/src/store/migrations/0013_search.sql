-- Full-text search over every stored message — own and imported, compacted ones and tool outputs
-- included: an FTS5 index over `messages.content` (external content: the text is not stored
-- twice), kept current by triggers as messages are written or imported, so nothing is rebuilt.
CREATE VIRTUAL TABLE messages_fts USING fts5(
    content, content = 'messages', content_rowid = 'id', tokenize = 'unicode61 remove_diacritics 2'
);
INSERT INTO messages_fts (messages_fts) VALUES ('rebuild');

CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
    INSERT INTO messages_fts (rowid, content) VALUES (NEW.id, NEW.content);
END;
CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
    INSERT INTO messages_fts (messages_fts, rowid, content) VALUES ('delete', OLD.id, OLD.content);
END;
CREATE TRIGGER messages_fts_update AFTER UPDATE OF content ON messages BEGIN
    INSERT INTO messages_fts (messages_fts, rowid, content) VALUES ('delete', OLD.id, OLD.content);
    INSERT INTO messages_fts (rowid, content) VALUES (NEW.id, NEW.content);
END;
