//! Report commands: `report_export` (Markdown, JSON or PDF), `report_finalize`
//! (a new revision from the preview, with edits), and the manager's range
//! export as a background job (`reports_export_start`/`_status`).

use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, LazyLock, Mutex};
use ts_rs::TS;

use base64::Engine as _;
use serde::{Deserialize, Serialize};

use super::AppError;
use crate::desk::{Desk, DeskError};
use crate::reports::batch::{self, BatchOptions};
pub use crate::reports::ReportFormat;
use crate::reports::{ReportContent, ReportDocument};

#[derive(Debug, Clone, Deserialize, TS)]
#[ts(optional_fields = nullable)]
#[serde(deny_unknown_fields)]
pub struct ReportExportRequest {
    pub session_id: String,
    /// The revision to export; the newest when absent.
    #[serde(default)]
    #[ts(optional = nullable)]
    pub revision: Option<u32>,
    /// Markdown when absent. Read leniently (`md`, any case, blanks around),
    /// so it stays text here and an unknown one is named in the error.
    #[serde(default)]
    #[ts(optional = nullable, as = "Option<ReportFormat>")]
    pub format: Option<String>,
}

/// How an export's `content` carries its bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum ContentEncoding {
    /// The text itself (Markdown, JSON).
    Utf8,
    /// Standard base64 of the bytes (PDF).
    Base64,
}

#[derive(Debug, Serialize, TS)]
pub struct ReportExport {
    pub revision: u32,
    pub file_name: String,
    pub format: ReportFormat,
    pub mime: &'static str,
    /// utf8 for Markdown and JSON, base64 for PDF.
    pub encoding: ContentEncoding,
    pub content: String,
}

fn not_found(e: DeskError) -> AppError {
    match e {
        DeskError::Invalid {
            field: "revision",
            message,
        } => AppError::new("not_found", message),
        other => other.into(),
    }
}

/// A finalized report revision as a document.
pub async fn report_export(
    desk: &Desk,
    req: ReportExportRequest,
) -> Result<ReportExport, AppError> {
    let named = req.format.as_deref().unwrap_or("markdown");
    let Some(format) = ReportFormat::parse(named) else {
        return Err(AppError::new(
            "invalid_input",
            format!(
                "format: {:?} is not one of markdown, json, pdf",
                named.trim().to_ascii_lowercase()
            ),
        ));
    };
    let ReportDocument {
        revision,
        file_name,
        content,
    } = desk
        .report_document(&req.session_id, req.revision, format)
        .await
        .map_err(not_found)?;
    let (encoding, content) = match content {
        ReportContent::Text(text) => (ContentEncoding::Utf8, text),
        ReportContent::Bytes(bytes) => (
            ContentEncoding::Base64,
            base64::engine::general_purpose::STANDARD.encode(bytes),
        ),
    };
    Ok(ReportExport {
        revision,
        file_name,
        format,
        mime: format.mime(),
        encoding,
        content,
    })
}

#[derive(Debug, Clone, Default, Deserialize, TS)]
#[ts(optional_fields = nullable)]
#[serde(deny_unknown_fields)]
pub struct TranslationEdits {
    pub complaint: Option<String>,
    pub cause: Option<String>,
    pub correction: Option<String>,
}

#[derive(Debug, Clone, Deserialize, TS)]
#[ts(optional_fields = nullable)]
#[serde(deny_unknown_fields)]
pub struct ReportFinalizeRequest {
    pub session_id: String,
    /// The English paragraphs, as the technician rewrote them.
    pub complaint: Option<String>,
    pub cause: Option<String>,
    pub correction: Option<String>,
    /// The translated paragraphs, when the session is not in English.
    #[serde(default)]
    #[ts(optional = nullable)]
    pub translation: TranslationEdits,
}

#[derive(Debug, Serialize, TS)]
pub struct ReportFinalized {
    pub revision: u32,
    pub created_at: crate::store::Timestamp,
    pub queued: bool,
    pub file_name: String,
}

/// The request's paragraphs, checked (the error names the field).
fn request_edits(
    req: ReportFinalizeRequest,
) -> Result<crate::engine::report::ReportEdits, AppError> {
    Ok(crate::reports::checked_edits(
        [
            ("complaint", req.complaint),
            ("cause", req.cause),
            ("correction", req.correction),
        ],
        [
            ("complaint", req.translation.complaint),
            ("cause", req.translation.cause),
            ("correction", req.translation.correction),
        ],
    )?)
}

/// Finalizes the report (with any last edits) as the next revision and
/// queues it for the portal; the session is read-only until reopened.
pub async fn report_finalize(
    desk: &Desk,
    req: ReportFinalizeRequest,
) -> Result<ReportFinalized, AppError> {
    let id = req.session_id.clone();
    let edits = request_edits(req)?;
    let done = desk.finalize_report(&id, edits).await?;
    let session = desk.session(&id).await?;
    Ok(ReportFinalized {
        revision: done.revision,
        created_at: done.created_at,
        queued: done.queued,
        file_name: crate::reports::report_file_name(&session, done.revision, ReportFormat::Pdf),
    })
}

/// Saves edits into the report draft (made when there is none): nothing is
/// queued. The same fields as a finalize.
pub async fn report_draft_save(
    desk: &Desk,
    req: ReportFinalizeRequest,
) -> Result<crate::reports::DraftSaved, AppError> {
    let id = req.session_id.clone();
    let edits = request_edits(req)?;
    Ok(desk.save_report_draft(&id, edits).await?)
}

#[derive(Debug, Clone, Deserialize, TS)]
#[ts(optional_fields = nullable)]
#[serde(deny_unknown_fields)]
pub struct ReportReopenRequest {
    pub session_id: String,
    /// Who reopens it, for the audit trail.
    pub by: Option<String>,
}

/// Reopens a finalized session (recorded in its audit trail).
pub async fn report_reopen(
    desk: &Desk,
    req: ReportReopenRequest,
) -> Result<crate::reports::Reopened, AppError> {
    let by = req
        .by
        .as_deref()
        .map(str::trim)
        .filter(|b| !b.is_empty())
        .map(str::to_owned);
    if let Some(b) = &by {
        let chars = b.chars().count();
        if chars > crate::desk::MAX_NAME_CHARS {
            return Err(AppError::new(
                "invalid_input",
                format!(
                    "by: is {chars} characters long; at most {}",
                    crate::desk::MAX_NAME_CHARS
                ),
            ));
        }
    }
    Ok(desk.reopen_report(&req.session_id, by.as_deref()).await?)
}

/// Where the session's report stands: draft, finalized, reopened.
pub async fn report_state(
    desk: &Desk,
    req: super::SessionRef,
) -> Result<crate::reports::ReportState, AppError> {
    Ok(desk.report_state(&req.session_id).await?)
}

#[derive(Debug, Clone, Deserialize, TS)]
#[ts(optional_fields = nullable)]
#[serde(deny_unknown_fields)]
pub struct ReportsExportRequest {
    /// First day, YYYY-MM-DD (the shop's calendar; included).
    pub from: String,
    /// Last day, YYYY-MM-DD (included).
    pub to: String,
    #[serde(default)]
    #[ts(optional = nullable)]
    pub technician: Option<String>,
    /// Where to write; `<data dir>/exports` when absent.
    #[serde(default)]
    #[ts(optional = nullable)]
    pub out_dir: Option<String>,
    /// A ZIP (default) or a folder of CSV + PDFs.
    #[serde(default)]
    #[ts(optional = nullable)]
    pub zip: Option<bool>,
}

/// Where a background export stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum JobState {
    Running,
    Done,
    Failed,
}

#[derive(Debug, Clone, Serialize, TS)]
pub struct ExportJob {
    pub job_id: String,
    pub state: JobState,
    pub done: usize,
    pub total: usize,
    pub file_name: Option<String>,
    pub path: Option<String>,
    /// Under `serve`: where the browser fetches the result (GET).
    pub download_url: Option<String>,
    pub error: Option<String>,
}

static JOBS: LazyLock<Mutex<HashMap<String, Arc<Mutex<ExportJob>>>>> =
    LazyLock::new(Default::default);

/// The folder exports go to when the request names none.
pub fn exports_dir(desk: &Desk) -> PathBuf {
    desk.data_dir().join("exports")
}

/// Starts the export in the background; poll `reports_export_status`.
pub async fn reports_export_start(
    desk: &Desk,
    req: ReportsExportRequest,
) -> Result<ExportJob, AppError> {
    let job_id = uuid::Uuid::now_v7().to_string();
    // Without an out_dir each job writes into its own folder under the
    // exports dir, so two exports of the same range never collide, and the
    // download URL names that folder.
    let in_exports_dir = req.out_dir.is_none();
    let out_dir = req
        .out_dir
        .map(PathBuf::from)
        .unwrap_or_else(|| exports_dir(desk).join(&job_id));
    let opts = BatchOptions::new(
        &req.from,
        &req.to,
        req.technician,
        out_dir,
        req.zip.unwrap_or(true),
    )?;
    let job = Arc::new(Mutex::new(ExportJob {
        job_id: job_id.clone(),
        state: JobState::Running,
        done: 0,
        total: 0,
        file_name: None,
        path: None,
        download_url: None,
        error: None,
    }));
    JOBS.lock()
        .map_err(|_| AppError::new("internal", "export jobs lock poisoned"))?
        .insert(job_id.clone(), job.clone());
    let desk = desk.clone();
    let progress_job = job.clone();
    tokio::spawn(async move {
        let result = batch::export_reports(&desk, &opts, |done, total| {
            if let Ok(mut j) = progress_job.lock() {
                j.done = done;
                j.total = total;
            }
        })
        .await;
        if let Ok(mut j) = job.lock() {
            match result {
                Ok(r) => {
                    j.state = JobState::Done;
                    // Only now, with the file renamed into place.
                    j.download_url = (in_exports_dir && opts.zip())
                        .then(|| format!("/exports/{}/{}", j.job_id, r.file_name));
                    j.file_name = Some(r.file_name);
                    j.path = Some(r.path);
                }
                Err(e) => {
                    j.state = JobState::Failed;
                    j.error = Some(e.to_string());
                }
            }
        }
    });
    let snapshot = JOBS.lock().ok().and_then(|jobs| {
        jobs.get(&job_id)
            .and_then(|j| j.lock().ok().map(|j| j.clone()))
    });
    snapshot.ok_or_else(|| AppError::new("internal", "the export job vanished"))
}

#[derive(Debug, Clone, Deserialize, TS)]
#[ts(optional_fields = nullable)]
#[serde(deny_unknown_fields)]
pub struct ExportJobRef {
    pub job_id: String,
}

pub async fn reports_export_status(req: ExportJobRef) -> Result<ExportJob, AppError> {
    let jobs = JOBS
        .lock()
        .map_err(|_| AppError::new("internal", "export jobs lock poisoned"))?;
    let job = jobs
        .get(req.job_id.trim())
        .ok_or_else(|| AppError::new("not_found", format!("no export job {}", req.job_id)))?;
    let snapshot = job
        .lock()
        .map_err(|_| AppError::new("internal", "export job lock poisoned"))?
        .clone();
    Ok(snapshot)
}
