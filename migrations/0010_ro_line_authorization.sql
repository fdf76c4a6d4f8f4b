-- A line's authorization: the customer's or the warranty company's answer to
-- its estimate, who gave it, how and when, and the estimate's total it was
-- given for. A changed estimate goes back to pending.
ALTER TABLE ro_lines ADD COLUMN auth_status TEXT NOT NULL DEFAULT 'pending'
    CHECK (auth_status IN ('pending', 'approved', 'declined'));
ALTER TABLE ro_lines ADD COLUMN auth_by TEXT;
ALTER TABLE ro_lines ADD COLUMN auth_method TEXT
    CHECK (auth_method IS NULL OR auth_method IN ('in_person', 'phone', 'signature'));
ALTER TABLE ro_lines ADD COLUMN auth_at TEXT;
ALTER TABLE ro_lines ADD COLUMN auth_total_cents INTEGER;
