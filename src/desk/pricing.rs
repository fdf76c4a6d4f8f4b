//! Pricing a repair order's lines, exactly: every amount is a `Money`
//! (integer cents), every hour and quantity an integer count of hundredths,
//! and every product is rounded once, to the cent, half up.
//!
//! The rule:
//! - a labor line is its hours × the labor rate of the line's pay type;
//! - a part line is its quantity × its unit price;
//! - each of those products is rounded to the cent, half up (0.005 → 0.01);
//! - a line's tax is the tax rate × its taxable amount, rounded the same
//!   way; parts are always taxable, labor only when the `labor_taxable`
//!   setting says so (off by default); the rule is the same whatever the
//!   pay type;
//! - a line's total is its labor + parts + tax, and the repair order's
//!   amounts are the sums of its lines' that were not declined (a declined
//!   line keeps its estimate, but no work is done on it).

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::billing::{Money, MAX_CENTS};
use crate::store::{AuthStatus, PayType, RoLine};

/// Labor rates per pay type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, TS)]
pub struct RoLaborRates {
    pub customer: Money,
    pub warranty: Money,
    pub internal: Money,
    pub service_contract: Money,
}

impl RoLaborRates {
    pub fn of(&self, pay: PayType) -> Money {
        match pay {
            PayType::Customer => self.customer,
            PayType::Warranty => self.warranty,
            PayType::Internal => self.internal,
            PayType::ServiceContract => self.service_contract,
        }
    }
}

/// The shop's money settings: what the repair order is priced with.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, TS)]
pub struct RoSettings {
    pub labor_rates: RoLaborRates,
    /// The tax rate in percent, up to three decimals ("8.25", "8.875").
    #[serde(rename = "tax_rate", with = "percent")]
    #[ts(rename = "tax_rate", type = "string")]
    pub tax_rate_millipercent: Percent,
    /// Whether labor is taxed too (parts always are).
    pub labor_taxable: bool,
}

/// A percentage in thousandths of a percent (8.875 % = 8875).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, PartialOrd, Ord)]
pub struct Percent(pub i64);

impl Percent {
    pub const MAX: Percent = Percent(100_000);
}

impl std::fmt::Display for Percent {
    /// "8.25", "8.875", "0": no trailing zeros.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (whole, frac) = (self.0 / 1000, self.0 % 1000);
        if frac == 0 {
            return write!(f, "{whole}");
        }
        let digits = format!("{frac:03}");
        write!(f, "{whole}.{}", digits.trim_end_matches('0'))
    }
}

mod percent {
    use super::Percent;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(p: &Percent, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(p)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Percent, D::Error> {
        let text = String::deserialize(d)?;
        super::parse_fixed(&text, 3)
            .map(Percent)
            .map_err(serde::de::Error::custom)
    }
}

/// A line's or the repair order's amounts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, TS)]
pub struct RoTotals {
    pub labor: Money,
    pub parts: Money,
    /// What the tax was computed on.
    pub taxable: Money,
    pub tax: Money,
    pub total: Money,
}

impl RoTotals {
    fn add(self, o: RoTotals) -> Option<RoTotals> {
        Some(RoTotals {
            labor: self.labor.checked_add(o.labor)?,
            parts: self.parts.checked_add(o.parts)?,
            taxable: self.taxable.checked_add(o.taxable)?,
            tax: self.tax.checked_add(o.tax)?,
            total: self.total.checked_add(o.total)?,
        })
    }
}

/// One line priced: its labor rate, each labor and part line's amount, and
/// its totals.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PricedLine {
    pub labor_rate: Money,
    pub labor: Vec<Money>,
    pub parts: Vec<Money>,
    pub totals: RoTotals,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("line {line_no}: the amounts are too large to add up (at most 1000000000000.00)")]
pub struct TooLarge {
    pub line_no: i64,
}

/// `a × b / divisor`, rounded half up; `None` past the largest amount.
fn mul_round(a: i64, b: i64, divisor: i64) -> Option<Money> {
    let product = i128::from(a) * i128::from(b);
    let rounded = (product + i128::from(divisor) / 2).div_euclid(i128::from(divisor));
    i64::try_from(rounded)
        .ok()
        .filter(|c| c.abs() <= MAX_CENTS)
        .map(Money::from_cents)
}

/// Prices one line under `settings`.
pub fn price_line(line: &RoLine, settings: &RoSettings) -> Result<PricedLine, TooLarge> {
    let too_large = TooLarge {
        line_no: line.line_no,
    };
    let rate = settings.labor_rates.of(line.pay_type);
    let labor: Vec<Money> = line
        .labor
        .iter()
        .map(|l| mul_round(rate.cents(), l.hours_x100, 100))
        .collect::<Option<_>>()
        .ok_or(too_large.clone())?;
    let parts: Vec<Money> = line
        .parts
        .iter()
        .map(|p| mul_round(p.unit_price_cents, p.qty_x100, 100))
        .collect::<Option<_>>()
        .ok_or(too_large.clone())?;
    let sum = |v: &[Money]| {
        v.iter()
            .try_fold(Money::ZERO, |a, b| a.checked_add(*b))
            .filter(|m| m.cents() <= MAX_CENTS)
    };
    let labor_sum = sum(&labor).ok_or(too_large.clone())?;
    let parts_sum = sum(&parts).ok_or(too_large.clone())?;
    let taxable = if settings.labor_taxable {
        parts_sum.checked_add(labor_sum)
    } else {
        Some(parts_sum)
    }
    .ok_or(too_large.clone())?;
    let tax = mul_round(taxable.cents(), settings.tax_rate_millipercent.0, 100_000)
        .ok_or(too_large.clone())?;
    let total = labor_sum
        .checked_add(parts_sum)
        .and_then(|t| t.checked_add(tax))
        .filter(|m| m.cents() <= MAX_CENTS)
        .ok_or(too_large)?;
    Ok(PricedLine {
        labor_rate: rate,
        labor,
        parts,
        totals: RoTotals {
            labor: labor_sum,
            parts: parts_sum,
            taxable,
            tax,
            total,
        },
    })
}

/// Every line priced, and the repair order's totals (the sums of the lines
/// not declined).
pub fn price_order(
    lines: &[RoLine],
    settings: &RoSettings,
) -> Result<(Vec<PricedLine>, RoTotals), TooLarge> {
    let priced: Vec<PricedLine> = lines
        .iter()
        .map(|l| price_line(l, settings))
        .collect::<Result<_, _>>()?;
    let mut totals = RoTotals::default();
    for (p, l) in priced.iter().zip(lines) {
        if l.authorization.status == AuthStatus::Declined {
            continue;
        }
        totals = totals
            .add(p.totals)
            .ok_or(TooLarge { line_no: l.line_no })?;
    }
    Ok((priced, totals))
}

/// A non-negative decimal with at most `places` decimals, as an integer
/// count of 10^-places ("1.5" with 2 places → 150). The message says what
/// is wrong; the caller names the field.
pub fn parse_fixed(text: &str, places: u32) -> Result<i64, String> {
    let s = text.trim();
    if s.is_empty() {
        return Err("is empty; expected a number like \"1.5\"".into());
    }
    if s.starts_with('-') {
        return Err(format!("{text:?} may not be negative"));
    }
    let (whole, frac) = s.split_once('.').unwrap_or((s, ""));
    let digits = |d: &str| d.bytes().all(|b| b.is_ascii_digit());
    if whole.is_empty() || !digits(whole) || !digits(frac) || (s.contains('.') && frac.is_empty()) {
        return Err(format!(
            "{text:?} is not a number; write digits with a decimal point, like \"1.5\""
        ));
    }
    if frac.len() > places as usize {
        return Err(format!("{text:?} has more than {places} decimal places"));
    }
    let whole = whole.trim_start_matches('0');
    if whole.len() > 12 {
        return Err(format!("{text:?} is too large"));
    }
    let scale = 10i64.pow(places);
    let w: i64 = if whole.is_empty() {
        0
    } else {
        whole
            .parse()
            .map_err(|_| format!("{text:?} is too large"))?
    };
    let f: i64 = if frac.is_empty() {
        0
    } else {
        frac.parse::<i64>().unwrap_or(0) * 10i64.pow(places - frac.len() as u32)
    };
    Ok(w * scale + f)
}

/// Hundredths as text: "1.5" for 150, "2" for 200, "0.25" for 25.
pub fn fmt_hundredths(n: i64) -> String {
    let (whole, frac) = (n / 100, n % 100);
    match frac {
        0 => whole.to_string(),
        f if f % 10 == 0 => format!("{whole}.{}", f / 10),
        f => format!("{whole}.{f:02}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{Authorization, LaborRow, PartRow};

    fn line(pay: PayType, labor: &[i64], parts: &[(i64, i64)]) -> RoLine {
        RoLine {
            id: "l".into(),
            line_no: 1,
            complaint: "x".into(),
            pay_type: pay,
            warranty_payer: None,
            warranty_maker: None,
            engine_complaint: None,
            labor: labor
                .iter()
                .map(|h| LaborRow {
                    description: "labor".into(),
                    hours_x100: *h,
                })
                .collect(),
            parts: parts
                .iter()
                .map(|(q, p)| PartRow {
                    part_no: String::new(),
                    description: "part".into(),
                    qty_x100: *q,
                    unit_price_cents: *p,
                })
                .collect(),
            authorization: Authorization {
                status: AuthStatus::Pending,
                by: None,
                method: None,
                at: None,
                total_cents: None,
            },
        }
    }

    #[test]
    fn products_and_tax_round_half_up_to_the_cent() {
        let settings = RoSettings {
            labor_rates: RoLaborRates {
                customer: Money::from_cents(9999),
                ..Default::default()
            },
            tax_rate_millipercent: Percent(8875),
            labor_taxable: false,
        };
        // 0.33 h × 99.99 = 32.9967 → 33.00; 3 × 0.33 = 0.99.
        let p = price_line(&line(PayType::Customer, &[33], &[(300, 33)]), &settings).unwrap();
        assert_eq!(p.labor, vec![Money::from_cents(3300)]);
        assert_eq!(p.parts, vec![Money::from_cents(99)]);
        let p = price_line(&line(PayType::Customer, &[], &[(150, 67)]), &settings).unwrap();
        // 1.5 × 0.67 = 1.005 → 1.01 (half up); tax 8.875 % of 1.01 =
        // 0.0896375 → 0.09.
        assert_eq!(p.parts, vec![Money::from_cents(101)]);
        assert_eq!(p.totals.tax, Money::from_cents(9));
        assert_eq!(p.totals.total, Money::from_cents(110));
    }

    #[test]
    fn labor_is_taxed_only_when_the_setting_says() {
        let mut settings = RoSettings {
            labor_rates: RoLaborRates {
                internal: Money::from_cents(10000),
                ..Default::default()
            },
            tax_rate_millipercent: Percent(10_000),
            labor_taxable: false,
        };
        let l = line(PayType::Internal, &[100], &[(100, 1000)]);
        assert_eq!(price_line(&l, &settings).unwrap().totals.tax.cents(), 100);
        settings.labor_taxable = true;
        assert_eq!(price_line(&l, &settings).unwrap().totals.tax.cents(), 1100);
    }

    #[test]
    fn decimals_parse_exactly_or_say_why() {
        assert_eq!(parse_fixed("1.5", 2), Ok(150));
        assert_eq!(parse_fixed(" 2 ", 2), Ok(200));
        assert_eq!(parse_fixed("8.875", 3), Ok(8875));
        assert_eq!(parse_fixed("0.05", 2), Ok(5));
        for (bad, says) in [
            ("-1", "negative"),
            ("1,5", "not a number"),
            ("abc", "not a number"),
            ("1.", "not a number"),
            ("1.234", "more than 2 decimal places"),
            ("", "empty"),
            ("9999999999999", "too large"),
        ] {
            let e = parse_fixed(bad, 2).unwrap_err();
            assert!(e.contains(says), "{bad:?}: {e}");
        }
        assert_eq!(fmt_hundredths(150), "1.5");
        assert_eq!(fmt_hundredths(125), "1.25");
        assert_eq!(fmt_hundredths(200), "2");
        assert_eq!(Percent(8250).to_string(), "8.25");
        assert_eq!(Percent(0).to_string(), "0");
    }
}
