//! The records the store hands out; they are also the wire types of the api.

use super::Timestamp;
use serde::{Deserialize, Serialize};
use sqlx::sqlite::SqliteRow;
use sqlx::Row;
use ts_rs::TS;

use crate::artifacts::{FileKind, ThumbnailKind};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum SessionStatus {
    Open,
    Escalated,
    Finalized,
}

impl SessionStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Open => "open",
            Self::Escalated => "escalated",
            Self::Finalized => "finalized",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "open" => Some(Self::Open),
            "escalated" => Some(Self::Escalated),
            "finalized" => Some(Self::Finalized),
            _ => None,
        }
    }
}

/// Where a portal item stands: the outbox row's status, or `not_queued`
/// when nothing was queued for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum DeliveryState {
    Pending,
    Done,
    Failed,
    Conflict,
    NotQueued,
}

impl DeliveryState {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::Done => "done",
            Self::Failed => "failed",
            Self::Conflict => "conflict",
            Self::NotQueued => "not_queued",
        }
    }

    /// An outbox row's status; no row is `not_queued`. The outbox table
    /// admits only the four statuses, so anything else is read as failed
    /// rather than as delivered.
    pub fn of_row(status: Option<&str>) -> Self {
        match status {
            None => Self::NotQueued,
            Some("pending") => Self::Pending,
            Some("done") => Self::Done,
            Some("conflict") => Self::Conflict,
            Some(_) => Self::Failed,
        }
    }
}

/// Miles or kilometres: what the odometer reads in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum OdometerUnit {
    Mi,
    Km,
}

impl OdometerUnit {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Mi => "mi",
            Self::Km => "km",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "mi" => Some(Self::Mi),
            "km" => Some(Self::Km),
            _ => None,
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, TS)]
pub struct Unit {
    pub vin: Option<String>,
    pub plate: Option<String>,
    pub make_model: Option<String>,
    #[serde(default)]
    pub model_year: Option<i32>,
    pub odometer: Option<i64>,
    #[serde(default)]
    pub odometer_unit: Option<OdometerUnit>,
    pub engine_hours: Option<f64>,
    /// The maker the VIN names, decoded offline; never stored.
    #[serde(default, skip_deserializing)]
    pub manufacturer: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct Session {
    pub id: String,
    /// The repair order's number: the shop's prefix and a sequence.
    #[serde(default)]
    pub ro_number: String,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
    pub status: SessionStatus,
    pub language: String,
    pub customer: Option<String>,
    #[serde(default)]
    pub customer_phone: Option<String>,
    #[serde(default)]
    pub customer_email: Option<String>,
    pub complaint: String,
    pub technician: Option<String>,
    pub unit: Unit,
    pub turn_count: i64,
    pub artifact_count: i64,
}

impl Session {
    pub(crate) fn from_row(row: &SqliteRow) -> Self {
        let vin: Option<String> = row.get("vin");
        let manufacturer = vin
            .as_deref()
            .and_then(|v| crate::vin::check(v, this_year()).ok())
            .and_then(|v| v.manufacturer)
            .map(str::to_owned);
        Self {
            id: row.get("id"),
            ro_number: row
                .get::<Option<String>, _>("ro_number")
                .unwrap_or_default(),
            created_at: row.get("created_at"),
            updated_at: row.get("updated_at"),
            status: SessionStatus::parse(row.get::<&str, _>("status"))
                .unwrap_or(SessionStatus::Open),
            language: row.get("language"),
            customer: row.get("customer"),
            customer_phone: row.get("customer_phone"),
            customer_email: row.get("customer_email"),
            complaint: row.get("complaint"),
            technician: row.get("technician"),
            unit: Unit {
                vin,
                plate: row.get("plate"),
                make_model: row.get("make_model"),
                model_year: row.get("model_year"),
                odometer: row.get("odometer"),
                odometer_unit: row
                    .get::<Option<&str>, _>("odometer_unit")
                    .and_then(OdometerUnit::parse),
                engine_hours: row.get("engine_hours"),
                manufacturer,
            },
            turn_count: row.get("turn_count"),
            artifact_count: row.get("artifact_count"),
        }
    }
}

/// The current calendar year, for reading a VIN's year code.
pub fn this_year() -> i32 {
    use chrono::Datelike;
    chrono::Utc::now().year()
}

/// One change to a session's header: who made it, when, and both values.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct SessionEdit {
    pub field: String,
    pub old_value: Option<String>,
    pub new_value: Option<String>,
    pub edited_by: Option<String>,
    pub edited_at: Timestamp,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct Turn {
    pub id: String,
    pub session_id: String,
    pub seq: i64,
    pub created_at: Timestamp,
    pub input: String,
    pub reply: String,
    pub intent: Option<String>,
    pub transition: Option<String>,
    pub trace: serde_json::Value,
}

impl Turn {
    pub(crate) fn from_row(row: &SqliteRow) -> Self {
        Self {
            id: row.get("id"),
            session_id: row.get("session_id"),
            seq: row.get("seq"),
            created_at: row.get("created_at"),
            input: row.get("input"),
            reply: row.get("reply"),
            intent: row.get("intent"),
            transition: row.get("transition"),
            trace: serde_json::from_str(row.get::<&str, _>("trace"))
                .unwrap_or(serde_json::Value::Null),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct Artifact {
    pub id: String,
    pub session_id: String,
    pub turn_id: Option<String>,
    pub sha256: String,
    pub file_name: String,
    pub mime: String,
    pub kind: FileKind,
    pub size_bytes: i64,
    pub caption: Option<String>,
    pub taken_at: Option<String>,
    pub width: Option<i64>,
    pub height: Option<i64>,
    pub thumbnail: ThumbnailKind,
    #[serde(skip)]
    pub thumb_sha256: Option<String>,
    pub created_at: Timestamp,
    /// The technician's condition tag; None when none was given.
    pub condition: Option<PhotoCondition>,
    /// For a marked-up copy: the artifact it was drawn on.
    pub derived_from: Option<String>,
}

/// How a photographed part stands, as the technician tags it; the report
/// lists it with the photo.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum PhotoCondition {
    Ok,
    Attention,
    Urgent,
}

impl PhotoCondition {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Ok => "ok",
            Self::Attention => "attention",
            Self::Urgent => "urgent",
        }
    }

    /// A stored value; anything else (the column's CHECK allows nothing
    /// else) reads as no tag rather than failing the whole row.
    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "ok" => Some(Self::Ok),
            "attention" => Some(Self::Attention),
            "urgent" => Some(Self::Urgent),
            _ => None,
        }
    }

    /// As the report names it.
    pub fn report_label(self) -> &'static str {
        match self {
            Self::Ok => "OK",
            Self::Attention => "Needs attention",
            Self::Urgent => "Urgent",
        }
    }
}

impl Artifact {
    pub(crate) fn from_row(row: &SqliteRow) -> Self {
        Self {
            id: row.get("id"),
            session_id: row.get("session_id"),
            turn_id: row.get("turn_id"),
            sha256: row.get("sha256"),
            file_name: row.get("file_name"),
            mime: row.get("mime"),
            kind: if row.get::<&str, _>("kind") == "document" {
                FileKind::Document
            } else {
                FileKind::Image
            },
            size_bytes: row.get("size_bytes"),
            caption: row.get("caption"),
            taken_at: row.get("taken_at"),
            width: row.get("width"),
            height: row.get("height"),
            thumbnail: ThumbnailKind::parse(row.get("thumbnail")),
            thumb_sha256: row.get("thumb_sha256"),
            created_at: row.get("created_at"),
            condition: row
                .get::<Option<&str>, _>("condition")
                .and_then(PhotoCondition::parse),
            derived_from: row.get("derived_from"),
        }
    }
}
