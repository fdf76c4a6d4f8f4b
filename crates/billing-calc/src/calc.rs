//! The calculator: a stay under a [`Tariff`] as a [`Breakdown`] of pieces
//! (one per segment occurrence the stay touches) and their total. Pure, no
//! I/O; computed by interval arithmetic over windows and days, so the cost
//! grows with days × segments and never with minutes.

use chrono::{DateTime, NaiveDate, NaiveDateTime};
use chrono_tz::Tz;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use ts_rs::TS;

use super::money::Money;
use super::payload::{Payload, Pricing, SegmentType, Tariff, Window};
use super::time::{
    for_each_stretch, local_at, local_to_site, parse_site_time_as, real_minute, site_time_zone,
    wall_time, MAX_STAY_DAYS, MINUTES_PER_DAY, WALL_FORMAT,
};
use super::BillingError;

/// What a stay costs and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct Breakdown {
    /// The sum of the pieces' amounts (0 within the grace period).
    #[serde(rename = "total_amount")]
    pub total: Money,
    /// The site's IANA time zone, by name.
    #[serde(serialize_with = "ser_tz")]
    #[ts(type = "string")]
    pub time_zone: Tz,
    /// Site-local wall-clock entry and exit.
    #[serde(serialize_with = "ser_wall")]
    pub entry: NaiveDateTime,
    /// Site-local wall-clock exit.
    #[serde(serialize_with = "ser_wall")]
    pub exit: NaiveDateTime,
    /// Real elapsed minutes (across a DST change, not the wall-clock difference).
    pub stay_minutes: i64,
    /// The payload's grace period, in minutes.
    pub free_minutes: i64,
    /// The stay was no longer than `free_minutes`: every piece costs 0.
    pub grace_applied: bool,
    /// In order of time: by occurrence day, then window start.
    pub pieces: Vec<Piece>,
}

/// The part of a stay inside one occurrence of one segment's window.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct Piece {
    /// The segment's name, and its position in the payload as written.
    pub segment: String,
    /// The segment's position in the payload's list, from 0.
    pub segment_index: usize,
    /// How the segment prices its units.
    #[serde(rename = "type")]
    pub kind: SegmentType,
    /// The segment's daily window.
    pub window: Window,
    /// The day the occurrence belongs to (its start's date: a night window
    /// from 20:00 on D to 08:00 on D+1 belongs to D).
    pub occurrence: NaiveDate,
    /// Site-local wall clock at the instants the piece starts and ends (across
    /// a fall-back, a piece can be two stretches: its first start, last end).
    #[serde(serialize_with = "ser_wall", deserialize_with = "de_wall")]
    pub start: NaiveDateTime,
    /// Site-local wall clock at the instant the piece ends.
    #[serde(serialize_with = "ser_wall", deserialize_with = "de_wall")]
    pub end: NaiveDateTime,
    /// Real elapsed minutes of the stay inside the occurrence.
    pub minutes: i64,
    /// `ceil(minutes / unit_minutes)`; 0 for free segments and within grace.
    pub units: i64,
    /// How the units are priced: one line for periodic, one per tier used.
    pub lines: Vec<PriceLine>,
    /// The sum of the lines, before the cap.
    pub uncapped_amount: Money,
    /// The segment's cap: the most one occurrence costs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cap: Option<Money>,
    /// The cap lowered the amount (an amount exactly at the cap is not capped).
    pub cap_applied: bool,
    /// What the piece costs: the lines' sum, capped (0 within grace).
    pub amount: Money,
}

/// `units × unit_price = amount`; the units start at offset `from_minute`
/// of the piece (the tier boundary for tiered segments).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct PriceLine {
    /// Minutes from the piece's start to the line's first unit.
    pub from_minute: i64,
    /// How many units the line charges.
    pub units: i64,
    /// The price of each unit.
    pub unit_price: Money,
    /// `units × unit_price`.
    pub amount: Money,
}

/// Simulates a stay at a site in UTC: `entry` and `exit` are wall-clock
/// times at minute precision. Validates the payload first.
pub fn simulate(
    payload: &Payload,
    entry: NaiveDateTime,
    exit: NaiveDateTime,
) -> Result<Breakdown, BillingError> {
    payload.validate()?.simulate(entry, exit)
}

/// Simulates a stay at a site in `time_zone`, with wall-clock times there.
pub fn simulate_in(
    payload: &Payload,
    time_zone: Tz,
    entry: NaiveDateTime,
    exit: NaiveDateTime,
) -> Result<Breakdown, BillingError> {
    payload.validate()?.simulate_in(time_zone, entry, exit)
}

/// Simulates a stay between two instants, at the site in `entry`'s zone.
pub fn simulate_between(
    payload: &Payload,
    entry: &DateTime<Tz>,
    exit: &DateTime<Tz>,
) -> Result<Breakdown, BillingError> {
    payload.validate()?.simulate_between(entry, exit)
}

/// For front ends: the site's zone by name (`None` or empty: UTC) and the
/// times as typed (site-local `2026-03-02T08:00` or RFC 3339 with offset).
pub fn simulate_text(
    payload: &Payload,
    time_zone: Option<&str>,
    entry: &str,
    exit: &str,
) -> Result<Breakdown, BillingError> {
    let tz = site_time_zone(time_zone)?;
    let entry = parse_site_time_as("entry", entry, tz)?;
    let exit = parse_site_time_as("exit", exit, tz)?;
    simulate_between(payload, &entry, &exit)
}

impl Tariff {
    /// See [`simulate`].
    pub fn simulate(
        &self,
        entry: NaiveDateTime,
        exit: NaiveDateTime,
    ) -> Result<Breakdown, BillingError> {
        self.simulate_in(Tz::UTC, entry, exit)
    }

    /// See [`simulate_in`].
    pub fn simulate_in(
        &self,
        time_zone: Tz,
        entry: NaiveDateTime,
        exit: NaiveDateTime,
    ) -> Result<Breakdown, BillingError> {
        let entry = local_to_site(entry, time_zone)?;
        let exit = local_to_site(exit, time_zone)?;
        self.simulate_between(&entry, &exit)
    }

    /// See [`simulate_between`].
    pub fn simulate_between(
        &self,
        entry: &DateTime<Tz>,
        exit: &DateTime<Tz>,
    ) -> Result<Breakdown, BillingError> {
        let tz = entry.timezone();
        let exit = exit.with_timezone(&tz);
        let (entry_wall, exit_wall) = (entry.naive_local(), exit.naive_local());
        let show = |t: &NaiveDateTime| t.format(WALL_FORMAT).to_string();
        let a = real_minute(entry)?;
        let b = real_minute(&exit)?;
        if b < a {
            return Err(BillingError::ExitBeforeEntry {
                entry: show(&entry_wall),
                exit: show(&exit_wall),
            });
        }
        let stay = b - a;
        if stay > MAX_STAY_DAYS * MINUTES_PER_DAY {
            return Err(BillingError::StayTooLong {
                entry: show(&entry_wall),
                exit: show(&exit_wall),
                minutes: stay,
            });
        }

        let mut raw: Vec<RawPiece> = Vec::new();
        let mut stretches = 0;
        for_each_stretch(tz, a, b, |ws, we, off| {
            stretches += 1;
            self.cut(ws, we, off, &mut raw);
            Ok(())
        })?;
        if stretches > 1 {
            // A fall-back repeats wall-clock time: the same occurrence can be
            // reached from two stretches; one piece each, minutes added up.
            raw.sort_by_key(|p| (p.day, p.seg));
            raw.dedup_by(|later, kept| {
                if later.day == kept.day && later.seg == kept.seg {
                    kept.start = kept.start.min(later.start);
                    kept.end = kept.end.max(later.end);
                    kept.minutes += later.minutes;
                    true
                } else {
                    false
                }
            });
        }

        let grace = stay <= self.free_minutes() && self.free_minutes() > 0;
        let mut total = Money::ZERO;
        let mut pieces = Vec::with_capacity(raw.len());
        for p in raw {
            let seg = &self.segments()[p.seg];
            let (units, lines, uncapped) = if grace {
                (0, Vec::new(), Money::ZERO)
            } else {
                price(&seg.pricing, p.minutes)?
            };
            let cap_applied = seg.cap.is_some_and(|cap| uncapped > cap);
            let amount = match seg.cap {
                Some(cap) if cap_applied => cap,
                _ => uncapped,
            };
            total = total
                .checked_add(amount)
                .ok_or(BillingError::Overflow { what: "total" })?;
            let occurrence = wall_time(p.day * MINUTES_PER_DAY)?.date();
            pieces.push(Piece {
                segment: seg.name.clone(),
                segment_index: seg.index,
                kind: seg.pricing.segment_type(),
                window: seg.window,
                occurrence,
                start: local_at(tz, p.start)?,
                end: local_at(tz, p.end)?,
                minutes: p.minutes,
                units,
                lines,
                uncapped_amount: uncapped,
                cap: seg.cap,
                cap_applied,
                amount,
            });
        }
        Ok(Breakdown {
            total,
            time_zone: tz,
            entry: entry_wall,
            exit: exit_wall,
            stay_minutes: stay,
            free_minutes: self.free_minutes(),
            grace_applied: grace,
            pieces,
        })
    }

    /// Appends the pieces of the wall-clock minutes `[ws, we)`, one stretch
    /// of constant UTC offset `off` (wall = real + off, so wall minutes are
    /// real minutes), in order.
    fn cut(&self, ws: i64, we: i64, off: i64, out: &mut Vec<RawPiece>) {
        // A window crossing midnight reaches into the next day: start a day early.
        let first_day = ws.div_euclid(MINUTES_PER_DAY) - 1;
        let last_day = (we - 1).div_euclid(MINUTES_PER_DAY);
        for day in first_day..=last_day {
            let day_start = day * MINUTES_PER_DAY;
            for (seg, s) in self.segments().iter().enumerate() {
                let lo = ws.max(day_start + s.window.start);
                let hi = we.min(day_start + s.window.end_from_day_start());
                if hi > lo {
                    out.push(RawPiece {
                        seg,
                        day,
                        start: lo - off,
                        end: hi - off,
                        minutes: hi - lo,
                    });
                }
            }
        }
    }
}

/// A piece before pricing: segment position in the tariff, occurrence day
/// (days since the epoch), first and last real minute boundary, real minutes.
struct RawPiece {
    seg: usize,
    day: i64,
    start: i64,
    end: i64,
    minutes: i64,
}

/// Units, price lines and the amount before the cap for a piece of `minutes`.
fn price(pricing: &Pricing, minutes: i64) -> Result<(i64, Vec<PriceLine>, Money), BillingError> {
    let overflow = BillingError::Overflow {
        what: "a piece's amount",
    };
    match pricing {
        Pricing::Free => Ok((0, Vec::new(), Money::ZERO)),
        Pricing::Periodic {
            unit_minutes,
            unit_price,
        } => {
            let units = ceil_div(minutes, *unit_minutes);
            let amount = unit_price.checked_mul(units).ok_or(overflow)?;
            let line = PriceLine {
                from_minute: 0,
                units,
                unit_price: *unit_price,
                amount,
            };
            Ok((units, vec![line], amount))
        }
        Pricing::Tiered {
            unit_minutes,
            tiers,
        } => {
            let units = ceil_div(minutes, *unit_minutes);
            let mut lines = Vec::new();
            let mut total = Money::ZERO;
            // Unit k starts at k × unit_minutes and takes the first tier whose
            // bound is above that offset: tier i gets units
            // [ceil(prev_bound / u), ceil(bound / u)) ∩ [0, units).
            let mut from_unit = 0;
            for tier in tiers {
                if from_unit >= units {
                    break;
                }
                let to_unit = match tier.up_to_minutes {
                    Some(bound) => ceil_div(bound, *unit_minutes).min(units),
                    None => units,
                };
                if to_unit > from_unit {
                    let n = to_unit - from_unit;
                    let amount = tier.unit_price.checked_mul(n).ok_or(overflow.clone())?;
                    total = total.checked_add(amount).ok_or(overflow.clone())?;
                    lines.push(PriceLine {
                        from_minute: from_unit * unit_minutes,
                        units: n,
                        unit_price: tier.unit_price,
                        amount,
                    });
                    from_unit = to_unit;
                }
            }
            Ok((units, lines, total))
        }
    }
}

/// `ceil(n / d)` for `n >= 0`, `d > 0`, without overflow.
fn ceil_div(n: i64, d: i64) -> i64 {
    n / d + i64::from(n % d != 0)
}

fn ser_wall<S: Serializer>(t: &NaiveDateTime, s: S) -> Result<S::Ok, S::Error> {
    s.collect_str(&t.format(WALL_FORMAT))
}

fn de_wall<'de, D: Deserializer<'de>>(d: D) -> Result<NaiveDateTime, D::Error> {
    let text = String::deserialize(d)?;
    NaiveDateTime::parse_from_str(&text, WALL_FORMAT).map_err(serde::de::Error::custom)
}

fn ser_tz<S: Serializer>(tz: &Tz, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(tz.name())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(s: &str) -> NaiveDateTime {
        NaiveDateTime::parse_from_str(s, WALL_FORMAT).unwrap()
    }

    fn day_night() -> Payload {
        Payload::from_json(
            r#"{"segments": [
                {"name": "day", "window": "08:00-20:00", "type": "periodic",
                 "unit_minutes": 30, "unit_price": "2.00", "cap": "20.00"},
                {"name": "night", "window": "20:00-08:00", "type": "free"}]}"#,
        )
        .unwrap()
    }

    #[test]
    fn worked_example_pieces() {
        let b = simulate(&day_night(), t("2026-03-02T10:00"), t("2026-03-05T09:10")).unwrap();
        assert_eq!(b.total.to_string(), "66.00");
        let shown: Vec<String> = b
            .pieces
            .iter()
            .map(|p| format!("{} {} {} {}", p.segment, p.occurrence, p.minutes, p.amount))
            .collect();
        assert_eq!(
            shown,
            [
                "day 2026-03-02 600 20.00",
                "night 2026-03-02 720 0.00",
                "day 2026-03-03 720 20.00",
                "night 2026-03-03 720 0.00",
                "day 2026-03-04 720 20.00",
                "night 2026-03-04 720 0.00",
                "day 2026-03-05 70 6.00",
            ]
        );
        assert!(b.pieces[0].cap_applied);
        assert!(!b.pieces[6].cap_applied);
    }

    #[test]
    fn tier_units_split_at_bounds() {
        let tiers = |bounds: &[Option<i64>]| Pricing::Tiered {
            unit_minutes: 30,
            tiers: bounds
                .iter()
                .enumerate()
                .map(|(i, b)| super::super::payload::PriceTier {
                    up_to_minutes: *b,
                    unit_price: Money::from_cents(100 * (i as i64 + 1)),
                })
                .collect(),
        };
        // 121 min: 5 units; bound 100 → units at offsets 0, 30, 60, 90 in tier 0.
        let (units, lines, total) = price(&tiers(&[Some(100), None]), 121).unwrap();
        assert_eq!(units, 5);
        assert_eq!(total.cents(), 4 * 100 + 200);
        assert_eq!(lines[1].from_minute, 120);
        // Two bounds in the same unit: the middle tier gets nothing.
        let (_, lines, total) = price(&tiers(&[Some(100), Some(110), None]), 150).unwrap();
        assert_eq!(lines.len(), 2);
        assert_eq!(total.cents(), 4 * 100 + 300);
    }
}
