-- A photo's condition tag, set by the technician (NULL: none given), and the
-- photo a marked-up copy was drawn on. A copy is an artifact of its own, with
-- its own blob: the original's row and bytes are never changed by a markup.
-- NO ACTION (not RESTRICT): a purge deletes a session's copies and originals
-- in one statement, checked once it ends.
ALTER TABLE artifacts ADD COLUMN condition TEXT
    CHECK (condition IS NULL OR condition IN ('ok', 'attention', 'urgent'));
ALTER TABLE artifacts ADD COLUMN derived_from TEXT REFERENCES artifacts (id);
CREATE INDEX artifacts_derived_from ON artifacts (derived_from);
