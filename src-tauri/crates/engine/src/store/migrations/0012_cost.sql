-- What a call cost needs beyond its tokens: the tokens written to the prompt cache (Anthropic's
-- cache creation; priced apart from input and cache reads) and the reason an agent itself recorded
-- for a cache miss.
ALTER TABLE model_calls ADD COLUMN cache_write_tokens INTEGER;
ALTER TABLE model_calls ADD COLUMN agent_cache_reason TEXT;

-- The ledger summed per session, model, day and long-context band (a prompt above 200,000 tokens,
-- where providers price long requests apart), kept by triggers on every write of model_calls, so
-- usage reports over hundreds of thousands of calls read a few thousand rows.
CREATE TABLE usage_daily (
    session_id          TEXT NOT NULL,
    model               TEXT NOT NULL,
    day                 TEXT NOT NULL,
    long_context        INTEGER NOT NULL,
    calls               INTEGER NOT NULL,
    prompt_tokens       INTEGER NOT NULL,
    cached_tokens       INTEGER NOT NULL,
    cache_write_tokens  INTEGER NOT NULL,
    completion_tokens   INTEGER NOT NULL,
    PRIMARY KEY (session_id, model, day, long_context)
) WITHOUT ROWID;
CREATE INDEX usage_daily_day ON usage_daily (day);

INSERT INTO usage_daily
SELECT session_id, model, substr(started_at, 1, 10), coalesce(prompt_tokens, 0) > 200000, count(*),
       sum(coalesce(prompt_tokens, 0)), sum(coalesce(cached_tokens, 0)), sum(coalesce(cache_write_tokens, 0)),
       sum(coalesce(completion_tokens, 0))
FROM model_calls GROUP BY 1, 2, 3, 4;

CREATE TRIGGER usage_daily_insert AFTER INSERT ON model_calls BEGIN
    INSERT INTO usage_daily VALUES (NEW.session_id, NEW.model, substr(NEW.started_at, 1, 10),
        coalesce(NEW.prompt_tokens, 0) > 200000, 1, coalesce(NEW.prompt_tokens, 0), coalesce(NEW.cached_tokens, 0),
        coalesce(NEW.cache_write_tokens, 0), coalesce(NEW.completion_tokens, 0))
    ON CONFLICT (session_id, model, day, long_context) DO UPDATE SET
        calls = calls + 1, prompt_tokens = prompt_tokens + excluded.prompt_tokens,
        cached_tokens = cached_tokens + excluded.cached_tokens,
        cache_write_tokens = cache_write_tokens + excluded.cache_write_tokens,
        completion_tokens = completion_tokens + excluded.completion_tokens;
END;

CREATE TRIGGER usage_daily_update
AFTER UPDATE OF session_id, model, started_at, prompt_tokens, cached_tokens, cache_write_tokens, completion_tokens
ON model_calls BEGIN
    UPDATE usage_daily SET
        calls = calls - 1, prompt_tokens = prompt_tokens - coalesce(OLD.prompt_tokens, 0),
        cached_tokens = cached_tokens - coalesce(OLD.cached_tokens, 0),
        cache_write_tokens = cache_write_tokens - coalesce(OLD.cache_write_tokens, 0),
        completion_tokens = completion_tokens - coalesce(OLD.completion_tokens, 0)
    WHERE session_id = OLD.session_id AND model = OLD.model AND day = substr(OLD.started_at, 1, 10)
      AND long_context = (coalesce(OLD.prompt_tokens, 0) > 200000);
    INSERT INTO usage_daily VALUES (NEW.session_id, NEW.model, substr(NEW.started_at, 1, 10),
        coalesce(NEW.prompt_tokens, 0) > 200000, 1, coalesce(NEW.prompt_tokens, 0), coalesce(NEW.cached_tokens, 0),
        coalesce(NEW.cache_write_tokens, 0), coalesce(NEW.completion_tokens, 0))
    ON CONFLICT (session_id, model, day, long_context) DO UPDATE SET
        calls = calls + 1, prompt_tokens = prompt_tokens + excluded.prompt_tokens,
        cached_tokens = cached_tokens + excluded.cached_tokens,
        cache_write_tokens = cache_write_tokens + excluded.cache_write_tokens,
        completion_tokens = completion_tokens + excluded.completion_tokens;
END;

CREATE TRIGGER usage_daily_delete AFTER DELETE ON model_calls BEGIN
    UPDATE usage_daily SET
        calls = calls - 1, prompt_tokens = prompt_tokens - coalesce(OLD.prompt_tokens, 0),
        cached_tokens = cached_tokens - coalesce(OLD.cached_tokens, 0),
        cache_write_tokens = cache_write_tokens - coalesce(OLD.cache_write_tokens, 0),
        completion_tokens = completion_tokens - coalesce(OLD.completion_tokens, 0)
    WHERE session_id = OLD.session_id AND model = OLD.model AND day = substr(OLD.started_at, 1, 10)
      AND long_context = (coalesce(OLD.prompt_tokens, 0) > 200000);
END;
