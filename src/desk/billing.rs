//! The Desk's billing operations: the store-backed half of the billing
//! lane (rules, orders, arrears, verification, the demo data), so front ends
//! reach billing through the Desk and never its database.

use super::Desk;
use crate::billing::demo::{self, DemoReport};
use crate::billing::store::{
    self, ArrearsReport, ImportReport, OrderInfo, Result, RuleInfo, RuleRef, RuleSimulation,
    Verification,
};

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
