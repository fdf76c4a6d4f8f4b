//! A rule version explained in plain English, generated from the version
//! itself: scope, validity, time zone, windows, units, prices, tiers, caps,
//! grace, and worked examples computed by [`simulate_in`] on sample stays.
//! Words and numbers come from the same payload, so they cannot disagree.
//! The result is a `rule_explain` knowledge document (source
//! `rule.<rule_code>`, version = the rule's version number).

use std::collections::BTreeMap;

use chrono::{Duration, NaiveDate, NaiveDateTime, NaiveTime, Utc};

use super::model::{RuleInfo, VersionInfo};
use super::{
    local_to_site, parse_time_zone, simulate_in, Breakdown, Pricing, SegmentType, Tariff,
    TariffSegment, Tz, Window,
};
use crate::knowledge::document::{clean, Document};

pub const DOC_TYPE: &str = "rule_explain";
pub const SOURCE_TYPE: &str = "billing_derived";

/// `rule.<rule_code>`: the knowledge source of a rule's explanations.
pub fn source_id(rule_code: &str) -> String {
    format!("rule.{rule_code}")
}

/// The explanation of one version of a rule, as a knowledge document.
pub fn explain(rule: &RuleInfo, version: &VersionInfo) -> Document {
    let tz = parse_time_zone(&rule.time_zone).unwrap_or(Tz::UTC);
    let utc = |t: NaiveDateTime| {
        let instant = local_to_site(t, tz)
            .map(|d| d.with_timezone(&Utc))
            .unwrap_or_else(|_| t.and_utc());
        instant.format("%Y-%m-%dT%H:%M:%SZ").to_string()
    };
    Document {
        source_id: source_id(&rule.rule_code),
        version: Some(version.version_no.clamp(1, u32::MAX as i64) as u32),
        doc_type: DOC_TYPE.into(),
        source_type: SOURCE_TYPE.into(),
        title: format!(
            "Billing rule {} version {}: {}",
            rule.rule_code, version.version_no, rule.name
        ),
        language: "en".into(),
        city_code: Some(rule.city_code.clone()),
        lot_codes: rule.lot_codes.clone(),
        effective_from: Some(utc(version.from_time())),
        effective_to: version.to_time().map(utc),
        clarifying_questions: BTreeMap::new(),
        requires_handoff: false,
        body: clean(&body(rule, version, tz)),
        origin: "billing".into(),
        version_line: 0,
        original: None,
    }
}

fn clock(t: NaiveDateTime) -> String {
    t.format("%Y-%m-%d %H:%M").to_string()
}

fn minutes_phrase(n: i64) -> String {
    if n == 1 {
        "1 minute".into()
    } else if n % 60 == 0 && n >= 60 {
        match n / 60 {
            1 => "60 minutes (1 hour)".into(),
            h => format!("{n} minutes ({h} hours)"),
        }
    } else {
        format!("{n} minutes")
    }
}

fn lots_phrase(lots: &[String]) -> String {
    match lots {
        [one] => format!("lot {one}"),
        many => format!("lots {}", many.join(", ")),
    }
}

/// The Markdown body.
pub fn body(rule: &RuleInfo, version: &VersionInfo, tz: Tz) -> String {
    let mut out = String::new();
    let v = version.version_no;
    out.push_str(&format!(
        "# Billing rule {} version {v}: {}\n\n",
        rule.rule_code, rule.name
    ));
    out.push_str("## Scope and validity\n\n");
    out.push_str(&format!(
        "Rule {} (\"{}\") sets the parking and storage charges in city {} for {}. Its status is {}.\n\n",
        rule.rule_code,
        rule.name,
        rule.city_code,
        lots_phrase(&rule.lot_codes),
        rule.status
    ));
    match version.to_time() {
        Some(to) => out.push_str(&format!(
            "Version {v} is in force for stays that start from {} up to, but not including, {}.",
            clock(version.from_time()),
            clock(to)
        )),
        None => out.push_str(&format!(
            "Version {v} is in force for stays that start from {} on, with no end date.",
            clock(version.from_time())
        )),
    }
    out.push_str(&format!(
        " The version in force when a stay starts (its entry) prices the whole stay, even the part after the version ends. \
         All times are site-local wall-clock times in {}; across a daylight-saving change the windows follow the wall clock and durations are real elapsed minutes.\n\n",
        tz.name()
    ));

    let tariff = match version.payload.validate() {
        Ok(t) => t,
        Err(e) => {
            out.push_str(&format!(
                "## How a stay is charged\n\nThis version's payload is not valid: {e}\n"
            ));
            return out;
        }
    };
    out.push_str("## How a stay is charged\n\n");
    let free = tariff.free_minutes();
    if free > 0 {
        out.push_str(&format!(
            "Grace period: a stay of at most {} costs 0.00. A longer stay is charged in full from entry, as if there were no grace period.\n\n",
            minutes_phrase(free)
        ));
    } else {
        out.push_str("There is no grace period: a stay is charged from its first minute.\n\n");
    }
    out.push_str("The day is divided into these windows:\n\n");
    for s in tariff.segments() {
        out.push_str(&format!("- {}\n", segment_sentence(s)));
    }
    out.push('\n');
    let uncovered = uncovered(&tariff);
    if !uncovered.is_empty() {
        out.push_str(&format!(
            "Time outside these windows ({}) is not charged.\n\n",
            uncovered.join(", ")
        ));
    }
    out.push_str(
        "Each stretch of a window is priced on its own: the part of a stay inside one occurrence of a window \
         (one calendar day; for a window that crosses midnight, from its start on one day to its end the next morning, \
         counted to the day it starts) is one piece. A started unit is charged in full, units are counted from the start \
         of each piece, and a cap limits each piece, so it resets every day. The total of a stay is the sum of its pieces. \
         Amounts are exact to the cent.\n\n",
    );

    let examples = examples(&version.payload, &tariff, tz, sample_day(version));
    if !examples.is_empty() {
        out.push_str("## Worked examples\n\n");
        out.push_str(&format!(
            "Computed by the billing calculator from this version (site time, {}):\n\n",
            tz.name()
        ));
        for (entry, b) in examples {
            out.push_str(&format!("- {}\n", example_sentence(entry, &b)));
        }
    }
    out
}

fn window_phrase(w: &Window) -> String {
    if w.start == 0 && w.end == 1440 {
        "00:00-24:00 (all day)".into()
    } else if w.crosses_midnight() {
        format!("{w} (crosses midnight)")
    } else {
        w.to_string()
    }
}

fn segment_sentence(s: &TariffSegment) -> String {
    let head = format!("{}, {}:", s.name, window_phrase(&s.window));
    let cap = |s: &TariffSegment| match s.cap {
        None => String::new(),
        Some(c) if s.window.crosses_midnight() => format!(
            ", at most {c} per {} stretch (the cap resets at every {})",
            s.window,
            &s.window.to_string()[..5]
        ),
        Some(c) => format!(", at most {c} per day (the cap resets every day)"),
    };
    match &s.pricing {
        Pricing::Free => format!("{head} free."),
        Pricing::Periodic {
            unit_minutes,
            unit_price,
        } => format!(
            "{head} {unit_price} for every started {}{}.",
            minutes_phrase(*unit_minutes),
            cap(s)
        ),
        Pricing::Tiered {
            unit_minutes,
            tiers,
        } => {
            let mut parts = Vec::new();
            let mut from = 0;
            for t in tiers {
                match t.up_to_minutes {
                    Some(up) if from == 0 => {
                        parts.push(format!(
                            "a unit that starts within the first {} of the piece costs {}",
                            minutes_phrase(up),
                            t.unit_price
                        ));
                        from = up;
                    }
                    Some(up) => {
                        parts.push(format!(
                            "a unit that starts from minute {from} up to minute {up} costs {}",
                            t.unit_price
                        ));
                        from = up;
                    }
                    None if from == 0 => parts.push(format!("every unit costs {}", t.unit_price)),
                    None => parts.push(format!(
                        "a unit that starts at minute {from} or later costs {}",
                        t.unit_price
                    )),
                }
            }
            format!(
                "{head} tiered, charged for every started {} (tiers restart in every occurrence): {}{}.",
                minutes_phrase(*unit_minutes),
                parts.join("; "),
                cap(s).replacen(", at most", "; at most", 1)
            )
        }
    }
}

/// Stretches of the day no window covers, as `HH:MM-HH:MM`.
fn uncovered(t: &Tariff) -> Vec<String> {
    let mut covered = [false; 1440];
    for s in t.segments() {
        let (a, b) = (s.window.start, s.window.end_from_day_start());
        for m in a..b {
            covered[(m % 1440) as usize] = true;
        }
    }
    let mut out = Vec::new();
    let mut m = 0;
    while m < 1440 {
        if covered[m] {
            m += 1;
            continue;
        }
        let start = m;
        while m < 1440 && !covered[m] {
            m += 1;
        }
        let w = Window {
            start: start as i64,
            end: m as i64,
        };
        out.push(w.to_string());
    }
    out
}

/// A day inside the version's validity for the examples.
fn sample_day(v: &VersionInfo) -> NaiveDate {
    let from = v.from_time();
    if from.time() == NaiveTime::MIN {
        from.date()
    } else {
        from.date() + Duration::days(1)
    }
}

/// Sample stays that show how the version charges, with their breakdowns.
fn examples(
    payload: &super::Payload,
    tariff: &Tariff,
    tz: Tz,
    day: NaiveDate,
) -> Vec<(NaiveDateTime, Breakdown)> {
    let start_of = |minute: i64| day.and_time(NaiveTime::MIN) + Duration::minutes(minute);
    let mut stays: Vec<(NaiveDateTime, NaiveDateTime)> = Vec::new();
    let charged = tariff
        .segments()
        .iter()
        .find(|s| s.pricing.segment_type() != SegmentType::Free);
    let free = tariff.free_minutes();
    match charged {
        None => {
            let a = start_of(tariff.segments()[0].window.start);
            stays.push((a, a + Duration::days(1)));
        }
        Some(s) => {
            let a = start_of(s.window.start);
            let len = s.window.len();
            let unit = match &s.pricing {
                Pricing::Periodic { unit_minutes, .. } | Pricing::Tiered { unit_minutes, .. } => {
                    *unit_minutes
                }
                Pricing::Free => 60,
            };
            if free > 0 {
                stays.push((a, a + Duration::minutes(free)));
                stays.push((a, a + Duration::minutes(free + 1)));
            }
            let short = (2 * unit + 5).min(len);
            if short > free {
                stays.push((a, a + Duration::minutes(short)));
            }
            if let Pricing::Tiered { tiers, .. } = &s.pricing {
                if let Some(up) = tiers.first().and_then(|t| t.up_to_minutes) {
                    if up < len {
                        stays.push((a, a + Duration::minutes(up + 1)));
                    }
                }
            }
            stays.push((a, a + Duration::minutes(len)));
            stays.push((a, a + Duration::days(1)));
        }
    }
    let mut seen = Vec::new();
    let mut out = Vec::new();
    for (a, b) in stays {
        if seen.contains(&(a, b)) {
            continue;
        }
        seen.push((a, b));
        if let Ok(bd) = simulate_in(payload, tz, a, b) {
            out.push((a, bd));
        }
    }
    out
}

fn example_sentence(entry: NaiveDateTime, b: &Breakdown) -> String {
    let exit = if b.exit.date() == entry.date() {
        b.exit.format("%H:%M").to_string()
    } else {
        clock(b.exit)
    };
    let mut s = format!(
        "A {}-minute stay from {} to {} costs {}",
        b.stay_minutes,
        clock(entry),
        exit,
        b.total
    );
    if b.grace_applied {
        s.push_str(&format!(
            " (within the {}-minute grace period).",
            b.free_minutes
        ));
        return s;
    }
    let parts: Vec<String> = b
        .pieces
        .iter()
        .map(|p| {
            let what = match p.kind {
                SegmentType::Free => "free".to_owned(),
                _ => {
                    let lines: Vec<String> = p
                        .lines
                        .iter()
                        .map(|l| format!("{} × {}", l.units, l.unit_price))
                        .collect();
                    let mut w = format!(
                        "{} unit{}, {} = {}",
                        p.units,
                        if p.units == 1 { "" } else { "s" },
                        lines.join(" + "),
                        p.uncapped_amount
                    );
                    if p.cap_applied {
                        w.push_str(&format!(", capped at {}", p.amount));
                    }
                    w
                }
            };
            format!(
                "{} of {}: {} minutes, {}",
                p.segment, p.occurrence, p.minutes, what
            )
        })
        .collect();
    s.push_str(": ");
    s.push_str(&parts.join("; "));
    s.push('.');
    s
}
