//! Report reads across tables: each revision's portal delivery (the outbox
//! row of its report item) and the newest revision of each session finalized
//! in a date range, with its session and delivery, in one query.

use std::collections::HashMap;

use sqlx::Row;

use super::sessions::select_session;
use super::{DeliveryState, Result, Session, Store};

/// A report revision as stored, with where its portal item stands.
#[derive(Debug, Clone)]
pub struct ReportInRange {
    pub session: Session,
    pub revision: u32,
    pub language: String,
    pub body: String,
    pub created_at: String,
    pub delivery: DeliveryState,
    /// The portal's last refusal or failure, if any.
    pub last_error: Option<String>,
}

impl Store {
    /// Each report revision's delivery state and last error, by revision.
    pub async fn report_delivery(
        &self,
        session_id: &str,
    ) -> Result<HashMap<u32, (DeliveryState, Option<String>)>> {
        let rows = sqlx::query(
            "SELECT CAST(payload ->> '$.revision' AS INTEGER) AS revision, status, last_error
             FROM outbox WHERE session_id = ? AND kind = 'report'",
        )
        .bind(session_id)
        .fetch_all(self.pool())
        .await?;
        Ok(rows
            .iter()
            .map(|row| {
                let revision: i64 = row.get("revision");
                let status: String = row.get("status");
                (
                    revision as u32,
                    (DeliveryState::of_row(Some(&status)), row.get("last_error")),
                )
            })
            .collect())
    }

    /// The newest revision of each session finalized in `[from, to)` (RFC
    /// 3339 instants), oldest first, optionally one technician's only.
    pub async fn reports_in_range(
        &self,
        from: &str,
        to: &str,
        technician: Option<&str>,
    ) -> Result<Vec<ReportInRange>> {
        // One query: the sessions come with their reports (no query per row).
        let rows = sqlx::query(concat!(
            select_session!(
                ", r.revision AS report_revision, r.language AS report_language,
                r.body AS report_body, r.created_at AS report_created_at,
                o.status AS sync_status, o.last_error"
            ),
            "
             JOIN reports r ON r.session_id = s.id
             LEFT JOIN outbox o ON o.session_id = r.session_id AND o.kind = 'report'
                  AND CAST(o.payload ->> '$.revision' AS INTEGER) = r.revision
             WHERE r.created_at >= ?1 AND r.created_at < ?2
               AND (?3 IS NULL OR s.technician = ?3 COLLATE NOCASE)
               AND r.revision = (SELECT MAX(r2.revision) FROM reports r2
                                 WHERE r2.session_id = r.session_id
                                   AND r2.created_at >= ?1 AND r2.created_at < ?2)
             ORDER BY r.created_at, r.session_id"
        ))
        .bind(from)
        .bind(to)
        .bind(technician)
        .fetch_all(self.pool())
        .await?;
        Ok(rows
            .iter()
            .map(|row| ReportInRange {
                session: Session::from_row(row),
                revision: row.get::<i64, _>("report_revision") as u32,
                language: row.get("report_language"),
                body: row.get("report_body"),
                created_at: row.get("report_created_at"),
                delivery: DeliveryState::of_row(
                    row.get::<Option<String>, _>("sync_status").as_deref(),
                ),
                last_error: row.get("last_error"),
            })
            .collect())
    }
}
