-- The file a document was imported from, where the app can show it: a PDF
-- manual opens at the page a citation names. One per source version; the
-- extracted text stays in knowledge_chunks.
CREATE TABLE knowledge_files (
    source_row INTEGER PRIMARY KEY REFERENCES knowledge_sources (id) ON DELETE CASCADE,
    media_type TEXT    NOT NULL,
    bytes      BLOB    NOT NULL
);
