//! The billing calculator: charges for time (RV storage, lot parking) under
//! versioned rules, with no I/O. Exact [`Money`], the rule version
//! [`Payload`] and its validation into a [`Tariff`], site time parsing, and
//! [`simulate`] a stay into a [`Breakdown`]. The semantics are pinned in
//! `docs/spec/billing.md`.
//!
//! ```
//! use servicedesk_billing_calc::{simulate_text, Payload};
//! let payload = Payload::from_json(r#"{"segments": [
//!     {"name": "day", "window": "08:00-20:00", "type": "periodic",
//!      "unit_minutes": 30, "unit_price": "2.00", "cap": "20.00"},
//!     {"name": "night", "window": "20:00-08:00", "type": "free"}]}"#).unwrap();
//! let b = simulate_text(&payload, None, "2026-03-02T08:00", "2026-03-02T09:05").unwrap();
//! assert_eq!(b.total.to_string(), "6.00");
//! assert_eq!(b.pieces[0].units, 3);
//! ```

mod calc;
mod money;
mod payload;
mod time;

pub use calc::{
    simulate, simulate_between, simulate_in, simulate_text, Breakdown, Piece, PriceLine,
};
pub use chrono_tz::Tz;
pub use money::{Money, MAX_CENTS};
pub use payload::{
    Payload, PriceTier, Pricing, Segment, SegmentType, Tariff, TariffSegment, Tier, Window,
};
pub use time::{
    local_to_site, parse_site_time, parse_site_time_as, parse_time_zone, site_time_zone,
    MAX_STAY_DAYS, WALL_FORMAT,
};

/// Everything that can be wrong with a payload, an amount, a time or a stay.
/// Each message names what was wrong and where (field, segment, value).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BillingError {
    /// An amount that does not read (a decimal with at most two places, in
    /// range), or is negative where it may not be.
    #[error("invalid amount {value:?}: {reason}")]
    Amount {
        /// The text as given.
        value: String,
        /// What is wrong with it.
        reason: String,
    },
    /// JSON that does not have the payload's shape (serde's message, with
    /// line and column when parsed from text).
    #[error("invalid payload: {0}")]
    PayloadJson(String),
    /// A payload-wide field that is wrong.
    #[error("invalid payload: {field}: {problem}")]
    Payload {
        /// The field's name.
        field: &'static str,
        /// What is wrong with it.
        problem: String,
    },
    /// A field of one segment that is wrong.
    #[error("invalid payload: segment {index} ({name:?}): {field}: {problem}")]
    Segment {
        /// The segment's position in the payload, from 0.
        index: usize,
        /// The segment's name as written.
        name: String,
        /// The field's name (`tiers[1].unit_price` inside a list).
        field: String,
        /// What is wrong with it.
        problem: String,
    },
    /// Two segments' windows share minutes of the day.
    #[error("invalid payload: windows overlap: {0}")]
    Overlap(Box<WindowOverlap>),
    /// A stay time that is not in an accepted form, or not a whole minute.
    #[error("invalid time {value:?}: {reason}")]
    Time {
        /// The text as given.
        value: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A time given for a named field (a CLI flag, an api field).
    #[error("{field}: {value:?} is not a time we can use: {reason}")]
    TimeField {
        /// The field's name.
        field: String,
        /// The text as given.
        value: String,
        /// What is wrong with it.
        reason: String,
    },
    /// A time zone name that is not in the IANA database.
    #[error(
        "unknown time zone {0:?}: expected an IANA name like \"America/Los_Angeles\" or \"UTC\""
    )]
    TimeZone(String),
    /// A stay that ends before it starts.
    #[error("exit {exit} is before entry {entry}")]
    ExitBeforeEntry {
        /// The entry, site wall clock.
        entry: String,
        /// The exit, site wall clock.
        exit: String,
    },
    /// A stay longer than [`MAX_STAY_DAYS`].
    #[error(
        "stay from {entry} to {exit} is {} days {} minutes, longer than the {MAX_STAY_DAYS}-day limit",
        minutes / 1440, minutes % 1440
    )]
    StayTooLong {
        /// The entry, site wall clock.
        entry: String,
        /// The exit, site wall clock.
        exit: String,
        /// The stay's real length.
        minutes: i64,
    },
    /// An amount or a time too large to represent, in the middle of a computation.
    #[error("amount too large while computing {what}")]
    Overflow {
        /// What was being computed.
        what: &'static str,
    },
}

/// Two segments whose windows share minutes of the day.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WindowOverlap {
    /// The first segment's position in the payload, from 0.
    pub first: usize,
    /// The first segment's name.
    pub first_name: String,
    /// The first segment's window, `HH:MM-HH:MM`.
    pub first_window: String,
    /// The second segment's position in the payload, from 0.
    pub second: usize,
    /// The second segment's name.
    pub second_name: String,
    /// The second segment's window, `HH:MM-HH:MM`.
    pub second_window: String,
    /// The first shared minute, `HH:MM`.
    pub at: String,
}

impl std::fmt::Display for WindowOverlap {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "segment {} ({:?}, {}) and segment {} ({:?}, {}) both cover {}",
            self.first,
            self.first_name,
            self.first_window,
            self.second,
            self.second_name,
            self.second_window,
            self.at
        )
    }
}

impl BillingError {
    /// A stable snake_case code for the api boundary.
    pub fn code(&self) -> &'static str {
        match self {
            BillingError::Amount { .. } => "invalid_amount",
            BillingError::PayloadJson(_)
            | BillingError::Payload { .. }
            | BillingError::Segment { .. }
            | BillingError::Overlap(_) => "invalid_payload",
            BillingError::Time { .. } | BillingError::TimeField { .. } => "invalid_time",
            BillingError::TimeZone(_) => "unknown_time_zone",
            BillingError::ExitBeforeEntry { .. } => "exit_before_entry",
            BillingError::StayTooLong { .. } => "stay_too_long",
            BillingError::Overflow { .. } => "amount_overflow",
        }
    }
}
