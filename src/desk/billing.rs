//! The Desk's billing operations: the store-backed half of the billing
//! lane (rules, orders, arrears, verification, the demo data), so front ends
//! reach billing through the Desk and never its database.

use std::collections::BTreeSet;

use super::Desk;
use crate::billing::demo::{self, DemoReport};
use crate::billing::store::{
    self, ArrearsReport, ImportReport, OrderInfo, Result, RuleInForce, RuleInfo, RuleRef,
    RuleSimulation, Verification, VersionInfo,
};
use crate::billing::Money;
use crate::conversation::{default_plate_patterns, BillingCall, BillingFacts, Known, PlatePattern};
use crate::when::When;

impl Desk {
    pub async fn billing_rules(&self) -> Result<Vec<RuleInfo>> {
        store::list_rules(self.store().pool()).await
    }

    pub async fn billing_rule(&self, rule: &RuleRef) -> Result<RuleInfo> {
        store::find_rule_by(self.store().pool(), rule).await
    }

    /// A stay priced under the stored rule in force at its entry.
    pub async fn billing_simulate_rule(
        &self,
        rule: &RuleRef,
        entry: &str,
        exit: &str,
    ) -> Result<RuleSimulation> {
        store::simulate_rule(self.store().pool(), rule, entry, exit).await
    }

    /// Imports a rules file (`origin` names it in errors); the rules'
    /// explanations go into the knowledge store in the same transaction.
    pub async fn billing_import_rules(
        &self,
        json_text: &str,
        origin: &str,
    ) -> Result<ImportReport> {
        store::import_rules(self.store().pool(), json_text, origin).await
    }

    /// A new rule, given as one record of a rule import and checked as the
    /// import checks it; a code already stored is refused (add a version
    /// to it instead).
    pub async fn billing_create_rule(&self, record: &serde_json::Value) -> Result<RuleInfo> {
        store::create_rule(self.store().pool(), record, "app").await
    }

    /// Adds a version to a stored rule, checked as an import checks it
    /// (fields, overlap with the stored versions); with its explanation.
    pub async fn billing_add_version(
        &self,
        rule_code: &str,
        version: store::NewVersion,
    ) -> Result<VersionInfo> {
        store::add_version(self.store().pool(), rule_code.trim(), version, "app").await
    }

    pub async fn billing_orders(
        &self,
        plate: Option<&str>,
        city: Option<&str>,
    ) -> Result<Vec<OrderInfo>> {
        store::list_orders(self.store().pool(), plate, city).await
    }

    pub async fn billing_import_orders(
        &self,
        jsonl_text: &str,
        origin: &str,
    ) -> Result<ImportReport> {
        store::import_orders(self.store().pool(), jsonl_text, origin).await
    }

    pub async fn billing_arrears(&self, plate: &str, city: Option<&str>) -> Result<ArrearsReport> {
        store::arrears(self.store().pool(), plate, city).await
    }

    pub async fn billing_verify(&self, order_no: &str) -> Result<Verification> {
        store::verify(self.store().pool(), order_no).await
    }

    pub async fn billing_seed_demo(&self) -> Result<DemoReport> {
        demo::seed_demo(self.store().pool()).await
    }
}

/// The plate patterns of this data dir's shop, by region, when it has
/// them: `billing_plates.json`, `[{"region": "US", "pattern": "^[A-Z0-9]{2,8}$"}, ...]`.
/// Without the file the lane uses its defaults (CN, US, ES, RU).
pub const PLATE_PATTERNS_FILE: &str = "billing_plates.json";

impl Desk {
    /// Runs a billing tool for the conversation. Its errors are facts for
    /// the reply ("no active rule for lot Z"), not failures of the turn.
    pub(crate) async fn billing_tool(
        &self,
        call: &BillingCall,
    ) -> std::result::Result<BillingFacts, String> {
        let pool = self.store().pool();
        match call {
            BillingCall::Context => self.billing_context().await.map(BillingFacts::Context),
            BillingCall::Arrears {
                plate_no,
                city_code,
                from,
                to,
            } => {
                let report = store::arrears(pool, plate_no, city_code.as_deref())
                    .await
                    .map_err(|e| e.to_string())?;
                let report = match (from, to) {
                    (Some(from), Some(to)) => {
                        arrears_entered(pool, report, plate_no, city_code.as_deref(), from, to)
                            .await?
                    }
                    _ => report,
                };
                Ok(BillingFacts::Arrears(report))
            }
            BillingCall::Verify { order_no } => store::verify(pool, order_no)
                .await
                .map(BillingFacts::Verify)
                .map_err(|e| e.to_string()),
            BillingCall::Rule {
                rule_code,
                city_code,
                lot_code,
                at,
            } => {
                let rule = match (rule_code, city_code, lot_code) {
                    (Some(code), _, _) => RuleRef::Code(code.clone()),
                    (None, Some(city), Some(lot)) => RuleRef::Scope {
                        city: city.clone(),
                        lot: lot.clone(),
                    },
                    _ => return Err("a rule is named by its code, or by city and lot".into()),
                };
                let at = match at {
                    Some(t) => match crate::when::parse("at", t).map_err(|e| e.to_string())? {
                        When::Local(naive) => Some(naive),
                        When::Instant(t) => Some(t.naive_local()),
                    },
                    None => None,
                };
                let (info, version) = store::resolve_rule(pool, &rule, at)
                    .await
                    .map_err(|e| e.to_string())?;
                Ok(BillingFacts::Rule(RuleInForce::new(&info, &version)))
            }
        }
    }

    /// What slot values are validated against: the cities and lots of the
    /// rules and orders, the plates with orders, the plate patterns, today.
    async fn billing_context(&self) -> std::result::Result<Known, String> {
        let pool = self.store().pool();
        let rules = store::list_rules(pool).await.map_err(|e| e.to_string())?;
        let orders = store::list_orders(pool, None, None)
            .await
            .map_err(|e| e.to_string())?;
        let mut cities = BTreeSet::new();
        let mut lots = BTreeSet::new();
        let mut plates = BTreeSet::new();
        for r in &rules {
            cities.insert(r.city_code.clone());
            lots.extend(r.lot_codes.iter().cloned());
        }
        for o in &orders {
            cities.insert(o.city_code.clone());
            lots.insert(o.lot_code.clone());
            plates.insert(o.plate_no.clone());
        }
        let plate_patterns = self.plate_patterns()?;
        Ok(Known {
            cities: cities.into_iter().collect(),
            lots: lots.into_iter().collect(),
            plates: plates.into_iter().collect(),
            plate_patterns,
            today: chrono::Local::now().date_naive().to_string(),
        })
    }

    /// The data dir's plate patterns (`billing_plates.json`), or the
    /// defaults; a bad file is an error naming it, the entry and the field.
    pub fn plate_patterns(&self) -> std::result::Result<Vec<PlatePattern>, String> {
        let path = self.data_dir().join(PLATE_PATTERNS_FILE);
        if !path.exists() {
            return Ok(default_plate_patterns());
        }
        let text = crate::files::read_text_limited(&path, 64 * 1024, "plate patterns file")
            .map_err(|e| e.to_string())?;
        let name = path.display().to_string();
        let list: Vec<PlatePattern> = serde_json::from_str(&text)
            .map_err(|e| format!("{name}: expected [{{\"region\", \"pattern\"}}, ...]: {e}"))?;
        if list.is_empty() {
            return Err(format!("{name}: no plate patterns"));
        }
        for (i, p) in list.iter().enumerate() {
            regex::RegexBuilder::new(&p.pattern)
                .size_limit(1 << 20)
                .build()
                .map_err(|e| format!("{name}: entry {i} ({}): pattern: {e}", p.region))?;
        }
        Ok(list)
    }
}

/// The arrears of a plate among its orders entered within `[from, to)`
/// (dates), recomputed to the cent from the stored orders.
async fn arrears_entered(
    pool: &sqlx::SqlitePool,
    mut report: ArrearsReport,
    plate_no: &str,
    city: Option<&str>,
    from: &str,
    to: &str,
) -> std::result::Result<ArrearsReport, String> {
    let inside = |t: &str| {
        let day = t.get(..10).unwrap_or("");
        day >= from && day < to
    };
    let all = store::list_orders(pool, Some(plate_no), city)
        .await
        .map_err(|e| e.to_string())?;
    report.orders_checked = all.iter().filter(|o| inside(&o.entry_time)).count();
    report.orders.retain(|o| inside(&o.entry_time));
    let mut total = Money::ZERO;
    for o in &report.orders {
        total = total
            .checked_add(o.arrears_amount)
            .ok_or("arrears: amount overflow")?;
    }
    report.total_arrears = total;
    report.status = store::ArrearsStatus::of(total);
    Ok(report)
}
