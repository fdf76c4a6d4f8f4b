//! The billing calculator's speed. Targets (issue 5): a one-day stay under a
//! day/night payload under 2 µs, a 30-day stay under 20 µs; and the naive
//! minute-stepping oracle (copied from tests/billing_oracle_props.rs) side by
//! side with the calculator on the same stays.
//! Run: `cargo bench --bench billing_simulate -- --warm-up-time 1 --measurement-time 3`.

use std::collections::BTreeMap;
use std::hint::black_box;

use chrono::NaiveDateTime;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};

use servicedesk::billing::{
    parse_site_time, parse_time_zone, simulate, Payload, Tariff, WALL_FORMAT,
};

/// The spec's example payload: day charged per half hour with a daily cap, night free.
const DAY_NIGHT: &str = r#"{"free_minutes": 0, "segments": [
    {"name": "day", "window": "08:00-20:00", "type": "periodic",
     "unit_minutes": 30, "unit_price": "2.00", "cap": "20.00"},
    {"name": "night", "window": "20:00-08:00", "type": "free"}]}"#;

fn t(s: &str) -> NaiveDateTime {
    NaiveDateTime::parse_from_str(s, WALL_FORMAT).expect("bench time")
}

fn tariff() -> (Payload, Tariff) {
    let p = Payload::from_json(DAY_NIGHT).expect("payload");
    let tariff = p.validate().expect("valid");
    (p, tariff)
}

/// The test's oracle for the day/night payload, UTC: walk every minute, put
/// it in its window occurrence, count per piece, price unit by unit.
fn oracle_day_night(entry: i64, exit: i64) -> i64 {
    // (start, end, unit, price, cap); end <= start crosses midnight; unit 0 = free.
    const SEGS: [(i64, i64, i64, i64, i64); 2] = [(480, 1200, 30, 200, 2000), (1200, 480, 0, 0, 0)];
    let mut minutes: BTreeMap<(i64, usize), i64> = BTreeMap::new();
    let mut m = entry;
    while m < exit {
        let day = m.div_euclid(1440);
        let mod_day = m.rem_euclid(1440);
        for (i, &(s, e, ..)) in SEGS.iter().enumerate() {
            let occurrence = if e > s {
                (s <= mod_day && mod_day < e).then_some(day)
            } else if mod_day >= s {
                Some(day)
            } else if mod_day < e {
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
    let mut total = 0;
    for ((_, i), n) in minutes {
        let (_, _, unit, price, cap) = SEGS[i];
        if unit == 0 {
            continue;
        }
        let mut amount = 0;
        let mut covered = 0;
        while covered < n {
            amount += price;
            covered += unit;
        }
        total += amount.min(cap);
    }
    total
}

fn minute(s: &str) -> i64 {
    t(s).and_utc().timestamp() / 60
}

fn targets(c: &mut Criterion) {
    let (payload, tariff) = tariff();
    let mut group = c.benchmark_group("simulate");
    let (e1, x1) = (t("2026-03-02T07:30"), t("2026-03-03T07:30"));
    group.bench_function("one_day/tariff", |b| {
        b.iter(|| tariff.simulate(black_box(e1), black_box(x1)).unwrap())
    });
    group.bench_function("one_day/validate+simulate", |b| {
        b.iter(|| simulate(black_box(&payload), black_box(e1), black_box(x1)).unwrap())
    });
    let (e30, x30) = (t("2026-03-02T07:30"), t("2026-04-01T07:30"));
    group.bench_function("thirty_days/tariff", |b| {
        b.iter(|| tariff.simulate(black_box(e30), black_box(x30)).unwrap())
    });
    group.bench_function("thirty_days/validate+simulate", |b| {
        b.iter(|| simulate(black_box(&payload), black_box(e30), black_box(x30)).unwrap())
    });
    // A DST zone: offsets sampled daily, the change located by bisection.
    let la = parse_time_zone("America/Los_Angeles").unwrap();
    let (el, xl) = (
        parse_site_time("2026-02-20T07:30", la).unwrap(),
        parse_site_time("2026-03-22T07:30", la).unwrap(),
    );
    group.bench_function("thirty_days_across_dst/tariff", |b| {
        b.iter(|| {
            tariff
                .simulate_between(black_box(&el), black_box(&xl))
                .unwrap()
        })
    });
    group.finish();
}

fn oracle_vs_calculator(c: &mut Criterion) {
    let (_, tariff) = tariff();
    let mut group = c.benchmark_group("oracle_vs_calculator");
    for (name, entry, exit) in [
        ("2h", "2026-03-02T07:30", "2026-03-02T09:30"),
        ("1d", "2026-03-02T07:30", "2026-03-03T07:30"),
        ("5d", "2026-03-02T07:30", "2026-03-07T07:30"),
        ("30d", "2026-03-02T07:30", "2026-04-01T07:30"),
    ] {
        let (a, b) = (minute(entry), minute(exit));
        let want = tariff.simulate(t(entry), t(exit)).unwrap().total.cents();
        assert_eq!(
            oracle_day_night(a, b),
            want,
            "oracle and calculator agree on {name}"
        );
        group.bench_with_input(BenchmarkId::new("oracle", name), &(a, b), |bch, &(a, b)| {
            bch.iter(|| oracle_day_night(black_box(a), black_box(b)))
        });
        let (e, x) = (t(entry), t(exit));
        group.bench_with_input(
            BenchmarkId::new("calculator", name),
            &(e, x),
            |bch, &(e, x)| bch.iter(|| tariff.simulate(black_box(e), black_box(x)).unwrap().total),
        );
    }
    group.finish();
}

criterion_group!(benches, targets, oracle_vs_calculator);
criterion_main!(benches);
