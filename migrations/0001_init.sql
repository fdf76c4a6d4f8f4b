-- The session store. Timestamps are RFC 3339 UTC text; ids are UUIDs (v7, time-ordered).

CREATE TABLE sessions (
    id           TEXT PRIMARY KEY NOT NULL,
    created_at   TEXT NOT NULL,
    updated_at   TEXT NOT NULL,
    status       TEXT NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'escalated', 'finalized')),
    language     TEXT NOT NULL DEFAULT 'en',
    customer     TEXT,
    technician   TEXT,
    complaint    TEXT NOT NULL,
    vin          TEXT,
    plate        TEXT,
    make_model   TEXT,
    odometer     INTEGER CHECK (odometer IS NULL OR odometer >= 0),
    engine_hours REAL CHECK (engine_hours IS NULL OR engine_hours >= 0)
);
CREATE INDEX sessions_updated ON sessions (updated_at DESC);

CREATE TABLE turns (
    id         TEXT PRIMARY KEY NOT NULL,
    session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    seq        INTEGER NOT NULL CHECK (seq >= 1),
    created_at TEXT NOT NULL,
    input      TEXT NOT NULL,
    reply      TEXT NOT NULL,
    intent     TEXT,
    transition TEXT,
    trace      TEXT NOT NULL DEFAULT '{}' CHECK (json_valid(trace)),
    UNIQUE (session_id, seq)
);

-- A turn touches its session; done here so the hot path pays one statement less.
CREATE TRIGGER turns_touch_session AFTER INSERT ON turns
BEGIN
    UPDATE sessions SET updated_at = NEW.created_at WHERE id = NEW.session_id;
END;

-- One SessionState snapshot per turn (turn_seq 0 is the state a session starts with).
-- `version` is the snapshot's schema version: older ones are migrated on load.
CREATE TABLE session_states (
    session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    turn_seq   INTEGER NOT NULL CHECK (turn_seq >= 0),
    version    INTEGER NOT NULL,
    state      TEXT NOT NULL CHECK (json_valid(state)),
    created_at TEXT NOT NULL,
    PRIMARY KEY (session_id, turn_seq)
);

CREATE TABLE facts (
    id            TEXT PRIMARY KEY NOT NULL,
    session_id    TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    turn_id       TEXT REFERENCES turns (id) ON DELETE CASCADE,
    kind          TEXT NOT NULL CHECK (kind IN ('measurement', 'observation', 'finding')),
    source        TEXT NOT NULL CHECK (source IN ('technician', 'inference')),
    subject       TEXT NOT NULL,
    value         TEXT,
    unit          TEXT,
    text          TEXT NOT NULL,
    superseded_by TEXT REFERENCES facts (id),
    created_at    TEXT NOT NULL
);
CREATE INDEX facts_session ON facts (session_id);

-- Photos and files. The bytes live in the content-addressed store under the data dir;
-- a row is only ever written after its blob is durable. RESTRICT: deleting a session
-- never drops its photos silently, it needs an explicit purge.
CREATE TABLE artifacts (
    id           TEXT PRIMARY KEY NOT NULL,
    session_id   TEXT NOT NULL REFERENCES sessions (id) ON DELETE RESTRICT,
    turn_id      TEXT REFERENCES turns (id) ON DELETE RESTRICT,
    sha256       TEXT NOT NULL CHECK (length(sha256) = 64),
    file_name    TEXT NOT NULL,
    mime         TEXT NOT NULL,
    kind         TEXT NOT NULL CHECK (kind IN ('image', 'document')),
    size_bytes   INTEGER NOT NULL CHECK (size_bytes > 0),
    caption      TEXT,
    taken_at     TEXT,
    width        INTEGER,
    height       INTEGER,
    thumb_sha256 TEXT,
    thumbnail    TEXT NOT NULL CHECK (thumbnail IN ('generated', 'placeholder', 'none')),
    created_at   TEXT NOT NULL
);
CREATE INDEX artifacts_session ON artifacts (session_id);
CREATE INDEX artifacts_sha ON artifacts (sha256);

-- Items for the portal, written in the same transaction as the change they carry.
-- No foreign key to sessions: a queued item outlives anything done to its session.
CREATE TABLE outbox (
    seq             INTEGER PRIMARY KEY AUTOINCREMENT,
    id              TEXT NOT NULL UNIQUE, -- also the Idempotency-Key
    session_id      TEXT,
    kind            TEXT NOT NULL,
    target          TEXT NOT NULL,
    payload         TEXT NOT NULL CHECK (json_valid(payload)),
    status          TEXT NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'done', 'failed', 'conflict')),
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at TEXT,
    last_error      TEXT,
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL
);
CREATE INDEX outbox_pending ON outbox (status, session_id, seq);
