-- Final reports: every time a session is finalized a new revision is kept;
-- earlier revisions are never overwritten.
CREATE TABLE reports (
    session_id TEXT    NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    revision   INTEGER NOT NULL CHECK (revision >= 1),
    turn_id    TEXT    NOT NULL REFERENCES turns (id) ON DELETE CASCADE,
    language   TEXT    NOT NULL,
    format     TEXT    NOT NULL DEFAULT 'markdown',
    body       TEXT    NOT NULL,
    created_at TEXT    NOT NULL,
    PRIMARY KEY (session_id, revision)
);
