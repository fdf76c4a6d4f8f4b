//! What goes into the outbox, per the portal contract (`shared/spec/portal.md`):
//! the photos a report references (each once per session, before the
//! report), the report revision, a labor draft when the labor changes, and an
//! escalation when a session becomes escalated. Built from a turn's states and
//! committed by `write_turn` in the turn's own transaction.

use serde_json::{json, Value};

use crate::engine::catalog::{fmt_tenths, parse_tenths, Catalog};
use crate::engine::report::labor_lines;
use crate::engine::state::{LaborStatus, SessionState};
use crate::store::{NewOutboxItem, Session};

pub const KIND_ATTACHMENT: &str = "attachment";
pub const KIND_REPORT: &str = "report";
pub const KIND_LABOR: &str = "labor_draft";
pub const KIND_ESCALATION: &str = "escalation";

/// A photo/file of the session as the portal sees it.
#[derive(Debug, Clone, PartialEq)]
pub struct PhotoItem {
    pub sha256: String,
    pub file_name: String,
    pub mime: String,
    pub caption: Option<String>,
    pub size_bytes: i64,
}

/// The portal id of a session's report: stable across revisions.
pub fn report_id(session_id: &str) -> String {
    derived_id(session_id, "report")
}

/// The portal id of a session's labor draft: stable across revisions.
pub fn draft_id(session_id: &str) -> String {
    derived_id(session_id, "labor-draft")
}

fn derived_id(session_id: &str, what: &str) -> String {
    let ns = uuid::Uuid::parse_str(session_id).unwrap_or(uuid::Uuid::NAMESPACE_OID);
    uuid::Uuid::new_v5(&ns, what.as_bytes()).to_string()
}

/// How a method and path come from a kind: everything is a PUT except an
/// escalation, which is a POST.
pub fn method_for(kind: &str) -> &'static str {
    if kind == KIND_ESCALATION {
        "POST"
    } else {
        "PUT"
    }
}

pub fn attachment_item(photo: &PhotoItem) -> NewOutboxItem {
    NewOutboxItem {
        kind: KIND_ATTACHMENT.into(),
        target: format!("/api/v1/attachments/{}", photo.sha256),
        payload: json!({
            "sha256": photo.sha256,
            "filename": photo.file_name,
            "mime": photo.mime,
            "caption": photo.caption,
            "size_bytes": photo.size_bytes,
        }),
    }
}

/// The 3C content of a report, in English (the portal's language).
#[derive(Debug, Clone, Default)]
pub struct ReportFields {
    pub complaint: String,
    pub cause: String,
    pub correction: String,
    /// `{"mode", "hours", "rate", "lines": [{"op_code", "description", "hours"}]}`
    pub labor: Value,
    /// `[{"part_no", "description", "qty"}]`
    pub parts: Vec<Value>,
}

fn unit_json(session: &Session) -> Value {
    json!({
        "vin": session.unit.vin,
        "plate_no": session.unit.plate,
        "make_model": session.unit.make_model,
        "odometer": session.unit.odometer,
    })
}

/// A report revision's item (the photos it references go before it).
pub fn report_item(
    session: &Session,
    revision: u32,
    fields: &ReportFields,
    photos: &[PhotoItem],
    finalized_at: &str,
) -> NewOutboxItem {
    let id = report_id(&session.id);
    NewOutboxItem {
        kind: KIND_REPORT.into(),
        target: format!("/api/v1/reports/{id}"),
        payload: json!({
            "report_id": id,
            "revision": revision,
            "session_id": session.id,
            "unit": unit_json(session),
            "complaint": fields.complaint,
            "cause": fields.cause,
            "correction": fields.correction,
            "labor": fields.labor,
            "parts": fields.parts,
            "attachments": photos.iter().map(|p| json!({
                "sha256": p.sha256, "filename": p.file_name, "mime": p.mime, "caption": p.caption,
            })).collect::<Vec<_>>(),
            "technician": session.technician,
            "finalized_at": finalized_at,
        }),
    }
}

/// A labor draft's item; its `revision` is numbered by the store when queued.
pub fn labor_item(session: &Session, state: &SessionState, updated_at: &str) -> NewOutboxItem {
    let id = draft_id(&session.id);
    let hours = state
        .labor
        .confirmed_hours
        .as_deref()
        .or(state.labor.estimated_hours.as_deref())
        .and_then(parse_tenths)
        .map(hours2);
    NewOutboxItem {
        kind: KIND_LABOR.into(),
        target: format!("/api/v1/labor-drafts/{id}"),
        payload: json!({
            "draft_id": id,
            "revision": null,
            "session_id": session.id,
            "unit": unit_json(session),
            "mode": labor_mode(state.labor.status),
            "hours": hours,
            "estimated_hours": state.labor.estimated_hours.as_deref().and_then(parse_tenths).map(hours2),
            "confirmed_hours": state.labor.confirmed_hours.as_deref().and_then(parse_tenths).map(hours2),
            "technician": session.technician,
            "updated_at": updated_at,
        }),
    }
}

/// An escalation's item: handing the session to a human.
pub fn escalation_item(session: &Session, state: &SessionState, at: &str) -> NewOutboxItem {
    NewOutboxItem {
        kind: KIND_ESCALATION.into(),
        target: "/api/v1/escalations".into(),
        payload: json!({
            "session_id": session.id,
            "reason": state.escalation.reason,
            "unit": unit_json(session),
            "complaint": session.complaint,
            "technician": session.technician,
            "language": state.language,
            "escalated_at": at,
        }),
    }
}

fn labor_mode(status: LaborStatus) -> &'static str {
    match status {
        LaborStatus::Confirmed => "confirmed",
        LaborStatus::Skipped => "skipped",
        LaborStatus::Draft | LaborStatus::None => "draft",
    }
}

/// Tenths of an hour as the portal's two-decimal hours ("2.50").
fn hours2(tenths: u32) -> String {
    format!("{}0", fmt_tenths(tenths))
}

/// The report's 3C fields: the session's procedure and finding in English,
/// the labor lines scaled to the hours in force, and the technician's own
/// wording wherever they edited the report before finalizing.
pub fn report_fields(catalog: &Catalog, session: &Session, state: &SessionState) -> ReportFields {
    let mut fields = catalog_fields(catalog, session, state);
    let edits = &state.report_edits.en;
    if let Some(text) = &edits.complaint {
        fields.complaint = text.clone();
    }
    if let Some(text) = &edits.cause {
        fields.cause = text.clone();
    }
    if let Some(text) = &edits.correction {
        fields.correction = text.clone();
    }
    fields
}

fn catalog_fields(catalog: &Catalog, session: &Session, state: &SessionState) -> ReportFields {
    let procedure = state
        .active_procedure
        .as_deref()
        .and_then(|p| catalog.get(p));
    let finding = procedure.and_then(|p| state.isolation.finding_in(p));
    let complaint = procedure
        .and_then(|p| {
            state
                .symptom
                .as_deref()
                .and_then(|s| p.symptoms.iter().find(|x| x.id == s))
        })
        .map(|s| s.complaint.get("en").to_string())
        .unwrap_or_else(|| session.complaint.clone());
    let Some((p, f)) = procedure.zip(finding.as_deref()) else {
        return ReportFields {
            complaint,
            labor: json!({"mode": labor_mode(state.labor.status), "hours": null, "rate": null, "lines": []}),
            ..Default::default()
        };
    };
    let total = state
        .labor
        .confirmed_hours
        .as_deref()
        .and_then(parse_tenths)
        .unwrap_or_else(|| f.labor_tenths());
    let lines: Vec<Value> = labor_lines(f, total, "en")
        .into_iter()
        .enumerate()
        .map(|(i, (task, tenths))| {
            json!({
                "op_code": format!("{}.{}.{}", p.system, f.id, i + 1),
                "description": task,
                "hours": hours2(tenths),
            })
        })
        .collect();
    ReportFields {
        complaint,
        cause: f.cause.get("en").to_string(),
        correction: f.correction.get("en").to_string(),
        labor: json!({
            "mode": labor_mode(state.labor.status),
            "hours": hours2(total),
            "rate": null,
            "lines": lines,
        }),
        parts: f
            .parts("en")
            .iter()
            .map(|d| json!({"part_no": "", "description": d, "qty": 1}))
            .collect(),
    }
}

/// Everything a turn queues for the portal, in delivery order: a labor draft
/// when the labor changed, the photos then the report for a new report
/// revision, an escalation when the session became escalated.
pub fn for_turn(
    catalog: &Catalog,
    session: &Session,
    before: &SessionState,
    after: &SessionState,
    report_revision: Option<u32>,
    photos: &[PhotoItem],
) -> Vec<NewOutboxItem> {
    let at = crate::store::now();
    let mut items = Vec::new();
    if after.labor != before.labor && after.labor.status != LaborStatus::None {
        items.push(labor_item(session, after, &at));
    }
    if let Some(revision) = report_revision {
        items.extend(photos.iter().map(attachment_item));
        let fields = report_fields(catalog, session, after);
        items.push(report_item(session, revision, &fields, photos, &at));
    }
    if after.escalation.escalated && !before.escalation.escalated {
        items.push(escalation_item(session, after, &at));
    }
    items
}
