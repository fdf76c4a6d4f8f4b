//! The billing calculator against the pinned contract (docs/spec/billing.md):
//! every worked example to the cent, the time boundaries of the seed's
//! coverage matrix, caps, Feb 29, DST in a site time zone, grace, the JSON
//! shape front ends print, and bad input refused with clear messages.

use serde_json::json;
use servicedesk::billing::{
    parse_site_time, parse_time_zone, simulate, simulate_text, Breakdown, Payload,
};

const DAY_NIGHT: &str = r#"{"free_minutes": 0, "segments": [
    {"name": "day", "window": "08:00-20:00", "type": "periodic",
     "unit_minutes": 30, "unit_price": "2.00", "cap": "20.00"},
    {"name": "night", "window": "20:00-08:00", "type": "free"}]}"#;

const TIERED_DAY_NIGHT: &str = r#"{"segments": [
    {"name": "day", "window": "08:00-20:00", "type": "tiered", "unit_minutes": 30,
     "tiers": [{"up_to_minutes": 120, "unit_price": "2.00"},
               {"up_to_minutes": null, "unit_price": "3.00"}],
     "cap": "30.00"},
    {"name": "night", "window": "20:00-08:00", "type": "free"}]}"#;

fn payload(json: &str) -> Payload {
    Payload::from_json(json).expect("test payload parses")
}

fn sim(p: &str, entry: &str, exit: &str) -> Breakdown {
    simulate_text(&payload(p), None, entry, exit)
        .unwrap_or_else(|e| panic!("{entry} → {exit}: {e}"))
}

fn sim_tz(p: &str, tz: &str, entry: &str, exit: &str) -> Breakdown {
    simulate_text(&payload(p), Some(tz), entry, exit)
        .unwrap_or_else(|e| panic!("{entry} → {exit} in {tz}: {e}"))
}

fn total(p: &str, entry: &str, exit: &str) -> String {
    sim(p, entry, exit).total.to_string()
}

/// `segment occurrence minutes units amount` per piece.
fn pieces(b: &Breakdown) -> Vec<String> {
    b.pieces
        .iter()
        .map(|p| {
            format!(
                "{} {} {} {} {}",
                p.segment, p.occurrence, p.minutes, p.units, p.amount
            )
        })
        .collect()
}

fn err(p: &str, entry: &str, exit: &str) -> String {
    simulate_text(&payload(p), None, entry, exit)
        .expect_err("should be refused")
        .to_string()
}

#[test]
fn spec_worked_examples_to_the_cent() {
    for (entry, exit, want) in [
        ("2026-03-02T08:00", "2026-03-02T09:00", "4.00"),
        ("2026-03-02T08:00", "2026-03-02T09:05", "6.00"),
        ("2026-03-02T08:00", "2026-03-02T20:01", "20.00"),
        ("2026-03-02T19:59", "2026-03-02T20:01", "2.00"),
        ("2026-03-02T20:00", "2026-03-03T08:00", "0.00"),
        ("2026-03-02T10:00", "2026-03-05T09:10", "66.00"),
    ] {
        assert_eq!(total(DAY_NIGHT, entry, exit), want, "{entry} → {exit}");
    }
    // "10:00 on day 1 to 09:10 on day 4 → 20 + 20 + 20 + 6".
    let b = sim(DAY_NIGHT, "2026-03-02T10:00", "2026-03-05T09:10");
    let day_amounts: Vec<String> = b
        .pieces
        .iter()
        .filter(|p| p.segment == "day")
        .map(|p| p.amount.to_string())
        .collect();
    assert_eq!(day_amounts, ["20.00", "20.00", "20.00", "6.00"]);
    let capped: Vec<bool> = b
        .pieces
        .iter()
        .filter(|p| p.segment == "day")
        .map(|p| p.cap_applied)
        .collect();
    assert_eq!(capped, [true, true, true, false]);
}

#[test]
fn spec_tiered_examples() {
    let b = sim(TIERED_DAY_NIGHT, "2026-03-02T08:00", "2026-03-02T10:01");
    assert_eq!(b.total.to_string(), "11.00");
    // Four units at 2.00; the fifth starts at offset 120 and costs 3.00.
    let lines: Vec<(i64, i64, String)> = b.pieces[0]
        .lines
        .iter()
        .map(|l| (l.from_minute, l.units, l.unit_price.to_string()))
        .collect();
    assert_eq!(lines, [(0, 4, "2.00".into()), (120, 1, "3.00".into())]);

    let b = sim(TIERED_DAY_NIGHT, "2026-03-02T18:00", "2026-03-03T08:29");
    assert_eq!(b.total.to_string(), "10.00");
    assert_eq!(
        pieces(&b),
        [
            "day 2026-03-02 120 4 8.00",
            "night 2026-03-02 720 0 0.00",
            "day 2026-03-03 29 1 2.00",
        ]
    );
    // Tiers restart in every occurrence: two days of 2h30 each cost 11.00 each.
    assert_eq!(
        total(TIERED_DAY_NIGHT, "2026-03-02T17:30", "2026-03-03T10:30"),
        "22.00"
    );
    // The cap holds a long tiered day at 30.00: 24 units = 8 + 20 × 3 = 68.00 uncapped.
    let b = sim(TIERED_DAY_NIGHT, "2026-03-02T08:00", "2026-03-02T20:00");
    assert_eq!(b.pieces[0].uncapped_amount.to_string(), "68.00");
    assert_eq!(b.total.to_string(), "30.00");
}

#[test]
fn time_boundaries_of_the_day_window() {
    for (entry, exit, want, shape) in [
        ("07:59", "08:00", "0.00", vec!["night 2026-03-01 1 0 0.00"]),
        (
            "07:59",
            "08:01",
            "2.00",
            vec!["night 2026-03-01 1 0 0.00", "day 2026-03-02 1 1 2.00"],
        ),
        ("08:00", "08:01", "2.00", vec!["day 2026-03-02 1 1 2.00"]),
        ("08:00", "08:30", "2.00", vec!["day 2026-03-02 30 1 2.00"]),
        ("08:00", "08:31", "4.00", vec!["day 2026-03-02 31 2 4.00"]),
        ("19:59", "20:00", "2.00", vec!["day 2026-03-02 1 1 2.00"]),
        (
            "19:59",
            "20:01",
            "2.00",
            vec!["day 2026-03-02 1 1 2.00", "night 2026-03-02 1 0 0.00"],
        ),
        ("20:00", "20:01", "0.00", vec!["night 2026-03-02 1 0 0.00"]),
        (
            "20:01",
            "23:59",
            "0.00",
            vec!["night 2026-03-02 238 0 0.00"],
        ),
    ] {
        let b = sim(
            DAY_NIGHT,
            &format!("2026-03-02T{entry}"),
            &format!("2026-03-02T{exit}"),
        );
        assert_eq!(b.total.to_string(), want, "{entry} → {exit}");
        assert_eq!(pieces(&b), shape, "{entry} → {exit}");
    }
}

#[test]
fn across_midnight_2359_to_0001() {
    // A window crossing midnight is one occurrence: the piece belongs to the day it starts.
    let b = sim(DAY_NIGHT, "2026-03-02T23:59", "2026-03-03T00:01");
    assert_eq!(pieces(&b), ["night 2026-03-02 2 0 0.00"]);
    let night_priced = r#"{"segments": [
        {"name": "night", "window": "20:00-08:00", "type": "periodic",
         "unit_minutes": 60, "unit_price": "1.00", "cap": "5.00"}]}"#;
    let b = sim(night_priced, "2026-03-02T23:59", "2026-03-03T00:01");
    assert_eq!(pieces(&b), ["night 2026-03-02 2 1 1.00"]);
    // A whole-day window has an occurrence per calendar day: two pieces, one unit each.
    let all_day = r#"{"segments": [
        {"name": "all", "window": "00:00-24:00", "type": "periodic",
         "unit_minutes": 30, "unit_price": "2.00"}]}"#;
    let b = sim(all_day, "2026-03-02T23:59", "2026-03-03T00:01");
    assert_eq!(
        pieces(&b),
        ["all 2026-03-02 1 1 2.00", "all 2026-03-03 1 1 2.00"]
    );
    assert_eq!(b.total.to_string(), "4.00");
    // Night caps reset per night, not per calendar day: 20:00 to 08:00 twice.
    let b = sim(night_priced, "2026-03-02T20:00", "2026-03-04T08:00");
    assert_eq!(
        pieces(&b),
        [
            "night 2026-03-02 720 12 5.00",
            "night 2026-03-03 720 12 5.00"
        ]
    );
}

#[test]
fn cap_met_exactly_and_exceeded_by_one_unit() {
    // 10 units × 2.00 = 20.00: exactly the cap, which does not lower it.
    let b = sim(DAY_NIGHT, "2026-03-02T08:00", "2026-03-02T13:00");
    let p = &b.pieces[0];
    assert_eq!((p.units, p.amount.to_string()), (10, "20.00".to_owned()));
    assert!(!p.cap_applied);
    assert_eq!(p.uncapped_amount, p.amount);
    // One more minute starts the 11th unit: 22.00 capped to 20.00.
    let b = sim(DAY_NIGHT, "2026-03-02T08:00", "2026-03-02T13:01");
    let p = &b.pieces[0];
    assert_eq!(p.units, 11);
    assert_eq!(p.uncapped_amount.to_string(), "22.00");
    assert_eq!(p.amount.to_string(), "20.00");
    assert!(p.cap_applied);
    // Just under: 9 units.
    assert_eq!(
        total(DAY_NIGHT, "2026-03-02T08:00", "2026-03-02T12:30"),
        "18.00"
    );
}

#[test]
fn feb_29_is_a_day_of_its_own() {
    let b = sim(DAY_NIGHT, "2028-02-28T10:00", "2028-03-01T09:10");
    assert_eq!(b.total.to_string(), "46.00");
    let days: Vec<String> = b
        .pieces
        .iter()
        .filter(|p| p.segment == "day")
        .map(|p| p.occurrence.to_string())
        .collect();
    assert_eq!(days, ["2028-02-28", "2028-02-29", "2028-03-01"]);
    assert_eq!(b.stay_minutes, 2 * 1440 - 50);

    let hourly = r#"{"segments": [{"name": "all", "window": "00:00-24:00",
        "type": "periodic", "unit_minutes": 60, "unit_price": "1.00"}]}"#;
    assert_eq!(
        total(hourly, "2028-02-28T00:00", "2028-03-01T00:00"),
        "48.00"
    );
    assert_eq!(
        total(hourly, "2027-02-28T00:00", "2027-03-01T00:00"),
        "24.00"
    );
    let e = err(hourly, "2027-02-29T00:00", "2027-03-01T00:00");
    assert!(e.contains("2027-02-29T00:00"), "{e}");
}

const LA: &str = "America/Los_Angeles";
const HOURLY: &str = r#"{"segments": [{"name": "all", "window": "00:00-24:00",
    "type": "periodic", "unit_minutes": 60, "unit_price": "1.00"}]}"#;

#[test]
fn dst_spring_forward_counts_real_minutes_on_the_wall_clock() {
    // 2026-03-08 02:00 PST → 03:00 PDT in Los Angeles.
    let b = sim_tz(HOURLY, LA, "2026-03-08T01:00", "2026-03-08T04:00");
    assert_eq!(b.stay_minutes, 120, "three wall hours, two real ones");
    assert_eq!(pieces(&b), ["all 2026-03-08 120 2 2.00"]);
    // The whole spring-forward day has 23 hours.
    let b = sim_tz(HOURLY, LA, "2026-03-08T00:00", "2026-03-09T00:00");
    assert_eq!(pieces(&b), ["all 2026-03-08 1380 23 23.00"]);
    // The night window follows the wall clock: 20:00 → 08:00 is 11 real hours.
    let b = sim_tz(DAY_NIGHT, LA, "2026-03-07T20:00", "2026-03-08T09:00");
    assert_eq!(
        pieces(&b),
        ["night 2026-03-07 660 0 0.00", "day 2026-03-08 60 2 4.00"]
    );
    // A window around the skipped hour only has the minutes that exist.
    let around = r#"{"segments": [{"name": "early", "window": "01:00-03:00",
        "type": "periodic", "unit_minutes": 30, "unit_price": "1.00"}]}"#;
    let b = sim_tz(around, LA, "2026-03-08T00:00", "2026-03-08T04:00");
    assert_eq!(pieces(&b), ["early 2026-03-08 60 2 2.00"]);
    assert_eq!(b.pieces[0].start.to_string(), "2026-03-08 01:00:00");
    assert_eq!(b.pieces[0].end.to_string(), "2026-03-08 03:00:00");
    // The skipped wall time itself cannot be an entry.
    let e = simulate_text(
        &payload(HOURLY),
        Some(LA),
        "2026-03-08T02:30",
        "2026-03-08T05:00",
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("does not exist in America/Los_Angeles"), "{e}");
}

#[test]
fn dst_fall_back_counts_the_repeated_hour_once_per_real_minute() {
    // 2026-11-01 02:00 PDT → 01:00 PST: the day has 25 hours.
    let b = sim_tz(HOURLY, LA, "2026-11-01T00:00", "2026-11-02T00:00");
    assert_eq!(b.stay_minutes, 1500);
    assert_eq!(pieces(&b), ["all 2026-11-01 1500 25 25.00"]);
    // The night window 20:00 → 08:00 across the change lasts 13 real hours.
    let nightly = r#"{"segments": [{"name": "night", "window": "20:00-08:00",
        "type": "periodic", "unit_minutes": 60, "unit_price": "1.00"}]}"#;
    let b = sim_tz(nightly, LA, "2026-10-31T20:00", "2026-11-01T08:00");
    assert_eq!(pieces(&b), ["night 2026-10-31 780 13 13.00"]);
    // The window 01:00-02:00 is on the wall clock twice: one piece of 120 minutes.
    let repeated = r#"{"segments": [{"name": "one", "window": "01:00-02:00",
        "type": "periodic", "unit_minutes": 30, "unit_price": "1.00"}]}"#;
    let b = sim_tz(repeated, LA, "2026-11-01T00:00", "2026-11-01T03:00");
    assert_eq!(b.stay_minutes, 240);
    assert_eq!(pieces(&b), ["one 2026-11-01 120 4 4.00"]);
    // An offset picks the second 01:30 (PST): 90 real minutes to 03:00.
    let b = sim_tz(HOURLY, LA, "2026-11-01T01:30:00-08:00", "2026-11-01T03:00");
    assert_eq!(b.stay_minutes, 90);
    assert_eq!(b.total.to_string(), "2.00");
    // Without an offset a repeated wall time is the first (PDT): 150 minutes.
    let b = sim_tz(HOURLY, LA, "2026-11-01T01:30", "2026-11-01T03:00");
    assert_eq!(b.stay_minutes, 150);
}

#[test]
fn rfc3339_times_are_converted_to_site_time() {
    // 00:00Z is 08:00 in Shanghai (UTC+8).
    let b = sim_tz(
        DAY_NIGHT,
        "Asia/Shanghai",
        "2026-03-02T00:00:00Z",
        "2026-03-02T09:05:00+08:00",
    );
    assert_eq!(b.entry.to_string(), "2026-03-02 08:00:00");
    assert_eq!(b.total.to_string(), "6.00");
    assert_eq!(b.time_zone.name(), "Asia/Shanghai");
}

#[test]
fn grace_is_all_or_nothing() {
    let graced = r#"{"free_minutes": 30, "segments": [
        {"name": "day", "window": "08:00-20:00", "type": "periodic",
         "unit_minutes": 30, "unit_price": "2.00", "cap": "20.00"},
        {"name": "night", "window": "20:00-08:00", "type": "free"}]}"#;
    let b = sim(graced, "2026-03-02T08:00", "2026-03-02T08:30");
    assert_eq!(b.total.to_string(), "0.00");
    assert!(b.grace_applied);
    assert_eq!(pieces(&b), ["day 2026-03-02 30 0 0.00"]);
    // One minute more: charged in full from entry, as if there were no grace.
    let b = sim(graced, "2026-03-02T08:00", "2026-03-02T08:31");
    assert!(!b.grace_applied);
    assert_eq!(pieces(&b), ["day 2026-03-02 31 2 4.00"]);
    // The grace counts the whole stay, across windows and midnight.
    assert_eq!(
        total(graced, "2026-03-02T19:45", "2026-03-02T20:15"),
        "0.00"
    );
    assert_eq!(
        total(graced, "2026-03-02T19:45", "2026-03-02T20:16"),
        "2.00"
    );
    // A stay of zero minutes costs nothing and has no pieces.
    let b = sim(DAY_NIGHT, "2026-03-02T09:00", "2026-03-02T09:00");
    assert_eq!(b.total.to_string(), "0.00");
    assert!(b.pieces.is_empty());
}

#[test]
fn uncovered_time_is_not_charged() {
    let peaks = r#"{"segments": [
        {"name": "morning", "window": "07:00-09:00", "type": "periodic",
         "unit_minutes": 15, "unit_price": "0.75"},
        {"name": "evening", "window": "17:00-19:00", "type": "periodic",
         "unit_minutes": 15, "unit_price": "0.75"}]}"#;
    let b = sim(peaks, "2026-03-02T08:50", "2026-03-02T17:20");
    assert_eq!(
        pieces(&b),
        [
            "morning 2026-03-02 10 1 0.75",
            "evening 2026-03-02 20 2 1.50"
        ]
    );
    assert_eq!(b.total.to_string(), "2.25");
    assert_eq!(total(peaks, "2026-03-02T09:00", "2026-03-02T17:00"), "0.00");
}

#[test]
fn breakdown_json_has_the_cli_shape() {
    let b = sim(DAY_NIGHT, "2026-03-02T08:00", "2026-03-02T09:05");
    let v = serde_json::to_value(&b).unwrap();
    assert_eq!(v["total_amount"], json!("6.00"));
    let p = &v["pieces"][0];
    assert_eq!(p["segment"], json!("day"));
    assert_eq!(p["occurrence"], json!("2026-03-02"));
    assert_eq!(p["minutes"], json!(65));
    assert_eq!(p["units"], json!(3));
    assert_eq!(p["amount"], json!("6.00"));
    assert_eq!(p["cap"], json!("20.00"));
    assert_eq!(p["cap_applied"], json!(false));
    assert_eq!(p["start"], json!("2026-03-02T08:00"));
    assert_eq!(p["end"], json!("2026-03-02T09:05"));
    assert_eq!(p["window"], json!("08:00-20:00"));
    assert_eq!(p["type"], json!("periodic"));
    assert_eq!(v["entry"], json!("2026-03-02T08:00"));
    assert_eq!(v["time_zone"], json!("UTC"));
    // No floating point anywhere: every amount is a string.
    let text = v.to_string();
    assert!(!text.contains("6.0,") && !text.contains(":6."), "{text}");
}

#[test]
fn payload_round_trips_and_naive_times_work() {
    let p = payload(TIERED_DAY_NIGHT);
    let again: Payload = serde_json::from_str(&serde_json::to_string(&p).unwrap()).unwrap();
    assert_eq!(p, again);
    let tz = parse_time_zone("UTC").unwrap();
    let entry = parse_site_time("2026-03-02T08:00", tz)
        .unwrap()
        .naive_local();
    let exit = parse_site_time("2026-03-02T10:01", tz)
        .unwrap()
        .naive_local();
    assert_eq!(
        simulate(&p, entry, exit).unwrap().total.to_string(),
        "11.00"
    );
}

#[test]
fn exit_before_entry_is_refused() {
    let e = err(DAY_NIGHT, "2026-03-02T09:00", "2026-03-02T08:59");
    assert_eq!(e, "exit 2026-03-02T08:59 is before entry 2026-03-02T09:00");
}

#[test]
fn stays_over_400_days_are_refused() {
    let e = err(DAY_NIGHT, "2026-01-01T00:00", "2027-05-16T00:00");
    assert!(e.contains("500 days") && e.contains("400-day limit"), "{e}");
    assert!(
        e.contains("2026-01-01T00:00") && e.contains("2027-05-16T00:00"),
        "{e}"
    );
    let e = err(DAY_NIGHT, "2026-01-01T00:00", "2027-02-05T00:01");
    assert!(e.contains("400 days 1 minutes"), "{e}");
    // Exactly 400 days is fine: 400 capped days.
    let b = sim(DAY_NIGHT, "2026-01-01T00:00", "2027-02-05T00:00");
    assert_eq!(b.total.to_string(), "8000.00");
    assert_eq!(b.pieces.len(), 801);
}

#[test]
fn bad_times_and_zones_are_refused() {
    let p = payload(DAY_NIGHT);
    for (tz, entry, needle) in [
        (None, "2026-03-02T08:00:30", "seconds must be :00"),
        (
            None,
            "2026-03-02 9am",
            "entry: \"2026-03-02 9am\" is not a time we can use: use YYYY-MM-DD, YYYY-MM-DDTHH:MM",
        ),
        (None, "02/03/2026 08:00", "\"02/03/2026 08:00\""),
        (
            Some("Mars/Olympus"),
            "2026-03-02T08:00",
            "unknown time zone \"Mars/Olympus\"",
        ),
    ] {
        let e = simulate_text(&p, tz, entry, "2026-03-03T08:00")
            .unwrap_err()
            .to_string();
        assert!(e.contains(needle), "{entry}: {e}");
    }
    // A date alone is accepted: its midnight.
    let b = simulate_text(&p, None, "2026-03-02", "2026-03-02T09:00").unwrap();
    assert_eq!(b.total.to_string(), "4.00");
}

/// A day/night payload with one segment changed by `edit`.
fn broken(edit: impl FnOnce(&mut serde_json::Value)) -> String {
    let mut v: serde_json::Value = serde_json::from_str(TIERED_DAY_NIGHT).unwrap();
    edit(&mut v);
    match Payload::from_value(v) {
        Err(e) => e.to_string(),
        Ok(p) => p.validate().expect_err("should be invalid").to_string(),
    }
}

#[test]
fn malformed_payloads_name_the_segment_and_field() {
    let cases: Vec<(String, &str)> = vec![
        (
            broken(|v| v["segments"][1]["window"] = json!("19:00-08:00")),
            "windows overlap: segment 0 (\"day\", 08:00-20:00) and segment 1 (\"night\", 19:00-08:00) both cover 19:00",
        ),
        (
            broken(|v| v["segments"][1]["window"] = json!("20:00-8:00")),
            "segment 1 (\"night\"): window: \"20:00-8:00\" is not HH:MM-HH:MM",
        ),
        (
            broken(|v| v["segments"][1]["window"] = json!("20:00-20:00")),
            "segment 1 (\"night\"): window: \"20:00-20:00\": start equals end",
        ),
        (
            broken(|v| v["segments"][0]["unit_minutes"] = json!(0)),
            "segment 0 (\"day\"): unit_minutes: must be between 1 and 1440, got 0",
        ),
        (
            broken(|v| v["segments"][0]["unit_minutes"] = json!(-30)),
            "segment 0 (\"day\"): unit_minutes: must be between 1 and 1440, got -30",
        ),
        (
            broken(|v| v["segments"][0]["tiers"][0]["unit_price"] = json!("-2.00")),
            "segment 0 (\"day\"): tiers[0].unit_price: may not be negative, got -2.00",
        ),
        (
            broken(|v| {
                v["segments"][0]["tiers"] = json!([
                    {"up_to_minutes": 120, "unit_price": "2.00"},
                    {"up_to_minutes": 60, "unit_price": "3.00"},
                    {"up_to_minutes": null, "unit_price": "4.00"}])
            }),
            "segment 0 (\"day\"): tiers[1].up_to_minutes: tiers out of order: 60 is not greater than the previous tier's 120",
        ),
        (
            broken(|v| v["segments"][0]["tiers"][1]["up_to_minutes"] = json!(240)),
            "segment 0 (\"day\"): tiers[1].up_to_minutes: the last tier must be open-ended (null), got 240",
        ),
        (
            broken(|v| v["segments"][0]["tiers"][0]["up_to_minutes"] = json!(null)),
            "segment 0 (\"day\"): tiers[0].up_to_minutes: only the last tier may be open-ended",
        ),
        (
            broken(|v| v["segments"][0]["cap"] = json!("1.50")),
            "segment 0 (\"day\"): cap: 1.50 is below the price of the first unit (2.00)",
        ),
        (
            broken(|v| v["segments"][0]["cap"] = json!("-1.00")),
            "segment 0 (\"day\"): cap: may not be negative, got -1.00",
        ),
        (
            broken(|v| v["segments"][0]["tiers"] = json!(null)),
            "segment 0 (\"day\"): tiers: missing or empty (required for type tiered)",
        ),
        (
            broken(|v| v["segments"][0]["type"] = json!("hourly")),
            "segment 0 (\"day\"): type: unknown type \"hourly\"; expected free, periodic or tiered",
        ),
        (
            broken(|v| {
                v["segments"][0] = json!({"name": "day", "window": "08:00-20:00",
                    "type": "periodic", "unit_minutes": 30})
            }),
            "segment 0 (\"day\"): unit_price: missing (required for type periodic)",
        ),
        (
            broken(|v| {
                v["segments"][0] = json!({"name": "day", "window": "08:00-20:00",
                    "type": "periodic", "unit_price": "2.00"})
            }),
            "segment 0 (\"day\"): unit_minutes: missing (required for type periodic)",
        ),
        (
            broken(|v| v["segments"][1]["unit_price"] = json!("1.00")),
            "segment 1 (\"night\"): unit_price: does not apply to type free",
        ),
        (
            broken(|v| v["segments"][1]["name"] = json!("")),
            "segment 1 (\"\"): name: missing or empty",
        ),
        (
            broken(|v| v["segments"] = json!([])),
            "invalid payload: segments: no segments",
        ),
        (
            broken(|v| v["free_minutes"] = json!(-5)),
            "invalid payload: free_minutes: must be between 0 and 576000 (the longest stay), got -5",
        ),
        (
            broken(|v| v["segments"][0]["tiers"][0]["unit_price"] = json!(2.5)),
            "segments[0].tiers[0].unit_price: invalid amount 2.5: write amounts as decimal strings",
        ),
        (
            broken(|v| v["segments"][0]["tiers"][0]["unit_price"] = json!("2.005")),
            "invalid amount \"2.005\": more than two decimal places",
        ),
        (
            broken(|v| v["segments"][0]["unit_minute"] = json!(30)),
            "segments[0].unit_minute: unknown field `unit_minute`",
        ),
    ];
    for (got, want) in cases {
        assert!(got.contains(want), "\n got: {got}\nwant: {want}");
    }
    let e = Payload::from_json("{\"segments\": [")
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("invalid payload:") && e.contains("line 1"),
        "{e}"
    );
}

#[test]
fn a_bad_payload_is_refused_before_any_simulation() {
    let e = simulate_text(
        &payload(r#"{"segments": [{"name": "x", "window": "08:00-20:00", "type": "periodic", "unit_minutes": 0, "unit_price": "1.00"}]}"#),
        None,
        "2026-03-02T08:00",
        "2026-03-02T09:00",
    )
    .unwrap_err();
    assert_eq!(e.code(), "invalid_payload");
    assert!(
        e.to_string().contains("segment 0 (\"x\"): unit_minutes"),
        "{e}"
    );
}
