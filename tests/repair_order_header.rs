//! The repair order's header: RO numbers under the shop's prefix, a VIN
//! that must be real (and is decoded offline), contact details checked,
//! every correction recorded with who, when and the old value, and the
//! unit's other visits found by VIN or plate. Through the api functions on
//! a real data dir, and through the CLI.

use crate::common;

use servicedesk::api::{self, SessionNewRequest, SessionRef, SessionUpdateRequest};
use servicedesk::desk::repair_order::RoSettingsPatch;
use servicedesk::desk::Desk;
use servicedesk::store::OdometerUnit;

/// Real-format VINs (check digits computed by the rule): a Ford E-450
/// cutaway (2021) and a Jayco travel trailer (2019).
const FORD_VIN: &str = "1FDXE4FN1MDC12345";
const JAYCO_VIN: &str = "1UJBJ0BN9K1234567";

fn new_request(complaint: &str) -> SessionNewRequest {
    SessionNewRequest {
        complaint: complaint.into(),
        ..Default::default()
    }
}

fn update_of(s: &servicedesk::store::Session, by: &str) -> SessionUpdateRequest {
    SessionUpdateRequest {
        session_id: s.id.clone(),
        edited_by: Some(by.into()),
        complaint: s.complaint.clone(),
        customer: s.customer.clone(),
        customer_phone: s.customer_phone.clone(),
        customer_email: s.customer_email.clone(),
        technician: s.technician.clone(),
        vin: s.unit.vin.clone(),
        plate: s.unit.plate.clone(),
        make_model: s.unit.make_model.clone(),
        model_year: s.unit.model_year,
        odometer: s.unit.odometer,
        odometer_unit: s.unit.odometer_unit,
        engine_hours: s.unit.engine_hours,
    }
}

#[tokio::test]
async fn ro_numbers_run_in_sequence_under_the_shops_prefix() {
    let dir = tempfile::tempdir().unwrap();
    let desk = Desk::open(dir.path()).await.unwrap();
    let a = api::session_new(&desk, new_request("awning won't extend"))
        .await
        .unwrap();
    let b = api::session_new(&desk, new_request("water pump cycles"))
        .await
        .unwrap();
    assert_eq!(a.ro_number, "RO-000001");
    assert_eq!(b.ro_number, "RO-000002");
    let set = api::repair_order::ro_settings(
        &desk,
        RoSettingsPatch {
            ro_prefix: Some(" SVC- ".into()),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    assert_eq!(set.ro_prefix, "SVC-", "trimmed");
    let c = api::session_new(&desk, new_request("slide stuck out"))
        .await
        .unwrap();
    assert_eq!(c.ro_number, "SVC-000001");
    // Deleting the newest does not make its number reissued for another unit
    // while an older RO with the prefix stands; the next is past the highest.
    let d = api::session_new(&desk, new_request("furnace no heat"))
        .await
        .unwrap();
    assert_eq!(d.ro_number, "SVC-000002");
    // Back to the old prefix: its numbers go on past the highest issued.
    api::repair_order::ro_settings(
        &desk,
        RoSettingsPatch {
            ro_prefix: Some("RO-".into()),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    let e = api::session_new(&desk, new_request("step won't retract"))
        .await
        .unwrap();
    assert_eq!(e.ro_number, "RO-000003");
}

#[tokio::test]
async fn a_bad_ro_prefix_is_refused_naming_what_is_wrong_and_nothing_changes() {
    let dir = tempfile::tempdir().unwrap();
    let desk = Desk::open(dir.path()).await.unwrap();
    let before = api::repair_order::ro_settings(&desk, RoSettingsPatch::default())
        .await
        .unwrap();
    assert_eq!(before.ro_prefix, "RO-");
    for (prefix, says) in [
        ("   ", "may not be empty"),
        ("SERVICE-ORDER-", "has 14 characters; at most 12"),
        ("RO 1-", "has a space at character 3"),
        ("RO|", "has '|' at character 3"),
        (
            "RO1",
            "ends in a digit, which would run into the number (RO1000001)",
        ),
    ] {
        // The tax rate beside it is valid: a refused prefix stores neither.
        let e = api::repair_order::ro_settings(
            &desk,
            RoSettingsPatch {
                ro_prefix: Some(prefix.into()),
                tax_rate: Some("9.5".into()),
                ..Default::default()
            },
        )
        .await
        .unwrap_err();
        assert_eq!(e.code, "invalid_input", "{prefix:?}");
        assert!(e.message.starts_with("ro_prefix: "), "{}", e.message);
        assert!(e.message.contains(says), "{prefix:?}: {}", e.message);
    }
    let after = api::repair_order::ro_settings(&desk, RoSettingsPatch::default())
        .await
        .unwrap();
    assert_eq!(after, before, "nothing stored");
    let s = api::session_new(&desk, new_request("awning won't extend"))
        .await
        .unwrap();
    assert_eq!(s.ro_number, "RO-000001");

    // Letters of any alphabet are fine: a Russian shop's "ЗН-".
    let ru = api::repair_order::ro_settings(
        &desk,
        RoSettingsPatch {
            ro_prefix: Some("ЗН-".into()),
            ..Default::default()
        },
    )
    .await
    .unwrap();
    assert_eq!(ru.ro_prefix, "ЗН-");
    for n in ["ЗН-000001", "ЗН-000002"] {
        let s = api::session_new(&desk, new_request("печка не греет"))
            .await
            .unwrap();
        assert_eq!(s.ro_number, n);
    }
}

#[test]
fn the_cli_sets_the_ro_prefix_and_refuses_a_bad_one() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let out = common::cli(d, &["ro", "settings", "--prefix", "WO 7"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("error: invalid_input: ro_prefix: \"WO 7\" has a space at character 3"),
        "{err}"
    );
    let shown = common::cli_ok(d, &["ro", "settings", "--prefix", "WO-"]);
    assert!(shown.contains("RO number prefix: WO-"), "{shown}");
    let json = common::cli_json(d, &["ro", "settings", "--json"]);
    assert_eq!(json["ro_prefix"], "WO-");
    assert_eq!(json["tax_rate"], "0", "the money settings sit beside it");
    let s = common::cli_json(d, &["session", "new", "--complaint", "x", "--json"]);
    assert_eq!(s["ro_number"], "WO-000001");
}

#[tokio::test]
async fn a_vin_must_be_real_and_is_decoded() {
    let dir = tempfile::tempdir().unwrap();
    let desk = Desk::open(dir.path()).await.unwrap();
    for (vin, says) in [
        ("123", "has 3 characters; a VIN has 17"),
        ("1FDXE4FN1MDC1234O", "VINs never use I, O or Q"),
        ("1FDXE4FN2MDC12345", "fails its check digit"),
    ] {
        let e = api::session_new(
            &desk,
            SessionNewRequest {
                vin: Some(vin.into()),
                ..new_request("no 12 V in the coach")
            },
        )
        .await
        .unwrap_err();
        assert_eq!(e.code, "invalid_input", "{vin}");
        assert!(e.message.contains("vin"), "names the field: {}", e.message);
        assert!(e.message.contains(says), "{vin}: {}", e.message);
    }
    let listed = api::session_list(&desk, Default::default()).await.unwrap();
    assert!(listed.sessions.is_empty(), "nothing half-written");

    let s = api::session_new(
        &desk,
        SessionNewRequest {
            vin: Some(" 1fdxe4fn1-mdc12345 ".into()),
            ..new_request("no 12 V in the coach")
        },
    )
    .await
    .unwrap();
    assert_eq!(s.unit.vin.as_deref(), Some(FORD_VIN));
    assert_eq!(s.unit.manufacturer.as_deref(), Some("Ford"));
    assert_eq!(
        s.unit.model_year,
        Some(2021),
        "the year position 10 encodes"
    );

    // A year the writer gives is kept over the decoded one.
    let t = api::session_new(
        &desk,
        SessionNewRequest {
            vin: Some(JAYCO_VIN.into()),
            model_year: Some(2020),
            ..new_request("fridge not cooling")
        },
    )
    .await
    .unwrap();
    assert_eq!(t.unit.manufacturer.as_deref(), Some("Jayco"));
    assert_eq!(t.unit.model_year, Some(2020));
}

#[tokio::test]
async fn contact_details_and_year_are_checked() {
    let dir = tempfile::tempdir().unwrap();
    let desk = Desk::open(dir.path()).await.unwrap();
    let cases = [
        (
            SessionNewRequest {
                customer_phone: Some("call me".into()),
                ..new_request("x")
            },
            "customer_phone",
        ),
        (
            SessionNewRequest {
                customer_email: Some("jose@".into()),
                ..new_request("x")
            },
            "customer_email",
        ),
        (
            SessionNewRequest {
                model_year: Some(1899),
                ..new_request("x")
            },
            "model_year",
        ),
    ];
    for (req, field) in cases {
        let e = api::session_new(&desk, req).await.unwrap_err();
        assert!(e.message.starts_with(field), "{field}: {}", e.message);
    }
    let s = api::session_new(
        &desk,
        SessionNewRequest {
            customer: Some("José Núñez".into()),
            customer_phone: Some("+1 (555) 010-2233 x12".into()),
            customer_email: Some("jose.nunez@example.com".into()),
            odometer: Some(41_200),
            odometer_unit: Some(OdometerUnit::Km),
            ..new_request("generator surges")
        },
    )
    .await
    .unwrap();
    let back = api::session_show(&desk, SessionRef { session_id: s.id })
        .await
        .unwrap()
        .session;
    assert_eq!(back.customer.as_deref(), Some("José Núñez"));
    assert_eq!(
        back.customer_phone.as_deref(),
        Some("+1 (555) 010-2233 x12")
    );
    assert_eq!(back.unit.odometer_unit, Some(OdometerUnit::Km));
}

/// An audit row as (field, old value, new value, by whom).
type EditRow<'a> = (&'a str, Option<&'a str>, Option<&'a str>, Option<&'a str>);

#[tokio::test]
async fn every_correction_is_recorded_with_who_when_and_the_old_value() {
    let dir = tempfile::tempdir().unwrap();
    let desk = Desk::open(dir.path()).await.unwrap();
    let s = api::session_new(
        &desk,
        SessionNewRequest {
            customer: Some("Пётр".into()),
            customer_phone: Some("555 010 2233".into()),
            plate: Some("7abc123".into()),
            ..new_request("roof AC blows warm")
        },
    )
    .await
    .unwrap();

    // Nothing changed: nothing recorded.
    api::session_update(&desk, update_of(&s, "Marta"))
        .await
        .unwrap();
    let d = api::session_show(
        &desk,
        SessionRef {
            session_id: s.id.clone(),
        },
    )
    .await
    .unwrap();
    assert!(d.edits.is_empty(), "{:?}", d.edits);

    let mut fix = update_of(&s, "Marta");
    fix.customer = Some("Пётр Иванов".into());
    fix.vin = Some(FORD_VIN.to_lowercase());
    fix.customer_phone = Some("  ".into());
    let after = api::session_update(&desk, fix).await.unwrap();
    assert_eq!(after.customer.as_deref(), Some("Пётр Иванов"));
    assert_eq!(after.unit.vin.as_deref(), Some(FORD_VIN));
    assert_eq!(after.customer_phone, None, "a blank field clears it");

    // A bad correction is refused whole: the good field in it is not kept.
    let mut bad = update_of(&after, "Marta");
    bad.customer = Some("Pyotr".into());
    bad.vin = Some("1FDXE4FN1MDC1234".into());
    let e = api::session_update(&desk, bad).await.unwrap_err();
    assert!(e.message.starts_with("vin"), "{}", e.message);

    let d = api::session_show(
        &desk,
        SessionRef {
            session_id: s.id.clone(),
        },
    )
    .await
    .unwrap();
    assert_eq!(d.session.customer.as_deref(), Some("Пётр Иванов"));
    let edits: Vec<EditRow> = d
        .edits
        .iter()
        .map(|e| {
            (
                e.field.as_str(),
                e.old_value.as_deref(),
                e.new_value.as_deref(),
                e.edited_by.as_deref(),
            )
        })
        .collect();
    assert_eq!(
        edits,
        vec![
            ("customer", Some("Пётр"), Some("Пётр Иванов"), Some("Marta")),
            ("customer_phone", Some("555 010 2233"), None, Some("Marta")),
            ("vin", None, Some(FORD_VIN), Some("Marta")),
            // The year the new VIN encodes fills the empty one.
            ("model_year", None, Some("2021"), Some("Marta")),
        ]
    );
    assert!(d
        .edits
        .iter()
        .all(|e| e.edited_at.to_string().ends_with('Z')));
}

#[tokio::test]
async fn a_unit_lists_its_other_visits_by_vin_or_plate() {
    let dir = tempfile::tempdir().unwrap();
    let desk = Desk::open(dir.path()).await.unwrap();
    let visit = |complaint: &str, vin: Option<&str>, plate: Option<&str>| SessionNewRequest {
        vin: vin.map(str::to_owned),
        plate: plate.map(str::to_owned),
        ..new_request(complaint)
    };
    let first = api::session_new(&desk, visit("awning motor dead", Some(FORD_VIN), None))
        .await
        .unwrap();
    let second = api::session_new(&desk, visit("fridge no LP", None, Some("7ABC123")))
        .await
        .unwrap();
    let other_unit = api::session_new(
        &desk,
        visit("slide stuck", Some(JAYCO_VIN), Some("9ZZZ999")),
    )
    .await
    .unwrap();
    let third = api::session_new(
        &desk,
        visit("furnace no heat", Some(FORD_VIN), Some("7abc123")),
    )
    .await
    .unwrap();
    let history = |id: &str| {
        let desk = desk.clone();
        let id = id.to_owned();
        async move {
            api::session_show(&desk, SessionRef { session_id: id })
                .await
                .unwrap()
                .earlier_visits
                .into_iter()
                .map(|s| s.ro_number)
                .collect::<Vec<_>>()
        }
    };
    assert_eq!(
        history(&third.id).await,
        vec![second.ro_number.clone(), first.ro_number.clone()],
        "newest first, by VIN and by plate"
    );
    assert_eq!(history(&first.id).await, vec![third.ro_number.clone()]);
    assert!(history(&other_unit.id).await.is_empty());
}

#[test]
fn the_cli_opens_edits_and_shows_a_repair_order() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let out = common::cli(d, &["session", "new", "--complaint", "x", "--vin", "123"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("vin") && err.contains("has 3 characters"),
        "{err}"
    );

    let s = common::cli_json(
        d,
        &[
            "session",
            "new",
            "--complaint",
            "no hot water",
            "--vin",
            FORD_VIN,
            "--customer",
            "José Núñez",
            "--odometer",
            "41200",
            "--odometer-unit",
            "mi",
            "--json",
        ],
    );
    let id = s["id"].as_str().unwrap();
    assert_eq!(s["ro_number"], "RO-000001");
    assert_eq!(s["unit"]["manufacturer"], "Ford");
    common::cli_ok(
        d,
        &[
            "session",
            "edit",
            id,
            "--by",
            "Marta",
            "--phone",
            "555-010-9999",
        ],
    );
    let shown = common::cli_ok(d, &["session", "show", id]);
    assert!(shown.contains("RO          RO-000001"), "{shown}");
    assert!(shown.contains("maker       Ford"), "{shown}");
    assert!(shown.contains("odometer    41200 mi"), "{shown}");
    assert!(
        shown.contains("Marta  customer_phone: (none) -> 555-010-9999"),
        "{shown}"
    );
}
