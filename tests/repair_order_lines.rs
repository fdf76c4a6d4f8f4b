//! The repair order's complaint lines and their money: pay types (and for
//! warranty, who pays), labor and parts per line, priced with the shop's
//! rates and tax exactly to the cent; bad input refused naming the field
//! with nothing written; existing visits migrated to a first line; the
//! lines in the portal payload. Through the api on a real data dir, over
//! real HTTP and through the CLI.

use crate::common;

use std::path::Path;

use serde_json::{json, Value};
use servicedesk::api::repair_order::{
    self as ro, RoLineAuthorizeRequest, RoLineDeleteRequest, RoLineSaveRequest,
};
use servicedesk::api::{self, SessionNewRequest, SessionRef};
use servicedesk::desk::repair_order::{
    RepairOrder, RoAuthorizeInput, RoLaborInput, RoLineInput, RoPartInput, RoSettingsPatch,
};
use servicedesk::desk::Desk;

const CSRF: &str = "repair-order-lines-csrf";

fn labor(description: &str, hours: &str) -> RoLaborInput {
    RoLaborInput {
        description: description.into(),
        hours: hours.into(),
    }
}

fn part(no: &str, description: &str, qty: &str, price: &str) -> RoPartInput {
    RoPartInput {
        part_no: Some(no.into()),
        description: description.into(),
        qty: qty.into(),
        unit_price: price.into(),
    }
}

async fn shop_rates(desk: &Desk) {
    ro::ro_settings(
        desk,
        RoSettingsPatch {
            rate_customer: Some("145.00".into()),
            rate_warranty: Some("120".into()),
            rate_internal: Some("80.00".into()),
            rate_service_contract: Some("130.00".into()),
            tax_rate: Some("8.25".into()),
            labor_taxable: None,
            ro_prefix: None,
        },
    )
    .await
    .unwrap();
}

/// A three-line repair order: warranty (coach), customer pay, and an
/// internal line the customer may decline.
async fn three_lines(desk: &Desk) -> (String, RepairOrder) {
    shop_rates(desk).await;
    let s = api::session_new(
        desk,
        SessionNewRequest {
            complaint: "Fridge not cooling on LP".into(),
            customer: Some("José Núñez".into()),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    let first = ro::ro_show(
        desk,
        SessionRef {
            session_id: s.id.clone(),
        },
    )
    .await
    .unwrap();
    assert_eq!(first.lines.len(), 1, "the writer's complaint is line 1");
    assert_eq!(first.lines[0].complaint, "Fridge not cooling on LP");
    assert_eq!(first.lines[0].pay_type.as_str(), "customer");
    let save = |line: RoLineInput| RoLineSaveRequest {
        session_id: s.id.clone(),
        edited_by: None,
        line,
    };
    ro::ro_line_save(
        desk,
        save(RoLineInput {
            line_id: Some(first.lines[0].id.clone()),
            complaint: "Fridge not cooling on LP".into(),
            pay_type: "warranty".into(),
            warranty_payer: Some("coach".into()),
            labor: vec![
                labor("Diagnose absorption fridge", "1.5"),
                labor("Replace thermocouple", "0.4"),
            ],
            parts: vec![
                part("TC-100", "Thermocouple", "1", "24.99"),
                part("SEAL-5", "Burner gasket", "2", "3.35"),
            ],
            ..Default::default()
        }),
    )
    .await
    .unwrap();
    ro::ro_line_save(
        desk,
        save(RoLineInput {
            complaint: "Awning won't retract".into(),
            pay_type: "customer".into(),
            labor: vec![labor("Adjust awning arms", "0.75")],
            parts: vec![part("AW-12", "Awning arm bushing", "4", "2.15")],
            ..Default::default()
        }),
    )
    .await
    .unwrap();
    let order = ro::ro_line_save(
        desk,
        save(RoLineInput {
            complaint: "Scuff on the rear cap".into(),
            pay_type: "internal".into(),
            labor: vec![labor("Inspect rear cap", "0.33")],
            parts: vec![part("CAP-T", "Touch-up paint, 1.5 oz", "1.5", "12.33")],
            ..Default::default()
        }),
    )
    .await
    .unwrap();
    (s.id, order)
}

fn amounts(t: &servicedesk::desk::pricing::RoTotals) -> [String; 4] {
    [t.labor, t.parts, t.tax, t.total].map(|m| m.to_string())
}

#[tokio::test]
async fn a_three_line_repair_order_is_priced_to_the_cent() {
    let dir = tempfile::tempdir().unwrap();
    let desk = Desk::open(dir.path()).await.unwrap();
    let (session_id, order) = three_lines(&desk).await;
    assert_eq!(order.ro_number, "RO-000001");
    let [warranty, customer, internal] = order.lines.as_slice() else {
        panic!("three lines: {:?}", order.lines);
    };
    assert_eq!(
        [warranty.line_no, customer.line_no, internal.line_no],
        [1, 2, 3]
    );

    // Warranty, the coach maker pays, at the warranty rate 120.00:
    // 1.5 h = 180.00, 0.4 h = 48.00; parts 24.99 + 2 × 3.35 = 31.69;
    // tax 8.25 % of the parts only = 2.614425 → 2.61.
    assert_eq!(warranty.pay_type.as_str(), "warranty");
    assert_eq!(warranty.warranty_payer.map(|p| p.as_str()), Some("coach"));
    assert_eq!(warranty.labor_rate.to_string(), "120.00");
    let labor: Vec<String> = warranty
        .labor
        .iter()
        .map(|l| l.amount.to_string())
        .collect();
    assert_eq!(labor, ["180.00", "48.00"]);
    assert_eq!(warranty.parts[1].amount.to_string(), "6.70");
    assert_eq!(
        amounts(&warranty.totals),
        ["228.00", "31.69", "2.61", "262.30"]
    );

    // Customer pay at 145.00: 0.75 h = 108.75; 4 × 2.15 = 8.60;
    // tax 0.7095 → 0.71.
    assert_eq!(customer.labor_rate.to_string(), "145.00");
    assert_eq!(
        amounts(&customer.totals),
        ["108.75", "8.60", "0.71", "118.06"]
    );

    // Internal at 80.00: 0.33 h = 26.40; 1.5 × 12.33 = 18.495 → 18.50
    // (half up); tax 8.25 % of 18.50 = 1.52625 → 1.53.
    assert_eq!(internal.parts[0].qty, "1.5");
    assert_eq!(internal.parts[0].amount.to_string(), "18.50");
    assert_eq!(
        amounts(&internal.totals),
        ["26.40", "18.50", "1.53", "46.43"]
    );

    // The repair order is the sum of its lines.
    assert_eq!(
        amounts(&order.totals),
        ["363.15", "58.79", "4.85", "426.79"]
    );

    // With labor taxed too, the warranty line's tax is on 259.69: 21.42.
    ro::ro_settings(
        &desk,
        RoSettingsPatch {
            labor_taxable: Some(true),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    let taxed = ro::ro_show(
        &desk,
        SessionRef {
            session_id: session_id.clone(),
        },
    )
    .await
    .unwrap();
    assert_eq!(taxed.lines[0].totals.taxable.to_string(), "259.69");
    assert_eq!(taxed.lines[0].totals.tax.to_string(), "21.42");
    assert_eq!(taxed.lines[0].totals.total.to_string(), "281.11");

    // Deleting line 2 moves line 3 up.
    let gone = ro::ro_line_delete(
        &desk,
        RoLineDeleteRequest {
            session_id: session_id.clone(),
            edited_by: None,
            line_id: customer.id.clone(),
        },
    )
    .await
    .unwrap();
    let left: Vec<(i64, &str)> = gone
        .lines
        .iter()
        .map(|l| (l.line_no, l.complaint.as_str()))
        .collect();
    assert_eq!(
        left,
        [
            (1, "Fridge not cooling on LP"),
            (2, "Scuff on the rear cap")
        ]
    );
}

#[tokio::test]
async fn bad_input_names_the_field_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let desk = Desk::open(dir.path()).await.unwrap();
    let (session_id, before) = three_lines(&desk).await;
    let line2 = before.lines[1].id.clone();
    let good = || RoLineInput {
        line_id: Some(line2.clone()),
        complaint: "Awning won't retract".into(),
        pay_type: "customer".into(),
        labor: vec![labor("Adjust awning arms", "0.5")],
        parts: vec![part("AW-12", "Bushing", "2", "2.15")],
        ..Default::default()
    };
    let cases: Vec<(RoLineInput, &str, &str)> = vec![
        (
            RoLineInput {
                parts: vec![
                    part("AW-12", "Bushing", "2", "2.15"),
                    part("X", "Bolt", "-1", "0.50"),
                ],
                ..good()
            },
            "qty",
            "part line 2: \"-1\" may not be negative",
        ),
        (
            RoLineInput {
                parts: vec![part("AW-12", "Bushing", "2", "12,50")],
                ..good()
            },
            "unit_price",
            "\"12,50\"",
        ),
        (
            RoLineInput {
                parts: vec![part("AW-12", "Bushing", "2", "ten")],
                ..good()
            },
            "unit_price",
            "\"ten\"",
        ),
        (
            RoLineInput {
                pay_type: "cash".into(),
                ..good()
            },
            "pay_type",
            "\"cash\" is not a pay type",
        ),
        (
            RoLineInput {
                pay_type: "warranty".into(),
                ..good()
            },
            "warranty_payer",
            "chassis, coach or component",
        ),
        (
            RoLineInput {
                pay_type: "warranty".into(),
                warranty_payer: Some("component".into()),
                ..good()
            },
            "warranty_maker",
            "maker's name",
        ),
        (
            RoLineInput {
                labor: vec![labor("Adjust", "abc")],
                ..good()
            },
            "hours",
            "labor line 1",
        ),
        (
            RoLineInput {
                labor: vec![labor("  ", "1")],
                ..good()
            },
            "description",
            "labor line 1: is required",
        ),
        (
            RoLineInput {
                parts: vec![part("AW-12", "Bushing", "0", "2.15")],
                ..good()
            },
            "qty",
            "more than 0",
        ),
        (
            RoLineInput {
                engine_complaint: Some("furnace:no_heat".into()),
                ..good()
            },
            "engine_complaint",
            "not one of this visit's diagnoses",
        ),
        (
            RoLineInput {
                complaint: "  ".into(),
                ..good()
            },
            "complaint",
            "required",
        ),
    ];
    for (input, field, says) in cases {
        let e = ro::ro_line_save(
            &desk,
            RoLineSaveRequest {
                session_id: session_id.clone(),
                edited_by: None,
                line: input,
            },
        )
        .await
        .unwrap_err();
        assert_eq!(e.code, "invalid_input", "{field}: {e:?}");
        assert!(
            e.message.starts_with(&format!("{field}: ")),
            "names {field}: {}",
            e.message
        );
        assert!(e.message.contains(says), "{field}: {}", e.message);
    }
    // An unknown pay type over dispatch (the UI's and HTTP's way) too.
    let e = api::dispatch(
        &desk,
        "ro_line_save",
        json!({"session_id": session_id, "line": {"complaint": "x", "pay_type": "barter"}}),
    )
    .await
    .unwrap_err();
    assert!(e.message.starts_with("pay_type: "), "{}", e.message);
    for (patch, field) in [
        (
            RoSettingsPatch {
                rate_customer: Some("-5".into()),
                tax_rate: Some("7".into()),
                ..Default::default()
            },
            "rate_customer",
        ),
        (
            RoSettingsPatch {
                tax_rate: Some("101".into()),
                ..Default::default()
            },
            "tax_rate",
        ),
        (
            RoSettingsPatch {
                tax_rate: Some("8.2.5".into()),
                ..Default::default()
            },
            "tax_rate",
        ),
    ] {
        let e = ro::ro_settings(&desk, patch).await.unwrap_err();
        assert!(
            e.message.starts_with(&format!("{field}: ")),
            "{}",
            e.message
        );
    }
    let after = ro::ro_show(
        &desk,
        SessionRef {
            session_id: session_id.clone(),
        },
    )
    .await
    .unwrap();
    assert_eq!(
        serde_json::to_value(&after).unwrap(),
        serde_json::to_value(&before).unwrap(),
        "nothing half-written: the lines and the settings are as they were"
    );
    // Line 1 cannot go while it is the only line.
    let dir2 = tempfile::tempdir().unwrap();
    let desk2 = Desk::open(dir2.path()).await.unwrap();
    let s = api::session_new(
        &desk2,
        SessionNewRequest {
            complaint: "Slide stuck out".into(),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    let only = ro::ro_show(
        &desk2,
        SessionRef {
            session_id: s.id.clone(),
        },
    )
    .await
    .unwrap();
    let e = ro::ro_line_delete(
        &desk2,
        RoLineDeleteRequest {
            session_id: s.id,
            edited_by: None,
            line_id: only.lines[0].id.clone(),
        },
    )
    .await
    .unwrap_err();
    assert!(e.message.starts_with("line_id: "), "{}", e.message);
}

/// A visit opened before lines existed gets its complaint as line 1 when
/// the database is migrated; a header correction of the complaint carries
/// to line 1 while the line still has the header's words.
#[tokio::test]
async fn existing_visits_get_their_complaint_as_line_one() {
    let dir = tempfile::tempdir().unwrap();
    let old = tempfile::tempdir().unwrap();
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("migrations");
    for entry in std::fs::read_dir(&src).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().to_owned();
        if name.as_str() < "0009" {
            std::fs::copy(&path, old.path().join(&name)).unwrap();
        }
    }
    {
        let options = sqlx::sqlite::SqliteConnectOptions::new()
            .filename(dir.path().join("servicedesk.db"))
            .create_if_missing(true);
        let pool = sqlx::SqlitePool::connect_with(options).await.unwrap();
        sqlx::migrate::Migrator::new(old.path())
            .await
            .unwrap()
            .run(&pool)
            .await
            .unwrap();
        for (id, at, complaint) in [
            (
                "0190a000-0000-7000-8000-000000000001",
                "2026-01-02T10:00:00.000Z",
                "Generator surges",
            ),
            (
                "0190a000-0000-7000-8000-000000000002",
                "2026-01-03T10:00:00.000Z",
                "Пётр: печь не греет",
            ),
        ] {
            sqlx::query(
                "INSERT INTO sessions (id, ro_number, created_at, updated_at, complaint) VALUES (?, ?, ?, ?, ?)",
            )
            .bind(id)
            .bind(format!("RO-{}", &id[id.len() - 6..]))
            .bind(at)
            .bind(at)
            .bind(complaint)
            .execute(&pool)
            .await
            .unwrap();
            sqlx::query(
                "INSERT INTO session_states (session_id, turn_seq, version, state, created_at)
                 VALUES (?, 0, ?, ?, ?)",
            )
            .bind(id)
            .bind(servicedesk::engine::STATE_VERSION)
            .bind(servicedesk::engine::SessionState::new("en").to_json())
            .bind(at)
            .execute(&pool)
            .await
            .unwrap();
        }
        pool.close().await;
    }
    let desk = Desk::open(dir.path()).await.unwrap();
    let order = ro::ro_show(
        &desk,
        SessionRef {
            session_id: "0190a000-0000-7000-8000-000000000002".into(),
        },
    )
    .await
    .unwrap();
    assert_eq!(order.lines.len(), 1);
    assert_eq!(order.lines[0].complaint, "Пётр: печь не греет");
    assert_eq!(order.lines[0].pay_type.as_str(), "customer");
    assert_eq!(order.totals.total.to_string(), "0.00");
    assert_eq!(order.lines[0].id.len(), 36, "a UUID like every other id");

    let s = desk
        .session("0190a000-0000-7000-8000-000000000001")
        .await
        .unwrap();
    let mut header = servicedesk::store::SessionHeader::of(&s);
    header.complaint = "Generator surges under load".into();
    desk.update_session(&s.id, header, Some("Ana"))
        .await
        .unwrap();
    let order = ro::ro_show(&desk, SessionRef { session_id: s.id })
        .await
        .unwrap();
    assert_eq!(order.lines[0].complaint, "Generator surges under load");
}

async fn post(c: &reqwest::Client, base: &str, command: &str, body: Value) -> (u16, Value) {
    let r = c
        .post(format!("{base}/api/{command}"))
        .header("content-type", "application/json")
        .header("x-csrf-token", CSRF)
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    let status = r.status().as_u16();
    (status, r.json().await.unwrap_or(Value::Null))
}

/// The same repair order written over HTTP as the UI writes it, read back
/// by the CLI.
#[tokio::test]
async fn lines_over_http_and_the_cli() {
    let dir = tempfile::tempdir().unwrap();
    let server = common::serve(
        dir.path(),
        &dir.path().join("no-ui"),
        &[],
        &[("SERVICEDESK_CSRF_TOKEN", CSRF)],
    );
    let base = server.base.clone();
    let c = reqwest::Client::new();
    let (status, s) = post(
        &c,
        &base,
        "session_new",
        json!({"complaint": "Water pump cycles"}),
    )
    .await;
    assert_eq!(status, 200, "{s}");
    let id = s["id"].as_str().unwrap().to_owned();
    let (status, settings) = post(
        &c,
        &base,
        "ro_settings",
        json!({"rate_service_contract": "130", "tax_rate": "7.5"}),
    )
    .await;
    assert_eq!(status, 200, "{settings}");
    assert_eq!(settings["labor_rates"]["service_contract"], "130.00");
    assert_eq!(settings["tax_rate"], "7.5");
    let (status, order) = post(
        &c,
        &base,
        "ro_line_save",
        json!({"session_id": id, "line": {
            "complaint": "Water pump cycles",
            "pay_type": "service_contract",
            "labor": [{"description": "Replace check valve", "hours": "1.2"}],
            "parts": [{"part_no": "CV-3", "description": "Check valve", "qty": "1", "unit_price": "18.40"}]
        }}),
    )
    .await;
    assert_eq!(status, 200, "{order}");
    // 1.2 × 130.00 = 156.00; parts 18.40, tax 7.5 % = 1.38; total 175.78.
    assert_eq!(order["lines"][1]["totals"]["total"], "175.78");
    assert_eq!(order["totals"]["tax"], "1.38");
    let (status, err) = post(
        &c,
        &base,
        "ro_line_save",
        json!({"session_id": id, "line": {"complaint": "x", "pay_type": "warranty", "warranty_payer": "dealer"}}),
    )
    .await;
    assert_eq!(status, 400, "{err}");
    assert!(
        err["message"]
            .as_str()
            .unwrap()
            .starts_with("warranty_payer: "),
        "{err}"
    );
    drop(server);

    let shown = common::cli_json(dir.path(), &["ro", "show", &id, "--json"]);
    assert_eq!(shown["totals"]["total"], "175.78");
    let out = common::cli_ok(
        dir.path(),
        &[
            "ro",
            "line",
            &id,
            "--complaint",
            "Step cover torn",
            "--pay-type",
            "warranty",
            "--payer",
            "component",
            "--maker",
            "Lippert",
            "--labor",
            "Replace cover=0.5",
            "--part",
            "LC-7|Step cover|1|32.00",
        ],
    );
    assert!(
        out.contains("3. Step cover torn  [warranty (Lippert)]"),
        "{out}"
    );
    let bad = common::cli(
        dir.path(),
        &[
            "ro",
            "line",
            &id,
            "--complaint",
            "x",
            "--part",
            "A|B|-2|1.00",
        ],
    );
    assert!(!bad.status.success());
    let err = String::from_utf8_lossy(&bad.stderr);
    assert!(err.contains("qty: part line 1"), "{err}");
}

/// A roof fan diagnosed to its blown fuse; the report is not written yet.
async fn diagnosed_fan(desk: &Desk, customer: &str, technician: &str) -> String {
    let s = api::session_new(
        desk,
        SessionNewRequest {
            complaint: "Roof fan does not run".into(),
            customer: Some(customer.into()),
            technician: Some(technician.into()),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    for line in ["the roof fan does not work", "the panel fuse is blown"] {
        desk.chat_turn(&s.id, line, vec![]).await.unwrap();
    }
    s.id
}

/// The diagnosis proposes a line's labor and parts; the report revision
/// carries each line's pay type, warranty party and totals, and the whole
/// repair order beside (the portal contract allows added fields).
#[tokio::test]
async fn the_portal_report_carries_the_lines_pay_types_and_totals() {
    let dir = tempfile::tempdir().unwrap();
    let desk = Desk::open(dir.path()).await.unwrap();
    shop_rates(&desk).await;
    let id = diagnosed_fan(&desk, "Dana Whitfield", "Alex").await;
    let order = ro::ro_show(
        &desk,
        SessionRef {
            session_id: id.clone(),
        },
    )
    .await
    .unwrap();
    let [fan] = order.diagnoses.as_slice() else {
        panic!("one diagnosis: {:?}", order.diagnoses);
    };
    assert!(fan.cause.is_some(), "{fan:?}");
    assert!(!fan.labor.is_empty(), "the finding proposes labor: {fan:?}");
    // The writer takes the proposal, prices it and files it under the
    // coach maker's warranty.
    let mut parts = fan.parts.clone();
    for p in &mut parts {
        p.unit_price = "4.10".into();
    }
    let line1 = order.lines[0].id.clone();
    let saved = ro::ro_line_save(
        &desk,
        RoLineSaveRequest {
            session_id: id.clone(),
            edited_by: None,
            line: RoLineInput {
                line_id: Some(line1),
                complaint: "Roof fan does not run".into(),
                pay_type: "warranty".into(),
                warranty_payer: Some("coach".into()),
                engine_complaint: Some(fan.key.clone()),
                labor: fan.labor.clone(),
                parts,
                ..Default::default()
            },
        },
    )
    .await
    .unwrap();
    let fan_total = saved.lines[0].totals.total.to_string();
    ro::ro_line_save(
        &desk,
        RoLineSaveRequest {
            session_id: id.clone(),
            edited_by: None,
            line: RoLineInput {
                complaint: "Replace torn screen door".into(),
                pay_type: "customer".into(),
                parts: vec![part("SD-1", "Screen door kit", "1", "59.00")],
                ..Default::default()
            },
        },
    )
    .await
    .unwrap();
    desk.chat_turn(&id, "write the report", vec![])
        .await
        .unwrap();
    desk.finalize_report(&id, Default::default()).await.unwrap();
    let payload: String =
        sqlx::query_scalar("SELECT payload FROM outbox WHERE session_id = ? AND kind = 'report'")
            .bind(&id)
            .fetch_one(desk.store().pool())
            .await
            .unwrap();
    let p: Value = serde_json::from_str(&payload).unwrap();
    assert_eq!(p["ro_number"], "RO-000001");
    let line = &p["lines"][0];
    assert_eq!(line["pay_type"], "warranty", "{line}");
    assert_eq!(line["warranty"], json!({"payer": "coach", "maker": null}));
    assert_eq!(line["totals"]["total"], fan_total.as_str());
    // The contract's labor rate is the warranty rate the line is priced at.
    assert_eq!(line["labor"]["rate"], "120.00");
    assert_eq!(p["labor"]["rate"], "120.00");
    assert!(
        line["cause"].as_str().unwrap().len() > 5,
        "the 3C stays: {line}"
    );
    let ro_lines = p["repair_order"]["lines"].as_array().unwrap();
    assert_eq!(ro_lines.len(), 2);
    assert_eq!(ro_lines[1]["pay_type"], "customer");
    assert_eq!(ro_lines[1]["parts"][0]["amount"], "59.00");
    // 59.00 of parts at 8.25 % = 4.8675 → 4.87.
    assert_eq!(ro_lines[1]["totals"]["tax"], "4.87");
    assert_eq!(ro_lines[1]["totals"]["total"], "63.87");
    assert_eq!(p["repair_order"]["tax_rate"], "8.25");
    // The contract's fields are all still there.
    for field in [
        "report_id",
        "revision",
        "complaint",
        "cause",
        "correction",
        "labor",
        "parts",
    ] {
        assert!(!p[field].is_null(), "{field}: {p}");
    }
}

/// The manager's CSV opens in a spreadsheet with the right characters: a
/// UTF-8 byte order mark, then the names and units byte for byte, and the
/// repair order's money columns.
#[tokio::test]
async fn the_csv_has_a_bom_and_money_columns() {
    let dir = tempfile::tempdir().unwrap();
    let id = {
        let desk = Desk::open(dir.path()).await.unwrap();
        shop_rates(&desk).await;
        let id = diagnosed_fan(&desk, "José Núñez", "Пётр").await;
        ro::ro_line_save(
            &desk,
            RoLineSaveRequest {
                session_id: id.clone(),
                edited_by: None,
                line: RoLineInput {
                    complaint: "A/C run capacitor reads 12 µF, rated 45 µF".into(),
                    pay_type: "customer".into(),
                    labor: vec![labor("Replace run capacitor", "0.5")],
                    parts: vec![part("CAP-45", "Run capacitor 45 µF", "1", "18.95")],
                    ..Default::default()
                },
            },
        )
        .await
        .unwrap();
        desk.chat_turn(&id, "write the report", vec![])
            .await
            .unwrap();
        desk.finalize_report(&id, Default::default()).await.unwrap();
        desk.close().await;
        id
    };
    let today = chrono::Local::now().date_naive();
    let (from, to) = (
        (today - chrono::Duration::days(1)).to_string(),
        (today + chrono::Duration::days(1)).to_string(),
    );
    let out = tempfile::tempdir().unwrap();
    let result = common::cli_json(
        dir.path(),
        &[
            "export",
            "reports",
            "--from",
            &from,
            "--to",
            &to,
            "--out",
            out.path().to_str().unwrap(),
            "--json",
        ],
    );
    let bytes =
        std::fs::read(Path::new(result["path"].as_str().unwrap()).join("summary.csv")).unwrap();
    assert_eq!(
        &bytes[..3],
        b"\xEF\xBB\xBF",
        "a UTF-8 byte order mark first"
    );
    let contains = |needle: &[u8]| bytes.windows(needle.len()).any(|w| w == needle);
    assert!(
        contains(b"Jos\xC3\xA9 N\xC3\xBA\xC3\xB1ez"),
        "José Núñez in UTF-8"
    );
    assert!(
        contains(b"\xD0\x9F\xD1\x91\xD1\x82\xD1\x80"),
        "Пётр in UTF-8"
    );
    assert!(contains(b"12 \xC2\xB5F"), "µF in UTF-8");
    let text = String::from_utf8(bytes[3..].to_vec()).expect("valid UTF-8");
    let rows: Vec<Vec<String>> = text
        .split("\r\n")
        .filter(|l| !l.is_empty())
        .map(|l| {
            // No cell here holds a quote; quoted commas are joined back.
            let mut cells: Vec<String> = Vec::new();
            let mut open = false;
            for part in l.split(',') {
                if open {
                    let last = cells.last_mut().unwrap();
                    last.push(',');
                    last.push_str(part);
                } else {
                    cells.push(part.to_owned());
                }
                open ^= part.matches('"').count() % 2 == 1;
            }
            cells
                .into_iter()
                .map(|c| c.trim_matches('"').to_owned())
                .collect()
        })
        .collect();
    assert_eq!(rows.len(), 2, "{text}");
    let col = |name: &str| rows[0].iter().position(|h| h == name).unwrap();
    let row = &rows[1];
    assert_eq!(row[col("session_id")], id);
    assert_eq!(row[col("customer")], "José Núñez");
    assert_eq!(row[col("technician")], "Пётр");
    assert_eq!(row[col("ro_number")], "RO-000001");
    assert_eq!(
        row[col("ro_lines")],
        "1. Roof fan does not run (customer) | 2. A/C run capacitor reads 12 µF, rated 45 µF (customer)"
    );
    // 0.5 h × 145.00 = 72.50; parts 18.95, tax 8.25 % = 1.563375 → 1.56.
    assert_eq!(row[col("labor_amount")], "72.50");
    assert_eq!(row[col("parts_amount")], "18.95");
    assert_eq!(row[col("tax")], "1.56");
    assert_eq!(row[col("total")], "93.01");
}

fn answer(line_id: &str, decision: &str, by: &str, method: &str) -> RoAuthorizeInput {
    RoAuthorizeInput {
        line_id: line_id.into(),
        decision: decision.into(),
        by: by.into(),
        method: method.into(),
        at: None,
    }
}

/// Each line's estimate is approved or declined, with by whom, how and
/// when; an approval only once the line's diagnosis has isolated a cause
/// (a decline at any time); a declined line keeps its estimate but leaves
/// the RO's totals; a changed estimate needs a new answer; the portal
/// payload carries it.
#[tokio::test]
async fn each_lines_estimate_is_approved_or_declined() {
    let dir = tempfile::tempdir().unwrap();
    let desk = Desk::open(dir.path()).await.unwrap();
    let (id, order) = three_lines(&desk).await;
    let ids: Vec<String> = order.lines.iter().map(|l| l.id.clone()).collect();
    assert!(order
        .lines
        .iter()
        .all(|l| l.authorization.status.as_str() == "pending" && !l.isolated));
    let authorize = |input: RoAuthorizeInput| {
        ro::ro_line_authorize(
            &desk,
            RoLineAuthorizeRequest {
                session_id: id.clone(),
                edited_by: None,
                authorization: input,
            },
        )
    };
    // Nothing is diagnosed yet: no approval, and nothing written.
    let e = authorize(answer(&ids[0], "approved", "José Núñez", "phone"))
        .await
        .unwrap_err();
    assert_eq!(e.code, "invalid_input");
    assert!(
        e.message.starts_with(
            "decision: line 1 cannot be approved yet: its diagnosis has not isolated a cause"
        ) && e.message.contains("a decline can be recorded at any time"),
        "{}",
        e.message
    );
    let still = ro::ro_show(
        &desk,
        SessionRef {
            session_id: id.clone(),
        },
    )
    .await
    .unwrap();
    assert_eq!(still.lines[0].authorization.status.as_str(), "pending");

    // The fridge (line 1, the chat's first complaint) and the awning (line
    // 2, linked to its diagnosis) diagnosed in the chat, each isolated.
    for text in [
        "Norcold fridge not cooling on shore power",
        "also the power awning won't extend",
        "element reads open, 12.8v at the board, 120 vac at the heater leads",
        "next",
        "fuse good, 12.7v at the switch, 12.4 V at the motor, motor runs on the battery",
        "arms bind halfway out",
    ] {
        desk.chat_turn(&id, text, vec![]).await.unwrap();
    }
    let diagnosed = ro::ro_show(
        &desk,
        SessionRef {
            session_id: id.clone(),
        },
    )
    .await
    .unwrap();
    let keys: Vec<(&str, bool)> = diagnosed
        .diagnoses
        .iter()
        .map(|d| (d.system.as_str(), d.isolated))
        .collect();
    assert_eq!(
        keys,
        [("refrigerator", true), ("awning", true)],
        "{:#?}",
        diagnosed.diagnoses
    );
    let awning = diagnosed.diagnoses[1].key.clone();
    let l2 = &diagnosed.lines[1];
    let linked = ro::ro_line_save(
        &desk,
        RoLineSaveRequest {
            session_id: id.clone(),
            edited_by: None,
            line: RoLineInput {
                line_id: Some(l2.id.clone()),
                complaint: l2.complaint.clone(),
                pay_type: "customer".into(),
                engine_complaint: Some(awning),
                labor: vec![labor("Adjust awning arms", "0.75")],
                parts: vec![part("AW-12", "Awning arm bushing", "4", "2.15")],
                ..Default::default()
            },
        },
    )
    .await
    .unwrap();
    let isolated: Vec<bool> = linked.lines.iter().map(|l| l.isolated).collect();
    assert_eq!(isolated, [true, true, false], "line 3 has no diagnosis");
    authorize(RoAuthorizeInput {
        at: Some("2026-03-02T09:30:00Z".into()),
        ..answer(
            &ids[0],
            "approved",
            "Grand Design warranty, claim 7781",
            "phone",
        )
    })
    .await
    .unwrap();
    authorize(answer(&ids[1], "approved", "José Núñez", "signature"))
        .await
        .unwrap();
    let after = authorize(answer(&ids[2], "declined", "José Núñez", "in_person"))
        .await
        .unwrap();
    let a = &after.lines[0].authorization;
    assert_eq!(a.status.as_str(), "approved");
    assert_eq!(a.by.as_deref(), Some("Grand Design warranty, claim 7781"));
    assert_eq!(a.method.map(|m| m.as_str()), Some("phone"));
    assert_eq!(
        a.at.map(|t| t.to_string()).as_deref(),
        Some("2026-03-02T09:30:00.000Z")
    );
    assert_eq!(a.total.map(|t| t.to_string()).as_deref(), Some("262.30"));
    assert_eq!(after.lines[2].authorization.status.as_str(), "declined");
    // The declined line keeps its estimate (46.43) but leaves the totals:
    // 426.79 - 46.43 = 380.36.
    assert_eq!(after.lines[2].totals.total.to_string(), "46.43");
    assert_eq!(after.totals.total.to_string(), "380.36");
    assert_eq!(after.totals.tax.to_string(), "3.32");

    // Rewording the complaint keeps the answer; a changed estimate does not.
    let l2 = &after.lines[1];
    let resave = |hours: &str| RoLineSaveRequest {
        session_id: id.clone(),
        edited_by: None,
        line: RoLineInput {
            line_id: Some(l2.id.clone()),
            complaint: "Awning will not retract".into(),
            pay_type: "customer".into(),
            labor: vec![labor("Adjust awning arms", hours)],
            parts: vec![part("AW-12", "Awning arm bushing", "4", "2.15")],
            ..Default::default()
        },
    };
    let o = ro::ro_line_save(&desk, resave("0.75")).await.unwrap();
    assert_eq!(o.lines[1].authorization.status.as_str(), "approved");
    let o = ro::ro_line_save(&desk, resave("1.25")).await.unwrap();
    assert_eq!(o.lines[1].authorization.status.as_str(), "pending");
    assert_eq!(o.lines[1].authorization.by, None);

    // Bad answers name the field and change nothing.
    for (input, field) in [
        (answer(&ids[1], "maybe", "José", "phone"), "decision"),
        (answer(&ids[1], "approved", " ", "phone"), "by"),
        (answer(&ids[1], "approved", "José", "fax"), "method"),
        (
            RoAuthorizeInput {
                at: Some("yesterday".into()),
                ..answer(&ids[1], "approved", "José", "phone")
            },
            "at",
        ),
        (
            answer("no-such-line", "approved", "José", "phone"),
            "line_id",
        ),
    ] {
        let e = authorize(input).await.unwrap_err();
        assert!(
            e.message.starts_with(&format!("{field}: ")),
            "{}",
            e.message
        );
    }
    let now = ro::ro_show(
        &desk,
        SessionRef {
            session_id: id.clone(),
        },
    )
    .await
    .unwrap();
    assert_eq!(now.lines[1].authorization.status.as_str(), "pending");
    // A line with no labor or parts has no estimate to answer.
    let bare = ro::ro_line_save(
        &desk,
        RoLineSaveRequest {
            session_id: id.clone(),
            edited_by: None,
            line: RoLineInput {
                complaint: "Check the tire pressure".into(),
                pay_type: "customer".into(),
                ..Default::default()
            },
        },
    )
    .await
    .unwrap();
    let e = authorize(answer(&bare.lines[3].id, "approved", "José", "phone"))
        .await
        .unwrap_err();
    assert!(e.message.contains("no estimate yet"), "{}", e.message);

    // The portal's copy of the repair order carries each line's answer.
    let payload = desk.ro_payload(&id).await.unwrap();
    let lines = payload.order["lines"].as_array().unwrap();
    assert_eq!(lines[0]["authorization"]["status"], "approved");
    assert_eq!(lines[0]["authorization"]["method"], "phone");
    assert_eq!(lines[2]["authorization"]["status"], "declined");
    assert_eq!(lines[2]["authorization"]["by"], "José Núñez");
}

/// Amounts past what the exact Money type holds are refused when the line
/// is saved, so a later report or export never fails on them.
#[tokio::test]
async fn an_order_too_large_to_price_is_refused_at_save() {
    let dir = tempfile::tempdir().unwrap();
    let desk = Desk::open(dir.path()).await.unwrap();
    let (id, before) = three_lines(&desk).await;
    let huge = (0..11)
        .map(|i| {
            part(
                &format!("X{i}"),
                "Gold-plated coach",
                "99999.99",
                "1000000.00",
            )
        })
        .collect();
    let e = ro::ro_line_save(
        &desk,
        RoLineSaveRequest {
            session_id: id.clone(),
            edited_by: None,
            line: RoLineInput {
                complaint: "Everything".into(),
                pay_type: "customer".into(),
                parts: huge,
                ..Default::default()
            },
        },
    )
    .await
    .unwrap_err();
    assert!(e.message.starts_with("lines: line 4: "), "{}", e.message);
    assert!(e.message.contains("too large"), "{}", e.message);
    let after = ro::ro_show(
        &desk,
        SessionRef {
            session_id: id.clone(),
        },
    )
    .await
    .unwrap();
    assert_eq!(after.lines.len(), before.lines.len(), "nothing written");
    // A chat turn still works on this session.
    desk.chat_turn(&id, "the fridge is not cooling", vec![])
        .await
        .unwrap();
}

/// An audit row: field, old value, new value, who.
type AuditRow = (String, Option<String>, Option<String>, Option<String>);

/// Every change to a line is in the session's audit trail with who made it
/// and the line before and after: added, re-priced (its answer back to
/// pending), answered, deleted. A finalized repair order's lines cannot
/// change until it is reopened, and a refused change writes nothing.
#[tokio::test]
async fn line_changes_are_in_the_audit_trail_and_a_finalized_ro_refuses_them() {
    let dir = tempfile::tempdir().unwrap();
    let desk = Desk::open(dir.path()).await.unwrap();
    shop_rates(&desk).await;
    let call = |command: &'static str, payload: Value| {
        let desk = &desk;
        async move {
            api::dispatch(desk, command, payload)
                .await
                .unwrap_or_else(|e| panic!("{command}: {e:?}"))
        }
    };
    let s = call(
        "session_new",
        json!({"complaint": "roof fan does not run", "language": "en"}),
    )
    .await;
    let id = s["id"].as_str().unwrap().to_owned();
    let edits = |show: &Value| -> Vec<AuditRow> {
        show["edits"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| {
                let text = |k: &str| e[k].as_str().map(str::to_owned);
                (
                    e["field"].as_str().unwrap().to_owned(),
                    text("old_value"),
                    text("new_value"),
                    text("edited_by"),
                )
            })
            .collect()
    };
    let ro = call(
        "ro_line_save",
        json!({"session_id": id, "edited_by": "Marta", "line": {"complaint": "Awning will not retract",
            "pay_type": "customer", "labor": [{"description": "Inspect awning motor", "hours": "1.5"}],
            "parts": [{"part_no": "AW-1", "description": "Awning switch", "qty": "1", "unit_price": "24.95"}]}}),
    )
    .await;
    let line = ro["lines"][1]["id"].as_str().unwrap().to_owned();
    let show = call("session_show", json!({"session_id": id})).await;
    let added = "Awning will not retract; customer; labor 1.50 h in 1 line(s); parts: AW-1 Awning switch x1.00 @ 24.95";
    assert_eq!(
        edits(&show),
        [(
            "line 2".into(),
            None,
            Some(added.into()),
            Some("Marta".into())
        )]
    );

    // Declined (an approval waits for a diagnosis, a decline does not).
    call(
        "ro_line_authorize",
        json!({"session_id": id, "edited_by": "Marta", "authorization": {"line_id": line,
            "decision": "declined", "by": "Jane Doe", "method": "phone", "at": "2026-11-27T15:04:00Z"}}),
    )
    .await;
    // Re-priced: the line changes and its answer goes back to pending, both recorded.
    call(
        "ro_line_save",
        json!({"session_id": id, "edited_by": "Sam", "line": {"line_id": line,
            "complaint": "Awning will not retract", "pay_type": "customer",
            "labor": [{"description": "Inspect awning motor", "hours": "2"}],
            "parts": [{"part_no": "AW-1", "description": "Awning switch", "qty": "1", "unit_price": "24.95"}]}}),
    )
    .await;
    let show = call("session_show", json!({"session_id": id})).await;
    let trail = edits(&show);
    assert_eq!(trail.len(), 4, "{trail:#?}");
    assert_eq!(
        trail[1],
        (
            "line 2 authorization".into(),
            Some("pending".into()),
            Some("declined, by Jane Doe, phone, 2026-11-27T15:04:00.000Z".into()),
            Some("Marta".into())
        )
    );
    assert_eq!(trail[2].0, "line 2");
    assert_eq!(trail[2].1.as_deref(), Some(added));
    assert!(
        trail[2].2.as_deref().unwrap().contains("labor 2.00 h"),
        "{trail:#?}"
    );
    assert_eq!(trail[2].3.as_deref(), Some("Sam"));
    assert_eq!(
        (trail[3].0.as_str(), trail[3].2.as_deref()),
        ("line 2 authorization", Some("pending"))
    );

    // Saving the line as it is records nothing.
    let same = json!({"session_id": id, "line": {"line_id": line,
        "complaint": "Awning will not retract", "pay_type": "customer",
        "labor": [{"description": "Inspect awning motor", "hours": "2"}],
        "parts": [{"part_no": "AW-1", "description": "Awning switch", "qty": "1", "unit_price": "24.95"}]}});
    call("ro_line_save", same.clone()).await;
    let show = call("session_show", json!({"session_id": id})).await;
    assert_eq!(edits(&show).len(), 4);

    // Finalized: no line changes (nothing written), until a reopen.
    for line in ["the roof fan does not work", "the panel fuse is blown"] {
        call("chat_turn", json!({"session_id": id, "text": line})).await;
    }
    call("report_finalize", json!({"session_id": id})).await;
    let before = call("ro_show", json!({"session_id": id})).await;
    for (command, payload) in [
        ("ro_line_save", same.clone()),
        (
            "ro_line_authorize",
            json!({"session_id": id, "authorization": {"line_id": line, "decision": "declined",
                "by": "Jane Doe", "method": "phone"}}),
        ),
        ("ro_line_delete", json!({"session_id": id, "line_id": line})),
    ] {
        let err = api::dispatch(&desk, command, payload).await.unwrap_err();
        assert_eq!(err.code, "invalid_input", "{command}: {err:?}");
        assert!(
            err.message.starts_with("session_id:") && err.message.contains("is finalized"),
            "{command}: {err:?}"
        );
    }
    // The header too.
    let err = api::dispatch(
        &desk,
        "session_update",
        json!({"session_id": id, "complaint": "roof fan does not run", "customer": "Someone Else"}),
    )
    .await
    .unwrap_err();
    assert!(err.message.contains("is finalized"), "{err:?}");
    assert_eq!(call("ro_show", json!({"session_id": id})).await, before);
    let show = call("session_show", json!({"session_id": id})).await;
    assert_eq!(edits(&show).len(), 4);
    assert_eq!(show["session"]["customer"], Value::Null);

    call("report_reopen", json!({"session_id": id, "by": "Marta"})).await;
    call(
        "ro_line_delete",
        json!({"session_id": id, "line_id": line, "edited_by": "Marta"}),
    )
    .await;
    let show = call("session_show", json!({"session_id": id})).await;
    let trail = edits(&show);
    let last = trail.last().unwrap();
    assert_eq!(last.0, "line 2");
    assert!(last
        .1
        .as_deref()
        .unwrap()
        .starts_with("Awning will not retract; customer; labor 2.00 h"));
    assert_eq!(
        (last.2.as_deref(), last.3.as_deref()),
        (None, Some("Marta"))
    );
    assert_eq!(trail[trail.len() - 2].0, "status");
}
