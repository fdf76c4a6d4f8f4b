//! The understanding eval (`servicedesk eval understanding`): replays labelled
//! technician messages, each through one engine turn from the state its label
//! describes (the system, the step being asked, what the assistant last said,
//! what was recorded before), and compares what the turn recorded with what
//! the message states.
//!
//! The number that matters most is the **wrong-fact rate**: of the step facts
//! and findings a turn recorded, the share the label does not contain. A
//! wrong fact becomes a wrong isolation and a wrong warranty claim; a missed
//! one only costs the technician a question. **Fact recall** is the share of
//! labelled facts the turn recorded; **intent accuracy** the share of
//! messages whose reading (answer, question, acknowledgment, repair, ...)
//! matches the label.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::catalog::{Procedure, Target};
use super::state::{AgentAction, Fact, FactKind, FactSource, SessionState, Submode, TopicFrame};
use super::turn::{Engine, TurnContext, TurnOutcome};
use super::units::{Quantity, Unit};

/// One labelled message.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Case {
    pub id: String,
    pub system: String,
    pub lang: String,
    /// The step just asked; `None` for a message that opens the session.
    pub active_step: Option<String>,
    /// What the assistant said last: `question` (default), `where`, `what`, `how`.
    #[serde(default)]
    pub after: Option<String>,
    /// Facts recorded before this message.
    #[serde(default)]
    pub prior: Vec<LabelFact>,
    pub text: String,
    pub intent: String,
    #[serde(default)]
    pub facts: Vec<LabelFact>,
    #[serde(default)]
    pub finding: Option<String>,
    #[serde(default)]
    pub new_system: Option<String>,
    #[serde(default)]
    pub language_to: Option<String>,
}

#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct LabelFact {
    pub step: String,
    pub outcome: String,
    #[serde(default)]
    pub value: Option<f64>,
    #[serde(default)]
    pub unit: Option<String>,
}

/// The intents a label may carry.
pub const INTENTS: &[&str] = &[
    "answer",
    "where",
    "what",
    "how",
    "ack",
    "unsure",
    "report",
    "repair",
    "finding",
    "dispute",
    "correction",
    "new_complaint",
    "language",
    "recap",
    "complaint",
];

#[derive(Debug, thiserror::Error)]
pub enum DatasetError {
    #[error("line {line}: {message}")]
    Line { line: usize, message: String },
}

/// Parses JSON Lines and checks every case against the catalog, so a label
/// naming a step that does not exist is an error, not a silent miss.
pub fn parse_dataset(text: &str, engine: &Engine) -> Result<Vec<Case>, DatasetError> {
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line_no = i + 1;
        if line.trim().is_empty() {
            continue;
        }
        let err = |message: String| DatasetError::Line {
            line: line_no,
            message,
        };
        let case: Case = serde_json::from_str(line).map_err(|e| err(e.to_string()))?;
        let p = engine
            .catalog
            .get(&case.system)
            .ok_or_else(|| err(format!("{}: unknown system `{}`", case.id, case.system)))?;
        if !INTENTS.contains(&case.intent.as_str()) {
            return Err(err(format!(
                "{}: unknown intent `{}`",
                case.id, case.intent
            )));
        }
        let steps = case
            .active_step
            .iter()
            .chain(case.facts.iter().map(|f| &f.step))
            .chain(case.prior.iter().map(|f| &f.step));
        for s in steps {
            if p.step_index(s).is_none() {
                return Err(err(format!(
                    "{}: `{s}` is not a step of `{}`",
                    case.id, case.system
                )));
            }
        }
        for f in case.facts.iter().chain(&case.prior) {
            let step = p.step(&f.step).expect("checked above");
            if step.outcome(&f.outcome).is_none() {
                return Err(err(format!(
                    "{}: `{}` has no outcome `{}`",
                    case.id, f.step, f.outcome
                )));
            }
        }
        out.push(case);
    }
    Ok(out)
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct Counts {
    pub messages: usize,
    pub labelled_facts: usize,
    pub recorded_facts: usize,
    pub wrong_facts: usize,
    pub recalled_facts: usize,
    pub intent_correct: usize,
    /// Messages answered with a confirming question ("So: panel fuse —
    /// yes?") instead of a recorded fact, and how many of those proposed a
    /// fact the label states: asking is the safe side of not being sure, and
    /// a right proposal costs the technician one word.
    pub confirmations: usize,
    pub confirmations_right: usize,
}

impl Counts {
    pub fn wrong_fact_rate(&self) -> f64 {
        ratio(self.wrong_facts, self.recorded_facts)
    }
    pub fn fact_recall(&self) -> f64 {
        if self.labelled_facts == 0 {
            return 1.0;
        }
        ratio(self.recalled_facts, self.labelled_facts)
    }
    pub fn intent_accuracy(&self) -> f64 {
        ratio(self.intent_correct, self.messages)
    }
    fn add(&mut self, o: &Counts) {
        self.messages += o.messages;
        self.labelled_facts += o.labelled_facts;
        self.recorded_facts += o.recorded_facts;
        self.wrong_facts += o.wrong_facts;
        self.recalled_facts += o.recalled_facts;
        self.intent_correct += o.intent_correct;
        self.confirmations += o.confirmations;
        self.confirmations_right += o.confirmations_right;
    }
}

fn ratio(a: usize, b: usize) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}

/// One message the engine read differently from its label.
#[derive(Debug, Clone, Serialize)]
pub struct Confusion {
    pub id: String,
    pub text: String,
    pub expected_intent: String,
    pub got_intent: String,
    /// Facts recorded that the label does not contain (`step=outcome`).
    pub wrong: Vec<String>,
    /// Labelled facts not recorded.
    pub missed: Vec<String>,
    /// The turn's trace: why it read the message as it did.
    pub trace: Vec<String>,
    /// Every fact the turn recorded, with the basis it was tied by.
    pub recorded: Vec<(String, String)>,
    /// The fact a confirming question proposed (`step=outcome`), if the
    /// turn asked one.
    pub proposed: Option<String>,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct Report {
    pub overall: Counts,
    pub by_language: BTreeMap<String, Counts>,
    /// Recorded and wrong facts by how each was tied to its step (`named`,
    /// `asked`, `inherited`, ...; `finding` for causes): where the wrong
    /// facts come from.
    pub by_basis: BTreeMap<String, BasisCounts>,
    pub confusions: Vec<Confusion>,
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct BasisCounts {
    pub recorded: usize,
    pub wrong: usize,
}

impl Report {
    pub fn wrong_fact_rate(&self) -> f64 {
        self.overall.wrong_fact_rate()
    }
    pub fn fact_recall(&self) -> f64 {
        self.overall.fact_recall()
    }
}

/// Runs every case and scores it.
pub fn run(engine: &Engine, cases: &[Case]) -> Report {
    let mut report = Report::default();
    for case in cases {
        let Some(p) = engine.catalog.get(&case.system) else {
            continue;
        };
        let state = state_for(p, case);
        let ctx = TurnContext {
            id_prefix: format!("{}-", case.id),
            ..TurnContext::default()
        };
        let out = engine.turn(&state, &ctx, &case.text);
        let before = state
            .isolation
            .complete
            .then_some(())
            .and(state.isolation.finding.as_deref());
        let (counts, confusion, bases) = score(p, case, before, &out);
        for (basis, wrong) in bases {
            let b = report.by_basis.entry(basis.to_string()).or_default();
            b.recorded += 1;
            b.wrong += usize::from(wrong);
        }
        report.overall.add(&counts);
        report
            .by_language
            .entry(case.lang.clone())
            .or_default()
            .add(&counts);
        if let Some(c) = confusion {
            report.confusions.push(c);
        }
    }
    report
}

/// What the turn recorded, as `step=outcome` (steps) and `finding=<id>`
/// (an isolation the technician stated).
fn recorded(
    p: &Procedure,
    case: &Case,
    before: Option<&str>,
    out: &TurnOutcome,
) -> Vec<(String, Option<f64>, &'static str)> {
    let basis_of = |id: &str| {
        out.bases
            .iter()
            .find(|(fact, _)| fact == id)
            .map_or("other", |(_, b)| b.as_str())
    };
    let mut got = Vec::new();
    for f in &out.new_facts {
        if f.source != FactSource::Technician {
            continue;
        }
        if let (Some(si), Some(o)) = (p.step_index(&f.subject), f.outcome.as_deref()) {
            // The label's reading is in the step's unit; a reading given in
            // another scale (°C for a °F step) is compared converted.
            let value = (f.kind == FactKind::Measurement)
                .then(|| {
                    let value: f64 = f.value.as_deref()?.parse().ok()?;
                    let unit = Unit::parse(f.unit.as_deref()?)?;
                    p.steps[si]
                        .value_of(&Quantity { value, unit })
                        .or(Some(value))
                })
                .flatten();
            got.push((format!("{}={o}", f.subject), value, basis_of(&f.id)));
        } else if let Some(id) = f.subject.strip_prefix("repair:") {
            got.push((format!("finding={id}"), None, "finding"));
        } else if f.subject == "stated:cause" {
            got.push(("finding=stated".into(), None, "finding"));
        } else if let Some(id) = f.subject.strip_prefix("finding:") {
            got.push((format!("finding={id}"), None, "finding"));
        }
    }
    // A message the label says states a cause: the cause the turn isolated
    // by walking the facts it recorded is the engine's reading of it, right
    // or wrong. Where the label states none, an isolation rests on the step
    // facts, each judged above.
    let isolated = out
        .state
        .isolation
        .complete
        .then_some(())
        .and(out.state.isolation.finding.as_deref());
    if let (Some(_), Some(id)) = (case.finding.as_deref(), isolated) {
        if before != Some(id) && !got.iter().any(|(g, _, _)| g.starts_with("finding=")) {
            let id = if id == super::catalog::Finding::STATED {
                "stated"
            } else {
                id
            };
            got.push((format!("finding={id}"), None, "isolation"));
        }
    }
    got
}

/// The counts of one case, its confusion if any, and each recorded fact's
/// basis with whether it was wrong.
fn score(
    p: &Procedure,
    case: &Case,
    before: Option<&str>,
    out: &TurnOutcome,
) -> (Counts, Option<Confusion>, Vec<(String, bool)>) {
    let mut expected: Vec<(String, Option<f64>)> = case
        .facts
        .iter()
        .map(|f| (format!("{}={}", f.step, f.outcome), f.value))
        .collect();
    // A catalog finding the label names is a fact too; "stated" (a cause the
    // catalog does not have) is recorded in the technician's words, which
    // any stated-cause fact matches.
    if let Some(fid) = case.finding.as_deref() {
        expected.push((format!("finding={fid}"), None));
    }
    let got_with_basis = recorded(p, case, before, out);
    let got: Vec<(String, Option<f64>)> = got_with_basis
        .iter()
        .map(|(f, v, _)| (f.clone(), *v))
        .collect();
    let same_value = |a: Option<f64>, b: Option<f64>| match (a, b) {
        (Some(x), Some(y)) => (x - y).abs() <= 0.011 * y.abs().max(1.0),
        _ => true,
    };
    let matches = |g: &(String, Option<f64>), e: &(String, Option<f64>)| {
        (g.0 == e.0 && same_value(g.1, e.1)) || (g.0 == "finding=stated" && e.0 == "finding=stated")
    };
    // A cause kept in the technician's own words where the label names the
    // catalog's finding quotes what was said without claiming which catalog
    // cause it is: the catalog finding is missed, but nothing unsaid is
    // recorded. Where the label states no cause, it is wrong.
    let said = |g: &(String, Option<f64>), e: &(String, Option<f64>)| {
        matches(g, e) || (g.0 == "finding=stated" && e.0.starts_with("finding="))
    };
    // A step outcome whose target is the very finding the label names says
    // the same thing as that finding ("paddle was bent" is both "sail switch
    // not closing" and the sail-switch check failing): it is entailed by the
    // label, not a fact nobody stated. It adds nothing to recall.
    let entailed = |g: &(String, Option<f64>)| {
        case.finding
            .as_deref()
            .is_some_and(|fid| leads_to(p, &g.0, fid))
    };
    // Each recorded fact judged once: its basis and whether it is wrong.
    let bases: Vec<(String, bool)> = got
        .iter()
        .zip(&got_with_basis)
        .map(|(g, (_, _, basis))| {
            (
                basis.to_string(),
                !expected.iter().any(|e| said(g, e)) && !entailed(g),
            )
        })
        .collect();
    let wrong: Vec<String> = got
        .iter()
        .zip(&bases)
        .filter(|(_, (_, wrong))| *wrong)
        .map(|(g, _)| g.0.clone())
        .collect();
    let missed: Vec<String> = expected
        .iter()
        .filter(|e| !got.iter().any(|g| matches(g, e)))
        .map(|e| e.0.clone())
        .collect();
    let proposal = out
        .state
        .pending_confirmation
        .as_ref()
        .map(|c| format!("{}={}", c.step, c.outcome));
    let proposed = proposal
        .as_ref()
        .map(|fact| expected.iter().any(|e| &e.0 == fact));
    let got_intent = intent_of(out, case);
    let intent_ok = intent_matches(&case.intent, got_intent);
    let counts = Counts {
        messages: 1,
        labelled_facts: expected.len(),
        recorded_facts: got.len(),
        wrong_facts: wrong.len(),
        recalled_facts: expected.len() - missed.len(),
        intent_correct: usize::from(intent_ok),
        confirmations: usize::from(proposed.is_some()),
        confirmations_right: usize::from(proposed == Some(true)),
    };
    let confusion =
        (!wrong.is_empty() || !missed.is_empty() || !intent_ok || proposed == Some(false)).then(
            || Confusion {
                id: case.id.clone(),
                text: case.text.clone(),
                expected_intent: case.intent.clone(),
                got_intent: got_intent.to_string(),
                wrong,
                missed,
                trace: out.trace.clone(),
                recorded: got_with_basis
                    .iter()
                    .map(|(f, _, b)| (f.clone(), b.to_string()))
                    .collect(),
                proposed: proposal,
            },
        );
    (counts, confusion, bases)
}

/// Whether `fact` (`step=outcome`) is an outcome the catalog sends straight
/// to finding `finding_id`.
fn leads_to(p: &Procedure, fact: &str, finding_id: &str) -> bool {
    let Some((step, outcome)) = fact.split_once('=') else {
        return false;
    };
    let (Some(si), Some(fi)) = (p.step_index(step), p.finding_index(finding_id)) else {
        return false;
    };
    p.steps[si]
        .outcome(outcome)
        .is_some_and(|o| o.target == Target::Finding(fi) || o.signal_target == Target::Finding(fi))
}

/// Repairs and findings are close: "replaced the relay, works" and "relay
/// was stuck" are both a stated cause; either reading counts for either.
fn intent_matches(expected: &str, got: &str) -> bool {
    expected == got
        || matches!(
            (expected, got),
            ("repair", "finding") | ("finding", "repair")
        )
}

/// How the engine read the message, in the label's terms.
fn intent_of(out: &TurnOutcome, case: &Case) -> &'static str {
    match out.intent {
        "LOCATE" => "where",
        "EXPLAIN" => "what",
        "HOWTO" => "how",
        "RECAP" => "recap",
        "ACK" | "RESUME" => "ack",
        "UNSURE" => "unsure",
        "DISPUTE" => "dispute",
        "CORRECTION" => "correction",
        "LANGUAGE_SWITCH" => "language",
        "NEW_COMPLAINT" => "new_complaint",
        "REPAIR" => "repair",
        "STATED_FINDING" => "finding",
        "REPORT_REQUEST" => "report",
        "NEW_EVIDENCE" => "finding",
        _ if case.active_step.is_none()
            && out.transition == super::registry::TransitionId::T1RootEntry =>
        {
            "complaint"
        }
        _ if out
            .new_facts
            .iter()
            .any(|f| f.source == FactSource::Technician) =>
        {
            "answer"
        }
        _ => "other",
    }
}

/// The state a case starts from: its system active, the path from the
/// symptom's first step to the asked step answered (so the walk stands on
/// that step), its prior facts, and the assistant's last reply.
pub fn state_for(p: &Procedure, case: &Case) -> SessionState {
    let mut st = SessionState::new(&case.lang);
    st.language_locked = true;
    let Some(active) = case.active_step.as_deref() else {
        return st;
    };
    st.active_procedure = Some(p.system.clone());
    let target = p
        .step_index(active)
        .expect("parse_dataset checked the step");
    let (symptom, path) = path_to(p, target);
    st.symptom = symptom.map(|s| p.symptoms[s].id.clone());
    let mut facts: Vec<(String, String, Option<f64>)> =
        path.into_iter().map(|(s, o)| (s, o, None)).collect();
    for f in &case.prior {
        facts.retain(|(s, _, _)| s != &f.step);
        facts.push((f.step.clone(), f.outcome.clone(), f.value));
    }
    for (n, (step, outcome, reading)) in facts.iter().enumerate() {
        let name = p
            .step(step)
            .and_then(|s| s.outcome(outcome))
            .and_then(|o| o.fact.clone());
        st.facts.push(Fact {
            id: format!("prior-{n}"),
            kind: FactKind::Observation,
            source: FactSource::Technician,
            subject: step.clone(),
            // A prior reading keeps its number, as a recorded one does.
            value: Some(reading.map_or_else(|| outcome.clone(), super::catalog::fmt_num)),
            unit: reading
                .and(p.step(step).and_then(|s| s.unit))
                .map(|u| u.symbol().to_string()),
            text: "(before)".into(),
            turn_seq: 0,
            superseded_by: None,
            name,
            outcome: Some(outcome.clone()),
        });
        st.completed_steps.push(step.clone());
        st.asked.insert(step.clone(), 1);
    }
    st.turn = facts.len() as u32 + 1;
    st.active_step = Some(active.to_string());
    st.asked.insert(active.to_string(), 1);
    st.recent_actions.push(AgentAction {
        turn: st.turn,
        kind: "question".into(),
        step: Some(active.to_string()),
        topic: None,
    });
    let submode = match case.after.as_deref() {
        Some("where") => Some(Submode::Locate),
        Some("what") => Some(Submode::Explain),
        Some("how") => Some(Submode::Howto),
        _ => None,
    };
    if let Some(submode) = submode {
        let component = p.steps[target]
            .component
            .map(|c| p.components[c].id.clone())
            .unwrap_or_default();
        let topic = format!("{component}:{submode:?}");
        st.turn += 1;
        st.submode = submode;
        st.topic_stack.push(TopicFrame {
            submode,
            topic: topic.clone(),
            return_step: Some(active.to_string()),
        });
        st.recent_actions.push(AgentAction {
            turn: st.turn,
            kind: "answer".into(),
            step: Some(active.to_string()),
            topic: Some(topic),
        });
    }
    st
}

/// (step id, outcome) answers along a walk.
type Path = Vec<(String, String)>;

/// The symptom and the answers that walk from its first step to `target`
/// (shortest), or from an evidence entry point when no symptom reaches it.
fn path_to(p: &Procedure, target: usize) -> (Option<usize>, Path) {
    let mut best: Option<(Option<usize>, Path)> = None;
    for (si, s) in p.symptoms.iter().enumerate() {
        if let Some(path) = bfs(p, s.start, target) {
            if best.as_ref().is_none_or(|b| path.len() < b.1.len()) {
                best = Some((Some(si), path));
            }
        }
    }
    best.unwrap_or((p.symptoms.first().map(|_| 0), Vec::new()))
}

fn bfs(p: &Procedure, from: usize, to: usize) -> Option<Path> {
    let mut prev: Vec<Option<(usize, String)>> = vec![None; p.steps.len()];
    let mut seen = vec![false; p.steps.len()];
    let mut queue = std::collections::VecDeque::from([from]);
    seen[from] = true;
    while let Some(i) = queue.pop_front() {
        if i == to {
            let mut path = Vec::new();
            let mut at = i;
            while let Some((before, outcome)) = prev[at].clone() {
                path.push((p.steps[before].id.clone(), outcome));
                at = before;
            }
            path.reverse();
            return Some(path);
        }
        for o in &p.steps[i].outcomes {
            if let Target::Step(n) = o.target {
                if !seen[n] {
                    seen[n] = true;
                    prev[n] = Some((i, o.name.clone()));
                    queue.push_back(n);
                }
            }
        }
    }
    None
}
