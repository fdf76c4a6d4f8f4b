-- The repair order's complaint lines: the customer's words, who pays (and for
-- warranty, which maker), and the labor and parts the writer records for
-- each. Money and quantities are integers (cents, hundredths) so sums are
-- exact; the Desk prices them with the exact Money type.
CREATE TABLE ro_lines (
    id               TEXT PRIMARY KEY NOT NULL,
    session_id       TEXT NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    line_no          INTEGER NOT NULL CHECK (line_no >= 1),
    complaint        TEXT NOT NULL,
    pay_type         TEXT NOT NULL DEFAULT 'customer'
                     CHECK (pay_type IN ('customer', 'warranty', 'internal', 'service_contract')),
    warranty_payer   TEXT CHECK (warranty_payer IS NULL OR warranty_payer IN ('chassis', 'coach', 'component')),
    warranty_maker   TEXT,
    -- The engine complaint ("system:symptom") this line's diagnosis is, if linked.
    engine_complaint TEXT,
    created_at       TEXT NOT NULL,
    updated_at       TEXT NOT NULL,
    UNIQUE (session_id, line_no),
    -- Only a warranty line has a paying party, and only a component maker a name.
    CHECK ((pay_type = 'warranty') = (warranty_payer IS NOT NULL)),
    CHECK (warranty_maker IS NULL OR warranty_payer = 'component')
);

CREATE TABLE ro_labor (
    id          TEXT PRIMARY KEY NOT NULL,
    line_id     TEXT NOT NULL REFERENCES ro_lines (id) ON DELETE CASCADE,
    seq         INTEGER NOT NULL CHECK (seq >= 1),
    description TEXT NOT NULL,
    -- Hours in hundredths (1.25 h = 125).
    hours_x100  INTEGER NOT NULL CHECK (hours_x100 >= 0),
    UNIQUE (line_id, seq)
);

CREATE TABLE ro_parts (
    id               TEXT PRIMARY KEY NOT NULL,
    line_id          TEXT NOT NULL REFERENCES ro_lines (id) ON DELETE CASCADE,
    seq              INTEGER NOT NULL CHECK (seq >= 1),
    part_no          TEXT NOT NULL DEFAULT '',
    description      TEXT NOT NULL,
    -- Quantity in hundredths (2 = 200, 1.5 ft of hose = 150).
    qty_x100         INTEGER NOT NULL CHECK (qty_x100 > 0),
    unit_price_cents INTEGER NOT NULL CHECK (unit_price_cents >= 0),
    UNIQUE (line_id, seq)
);

-- Every existing visit's complaint becomes its line 1, customer pay.
INSERT INTO ro_lines (id, session_id, line_no, complaint, pay_type, created_at, updated_at)
SELECT lower(hex(randomblob(4))) || '-' || lower(hex(randomblob(2))) || '-4' ||
       substr(lower(hex(randomblob(2))), 2) || '-' ||
       substr('89ab', 1 + (abs(random()) % 4), 1) || substr(lower(hex(randomblob(2))), 2) || '-' ||
       lower(hex(randomblob(6))),
       id, 1, complaint, 'customer', created_at, created_at
  FROM sessions;
