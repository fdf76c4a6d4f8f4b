//! Step answers (D1), isolation (D4), repairs and causes the technician
//! states in their own words, and the report (D7).

use super::*;

impl<'a> Turn<'a> {
    pub(super) fn diagnostic(
        &mut self,
        p: &'a Procedure,
        intent: &'static str,
    ) -> (&'static str, TransitionId, Reply) {
        let text = self.text.clone();
        let active = self.active_index(p);
        let answers = self.step_answers(p, active, &text);
        if extract::states_repair(&text) && !self.performs_active_step(p, &text) {
            return self.stated_repair(p, None);
        }
        if let Some(f) = extract::stated_finding(p, &text) {
            if extract::states_a_fix_in(&text) && !self.performs_active_step(p, &text) {
                return self.stated_repair(p, Some(f));
            }
            return self.stated_finding(p, &answers, f);
        }
        let evidence = extract::evidence(p, &text);
        if answers.is_empty() && evidence.is_none() && lexicon::FOUND.is_match(&text) {
            // "Нашёл: розетка полная воды … поменял розетку": a fix said with
            // the finding names the finding by its repair.
            if extract::states_a_fix_in(&text) {
                if let Some(f) = extract::named_repair(p, &text) {
                    return self.stated_repair(p, Some(f));
                }
            }
            // "Found the flare nut at the fridge loose": the one catalog
            // finding of the part it names, else the technician's words.
            if let Some(f) = extract::repaired_component_finding(p, &text) {
                self.trace
                    .push(format!("stated finding names `{}`", p.findings[f].id));
                let walk = Walk {
                    active: None,
                    finding: Some(f),
                    blocked_by: None,
                };
                let lead = format!("{}.", phrases(&self.lang()).signal);
                return self.terminal(p, walk, "STATED_FINDING", TransitionId::D4Terminal, lead);
            }
            return self.stated_cause(p, false);
        }
        let corrected = (answers.is_empty() && evidence.is_none())
            .then(|| extract::corrected_reading(p, &self.recorded_readings(p), &text))
            .flatten();
        let answers = match corrected {
            Some(a) => vec![a],
            None => answers,
        };
        if answers.is_empty() && evidence.is_none() {
            if let Some((step, outcome)) = extract::tentative(p, active, &text) {
                return self.confirm(p, step, outcome);
            }
            if understand::doubts_the_check(&text) {
                return self.resume_saying(p, "UNSURE", phrases(&self.lang()).doubted_check);
            }
            if understand::intermittent(&text) {
                return self.resume_saying(p, "UNSURE", phrases(&self.lang()).intermittent);
            }
            let unsure = extract::stated_clauses(&text)
                .iter()
                .any(|c| lexicon::UNSURE.is_match(c) || understand::cannot_check(c));
            // "Is 18 psi enough for the fill valve?", "IR gun or a probe in
            // the vent?": a question about the check gets the check's
            // spec or method, and the step stays open.
            if !unsure && understand::asks(&text) && self.about_the_check(p, active, &text) {
                return if lexicon::SPEC_QUESTION.is_match(&text) {
                    self.subflow(p, Submode::Explain, "EXPLAIN")
                } else {
                    self.subflow(p, Submode::Howto, "HOWTO")
                };
            }
            let (intent, transition, reply) = self.unclear();
            return (if unsure { "UNSURE" } else { intent }, transition, reply);
        }
        let intent = if (understand::is_correction(&text)
            || answers.iter().any(|a| a.basis == extract::Basis::Corrected))
            && !answers.is_empty()
        {
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

    /// A question about the asked check, not a policy or coverage question
    /// for the knowledge store: it names the check's part or subject, gives
    /// a number, or asks about a method ("IR gun or a probe?").
    fn about_the_check(&self, p: &Procedure, active: Option<usize>, text: &str) -> bool {
        let Some(step) = active.map(|i| &p.steps[i]) else {
            return false;
        };
        step.subject.is_match(text)
            || step
                .component
                .is_some_and(|c| p.components[c].names.is_match(text))
            || text.contains(|c: char| c.is_ascii_digit())
            || lexicon::METHOD.is_match(text)
    }

    /// The current step facts of `p`, oldest first, with their readings.
    fn recorded_readings(&self, p: &Procedure) -> Vec<(usize, Option<f64>)> {
        self.st
            .facts
            .iter()
            .filter(|f| f.is_current())
            .filter_map(|f| {
                let i = p.step_index(&f.subject)?;
                Some((i, f.value.as_deref().and_then(|v| v.parse().ok())))
            })
            .collect()
    }

    /// A fault the technician states in the catalog's words ("condenser
    /// plugged solid with cottonwood"): what else the message observed is
    /// recorded, the finding is recorded as theirs, and it is isolated.
    fn stated_finding(
        &mut self,
        p: &'a Procedure,
        answers: &[extract::StepAnswer],
        f: usize,
    ) -> (&'static str, TransitionId, Reply) {
        let mut noted = self.apply_answers(p, answers);
        let finding = &p.findings[f];
        // "Fan fuse is blown": where the checks the message answered already
        // lead to this finding, the isolation rests on them.
        let walked = self.walk(p);
        if walked.finding == Some(f) {
            return self.terminal(
                p,
                walked,
                "MAIN_DIAGNOSTIC",
                TransitionId::D4Terminal,
                noted,
            );
        }
        self.add_fact(Fact {
            id: String::new(),
            kind: FactKind::Finding,
            source: FactSource::Technician,
            subject: format!("finding:{}", finding.id),
            value: None,
            unit: None,
            text: self.text.clone(),
            turn_seq: 0,
            superseded_by: None,
            name: Some("stated_finding".into()),
            outcome: None,
        });
        self.trace.push(format!(
            "stated finding matches `{}`'s found words",
            finding.id
        ));
        noted = format!("{noted} {}.", phrases(&self.lang()).signal)
            .trim()
            .to_string();
        let walk = Walk {
            active: None,
            finding: Some(f),
            blocked_by: None,
        };
        self.terminal(p, walk, "STATED_FINDING", TransitionId::D4Terminal, noted)
    }

    pub(super) fn terminal(
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
        if !self.st.queued_complaints.is_empty() {
            text.push('\n');
            text.push_str(l.next_complaint_offer);
            text.push('.');
        }
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
    pub(super) fn stated_cause(
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
        self.st.isolation.finding = Some(crate::catalog::Finding::STATED.to_string());
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
        let mut reply = format!(
            "{}: {cause}\n{}: {correction}\n{}",
            l.stated_cause, l.stated_correction, l.stated_labor
        );
        if !self.st.queued_complaints.is_empty() {
            reply.push('\n');
            reply.push_str(l.next_complaint_offer);
            reply.push('.');
        }
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

    /// A repair the technician reports ("fan fuse was blown, put a new 5 A
    /// in, runs all speeds now"): what the message observed before the fix
    /// is recorded (`step_answers` stops at the repair: what follows is the
    /// fixed unit), then the finding is the one the repair names, else the
    /// one those observations isolate, else the technician's own words.
    pub(super) fn stated_repair(
        &mut self,
        p: &'a Procedure,
        named: Option<usize>,
    ) -> (&'static str, TransitionId, Reply) {
        let text = self.text.clone();
        let answers = self.step_answers(p, self.active_index(p), &text);
        self.apply_answers(p, &answers);
        // Only what this message observed may isolate: a walk that had
        // already reached a finding would have ended the questioning.
        // The walk's finding is the repair's only where the message names
        // that finding's part: "new breaker in, 13.5 at the posts" names the
        // breaker, not the converter's supply the readings would point to,
        // and a cause nobody named would go on the claim.
        let reached = (!answers.is_empty())
            .then(|| self.walk(p).finding)
            .flatten()
            .filter(|&f| {
                p.findings[f]
                    .component
                    .is_some_and(|c| p.components[c].names.is_match(&text))
            });
        match named.or(reached) {
            Some(f) => self.repair(p, f),
            None => {
                self.trace.push(
                    "a repair with no catalog finding: its readings describe the fixed unit".into(),
                );
                self.stated_cause(p, true)
            }
        }
    }

    pub(super) fn repair(
        &mut self,
        p: &'a Procedure,
        f: usize,
    ) -> (&'static str, TransitionId, Reply) {
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

    pub(super) fn report_request(&mut self) -> (&'static str, TransitionId, Reply) {
        let Some(p) = self.proc() else {
            if self.st.report_ready() {
                return self.write_report(None);
            }
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
        // "Replaced the high limit, full cycle ok. Write it up" carries the
        // repair in the same message: asking for the report says the work is
        // done. Readings said with the request ("draw was 0.02 A, shunt
        // wiring's correct, generate the report") are read first, as any note.
        if !self.st.report_ready() {
            let text = self.text.clone();
            let rest = extract::without_report_request(&text);
            if extract::states_repair(&text) || extract::states_a_fix_in(&rest) {
                let _ = self.stated_repair(p, extract::named_repair(p, &text));
            } else if self
                .step_answers(p, self.active_index(p), &rest)
                .iter()
                // "Ya terminé, hazme el reporte": a bare word beside the
                // request winds the job up; only a named check is a finding.
                .any(|a| a.basis != extract::Basis::Asked)
            {
                self.text = rest;
                let _ = self.diagnostic(p, "MAIN_DIAGNOSTIC");
                self.text = text;
            }
        }
        // Asked for the report on a line nothing has been found in yet, after
        // another line of the visit was closed (the customer declined the
        // rest, or it waits for parts): the closed lines are written up and
        // this one, with any still queued, is listed as not diagnosed.
        if !self.st.report_ready()
            && !self.st.closed_complaints.is_empty()
            && !self.st.facts.iter().any(Fact::is_current)
        {
            self.set_aside_undiagnosed(p);
            return self.write_report(None);
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
        // The current complaint is closed; the next one of the visit is
        // diagnosed before the report covers them all, unless the report is
        // asked for again before anything is found in it.
        if !self.st.queued_complaints.is_empty() {
            let (intent, transition, mut reply) = self.next_complaint(p);
            reply.text.push('\n');
            reply
                .text
                .push_str(phrases(&self.lang()).report_without_next);
            return (intent, transition, reply);
        }
        let finding = self.isolated(p).expect("report-ready means a finding");
        self.write_report(Some((p, finding)))
    }

    /// The open complaint and the queued ones become lines the report lists
    /// as not diagnosed; no complaint is open afterwards.
    fn set_aside_undiagnosed(&mut self, p: &Procedure) {
        let current = self
            .st
            .symptom
            .as_ref()
            .map(|symptom| format!("{}:{symptom}", p.system));
        let queued = std::mem::take(&mut self.st.queued_complaints);
        for key in current.into_iter().chain(queued) {
            if !self.st.undiagnosed_complaints.contains(&key) {
                self.st.undiagnosed_complaints.push(key);
            }
        }
        self.trace.push(format!(
            "report asked before anything was found in `{}`: written up as not diagnosed",
            p.system
        ));
        self.clear_diagnosis();
    }

    /// The report of the visit: every closed line, then the current one
    /// (with its finding) when there is one, then the lines not diagnosed.
    fn write_report(
        &mut self,
        current: Option<(&Procedure, crate::catalog::Finding)>,
    ) -> (&'static str, TransitionId, Reply) {
        let lang = self.lang();
        // The finding the report ends on: the open line's, else the last
        // closed line's.
        let cited = match &current {
            Some((p, f)) => Some((p.system.clone(), f.id.clone())),
            None => self.st.closed_complaints.last().and_then(|c| {
                let cp = self.engine.catalog.get(&c.system)?;
                Some((c.system.clone(), c.isolation.finding_in(cp)?.id.clone()))
            }),
        };
        let mut lines = Vec::new();
        for closed in &self.st.closed_complaints {
            let Some(cp) = self.engine.catalog.get(&closed.system) else {
                continue;
            };
            let Some(f) = closed.isolation.finding_in(cp) else {
                continue;
            };
            let (complaint, complaint_translated) =
                self.complaint_texts(cp, closed.symptom.as_deref(), lines.is_empty());
            lines.push(report::ComplaintInput {
                procedure: cp,
                finding: f.into_owned(),
                complaint,
                complaint_translated,
                labor_tenths: closed.labor_tenths,
                repair_done: closed.repair_done,
                unverified: closed.unverified.clone(),
                edits: &closed.report_edits,
            });
        }
        if let Some((p, finding)) = current {
            let (complaint, complaint_translated) =
                self.complaint_texts(p, self.st.symptom.as_deref(), lines.is_empty());
            lines.push(report::ComplaintInput {
                procedure: p,
                finding: finding.clone(),
                complaint,
                complaint_translated,
                labor_tenths: self.labor_tenths(&finding),
                repair_done: self.st.repair_done,
                unverified: self.st.open_steps.clone(),
                edits: &self.st.report_edits,
            });
        }
        let undiagnosed = self
            .st
            .undiagnosed_complaints
            .iter()
            .filter_map(|key| {
                let (system, symptom) = key.split_once(':')?;
                let cp = self.engine.catalog.get(system)?;
                Some(self.complaint_texts(cp, Some(symptom), false))
            })
            .collect();
        let input = ReportInput {
            lines,
            undiagnosed,
            photos: &self.ctx.photos,
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
                citations: cited
                    .map(|(system, id)| format!("procedure:{system}#{id}"))
                    .into_iter()
                    .collect(),
            },
        )
    }

    /// A complaint line's text, in English and the session language: the
    /// complaint of its symptom, or for the visit's first line with no
    /// symptom matched, what the writer typed.
    fn complaint_texts(
        &self,
        p: &Procedure,
        symptom: Option<&str>,
        first: bool,
    ) -> (String, String) {
        let symptom = symptom.and_then(|s| p.symptoms.iter().find(|x| x.id == s));
        let writer = || {
            first
                .then(|| self.ctx.complaint.clone())
                .flatten()
                .unwrap_or_default()
        };
        let en = symptom.map_or_else(writer, |s| s.complaint.get("en").to_string());
        let tr = symptom.map_or_else(|| en.clone(), |s| s.complaint.get(&self.lang()).to_string());
        (en, tr)
    }

    /// Closes the current complaint (its isolation, labor, facts and
    /// unverified checks kept for its block of the report) and starts the
    /// next queued one at its first step.
    pub(super) fn next_complaint(
        &mut self,
        p: &'a Procedure,
    ) -> (&'static str, TransitionId, Reply) {
        let finding = self.isolated(p).expect("a closed complaint has a finding");
        let closed = ClosedComplaint {
            system: p.system.clone(),
            symptom: self.st.symptom.clone(),
            isolation: self.st.isolation.clone(),
            repair_done: self.st.repair_done,
            labor_tenths: self.labor_tenths(&finding),
            labor_status: self.st.labor.status,
            unverified: std::mem::take(&mut self.st.open_steps),
            facts: std::mem::take(&mut self.st.facts),
            report_edits: std::mem::take(&mut self.st.report_edits),
        };
        let done = p.title.get(&self.lang()).to_string();
        self.st.closed_complaints.push(closed);
        let key = self.st.queued_complaints.remove(0);
        self.trace
            .push(format!("complaint closed: {}; next: {key}", p.system));
        self.clear_diagnosis();
        let next = key.split_once(':').and_then(|(system, symptom)| {
            let pi = self
                .engine
                .catalog
                .procedures
                .iter()
                .position(|x| x.system == system)?;
            let si = self.engine.catalog.procedures[pi]
                .symptoms
                .iter()
                .position(|x| x.id == symptom)?;
            Some((pi, si))
        });
        let Some((pi, si)) = next else {
            return self.unclear();
        };
        let np = &self.engine.catalog.procedures[pi];
        // The next complaint opens with its own line, not with the words
        // that closed this one.
        self.text = String::new();
        let (_, transition, mut reply) = self.root_entry(np, si);
        let l = phrases(&self.lang());
        reply.text = format!("{done}: {}\n{}", l.complaint_closed, reply.text);
        ("NEW_COMPLAINT", transition, reply)
    }

    /// Leaves no complaint open: the diagnosis of the current one (its
    /// steps, facts, isolation, labor and escalation) is cleared; what a
    /// closed line keeps was taken out before.
    fn clear_diagnosis(&mut self) {
        self.st.completed_steps.clear();
        self.st.open_steps.clear();
        self.st.facts.clear();
        self.st.report_edits = Default::default();
        self.st.hypotheses.clear();
        self.st.contradictions.clear();
        self.st.isolation = Default::default();
        self.st.repair_done = false;
        self.st.labor = Default::default();
        self.st.escalation = Default::default();
        self.st.asked.clear();
        self.st.reported.clear();
        self.st.active_step = None;
        self.st.active_procedure = None;
        self.st.symptom = None;
    }
}
