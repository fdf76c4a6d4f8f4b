//! Times as people type them, one parser for every CLI flag and api field
//! that takes a time (billing's entry, exit and import times, the knowledge
//! store's validity time):
//!
//! - `YYYY-MM-DD`: the start of that day, local time;
//! - `YYYY-MM-DDTHH:MM` (also `:SS`, or a space instead of `T`): local time;
//! - RFC 3339 with an offset (`2026-03-02T08:00:00+08:00`, `...Z`; seconds
//!   may be left out: `2026-03-02T08:00+08:00`).
//!
//! "Local" is the caller's: a billing site's time zone, the machine's zone
//! for a knowledge validity time. An error names the field, the value and
//! the accepted forms. Pure: no I/O, no clock.

use chrono::{DateTime, FixedOffset, NaiveDate, NaiveDateTime, TimeZone, Utc};

/// The accepted forms, as every error states them.
pub const FORMS: &str = "YYYY-MM-DD, YYYY-MM-DDTHH:MM (local time) or RFC 3339 with an offset \
                         (2026-03-02T08:00:00+08:00, 2026-03-02T00:00:00Z)";

/// A time as typed: a local wall-clock time, or an instant with its offset.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum When {
    /// No offset given: a wall-clock time in the caller's zone (a date alone
    /// is its midnight).
    Local(NaiveDateTime),
    /// An offset given: that instant, with the offset it was written in.
    Instant(DateTime<FixedOffset>),
}

/// A time that is not in one of the [`FORMS`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {value:?} is not a time: use {FORMS}")]
pub struct WhenError {
    /// The field the time was given for (a CLI flag, an api field).
    pub field: String,
    /// The text as given.
    pub value: String,
}

const LOCAL_FORMS: [&str; 4] = [
    "%Y-%m-%dT%H:%M",
    "%Y-%m-%dT%H:%M:%S",
    "%Y-%m-%d %H:%M",
    "%Y-%m-%d %H:%M:%S",
];

/// Parses `text` (the value of `field`, named in the error).
pub fn parse(field: &str, text: &str) -> Result<When, WhenError> {
    let s = text.trim();
    let bad = || WhenError {
        field: field.to_owned(),
        value: text.to_owned(),
    };
    if s.is_empty() || s.len() > 40 {
        return Err(bad());
    }
    if let Ok(d) = NaiveDate::parse_from_str(s, "%Y-%m-%d") {
        return d.and_hms_opt(0, 0, 0).map(When::Local).ok_or_else(bad);
    }
    if let Some(t) = LOCAL_FORMS
        .iter()
        .find_map(|f| NaiveDateTime::parse_from_str(s, f).ok())
    {
        return Ok(When::Local(t));
    }
    let zulu = |s: &str| {
        let body = s.strip_suffix('Z').or_else(|| s.strip_suffix('z'))?;
        LOCAL_FORMS[..2]
            .iter()
            .find_map(|f| NaiveDateTime::parse_from_str(body, f).ok())
            .map(|t| t.and_utc().fixed_offset())
    };
    DateTime::parse_from_rfc3339(s)
        .ok()
        .or_else(|| DateTime::parse_from_str(s, "%Y-%m-%dT%H:%M%:z").ok())
        .or_else(|| DateTime::parse_from_str(&s.replacen(' ', "T", 1), "%Y-%m-%dT%H:%M:%S%:z").ok())
        .or_else(|| zulu(s))
        .map(When::Instant)
        .ok_or_else(bad)
}

impl When {
    /// The instant, reading a local time in `tz` (a wall time a DST change
    /// skips or repeats: the earlier reading, or the one after the gap).
    pub fn in_zone<Z: TimeZone>(self, tz: &Z) -> DateTime<Utc> {
        match self {
            When::Instant(t) => t.with_timezone(&Utc),
            When::Local(naive) => match tz.from_local_datetime(&naive) {
                chrono::LocalResult::Single(t) | chrono::LocalResult::Ambiguous(t, _) => {
                    t.with_timezone(&Utc)
                }
                // In a gap: the same wall reading an hour later exists.
                chrono::LocalResult::None => {
                    let later = naive + chrono::Duration::hours(1);
                    tz.from_local_datetime(&later)
                        .earliest()
                        .map(|t| t.with_timezone(&Utc))
                        .unwrap_or_else(|| naive.and_utc())
                }
            },
        }
    }
}

/// `text` as a UTC instant, a local time read in the machine's zone: how
/// a time typed into a form (an authorization's time) is kept.
pub fn to_utc(field: &str, text: &str) -> Result<DateTime<Utc>, WhenError> {
    Ok(parse(field, text)?.in_zone(&chrono::Local))
}

/// `text` as an RFC 3339 UTC time (`2026-03-02T08:00:00Z`), a local time
/// read in the machine's zone: how the knowledge store's validity time is
/// passed on.
pub fn to_utc_rfc3339(field: &str, text: &str) -> Result<String, WhenError> {
    Ok(to_utc(field, text)?
        .format("%Y-%m-%dT%H:%M:%SZ")
        .to_string())
}

/// A stored RFC 3339 instant as a person reads it: the machine's local
/// time with its offset, `2026-11-24 14:26 (UTC-05:00)` (as stored if it
/// does not parse).
pub fn local_display(rfc3339: &str) -> String {
    DateTime::parse_from_rfc3339(rfc3339)
        .map(|t| local_display_of(t.with_timezone(&Utc)))
        .unwrap_or_else(|_| rfc3339.to_string())
}

/// An instant as a person reads it, as [`local_display`] shows it.
pub fn local_display_of(t: DateTime<Utc>) -> String {
    t.with_timezone(&chrono::Local)
        .format("%Y-%m-%d %H:%M (UTC%:z)")
        .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn local(s: &str) -> When {
        When::Local(NaiveDateTime::parse_from_str(s, "%Y-%m-%dT%H:%M:%S").unwrap())
    }

    #[test]
    fn the_forms_people_type() {
        assert_eq!(
            parse("at", "2025-06-01").unwrap(),
            local("2025-06-01T00:00:00")
        );
        assert_eq!(
            parse("at", "2025-06-01T12:00").unwrap(),
            local("2025-06-01T12:00:00")
        );
        assert_eq!(
            parse("at", " 2025-06-01 12:00:30 ").unwrap(),
            local("2025-06-01T12:00:30")
        );
        for (text, utc) in [
            ("2025-06-01T12:00:00+08:00", "2025-06-01T04:00:00Z"),
            ("2025-06-01T12:00+08:00", "2025-06-01T04:00:00Z"),
            ("2025-06-01T12:00Z", "2025-06-01T12:00:00Z"),
            ("2025-06-01T12:00:00Z", "2025-06-01T12:00:00Z"),
        ] {
            let When::Instant(t) = parse("at", text).unwrap() else {
                panic!("{text} is an instant")
            };
            assert_eq!(
                t.with_timezone(&Utc)
                    .format("%Y-%m-%dT%H:%M:%SZ")
                    .to_string(),
                utc
            );
        }
    }

    #[test]
    fn errors_name_the_field_and_the_forms() {
        for bad in [
            "",
            "yesterday",
            "2025-13-01",
            "2025-06-01T25:00",
            "01/06/2025",
            "2025-06-01 9am",
        ] {
            let e = parse("entry", bad).unwrap_err().to_string();
            assert!(
                e.starts_with(&format!("entry: {bad:?} is not a time: use YYYY-MM-DD, ")),
                "{e}"
            );
            assert!(e.contains("RFC 3339"), "{e}");
        }
        let long = "9".repeat(10_000);
        assert!(parse("at", &long).is_err());
    }

    #[test]
    fn local_times_in_a_zone() {
        let sh = chrono_tz::Asia::Shanghai;
        let t = parse("at", "2026-03-02T08:00").unwrap().in_zone(&sh);
        assert_eq!(t.format("%Y-%m-%dT%H:%MZ").to_string(), "2026-03-02T00:00Z");
        // Spring forward in Los Angeles: 02:30 does not exist.
        let la = chrono_tz::America::Los_Angeles;
        let t = parse("at", "2026-03-08T02:30").unwrap().in_zone(&la);
        assert_eq!(t.format("%H:%M").to_string(), "10:30");
    }
}
