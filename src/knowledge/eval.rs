//! The evaluation harness (`servicedesk eval knowledge`): replays a dataset
//! of queries with their expected sources through search and answer, and
//! measures what a user would notice:
//!
//! - **hit rate@k**: of the queries that have an answer, the share whose
//!   top k results hold an expected source (at the expected version, when
//!   one is given);
//! - **citation coverage**: of the answers given, the share whose every
//!   key point cites a chunk that retrieval returned;
//! - **empty-retrieval rate** on negatives: the share of questions nothing
//!   covers that get no result at all (and so an honest "nothing found");
//! - **answer consistency**: the share of queries whose answer is the same
//!   when asked twice *and* agrees with the expectation (cites an expected
//!   source; says nothing was found for a negative; carries the clarifying
//!   questions of a clarification document).

use super::answer::{self, Answer};
use super::index::{self, SearchQuery};
use super::text;
use serde::{Deserialize, Serialize};
use sqlx::SqlitePool;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Case {
    pub id: String,
    pub kind: String,
    pub query: String,
    #[serde(default)]
    pub filters: Filters,
    #[serde(default)]
    pub expect_sources: Vec<String>,
    #[serde(default)]
    pub expect_version: Option<u32>,
    #[serde(default)]
    pub expect_clarification: Option<bool>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Filters {
    pub doc_type: Option<String>,
    pub source_type: Option<String>,
    pub city_code: Option<String>,
    pub lot_code: Option<String>,
    pub at_time: Option<String>,
    pub language: Option<String>,
    #[serde(default)]
    pub source_ids: Vec<String>,
    #[serde(default)]
    pub include_inactive: bool,
}

#[derive(Debug, Clone, Serialize)]
pub struct Failure {
    pub id: String,
    pub kind: String,
    pub query: String,
    pub problem: String,
    pub got: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Metrics {
    pub cases: usize,
    pub k: usize,
    pub hit_rate_at_k: f64,
    pub citation_coverage: f64,
    pub empty_retrieval_rate: f64,
    pub answer_consistency: f64,
    /// Positives that got nothing at all (reported, not a threshold).
    pub positive_empty_rate: f64,
    pub by_kind: std::collections::BTreeMap<String, usize>,
    pub failures: Vec<Failure>,
}

/// Reads a JSONL dataset; an unreadable line names its number.
pub fn parse_dataset(text: &str) -> Result<Vec<Case>, String> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let case: Case = serde_json::from_str(line).map_err(|e| format!("line {}: {e}", i + 1))?;
        out.push(case);
    }
    if out.is_empty() {
        return Err("the dataset has no cases".into());
    }
    Ok(out)
}

fn ratio(n: usize, d: usize) -> f64 {
    if d == 0 {
        1.0
    } else {
        n as f64 / d as f64
    }
}

async fn ask(
    pool: &SqlitePool,
    q: &SearchQuery,
) -> Result<(Vec<index::SearchHit>, Answer), index::SearchError> {
    let retrieval = index::retrieve(pool, q).await?;
    let terms = text::query_terms(&q.query, q.asker_language.as_deref());
    let lang = q.asker_language.as_deref().unwrap_or("en");
    let answer = answer::from_retrieval(&terms, &retrieval, lang);
    Ok((retrieval.hits, answer))
}

pub async fn run(
    pool: &SqlitePool,
    cases: &[Case],
    k: usize,
) -> Result<Metrics, index::SearchError> {
    let mut hit = (0, 0);
    let mut cited = (0, 0);
    let mut empty = (0, 0);
    let mut consistent = 0;
    let mut positive_empty = 0;
    let mut failures = Vec::new();
    let mut by_kind = std::collections::BTreeMap::new();
    for c in cases {
        *by_kind.entry(c.kind.clone()).or_insert(0) += 1;
        let q = SearchQuery {
            query: c.query.clone(),
            doc_type: c.filters.doc_type.clone(),
            source_type: c.filters.source_type.clone(),
            city_code: c.filters.city_code.clone(),
            lot_code: c.filters.lot_code.clone(),
            at_time: c.filters.at_time.clone(),
            source_ids: c.filters.source_ids.clone(),
            language: c.filters.language.clone(),
            include_inactive: c.filters.include_inactive,
            top_k: k,
            asker_language: crate::engine::lexicon::detect_language(&c.query).map(str::to_string),
        };
        let (hits, answer) = ask(pool, &q).await?;
        let (_, again) = ask(pool, &q).await?;
        let got: Vec<String> = hits.iter().map(|h| h.chunk_id.clone()).collect();
        let mut fail = |problem: String| {
            failures.push(Failure {
                id: c.id.clone(),
                kind: c.kind.clone(),
                query: c.query.clone(),
                problem,
                got: got.clone(),
            })
        };
        let expected = |h: &index::SearchHit| {
            c.expect_sources.contains(&h.source_id)
                && c.expect_version.is_none_or(|v| v == h.version)
        };
        let negative = c.expect_sources.is_empty();
        let mut agrees = answer == again;
        if negative {
            empty.1 += 1;
            if hits.is_empty() {
                empty.0 += 1;
            } else {
                fail("a negative query retrieved something".into());
            }
            agrees &= !answer.found();
        } else {
            hit.1 += 1;
            if hits.iter().any(expected) {
                hit.0 += 1;
            } else {
                fail(format!("no expected source in the top {k}"));
            }
            if hits.is_empty() {
                positive_empty += 1;
            }
            if answer.found() {
                cited.1 += 1;
                let all_cited = answer.key_points.iter().all(|p| {
                    answer
                        .citations
                        .get(p.citation)
                        .is_some_and(|ci| got.contains(&ci.chunk_id))
                }) && answer.citations.iter().all(|ci| got.contains(&ci.chunk_id));
                if all_cited {
                    cited.0 += 1;
                } else {
                    fail("an answer statement without a retrieved citation".into());
                }
            }
            agrees &= answer
                .citations
                .first()
                .is_some_and(|ci| c.expect_sources.contains(&ci.source_id));
            if let Some(want) = c.expect_clarification {
                agrees &= want != answer.clarifying_questions.is_empty();
            }
        }
        if agrees {
            consistent += 1;
        } else if !negative {
            fail("the answer does not agree with the expectation (first citation, clarification) or differs between runs".into());
        }
    }
    Ok(Metrics {
        cases: cases.len(),
        k,
        hit_rate_at_k: ratio(hit.0, hit.1),
        citation_coverage: ratio(cited.0, cited.1),
        empty_retrieval_rate: ratio(empty.0, empty.1),
        answer_consistency: ratio(consistent, cases.len()),
        positive_empty_rate: ratio(positive_empty, hit.1.max(1)),
        by_kind,
        failures,
    })
}
