-- A report written up in the chat is a draft the technician reviews before it
-- goes out: one per session, replaced by each new write-up or edit, and gone
-- once finalized (the final text is then a row of `reports`). Its revision is
-- the one the next finalize will take.
CREATE TABLE report_drafts (
    session_id TEXT    PRIMARY KEY NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    revision   INTEGER NOT NULL CHECK (revision >= 1),
    turn_id    TEXT    NOT NULL REFERENCES turns (id) ON DELETE CASCADE,
    language   TEXT    NOT NULL,
    body       TEXT    NOT NULL,
    created_at TEXT    NOT NULL,
    updated_at TEXT    NOT NULL
);
