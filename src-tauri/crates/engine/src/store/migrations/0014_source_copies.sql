-- One source session id in two files (a copied rollout, a Claude Code file in two project folders,
-- a backup) is two imported sessions: unique by source, id and the file read.
DROP INDEX sessions_source;
CREATE UNIQUE INDEX sessions_source ON sessions (source, source_id, source_path) WHERE source IS NOT NULL;
