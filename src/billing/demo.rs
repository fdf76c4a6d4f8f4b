//! The demo billing data shipped with the app: the RAG-000 dataset
//! (`tests/data/billing/`: 5 rules with 6 versions, 22 orders), so a new user
//! can try arrears, verification and rule explanations. It is never loaded by
//! itself: a shop's real store starts empty of demo data, and only
//! `servicedesk billing seed-demo` (the api's `billing_seed_demo`, the UI's
//! "Load demo data" button) or a test loads it (idempotent; a `billing_meta`
//! row records when).

use serde::Serialize;
use sqlx::SqlitePool;
use ts_rs::TS;

use super::store::{self, ImportReport, Result};

pub const RULES_JSON: &str = include_str!("../../tests/data/billing/rules.json");
pub const ORDERS_JSONL: &str = include_str!("../../tests/data/billing/orders.jsonl");
pub const RULES_ORIGIN: &str = "demo:tests/data/billing/rules.json";
pub const ORDERS_ORIGIN: &str = "demo:tests/data/billing/orders.jsonl";
const SEEDED_KEY: &str = "demo_seeded_at";

#[derive(Debug, Clone, Serialize, TS)]
pub struct DemoReport {
    pub rules: ImportReport,
    pub orders: ImportReport,
}

/// Loads the demo rules (with their explanations) and orders. Idempotent.
pub async fn seed_demo(pool: &SqlitePool) -> Result<DemoReport> {
    let rules = store::import_rules(pool, RULES_JSON, RULES_ORIGIN).await?;
    let orders = store::import_orders(pool, ORDERS_JSONL, ORDERS_ORIGIN).await?;
    store::meta_set(pool, SEEDED_KEY, &crate::store::now().to_string()).await?;
    Ok(DemoReport { rules, orders })
}
