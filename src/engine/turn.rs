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

use std::sync::Arc;

use serde::Serialize;

use super::catalog::{fmt_num, fmt_tenths, Catalog, Procedure, Step, StepKind, Target};
use super::extract::{self, StepAnswer};
use super::lexicon::{self, phrases};
use super::registry::TransitionId;
use super::report::{self, PhotoRef, ReportInput};
use super::state::{
    AgentAction, Fact, FactKind, FactSource, LaborStatus, Mode, PendingConfirmation, SessionState,
    StatedCause, Submode, TopicFrame,
};
use super::understand;

/// Longest message the engine reads; the rest is kept in the turn record.
const MAX_ANALYZED_CHARS: usize = 2_000;
const MAX_ASKS: u32 = 2;
const TOPIC_COOLDOWN_TURNS: u32 = 3;
pub const RECENT_ACTIONS_KEPT: usize = 12;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
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

#[derive(Debug, Clone, PartialEq, Serialize)]
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
    superseded: Vec<(String, String)>,
    report: Option<(u32, String)>,
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
        let mut t = Turn {
            engine: self,
            ctx,
            st: state.clone(),
            text: String::new(),
            trace: Vec::new(),
            new_facts: Vec::new(),
            superseded: Vec::new(),
            report: None,
        };
        t.st.turn += 1;
        if !edits.is_empty() {
            t.st.report_edits.en.merge(edits.en);
            t.st.report_edits.translation.merge(edits.translation);
            t.trace.push("report edited before finalizing".into());
        }
        let (_, transition, reply) = t.report_request();
        t.finish("REPORT_FINALIZE", transition, reply)
    }

    pub fn turn(&self, state: &SessionState, ctx: &TurnContext, input: &str) -> TurnOutcome {
        let mut t = Turn {
            engine: self,
            ctx,
            st: state.clone(),
            text: sanitize(input),
            trace: Vec::new(),
            new_facts: Vec::new(),
            superseded: Vec::new(),
            report: None,
        };
        t.st.turn += 1;
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

    // ------------------------------------------------------------ routing

    fn route(&mut self) -> (&'static str, TransitionId, Reply) {
        let text = self.text.clone();
        let has_content = text.chars().any(|c| c.is_alphanumeric());
        if !has_content {
            self.trace
                .push("no letters or digits in the message".into());
            return self.unclear();
        }
        if let Some(lang) = understand::language_request(&text) {
            return self.switch_language(lang);
        }
        if lexicon::REPORT.is_match(&text) && !understand::is_question(&text) {
            self.trace.push("report phrasing matched".into());
            return self.report_request();
        }
        let Some(proc) = self.proc() else {
            return self.no_procedure();
        };
        if (!self.st.topic_stack.is_empty() || self.st.submode != Submode::Main)
            && lexicon::RESUME.is_match(&text)
        {
            return self.resume(proc);
        }
        if self.st.pending_confirmation.is_some() {
            if let Some(done) = self.confirmation_reply(proc) {
                return done;
            }
        }
        if lexicon::NEW_SYSTEM.is_match(&text) {
            if let Some((pi, si)) = self.symptom_named(&text, Some(&proc.system)) {
                return self.new_complaint(pi, si);
            }
        }
        // "ok", "hold on", "ok let me check": the step stays open.
        if !self.st.isolation.complete && understand::is_ack(&text) {
            self.trace
                .push("acknowledgment: nothing stated, the step stays open".into());
            let (_, transition, mut reply) = self.resume(proc);
            if reply.kind == ReplyKind::Question {
                let l = phrases(&self.lang());
                reply.text = format!("{}: {}", l.take_your_time, reply.text);
            }
            return ("ACK", transition, reply);
        }
        if lexicon::HOWTO.is_match(&text) {
            return self.subflow(proc, Submode::Howto, "HOWTO");
        }
        if lexicon::LOCATE.is_match(&text) {
            return self.subflow(proc, Submode::Locate, "LOCATE");
        }
        if lexicon::EXPLAIN.is_match(&text) && text.contains('?')
            || lexicon::EXPLAIN.is_match(&text)
                && self.step_answers(proc, None, &text).is_empty()
                && !lexicon::META.is_match(&text)
        {
            return self.subflow(proc, Submode::Explain, "EXPLAIN");
        }
        if lexicon::RECAP.is_match(&text) {
            return self.recap(proc);
        }
        if self.st.isolation.complete {
            return self.after_isolation(proc);
        }
        if let Some(f) = extract::repair_done(proc, &text) {
            return self.repair(proc, f);
        }
        if lexicon::BILLING.is_match(&text)
            && self
                .step_answers(proc, self.active_index(proc), &text)
                .is_empty()
        {
            return self.boundary("BILLING", phrases(&self.lang()).boundary_billing);
        }
        if lexicon::DISPUTE.is_match(&text) && self.step_answers(proc, None, &text).is_empty() {
            return self.dispute(proc);
        }
        if lexicon::META.is_match(&text) {
            return self.meta(proc);
        }
        if lexicon::LABOR_REQUEST.is_match(&text)
            && self
                .step_answers(proc, self.active_index(proc), &text)
                .is_empty()
        {
            let p = phrases(&self.lang()).no_labor_yet;
            return self.boundary("CONFIRMATION", p);
        }
        self.diagnostic(proc, "MAIN_DIAGNOSTIC")
    }

    fn active_index(&self, proc: &Procedure) -> Option<usize> {
        self.st
            .active_step
            .as_deref()
            .and_then(|s| proc.step_index(s))
    }

    // ------------------------------------------------------------ no procedure yet

    fn no_procedure(&mut self) -> (&'static str, TransitionId, Reply) {
        let text = self.text.clone();
        // A pick from the system list we offered.
        if self
            .last_action()
            .is_some_and(|a| a.topic.as_deref() == Some("system_choices"))
        {
            if let Some(n) = extract_choice(&text) {
                if let Some(p) = self.engine.catalog.procedures.get(n.wrapping_sub(1)) {
                    self.trace
                        .push(format!("picked system {n} from the offered list"));
                    return self.root_entry(p, 0);
                }
            }
        }
        if let Some((pi, si)) = self.symptom_named(&text, None) {
            let p = &self.engine.catalog.procedures[pi];
            return self.root_entry(p, si);
        }
        // The complaint the writer typed when opening the session opens its
        // diagnosis: the technician's first notes answer its steps and are
        // never a retyping of the complaint.
        if let Some((pi, si)) = self
            .ctx
            .complaint
            .as_deref()
            .and_then(|c| self.symptom_named(c, None))
        {
            let p = &self.engine.catalog.procedures[pi];
            self.trace
                .push("the session's complaint opens the diagnosis".into());
            return self.root_entry(p, si);
        }
        if lexicon::BILLING.is_match(&text) {
            return self.boundary("BILLING", phrases(&self.lang()).boundary_billing);
        }
        self.trace.push("no system symptom matched".into());
        self.unclear()
    }

    /// The symptom a message names (the longest match over the catalog),
    /// leaving out the procedure `except`.
    fn symptom_named(&self, text: &str, except: Option<&str>) -> Option<(usize, usize)> {
        let mut best: Option<(usize, usize, usize)> = None; // (len, proc, symptom)
        for (pi, p) in self.engine.catalog.procedures.iter().enumerate() {
            if Some(p.system.as_str()) == except {
                continue;
            }
            for (si, s) in p.symptoms.iter().enumerate() {
                if let Some(len) = s.patterns.longest_match(text) {
                    if best.is_none_or(|b| len > b.0) {
                        best = Some((len, pi, si));
                    }
                }
            }
        }
        best.map(|(_, pi, si)| (pi, si))
    }

    /// "Also the water heater won't light": a second complaint of the visit
    /// is queued with its own procedure, and the current step goes on.
    fn new_complaint(&mut self, pi: usize, si: usize) -> (&'static str, TransitionId, Reply) {
        let p = &self.engine.catalog.procedures[pi];
        let key = format!("{}:{}", p.system, p.symptoms[si].id);
        if !self.st.queued_complaints.contains(&key) {
            self.st.queued_complaints.push(key.clone());
        }
        self.trace.push(format!("second complaint queued: {key}"));
        let lang = self.lang();
        let l = phrases(&lang);
        let mut text = format!(
            "{}: {}.",
            l.complaint_queued,
            p.symptoms[si].complaint.get(&lang)
        );
        if let Some(cur) = self.proc() {
            if let Some(i) = self.active_index(cur) {
                text.push_str(&format!(
                    "\n{}: {}",
                    l.back_to_step,
                    cur.steps[i].question.get(&lang)
                ));
            } else if self.st.isolation.complete {
                text.push_str(&format!(" {}", l.offer));
            }
        }
        (
            "NEW_COMPLAINT",
            TransitionId::T8Meta,
            Reply {
                kind: ReplyKind::Answer,
                text,
                step_id: self.st.active_step.clone(),
                citations: vec![format!("procedure:{}#{}", p.system, p.symptoms[si].id)],
            },
        )
    }

    fn root_entry(
        &mut self,
        p: &'a Procedure,
        symptom: usize,
    ) -> (&'static str, TransitionId, Reply) {
        let s = &p.symptoms[symptom];
        self.trace
            .push(format!("symptom `{}` of `{}` matched", s.id, p.system));
        self.st.active_procedure = Some(p.system.clone());
        self.st.symptom = Some(s.id.clone());
        self.st.mode = Mode::Diagnostic;
        self.st.submode = Submode::Main;
        self.st.topic_stack.clear();
        let text = self.text.clone();
        // Facts in the opening message count too, but only where it names a
        // step's subject.
        // The clause that states the complaint ("TV won't turn on") is the
        // complaint, not an answer to the step that checks it; a reading in
        // it ("pv input 0 V") is still a reading.
        let complaint_clause = extract::clauses(&text)
            .into_iter()
            .find(|c| s.patterns.is_match(c))
            .map(str::to_string);
        let answers: Vec<StepAnswer> = self
            .step_answers(p, None, &text)
            .into_iter()
            .filter(|a| a.quantity.is_some() || Some(&a.clause) != complaint_clause.as_ref())
            .collect();
        let noted = self.apply_answers(p, &answers);
        let walk = self.walk(p);
        if walk.finding.is_some() {
            return self.terminal(p, walk, "MAIN_DIAGNOSTIC", TransitionId::T1RootEntry, noted);
        }
        let l = phrases(&self.lang());
        let lead = format!("{} — {}.", p.title.get(&self.lang()), l.start);
        let lead = if noted.is_empty() {
            lead
        } else {
            format!("{lead} {noted}")
        };
        let reply = self.ask_next(p, walk, &lead);
        ("MAIN_DIAGNOSTIC", TransitionId::T1RootEntry, reply)
    }

    // ------------------------------------------------------------ the walk

    /// Recomputes the active step and isolation from the facts. Signals
    /// first: the latest signal, evidence or repair fact decides where the
    /// walk starts.
    fn walk(&self, p: &Procedure) -> Walk {
        let current: Vec<&Fact> = self.st.facts.iter().filter(|f| f.is_current()).collect();
        let mut start: Option<Target> = None;
        for f in &current {
            if let Some(id) = f.subject.strip_prefix("repair:") {
                if let Some(i) = p.finding_index(id) {
                    return Walk {
                        active: None,
                        finding: Some(i),
                        blocked_by: None,
                    };
                }
            }
            if let Some(id) = f.subject.strip_prefix("evidence:") {
                if let Some(e) = p.evidence.iter().find(|e| e.id == id) {
                    start = Some(e.target);
                }
            } else if let (Some(si), Some(o)) = (p.step_index(&f.subject), f.outcome.as_deref()) {
                if let Some(out) = p.steps[si].outcome(o) {
                    if out.signal {
                        start = Some(out.signal_target);
                    }
                }
            }
        }
        let symptom_start = self
            .st
            .symptom
            .as_deref()
            .and_then(|s| p.symptoms.iter().find(|x| x.id == s))
            .map(|s| s.start)
            .unwrap_or(0);
        let mut at = start.unwrap_or(Target::Step(symptom_start));
        let mut seen = std::collections::HashSet::new();
        let mut via_unverified: Option<usize> = None;
        loop {
            match at {
                Target::Finding(f) => {
                    // Unverified means unknown: a finding never rests on a
                    // check nobody could make.
                    if let Some(step) = via_unverified {
                        return Walk {
                            active: None,
                            finding: None,
                            blocked_by: Some(step),
                        };
                    }
                    return Walk {
                        active: None,
                        finding: Some(f),
                        blocked_by: None,
                    };
                }
                Target::Step(i) => {
                    if !seen.insert(i) {
                        return Walk {
                            active: None,
                            finding: None,
                            blocked_by: None,
                        };
                    }
                    let answer = current.iter().rev().find(|f| f.subject == p.steps[i].id);
                    match answer.and_then(|f| p.steps[i].outcome(f.outcome.as_deref()?)) {
                        Some(o) => {
                            via_unverified = answer
                                .is_some_and(|f| f.source == FactSource::Inference)
                                .then_some(i);
                            at = o.target;
                        }
                        None => {
                            return Walk {
                                active: Some(i),
                                finding: None,
                                blocked_by: None,
                            }
                        }
                    }
                }
            }
        }
    }

    fn current_fact(&self, subject: &str) -> Option<&Fact> {
        self.st
            .facts
            .iter()
            .rev()
            .find(|f| f.is_current() && f.subject == subject)
    }

    fn add_fact(&mut self, mut fact: Fact) -> String {
        let id = format!(
            "{}t{}-f{}",
            self.ctx.id_prefix,
            self.st.turn,
            self.new_facts.len() + 1
        );
        fact.id = id.clone();
        fact.turn_seq = self.st.turn;
        self.st.facts.push(fact.clone());
        self.new_facts.push(fact);
        id
    }

    fn supersede(&mut self, old_id: &str, new_id: &str) {
        for f in self.st.facts.iter_mut() {
            if f.id == old_id && f.superseded_by.is_none() {
                f.superseded_by = Some(new_id.to_string());
                self.superseded
                    .push((old_id.to_string(), new_id.to_string()));
            }
        }
    }

    /// Records the answers as facts; returns the "Noted: ..." sentence.
    fn apply_answers(&mut self, p: &Procedure, answers: &[StepAnswer]) -> String {
        let l = phrases(&self.lang());
        let mut noted = Vec::new();
        for a in answers {
            let step = &p.steps[a.step];
            let outcome = step.outcome(&a.outcome);
            let value = a
                .quantity
                .map(|q| fmt_num(q.value))
                .unwrap_or_else(|| a.outcome.clone());
            if let Some(old) = self.current_fact(&step.id) {
                if old.outcome.as_deref() == Some(a.outcome.as_str())
                    && old.value.as_deref() == Some(value.as_str())
                {
                    continue;
                }
            }
            let old = self
                .current_fact(&step.id)
                .map(|f| (f.id.clone(), f.outcome.clone()));
            let id = self.add_fact(Fact {
                id: String::new(),
                kind: if a.quantity.is_some() {
                    FactKind::Measurement
                } else {
                    FactKind::Observation
                },
                source: FactSource::Technician,
                subject: step.id.clone(),
                value: Some(value.clone()),
                unit: a.quantity.map(|q| q.unit.symbol().to_string()),
                text: a.clause.clone(),
                turn_seq: 0,
                superseded_by: None,
                name: Some(
                    outcome
                        .and_then(|o| o.fact.clone())
                        .unwrap_or_else(|| format!("{}={}", step.id, a.outcome)),
                ),
                outcome: Some(a.outcome.clone()),
            });
            if let Some((old_id, old_outcome)) = old.clone() {
                self.supersede(&old_id, &id);
                if old_outcome.as_deref() != Some(a.outcome.as_str()) {
                    self.st.contradictions.push(format!(
                        "{}: {} → {} (turn {})",
                        step.id,
                        old_outcome.unwrap_or_default(),
                        a.outcome,
                        self.st.turn
                    ));
                }
            }
            if !self.st.completed_steps.contains(&step.id) {
                self.st.completed_steps.push(step.id.clone());
            }
            self.st.open_steps.retain(|s| s != &step.id);
            self.trace.push(format!(
                "fact: {} = {} ({:?})",
                step.id, a.outcome, a.clause
            ));
            let shown = match (a.quantity, step.kind) {
                (Some(q), _) => {
                    let judgement = match a.outcome.as_str() {
                        "low" => l.low,
                        "high" => l.high,
                        _ => l.in_spec,
                    };
                    let spec = step
                        .spec_text()
                        .map(|s| format!(", {s}"))
                        .unwrap_or_default();
                    format!(
                        "{}: {} {} ({judgement}{spec})",
                        step.label.get(&self.lang()),
                        fmt_num(q.value),
                        q.unit.symbol()
                    )
                }
                (None, StepKind::YesNo) => format!(
                    "{}: {}",
                    step.label.get(&self.lang()),
                    if a.outcome == "yes" { l.yes } else { l.no }
                ),
                (None, StepKind::Measurement) => format!(
                    "{}: {}",
                    step.label.get(&self.lang()),
                    match a.outcome.as_str() {
                        "low" => l.low,
                        "high" => l.high,
                        _ => l.in_spec,
                    }
                ),
            };
            // "No wait, the fuse was blown": say what the correction changed.
            let shown = match &old {
                Some((_, Some(was))) if was != &a.outcome => {
                    let was = match (step.kind, was.as_str()) {
                        (StepKind::YesNo, "yes") => l.yes,
                        (StepKind::YesNo, _) => l.no,
                        (_, "low") => l.low,
                        (_, "high") => l.high,
                        _ => l.in_spec,
                    };
                    format!("{} ({}: {was})", shown, l.was)
                }
                _ => shown,
            };
            noted.push(shown);
            if a.signal {
                self.trace.push(format!(
                    "signal: {} = {} jumps the walk",
                    step.id, a.outcome
                ));
            }
        }
        if noted.is_empty() {
            String::new()
        } else {
            format!("{}: {}.", l.noted, noted.join("; "))
        }
    }

    fn sync_walk_state(&mut self, p: &Procedure, walk: &Walk) {
        self.st.active_step = walk.active.map(|i| p.steps[i].id.clone());
        self.st.completed_steps.retain(|s| {
            self.st
                .facts
                .iter()
                .any(|f| f.is_current() && &f.subject == s)
        });
        self.st.hypotheses = walk
            .finding
            .map(|f| vec![p.findings[f].id.clone()])
            .unwrap_or_default();
    }

    /// Asks the walk's active step (or marks it unverified if it was asked
    /// twice already, and moves on).
    fn ask_next(&mut self, p: &'a Procedure, mut walk: Walk, lead: &str) -> Reply {
        let l = phrases(&self.lang());
        let mut lead = lead.to_string();
        loop {
            self.sync_walk_state(p, &walk);
            let Some(i) = walk.active else {
                if walk.finding.is_none() {
                    return self.cannot_conclude(p, walk.blocked_by, &lead);
                }
                // Reached a finding while skipping unverified steps.
                let (_, _, reply) = self.terminal(
                    p,
                    walk,
                    "MAIN_DIAGNOSTIC",
                    TransitionId::D4Terminal,
                    lead.clone(),
                );
                return reply;
            };
            let step = &p.steps[i];
            if self.st.asked.get(&step.id).copied().unwrap_or(0) < MAX_ASKS {
                return self.question(step, &lead);
            }
            lead = format!("{lead} {}", l.unverified).trim().to_string();
            self.mark_unverified(step);
            walk = self.walk(p);
        }
    }

    /// The walk cannot reach a finding it can stand behind (the one ahead
    /// rests on a check that could not be verified): the session goes to a
    /// senior technician, with the reason, instead of a guessed cause.
    fn cannot_conclude(&mut self, p: &Procedure, blocked_by: Option<usize>, lead: &str) -> Reply {
        let lang = self.lang();
        let l = phrases(&lang);
        let unverified: Vec<&str> = self
            .st
            .open_steps
            .iter()
            .filter_map(|s| p.step(s))
            .map(|s| s.label.get(&lang))
            .collect();
        let reason = match blocked_by {
            Some(i) => format!(
                "cause not isolated: {} not verified",
                p.steps[i].label.get("en")
            ),
            None => "cause not isolated: the procedure has no further check".to_string(),
        };
        self.st.escalation.escalated = true;
        self.st.escalation.reason = Some(reason.clone());
        self.st.active_step = None;
        self.st.hypotheses.clear();
        self.trace.push(format!("escalated: {reason}"));
        let mut text = lead.trim().to_string();
        if !text.is_empty() {
            text.push('\n');
        }
        text.push_str(l.cannot_conclude);
        if !unverified.is_empty() {
            text.push_str(&format!(" ({})", unverified.join(", ")));
        }
        text.push_str(&format!(". {}", l.escalated));
        Reply {
            kind: ReplyKind::Answer,
            text,
            step_id: None,
            citations: vec![],
        }
    }

    fn mark_unverified(&mut self, step: &Step) {
        let normal = match step.kind {
            StepKind::YesNo => "yes",
            StepKind::Measurement => "ok",
        };
        self.add_fact(Fact {
            id: String::new(),
            kind: FactKind::Finding,
            source: FactSource::Inference,
            subject: step.id.clone(),
            value: Some("not verified".into()),
            unit: None,
            text: format!("{} not verified after {MAX_ASKS} askings", step.id),
            turn_seq: 0,
            superseded_by: None,
            name: Some(format!("{}=unverified", step.id)),
            outcome: Some(normal.into()),
        });
        if !self.st.open_steps.contains(&step.id) {
            self.st.open_steps.push(step.id.clone());
        }
        self.trace.push(format!(
            "loop guard: {} asked {MAX_ASKS} times; marked not verified",
            step.id
        ));
    }

    /// Asks `step`, counting the asking for the loop guard.
    fn question(&mut self, step: &Step, lead: &str) -> Reply {
        *self.st.asked.entry(step.id.clone()).or_insert(0) += 1;
        self.step_reply(step, lead)
    }

    /// The reply that puts `step`'s question, without counting it.
    fn step_reply(&self, step: &Step, lead: &str) -> Reply {
        let q = step.question.get(&self.lang());
        let text = if lead.is_empty() {
            q.to_string()
        } else {
            format!("{lead}\n{q}")
        };
        Reply {
            kind: ReplyKind::Question,
            text,
            step_id: Some(step.id.clone()),
            citations: vec![],
        }
    }

    // ------------------------------------------------------------ D1 / D4

    fn diagnostic(
        &mut self,
        p: &'a Procedure,
        intent: &'static str,
    ) -> (&'static str, TransitionId, Reply) {
        let text = self.text.clone();
        let active = self.active_index(p);
        if extract::states_repair(&text) {
            self.trace.push(
                "a repair with no catalog finding: its readings describe the fixed unit".into(),
            );
            return self.stated_cause(p, true);
        }
        let answers = self.step_answers(p, active, &text);
        let evidence = extract::evidence(p, &text);
        if answers.is_empty() && evidence.is_none() && lexicon::FOUND.is_match(&text) {
            return self.stated_cause(p, false);
        }
        if answers.is_empty() && evidence.is_none() {
            if let Some((step, outcome)) = extract::tentative(p, active, &text) {
                return self.confirm(p, step, outcome);
            }
            let unsure = extract::clauses(&text)
                .iter()
                .any(|c| lexicon::UNSURE.is_match(c) || understand::cannot_check(c));
            let (intent, transition, reply) = self.unclear();
            return (if unsure { "UNSURE" } else { intent }, transition, reply);
        }
        let intent = if understand::is_correction(&text) && !answers.is_empty() {
            "CORRECTION"
        } else {
            intent
        };
        let mut noted = self.apply_answers(p, &answers);
        if let Some(e) = evidence {
            let ev = &p.evidence[e];
            self.add_fact(Fact {
                id: String::new(),
                kind: FactKind::Observation,
                source: FactSource::Technician,
                subject: format!("evidence:{}", ev.id),
                value: None,
                unit: None,
                text: text.clone(),
                turn_seq: 0,
                superseded_by: None,
                name: Some(ev.id.clone()),
                outcome: None,
            });
            self.trace.push(format!("evidence `{}` recorded", ev.id));
            noted = format!("{noted} {}.", phrases(&self.lang()).signal)
                .trim()
                .to_string();
        }
        self.st.topic_stack.clear();
        self.st.submode = Submode::Main;
        let walk = self.walk(p);
        if walk.finding.is_some() {
            return self.terminal(p, walk, intent, TransitionId::D4Terminal, noted);
        }
        if answers.iter().any(|a| a.signal) {
            noted = format!("{noted} {}.", phrases(&self.lang()).signal);
        }
        let reply = self.ask_next(p, walk, &noted);
        let transition = if reply.kind == ReplyKind::Question {
            TransitionId::D1StepAnswer
        } else {
            TransitionId::D4Terminal
        };
        (intent, transition, reply)
    }

    fn terminal(
        &mut self,
        p: &'a Procedure,
        walk: Walk,
        intent: &'static str,
        transition: TransitionId,
        lead: String,
    ) -> (&'static str, TransitionId, Reply) {
        let f = walk.finding.expect("terminal needs a finding");
        self.sync_walk_state(p, &walk);
        let finding = &p.findings[f];
        let changed = self.st.isolation.finding.as_deref() != Some(finding.id.as_str());
        self.st.isolation.complete = true;
        self.st.isolation.finding = Some(finding.id.clone());
        self.st.active_step = None;
        self.st.mode = Mode::Authorization;
        self.st.submode = Submode::Main;
        self.st.topic_stack.clear();
        if changed || self.st.labor.status == LaborStatus::None {
            self.st.labor.status = match self.st.labor.status {
                LaborStatus::Skipped => LaborStatus::Skipped,
                _ => LaborStatus::Draft,
            };
            self.st.labor.estimated_hours = Some(fmt_tenths(finding.labor_tenths()));
            if self.st.labor.status == LaborStatus::Draft {
                self.st.labor.confirmed_hours = None;
            }
        }
        self.trace.push(format!("isolation: {}", finding.id));
        let lang = self.lang();
        let l = phrases(&lang);
        let hours = self.st.labor.estimated_hours.clone().unwrap_or_default();
        let mut text = String::new();
        if !lead.is_empty() {
            text.push_str(&lead);
            text.push('\n');
        }
        text.push_str(&format!("{}: {}\n", l.isolated, finding.cause.get(&lang)));
        text.push_str(&format!("{}: {hours} {}.\n", l.labor_draft, l.hr));
        text.push_str(l.offer);
        (
            intent,
            transition,
            Reply {
                kind: ReplyKind::Answer,
                text,
                step_id: None,
                citations: vec![format!("procedure:{}#{}", p.system, finding.id)],
            },
        )
    }

    /// A cause the technician states that no catalog finding matches
    /// ("found the ground strap corroded at the frame, cleaned it, works
    /// now"): the diagnosis is isolated in their own words, a reported repair
    /// ends questioning, and the report carries their Cause and Correction.
    fn stated_cause(
        &mut self,
        p: &'a Procedure,
        repaired: bool,
    ) -> (&'static str, TransitionId, Reply) {
        let text = self.text.clone();
        let lang = self.lang();
        let l = phrases(&lang);
        let (cause, fix) = extract::split_stated(&text);
        let correction = if fix.is_empty() {
            l.stated_pending.to_string()
        } else {
            fix
        };
        let id = self.add_fact(Fact {
            id: String::new(),
            kind: FactKind::Finding,
            source: FactSource::Technician,
            subject: "stated:cause".into(),
            value: Some(cause.clone()),
            unit: None,
            text: text.clone(),
            turn_seq: 0,
            superseded_by: None,
            name: Some("technician_stated_cause".into()),
            outcome: None,
        });
        self.st.repair_done = repaired;
        self.st.isolation.complete = true;
        self.st.isolation.invalidated = false;
        self.st.isolation.finding = Some(super::catalog::Finding::STATED.to_string());
        self.st.isolation.stated = Some(StatedCause {
            cause: cause.clone(),
            correction: correction.clone(),
        });
        self.st.hypotheses.clear();
        self.st.active_step = None;
        self.st.mode = Mode::Authorization;
        self.st.submode = Submode::Main;
        self.st.topic_stack.clear();
        if self.st.labor.status == LaborStatus::Draft {
            self.st.labor.status = LaborStatus::None;
        }
        self.st.labor.estimated_hours = None;
        self.trace.push(format!(
            "technician-stated cause in {} (no catalog finding): {cause:?}",
            p.system
        ));
        let reply = format!(
            "{}: {cause}\n{}: {correction}\n{}",
            l.stated_cause, l.stated_correction, l.stated_labor
        );
        (
            if repaired { "REPAIR" } else { "STATED_FINDING" },
            TransitionId::D4Terminal,
            Reply {
                kind: ReplyKind::Answer,
                text: reply,
                step_id: None,
                citations: vec![format!("fact:{id}")],
            },
        )
    }

    fn repair(&mut self, p: &'a Procedure, f: usize) -> (&'static str, TransitionId, Reply) {
        let finding = &p.findings[f];
        self.add_fact(Fact {
            id: String::new(),
            kind: FactKind::Finding,
            source: FactSource::Technician,
            subject: format!("repair:{}", finding.id),
            value: Some("repaired, operation verified".into()),
            unit: None,
            text: self.text.clone(),
            turn_seq: 0,
            superseded_by: None,
            name: Some("repair_done".into()),
            outcome: None,
        });
        self.st.repair_done = true;
        self.trace.push(format!("repair done: {}", finding.id));
        let lead = format!("{}.", phrases(&self.lang()).repair_noted);
        let walk = Walk {
            active: None,
            finding: Some(f),
            blocked_by: None,
        };
        self.terminal(p, walk, "MAIN_DIAGNOSTIC", TransitionId::D4Terminal, lead)
    }

    // ------------------------------------------------------------ after isolation

    fn after_isolation(&mut self, p: &'a Procedure) -> (&'static str, TransitionId, Reply) {
        let text = self.text.clone();
        if let Some(e) = extract::evidence(p, &text) {
            return self.replan_evidence(p, e);
        }
        if lexicon::DISPUTE.is_match(&text) && self.step_answers(p, None, &text).is_empty() {
            return self.dispute(p);
        }
        // A reading that contradicts a fact the isolation rests on.
        let answers = self.step_answers(p, None, &text);
        let contradicts = answers.iter().any(|a| {
            self.current_fact(&p.steps[a.step].id)
                .is_some_and(|f| f.outcome.as_deref() != Some(a.outcome.as_str()))
        });
        if contradicts {
            return self.replan_reading(p, &answers);
        }
        if lexicon::FOUND.is_match(&text) && answers.is_empty() {
            return self.replan_dispute(p, "new physical evidence");
        }
        if let Some(f) = extract::repair_done(p, &text) {
            return self.repair(p, f);
        }
        if lexicon::LABOR_SKIP.is_match(&text) {
            return self.labor_update(p, LaborStatus::Skipped, None);
        }
        if let Some(tenths) = labor_hours(&text) {
            return self.labor_update(p, LaborStatus::Confirmed, Some(tenths));
        }
        if lexicon::META.is_match(&text) {
            return self.meta(p);
        }
        if lexicon::LABOR_REQUEST.is_match(&text) {
            return self.labor_draft(p);
        }
        if lexicon::LABOR_ACCEPT.is_match(&text) && self.st.labor.status == LaborStatus::Draft {
            return self.labor_update(p, LaborStatus::Confirmed, None);
        }
        if lexicon::BILLING.is_match(&text) {
            return self.boundary("BILLING", phrases(&self.lang()).boundary_billing);
        }
        if !answers.is_empty() {
            let noted = self.apply_answers(p, &answers);
            let text = format!("{noted}\n{}", phrases(&self.lang()).offer);
            return (
                "MAIN_DIAGNOSTIC",
                TransitionId::D1StepAnswer,
                Reply {
                    kind: ReplyKind::Answer,
                    text,
                    step_id: None,
                    citations: vec![],
                },
            );
        }
        self.unclear()
    }

    fn invalidate(&mut self, p: &Procedure, reason: &str) -> Option<String> {
        let old = self.st.isolation.finding.clone();
        self.st.isolation.invalidated = true;
        self.st.isolation.complete = false;
        self.st.mode = Mode::Diagnostic;
        self.st.submode = Submode::Replan;
        self.trace.push(format!(
            "replan ({reason}): isolation {} invalidated",
            old.as_deref().unwrap_or("-")
        ));
        self.st.repair_done = false;
        let _ = p;
        old
    }

    /// After a replan, a repair claim and the old conclusion no longer stand:
    /// both point at the fact that replaced them.
    fn supersede_conclusion(&mut self, old: Option<&str>, new_id: &str) {
        let repair_ids: Vec<String> = self
            .st
            .facts
            .iter()
            .filter(|f| f.is_current() && f.subject.starts_with("repair:"))
            .map(|f| f.id.clone())
            .collect();
        for id in repair_ids {
            self.supersede(&id, new_id);
        }
        self.supersede_isolation_inference(old, new_id);
    }

    fn replan_evidence(
        &mut self,
        p: &'a Procedure,
        e: usize,
    ) -> (&'static str, TransitionId, Reply) {
        let ev = &p.evidence[e];
        let old = self.invalidate(p, &format!("evidence `{}`", ev.id));
        let id = self.add_fact(Fact {
            id: String::new(),
            kind: FactKind::Observation,
            source: FactSource::Technician,
            subject: format!("evidence:{}", ev.id),
            value: None,
            unit: None,
            text: self.text.clone(),
            turn_seq: 0,
            superseded_by: None,
            name: Some(ev.id.clone()),
            outcome: None,
        });
        self.supersede_conclusion(old.as_deref(), &id);
        let lang = self.lang();
        let l = phrases(&lang);
        let walk = self.walk(p);
        let lead = format!("{}: {}.", l.replan, self.finding_name(p, old.as_deref()));
        if walk.finding.is_some() {
            let (_, _, reply) =
                self.terminal(p, walk, "NEW_EVIDENCE", TransitionId::D3Replan, lead);
            return ("NEW_EVIDENCE", TransitionId::D3Replan, reply);
        }
        self.st.isolation.finding = None;
        self.st.mode = Mode::Diagnostic;
        let reply = self.ask_next(p, walk, &lead);
        ("NEW_EVIDENCE", TransitionId::D3Replan, reply)
    }

    /// Records the superseded conclusion as an inference fact pointing at
    /// what replaced it, so the history shows why the cause changed.
    fn supersede_isolation_inference(&mut self, old: Option<&str>, new_id: &str) {
        if let Some(old) = old {
            let marker = self.add_fact(Fact {
                id: String::new(),
                kind: FactKind::Finding,
                source: FactSource::Inference,
                subject: format!("isolation:{old}"),
                value: Some(old.to_string()),
                unit: None,
                text: format!("isolation {old} (before replan)"),
                turn_seq: 0,
                superseded_by: None,
                name: Some(format!("isolation={old}")),
                outcome: None,
            });
            self.supersede(&marker, new_id);
        }
    }

    fn replan_dispute(
        &mut self,
        p: &'a Procedure,
        why: &str,
    ) -> (&'static str, TransitionId, Reply) {
        let old = self.invalidate(p, why);
        // Re-verify the last answered step on the path to the old finding.
        let last = self
            .st
            .facts
            .iter()
            .rev()
            .find(|f| {
                f.is_current()
                    && f.source == FactSource::Technician
                    && p.step_index(&f.subject).is_some()
            })
            .map(|f| (f.id.clone(), f.subject.clone()));
        let marker = self.add_fact(Fact {
            id: String::new(),
            kind: FactKind::Observation,
            source: FactSource::Technician,
            subject: "dispute".into(),
            value: None,
            unit: None,
            text: self.text.clone(),
            turn_seq: 0,
            superseded_by: None,
            name: Some("dispute".into()),
            outcome: None,
        });
        if let Some((id, _)) = &last {
            self.supersede(id, &marker);
        }
        self.supersede_conclusion(old.as_deref(), &marker);
        self.st.isolation.finding = None;
        let l = phrases(&self.lang());
        let walk = self.walk(p);
        let lead = format!(
            "{}: {}. {}",
            l.replan,
            self.finding_name(p, old.as_deref()),
            l.recheck
        );
        if walk.finding.is_some() {
            let (_, _, reply) =
                self.terminal(p, walk, "NEW_EVIDENCE", TransitionId::D3Replan, lead);
            return ("NEW_EVIDENCE", TransitionId::D3Replan, reply);
        }
        let reply = self.ask_next(p, walk, &lead);
        ("NEW_EVIDENCE", TransitionId::D3Replan, reply)
    }

    fn replan_reading(
        &mut self,
        p: &'a Procedure,
        answers: &[StepAnswer],
    ) -> (&'static str, TransitionId, Reply) {
        let old = self.invalidate(p, "contradicting reading");
        let noted = self.apply_answers(p, answers);
        if let Some(new_id) = self.new_facts.last().map(|f| f.id.clone()) {
            self.supersede_conclusion(old.as_deref(), &new_id);
        }
        self.st.isolation.finding = None;
        let l = phrases(&self.lang());
        let lead = format!(
            "{}: {}. {noted}",
            l.replan,
            self.finding_name(p, old.as_deref())
        );
        let walk = self.walk(p);
        if walk.finding.is_some() {
            let (_, _, reply) =
                self.terminal(p, walk, "NEW_EVIDENCE", TransitionId::D3Replan, lead);
            return ("NEW_EVIDENCE", TransitionId::D3Replan, reply);
        }
        let reply = self.ask_next(p, walk, &lead);
        ("NEW_EVIDENCE", TransitionId::D3Replan, reply)
    }

    // ------------------------------------------------------------ labor

    fn labor_draft(&mut self, p: &'a Procedure) -> (&'static str, TransitionId, Reply) {
        let Some(f) = self.isolated(p) else {
            return self.boundary("CONFIRMATION", phrases(&self.lang()).no_labor_yet);
        };
        if self.st.labor.status == LaborStatus::None {
            self.st.labor.status = LaborStatus::Draft;
        }
        self.st.labor.estimated_hours = Some(fmt_tenths(f.labor_tenths()));
        let lang = self.lang();
        let l = phrases(&lang);
        let total = self.labor_tenths(&f);
        let mut text = format!("{}:\n", l.labor_draft);
        for (task, t) in report::labor_lines(&f, total, &lang) {
            text.push_str(&format!("- {task}: {} {}\n", fmt_tenths(t), l.hr));
        }
        text.push_str(&format!("= {} {}\n{}", fmt_tenths(total), l.hr, l.offer));
        (
            "LABOR_REQUEST",
            TransitionId::D5LaborDraft,
            Reply {
                kind: ReplyKind::LaborDraft,
                text,
                step_id: None,
                citations: vec![format!("procedure:{}#{}", p.system, f.id)],
            },
        )
    }

    fn labor_tenths(&self, f: &super::catalog::Finding) -> u32 {
        self.st
            .labor
            .confirmed_hours
            .as_deref()
            .and_then(super::catalog::parse_tenths)
            .unwrap_or_else(|| f.labor_tenths())
    }

    fn labor_update(
        &mut self,
        p: &'a Procedure,
        status: LaborStatus,
        tenths: Option<u32>,
    ) -> (&'static str, TransitionId, Reply) {
        let Some(f) = self.isolated(p) else {
            return self.boundary("CONFIRMATION", phrases(&self.lang()).no_labor_yet);
        };
        let l = phrases(&self.lang());
        let text = match status {
            LaborStatus::Skipped => {
                self.st.labor.status = LaborStatus::Skipped;
                self.st.labor.confirmed_hours = None;
                format!(
                    "{} ({} {}).",
                    l.labor_skipped,
                    fmt_tenths(f.labor_tenths()),
                    l.hr
                )
            }
            _ => {
                let t = tenths.unwrap_or_else(|| f.labor_tenths());
                self.st.labor.status = LaborStatus::Confirmed;
                self.st.labor.confirmed_hours = Some(fmt_tenths(t));
                format!("{}: {} {}.", l.labor_confirmed, fmt_tenths(t), l.hr)
            }
        };
        self.trace.push(format!(
            "labor {:?} {:?}",
            self.st.labor.status, self.st.labor.confirmed_hours
        ));
        (
            "CONFIRMATION",
            TransitionId::D6LaborUpdate,
            Reply {
                kind: ReplyKind::Answer,
                text,
                step_id: None,
                citations: vec![],
            },
        )
    }

    // ------------------------------------------------------------ report

    fn report_request(&mut self) -> (&'static str, TransitionId, Reply) {
        let Some(p) = self.proc() else {
            let text = phrases(&self.lang()).not_ready.to_string();
            return (
                "REPORT_REQUEST",
                TransitionId::T10Boundary,
                Reply {
                    kind: ReplyKind::Refusal,
                    text,
                    step_id: None,
                    citations: vec![],
                },
            );
        };
        // "Fixed, write it up" carries the repair in the same message.
        if !self.st.report_ready() {
            let text = self.text.clone();
            if let Some(f) = extract::repair_done(p, &text) {
                let _ = self.repair(p, f);
            } else if extract::states_repair(&text) {
                let _ = self.stated_cause(p, true);
            }
        }
        if !self.st.report_ready() {
            let l = phrases(&self.lang());
            let lead = l.not_ready.to_string();
            let walk = self.walk(p);
            let mut reply = self.ask_next(p, walk, &lead);
            if reply.kind == ReplyKind::Question {
                reply.kind = ReplyKind::Refusal;
            }
            return ("REPORT_REQUEST", TransitionId::T10Boundary, reply);
        }
        let finding = self.isolated(p).expect("report-ready means a finding");
        let lang = self.lang();
        let symptom = self
            .st
            .symptom
            .as_deref()
            .and_then(|s| p.symptoms.iter().find(|x| x.id == s));
        let complaint_en = symptom
            .map(|s| s.complaint.get("en").to_string())
            .unwrap_or_else(|| self.ctx.complaint.clone().unwrap_or_default());
        let complaint_tr = symptom
            .map(|s| s.complaint.get(&lang).to_string())
            .unwrap_or_else(|| complaint_en.clone());
        let unverified = self.st.open_steps.clone();
        let input = ReportInput {
            procedure: p,
            finding: &finding,
            complaint: &complaint_en,
            complaint_translated: &complaint_tr,
            labor_tenths: self.labor_tenths(&finding),
            repair_done: self.st.repair_done,
            unverified,
            photos: &self.ctx.photos,
            edits: &self.st.report_edits,
        };
        let text = report::render(&input, &lang);
        self.st.report_revision += 1;
        self.st.mode = Mode::FinalReport;
        self.report = Some((self.st.report_revision, text.clone()));
        self.trace
            .push(format!("report revision {}", self.st.report_revision));
        (
            "REPORT_REQUEST",
            TransitionId::D7Report,
            Reply {
                kind: ReplyKind::Report,
                text,
                step_id: None,
                citations: vec![format!("procedure:{}#{}", p.system, finding.id)],
            },
        )
    }

    // ------------------------------------------------------------ subflows, meta, recap

    fn subflow(
        &mut self,
        p: &'a Procedure,
        submode: Submode,
        intent: &'static str,
    ) -> (&'static str, TransitionId, Reply) {
        let text = self.text.clone();
        let active = self.active_index(p);
        let component = extract::component_named(p, &text)
            .or_else(|| active.and_then(|i| p.steps[i].component));
        let lang = self.lang();
        let l = phrases(&lang);
        let Some(c) = component.map(|c| &p.components[c]) else {
            let mut text = l.no_component.to_string();
            if let Some(i) = active {
                text.push_str(&format!(
                    "\n{}: {}",
                    l.back_to_step,
                    p.steps[i].question.get(&lang)
                ));
            }
            return (
                intent,
                TransitionId::D2Subflow,
                Reply {
                    kind: ReplyKind::Answer,
                    text,
                    step_id: active.map(|i| p.steps[i].id.clone()),
                    citations: vec![],
                },
            );
        };
        // Cool-down: the same topic again soon gets the next kind of note
        // instead of the same words.
        let recent_same = self
            .st
            .recent_actions
            .iter()
            .rev()
            .take_while(|a| self.st.turn.saturating_sub(a.turn) <= TOPIC_COOLDOWN_TURNS)
            .any(|a| a.topic.as_deref() == Some(&format!("{}:{:?}", c.id, submode)));
        let order = match submode {
            Submode::Locate => [Submode::Locate, Submode::Howto, Submode::Explain],
            Submode::Explain => [Submode::Explain, Submode::Locate, Submode::Howto],
            _ => [Submode::Howto, Submode::Locate, Submode::Explain],
        };
        let shown = if recent_same { order[1] } else { order[0] };
        let note = |m: Submode| match m {
            Submode::Locate => format!("{}: {}", l.where_, c.where_.get(&lang)),
            Submode::Explain => format!("{}: {}", l.what, c.what.get(&lang)),
            _ => format!("{}: {}", l.how, c.how.get(&lang)),
        };
        let mut reply_text = if recent_same {
            format!("{} — {}", l.cooldown, note(order[0]).to_lowercase())
        } else {
            note(shown)
        };
        if recent_same {
            reply_text = format!("{}\n{}", reply_text, note(shown));
        }
        self.st.topic_stack.push(TopicFrame {
            submode,
            topic: format!("{}:{:?}", c.id, submode),
            return_step: self.st.active_step.clone(),
        });
        if self.st.topic_stack.len() > 3 {
            self.st.topic_stack.remove(0);
        }
        self.st.submode = submode;
        if let Some(i) = active {
            reply_text.push_str(&format!(
                "\n{}: {}",
                l.back_to_step,
                p.steps[i].question.get(&lang)
            ));
        }
        self.trace.push(format!(
            "subflow {:?} on `{}`, returning to {:?}",
            submode, c.id, self.st.active_step
        ));
        (
            intent,
            TransitionId::D2Subflow,
            Reply {
                kind: ReplyKind::Answer,
                text: reply_text,
                step_id: self.st.active_step.clone(),
                citations: vec![format!("procedure:{}#component:{}", p.system, c.id)],
            },
        )
    }

    /// Not sure what the message says about the step: one short question
    /// ("So: panel fuse — yes?") instead of a guess. Nothing is recorded
    /// until the technician says yes.
    fn confirm(
        &mut self,
        p: &'a Procedure,
        step: usize,
        outcome: String,
    ) -> (&'static str, TransitionId, Reply) {
        let lang = self.lang();
        let l = phrases(&lang);
        let s = &p.steps[step];
        let said = match (s.kind, outcome.as_str()) {
            (StepKind::YesNo, "yes") => l.yes,
            (StepKind::YesNo, _) => l.no,
            (_, "low") => l.low,
            (_, "high") => l.high,
            _ => l.in_spec,
        };
        self.st.pending_confirmation = Some(PendingConfirmation {
            step: s.id.clone(),
            outcome,
            text: self.text.clone(),
        });
        self.trace.push(format!(
            "not sure: asked to confirm {} before recording it",
            s.id
        ));
        (
            "CONFIRM",
            TransitionId::D8Fallback,
            Reply {
                kind: ReplyKind::Clarification,
                text: format!("{} {}: {said}?", l.so, s.label.get(&lang)),
                step_id: Some(s.id.clone()),
                citations: vec![],
            },
        )
    }

    /// The answer to "So: panel fuse — yes?": a yes records the tentative
    /// answer; a no drops it and restates the step; anything else is read
    /// as a new message.
    fn confirmation_reply(
        &mut self,
        p: &'a Procedure,
    ) -> Option<(&'static str, TransitionId, Reply)> {
        let pending = self.st.pending_confirmation.take()?;
        let t = self.text.trim();
        let short = t.split_whitespace().count() <= 3;
        let yes = short && lexicon::YES.is_match(t) && !lexicon::NO.is_match(t);
        let no = short && lexicon::NO.is_match(t) && !lexicon::YES.is_match(t);
        let i = p.step_index(&pending.step)?;
        if yes {
            let answer = StepAnswer {
                step: i,
                outcome: pending.outcome.clone(),
                quantity: None,
                clause: format!("{} ({t})", pending.text),
                signal: p.steps[i]
                    .outcome(&pending.outcome)
                    .is_some_and(|o| o.signal),
            };
            self.trace
                .push(format!("confirmed: {} = {}", pending.step, pending.outcome));
            let noted = self.apply_answers(p, &[answer]);
            let walk = self.walk(p);
            if walk.finding.is_some() {
                return Some(self.terminal(
                    p,
                    walk,
                    "CONFIRMATION",
                    TransitionId::D4Terminal,
                    noted,
                ));
            }
            let reply = self.ask_next(p, walk, &noted);
            let transition = if reply.kind == ReplyKind::Question {
                TransitionId::D1StepAnswer
            } else {
                TransitionId::D4Terminal
            };
            return Some(("CONFIRMATION", transition, reply));
        }
        if no {
            self.trace
                .push(format!("not confirmed: {} stays open", pending.step));
            let step = &p.steps[i];
            return Some((
                "CONFIRMATION",
                TransitionId::D1StepAnswer,
                self.step_reply(step, ""),
            ));
        }
        None
    }

    /// "Switch to Spanish please": every later reply is in that language.
    fn switch_language(&mut self, lang: &str) -> (&'static str, TransitionId, Reply) {
        self.st.language = lang.to_string();
        self.st.language_locked = true;
        self.trace
            .push(format!("language switched to {lang} on request"));
        let l = phrases(lang);
        let mut text = l.language_switched.to_string();
        let step = self.proc().and_then(|p| {
            let i = self.active_index(p)?;
            Some(&p.steps[i])
        });
        if let Some(step) = step {
            text.push_str(&format!(
                "\n{}: {}",
                l.back_to_step,
                step.question.get(lang)
            ));
        } else if self.st.isolation.complete {
            text.push_str(&format!(" {}", l.offer));
        }
        (
            "LANGUAGE_SWITCH",
            TransitionId::T8Meta,
            Reply {
                kind: ReplyKind::Answer,
                text,
                step_id: self.st.active_step.clone(),
                citations: vec![],
            },
        )
    }

    /// "Are you sure?": the evidence the conclusion rests on, each fact with
    /// the words it came from, and one way to check the concluded component.
    /// The conclusion stands until a reading contradicts it.
    fn dispute(&mut self, p: &'a Procedure) -> (&'static str, TransitionId, Reply) {
        let lang = self.lang();
        let l = phrases(&lang);
        let finding = self.isolated(p);
        let basis: Vec<String> = self
            .st
            .facts
            .iter()
            .filter(|f| f.is_current() && f.source == FactSource::Technician)
            .filter_map(|f| {
                let step = p.step(&f.subject)?;
                Some(format!("- {}: \"{}\"", step.label.get(&lang), f.text))
            })
            .collect();
        let mut text = match &finding {
            Some(f) => format!("{}: {}", l.isolated, f.cause.get(&lang)),
            None => String::new(),
        };
        text.push_str(&format!("\n{}:\n", l.evidence));
        text.push_str(&if basis.is_empty() {
            l.recap_nothing.to_string()
        } else {
            basis.join("\n")
        });
        let component = finding
            .as_ref()
            .and_then(|f| f.component)
            .or_else(|| self.active_index(p).and_then(|i| p.steps[i].component))
            .map(|c| &p.components[c]);
        if let Some(c) = component {
            text.push_str(&format!("\n{}: {}", l.check_it, c.how.get(&lang)));
        }
        if let Some(i) = self.active_index(p) {
            text.push_str(&format!(
                "\n{}: {}",
                l.back_to_step,
                p.steps[i].question.get(&lang)
            ));
        }
        self.trace
            .push("dispute: the evidence behind the conclusion, nothing changed".into());
        (
            "DISPUTE",
            TransitionId::T8Meta,
            Reply {
                kind: ReplyKind::Answer,
                text: text.trim_start().to_string(),
                step_id: self.st.active_step.clone(),
                citations: finding
                    .map(|f| vec![format!("procedure:{}#{}", p.system, f.id)])
                    .unwrap_or_default(),
            },
        )
    }

    /// "Back to the step": the subflow ends and the step it interrupted is
    /// restated. A restatement is not a new asking, so it never feeds the
    /// loop guard's count.
    fn resume(&mut self, p: &'a Procedure) -> (&'static str, TransitionId, Reply) {
        let frame = self.st.topic_stack.first().cloned();
        self.st.topic_stack.clear();
        self.st.submode = Submode::Main;
        let walk = self.walk(p);
        self.trace.push(format!(
            "subflow closed ({}); back to {:?}",
            frame.map(|f| f.topic).unwrap_or_else(|| "no topic".into()),
            self.st.active_step
        ));
        let Some(i) = walk.active else {
            if self.st.isolation.complete || walk.finding.is_none() {
                return self.after_isolation(p);
            }
            // The facts already lead to a finding: say so instead of a step.
            return self.terminal(p, walk, "RESUME", TransitionId::D4Terminal, String::new());
        };
        self.sync_walk_state(p, &walk);
        let step = &p.steps[i];
        // Restating a step already asked is not a new asking.
        let reply = if self.st.asked.contains_key(&step.id) {
            self.step_reply(step, "")
        } else {
            self.question(step, "")
        };
        ("RESUME", TransitionId::D2Subflow, reply)
    }

    fn recap(&mut self, p: &'a Procedure) -> (&'static str, TransitionId, Reply) {
        let text = self.text.clone();
        let lang = self.lang();
        let l = phrases(&lang);
        let steps = extract::steps_named(p, &text);
        let facts: Vec<&Fact> = if steps.is_empty() {
            self.st
                .facts
                .iter()
                .filter(|f| f.is_current() && p.step_index(&f.subject).is_some())
                .collect()
        } else {
            self.st
                .facts
                .iter()
                .filter(|f| f.is_current() && steps.iter().any(|&i| p.steps[i].id == f.subject))
                .collect()
        };
        let mut out = if facts.is_empty() {
            if steps.is_empty() {
                l.recap_nothing.to_string()
            } else {
                format!("{}.", l.recap_no)
            }
        } else {
            let lines: Vec<String> = facts
                .iter()
                .map(|f| {
                    format!(
                        "- {}: {} (turn {}: \"{}\")",
                        p.step(&f.subject)
                            .map_or(f.subject.as_str(), |s| s.label.get(&lang)),
                        f.value.clone().unwrap_or_default(),
                        f.turn_seq,
                        f.text
                    )
                })
                .collect();
            format!("{}:\n{}", l.recap_yes, lines.join("\n"))
        };
        if let Some(i) = self.active_index(p) {
            out.push_str(&format!(
                "\n{}: {}",
                l.back_to_step,
                p.steps[i].question.get(&lang)
            ));
        }
        self.trace
            .push(format!("recap over {} recorded facts", facts.len()));
        (
            "RECAP",
            TransitionId::T9Recap,
            Reply {
                kind: ReplyKind::Answer,
                text: out,
                step_id: self.st.active_step.clone(),
                citations: facts.iter().map(|f| format!("fact:{}", f.id)).collect(),
            },
        )
    }

    fn meta(&mut self, p: &'a Procedure) -> (&'static str, TransitionId, Reply) {
        let lang = self.lang();
        let l = phrases(&lang);
        let mut out;
        let mut citations = vec![];
        if let Some(f) = self.isolated(p) {
            // Why this conclusion, or why this much labor: from the record.
            let total = self.labor_tenths(&f);
            out = format!("{}: {}\n", l.why, f.cause.get(&lang));
            let basis: Vec<String> = self
                .st
                .facts
                .iter()
                .filter(|x| x.is_current() && x.source == FactSource::Technician)
                .map(|x| format!("- {} (turn {})", x.text, x.turn_seq))
                .collect();
            out.push_str(&basis.join("\n"));
            out.push_str(&format!(
                "\n{} ({} {}):\n",
                l.labor_meta,
                fmt_tenths(total),
                l.hr
            ));
            for (task, t) in report::labor_lines(&f, total, &lang) {
                out.push_str(&format!("- {task}: {} {}\n", fmt_tenths(t), l.hr));
            }
            citations.push(format!("procedure:{}#{}", p.system, f.id));
        } else if let Some(i) = self.active_index(p) {
            let step = &p.steps[i];
            out = match step.component.map(|c| &p.components[c]) {
                Some(c) => format!("{}: {}", l.why, c.what.get(&lang)),
                None => String::new(),
            };
            if let Some(spec) = step.spec_text() {
                out.push_str(&format!(" ({spec})"));
            }
            out.push_str(&format!(
                "\n{}: {}",
                l.back_to_step,
                step.question.get(&lang)
            ));
        } else {
            out = l.recap_nothing.to_string();
        }
        self.trace
            .push("meta question answered from the record".into());
        (
            "META",
            TransitionId::T8Meta,
            Reply {
                kind: ReplyKind::Answer,
                text: out.trim_end().to_string(),
                step_id: self.st.active_step.clone(),
                citations,
            },
        )
    }

    fn boundary(
        &mut self,
        intent: &'static str,
        message: &str,
    ) -> (&'static str, TransitionId, Reply) {
        let mut text = message.to_string();
        let lang = self.lang();
        if let Some(p) = self.proc() {
            if let Some(i) = self.active_index(p) {
                text.push_str(&format!(
                    "\n{}: {}",
                    phrases(&lang).back_to_step,
                    p.steps[i].question.get(&lang)
                ));
            }
        }
        self.trace.push(format!("boundary: {intent}"));
        (
            intent,
            TransitionId::T10Boundary,
            Reply {
                kind: ReplyKind::Refusal,
                text,
                step_id: self.st.active_step.clone(),
                citations: vec![],
            },
        )
    }

    // ------------------------------------------------------------ D8 and the loop guard

    /// A message with nothing to read (empty, emoji, binary garbage): nothing
    /// is learned, nothing is counted as an asking, the diagnosis stays where
    /// it is, and the reply says so instead of repeating the question.
    fn noise(&mut self) -> (&'static str, TransitionId, Reply) {
        let l = phrases(&self.lang());
        let (text, step_id) = match self.proc() {
            Some(_) if self.st.isolation.complete => {
                (format!("{} {}", l.unreadable, l.offer), None)
            }
            Some(_) => (
                format!("{} {}", l.unreadable, l.unreadable_step),
                self.st.active_step.clone(),
            ),
            None => (format!("{} {}", l.unreadable, l.describe), None),
        };
        self.trace
            .push("no readable text in the message: nothing recorded, nothing asked".into());
        (
            "UNCLEAR",
            TransitionId::D8Fallback,
            Reply {
                kind: ReplyKind::Clarification,
                text,
                step_id,
                citations: vec![],
            },
        )
    }

    fn unclear(&mut self) -> (&'static str, TransitionId, Reply) {
        let lang = self.lang();
        let l = phrases(&lang);
        let last_was_fallback = self.last_action().is_some_and(|a| a.kind == "fallback");
        let Some(p) = self.proc() else {
            // No system yet: ask which, then offer a numbered list.
            let list: Vec<String> = self
                .engine
                .catalog
                .procedures
                .iter()
                .enumerate()
                .map(|(i, p)| format!("{}. {}", i + 1, p.title.get(&lang)))
                .collect();
            let (kind, text) = if last_was_fallback {
                (
                    ReplyKind::Clarification,
                    format!("{}\n{}", l.which_system, list.join("\n")),
                )
            } else {
                let some: Vec<&str> = self
                    .engine
                    .catalog
                    .procedures
                    .iter()
                    .take(6)
                    .map(|p| p.title.get(&lang))
                    .collect();
                (
                    ReplyKind::Fallback,
                    format!("{} {} {}", l.fallback, l.which_system, some.join("; ")),
                )
            };
            self.trace.push(format!(
                "fallback without a procedure; strategy {}",
                kind.as_str()
            ));
            return (
                "UNCLEAR",
                TransitionId::D8Fallback,
                Reply {
                    kind,
                    text,
                    step_id: None,
                    citations: vec![],
                },
            );
        };
        if self.st.isolation.complete {
            // Nothing more to ask: the useful move is the offer.
            let kind = if last_was_fallback {
                ReplyKind::Clarification
            } else {
                ReplyKind::Fallback
            };
            let text = format!("{} {}", l.fallback, l.offer);
            self.trace
                .push("fallback after isolation: offer labor or report".into());
            return (
                "UNCLEAR",
                TransitionId::D8Fallback,
                Reply {
                    kind,
                    text,
                    step_id: None,
                    citations: vec![],
                },
            );
        }
        let walk = self.walk(p);
        let Some(i) = walk.active else {
            let reply = self.ask_next(p, walk, l.fallback);
            return ("UNCLEAR", TransitionId::D8Fallback, reply);
        };
        let step = &p.steps[i];
        let asked = self.st.asked.get(&step.id).copied().unwrap_or(0);
        if asked >= MAX_ASKS {
            // Never a third asking: mark it and move on.
            let reply = self.ask_next(p, walk, "");
            return ("UNCLEAR", TransitionId::D8Fallback, reply);
        }
        let mut reply = self.question(step, "");
        if last_was_fallback {
            let choices = match step.kind {
                StepKind::YesNo => format!("{} — {}", l.choices_yes_no, step.question.get(&lang)),
                StepKind::Measurement => {
                    let example = format!(
                        "\"{} {}\"",
                        fmt_num((step.min + step.max) / 2.0),
                        step.unit.map(|u| u.symbol()).unwrap_or("")
                    );
                    format!(
                        "{}: {} {example} ({})",
                        step.question.get(&lang),
                        l.choices_measure,
                        step.spec_text().unwrap_or_default()
                    )
                }
            };
            reply.kind = ReplyKind::Clarification;
            reply.text = choices;
            self.trace
                .push("loop guard: second unclear turn, offering explicit choices".into());
        } else {
            reply.kind = ReplyKind::Fallback;
            reply.text = format!("{} {}", l.fallback, step.question.get(&lang));
        }
        ("UNCLEAR", TransitionId::D8Fallback, reply)
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
        self.trace.insert(
            0,
            format!("{} fired: {}", transition.name(), transition.class().entry),
        );
        TurnOutcome {
            state: self.st,
            intent,
            transition,
            reply,
            trace: self.trace,
            new_facts: self.new_facts,
            superseded: self.superseded,
            report: self.report,
        }
    }
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
