//! After isolation: new evidence, a reading that contradicts the evidence and
//! a re-check replan (D3); "are you sure?" gets the evidence and a way to check.

use super::*;

impl<'a> Turn<'a> {
    pub(super) fn after_isolation(
        &mut self,
        p: &'a Procedure,
    ) -> (&'static str, TransitionId, Reply) {
        let text = self.text.clone();
        if !self.st.queued_complaints.is_empty() && lexicon::NEXT_COMPLAINT.is_match(&text) {
            return self.next_complaint(p);
        }
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

    pub(super) fn invalidate(&mut self, p: &Procedure, reason: &str) -> Option<String> {
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
    pub(super) fn supersede_conclusion(&mut self, old: Option<&str>, new_id: &str) {
        let repair_ids: Vec<String> = self
            .st
            .facts
            .iter()
            .filter(|f| {
                f.is_current()
                    && (f.subject.starts_with("repair:") || f.subject.starts_with("finding:"))
            })
            .map(|f| f.id.clone())
            .collect();
        for id in repair_ids {
            self.supersede(&id, new_id);
        }
        self.supersede_isolation_inference(old, new_id);
    }

    /// After a replan (the isolation invalidated, the facts changed): the
    /// finding the walk now reaches, or the step it now stands on.
    fn replanned(&mut self, p: &'a Procedure, lead: String) -> (&'static str, TransitionId, Reply) {
        let walk = self.walk(p);
        if walk.finding.is_some() {
            let (_, _, reply) =
                self.terminal(p, walk, "NEW_EVIDENCE", TransitionId::D3Replan, lead);
            return ("NEW_EVIDENCE", TransitionId::D3Replan, reply);
        }
        self.st.isolation.finding = None;
        let reply = self.ask_next(p, walk, &lead);
        ("NEW_EVIDENCE", TransitionId::D3Replan, reply)
    }

    pub(super) fn replan_evidence(
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
        let lead = format!("{}: {}.", l.replan, self.finding_name(p, old.as_deref()));
        self.replanned(p, lead)
    }

    /// Records the superseded conclusion as an inference fact pointing at
    /// what replaced it, so the history shows why the cause changed.
    pub(super) fn supersede_isolation_inference(&mut self, old: Option<&str>, new_id: &str) {
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

    pub(super) fn replan_dispute(
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
        let lead = format!(
            "{}: {}. {}",
            l.replan,
            self.finding_name(p, old.as_deref()),
            l.recheck
        );
        self.replanned(p, lead)
    }

    pub(super) fn replan_reading(
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
        self.replanned(p, lead)
    }

    /// "Are you sure?": the evidence the conclusion rests on, each fact with
    /// the words it came from, and one way to check the concluded component.
    /// The conclusion stands until a reading contradicts it.
    pub(super) fn dispute(&mut self, p: &'a Procedure) -> (&'static str, TransitionId, Reply) {
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
}
