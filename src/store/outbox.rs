//! The outbox: items for the portal, written in the same transaction as the
//! change they carry. The sync worker that drains it lives in `sync/`.

use sqlx::SqliteConnection;

use super::{now, Result};

#[derive(Debug, Clone)]
pub struct NewOutboxItem {
    pub kind: String,
    pub target: String,
    pub payload: serde_json::Value,
}

/// Queue an item inside the caller's transaction; returns its id, which is
/// also the Idempotency-Key every delivery attempt will carry.
pub(crate) async fn enqueue(
    conn: &mut SqliteConnection,
    session_id: Option<&str>,
    item: &NewOutboxItem,
) -> Result<String> {
    let id = uuid::Uuid::new_v4().to_string();
    let at = now();
    sqlx::query(
        "INSERT INTO outbox (id, session_id, kind, target, payload, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)",
    )
    .bind(&id)
    .bind(session_id)
    .bind(&item.kind)
    .bind(&item.target)
    .bind(item.payload.to_string())
    .bind(&at)
    .bind(&at)
    .execute(conn)
    .await?;
    Ok(id)
}
