//! The data dir's settings table, a key and a text (or JSON) value: the
//! portal URL, the sync pause and the last known reachability, the RO
//! number's prefix, the repair order's labor rates and tax, the shop's name,
//! address and logo. Never the
//! portal token: that lives in the OS keyring (`sync::credentials`).

use serde::{de::DeserializeOwned, Serialize};
use sqlx::SqlitePool;

use super::{now, StoreError};

pub const KEY_PORTAL_URL: &str = "portal.url";
pub const KEY_PAUSE: &str = "sync.pause";
pub const KEY_ONLINE: &str = "sync.online";
/// The repair order's labor rates per pay type, tax rate and whether labor
/// is taxed (`desk::pricing::RoSettings`, JSON).
pub const KEY_RO_MONEY: &str = "ro.money";
/// The shop's name, address and logo for its documents
/// (`desk::shop::ShopProfile`, JSON; `$.logo.sha256` names a blob, which
/// keeps it from being swept).
pub const KEY_SHOP_PROFILE: &str = "shop.profile";

pub async fn get(pool: &SqlitePool, key: &str) -> Result<Option<String>, StoreError> {
    Ok(
        sqlx::query_scalar("SELECT value FROM settings WHERE key = ?")
            .bind(key)
            .fetch_optional(pool)
            .await?,
    )
}

pub async fn set(pool: &SqlitePool, key: &str, value: &str) -> Result<(), StoreError> {
    sqlx::query(
        "INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?)
         ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
    )
    .bind(key)
    .bind(value)
    .bind(now())
    .execute(pool)
    .await?;
    Ok(())
}

pub async fn delete(pool: &SqlitePool, key: &str) -> Result<(), StoreError> {
    sqlx::query("DELETE FROM settings WHERE key = ?")
        .bind(key)
        .execute(pool)
        .await?;
    Ok(())
}

pub async fn get_json<T: DeserializeOwned>(
    pool: &SqlitePool,
    key: &str,
) -> Result<Option<T>, StoreError> {
    Ok(get(pool, key)
        .await?
        .and_then(|v| serde_json::from_str(&v).ok()))
}

pub async fn set_json<T: Serialize>(
    pool: &SqlitePool,
    key: &str,
    value: &T,
) -> Result<(), StoreError> {
    set(pool, key, &json_text(value)).await
}

/// A value as its settings row's text.
pub fn json_text<T: Serialize>(value: &T) -> String {
    serde_json::to_string(value).unwrap_or_else(|_| "null".into())
}

/// Several settings in one transaction: all of them are stored, or none.
pub async fn set_all(pool: &SqlitePool, rows: &[(&str, String)]) -> Result<(), StoreError> {
    let mut tx = pool.begin_with("BEGIN IMMEDIATE").await?;
    let at = now();
    for (key, value) in rows {
        sqlx::query(
            "INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?)
             ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
        )
        .bind(key)
        .bind(value)
        .bind(at)
        .execute(&mut *tx)
        .await?;
    }
    tx.commit().await?;
    Ok(())
}
