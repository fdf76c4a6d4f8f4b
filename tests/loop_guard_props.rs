//! Property test of the loop guard and the other per-turn invariants of the
//! context engine: random sequences of messages drawn from the transcript
//! corpus (every user line of `tests/conversations/*.toml`, plus hostile
//! input) are played through the pure engine, and after every turn:
//! - never two fallback replies in a row;
//! - a question never asks a completed step, and asks the active step;
//! - no step is ever asked a third time;
//! - a subflow (where / what / how) never completes a step;
//! - only an explicit report request produces a report, and no other reply
//!   carries report sections or the translation separator;
//! - the turn counter moves by exactly one and nothing panics.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::LazyLock;

use proptest::prelude::*;
use servicedesk::engine::registry::TransitionId;
use servicedesk::engine::{Engine, SessionState, TurnContext};

static ENGINE: LazyLock<Engine> = LazyLock::new(|| Engine::embedded().expect("catalog loads"));

/// Every user line of every scenario, plus input no scenario would think of.
static CORPUS: LazyLock<Vec<String>> = LazyLock::new(|| {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conversations");
    let mut lines = BTreeSet::new();
    for entry in std::fs::read_dir(&dir).expect("scenario dir") {
        let path = entry.expect("dir entry").path();
        if path.extension().is_none_or(|e| e != "toml") {
            continue;
        }
        let doc: toml::Value = toml::from_str(&std::fs::read_to_string(&path).unwrap())
            .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        for turn in doc["turn"].as_array().into_iter().flatten() {
            if let Some(user) = turn["user"].as_str() {
                lines.insert(user.to_string());
            }
        }
    }
    lines.extend(
        [
            "",
            "?",
            "hmm",
            "idk",
            "asdf qwer",
            "🙂🙂",
            "no sé",
            "не знаю",
            "yes",
            "no",
            "12",
            "make it 99",
            "skip labor",
            "write the report",
            "are you sure?",
            "back to the step",
        ]
        .map(String::from),
    );
    assert!(lines.len() > 50, "corpus too small: {}", lines.len());
    lines.into_iter().collect()
});

fn check_sequence(picks: &[usize], language: &str) -> Result<(), TestCaseError> {
    let ctx = TurnContext {
        id_prefix: "prop:".into(),
        complaint: None,
        photos: Vec::new(),
    };
    let mut state = SessionState::new(language);
    let mut last_kind = String::new();
    for (n, &pick) in picks.iter().enumerate() {
        let input = &CORPUS[pick % CORPUS.len()];
        let out = ENGINE.turn(&state, &ctx, input);
        let st = &out.state;
        let kind = out.reply.kind.as_str();
        let at = format!(
            "turn {} {input:?} → {kind} ({})",
            n + 1,
            out.transition.name()
        );
        prop_assert_eq!(st.turn, state.turn + 1, "{}", at);
        prop_assert!(
            !(kind == "fallback" && last_kind == "fallback"),
            "two fallbacks in a row at {}",
            at
        );
        if kind == "question" {
            let step = out.reply.step_id.as_ref();
            prop_assert!(step.is_some(), "a question without a step at {}", at);
            prop_assert!(
                !st.completed_steps.contains(step.unwrap()),
                "asked completed step {:?} at {}",
                step,
                at
            );
            prop_assert_eq!(step, st.active_step.as_ref(), "{}", at);
        }
        for (step, times) in &st.asked {
            prop_assert!(*times <= 2, "{} asked {} times at {}", step, times, at);
        }
        if out.transition == TransitionId::D2Subflow {
            prop_assert_eq!(
                &st.completed_steps,
                &state.completed_steps,
                "a subflow completed a step at {}",
                at
            );
        }
        let text = &out.reply.text;
        if kind == "report" {
            prop_assert_eq!(out.intent, "REPORT_REQUEST", "{}", at);
        } else {
            prop_assert!(
                !text.contains("--- TRANSLATION ---") && !text.contains("Total labor:"),
                "report sections in a {} reply at {}",
                kind,
                at
            );
        }
        last_kind = kind.to_string();
        state = out.state;
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2_000, ..ProptestConfig::default() })]

    #[test]
    fn loop_guard_invariants_hold(
        picks in prop::collection::vec(any::<usize>(), 1..40),
        language in prop::sample::select(vec!["en", "es", "ru"]),
    ) {
        check_sequence(&picks, language)?;
    }

    /// The same message over and over is the classic loop: the engine must
    /// change strategy and never ask a step a third time.
    #[test]
    fn repeating_one_message_never_loops(
        first in any::<usize>(),
        repeated in any::<usize>(),
        times in 2usize..12,
    ) {
        let mut picks = vec![first];
        picks.extend(std::iter::repeat_n(repeated, times));
        check_sequence(&picks, "en")?;
    }
}
