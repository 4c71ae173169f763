-- The `tools` array a request carried when it was not the built-in catalog alone (MCP servers'
-- tools were offered too), so `alisio calls show` rebuilds it exactly. NULL: the built-in catalog.
ALTER TABLE model_calls ADD COLUMN tools TEXT;
