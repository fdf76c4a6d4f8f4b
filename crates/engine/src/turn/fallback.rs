//! Nothing readable, or nothing understood (D8): never two fallbacks in a row,
//! never a third asking of a step.

use super::*;

impl<'a> Turn<'a> {
    /// A message with nothing to read (empty, emoji, binary garbage): nothing
    /// is learned, nothing is counted as an asking, the diagnosis stays where
    /// it is, and the reply says so instead of repeating the question.
    pub(super) fn noise(&mut self) -> (&'static str, TransitionId, Reply) {
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

    pub(super) fn unclear(&mut self) -> (&'static str, TransitionId, Reply) {
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
}
