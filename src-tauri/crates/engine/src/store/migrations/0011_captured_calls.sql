-- Calls `alisio proxy` captured on the wire, and how one finds the imported call it was: the
-- conversation's fingerprint (`request_key`: the user's prompts and the tool calls, in order) and,
-- for a request that appended one instruction to it (a summarizer's), the fingerprint without it.
ALTER TABLE model_calls ADD COLUMN request_key TEXT;
ALTER TABLE model_calls ADD COLUMN request_prefix_key TEXT;
CREATE INDEX model_calls_request_key ON model_calls (request_key) WHERE request_key IS NOT NULL;
CREATE INDEX model_calls_request_prefix_key ON model_calls (request_prefix_key) WHERE request_prefix_key IS NOT NULL;
