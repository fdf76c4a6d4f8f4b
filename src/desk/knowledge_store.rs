//! The Desk's knowledge store operations: search, the source list and
//! imports, so front ends reach the knowledge store through the Desk.

use super::Desk;
use crate::knowledge::document::{DocError, Document};
use crate::knowledge::index::{
    self, IngestReport, Retrieval, SearchError, SearchHit, SearchQuery, SourceInfo,
};

impl Desk {
    /// The chunks above the relevance floor, best first.
    pub async fn knowledge_search(&self, q: &SearchQuery) -> Result<Vec<SearchHit>, SearchError> {
        index::search(self.store().pool(), q).await
    }

    /// [`Desk::knowledge_search`] with the near titles when nothing clears
    /// the floor.
    pub async fn knowledge_retrieve(&self, q: &SearchQuery) -> Result<Retrieval, SearchError> {
        index::retrieve(self.store().pool(), q).await
    }

    pub async fn knowledge_sources(&self) -> index::Result<Vec<SourceInfo>> {
        index::list(self.store().pool()).await
    }

    /// The file a source version was imported from (a PDF), if kept.
    pub async fn knowledge_source_file(
        &self,
        source_id: &str,
        version: u32,
    ) -> index::Result<Option<index::SourceFile>> {
        index::source_file(self.store().pool(), source_id, version).await
    }

    /// The page a chunk of a source version is on (see [`index::chunk_page`]).
    pub async fn knowledge_chunk_page(
        &self,
        source_id: &str,
        version: u32,
        index: i64,
    ) -> index::Result<Option<Option<u32>>> {
        index::chunk_page(self.store().pool(), source_id, version, index).await
    }

    /// Stores the parsed documents and reports them with the files that did
    /// not parse (`parse_errors`).
    pub async fn knowledge_ingest(
        &self,
        docs: Vec<Document>,
        parse_errors: Vec<DocError>,
    ) -> index::Result<IngestReport> {
        index::ingest(self.store().pool(), docs, parse_errors).await
    }
}
