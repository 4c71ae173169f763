-- Why each compaction fired (I20 `trigger`): JSON {"kind": "threshold" | "manual" | "overflow" |
-- "budget" | "mask", "promptTokens", "window", "threshold"}; null for records made before it was kept.
ALTER TABLE compactions ADD COLUMN trigger TEXT;
