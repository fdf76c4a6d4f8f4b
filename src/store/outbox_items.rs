//! What goes into the outbox, per the portal contract (`docs/spec/portal.md`):
//! the photos a report references (each once per session, before the
//! report), the report revision, a labor draft when the labor changes, and an
//! escalation when a session becomes escalated. Built from a turn's states and
//! committed by `write_turn` in the turn's own transaction.

use serde_json::{json, Value};

use crate::engine::catalog::{fmt_tenths, parse_tenths, Catalog, Finding, Procedure};
use crate::engine::report::{labor_lines, no_repair, not_diagnosed, SectionEdits};
use crate::engine::state::{LaborStatus, SessionState};
use crate::store::{NewOutboxItem, OutboxKind, Session, Timestamp};

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

pub fn attachment_item(photo: &PhotoItem) -> NewOutboxItem {
    NewOutboxItem {
        kind: OutboxKind::Attachment,
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
    /// The engine complaint this line is (`complaint_key`), if it has one.
    pub key: Option<String>,
}

/// The key of one of the engine's complaints: `system:symptom`, or the
/// system alone when no symptom was named. Repair order lines link to it.
pub fn complaint_key(system: &str, symptom: Option<&str>) -> String {
    match symptom {
        Some(s) => format!("{system}:{s}"),
        None => system.to_owned(),
    }
}

/// The repair order as the report carries it: the writer's lines with pay
/// types, labor and parts priced, and the totals. Built by the Desk (which
/// prices with the exact `Money` type) as JSON; the builders here only place it.
#[derive(Debug, Clone, Default)]
pub struct RoPayload {
    /// `{"ro_number", "tax_rate", "labor_taxable", "lines": [...], "totals"}`
    pub order: Value,
    /// Per repair order line, in order: the engine complaint it is linked
    /// to (if any), and what a report line of that complaint adds:
    /// `{"ro_line", "pay_type", "warranty", "authorization", "totals"}`, and
    /// `labor_rate`, which becomes its `labor.rate`.
    pub lines: Vec<(Option<String>, Value)>,
}

impl RoPayload {
    /// What the report line at `index` (with `key`) adds: the repair order
    /// line linked to its complaint, else the unlinked line at its position.
    fn for_report_line(&self, index: usize, key: Option<&str>) -> Option<&Value> {
        self.line_of_report_line(index, key)
            .map(|at| &self.lines[at].1)
    }

    /// The position of the repair order line that the report line at
    /// `index` (with `key`) is: linked to its complaint, else the unlinked
    /// line at its position.
    pub fn line_of_report_line(&self, index: usize, key: Option<&str>) -> Option<usize> {
        key.and_then(|k| {
            self.lines
                .iter()
                .position(|(linked, _)| linked.as_deref() == Some(k))
        })
        .or_else(|| {
            self.lines
                .get(index)
                .filter(|(linked, _)| linked.is_none())
                .map(|_| index)
        })
    }
}

fn unit_json(session: &Session) -> Value {
    json!({
        "vin": session.unit.vin,
        "plate_no": session.unit.plate,
        "make_model": session.unit.make_model,
        "odometer": session.unit.odometer,
    })
}

/// A report revision's item (the photos it references go before it). The
/// top-level 3C, labor and parts are the first complaint line's (a visit's
/// only one, usually); `lines` carries every line of the visit, since
/// warranty claims are filed per line.
pub fn report_item(
    session: &Session,
    revision: u32,
    lines: &[ReportFields],
    photos: &[PhotoItem],
    finalized_at: Timestamp,
    ro: &RoPayload,
) -> NewOutboxItem {
    let id = report_id(&session.id);
    let empty = ReportFields::default();
    let fields = lines.first().unwrap_or(&empty);
    let mut item = NewOutboxItem {
        kind: OutboxKind::Report,
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
            "lines": lines.iter().map(|l| json!({
                "complaint": l.complaint, "cause": l.cause, "correction": l.correction,
                "labor": l.labor, "parts": l.parts,
            })).collect::<Vec<_>>(),
            "attachments": photos.iter().map(|p| json!({
                "sha256": p.sha256, "filename": p.file_name, "mime": p.mime, "caption": p.caption,
            })).collect::<Vec<_>>(),
            "technician": session.technician,
            "finalized_at": finalized_at,
        }),
    };
    // The portal contract lets a report add fields: each line its pay
    // type, warranty party and totals, and the whole repair order beside.
    // The contract's `labor.rate` is the linked line's rate for its pay type.
    let mut first_rate = None;
    if let Some(out) = item.payload["lines"].as_array_mut() {
        for (i, (line, fields)) in out.iter_mut().zip(lines).enumerate() {
            if let (Some(line), Some(Value::Object(extra))) = (
                line.as_object_mut(),
                ro.for_report_line(i, fields.key.as_deref()),
            ) {
                let mut extra = extra.clone();
                if let Some(rate) = extra.remove("labor_rate") {
                    if let Some(labor) = line.get_mut("labor").and_then(Value::as_object_mut) {
                        labor.insert("rate".into(), rate.clone());
                    }
                    if i == 0 {
                        first_rate = Some(rate);
                    }
                }
                line.extend(extra);
            }
        }
    }
    if let (Some(rate), Some(labor)) = (first_rate, item.payload["labor"].as_object_mut()) {
        labor.insert("rate".into(), rate);
    }
    if !ro.order.is_null() {
        item.payload["ro_number"] = json!(session.ro_number);
        item.payload["repair_order"] = ro.order.clone();
    }
    item
}

/// A labor draft's item; its `revision` is numbered by the store when queued.
pub fn labor_item(session: &Session, state: &SessionState, updated_at: Timestamp) -> NewOutboxItem {
    let id = draft_id(&session.id);
    let hours = state
        .labor
        .confirmed_hours
        .as_deref()
        .or(state.labor.estimated_hours.as_deref())
        .and_then(parse_tenths)
        .map(hours2);
    NewOutboxItem {
        kind: OutboxKind::LaborDraft,
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
pub fn escalation_item(session: &Session, state: &SessionState, at: Timestamp) -> NewOutboxItem {
    NewOutboxItem {
        kind: OutboxKind::Escalation,
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

/// The report's complaint lines for the portal, in report order: the lines
/// already closed, the open one, then those written up as not diagnosed.
/// Each has its procedure and finding in English, its labor lines scaled to
/// its hours, and the technician's own wording wherever they edited it.
pub fn report_lines(
    catalog: &Catalog,
    session: &Session,
    state: &SessionState,
) -> Vec<ReportFields> {
    let mut lines = Vec::new();
    for closed in &state.closed_complaints {
        let procedure = catalog.get(&closed.system);
        let finding = procedure.and_then(|p| closed.isolation.finding_in(p));
        let complaint = complaint_en(procedure, closed.symptom.as_deref(), || {
            lines.is_empty().then(|| session.complaint.clone())
        });
        let mut fields = line_fields(
            procedure.zip(finding.as_deref()),
            complaint,
            closed.labor_status,
            Some(closed.labor_tenths),
        );
        fields.key = Some(complaint_key(&closed.system, closed.symptom.as_deref()));
        lines.push(with_edits(fields, &closed.report_edits.en));
    }
    let procedure = state
        .active_procedure
        .as_deref()
        .and_then(|p| catalog.get(p));
    if procedure.is_some() || lines.is_empty() {
        let finding = procedure.and_then(|p| state.isolation.finding_in(p));
        let complaint = complaint_en(procedure, state.symptom.as_deref(), || {
            lines.is_empty().then(|| session.complaint.clone())
        });
        let confirmed = state
            .labor
            .confirmed_hours
            .as_deref()
            .and_then(parse_tenths);
        let mut fields = line_fields(
            procedure.zip(finding.as_deref()),
            complaint,
            state.labor.status,
            confirmed,
        );
        fields.key = procedure.map(|p| complaint_key(&p.system, state.symptom.as_deref()));
        lines.push(with_edits(fields, &state.report_edits.en));
    }
    for key in &state.undiagnosed_complaints {
        let Some((system, symptom)) = key.split_once(':') else {
            continue;
        };
        lines.push(ReportFields {
            complaint: complaint_en(catalog.get(system), Some(symptom), || None),
            cause: not_diagnosed("en").to_string(),
            correction: no_repair("en").to_string(),
            labor: json!({"mode": labor_mode(LaborStatus::Skipped), "hours": hours2(0), "rate": null, "lines": []}),
            parts: Vec::new(),
            key: Some(key.clone()),
        });
    }
    lines
}

/// A line's complaint in English: its symptom's, else `otherwise` (the
/// writer's words for the visit's first line), else nothing.
fn complaint_en(
    procedure: Option<&Procedure>,
    symptom: Option<&str>,
    otherwise: impl FnOnce() -> Option<String>,
) -> String {
    procedure
        .zip(symptom)
        .and_then(|(p, s)| p.symptoms.iter().find(|x| x.id == s))
        .map(|s| s.complaint.get("en").to_string())
        .or_else(otherwise)
        .unwrap_or_default()
}

fn with_edits(mut fields: ReportFields, edits: &SectionEdits) -> ReportFields {
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

/// One line's fields from its finding; `hours` when the technician
/// confirmed them (or the line kept its own), else the finding's estimate.
fn line_fields(
    found: Option<(&Procedure, &Finding)>,
    complaint: String,
    status: LaborStatus,
    hours: Option<u32>,
) -> ReportFields {
    let Some((p, f)) = found else {
        return ReportFields {
            complaint,
            labor: json!({"mode": labor_mode(status), "hours": null, "rate": null, "lines": []}),
            ..Default::default()
        };
    };
    let total = hours.unwrap_or_else(|| f.labor_tenths());
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
            "mode": labor_mode(status),
            "hours": hours2(total),
            "rate": null,
            "lines": lines,
        }),
        parts: f
            .parts("en")
            .iter()
            .map(|d| json!({"part_no": "", "description": d, "qty": 1}))
            .collect(),
        key: None,
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
    ro: &RoPayload,
) -> Vec<NewOutboxItem> {
    let at = crate::store::now();
    let mut items = Vec::new();
    if after.labor != before.labor && after.labor.status != LaborStatus::None {
        items.push(labor_item(session, after, at));
    }
    if let Some(revision) = report_revision {
        items.extend(photos.iter().map(attachment_item));
        let lines = report_lines(catalog, session, after);
        items.push(report_item(session, revision, &lines, photos, at, ro));
    }
    if after.escalation.escalated && !before.escalation.escalated {
        items.push(escalation_item(session, after, at));
    }
    items
}
