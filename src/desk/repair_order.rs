//! The repair order's lines on the Desk: each line's pay type (and for
//! warranty, who pays), its labor and parts as the writer records them,
//! checked field by field before anything is written, and priced with the
//! shop's rates and tax (`pricing`). The engine's diagnoses are offered as
//! the labor and parts a line may start from; the engine is only read.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use ts_rs::TS;

use super::pricing::{self, fmt_hundredths, parse_fixed, Percent, RoSettings, RoTotals};
use super::{invalid, Desk, Result};
use crate::billing::Money;
use crate::engine::catalog::{fmt_tenths, parse_tenths, Catalog, Procedure};
use crate::engine::report::labor_lines;
use crate::engine::SessionState;
use crate::store::outbox_items::{complaint_key, RoPayload};
use crate::store::settings;
use crate::store::{
    AuthMethod, AuthStatus, Authorization, LaborRow, PartRow, PayType, RoLine, SaveLine,
    WarrantyPayer, DEFAULT_RO_PREFIX, RO_PREFIX_KEY,
};

/// Longest labor or part description (characters).
pub const MAX_DESCRIPTION_CHARS: usize = 500;
/// Longest part number or maker name (characters).
pub const MAX_PART_NO_CHARS: usize = 60;
/// Most labor lines, and most part lines, one complaint line takes.
pub const MAX_ITEMS: usize = 100;
/// Largest hours of one labor line, and quantity of one part line.
const MAX_HOURS_X100: i64 = 99_999;
const MAX_QTY_X100: i64 = 9_999_999;
/// Largest unit price and labor rate (cents): keeps every line's sums far
/// inside what `Money` holds.
const MAX_PRICE_CENTS: i64 = 100_000_000;

/// A labor line as the writer types it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, TS)]
#[serde(deny_unknown_fields)]
pub struct RoLaborInput {
    pub description: String,
    /// Hours, up to two decimals ("1.5").
    pub hours: String,
}

/// A part line as the writer types it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, TS)]
#[ts(optional_fields = nullable)]
#[serde(deny_unknown_fields)]
pub struct RoPartInput {
    pub part_no: Option<String>,
    pub description: String,
    /// Quantity, up to two decimals ("2", "1.5").
    pub qty: String,
    /// Price of one, in the shop's currency ("24.99").
    pub unit_price: String,
}

/// A complaint line as the writer saves it: a new one (no `line_id`) or an
/// existing one, replaced whole.
#[derive(Debug, Clone, Default, Deserialize, TS)]
#[ts(optional_fields = nullable)]
#[serde(deny_unknown_fields)]
pub struct RoLineInput {
    pub line_id: Option<String>,
    /// The customer's words.
    pub complaint: String,
    /// customer | warranty | internal | service_contract
    #[ts(type = "PayType")]
    pub pay_type: String,
    /// For warranty: chassis | coach | component.
    #[ts(type = "WarrantyPayer | null", optional)]
    pub warranty_payer: Option<String>,
    /// For a component maker's warranty: the maker ("Dometic").
    pub warranty_maker: Option<String>,
    /// The engine complaint this line's diagnosis is (`RoDiagnosis.key`).
    pub engine_complaint: Option<String>,
    #[serde(default)]
    #[ts(optional = nullable)]
    pub labor: Vec<RoLaborInput>,
    #[serde(default)]
    #[ts(optional = nullable)]
    pub parts: Vec<RoPartInput>,
}

/// Changes to the money settings; what is left out stays as it is.
#[derive(Debug, Clone, Default, Deserialize, TS)]
#[ts(optional_fields = nullable)]
#[serde(deny_unknown_fields)]
pub struct RoSettingsPatch {
    pub rate_customer: Option<String>,
    pub rate_warranty: Option<String>,
    pub rate_internal: Option<String>,
    pub rate_service_contract: Option<String>,
    /// Percent, up to three decimals ("8.25").
    pub tax_rate: Option<String>,
    pub labor_taxable: Option<bool>,
    /// What every new RO number starts with ("RO-" gives RO-000001).
    pub ro_prefix: Option<String>,
}

/// The repair order's settings: the RO number's prefix and the money.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct RoSettingsView {
    /// What every new RO number starts with; the number follows as six
    /// digits, one past the highest already issued under it.
    pub ro_prefix: String,
    #[serde(flatten)]
    pub money: RoSettings,
}

/// The longest RO number prefix, in characters.
pub const RO_PREFIX_MAX_CHARS: usize = 12;

/// A prefix as it will be stored (trimmed), or what is wrong with it. The
/// number is printed straight after it, so a trailing digit would read as
/// part of the number ("RO1" + 000001 = RO1000001).
pub fn check_ro_prefix(text: &str) -> Result<String> {
    let p = text.trim();
    if p.is_empty() {
        return Err(invalid(
            "ro_prefix",
            format!("may not be empty; the RO number is the prefix and six digits ({DEFAULT_RO_PREFIX}000001)"),
        ));
    }
    let n = p.chars().count();
    if n > RO_PREFIX_MAX_CHARS {
        return Err(invalid(
            "ro_prefix",
            format!("{p:?} has {n} characters; at most {RO_PREFIX_MAX_CHARS}"),
        ));
    }
    if let Some((i, c)) = p
        .chars()
        .enumerate()
        .find(|(_, c)| !(c.is_alphanumeric() || matches!(c, '-' | '_' | '/' | '.' | '#')))
    {
        let what = if c.is_whitespace() {
            "a space".to_owned()
        } else {
            format!("{c:?}")
        };
        return Err(invalid(
            "ro_prefix",
            format!(
                "{p:?} has {what} at character {}; use letters, digits and - _ / . #",
                i + 1
            ),
        ));
    }
    if p.ends_with(|c: char| c.is_ascii_digit()) {
        return Err(invalid(
            "ro_prefix",
            format!(
                "{p:?} ends in a digit, which would run into the number ({p}000001); end it with a letter or a separator such as -"
            ),
        ));
    }
    Ok(p.to_owned())
}

#[derive(Debug, Clone, Serialize, TS)]
pub struct RoLaborView {
    pub description: String,
    pub hours: String,
    pub amount: Money,
}

#[derive(Debug, Clone, Serialize, TS)]
pub struct RoPartView {
    pub part_no: String,
    pub description: String,
    pub qty: String,
    pub unit_price: Money,
    pub amount: Money,
}

/// The answer to a line's estimate: pending until the customer or the
/// warranty company approves or declines it.
#[derive(Debug, Clone, Serialize, TS)]
pub struct RoAuthorization {
    pub status: AuthStatus,
    pub by: Option<String>,
    pub method: Option<AuthMethod>,
    /// When it was given.
    pub at: Option<crate::store::Timestamp>,
    /// The estimate's total it was given for.
    pub total: Option<Money>,
}

/// A line's estimate answered: approved or declined, by whom, how, and
/// when (now when not given).
#[derive(Debug, Clone, Default, Deserialize, TS)]
#[ts(optional_fields = nullable)]
#[serde(deny_unknown_fields)]
pub struct RoAuthorizeInput {
    pub line_id: String,
    /// approved | declined
    #[ts(type = "\"approved\" | \"declined\"")]
    pub decision: String,
    /// The customer, or the warranty company's representative.
    pub by: String,
    /// in_person | phone | signature
    #[ts(type = "AuthMethod")]
    pub method: String,
    /// YYYY-MM-DDTHH:MM local, or RFC 3339.
    pub at: Option<String>,
}

/// One complaint line, priced.
#[derive(Debug, Clone, Serialize, TS)]
pub struct RoLineView {
    pub id: String,
    pub line_no: i64,
    pub complaint: String,
    pub pay_type: PayType,
    pub warranty_payer: Option<WarrantyPayer>,
    pub warranty_maker: Option<String>,
    pub engine_complaint: Option<String>,
    /// The labor rate of its pay type.
    pub labor_rate: Money,
    pub labor: Vec<RoLaborView>,
    pub parts: Vec<RoPartView>,
    pub totals: RoTotals,
    pub authorization: RoAuthorization,
    /// Whether the line's diagnosis (the one it is linked to, else the
    /// chat's complaint at its position) has isolated a cause: its estimate
    /// can be approved only then (a decline may come at any time).
    pub isolated: bool,
}

/// One of the engine's complaints of this visit, with the labor and parts
/// its finding proposes (empty until it has one), in the session's language.
#[derive(Debug, Clone, Serialize, TS)]
pub struct RoDiagnosis {
    pub key: String,
    pub system: String,
    /// The complaint as the catalog words it, or the system's name.
    pub title: String,
    /// The isolated cause, once there is one.
    pub cause: Option<String>,
    /// Whether the diagnosis has isolated its cause.
    pub isolated: bool,
    pub labor: Vec<RoLaborInput>,
    pub parts: Vec<RoPartInput>,
}

/// A session's repair order: its lines priced, the totals, the settings
/// they were priced with, and the diagnoses a line can start from.
#[derive(Debug, Clone, Serialize, TS)]
pub struct RepairOrder {
    pub session_id: String,
    pub ro_number: String,
    pub settings: RoSettings,
    pub lines: Vec<RoLineView>,
    pub totals: RoTotals,
    pub diagnoses: Vec<RoDiagnosis>,
}

impl Desk {
    /// The shop's labor rates and tax; all zero until set.
    pub async fn ro_settings(&self) -> Result<RoSettings> {
        Ok(
            settings::get_json(self.store().pool(), settings::KEY_RO_MONEY)
                .await?
                .unwrap_or_default(),
        )
    }

    /// What new RO numbers start with.
    pub async fn ro_prefix(&self) -> Result<String> {
        Ok(settings::get(self.store().pool(), RO_PREFIX_KEY)
            .await?
            .unwrap_or_else(|| DEFAULT_RO_PREFIX.to_owned()))
    }

    /// Changes the repair order's settings: every given field is checked
    /// before any is stored, and all are stored together.
    pub async fn set_ro_settings(&self, patch: RoSettingsPatch) -> Result<RoSettingsView> {
        let prefix = match &patch.ro_prefix {
            Some(text) => check_ro_prefix(text)?,
            None => self.ro_prefix().await?,
        };
        let mut s = self.ro_settings().await?;
        let rates = [
            (
                "rate_customer",
                &patch.rate_customer,
                &mut s.labor_rates.customer,
            ),
            (
                "rate_warranty",
                &patch.rate_warranty,
                &mut s.labor_rates.warranty,
            ),
            (
                "rate_internal",
                &patch.rate_internal,
                &mut s.labor_rates.internal,
            ),
            (
                "rate_service_contract",
                &patch.rate_service_contract,
                &mut s.labor_rates.service_contract,
            ),
        ];
        for (field, text, slot) in rates {
            if let Some(text) = text {
                *slot = money(field, "", text)?;
            }
        }
        if let Some(text) = &patch.tax_rate {
            let p = parse_fixed(text, 3).map_err(|m| invalid("tax_rate", m))?;
            if Percent(p) > Percent::MAX {
                return Err(invalid(
                    "tax_rate",
                    format!("{text:?} is more than 100 percent"),
                ));
            }
            s.tax_rate_millipercent = Percent(p);
        }
        if let Some(b) = patch.labor_taxable {
            s.labor_taxable = b;
        }
        let mut rows = vec![(settings::KEY_RO_MONEY, settings::json_text(&s))];
        if patch.ro_prefix.is_some() {
            rows.push((RO_PREFIX_KEY, prefix.clone()));
        }
        settings::set_all(self.store().pool(), &rows).await?;
        Ok(RoSettingsView {
            ro_prefix: prefix,
            money: s,
        })
    }

    /// A session's repair order, priced with the current settings.
    pub async fn repair_order(&self, session_id: &str) -> Result<RepairOrder> {
        let mut ro = self.priced_order(session_id).await?;
        let (_, state) = self.store().latest_state(session_id).await?;
        ro.diagnoses = diagnoses(&self.engine().catalog, &state);
        for at in 0..ro.lines.len() {
            ro.lines[at].isolated =
                diagnosis_of_line(&ro.lines, &ro.diagnoses, at).is_some_and(|d| d.isolated);
        }
        Ok(ro)
    }

    /// The lines priced, without the diagnoses.
    pub(crate) async fn priced_order(&self, session_id: &str) -> Result<RepairOrder> {
        let session = self.store().session(session_id).await?;
        let lines = self.store().ro_lines(session_id).await?;
        let settings = self.ro_settings().await?;
        let (priced, totals) = price(&lines, &settings)?;
        Ok(RepairOrder {
            session_id: session.id,
            ro_number: session.ro_number,
            settings,
            lines: lines
                .into_iter()
                .zip(priced)
                .map(|(l, p)| line_view(l, p))
                .collect(),
            totals,
            diagnoses: Vec::new(),
        })
    }

    /// Saves one line whole, after every field is checked (an error names
    /// the field and the line item; nothing is written then).
    pub async fn save_ro_line(
        &self,
        session_id: &str,
        input: RoLineInput,
        edited_by: Option<&str>,
    ) -> Result<RepairOrder> {
        let (_, state) = self.store().latest_state(session_id).await?;
        let known: Vec<String> = diagnoses(&self.engine().catalog, &state)
            .into_iter()
            .map(|d| d.key)
            .collect();
        let mut line = check_line(input, &known)?;
        let mut lines = self.store().ro_lines(session_id).await?;
        // An answer stands only for the estimate it was given for.
        if let Some(id) = &line.id {
            line.keep_authorization = lines.iter().find(|l| l.id == *id).is_some_and(|old| {
                old.pay_type == line.pay_type
                    && old.warranty_payer == line.warranty_payer
                    && old.warranty_maker == line.warranty_maker
                    && old.labor == line.labor
                    && old.parts == line.parts
            });
        }
        // The order as it would be must still price: amounts beyond what
        // `Money` holds are refused here, never left to fail a later report.
        let candidate = RoLine {
            id: line.id.clone().unwrap_or_default(),
            line_no: lines.len() as i64 + 1,
            complaint: line.complaint.clone(),
            pay_type: line.pay_type,
            warranty_payer: line.warranty_payer,
            warranty_maker: line.warranty_maker.clone(),
            engine_complaint: line.engine_complaint.clone(),
            labor: line.labor.clone(),
            parts: line.parts.clone(),
            authorization: Authorization {
                status: AuthStatus::Pending,
                by: None,
                method: None,
                at: None,
                total_cents: None,
            },
        };
        match lines.iter_mut().find(|l| Some(&l.id) == line.id.as_ref()) {
            Some(old) => {
                *old = RoLine {
                    line_no: old.line_no,
                    ..candidate
                }
            }
            None => lines.push(candidate),
        }
        price(&lines, &self.ro_settings().await?)?;
        self.store()
            .save_ro_line(session_id, &line, edited_by)
            .await?;
        self.repair_order(session_id).await
    }

    /// Records the customer's or the warranty company's answer to a line's
    /// estimate. A line needs an estimate (labor or parts) first.
    pub async fn authorize_ro_line(
        &self,
        session_id: &str,
        input: RoAuthorizeInput,
        edited_by: Option<&str>,
    ) -> Result<RepairOrder> {
        let status = match input.decision.trim() {
            "approved" => AuthStatus::Approved,
            "declined" => AuthStatus::Declined,
            other => {
                return Err(invalid(
                    "decision",
                    format!("{other:?} is not a decision; use approved or declined"),
                ))
            }
        };
        let by = text("by", "", &input.by, super::MAX_NAME_CHARS)?;
        if by.is_empty() {
            return Err(invalid(
                "by",
                "is required: who approved or declined the estimate",
            ));
        }
        let method = AuthMethod::parse(input.method.trim()).ok_or_else(|| {
            invalid(
                "method",
                format!(
                    "{:?} is not a way to authorize; use in_person, phone or signature",
                    input.method
                ),
            )
        })?;
        let at = match input.at.as_deref().map(str::trim).filter(|a| !a.is_empty()) {
            Some(a) => crate::when::to_utc("at", a)
                .map(crate::store::Timestamp::from)
                .map_err(|e| invalid("at", e.to_string()))?,
            None => crate::store::now(),
        };
        let order = self.repair_order(session_id).await?;
        let line = order
            .lines
            .iter()
            .find(|l| l.id == input.line_id.trim())
            .ok_or_else(|| {
                invalid(
                    "line_id",
                    format!("{:?} is not a line of {}", input.line_id, order.ro_number),
                )
            })?;
        if line.labor.is_empty() && line.parts.is_empty() {
            return Err(invalid(
                "line_id",
                format!(
                    "line {} has no estimate yet: record its labor or parts first",
                    line.line_no
                ),
            ));
        }
        // An estimate goes to the customer once the line is isolated: what
        // is approved is a repair of a known cause. A customer may decline
        // at any time, diagnosis included.
        if status == AuthStatus::Approved && !line.isolated {
            return Err(invalid(
                "decision",
                format!(
                    "line {} cannot be approved yet: its diagnosis has not isolated a cause \
                     (link the line to a diagnosis with a cause, or finish it in the chat); \
                     a decline can be recorded at any time",
                    line.line_no
                ),
            ));
        }
        let auth = Authorization {
            status,
            by: Some(by),
            method: Some(method),
            at: Some(at),
            total_cents: Some(line.totals.total.cents()),
        };
        self.store()
            .authorize_ro_line(session_id, &line.id, &auth, edited_by)
            .await?;
        self.repair_order(session_id).await
    }

    /// Removes a line; a repair order keeps at least one.
    pub async fn delete_ro_line(
        &self,
        session_id: &str,
        line_id: &str,
        edited_by: Option<&str>,
    ) -> Result<RepairOrder> {
        let lines = self.store().ro_lines(session_id).await?;
        if lines.len() == 1 && lines[0].id == line_id {
            return Err(invalid(
                "line_id",
                "a repair order keeps at least one line; edit this one instead",
            ));
        }
        self.store()
            .delete_ro_line(session_id, line_id, edited_by)
            .await?;
        self.repair_order(session_id).await
    }

    /// The repair order as a report revision carries it to the portal.
    pub async fn ro_payload(&self, session_id: &str) -> Result<RoPayload> {
        let ro = self.priced_order(session_id).await?;
        Ok(payload(&ro))
    }
}

fn price(lines: &[RoLine], settings: &RoSettings) -> Result<(Vec<pricing::PricedLine>, RoTotals)> {
    pricing::price_order(lines, settings).map_err(|e| invalid("lines", e.to_string()))
}

fn line_view(l: RoLine, p: pricing::PricedLine) -> RoLineView {
    RoLineView {
        labor: l
            .labor
            .into_iter()
            .zip(p.labor)
            .map(|(x, amount)| RoLaborView {
                description: x.description,
                hours: fmt_hundredths(x.hours_x100),
                amount,
            })
            .collect(),
        parts: l
            .parts
            .into_iter()
            .zip(p.parts)
            .map(|(x, amount)| RoPartView {
                part_no: x.part_no,
                description: x.description,
                qty: fmt_hundredths(x.qty_x100),
                unit_price: Money::from_cents(x.unit_price_cents),
                amount,
            })
            .collect(),
        id: l.id,
        line_no: l.line_no,
        complaint: l.complaint,
        pay_type: l.pay_type,
        warranty_payer: l.warranty_payer,
        warranty_maker: l.warranty_maker,
        engine_complaint: l.engine_complaint,
        labor_rate: p.labor_rate,
        totals: p.totals,
        // Known once the diagnoses are read (`Desk::repair_order`).
        isolated: false,
        authorization: RoAuthorization {
            status: l.authorization.status,
            by: l.authorization.by,
            method: l.authorization.method,
            at: l.authorization.at,
            total: l.authorization.total_cents.map(Money::from_cents),
        },
    }
}

/// A money field: non-negative, exact to the cent, within the largest price.
fn money(field: &'static str, item: &str, text: &str) -> Result<Money> {
    let m = Money::parse(text).map_err(|e| invalid(field, format!("{item}{e}")))?;
    if m.is_negative() {
        return Err(invalid(
            field,
            format!("{item}{text:?} may not be negative"),
        ));
    }
    if m.cents() > MAX_PRICE_CENTS {
        return Err(invalid(
            field,
            format!(
                "{item}{text:?} is more than {}",
                Money::from_cents(MAX_PRICE_CENTS)
            ),
        ));
    }
    Ok(m)
}

/// A trimmed text that must fit `limit` characters.
fn text(field: &'static str, item: &str, value: &str, limit: usize) -> Result<String> {
    let value = value.trim();
    let chars = value.chars().count();
    if chars > limit {
        return Err(invalid(
            field,
            format!("{item}is {chars} characters long; at most {limit}"),
        ));
    }
    Ok(value.to_owned())
}

/// Checks a line as typed and turns it into what the store keeps.
fn check_line(input: RoLineInput, known_diagnoses: &[String]) -> Result<SaveLine> {
    let complaint = text(
        "complaint",
        "",
        &input.complaint,
        super::MAX_COMPLAINT_CHARS,
    )?;
    if complaint.is_empty() {
        return Err(invalid(
            "complaint",
            "is required: the customer's words for this line",
        ));
    }
    let pay = input.pay_type.trim();
    let pay_type = PayType::parse(pay).ok_or_else(|| {
        invalid(
            "pay_type",
            format!(
                "{pay:?} is not a pay type; use customer, warranty, internal or service_contract"
            ),
        )
    })?;
    let (warranty_payer, warranty_maker) = if pay_type == PayType::Warranty {
        let payer = input
            .warranty_payer
            .as_deref()
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .ok_or_else(|| {
                invalid(
                    "warranty_payer",
                    "a warranty line needs its paying party: chassis, coach or component",
                )
            })?;
        let payer = WarrantyPayer::parse(payer).ok_or_else(|| {
            invalid(
                "warranty_payer",
                format!("{payer:?} is not a paying party; use chassis, coach or component"),
            )
        })?;
        let maker = match payer {
            WarrantyPayer::Component => {
                let maker = text(
                    "warranty_maker",
                    "",
                    input.warranty_maker.as_deref().unwrap_or(""),
                    super::MAX_NAME_CHARS,
                )?;
                if maker.is_empty() {
                    return Err(invalid(
                        "warranty_maker",
                        "a component maker's warranty needs the maker's name (e.g. Dometic)",
                    ));
                }
                Some(maker)
            }
            // Only a component maker is named; the chassis and coach makers
            // are the unit's.
            _ => None,
        };
        (Some(payer), maker)
    } else {
        (None, None)
    };
    let engine_complaint = input
        .engine_complaint
        .map(|k| k.trim().to_owned())
        .filter(|k| !k.is_empty());
    if let Some(k) = &engine_complaint {
        if !known_diagnoses.contains(k) {
            return Err(invalid(
                "engine_complaint",
                format!(
                    "{k:?} is not one of this visit's diagnoses ({})",
                    if known_diagnoses.is_empty() {
                        "none yet".to_owned()
                    } else {
                        known_diagnoses.join(", ")
                    }
                ),
            ));
        }
    }
    if input.labor.len() > MAX_ITEMS || input.parts.len() > MAX_ITEMS {
        return Err(invalid(
            if input.labor.len() > MAX_ITEMS {
                "labor"
            } else {
                "parts"
            },
            format!("at most {MAX_ITEMS} per line"),
        ));
    }
    let mut labor = Vec::with_capacity(input.labor.len());
    for (i, l) in input.labor.iter().enumerate() {
        let item = format!("labor line {}: ", i + 1);
        let description = text("description", &item, &l.description, MAX_DESCRIPTION_CHARS)?;
        if description.is_empty() {
            return Err(invalid("description", format!("{item}is required")));
        }
        let hours_x100 =
            parse_fixed(&l.hours, 2).map_err(|m| invalid("hours", format!("{item}{m}")))?;
        if hours_x100 > MAX_HOURS_X100 {
            return Err(invalid(
                "hours",
                format!(
                    "{item}{:?} is more than {}",
                    l.hours,
                    fmt_hundredths(MAX_HOURS_X100)
                ),
            ));
        }
        labor.push(LaborRow {
            description,
            hours_x100,
        });
    }
    let mut parts = Vec::with_capacity(input.parts.len());
    for (i, p) in input.parts.iter().enumerate() {
        let item = format!("part line {}: ", i + 1);
        let part_no = text(
            "part_no",
            &item,
            p.part_no.as_deref().unwrap_or(""),
            MAX_PART_NO_CHARS,
        )?;
        let description = text("description", &item, &p.description, MAX_DESCRIPTION_CHARS)?;
        if description.is_empty() {
            return Err(invalid("description", format!("{item}is required")));
        }
        let qty_x100 = parse_fixed(&p.qty, 2).map_err(|m| invalid("qty", format!("{item}{m}")))?;
        if qty_x100 == 0 {
            return Err(invalid("qty", format!("{item}must be more than 0")));
        }
        if qty_x100 > MAX_QTY_X100 {
            return Err(invalid(
                "qty",
                format!(
                    "{item}{:?} is more than {}",
                    p.qty,
                    fmt_hundredths(MAX_QTY_X100)
                ),
            ));
        }
        let unit_price = money("unit_price", &item, &p.unit_price)?;
        parts.push(PartRow {
            part_no,
            description,
            qty_x100,
            unit_price_cents: unit_price.cents(),
        });
    }
    Ok(SaveLine {
        id: input
            .line_id
            .map(|i| i.trim().to_owned())
            .filter(|i| !i.is_empty()),
        complaint,
        pay_type,
        warranty_payer,
        warranty_maker,
        engine_complaint,
        labor,
        parts,
        keep_authorization: false,
    })
}

/// The engine's complaints of this visit in report order (closed, the open
/// one, queued, set aside), each with what its finding proposes.
pub fn diagnoses(catalog: &Catalog, state: &SessionState) -> Vec<RoDiagnosis> {
    let lang = state.language.as_str();
    let mut out = Vec::new();
    let title = |p: Option<&Procedure>, system: &str, symptom: Option<&str>| {
        p.and_then(|p| {
            symptom
                .and_then(|s| p.symptoms.iter().find(|x| x.id == s))
                .map(|s| s.complaint.get(lang).to_owned())
                .or_else(|| Some(p.title.get(lang).to_owned()))
        })
        .unwrap_or_else(|| system.to_owned())
    };
    let proposal = |p: Option<&Procedure>,
                    isolation: &crate::engine::state::Isolation,
                    tenths: Option<u32>| {
        let Some(f) = p.and_then(|p| isolation.finding_in(p)) else {
            return (None, Vec::new(), Vec::new());
        };
        let total = tenths.unwrap_or_else(|| f.labor_tenths());
        let labor = labor_lines(&f, total, lang)
            .into_iter()
            .map(|(description, t)| RoLaborInput {
                description,
                hours: trim_tenths(t),
            })
            .collect();
        let parts = f
            .parts(lang)
            .iter()
            .map(|d| RoPartInput {
                part_no: None,
                description: d.clone(),
                qty: "1".into(),
                // The catalog knows no prices: the writer fills them in.
                unit_price: String::new(),
            })
            .collect();
        (Some(f.cause.get(lang).to_owned()), labor, parts)
    };
    for c in &state.closed_complaints {
        let p = catalog.get(&c.system);
        let (cause, labor, parts) = proposal(p, &c.isolation, Some(c.labor_tenths));
        out.push(RoDiagnosis {
            key: complaint_key(&c.system, c.symptom.as_deref()),
            system: c.system.clone(),
            title: title(p, &c.system, c.symptom.as_deref()),
            isolated: c.isolation.complete && cause.is_some(),
            cause,
            labor,
            parts,
        });
    }
    if let Some(system) = &state.active_procedure {
        let p = catalog.get(system);
        let confirmed = state
            .labor
            .confirmed_hours
            .as_deref()
            .and_then(parse_tenths);
        let (cause, labor, parts) = proposal(p, &state.isolation, confirmed);
        out.push(RoDiagnosis {
            key: complaint_key(system, state.symptom.as_deref()),
            system: system.clone(),
            title: title(p, system, state.symptom.as_deref()),
            isolated: state.isolation.complete && cause.is_some(),
            cause,
            labor,
            parts,
        });
    }
    for key in state
        .queued_complaints
        .iter()
        .chain(&state.undiagnosed_complaints)
    {
        let (system, symptom) = match key.split_once(':') {
            Some((s, y)) => (s, Some(y)),
            None => (key.as_str(), None),
        };
        if out.iter().any(|d| d.key == *key) {
            continue;
        }
        out.push(RoDiagnosis {
            key: key.clone(),
            system: system.to_owned(),
            title: title(catalog.get(system), system, symptom),
            cause: None,
            isolated: false,
            labor: Vec::new(),
            parts: Vec::new(),
        });
    }
    out
}

/// The diagnosis the line at `at` stands for, as the report pairs them
/// (`RoPayload::line_of_report_line`): the one it is linked to, else the
/// chat's complaint at its position when no other line is linked to it.
fn diagnosis_of_line<'a>(
    lines: &[RoLineView],
    diagnoses: &'a [RoDiagnosis],
    at: usize,
) -> Option<&'a RoDiagnosis> {
    match lines[at].engine_complaint.as_deref() {
        Some(key) => diagnoses.iter().find(|d| d.key == key),
        None => diagnoses.get(at).filter(|d| {
            !lines
                .iter()
                .any(|l| l.engine_complaint.as_deref() == Some(d.key.as_str()))
        }),
    }
}

/// Tenths as the writer types hours: "1.5", "2".
fn trim_tenths(t: u32) -> String {
    let s = fmt_tenths(t);
    s.strip_suffix(".0").map(str::to_owned).unwrap_or(s)
}

/// Hundredths as the portal's two-decimal hours ("1.50").
fn hours2(x100: &str) -> String {
    parse_fixed(x100, 2)
        .map(|h| format!("{}.{:02}", h / 100, h % 100))
        .unwrap_or_else(|_| x100.to_owned())
}

/// The repair order as the portal receives it beside the report.
pub fn payload(ro: &RepairOrder) -> RoPayload {
    let warranty = |l: &RoLineView| {
        l.warranty_payer
            .map(|p| json!({"payer": p.as_str(), "maker": l.warranty_maker}))
            .unwrap_or(Value::Null)
    };
    let authorization = |l: &RoLineView| {
        let a = &l.authorization;
        json!({
            "status": a.status.as_str(),
            "by": a.by,
            "method": a.method.map(AuthMethod::as_str),
            "at": a.at,
            "total": a.total,
        })
    };
    let lines: Vec<Value> = ro
        .lines
        .iter()
        .map(|l| {
            json!({
                "ro_line": l.line_no,
                "authorization": authorization(l),
                "complaint": l.complaint,
                "pay_type": l.pay_type.as_str(),
                "warranty": warranty(l),
                "engine_complaint": l.engine_complaint,
                "labor_rate": l.labor_rate,
                "labor": l.labor.iter().map(|x| json!({
                    "description": x.description, "hours": hours2(&x.hours), "amount": x.amount,
                })).collect::<Vec<_>>(),
                "parts": l.parts.iter().map(|x| json!({
                    "part_no": x.part_no, "description": x.description, "qty": x.qty,
                    "unit_price": x.unit_price, "amount": x.amount,
                })).collect::<Vec<_>>(),
                "totals": l.totals,
            })
        })
        .collect();
    RoPayload {
        order: json!({
            "ro_number": ro.ro_number,
            "tax_rate": ro.settings.tax_rate_millipercent.to_string(),
            "labor_taxable": ro.settings.labor_taxable,
            "lines": lines,
            "totals": ro.totals,
        }),
        lines: ro
            .lines
            .iter()
            .map(|l| {
                (
                    l.engine_complaint.clone(),
                    json!({
                        "ro_line": l.line_no,
                        "pay_type": l.pay_type.as_str(),
                        "warranty": warranty(l),
                        "authorization": authorization(l),
                        "totals": l.totals,
                        "labor_rate": l.labor_rate,
                    }),
                )
            })
            .collect(),
    }
}

/// The report body with the answers to the repair order's estimates
/// stated: each report line whose repair order line was declined
/// (`engine::report::mark_declined`) or approved (`report_marks`), and
/// each declined repair order line the diagnosis never reached (a block of
/// its own). `state` is the one the report was written from; the repair
/// order as the turn began.
pub(crate) fn with_answers(
    catalog: &Catalog,
    session: &crate::store::Session,
    state: &SessionState,
    ro: &RoPayload,
    body: &str,
) -> String {
    use crate::engine::report::{mark_declined, Declined};
    use crate::report_marks::{mark_approved, Approved};
    let answer =
        |at: usize, status: &str| -> Option<(Option<String>, Option<String>, Option<String>)> {
            let a = &ro.lines.get(at)?.1["authorization"];
            (a["status"] == status).then(|| {
                (
                    a["by"].as_str().map(str::to_owned),
                    a["method"].as_str().map(str::to_owned),
                    a["at"].as_str().map(crate::when::local_display),
                )
            })
        };
    let declined =
        |at: usize| answer(at, "declined").map(|(by, method, at)| Declined { by, method, at });
    let report = crate::store::outbox_items::report_lines(catalog, session, state);
    let mut reached = vec![false; ro.lines.len()];
    let mut marked = Vec::new();
    let mut approved = Vec::new();
    for (i, line) in report.iter().enumerate() {
        if let Some(at) = ro.line_of_report_line(i, line.key.as_deref()) {
            reached[at] = true;
            if let Some(d) = declined(at) {
                marked.push((i, d));
            }
            if let Some((by, method, when)) = answer(at, "approved") {
                approved.push((
                    i,
                    Approved {
                        by,
                        method,
                        at: when,
                    },
                ));
            }
        }
    }
    let unlisted: Vec<(String, Declined)> = (0..ro.lines.len())
        .filter(|at| !reached[*at])
        .filter_map(|at| {
            let words = ro.order["lines"][at]["complaint"].as_str()?.to_owned();
            Some((words, declined(at)?))
        })
        .collect();
    let body = mark_declined(body, &state.language, &marked, &unlisted);
    mark_approved(&body, &state.language, &approved)
}
