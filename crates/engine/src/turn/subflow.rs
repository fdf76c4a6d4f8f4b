//! Where is it / what is it / how do I check it (D2) and the way back to the
//! step, recap and meta questions (T8, T9), and boundaries (T10).

use super::*;

impl<'a> Turn<'a> {
    /// A message that states checks and then asks: the checks are recorded
    /// and the walk moves on; a where / what / how question about a part is
    /// then answered, with the way back to the step now asked. A question
    /// about what was just stated ("good enough?") is answered by the
    /// recorded outcome and the next step.
    pub(super) fn state_then_ask(
        &mut self,
        p: &'a Procedure,
        stated: String,
        question: String,
        answers: Vec<extract::StepAnswer>,
    ) -> (&'static str, TransitionId, Reply) {
        let submode = if lexicon::HOWTO.is_match(&question) {
            Some((Submode::Howto, "HOWTO"))
        } else if lexicon::LOCATE.is_match(&question) {
            Some((Submode::Locate, "LOCATE"))
        } else if lexicon::EXPLAIN.is_match(&question)
            && extract::component_named(p, &question).is_some()
        {
            Some((Submode::Explain, "EXPLAIN"))
        } else {
            None
        };
        self.trace
            .push("checks stated before a question: recorded first".into());
        let Some((submode, intent)) = submode else {
            self.text = stated;
            return self.diagnostic(p, "MAIN_DIAGNOSTIC");
        };
        let noted = self.apply_answers(p, &answers);
        let walk = self.walk(p);
        if walk.finding.is_some() {
            return self.terminal(p, walk, "MAIN_DIAGNOSTIC", TransitionId::D4Terminal, noted);
        }
        self.sync_walk_state(p, &walk);
        self.text = question;
        let (intent, _, mut reply) = self.subflow(p, submode, intent);
        if !noted.is_empty() {
            reply.text = format!("{noted}\n{}", reply.text);
        }
        // Facts were recorded: the turn answered steps, and the question
        // rode along.
        (intent, TransitionId::D1StepAnswer, reply)
    }

    pub(super) fn subflow(
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

    /// "Back to the step": the subflow ends and the step it interrupted is
    /// restated. A restatement is not a new asking, so it never feeds the
    /// loop guard's count.
    pub(super) fn resume(&mut self, p: &'a Procedure) -> (&'static str, TransitionId, Reply) {
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

    pub(super) fn recap(&mut self, p: &'a Procedure) -> (&'static str, TransitionId, Reply) {
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
                        "- {}: {} ({} {}: \"{}\")",
                        p.step(&f.subject)
                            .map_or(f.subject.as_str(), |s| s.label.get(&lang)),
                        f.value.clone().unwrap_or_default(),
                        l.turn,
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

    pub(super) fn meta(&mut self, p: &'a Procedure) -> (&'static str, TransitionId, Reply) {
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
                .map(|x| format!("- {} ({} {})", x.text, l.turn, x.turn_seq))
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

    pub(super) fn boundary(
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
}
