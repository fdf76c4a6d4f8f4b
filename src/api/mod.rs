//! The wire format shared by the Tauri shell, the HTTP server and the CLI:
//! request/response types, the one `AppError { code, message }`, and
//! `dispatch(command, json)`. Front ends hold no logic of their own; they
//! call `dispatch` (or the typed functions it wraps).

pub mod billing;
pub mod bindings;
mod error;
pub mod knowledge;
pub mod repair_order;
pub mod reports;
pub mod sync;

pub use reports::{report_export, ContentEncoding, ReportExportRequest, ReportFormat};

use std::path::PathBuf;
use ts_rs::TS;

use base64::Engine as _;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use error::AppError;

use crate::desk::{Desk, SessionDetail, VerifyReport};
use crate::engine::state::{Isolation, LaborStatus, Mode, Submode};
use crate::engine::{Reply, TurnOutcome};
use crate::store::{
    Artifact, DeliveryState, NewSession, Session, SessionFilter, SessionStatus, Unit,
};

pub const EXPORT_FORMAT: &str = "servicedesk.session.v1";

#[derive(Debug, Clone, Default, Deserialize, TS)]
#[ts(optional_fields = nullable)]
#[serde(deny_unknown_fields)]
pub struct Empty {}

#[derive(Debug, Clone, Serialize, Deserialize, TS)]
pub struct AppInfo {
    pub name: String,
    pub version: String,
    pub data_dir: String,
    pub schema_version: i64,
    pub sessions: usize,
    pub artifacts: usize,
}

#[derive(Debug, Clone, Default, Deserialize, TS)]
#[ts(optional_fields = nullable)]
#[serde(deny_unknown_fields)]
pub struct SessionNewRequest {
    pub complaint: String,
    pub customer: Option<String>,
    pub customer_phone: Option<String>,
    pub customer_email: Option<String>,
    pub technician: Option<String>,
    pub language: Option<String>,
    pub vin: Option<String>,
    pub plate: Option<String>,
    pub make_model: Option<String>,
    pub model_year: Option<i32>,
    pub odometer: Option<i64>,
    pub odometer_unit: Option<crate::store::OdometerUnit>,
    pub engine_hours: Option<f64>,
}

/// A corrected header, sent whole as the edit form holds it: a blank field
/// clears it. Every changed field is recorded with `edited_by`.
#[derive(Debug, Clone, Default, Deserialize, TS)]
#[ts(optional_fields = nullable)]
#[serde(deny_unknown_fields)]
pub struct SessionUpdateRequest {
    pub session_id: String,
    pub edited_by: Option<String>,
    pub complaint: String,
    pub customer: Option<String>,
    pub customer_phone: Option<String>,
    pub customer_email: Option<String>,
    pub technician: Option<String>,
    pub vin: Option<String>,
    pub plate: Option<String>,
    pub make_model: Option<String>,
    pub model_year: Option<i32>,
    pub odometer: Option<i64>,
    pub odometer_unit: Option<crate::store::OdometerUnit>,
    pub engine_hours: Option<f64>,
}

fn blank_to_none(v: Option<String>) -> Option<String> {
    v.map(|s| s.trim().to_owned()).filter(|s| !s.is_empty())
}

/// The unit as the forms send it: VIN and plate in upper case.
#[allow(clippy::too_many_arguments)]
fn unit_of(
    vin: Option<String>,
    plate: Option<String>,
    make_model: Option<String>,
    model_year: Option<i32>,
    odometer: Option<i64>,
    odometer_unit: Option<crate::store::OdometerUnit>,
    engine_hours: Option<f64>,
) -> Unit {
    Unit {
        vin: blank_to_none(vin).map(|v| v.to_uppercase()),
        plate: blank_to_none(plate).map(|p| p.to_uppercase()),
        make_model: blank_to_none(make_model),
        model_year,
        odometer,
        odometer_unit,
        engine_hours,
        manufacturer: None,
    }
}

#[derive(Debug, Clone, Default, Deserialize, TS)]
#[ts(optional_fields = nullable)]
#[serde(deny_unknown_fields)]
pub struct SessionListRequest {
    pub query: Option<String>,
    pub status: Option<SessionStatus>,
}

#[derive(Debug, Clone, Serialize, Deserialize, TS)]
pub struct SessionList {
    pub sessions: Vec<SessionListItem>,
}

/// A session as the sidebar lists it: the stored session plus where it
/// stands for the people in the shop.
#[derive(Debug, Clone, Serialize, Deserialize, TS)]
pub struct SessionListItem {
    #[serde(flatten)]
    pub session: Session,
    pub stage: SessionStage,
}

/// Where a session stands for the people in the shop.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum SessionStage {
    Open,
    /// A finding, no report yet.
    ReportReady,
    Escalated,
    Finalized,
    /// The newest report revision is on the portal.
    Synced,
}

#[derive(Debug, Clone, Deserialize, TS)]
#[ts(optional_fields = nullable)]
#[serde(deny_unknown_fields)]
pub struct SessionRef {
    pub session_id: String,
}

#[derive(Debug, Clone, Serialize, TS)]
pub struct SessionExport {
    pub format: &'static str,
    #[serde(flatten)]
    pub detail: SessionDetail,
}

#[derive(Debug, Clone, Deserialize, TS)]
#[ts(optional_fields = nullable)]
#[serde(deny_unknown_fields)]
pub struct SessionDeleteRequest {
    pub session_id: String,
    #[serde(default)]
    #[ts(optional = nullable)]
    pub purge: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize, TS)]
pub struct SessionDeleted {
    pub deleted: bool,
    pub purged_artifacts: usize,
}

#[derive(Debug, Clone, Deserialize, TS)]
#[ts(optional_fields = nullable)]
#[serde(deny_unknown_fields)]
pub struct ArtifactAddRequest {
    pub session_id: String,
    pub path: PathBuf,
    pub caption: Option<String>,
}

#[derive(Debug, Clone, Deserialize, TS)]
#[ts(optional_fields = nullable)]
#[serde(deny_unknown_fields)]
pub struct ArtifactUploadRequest {
    pub session_id: String,
    pub file_name: String,
    pub content_base64: String,
    pub caption: Option<String>,
}

/// A photo's caption and condition tag. A field left out keeps its value;
/// an empty caption clears it, as does the condition `none`.
#[derive(Debug, Clone, Deserialize, TS)]
#[ts(optional_fields = nullable)]
#[serde(deny_unknown_fields)]
pub struct ArtifactAnnotateRequest {
    pub session_id: String,
    pub artifact_id: String,
    pub caption: Option<String>,
    pub condition: Option<ConditionChoice>,
}

/// A condition tag as a request sets it: one of the tags, or `none` to clear.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ConditionChoice {
    Ok,
    Attention,
    Urgent,
    None,
}

impl ConditionChoice {
    fn tag(self) -> Option<crate::store::PhotoCondition> {
        use crate::store::PhotoCondition as C;
        match self {
            Self::Ok => Some(C::Ok),
            Self::Attention => Some(C::Attention),
            Self::Urgent => Some(C::Urgent),
            Self::None => None,
        }
    }
}

// By hand so that a wrong value is named as the condition (serde's own
// message names only the variant).
impl<'de> Deserialize<'de> for ConditionChoice {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        match s.as_str() {
            "ok" => Ok(Self::Ok),
            "attention" => Ok(Self::Attention),
            "urgent" => Ok(Self::Urgent),
            "none" => Ok(Self::None),
            other => Err(serde::de::Error::custom(format!(
                "condition must be ok, attention, urgent or none, not {other:?}"
            ))),
        }
    }
}

/// A marked-up copy of a photo: the photo with the drawing over it, as PNG.
#[derive(Debug, Clone, Deserialize, TS)]
#[ts(optional_fields = nullable)]
#[serde(deny_unknown_fields)]
pub struct ArtifactMarkupRequest {
    pub session_id: String,
    pub original_id: String,
    pub data_base64: String,
    pub caption: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize, TS)]
pub struct ArtifactList {
    pub artifacts: Vec<Artifact>,
}

#[derive(Debug, Clone, Default, Deserialize, TS)]
#[ts(optional_fields = nullable)]
#[serde(deny_unknown_fields)]
pub struct ArtifactVerifyRequest {
    pub session_id: Option<String>,
}

#[derive(Debug, Clone, Deserialize, TS)]
#[ts(optional_fields = nullable)]
#[serde(deny_unknown_fields)]
pub struct ArtifactContentRequest {
    pub artifact_id: String,
    #[serde(default)]
    #[ts(optional = nullable)]
    pub thumbnail: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize, TS)]
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
    Ok(desk
        .new_session(NewSession {
            complaint: req.complaint,
            customer: blank_to_none(req.customer),
            customer_phone: blank_to_none(req.customer_phone),
            customer_email: blank_to_none(req.customer_email),
            technician: blank_to_none(req.technician),
            language: blank_to_none(req.language),
            unit: unit_of(
                req.vin,
                req.plate,
                req.make_model,
                req.model_year,
                req.odometer,
                req.odometer_unit,
                req.engine_hours,
            ),
        })
        .await?)
}

pub async fn session_update(desk: &Desk, req: SessionUpdateRequest) -> Result<Session, AppError> {
    let header = crate::store::SessionHeader {
        complaint: req.complaint,
        customer: blank_to_none(req.customer),
        customer_phone: blank_to_none(req.customer_phone),
        customer_email: blank_to_none(req.customer_email),
        technician: blank_to_none(req.technician),
        unit: unit_of(
            req.vin,
            req.plate,
            req.make_model,
            req.model_year,
            req.odometer,
            req.odometer_unit,
            req.engine_hours,
        ),
    };
    let by = blank_to_none(req.edited_by);
    Ok(desk
        .update_session(&req.session_id, header, by.as_deref())
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
                let (ready, report_sync) = stages
                    .remove(&session.id)
                    .unwrap_or((false, DeliveryState::NotQueued));
                let stage = match session.status {
                    SessionStatus::Finalized if report_sync == DeliveryState::Done => {
                        SessionStage::Synced
                    }
                    SessionStatus::Finalized => SessionStage::Finalized,
                    SessionStatus::Open if ready => SessionStage::ReportReady,
                    SessionStatus::Open => SessionStage::Open,
                    SessionStatus::Escalated => SessionStage::Escalated,
                };
                SessionListItem { stage, session }
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

pub async fn artifact_annotate(
    desk: &Desk,
    req: ArtifactAnnotateRequest,
) -> Result<Artifact, AppError> {
    Ok(desk
        .annotate_artifact(
            &req.session_id,
            &req.artifact_id,
            req.caption,
            req.condition.map(ConditionChoice::tag),
        )
        .await?)
}

pub async fn artifact_markup(
    desk: &Desk,
    req: ArtifactMarkupRequest,
) -> Result<Artifact, AppError> {
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(req.data_base64.trim())
        .map_err(|e| {
            AppError::new(
                "invalid_input",
                format!("data_base64 is not valid base64: {e}"),
            )
        })?;
    Ok(desk
        .markup_artifact(&req.session_id, &req.original_id, bytes, req.caption)
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

#[derive(Debug, Deserialize, TS)]
#[ts(optional_fields = nullable)]
#[serde(deny_unknown_fields)]
pub struct Attachment {
    pub file_name: String,
    pub content_base64: String,
}

#[derive(Debug, Deserialize, TS)]
#[ts(optional_fields = nullable)]
#[serde(deny_unknown_fields)]
pub struct ChatTurnRequest {
    pub session_id: String,
    pub text: String,
    #[serde(default)]
    #[ts(optional = nullable)]
    pub attachments: Vec<Attachment>,
}

#[derive(Debug, Serialize, TS)]
pub struct ReportRevision {
    pub revision: u32,
    pub language: String,
    /// A stored revision's body is Markdown.
    pub format: ReportFormat,
    pub body: String,
    pub created_at: crate::store::Timestamp,
}

#[derive(Debug, Serialize, TS)]
pub struct ReportList {
    pub reports: Vec<ReportRevision>,
}

/// The transcript contract of `docs/spec/conversation.md`: one object per
/// turn, the same for `servicedesk chat --json`, HTTP and IPC.
#[derive(Debug, Clone, Serialize, TS)]
pub struct ChatTranscript {
    pub turn: i64,
    pub session_id: String,
    pub language: String,
    pub intent: String,
    /// The transition class that fired (`D1_step_answer`, `T1_root_entry`, ...).
    pub transition: String,
    pub mode: Mode,
    pub submode: Submode,
    /// The procedure being walked.
    pub system: Option<String>,
    pub active_step: Option<String>,
    pub completed_steps: Vec<String>,
    pub topic_stack: Vec<TopicView>,
    pub isolation: Isolation,
    pub labor: TranscriptLabor,
    pub reply: Reply,
    pub escalated: bool,
    /// The names of the current facts.
    pub facts: Vec<String>,
    pub new_facts: Vec<NewFactView>,
    pub superseded: Vec<Superseded>,
    /// The report revision this turn wrote, if any.
    pub report_revision: Option<u32>,
    /// Why the turn went as it did, for people reading a transcript.
    pub trace: String,
}

/// A side topic the conversation will return from.
#[derive(Debug, Clone, Serialize, TS)]
pub struct TopicView {
    pub topic: String,
    pub submode: Submode,
    pub return_step: Option<String>,
}

#[derive(Debug, Clone, Serialize, TS)]
pub struct TranscriptLabor {
    pub mode: LaborStatus,
    /// Confirmed hours, else the estimate (`"1.5"`).
    pub hours: Option<String>,
}

/// A fact this turn recorded.
#[derive(Debug, Clone, Serialize, TS)]
pub struct NewFactView {
    pub id: String,
    pub name: Option<String>,
    pub subject: String,
    pub value: Option<String>,
    pub unit: Option<String>,
    /// The words it came from.
    pub text: String,
}

/// A fact this turn took back, and the one that replaced it.
#[derive(Debug, Clone, Serialize, TS)]
pub struct Superseded {
    pub fact: String,
    pub by: String,
}

pub fn transcript_turn(session_id: &str, seq: i64, o: &TurnOutcome) -> ChatTranscript {
    let st = &o.state;
    ChatTranscript {
        turn: seq,
        session_id: session_id.to_owned(),
        language: st.language.clone(),
        intent: o.intent.to_owned(),
        transition: o.transition.name().to_owned(),
        mode: st.mode,
        submode: st.submode,
        system: st.active_procedure.clone(),
        active_step: st.active_step.clone(),
        completed_steps: st.completed_steps.clone(),
        topic_stack: st
            .topic_stack
            .iter()
            .map(|t| TopicView {
                topic: t.topic.clone(),
                submode: t.submode,
                return_step: t.return_step.clone(),
            })
            .collect(),
        isolation: st.isolation.clone(),
        labor: TranscriptLabor {
            mode: st.labor.status,
            hours: st
                .labor
                .confirmed_hours
                .clone()
                .or_else(|| st.labor.estimated_hours.clone()),
        },
        reply: o.reply.clone(),
        escalated: st.escalation.escalated,
        facts: st
            .facts
            .iter()
            .filter(|f| f.is_current())
            .filter_map(|f| f.name.clone())
            .collect(),
        new_facts: o
            .new_facts
            .iter()
            .map(|f| NewFactView {
                id: f.id.clone(),
                name: f.name.clone(),
                subject: f.subject.clone(),
                value: f.value.clone(),
                unit: f.unit.clone(),
                text: f.text.clone(),
            })
            .collect(),
        superseded: o
            .superseded
            .iter()
            .map(|(a, b)| Superseded {
                fact: a.clone(),
                by: b.clone(),
            })
            .collect(),
        report_revision: o.report.as_ref().map(|r| r.0),
        trace: o.trace.join("; "),
    }
}

pub async fn chat_turn(desk: &Desk, req: ChatTurnRequest) -> Result<ChatTranscript, AppError> {
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
            format: ReportFormat::Markdown,
            body,
            created_at,
        })
        .collect();
    Ok(ReportList { reports })
}

#[derive(Debug, Serialize, TS)]
pub struct LastTransition {
    pub id: String,
    pub why: String,
}

#[derive(Debug, Serialize, TS)]
pub struct ReportRef {
    pub revision: u32,
    pub created_at: crate::store::Timestamp,
    /// The revision's delivery to the portal.
    pub sync: crate::reports::ReportSync,
}

/// `session_context`: the engine's view of the session plus what the store knows.
#[derive(Debug, Serialize, TS)]
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
                    .unwrap_or(crate::reports::ReportSync {
                        state: DeliveryState::NotQueued,
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

/// Declares every command once: its name, request type, response type and
/// the call that serves it (with `desk` and `req` bound). From the table come
/// `COMMANDS`, `dispatch` and the TypeScript command map the UI is typed by
/// (`ui/src/gen/`, written by `command_bindings`).
macro_rules! commands {
    ($desk:ident, $req:ident; $( $name:ident : $request:ty => $response:ty = $call:expr ;)*) => {
        /// The commands `dispatch` knows, for error messages and for the UI.
        pub const COMMANDS: &[&str] = &[$(stringify!($name)),*];

        /// Run one command with its JSON payload. Unknown commands and
        /// payloads that do not fit the command are errors that name what
        /// was wrong.
        pub async fn dispatch(desk: &Desk, command: &str, payload: Value) -> Result<Value, AppError> {
            let $desk = desk;
            match command {
                $(stringify!($name) => {
                    #[allow(unused_variables)]
                    let $req: $request = parse(command, payload)?;
                    let response: $response = $call.await?;
                    reply(response)
                })*
                other => Err(AppError::new(
                    "unknown_command",
                    format!("unknown command {other:?}; known: {}", COMMANDS.join(", ")),
                )),
            }
        }

        /// Each command with the TypeScript names of its request and response.
        pub fn command_signatures(cfg: &ts_rs::Config) -> Vec<(&'static str, String, String)> {
            vec![$((stringify!($name), <$request as TS>::name(cfg), <$response as TS>::name(cfg))),*]
        }

        /// Visits every request and response type of the table.
        pub fn visit_command_types(visitor: &mut impl ts_rs::TypeVisitor) {
            $(visitor.visit::<$request>(); visitor.visit::<$response>();)*
        }
    };
}

commands! { desk, req;
    app_info: Empty => AppInfo = app_info(desk);
    session_new: SessionNewRequest => Session = session_new(desk, req);
    session_update: SessionUpdateRequest => Session = session_update(desk, req);
    session_list: SessionListRequest => SessionList = session_list(desk, req);
    session_show: SessionRef => SessionDetail = session_show(desk, req);
    session_export: SessionRef => SessionExport = session_export(desk, req);
    session_delete: SessionDeleteRequest => SessionDeleted = session_delete(desk, req);
    artifact_add: ArtifactAddRequest => Artifact = artifact_add(desk, req);
    artifact_upload: ArtifactUploadRequest => Artifact = artifact_upload(desk, req);
    artifact_annotate: ArtifactAnnotateRequest => Artifact = artifact_annotate(desk, req);
    artifact_markup: ArtifactMarkupRequest => Artifact = artifact_markup(desk, req);
    artifact_list: SessionRef => ArtifactList = artifact_list(desk, req);
    artifact_verify: ArtifactVerifyRequest => VerifyReport = artifact_verify(desk, req);
    artifact_content: ArtifactContentRequest => ArtifactContent = artifact_content(desk, req);
    chat_turn: ChatTurnRequest => ChatTranscript = chat_turn(desk, req);
    report_list: SessionRef => ReportList = report_list(desk, req);
    report_export: ReportExportRequest => reports::ReportExport = report_export(desk, req);
    report_finalize: reports::ReportFinalizeRequest => reports::ReportFinalized =
        reports::report_finalize(desk, req);
    report_draft_save: reports::ReportFinalizeRequest => crate::reports::DraftSaved =
        reports::report_draft_save(desk, req);
    report_reopen: reports::ReportReopenRequest => crate::reports::Reopened =
        reports::report_reopen(desk, req);
    report_state: SessionRef => crate::reports::ReportState = reports::report_state(desk, req);
    reports_export_start: reports::ReportsExportRequest => reports::ExportJob =
        reports::reports_export_start(desk, req);
    reports_export_status: reports::ExportJobRef => reports::ExportJob =
        reports::reports_export_status(req);
    session_context: SessionRef => SessionContext = session_context(desk, req);
    knowledge_search: crate::knowledge::SearchQuery => knowledge::SearchResults =
        knowledge::knowledge_search(desk, req);
    knowledge_sources: Empty => knowledge::Sources = knowledge::knowledge_sources(desk);
    knowledge_source_file: knowledge::SourceFileRequest => crate::knowledge::index::SourceFile =
        knowledge::knowledge_source_file(desk, req);
    knowledge_ingest: knowledge::IngestRequest => crate::knowledge::IngestReport =
        knowledge::knowledge_ingest(desk, req);
    knowledge_ask: knowledge::AskRequest => crate::knowledge::Answer = knowledge::knowledge_ask(desk, req);
    billing_simulate: billing::SimulateRequest => billing::SimulateResponse =
        billing::billing_simulate(desk, req);
    billing_rules: Empty => billing::RuleList = billing::billing_rules(desk);
    billing_rules_import: billing::ImportRequest => crate::billing::store::ImportReport =
        billing::billing_rules_import(desk, req);
    billing_rule_create: billing::RuleCreateRequest => crate::billing::store::RuleInfo =
        billing::billing_rule_create(desk, req);
    billing_rule_version_add: billing::RuleVersionAddRequest => crate::billing::store::VersionInfo =
        billing::billing_rule_version_add(desk, req);
    billing_orders: billing::OrdersRequest => billing::OrderList = billing::billing_orders(desk, req);
    billing_orders_import: billing::ImportRequest => crate::billing::store::ImportReport =
        billing::billing_orders_import(desk, req);
    billing_arrears: billing::ArrearsRequest => crate::billing::store::ArrearsReport =
        billing::billing_arrears(desk, req);
    billing_verify: billing::VerifyRequest => crate::billing::store::Verification =
        billing::billing_verify(desk, req);
    billing_seed_demo: Empty => crate::billing::demo::DemoReport = billing::billing_seed_demo(desk);
    sync_status: Empty => crate::sync::SyncStatus = sync::sync_status(desk);
    sync_retry: sync::SyncRetryRequest => crate::sync::ItemInfo = sync::sync_retry(desk, req);
    portal_settings: sync::PortalSettingsRequest => sync::PortalSettings = sync::portal_settings(desk, req);
    ro_show: SessionRef => crate::desk::repair_order::RepairOrder = repair_order::ro_show(desk, req);
    ro_line_save: repair_order::RoLineSaveRequest => crate::desk::repair_order::RepairOrder =
        repair_order::ro_line_save(desk, req);
    ro_line_authorize: repair_order::RoLineAuthorizeRequest => crate::desk::repair_order::RepairOrder =
        repair_order::ro_line_authorize(desk, req);
    ro_line_delete: repair_order::RoLineDeleteRequest => crate::desk::repair_order::RepairOrder =
        repair_order::ro_line_delete(desk, req);
    ro_settings: crate::desk::repair_order::RoSettingsPatch => crate::desk::repair_order::RoSettingsView =
        repair_order::ro_settings(desk, req);
    shop_settings: repair_order::ShopSettingsRequest => crate::desk::shop::ShopProfile =
        repair_order::shop_settings(desk, req);
}
