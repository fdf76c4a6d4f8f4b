//! The billing rule and order store (migrations/0004_billing.sql) on top of
//! the pure calculator: importing rules with append-only versions and
//! parking/storage orders, resolving the rule that covers a lot at a time,
//! simulating a stay under a stored rule, arrears by plate and fee
//! verification of an order. Every import and addition is recorded in
//! `billing_changes` with its file and line.
//!
//! Invariants:
//! - a (rule_code, version_no) is written once; re-importing it unchanged
//!   changes nothing, with other content is refused (`conflict`);
//! - versions of one rule never overlap (effective_from inclusive,
//!   effective_to exclusive, NULL open); a clash names the stored version;
//! - at most one active rule covers a (city, lot);
//! - a lookup that finds no rule or no version is an error, never a zero charge;
//! - a bad record is skipped with its line and field and nothing of it is
//!   stored; the good records of the same file are stored.

mod orders;
mod parse;
mod rules;
mod verify;

use std::fmt;
use ts_rs::TS;

use chrono::NaiveDateTime;
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use super::model::{RuleInfo, RuleStatus, VersionInfo};
use super::{parse_time_zone, BillingError, Breakdown, Money, Piece, Tz, WALL_FORMAT};

pub use orders::*;
pub use parse::*;
pub use rules::*;
pub use verify::*;

/// What can go wrong in the store. `code()` is the api's error code.
#[derive(Debug, thiserror::Error)]
pub enum BillingStoreError {
    /// An unknown rule or order, no rule covering a lot, no version in force.
    #[error("{0}")]
    NotFound(String),
    /// A request that does not make sense (missing or contradictory fields).
    #[error("{0}")]
    Invalid(String),
    /// The data contradicts what is stored (a changed version, an overlap).
    #[error("{0}")]
    Conflict(String),
    /// A payload, amount, time or stay the calculator refuses.
    #[error(transparent)]
    Billing(#[from] BillingError),
    #[error("database error: {0}")]
    Storage(#[from] sqlx::Error),
    /// A stored row holds a value this program does not know (written by
    /// hand or by a newer version); the message names the row and the value.
    #[error("{0}")]
    BadRow(String),
}

impl BillingStoreError {
    pub fn code(&self) -> &'static str {
        match self {
            BillingStoreError::NotFound(_) => "not_found",
            BillingStoreError::Invalid(_) => "invalid_input",
            BillingStoreError::Conflict(_) => "conflict",
            BillingStoreError::Billing(e) => e.code(),
            BillingStoreError::Storage(_) | BillingStoreError::BadRow(_) => "storage",
        }
    }
}

pub type Result<T, E = BillingStoreError> = std::result::Result<T, E>;

/// How a caller names the rule: by code, or by the lot it covers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RuleRef {
    Code(String),
    Scope { city: String, lot: String },
}

impl fmt::Display for RuleRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RuleRef::Code(c) => write!(f, "rule {c}"),
            RuleRef::Scope { city, lot } => write!(f, "city {city} lot {lot}"),
        }
    }
}

impl RuleInfo {
    pub fn tz(&self) -> Result<Tz> {
        Ok(parse_time_zone(&self.time_zone)?)
    }

    /// The version in force at `at` (site-local): effective_from inclusive,
    /// effective_to exclusive.
    pub fn version_at(&self, at: NaiveDateTime) -> Result<&VersionInfo> {
        self.versions.iter().find(|v| v.covers(at)).ok_or_else(|| {
            let known = self
                .versions
                .iter()
                .map(VersionInfo::span)
                .collect::<Vec<_>>()
                .join("; ");
            BillingStoreError::NotFound(format!(
                "rule {} has no version in force at {} (site time, {}); its versions: {}",
                self.rule_code,
                at.format(WALL_FORMAT),
                self.time_zone,
                if known.is_empty() {
                    "none".to_owned()
                } else {
                    known
                }
            ))
        })
    }
}

fn show(t: NaiveDateTime) -> String {
    t.format(WALL_FORMAT).to_string()
}

/// A version to add, in the import file's shape.
#[derive(Debug, Clone, Deserialize, TS)]
#[serde(deny_unknown_fields)]
pub struct NewVersion {
    /// `None`: one more than the newest stored version.
    #[serde(default)]
    pub version_no: Option<i64>,
    pub effective_from: String,
    #[serde(default)]
    pub effective_to: Option<String>,
    pub payload: Value,
}

/// What an import did, record by record.
#[derive(Debug, Clone, Default, Serialize, TS)]
pub struct ImportReport {
    pub origin: String,
    pub imported: Vec<ImportedItem>,
    pub unchanged: Vec<ImportedItem>,
    pub skipped: Vec<SkippedRecord>,
    /// Rule imports only: the generated explanations put into the knowledge store.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub explanations: Option<ExplainSummary>,
}

/// A rule version (`key` = rule_code, `version_no`) or an order (`key` = order_no).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct ImportedItem {
    pub key: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version_no: Option<i64>,
    /// The line of the record in the file.
    pub line: usize,
}

/// A record that was not imported, and exactly why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct SkippedRecord {
    pub line: usize,
    /// 1-based position of the record in the file (array element or JSONL record).
    pub record: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    pub message: String,
}

impl fmt::Display for SkippedRecord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {} (record {}", self.line, self.record)?;
        if let Some(k) = &self.key {
            write!(f, ", {k}")?;
        }
        f.write_str("): ")?;
        if let Some(field) = &self.field {
            write!(f, "{field}: ")?;
        }
        f.write_str(&self.message)
    }
}

/// The rule explanations an import ingested into the knowledge store.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, TS)]
pub struct ExplainSummary {
    pub ingested: Vec<String>,
    pub unchanged: usize,
    /// Explanations the knowledge store kept an older text of (not an error).
    pub kept: Vec<String>,
}

/// A stored order with its arrears.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct OrderInfo {
    pub order_no: String,
    pub city_code: String,
    pub lot_code: String,
    pub plate_no: String,
    pub entry_time: String,
    pub exit_time: String,
    pub total_amount: Money,
    pub paid_amount: Money,
    /// `total - paid`, never below 0.
    pub arrears_amount: Money,
    pub created_at: crate::store::Timestamp,
}

/// `billing arrears --plate P [--city C] --json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ArrearsReport {
    pub plate_no: String,
    pub city_code: Option<String>,
    pub status: ArrearsStatus,
    pub total_arrears: Money,
    /// How many orders of the plate (in the city) were checked.
    pub orders_checked: usize,
    /// The unpaid and partly paid orders, by entry time then order number.
    pub orders: Vec<ArrearsOrder>,
}

/// Whether a plate owes anything in the orders checked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum ArrearsStatus {
    None,
    HasArrears,
}

impl ArrearsStatus {
    /// `HAS_ARREARS` when anything is owed.
    pub fn of(total: Money) -> ArrearsStatus {
        if total > Money::ZERO {
            ArrearsStatus::HasArrears
        } else {
            ArrearsStatus::None
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            ArrearsStatus::None => "NONE",
            ArrearsStatus::HasArrears => "HAS_ARREARS",
        }
    }
}

impl fmt::Display for ArrearsStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An order's total against its stay simulated under the covering rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum FeeCheck {
    /// Equal to the cent.
    Consistent,
    Mismatch,
}

impl FeeCheck {
    pub fn as_str(self) -> &'static str {
        match self {
            FeeCheck::Consistent => "consistent",
            FeeCheck::Mismatch => "mismatch",
        }
    }

    /// What is done with an order of this result.
    pub fn action(self) -> VerifyAction {
        match self {
            FeeCheck::Consistent => VerifyAction::AutoApprove,
            FeeCheck::Mismatch => VerifyAction::ManualReview,
        }
    }
}

impl fmt::Display for FeeCheck {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum VerifyAction {
    AutoApprove,
    ManualReview,
}

impl VerifyAction {
    pub fn as_str(self) -> &'static str {
        match self {
            VerifyAction::AutoApprove => "auto_approve",
            VerifyAction::ManualReview => "manual_review",
        }
    }
}

impl fmt::Display for VerifyAction {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, TS)]
pub struct ArrearsOrder {
    pub order_no: String,
    pub city_code: String,
    pub lot_code: String,
    pub entry_time: String,
    pub exit_time: String,
    pub total_amount: Money,
    pub paid_amount: Money,
    pub arrears_amount: Money,
}

/// `billing verify --order NO --json`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct Verification {
    pub order_no: String,
    pub city_code: String,
    pub lot_code: String,
    pub plate_no: String,
    pub entry_time: String,
    pub exit_time: String,
    pub result: FeeCheck,
    pub action: VerifyAction,
    pub order_total: Money,
    pub simulated_total: Money,
    /// `order_total - simulated_total`.
    pub difference: Money,
    pub paid_amount: Money,
    pub rule_code: String,
    pub version_no: i64,
    pub time_zone: String,
    pub pieces: Vec<Piece>,
}

/// The rule that covers a scope at a time, with the one version in force
/// then (what the billing chat explains and cites).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RuleInForce {
    pub rule_code: String,
    pub name: String,
    pub city_code: String,
    pub lot_codes: Vec<String>,
    pub time_zone: String,
    pub version_no: i64,
    /// Site-local wall clock, inclusive.
    pub effective_from: String,
    /// Exclusive; `None`: open-ended.
    pub effective_to: Option<String>,
}

impl RuleInForce {
    pub fn new(rule: &RuleInfo, version: &VersionInfo) -> RuleInForce {
        RuleInForce {
            rule_code: rule.rule_code.clone(),
            name: rule.name.clone(),
            city_code: rule.city_code.clone(),
            lot_codes: rule.lot_codes.clone(),
            time_zone: rule.time_zone.clone(),
            version_no: version.version_no,
            effective_from: version.effective_from.clone(),
            effective_to: version.effective_to.clone(),
        }
    }
}

/// A stay simulated under a stored rule: the breakdown plus the rule and
/// version that priced it (the version in force at the entry).
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct RuleSimulation {
    pub rule_code: String,
    pub version_no: i64,
    pub rule_name: String,
    pub city_code: String,
    pub lot_codes: Vec<String>,
    #[serde(flatten)]
    pub breakdown: Breakdown,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn element_lines_finds_each_record() {
        let text = "[\n  {\"a\": \"x, [y]\"},\n  {\"b\": [1,\n 2]}\n  ,\n  3\n]";
        assert_eq!(element_lines(text), vec![2, 3, 6]);
        assert_eq!(element_lines("[{}, {}]"), vec![1, 1]);
        assert!(element_lines("[]").is_empty());
    }

    #[test]
    fn overlap_is_half_open() {
        let t = |s: &str| crate::billing::model::wall(s);
        let (a, b, c) = (
            t("2026-01-01T00:00"),
            t("2026-03-01T00:00"),
            t("2026-04-01T00:00"),
        );
        assert!(!overlaps(a, Some(b), b, None));
        assert!(overlaps(a, None, b, Some(c)));
        assert!(overlaps(a, Some(c), b, None));
        assert!(!overlaps(b, Some(c), a, Some(b)));
    }

    #[test]
    fn codes_and_plates_normalize() {
        assert_eq!(normalize_code(" lot-a ").unwrap(), "LOT-A");
        assert!(normalize_code("lot a").is_err());
        assert_eq!(normalize_plate("7abc 123").unwrap(), "7ABC123");
        assert_eq!(normalize_plate("沪A10001").unwrap(), "沪A10001");
    }
}
