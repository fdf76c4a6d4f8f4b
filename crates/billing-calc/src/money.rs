//! Exact money: an amount is a whole number of cents (`i64`) inside and a
//! decimal string with two places at every boundary (`"6.00"`). There is no
//! floating point anywhere: JSON numbers with a fraction are refused.

use std::fmt;

use serde::de::{self, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::BillingError;

/// The largest amount accepted from text, in cents (one trillion units).
/// Bounding inputs keeps every product of a price and a unit count (at most a
/// few thousand units a piece) far inside `i64`.
pub const MAX_CENTS: i64 = 100_000_000_000_000;

/// An exact amount of money in cents. May be negative (a difference between
/// two totals); prices, caps and order amounts are checked non-negative where
/// they are read.
/// On the wire it is a decimal string ("12.50"), never a float.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, ts_rs::TS)]
#[ts(type = "string")]
pub struct Money(i64);

impl Money {
    /// No money.
    pub const ZERO: Money = Money(0);

    /// An amount of `cents` hundredths.
    pub const fn from_cents(cents: i64) -> Money {
        Money(cents)
    }

    /// The amount in cents.
    pub const fn cents(self) -> i64 {
        self.0
    }

    /// Below zero (a refund, or a difference between two totals).
    pub const fn is_negative(self) -> bool {
        self.0 < 0
    }

    /// Parses `"6"`, `"6.5"`, `"6.50"` or `"-0.25"`: an optional minus sign,
    /// digits, and at most two decimal places. Surrounding blanks are ignored.
    /// Anything else (`"6."`, `".5"`, `"6.005"`, `"1e3"`, `"6,00"`) is an error
    /// that quotes the text.
    pub fn parse(text: &str) -> Result<Money, BillingError> {
        let bad = |reason: &str| BillingError::Amount {
            value: text.to_owned(),
            reason: reason.to_owned(),
        };
        let s = text.trim();
        if s.is_empty() {
            return Err(bad("empty; expected a decimal like \"6.00\""));
        }
        let (negative, body) = match s.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, s),
        };
        let (whole, frac) = match body.split_once('.') {
            Some((w, f)) => (w, Some(f)),
            None => (body, None),
        };
        if whole.is_empty() || !whole.bytes().all(|b| b.is_ascii_digit()) {
            return Err(bad(
                "expected digits before the decimal point, like \"6.00\"",
            ));
        }
        let frac_cents = match frac {
            None => 0,
            Some(f) if f.is_empty() || !f.bytes().all(|b| b.is_ascii_digit()) => {
                return Err(bad("expected one or two digits after the decimal point"));
            }
            Some(f) if f.len() > 2 => {
                return Err(bad(
                    "more than two decimal places (amounts are exact to the cent)",
                ));
            }
            Some(f) => {
                let v: i64 = f
                    .parse()
                    .map_err(|_| bad("expected digits after the decimal point"))?;
                if f.len() == 1 {
                    v * 10
                } else {
                    v
                }
            }
        };
        // Leading zeros are harmless; the length check keeps the parse in range.
        let whole_trimmed = whole.trim_start_matches('0');
        if whole_trimmed.len() > 13 {
            return Err(bad("too large (at most 1000000000000.00)"));
        }
        let units: i64 = if whole_trimmed.is_empty() {
            0
        } else {
            whole_trimmed
                .parse()
                .map_err(|_| bad("expected digits before the decimal point"))?
        };
        let cents = units
            .checked_mul(100)
            .and_then(|c| c.checked_add(frac_cents))
            .filter(|c| *c <= MAX_CENTS)
            .ok_or_else(|| bad("too large (at most 1000000000000.00)"))?;
        Ok(Money(if negative { -cents } else { cents }))
    }

    /// Like [`Money::parse`], but a negative amount is an error naming `what`.
    pub fn parse_non_negative(text: &str, what: &str) -> Result<Money, BillingError> {
        let m = Money::parse(text)?;
        if m.is_negative() {
            return Err(BillingError::Amount {
                value: text.to_owned(),
                reason: format!("{what} may not be negative"),
            });
        }
        Ok(m)
    }

    /// `self + other`, or `None` on overflow.
    pub fn checked_add(self, other: Money) -> Option<Money> {
        self.0.checked_add(other.0).map(Money)
    }

    /// `self - other`, or `None` on overflow.
    pub fn checked_sub(self, other: Money) -> Option<Money> {
        self.0.checked_sub(other.0).map(Money)
    }

    /// `self × n`, or `None` on overflow.
    pub fn checked_mul(self, n: i64) -> Option<Money> {
        self.0.checked_mul(n).map(Money)
    }
}

impl fmt::Display for Money {
    /// Always two decimal places: `6.00`, `-0.50`, `1234.05`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let sign = if self.0 < 0 { "-" } else { "" };
        let abs = self.0.unsigned_abs();
        write!(f, "{sign}{}.{:02}", abs / 100, abs % 100)
    }
}

impl std::str::FromStr for Money {
    type Err = BillingError;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Money::parse(s)
    }
}

impl Serialize for Money {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> Deserialize<'de> for Money {
    /// Accepts a decimal string (`"2.00"`) or a JSON integer (`2`, whole
    /// units). A JSON number with a fraction is refused: it has already been
    /// through floating point.
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct MoneyVisitor;
        impl Visitor<'_> for MoneyVisitor {
            type Value = Money;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an amount as a decimal string like \"2.00\"")
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Money, E> {
                Money::parse(v).map_err(E::custom)
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<Money, E> {
                v.checked_mul(100)
                    .filter(|c| c.unsigned_abs() <= MAX_CENTS as u64)
                    .map(Money)
                    .ok_or_else(|| E::custom(format!("invalid amount {v}: too large")))
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<Money, E> {
                i64::try_from(v)
                    .map_err(|_| E::custom(format!("invalid amount {v}: too large")))
                    .and_then(|v| self.visit_i64(v))
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<Money, E> {
                Err(E::custom(format!(
                    "invalid amount {v}: write amounts as decimal strings like \"{v:.2}\", \
                     not as JSON numbers with a fraction"
                )))
            }
        }
        deserializer.deserialize_any(MoneyVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_formats_two_places() {
        for (text, cents, shown) in [
            ("6", 600, "6.00"),
            ("6.5", 650, "6.50"),
            ("6.00", 600, "6.00"),
            ("0.05", 5, "0.05"),
            ("-0.25", -25, "-0.25"),
            (" 12.34 ", 1234, "12.34"),
            ("007.10", 710, "7.10"),
            ("1000000000000.00", MAX_CENTS, "1000000000000.00"),
        ] {
            let m = Money::parse(text).unwrap();
            assert_eq!(m.cents(), cents, "{text}");
            assert_eq!(m.to_string(), shown, "{text}");
        }
    }

    #[test]
    fn refuses_malformed_text_quoting_it() {
        for (text, needle) in [
            ("", "empty"),
            ("6.", "after the decimal point"),
            (".5", "before the decimal point"),
            ("6.005", "more than two decimal places"),
            ("1e3", "before the decimal point"),
            ("6,00", "before the decimal point"),
            ("+6", "before the decimal point"),
            ("--6", "before the decimal point"),
            ("1000000000000.01", "too large"),
            ("99999999999999999999", "too large"),
        ] {
            let e = Money::parse(text).unwrap_err().to_string();
            assert!(e.contains(needle), "{text:?}: {e}");
            assert!(e.contains(&format!("{text:?}")), "{text:?}: {e}");
        }
        let e = Money::parse_non_negative("-1.00", "unit_price").unwrap_err();
        assert!(
            e.to_string().contains("unit_price may not be negative"),
            "{e}"
        );
    }

    #[test]
    fn json_strings_and_integers_but_no_floats() {
        let m: Money = serde_json::from_str("\"2.50\"").unwrap();
        assert_eq!(m.cents(), 250);
        let m: Money = serde_json::from_str("3").unwrap();
        assert_eq!(m.cents(), 300);
        let e = serde_json::from_str::<Money>("2.5")
            .unwrap_err()
            .to_string();
        assert!(e.contains("decimal strings"), "{e}");
        assert_eq!(serde_json::to_string(&Money(-5)).unwrap(), "\"-0.05\"");
    }
}
