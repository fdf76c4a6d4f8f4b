//! Knowledge commands on the wire: search, sources, ingest and ask. The
//! same shapes the CLI prints with `--json` (see `docs/spec/knowledge.md`).

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::AppError;
use crate::desk::Desk;
use crate::knowledge::{
    self, answer, index, text, Answer, IngestReport, SearchHit, SearchQuery, SourceInfo,
};

#[derive(Debug, Serialize, TS)]
pub struct SearchResults {
    pub results: Vec<SearchHit>,
}

#[derive(Debug, Serialize, TS)]
pub struct Sources {
    pub sources: Vec<SourceInfo>,
}

/// Files to import, as the app's drag and drop sends them: a name (its
/// extension picks Markdown or JSONL) and the UTF-8 content, or a PDF's
/// bytes in base64.
#[derive(Debug, Deserialize, TS)]
#[ts(optional_fields = nullable)]
#[serde(deny_unknown_fields)]
pub struct IngestRequest {
    pub files: Vec<IngestFile>,
}

#[derive(Debug, Deserialize, TS)]
#[ts(optional_fields = nullable)]
#[serde(deny_unknown_fields)]
pub struct IngestFile {
    pub name: String,
    /// A text document's content.
    #[serde(default)]
    #[ts(optional = nullable)]
    pub content: String,
    /// A PDF's bytes, base64 (standard alphabet); `content` is then empty.
    #[serde(default)]
    #[ts(optional = nullable)]
    pub content_base64: Option<String>,
}

/// Which imported file to show: a citation's source and version, and the
/// cited chunk (`source@vN#i`) when the page to open is the one it is on.
#[derive(Debug, Deserialize, TS)]
#[serde(deny_unknown_fields)]
pub struct SourceFileRequest {
    pub source_id: String,
    pub version: u32,
    #[serde(default)]
    #[ts(optional = nullable)]
    pub chunk_id: Option<String>,
}

#[derive(Debug, Deserialize, Default, TS)]
#[ts(optional_fields = nullable)]
#[serde(deny_unknown_fields)]
pub struct AskRequest {
    pub question: String,
    /// The asker's language; detected from the question when absent.
    #[serde(default)]
    #[ts(optional = nullable)]
    pub language: Option<String>,
    #[serde(default)]
    #[ts(optional = nullable)]
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

/// A validity time as people type it (`crate::when`), passed on in UTC.
fn typed_time(q: &mut SearchQuery) -> Result<(), AppError> {
    if let Some(at) = q.at_time.take() {
        q.at_time = Some(
            crate::when::to_utc_rfc3339("at_time", &at)
                .map_err(|e| AppError::new("invalid_input", e.to_string()))?,
        );
    }
    Ok(())
}

pub async fn knowledge_search(
    desk: &Desk,
    mut req: SearchQuery,
) -> Result<SearchResults, AppError> {
    if req.asker_language.is_none() {
        req.asker_language =
            crate::engine::lexicon::detect_language(&req.query).map(str::to_string);
    }
    typed_time(&mut req)?;
    let results = desk.knowledge_search(&req).await.map_err(search_error)?;
    Ok(SearchResults { results })
}

pub async fn knowledge_sources(desk: &Desk) -> Result<Sources, AppError> {
    Ok(Sources {
        sources: desk.knowledge_sources().await.map_err(storage)?,
    })
}

/// The file a cited source was imported from (a PDF the app opens at the
/// cited page). A text document has none: its chunks are the document.
pub async fn knowledge_source_file(
    desk: &Desk,
    req: SourceFileRequest,
) -> Result<index::SourceFile, AppError> {
    let mut file = desk
        .knowledge_source_file(&req.source_id, req.version)
        .await
        .map_err(storage)?
        .ok_or_else(|| {
            AppError::new(
                "not_found",
                format!(
                    "{} version {}: no imported file (only PDFs are kept as files)",
                    req.source_id, req.version
                ),
            )
        })?;
    if let Some(chunk_id) = &req.chunk_id {
        let not_its = || {
            AppError::new(
                "invalid_input",
                format!(
                    "chunk_id: {chunk_id:?} is not a chunk of {}@v{}",
                    req.source_id, req.version
                ),
            )
        };
        let index = chunk_id
            .strip_prefix(&format!("{}@v{}#", req.source_id, req.version))
            .and_then(|i| i.parse::<i64>().ok())
            .ok_or_else(not_its)?;
        file.page = desk
            .knowledge_chunk_page(&req.source_id, req.version, index)
            .await
            .map_err(storage)?
            .ok_or_else(not_its)?;
    }
    Ok(file)
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
        let (d, e) = match &f.content_base64 {
            None => knowledge::document::load_bytes(&f.name, f.content.as_bytes()),
            Some(b64) => {
                use base64::Engine as _;
                match base64::engine::general_purpose::STANDARD.decode(b64.trim()) {
                    // Parsing a PDF is CPU work: off the async workers.
                    Ok(bytes) => {
                        let name = f.name.clone();
                        tokio::task::spawn_blocking(move || {
                            knowledge::document::load_bytes(&name, &bytes)
                        })
                        .await
                        .map_err(|e| {
                            AppError::new("internal", format!("background task failed: {e}"))
                        })?
                    }
                    Err(e) => (
                        Vec::new(),
                        vec![knowledge::document::DocError {
                            file: f.name.clone(),
                            line: 0,
                            field: Some("content_base64".into()),
                            message: format!("not valid base64: {e}"),
                        }],
                    ),
                }
            }
        };
        docs.extend(d);
        errors.extend(e);
    }
    let docs = refuse_reserved(docs, &mut errors);
    desk.knowledge_ingest(docs, errors).await.map_err(storage)
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
    let mut errors = errors;
    let docs = refuse_reserved(docs, &mut errors);
    desk.knowledge_ingest(docs, errors).await.map_err(storage)
}

/// Source ids the app generates itself: component notes from the
/// procedures and billing rule explanations. An import may not write them.
pub const RESERVED_PREFIXES: [&str; 2] = ["component.", "rule."];

/// Moves imported documents with a reserved source id to the errors,
/// naming the file and the `source_id` field.
fn refuse_reserved(
    docs: Vec<knowledge::document::Document>,
    errors: &mut Vec<knowledge::document::DocError>,
) -> Vec<knowledge::document::Document> {
    let (reserved, kept): (Vec<_>, Vec<_>) = docs.into_iter().partition(|d| {
        let id = d.source_id.to_lowercase();
        RESERVED_PREFIXES.iter().any(|p| id.starts_with(p))
    });
    for d in reserved {
        errors.push(knowledge::document::DocError {
            file: d.origin.clone(),
            line: 0,
            field: Some("source_id".into()),
            message: format!(
                "{:?} is reserved: ids starting with component. or rule. are generated by the app \
                 (component notes, billing rule explanations) and cannot be imported",
                d.source_id
            ),
        });
    }
    kept
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
    typed_time(&mut q)?;
    let retrieval = desk.knowledge_retrieve(&q).await.map_err(search_error)?;
    let terms = text::query_terms(&req.question, Some(&lang));
    Ok(answer::from_retrieval(&terms, &retrieval, &lang))
}
