//! Fee verification of an order against its stay under the covering rule,
//! and the store's counts.

use serde::Serialize;
use sqlx::SqlitePool;

use super::super::{BillingError, Money};

use super::*;

/// Checks an order's total against its stay simulated under the rule that
/// covers its lot at its entry: `consistent` (auto-approve) or `mismatch`
/// (manual review) with the difference and the breakdown.
pub async fn verify(pool: &SqlitePool, order_no: &str) -> Result<Verification> {
    let o = get_order(pool, order_no).await?;
    let scope = RuleRef::Scope {
        city: o.city_code.clone(),
        lot: o.lot_code.clone(),
    };
    let mut conn = pool.acquire().await?;
    let rule = find_rule(&mut conn, &scope).await.map_err(|e| match e {
        BillingStoreError::NotFound(m) => {
            BillingStoreError::NotFound(format!("cannot verify order {}: {m}", o.order_no))
        }
        other => other,
    })?;
    drop(conn);
    let sim = simulate_with(&rule, &o.entry_time, &o.exit_time).map_err(|e| match e {
        BillingStoreError::NotFound(m) => {
            BillingStoreError::NotFound(format!("cannot verify order {}: {m}", o.order_no))
        }
        other => other,
    })?;
    let simulated = sim.breakdown.total;
    let difference = o
        .total_amount
        .checked_sub(simulated)
        .ok_or(BillingError::Overflow { what: "difference" })?;
    let result = if difference == Money::ZERO {
        FeeCheck::Consistent
    } else {
        FeeCheck::Mismatch
    };
    Ok(Verification {
        order_no: o.order_no,
        city_code: o.city_code,
        lot_code: o.lot_code,
        plate_no: o.plate_no,
        entry_time: o.entry_time,
        exit_time: o.exit_time,
        result,
        action: result.action(),
        order_total: o.total_amount,
        simulated_total: simulated,
        difference,
        paid_amount: o.paid_amount,
        rule_code: sim.rule_code,
        version_no: sim.version_no,
        time_zone: rule.time_zone,
        pieces: sim.breakdown.pieces,
    })
}

/// How many rules, versions, orders and change records are stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
pub struct Counts {
    pub rules: i64,
    pub versions: i64,
    pub orders: i64,
    pub changes: i64,
}

pub async fn counts(pool: &SqlitePool) -> Result<Counts> {
    let (rules, versions, orders, changes): (i64, i64, i64, i64) = sqlx::query_as(
        "SELECT (SELECT COUNT(*) FROM billing_rules), (SELECT COUNT(*) FROM billing_rule_versions),
                (SELECT COUNT(*) FROM parking_orders), (SELECT COUNT(*) FROM billing_changes)",
    )
    .fetch_one(pool)
    .await?;
    Ok(Counts {
        rules,
        versions,
        orders,
        changes,
    })
}

pub(crate) async fn meta_set(pool: &SqlitePool, key: &str, value: &str) -> Result<()> {
    sqlx::query(
        "INSERT INTO billing_meta (key, value) VALUES (?, ?)
         ON CONFLICT (key) DO UPDATE SET value = excluded.value",
    )
    .bind(key)
    .bind(value)
    .execute(pool)
    .await?;
    Ok(())
}
