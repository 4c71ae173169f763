-- The answer of each model call as received (text, tool calls, finish reason, usage, opaque items),
-- so `alisio calls show` can lay a past call's response beside its rebuilt request.
ALTER TABLE model_calls ADD COLUMN response TEXT;
