//! The wire format shared by the Tauri shell, the HTTP server and the CLI:
//! request/response types, the one `AppError { code, message }`, and
//! `dispatch(command, json)`. Front ends hold no logic of their own; they
//! call `dispatch` (or the typed functions it wraps).

pub mod billing;
mod error;
pub mod knowledge;
pub mod reports;
pub mod sync;

pub use reports::{report_export, ReportExportRequest};

use std::path::PathBuf;

use base64::Engine as _;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use error::AppError;

use crate::desk::{Desk, SessionDetail, VerifyReport};
use crate::engine::TurnOutcome;
use crate::store::{Artifact, NewSession, Session, SessionFilter, SessionStatus, Unit};

pub const EXPORT_FORMAT: &str = "servicedesk.session.v1";

/// The commands `dispatch` knows, for error messages and for the UI.
pub const COMMANDS: &[&str] = &[
    "app_info",
    "session_new",
    "session_list",
    "session_show",
    "session_export",
    "session_delete",
    "artifact_add",
    "artifact_upload",
    "artifact_list",
    "artifact_verify",
    "artifact_content",
    "chat_turn",
    "report_list",
    "report_export",
    "report_finalize",
    "reports_export_start",
    "reports_export_status",
    "session_context",
    "knowledge_search",
    "knowledge_sources",
    "knowledge_ingest",
    "knowledge_ask",
    "billing_simulate",
    "billing_rules",
    "billing_rules_import",
    "billing_orders",
    "billing_orders_import",
    "billing_arrears",
    "billing_verify",
    "billing_seed_demo",
    "sync_status",
    "sync_retry",
    "portal_settings",
];

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Empty {}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct AppInfo {
    pub name: String,
    pub version: String,
    pub data_dir: String,
    pub schema_version: i64,
    pub sessions: usize,
    pub artifacts: usize,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionNewRequest {
    pub complaint: String,
    pub customer: Option<String>,
    pub technician: Option<String>,
    pub language: Option<String>,
    pub vin: Option<String>,
    pub plate: Option<String>,
    pub make_model: Option<String>,
    pub odometer: Option<i64>,
    pub engine_hours: Option<f64>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionListRequest {
    pub query: Option<String>,
    pub status: Option<SessionStatus>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SessionList {
    pub sessions: Vec<SessionListItem>,
}

/// A session as the sidebar lists it: the stored session plus where it
/// stands for the people in the shop.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SessionListItem {
    #[serde(flatten)]
    pub session: Session,
    /// open | report_ready (a finding, no report yet) | escalated |
    /// finalized | synced (the newest report revision is on the portal)
    pub stage: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionRef {
    pub session_id: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct SessionExport {
    pub format: &'static str,
    #[serde(flatten)]
    pub detail: SessionDetail,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SessionDeleteRequest {
    pub session_id: String,
    #[serde(default)]
    pub purge: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SessionDeleted {
    pub deleted: bool,
    pub purged_artifacts: usize,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArtifactAddRequest {
    pub session_id: String,
    pub path: PathBuf,
    pub caption: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArtifactUploadRequest {
    pub session_id: String,
    pub file_name: String,
    pub content_base64: String,
    pub caption: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ArtifactList {
    pub artifacts: Vec<Artifact>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArtifactVerifyRequest {
    pub session_id: Option<String>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArtifactContentRequest {
    pub artifact_id: String,
    #[serde(default)]
    pub thumbnail: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ArtifactContent {
    pub mime: String,
    pub content_base64: String,
}

// ---- typed operations: what dispatch calls, and what the CLI calls directly ----

pub async fn app_info(desk: &Desk) -> Result<AppInfo, AppError> {
    let (schema_version, sessions, artifacts) = desk.store_summary().await?;
    Ok(AppInfo {
        name: "RV Service Desk".to_owned(),
        version: env!("CARGO_PKG_VERSION").to_owned(),
        data_dir: desk.data_dir().display().to_string(),
        schema_version,
        sessions,
        artifacts,
    })
}

pub async fn session_new(desk: &Desk, req: SessionNewRequest) -> Result<Session, AppError> {
    let blank_to_none =
        |v: Option<String>| v.map(|s| s.trim().to_owned()).filter(|s| !s.is_empty());
    Ok(desk
        .new_session(NewSession {
            complaint: req.complaint,
            customer: blank_to_none(req.customer),
            technician: blank_to_none(req.technician),
            language: blank_to_none(req.language),
            unit: Unit {
                vin: blank_to_none(req.vin).map(|v| v.to_uppercase()),
                plate: blank_to_none(req.plate).map(|p| p.to_uppercase()),
                make_model: blank_to_none(req.make_model),
                odometer: req.odometer,
                engine_hours: req.engine_hours,
            },
        })
        .await?)
}

pub async fn session_list(desk: &Desk, req: SessionListRequest) -> Result<SessionList, AppError> {
    let sessions = desk
        .sessions(&SessionFilter {
            query: req.query,
            status: req.status,
        })
        .await?;
    let mut stages = desk.session_stages(&sessions).await?;
    Ok(SessionList {
        sessions: sessions
            .into_iter()
            .map(|session| {
                let (ready, report_sync) = stages.remove(&session.id).unwrap_or((false, None));
                let stage = match session.status {
                    SessionStatus::Finalized if report_sync.as_deref() == Some("done") => "synced",
                    SessionStatus::Open if ready => "report_ready",
                    other => other.as_str(),
                };
                SessionListItem {
                    stage: stage.to_string(),
                    session,
                }
            })
            .collect(),
    })
}

pub async fn session_show(desk: &Desk, req: SessionRef) -> Result<SessionDetail, AppError> {
    Ok(desk.session_detail(&req.session_id).await?)
}

pub async fn session_export(desk: &Desk, req: SessionRef) -> Result<SessionExport, AppError> {
    Ok(SessionExport {
        format: EXPORT_FORMAT,
        detail: desk.session_detail(&req.session_id).await?,
    })
}

pub async fn session_delete(
    desk: &Desk,
    req: SessionDeleteRequest,
) -> Result<SessionDeleted, AppError> {
    let purged_artifacts = desk.delete_session(&req.session_id, req.purge).await?;
    Ok(SessionDeleted {
        deleted: true,
        purged_artifacts,
    })
}

pub async fn artifact_add(desk: &Desk, req: ArtifactAddRequest) -> Result<Artifact, AppError> {
    Ok(desk
        .add_artifact_path(&req.session_id, &req.path, req.caption)
        .await?)
}

pub async fn artifact_upload(
    desk: &Desk,
    req: ArtifactUploadRequest,
) -> Result<Artifact, AppError> {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(req.content_base64.trim())
        .map_err(|e| {
            AppError::new(
                "invalid_input",
                format!(
                    "content_base64 of {:?} is not valid base64: {e}",
                    req.file_name
                ),
            )
        })?;
    Ok(desk
        .add_artifact_bytes(&req.session_id, &req.file_name, bytes, req.caption)
        .await?)
}

pub async fn artifact_list(desk: &Desk, req: SessionRef) -> Result<ArtifactList, AppError> {
    Ok(ArtifactList {
        artifacts: desk.session_artifacts(&req.session_id).await?,
    })
}

pub async fn artifact_verify(
    desk: &Desk,
    req: ArtifactVerifyRequest,
) -> Result<VerifyReport, AppError> {
    Ok(desk.verify_artifacts(req.session_id.as_deref()).await?)
}

pub async fn artifact_content(
    desk: &Desk,
    req: ArtifactContentRequest,
) -> Result<ArtifactContent, AppError> {
    let (mime, bytes) = desk
        .artifact_content(&req.artifact_id, req.thumbnail)
        .await?;
    Ok(ArtifactContent {
        mime,
        content_base64: base64::engine::general_purpose::STANDARD.encode(bytes),
    })
}

// ---- dispatch: JSON in, JSON out ----

fn parse<T: DeserializeOwned>(command: &str, payload: Value) -> Result<T, AppError> {
    // A missing body means "no arguments".
    let payload = if payload.is_null() {
        Value::Object(Default::default())
    } else {
        payload
    };
    serde_json::from_value(payload)
        .map_err(|e| AppError::new("invalid_input", format!("{command}: {e}")))
}

fn reply<T: Serialize>(value: T) -> Result<Value, AppError> {
    serde_json::to_value(value).map_err(|e| AppError::new("internal", e.to_string()))
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Attachment {
    pub file_name: String,
    pub content_base64: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChatTurnRequest {
    pub session_id: String,
    pub text: String,
    #[serde(default)]
    pub attachments: Vec<Attachment>,
}

#[derive(Debug, Serialize)]
pub struct ReportRevision {
    pub revision: u32,
    pub language: String,
    pub format: &'static str,
    pub body: String,
    pub created_at: String,
}

#[derive(Debug, Serialize)]
pub struct ReportList {
    pub reports: Vec<ReportRevision>,
}

/// The transcript contract of `shared/spec/conversation.md`: one object per
/// turn, the same for `servicedesk chat --json`, HTTP and IPC.
pub fn transcript_turn(session_id: &str, seq: i64, o: &TurnOutcome) -> Value {
    let st = &o.state;
    let labor_hours = st
        .labor
        .confirmed_hours
        .clone()
        .or_else(|| st.labor.estimated_hours.clone());
    serde_json::json!({
        "turn": seq,
        "session_id": session_id,
        "language": st.language,
        "intent": o.intent,
        "transition": o.transition.name(),
        "mode": st.mode,
        "submode": st.submode,
        "system": st.active_procedure,
        "active_step": st.active_step,
        "completed_steps": st.completed_steps,
        "topic_stack": st.topic_stack.iter().map(|t| serde_json::json!({
            "topic": t.topic, "submode": t.submode, "return_step": t.return_step,
        })).collect::<Vec<_>>(),
        "isolation": st.isolation,
        "labor": {"mode": st.labor.status, "hours": labor_hours},
        "reply": o.reply,
        "escalated": st.escalation.escalated,
        "facts": st.facts.iter().filter(|f| f.is_current()).filter_map(|f| f.name.clone()).collect::<Vec<_>>(),
        "new_facts": o.new_facts.iter().map(|f| serde_json::json!({
            "id": f.id, "name": f.name, "subject": f.subject, "value": f.value, "unit": f.unit, "text": f.text,
        })).collect::<Vec<_>>(),
        "superseded": o.superseded.iter().map(|(a, b)| serde_json::json!({"fact": a, "by": b})).collect::<Vec<_>>(),
        "report_revision": o.report.as_ref().map(|r| r.0),
        "trace": o.trace.join("; "),
    })
}

pub async fn chat_turn(desk: &Desk, req: ChatTurnRequest) -> Result<Value, AppError> {
    let mut files = Vec::with_capacity(req.attachments.len());
    for a in req.attachments {
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(a.content_base64.as_bytes())
            .map_err(|e| {
                AppError::new(
                    "invalid_input",
                    format!(
                        "attachment {}: content_base64 is not base64: {e}",
                        a.file_name
                    ),
                )
            })?;
        files.push((a.file_name, bytes));
    }
    let (recorded, outcome) = desk.chat_turn(&req.session_id, &req.text, files).await?;
    Ok(transcript_turn(
        &req.session_id,
        recorded.turn.seq,
        &outcome,
    ))
}

pub async fn report_list(desk: &Desk, req: SessionRef) -> Result<ReportList, AppError> {
    let reports = desk
        .reports(&req.session_id)
        .await?
        .into_iter()
        .map(|(revision, language, body, created_at)| ReportRevision {
            revision,
            language,
            format: "markdown",
            body,
            created_at,
        })
        .collect();
    Ok(ReportList { reports })
}

#[derive(Debug, Serialize)]
pub struct LastTransition {
    pub id: String,
    pub why: String,
}

#[derive(Debug, Serialize)]
pub struct ReportRef {
    pub revision: u32,
    pub created_at: String,
    /// The revision's delivery to the portal.
    pub sync: crate::reports::ReportSync,
}

/// `session_context`: the engine's view of the session plus what the store knows.
#[derive(Debug, Serialize)]
pub struct SessionContext {
    pub session_id: String,
    #[serde(flatten)]
    pub view: crate::engine::view::SessionView,
    pub last_transition: Option<LastTransition>,
    pub reports: Vec<ReportRef>,
}

/// Where a session stands, for the app's context panel.
pub async fn session_context(desk: &Desk, req: SessionRef) -> Result<SessionContext, AppError> {
    let (view, last, reports) = desk.session_context(&req.session_id).await?;
    let mut sync = desk.report_sync(&req.session_id).await?;
    let last_transition = last.and_then(|t| {
        // A chat turn's trace keeps the reasons as a list.
        let why = match &t.trace["why"] {
            Value::Array(parts) => parts
                .iter()
                .filter_map(Value::as_str)
                .collect::<Vec<_>>()
                .join("; "),
            other => other.as_str().unwrap_or_default().to_string(),
        };
        t.transition.map(|id| LastTransition { id, why })
    });
    Ok(SessionContext {
        session_id: req.session_id,
        view,
        last_transition,
        reports: reports
            .into_iter()
            .map(|(revision, created_at)| ReportRef {
                revision,
                created_at,
                sync: sync
                    .remove(&revision)
                    .unwrap_or_else(|| crate::reports::ReportSync {
                        state: "not_queued".into(),
                        reason: None,
                    }),
            })
            .collect(),
    })
}

/// Why a command would read or write a file on the machine running the api
/// by a path its caller names, if it would. Such commands are for the CLI
/// only: over HTTP, uploads are bytes (`artifact_upload`) and exports are
/// downloads (`download_url`).
pub fn names_server_path(command: &str, payload: &Value) -> Option<String> {
    match command {
        "artifact_add" => Some(
            "artifact_add reads a file on the server by its path, which only the command line may do; \
             send the file's bytes with artifact_upload"
                .into(),
        ),
        "reports_export_start" if payload.get("out_dir").is_some_and(|v| !v.is_null()) => Some(
            "reports_export_start.out_dir names a folder on the server, which only the command line may do; \
             leave it out and download the file from the job's download_url"
                .into(),
        ),
        _ => None,
    }
}

/// Run one command with its JSON payload. Unknown commands and payloads that
/// do not fit the command are errors that name what was wrong.
pub async fn dispatch(desk: &Desk, command: &str, payload: Value) -> Result<Value, AppError> {
    match command {
        "app_info" => {
            parse::<Empty>(command, payload)?;
            reply(app_info(desk).await?)
        }
        "session_new" => reply(session_new(desk, parse(command, payload)?).await?),
        "session_list" => reply(session_list(desk, parse(command, payload)?).await?),
        "session_show" => reply(session_show(desk, parse(command, payload)?).await?),
        "session_export" => reply(session_export(desk, parse(command, payload)?).await?),
        "session_delete" => reply(session_delete(desk, parse(command, payload)?).await?),
        "artifact_add" => reply(artifact_add(desk, parse(command, payload)?).await?),
        "artifact_upload" => reply(artifact_upload(desk, parse(command, payload)?).await?),
        "artifact_list" => reply(artifact_list(desk, parse(command, payload)?).await?),
        "artifact_verify" => reply(artifact_verify(desk, parse(command, payload)?).await?),
        "artifact_content" => reply(artifact_content(desk, parse(command, payload)?).await?),
        "chat_turn" => chat_turn(desk, parse(command, payload)?).await,
        "report_list" => reply(report_list(desk, parse(command, payload)?).await?),
        "report_export" => reply(report_export(desk, parse(command, payload)?).await?),
        "report_finalize" => reply(reports::report_finalize(desk, parse(command, payload)?).await?),
        "reports_export_start" => {
            reply(reports::reports_export_start(desk, parse(command, payload)?).await?)
        }
        "reports_export_status" => {
            reply(reports::reports_export_status(parse(command, payload)?).await?)
        }
        "knowledge_search" => {
            reply(knowledge::knowledge_search(desk, parse(command, payload)?).await?)
        }
        "knowledge_sources" => {
            let Empty {} = parse(command, payload)?;
            reply(knowledge::knowledge_sources(desk).await?)
        }
        "knowledge_ingest" => {
            reply(knowledge::knowledge_ingest(desk, parse(command, payload)?).await?)
        }
        "knowledge_ask" => reply(knowledge::knowledge_ask(desk, parse(command, payload)?).await?),
        "session_context" => reply(session_context(desk, parse(command, payload)?).await?),
        "billing_simulate" => {
            reply(billing::billing_simulate(desk, parse(command, payload)?).await?)
        }
        "billing_rules" => {
            let Empty {} = parse(command, payload)?;
            reply(billing::billing_rules(desk).await?)
        }
        "billing_rules_import" => {
            reply(billing::billing_rules_import(desk, parse(command, payload)?).await?)
        }
        "billing_orders" => reply(billing::billing_orders(desk, parse(command, payload)?).await?),
        "billing_orders_import" => {
            reply(billing::billing_orders_import(desk, parse(command, payload)?).await?)
        }
        "billing_arrears" => reply(billing::billing_arrears(desk, parse(command, payload)?).await?),
        "billing_verify" => reply(billing::billing_verify(desk, parse(command, payload)?).await?),
        "billing_seed_demo" => {
            let Empty {} = parse(command, payload)?;
            reply(billing::billing_seed_demo(desk).await?)
        }
        "sync_status" => {
            let Empty {} = parse(command, payload)?;
            reply(sync::sync_status(desk).await?)
        }
        "sync_retry" => reply(sync::sync_retry(desk, parse(command, payload)?).await?),
        "portal_settings" => reply(sync::portal_settings(desk, parse(command, payload)?).await?),
        other => Err(AppError::new(
            "unknown_command",
            format!("unknown command {other:?}; known: {}", COMMANDS.join(", ")),
        )),
    }
}
