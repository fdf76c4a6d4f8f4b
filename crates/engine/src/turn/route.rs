//! Routing one message: the lane it belongs to (a report request, a language
//! switch, an acknowledgment, a second complaint, a where/what/how note, a
//! step answer, ...), the opening of a procedure from a symptom or the
//! session's complaint, and the one confirming question when a note is unclear.

use super::*;

impl<'a> Turn<'a> {
    /// "Swapped the plugs, now the code follows the motor" is the asked
    /// step's own test, worded like a repair: it answers that step.
    pub(super) fn performs_active_step(&self, p: &Procedure, text: &str) -> bool {
        self.active_index(p).is_some_and(|a| {
            extract::tests_by_substitution(&p.steps[a])
                && p.steps[a].subject.is_match(text)
                && self
                    .step_answers(p, Some(a), text)
                    .iter()
                    .any(|x| x.step == a)
        })
    }

    pub(super) fn route(&mut self) -> (&'static str, TransitionId, Reply) {
        let mut text = self.text.clone();
        let has_content = |t: &str| t.chars().any(|c| c.is_alphanumeric());
        if !has_content(&text) {
            self.trace
                .push("no letters or digits in the message".into());
            return self.unclear();
        }
        if let Some(lang) = understand::language_request(&text) {
            return self.switch_language(lang);
        }
        // Only the technician's own sentences may state a check or a repair;
        // a message that is all someone else's account may still open a
        // complaint, which is the customer's account by nature.
        let original = text.clone();
        let mut all_hearsay = false;
        if let Some(own) = understand::without_hearsay(&text) {
            self.trace
                .push("someone else's account left out of what was said".into());
            if has_content(&own) {
                self.text = own.clone();
                text = own;
            } else {
                all_hearsay = true;
            }
        }
        if lexicon::REPORT.is_match(&text)
            && (!understand::is_question(&text) || understand::asks_for_it(&text))
        {
            self.trace.push("report phrasing matched".into());
            return self.report_request();
        }
        // "Does the warranty cover the compressor?", "¿esto entra en
        // garantía?": a coverage or policy question is for the shop's
        // documents, not a complaint or a how-to on the step, which stays.
        if understand::asks(&text) && lexicon::POLICY.is_match(&text) {
            self.trace
                .push("a coverage or policy question: for the knowledge store".into());
            return self.unclear();
        }
        // "What does LP safety say about leak checks?": a question about
        // what a document says is for the shop's documents, not a note on
        // the step's part.
        if DOCUMENT_SAYS.is_match(&text) {
            self.trace
                .push("a question about what a document says: for the knowledge store".into());
            return self.unclear();
        }
        let Some(proc) = self.proc() else {
            self.text = original;
            return self.no_procedure();
        };
        if (!self.st.topic_stack.is_empty() || self.st.submode != Submode::Main)
            && lexicon::RESUME.is_match(&text)
        {
            return self.resume(proc);
        }
        if self.pending.is_some() {
            if let Some(done) = self.confirmation_reply(proc) {
                return done;
            }
        }
        if lexicon::NEW_SYSTEM.is_match(&original) {
            if let Some((pi, si)) = self.symptom_named(&original, Some(&proc.system)) {
                return self.new_complaint(pi, si);
            }
        }
        if all_hearsay {
            return self.hearsay(proc);
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
        // "Where are we at?", "¿por dónde íbamos?" ask for the recap, not
        // where a part is.
        if lexicon::RECAP.is_match(&text) {
            return self.recap(proc);
        }
        // "Fuse is good — where's the relay?", "12.2 at the motor, good
        // enough?": what is stated before the question is recorded first.
        if !self.st.isolation.complete {
            if let Some((stated, question)) = understand::statement_then_question(&text) {
                let active = self.active_index(proc);
                let answers = self.step_answers(proc, active, stated);
                if !answers.is_empty() {
                    let (stated, question) = (stated.to_string(), question.to_string());
                    return self.state_then_ask(proc, stated, question, answers);
                }
            }
        }
        if lexicon::HOWTO.is_match(&text) {
            return self.subflow(proc, Submode::Howto, "HOWTO");
        }
        if lexicon::LOCATE.is_match(&text) {
            return self.subflow(proc, Submode::Locate, "LOCATE");
        }
        // "What's the weather gonna do tomorrow" is a "what" question about
        // nothing of the procedure: no part it names, no word of the step
        // asked, not "it" or "that" pointing at the step's part.
        let about_the_procedure = || {
            extract::component_named(proc, &text).is_some()
                || self
                    .active_index(proc)
                    .is_some_and(|i| proc.steps[i].subject.is_match(&text))
                || POINTS_AT.is_match(&text)
        };
        // "176 °F, это норм?" states a reading and asks what it means: no
        // sentence of it is a question.
        if (lexicon::EXPLAIN.is_match(&text) && !understand::question_spans(&text).is_empty()
            || lexicon::EXPLAIN.is_match(&text)
                && self
                    .step_answers(proc, self.active_index(proc), &text)
                    .is_empty()
                && !lexicon::META.is_match(&text))
            && about_the_procedure()
        {
            return self.subflow(proc, Submode::Explain, "EXPLAIN");
        }
        if self.st.isolation.complete {
            return self.after_isolation(proc);
        }
        if let Some(f) =
            extract::repair_done(proc, &text).filter(|_| !self.performs_active_step(proc, &text))
        {
            return self.stated_repair(proc, Some(f));
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
        // "I TOLD you the split is fine, it's 19": said again to push back,
        // it is the same fact, not a new one.
        if lexicon::REPEATED.is_match(&text) {
            let answers = self.step_answers(proc, None, &text);
            let already = |a: &extract::StepAnswer| {
                self.st.facts.iter().any(|f| {
                    f.is_current()
                        && f.subject == proc.steps[a.step].id
                        && f.outcome.as_deref() == Some(a.outcome.as_str())
                })
            };
            if answers.iter().all(already) {
                return self.dispute(proc);
            }
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

    /// A message that is all someone else's account: nothing is recorded,
    /// and the step asked stays open.
    fn hearsay(&mut self, proc: &'a Procedure) -> (&'static str, TransitionId, Reply) {
        self.resume_saying(proc, "HEARSAY", phrases(&self.lang()).hearsay)
    }

    /// Says why nothing was recorded, then goes back to the step asked.
    pub(super) fn resume_saying(
        &mut self,
        proc: &'a Procedure,
        intent: &'static str,
        why: &str,
    ) -> (&'static str, TransitionId, Reply) {
        let (_, transition, mut reply) = self.resume(proc);
        reply.text = format!("{why} {}", reply.text);
        (intent, transition, reply)
    }

    pub(super) fn no_procedure(&mut self) -> (&'static str, TransitionId, Reply) {
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
    pub(super) fn symptom_named(&self, text: &str, except: Option<&str>) -> Option<(usize, usize)> {
        // "El aire del techo tampoco enfría": "tampoco" is the "no" of a
        // second complaint.
        let negated;
        let text = if TAMPOCO.is_match(text) {
            negated = TAMPOCO.replace_all(text, "no").into_owned();
            negated.as_str()
        } else {
            text
        };
        self.longest_symptom(text, except).or_else(|| {
            // "Розетки на кухне не работают", "outlets in the galley are
            // dead": the symptom patterns want the part next to its state, so
            // a room of the coach between them is read past.
            if !PLACE_IN_COACH.is_match(text) {
                return None;
            }
            let without_place = PLACE_IN_COACH.replace_all(text, " ");
            self.longest_symptom(&without_place, except)
        })
    }

    /// The longest symptom match over the catalog, leaving out `except`.
    fn longest_symptom(&self, text: &str, except: Option<&str>) -> Option<(usize, usize)> {
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
    pub(super) fn new_complaint(
        &mut self,
        pi: usize,
        si: usize,
    ) -> (&'static str, TransitionId, Reply) {
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
            p.symptoms[si].complaint.get(&lang).trim_end_matches('.')
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

    pub(super) fn root_entry(
        &mut self,
        p: &'a Procedure,
        symptom: usize,
    ) -> (&'static str, TransitionId, Reply) {
        let s = &p.symptoms[symptom];
        self.trace
            .push(format!("symptom `{}` of `{}` matched", s.id, p.system));
        self.st.active_procedure = Some(p.system.clone());
        self.st.symptom = Some(s.id.clone());
        // A line set aside as not diagnosed is diagnosed after all.
        let key = format!("{}:{}", p.system, s.id);
        self.st.undiagnosed_complaints.retain(|k| *k != key);
        self.st.mode = Mode::Diagnostic;
        self.st.submode = Submode::Main;
        self.st.topic_stack.clear();
        self.st.reported.clear();
        let text = self.text.clone();
        // A message that states the complaint describes the symptom in the
        // customer's terms as well as the technician's first checks. A
        // symptom told that way ("blower doesn't even come on", "per cust
        // the fridge quits on LP") is the customer's account, not a verified
        // check: it is kept to be confirmed when the walk reaches its step.
        // A check with a result ("panel fuse ok", "12.4 V at the board") is
        // the technician's and counts.
        // The clause that states the complaint ("TV won't turn on") is the
        // complaint itself, not an answer to the step that checks it; a
        // reading in it ("pv input 0 V") is still a reading.
        let complaint_clause = extract::clauses(&text)
            .into_iter()
            .find(|c| s.patterns.is_match(c))
            .map(str::to_string);
        let states_complaint = complaint_clause.is_some();
        let (reported, answers): (Vec<StepAnswer>, Vec<StepAnswer>) = self
            .step_answers(p, None, &text)
            .into_iter()
            .filter(|a| a.quantity.is_some() || Some(&a.clause) != complaint_clause.as_ref())
            .partition(|a| {
                states_complaint
                    && (extract::only_symptoms(&text)
                        || extract::customer_account(&a.clause, a.quantity.is_some())
                        || extract::in_customers_sentence(&text, &a.clause)
                        || (a.quantity.is_none()
                            && complaint_clause.as_deref().is_some_and(|c| {
                                extract::in_complaint_sentence(&text, c, &a.clause)
                            })))
            });
        if !reported.is_empty() {
            self.trace.push(format!(
                "the complaint reports {}: confirmed when asked, not recorded",
                reported
                    .iter()
                    .map(|a| p.steps[a.step].id.as_str())
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        self.st.reported = reported
            .iter()
            .map(|a| PendingConfirmation {
                step: p.steps[a.step].id.clone(),
                outcome: a.outcome.clone(),
                text: a.clause.clone(),
                value: a.quantity.map(|q| q.value),
                unit: a.quantity.map(|q| q.unit.symbol().to_string()),
            })
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

    /// Not sure what the message says about the step: one short question
    /// ("So: panel fuse — yes?") instead of a guess. Nothing is recorded
    /// until the technician says yes.
    pub(super) fn confirm(
        &mut self,
        p: &'a Procedure,
        step: usize,
        outcome: String,
    ) -> (&'static str, TransitionId, Reply) {
        let lang = self.lang();
        let l = phrases(&lang);
        let s = &p.steps[step];
        let said = lexicon::said_outcome(s.kind, &outcome, &lang);
        self.st.pending_confirmation = Some(PendingConfirmation {
            step: s.id.clone(),
            outcome,
            text: self.text.clone(),
            value: None,
            unit: None,
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
    pub(super) fn confirmation_reply(
        &mut self,
        p: &'a Procedure,
    ) -> Option<(&'static str, TransitionId, Reply)> {
        let pending = self.pending.take()?;
        if self.st.active_step.as_ref() != Some(&pending.step) {
            return None;
        }
        let t = self.text.trim();
        let short = t.split_whitespace().count() <= 3;
        let i = p.step_index(&pending.step)?;
        // "Yeah same, clicks 3 times then check light": an agreement that
        // opens a longer note confirms, unless the note goes on to state
        // the other outcome.
        let agrees_then_tells = !short
            && AGREES_LEAD.find(t).is_some_and(|m| {
                self.step_answers(p, Some(i), &t[m.end()..])
                    .iter()
                    .all(|a| a.step != i || a.outcome == pending.outcome)
            });
        let yes =
            (short && lexicon::YES.is_match(t) && !lexicon::NO.is_match(t)) || agrees_then_tells;
        let no = short && lexicon::NO.is_match(t) && !lexicon::YES.is_match(t);
        if yes {
            let quantity = pending
                .value
                .zip(pending.unit.as_deref())
                .and_then(|(value, u)| {
                    Some(crate::units::Quantity {
                        value,
                        unit: crate::units::Unit::parse(u)?,
                    })
                });
            let answer = StepAnswer {
                step: i,
                outcome: pending.outcome.clone(),
                quantity,
                clause: format!("{} ({t})", pending.text),
                signal: p.steps[i]
                    .outcome(&pending.outcome)
                    .is_some_and(|o| o.signal),
                basis: extract::Basis::Confirmed,
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
    pub(super) fn switch_language(&mut self, lang: &str) -> (&'static str, TransitionId, Reply) {
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
}

pattern!(TAMPOCO, r"\btampoco\b");
pattern!(
    AGREES_LEAD,
    r"^\s*(yes|yeah|yep|yup|correct|right|same|exactly|confirmed|s[ií]|correcto|exacto|as[ií] es|eso|да|ага|угу|точно|так и есть|подтверждаю)\b(\s+(same|that'?s it|igual|así|так же|то же самое))?[\s,.!:;-]+"
);
pattern!(
    PLACE_IN_COACH,
    r"\b(in|on|at|by|near) (the |my |our )?(galley|kitchen|bath(room)?|bedroom|lav|living room|front|rear|back|bunk ?(room|house)?|passenger side|driver.?s? side|curb ?side|road ?side)\b|\b(en|de|del) (la |el )?(cocina|ba[ñn]o|rec[áa]mara|dormitorio|sala|cuarto|parte (de )?(atr[áa]s|adelante|trasera|delantera)|lado (del )?(pasajero|conductor|chofer))\b|\b(на|в|во) (кухн|ванн|спальн|туалет|гостин|прихож)\w*"
);
pattern!(
    DOCUMENT_SAYS,
    r"\bwhat (does|do|did) [\w\s'-]{1,40}? (says?|states?) (about|on|for)\b|\bqu[eé] dice (el|la|nuestr[oa]) (manual|pol[ií]tica|gu[ií]a|documento|bolet[ií]n)\b|\bчто (говорит|сказано) (в|про) (инструкци|руководств|правил|документ|бюллетен)\w*"
);
pattern!(
    POINTS_AT,
    r"\b(it|its|it's|that|this|these|those|one|thing|part|eso|esto|esa|esta|ese|este|это|этот|эта|эту|он|она|оно|его|её)\b"
);
