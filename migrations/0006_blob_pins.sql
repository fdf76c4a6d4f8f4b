-- A blob an add is about to rely on is pinned (committed) before the add
-- checks or writes its file; a purge or sweep, inside its write transaction,
-- never removes a blob that a row or a pin still names. The pin is dropped in
-- the transaction that inserts the artifact row (the row takes the reference
-- over); pins a crash or a failed add left behind are dropped by the sweep
-- once older than its grace period.
CREATE TABLE blob_pins (
    id         TEXT NOT NULL,
    sha256     TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (id, sha256)
);
CREATE INDEX blob_pins_sha ON blob_pins (sha256);
CREATE INDEX artifacts_thumb_sha ON artifacts (thumb_sha256);
