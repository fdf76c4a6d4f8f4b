-- The local knowledge store. A source is one version of one document; versions
-- are append-only (history is kept), and `superseded_at` caches when the next
-- version takes over so retrieval at a time needs no self-join.
CREATE TABLE knowledge_sources (
    id                   INTEGER PRIMARY KEY,
    source_id            TEXT    NOT NULL,
    version              INTEGER NOT NULL CHECK (version >= 1),
    doc_type             TEXT    NOT NULL CHECK (doc_type IN ('rule_explain', 'policy_doc', 'faq', 'sop', 'component', 'procedure')),
    source_type          TEXT    NOT NULL,
    title                TEXT    NOT NULL,
    language             TEXT    NOT NULL,
    city_code            TEXT,
    lot_codes            TEXT    NOT NULL DEFAULT '[]' CHECK (json_valid(lot_codes)),
    effective_from       TEXT,
    effective_to         TEXT,
    -- From this time on a newer version answers instead ('0000…' = always).
    superseded_at        TEXT,
    clarifying_questions TEXT    NOT NULL DEFAULT '{}' CHECK (json_valid(clarifying_questions)),
    requires_handoff     INTEGER NOT NULL DEFAULT 0 CHECK (requires_handoff IN (0, 1)),
    content_hash         TEXT    NOT NULL,
    origin               TEXT    NOT NULL,
    ingested_at          TEXT    NOT NULL,
    UNIQUE (source_id, version)
);
CREATE INDEX knowledge_sources_scope ON knowledge_sources (doc_type, city_code);

CREATE TABLE knowledge_chunks (
    id          INTEGER PRIMARY KEY, -- also the rowid of its knowledge_fts row
    source_row  INTEGER NOT NULL REFERENCES knowledge_sources (id) ON DELETE CASCADE,
    chunk_index INTEGER NOT NULL CHECK (chunk_index >= 0),
    heading     TEXT    NOT NULL,
    text        TEXT    NOT NULL,
    UNIQUE (source_row, chunk_index)
);

-- Contentless: the columns hold each chunk's *index form* (folded, stemmed,
-- CJK as bigrams; see src/knowledge/text.rs), which nobody reads back; the
-- original text lives in knowledge_chunks. unicode61 only splits and
-- lower-cases what text.rs already normalized.
CREATE VIRTUAL TABLE knowledge_fts USING fts5 (
    title, heading, body,
    tokenize = 'unicode61 remove_diacritics 2',
    content = '',
    contentless_delete = 1
);

-- Small facts about the store, e.g. the fingerprint of the default set last ingested.
CREATE TABLE knowledge_meta (
    key   TEXT PRIMARY KEY NOT NULL,
    value TEXT NOT NULL
);
