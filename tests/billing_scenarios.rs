//! The RAG-000 scenario dataset (tests/data/billing/) checked with the pure
//! calculator alone: the rule version effective at the order's entry,
//! simulate, compare with the order's total (consistent / mismatch),
//! arrears = total - paid per plate. The lookups over the JSON files are
//! written here on purpose: the DB-backed store is built on top of the
//! calculator's API elsewhere.

use std::collections::BTreeSet;
use std::path::PathBuf;

use chrono::DateTime;
use serde::Deserialize;
use serde_json::Value;
use servicedesk::billing::{
    parse_site_time, parse_time_zone, simulate_between, Breakdown, Money, Payload, Tz,
};

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Rule {
    rule_code: String,
    #[allow(dead_code)]
    name: String,
    city_code: String,
    lot_codes: Vec<String>,
    status: String,
    time_zone: Option<String>,
    versions: Vec<Version>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Version {
    version_no: i64,
    effective_from: String,
    effective_to: Option<String>,
    payload: Payload,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Order {
    order_no: String,
    city_code: String,
    lot_code: String,
    plate_no: String,
    entry_time: String,
    exit_time: String,
    total_amount: Money,
    paid_amount: Money,
}

struct Data {
    rules: Vec<Rule>,
    orders: Vec<Order>,
    scenarios: Vec<Value>,
}

fn dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/billing")
}

fn jsonl<T: serde::de::DeserializeOwned>(name: &str) -> Vec<T> {
    let text = std::fs::read_to_string(dir().join(name)).unwrap();
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            serde_json::from_str(l).unwrap_or_else(|e| panic!("{name} line {}: {e}", i + 1))
        })
        .collect()
}

fn load() -> Data {
    let rules = serde_json::from_str(&std::fs::read_to_string(dir().join("rules.json")).unwrap())
        .expect("rules.json parses");
    Data {
        rules,
        orders: jsonl("orders.jsonl"),
        scenarios: jsonl("scenarios.jsonl"),
    }
}

impl Rule {
    fn tz(&self) -> Tz {
        parse_time_zone(self.time_zone.as_deref().unwrap_or("UTC")).unwrap()
    }

    /// The version effective at `at`: effective_from inclusive, effective_to exclusive.
    fn version_at(&self, at: &DateTime<Tz>) -> Result<&Version, String> {
        let tz = self.tz();
        self.versions
            .iter()
            .find(|v| {
                let from = parse_site_time(&v.effective_from, tz).unwrap();
                let to = v
                    .effective_to
                    .as_ref()
                    .map(|t| parse_site_time(t, tz).unwrap());
                from <= *at && to.is_none_or(|to| *at < to)
            })
            .ok_or_else(|| {
                format!(
                    "rule {} has no version effective at {}",
                    self.rule_code,
                    at.naive_local()
                )
            })
    }
}

impl Data {
    fn rule_for(&self, city: &str, lot: &str) -> Result<&Rule, String> {
        let mut hits = self.rules.iter().filter(|r| {
            r.status == "active" && r.city_code == city && r.lot_codes.iter().any(|l| l == lot)
        });
        let rule = hits
            .next()
            .ok_or_else(|| format!("no active rule covers city {city} lot {lot}"))?;
        assert!(hits.next().is_none(), "two active rules cover {city}/{lot}");
        Ok(rule)
    }

    /// Rule and version at entry, then the simulated breakdown.
    fn simulate(
        &self,
        city: &str,
        lot: &str,
        entry: &str,
        exit: &str,
    ) -> Result<(&Rule, &Version, Breakdown), String> {
        let rule = self.rule_for(city, lot)?;
        let tz = rule.tz();
        let entry = parse_site_time(entry, tz).map_err(|e| e.to_string())?;
        let exit = parse_site_time(exit, tz).map_err(|e| e.to_string())?;
        let version = rule.version_at(&entry)?;
        let b = simulate_between(&version.payload, &entry, &exit).map_err(|e| e.to_string())?;
        Ok((rule, version, b))
    }

    fn order(&self, no: &str) -> &Order {
        self.orders
            .iter()
            .find(|o| o.order_no == no)
            .unwrap_or_else(|| panic!("no order {no}"))
    }

    /// (result, action, difference = order total - simulated total, breakdown).
    fn verify(&self, o: &Order) -> Result<(&str, &str, Money, Breakdown), String> {
        let (_, _, b) = self.simulate(&o.city_code, &o.lot_code, &o.entry_time, &o.exit_time)?;
        let diff = o.total_amount.checked_sub(b.total).unwrap();
        Ok(if diff == Money::ZERO {
            ("consistent", "auto_approve", diff, b)
        } else {
            ("mismatch", "manual_review", diff, b)
        })
    }

    /// (total arrears, order numbers with arrears) of a plate, optionally in one city.
    fn arrears(&self, plate: &str, city: Option<&str>) -> (Money, Vec<(&Order, Money)>) {
        let mut total = Money::ZERO;
        let mut owing = Vec::new();
        for o in &self.orders {
            if o.plate_no != plate || city.is_some_and(|c| c != o.city_code) {
                continue;
            }
            let due = o
                .total_amount
                .checked_sub(o.paid_amount)
                .unwrap()
                .max(Money::ZERO);
            if due > Money::ZERO {
                total = total.checked_add(due).unwrap();
                owing.push((o, due));
            }
        }
        (total, owing)
    }
}

fn s<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

fn money(v: &Value, key: &str) -> Option<Money> {
    s(v, key).map(|t| Money::parse(t).unwrap())
}

#[test]
fn dataset_has_the_seed_counts() {
    let d = load();
    assert_eq!(d.rules.len(), 5);
    assert_eq!(d.rules.iter().map(|r| r.versions.len()).sum::<usize>(), 6);
    assert_eq!(d.orders.len(), 22);
    let ids: Vec<&str> = d
        .scenarios
        .iter()
        .map(|s| s["scenario_id"].as_str().unwrap())
        .collect();
    let want: Vec<String> = (1..=20).map(|i| format!("SCN-{i:03}")).collect();
    assert_eq!(ids, want);
    let order_nos: BTreeSet<&str> = d.orders.iter().map(|o| o.order_no.as_str()).collect();
    assert_eq!(order_nos.len(), 22, "order numbers are unique");
}

#[test]
fn rules_are_valid_and_versions_do_not_overlap() {
    let d = load();
    for r in &d.rules {
        let tz = r.tz();
        for (i, v) in r.versions.iter().enumerate() {
            assert_eq!(
                v.version_no,
                i as i64 + 1,
                "{} version numbers",
                r.rule_code
            );
            v.payload
                .validate()
                .unwrap_or_else(|e| panic!("{} v{}: {e}", r.rule_code, v.version_no));
        }
        for pair in r.versions.windows(2) {
            let to = pair[0]
                .effective_to
                .as_ref()
                .map(|t| parse_site_time(t, tz).unwrap());
            let next_from = parse_site_time(&pair[1].effective_from, tz).unwrap();
            assert!(
                to.is_some_and(|to| to <= next_from),
                "{} v{} overlaps v{}",
                r.rule_code,
                pair[0].version_no,
                pair[1].version_no
            );
        }
    }
    // One active rule per (city, lot).
    let mut scopes = BTreeSet::new();
    for r in d.rules.iter().filter(|r| r.status == "active") {
        for lot in &r.lot_codes {
            assert!(
                scopes.insert((&r.city_code, lot)),
                "{}/{lot} twice",
                r.city_code
            );
        }
    }
}

#[test]
fn every_scenario_meets_its_expected_facts() {
    let d = load();
    for sc in &d.scenarios {
        let id = sc["scenario_id"].as_str().unwrap();
        let ctx = &sc["context"];
        let gt = &sc["ground_truth"];
        let city = s(ctx, "city_code").unwrap();

        if let (Some(lot), Some(entry), Some(exit)) = (
            s(ctx, "lot_code"),
            s(ctx, "entry_time"),
            s(ctx, "exit_time"),
        ) {
            let (rule, version, b) = d.simulate(city, lot, entry, exit).unwrap();
            assert_eq!(
                Some(rule.rule_code.as_str()),
                s(gt, "matched_rule_code"),
                "{id}"
            );
            assert_eq!(
                Some(version.version_no),
                gt["matched_version_no"].as_i64(),
                "{id}"
            );
            assert_eq!(Some(b.total), money(gt, "expected_total_amount"), "{id}");
            if let Some(pieces) = gt.get("expected_pieces").and_then(Value::as_array) {
                assert_eq!(b.pieces.len(), pieces.len(), "{id} pieces");
                for (got, want) in b.pieces.iter().zip(pieces) {
                    let what = format!("{id} piece {want}");
                    assert_eq!(Some(got.segment.as_str()), s(want, "segment"), "{what}");
                    assert_eq!(
                        Some(got.occurrence.to_string().as_str()),
                        s(want, "occurrence"),
                        "{what}"
                    );
                    assert_eq!(Some(got.minutes), want["minutes"].as_i64(), "{what}");
                    assert_eq!(Some(got.units), want["units"].as_i64(), "{what}");
                    assert_eq!(Some(got.amount), money(want, "amount"), "{what}");
                    if let Some(u) = money(want, "uncapped_amount") {
                        assert_eq!(got.uncapped_amount, u, "{what}");
                    }
                    if let Some(c) = want["cap_applied"].as_bool() {
                        assert_eq!(got.cap_applied, c, "{what}");
                    }
                }
            }
            for v in sc
                .get("variants")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let (_, version, b) = d
                    .simulate(
                        city,
                        lot,
                        s(v, "entry_time").unwrap(),
                        s(v, "exit_time").unwrap(),
                    )
                    .unwrap();
                assert_eq!(Some(b.total), money(v, "expected_total_amount"), "{id} {v}");
                if let Some(n) = v["matched_version_no"].as_i64() {
                    assert_eq!(version.version_no, n, "{id} {v}");
                }
            }
        }

        if let Some(no) = s(ctx, "order_no") {
            let o = d.order(no);
            assert_eq!(
                (o.city_code.as_str(), Some(o.lot_code.as_str())),
                (city, s(ctx, "lot_code")),
                "{id}"
            );
            assert_eq!(Some(o.plate_no.as_str()), s(ctx, "plate_no"), "{id}");
            assert_eq!(
                (Some(o.entry_time.as_str()), Some(o.exit_time.as_str())),
                (s(ctx, "entry_time"), s(ctx, "exit_time")),
                "{id}"
            );
            assert_eq!(
                Some(o.total_amount),
                money(gt, "order_total_amount"),
                "{id}"
            );
            assert_eq!(
                Some(o.paid_amount),
                money(gt, "expected_paid_amount"),
                "{id}"
            );
            let (result, action, diff, b) = d.verify(o).unwrap();
            assert_eq!(Some(result), s(gt, "amount_check_result"), "{id}");
            assert_eq!(Some(action), s(gt, "amount_check_action"), "{id}");
            assert_eq!(Some(diff), money(gt, "amount_difference"), "{id}");
            assert_eq!(Some(b.total), money(gt, "expected_total_amount"), "{id}");
        }
        for extra in gt
            .get("orders")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            let o = d.order(s(extra, "order_no").unwrap());
            let (result, _, _, b) = d.verify(o).unwrap();
            assert_eq!(
                Some(b.total),
                money(extra, "expected_total_amount"),
                "{id} {extra}"
            );
            assert_eq!(
                Some(result),
                s(extra, "amount_check_result"),
                "{id} {extra}"
            );
        }

        if let (Some(plate), Some(status)) = (s(ctx, "plate_no"), s(gt, "expected_arrears_status"))
        {
            let (total, owing) = d.arrears(plate, Some(city));
            let got_status = if total > Money::ZERO {
                "HAS_ARREARS"
            } else {
                "NONE"
            };
            assert_eq!(got_status, status, "{id}");
            assert_eq!(Some(total), money(gt, "expected_arrears_amount"), "{id}");
            if let Some(list) = gt.get("arrears_orders").and_then(Value::as_array) {
                let got: Vec<(String, Money, Money, Money)> = owing
                    .iter()
                    .map(|(o, due)| (o.order_no.clone(), o.total_amount, o.paid_amount, *due))
                    .collect();
                let want: Vec<(String, Money, Money, Money)> = list
                    .iter()
                    .map(|w| {
                        (
                            s(w, "order_no").unwrap().to_owned(),
                            money(w, "total_amount").unwrap(),
                            money(w, "paid_amount").unwrap(),
                            money(w, "arrears_amount").unwrap(),
                        )
                    })
                    .collect();
                assert_eq!(got, want, "{id}");
            }
            if let Some(all) = money(gt, "arrears_amount_all_cities") {
                assert_eq!(d.arrears(plate, None).0, all, "{id}");
            }
        }
    }
}

#[test]
fn every_covered_order_is_consistent_but_the_planted_mismatch() {
    let d = load();
    let mut mismatches = Vec::new();
    let mut uncovered = Vec::new();
    for o in &d.orders {
        match d.verify(o) {
            Ok(("consistent", _, diff, _)) => assert_eq!(diff, Money::ZERO),
            Ok((_, _, diff, b)) => {
                mismatches.push((o.order_no.as_str(), diff.to_string(), b.total.to_string()))
            }
            Err(e) => uncovered.push((o.order_no.as_str(), e)),
        }
    }
    assert_eq!(
        mismatches,
        [("ORD-022", "2.50".to_owned(), "12.50".to_owned())]
    );
    assert_eq!(
        uncovered,
        [(
            "ORD-014",
            "no active rule covers city HZ lot LOT-H".to_owned()
        )]
    );
}

#[test]
fn lookups_fail_clearly_instead_of_charging_zero() {
    let d = load();
    let e = d
        .simulate("SH", "LOT-Z", "2026-02-02T08:00", "2026-02-02T09:00")
        .err()
        .unwrap();
    assert_eq!(e, "no active rule covers city SH lot LOT-Z");
    let e = d
        .simulate("SH", "LOT-A", "2025-12-31T23:59", "2026-01-01T09:00")
        .err()
        .unwrap();
    assert_eq!(
        e,
        "rule SH-DAYNIGHT-STD has no version effective at 2025-12-31 23:59:00"
    );
    let e = d
        .simulate("SH", "LOT-A", "2026-02-02T09:00", "2026-02-02T08:00")
        .err()
        .unwrap();
    assert!(e.contains("is before entry"), "{e}");
    // LOT-F shares SH-DAYNIGHT-CAPS with LOT-E.
    let (rule, _, b) = d
        .simulate("SH", "LOT-F", "2026-02-12T09:00", "2026-02-12T12:00")
        .unwrap();
    assert_eq!(
        (rule.rule_code.as_str(), b.total.to_string()),
        ("SH-DAYNIGHT-CAPS", "9.00".to_owned())
    );
}
