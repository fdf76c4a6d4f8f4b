//! The billing and hybrid chat evaluation (`servicedesk eval billing`, seed
//! 004's form) through the real binary: at least 60 cases over the six
//! categories, written as people type them, held at tool-call compliance
//! ≥ 0.95 and fact accuracy 1.0; a dataset under the thresholds exits 1, a
//! bad one names the line and field. And the shop's own plate patterns
//! (`billing_plates.json`) decide what the chat takes as a plate.

use crate::common;

use std::path::Path;

use common::cli;
use serde_json::Value;
use servicedesk::store::NewSession;
use servicedesk::Desk;

fn dataset() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/billing/chat_eval.jsonl")
        .display()
        .to_string()
}

#[test]
fn the_chat_eval_holds_its_thresholds() {
    let dir = tempfile::tempdir().unwrap();
    let out = cli(
        dir.path(),
        &["eval", "billing", "--dataset", &dataset(), "--json"],
    );
    let r: Value = serde_json::from_slice(&out.stdout)
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stderr)));
    println!(
        "billing chat eval: {} cases, tool-call compliance {}, fact accuracy {}, citation coverage {}, intent accuracy {}",
        r["cases"], r["tool_call_compliance"], r["fact_accuracy"], r["citation_coverage"], r["intent_accuracy"]
    );
    assert!(out.status.success(), "{r}");
    assert!(r["cases"].as_u64().unwrap() >= 60, "{r}");
    for cat in [
        "rule_explain",
        "arrears_check",
        "fee_verify",
        "knowledge",
        "clarify",
        "out_of_scope",
    ] {
        assert!(
            r["by_category"][cat]["cases"].as_u64().unwrap_or(0) >= 5,
            "{cat}: {}",
            r["by_category"]
        );
    }
    for lang in ["en", "es", "ru"] {
        assert!(r["by_language"][lang].as_u64().unwrap_or(0) >= 5, "{lang}");
    }
    assert!(r["tool_call_compliance"].as_f64().unwrap() >= 0.95, "{r}");
    assert_eq!(
        r["fact_accuracy"].as_f64().unwrap(),
        1.0,
        "{:#}",
        r["failures"]
    );
    // The eval runs in a scratch data dir: the data dir given stays empty
    // of demo data.
    let rules = common::cli_json(dir.path(), &["billing", "rules", "list", "--json"]);
    assert_eq!(rules["rules"].as_array().unwrap().len(), 0);
}

#[test]
fn under_the_thresholds_or_malformed_it_fails_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let wrong = dir.path().join("wrong.jsonl");
    std::fs::write(
        &wrong,
        r#"{"case_id": "X-1", "intent_tag": "arrears_check", "query": "does plate 沪B20009 owe anything?", "expected_tools": ["verify"], "expected_facts": ["99.99"]}
"#,
    )
    .unwrap();
    let out = cli(
        dir.path(),
        &["eval", "billing", "--dataset", wrong.to_str().unwrap()],
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1), "{text}");
    assert!(
        text.contains("tool-call compliance 0.000, fact accuracy 0.000"),
        "{text}"
    );
    assert!(
        text.contains("X-1") && text.contains("fact \"99.99\" not stated"),
        "{text}"
    );
    let bad = dir.path().join("bad.jsonl");
    std::fs::write(
        &bad,
        "\n{\"case_id\": \"X\", \"intent_tag\": \"billing\", \"query\": \"q\", \"expected_tools\": []}\n",
    )
    .unwrap();
    let out = cli(
        dir.path(),
        &["eval", "billing", "--dataset", bad.to_str().unwrap()],
    );
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        err.contains("bad.jsonl: line 2: intent_tag: \"billing\" is not one of"),
        "{err}"
    );
}

#[tokio::test]
async fn the_shops_plate_patterns_decide_what_a_plate_is() {
    let dir = tempfile::tempdir().unwrap();
    // A shop whose plates are three letters and four digits (a dash or a
    // space typed in between is ignored).
    std::fs::write(
        dir.path().join("billing_plates.json"),
        r#"[{"region": "XX", "pattern": "^[A-Z]{3}[0-9]{4}$"}]"#,
    )
    .unwrap();
    let desk = Desk::open(dir.path()).await.unwrap();
    desk.billing_seed_demo().await.unwrap();
    let session = desk
        .new_session(NewSession {
            complaint: "billing".into(),
            ..Default::default()
        })
        .await
        .unwrap();
    let ask = |text: &'static str| {
        let desk = desk.clone();
        let id = session.id.clone();
        async move { desk.chat_turn(&id, text, Vec::new()).await.unwrap().1 }
    };
    let out = ask("does this customer owe anything?").await;
    assert_eq!(out.reply.kind.as_str(), "question");
    // A Chinese plate is not one of this shop's: not taken.
    let out = ask("沪B20009").await;
    assert_eq!(out.reply.kind.as_str(), "clarification", "{:?}", out.trace);
    assert!(out.reply.text.contains("not a valid plate number"));
    let out = ask("ABC-1234").await;
    assert_eq!(out.intent, "ARREARS_CHECK", "{:?}", out.trace);
    assert!(
        out.reply.text.contains("no orders for this plate"),
        "{}",
        out.reply.text
    );
    // A bad pattern file names the file, the entry and the field.
    std::fs::write(
        dir.path().join("billing_plates.json"),
        r#"[{"region": "XX", "pattern": "^[A-Z"}]"#,
    )
    .unwrap();
    let e = desk.plate_patterns().unwrap_err();
    assert!(
        e.contains("billing_plates.json: entry 0 (XX): pattern: "),
        "{e}"
    );
    desk.close().await;
}
