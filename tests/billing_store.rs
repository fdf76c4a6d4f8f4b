//! The billing store on a real SQLite file: the RAG-000 scenarios through
//! the store functions, the overlap guard, versions hit at their
//! effective_from, scope lookups, clear errors instead of zero charges, bad
//! input that stores nothing, idempotent re-imports, append-only versions,
//! the change log, the demo seeding and the generated explanations.

use crate::check;

use chrono::NaiveDateTime;
use serde_json::{json, Value};
use servicedesk::billing::demo;
use servicedesk::billing::explain;
use servicedesk::billing::store::{self, BillingStoreError, Counts, NewVersion, RuleRef};
use servicedesk::billing::{parse_time_zone, simulate_in, WALL_FORMAT};
use servicedesk::store::Store;
use sqlx::SqlitePool;

struct Db {
    _dir: tempfile::TempDir,
    store: Store,
    rt: tokio::runtime::Runtime,
}

impl Db {
    fn new() -> Db {
        let dir = tempfile::tempdir().unwrap();
        let rt = tokio::runtime::Runtime::new().unwrap();
        let store = rt
            .block_on(Store::open(&dir.path().join("billing.db")))
            .unwrap();
        Db {
            _dir: dir,
            store,
            rt,
        }
    }

    fn seeded() -> Db {
        let db = Db::new();
        let r = db
            .run(|p| async move { demo::seed_demo(&p).await })
            .unwrap();
        assert_eq!(r.rules.imported.len(), 6, "{:?}", r.rules);
        assert!(r.rules.skipped.is_empty() && r.orders.skipped.is_empty());
        assert_eq!(r.orders.imported.len(), 22);
        db
    }

    fn pool(&self) -> SqlitePool {
        self.store.pool().clone()
    }

    fn run<T, F: std::future::Future<Output = T>>(&self, f: impl FnOnce(SqlitePool) -> F) -> T {
        self.rt.block_on(f(self.pool()))
    }

    fn counts(&self) -> Counts {
        self.run(|p| async move { store::counts(&p).await })
            .unwrap()
    }
}

fn t(s: &str) -> NaiveDateTime {
    NaiveDateTime::parse_from_str(s, WALL_FORMAT).unwrap()
}

fn shown(e: BillingStoreError) -> String {
    format!("{}: {e}", e.code())
}

fn to_json<T: serde::Serialize>(r: Result<T, BillingStoreError>) -> Result<Value, String> {
    r.map(|v| serde_json::to_value(v).unwrap()).map_err(shown)
}

#[test]
fn the_twenty_scenarios_through_the_store() {
    let db = Db::seeded();
    let checked = check::check_all(|q| {
        db.run(|p| async move {
            match q {
                check::Query::Simulate {
                    city,
                    lot,
                    entry,
                    exit,
                } => to_json(
                    store::simulate_rule(&p, &RuleRef::Scope { city, lot }, &entry, &exit).await,
                ),
                check::Query::Verify(no) => to_json(store::verify(&p, &no).await),
                check::Query::Arrears { plate, city } => {
                    to_json(store::arrears(&p, &plate, city.as_deref()).await)
                }
            }
        })
    });
    assert!(checked > 150, "only {checked} facts checked");
}

#[test]
fn versions_are_hit_at_effective_from_and_by_scope() {
    let db = Db::seeded();
    let at = |r: RuleRef, when: &str| {
        let when = t(when);
        db.run(|p| async move { store::resolve_rule(&p, &r, Some(when)).await })
            .map(|(rule, v)| (rule.rule_code, v.version_no))
            .map_err(shown)
    };
    let code = || RuleRef::Code("SH-DAYNIGHT-STD".into());
    assert_eq!(
        at(code(), "2026-03-01T00:00").unwrap(),
        ("SH-DAYNIGHT-STD".into(), 2)
    );
    assert_eq!(at(code(), "2026-02-28T23:59").unwrap().1, 1);
    assert_eq!(at(code(), "2026-01-01T00:00").unwrap().1, 1);
    // Codes are case-insensitive; city and lot too.
    assert_eq!(
        at(RuleRef::Code("sh-daynight-std".into()), "2030-01-01T00:00")
            .unwrap()
            .1,
        2
    );
    let scope = |c: &str, l: &str| RuleRef::Scope {
        city: c.into(),
        lot: l.into(),
    };
    assert_eq!(
        at(scope("sh", "lot-f"), "2026-02-12T09:00").unwrap().0,
        "SH-DAYNIGHT-CAPS"
    );
    assert_eq!(
        at(scope("SH", "LOT-E"), "2026-02-12T09:00").unwrap().0,
        "SH-DAYNIGHT-CAPS"
    );
    // RFC 3339 entry exactly at v2's effective_from in Asia/Shanghai.
    let sim = db
        .run(|p| async move {
            store::simulate_rule(&p, &code(), "2026-02-28T16:00:00Z", "2026-03-01T09:00").await
        })
        .unwrap();
    assert_eq!(
        (sim.version_no, sim.breakdown.total.to_string()),
        (2, "5.00".into())
    );
    // Now: the open-ended v2.
    let (_, v) = db
        .run(|p| async move { store::resolve_rule(&p, &code(), None).await })
        .unwrap();
    assert_eq!(v.version_no, 2);
}

#[test]
fn lookups_fail_clearly_instead_of_charging_zero() {
    let db = Db::seeded();
    let sim = |r: RuleRef, a: &'static str, b: &'static str| {
        db.run(|p| async move { store::simulate_rule(&p, &r, a, b).await })
            .map_err(shown)
            .unwrap_err()
    };
    let e = sim(
        RuleRef::Code("NOPE".into()),
        "2026-02-02T08:00",
        "2026-02-02T09:00",
    );
    assert!(e.starts_with("not_found: unknown rule \"NOPE\""), "{e}");
    let e = sim(
        RuleRef::Scope {
            city: "SH".into(),
            lot: "LOT-Z".into(),
        },
        "2026-02-02T08:00",
        "2026-02-02T09:00",
    );
    assert!(
        e.starts_with(
            "not_found: no active rule covers city SH lot LOT-Z (active rules in SH cover LOT-A"
        ),
        "{e}"
    );
    let e = sim(
        RuleRef::Scope {
            city: "HZ".into(),
            lot: "LOT-H".into(),
        },
        "2026-02-02T08:00",
        "2026-02-02T09:00",
    );
    assert!(e.contains("no active rule in city HZ"), "{e}");
    let std = || RuleRef::Code("SH-DAYNIGHT-STD".into());
    let e = sim(std(), "2025-12-31T23:59", "2026-01-01T09:00");
    assert!(
        e.starts_with(
            "not_found: rule SH-DAYNIGHT-STD has no version in force at 2025-12-31T23:59"
        ),
        "{e}"
    );
    let e = sim(std(), "2026-02-02T09:00", "2026-02-02T08:00");
    assert!(e.starts_with("exit_before_entry: "), "{e}");
    let e = sim(std(), "2026-02-02T09:00", "2027-06-17T09:00");
    assert!(
        e.starts_with("stay_too_long: ") && e.contains("500 days"),
        "{e}"
    );
    let e = sim(std(), "2026-02-02 9am", "2026-02-02T10:00");
    assert!(e.starts_with("invalid_time: "), "{e}");
    // Verifying an order in a lot no rule covers: an error, not 0.00.
    let e = db
        .run(|p| async move { store::verify(&p, "ORD-014").await })
        .map_err(shown)
        .unwrap_err();
    assert!(
        e.starts_with(
            "not_found: cannot verify order ORD-014: no active rule covers city HZ lot LOT-H"
        ),
        "{e}"
    );
    let e = db
        .run(|p| async move { store::verify(&p, "ORD-999").await })
        .map_err(shown)
        .unwrap_err();
    assert!(e.starts_with("not_found: unknown order"), "{e}");
    // A plate with no orders owes nothing.
    let a = db
        .run(|p| async move { store::arrears(&p, "nobody 1", None).await })
        .unwrap();
    assert_eq!(
        (a.status, a.total_arrears.to_string(), a.orders_checked),
        (store::ArrearsStatus::None, "0.00".into(), 0)
    );
}

fn version(from: &str, to: Option<&str>, price: &str) -> NewVersion {
    NewVersion {
        version_no: None,
        effective_from: from.into(),
        effective_to: to.map(Into::into),
        payload: json!({"segments": [{"name": "all", "window": "00:00-24:00", "type": "periodic",
            "unit_minutes": 60, "unit_price": price}]}),
    }
}

#[test]
fn the_overlap_guard_names_the_clashing_version_and_stores_nothing() {
    let db = Db::seeded();
    let before = db.counts();
    let add = |code: &'static str, v: NewVersion| {
        db.run(|p| async move { store::add_version(&p, code, v, "test").await })
            .map_err(shown)
    };
    let e = add("SH-DAYNIGHT-STD", version("2026-04-01T00:00", None, "3.00")).unwrap_err();
    assert!(
        e.starts_with("conflict: ")
            && e.contains("version 3 (from 2026-04-01T00:00 (open-ended)) clashes with version 2"),
        "{e}"
    );
    let e = add(
        "SH-DAYNIGHT-STD",
        version("2025-06-01T00:00", Some("2026-01-01T00:01"), "3.00"),
    )
    .unwrap_err();
    assert!(e.contains("clashes with version 1"), "{e}");
    assert_eq!(db.counts(), before, "nothing stored");

    // Two versions of one new rule that overlap each other, in one import.
    let file = json!([{"rule_code": "T-OVER", "name": "t", "city_code": "SH", "lot_codes": ["LOT-T"],
        "status": "active", "versions": [
            {"version_no": 1, "effective_from": "2026-01-01T00:00", "effective_to": "2026-06-01T00:00",
             "payload": {"segments": [{"name": "all", "window": "00:00-24:00", "type": "free"}]}},
            {"version_no": 2, "effective_from": "2026-05-31T23:59",
             "payload": {"segments": [{"name": "all", "window": "00:00-24:00", "type": "free"}]}}]}])
    .to_string();
    let r = db
        .run(|p| async move { store::import_rules(&p, &file, "over.json").await })
        .unwrap();
    assert!(r.imported.is_empty());
    assert_eq!(r.skipped.len(), 1, "{:?}", r.skipped);
    let s = &r.skipped[0];
    assert_eq!(s.field.as_deref(), Some("versions[1].effective_from"));
    assert!(
        s.message.contains("clashes with version 1"),
        "{}",
        s.message
    );
    assert_eq!(db.counts(), before, "nothing stored");

    // A version starting exactly where the previous one ends is fine, and
    // is hit at its effective_from.
    let file = json!([{"rule_code": "T-SEQ", "name": "t", "city_code": "SH", "lot_codes": ["LOT-T"],
        "status": "active", "time_zone": "America/Los_Angeles", "versions": [
            {"version_no": 1, "effective_from": "2026-01-01T00:00", "effective_to": "2026-05-01T00:00",
             "payload": {"segments": [{"name": "all", "window": "00:00-24:00", "type": "periodic",
                "unit_minutes": 60, "unit_price": "1.00"}]}}]}])
    .to_string();
    let r = db
        .run(|p| async move { store::import_rules(&p, &file, "seq.json").await })
        .unwrap();
    assert_eq!(r.imported.len(), 1, "{:?}", r.skipped);
    let v2 = add("T-SEQ", version("2026-05-01T00:00", None, "2.00")).unwrap();
    assert_eq!(v2.version_no, 2);
    let sim = |a: &'static str, b: &'static str| {
        db.run(
            |p| async move { store::simulate_rule(&p, &RuleRef::Code("T-SEQ".into()), a, b).await },
        )
        .unwrap()
    };
    let s = sim("2026-05-01T00:00", "2026-05-01T02:00");
    assert_eq!(
        (s.version_no, s.breakdown.total.to_string()),
        (2, "4.00".into())
    );
    let s = sim("2026-04-30T23:59", "2026-05-01T01:59");
    assert_eq!(
        (s.version_no, s.breakdown.total.to_string()),
        (1, "3.00".into())
    );
    // The same version again changes nothing; other content is refused.
    let again = add(
        "T-SEQ",
        NewVersion {
            version_no: Some(2),
            ..version("2026-05-01T00:00", None, "2.00")
        },
    )
    .unwrap();
    assert_eq!(again, v2);
    let e = add(
        "T-SEQ",
        NewVersion {
            version_no: Some(2),
            ..version("2026-05-01T00:00", None, "2.50")
        },
    )
    .unwrap_err();
    assert!(
        e.contains("already stored") && e.contains("append-only"),
        "{e}"
    );
    // The change log holds the rule and both versions, with their origin.
    let log: Vec<(String, String, String)> = db
        .run(|p| async move {
            sqlx::query_as(
                "SELECT action, entity_key, origin FROM billing_changes WHERE entity_key LIKE 'T-SEQ%' ORDER BY id",
            )
            .fetch_all(&p)
            .await
        })
        .unwrap();
    assert_eq!(
        log,
        [
            ("rule_created".into(), "T-SEQ".into(), "seq.json".into()),
            ("version_added".into(), "T-SEQ v1".into(), "seq.json".into()),
            ("version_added".into(), "T-SEQ v2".into(), "test".into()),
        ]
    );
}

#[test]
fn versions_are_append_only_in_sql_too() {
    let db = Db::seeded();
    let e = db
        .run(|p| async move {
            sqlx::query("UPDATE billing_rule_versions SET payload = '{}' WHERE version_no = 1")
                .execute(&p)
                .await
        })
        .unwrap_err()
        .to_string();
    assert!(e.contains("append-only"), "{e}");
    // Changing a stored version by import is refused, naming line and field.
    let mut rules: Value = serde_json::from_str(demo::RULES_JSON).unwrap();
    rules[1]["versions"][0]["payload"]["segments"][0]["unit_price"] = json!("2.50");
    let text = serde_json::to_string_pretty(&rules).unwrap();
    let before = db.counts();
    let sent = text.clone();
    let r = db
        .run(|p| async move { store::import_rules(&p, &sent, "changed.json").await })
        .unwrap();
    assert_eq!(r.unchanged.len(), 5);
    assert_eq!(r.skipped.len(), 1);
    let s = &r.skipped[0];
    assert_eq!(
        (s.record, s.key.as_deref(), s.field.as_deref()),
        (2, Some("SH-GRACE30"), Some("versions[0].version_no"))
    );
    assert!(
        s.message.contains("already stored") && s.message.contains("new version number"),
        "{}",
        s.message
    );
    // Record 2 starts on the line of its `{` in the pretty-printed file.
    let line = text
        .lines()
        .enumerate()
        .filter(|(_, l)| *l == "  {")
        .nth(1)
        .unwrap()
        .0
        + 1;
    assert_eq!(s.line, line);
    assert_eq!(db.counts(), before);
}

#[test]
fn bad_input_is_refused_with_line_and_field_and_stores_nothing() {
    let db = Db::seeded();
    let before = db.counts();
    let orders = [
        (
            r#"{"order_no": "X-1", "city_code": "SH", "lot_code": "LOT-A", "plate_no": "P1", "entry_time": "2026-02-02T09:00", "exit_time": "2026-02-02T08:00", "total_amount": "1.00", "paid_amount": "0.00"}"#,
            "exit_time",
            "is before entry",
        ),
        (
            r#"{"order_no": "X-2", "city_code": "SH", "lot_code": "LOT-A", "plate_no": "P1", "entry_time": "2026-02-02T09:00", "exit_time": "2027-06-17T09:00", "total_amount": "1.00", "paid_amount": "0.00"}"#,
            "exit_time",
            "500 days",
        ),
        (
            r#"{"order_no": "X-3", "city_code": "SH", "lot_code": "LOT-A", "plate_no": "P1", "entry_time": "2026-02-02T08:00", "exit_time": "2026-02-02T09:00", "total_amount": "4.005", "paid_amount": "0.00"}"#,
            "total_amount",
            "more than two decimal places",
        ),
        (
            r#"{"order_no": "X-4", "city_code": "SH", "lot_code": "LOT-A", "plate_no": "P1", "entry_time": "2026-02-02T08:00", "exit_time": "2026-02-02T09:00", "total_amount": 4.5, "paid_amount": "0.00"}"#,
            "total_amount",
            "decimal strings",
        ),
        (
            r#"{"order_no": "X-5", "city_code": "SH", "lot_code": "LOT-A", "plate_no": "P1", "entry_time": "2026-02-02T08:00", "exit_time": "2026-02-02T09:00", "total_amount": "4.00", "paid_amount": "-1.00"}"#,
            "paid_amount",
            "may not be negative",
        ),
        (
            r#"{"order_no": "X-6", "city_code": "SH", "lot_code": "LOT-A", "plate_no": "P1", "entry_time": "2026-02-02T08:00", "exit_time": "2026-02-02T09:00", "total_amount": "4.00", "paid_amount": "0.00", "tip": "1.00"}"#,
            "tip",
            "unknown field",
        ),
        (
            r#"{"order_no": "X-7", "city_code": "SH", "lot_code": "LOT-A", "entry_time": "2026-02-02T08:00", "exit_time": "2026-02-02T09:00", "total_amount": "4.00", "paid_amount": "0.00"}"#,
            "plate_no",
            "is required",
        ),
        (
            r#"{"order_no": "X-8", "city_code": "SH", "lot_code": "LOT-A", "plate_no": "P1", "entry_time": "yesterday", "exit_time": "2026-02-02T09:00", "total_amount": "4.00", "paid_amount": "0.00"}"#,
            "entry_time",
            "\"yesterday\"",
        ),
        (
            r#"{"order_no": "ORD-001", "city_code": "SH", "lot_code": "LOT-A", "plate_no": "沪A10001", "entry_time": "2026-02-02T08:00", "exit_time": "2026-02-02T09:00", "total_amount": "5.00", "paid_amount": "4.00"}"#,
            "order_no",
            "total_amount 4.00 stored, 5.00 here",
        ),
    ];
    for (line, field, needle) in orders {
        // The bad record on line 3, after a blank line and a good duplicate.
        let text = format!("{}\n\n{line}\n", demo::ORDERS_JSONL.lines().next().unwrap());
        let r = db
            .run(|p| async move { store::import_orders(&p, &text, "bad.jsonl").await })
            .unwrap();
        assert_eq!(r.unchanged.len(), 1, "{line}");
        assert!(r.imported.is_empty(), "{line}");
        assert_eq!(r.skipped.len(), 1, "{line}: {:?}", r.skipped);
        let s = &r.skipped[0];
        assert_eq!((s.line, s.record), (3, 2), "{line}");
        assert_eq!(s.field.as_deref(), Some(field), "{line}: {s}");
        assert!(s.message.contains(needle), "{line}: {s}");
    }
    let e = db
        .run(|p| async move { store::import_orders(&p, "{not json\n", "x.jsonl").await })
        .unwrap();
    assert!(
        e.skipped[0].message.starts_with("not valid JSON"),
        "{:?}",
        e.skipped
    );
    let e = db
        .run(|p| async move { store::import_orders(&p, "\n\n", "x.jsonl").await })
        .map_err(shown)
        .unwrap_err();
    assert!(e.starts_with("invalid_input: x.jsonl: no orders"), "{e}");

    // Rules: a malformed payload, an unknown zone, bad dates, a bad status.
    let rule = |patch: Value| {
        let mut r = json!({"rule_code": "T-BAD", "name": "t", "city_code": "SH", "lot_codes": ["LOT-T"],
            "status": "active", "time_zone": "Asia/Shanghai", "versions": [
                {"version_no": 1, "effective_from": "2026-01-01T00:00",
                 "payload": {"segments": [{"name": "day", "window": "08:00-20:00", "type": "periodic",
                     "unit_minutes": 30, "unit_price": "2.00"}]}}]});
        for (k, v) in patch.as_object().unwrap() {
            if let Some(rest) = k.strip_prefix("v.") {
                r["versions"][0][rest] = v.clone();
            } else {
                r[k] = v.clone();
            }
        }
        json!([r]).to_string()
    };
    for (patch, field, needle) in [
        (
            json!({"v.payload": {"segments": [{"name": "day", "window": "08:00-20:00", "type": "periodic", "unit_minutes": 0, "unit_price": "2.00"}]}}),
            "versions[0].payload",
            "invalid payload: segment 0 (\"day\"): unit_minutes: must be between 1 and 1440",
        ),
        (
            json!({"v.payload": {"segments": [{"name": "day", "window": "08:00-20:00", "type": "periodic", "unit_minutes": 30, "unit_price": "2.00"},
                                           {"name": "late", "window": "19:00-21:00", "type": "free"}]}}),
            "versions[0].payload",
            "windows overlap",
        ),
        (
            json!({"v.payload": "not an object"}),
            "versions[0].payload",
            "invalid payload",
        ),
        (
            json!({"time_zone": "Mars/Olympus"}),
            "time_zone",
            "unknown time zone",
        ),
        (
            json!({"v.effective_from": "2026-13-01T00:00"}),
            "versions[0].effective_from",
            "2026-13-01",
        ),
        (
            json!({"v.effective_to": "2025-01-01T00:00"}),
            "versions[0].effective_to",
            "is not after effective_from",
        ),
        (
            json!({"status": "maybe"}),
            "status",
            "not active or inactive",
        ),
        (json!({"lot_codes": []}), "lot_codes", "at least one lot"),
        (
            json!({"lot_codes": ["LOT-A"]}),
            "lot_codes",
            "already covered by active rule SH-DAYNIGHT-STD",
        ),
        (json!({"colour": "red"}), "colour", "unknown field"),
        (
            json!({"v.version_no": 0}),
            "versions[0].version_no",
            "whole number",
        ),
    ] {
        let text = rule(patch.clone());
        let r = db
            .run(|p| async move { store::import_rules(&p, &text, "bad.json").await })
            .unwrap();
        assert!(r.imported.is_empty(), "{patch}");
        let s = r
            .skipped
            .iter()
            .find(|s| s.field.as_deref() == Some(field))
            .unwrap_or_else(|| panic!("{patch}: {:?}", r.skipped));
        assert_eq!((s.line, s.record, s.key.as_deref()), (1, 1, Some("T-BAD")));
        assert!(s.message.contains(needle), "{patch}: {s}");
    }
    for (text, needle) in [
        ("{\"rule_code\": 1}", "expected a JSON array"),
        ("[{\"rule_code\": ", "not valid JSON at line 1"),
        ("[]", "no rules"),
    ] {
        let e = db
            .run(|p| async move { store::import_rules(&p, text, "bad.json").await })
            .map_err(shown)
            .unwrap_err();
        assert!(
            e.starts_with("invalid_input: bad.json: ") && e.contains(needle),
            "{e}"
        );
    }
    assert_eq!(db.counts(), before, "nothing stored");
}

#[test]
fn re_import_is_idempotent_and_the_demo_loads_only_on_request() {
    let db = Db::seeded();
    let before = db.counts();
    assert_eq!(
        before,
        Counts {
            rules: 5,
            versions: 6,
            orders: 22,
            changes: 5 + 6 + 22
        }
    );
    let r = db
        .run(|p| async move { demo::seed_demo(&p).await })
        .unwrap();
    assert!(r.rules.imported.is_empty() && r.orders.imported.is_empty());
    assert_eq!((r.rules.unchanged.len(), r.orders.unchanged.len()), (6, 22));
    let ex = r.rules.explanations.unwrap();
    assert!(ex.ingested.is_empty() && ex.kept.is_empty());
    assert_eq!(ex.unchanged, 6);
    assert_eq!(db.counts(), before);

    // Nothing seeds itself: a store nobody seeded holds no demo data.
    let fresh = Db::new();
    assert_eq!(
        fresh.counts(),
        Counts {
            rules: 0,
            versions: 0,
            orders: 0,
            changes: 0
        }
    );
}

#[test]
fn every_version_has_an_explanation_whose_numbers_match_the_payload() {
    let db = Db::seeded();
    let rules = db
        .run(|p| async move { store::list_rules(&p).await })
        .unwrap();
    let stored: Vec<(String, i64, String, String, Option<String>, String)> = db
        .run(|p| async move {
            sqlx::query_as(
                "SELECT s.source_id, s.version, s.city_code, s.effective_from, s.effective_to,
                        group_concat(c.text, '\n') FROM knowledge_sources s
                 JOIN knowledge_chunks c ON c.source_row = s.id
                 WHERE s.doc_type = 'rule_explain' AND s.source_type = 'billing_derived'
                 GROUP BY s.id ORDER BY s.source_id, s.version",
            )
            .fetch_all(&p)
            .await
        })
        .unwrap();
    assert_eq!(stored.len(), 6);
    let example = regex::Regex::new(
        r"A (\d+)-minute stay from (\d{4}-\d\d-\d\d) (\d\d:\d\d) to (?:(\d{4}-\d\d-\d\d) )?(\d\d:\d\d) costs (\d+\.\d\d)",
    )
    .unwrap();
    let mut examples = 0;
    for rule in &rules {
        let tz = parse_time_zone(&rule.time_zone).unwrap();
        for v in &rule.versions {
            let doc = explain::explain(rule, v);
            assert_eq!(doc.source_id, format!("rule.{}", rule.rule_code));
            assert_eq!(doc.version, Some(v.version_no as u32));
            let (_, _, city, from, to, text) = stored
                .iter()
                .find(|s| s.0 == doc.source_id && s.1 == v.version_no)
                .unwrap_or_else(|| {
                    panic!("no explanation for {} v{}", rule.rule_code, v.version_no)
                });
            assert_eq!(city, &rule.city_code);
            assert_eq!(Some(from), doc.effective_from.as_ref());
            assert_eq!(to, &doc.effective_to);
            // Every price, cap, unit and window of the payload is in the words.
            for s in &v.payload.segments {
                assert!(text.contains(&s.window), "{} lacks {}", doc.title, s.window);
                for m in [s.unit_price, s.cap].into_iter().flatten() {
                    assert!(text.contains(&m.to_string()), "{} lacks {m}", doc.title);
                }
                if let Some(u) = s.unit_minutes {
                    assert!(
                        text.contains(&format!("every started {u} minutes")),
                        "{}",
                        doc.title
                    );
                }
                for tier in s.tiers.iter().flatten() {
                    assert!(text.contains(&tier.unit_price.to_string()));
                }
            }
            if v.payload.free_minutes > 0 {
                assert!(text.contains(&format!(
                    "at most {} minutes costs 0.00",
                    v.payload.free_minutes
                )));
            }
            // And every worked example is what the calculator says.
            let mut n = 0;
            for c in example.captures_iter(text) {
                let entry = t(&format!("{}T{}", &c[2], &c[3]));
                let exit_day = c.get(4).map_or(&c[2], |m| m.as_str());
                let exit = t(&format!("{exit_day}T{}", &c[5]));
                let b = simulate_in(&v.payload, tz, entry, exit).unwrap();
                assert_eq!(b.stay_minutes.to_string(), &c[1]);
                assert_eq!(b.total.to_string(), &c[6], "{}: {}", doc.title, &c[0]);
                n += 1;
            }
            assert!(n >= 2, "{}: {n} examples", doc.title);
            examples += n;
        }
    }
    assert!(examples >= 18);
    // The spec's own examples come out of the generator for the tiered rule.
    let tiered = rules.iter().find(|r| r.rule_code == "SH-TIERED-C").unwrap();
    let body = explain::explain(tiered, &tiered.versions[0]).body;
    assert!(
        body.contains("A 121-minute stay from 2026-01-01 08:00 to 10:01 costs 11.00"),
        "{body}"
    );
    assert!(
        body.contains("A 65-minute stay from 2026-01-01 08:00 to 09:05 costs 6.00"),
        "{body}"
    );
}

#[test]
fn the_api_dispatches_billing_commands() {
    let dir = tempfile::tempdir().unwrap();
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let desk = servicedesk::Desk::open(dir.path()).await.unwrap();
        let call = |c: &'static str, v: Value| {
            let desk = desk.clone();
            async move { servicedesk::api::dispatch(&desk, c, v).await }
        };
        // A fresh data dir holds no demo data; billing_seed_demo loads it.
        let rules = call("billing_rules", json!({})).await.unwrap();
        assert_eq!(rules["rules"].as_array().unwrap().len(), 0);
        let orders = call("billing_orders", json!({})).await.unwrap();
        assert_eq!(orders["orders"].as_array().unwrap().len(), 0);
        let r = call("billing_seed_demo", json!({})).await.unwrap();
        assert_eq!(r["orders"]["imported"].as_array().unwrap().len(), 22);
        let rules = call("billing_rules", json!({})).await.unwrap();
        assert_eq!(rules["rules"].as_array().unwrap().len(), 5);
        let sim = call(
            "billing_simulate",
            json!({"payload": {"segments": [
                {"name": "day", "window": "08:00-20:00", "type": "periodic",
                 "unit_minutes": 30, "unit_price": "2.00", "cap": "20.00"},
                {"name": "night", "window": "20:00-08:00", "type": "free"}]},
             "entry": "2026-03-02T08:00", "exit": "2026-03-02T09:05"}),
        )
        .await
        .unwrap();
        assert_eq!(sim["total_amount"], "6.00");
        assert!(sim.get("rule_code").is_none());
        let sim = call(
            "billing_simulate",
            json!({"city_code": "SH", "lot_code": "LOT-B", "entry": "2026-02-24T09:00", "exit": "2026-02-24T12:00"}),
        )
        .await
        .unwrap();
        assert_eq!((&sim["rule_code"], &sim["version_no"], &sim["total_amount"]),
                   (&json!("SH-HOURLY-B"), &json!(1), &json!("9.00")));
        for (payload, code) in [
            (json!({"entry": "2026-02-24T09:00", "exit": "2026-02-24T12:00"}), "invalid_input"),
            (json!({"rule_code": "SH-HOURLY-B", "city_code": "SH", "lot_code": "LOT-B",
                    "entry": "2026-02-24T09:00", "exit": "2026-02-24T12:00"}), "invalid_input"),
            (json!({"city_code": "SH", "entry": "2026-02-24T09:00", "exit": "2026-02-24T12:00"}), "invalid_input"),
            (json!({"rule_code": "SH-HOURLY-B", "time_zone": "UTC",
                    "entry": "2026-02-24T09:00", "exit": "2026-02-24T12:00"}), "invalid_input"),
            (json!({"payload": {"segments": []}, "entry": "2026-02-24T09:00", "exit": "2026-02-24T12:00"}), "invalid_payload"),
            (json!({"rule_code": "NOPE", "entry": "2026-02-24T09:00", "exit": "2026-02-24T12:00"}), "not_found"),
        ] {
            let e = call("billing_simulate", payload.clone()).await.unwrap_err();
            assert_eq!(e.code, code, "{payload}: {e}");
        }
        let v = call("billing_verify", json!({"order_no": "ORD-022"})).await.unwrap();
        assert_eq!((&v["result"], &v["difference"]), (&json!("mismatch"), &json!("2.50")));
        let a = call("billing_arrears", json!({"plate_no": "沪B20009"})).await.unwrap();
        assert_eq!(a["total_arrears"], "19.00");
        let o = call("billing_orders", json!({"city_code": "HZ"})).await.unwrap();
        assert_eq!(o["orders"].as_array().unwrap().len(), 1);
        let r = call("billing_orders_import", json!({"content": demo::ORDERS_JSONL, "name": "o.jsonl"}))
            .await
            .unwrap();
        assert_eq!(r["unchanged"].as_array().unwrap().len(), 22);
        let r = call("billing_rules_import", json!({"content": "[1]"})).await.unwrap();
        assert_eq!(r["skipped"][0]["message"], "a rule must be a JSON object, got 1");
        let r = call("billing_seed_demo", json!({})).await.unwrap();
        assert_eq!(r["orders"]["unchanged"].as_array().unwrap().len(), 22);
        let e = call("billing_verify", json!({"order": "ORD-1"})).await.unwrap_err();
        assert_eq!(e.code, "invalid_input");
        assert!(servicedesk::api::COMMANDS.contains(&"billing_seed_demo"));
        desk.close().await;
    });
}

#[test]
fn a_rule_can_be_retired_and_the_change_is_logged() {
    let db = Db::seeded();
    let mut rules: Value = serde_json::from_str(demo::RULES_JSON).unwrap();
    rules[1]["status"] = json!("inactive");
    let text = json!([rules[1].clone()]).to_string();
    let r = db
        .run(|p| async move { store::import_rules(&p, &text, "retire.json").await })
        .unwrap();
    assert_eq!((r.unchanged.len(), r.skipped.len()), (1, 0), "{r:?}");
    let e = db
        .run(|p| async move {
            store::resolve_rule(
                &p,
                &RuleRef::Scope {
                    city: "SH".into(),
                    lot: "LOT-D".into(),
                },
                None,
            )
            .await
        })
        .map_err(shown)
        .unwrap_err();
    assert!(
        e.starts_with("not_found: no active rule covers city SH lot LOT-D"),
        "{e}"
    );
    // By code, the retired rule still explains its past charges.
    let (rule, v) = db
        .run(|p| async move {
            store::resolve_rule(
                &p,
                &RuleRef::Code("SH-GRACE30".into()),
                Some(t("2026-02-17T23:45")),
            )
            .await
        })
        .unwrap();
    assert_eq!((rule.status.as_str(), v.version_no), ("inactive", 1));
    let (detail, origin): (String, String) = db
        .run(|p| async move {
            sqlx::query_as(
                "SELECT detail, origin FROM billing_changes WHERE action = 'rule_updated' AND entity_key = 'SH-GRACE30'",
            )
            .fetch_one(&p)
            .await
        })
        .unwrap();
    let detail: Value = serde_json::from_str(&detail).unwrap();
    assert_eq!(
        (
            &detail["before"]["status"],
            &detail["after"]["status"],
            origin.as_str()
        ),
        (&json!("active"), &json!("inactive"), "retire.json")
    );
}

#[test]
fn an_unknown_stored_status_is_an_error_naming_the_row() {
    let db = Db::seeded();
    db.run(|p| async move {
        // The table's CHECK refuses it; a hand edit or a newer version
        // could still leave one behind.
        let mut c = p.acquire().await.unwrap();
        sqlx::query("PRAGMA ignore_check_constraints = ON")
            .execute(&mut *c)
            .await
            .unwrap();
        sqlx::query("UPDATE billing_rules SET status = 'archived' WHERE rule_code = 'SH-HOURLY-B'")
            .execute(&mut *c)
            .await
            .unwrap();
        sqlx::query("PRAGMA ignore_check_constraints = OFF")
            .execute(&mut *c)
            .await
            .unwrap();
    });
    let e = db
        .run(|p| async move { store::list_rules(&p).await })
        .map_err(shown)
        .unwrap_err();
    assert_eq!(
        e,
        "storage: billing_rules row SH-HOURLY-B: status \"archived\" is not active or inactive"
    );
}
