//! Transcript tests: every `tests/conversations/*.toml` is a scenario, each
//! user turn with assertions on what the assistant did (intent, transition,
//! step, reply kind, facts, isolation, labor), run through the real `Desk`
//! and SQLite, the way Rasa end-to-end tests and Dialogflow CX test cases
//! pair turns with expectations. The run prints which transition classes the
//! scenarios exercised.

use std::collections::BTreeSet;
use std::path::Path;

use regex::Regex;
use serde::Deserialize;
use serde_json::Value;
use servicedesk::api::transcript_turn;
use servicedesk::engine::registry::REGISTRY;
use servicedesk::store::NewSession;
use servicedesk::Desk;

use crate::lanes::billing_turn;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Scenario {
    scenario: String,
    #[serde(default)]
    language: Option<String>,
    /// The complaint the writer typed when opening the session (default:
    /// the scenario's description, which names no symptom on purpose).
    #[serde(default)]
    complaint: Option<String>,
    /// The session's status in the session list after the last turn.
    #[serde(default)]
    final_status: Option<String>,
    /// The shop's own documents, imported (as the app's drag and drop does)
    /// before the first turn.
    #[serde(default, rename = "document")]
    documents: Vec<ShopDocument>,
    #[serde(rename = "turn")]
    turns: Vec<TurnSpec>,
}

#[derive(Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
struct ShopDocument {
    name: String,
    content: String,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct TurnSpec {
    user: String,
    /// Close the app and open it again on the same data dir before this turn.
    #[serde(default)]
    restart: bool,
    #[serde(default)]
    expect: Expect,
}

#[derive(Deserialize, Default)]
#[serde(deny_unknown_fields)]
struct Expect {
    intent: Option<String>,
    transition: Option<String>,
    system: Option<String>,
    reply: Option<String>,
    step: Option<String>,
    /// The active step equals the one after turn N (1-based).
    same_step_as: Option<usize>,
    /// Steps this turn must have completed (empty list: none).
    completes: Option<Vec<String>>,
    facts_include: Option<Vec<String>>,
    facts_exclude: Option<Vec<String>>,
    isolation_complete: Option<bool>,
    finding: Option<String>,
    invalidated: Option<bool>,
    labor_mode: Option<String>,
    labor_hours: Option<String>,
    mode: Option<String>,
    submode: Option<String>,
    language: Option<String>,
    reply_contains: Option<Vec<String>>,
    /// Regexes (case-insensitive) the reply must not match.
    reply_not: Option<Vec<String>>,
    /// The reply's last line starts with this: a detour ends on the step
    /// it returns to, so nothing may follow that prompt.
    last_line_starts: Option<String>,
    report_revision: Option<u32>,
    escalated: Option<bool>,
    /// Each entry must start one of the reply's citations (e.g. a source id).
    cites: Option<Vec<String>>,
    /// Whether the knowledge store was searched this turn (from the trace).
    searched: Option<bool>,
    /// Substrings the trace must contain (what fired, with its values).
    trace_contains: Option<Vec<String>>,
    /// Regexes (case-insensitive) the trace must not match.
    trace_not: Option<Vec<String>>,
    /// The reply cites nothing at all.
    cites_nothing: Option<bool>,
}

fn check(e: &Expect, turn: &Value, history: &[Value], failures: &mut Vec<String>) {
    let mut fail = |what: String| failures.push(what);
    let s = |v: &Value| {
        v.as_str()
            .map(str::to_string)
            .unwrap_or_else(|| v.to_string())
    };
    macro_rules! eq {
        ($field:expr, $want:expr, $path:expr) => {
            if let Some(want) = &$want {
                let got = s(&turn.pointer($path).cloned().unwrap_or(Value::Null));
                if &got != want {
                    fail(format!("{}: want {want:?}, got {got:?}", $field));
                }
            }
        };
    }
    eq!("intent", e.intent, "/intent");
    eq!("transition", e.transition, "/transition");
    eq!("system", e.system, "/system");
    eq!("reply kind", e.reply, "/reply/kind");
    eq!("active step", e.step, "/active_step");
    eq!("finding", e.finding, "/isolation/finding");
    eq!("labor mode", e.labor_mode, "/labor/mode");
    eq!("labor hours", e.labor_hours, "/labor/hours");
    eq!("mode", e.mode, "/mode");
    eq!("submode", e.submode, "/submode");
    eq!("language", e.language, "/language");
    if let Some(n) = e.same_step_as {
        let want = history.get(n - 1).map(|t| t["active_step"].clone());
        if want.as_ref() != Some(&turn["active_step"]) {
            fail(format!(
                "active step {} is not the step of turn {n} ({want:?})",
                turn["active_step"]
            ));
        }
    }
    if let Some(want) = e.isolation_complete {
        if turn["isolation"]["complete"] != want {
            fail(format!(
                "isolation complete: want {want}, got {}",
                turn["isolation"]["complete"]
            ));
        }
    }
    if let Some(want) = e.invalidated {
        if turn["isolation"]["invalidated"] != want {
            fail(format!(
                "isolation invalidated: want {want}, got {}",
                turn["isolation"]["invalidated"]
            ));
        }
    }
    let before: BTreeSet<String> = history
        .last()
        .map(|t| {
            t["completed_steps"]
                .as_array()
                .unwrap()
                .iter()
                .map(s)
                .collect()
        })
        .unwrap_or_default();
    let after: BTreeSet<String> = turn["completed_steps"]
        .as_array()
        .unwrap()
        .iter()
        .map(s)
        .collect();
    if let Some(want) = &e.completes {
        let newly: BTreeSet<String> = after.difference(&before).cloned().collect();
        let want: BTreeSet<String> = want.iter().cloned().collect();
        if newly != want {
            fail(format!("completed this turn: want {want:?}, got {newly:?}"));
        }
    }
    let facts: Vec<String> = turn["facts"].as_array().unwrap().iter().map(s).collect();
    for f in e.facts_include.iter().flatten() {
        if !facts.contains(f) {
            fail(format!("facts: {f:?} missing from {facts:?}"));
        }
    }
    for f in e.facts_exclude.iter().flatten() {
        if facts.contains(f) {
            fail(format!("facts: {f:?} must not be present"));
        }
    }
    if let Some(want) = e.escalated {
        if turn["escalated"] != want {
            fail(format!("escalated: want {want}, got {}", turn["escalated"]));
        }
    }
    let citations: Vec<String> = turn["reply"]["citations"]
        .as_array()
        .map(|a| a.iter().map(s).collect())
        .unwrap_or_default();
    if e.cites_nothing == Some(true) && !citations.is_empty() {
        fail(format!("cites nothing: got {citations:?}"));
    }
    for want in e.cites.iter().flatten() {
        if !citations.iter().any(|c| c.starts_with(want.as_str())) {
            fail(format!("citations lack {want:?}: {citations:?}"));
        }
    }
    if let Some(want) = e.searched {
        let searched = turn["trace"]
            .as_str()
            .unwrap_or("")
            .contains("knowledge store searched");
        if searched != want {
            fail(format!("knowledge search ran: want {want}, got {searched}"));
        }
    }
    let trace = turn["trace"].as_str().unwrap_or("");
    for want in e.trace_contains.iter().flatten() {
        if !trace.contains(want.as_str()) {
            fail(format!("trace lacks {want:?}"));
        }
    }
    for pat in e.trace_not.iter().flatten() {
        let re = Regex::new(&format!("(?i){pat}")).expect("trace_not pattern compiles");
        if re.is_match(trace) {
            fail(format!("trace matches forbidden {pat:?}"));
        }
    }
    let text = turn["reply"]["text"].as_str().unwrap_or("");
    for want in e.reply_contains.iter().flatten() {
        if !text.contains(want.as_str()) {
            fail(format!("reply lacks {want:?}: {text:?}"));
        }
    }
    for pat in e.reply_not.iter().flatten() {
        let re = Regex::new(&format!("(?i){pat}")).expect("reply_not pattern compiles");
        if re.is_match(text) {
            fail(format!("reply matches forbidden {pat:?}: {text:?}"));
        }
    }
    if let Some(want) = &e.last_line_starts {
        let last = text.lines().last().unwrap_or("");
        if !last.starts_with(want.as_str()) {
            fail(format!("last line {last:?} does not start with {want:?}"));
        }
    }
    if let Some(want) = e.report_revision {
        if turn["report_revision"] != want {
            fail(format!(
                "report revision: want {want}, got {}",
                turn["report_revision"]
            ));
        }
    }
}

/// Properties every turn of every scenario must keep, asserted or not.
fn invariants(turn: &Value, history: &[Value], billing: bool, failures: &mut Vec<String>) {
    let kind = turn["reply"]["kind"].as_str().unwrap_or("");
    if kind == "fallback"
        && history
            .last()
            .is_some_and(|t| t["reply"]["kind"] == "fallback")
    {
        failures.push("two fallback replies in a row".into());
    }
    if kind == "question" {
        let step = &turn["reply"]["step_id"];
        if turn["completed_steps"].as_array().unwrap().contains(step) {
            failures.push(format!("asked a completed step {step}"));
        }
    }
    // Every turn, in every lane, opens its trace with what fired and this
    // turn's values, never the registry's static description of the class.
    // The billing lane names a class by its code ("T8: …"), the engine and
    // the knowledge lane by its name ("T10_boundary: …").
    let trace = turn["trace"].as_str().unwrap_or("");
    let fired = turn["transition"].as_str().unwrap_or("");
    let code = fired.split('_').next().unwrap_or(fired);
    let first = trace.split("; ").next().unwrap_or("");
    let lane = if billing {
        "billing"
    } else {
        "engine or knowledge"
    };
    if !(first.starts_with(&format!("{fired}: ")) || first.starts_with(&format!("{code}: "))) {
        failures.push(format!(
            "the {lane} trace does not open with what fired ({fired}): {trace}"
        ));
    }
    if let Some(class) = REGISTRY.iter().find(|c| c.name == fired) {
        if trace.contains(class.entry) || trace.contains(&format!("{fired} fired")) {
            failures.push(format!(
                "the {lane} trace gives {fired}'s static description, not what fired: {trace}"
            ));
        }
    }
    let text = turn["reply"]["text"].as_str().unwrap_or("");
    if kind != "report" && (text.contains("--- TRANSLATION ---") || text.contains("Total labor:")) {
        failures.push("a non-report reply carries report sections".into());
    }
}

#[test]
fn conversation_scenarios() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/conversations");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no scenarios in {}", dir.display());
    let rt = tokio::runtime::Runtime::new().unwrap();
    let mut exercised = BTreeSet::new();
    let mut report = Vec::new();
    let mut systems = BTreeSet::new();
    let mut languages = BTreeSet::new();
    for file in &files {
        let name = file.file_name().unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(file).unwrap();
        let scenario: Scenario = toml::from_str(&text).unwrap_or_else(|e| panic!("{name}: {e}"));
        let tmp = tempfile::tempdir().unwrap();
        rt.block_on(async {
            let mut desk = Desk::open(tmp.path()).await.unwrap();
            // The billing scenarios ask about the demo rules and orders.
            desk.billing_seed_demo().await.unwrap();
            if !scenario.documents.is_empty() {
                let report = servicedesk::api::dispatch(
                    &desk,
                    "knowledge_ingest",
                    serde_json::json!({ "files": &scenario.documents }),
                )
                .await
                .unwrap();
                assert!(
                    report["skipped"].as_array().is_some_and(|s| s.is_empty()),
                    "{name}: documents skipped: {report}"
                );
            }
            let session = desk
                .new_session(NewSession {
                    complaint: scenario
                        .complaint
                        .clone()
                        .unwrap_or_else(|| format!("scenario: {}", scenario.scenario)),
                    language: scenario.language.clone(),
                    ..Default::default()
                })
                .await
                .unwrap();
            let mut history: Vec<Value> = Vec::new();
            for (i, t) in scenario.turns.iter().enumerate() {
                if t.restart {
                    desk.close().await;
                    desk = Desk::open(tmp.path()).await.unwrap();
                }
                let (recorded, outcome) = desk
                    .chat_turn(&session.id, &t.user, Vec::new())
                    .await
                    .unwrap();
                let turn =
                    serde_json::to_value(transcript_turn(&session.id, recorded.turn.seq, &outcome))
                        .unwrap();
                exercised.insert(turn["transition"].as_str().unwrap().to_string());
                if let Some(sys) = turn["system"].as_str() {
                    systems.insert(sys.to_string());
                }
                languages.insert(turn["language"].as_str().unwrap().to_string());
                let mut failures = Vec::new();
                check(&t.expect, &turn, &history, &mut failures);
                invariants(&turn, &history, billing_turn(&outcome), &mut failures);
                for f in failures {
                    report.push(format!(
                        "{name} ({}) turn {} {:?}: {f}\n    reply: {:?}\n    trace: {}",
                        scenario.scenario,
                        i + 1,
                        t.user,
                        turn["reply"]["text"],
                        turn["trace"]
                    ));
                }
                history.push(turn);
            }
            if let Some(want) = &scenario.final_status {
                let got = desk.store().session(&session.id).await.unwrap().status;
                if got.as_str() != want {
                    report.push(format!(
                        "{name}: session status in the list: want {want:?}, got {:?}",
                        got.as_str()
                    ));
                }
            }
            desk.close().await;
        });
    }
    let all: BTreeSet<String> = REGISTRY.iter().map(|c| c.name.to_string()).collect();
    let missing: Vec<_> = all.difference(&exercised).collect();
    println!(
        "conversation scenarios: {} files, {} systems, languages {:?}; transition coverage: {}/{} classes exercised",
        files.len(),
        systems.len(),
        languages,
        all.intersection(&exercised).count(),
        all.len()
    );
    assert!(
        report.is_empty(),
        "{} failed assertions:\n{}",
        report.len(),
        report.join("\n")
    );
    assert!(
        missing.is_empty(),
        "transition classes never exercised: {missing:?}"
    );
}

/// The held-out split of the labelled technician messages
/// (`tests/data/understanding/test.jsonl`, never tuned on). Its figures are
/// printed and held where they stand, so a change that records more wrong
/// facts or reads fewer right ones fails here. The targets (at most
/// 0.5 % wrong facts, at least 90 % recall) are not reached yet: the README
/// gives the figures.
#[test]
fn understanding_of_unseen_notes_does_not_regress() {
    // (file, at least this many cases, at most this wrong-fact rate, at
    // least this recall): where each held-out set stands.
    for (file, size, max_wrong, min_recall) in [
        ("tests/data/understanding/test.jsonl", 450, 0.04, 0.83),
        ("tests/data/understanding/unseen.jsonl", 430, 0.036, 0.77),
    ] {
        held_out_reads_at_least(file, size, max_wrong, min_recall);
    }
}

fn held_out_reads_at_least(file: &str, size: usize, max_wrong: f64, min_recall: f64) {
    use servicedesk::engine::eval;
    let engine = servicedesk::engine::Engine::embedded().expect("embedded catalog loads");
    let text = std::fs::read_to_string(file).expect("the held-out set is in the repository");
    let cases = eval::parse_dataset(&text, &engine).expect("the held-out set parses");
    assert!(cases.len() >= size, "{file} holds {} cases", cases.len());
    let report = eval::run(&engine, &cases);
    for (lang, c) in &report.by_language {
        println!(
            "understanding {file} ({lang}): {} messages, wrong facts {:.2} %, recall {:.1} %, intent {:.1} %",
            c.messages,
            c.wrong_fact_rate() * 100.0,
            c.fact_recall() * 100.0,
            c.intent_accuracy() * 100.0
        );
    }
    let wrong = report.wrong_fact_rate();
    let recall = report.fact_recall();
    println!(
        "understanding {file} (overall): wrong facts {:.2} %, recall {:.1} %",
        wrong * 100.0,
        recall * 100.0
    );
    assert!(
        wrong <= max_wrong,
        "{file}: wrong-fact rate {wrong:.4} rose above {max_wrong}"
    );
    assert!(
        recall >= min_recall,
        "{file}: fact recall {recall:.4} fell below {min_recall}"
    );
}
