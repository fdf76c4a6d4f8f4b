//! The billing store's records as the rest of the program reads them: a
//! stored rule with its versions. Plain data, so the explanations
//! (`explain`) and the store both depend on it and not on each other.

use std::fmt;

use chrono::NaiveDateTime;
use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::{Payload, WALL_FORMAT};

/// A stored rule with its versions (oldest first).
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct RuleInfo {
    pub rule_code: String,
    pub name: String,
    pub city_code: String,
    pub lot_codes: Vec<String>,
    pub status: RuleStatus,
    /// The site's IANA time zone; versions' and stays' times are wall clock there.
    pub time_zone: String,
    pub created_at: crate::store::Timestamp,
    pub versions: Vec<VersionInfo>,
}

/// Whether a rule prices stays: at most one active rule covers a lot; an
/// inactive one is kept with its versions for the orders it priced.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum RuleStatus {
    Active,
    Inactive,
}

impl RuleStatus {
    /// As written in import files and stored in `billing_rules.status`.
    pub fn as_str(self) -> &'static str {
        match self {
            RuleStatus::Active => "active",
            RuleStatus::Inactive => "inactive",
        }
    }

    pub fn parse(text: &str) -> Option<RuleStatus> {
        match text {
            "active" => Some(RuleStatus::Active),
            "inactive" => Some(RuleStatus::Inactive),
            _ => None,
        }
    }
}

impl fmt::Display for RuleStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A stored rule version. Times are site-local wall clock (`2026-03-01T00:00`).
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct VersionInfo {
    pub rule_code: String,
    pub version_no: i64,
    /// Inclusive.
    pub effective_from: String,
    /// Exclusive; `None`: open-ended.
    pub effective_to: Option<String>,
    pub payload: Payload,
    pub created_at: crate::store::Timestamp,
}

impl VersionInfo {
    pub fn from_time(&self) -> NaiveDateTime {
        wall(&self.effective_from)
    }

    pub fn to_time(&self) -> Option<NaiveDateTime> {
        self.effective_to.as_deref().map(wall)
    }

    pub fn covers(&self, at: NaiveDateTime) -> bool {
        self.from_time() <= at && self.to_time().is_none_or(|to| at < to)
    }

    /// `v2 from 2026-03-01T00:00` / `v1 2026-01-01T00:00 to 2026-03-01T00:00`.
    pub fn span(&self) -> String {
        match &self.effective_to {
            Some(to) => format!("v{} {} to {}", self.version_no, self.effective_from, to),
            None => format!(
                "v{} from {} (open-ended)",
                self.version_no, self.effective_from
            ),
        }
    }
}

/// Stored wall-clock text back as a time (written by the store, so valid).
pub(crate) fn wall(s: &str) -> NaiveDateTime {
    NaiveDateTime::parse_from_str(s, WALL_FORMAT).unwrap_or_default()
}
