//! Site time: parsing stay times (site-local wall clock at minute precision,
//! or RFC 3339 with an offset converted to the site's IANA zone), and cutting
//! a stay into stretches of constant UTC offset so the calculator can work on
//! wall-clock minutes while counting real elapsed minutes across DST changes.
//!
//! Minutes are counted from the Unix epoch: a *wall minute* is the local
//! clock reading as if it were UTC, a *real minute* is the instant. Within one
//! stretch the two differ by a constant, so a stretch's wall length is its
//! real length.

use chrono::{DateTime, LocalResult, NaiveDateTime, Offset, TimeZone, Timelike};
use chrono_tz::Tz;

use super::BillingError;
use servicedesk_when::When;

pub const MINUTES_PER_DAY: i64 = 1440;

/// The longest stay the calculator accepts, in days.
pub const MAX_STAY_DAYS: i64 = 400;

/// The format of a site-local time at every boundary: `2026-03-02T08:00`.
pub const WALL_FORMAT: &str = "%Y-%m-%dT%H:%M";

/// A site's IANA time zone by name (`"America/Los_Angeles"`, `"UTC"`).
pub fn parse_time_zone(name: &str) -> Result<Tz, BillingError> {
    name.trim()
        .parse::<Tz>()
        .map_err(|_| BillingError::TimeZone(name.to_owned()))
}

/// A site's time zone, `UTC` when none is set.
pub fn site_time_zone(name: Option<&str>) -> Result<Tz, BillingError> {
    match name {
        None => Ok(Tz::UTC),
        Some(n) if n.trim().is_empty() => Ok(Tz::UTC),
        Some(n) => parse_time_zone(n),
    }
}

/// Parses a stay time for a site in `tz`, in one of the forms of
/// [`servicedesk_when`]:
/// - a site-local date `2026-03-02` (its midnight) or wall clock
///   `2026-03-02T08:00` (also with `:00` seconds, or a space instead of `T`);
///   a wall time the clocks skip (spring forward) is an error, one they show
///   twice (fall back) is the earlier instant — give an offset to mean the
///   later one;
/// - RFC 3339 with an offset (`2026-03-02T08:00:00+08:00`, `...Z`), converted
///   to site time.
///
/// Seconds, if given, must be `:00`: charges are exact to the minute.
pub fn parse_site_time(text: &str, tz: Tz) -> Result<DateTime<Tz>, BillingError> {
    let bad = |reason: String| BillingError::Time {
        value: text.to_owned(),
        reason,
    };
    match servicedesk_when::parse("time", text) {
        Ok(When::Local(naive)) => {
            check_whole_minute(&naive).map_err(bad)?;
            local_to_site(naive, tz)
        }
        Ok(When::Instant(fixed)) => {
            check_whole_minute(&fixed.naive_local()).map_err(bad)?;
            Ok(fixed.with_timezone(&tz))
        }
        Err(_) => Err(bad(format!("use {}", servicedesk_when::FORMS))),
    }
}

/// [`parse_site_time`] for the value of `field`, named in the error
/// (`entry: "9am" is not a time: use YYYY-MM-DD, ...`).
pub fn parse_site_time_as(field: &str, text: &str, tz: Tz) -> Result<DateTime<Tz>, BillingError> {
    parse_site_time(text, tz).map_err(|e| match e {
        BillingError::Time { value, reason } => BillingError::TimeField {
            field: field.to_owned(),
            value,
            reason,
        },
        other => other,
    })
}

/// A site-local wall-clock time in `tz` as an instant; see [`parse_site_time`]
/// for skipped and repeated wall times.
pub fn local_to_site(naive: NaiveDateTime, tz: Tz) -> Result<DateTime<Tz>, BillingError> {
    check_whole_minute(&naive).map_err(|reason| BillingError::Time {
        value: naive.to_string(),
        reason,
    })?;
    match tz.from_local_datetime(&naive) {
        LocalResult::Single(t) => Ok(t),
        LocalResult::Ambiguous(earlier, _) => Ok(earlier),
        LocalResult::None => Err(BillingError::Time {
            value: naive.format(WALL_FORMAT).to_string(),
            reason: format!(
                "this wall-clock time does not exist in {} (the clocks skip it for \
                 daylight saving time); give the time with its UTC offset",
                tz.name()
            ),
        }),
    }
}

fn check_whole_minute(t: &NaiveDateTime) -> Result<(), String> {
    if t.second() != 0 || t.nanosecond() != 0 {
        return Err("seconds must be :00 (charges are exact to the minute)".to_owned());
    }
    Ok(())
}

/// The real minute (since the Unix epoch) of an instant. An instant off the
/// minute only arises from a zone whose offset has seconds (local mean time
/// before 1900 or so); that is refused.
pub(crate) fn real_minute(t: &DateTime<Tz>) -> Result<i64, BillingError> {
    let secs = t.timestamp();
    if secs.rem_euclid(60) != 0 {
        return Err(BillingError::Time {
            value: t.naive_local().to_string(),
            reason: format!(
                "{} had a UTC offset of {} at that time, not a whole number of minutes",
                t.timezone().name(),
                t.offset().fix()
            ),
        });
    }
    Ok(secs.div_euclid(60))
}

/// A wall minute back as a naive wall-clock time.
pub(crate) fn wall_time(minute: i64) -> Result<NaiveDateTime, BillingError> {
    minute
        .checked_mul(60)
        .and_then(|s| DateTime::from_timestamp(s, 0))
        .map(|d| d.naive_utc())
        .ok_or(BillingError::Overflow { what: "time" })
}

fn is_utc(tz: Tz) -> bool {
    matches!(
        tz,
        Tz::UTC
            | Tz::Etc__UTC
            | Tz::GMT
            | Tz::Etc__GMT
            | Tz::Universal
            | Tz::Etc__Universal
            | Tz::Zulu
            | Tz::Etc__Zulu
    )
}

/// The UTC offset of `tz` at real minute `m`, in seconds.
fn offset_secs(tz: Tz, m: i64) -> Result<i32, BillingError> {
    let utc = m
        .checked_mul(60)
        .and_then(|s| DateTime::from_timestamp(s, 0))
        .ok_or(BillingError::Overflow { what: "time" })?;
    Ok(tz
        .offset_from_utc_datetime(&utc.naive_utc())
        .fix()
        .local_minus_utc())
}

fn offset_minutes(tz: Tz, m: i64) -> Result<i64, BillingError> {
    let secs = offset_secs(tz, m)?;
    if secs % 60 != 0 {
        return Err(BillingError::Time {
            value: wall_time(m)?.format(WALL_FORMAT).to_string() + " UTC",
            reason: format!(
                "{} had a UTC offset of {secs} seconds then, not a whole number of minutes",
                tz.name()
            ),
        });
    }
    Ok(i64::from(secs / 60))
}

/// Calls `f(wall_start, wall_end, offset)` for each stretch of constant UTC offset
/// in the real minutes `[start, end)`, in order. The stretches' wall lengths
/// add up to `end - start`. Across a spring-forward the wall clock jumps
/// between two stretches; across a fall-back it repeats.
///
/// Offsets are sampled once a day and a change is located by bisection, so
/// the cost grows with days, not minutes (zones never change offset twice
/// within a day and back).
pub(crate) fn for_each_stretch(
    tz: Tz,
    start: i64,
    end: i64,
    mut f: impl FnMut(i64, i64, i64) -> Result<(), BillingError>,
) -> Result<(), BillingError> {
    if end <= start {
        return Ok(());
    }
    if is_utc(tz) {
        return f(start, end, 0);
    }
    let last = end - 1;
    let mut cur = start;
    let mut off = offset_minutes(tz, start)?;
    let mut probe = start;
    while probe < last {
        let next = (probe + MINUTES_PER_DAY).min(last);
        let next_off = offset_minutes(tz, next)?;
        if next_off == off {
            probe = next;
            continue;
        }
        // off(lo) == off, off(hi) != off: find the first minute of the new offset.
        let (mut lo, mut hi) = (probe, next);
        while hi - lo > 1 {
            let mid = lo + (hi - lo) / 2;
            if offset_minutes(tz, mid)? == off {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        f(cur + off, hi + off, off)?;
        cur = hi;
        off = offset_minutes(tz, hi)?;
        probe = hi;
    }
    f(cur + off, end + off, off)
}

/// The site-local wall clock at real minute `m`.
pub(crate) fn local_at(tz: Tz, m: i64) -> Result<NaiveDateTime, BillingError> {
    if is_utc(tz) {
        return wall_time(m);
    }
    let utc = m
        .checked_mul(60)
        .and_then(|s| DateTime::from_timestamp(s, 0))
        .ok_or(BillingError::Overflow { what: "time" })?;
    Ok(utc.with_timezone(&tz).naive_local())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn la() -> Tz {
        parse_time_zone("America/Los_Angeles").unwrap()
    }

    #[test]
    fn parses_local_and_offset_times() {
        let t = parse_site_time("2026-03-02T08:00", Tz::UTC).unwrap();
        assert_eq!(
            t.naive_local().format(WALL_FORMAT).to_string(),
            "2026-03-02T08:00"
        );
        let t = parse_site_time("2026-03-02 08:00:00", Tz::UTC).unwrap();
        assert_eq!(
            t.naive_local().format(WALL_FORMAT).to_string(),
            "2026-03-02T08:00"
        );
        let sh = parse_time_zone("Asia/Shanghai").unwrap();
        let t = parse_site_time("2026-02-28T16:00:00Z", sh).unwrap();
        assert_eq!(
            t.naive_local().format(WALL_FORMAT).to_string(),
            "2026-03-01T00:00"
        );
        let t = parse_site_time("2026-03-02T08:00+01:00", Tz::UTC).unwrap();
        assert_eq!(
            t.naive_local().format(WALL_FORMAT).to_string(),
            "2026-03-02T07:00"
        );
    }

    #[test]
    fn refuses_seconds_garbage_and_skipped_times() {
        let e = parse_site_time("2026-03-02T08:00:30", Tz::UTC)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("seconds must be :00") && e.contains("08:00:30"),
            "{e}"
        );
        let e = parse_site_time("yesterday", Tz::UTC)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("\"yesterday\"") && e.contains("2026-03-02T08:00"),
            "{e}"
        );
        let e = parse_site_time("2026-02-30T08:00", Tz::UTC)
            .unwrap_err()
            .to_string();
        assert!(e.contains("2026-02-30T08:00"), "{e}");
        let e = parse_site_time("2026-03-08T02:30", la())
            .unwrap_err()
            .to_string();
        assert!(e.contains("does not exist in America/Los_Angeles"), "{e}");
        let e = parse_time_zone("Mars/Olympus").unwrap_err().to_string();
        assert!(e.contains("Mars/Olympus"), "{e}");
    }

    #[test]
    fn a_repeated_wall_time_is_the_earlier_instant() {
        let t = parse_site_time("2026-11-01T01:30", la()).unwrap();
        assert_eq!(t.offset().fix().local_minus_utc(), -7 * 3600);
        let t = parse_site_time("2026-11-01T01:30:00-08:00", la()).unwrap();
        assert_eq!(t.offset().fix().local_minus_utc(), -8 * 3600);
    }

    #[test]
    fn stretches_split_at_dst_changes() {
        let tz = la();
        let a = real_minute(&parse_site_time("2026-03-07T12:00", tz).unwrap()).unwrap();
        let b = real_minute(&parse_site_time("2026-03-09T12:00", tz).unwrap()).unwrap();
        let mut got = Vec::new();
        for_each_stretch(tz, a, b, |s, e, _| {
            got.push((wall_time(s)?, wall_time(e)?, e - s));
            Ok(())
        })
        .unwrap();
        let fmt = |t: NaiveDateTime| t.format(WALL_FORMAT).to_string();
        let got: Vec<_> = got
            .into_iter()
            .map(|(s, e, n)| (fmt(s), fmt(e), n))
            .collect();
        assert_eq!(
            got,
            vec![
                (
                    "2026-03-07T12:00".into(),
                    "2026-03-08T02:00".into(),
                    14 * 60
                ),
                (
                    "2026-03-08T03:00".into(),
                    "2026-03-09T12:00".into(),
                    33 * 60
                ),
            ]
        );
        assert_eq!(b - a, 47 * 60);
    }
}
