//! The outbox as the sync worker drains it: which items are due (each
//! session's oldest pending item, not held back by a refused photo), and
//! every decision about an item recorded in its row (`next_attempt_at` is
//! the truth, so a restart resumes where the last run stopped). The sync
//! worker (`sync/`) decides; this runs the SQL.

use serde::{Deserialize, Serialize};
use sqlx::sqlite::SqliteRow;
use sqlx::{Row, SqlitePool};
use ts_rs::TS;

use super::{now, OutboxKind, Result, Timestamp};

/// SQL: outbox row `o` is the oldest pending item of its session.
const HEAD: &str = "NOT EXISTS (SELECT 1 FROM outbox p WHERE p.status = 'pending'
                    AND p.session_id IS o.session_id AND p.seq < o.seq)";

/// SQL: outbox row `o` is not a report whose photo was refused or could not
/// be read (a report never goes out without its photos).
const NOT_BLOCKED: &str = "NOT (o.kind = 'report' AND EXISTS (
        SELECT 1 FROM json_each(o.payload, '$.attachments') j
        JOIN outbox a ON a.session_id IS o.session_id AND a.kind = 'attachment'
             AND a.target = '/api/v1/attachments/' || json_extract(j.value, '$.sha256')
        WHERE a.status <> 'done'))";

/// Where an outbox item stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, sqlx::Type, TS)]
#[serde(rename_all = "snake_case")]
#[sqlx(rename_all = "snake_case")]
pub enum OutboxStatus {
    /// Not delivered yet (due, waiting for its next attempt, or held back).
    Pending,
    Done,
    /// The portal refused it (400/422), or its photo could not be read.
    Failed,
    /// The portal keeps another revision (409).
    Conflict,
}

impl OutboxStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::Done => "done",
            Self::Failed => "failed",
            Self::Conflict => "conflict",
        }
    }
}

/// One outbox row as the worker reads it.
#[derive(Debug, Clone)]
pub struct OutboxRow {
    pub id: String,
    pub kind: OutboxKind,
    pub target: String,
    pub payload: String,
    pub attempts: i64,
}

impl<'r> sqlx::FromRow<'r, SqliteRow> for OutboxRow {
    fn from_row(row: &'r SqliteRow) -> sqlx::Result<Self> {
        let id: String = row.try_get("id")?;
        Ok(OutboxRow {
            kind: OutboxKind::of_row(&id, row.try_get("kind")?)?,
            target: row.try_get("target")?,
            payload: row.try_get("payload")?,
            attempts: row.try_get("attempts")?,
            id,
        })
    }
}

/// A pending, failed or conflicting item, for status displays.
#[derive(Debug, Clone, Serialize, Deserialize, TS)]
pub struct ItemInfo {
    pub id: String,
    pub session_id: Option<String>,
    pub kind: OutboxKind,
    pub target: String,
    pub status: OutboxStatus,
    pub attempts: i64,
    pub next_attempt_at: Option<Timestamp>,
    pub last_error: Option<String>,
    pub http_status: Option<i64>,
    pub created_at: Timestamp,
}

impl<'r> sqlx::FromRow<'r, SqliteRow> for ItemInfo {
    fn from_row(row: &'r SqliteRow) -> sqlx::Result<Self> {
        let id: String = row.try_get("id")?;
        Ok(ItemInfo {
            session_id: row.try_get("session_id")?,
            kind: OutboxKind::of_row(&id, row.try_get("kind")?)?,
            target: row.try_get("target")?,
            status: row.try_get("status")?,
            attempts: row.try_get("attempts")?,
            next_attempt_at: row.try_get("next_attempt_at")?,
            last_error: row.try_get("last_error")?,
            http_status: row.try_get("http_status")?,
            created_at: row.try_get("created_at")?,
            id,
        })
    }
}

/// How many items stand where, for the sync indicator.
#[derive(Debug, Clone, Copy, Default, sqlx::FromRow)]
pub struct OutboxCounts {
    pub pending: i64,
    /// Pending and held back by a refused photo (or behind such a report).
    pub blocked: i64,
    /// Pending, due now and at the head of its session.
    pub syncing: i64,
    pub failed: i64,
    pub conflicts: i64,
    pub done: i64,
}

const ITEM_INFO: &str = "SELECT id, session_id, kind, target, status, attempts, next_attempt_at,
                                last_error, http_status, created_at FROM outbox";

/// The first pending item of each session, where it is due and not
/// blocked, oldest first; none of `skip` (in flight).
pub async fn due_heads(
    pool: &SqlitePool,
    limit: usize,
    skip: &[&String],
) -> Result<Vec<OutboxRow>> {
    let skip = serde_json::to_string(skip).unwrap_or_default();
    Ok(sqlx::query_as(&format!(
        "SELECT o.id, o.kind, o.target, o.payload, o.attempts FROM outbox o
         WHERE o.status = 'pending'
           AND (o.next_attempt_at IS NULL OR o.next_attempt_at <= ?1)
           AND {HEAD} AND {NOT_BLOCKED}
           AND o.id NOT IN (SELECT value FROM json_each(?3))
         ORDER BY o.seq LIMIT ?2"
    ))
    .bind(now())
    .bind(limit as i64)
    .bind(skip)
    .fetch_all(pool)
    .await?)
}

/// The earliest next attempt among the sessions' first pending items that
/// are not blocked (`Some(None)`: one is due now; `None`: nothing pending).
pub async fn next_due(pool: &SqlitePool) -> Result<Option<Option<String>>> {
    let row: Option<(Option<String>,)> = sqlx::query_as(&format!(
        "SELECT MIN(COALESCE(o.next_attempt_at, '')) FROM outbox o
         WHERE o.status = 'pending' AND {HEAD} AND {NOT_BLOCKED}
         HAVING COUNT(*) > 0"
    ))
    .fetch_optional(pool)
    .await?;
    Ok(row.map(|(at,)| at.filter(|a| !a.is_empty())))
}

/// The portal took the item (2xx).
pub async fn mark_done(pool: &SqlitePool, id: &str, http_status: i64, at: Timestamp) -> Result<()> {
    sqlx::query(
        "UPDATE outbox SET status = 'done', attempts = attempts + 1, http_status = ?,
                done_at = ?2, updated_at = ?2, last_error = NULL, next_attempt_at = NULL
         WHERE id = ?3 AND status = 'pending'",
    )
    .bind(http_status)
    .bind(at)
    .bind(id)
    .execute(pool)
    .await?;
    Ok(())
}

/// The item ends `failed` or `conflict`, with the reason.
pub async fn finish(
    pool: &SqlitePool,
    id: &str,
    status: OutboxStatus,
    http: Option<i64>,
    text: &str,
    at: Timestamp,
) -> Result<()> {
    sqlx::query(
        "UPDATE outbox SET status = ?, attempts = attempts + 1, http_status = ?,
                last_error = ?, updated_at = ?, next_attempt_at = NULL
         WHERE id = ? AND status = 'pending'",
    )
    .bind(status)
    .bind(http)
    .bind(text)
    .bind(at)
    .bind(id)
    .execute(pool)
    .await?;
    Ok(())
}

/// The portal refused the credentials while delivering this item: it stays
/// pending, and says why.
pub async fn note_paused(
    pool: &SqlitePool,
    id: &str,
    http: i64,
    text: &str,
    at: Timestamp,
) -> Result<()> {
    sqlx::query(
        "UPDATE outbox SET http_status = ?, last_error = ?, updated_at = ?
         WHERE id = ? AND status = 'pending'",
    )
    .bind(http)
    .bind(text)
    .bind(at)
    .bind(id)
    .execute(pool)
    .await?;
    Ok(())
}

/// The item is tried again at `next`.
pub async fn reschedule(
    pool: &SqlitePool,
    id: &str,
    http: Option<i64>,
    text: &str,
    next: Timestamp,
) -> Result<()> {
    sqlx::query(
        "UPDATE outbox SET attempts = attempts + 1, http_status = ?, last_error = ?,
                next_attempt_at = ?, updated_at = ?
         WHERE id = ? AND status = 'pending'",
    )
    .bind(http)
    .bind(text)
    .bind(next)
    .bind(now())
    .bind(id)
    .execute(pool)
    .await?;
    Ok(())
}

/// Back online: what waited only because the portal was away is due now.
pub async fn release_unreachable(pool: &SqlitePool) -> Result<()> {
    sqlx::query(
        "UPDATE outbox SET next_attempt_at = NULL
         WHERE status = 'pending' AND last_error LIKE 'portal unreachable:%'",
    )
    .execute(pool)
    .await?;
    Ok(())
}

/// A refused photo (`photo_id`, its `sha`) holds back the session's pending
/// reports that reference it, each with `reason`, and what the session
/// queued after the first of them, with `waiting`.
pub async fn block_reports(
    pool: &SqlitePool,
    photo_id: &str,
    sha: &str,
    reason: &str,
    waiting: &str,
    at: Timestamp,
) -> Result<()> {
    // IMMEDIATE: it reads before it writes (a deferred BEGIN fails at once
    // with SQLITE_BUSY instead of waiting).
    let mut tx = pool.begin_with("BEGIN IMMEDIATE").await?;
    let first: Option<i64> = sqlx::query_scalar(
        "SELECT MIN(o.seq) FROM outbox o, json_each(o.payload, '$.attachments') j
         WHERE o.status = 'pending' AND o.kind = 'report'
           AND o.session_id IS (SELECT session_id FROM outbox WHERE id = ?1)
           AND json_extract(j.value, '$.sha256') = ?2",
    )
    .bind(photo_id)
    .bind(sha)
    .fetch_one(&mut *tx)
    .await?;
    if let Some(first) = first {
        sqlx::query(
            "UPDATE outbox SET last_error = ?1, updated_at = ?2
             WHERE status = 'pending' AND kind = 'report'
               AND session_id IS (SELECT session_id FROM outbox WHERE id = ?3)
               AND EXISTS (SELECT 1 FROM json_each(payload, '$.attachments') j
                           WHERE json_extract(j.value, '$.sha256') = ?4)",
        )
        .bind(reason)
        .bind(at)
        .bind(photo_id)
        .bind(sha)
        .execute(&mut *tx)
        .await?;
        sqlx::query(
            "UPDATE outbox SET last_error = ?1, updated_at = ?2
             WHERE status = 'pending' AND seq > ?3 AND last_error IS NULL
               AND session_id IS (SELECT session_id FROM outbox WHERE id = ?4)",
        )
        .bind(waiting)
        .bind(at)
        .bind(first)
        .bind(photo_id)
        .execute(&mut *tx)
        .await?;
    }
    tx.commit().await?;
    Ok(())
}

/// How many items stand where (`at`: now, for what is due).
pub async fn counts(pool: &SqlitePool, at: Timestamp) -> Result<OutboxCounts> {
    Ok(sqlx::query_as(&format!(
        "SELECT COALESCE(SUM(o.status = 'pending'), 0) AS pending,
                COALESCE(SUM(o.status = 'pending' AND (o.last_error LIKE 'blocked: %'
                                                     OR o.last_error LIKE 'waiting: %')), 0)
                    AS blocked,
                -- CASE, not AND: in a value SQLite evaluates both sides of
                -- an AND, so NOT_BLOCKED's JSON scan ran for every report:
                -- 83 ms of every poll on an outbox of 12,000 items, now 28
                -- (`cargo bench --bench sync_deliver -- sync_status`).
                COALESCE(SUM(CASE WHEN o.status = 'pending'
                                  AND (o.next_attempt_at IS NULL OR o.next_attempt_at <= ?)
                                  AND {HEAD}
                             THEN {NOT_BLOCKED} ELSE 0 END), 0) AS syncing,
                COALESCE(SUM(o.status = 'failed'), 0) AS failed,
                COALESCE(SUM(o.status = 'conflict'), 0) AS conflicts,
                COALESCE(SUM(o.status = 'done'), 0) AS done
         FROM outbox o"
    ))
    .bind(at)
    .fetch_one(pool)
    .await?)
}

/// When the portal last took an item.
pub async fn last_success(pool: &SqlitePool) -> Result<Option<String>> {
    Ok(
        sqlx::query_scalar("SELECT MAX(done_at) FROM outbox WHERE status = 'done'")
            .fetch_one(pool)
            .await?,
    )
}

/// Failed and conflicting items, and pending ones with an error (oldest
/// first, at most 200).
pub async fn problems(pool: &SqlitePool) -> Result<Vec<ItemInfo>> {
    Ok(sqlx::query_as(&format!(
        "{ITEM_INFO} WHERE status IN ('failed', 'conflict')
            OR (status = 'pending' AND last_error IS NOT NULL)
         ORDER BY seq LIMIT 200"
    ))
    .fetch_all(pool)
    .await?)
}

/// Put a failed or conflicting item back in the queue (same Idempotency-Key);
/// a photo put back releases what it held back. Returns whether the item
/// changed, and the item as it now stands (`None`: no such item).
pub async fn requeue(pool: &SqlitePool, id: &str) -> Result<(bool, Option<ItemInfo>)> {
    let mut tx = pool.begin_with("BEGIN IMMEDIATE").await?;
    let changed = sqlx::query(
        "UPDATE outbox SET status = 'pending', next_attempt_at = NULL, last_error = NULL,
                updated_at = ?
         WHERE id = ? AND status IN ('failed', 'conflict')",
    )
    .bind(now())
    .bind(id)
    .execute(&mut *tx)
    .await?
    .rows_affected()
        > 0;
    let info: Option<ItemInfo> = sqlx::query_as(&format!("{ITEM_INFO} WHERE id = ?"))
        .bind(id)
        .fetch_optional(&mut *tx)
        .await?;
    if let Some(info) = info
        .as_ref()
        .filter(|i| changed && i.kind == OutboxKind::Attachment)
    {
        sqlx::query(
            "UPDATE outbox SET last_error = NULL, updated_at = ?
             WHERE status = 'pending' AND session_id IS ?
               AND (last_error LIKE 'blocked: photo %' OR last_error LIKE 'waiting: %')",
        )
        .bind(now())
        .bind(&info.session_id)
        .execute(&mut *tx)
        .await?;
    }
    tx.commit().await?;
    Ok((changed, info))
}
