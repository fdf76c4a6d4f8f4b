//! Parking and storage orders: importing, listing, and arrears by plate.

use chrono::{DateTime, Utc};
use serde_json::{Map, Value};
use sqlx::{Row, SqliteConnection, SqlitePool};

use super::super::{parse_site_time, parse_time_zone, BillingError, Money, Tz, MAX_STAY_DAYS};

use super::*;

// ---------------------------------------------------------------- orders

pub(super) const ORDER_FIELDS: &[&str] = &[
    "order_no",
    "city_code",
    "lot_code",
    "plate_no",
    "entry_time",
    "exit_time",
    "total_amount",
    "paid_amount",
];

pub(super) struct OrderRecord {
    pub(super) order_no: String,
    pub(super) city_code: String,
    pub(super) lot_code: String,
    pub(super) plate_no: String,
    pub(super) entry_time: String,
    pub(super) exit_time: String,
    pub(super) entry_utc: String,
    pub(super) total: Money,
    pub(super) paid: Money,
}

/// The zone a site's order times are read in: the covering rule's, else any
/// rule's in the city, else UTC.
pub(super) async fn site_zone(conn: &mut SqliteConnection, city: &str, lot: &str) -> Result<Tz> {
    let rows: Vec<(String, String, String)> = sqlx::query_as(
        "SELECT time_zone, lot_codes, status FROM billing_rules WHERE city_code = ?
         ORDER BY status = 'active' DESC, rule_code",
    )
    .bind(city)
    .fetch_all(&mut *conn)
    .await?;
    let covering = rows.iter().find(|(_, lots, _)| {
        serde_json::from_str::<Vec<String>>(lots).is_ok_and(|l| l.iter().any(|x| x == lot))
    });
    let name = covering
        .or(rows.first())
        .map(|(tz, _, _)| tz.as_str())
        .unwrap_or("UTC");
    Ok(parse_time_zone(name).unwrap_or(Tz::UTC))
}

pub(super) async fn parse_order(
    conn: &mut SqliteConnection,
    map: &Map<String, Value>,
) -> Result<std::result::Result<OrderRecord, Vec<(String, String)>>> {
    let mut f = Fields::new(map, "", ORDER_FIELDS);
    let order_no = f.checked("order_no", check_order_no);
    let city = f.checked("city_code", normalize_code);
    let lot = f.checked("lot_code", normalize_code);
    let plate = f.checked("plate_no", normalize_plate);
    let entry_text = f.string("entry_time").map(|s| s.trim().to_owned());
    let exit_text = f.string("exit_time").map(|s| s.trim().to_owned());
    let total = f.money("total_amount");
    let paid = f.money("paid_amount");
    let tz = match (&city, &lot) {
        (Some(c), Some(l)) => site_zone(conn, c, l).await?,
        _ => Tz::UTC,
    };
    let time = |f: &mut Fields, key: &str, text: &Option<String>| -> Option<DateTime<Tz>> {
        match parse_site_time(text.as_deref()?, tz) {
            Ok(t) => Some(t),
            Err(e) => {
                f.fail(key, e.to_string());
                None
            }
        }
    };
    let entry = time(&mut f, "entry_time", &entry_text);
    let exit = time(&mut f, "exit_time", &exit_text);
    if let (Some(a), Some(b)) = (&entry, &exit) {
        let minutes = (b.timestamp() - a.timestamp()).div_euclid(60);
        let (ea, eb) = (show(a.naive_local()), show(b.naive_local()));
        if b < a {
            f.fail(
                "exit_time",
                BillingError::ExitBeforeEntry {
                    entry: ea,
                    exit: eb,
                }
                .to_string(),
            );
        } else if minutes > MAX_STAY_DAYS * 1440 {
            f.fail(
                "exit_time",
                BillingError::StayTooLong {
                    entry: ea,
                    exit: eb,
                    minutes,
                }
                .to_string(),
            );
        }
    }
    if !f.errors.is_empty() {
        return Ok(Err(f.errors));
    }
    match (
        order_no, city, lot, plate, entry_text, exit_text, entry, total, paid,
    ) {
        (
            Some(order_no),
            Some(city_code),
            Some(lot_code),
            Some(plate_no),
            Some(entry_time),
            Some(exit_time),
            Some(entry),
            Some(total),
            Some(paid),
        ) => Ok(Ok(OrderRecord {
            order_no,
            city_code,
            lot_code,
            plate_no,
            entry_time,
            exit_time,
            entry_utc: entry
                .with_timezone(&Utc)
                .format("%Y-%m-%dT%H:%M:%SZ")
                .to_string(),
            total,
            paid,
        })),
        _ => Ok(Err(vec![(String::new(), "incomplete order".into())])),
    }
}

/// Imports orders from JSONL, one a line. A bad line is skipped with its
/// line and field and nothing of it is stored; the good lines are. An order
/// already stored identically is unchanged; with other content, refused.
pub async fn import_orders(
    pool: &SqlitePool,
    jsonl_text: &str,
    origin: &str,
) -> Result<ImportReport> {
    let mut report = ImportReport {
        origin: origin.to_owned(),
        ..Default::default()
    };
    let mut tx = pool.begin_with("BEGIN IMMEDIATE").await?;
    let mut record = 0;
    for (i, raw) in jsonl_text.lines().enumerate() {
        let line = i + 1;
        if raw.trim().is_empty() {
            continue;
        }
        record += 1;
        let mut skip = |key: Option<String>, field: Option<String>, message: String| {
            report.skipped.push(SkippedRecord {
                line,
                record,
                key,
                field,
                message,
            })
        };
        let map = match serde_json::from_str::<Value>(raw) {
            Ok(Value::Object(m)) => m,
            Ok(other) => {
                skip(
                    None,
                    None,
                    format!("a line must be one JSON object (an order), got {other}"),
                );
                continue;
            }
            Err(e) => {
                skip(
                    None,
                    None,
                    format!("not valid JSON (column {}): {e}", e.column()),
                );
                continue;
            }
        };
        let key = map
            .get("order_no")
            .and_then(Value::as_str)
            .map(|s| s.trim().to_owned());
        let o = match parse_order(&mut tx, &map).await? {
            Ok(o) => o,
            Err(errors) => {
                for (field, message) in errors {
                    skip(key.clone(), (!field.is_empty()).then_some(field), message);
                }
                continue;
            }
        };
        let stored = sqlx::query(
            "SELECT city_code, lot_code, plate_no, entry_time, exit_time, total_amount_cents, paid_amount_cents
             FROM parking_orders WHERE order_no = ?",
        )
        .bind(&o.order_no)
        .fetch_optional(&mut *tx)
        .await?;
        if let Some(r) = stored {
            let mut differs = Vec::new();
            for (field, mine, theirs) in [
                (
                    "city_code",
                    o.city_code.clone(),
                    r.get::<String, _>("city_code"),
                ),
                ("lot_code", o.lot_code.clone(), r.get("lot_code")),
                ("plate_no", o.plate_no.clone(), r.get("plate_no")),
                ("entry_time", o.entry_time.clone(), r.get("entry_time")),
                ("exit_time", o.exit_time.clone(), r.get("exit_time")),
                (
                    "total_amount",
                    o.total.to_string(),
                    Money::from_cents(r.get("total_amount_cents")).to_string(),
                ),
                (
                    "paid_amount",
                    o.paid.to_string(),
                    Money::from_cents(r.get("paid_amount_cents")).to_string(),
                ),
            ] {
                if mine != theirs {
                    differs.push(format!("{field} {theirs} stored, {mine} here"));
                }
            }
            if differs.is_empty() {
                report.unchanged.push(ImportedItem {
                    key: o.order_no,
                    version_no: None,
                    line,
                });
            } else {
                skip(
                    Some(o.order_no.clone()),
                    Some("order_no".into()),
                    format!(
                        "order {} is already stored with other content ({}); import does not edit orders",
                        o.order_no,
                        differs.join(", ")
                    ),
                );
            }
            continue;
        }
        sqlx::query(
            "INSERT INTO parking_orders (order_no, city_code, lot_code, plate_no, entry_time, exit_time, entry_utc,
                                         total_amount_cents, paid_amount_cents, created_at)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        )
        .bind(&o.order_no)
        .bind(&o.city_code)
        .bind(&o.lot_code)
        .bind(&o.plate_no)
        .bind(&o.entry_time)
        .bind(&o.exit_time)
        .bind(&o.entry_utc)
        .bind(o.total.cents())
        .bind(o.paid.cents())
        .bind(now())
        .execute(&mut *tx)
        .await?;
        record_change(
            &mut tx,
            "order_added",
            "order",
            &o.order_no,
            serde_json::json!({"city_code": o.city_code, "lot_code": o.lot_code,
                "plate_no": o.plate_no, "entry_time": o.entry_time, "exit_time": o.exit_time,
                "total_amount": o.total, "paid_amount": o.paid}),
            origin,
            Some(line),
        )
        .await?;
        report.imported.push(ImportedItem {
            key: o.order_no,
            version_no: None,
            line,
        });
    }
    if record == 0 {
        return Err(BillingStoreError::Invalid(format!(
            "{origin}: no orders in the file (JSONL: one order object a line)"
        )));
    }
    tx.commit().await?;
    Ok(report)
}

pub(super) fn order_from_row(r: &sqlx::sqlite::SqliteRow) -> OrderInfo {
    let total = Money::from_cents(r.get("total_amount_cents"));
    let paid = Money::from_cents(r.get("paid_amount_cents"));
    OrderInfo {
        order_no: r.get("order_no"),
        city_code: r.get("city_code"),
        lot_code: r.get("lot_code"),
        plate_no: r.get("plate_no"),
        entry_time: r.get("entry_time"),
        exit_time: r.get("exit_time"),
        total_amount: total,
        paid_amount: paid,
        arrears_amount: Money::from_cents((total.cents() - paid.cents()).max(0)),
        created_at: r.get("created_at"),
    }
}

/// Stored orders, optionally of one plate and/or city, by entry time then
/// order number.
pub async fn list_orders(
    pool: &SqlitePool,
    plate: Option<&str>,
    city: Option<&str>,
) -> Result<Vec<OrderInfo>> {
    let plate = plate
        .map(normalize_plate)
        .transpose()
        .map_err(|e| BillingStoreError::Invalid(format!("plate_no: {e}")))?;
    let city = city
        .map(normalize_code)
        .transpose()
        .map_err(|e| BillingStoreError::Invalid(format!("city_code: {e}")))?;
    let rows = sqlx::query(
        "SELECT * FROM parking_orders
         WHERE (?1 IS NULL OR plate_no = ?1) AND (?2 IS NULL OR city_code = ?2)
         ORDER BY entry_utc, order_no",
    )
    .bind(plate)
    .bind(city)
    .fetch_all(pool)
    .await?;
    Ok(rows.iter().map(order_from_row).collect())
}

/// One stored order.
pub async fn get_order(pool: &SqlitePool, order_no: &str) -> Result<OrderInfo> {
    let row = sqlx::query("SELECT * FROM parking_orders WHERE order_no = ?")
        .bind(order_no.trim())
        .fetch_optional(pool)
        .await?;
    row.as_ref().map(order_from_row).ok_or_else(|| {
        BillingStoreError::NotFound(format!(
            "unknown order {:?}: no order has that number",
            order_no.trim()
        ))
    })
}

/// What a plate still owes (optionally in one city): the unpaid and partly
/// paid orders and their sum. A plate with no orders owes nothing (`NONE`).
pub async fn arrears(pool: &SqlitePool, plate: &str, city: Option<&str>) -> Result<ArrearsReport> {
    let plate_no =
        normalize_plate(plate).map_err(|e| BillingStoreError::Invalid(format!("plate_no: {e}")))?;
    let all = list_orders(pool, Some(&plate_no), city).await?;
    let city_code = city.map(normalize_code).transpose().ok().flatten();
    let mut total = Money::ZERO;
    let mut orders = Vec::new();
    for o in &all {
        if o.arrears_amount > Money::ZERO {
            total = total.checked_add(o.arrears_amount).ok_or_else(|| {
                BillingStoreError::Billing(BillingError::Overflow { what: "arrears" })
            })?;
            orders.push(ArrearsOrder {
                order_no: o.order_no.clone(),
                city_code: o.city_code.clone(),
                lot_code: o.lot_code.clone(),
                entry_time: o.entry_time.clone(),
                exit_time: o.exit_time.clone(),
                total_amount: o.total_amount,
                paid_amount: o.paid_amount,
                arrears_amount: o.arrears_amount,
            });
        }
    }
    Ok(ArrearsReport {
        plate_no,
        city_code,
        status: ArrearsStatus::of(total),
        total_arrears: total,
        orders_checked: all.len(),
        orders,
    })
}
