//! An instant as the store keeps it and the api sends it: UTC, RFC 3339
//! with milliseconds and `Z` ("2026-12-02T06:07:30.123Z").
//!
//! One fixed text form because SQL compares and orders stored times as
//! text (a cutoff, "newest first"), and that only holds when every row has
//! the same width and zone. Rust code holds the chrono instant, so it never
//! re-parses or compares strings.

use std::fmt;

use chrono::{DateTime, SecondsFormat, SubsecRound, Utc};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use sqlx::encode::IsNull;
use sqlx::error::BoxDynError;
use sqlx::sqlite::{SqliteArgumentValue, SqliteTypeInfo, SqliteValueRef};
use sqlx::{Decode, Encode, Sqlite, Type};
use ts_rs::TS;

/// A UTC instant at millisecond precision (what the text form keeps, so a
/// value read back equals the value written).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, TS)]
#[ts(type = "string")]
pub struct Timestamp(DateTime<Utc>);

impl Timestamp {
    /// The current instant, cut to milliseconds.
    pub fn now() -> Self {
        Self::from(Utc::now())
    }

    /// Reads any RFC 3339 time (any offset, any fraction) as its instant.
    pub fn parse(s: &str) -> Result<Self, chrono::ParseError> {
        DateTime::parse_from_rfc3339(s.trim()).map(|t| Self::from(t.with_timezone(&Utc)))
    }

    /// The chrono instant, for arithmetic and calendar fields.
    pub fn instant(self) -> DateTime<Utc> {
        self.0
    }

    /// As a person reads it: the machine's local time with its offset,
    /// `2026-11-24 14:26 (UTC-05:00)`.
    pub fn local_display(self) -> String {
        servicedesk_when::local_display_of(self.0)
    }
}

impl From<DateTime<Utc>> for Timestamp {
    fn from(t: DateTime<Utc>) -> Self {
        Self(t.trunc_subsecs(3))
    }
}

impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.to_rfc3339_opts(SecondsFormat::Millis, true))
    }
}

impl Serialize for Timestamp {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Timestamp {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        Self::parse(&s)
            .map_err(|e| serde::de::Error::custom(format!("`{s}` is not an RFC 3339 time: {e}")))
    }
}

impl Type<Sqlite> for Timestamp {
    fn type_info() -> SqliteTypeInfo {
        <String as Type<Sqlite>>::type_info()
    }

    fn compatible(ty: &SqliteTypeInfo) -> bool {
        <String as Type<Sqlite>>::compatible(ty)
    }
}

impl<'q> Encode<'q, Sqlite> for Timestamp {
    fn encode_by_ref(&self, buf: &mut Vec<SqliteArgumentValue<'q>>) -> Result<IsNull, BoxDynError> {
        <String as Encode<'q, Sqlite>>::encode(self.to_string(), buf)
    }
}

impl<'r> Decode<'r, Sqlite> for Timestamp {
    fn decode(value: SqliteValueRef<'r>) -> Result<Self, BoxDynError> {
        let s = <&str as Decode<'r, Sqlite>>::decode(value)?;
        Self::parse(s).map_err(|e| format!("stored time `{s}` is not RFC 3339: {e}").into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_text_form_is_fixed_width_utc_and_reads_back_equal() {
        let t = Timestamp::parse("2026-03-02T08:00:00.123456+08:00").unwrap();
        assert_eq!(t.to_string(), "2026-03-02T00:00:00.123Z");
        assert_eq!(Timestamp::parse(&t.to_string()).unwrap(), t);
        let whole = Timestamp::parse("2026-03-02T00:00:00Z").unwrap();
        assert_eq!(whole.to_string(), "2026-03-02T00:00:00.000Z");
        assert!(whole < t, "instants order as the text does");
    }

    #[test]
    fn a_time_that_is_not_rfc_3339_is_refused_with_its_text() {
        let e = serde_json::from_str::<Timestamp>("\"yesterday\"").unwrap_err();
        assert!(e.to_string().contains("`yesterday`"), "{e}");
    }
}
