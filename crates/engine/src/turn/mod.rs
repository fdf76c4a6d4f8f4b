//! One turn of the context engine, as a pure function: (state, message) →
//! (new state, intent, transition class, reply, trace). No I/O, no clock, no
//! randomness, so the same transcript always gives the same answers.
//!
//! Invariants kept here (and checked by the property test):
//! - never two fallback replies in a row;
//! - a question never asks a completed step;
//! - no step is asked more than twice;
//! - a subflow (where / what / how) never completes a step;
//! - a diagnostic reply never carries report sections or the separator.
//!
//! One file per concern: `route` (which lane a message belongs to, opening a
//! procedure), `walk` (the walk, facts, the loop guard), `diagnose` (answers,
//! isolation, stated causes, the report), `replan` (after isolation),
//! `labor`, `subflow` (where / what / how, recap, meta, boundaries) and
//! `fallback`; this file holds the types, the entry points and the finish.

mod diagnose;
mod fallback;
mod labor;
mod replan;
mod route;
mod subflow;
mod walk;

use std::sync::Arc;
use ts_rs::TS;

use serde::Serialize;

use super::catalog::{fmt_num, fmt_tenths, Catalog, Procedure, Step, StepKind, Target};
use super::extract::{self, StepAnswer};
use super::lexicon::{self, phrases};
use super::registry::TransitionId;
use super::report::{self, PhotoRef, ReportInput};
use super::state::{
    AgentAction, ClosedComplaint, Fact, FactKind, FactSource, LaborStatus, Mode,
    PendingConfirmation, SessionState, StatedCause, Submode, TopicFrame,
};
use super::understand;

/// Longest message the engine reads; the rest is kept in the turn record.
const MAX_ANALYZED_CHARS: usize = 2_000;
const MAX_ASKS: u32 = 2;
const TOPIC_COOLDOWN_TURNS: u32 = 3;
pub const RECENT_ACTIONS_KEPT: usize = 12;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum ReplyKind {
    Question,
    Answer,
    Clarification,
    Fallback,
    LaborDraft,
    Report,
    Refusal,
}

impl ReplyKind {
    pub fn as_str(self) -> &'static str {
        match self {
            ReplyKind::Question => "question",
            ReplyKind::Answer => "answer",
            ReplyKind::Clarification => "clarification",
            ReplyKind::Fallback => "fallback",
            ReplyKind::LaborDraft => "labor_draft",
            ReplyKind::Report => "report",
            ReplyKind::Refusal => "refusal",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct Reply {
    pub kind: ReplyKind,
    pub text: String,
    pub step_id: Option<String>,
    pub citations: Vec<String>,
}

/// What the engine needs to know about the session besides its state.
#[derive(Debug, Clone, Default)]
pub struct TurnContext {
    /// Prefix for fact ids, so they are unique across sessions (the session id).
    pub id_prefix: String,
    pub complaint: Option<String>,
    pub photos: Vec<PhotoRef>,
}

#[derive(Debug, Clone)]
pub struct TurnOutcome {
    pub state: SessionState,
    pub intent: &'static str,
    pub transition: TransitionId,
    pub reply: Reply,
    pub trace: Vec<String>,
    /// Facts this turn added (also in `state.facts`).
    pub new_facts: Vec<Fact>,
    /// (old fact id, new fact id) pairs this turn superseded.
    pub superseded: Vec<(String, String)>,
    /// A final report written this turn: (revision, text).
    pub report: Option<(u32, String)>,
    /// How each step fact this turn recorded was tied to its step, by fact id.
    pub bases: Vec<(String, extract::Basis)>,
}

/// Where the walk of a procedure stands given the facts.
#[derive(Debug, Clone, PartialEq)]
struct Walk {
    active: Option<usize>,
    finding: Option<usize>,
    /// The unverified check a finding would have rested on: the walk stops
    /// short of a conclusion it cannot stand behind.
    blocked_by: Option<usize>,
}

#[derive(Debug)]
pub struct Engine {
    pub catalog: Arc<Catalog>,
}

struct Turn<'a> {
    engine: &'a Engine,
    ctx: &'a TurnContext,
    st: SessionState,
    text: String,
    trace: Vec<String>,
    new_facts: Vec<Fact>,
    bases: Vec<(String, extract::Basis)>,
    superseded: Vec<(String, String)>,
    report: Option<(u32, String)>,
    /// The confirmation the previous turn asked for: it answers only the
    /// very next message, and only while its step is still the one asked.
    pending: Option<PendingConfirmation>,
    /// Where the session stood before this turn, so the trace's first line
    /// can say what this turn changed.
    before: Before,
}

struct Before {
    procedure: Option<String>,
    finding: Option<String>,
    labor: (LaborStatus, Option<String>),
}

fn sanitize(input: &str) -> String {
    input
        .chars()
        .take(MAX_ANALYZED_CHARS)
        .map(|c| if c.is_control() && c != '\n' { ' ' } else { c })
        .collect::<String>()
        .trim()
        .to_string()
}

impl Engine {
    pub fn new(catalog: impl Into<Arc<Catalog>>) -> Engine {
        Engine {
            catalog: catalog.into(),
        }
    }

    pub fn embedded() -> Result<Engine, super::catalog::CatalogError> {
        Ok(Engine::new(Catalog::embedded_shared()?))
    }

    /// "Back to the step: <question>" for the step the state waits on, in the
    /// session language: how a reply from another lane returns the
    /// technician to the diagnosis.
    pub fn step_prompt(&self, state: &SessionState) -> Option<(String, String)> {
        let p = self.catalog.get(state.active_procedure.as_deref()?)?;
        let step = p
            .steps
            .iter()
            .find(|s| Some(&s.id) == state.active_step.as_ref())?;
        let lang = &state.language;
        Some((
            step.id.clone(),
            format!(
                "{}: {}",
                phrases(lang).back_to_step,
                step.question.get(lang)
            ),
        ))
    }

    /// Finalizes the report from the report preview rather than from a
    /// message: the same as asking for the report, with the technician's
    /// edits merged into the session's and applied. When the diagnosis has
    /// no finding yet the outcome has no report and the reply says why.
    pub fn finalize(
        &self,
        state: &SessionState,
        ctx: &TurnContext,
        edits: report::ReportEdits,
    ) -> TurnOutcome {
        let mut t = Turn::start(self, ctx, state, String::new());
        if !edits.is_empty() {
            // The edits are of the report's first complaint line, the one
            // whose Complaint / Cause / Correction the app lets the
            // technician rewrite: a closed line when the visit has several.
            let first = match t.st.closed_complaints.first_mut() {
                Some(line) => &mut line.report_edits,
                None => &mut t.st.report_edits,
            };
            first.en.merge(edits.en);
            first.translation.merge(edits.translation);
            t.trace.push("report edited before finalizing".into());
        }
        let (_, transition, reply) = t.report_request();
        t.finish("REPORT_FINALIZE", transition, reply)
    }

    pub fn turn(&self, state: &SessionState, ctx: &TurnContext, input: &str) -> TurnOutcome {
        let mut t = Turn::start(self, ctx, state, sanitize(input));
        if is_noise(input) {
            let (intent, transition, reply) = t.noise();
            return t.finish(intent, transition, reply);
        }
        if !t.st.language_locked {
            if let Some(lang) = lexicon::detect_language(&t.text) {
                t.st.language = lang.to_string();
                t.st.language_locked = true;
                t.trace.push(format!("language locked to {lang}"));
            }
        }
        let (intent, transition, reply) = t.route();
        t.finish(intent, transition, reply)
    }
}

impl<'a> Turn<'a> {
    /// A new turn on `state`: the turn counted, and the confirmation the
    /// previous turn asked for taken out of the state (it answers only this
    /// message).
    fn start(engine: &'a Engine, ctx: &'a TurnContext, state: &SessionState, text: String) -> Self {
        let mut st = state.clone();
        let pending = st.pending_confirmation.take();
        st.turn += 1;
        // "motor napryamuyu ot akkuma krutit": Russian typed in Latin
        // letters is read in Cyrillic.
        let text = match (st.language == "ru").then(|| super::translit::cyrillic(&text)) {
            Some(std::borrow::Cow::Owned(cyrillic)) => cyrillic,
            _ => text,
        };
        // "nine point two volts" is read as the 9.2 V it was dictated as.
        let text = match super::spoken::digits_for_spoken_numbers(&text) {
            std::borrow::Cow::Owned(digits) => digits,
            std::borrow::Cow::Borrowed(_) => text,
        };
        // "1) fuse good\n2) 12.4 at the motor": a checklist's numbers go.
        let text = match super::shorthand::without_list_markers(&text) {
            std::borrow::Cow::Owned(plain) => plain,
            std::borrow::Cow::Borrowed(_) => text,
        };
        // "main bkr input", "сейл закр.": shop shorthand written out.
        let text = match super::shorthand::expand(&text) {
            std::borrow::Cow::Owned(full) => full,
            std::borrow::Cow::Borrowed(_) => text,
        };
        // "no problem with the sail switch", "não": read in plain words.
        let text = match super::idioms::plain(&text) {
            std::borrow::Cow::Owned(plain) => plain,
            std::borrow::Cow::Borrowed(_) => text,
        };
        let before = Before {
            procedure: st.active_procedure.clone(),
            finding: st
                .isolation
                .complete
                .then(|| st.isolation.finding.clone())
                .flatten(),
            labor: (st.labor.status, labor_hours_of(&st)),
        };
        Turn {
            engine,
            ctx,
            st,
            text,
            trace: Vec::new(),
            new_facts: Vec::new(),
            bases: Vec::new(),
            superseded: Vec::new(),
            report: None,
            pending,
            before,
        }
    }

    fn lang(&self) -> String {
        self.st.language.clone()
    }

    fn proc(&self) -> Option<&'a Procedure> {
        let id = self.st.active_procedure.as_deref()?;
        self.engine.catalog.get(id)
    }

    /// The steps `text` answers, within the walk of the current complaint.
    fn step_answers(&self, p: &Procedure, active: Option<usize>, text: &str) -> Vec<StepAnswer> {
        let start = self
            .st
            .symptom
            .as_deref()
            .and_then(|s| p.symptoms.iter().find(|x| x.id == s))
            .map(|s| s.start);
        extract::step_answers(p, start, active, text)
    }

    /// A finding as the technician reads it: its cause, in the session language.
    /// The isolated finding (the catalog's or the technician's stated one),
    /// owned so the turn can go on changing the state around it.
    fn isolated(&self, p: &Procedure) -> Option<super::catalog::Finding> {
        self.st
            .isolation
            .finding_in(p)
            .map(std::borrow::Cow::into_owned)
    }

    fn finding_name(&self, p: &Procedure, id: Option<&str>) -> String {
        id.and_then(|id| p.finding(id))
            .map(|f| f.cause.get(&self.lang()).trim_end_matches('.').to_string())
            .unwrap_or_default()
    }

    fn last_action(&self) -> Option<&AgentAction> {
        self.st.recent_actions.last()
    }

    fn active_index(&self, proc: &Procedure) -> Option<usize> {
        self.st
            .active_step
            .as_deref()
            .and_then(|s| proc.step_index(s))
    }

    /// The trace's first line: the class that fired and this turn's values
    /// (the message, the facts recorded with their readings, what they
    /// superseded, the part asked about, the finding, labor, report, and
    /// the step the reply asks or returns to), never the registry's text.
    fn fired(&self, intent: &str, transition: TransitionId, reply: &Reply) -> String {
        let mut said = Vec::new();
        let system = self.st.active_procedure.as_deref();
        if system != self.before.procedure.as_deref() {
            if let Some(sys) = system {
                let symptom = self.st.symptom.as_deref().unwrap_or("?");
                said.push(format!("{sys} opened on symptom {symptom}"));
            }
        }
        if self.new_facts.is_empty() {
            said.push("nothing recorded".into());
        } else {
            let facts: Vec<String> = self.new_facts.iter().map(fact_values).collect();
            said.push(format!("recorded {}", facts.join(", ")));
        }
        for (old, new) in &self.superseded {
            said.push(format!("{old} superseded by {new}"));
        }
        if transition == TransitionId::D2Subflow {
            if let Some(t) = self.st.topic_stack.last() {
                let part = t.topic.split(':').next().unwrap_or(&t.topic);
                said.push(format!("{:?} of {part}", t.submode).to_lowercase());
            }
        }
        let finding = self
            .st
            .isolation
            .complete
            .then_some(self.st.isolation.finding.as_deref())
            .flatten();
        if finding != self.before.finding.as_deref() {
            match finding {
                Some(f) => said.push(format!(
                    "finding {f} isolated{}",
                    if self.st.isolation.invalidated {
                        " (replanned)"
                    } else {
                        ""
                    }
                )),
                None => said.push(format!(
                    "isolation {} reopened",
                    self.before.finding.as_deref().unwrap_or("?")
                )),
            }
        }
        let labor = (self.st.labor.status, labor_hours_of(&self.st));
        if labor != self.before.labor {
            said.push(format!(
                "labor {:?} {} h",
                labor.0,
                labor.1.as_deref().unwrap_or("-")
            ));
        }
        if let Some((rev, _)) = &self.report {
            said.push(format!("report revision {rev} written"));
        }
        let step = reply.step_id.as_deref();
        let reply_part = match (reply.kind, step) {
            (ReplyKind::Question, Some(s)) => format!("asking {s}"),
            (ReplyKind::Clarification, Some(s)) => format!("confirming {s}"),
            (kind, Some(s)) => format!("{} reply, step {s} open", kind.as_str()),
            (kind, None) => format!("{} reply", kind.as_str()),
        };
        format!(
            "{}: {intent} on {} in {} → {}; {reply_part}",
            transition.name(),
            quoted(&self.text),
            system.unwrap_or("no procedure"),
            said.join("; ")
        )
    }

    fn finish(
        mut self,
        intent: &'static str,
        transition: TransitionId,
        reply: Reply,
    ) -> TurnOutcome {
        let topic = if transition == TransitionId::D2Subflow {
            self.st.topic_stack.last().map(|t| t.topic.clone())
        } else if reply.kind != ReplyKind::Question
            && self.st.active_procedure.is_none()
            && transition == TransitionId::D8Fallback
        {
            Some("system_choices".into())
        } else {
            None
        };
        self.st.recent_actions.push(AgentAction {
            turn: self.st.turn,
            kind: reply.kind.as_str().into(),
            step: reply.step_id.clone(),
            topic,
        });
        if self.st.recent_actions.len() > RECENT_ACTIONS_KEPT {
            let extra = self.st.recent_actions.len() - RECENT_ACTIONS_KEPT;
            self.st.recent_actions.drain(..extra);
        }
        if transition != TransitionId::D2Subflow
            && matches!(
                transition,
                TransitionId::D1StepAnswer
                    | TransitionId::D3Replan
                    | TransitionId::D4Terminal
                    | TransitionId::T1RootEntry
            )
        {
            self.st.topic_stack.clear();
            if self.st.submode != Submode::Replan || transition != TransitionId::D3Replan {
                self.st.submode = Submode::Main;
            }
        }
        let fired = self.fired(intent, transition, &reply);
        self.trace.insert(0, fired);
        TurnOutcome {
            state: self.st,
            intent,
            transition,
            reply,
            trace: self.trace,
            new_facts: self.new_facts,
            bases: self.bases,
            superseded: self.superseded,
            report: self.report,
        }
    }
}

/// A turn's labor hours, as the state shows them: confirmed, else estimated.
fn labor_hours_of(st: &SessionState) -> Option<String> {
    st.labor
        .confirmed_hours
        .clone()
        .or_else(|| st.labor.estimated_hours.clone())
}

/// A recorded fact with this turn's values: its name or subject, the
/// outcome it selects and the reading it came with.
fn fact_values(f: &Fact) -> String {
    let name = f.name.as_deref().unwrap_or(&f.subject);
    let mut s = match &f.outcome {
        Some(o) => format!("{name} = {o}"),
        None => name.to_string(),
    };
    if let Some(v) = &f.value {
        s.push_str(&format!(
            " ({v}{})",
            f.unit
                .as_deref()
                .map(|u| format!(" {u}"))
                .unwrap_or_default()
        ));
    }
    s
}

/// The first 60 characters of a message, quoted for a trace line.
pub fn quoted(input: &str) -> String {
    let clean: String = input
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect();
    let clean = clean.trim();
    let mut head: String = clean.chars().take(60).collect();
    if clean.chars().count() > 60 {
        head.push('…');
    }
    format!("«{head}»")
}

/// Nothing a person wrote: no letter or digit at all, or a message that is
/// mostly undecodable bytes and control characters (a binary file pasted in).
pub fn is_noise(input: &str) -> bool {
    let mut total = 0usize;
    let mut junk = 0usize;
    let mut readable = false;
    for c in input.chars().take(MAX_ANALYZED_CHARS) {
        total += 1;
        if c == '\u{FFFD}' || (c.is_control() && !c.is_whitespace()) {
            junk += 1;
        } else if c.is_alphanumeric() {
            readable = true;
        }
    }
    !readable || junk * 10 > total
}

fn extract_choice(text: &str) -> Option<usize> {
    text.trim().trim_end_matches('.').parse().ok()
}

/// Labor hours in a confirmation ("make it 2.5", "2.5 hours", "1,5 ч"),
/// in tenths. Bare numbers count only with a labor word or "make it".
fn labor_hours(text: &str) -> Option<u32> {
    let has_context = lexicon::LABOR_REQUEST.is_match(text)
        || regex_lite_make_it(text)
        || text
            .trim()
            .chars()
            .all(|c| c.is_ascii_digit() || c == '.' || c == ',' || c.is_whitespace());
    if !has_context {
        return None;
    }
    let caps = lexicon::HOURS.captures(text)?;
    let raw = caps.get(2)?.as_str().replace(',', ".");
    let (whole, frac) = raw.split_once('.').unwrap_or((&raw, "0"));
    let whole: u32 = whole.parse().ok()?;
    let mut digits = frac.chars().map(|c| c.to_digit(10).unwrap_or(0));
    let tenths = digits.next().unwrap_or(0);
    let round_up = digits.next().unwrap_or(0) >= 5;
    let t = whole * 10 + tenths + u32::from(round_up);
    (1..=999).contains(&t).then_some(t)
}

fn regex_lite_make_it(text: &str) -> bool {
    let t = text.to_lowercase();
    [
        "make it",
        "set it",
        "change it",
        "should be",
        "ponle",
        "pon ",
        "сделай",
        "поставь",
        "пусть будет",
    ]
    .iter()
    .any(|p| t.contains(p))
}
