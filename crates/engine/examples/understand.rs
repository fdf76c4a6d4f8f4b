//! The understanding eval from the engine crate alone, for quick iteration
//! on the readers without building the whole desk:
//!
//! ```sh
//! cargo run --release -p servicedesk-engine --example understand -- tests/data/understanding/dev.jsonl
//! cargo run --release -p servicedesk-engine --example understand -- FILE --wrong   # every wrong fact
//! cargo run --release -p servicedesk-engine --example understand -- FILE --missed  # every missed fact
//! cargo run --release -p servicedesk-engine --example understand -- FILE --id ID   # one case: trace and answers
//! cargo run --release -p servicedesk-engine --example understand -- FILE --json     # the report as JSON
//! ```
//!
//! `servicedesk eval understanding` is the product's command; this prints
//! the same figures plus the clause-by-clause answers of chosen cases.

use servicedesk_engine::{eval, extract, Engine};

fn main() {
    let mut args = std::env::args().skip(1);
    let mut files = Vec::new();
    let (mut wrong, mut missed, mut json) = (false, false, false);
    let mut ids: Vec<String> = Vec::new();
    while let Some(a) = args.next() {
        match a.as_str() {
            "--wrong" => wrong = true,
            "--missed" => missed = true,
            "--json" => json = true,
            "--id" => ids.extend(args.next()),
            _ => files.push(a),
        }
    }
    let engine = Engine::embedded().expect("embedded catalog");
    for file in &files {
        let text = std::fs::read_to_string(file).expect("dataset readable");
        let mut cases = eval::parse_dataset(&text, &engine).expect("dataset parses");
        if !ids.is_empty() {
            cases.retain(|c| ids.contains(&c.id));
        }
        let report = eval::run(&engine, &cases);
        if json {
            println!("{}", serde_json::to_string(&report).expect("serializes"));
            continue;
        }
        for (lang, c) in report
            .by_language
            .iter()
            .chain([(&"overall".to_string(), &report.overall)])
        {
            println!(
                "{file} {lang:8} {:5} msgs  wrong {:5.2} % ({}/{})  recall {:5.1} %  intent {:5.1} %  confirm {} ({} right)",
                c.messages,
                c.wrong_fact_rate() * 100.0,
                c.wrong_facts,
                c.recorded_facts,
                c.fact_recall() * 100.0,
                c.intent_accuracy() * 100.0,
                c.confirmations,
                c.confirmations_right
            );
        }
        for c in &report.confusions {
            let show = !ids.is_empty()
                || (wrong && !c.wrong.is_empty())
                || (missed && c.wrong.is_empty() && !c.missed.is_empty());
            if !show {
                continue;
            }
            println!(
                "--- {} [{} -> {}] {}\n    wrong {:?} missed {:?} recorded {:?}",
                c.id, c.expected_intent, c.got_intent, c.text, c.wrong, c.missed, c.recorded
            );
            if !ids.is_empty() {
                for t in &c.trace {
                    println!("    . {t}");
                }
                let case = cases.iter().find(|k| k.id == c.id).expect("case");
                let p = engine.catalog.get(&case.system).expect("system");
                let active = case.active_step.as_deref().and_then(|s| p.step_index(s));
                for clause in extract::clauses(&case.text) {
                    println!("    clause {clause:?}");
                }
                for a in extract::step_answers(p, None, active, &case.text) {
                    println!(
                        "    answer {} = {} {:?} {:?} from {:?}",
                        p.steps[a.step].id, a.outcome, a.quantity, a.basis, a.clause
                    );
                }
            }
        }
    }
}
