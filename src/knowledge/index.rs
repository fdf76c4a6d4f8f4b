//! The knowledge tables (migrations/0003_knowledge.sql): ingesting
//! documents as versioned sources with their chunks, listing them, and
//! ranked, filtered retrieval over FTS5.
//!
//! Invariants: a (source_id, version) is written once, and re-ingesting it
//! with the same content changes nothing, with different content is refused;
//! at any time at most one version of a source is active (`superseded_at`);
//! equal scores come back in a fixed order (source id, newest version, chunk).

use super::chunk::{self, sentences};
use super::document::{DocError, Document};
use super::text::{self, QueryTerm};
use serde::Serialize;
use sha2::{Digest, Sha256};
use sqlx::{Row, SqlitePool};
use std::collections::{BTreeMap, BTreeSet};
use ts_rs::TS;

pub type Result<T> = std::result::Result<T, sqlx::Error>;

/// Filters of a search; `None` means no constraint.
#[derive(Debug, Clone, PartialEq, Default, Serialize, serde::Deserialize, TS)]
#[serde(default, deny_unknown_fields)]
#[ts(optional_fields = nullable)]
pub struct SearchQuery {
    #[ts(optional = nullable)]
    pub query: String,
    pub doc_type: Option<String>,
    pub source_type: Option<String>,
    pub city_code: Option<String>,
    pub lot_code: Option<String>,
    /// RFC 3339 or YYYY-MM-DD; `None` is now.
    pub at_time: Option<String>,
    #[ts(optional = nullable)]
    pub source_ids: Vec<String>,
    pub language: Option<String>,
    #[ts(optional = nullable)]
    pub include_inactive: bool,
    /// 0 means the default (5).
    #[ts(optional = nullable)]
    pub top_k: usize,
    /// The asker's language, for stemming; not a filter.
    #[serde(skip)]
    pub asker_language: Option<String>,
}

/// Whose document a source is. The shop's own (anything imported) outranks
/// the shipped defaults (`knowledge/*.md` and the component notes) on the
/// same subject: of the chunks that clear the relevance floor, the shop's
/// come first.
#[derive(
    Debug,
    Clone,
    Copy,
    Default,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    serde::Deserialize,
    TS,
)]
#[serde(rename_all = "lowercase")]
pub enum Source {
    #[default]
    Shop,
    Default,
}

impl Source {
    pub fn as_str(self) -> &'static str {
        match self {
            Source::Shop => "shop",
            Source::Default => "default",
        }
    }

    fn from_db(s: &str) -> Source {
        if s == "default" {
            Source::Default
        } else {
            Source::Shop
        }
    }
}

pub const DEFAULT_TOP_K: usize = 5;
pub const MAX_TOP_K: usize = 50;

#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct SearchHit {
    pub source_id: String,
    pub version: u32,
    pub title: String,
    pub doc_type: String,
    pub source_type: String,
    pub language: String,
    /// `source_id@vN#chunk`: stable across databases.
    pub chunk_id: String,
    pub heading: String,
    /// Higher is better (FTS5's BM25, negated).
    pub score: f64,
    pub snippet: String,
    /// The shop's own document or a shipped default.
    pub source: Source,
    /// The page of the PDF the chunk was taken from (1-based); none for
    /// text documents.
    pub page: Option<u32>,
    #[serde(skip)]
    pub text: String,
    #[serde(skip)]
    pub clarifying_questions: BTreeMap<String, Vec<String>>,
    #[serde(skip)]
    pub requires_handoff: bool,
}

pub fn chunk_id(source_id: &str, version: u32, index: i64) -> String {
    format!("{source_id}@v{version}#{index}")
}

/// What an ingest did, document by document.
#[derive(Debug, Clone, Default, Serialize, TS)]
pub struct IngestReport {
    pub imported: Vec<IngestedSource>,
    pub unchanged: Vec<IngestedSource>,
    pub skipped: Vec<DocError>,
    pub chunks: usize,
}

#[derive(Debug, Clone, Serialize, TS)]
pub struct IngestedSource {
    pub source_id: String,
    pub version: u32,
    pub chunks: usize,
    pub origin: String,
}

/// A stored source version, for `knowledge list`.
#[derive(Debug, Clone, Serialize, TS)]
pub struct SourceInfo {
    pub source_id: String,
    pub version: u32,
    pub doc_type: String,
    pub source_type: String,
    pub title: String,
    pub language: String,
    pub city_code: Option<String>,
    pub lot_codes: Vec<String>,
    pub effective_from: Option<String>,
    pub effective_to: Option<String>,
    pub superseded_at: Option<String>,
    /// Answers retrieval now.
    pub active: bool,
    pub chunks: u32,
    pub clarifying_questions: usize,
    pub requires_handoff: bool,
    pub origin: String,
    pub ingested_at: String,
    /// The shop's own document or a shipped default.
    pub source: Source,
    /// The version was imported from a file that is kept (a PDF the app
    /// opens at a cited page).
    pub has_file: bool,
}

fn now() -> String {
    chrono::Utc::now().format("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// Sorts before every real time: "superseded from the beginning".
const ALWAYS: &str = "0000-01-01T00:00:00Z";

fn content_hash(d: &Document) -> String {
    let canonical = serde_json::json!({
        "doc_type": d.doc_type, "source_type": d.source_type, "title": d.title,
        "language": d.language, "city_code": d.city_code, "lot_codes": d.lot_codes,
        "effective_from": d.effective_from, "effective_to": d.effective_to,
        "clarifying_questions": d.clarifying_questions,
        "requires_handoff": d.requires_handoff, "body": d.body,
    });
    hex::encode(Sha256::digest(canonical.to_string().as_bytes()))
}

/// Imports documents in one transaction, as the shop's own. Documents that
/// clash with what is stored (same version, other content) are reported in
/// `skipped` with the parse errors the caller passes in; the rest import.
/// Keeps the file a document came from with its source row (once: an
/// unchanged re-import of a file stored before keeps the first copy).
async fn keep_original(tx: &mut sqlx::SqliteConnection, row: i64, doc: &Document) -> Result<()> {
    if let Some(file) = &doc.original {
        sqlx::query(
            "INSERT OR IGNORE INTO knowledge_files (source_row, media_type, bytes) VALUES (?, ?, ?)",
        )
        .bind(row)
        .bind(file.media_type)
        .bind(&file.bytes[..])
        .execute(&mut *tx)
        .await?;
    }
    Ok(())
}

/// [`keep_original`] for a version already stored (a PDF imported before
/// its file was kept gets it on the next import of the same file).
async fn keep_original_of(
    tx: &mut sqlx::SqliteConnection,
    doc: &Document,
    version: u32,
) -> Result<()> {
    if doc.original.is_none() {
        return Ok(());
    }
    let row: Option<i64> =
        sqlx::query_scalar("SELECT id FROM knowledge_sources WHERE source_id = ? AND version = ?")
            .bind(&doc.source_id)
            .bind(version)
            .fetch_optional(&mut *tx)
            .await?;
    match row {
        Some(row) => keep_original(tx, row, doc).await,
        None => Ok(()),
    }
}

/// The file a source version was imported from, as the app shows it.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct SourceFile {
    pub source_id: String,
    pub version: u32,
    pub title: String,
    pub media_type: String,
    /// The file, base64 (standard alphabet, padded).
    pub data_base64: String,
    /// The page the chunk the request named is on (a chat citation names
    /// its chunk, not its page); none when no chunk was named.
    pub page: Option<u32>,
}

/// The file `source_id` version `version` was imported from; `None` when
/// the version does not exist or was a text document.
pub async fn source_file(
    pool: &SqlitePool,
    source_id: &str,
    version: u32,
) -> Result<Option<SourceFile>> {
    use base64::Engine as _;
    let row = sqlx::query(
        "SELECT s.title, f.media_type, f.bytes FROM knowledge_sources s
         JOIN knowledge_files f ON f.source_row = s.id
         WHERE s.source_id = ? AND s.version = ?",
    )
    .bind(source_id)
    .bind(version)
    .fetch_optional(pool)
    .await?;
    Ok(row.map(|r| {
        let bytes: Vec<u8> = r.get("bytes");
        SourceFile {
            source_id: source_id.to_string(),
            version,
            title: r.get("title"),
            media_type: r.get("media_type"),
            data_base64: base64::engine::general_purpose::STANDARD.encode(bytes),
            page: None,
        }
    }))
}

/// The page chunk `index` of `source_id` version `version` is on: `None`
/// when there is no such chunk, `Some(None)` for a chunk of a text document.
pub async fn chunk_page(
    pool: &SqlitePool,
    source_id: &str,
    version: u32,
    index: i64,
) -> Result<Option<Option<u32>>> {
    let row = sqlx::query(
        "SELECT c.page FROM knowledge_chunks c JOIN knowledge_sources s ON s.id = c.source_row
         WHERE s.source_id = ? AND s.version = ? AND c.chunk_index = ?",
    )
    .bind(source_id)
    .bind(version)
    .bind(index)
    .fetch_optional(pool)
    .await?;
    Ok(row.map(|r| {
        r.get::<Option<i64>, _>("page")
            .map(|p| p.clamp(1, u32::MAX as i64) as u32)
    }))
}

pub async fn ingest(
    pool: &SqlitePool,
    docs: Vec<Document>,
    parse_errors: Vec<DocError>,
) -> Result<IngestReport> {
    ingest_as(pool, docs, parse_errors, Source::Shop).await
}

/// [`ingest`] with the documents' [`Source`] (the default set is ingested as
/// `Default`; everything else is the shop's).
pub async fn ingest_as(
    pool: &SqlitePool,
    docs: Vec<Document>,
    parse_errors: Vec<DocError>,
    source: Source,
) -> Result<IngestReport> {
    // IMMEDIATE: this transaction reads before it writes; a deferred BEGIN
    // would fail at once with SQLITE_BUSY when another writer got in between
    // instead of waiting on the busy timeout.
    let mut tx = pool.begin_with("BEGIN IMMEDIATE").await?;
    let report = ingest_in_as(&mut tx, docs, parse_errors, source).await?;
    tx.commit().await?;
    Ok(report)
}

/// [`ingest`] inside the caller's write transaction (a rule import and its
/// explanations commit together): the shop's own.
pub async fn ingest_in(
    tx: &mut sqlx::SqliteConnection,
    docs: Vec<Document>,
    parse_errors: Vec<DocError>,
) -> Result<IngestReport> {
    ingest_in_as(tx, docs, parse_errors, Source::Shop).await
}

async fn ingest_in_as(
    tx: &mut sqlx::SqliteConnection,
    docs: Vec<Document>,
    parse_errors: Vec<DocError>,
    source: Source,
) -> Result<IngestReport> {
    let mut report = IngestReport {
        skipped: parse_errors,
        ..Default::default()
    };
    let mut touched = BTreeSet::new();
    let mut batch: BTreeMap<(String, u32), (String, String)> = BTreeMap::new();
    let ingested_at = now();
    for doc in docs {
        let hash = content_hash(&doc);
        let latest: Option<(u32, String)> = sqlx::query_as(
            "SELECT version, content_hash FROM knowledge_sources WHERE source_id = ? ORDER BY version DESC LIMIT 1",
        )
        .bind(&doc.source_id)
        .fetch_optional(&mut *tx)
        .await?;
        let version = match doc.version {
            Some(v) => {
                let stored: Option<String> = sqlx::query_scalar(
                    "SELECT content_hash FROM knowledge_sources WHERE source_id = ? AND version = ?",
                )
                .bind(&doc.source_id)
                .bind(v)
                .fetch_optional(&mut *tx)
                .await?;
                let prior = stored.or_else(|| {
                    batch
                        .get(&(doc.source_id.clone(), v))
                        .map(|(h, _)| h.clone())
                });
                match prior {
                    Some(h) if h == hash => {
                        mark_source(&mut *tx, &doc.source_id, v, source).await?;
                        keep_original_of(&mut *tx, &doc, v).await?;
                        report.unchanged.push(IngestedSource {
                            source_id: doc.source_id.clone(),
                            version: v,
                            chunks: 0,
                            origin: doc.origin.clone(),
                        });
                        continue;
                    }
                    Some(_) => {
                        let first = batch
                            .get(&(doc.source_id.clone(), v))
                            .map(|(_, origin)| origin.clone())
                            .unwrap_or_else(|| "the store".into());
                        report.skipped.push(DocError {
                            file: doc.origin.clone(),
                            line: doc.version_line,
                            field: Some("version".into()),
                            message: format!(
                                "{} version {v} is already imported (from {first}) with different content; give the changed document a new version",
                                doc.source_id
                            ),
                        });
                        continue;
                    }
                    None => v,
                }
            }
            None => match &latest {
                Some((v, h)) if *h == hash => {
                    mark_source(&mut *tx, &doc.source_id, *v, source).await?;
                    keep_original_of(&mut *tx, &doc, *v).await?;
                    report.unchanged.push(IngestedSource {
                        source_id: doc.source_id.clone(),
                        version: *v,
                        chunks: 0,
                        origin: doc.origin.clone(),
                    });
                    continue;
                }
                Some((v, _)) => {
                    // A batch may carry the same unversioned source twice.
                    let mut next = v + 1;
                    while batch.contains_key(&(doc.source_id.clone(), next)) {
                        next += 1;
                    }
                    next
                }
                None => 1,
            },
        };
        batch.insert(
            (doc.source_id.clone(), version),
            (hash.clone(), doc.origin.clone()),
        );
        let questions = serde_json::to_string(&doc.clarifying_questions).unwrap_or_default();
        let lots = serde_json::to_string(&doc.lot_codes).unwrap_or_default();
        let row: i64 = sqlx::query_scalar(
            "INSERT INTO knowledge_sources (source_id, version, doc_type, source_type, title, language, city_code, lot_codes, effective_from, effective_to, clarifying_questions, requires_handoff, content_hash, origin, ingested_at, source)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
        )
        .bind(&doc.source_id)
        .bind(version)
        .bind(&doc.doc_type)
        .bind(&doc.source_type)
        .bind(&doc.title)
        .bind(&doc.language)
        .bind(&doc.city_code)
        .bind(lots)
        .bind(&doc.effective_from)
        .bind(&doc.effective_to)
        .bind(questions)
        .bind(doc.requires_handoff)
        .bind(&hash)
        .bind(&doc.origin)
        .bind(&ingested_at)
        .bind(source.as_str())
        .fetch_one(&mut *tx)
        .await?;
        keep_original(&mut *tx, row, &doc).await?;
        let chunks = paged_chunks(&doc);
        // The clarifying questions (with their translations) are part of
        // what a document is about: a Russian question finds an English
        // document through its Russian questions.
        let mut about = doc.title.clone();
        for qs in doc.clarifying_questions.values() {
            for q in qs {
                about.push('\n');
                about.push_str(q);
            }
        }
        let title_form = text::index_form(&about, &doc.language);
        for (i, (page, c)) in chunks.iter().enumerate() {
            let id: i64 = sqlx::query_scalar(
                "INSERT INTO knowledge_chunks (source_row, chunk_index, heading, text, page) VALUES (?, ?, ?, ?, ?) RETURNING id",
            )
            .bind(row)
            .bind(i as i64)
            .bind(&c.heading)
            .bind(&c.text)
            .bind(page.map(i64::from))
            .fetch_one(&mut *tx)
            .await?;
            sqlx::query(
                "INSERT INTO knowledge_fts (rowid, title, heading, body) VALUES (?, ?, ?, ?)",
            )
            .bind(id)
            .bind(&title_form)
            .bind(text::index_form(&c.heading, &doc.language))
            .bind(text::index_form(&c.text, &doc.language))
            .execute(&mut *tx)
            .await?;
        }
        report.chunks += chunks.len();
        report.imported.push(IngestedSource {
            source_id: doc.source_id.clone(),
            version,
            chunks: chunks.len(),
            origin: doc.origin.clone(),
        });
        touched.insert(doc.source_id.clone());
    }
    for source_id in &touched {
        sqlx::query(
            "UPDATE knowledge_sources SET superseded_at = (
                 SELECT MIN(COALESCE(o.effective_from, ?2)) FROM knowledge_sources o
                 WHERE o.source_id = knowledge_sources.source_id AND o.version > knowledge_sources.version)
             WHERE source_id = ?1",
        )
        .bind(source_id)
        .bind(ALWAYS)
        .execute(&mut *tx)
        .await?;
    }
    Ok(report)
}

/// The default set finds its documents already stored when they did not
/// change: they are marked as defaults (a store made before sources were
/// ranked holds them as the shop's). A shop import never demotes anything.
async fn mark_source(
    tx: &mut sqlx::SqliteConnection,
    source_id: &str,
    version: u32,
    source: Source,
) -> Result<()> {
    if source == Source::Default {
        sqlx::query("UPDATE knowledge_sources SET source = 'default' WHERE source_id = ? AND version = ? AND source <> 'default'")
            .bind(source_id)
            .bind(version)
            .execute(&mut *tx)
            .await?;
    }
    Ok(())
}

/// A document's chunks with the page each came from: a PDF's body holds
/// one `[[page N]]` line before each page's text ([`super::pdf`]), and no
/// chunk crosses a page; any other document is chunked whole, without pages.
fn paged_chunks(doc: &Document) -> Vec<(Option<u32>, chunk::Chunk)> {
    if doc.source_type != super::pdf::SOURCE_TYPE {
        return chunk::chunk(&doc.body)
            .into_iter()
            .map(|c| (None, c))
            .collect();
    }
    super::pdf::pages_of(&doc.body)
        .into_iter()
        .flat_map(|(page, text)| {
            chunk::chunk(text).into_iter().map(move |mut c| {
                if c.heading.is_empty() {
                    c.heading = format!("p. {page}");
                }
                (Some(page), c)
            })
        })
        .collect()
}

/// Every stored source version, newest first per source.
pub async fn list(pool: &SqlitePool) -> Result<Vec<SourceInfo>> {
    let at = now();
    let rows = sqlx::query(
        "SELECT s.*, (SELECT COUNT(*) FROM knowledge_chunks c WHERE c.source_row = s.id) AS chunk_count,
                EXISTS (SELECT 1 FROM knowledge_files f WHERE f.source_row = s.id) AS has_file
         FROM knowledge_sources s ORDER BY s.source_id, s.version DESC",
    )
    .fetch_all(pool)
    .await?;
    Ok(rows
        .into_iter()
        .map(|r| {
            let from: Option<String> = r.get("effective_from");
            let to: Option<String> = r.get("effective_to");
            let sup: Option<String> = r.get("superseded_at");
            let active = from.as_deref().is_none_or(|f| f <= at.as_str())
                && to.as_deref().is_none_or(|t| at.as_str() < t)
                && sup.as_deref().is_none_or(|s| at.as_str() < s);
            let questions: BTreeMap<String, Vec<String>> =
                serde_json::from_str(r.get::<&str, _>("clarifying_questions")).unwrap_or_default();
            let lang: String = r.get("language");
            SourceInfo {
                source_id: r.get("source_id"),
                version: r.get::<i64, _>("version") as u32,
                doc_type: r.get("doc_type"),
                source_type: r.get("source_type"),
                title: r.get("title"),
                clarifying_questions: questions.get(&lang).map(Vec::len).unwrap_or(0),
                language: lang,
                city_code: r.get("city_code"),
                lot_codes: serde_json::from_str(r.get::<&str, _>("lot_codes")).unwrap_or_default(),
                effective_from: from,
                effective_to: to,
                superseded_at: sup,
                active,
                chunks: r.get::<i64, _>("chunk_count") as u32,
                requires_handoff: r.get::<i64, _>("requires_handoff") != 0,
                origin: r.get("origin"),
                ingested_at: r.get("ingested_at"),
                source: Source::from_db(r.get::<&str, _>("source")),
                has_file: r.get::<i64, _>("has_file") != 0,
            }
        })
        .collect())
}

const SEARCH_SQL: &str = "
SELECT c.chunk_index, c.heading, c.text, c.page, s.source_id, s.version, s.title, s.doc_type,
       s.source_type, s.language, s.clarifying_questions, s.requires_handoff, s.source,
       s.city_code, s.lot_codes, bm25(knowledge_fts, 4.0, 2.0, 1.0) AS score
FROM knowledge_fts
JOIN knowledge_chunks c ON c.id = knowledge_fts.rowid
JOIN knowledge_sources s ON s.id = c.source_row
WHERE knowledge_fts MATCH ?1
  AND (?2 IS NULL OR s.doc_type = ?2)
  AND (?3 IS NULL OR s.source_type = ?3)
  AND (?4 IS NULL OR s.city_code IS NULL OR s.city_code = ?4)
  AND (?5 IS NULL OR s.lot_codes = '[]' OR EXISTS (SELECT 1 FROM json_each(s.lot_codes) WHERE json_each.value = ?5))
  AND (?6 IS NULL OR s.language = ?6)
  AND (?7 IS NULL OR s.source_id IN (SELECT value FROM json_each(?7)))
  AND (?8 OR ((s.effective_from IS NULL OR s.effective_from <= ?9)
              AND (s.effective_to IS NULL OR ?9 < s.effective_to)
              AND (s.superseded_at IS NULL OR ?9 < s.superseded_at)))
ORDER BY score, s.source_id, s.version DESC, c.chunk_index
LIMIT ?10";

/// A filter value the caller got wrong.
#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    #[error("at_time: {0:?} is not a time: use {forms}", forms = super::document::TIME_FORMS)]
    BadTime(String),
    #[error("top_k: {0} is more than {MAX_TOP_K}")]
    TopK(usize),
    #[error(transparent)]
    Sql(#[from] sqlx::Error),
}

/// What a search found: the chunks that clear the relevance floor (best
/// first, the shop's documents before the defaults), and when none does,
/// up to three titles near the question for a "did you mean".
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Retrieval {
    pub hits: Vec<SearchHit>,
    pub near_titles: Vec<String>,
    /// Why nothing cleared the floor (for the turn's trace).
    pub below_floor: Option<String>,
}

/// Of a question with three or more key words, the chunk must hold at least
/// this share of their weight (inverse document frequency), so the words
/// the store has never seen ("jet engine turbine") count most.
/// (0.45: at 0.4 "daily storage rate for PDX lot A" is answered by a
/// battery FAQ that mentions the lot; a claim question naming the part
/// scratched, 0.49, must pass.)
pub const MIN_KEY_WEIGHT: f64 = 0.45;
/// The least BM25 score (negated) a chunk may answer with.
pub const MIN_SCORE: f64 = 1.0;
/// At most this many near titles are offered.
pub const NEAR_TITLES: usize = 3;

/// Ranked chunks for a query that clear the relevance floor ([`retrieve`]).
pub async fn search(
    pool: &SqlitePool,
    q: &SearchQuery,
) -> std::result::Result<Vec<SearchHit>, SearchError> {
    Ok(retrieve(pool, q).await?.hits)
}

/// Ranked chunks for a query: BM25 over the index forms, filtered in SQL,
/// then kept only above the relevance floor:
///
/// - the query names a subject: at least one key word (not a number, not
///   small talk or a follow-up's "time", "week", "worse");
/// - enough of the query's words occur in the chunk (with its title,
///   heading and questions), and of its key words all of one or two, else
///   half of them holding [`MIN_KEY_WEIGHT`] of their weight;
/// - the BM25 score is at least [`MIN_SCORE`];
/// - the scope: a city code or "lot X" the question names excludes
///   documents scoped to another city or lot.
///
/// The shop's documents come before the defaults among the chunks kept.
pub async fn retrieve(
    pool: &SqlitePool,
    q: &SearchQuery,
) -> std::result::Result<Retrieval, SearchError> {
    let top_k = match q.top_k {
        0 => DEFAULT_TOP_K,
        k if k > MAX_TOP_K => return Err(SearchError::TopK(k)),
        k => k,
    };
    let at = match &q.at_time {
        None => now(),
        Some(t) => {
            super::document::parse_time(t.trim()).ok_or_else(|| SearchError::BadTime(t.clone()))?
        }
    };
    let terms = text::query_terms(&q.query, q.asker_language.as_deref());
    let key = text::key_terms(&terms);
    if key.is_empty() {
        return Ok(Retrieval {
            below_floor: Some(
                "the question names no subject (only numbers or generic words)".into(),
            ),
            ..Default::default()
        });
    }
    let Some((expr, _)) = text::match_plan(&terms) else {
        return Ok(Retrieval::default());
    };
    let rows = fetch(pool, q, &expr, &at, (top_k * 8).max(40)).await?;
    let weights = key_weights(pool, &key).await?;
    let scope = named_scope(pool, &q.query).await?;
    let required = text::required_matches(&terms);
    let mut kept: Vec<SearchHit> = Vec::new();
    let mut rejected: Vec<(String, String, String)> = Vec::new();
    let mut why = None;
    for r in rows {
        let title: String = r.get("title");
        let source_id: String = r.get("source_id");
        let heading: String = r.get("heading");
        let body: String = r.get("text");
        let language: String = r.get("language");
        let questions: BTreeMap<String, Vec<String>> =
            serde_json::from_str(r.get::<&str, _>("clarifying_questions")).unwrap_or_default();
        let asked: Vec<&str> = questions.values().flatten().map(String::as_str).collect();
        let tokens = text::token_set(
            &format!("{title}\n{}\n{heading}\n{body}", asked.join("\n")),
            &language,
        );
        let score = -r.get::<f64, _>("score");
        let city: Option<String> = r.get("city_code");
        let lots: Vec<String> =
            serde_json::from_str(r.get::<&str, _>("lot_codes")).unwrap_or_default();
        let verdict = if text::matched_terms(&terms, &tokens) < required {
            Err("too few of the question's words".to_string())
        } else {
            covers(&key, &weights, &tokens)
                .and_then(|()| {
                    if score < MIN_SCORE {
                        Err(format!("score {score:.2} under {MIN_SCORE}"))
                    } else {
                        Ok(())
                    }
                })
                .and_then(|()| scope.admits(city.as_deref(), &lots))
        };
        if let Err(reason) = verdict {
            if why.is_none() {
                why = Some(format!("{source_id}: {reason}"));
            }
            rejected.push((source_id, title, language));
            continue;
        }
        let version = r.get::<i64, _>("version") as u32;
        let index: i64 = r.get("chunk_index");
        kept.push(SearchHit {
            chunk_id: chunk_id(&source_id, version, index),
            snippet: snippet(&body, &terms, &language, q.asker_language.as_deref()),
            source_id,
            version,
            title,
            doc_type: r.get("doc_type"),
            source_type: r.get("source_type"),
            clarifying_questions: questions,
            requires_handoff: r.get::<i64, _>("requires_handoff") != 0,
            language,
            heading,
            score,
            source: Source::from_db(r.get::<&str, _>("source")),
            page: r
                .get::<Option<i64>, _>("page")
                .map(|p| p.clamp(1, u32::MAX as i64) as u32),
            text: body,
        });
    }
    // Stable: within each source, the SQL order (score, then the tie-break).
    kept.sort_by_key(|h| h.source);
    kept.truncate(top_k);
    if !kept.is_empty() {
        return Ok(Retrieval {
            hits: kept,
            ..Default::default()
        });
    }
    let near_titles = near_titles(pool, q, &key, &at, rejected).await?;
    Ok(Retrieval {
        hits: Vec::new(),
        near_titles,
        below_floor: Some(why.unwrap_or_else(|| "no chunk holds the question's words".into())),
    })
}

async fn fetch(
    pool: &SqlitePool,
    q: &SearchQuery,
    expr: &str,
    at: &str,
    limit: usize,
) -> Result<Vec<sqlx::sqlite::SqliteRow>> {
    let source_ids = (!q.source_ids.is_empty())
        .then(|| serde_json::to_string(&q.source_ids).unwrap_or_default());
    let upper = |s: &Option<String>| s.as_ref().map(|v| v.trim().to_ascii_uppercase());
    sqlx::query(SEARCH_SQL)
        .bind(expr)
        .bind(&q.doc_type)
        .bind(&q.source_type)
        .bind(upper(&q.city_code))
        .bind(upper(&q.lot_code))
        .bind(&q.language)
        .bind(source_ids)
        .bind(q.include_inactive)
        .bind(at)
        .bind(limit as i64)
        .fetch_all(pool)
        .await
}

/// Each key word's weight: its inverse document frequency over the chunks
/// (BM25's), so a word the store has never seen weighs most. Only a
/// question of three or more key words is weighed (see [`covers`]); the
/// chunk count is the largest rowid and a count stops at a twentieth of it
/// (at least 200), so a common word costs a bounded scan in a large store.
async fn key_weights(pool: &SqlitePool, key: &[&QueryTerm]) -> Result<Vec<f64>> {
    if key.iter().filter(|t| !t.cjk).count() <= 2 {
        return Ok(vec![1.0; key.len()]);
    }
    let n: Option<i64> = sqlx::query_scalar("SELECT MAX(id) FROM knowledge_chunks")
        .fetch_one(pool)
        .await?;
    let n = n.unwrap_or(0).max(1);
    let cap = (n / 20).max(200);
    let mut out = Vec::with_capacity(key.len());
    for t in key {
        let expr = t
            .variants
            .iter()
            .map(|v| format!("\"{}\"", v.replace('"', "\"\"")))
            .collect::<Vec<_>>()
            .join(" OR ");
        let df: i64 = sqlx::query_scalar(
            "SELECT COUNT(*) FROM (SELECT 1 FROM knowledge_fts WHERE knowledge_fts MATCH ? LIMIT ?)",
        )
        .bind(&expr)
        .bind(cap)
        .fetch_one(pool)
        .await?;
        let (n, df) = (n as f64, df as f64);
        out.push(((n - df + 0.5) / (df + 0.5) + 1.0).ln().max(0.01));
    }
    Ok(out)
}

/// Whether a chunk's tokens cover the key words (see [`retrieve`]). CJK
/// bigrams are counted apart: a third of them, as [`text::required_matches`]
/// asks (a bigram that spans two words matches nothing by design).
fn covers(
    key: &[&QueryTerm],
    weights: &[f64],
    tokens: &BTreeSet<String>,
) -> std::result::Result<(), String> {
    let present: Vec<bool> = key.iter().map(|t| t.present_in(tokens)).collect();
    let count = |cjk: bool| {
        let all = key.iter().filter(|t| t.cjk == cjk).count();
        let held = key
            .iter()
            .zip(&present)
            .filter(|(t, p)| t.cjk == cjk && **p)
            .count();
        (all, held)
    };
    let missing = || {
        key.iter()
            .zip(&present)
            .filter(|(_, p)| !**p)
            .map(|(t, _)| t.variants[0].clone())
            .collect::<Vec<_>>()
            .join(", ")
    };
    let (cjk_all, cjk_held) = count(true);
    if cjk_held * 3 < cjk_all {
        return Err(format!(
            "too few of the question's characters: {}",
            missing()
        ));
    }
    let (words, held) = count(false);
    if words <= 2 {
        return if held == words {
            Ok(())
        } else {
            Err(format!("key word(s) missing: {}", missing()))
        };
    }
    if held * 2 < words {
        return Err(format!("most key words missing: {}", missing()));
    }
    let weight = |only_held: bool| -> f64 {
        key.iter()
            .zip(weights.iter().zip(&present))
            .filter(|(t, (_, p))| !t.cjk && (**p || !only_held))
            .map(|(_, (w, _))| w)
            .sum()
    };
    let (total, kept) = (weight(false), weight(true));
    if total > 0.0 && kept / total < MIN_KEY_WEIGHT {
        return Err(format!(
            "the key words it holds weigh {:.2} of the question's (missing: {})",
            kept / total,
            missing()
        ));
    }
    Ok(())
}

/// A city code (one the store knows, written in capitals) or a lot
/// ("lot C", "lote C", "площадка C") the question names.
#[derive(Debug, Default)]
struct NamedScope {
    city: Option<String>,
    lot: Option<String>,
}

impl NamedScope {
    fn admits(&self, city: Option<&str>, lots: &[String]) -> std::result::Result<(), String> {
        if let (Some(want), Some(got)) = (&self.city, city) {
            if want != got {
                return Err(format!("scoped to city {got}, the question names {want}"));
            }
        }
        if let Some(want) = &self.lot {
            if !lots.is_empty() && !lots.contains(want) {
                return Err(format!(
                    "scoped to lot {}, the question names lot {want}",
                    lots.join(",")
                ));
            }
        }
        Ok(())
    }
}

async fn named_scope(pool: &SqlitePool, query: &str) -> Result<NamedScope> {
    static LOT: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(
            r"(?i)\b(?:lot|lote|площадк[аеиуой]|стоянк[аеиуой])\s+([a-z0-9][a-z0-9_-]{0,15})\b",
        )
        .expect("lot pattern")
    });
    let lot = LOT.captures(query).map(|c| c[1].to_ascii_uppercase());
    let caps: BTreeSet<&str> = query
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| w.len() >= 2 && w.chars().all(|c| c.is_ascii_uppercase()))
        .collect();
    let mut city = None;
    if !caps.is_empty() {
        let known: Vec<String> = sqlx::query_scalar(
            "SELECT DISTINCT city_code FROM knowledge_sources WHERE city_code IS NOT NULL",
        )
        .fetch_all(pool)
        .await?;
        city = known.into_iter().find(|c| caps.contains(c.as_str()));
    }
    Ok(NamedScope { city, lot })
}

/// Up to [`NEAR_TITLES`] titles that share a key word with the question:
/// first those of chunks the floor turned away, then any title holding a
/// key word, within the same filters. Titles only, never an answer.
async fn near_titles(
    pool: &SqlitePool,
    q: &SearchQuery,
    key: &[&QueryTerm],
    at: &str,
    rejected: Vec<(String, String, String)>,
) -> Result<Vec<String>> {
    let in_title = |title: &str, language: &str| {
        let tokens = text::token_set(title, language);
        key.iter().any(|t| t.present_in(&tokens))
    };
    let mut out: Vec<String> = Vec::new();
    let mut seen: BTreeSet<String> = BTreeSet::new();
    for (source_id, title, language) in rejected {
        if out.len() < NEAR_TITLES && in_title(&title, &language) && seen.insert(source_id) {
            out.push(title);
        }
    }
    if out.len() < NEAR_TITLES {
        let any: Vec<String> = key
            .iter()
            .flat_map(|t| t.variants.iter())
            .map(|v| format!("\"{}\"", v.replace('"', "\"\"")))
            .collect();
        let expr = format!("title : ({})", any.join(" OR "));
        for r in fetch(pool, q, &expr, at, 40).await? {
            let source_id: String = r.get("source_id");
            let title: String = r.get("title");
            let language: String = r.get("language");
            if out.len() < NEAR_TITLES && in_title(&title, &language) && seen.insert(source_id) {
                out.push(title);
            }
        }
    }
    Ok(out)
}

/// The sentence of a chunk that holds most of the query's words (the first
/// on a tie), cut to a readable length.
pub fn snippet(body: &str, terms: &[QueryTerm], language: &str, prefer: Option<&str>) -> String {
    best_sentences(body, terms, language, prefer, 1)
        .into_iter()
        .next()
        .map(|s| shorten(&s, 280))
        .unwrap_or_default()
}

/// Up to `n` sentences of a text, best match first (ties in text order).
/// A text that holds several languages (component notes do) gives the
/// sentences in `prefer` when it has any.
pub fn best_sentences(
    body: &str,
    terms: &[QueryTerm],
    language: &str,
    prefer: Option<&str>,
    n: usize,
) -> Vec<String> {
    let all: Vec<&str> = sentences(body)
        .into_iter()
        .filter(|s| s.chars().filter(|c| c.is_alphanumeric()).count() >= 3)
        .collect();
    let foreign = |s: &&str| {
        prefer.is_some_and(|p| crate::engine::lexicon::detect_language(s).is_some_and(|l| l != p))
    };
    let native: Vec<&str> = all.iter().copied().filter(|s| !foreign(s)).collect();
    let pool = if native.is_empty() { all } else { native };
    let mut scored: Vec<(usize, usize, &str)> = pool
        .into_iter()
        .enumerate()
        .map(|(i, s)| {
            let tokens = text::token_set(s, language);
            (text::matched_terms(terms, &tokens), i, s)
        })
        .collect();
    scored.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
    scored
        .into_iter()
        .take(n)
        .map(|(_, _, s)| s.trim_start_matches(['-', '*', ' ']).to_string())
        .collect()
}

pub fn shorten(s: &str, max_chars: usize) -> String {
    if s.chars().count() <= max_chars {
        return s.to_string();
    }
    let mut out: String = s.chars().take(max_chars - 1).collect();
    out.push('…');
    out
}

/// Whether the default set with this fingerprint was already ingested.
pub async fn meta_get(pool: &SqlitePool, key: &str) -> Result<Option<String>> {
    sqlx::query_scalar("SELECT value FROM knowledge_meta WHERE key = ?")
        .bind(key)
        .fetch_optional(pool)
        .await
}

pub async fn meta_set(pool: &SqlitePool, key: &str, value: &str) -> Result<()> {
    sqlx::query("INSERT INTO knowledge_meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value")
        .bind(key)
        .bind(value)
        .execute(pool)
        .await?;
    Ok(())
}

/// The chunk of a source's version active now whose heading starts with
/// `heading` (the first chunk when `heading` is empty): how a subflow cites
/// the component note it answered from without a text search.
pub async fn lookup(
    pool: &SqlitePool,
    source_id: &str,
    heading: &str,
) -> Result<Option<SearchHit>> {
    let at = now();
    let row = sqlx::query(
        "SELECT c.chunk_index, c.heading, c.text, c.page, s.source_id, s.version, s.title, s.doc_type,
                s.source_type, s.language, s.source
         FROM knowledge_chunks c JOIN knowledge_sources s ON s.id = c.source_row
         WHERE s.source_id = ?1
           AND (s.effective_from IS NULL OR s.effective_from <= ?2)
           AND (s.effective_to IS NULL OR ?2 < s.effective_to)
           AND (s.superseded_at IS NULL OR ?2 < s.superseded_at)
           AND (?3 = '' OR c.heading = ?3 OR c.heading LIKE '% > ' || ?3 || '%' OR c.heading LIKE ?3 || '%')
         ORDER BY s.version DESC, c.chunk_index LIMIT 1",
    )
    .bind(source_id)
    .bind(&at)
    .bind(heading)
    .fetch_optional(pool)
    .await?;
    Ok(row.map(|r| unranked_hit(&r)))
}

/// The first chunk of one version of a source, active or not: the evidence
/// a billing answer cites is the explanation of the version it used.
pub async fn lookup_version(
    pool: &SqlitePool,
    source_id: &str,
    version: u32,
) -> Result<Option<SearchHit>> {
    let row = sqlx::query(
        "SELECT c.chunk_index, c.heading, c.text, c.page, s.source_id, s.version, s.title, s.doc_type,
                s.source_type, s.language, s.source
         FROM knowledge_chunks c JOIN knowledge_sources s ON s.id = c.source_row
         WHERE s.source_id = ?1 AND s.version = ?2
         ORDER BY c.chunk_index LIMIT 1",
    )
    .bind(source_id)
    .bind(version)
    .fetch_optional(pool)
    .await?;
    Ok(row.map(|r| unranked_hit(&r)))
}

/// A chunk fetched by id rather than ranked: score 0, its first sentence
/// as the snippet.
fn unranked_hit(r: &sqlx::sqlite::SqliteRow) -> SearchHit {
    let source_id: String = r.get("source_id");
    let version = r.get::<i64, _>("version") as u32;
    let text: String = r.get("text");
    SearchHit {
        chunk_id: chunk_id(&source_id, version, r.get("chunk_index")),
        snippet: shorten(sentences(&text).first().copied().unwrap_or(""), 280),
        source_id,
        version,
        title: r.get("title"),
        doc_type: r.get("doc_type"),
        source_type: r.get("source_type"),
        language: r.get("language"),
        heading: r.get("heading"),
        score: 0.0,
        source: Source::from_db(r.get::<&str, _>("source")),
        page: r
            .get::<Option<i64>, _>("page")
            .map(|p| p.clamp(1, u32::MAX as i64) as u32),
        text,
        clarifying_questions: BTreeMap::new(),
        requires_handoff: false,
    }
}
