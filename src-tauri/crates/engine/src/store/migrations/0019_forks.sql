-- Forks (I17): a session made from what the model saw after message `forked_at_seq` of
-- `forked_from`. The source is never changed; the fork is Alisio's own.
ALTER TABLE sessions ADD COLUMN forked_from TEXT;
ALTER TABLE sessions ADD COLUMN forked_at_seq INTEGER;
