-- Portal sync: small key/value settings (the portal URL, the sync pause; never
-- the token, which lives in the OS keyring), and delivery bookkeeping on the outbox.
CREATE TABLE settings (
    key        TEXT PRIMARY KEY NOT NULL,
    value      TEXT NOT NULL,
    updated_at TEXT NOT NULL
);

-- The portal's last HTTP status for the item, and when it was delivered.
ALTER TABLE outbox ADD COLUMN http_status INTEGER;
ALTER TABLE outbox ADD COLUMN done_at TEXT;

-- Attachments are queued once per session and sha256; labor draft revisions
-- are counted per session.
CREATE INDEX outbox_session_kind ON outbox (session_id, kind, target);
