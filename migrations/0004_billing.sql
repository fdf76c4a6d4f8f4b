-- Billing: rules with append-only versions, parking/storage orders, and an
-- audit log of every change. Money is INTEGER cents; times are site-local
-- wall clock 'YYYY-MM-DDTHH:MM' (versions) or as given (orders). Semantics:
-- ../shared/spec/billing.md.
CREATE TABLE billing_rules (
    id         INTEGER PRIMARY KEY,
    rule_code  TEXT    NOT NULL UNIQUE COLLATE NOCASE,
    name       TEXT    NOT NULL,
    city_code  TEXT    NOT NULL,
    lot_codes  TEXT    NOT NULL DEFAULT '[]' CHECK (json_valid(lot_codes)),
    status     TEXT    NOT NULL CHECK (status IN ('active', 'inactive')),
    time_zone  TEXT    NOT NULL DEFAULT 'UTC',
    created_at TEXT    NOT NULL
);
CREATE INDEX billing_rules_city ON billing_rules (city_code, status);

CREATE TABLE billing_rule_versions (
    id             INTEGER PRIMARY KEY,
    rule_code      TEXT    NOT NULL COLLATE NOCASE REFERENCES billing_rules (rule_code),
    version_no     INTEGER NOT NULL CHECK (version_no >= 1),
    -- Site-local wall clock; effective_from inclusive, effective_to exclusive (NULL: open).
    effective_from TEXT    NOT NULL,
    effective_to   TEXT    CHECK (effective_to IS NULL OR effective_to > effective_from),
    payload        TEXT    NOT NULL CHECK (json_valid(payload)),
    created_at     TEXT    NOT NULL,
    UNIQUE (rule_code, version_no)
);

-- Versions are append-only: past charges must stay explainable.
CREATE TRIGGER billing_rule_versions_no_update
BEFORE UPDATE ON billing_rule_versions
BEGIN
    SELECT RAISE(ABORT, 'billing rule versions are append-only: add a new version instead');
END;

CREATE TABLE parking_orders (
    id                 INTEGER PRIMARY KEY,
    order_no           TEXT    NOT NULL UNIQUE,
    city_code          TEXT    NOT NULL,
    lot_code           TEXT    NOT NULL,
    plate_no           TEXT    NOT NULL,
    -- As given: site-local wall clock or RFC 3339 with an offset.
    entry_time         TEXT    NOT NULL,
    exit_time          TEXT    NOT NULL,
    -- The entry as a UTC instant, for ordering.
    entry_utc          TEXT    NOT NULL,
    total_amount_cents INTEGER NOT NULL CHECK (total_amount_cents >= 0),
    paid_amount_cents  INTEGER NOT NULL CHECK (paid_amount_cents >= 0),
    created_at         TEXT    NOT NULL
);
CREATE INDEX parking_orders_plate ON parking_orders (plate_no, city_code);

-- Every import and addition: what changed, when, from which file and line.
CREATE TABLE billing_changes (
    id         INTEGER PRIMARY KEY,
    changed_at TEXT    NOT NULL,
    action     TEXT    NOT NULL,
    entity     TEXT    NOT NULL CHECK (entity IN ('rule', 'version', 'order')),
    entity_key TEXT    NOT NULL,
    detail     TEXT    NOT NULL DEFAULT '{}' CHECK (json_valid(detail)),
    origin     TEXT    NOT NULL,
    line       INTEGER
);

CREATE TRIGGER billing_changes_no_update
BEFORE UPDATE ON billing_changes
BEGIN
    SELECT RAISE(ABORT, 'the billing change log is append-only');
END;

-- Small facts about the billing data, e.g. that the demo data was seeded once.
CREATE TABLE billing_meta (
    key   TEXT PRIMARY KEY NOT NULL,
    value TEXT NOT NULL
);
