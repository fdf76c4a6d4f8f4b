//! The RAG-000 scenarios asked in the chat, as a service writer would type
//! them (English and Chinese): each named order is verified through the
//! billing lane against the demo data (`billing_seed_demo`), and the
//! reply carries the expected amount, the verdict, and a citation of the
//! explanation of the rule version the scenario expects. The arrears
//! scenario answers with the plate's arrears.

use serde_json::Value;
use servicedesk::store::NewSession;
use servicedesk::Desk;

#[tokio::test]
async fn scenario_questions_are_answered_with_the_expected_facts_and_citations() {
    let dir = tempfile::tempdir().unwrap();
    let desk = Desk::open(dir.path()).await.unwrap();
    desk.billing_seed_demo().await.unwrap();
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/billing/scenarios.jsonl"),
    )
    .unwrap();
    let order = regex::Regex::new(r"\bORD-\d+\b").unwrap();
    let mut checked = 0;
    let mut failures = Vec::new();
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let sc: Value = serde_json::from_str(line).unwrap();
        let id = sc["scenario_id"].as_str().unwrap();
        let query = sc["query"].as_str().unwrap();
        let truth = &sc["ground_truth"];
        let arrears = sc["intent_tags"] == serde_json::json!(["arrears_check"]);
        if !order.is_match(query) && !arrears {
            continue; // a price quote without a date or an order: not a lookup
        }
        let session = desk
            .new_session(NewSession {
                complaint: format!("billing question {id}"),
                ..Default::default()
            })
            .await
            .unwrap();
        let (_, out) = desk
            .chat_turn(&session.id, query, Vec::new())
            .await
            .unwrap();
        let reply = &out.reply.text;
        let mut expect = |ok: bool, what: String| {
            if !ok {
                failures.push(format!(
                    "{id} {query:?}: {what}\n  reply: {reply:?}\n  trace: {:?}",
                    out.trace
                ));
            }
        };
        if arrears {
            expect(
                out.intent == "ARREARS_CHECK",
                format!("intent {}", out.intent),
            );
            let status = truth["expected_arrears_status"].as_str().unwrap();
            expect(reply.contains(status), format!("status {status}"));
        } else {
            expect(out.intent == "FEE_VERIFY", format!("intent {}", out.intent));
            let amount = truth["expected_total_amount"].as_str().unwrap();
            expect(reply.contains(amount), format!("simulated total {amount}"));
            let verdict = match truth["amount_check_result"].as_str().unwrap() {
                "consistent" => "auto-approve",
                _ => "manual review",
            };
            expect(reply.contains(verdict), format!("verdict {verdict}"));
            for cite in sc["expected_citations"]["source_ids"].as_array().unwrap() {
                // rule:CODE:vN in the dataset; rule.CODE@vN#chunk in the store.
                let parts: Vec<&str> = cite.as_str().unwrap().split(':').collect();
                let want = format!("rule.{}@{}#", parts[1], parts[2]);
                expect(
                    out.reply.citations.iter().any(|c| c.starts_with(&want)),
                    format!("citation {want} in {:?}", out.reply.citations),
                );
            }
        }
        checked += 1;
    }
    assert!(checked >= 15, "only {checked} scenarios asked");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    desk.close().await;
}
