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
    #[error("invalid amount {value:?}: {reason}")]
    Amount { value: String, reason: String },
    /// JSON that does not have the payload's shape (serde's message, with
    /// line and column when parsed from text).
    #[error("invalid payload: {0}")]
    PayloadJson(String),
    #[error("invalid payload: {field}: {problem}")]
    Payload {
        field: &'static str,
        problem: String,
    },
    #[error("invalid payload: segment {index} ({name:?}): {field}: {problem}")]
    Segment {
        index: usize,
        name: String,
        field: String,
        problem: String,
    },
    #[error("invalid payload: windows overlap: {0}")]
    Overlap(Box<WindowOverlap>),
    #[error("invalid time {value:?}: {reason}")]
    Time { value: String, reason: String },
    /// A time given for a named field (a CLI flag, an api field).
    #[error("{field}: {value:?} is not a time we can use: {reason}")]
    TimeField {
        field: String,
        value: String,
        reason: String,
    },
    #[error(
        "unknown time zone {0:?}: expected an IANA name like \"America/Los_Angeles\" or \"UTC\""
    )]
    TimeZone(String),
    #[error("exit {exit} is before entry {entry}")]
    ExitBeforeEntry { entry: String, exit: String },
    #[error(
        "stay from {entry} to {exit} is {} days {} minutes, longer than the {MAX_STAY_DAYS}-day limit",
        minutes / 1440, minutes % 1440
    )]
    StayTooLong {
        entry: String,
        exit: String,
        minutes: i64,
    },
    #[error("amount too large while computing {what}")]
    Overflow { what: &'static str },
}

/// Two segments whose windows share minutes of the day.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WindowOverlap {
    pub first: usize,
    pub first_name: String,
    pub first_window: String,
    pub second: usize,
    pub second_name: String,
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
