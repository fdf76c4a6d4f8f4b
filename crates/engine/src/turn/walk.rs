//! The walk of a procedure: recomputed from the current facts every turn
//! (signals, evidence and repairs first), the facts a turn records and
//! supersedes, and the loop guard's asking (twice at most, then the check is
//! marked not verified; a finding never rests on one).

use super::*;

impl<'a> Turn<'a> {
    /// Recomputes the active step and isolation from the facts. Signals
    /// first: the latest signal, evidence or repair fact decides where the
    /// walk starts.
    pub(super) fn walk(&self, p: &Procedure) -> Walk {
        let current: Vec<&Fact> = self.st.facts.iter().filter(|f| f.is_current()).collect();
        let mut start: Option<Target> = None;
        for f in &current {
            if let Some(id) = f
                .subject
                .strip_prefix("repair:")
                .or_else(|| f.subject.strip_prefix("finding:"))
            {
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

    pub(super) fn current_fact(&self, subject: &str) -> Option<&Fact> {
        self.st
            .facts
            .iter()
            .rev()
            .find(|f| f.is_current() && f.subject == subject)
    }

    pub(super) fn add_fact(&mut self, mut fact: Fact) -> String {
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

    pub(super) fn supersede(&mut self, old_id: &str, new_id: &str) {
        for f in self.st.facts.iter_mut() {
            if f.id == old_id && f.superseded_by.is_none() {
                f.superseded_by = Some(new_id.to_string());
                self.superseded
                    .push((old_id.to_string(), new_id.to_string()));
            }
        }
    }

    /// Records the answers as facts; returns the "Noted: ..." sentence.
    pub(super) fn apply_answers(&mut self, p: &Procedure, answers: &[StepAnswer]) -> String {
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
            self.bases.push((id.clone(), a.basis));
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

    pub(super) fn sync_walk_state(&mut self, p: &Procedure, walk: &Walk) {
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
    pub(super) fn ask_next(&mut self, p: &'a Procedure, mut walk: Walk, lead: &str) -> Reply {
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
    pub(super) fn cannot_conclude(
        &mut self,
        p: &Procedure,
        blocked_by: Option<usize>,
        lead: &str,
    ) -> Reply {
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

    pub(super) fn mark_unverified(&mut self, step: &Step) {
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
    pub(super) fn question(&mut self, step: &Step, lead: &str) -> Reply {
        *self.st.asked.entry(step.id.clone()).or_insert(0) += 1;
        if let Some(at) = self.st.reported.iter().position(|r| r.step == step.id) {
            return self.confirm_reported(step, at, lead);
        }
        self.step_reply(step, lead)
    }

    /// The step the complaint already spoke of, put as its account to
    /// confirm ("Per the complaint, blower runs: no. Is that what you
    /// see?"): a yes records it; any other answer is read as the step's.
    fn confirm_reported(&mut self, step: &Step, at: usize, lead: &str) -> Reply {
        let lang = self.lang();
        let l = phrases(&lang);
        let reported = self.st.reported.remove(at);
        let said = lexicon::said_reported(step.kind, &reported, &lang);
        self.trace.push(format!(
            "the complaint spoke of {}: asked to confirm it",
            step.id
        ));
        let q = format!(
            "{} {}: {said}. {}",
            l.reported,
            step.label.get(&lang),
            l.reported_ask
        );
        self.st.pending_confirmation = Some(reported);
        Reply {
            kind: ReplyKind::Question,
            text: if lead.is_empty() {
                q
            } else {
                format!("{lead}\n{q}")
            },
            step_id: Some(step.id.clone()),
            citations: vec![],
        }
    }

    /// The reply that puts `step`'s question, without counting it.
    pub(super) fn step_reply(&self, step: &Step, lead: &str) -> Reply {
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
}
