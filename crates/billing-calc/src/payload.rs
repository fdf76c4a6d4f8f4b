//! A rule version's payload: the JSON shape stored with every version
//! (`free_minutes` and `segments`, each with a daily `window` and a `free`,
//! `periodic` or `tiered` price), and its validation into a [`Tariff`], the
//! checked form the calculator runs on. Every validation error names the
//! segment (index and name) and the field.

use std::fmt;
use ts_rs::TS;

use serde::{Deserialize, Serialize, Serializer};

use super::money::Money;
use super::time::{MAX_STAY_DAYS, MINUTES_PER_DAY};
use super::{BillingError, WindowOverlap};

/// A payload as written in JSON. Fields are kept loose here (strings, options)
/// so that [`Payload::validate`] can say exactly which segment and field is
/// wrong; the calculator runs on the validated [`Tariff`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
pub struct Payload {
    /// Grace period for the whole stay: a stay of at most this many minutes
    /// costs 0; a longer one is charged in full from entry.
    #[serde(default)]
    pub free_minutes: i64,
    /// The daily windows and how each is priced; together they cover the day
    /// at most once.
    #[serde(default)]
    pub segments: Vec<Segment>,
}

/// One daily window of a payload and how stays inside it are priced, as
/// written (checked by [`Payload::validate`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
pub struct Segment {
    /// Its name in breakdowns and explanations ("day", "night").
    #[serde(default)]
    pub name: String,
    /// `HH:MM-HH:MM`; `00:00-24:00` is the whole day; a start later than the
    /// end crosses midnight.
    #[serde(default)]
    pub window: String,
    /// `free`, `periodic` or `tiered`.
    #[serde(rename = "type", default)]
    pub kind: String,
    /// The length of a unit (periodic and tiered): a started unit is charged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unit_minutes: Option<i64>,
    /// The price of a unit (periodic).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unit_price: Option<Money>,
    /// The unit prices by offset into the piece (tiered).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tiers: Option<Vec<Tier>>,
    /// The most one occurrence of the window costs (it resets every day).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cap: Option<Money>,
}

/// One price of a tiered segment, as written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
pub struct Tier {
    /// Units starting before this offset (minutes from the start of the
    /// piece) take this tier's price; `null` on the last tier: no limit.
    #[serde(default)]
    pub up_to_minutes: Option<i64>,
    /// The price of each unit in this tier.
    pub unit_price: Money,
}

/// A payload of the wrong shape, with the path of the field at fault
/// first where there is one.
fn shape_error<E: std::fmt::Display>(e: serde_path_to_error::Error<E>) -> BillingError {
    let path = e.path().to_string();
    let inner = e.into_inner();
    BillingError::PayloadJson(if path == "." {
        inner.to_string()
    } else {
        format!("{path}: {inner}")
    })
}

impl Payload {
    /// Parses a payload from JSON text; syntax and type errors keep serde's
    /// line and column, and name the field they are in
    /// ("segments[0].tiers[1].unit_price: invalid amount ...").
    pub fn from_json(text: &str) -> Result<Payload, BillingError> {
        let mut de = serde_json::Deserializer::from_str(text);
        serde_path_to_error::deserialize(&mut de).map_err(shape_error)
    }

    /// A payload from an already parsed JSON value (as stored in a database
    /// or sent by the app's rule editor); errors name the field.
    pub fn from_value(value: serde_json::Value) -> Result<Payload, BillingError> {
        serde_path_to_error::deserialize(value).map_err(shape_error)
    }

    /// Checks everything the calculator relies on and compiles the payload:
    /// window syntax and overlaps, the fields each type needs (and no others),
    /// positive units, non-negative prices, tiers in increasing order with an
    /// open-ended last tier, and caps no lower than the first unit's price.
    pub fn validate(&self) -> Result<Tariff, BillingError> {
        if self.free_minutes < 0 || self.free_minutes > MAX_STAY_DAYS * MINUTES_PER_DAY {
            return Err(BillingError::Payload {
                field: "free_minutes",
                problem: format!(
                    "must be between 0 and {} (the longest stay), got {}",
                    MAX_STAY_DAYS * MINUTES_PER_DAY,
                    self.free_minutes
                ),
            });
        }
        if self.segments.is_empty() {
            return Err(BillingError::Payload {
                field: "segments",
                problem: "no segments: a payload needs at least one window".to_owned(),
            });
        }
        let mut segments = Vec::with_capacity(self.segments.len());
        for (index, seg) in self.segments.iter().enumerate() {
            segments.push(seg.compile(index)?);
        }
        for (i, a) in segments.iter().enumerate() {
            for b in &segments[i + 1..] {
                if let Some(at) = a.window.first_shared_minute(&b.window) {
                    return Err(BillingError::Overlap(Box::new(WindowOverlap {
                        first: a.index,
                        first_name: a.name.clone(),
                        first_window: a.window.to_string(),
                        second: b.index,
                        second_name: b.name.clone(),
                        second_window: b.window.to_string(),
                        at: clock(at),
                    })));
                }
            }
        }
        segments.sort_by_key(|s| s.window.start);
        Ok(Tariff {
            free_minutes: self.free_minutes,
            segments,
        })
    }
}

impl Segment {
    fn compile(&self, index: usize) -> Result<TariffSegment, BillingError> {
        let err = |field: &str, problem: String| BillingError::Segment {
            index,
            name: self.name.clone(),
            field: field.to_owned(),
            problem,
        };
        if self.name.trim().is_empty() {
            return Err(err("name", "missing or empty".to_owned()));
        }
        if self.window.is_empty() {
            return Err(err(
                "window",
                "missing; expected HH:MM-HH:MM like \"08:00-20:00\"".to_owned(),
            ));
        }
        let window = Window::parse(&self.window).map_err(|p| err("window", p))?;
        let non_negative = |field: &str, m: Money| {
            if m.is_negative() {
                Err(err(field, format!("may not be negative, got {m}")))
            } else {
                Ok(m)
            }
        };
        let unit_minutes = || -> Result<i64, BillingError> {
            match self.unit_minutes {
                None => Err(err(
                    "unit_minutes",
                    format!("missing (required for type {})", self.kind),
                )),
                Some(u) if !(1..=MINUTES_PER_DAY).contains(&u) => Err(err(
                    "unit_minutes",
                    format!("must be between 1 and {MINUTES_PER_DAY}, got {u}"),
                )),
                Some(u) => Ok(u),
            }
        };
        let not_for = |field: &str, present: bool| {
            if present {
                Err(err(field, format!("does not apply to type {}", self.kind)))
            } else {
                Ok(())
            }
        };
        let pricing = match self.kind.as_str() {
            "free" => {
                not_for("unit_minutes", self.unit_minutes.is_some())?;
                not_for("unit_price", self.unit_price.is_some())?;
                not_for("tiers", self.tiers.is_some())?;
                not_for("cap", self.cap.is_some())?;
                Pricing::Free
            }
            "periodic" => {
                not_for("tiers", self.tiers.is_some())?;
                let unit_minutes = unit_minutes()?;
                let unit_price = self.unit_price.ok_or_else(|| {
                    err(
                        "unit_price",
                        "missing (required for type periodic)".to_owned(),
                    )
                })?;
                Pricing::Periodic {
                    unit_minutes,
                    unit_price: non_negative("unit_price", unit_price)?,
                }
            }
            "tiered" => {
                not_for("unit_price", self.unit_price.is_some())?;
                let unit_minutes = unit_minutes()?;
                let raw = match &self.tiers {
                    Some(t) if !t.is_empty() => t,
                    _ => {
                        return Err(err(
                            "tiers",
                            "missing or empty (required for type tiered)".to_owned(),
                        ))
                    }
                };
                let mut tiers = Vec::with_capacity(raw.len());
                let mut previous: Option<i64> = None;
                for (k, tier) in raw.iter().enumerate() {
                    let last = k + 1 == raw.len();
                    let field = format!("tiers[{k}].up_to_minutes");
                    match (tier.up_to_minutes, last) {
                        (None, false) => {
                            return Err(err(
                                &field,
                                "only the last tier may be open-ended (null)".to_owned(),
                            ))
                        }
                        (Some(up), true) => {
                            return Err(err(
                                &field,
                                format!(
                                    "the last tier must be open-ended (null), got {up}: \
                                     a piece longer than that would have no price"
                                ),
                            ))
                        }
                        (Some(up), false) if up <= 0 => {
                            return Err(err(&field, format!("must be positive, got {up}")))
                        }
                        (Some(up), false) if previous.is_some_and(|p| up <= p) => {
                            return Err(err(
                                &field,
                                format!(
                                    "tiers out of order: {up} is not greater than the \
                                     previous tier's {}",
                                    previous.unwrap_or_default()
                                ),
                            ))
                        }
                        _ => {}
                    }
                    previous = tier.up_to_minutes;
                    let price = non_negative(&format!("tiers[{k}].unit_price"), tier.unit_price)?;
                    tiers.push(PriceTier {
                        up_to_minutes: tier.up_to_minutes,
                        unit_price: price,
                    });
                }
                Pricing::Tiered {
                    unit_minutes,
                    tiers,
                }
            }
            "" => {
                return Err(err(
                    "type",
                    "missing; expected free, periodic or tiered".to_owned(),
                ))
            }
            other => {
                return Err(err(
                    "type",
                    format!("unknown type {other:?}; expected free, periodic or tiered"),
                ))
            }
        };
        let cap = match self.cap {
            None => None,
            Some(cap) => {
                let cap = non_negative("cap", cap)?;
                if let Some(first) = pricing.first_unit_price() {
                    if cap < first {
                        return Err(err(
                            "cap",
                            format!(
                                "{cap} is below the price of the first unit ({first}): \
                                 every piece would cost the cap"
                            ),
                        ));
                    }
                }
                Some(cap)
            }
        };
        Ok(TariffSegment {
            index,
            name: self.name.clone(),
            window,
            pricing,
            cap,
        })
    }
}

/// A daily window in minutes of the day: `start` in `0..1440`, `end` in
/// `0..=1440`, `start != end`. `end <= start` crosses midnight. On the wire
/// it is `HH:MM-HH:MM`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, TS)]
#[ts(type = "string")]
pub struct Window {
    /// The first minute of the day inside the window.
    pub start: i64,
    /// The minute of the day the window ends at (exclusive).
    pub end: i64,
}

impl Window {
    /// Parses `HH:MM-HH:MM` (`24:00` allowed as an end only).
    pub fn parse(text: &str) -> Result<Window, String> {
        let syntax = || format!("{text:?} is not HH:MM-HH:MM (like \"08:00-20:00\")");
        let (a, b) = text.trim().split_once('-').ok_or_else(syntax)?;
        let start = parse_clock(a.trim()).ok_or_else(syntax)?;
        let end = parse_clock(b.trim()).ok_or_else(syntax)?;
        if start == MINUTES_PER_DAY {
            return Err(format!("{text:?}: a window may not start at 24:00"));
        }
        if start == end || (start == 0 && end == 0) {
            return Err(format!(
                "{text:?}: start equals end; write 00:00-24:00 for the whole day"
            ));
        }
        Ok(Window { start, end })
    }

    /// The window ends on the next day (`end <= start`).
    pub fn crosses_midnight(&self) -> bool {
        self.end <= self.start
    }

    /// The end in minutes from the start of the occurrence's own day
    /// (past 1440 for a window crossing midnight).
    pub fn end_from_day_start(&self) -> i64 {
        if self.crosses_midnight() {
            self.end + MINUTES_PER_DAY
        } else {
            self.end
        }
    }

    /// Minutes of one occurrence on the wall clock.
    pub fn len(&self) -> i64 {
        self.end_from_day_start() - self.start
    }

    /// Never empty (start equal to end is refused); for API symmetry.
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The window as at most two ranges of minutes of the day.
    fn ranges(&self) -> [(i64, i64); 2] {
        if self.crosses_midnight() {
            [(self.start, MINUTES_PER_DAY), (0, self.end)]
        } else {
            [(self.start, self.end), (0, 0)]
        }
    }

    /// The first minute of the day both windows cover, if any.
    fn first_shared_minute(&self, other: &Window) -> Option<i64> {
        let mut first: Option<i64> = None;
        for (a0, a1) in self.ranges() {
            for (b0, b1) in other.ranges() {
                let lo = a0.max(b0);
                if lo < a1.min(b1) {
                    first = Some(first.map_or(lo, |f| f.min(lo)));
                }
            }
        }
        first
    }
}

impl fmt::Display for Window {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}-{}", clock(self.start), clock(self.end))
    }
}

impl Serialize for Window {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Window {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        Window::parse(&text).map_err(serde::de::Error::custom)
    }
}

fn clock(minute_of_day: i64) -> String {
    format!("{:02}:{:02}", minute_of_day / 60, minute_of_day % 60)
}

/// `HH:MM` with two digits each, `00:00`..=`24:00`.
fn parse_clock(s: &str) -> Option<i64> {
    let b = s.as_bytes();
    if b.len() != 5 || b[2] != b':' {
        return None;
    }
    let digit = |i: usize| b[i].is_ascii_digit().then(|| i64::from(b[i] - b'0'));
    let h = digit(0)? * 10 + digit(1)?;
    let m = digit(3)? * 10 + digit(4)?;
    if m > 59 || h > 24 || (h == 24 && m != 0) {
        return None;
    }
    Some(h * 60 + m)
}

/// A validated payload: segments sorted by window start, every field checked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Tariff {
    free_minutes: i64,
    segments: Vec<TariffSegment>,
}

impl Tariff {
    /// The grace period: a stay no longer than this costs 0.
    pub fn free_minutes(&self) -> i64 {
        self.free_minutes
    }

    /// The segments in order of their window's start within the day.
    pub fn segments(&self) -> &[TariffSegment] {
        &self.segments
    }
}

/// A validated segment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TariffSegment {
    /// The segment's position in the payload as written.
    pub index: usize,
    /// Its name as written.
    pub name: String,
    /// Its daily window.
    pub window: Window,
    /// How its units are priced.
    pub pricing: Pricing,
    /// The most one occurrence of the window costs.
    pub cap: Option<Money>,
}

/// How a segment prices the minutes of a stay inside its window.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Pricing {
    /// Costs nothing.
    Free,
    /// Every started unit of `unit_minutes` costs `unit_price`.
    Periodic {
        /// The length of a unit, above 0.
        unit_minutes: i64,
        /// The price of each unit, not negative.
        unit_price: Money,
    },
    /// Every started unit of `unit_minutes` costs the price of the tier its
    /// start falls in.
    Tiered {
        /// The length of a unit, above 0.
        unit_minutes: i64,
        /// In order; the last one has no limit.
        tiers: Vec<PriceTier>,
    },
}

/// A validated tier.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PriceTier {
    /// Units starting before this offset into the piece take this price;
    /// `None` on the last tier.
    pub up_to_minutes: Option<i64>,
    /// The price of each unit in this tier.
    pub unit_price: Money,
}

/// The three segment types, as they appear in JSON.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "lowercase")]
pub enum SegmentType {
    /// Costs nothing.
    Free,
    /// One price per unit.
    Periodic,
    /// A price per unit by how far into the piece the unit starts.
    Tiered,
}

impl Pricing {
    /// The type this pricing was written as.
    pub fn segment_type(&self) -> SegmentType {
        match self {
            Pricing::Free => SegmentType::Free,
            Pricing::Periodic { .. } => SegmentType::Periodic,
            Pricing::Tiered { .. } => SegmentType::Tiered,
        }
    }

    /// The price every charged piece pays for its first unit.
    fn first_unit_price(&self) -> Option<Money> {
        match self {
            Pricing::Free => None,
            Pricing::Periodic { unit_price, .. } => Some(*unit_price),
            Pricing::Tiered { tiers, .. } => tiers.first().map(|t| t.unit_price),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_parse_and_cross_midnight() {
        let w = Window::parse("20:00-08:00").unwrap();
        assert!(w.crosses_midnight());
        assert_eq!(w.len(), 720);
        let w = Window::parse("00:00-24:00").unwrap();
        assert!(!w.crosses_midnight());
        assert_eq!(w.len(), 1440);
        assert_eq!(w.to_string(), "00:00-24:00");
        let w = Window::parse("22:00-00:00").unwrap();
        assert!(w.crosses_midnight());
        assert_eq!(w.len(), 120);
        for bad in [
            "8:00-20:00",
            "08:00",
            "08:00-20:60",
            "25:00-01:00",
            "24:00-08:00",
            "08:00-08:00",
            "00:00-00:00",
            "24:00-24:00",
            "08:00-24:01",
            "ab:cd-ef:gh",
        ] {
            assert!(Window::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn overlap_finds_the_first_shared_minute() {
        let day = Window::parse("08:00-20:00").unwrap();
        let night = Window::parse("20:00-08:00").unwrap();
        assert_eq!(day.first_shared_minute(&night), None);
        let late = Window::parse("19:00-09:00").unwrap();
        assert_eq!(day.first_shared_minute(&late), Some(8 * 60));
        let all = Window::parse("00:00-24:00").unwrap();
        assert_eq!(all.first_shared_minute(&night), Some(0));
    }
}
