-- Whose document a source is: the shop's own (anything imported) or a
-- shipped default (knowledge/*.md and the component notes; the default set
-- marks its own when it runs). Retrieval ranks the shop's first.
ALTER TABLE knowledge_sources ADD COLUMN source TEXT NOT NULL DEFAULT 'shop'
    CHECK (source IN ('shop', 'default'));

-- The page of a PDF a chunk was taken from (1-based); NULL for text documents.
ALTER TABLE knowledge_chunks ADD COLUMN page INTEGER CHECK (page IS NULL OR page >= 1);
