//! The RAG-000 scenarios (tests/data/billing/scenarios.jsonl) checked
//! against answers in the spec's CLI JSON shapes, wherever they come from:
//! the store functions (tests/billing_store.rs) or the real binary
//! (tests/billing_cli.rs). Shared with `#[path]`.

use serde_json::Value;

/// A question to the billing store.
#[derive(Debug, Clone)]
pub enum Query {
    Simulate {
        city: String,
        lot: String,
        entry: String,
        exit: String,
    },
    Verify(String),
    Arrears {
        plate: String,
        city: Option<String>,
    },
}

pub fn scenarios() -> Vec<Value> {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/billing/scenarios.jsonl");
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

fn s<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

fn owned(v: &Value, key: &str) -> String {
    s(v, key)
        .unwrap_or_else(|| panic!("{key} in {v}"))
        .to_owned()
}

/// Checks every scenario's expected facts; returns how many facts were checked.
pub fn check_all(mut answer: impl FnMut(Query) -> Result<Value, String>) -> usize {
    let mut checked = 0;
    let mut eq = |got: &Value, want: &Value, what: String| {
        assert_eq!(got, want, "{what}");
        checked += 1;
    };
    let all = scenarios();
    assert_eq!(all.len(), 20);
    for sc in &all {
        let id = owned(sc, "scenario_id");
        let ctx = &sc["context"];
        let gt = &sc["ground_truth"];
        let city = owned(ctx, "city_code");
        if let (Some(lot), Some(entry), Some(exit)) = (
            s(ctx, "lot_code"),
            s(ctx, "entry_time"),
            s(ctx, "exit_time"),
        ) {
            let sim = answer(Query::Simulate {
                city: city.clone(),
                lot: lot.into(),
                entry: entry.into(),
                exit: exit.into(),
            })
            .unwrap_or_else(|e| panic!("{id} simulate: {e}"));
            eq(
                &sim["rule_code"],
                &gt["matched_rule_code"],
                format!("{id} rule"),
            );
            eq(
                &sim["version_no"],
                &gt["matched_version_no"],
                format!("{id} version"),
            );
            eq(
                &sim["total_amount"],
                &gt["expected_total_amount"],
                format!("{id} total"),
            );
            if let Some(pieces) = gt["expected_pieces"].as_array() {
                let got = sim["pieces"].as_array().unwrap();
                assert_eq!(got.len(), pieces.len(), "{id} pieces: {sim}");
                for (g, w) in got.iter().zip(pieces) {
                    for (key, want) in w.as_object().unwrap() {
                        eq(&g[key], want, format!("{id} piece {key}: {g}"));
                    }
                }
            }
            for v in gt
                .get("variants")
                .or(sc.get("variants"))
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let r = answer(Query::Simulate {
                    city: city.clone(),
                    lot: lot.into(),
                    entry: owned(v, "entry_time"),
                    exit: owned(v, "exit_time"),
                })
                .unwrap_or_else(|e| panic!("{id} variant {v}: {e}"));
                eq(
                    &r["total_amount"],
                    &v["expected_total_amount"],
                    format!("{id} variant {v}"),
                );
                if !v["matched_version_no"].is_null() {
                    eq(
                        &r["version_no"],
                        &v["matched_version_no"],
                        format!("{id} variant version {v}"),
                    );
                }
            }
        }
        if let Some(no) = s(ctx, "order_no") {
            let v = answer(Query::Verify(no.into())).unwrap_or_else(|e| panic!("{id} verify: {e}"));
            for (key, want) in [
                ("result", "amount_check_result"),
                ("action", "amount_check_action"),
                ("difference", "amount_difference"),
                ("order_total", "order_total_amount"),
                ("simulated_total", "expected_total_amount"),
                ("rule_code", "matched_rule_code"),
                ("version_no", "matched_version_no"),
                ("paid_amount", "expected_paid_amount"),
            ] {
                eq(&v[key], &gt[want], format!("{id} verify {key}"));
            }
        }
        for extra in gt["orders"].as_array().into_iter().flatten() {
            let v = answer(Query::Verify(owned(extra, "order_no")))
                .unwrap_or_else(|e| panic!("{id} verify {extra}: {e}"));
            eq(
                &v["simulated_total"],
                &extra["expected_total_amount"],
                format!("{id} {extra}"),
            );
            eq(
                &v["result"],
                &extra["amount_check_result"],
                format!("{id} {extra}"),
            );
        }
        if let (Some(plate), Some(_)) = (s(ctx, "plate_no"), s(gt, "expected_arrears_status")) {
            let a = answer(Query::Arrears {
                plate: plate.into(),
                city: Some(city.clone()),
            })
            .unwrap_or_else(|e| panic!("{id} arrears: {e}"));
            eq(
                &a["status"],
                &gt["expected_arrears_status"],
                format!("{id} arrears status"),
            );
            eq(
                &a["total_arrears"],
                &gt["expected_arrears_amount"],
                format!("{id} arrears total"),
            );
            if let Some(list) = gt["arrears_orders"].as_array() {
                let got = a["orders"].as_array().unwrap();
                assert_eq!(got.len(), list.len(), "{id} arrears orders {a}");
                for (g, w) in got.iter().zip(list) {
                    for (key, want) in w.as_object().unwrap() {
                        eq(&g[key], want, format!("{id} arrears order {key}"));
                    }
                }
            }
            if !gt["arrears_amount_all_cities"].is_null() {
                let all = answer(Query::Arrears {
                    plate: plate.into(),
                    city: None,
                })
                .unwrap();
                eq(
                    &all["total_arrears"],
                    &gt["arrears_amount_all_cities"],
                    format!("{id} arrears all cities"),
                );
            }
        }
    }
    checked
}
