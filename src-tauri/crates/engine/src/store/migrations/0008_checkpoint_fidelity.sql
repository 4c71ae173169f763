-- Checkpoint fidelity (I13): what a checkpoint kept of the history it replaced, as JSON
-- ({"score", "checked", "missing": [...]}), computed when the record is made.
ALTER TABLE compactions ADD COLUMN fidelity TEXT;
