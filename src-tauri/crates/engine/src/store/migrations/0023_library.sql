-- A title given in Alisio (`alisio sessions rename`, the window's rename), kept apart from the
-- title the agent recorded or Alisio chose (`title`, which a re-import may rewrite).
ALTER TABLE sessions ADD COLUMN renamed_title TEXT;

-- Facts about the library itself, one row each (`demo`: when the demo session was made, so a
-- demo the user removed never comes back).
CREATE TABLE library_state (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
