//! A read-only view of where a session stands, for the context panel of the
//! app: the procedure's steps with their status, the facts (superseded ones
//! kept so the UI can strike them through), the isolation with its cause,
//! the labor draft's lines, and the quick answers that fit the active step.
//! Pure: built from the state and the catalog, no I/O.

use serde::Serialize;
use ts_rs::TS;

use super::catalog::{fmt_tenths, parse_tenths, Catalog, StepKind};
use super::report::labor_lines;
use super::state::{Fact, Isolation, LaborStatus, Mode, SessionState, Submode, TopicFrame};

#[derive(Debug, Clone, Serialize, TS)]
pub struct SystemView {
    pub id: String,
    pub title: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum StepStatus {
    Completed,
    Active,
    Open,
}

#[derive(Debug, Clone, Serialize, TS)]
pub struct StepView {
    pub id: String,
    pub question: String,
    pub status: StepStatus,
    /// What was said of this check but not yet confirmed, in the session
    /// language ("furnace blower start: no"): the complaint's account, or
    /// an unsure note the engine asked to confirm. Shown until the
    /// technician confirms or answers it.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[ts(optional)]
    pub reported: Option<String>,
}

#[derive(Debug, Clone, Serialize, TS)]
pub struct IsolationView {
    #[serde(flatten)]
    pub isolation: Isolation,
    /// The finding's cause in the session language.
    pub cause: Option<String>,
}

#[derive(Debug, Clone, Serialize, TS)]
pub struct LaborLineView {
    pub task: String,
    pub hours: String,
}

#[derive(Debug, Clone, Serialize, TS)]
pub struct LaborView {
    pub mode: LaborStatus,
    pub hours: Option<String>,
    pub lines: Vec<LaborLineView>,
}

/// Another complaint line of the visit: closed (its cause isolated, kept for
/// the report) or queued for after the current one.
#[derive(Debug, Clone, Serialize, TS)]
pub struct ComplaintLineView {
    /// The system's title in the session language.
    pub system: String,
    /// The complaint in the session language.
    pub complaint: String,
    /// The isolated cause, for a closed line.
    pub cause: Option<String>,
    pub closed: bool,
}

/// A one-tap answer for the active step: `text` is what gets sent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct QuickAnswer {
    pub label: String,
    pub text: String,
}

#[derive(Debug, Clone, Serialize, TS)]
pub struct SessionView {
    pub language: String,
    pub mode: Mode,
    pub submode: Submode,
    pub system: Option<SystemView>,
    pub steps: Vec<StepView>,
    pub facts: Vec<Fact>,
    pub isolation: IsolationView,
    pub labor: LaborView,
    pub topic_stack: Vec<TopicFrame>,
    pub escalated: bool,
    /// Why the session was escalated, for the banner.
    pub escalation_reason: Option<String>,
    pub report_ready: bool,
    pub quick_answers: Vec<QuickAnswer>,
    /// The visit's other complaint lines: the closed ones (those set aside
    /// as not diagnosed among them), then the queued.
    pub other_complaints: Vec<ComplaintLineView>,
}

pub fn session_view(catalog: &Catalog, st: &SessionState) -> SessionView {
    let lang = st.language.as_str();
    let proc = st.active_procedure.as_deref().and_then(|s| catalog.get(s));
    let steps = proc
        .map(|p| {
            p.steps
                .iter()
                .map(|s| StepView {
                    id: s.id.clone(),
                    question: s.question.get(lang).to_string(),
                    status: if st.completed_steps.contains(&s.id) {
                        StepStatus::Completed
                    } else if st.active_step.as_deref() == Some(s.id.as_str()) {
                        StepStatus::Active
                    } else {
                        StepStatus::Open
                    },
                    reported: st
                        .reported
                        .iter()
                        .chain(&st.pending_confirmation)
                        .find(|r| r.step == s.id && !st.completed_steps.contains(&s.id))
                        .map(|r| super::lexicon::said_reported(s.kind, r, lang)),
                })
                .collect()
        })
        .unwrap_or_default();
    let finding = proc.and_then(|p| st.isolation.finding_in(p));
    let finding = finding.as_deref();
    let total = st
        .labor
        .confirmed_hours
        .as_deref()
        .or(st.labor.estimated_hours.as_deref());
    let lines = match (finding, total.and_then(parse_tenths)) {
        (Some(f), Some(t)) if st.labor.status != LaborStatus::None => labor_lines(f, t, lang)
            .into_iter()
            .map(|(task, tenths)| LaborLineView {
                task,
                hours: fmt_tenths(tenths),
            })
            .collect(),
        _ => Vec::new(),
    };
    let active = proc
        .zip(st.active_step.as_deref())
        .and_then(|(p, s)| p.step(s));
    let quick_answers = match active {
        Some(step) if st.submode == Submode::Main && !st.isolation.complete => {
            quick_answers(step.kind, step.spec_text(), lang)
        }
        _ => Vec::new(),
    };
    SessionView {
        language: st.language.clone(),
        mode: st.mode,
        submode: st.submode,
        system: proc.map(|p| SystemView {
            id: p.system.clone(),
            title: p.title.get(lang).to_string(),
        }),
        steps,
        facts: st.facts.clone(),
        isolation: IsolationView {
            isolation: st.isolation.clone(),
            cause: finding.map(|f| f.cause.get(lang).to_string()),
        },
        labor: LaborView {
            mode: st.labor.status,
            hours: total.map(str::to_string),
            lines,
        },
        topic_stack: st.topic_stack.clone(),
        escalated: st.escalation.escalated,
        escalation_reason: st.escalation.reason.clone(),
        report_ready: st.report_ready(),
        quick_answers,
        other_complaints: other_complaints(catalog, st),
    }
}

fn other_complaints(catalog: &Catalog, st: &SessionState) -> Vec<ComplaintLineView> {
    let lang = st.language.as_str();
    let line = |system: &str, symptom: Option<&str>, cause: Option<String>, closed: bool| {
        let p = catalog.get(system)?;
        let complaint = symptom
            .and_then(|s| p.symptoms.iter().find(|x| x.id == s))
            .map(|s| s.complaint.get(lang).to_string())
            .unwrap_or_default();
        Some(ComplaintLineView {
            system: p.title.get(lang).to_string(),
            complaint,
            cause,
            closed,
        })
    };
    let closed = st.closed_complaints.iter().filter_map(|c| {
        let cause = catalog
            .get(&c.system)
            .and_then(|p| c.isolation.finding_in(p))
            .map(|f| f.cause.get(lang).to_string());
        line(&c.system, c.symptom.as_deref(), cause, true)
    });
    let queued = st.queued_complaints.iter().filter_map(|key| {
        let (system, symptom) = key.split_once(':')?;
        line(system, Some(symptom), None, false)
    });
    // Set aside for the report: closed, with the report's own words as cause.
    let undiagnosed = st.undiagnosed_complaints.iter().filter_map(|key| {
        let (system, symptom) = key.split_once(':')?;
        let cause = super::report::not_diagnosed(lang).to_string();
        line(system, Some(symptom), Some(cause), true)
    });
    closed.chain(undiagnosed).chain(queued).collect()
}

/// The answers the extractor understands for a step of this kind, in the
/// session language (a measurement's exact value is typed, not tapped).
fn quick_answers(kind: StepKind, spec: Option<String>, lang: &str) -> Vec<QuickAnswer> {
    let qa = |label: String, text: &str| QuickAnswer {
        label,
        text: text.to_string(),
    };
    match (kind, lang) {
        (StepKind::YesNo, "es") => vec![qa("Sí".into(), "sí"), qa("No".into(), "no")],
        (StepKind::YesNo, "ru") => vec![qa("Да".into(), "да"), qa("Нет".into(), "нет")],
        (StepKind::YesNo, _) => vec![qa("Yes".into(), "yes"), qa("No".into(), "no")],
        (StepKind::Measurement, _) => {
            let spec = spec.map(|s| format!(" ({s})")).unwrap_or_default();
            match lang {
                "es" => vec![
                    qa(format!("En rango{spec}"), "está bien, en rango"),
                    qa("Bajo o sin lectura".into(), "no, está bajo"),
                ],
                "ru" => vec![
                    qa(format!("В норме{spec}"), "в норме"),
                    qa("Низкое или нет".into(), "нет, ниже нормы"),
                ],
                _ => vec![
                    qa(format!("In spec{spec}"), "in spec"),
                    qa("Low or none".into(), "out of spec, low"),
                ],
            }
        }
    }
}
