-- Cache-compatible compaction: the trip latch survives restarts like the boundary does
-- (the boundary itself is a 'cache' compaction record hiding the summarized span).
ALTER TABLE sessions ADD COLUMN cache_latched INTEGER NOT NULL DEFAULT 0;
