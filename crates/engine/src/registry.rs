//! The transition registry: every way a turn can move the conversation, as a
//! named class with a stable id (the spec's table). Each class declares what
//! it needs, what it may carry over, what it changes and how it answers, so a
//! turn's behaviour is never an unnamed heuristic. Every turn records the
//! class that fired and why.
//!
//! The knowledge and billing lanes (src/conversation/) add T2–T11.

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, serde::Serialize)]
pub enum TransitionId {
    T1RootEntry,
    T2ScopeChange,
    T3ObjectSelect,
    T4ObjectAction,
    T5ObjectPronoun,
    T6DomainPivot,
    T7ClarificationContinue,
    T8Meta,
    T9Recap,
    T10Boundary,
    T11ClarificationCancel,
    D1StepAnswer,
    D2Subflow,
    D3Replan,
    D4Terminal,
    D5LaborDraft,
    D6LaborUpdate,
    D7Report,
    D8Fallback,
}

#[derive(Debug)]
pub struct TransitionClass {
    pub id: TransitionId,
    pub name: &'static str,
    pub entry: &'static str,
    pub requires: &'static str,
    pub carryover: &'static str,
    pub forbidden: &'static str,
    pub mutations: &'static str,
    pub answer: &'static str,
}

pub static REGISTRY: &[TransitionClass] = &[
    TransitionClass {
        id: TransitionId::T1RootEntry,
        name: "T1_root_entry",
        entry: "a message names a system symptom and no procedure is active (or the technician opens a new complaint)",
        requires: "none",
        carryover: "session language, photos",
        forbidden: "steps, facts' step answers and isolation of another system",
        mutations: "active procedure, symptom and first step set; facts in the message applied",
        answer: "question: the first unanswered step",
    },
    TransitionClass {
        id: TransitionId::T2ScopeChange,
        name: "T2_scope_change",
        entry: "a follow-up that changes one slot of the last billing request (\"and for lot B?\")",
        requires: "a previous billing request",
        carryover: "the request's intent and every slot the message does not change",
        forbidden: "keeping the old value of the changed slot; re-asking carried slots",
        mutations: "the changed slot (source: message); the request runs again",
        answer: "answer: facts, evidence, conclusion for the changed scope",
    },
    TransitionClass {
        id: TransitionId::T3ObjectSelect,
        name: "T3_object_select",
        entry: "an ordinal (\"the first one\", \"el primero\", \"第一笔\") over the last listed result set",
        requires: "a listed result set",
        carryover: "the result set; the root scope (plate, city)",
        forbidden: "guessing an item that was not listed",
        mutations: "the selected item (slot order_no, source: selection)",
        answer: "answer: the item's facts, or the requested action on it",
    },
    TransitionClass {
        id: TransitionId::T4ObjectAction,
        name: "T4_object_action",
        entry: "a short action on the selected item (\"how much was paid?\")",
        requires: "a selected item",
        carryover: "the selected item and its facts",
        forbidden: "re-running tools for facts already listed",
        mutations: "none",
        answer: "answer: the listed facts the action asks for",
    },
    TransitionClass {
        id: TransitionId::T5ObjectPronoun,
        name: "T5_object_pronoun",
        entry: "\"that order\", \"этот\", \"上一单\", \"verify it\" about the selected item",
        requires: "a selected or last-named item",
        carryover: "the item",
        forbidden: "resolving to an item never named",
        mutations: "none beyond the action's own",
        answer: "answer: the action on that item",
    },
    TransitionClass {
        id: TransitionId::T6DomainPivot,
        name: "T6_domain_pivot",
        entry: "the user leaves the selected item but stays in the root question (\"back to the list\")",
        requires: "a root frame with a selected item",
        carryover: "the root scope: intent, plate, city, date; the list on screen",
        forbidden: "replaying the item's action; re-running a tool",
        mutations: "the selected item (focus object) is dropped",
        answer: "answer: the root's list again, with how to pick from it",
    },
    TransitionClass {
        id: TransitionId::T7ClarificationContinue,
        name: "T7_clarification_continue",
        entry: "a reply while a knowledge document's clarification loop is pending",
        requires: "a pending clarification loop (state.lanes.clarification)",
        carryover: "the document, the original question, the answers so far",
        forbidden: "any search: the reply is the answer to the pending question, even \"12\"",
        mutations: "the answer is recorded; the loop ends after the last question (and escalates if the document requires a hand-off)",
        answer: "question: the next clarifying question; or answer: cited, using the collected details",
    },
    TransitionClass {
        id: TransitionId::T8Meta,
        name: "T8_meta",
        entry: "a question about the last answer (\"why?\", \"is that a lot?\")",
        requires: "a previous answer",
        carryover: "everything",
        forbidden: "re-running the step walk; new facts",
        mutations: "none",
        answer: "answer: explanation from recorded facts, then the active step again",
    },
    TransitionClass {
        id: TransitionId::T9Recap,
        name: "T9_recap",
        entry: "\"did we check X?\"",
        requires: "none",
        carryover: "everything",
        forbidden: "inventing memory: only recorded facts are cited",
        mutations: "none",
        answer: "answer: the facts about X (or that none exist), then the active step again",
    },
    TransitionClass {
        id: TransitionId::T10Boundary,
        name: "T10_boundary",
        entry: "unsupported in this lane (billing in a diagnostic session, report before isolation, labor before a draft)",
        requires: "none",
        carryover: "everything",
        forbidden: "pretending to answer",
        mutations: "none",
        answer: "refusal or answer: a truthful bounded reply, then the active step again",
    },
    TransitionClass {
        id: TransitionId::T11ClarificationCancel,
        name: "T11_clarification_cancel",
        entry: "a pending clarification question dropped by the user (\"never mind\", \"cancela\", \"отмена\")",
        requires: "a pending clarification: a knowledge document's loop or a billing slot question",
        carryover: "the root scope; the diagnosis: procedure, steps, facts, isolation, labor",
        forbidden: "answering the abandoned question; searching; running a tool",
        mutations: "the pending question (and its suspended request) is dropped",
        answer: "answer: the question is dropped, then the active step again",
    },
    TransitionClass {
        id: TransitionId::D1StepAnswer,
        name: "D1_step_answer",
        entry: "facts in the message answer the active step and/or other steps",
        requires: "an active procedure",
        carryover: "procedure, facts, labor",
        forbidden: "completing a step from a clarification question",
        mutations: "facts added (a changed reading supersedes the old one); steps completed; topic stack cleared; walk recomputed, signals first",
        answer: "question: the next unanswered step (never a completed one)",
    },
    TransitionClass {
        id: TransitionId::D2Subflow,
        name: "D2_subflow",
        entry: "where is it / what is it / how do I check it",
        requires: "an active procedure",
        carryover: "everything",
        forbidden: "completing or skipping a step",
        mutations: "topic pushed (submode locate/explain/howto); popped on the next step answer",
        answer: "answer: the component note, then the same step's question",
    },
    TransitionClass {
        id: TransitionId::D3Replan,
        name: "D3_replan",
        entry: "after isolation: physical evidence, a dispute, or a contradicting reading",
        requires: "isolation complete",
        carryover: "facts (superseded, not deleted)",
        forbidden: "keeping the old conclusion silently",
        mutations: "isolation invalidated; the old finding superseded; branch switched; labor draft recomputed",
        answer: "answer or question: one sentence on what changed, then the new cause or the next step",
    },
    TransitionClass {
        id: TransitionId::D4Terminal,
        name: "D4_terminal",
        entry: "the walk reaches a finding, or the technician reports the repair done and the unit working",
        requires: "an active procedure",
        carryover: "everything",
        forbidden: "further routine questions; switching to the report unasked",
        mutations: "isolation complete; mode authorization; labor draft from the finding's operations",
        answer: "answer: the cause, the labor draft, and the offer (labor or report)",
    },
    TransitionClass {
        id: TransitionId::D5LaborDraft,
        name: "D5_labor_draft",
        entry: "the technician asks about labor",
        requires: "isolation complete",
        carryover: "everything",
        forbidden: "blocking the report on confirmation",
        mutations: "labor draft (re)produced from the finding",
        answer: "labor_draft: task lines and total",
    },
    TransitionClass {
        id: TransitionId::D6LaborUpdate,
        name: "D6_labor_update",
        entry: "labor confirmed, adjusted (\"make it 2.5\") or skipped",
        requires: "a labor draft",
        carryover: "everything",
        forbidden: "changing the draft's operations",
        mutations: "labor confirmed / adjusted / skipped",
        answer: "answer: the labor now used, and the report offer",
    },
    TransitionClass {
        id: TransitionId::D7Report,
        name: "D7_report",
        entry: "a report request when isolation is complete or the repair is done",
        requires: "report-ready session",
        carryover: "everything",
        forbidden: "waiting for labor confirmation",
        mutations: "mode final_report; report revision +1",
        answer: "report: English, then the translation when the session language is not English",
    },
    TransitionClass {
        id: TransitionId::D8Fallback,
        name: "D8_fallback",
        entry: "nothing understood",
        requires: "none",
        carryover: "everything",
        forbidden: "two fallback replies in a row; a third asking of one step",
        mutations: "an unanswerable step may be marked not verified",
        answer: "fallback, or a changed strategy (choices, a specific reading, the report offer)",
    },
];

impl TransitionId {
    pub fn class(self) -> &'static TransitionClass {
        REGISTRY
            .iter()
            .find(|c| c.id == self)
            .expect("every id has a registry entry")
    }

    pub fn name(self) -> &'static str {
        self.class().name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_and_named_as_in_the_spec() {
        let mut names: Vec<_> = REGISTRY.iter().map(|c| c.name).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), REGISTRY.len());
        for c in REGISTRY {
            assert!(c.name.starts_with('T') || c.name.starts_with('D'));
            assert_eq!(c.id.name(), c.name);
        }
    }
}
