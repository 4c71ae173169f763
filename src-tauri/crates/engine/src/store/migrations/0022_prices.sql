-- Prices (see cost/book.rs): a call's service tier (`batch`, `flex`, `priority`; NULL: standard),
-- as the agent or the API recorded it, priced at that tier's rates.
ALTER TABLE model_calls ADD COLUMN service_tier TEXT;

-- The daily sums keep apart every prompt-length band of the price data (`band`: how many of
-- 32k, 100k, 128k, 200k, 256k, 272k and 512k tokens the prompt is above; cost/book.rs
-- BAND_THRESHOLDS), the tier, and the 1-hour cache writes, so `usage` prices them all from the sums.
DROP TRIGGER usage_daily_insert;
DROP TRIGGER usage_daily_update;
DROP TRIGGER usage_daily_delete;
DROP TABLE usage_daily;

CREATE TABLE usage_daily (
    session_id             TEXT NOT NULL,
    model                  TEXT NOT NULL,
    day                    TEXT NOT NULL,
    band                   INTEGER NOT NULL,
    tier                   TEXT NOT NULL,
    calls                  INTEGER NOT NULL,
    prompt_tokens          INTEGER NOT NULL,
    cached_tokens          INTEGER NOT NULL,
    cache_write_tokens     INTEGER NOT NULL,
    cache_write_1h_tokens  INTEGER NOT NULL,
    completion_tokens      INTEGER NOT NULL,
    PRIMARY KEY (session_id, model, day, band, tier)
) WITHOUT ROWID;
CREATE INDEX usage_daily_day ON usage_daily (day);

INSERT INTO usage_daily
SELECT session_id, model, substr(started_at, 1, 10), (coalesce(model_calls.prompt_tokens, 0) > 32000) + (coalesce(model_calls.prompt_tokens, 0) > 100000) + (coalesce(model_calls.prompt_tokens, 0) > 128000) + (coalesce(model_calls.prompt_tokens, 0) > 200000) + (coalesce(model_calls.prompt_tokens, 0) > 256000) + (coalesce(model_calls.prompt_tokens, 0) > 272000) + (coalesce(model_calls.prompt_tokens, 0) > 512000), '',
       sum(requests), sum(coalesce(prompt_tokens, 0)), sum(coalesce(cached_tokens, 0)),
       sum(coalesce(cache_write_tokens, 0)), sum(coalesce(cache_write_1h_tokens, 0)), sum(coalesce(completion_tokens, 0))
FROM model_calls GROUP BY 1, 2, 3, 4;

CREATE TRIGGER usage_daily_insert AFTER INSERT ON model_calls BEGIN
    INSERT INTO usage_daily VALUES (NEW.session_id, NEW.model, substr(NEW.started_at, 1, 10),
        (coalesce(NEW.prompt_tokens, 0) > 32000) + (coalesce(NEW.prompt_tokens, 0) > 100000) + (coalesce(NEW.prompt_tokens, 0) > 128000) + (coalesce(NEW.prompt_tokens, 0) > 200000) + (coalesce(NEW.prompt_tokens, 0) > 256000) + (coalesce(NEW.prompt_tokens, 0) > 272000) + (coalesce(NEW.prompt_tokens, 0) > 512000),
        coalesce(NEW.service_tier, ''), NEW.requests, coalesce(NEW.prompt_tokens, 0), coalesce(NEW.cached_tokens, 0),
        coalesce(NEW.cache_write_tokens, 0), coalesce(NEW.cache_write_1h_tokens, 0), coalesce(NEW.completion_tokens, 0))
    ON CONFLICT (session_id, model, day, band, tier) DO UPDATE SET
        calls = calls + excluded.calls, prompt_tokens = prompt_tokens + excluded.prompt_tokens,
        cached_tokens = cached_tokens + excluded.cached_tokens,
        cache_write_tokens = cache_write_tokens + excluded.cache_write_tokens,
        cache_write_1h_tokens = cache_write_1h_tokens + excluded.cache_write_1h_tokens,
        completion_tokens = completion_tokens + excluded.completion_tokens;
END;

CREATE TRIGGER usage_daily_update
AFTER UPDATE OF session_id, model, started_at, prompt_tokens, cached_tokens, cache_write_tokens,
    cache_write_1h_tokens, completion_tokens, requests, service_tier
ON model_calls BEGIN
    UPDATE usage_daily SET
        calls = calls - OLD.requests, prompt_tokens = prompt_tokens - coalesce(OLD.prompt_tokens, 0),
        cached_tokens = cached_tokens - coalesce(OLD.cached_tokens, 0),
        cache_write_tokens = cache_write_tokens - coalesce(OLD.cache_write_tokens, 0),
        cache_write_1h_tokens = cache_write_1h_tokens - coalesce(OLD.cache_write_1h_tokens, 0),
        completion_tokens = completion_tokens - coalesce(OLD.completion_tokens, 0)
    WHERE session_id = OLD.session_id AND model = OLD.model AND day = substr(OLD.started_at, 1, 10)
      AND band = (coalesce(OLD.prompt_tokens, 0) > 32000) + (coalesce(OLD.prompt_tokens, 0) > 100000) + (coalesce(OLD.prompt_tokens, 0) > 128000) + (coalesce(OLD.prompt_tokens, 0) > 200000) + (coalesce(OLD.prompt_tokens, 0) > 256000) + (coalesce(OLD.prompt_tokens, 0) > 272000) + (coalesce(OLD.prompt_tokens, 0) > 512000)
      AND tier = coalesce(OLD.service_tier, '');
    INSERT INTO usage_daily VALUES (NEW.session_id, NEW.model, substr(NEW.started_at, 1, 10),
        (coalesce(NEW.prompt_tokens, 0) > 32000) + (coalesce(NEW.prompt_tokens, 0) > 100000) + (coalesce(NEW.prompt_tokens, 0) > 128000) + (coalesce(NEW.prompt_tokens, 0) > 200000) + (coalesce(NEW.prompt_tokens, 0) > 256000) + (coalesce(NEW.prompt_tokens, 0) > 272000) + (coalesce(NEW.prompt_tokens, 0) > 512000),
        coalesce(NEW.service_tier, ''), NEW.requests, coalesce(NEW.prompt_tokens, 0), coalesce(NEW.cached_tokens, 0),
        coalesce(NEW.cache_write_tokens, 0), coalesce(NEW.cache_write_1h_tokens, 0), coalesce(NEW.completion_tokens, 0))
    ON CONFLICT (session_id, model, day, band, tier) DO UPDATE SET
        calls = calls + excluded.calls, prompt_tokens = prompt_tokens + excluded.prompt_tokens,
        cached_tokens = cached_tokens + excluded.cached_tokens,
        cache_write_tokens = cache_write_tokens + excluded.cache_write_tokens,
        cache_write_1h_tokens = cache_write_1h_tokens + excluded.cache_write_1h_tokens,
        completion_tokens = completion_tokens + excluded.completion_tokens;
END;

CREATE TRIGGER usage_daily_delete AFTER DELETE ON model_calls BEGIN
    UPDATE usage_daily SET
        calls = calls - OLD.requests, prompt_tokens = prompt_tokens - coalesce(OLD.prompt_tokens, 0),
        cached_tokens = cached_tokens - coalesce(OLD.cached_tokens, 0),
        cache_write_tokens = cache_write_tokens - coalesce(OLD.cache_write_tokens, 0),
        cache_write_1h_tokens = cache_write_1h_tokens - coalesce(OLD.cache_write_1h_tokens, 0),
        completion_tokens = completion_tokens - coalesce(OLD.completion_tokens, 0)
    WHERE session_id = OLD.session_id AND model = OLD.model AND day = substr(OLD.started_at, 1, 10)
      AND band = (coalesce(OLD.prompt_tokens, 0) > 32000) + (coalesce(OLD.prompt_tokens, 0) > 100000) + (coalesce(OLD.prompt_tokens, 0) > 128000) + (coalesce(OLD.prompt_tokens, 0) > 200000) + (coalesce(OLD.prompt_tokens, 0) > 256000) + (coalesce(OLD.prompt_tokens, 0) > 272000) + (coalesce(OLD.prompt_tokens, 0) > 512000)
      AND tier = coalesce(OLD.service_tier, '');
END;
