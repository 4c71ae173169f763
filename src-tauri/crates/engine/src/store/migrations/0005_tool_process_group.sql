-- The process group a `shell` call runs in, and when its leader started (clock ticks since boot, as
-- /proc reports it), so a group left behind by a killed run can be found and killed — and a later
-- group that reuses the number is never mistaken for it.
ALTER TABLE tool_calls ADD COLUMN pgid INTEGER;
ALTER TABLE tool_calls ADD COLUMN pgid_started INTEGER;
