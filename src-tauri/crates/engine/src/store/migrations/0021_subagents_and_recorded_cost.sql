-- Sub-agents (a Claude Code sidechain, a sub-agent's own file, a sub-task): a session of their own
-- under the session that started them, and the tool call that did, when the records name it.
ALTER TABLE sessions ADD COLUMN parent_session TEXT;
ALTER TABLE sessions ADD COLUMN parent_tool_call TEXT;
CREATE INDEX sessions_parent ON sessions (parent_session) WHERE parent_session IS NOT NULL;

-- What the agent itself recorded a session cost, when it records it for the whole session
-- (Claude Code's cumulative cost-state), in integer picodollars: money is never a float here.
ALTER TABLE sessions ADD COLUMN recorded_cost_pd INTEGER;

-- Per call: the part of the cache writes that went to the 1-hour cache (priced apart), and the
-- cost the agent recorded for the call (picodollars).
ALTER TABLE model_calls ADD COLUMN cache_write_1h_tokens INTEGER;
ALTER TABLE model_calls ADD COLUMN recorded_cost_pd INTEGER;

-- An agent's title, apart from the first prompt it may fall back on: what it came from (`prompt`,
-- `summary`, `custom`; a stronger one replaces a weaker), and titles an agent wrote for a record of
-- another file (Claude Code's `summary` records name a conversation's last record, often in a
-- file written later), applied when that record is read, in whichever order the files come.
ALTER TABLE sessions ADD COLUMN title_from TEXT;
CREATE TABLE agent_titles (
    source  TEXT NOT NULL,
    leaf    TEXT NOT NULL,
    title   TEXT NOT NULL,
    PRIMARY KEY (source, leaf)
) WITHOUT ROWID;
CREATE INDEX messages_source_record ON messages (source_id) WHERE source_id IS NOT NULL;

-- A ledger row may stand for several requests the agent recorded only as a total (older Copilot
-- CLI: per model, at each shutdown): `requests` says how many; usage counts them.
ALTER TABLE model_calls ADD COLUMN requests INTEGER NOT NULL DEFAULT 1;

DROP TRIGGER usage_daily_insert;
DROP TRIGGER usage_daily_update;
DROP TRIGGER usage_daily_delete;

CREATE TRIGGER usage_daily_insert AFTER INSERT ON model_calls BEGIN
    INSERT INTO usage_daily VALUES (NEW.session_id, NEW.model, substr(NEW.started_at, 1, 10),
        coalesce(NEW.prompt_tokens, 0) > 200000, NEW.requests, coalesce(NEW.prompt_tokens, 0),
        coalesce(NEW.cached_tokens, 0), coalesce(NEW.cache_write_tokens, 0), coalesce(NEW.completion_tokens, 0))
    ON CONFLICT (session_id, model, day, long_context) DO UPDATE SET
        calls = calls + excluded.calls, prompt_tokens = prompt_tokens + excluded.prompt_tokens,
        cached_tokens = cached_tokens + excluded.cached_tokens,
        cache_write_tokens = cache_write_tokens + excluded.cache_write_tokens,
        completion_tokens = completion_tokens + excluded.completion_tokens;
END;

CREATE TRIGGER usage_daily_update
AFTER UPDATE OF session_id, model, started_at, prompt_tokens, cached_tokens, cache_write_tokens, completion_tokens,
    requests
ON model_calls BEGIN
    UPDATE usage_daily SET
        calls = calls - OLD.requests, prompt_tokens = prompt_tokens - coalesce(OLD.prompt_tokens, 0),
        cached_tokens = cached_tokens - coalesce(OLD.cached_tokens, 0),
        cache_write_tokens = cache_write_tokens - coalesce(OLD.cache_write_tokens, 0),
        completion_tokens = completion_tokens - coalesce(OLD.completion_tokens, 0)
    WHERE session_id = OLD.session_id AND model = OLD.model AND day = substr(OLD.started_at, 1, 10)
      AND long_context = (coalesce(OLD.prompt_tokens, 0) > 200000);
    INSERT INTO usage_daily VALUES (NEW.session_id, NEW.model, substr(NEW.started_at, 1, 10),
        coalesce(NEW.prompt_tokens, 0) > 200000, NEW.requests, coalesce(NEW.prompt_tokens, 0),
        coalesce(NEW.cached_tokens, 0), coalesce(NEW.cache_write_tokens, 0), coalesce(NEW.completion_tokens, 0))
    ON CONFLICT (session_id, model, day, long_context) DO UPDATE SET
        calls = calls + excluded.calls, prompt_tokens = prompt_tokens + excluded.prompt_tokens,
        cached_tokens = cached_tokens + excluded.cached_tokens,
        cache_write_tokens = cache_write_tokens + excluded.cache_write_tokens,
        completion_tokens = completion_tokens + excluded.completion_tokens;
END;

CREATE TRIGGER usage_daily_delete AFTER DELETE ON model_calls BEGIN
    UPDATE usage_daily SET
        calls = calls - OLD.requests, prompt_tokens = prompt_tokens - coalesce(OLD.prompt_tokens, 0),
        cached_tokens = cached_tokens - coalesce(OLD.cached_tokens, 0),
        cache_write_tokens = cache_write_tokens - coalesce(OLD.cache_write_tokens, 0),
        completion_tokens = completion_tokens - coalesce(OLD.completion_tokens, 0)
    WHERE session_id = OLD.session_id AND model = OLD.model AND day = substr(OLD.started_at, 1, 10)
      AND long_context = (coalesce(OLD.prompt_tokens, 0) > 200000);
END;

-- Parts an agent's request log names but never wrote (a row whose body cannot be put together
-- whole is not exact).
ALTER TABLE model_calls ADD COLUMN request_gaps INTEGER NOT NULL DEFAULT 0;
