-- What a call cost needs beyond its tokens: the tokens written to the prompt cache (Anthropic's
-- cache creation; priced apart from input and cache reads) and the reason an agent itself recorded
-- for a cache miss. The covering index lets usage reports read the ledger's figures without the
-- request and answer columns around them.
ALTER TABLE model_calls ADD COLUMN cache_write_tokens INTEGER;
ALTER TABLE model_calls ADD COLUMN agent_cache_reason TEXT;
CREATE INDEX model_calls_usage ON model_calls
    (started_at, session_id, model, prompt_tokens, cached_tokens, cache_write_tokens, completion_tokens);
