//! The local knowledge store: documents (shop policies, warranty process,
//! FAQs, safety notes, component notes derived from the procedures) chunked
//! into SQLite FTS5, retrieved with filters and validity times, and turned
//! into cited answers without any model. The contract is
//! `docs/spec/knowledge.md`.
//!
//! - [`document`] / [`frontmatter`]: reading and validating files.
//! - [`chunk`]: bounded chunks by headings and paragraphs.
//! - [`text`]: the normalization both the index and queries go through.
//! - [`crosslang`]: Spanish and Russian query words looked up under the
//!   English terms of the shop's documents (a term lexicon, `crosslang.lex`).
//! - [`index`]: the SQL side: ingest, list, search, lookup.
//! - [`answer`]: conclusion, key points, citations.
//! - [`derived`]: component notes generated from `procedures/`.
//! - [`pdf`]: PDF manuals and bulletins, their text page by page.
//! - [`eval`]: the evaluation harness behind `servicedesk eval knowledge`.
//!
//! [`chunk`], [`text`] and [`crosslang`] are the `servicedesk-knowledge-text`
//! crate, re-exported here.

pub mod answer;
pub mod derived;
pub mod document;
pub mod eval;
pub mod frontmatter;
pub mod index;
pub mod pdf;

pub use servicedesk_knowledge_text::{chunk, crosslang, text};

pub use answer::{Answer, Citation};
pub use document::{DocError, Document};
pub use index::{IngestReport, Retrieval, SearchHit, SearchQuery, Source, SourceInfo};

use crate::engine::catalog::Catalog;
use sha2::{Digest, Sha256};
use sqlx::SqlitePool;

include!(concat!(env!("OUT_DIR"), "/embedded_knowledge.rs"));

/// Bump when chunking or the index form changes, so stores re-derive.
const FORMAT: &str = "knowledge-format-3";
const DEFAULT_SET_KEY: &str = "default_set";

/// The shipped documents (`knowledge/`) and the component notes, parsed.
/// Errors here are bugs in shipped data; a test keeps the list empty.
pub fn default_documents(catalog: &Catalog) -> (Vec<Document>, Vec<DocError>) {
    let mut docs = Vec::new();
    let mut errors = Vec::new();
    for (name, text) in EMBEDDED_KNOWLEDGE {
        let (d, e) = document::load_bytes(&format!("knowledge/{name}"), text.as_bytes());
        docs.extend(d);
        errors.extend(e);
    }
    docs.extend(derived::component_notes(catalog));
    (docs, errors)
}

fn default_fingerprint() -> String {
    let mut h = Sha256::new();
    h.update(FORMAT);
    for (name, text) in EMBEDDED_KNOWLEDGE {
        h.update(name.as_bytes());
        h.update(text.as_bytes());
    }
    for (name, text) in crate::engine::catalog::EMBEDDED_PROCEDURES {
        h.update(name.as_bytes());
        h.update(text.as_bytes());
    }
    hex::encode(h.finalize())
}

/// Ingests the default set on first run, and again whenever the shipped
/// documents or procedures changed (unchanged documents stay as they are,
/// changed ones get a new version). Costs one SELECT when nothing changed.
pub async fn ensure_default_set(
    pool: &SqlitePool,
    catalog: &Catalog,
) -> Result<Option<IngestReport>, sqlx::Error> {
    let fingerprint = default_fingerprint();
    if index::meta_get(pool, DEFAULT_SET_KEY).await?.as_deref() == Some(fingerprint.as_str()) {
        return Ok(None);
    }
    let (docs, errors) = default_documents(catalog);
    for e in &errors {
        tracing::error!("default knowledge: {e}");
    }
    let report = index::ingest_as(pool, docs, errors, index::Source::Default).await?;
    index::meta_set(pool, DEFAULT_SET_KEY, &fingerprint).await?;
    Ok(Some(report))
}
