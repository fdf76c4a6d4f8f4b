//! Knowledge commands on the wire: search, sources, ingest and ask. The
//! same shapes the CLI prints with `--json` (see `../shared/spec/knowledge.md`).

use serde::{Deserialize, Serialize};

use super::AppError;
use crate::desk::Desk;
use crate::knowledge::{
    self, answer, index, text, Answer, IngestReport, SearchHit, SearchQuery, SourceInfo,
};

#[derive(Debug, Serialize)]
pub struct SearchResults {
    pub results: Vec<SearchHit>,
}

#[derive(Debug, Serialize)]
pub struct Sources {
    pub sources: Vec<SourceInfo>,
}

/// Files to import, as the app's drag and drop sends them: a name (its
/// extension picks Markdown or JSONL) and the UTF-8 content.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IngestRequest {
    pub files: Vec<IngestFile>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IngestFile {
    pub name: String,
    pub content: String,
}

#[derive(Debug, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct AskRequest {
    pub question: String,
    /// The asker's language; detected from the question when absent.
    #[serde(default)]
    pub language: Option<String>,
    #[serde(default)]
    pub filters: Option<SearchQuery>,
}

fn search_error(e: index::SearchError) -> AppError {
    match e {
        index::SearchError::Sql(e) => AppError::new("storage", format!("database error: {e}")),
        other => AppError::new("invalid_input", other.to_string()),
    }
}

fn storage(e: sqlx::Error) -> AppError {
    AppError::new("storage", format!("database error: {e}"))
}

pub async fn knowledge_search(
    desk: &Desk,
    mut req: SearchQuery,
) -> Result<SearchResults, AppError> {
    if req.asker_language.is_none() {
        req.asker_language =
            crate::engine::lexicon::detect_language(&req.query).map(str::to_string);
    }
    let results = index::search(desk.store().pool(), &req)
        .await
        .map_err(search_error)?;
    Ok(SearchResults { results })
}

pub async fn knowledge_sources(desk: &Desk) -> Result<Sources, AppError> {
    Ok(Sources {
        sources: index::list(desk.store().pool()).await.map_err(storage)?,
    })
}

/// Imports what parses; the report lists every file that did not, with its
/// line and field.
pub async fn knowledge_ingest(desk: &Desk, req: IngestRequest) -> Result<IngestReport, AppError> {
    if req.files.is_empty() {
        return Err(AppError::new("invalid_input", "files: nothing to import"));
    }
    let mut docs = Vec::new();
    let mut errors = Vec::new();
    for f in req.files {
        let (d, e) = knowledge::document::load_bytes(&f.name, f.content.as_bytes());
        docs.extend(d);
        errors.extend(e);
    }
    index::ingest(desk.store().pool(), docs, errors)
        .await
        .map_err(storage)
}

pub async fn knowledge_ingest_paths(
    desk: &Desk,
    paths: &[std::path::PathBuf],
) -> Result<IngestReport, AppError> {
    // Reading files is blocking I/O: off the async workers.
    let owned = paths.to_vec();
    let (docs, errors) =
        tokio::task::spawn_blocking(move || knowledge::document::load_paths(&owned))
            .await
            .map_err(|e| AppError::new("internal", format!("background task failed: {e}")))?;
    index::ingest(desk.store().pool(), docs, errors)
        .await
        .map_err(storage)
}

/// A one-shot cited answer (no session, no clarification loop: a document's
/// clarifying questions come back in the answer for the caller to ask).
pub async fn knowledge_ask(desk: &Desk, req: AskRequest) -> Result<Answer, AppError> {
    if req.question.trim().is_empty() {
        return Err(AppError::new(
            "invalid_input",
            "question: must not be empty",
        ));
    }
    let lang = req
        .language
        .clone()
        .or_else(|| crate::engine::lexicon::detect_language(&req.question).map(str::to_string))
        .unwrap_or_else(|| "en".into());
    let mut q = req.filters.unwrap_or_default();
    q.query = req.question.clone();
    q.asker_language = Some(lang.clone());
    let hits = index::search(desk.store().pool(), &q)
        .await
        .map_err(search_error)?;
    let terms = text::query_terms(&req.question, Some(&lang));
    Ok(answer::compose(&terms, &hits, &lang))
}
