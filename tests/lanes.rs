//! Which lane a chat message goes to: the diagnosis (the context engine),
//! the knowledge store, the billing tools, or a boundary reply (not
//! covered, out of scope, not understood). `tests/data/lanes.jsonl` holds
//! messages typed the way users type, in en/es/ru, at the start of a chat
//! or in the middle of a diagnosis, each labelled with its lane. A coverage
//! or policy question asked mid-diagnosis belongs to knowledge and the step
//! stays; a question about the check belongs to the diagnosis.

use std::collections::BTreeMap;

use serde::Deserialize;
use servicedesk::api::transcript_turn;
use servicedesk::engine::TurnOutcome;
use servicedesk::store::NewSession;
use servicedesk::Desk;

#[derive(Deserialize)]
struct Case {
    id: String,
    lang: String,
    /// "fresh", "mid:<opening complaint>" for a message sent after it, or
    /// "after:<billing question>" for a message sent after that answer.
    context: String,
    text: String,
    lane: String,
}

/// Whether the billing lane answered this turn. The lane names its turns
/// "billing" in the state's recent actions (what it reads itself to take a
/// follow-up), so its meta and recap turns (intents META and RECAP, T8 and
/// T9) are told from the engine's turns of the same intents and classes.
pub(crate) fn billing_turn(o: &TurnOutcome) -> bool {
    o.state
        .recent_actions
        .last()
        .is_some_and(|a| a.turn == o.state.turn && a.topic.as_deref() == Some("billing"))
}

/// The lane a turn went to, from its intent, transition and whether the
/// billing lane answered it.
fn lane_of(intent: &str, transition: &str, billing: bool) -> &'static str {
    if transition == "T10_boundary" || transition == "D8_fallback" || intent == "OUT_OF_SCOPE" {
        "boundary"
    } else if intent == "KNOWLEDGE" || intent == "CANCEL" {
        "knowledge"
    } else if billing {
        "billing"
    } else {
        "diagnosis"
    }
}

#[test]
fn messages_go_to_their_lane() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/lanes.jsonl");
    let cases: Vec<Case> = std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(
        cases.len() >= 60,
        "the lane set has {} messages",
        cases.len()
    );
    let rt = tokio::runtime::Runtime::new().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let mut right = 0;
    let mut confusions = Vec::new();
    let mut by_lane: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    rt.block_on(async {
        let desk = Desk::open(tmp.path()).await.unwrap();
        desk.billing_seed_demo().await.unwrap();
        for case in &cases {
            let session = desk
                .new_session(NewSession {
                    complaint: format!("lane case {}", case.id),
                    language: Some(case.lang.clone()),
                    ..Default::default()
                })
                .await
                .unwrap();
            if let Some(question) = case.context.strip_prefix("after:") {
                let (_, outcome) = desk
                    .chat_turn(&session.id, question, Vec::new())
                    .await
                    .unwrap();
                assert!(
                    billing_turn(&outcome),
                    "{}: the billing question {question:?} went to another lane",
                    case.id
                );
            }
            if let Some(opening) = case.context.strip_prefix("mid:") {
                let (_, outcome) = desk
                    .chat_turn(&session.id, opening, Vec::new())
                    .await
                    .unwrap();
                assert!(
                    outcome.state.active_procedure.is_some(),
                    "{}: the opening {opening:?} starts no diagnosis",
                    case.id
                );
            }
            let (recorded, outcome) = desk
                .chat_turn(&session.id, &case.text, Vec::new())
                .await
                .unwrap();
            let turn = transcript_turn(&session.id, recorded.turn.seq, &outcome);
            let turn = serde_json::to_value(turn).unwrap();
            let got = lane_of(
                turn["intent"].as_str().unwrap_or_default(),
                turn["transition"].as_str().unwrap_or_default(),
                billing_turn(&outcome),
            );
            let entry = by_lane.entry(case.lane.clone()).or_default();
            entry.1 += 1;
            if got == case.lane {
                right += 1;
                entry.0 += 1;
            } else {
                confusions.push(format!(
                    "{} {:?}: want {}, got {got} ({} {})",
                    case.id, case.text, case.lane, turn["intent"], turn["transition"]
                ));
            }
        }
    });
    let accuracy = right as f64 / cases.len() as f64;
    println!(
        "lanes: {right}/{} right ({:.1} %)",
        cases.len(),
        accuracy * 100.0
    );
    for (lane, (ok, n)) in &by_lane {
        println!("  {lane}: {ok}/{n}");
    }
    for c in &confusions {
        println!("  {c}");
    }
    // Where the router stands; a change that routes more messages to the
    // wrong lane fails here.
    assert!(
        accuracy >= MIN_LANE_ACCURACY,
        "lane accuracy {:.3} under {MIN_LANE_ACCURACY}:\n{}",
        accuracy,
        confusions.join("\n")
    );
}

const MIN_LANE_ACCURACY: f64 = 1.0;
