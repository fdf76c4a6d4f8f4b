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
/// also the Idempotency-Key every delivery attempt will carry (a UUID v7, so
/// ids sort by creation like `seq`).
///
/// Two kinds have a rule of their own, applied inside the same statement:
/// an `attachment` is queued once per session and target (its sha256), so
/// `None` comes back when the session already has it; a `labor_draft` gets
/// `"revision"` = the number of drafts the session has queued, plus one.
pub(crate) async fn enqueue(
    conn: &mut SqliteConnection,
    session_id: Option<&str>,
    item: &NewOutboxItem,
) -> Result<Option<String>> {
    let id = super::new_id();
    let at = now();
    let inserted = sqlx::query(
        "INSERT INTO outbox (id, session_id, kind, target, payload, created_at, updated_at)
         SELECT ?1, ?2, ?3, ?4,
                CASE WHEN ?3 = 'labor_draft'
                     THEN json_set(?5, '$.revision',
                          (SELECT COUNT(*) FROM outbox WHERE session_id IS ?2 AND kind = 'labor_draft') + 1)
                     ELSE ?5 END,
                ?6, ?6
         WHERE ?3 <> 'attachment' OR NOT EXISTS (
             SELECT 1 FROM outbox WHERE session_id IS ?2 AND kind = 'attachment' AND target = ?4)",
    )
    .bind(&id)
    .bind(session_id)
    .bind(&item.kind)
    .bind(&item.target)
    .bind(item.payload.to_string())
    .bind(&at)
    .execute(conn)
    .await?
    .rows_affected();
    Ok((inserted > 0).then_some(id))
}
