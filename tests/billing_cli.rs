//! `servicedesk billing ...` through the real binary on a fresh data dir:
//! the RAG-000 scenarios after `billing seed-demo`, payload simulation with
//! the spec's worked examples, clear one-line errors (exit 1), imports that
//! skip bad records with line and field (exit 2) and store nothing of them,
//! idempotent re-imports, and the generated rule explanations in the
//! knowledge store.

use crate::check;
use crate::common;

use std::path::Path;

use common::{cli, cli_json, cli_ok};
use serde_json::{json, Value};

fn data(name: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/billing")
        .join(name)
        .display()
        .to_string()
}

fn seeded() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let r = cli_json(dir.path(), &["billing", "seed-demo", "--json"]);
    // A fresh data dir holds no demo data: seed-demo imports all of it.
    assert_eq!(r["rules"]["imported"].as_array().unwrap().len(), 6, "{r}");
    assert_eq!(r["orders"]["imported"].as_array().unwrap().len(), 22, "{r}");
    // Again: nothing new (idempotent).
    let again = cli_json(dir.path(), &["billing", "seed-demo", "--json"]);
    assert_eq!(again["orders"]["unchanged"].as_array().unwrap().len(), 22);
    assert!(r["rules"]["skipped"].as_array().unwrap().is_empty());
    dir
}

/// `(exit code, stderr)` of a failing command.
fn fails(dir: &Path, args: &[&str]) -> (i32, String) {
    let out = cli(dir, args);
    assert!(!out.status.success(), "{args:?} succeeded");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).trim().to_owned(),
    )
}

fn error_of(dir: &Path, args: &[&str]) -> String {
    let out = cli(dir, args);
    let stderr = String::from_utf8_lossy(&out.stderr).trim().to_owned();
    match serde_json::from_slice::<Value>(&out.stdout) {
        Ok(v) if out.status.success() => panic!("{args:?} succeeded: {v}"),
        _ => {}
    }
    assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
    assert_eq!(stderr.lines().count(), 1, "one line: {stderr}");
    stderr
}

fn orders_count(dir: &Path) -> usize {
    cli_json(dir, &["billing", "orders", "list", "--json"])["orders"]
        .as_array()
        .unwrap()
        .len()
}

#[test]
fn the_twenty_scenarios_through_the_cli() {
    let dir = seeded();
    let d = dir.path();
    let checked = check::check_all(|q| {
        let args: Vec<String> = match q {
            check::Query::Simulate {
                city,
                lot,
                entry,
                exit,
            } => vec![
                "simulate".into(),
                "--city".into(),
                city,
                "--lot".into(),
                lot,
                "--entry".into(),
                entry,
                "--exit".into(),
                exit,
            ],
            check::Query::Verify(no) => vec!["verify".into(), "--order".into(), no],
            check::Query::Arrears { plate, city } => {
                let mut a = vec!["arrears".into(), "--plate".into(), plate];
                if let Some(c) = city {
                    a.extend(["--city".into(), c]);
                }
                a
            }
        };
        let mut all = vec!["billing"];
        all.extend(args.iter().map(String::as_str));
        all.push("--json");
        let out = cli(d, &all);
        if out.status.success() {
            Ok(serde_json::from_slice(&out.stdout).unwrap())
        } else {
            Err(String::from_utf8_lossy(&out.stderr).into_owned())
        }
    });
    assert!(checked > 150, "only {checked} facts checked");
    // Human output says the same.
    let text = cli_ok(
        d,
        &["billing", "arrears", "--plate", "沪B20009", "--city", "SH"],
    );
    assert!(text.contains("HAS_ARREARS (owes 13.00"), "{text}");
    let text = cli_ok(d, &["billing", "verify", "--order", "ORD-022"]);
    assert!(
        text.contains("ORD-022: mismatch → manual_review") && text.contains("difference 2.50"),
        "{text}"
    );
}

#[test]
fn simulate_a_payload_file_gives_the_spec_examples() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let payload = d.join("payload.json");
    std::fs::write(
        &payload,
        r#"{"free_minutes": 0, "segments": [
            {"name": "day", "window": "08:00-20:00", "type": "periodic",
             "unit_minutes": 30, "unit_price": "2.00", "cap": "20.00"},
            {"name": "night", "window": "20:00-08:00", "type": "free"}]}"#,
    )
    .unwrap();
    let p = payload.to_str().unwrap();
    for (entry, exit, total) in [
        ("2026-03-02T08:00", "2026-03-02T09:00", "4.00"),
        ("2026-03-02T08:00", "2026-03-02T09:05", "6.00"),
        ("2026-03-02T08:00", "2026-03-02T20:01", "20.00"),
        ("2026-03-02T19:59", "2026-03-02T20:01", "2.00"),
        ("2026-03-02T20:00", "2026-03-03T08:00", "0.00"),
        ("2026-03-02T10:00", "2026-03-05T09:10", "66.00"),
        ("2026-03-02T08:00", "2026-03-02T08:00", "0.00"),
    ] {
        let r = cli_json(
            d,
            &[
                "billing",
                "simulate",
                "--payload",
                p,
                "--entry",
                entry,
                "--exit",
                exit,
                "--json",
            ],
        );
        assert_eq!(r["total_amount"], total, "{entry} {exit}: {r}");
        assert!(r.get("rule_code").is_none());
    }
    let r = cli_json(
        d,
        &[
            "billing",
            "simulate",
            "--payload",
            p,
            "--entry",
            "2026-03-02T08:00",
            "--exit",
            "2026-03-02T09:05",
            "--json",
        ],
    );
    let piece = &r["pieces"][0];
    assert_eq!(
        (
            &piece["segment"],
            &piece["occurrence"],
            &piece["minutes"],
            &piece["units"],
            &piece["amount"]
        ),
        (
            &json!("day"),
            &json!("2026-03-02"),
            &json!(65),
            &json!(3),
            &json!("6.00")
        )
    );
    let text = cli_ok(
        d,
        &[
            "billing",
            "simulate",
            "--payload",
            p,
            "--entry",
            "2026-03-02T08:00",
            "--exit",
            "2026-03-02T09:05",
        ],
    );
    assert!(text.contains("total 6.00 for 65 minutes"), "{text}");

    // Bad input: one line each, exit 1.
    let bad = d.join("bad.json");
    std::fs::write(
        &bad,
        r#"{"segments": [{"name": "day", "window": "8-20", "type": "periodic"}]}"#,
    )
    .unwrap();
    let b = bad.to_str().unwrap();
    for (args, needle) in [
        (
            vec!["--payload", b, "--entry", "2026-03-02T08:00", "--exit", "2026-03-02T09:00"],
            "error: invalid_payload: invalid payload: segment 0 (\"day\"): window: \"8-20\" is not HH:MM-HH:MM",
        ),
        (
            vec!["--payload", p, "--entry", "2026-03-02T09:00", "--exit", "2026-03-02T08:00"],
            "error: exit_before_entry: exit 2026-03-02T08:00 is before entry 2026-03-02T09:00",
        ),
        (
            vec!["--payload", p, "--entry", "2026-03-02T09:00", "--exit", "2027-07-15T09:00"],
            "error: stay_too_long: ",
        ),
        (
            vec!["--payload", p, "--entry", "2026-03-02T09:00", "--exit", "2026-03-02T10:00", "--time-zone", "Mars/Olympus"],
            "error: unknown_time_zone: ",
        ),
        (
            vec!["--payload", "/nonexistent/p.json", "--entry", "2026-03-02T09:00", "--exit", "2026-03-02T10:00"],
            "error: unreadable_path: ",
        ),
    ] {
        let mut all = vec!["billing", "simulate"];
        all.extend(args);
        let e = error_of(d, &all);
        assert!(e.starts_with(needle), "{e}");
    }
}

#[test]
fn lookups_and_bad_input_fail_clearly() {
    let dir = seeded();
    let d = dir.path();
    let sim = |extra: &[&str]| {
        let mut a = vec!["billing", "simulate"];
        a.extend_from_slice(extra);
        a.push("--json");
        a.iter().map(|s| s.to_string()).collect::<Vec<_>>()
    };
    let run_err = |args: Vec<String>| {
        let a: Vec<&str> = args.iter().map(String::as_str).collect();
        error_of(d, &a)
    };
    let e = run_err(sim(&[
        "--rule-code",
        "NOPE",
        "--entry",
        "2026-02-02T08:00",
        "--exit",
        "2026-02-02T09:00",
    ]));
    assert!(
        e.starts_with("error: not_found: unknown rule \"NOPE\""),
        "{e}"
    );
    let e = run_err(sim(&[
        "--city",
        "SH",
        "--lot",
        "LOT-Z",
        "--entry",
        "2026-02-02T08:00",
        "--exit",
        "2026-02-02T09:00",
    ]));
    assert!(
        e.starts_with("error: not_found: no active rule covers city SH lot LOT-Z"),
        "{e}"
    );
    let e = run_err(sim(&[
        "--rule-code",
        "SH-DAYNIGHT-STD",
        "--entry",
        "2025-12-31T23:59",
        "--exit",
        "2026-01-01T09:00",
    ]));
    assert!(
        e.starts_with(
            "error: not_found: rule SH-DAYNIGHT-STD has no version in force at 2025-12-31T23:59"
        ),
        "{e}"
    );
    let e = run_err(sim(&[
        "--rule-code",
        "SH-DAYNIGHT-STD",
        "--entry",
        "2026-02-02T09:00",
        "--exit",
        "2026-02-02T08:00",
    ]));
    assert!(e.starts_with("error: exit_before_entry: "), "{e}");
    let e = run_err(sim(&[
        "--rule-code",
        "SH-DAYNIGHT-STD",
        "--entry",
        "2026-02-02T09:00",
        "--exit",
        "2027-06-17T09:00",
    ]));
    assert!(
        e.starts_with("error: stay_too_long: ") && e.contains("500 days"),
        "{e}"
    );
    let e = error_of(d, &["billing", "verify", "--order", "ORD-014"]);
    assert!(e.starts_with("error: not_found: cannot verify order ORD-014: no active rule covers city HZ lot LOT-H"), "{e}");
    // `--rule-code` simulation adds rule_code and version_no.
    let r = cli_json(
        d,
        &[
            "billing",
            "simulate",
            "--rule-code",
            "SH-GRACE30",
            "--entry",
            "2026-02-17T23:45",
            "--exit",
            "2026-02-18T00:16",
            "--json",
        ],
    );
    assert_eq!(
        (&r["rule_code"], &r["version_no"], &r["total_amount"]),
        (&json!("SH-GRACE30"), &json!(1), &json!("4.00"))
    );

    // A bad JSONL file: exit 2, line and field named, nothing of it stored.
    let before = orders_count(d);
    let bad = d.join("orders-bad.jsonl");
    std::fs::write(
        &bad,
        concat!(
            r#"{"order_no": "N-1", "city_code": "SH", "lot_code": "LOT-A", "plate_no": "P9", "entry_time": "2026-02-02T09:00", "exit_time": "2026-02-02T08:00", "total_amount": "1.00", "paid_amount": "0.00"}"#, "\n",
            r#"{"order_no": "N-2", "city_code": "SH", "lot_code": "LOT-A", "plate_no": "P9", "entry_time": "2026-02-02T08:00", "exit_time": "2026-02-02T09:00", "total_amount": "abc", "paid_amount": "0.00"}"#, "\n",
            "not json\n",
        ),
    )
    .unwrap();
    let out = cli(
        d,
        &[
            "billing",
            "orders",
            "import",
            bad.to_str().unwrap(),
            "--json",
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    let skipped: Vec<(u64, Option<&str>)> = r["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| (s["line"].as_u64().unwrap(), s["field"].as_str()))
        .collect();
    assert_eq!(
        skipped,
        [(1, Some("exit_time")), (2, Some("total_amount")), (3, None)]
    );
    assert_eq!(orders_count(d), before);
    let out = cli(d, &["billing", "orders", "import", bad.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("line 1 (record 1, N-1): exit_time: exit 2026-02-02T08:00 is before entry 2026-02-02T09:00"), "{text}");

    // A rules file whose new version overlaps a stored one: exit 2, names it.
    let over = d.join("over.json");
    std::fs::write(
        &over,
        json!([{"rule_code": "SH-DAYNIGHT-STD", "name": "Standard day/night: day charged per half hour, night free",
            "city_code": "SH", "lot_codes": ["LOT-A"], "status": "active", "time_zone": "Asia/Shanghai",
            "versions": [{"version_no": 3, "effective_from": "2026-06-01T00:00",
                "payload": {"segments": [{"name": "all", "window": "00:00-24:00", "type": "free"}]}}]}])
        .to_string(),
    )
    .unwrap();
    let out = cli(
        d,
        &[
            "billing",
            "rules",
            "import",
            over.to_str().unwrap(),
            "--json",
        ],
    );
    assert_eq!(out.status.code(), Some(2));
    let r: Value = serde_json::from_slice(&out.stdout).unwrap();
    let msg = r["skipped"][0]["message"].as_str().unwrap();
    assert!(msg.contains("clashes with version 2"), "{msg}");
    let rules = cli_json(d, &["billing", "rules", "list", "--json"]);
    let std_rule = rules["rules"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["rule_code"] == "SH-DAYNIGHT-STD")
        .unwrap();
    assert_eq!(std_rule["versions"].as_array().unwrap().len(), 2);

    let (code, e) = fails(
        d,
        &["billing", "rules", "import", "/nonexistent/rules.json"],
    );
    assert_eq!(code, 1);
    assert!(e.starts_with("error: unreadable_path: "), "{e}");
}

#[test]
fn re_import_is_idempotent_and_lists_what_is_stored() {
    let dir = seeded();
    let d = dir.path();
    let r = cli_json(
        d,
        &["billing", "rules", "import", &data("rules.json"), "--json"],
    );
    assert!(r["imported"].as_array().unwrap().is_empty());
    assert_eq!(r["unchanged"].as_array().unwrap().len(), 6);
    assert_eq!(r["explanations"]["unchanged"], 6);
    let r = cli_json(
        d,
        &[
            "billing",
            "orders",
            "import",
            &data("orders.jsonl"),
            "--json",
        ],
    );
    assert!(r["imported"].as_array().unwrap().is_empty());
    assert_eq!(r["unchanged"].as_array().unwrap().len(), 22);
    assert_eq!(orders_count(d), 22);
    let text = cli_ok(d, &["billing", "rules", "import", &data("rules.json")]);
    assert!(
        text.contains("0 imported, 6 unchanged, 0 skipped"),
        "{text}"
    );
    let text = cli_ok(d, &["billing", "rules", "list"]);
    assert!(
        text.contains("v1 2026-01-01T00:00 to 2026-03-01T00:00"),
        "{text}"
    );
    let list = cli_json(
        d,
        &[
            "billing",
            "orders",
            "list",
            "--plate",
            "沪b 20009",
            "--json",
        ],
    );
    let nos: Vec<&str> = list["orders"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| o["order_no"].as_str().unwrap())
        .collect();
    assert_eq!(nos, ["ORD-011", "ORD-012", "ORD-013", "ORD-014"]);
}

#[test]
fn rule_explanations_are_in_the_knowledge_store_with_the_payloads_numbers() {
    let dir = seeded();
    let d = dir.path();
    let list = cli_json(d, &["knowledge", "list", "--json"]);
    let mut explained: Vec<(String, u64)> = list["sources"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["doc_type"] == "rule_explain")
        .map(|s| {
            assert_eq!(s["source_type"], "billing_derived");
            assert_eq!(s["city_code"], "SH");
            (
                s["source_id"].as_str().unwrap().to_owned(),
                s["version"].as_u64().unwrap(),
            )
        })
        .collect();
    explained.sort();
    assert_eq!(
        explained,
        [
            ("rule.SH-DAYNIGHT-CAPS".into(), 1),
            ("rule.SH-DAYNIGHT-STD".into(), 1),
            ("rule.SH-DAYNIGHT-STD".into(), 2),
            ("rule.SH-GRACE30".into(), 1),
            ("rule.SH-HOURLY-B".into(), 1),
            ("rule.SH-TIERED-C".into(), 1),
        ]
    );
    // In February, LOT-A's explanation is v1 (2.00 a half hour, cap 20.00).
    let search = |at: &str| {
        cli_json(
            d,
            &[
                "knowledge",
                "search",
                "day cap half hour",
                "--doc-type",
                "rule_explain",
                "--city",
                "SH",
                "--lot",
                "LOT-A",
                "--at",
                at,
                "--json",
            ],
        )
    };
    let feb = search("2026-02-02");
    let hit = &feb["results"][0];
    assert_eq!(
        (&hit["source_id"], &hit["version"]),
        (&json!("rule.SH-DAYNIGHT-STD"), &json!(1))
    );
    let mar = search("2026-03-05");
    let hit = &mar["results"][0];
    assert_eq!(
        (&hit["source_id"], &hit["version"]),
        (&json!("rule.SH-DAYNIGHT-STD"), &json!(2))
    );
    let text = cli_ok(
        d,
        &[
            "knowledge",
            "search",
            "65-minute stay costs",
            "--doc-type",
            "rule_explain",
            "--source-id",
            "rule.SH-DAYNIGHT-STD",
            "--at",
            "2026-03-05",
            "--json",
        ],
    );
    let v: Value = serde_json::from_str(&text).unwrap();
    let snippets: Vec<&str> = v["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["snippet"].as_str().unwrap())
        .collect();
    assert!(
        snippets
            .iter()
            .any(|s| s.contains("A 65-minute stay from 2026-03-01 08:00 to 09:05 costs 7.50")),
        "{snippets:?}"
    );
    // The same stay simulated under the rule: 7.50.
    let r = cli_json(
        d,
        &[
            "billing",
            "simulate",
            "--rule-code",
            "SH-DAYNIGHT-STD",
            "--entry",
            "2026-03-01T08:00",
            "--exit",
            "2026-03-01T09:05",
            "--json",
        ],
    );
    assert_eq!(r["total_amount"], "7.50");
}

/// Times as people type them (issue 19): a date, a local date-time without
/// seconds or offset, and RFC 3339, for every flag that takes a time; a bad
/// one names the flag's field and the accepted forms.
#[test]
fn times_as_people_type_them_everywhere() {
    let dir = seeded();
    let d = dir.path();
    // SH-DAYNIGHT-STD v2 prices SH LOT-A in March: 08:00-09:05 is 7.50 whatever the form.
    for (entry, exit) in [
        ("2026-03-02T08:00", "2026-03-02T09:05"),
        ("2026-03-02 08:00", "2026-03-02T09:05:00"),
        ("2026-03-02T00:00:00Z", "2026-03-02T01:05Z"),
        ("2026-03-02T08:00+08:00", "2026-03-02T09:05:00+08:00"),
    ] {
        let r = cli_json(
            d,
            &[
                "billing", "simulate", "--city", "SH", "--lot", "LOT-A", "--entry", entry,
                "--exit", exit, "--json",
            ],
        );
        assert_eq!(r["total_amount"], "7.50", "{entry} → {exit}: {r}");
    }
    // A date alone is its midnight: 00:00 to 08:30 is night (free) then 30 min of day.
    let r = cli_json(
        d,
        &[
            "billing",
            "simulate",
            "--city",
            "SH",
            "--lot",
            "LOT-A",
            "--entry",
            "2026-03-02",
            "--exit",
            "2026-03-02T08:30",
            "--json",
        ],
    );
    assert_eq!(r["total_amount"], "2.50", "{r}");
    for (flag, args) in [
        (
            "entry",
            ["--entry", "yesterday", "--exit", "2026-03-02T09:00"],
        ),
        (
            "exit",
            ["--entry", "2026-03-02T08:00", "--exit", "02/03/2026"],
        ),
    ] {
        let mut all = vec!["billing", "simulate", "--city", "SH", "--lot", "LOT-A"];
        all.extend(args);
        let e = error_of(d, &all);
        assert!(
            e.starts_with(&format!("error: invalid_time: {flag}: ")),
            "{e}"
        );
        assert!(
            e.contains("YYYY-MM-DD, YYYY-MM-DDTHH:MM (local time) or RFC 3339"),
            "{e}"
        );
    }
    // The knowledge store's validity time takes the same forms.
    for at in [
        "2025-06-01",
        "2025-06-01T12:00",
        "2025-06-01T12:00:00+02:00",
    ] {
        cli_json(
            d,
            &["knowledge", "search", "lot rule", "--at", at, "--json"],
        );
    }
    let e = error_of(
        d,
        &[
            "knowledge",
            "search",
            "lot rule",
            "--at",
            "June 1st",
            "--json",
        ],
    );
    assert!(
        e.starts_with("error: invalid_input: at_time: \"June 1st\" is not a time: use YYYY-MM-DD"),
        "{e}"
    );
}

/// A storage rule made in the app (`billing_rule_create`, one record of a
/// rules file) and given a new version (`billing_rule_version_add`), both
/// checked as an import checks them: a taken code, a bad price and an
/// overlapping version are refused saying what is wrong, with nothing
/// stored; a stay is priced by the version in force at its entry; the CLI
/// does the same.
#[tokio::test]
async fn a_rule_is_created_and_given_a_version_checked_as_an_import() {
    use servicedesk::api::dispatch;
    let dir = tempfile::tempdir().unwrap();
    let desk = servicedesk::desk::Desk::open(dir.path()).await.unwrap();
    let tariff = |price: &str| {
        json!({"free_minutes": 0, "segments": [
            {"name": "day", "window": "08:00-20:00", "type": "periodic", "unit_minutes": 30, "unit_price": price, "cap": "25.00"},
            {"name": "night", "window": "20:00-08:00", "type": "free"}]})
    };
    let rule = |code: &str, price: &str| {
        json!({"rule_code": code, "name": "Storage lot, day rate", "city_code": "SEA",
            "lot_codes": ["STORAGE"], "status": "active", "time_zone": "America/Los_Angeles",
            "versions": [{"version_no": 1, "effective_from": "2026-01-01T00:00",
                "effective_to": "2026-09-01T00:00", "payload": tariff(price)}]})
    };
    let made = dispatch(
        &desk,
        "billing_rule_create",
        json!({"rule": rule("SEA-STORAGE", "2.50")}),
    )
    .await
    .unwrap();
    assert_eq!(made["rule_code"], "SEA-STORAGE");
    assert_eq!(made["versions"].as_array().unwrap().len(), 1);
    let rules = || async {
        dispatch(&desk, "billing_rules", json!({})).await.unwrap()["rules"][0]["versions"]
            .as_array()
            .unwrap()
            .len()
    };

    let e = dispatch(
        &desk,
        "billing_rule_create",
        json!({"rule": rule("SEA-STORAGE", "2.50")}),
    )
    .await
    .unwrap_err();
    assert_eq!(e.code, "conflict", "{e:?}");
    assert!(e.message.contains("SEA-STORAGE already exists"), "{e:?}");
    let mut bad = rule("SEA-OTHER", "2,50");
    bad["city_code"] = json!("S E A");
    let e = dispatch(&desk, "billing_rule_create", json!({ "rule": bad }))
        .await
        .unwrap_err();
    assert_eq!(e.code, "invalid_input", "{e:?}");
    assert!(
        e.message.contains("city_code: \"S E A\" is not a code"),
        "{e:?}"
    );
    assert!(
        e.message
            .contains("; versions[0].payload: invalid payload: segments[0].unit_price: invalid amount \"2,50\""),
        "every wrong field named, not only the first: {e:?}"
    );
    let mut other_lot_rule = rule("SEA-OTHER", "2.50");
    other_lot_rule["lot_codes"] = json!(["storage", "B"]);
    let e = dispatch(
        &desk,
        "billing_rule_create",
        json!({ "rule": other_lot_rule }),
    )
    .await
    .unwrap_err();
    assert_eq!(e.code, "conflict", "{e:?}");
    assert!(
        e.message.starts_with(
            "lot_codes: lot STORAGE in SEA is already covered by active rule SEA-STORAGE"
        ),
        "{e:?}"
    );
    let listed = dispatch(&desk, "billing_rules", json!({})).await.unwrap();
    assert_eq!(
        listed["rules"].as_array().unwrap().len(),
        1,
        "nothing of the bad one stored"
    );

    let v2 = dispatch(
        &desk,
        "billing_rule_version_add",
        json!({"rule_code": "SEA-STORAGE", "effective_from": "2026-09-01T00:00",
            "effective_to": "2027-01-01T00:00", "payload": tariff("3.00")}),
    )
    .await
    .unwrap();
    assert_eq!(v2["version_no"], 2, "{v2}");
    for (payload, from, says) in [
        (
            tariff("3.00"),
            "2026-08-01T00:00",
            "effective_from: version 3 (from 2026-08-01T00:00 (open-ended)) clashes with version 1",
        ),
        (tariff("-3"), "2027-01-01T00:00", "payload: "),
        (tariff("3.00"), "next week", "effective_from: "),
    ] {
        let e = dispatch(
            &desk,
            "billing_rule_version_add",
            json!({"rule_code": "SEA-STORAGE", "effective_from": from, "payload": payload}),
        )
        .await
        .unwrap_err();
        assert!(e.message.contains(says), "{from}: {e:?}");
        assert_eq!(rules().await, 2, "nothing stored for {from}");
    }
    let e = dispatch(
        &desk,
        "billing_rule_version_add",
        json!({"rule_code": "NO-SUCH", "effective_from": "2027-01-01T00:00", "payload": tariff("3.00")}),
    )
    .await
    .unwrap_err();
    assert_eq!(e.code, "not_found", "{e:?}");

    // Every wrong field of a version at once.
    let e = dispatch(
        &desk,
        "billing_rule_version_add",
        json!({"rule_code": "SEA-STORAGE", "effective_from": "soon", "payload": tariff("-3")}),
    )
    .await
    .unwrap_err();
    assert_eq!(e.code, "invalid_input", "{e:?}");
    assert!(
        e.message.contains("effective_from: ") && e.message.contains("; payload: "),
        "{e:?}"
    );
    assert_eq!(rules().await, 2);

    // A stay in October is priced by version 2: one hour of day at 3.00 per half hour.
    let sim = dispatch(
        &desk,
        "billing_simulate",
        json!({"rule_code": "SEA-STORAGE", "entry": "2026-10-05T09:00", "exit": "2026-10-05T10:00"}),
    )
    .await
    .unwrap();
    assert_eq!(sim["version_no"], 2, "{sim}");
    assert_eq!(sim["total_amount"], "6.00", "{sim}");
    desk.close().await;

    // The CLI: a rule and a version from files; a file that is not JSON named with where.
    let work = tempfile::tempdir().unwrap();
    let rule_file = work.path().join("rule.json");
    std::fs::write(
        &rule_file,
        rule("SEA-EAST", "1.00")
            .to_string()
            .replace("STORAGE", "EAST"),
    )
    .unwrap();
    let out = cli_ok(
        dir.path(),
        &["billing", "rules", "create", rule_file.to_str().unwrap()],
    );
    assert_eq!(out.trim(), "created SEA-EAST with 1 version(s)");
    let err = error_of(
        dir.path(),
        &["billing", "rules", "create", rule_file.to_str().unwrap()],
    );
    assert!(err.contains("SEA-EAST already exists"), "{err}");
    let good = work.path().join("tariff.json");
    std::fs::write(&good, tariff("3.50").to_string()).unwrap();
    let bad = work.path().join("broken.json");
    std::fs::write(&bad, "{\"segments\": [").unwrap();
    let d = dir.path();
    let err = error_of(
        d,
        &[
            "billing",
            "rules",
            "add-version",
            "SEA-STORAGE",
            "--from",
            "2027-01-01T00:00",
            "--payload",
            bad.to_str().unwrap(),
        ],
    );
    assert!(
        err.contains("broken.json: not valid JSON at line 1"),
        "{err}"
    );
    let err = error_of(
        d,
        &[
            "billing",
            "rules",
            "add-version",
            "SEA-STORAGE",
            "--from",
            "2026-10-01T00:00",
            "--payload",
            good.to_str().unwrap(),
        ],
    );
    assert!(err.starts_with("error: conflict: "), "the overlap: {err}");
    let added = cli_ok(
        d,
        &[
            "billing",
            "rules",
            "add-version",
            "SEA-STORAGE",
            "--from",
            "2027-01-01T00:00",
            "--payload",
            good.to_str().unwrap(),
        ],
    );
    assert!(added.starts_with("SEA-STORAGE: added"), "{added}");
    let out = cli_ok(d, &["billing", "rules", "list"]);
    assert_eq!(
        out.matches("\n  ").count(),
        4,
        "SEA-STORAGE's three versions and SEA-EAST's one: {out}"
    );
}
