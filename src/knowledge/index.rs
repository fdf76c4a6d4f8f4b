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

/// Imports documents in one transaction. Documents that clash with what is
/// stored (same version, other content) are reported in `skipped` with the
/// parse errors the caller passes in; the rest import.
pub async fn ingest(
    pool: &SqlitePool,
    docs: Vec<Document>,
    parse_errors: Vec<DocError>,
) -> Result<IngestReport> {
    // IMMEDIATE: this transaction reads before it writes; a deferred BEGIN
    // would fail at once with SQLITE_BUSY when another writer got in between
    // instead of waiting on the busy timeout.
    let mut tx = pool.begin_with("BEGIN IMMEDIATE").await?;
    let report = ingest_in(&mut tx, docs, parse_errors).await?;
    tx.commit().await?;
    Ok(report)
}

/// [`ingest`] inside the caller's write transaction (a rule import and its
/// explanations commit together).
pub async fn ingest_in(
    tx: &mut sqlx::SqliteConnection,
    docs: Vec<Document>,
    parse_errors: Vec<DocError>,
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
            "INSERT INTO knowledge_sources (source_id, version, doc_type, source_type, title, language, city_code, lot_codes, effective_from, effective_to, clarifying_questions, requires_handoff, content_hash, origin, ingested_at)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id",
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
        .fetch_one(&mut *tx)
        .await?;
        let chunks = chunk::chunk(&doc.body);
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
        for (i, c) in chunks.iter().enumerate() {
            let id: i64 = sqlx::query_scalar(
                "INSERT INTO knowledge_chunks (source_row, chunk_index, heading, text) VALUES (?, ?, ?, ?) RETURNING id",
            )
            .bind(row)
            .bind(i as i64)
            .bind(&c.heading)
            .bind(&c.text)
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

/// Every stored source version, newest first per source.
pub async fn list(pool: &SqlitePool) -> Result<Vec<SourceInfo>> {
    let at = now();
    let rows = sqlx::query(
        "SELECT s.*, (SELECT COUNT(*) FROM knowledge_chunks c WHERE c.source_row = s.id) AS chunk_count
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
            }
        })
        .collect())
}

const SEARCH_SQL: &str = "
SELECT c.chunk_index, c.heading, c.text, s.source_id, s.version, s.title, s.doc_type,
       s.source_type, s.language, s.clarifying_questions, s.requires_handoff,
       bm25(knowledge_fts, 4.0, 2.0, 1.0) AS score
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
    #[error("at_time: {0:?} is not a date (YYYY-MM-DD) or an RFC 3339 time")]
    BadTime(String),
    #[error("top_k: {0} is more than {MAX_TOP_K}")]
    TopK(usize),
    #[error(transparent)]
    Sql(#[from] sqlx::Error),
}

/// Ranked chunks for a query: BM25 over the index forms, filtered in SQL,
/// then kept only where enough of the query's words occur (so "lasagna
/// recipe" does not return the one chunk that says "recipe").
pub async fn search(
    pool: &SqlitePool,
    q: &SearchQuery,
) -> std::result::Result<Vec<SearchHit>, SearchError> {
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
    let Some((expr, exact)) = text::match_plan(&terms) else {
        return Ok(Vec::new());
    };
    // An exact expression already holds only qualifying chunks; otherwise
    // fetch extra candidates for the check below.
    let limit = if exact { top_k } else { (top_k * 8).max(40) };
    let source_ids = (!q.source_ids.is_empty())
        .then(|| serde_json::to_string(&q.source_ids).unwrap_or_default());
    let upper = |s: &Option<String>| s.as_ref().map(|v| v.trim().to_ascii_uppercase());
    let rows = sqlx::query(SEARCH_SQL)
        .bind(&expr)
        .bind(&q.doc_type)
        .bind(&q.source_type)
        .bind(upper(&q.city_code))
        .bind(upper(&q.lot_code))
        .bind(&q.language)
        .bind(source_ids)
        .bind(q.include_inactive)
        .bind(&at)
        .bind(limit as i64)
        .fetch_all(pool)
        .await?;
    let required = text::required_matches(&terms);
    let mut hits = Vec::with_capacity(top_k);
    for r in rows {
        let heading: String = r.get("heading");
        let body: String = r.get("text");
        let title: String = r.get("title");
        let language: String = r.get("language");
        let questions: BTreeMap<String, Vec<String>> =
            serde_json::from_str(r.get::<&str, _>("clarifying_questions")).unwrap_or_default();
        if !exact {
            let asked: Vec<&str> = questions.values().flatten().map(String::as_str).collect();
            let tokens = text::token_set(
                &format!("{title}\n{}\n{heading}\n{body}", asked.join("\n")),
                &language,
            );
            if text::matched_terms(&terms, &tokens) < required {
                continue;
            }
        }
        let source_id: String = r.get("source_id");
        let version = r.get::<i64, _>("version") as u32;
        let index: i64 = r.get("chunk_index");
        hits.push(SearchHit {
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
            score: -r.get::<f64, _>("score"),
            text: body,
        });
        if hits.len() == top_k {
            break;
        }
    }
    Ok(hits)
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
        "SELECT c.chunk_index, c.heading, c.text, s.source_id, s.version, s.title, s.doc_type,
                s.source_type, s.language
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
        "SELECT c.chunk_index, c.heading, c.text, s.source_id, s.version, s.title, s.doc_type,
                s.source_type, s.language
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
        text,
        clarifying_questions: BTreeMap::new(),
        requires_handoff: false,
    }
}
