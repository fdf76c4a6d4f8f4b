//! `SessionState`: the one aggregate that owns all cross-turn continuity of a
//! session. It is stored as a versioned JSON snapshot per turn; a snapshot
//! written by an older build is migrated on load, one version at a time, so a
//! technician's open session survives an app update.

use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

/// Schema version of the serialized state written by this build.
pub const STATE_VERSION: u32 = 2;

#[derive(Debug, thiserror::Error)]
pub enum StateError {
    #[error("session state version {found} is newer than this app understands ({supported}); update the app")]
    TooNew { found: u32, supported: u32 },
    #[error("session state snapshot is malformed: {0}")]
    Malformed(String),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default, TS)]
#[serde(rename_all = "snake_case")]
pub enum Mode {
    #[default]
    Diagnostic,
    Authorization,
    FinalReport,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default, TS)]
#[serde(rename_all = "snake_case")]
pub enum Submode {
    #[default]
    Main,
    Locate,
    Explain,
    Howto,
    Replan,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum FactKind {
    Measurement,
    Observation,
    Finding,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum FactSource {
    Technician,
    Inference,
}

/// Something the technician said or the engine inferred. Facts are never
/// edited: a correction supersedes the old fact and points to the new one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct Fact {
    pub id: String,
    pub kind: FactKind,
    pub source: FactSource,
    pub subject: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unit: Option<String>,
    pub text: String,
    /// The turn that produced it.
    pub turn_seq: u32,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub superseded_by: Option<String>,
    /// The stable name transcripts assert (`motor_runs_direct_power`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The step outcome this fact selects (`yes`, `no`, `ok`, `low`, `high`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outcome: Option<String>,
}

impl Fact {
    pub fn is_current(&self) -> bool {
        self.superseded_by.is_none()
    }
}

/// One thing the assistant did, kept for the loop guard.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct AgentAction {
    pub turn: u32,
    /// The reply kind (`question`, `fallback`, `answer`, ...).
    pub kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub topic: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, TS)]
#[serde(default)]
pub struct Isolation {
    pub complete: bool,
    pub finding: Option<String>,
    pub invalidated: bool,
    /// The cause and correction in the technician's own words, when the
    /// finding is one they stated that the catalog does not have
    /// (`finding` is then `Finding::STATED`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stated: Option<StatedCause>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct PendingConfirmation {
    pub step: String,
    pub outcome: String,
    /// The words the tentative answer came from.
    pub text: String,
    /// The reading the words gave, kept for the fact a yes records.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unit: Option<String>,
}

/// A complaint of this visit whose diagnosis is closed: everything its
/// block of the report needs, kept when the next complaint is diagnosed.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, TS)]
#[serde(default)]
pub struct ClosedComplaint {
    pub system: String,
    pub symptom: Option<String>,
    pub isolation: Isolation,
    pub repair_done: bool,
    /// The labor of its block, in tenths of an hour.
    pub labor_tenths: u32,
    /// Whether that labor was confirmed, skipped or left a draft.
    pub labor_status: LaborStatus,
    /// Steps that could not be verified.
    pub unverified: Vec<String>,
    /// The facts its diagnosis recorded.
    pub facts: Vec<Fact>,
    pub report_edits: super::report::ReportEdits,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, TS)]
pub struct StatedCause {
    pub cause: String,
    pub correction: String,
}

impl Isolation {
    /// The isolated finding: the catalog's, or the technician's stated one.
    pub fn finding_in<'a>(
        &self,
        p: &'a super::catalog::Procedure,
    ) -> Option<std::borrow::Cow<'a, super::catalog::Finding>> {
        let id = self.finding.as_deref()?;
        if let Some(f) = p.finding(id) {
            return Some(std::borrow::Cow::Borrowed(f));
        }
        let s = self.stated.as_ref()?;
        (id == super::catalog::Finding::STATED).then(|| {
            std::borrow::Cow::Owned(super::catalog::Finding::stated(&s.cause, &s.correction))
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default, TS)]
#[serde(rename_all = "snake_case")]
pub enum LaborStatus {
    #[default]
    None,
    Draft,
    Confirmed,
    Skipped,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, TS)]
#[serde(default)]
pub struct Labor {
    pub status: LaborStatus,
    /// Decimal hours as strings ("1.50") so no float rounding reaches a report.
    pub estimated_hours: Option<String>,
    pub confirmed_hours: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct TopicFrame {
    pub submode: Submode,
    pub topic: String,
    /// The step the technician was on when the subflow was pushed: popping returns here.
    pub return_step: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, TS)]
#[serde(default)]
pub struct Escalation {
    pub escalated: bool,
    pub reason: Option<String>,
}

/// The aggregate. Every field has a default so a snapshot missing a field
/// added later still loads.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
#[serde(default)]
pub struct SessionState {
    pub version: u32,
    pub language: String,
    pub mode: Mode,
    pub submode: Submode,
    pub active_procedure: Option<String>,
    pub active_step: Option<String>,
    pub completed_steps: Vec<String>,
    pub open_steps: Vec<String>,
    pub facts: Vec<Fact>,
    pub hypotheses: Vec<String>,
    pub contradictions: Vec<String>,
    pub isolation: Isolation,
    pub topic_stack: Vec<TopicFrame>,
    /// Most recent agent actions, newest last, for the loop guard.
    pub recent_actions: Vec<AgentAction>,
    /// The symptom that started the active procedure.
    pub symptom: Option<String>,
    /// Set once the technician's language is known; later turns never change it.
    pub language_locked: bool,
    /// How many times each step has been asked.
    pub asked: std::collections::BTreeMap<String, u32>,
    /// Number of turns in the session.
    pub turn: u32,
    /// The technician reported the repair done and the unit working.
    pub repair_done: bool,
    /// Final report revisions written so far.
    pub report_revision: u32,
    pub labor: Labor,
    pub escalation: Escalation,
    /// Lane-specific state (clarification loop, billing slots, ...) that later
    /// lanes own; kept as JSON so this aggregate does not depend on them.
    pub lanes: serde_json::Map<String, Value>,
    /// The technician's own wording for the report's 3C paragraphs.
    #[serde(default, skip_serializing_if = "super::report::ReportEdits::is_empty")]
    pub report_edits: super::report::ReportEdits,
    /// An answer the engine asked the technician to confirm ("So the panel
    /// fuse is OK?"): recorded only on a yes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pending_confirmation: Option<PendingConfirmation>,
    /// What the complaint said about a check ("blower doesn't even come
    /// on"): the customer's words, not a verified check, so nothing is
    /// recorded; when the walk reaches the check it is put as a question to
    /// confirm instead of asked as if nothing had been said.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reported: Vec<PendingConfirmation>,
    /// Further complaints of this visit ("also the water heater won't
    /// light"), as `system:symptom`, each diagnosed after the current one.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub queued_complaints: Vec<String>,
    /// Complaints of this visit already diagnosed, in order; the current
    /// one is the last block of the report.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub closed_complaints: Vec<ClosedComplaint>,
    /// Complaint lines of this visit written up as not diagnosed (the
    /// technician asked for the report before any of them was started), as
    /// `system:symptom`, in order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub undiagnosed_complaints: Vec<String>,
}

impl Default for SessionState {
    fn default() -> Self {
        Self {
            version: STATE_VERSION,
            language: "en".to_owned(),
            mode: Mode::default(),
            submode: Submode::default(),
            active_procedure: None,
            active_step: None,
            completed_steps: Vec::new(),
            open_steps: Vec::new(),
            facts: Vec::new(),
            hypotheses: Vec::new(),
            contradictions: Vec::new(),
            isolation: Isolation::default(),
            topic_stack: Vec::new(),
            recent_actions: Vec::new(),
            symptom: None,
            language_locked: false,
            asked: Default::default(),
            turn: 0,
            repair_done: false,
            report_revision: 0,
            labor: Labor::default(),
            escalation: Escalation::default(),
            lanes: serde_json::Map::new(),
            report_edits: Default::default(),
            queued_complaints: Vec::new(),
            closed_complaints: Vec::new(),
            undiagnosed_complaints: Vec::new(),
            pending_confirmation: None,
            reported: Vec::new(),
        }
    }
}

impl SessionState {
    pub fn new(language: &str) -> Self {
        Self {
            language: language.to_owned(),
            ..Self::default()
        }
    }

    /// The report can be written: the cause is isolated (a reported repair
    /// isolates its finding too), or no complaint is open and at least one
    /// line of the visit was closed. The engine and the app's view both ask
    /// this.
    pub fn report_ready(&self) -> bool {
        self.isolation.complete
            || (self.active_procedure.is_none() && !self.closed_complaints.is_empty())
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self)
            .expect("SessionState serializes: it holds only strings, numbers and maps")
    }

    /// Load a snapshot written by this or any older build.
    pub fn from_snapshot(version: u32, json: &str) -> Result<Self, StateError> {
        if version > STATE_VERSION {
            return Err(StateError::TooNew {
                found: version,
                supported: STATE_VERSION,
            });
        }
        let mut value: Value =
            serde_json::from_str(json).map_err(|e| StateError::Malformed(e.to_string()))?;
        let mut at = version;
        while at < STATE_VERSION {
            value = migrate_one(at, value)?;
            at += 1;
        }
        let mut state: SessionState =
            serde_json::from_value(value).map_err(|e| StateError::Malformed(e.to_string()))?;
        state.version = STATE_VERSION;
        Ok(state)
    }
}

/// Upgrade a snapshot from `from` to `from + 1`.
fn migrate_one(from: u32, mut value: Value) -> Result<Value, StateError> {
    match from {
        // Version 0 was the pre-release shape: `lang` instead of `language`
        // and no `version` field.
        0 => {
            let obj = value
                .as_object_mut()
                .ok_or_else(|| StateError::Malformed("snapshot is not a JSON object".into()))?;
            if let Some(lang) = obj.remove("lang") {
                obj.entry("language").or_insert(lang);
            }
            obj.insert("version".into(), Value::from(1));
            Ok(value)
        }
        // Version 1 kept recent actions as bare strings; version 2 records
        // the reply kind and step the loop guard needs.
        1 => {
            let obj = value
                .as_object_mut()
                .ok_or_else(|| StateError::Malformed("snapshot is not a JSON object".into()))?;
            if let Some(Value::Array(actions)) = obj.get_mut("recent_actions") {
                for a in actions.iter_mut() {
                    if let Value::String(kind) = a {
                        *a = serde_json::json!({"turn": 0, "kind": kind.clone()});
                    }
                }
            }
            obj.insert("version".into(), Value::from(2));
            Ok(value)
        }
        other => Err(StateError::Malformed(format!(
            "no migration from state version {other}"
        ))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_through_json() {
        let mut s = SessionState::new("es");
        s.completed_steps.push("fuse".into());
        s.facts.push(Fact {
            id: "f1".into(),
            kind: FactKind::Measurement,
            source: FactSource::Technician,
            subject: "board_supply".into(),
            value: Some("12.4".into()),
            unit: Some("VDC".into()),
            text: "12.4 V at the board".into(),
            turn_seq: 1,
            superseded_by: None,
            name: None,
            outcome: Some("ok".into()),
        });
        let back = SessionState::from_snapshot(STATE_VERSION, &s.to_json()).unwrap();
        assert_eq!(back, s);
    }

    #[test]
    fn migrates_a_version_zero_snapshot() {
        let old = r#"{"lang":"ru","completed_steps":["a"]}"#;
        let s = SessionState::from_snapshot(0, old).unwrap();
        assert_eq!(s.language, "ru");
        assert_eq!(s.completed_steps, vec!["a".to_string()]);
        assert_eq!(s.version, STATE_VERSION);
    }

    #[test]
    fn migrates_version_one_recent_actions() {
        let old = r#"{"version":1,"language":"en","recent_actions":["fallback","question"]}"#;
        let s = SessionState::from_snapshot(1, old).unwrap();
        assert_eq!(s.recent_actions.len(), 2);
        assert_eq!(s.recent_actions[0].kind, "fallback");
    }

    #[test]
    fn refuses_a_snapshot_from_a_newer_app() {
        let err = SessionState::from_snapshot(STATE_VERSION + 1, "{}").unwrap_err();
        assert!(err.to_string().contains("newer than this app"));
    }

    #[test]
    fn malformed_snapshot_is_an_error_not_a_panic() {
        assert!(SessionState::from_snapshot(1, "[1,2").is_err());
        assert!(SessionState::from_snapshot(0, "[]").is_err());
    }
}
