-- The repair order's header: its number, how to reach the customer, and the
-- unit's model year and odometer unit. Existing sessions get RO numbers in
-- the order they were opened, so every visit has one.
ALTER TABLE sessions ADD COLUMN ro_number TEXT;
ALTER TABLE sessions ADD COLUMN customer_phone TEXT;
ALTER TABLE sessions ADD COLUMN customer_email TEXT;
ALTER TABLE sessions ADD COLUMN model_year INTEGER CHECK (model_year IS NULL OR model_year BETWEEN 1950 AND 2100);
ALTER TABLE sessions ADD COLUMN odometer_unit TEXT CHECK (odometer_unit IS NULL OR odometer_unit IN ('mi', 'km'));

UPDATE sessions SET ro_number = printf('RO-%06d', (
    SELECT COUNT(*) FROM sessions s2
     WHERE s2.created_at < sessions.created_at
        OR (s2.created_at = sessions.created_at AND s2.id <= sessions.id)));

CREATE UNIQUE INDEX sessions_ro_number ON sessions (ro_number);
CREATE INDEX sessions_vin ON sessions (vin) WHERE vin IS NOT NULL;
CREATE INDEX sessions_plate ON sessions (plate) WHERE plate IS NOT NULL;

-- Every change to a session's header after it was opened: who, when, the
-- field and both values, so a corrected VIN or phone can be traced.
CREATE TABLE session_edits (
    id         TEXT PRIMARY KEY NOT NULL,
    session_id TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    field      TEXT NOT NULL,
    old_value  TEXT,
    new_value  TEXT,
    edited_by  TEXT,
    edited_at  TEXT NOT NULL
);
CREATE INDEX session_edits_session ON session_edits (session_id, edited_at);
