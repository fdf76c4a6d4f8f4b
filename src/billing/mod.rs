//! Billing: charges for time (RV storage, lot parking) under versioned rules.
//! The pure calculator is its own crate (`servicedesk-billing-calc`,
//! re-exported here): exact [`Money`], the rule version [`Payload`] and its
//! validation into a [`Tariff`], site time parsing, and [`simulate`] a stay
//! into a [`Breakdown`]. The semantics are pinned in `docs/spec/billing.md`.
//!
//! On top of it: [`store`] (rules with append-only versions, orders,
//! arrears, verification, over SQLite), [`explain`] (a rule version in
//! words, generated from the version) and [`demo`] (the shipped demo data).
//!
//! ```
//! use servicedesk::billing::{simulate_text, Payload};
//! let payload = Payload::from_json(r#"{"segments": [
//!     {"name": "day", "window": "08:00-20:00", "type": "periodic",
//!      "unit_minutes": 30, "unit_price": "2.00", "cap": "20.00"},
//!     {"name": "night", "window": "20:00-08:00", "type": "free"}]}"#).unwrap();
//! let b = simulate_text(&payload, None, "2026-03-02T08:00", "2026-03-02T09:05").unwrap();
//! assert_eq!(b.total.to_string(), "6.00");
//! assert_eq!(b.pieces[0].units, 3);
//! ```

pub mod demo;
pub mod explain;
pub mod store;

mod model;

pub use model::{RuleInfo, VersionInfo};
pub use servicedesk_billing_calc::{
    local_to_site, parse_site_time, parse_site_time_as, parse_time_zone, simulate,
    simulate_between, simulate_in, simulate_text, site_time_zone, BillingError, Breakdown, Money,
    Payload, Piece, PriceLine, PriceTier, Pricing, Segment, SegmentType, Tariff, TariffSegment,
    Tier, Tz, Window, WindowOverlap, MAX_CENTS, MAX_STAY_DAYS, WALL_FORMAT,
};
