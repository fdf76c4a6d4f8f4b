//! The calculator against a deliberately naive oracle written here: walk the
//! stay minute by minute, read each minute's site-local wall clock, put it in
//! the window occurrence it belongs to, count minutes per piece, then price
//! each piece unit by unit. Random payloads (1–3 non-overlapping windows,
//! cross-midnight ones, free/periodic/tiered, caps, grace) and stays (up to 5
//! days) must agree to the cent, piece by piece. A second property does the
//! same around DST changes in zones with 1-hour and 30-minute shifts.

use std::collections::BTreeMap;

use chrono::{DateTime, NaiveDate, TimeZone};
use proptest::prelude::*;
use serde_json::{json, Value};
use servicedesk::billing::{parse_time_zone, simulate, simulate_between, Breakdown, Payload, Tz};

#[derive(Debug, Clone)]
enum Kind {
    Free,
    Periodic {
        unit: i64,
        price: i64,
    },
    Tiered {
        unit: i64,
        tiers: Vec<(Option<i64>, i64)>,
    },
}

#[derive(Debug, Clone)]
struct Seg {
    start: i64,
    /// 1..=1440; `end <= start` crosses midnight.
    end: i64,
    kind: Kind,
    cap: Option<i64>,
}

#[derive(Debug, Clone)]
struct Case {
    free_minutes: i64,
    segs: Vec<Seg>,
}

fn hhmm(m: i64) -> String {
    format!("{:02}:{:02}", m / 60, m % 60)
}

fn cents(c: i64) -> String {
    format!("{}.{:02}", c / 100, c % 100)
}

impl Case {
    fn payload_json(&self) -> Value {
        let segments: Vec<Value> = self
            .segs
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let mut v = json!({
                    "name": format!("s{i}"),
                    "window": format!("{}-{}", hhmm(s.start), hhmm(s.end)),
                });
                match &s.kind {
                    Kind::Free => v["type"] = json!("free"),
                    Kind::Periodic { unit, price } => {
                        v["type"] = json!("periodic");
                        v["unit_minutes"] = json!(unit);
                        v["unit_price"] = json!(cents(*price));
                    }
                    Kind::Tiered { unit, tiers } => {
                        v["type"] = json!("tiered");
                        v["unit_minutes"] = json!(unit);
                        v["tiers"] = tiers
                            .iter()
                            .map(|(up, p)| json!({"up_to_minutes": up, "unit_price": cents(*p)}))
                            .collect();
                    }
                }
                if let Some(c) = s.cap {
                    v["cap"] = json!(cents(c));
                }
                v
            })
            .collect();
        json!({"free_minutes": self.free_minutes, "segments": segments})
    }

    fn payload(&self) -> Payload {
        let p = Payload::from_value(self.payload_json()).expect("generated payload parses");
        p.validate().expect("generated payload is valid");
        p
    }
}

/// The oracle: `wall(m)` gives the site-local wall minute (since the epoch)
/// of real minute `m`. Returns the total and (segment, occurrence day,
/// minutes, amount) per piece, all in cents.
fn oracle(
    case: &Case,
    entry: i64,
    exit: i64,
    wall: impl Fn(i64) -> i64,
) -> (i64, Vec<(usize, i64, i64, i64)>) {
    let mut minutes: BTreeMap<(i64, usize), i64> = BTreeMap::new();
    let mut m = entry;
    while m < exit {
        let w = wall(m);
        let day = w.div_euclid(1440);
        let mod_day = w.rem_euclid(1440);
        for (i, s) in case.segs.iter().enumerate() {
            let occurrence = if s.end > s.start {
                (s.start <= mod_day && mod_day < s.end).then_some(day)
            } else if mod_day >= s.start {
                Some(day)
            } else if mod_day < s.end {
                Some(day - 1)
            } else {
                None
            };
            if let Some(d) = occurrence {
                *minutes.entry((d, i)).or_insert(0) += 1;
            }
        }
        m += 1;
    }
    let grace = exit - entry <= case.free_minutes;
    let mut total = 0;
    let mut pieces = Vec::new();
    for ((day, i), n) in minutes {
        let s = &case.segs[i];
        let mut amount = 0;
        if !grace {
            match &s.kind {
                Kind::Free => {}
                Kind::Periodic { unit, price } => {
                    let mut covered = 0;
                    while covered < n {
                        amount += price;
                        covered += unit;
                    }
                }
                Kind::Tiered { unit, tiers } => {
                    let mut offset = 0;
                    while offset < n {
                        let tier = tiers
                            .iter()
                            .find(|(up, _)| up.is_none_or(|up| up > offset))
                            .expect("last tier is open");
                        amount += tier.1;
                        offset += unit;
                    }
                }
            }
            if let Some(cap) = s.cap {
                amount = amount.min(cap);
            }
        }
        total += amount;
        pieces.push((i, day, n, amount));
    }
    (total, pieces)
}

fn calculator_pieces(b: &Breakdown) -> Vec<(usize, i64, i64, i64)> {
    let epoch = NaiveDate::from_ymd_opt(1970, 1, 1).unwrap();
    let mut v: Vec<_> = b
        .pieces
        .iter()
        .map(|p| {
            (
                p.segment_index,
                (p.occurrence - epoch).num_days(),
                p.minutes,
                p.amount.cents(),
            )
        })
        .collect();
    v.sort_by_key(|&(i, d, _, _)| (d, i));
    v
}

fn sorted(mut v: Vec<(usize, i64, i64, i64)>) -> Vec<(usize, i64, i64, i64)> {
    v.sort_by_key(|&(i, d, _, _)| (d, i));
    v
}

fn kind() -> impl Strategy<Value = Kind> {
    let unit = prop_oneof![Just(30i64), Just(60), Just(15), 1i64..=180];
    let price = prop_oneof![Just(200i64), 0i64..=1000];
    prop_oneof![
        1 => Just(Kind::Free),
        2 => (unit.clone(), price.clone()).prop_map(|(unit, price)| Kind::Periodic { unit, price }),
        2 => (
            unit,
            prop::collection::vec((1i64..=240, 0i64..=1000), 0..=2),
            price,
        )
            .prop_map(|(unit, steps, last)| {
                let mut bound = 0;
                let mut tiers: Vec<(Option<i64>, i64)> = steps
                    .into_iter()
                    .map(|(step, p)| {
                        bound += step;
                        (Some(bound), p)
                    })
                    .collect();
                tiers.push((None, last));
                Kind::Tiered { unit, tiers }
            }),
    ]
}

fn first_price(k: &Kind) -> Option<i64> {
    match k {
        Kind::Free => None,
        Kind::Periodic { price, .. } => Some(*price),
        Kind::Tiered { tiers, .. } => Some(tiers[0].1),
    }
}

/// 1–3 windows cut from the day's circle at random points: consecutive arcs
/// never overlap; the arc through midnight crosses it.
fn case() -> impl Strategy<Value = Case> {
    let point = prop_oneof![(0i64..48).prop_map(|h| h * 30), 0i64..1440];
    let points = prop::collection::btree_set(point, 1..=6);
    let segs = (
        points,
        any::<u8>(),
        any::<bool>(),
        prop::collection::vec((kind(), prop::option::of(0i64..=3000)), 3),
    )
        .prop_map(|(points, mask, end_as_24, kinds)| {
            let pts: Vec<i64> = points.into_iter().collect();
            let mut arcs: Vec<(i64, i64)> = Vec::new();
            if pts.len() == 1 {
                arcs.push((0, 1440));
            } else {
                for w in pts.windows(2) {
                    arcs.push((w[0], w[1]));
                }
                let (last, first) = (pts[pts.len() - 1], pts[0]);
                // Ending at midnight: either "22:00-24:00" or "22:00-00:00".
                let end = if first == 0 && end_as_24 { 1440 } else { first };
                arcs.push((last, end));
            }
            let mut chosen: Vec<(i64, i64)> = arcs
                .iter()
                .enumerate()
                .filter(|(i, _)| mask & (1 << (i % 8)) != 0)
                .map(|(_, a)| *a)
                .take(3)
                .collect();
            if chosen.is_empty() {
                chosen.push(arcs[0]);
            }
            chosen
                .into_iter()
                .zip(kinds)
                .map(|((start, end), (kind, cap_extra))| {
                    let cap = first_price(&kind).and_then(|p| cap_extra.map(|x| p + x));
                    Seg {
                        start,
                        end,
                        kind,
                        cap,
                    }
                })
                .collect::<Vec<_>>()
        });
    let free = prop_oneof![2 => Just(0i64), 1 => 0i64..=90];
    (free, segs).prop_map(|(free_minutes, segs)| Case { free_minutes, segs })
}

/// 2026-01-01T00:00 UTC in minutes since the epoch.
const BASE: i64 = 29_451_360;

fn stay() -> impl Strategy<Value = (i64, i64)> {
    let entry = prop_oneof![
        (0i64..60 * 48).prop_map(|h| BASE + h * 30),
        (0i64..60 * 1440).prop_map(|m| BASE + m),
    ];
    let len = prop_oneof![0i64..=120, 0i64..=1440, 0i64..=5 * 1440];
    (entry, len).prop_map(|(e, l)| (e, e + l))
}

fn naive(m: i64) -> chrono::NaiveDateTime {
    DateTime::from_timestamp(m * 60, 0).unwrap().naive_utc()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn calculator_matches_minute_stepping_oracle((case, (entry, exit)) in (case(), stay())) {
        let b = simulate(&case.payload(), naive(entry), naive(exit))
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        let (total, pieces) = oracle(&case, entry, exit, |m| m);
        prop_assert_eq!(b.total.cents(), total, "payload {}", case.payload_json());
        prop_assert_eq!(calculator_pieces(&b), sorted(pieces));
        prop_assert_eq!(b.stay_minutes, exit - entry);
        prop_assert_eq!(b.grace_applied, case.free_minutes > 0 && exit - entry <= case.free_minutes);
    }
}

/// DST changes of 2026: (zone, a date a few days before the change).
const CHANGES: &[(&str, &str)] = &[
    ("America/Los_Angeles", "2026-03-06"),
    ("America/Los_Angeles", "2026-10-30"),
    ("Europe/Berlin", "2026-03-27"),
    ("Europe/Berlin", "2026-10-23"),
    // Lord Howe Island shifts by 30 minutes.
    ("Australia/Lord_Howe", "2026-04-03"),
    ("Australia/Lord_Howe", "2026-10-02"),
];

fn wall_minute(tz: Tz, m: i64) -> i64 {
    let local = tz.timestamp_opt(m * 60, 0).unwrap().naive_local();
    local.and_utc().timestamp() / 60
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn calculator_matches_oracle_across_dst(
        case in case(),
        which in 0..CHANGES.len(),
        start in 0i64..4 * 1440,
        len in prop_oneof![0i64..=300, 0i64..=3 * 1440],
    ) {
        let (zone, date) = CHANGES[which];
        let tz = parse_time_zone(zone).unwrap();
        let day: NaiveDate = date.parse().unwrap();
        let base = day.and_hms_opt(0, 0, 0).unwrap().and_utc().timestamp() / 60;
        let (entry, exit) = (base + start, base + start + len);
        let at = |m: i64| tz.timestamp_opt(m * 60, 0).unwrap();
        let b = simulate_between(&case.payload(), &at(entry), &at(exit))
            .map_err(|e| TestCaseError::fail(e.to_string()))?;
        let (total, pieces) = oracle(&case, entry, exit, |m| wall_minute(tz, m));
        prop_assert_eq!(b.total.cents(), total, "payload {} in {}", case.payload_json(), zone);
        prop_assert_eq!(calculator_pieces(&b), sorted(pieces));
        prop_assert_eq!(b.stay_minutes, len);
    }
}

#[test]
fn the_dst_cases_do_cross_a_change() {
    // Guard against a wrong date table: each window of 4 days + 3 days
    // starting at the listed date contains an offset change.
    for (zone, date) in CHANGES {
        let tz = parse_time_zone(zone).unwrap();
        let day: NaiveDate = date.parse().unwrap();
        let base = day.and_hms_opt(0, 0, 0).unwrap().and_utc().timestamp() / 60;
        let offset = |m: i64| wall_minute(tz, m) - m;
        assert!(
            (0..7 * 24).any(|h| offset(base + h * 60) != offset(base)),
            "{zone} {date}"
        );
    }
}
