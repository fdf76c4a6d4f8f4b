//! Billing commands on the wire: simulate, rules and orders (list, import),
//! arrears, verify and the demo data. The same shapes the CLI prints with
//! `--json` (see `docs/spec/billing.md` and docs/api.md).

use serde::{Deserialize, Serialize};
use serde_json::Value;
use ts_rs::TS;

use super::AppError;
use crate::billing::demo::DemoReport;
use crate::billing::store::{
    ArrearsReport, ImportReport, NewVersion, OrderInfo, RuleInfo, RuleRef, RuleSimulation,
    Verification, VersionInfo,
};
use crate::billing::{simulate_text, Breakdown, Payload};
use crate::desk::Desk;

/// Import files larger than this are refused (the demo rules are 5 KB).
pub const MAX_IMPORT_BYTES: usize = 16 * 1024 * 1024;

#[derive(Debug, Default, Deserialize, TS)]
#[ts(optional_fields = nullable)]
#[serde(deny_unknown_fields)]
pub struct SimulateRequest {
    /// A payload to simulate directly (no store).
    #[serde(default)]
    #[ts(optional = nullable)]
    pub payload: Option<Value>,
    /// Or a stored rule by code...
    #[serde(default)]
    #[ts(optional = nullable)]
    pub rule_code: Option<String>,
    /// ...or the active rule covering this city and lot.
    #[serde(default)]
    #[ts(optional = nullable)]
    pub city_code: Option<String>,
    #[serde(default)]
    #[ts(optional = nullable)]
    pub lot_code: Option<String>,
    #[serde(alias = "entry_time")]
    pub entry: String,
    #[serde(alias = "exit_time")]
    pub exit: String,
    /// For `payload` only (a stored rule has its own zone); default UTC.
    #[serde(default)]
    #[ts(optional = nullable)]
    pub time_zone: Option<String>,
}

/// A payload's breakdown, or a stored rule's (with `rule_code` and `version_no`).
#[derive(Debug, Serialize, TS)]
#[serde(untagged)]
pub enum SimulateResponse {
    Payload(Breakdown),
    Rule(RuleSimulation),
}

#[derive(Debug, Serialize, TS)]
pub struct RuleList {
    pub rules: Vec<RuleInfo>,
}

#[derive(Debug, Deserialize, TS)]
#[ts(optional_fields = nullable)]
#[serde(deny_unknown_fields)]
pub struct ImportRequest {
    /// The file's text: a JSON array of rules, or JSONL orders.
    pub content: String,
    /// The file's name, for the change log and error messages.
    #[serde(default)]
    #[ts(optional = nullable)]
    pub name: Option<String>,
}

#[derive(Debug, Default, Deserialize, TS)]
#[ts(optional_fields = nullable)]
#[serde(deny_unknown_fields)]
pub struct OrdersRequest {
    #[serde(default)]
    #[ts(optional = nullable)]
    pub plate_no: Option<String>,
    #[serde(default)]
    #[ts(optional = nullable)]
    pub city_code: Option<String>,
}

#[derive(Debug, Serialize, TS)]
pub struct OrderList {
    pub orders: Vec<OrderInfo>,
}

#[derive(Debug, Deserialize, TS)]
#[ts(optional_fields = nullable)]
#[serde(deny_unknown_fields)]
pub struct ArrearsRequest {
    pub plate_no: String,
    #[serde(default)]
    #[ts(optional = nullable)]
    pub city_code: Option<String>,
}

#[derive(Debug, Deserialize, TS)]
#[ts(optional_fields = nullable)]
#[serde(deny_unknown_fields)]
pub struct VerifyRequest {
    pub order_no: String,
}

fn invalid(message: impl Into<String>) -> AppError {
    AppError::new("invalid_input", message)
}

fn blank(s: &Option<String>) -> Option<&str> {
    s.as_deref().map(str::trim).filter(|s| !s.is_empty())
}

/// Exactly one of `payload`, `rule_code`, or `city_code` + `lot_code`.
pub async fn billing_simulate(
    desk: &Desk,
    req: SimulateRequest,
) -> Result<SimulateResponse, AppError> {
    let code = blank(&req.rule_code);
    let scope = (blank(&req.city_code), blank(&req.lot_code));
    let rule = match (req.payload.is_some(), code, scope) {
        (true, None, (None, None)) => None,
        (false, Some(c), (None, None)) => Some(RuleRef::Code(c.to_owned())),
        (false, None, (Some(city), Some(lot))) => Some(RuleRef::Scope {
            city: city.to_owned(),
            lot: lot.to_owned(),
        }),
        (false, None, (Some(_), None)) => return Err(invalid("lot_code: required with city_code")),
        (false, None, (None, Some(_))) => return Err(invalid("city_code: required with lot_code")),
        (false, None, (None, None)) => {
            return Err(invalid(
                "give a payload, a rule_code, or a city_code and lot_code to simulate under",
            ))
        }
        _ => {
            return Err(invalid(
                "give only one of payload, rule_code, or city_code and lot_code",
            ))
        }
    };
    match (rule, req.payload) {
        (None, Some(p)) => {
            let payload = Payload::from_value(p)?;
            Ok(SimulateResponse::Payload(simulate_text(
                &payload,
                blank(&req.time_zone),
                &req.entry,
                &req.exit,
            )?))
        }
        (Some(rule), _) => {
            if let Some(tz) = blank(&req.time_zone) {
                let info = desk.billing_rule(&rule).await?;
                if crate::billing::parse_time_zone(tz)? != info.tz()? {
                    return Err(invalid(format!(
                        "time_zone: rule {} is priced in its own time zone {}, not {tz}; \
                         leave time_zone out (or give times with an offset)",
                        info.rule_code, info.time_zone
                    )));
                }
            }
            Ok(SimulateResponse::Rule(
                desk.billing_simulate_rule(&rule, &req.entry, &req.exit)
                    .await?,
            ))
        }
        (None, None) => Err(invalid("nothing to simulate")),
    }
}

pub async fn billing_rules(desk: &Desk) -> Result<RuleList, AppError> {
    Ok(RuleList {
        rules: desk.billing_rules().await?,
    })
}

fn check_size(req: &ImportRequest) -> Result<(), AppError> {
    if req.content.len() > MAX_IMPORT_BYTES {
        return Err(AppError::new(
            "too_large",
            format!(
                "content: {} bytes; an import file is at most {} MB",
                req.content.len(),
                MAX_IMPORT_BYTES / (1024 * 1024)
            ),
        ));
    }
    Ok(())
}

pub async fn billing_rules_import(
    desk: &Desk,
    req: ImportRequest,
) -> Result<ImportReport, AppError> {
    check_size(&req)?;
    let name = blank(&req.name).unwrap_or("rules.json");
    Ok(desk.billing_import_rules(&req.content, name).await?)
}

/// A new rule: one record as a rule import has it (`rule_code`, `name`,
/// `city_code`, `lot_codes`, `time_zone`, `status`, `versions`). Left as
/// JSON so that a wrong field is reported the import's way, by its name.
#[derive(Debug, Deserialize, TS)]
#[serde(deny_unknown_fields)]
pub struct RuleCreateRequest {
    #[ts(type = "unknown")]
    pub rule: Value,
}

pub async fn billing_rule_create(
    desk: &Desk,
    req: RuleCreateRequest,
) -> Result<RuleInfo, AppError> {
    Ok(desk.billing_create_rule(&req.rule).await?)
}

/// A version added to a stored rule.
#[derive(Debug, Deserialize, TS)]
#[ts(optional_fields = nullable)]
#[serde(deny_unknown_fields)]
pub struct RuleVersionAddRequest {
    pub rule_code: String,
    /// In the rule's time zone, as an import file has it (`2026-09-01T00:00`).
    pub effective_from: String,
    pub effective_to: Option<String>,
    /// The tariff (docs/spec/billing.md), checked field by field.
    #[ts(type = "unknown")]
    pub payload: Value,
}

pub async fn billing_rule_version_add(
    desk: &Desk,
    req: RuleVersionAddRequest,
) -> Result<VersionInfo, AppError> {
    let version = NewVersion {
        version_no: None,
        effective_from: req.effective_from,
        effective_to: req.effective_to.filter(|t| !t.trim().is_empty()),
        payload: req.payload,
    };
    Ok(desk.billing_add_version(&req.rule_code, version).await?)
}

pub async fn billing_orders(desk: &Desk, req: OrdersRequest) -> Result<OrderList, AppError> {
    Ok(OrderList {
        orders: desk
            .billing_orders(blank(&req.plate_no), blank(&req.city_code))
            .await?,
    })
}

pub async fn billing_orders_import(
    desk: &Desk,
    req: ImportRequest,
) -> Result<ImportReport, AppError> {
    check_size(&req)?;
    let name = blank(&req.name).unwrap_or("orders.jsonl");
    Ok(desk.billing_import_orders(&req.content, name).await?)
}

pub async fn billing_arrears(desk: &Desk, req: ArrearsRequest) -> Result<ArrearsReport, AppError> {
    Ok(desk
        .billing_arrears(&req.plate_no, blank(&req.city_code))
        .await?)
}

pub async fn billing_verify(desk: &Desk, req: VerifyRequest) -> Result<Verification, AppError> {
    Ok(desk.billing_verify(&req.order_no).await?)
}

pub async fn billing_seed_demo(desk: &Desk) -> Result<DemoReport, AppError> {
    Ok(desk.billing_seed_demo().await?)
}
