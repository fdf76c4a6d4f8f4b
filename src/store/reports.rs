//! Report reads across tables: each revision's portal delivery (the outbox
//! row of its report item) and the newest revision of each session finalized
//! in a date range, with its session and delivery, in one query; the
//! session's report draft; and reopening a finalized session.

use super::Timestamp;
use std::collections::HashMap;

use sqlx::Row;

use super::sessions::select_session;
use super::{now, DeliveryState, Result, Session, SessionEdit, Store, StoreError};

/// The session's report draft: written up in the chat (or edited), not yet
/// finalized; `revision` is the one its finalize will take.
#[derive(Debug, Clone, PartialEq)]
pub struct ReportDraft {
    pub revision: u32,
    pub language: String,
    pub body: String,
    pub created_at: Timestamp,
    pub updated_at: Timestamp,
}

/// A report revision as stored, with where its portal item stands.
#[derive(Debug, Clone)]
pub struct ReportInRange {
    pub session: Session,
    pub revision: u32,
    pub language: String,
    pub body: String,
    pub created_at: Timestamp,
    pub delivery: DeliveryState,
    /// The portal's last refusal or failure, if any.
    pub last_error: Option<String>,
}

impl Store {
    /// The session's report draft, if it has one.
    pub async fn report_draft(&self, session_id: &str) -> Result<Option<ReportDraft>> {
        let row = sqlx::query(
            "SELECT revision, language, body, created_at, updated_at FROM report_drafts
              WHERE session_id = ?",
        )
        .bind(session_id)
        .fetch_optional(self.pool())
        .await?;
        Ok(row.map(|r| ReportDraft {
            revision: r.get::<i64, _>("revision") as u32,
            language: r.get("language"),
            body: r.get("body"),
            created_at: r.get("created_at"),
            updated_at: r.get("updated_at"),
        }))
    }

    /// Reopens a finalized session for changes: its status goes back to
    /// open and the audit trail gets a `status` row (who, when), in one
    /// transaction. `Ok(None)` when the session is not finalized (nothing is
    /// written then).
    pub async fn reopen_session(
        &self,
        session_id: &str,
        by: Option<&str>,
    ) -> Result<Option<SessionEdit>> {
        let at = now();
        let mut tx = self.begin_write().await?;
        let status: Option<String> = sqlx::query_scalar("SELECT status FROM sessions WHERE id = ?")
            .bind(session_id)
            .fetch_optional(&mut *tx)
            .await?;
        match status.as_deref() {
            None => {
                return Err(StoreError::NotFound {
                    what: "session",
                    id: session_id.to_owned(),
                })
            }
            Some("finalized") => {}
            Some(_) => return Ok(None),
        }
        sqlx::query("UPDATE sessions SET status = 'open', updated_at = ? WHERE id = ?")
            .bind(at)
            .bind(session_id)
            .execute(&mut *tx)
            .await?;
        super::sessions::insert_edit(
            &mut tx,
            session_id,
            "status",
            Some("finalized"),
            Some("open"),
            by,
            at,
        )
        .await?;
        tx.commit().await?;
        Ok(Some(SessionEdit {
            field: "status".into(),
            old_value: Some("finalized".into()),
            new_value: Some("open".into()),
            edited_by: by.map(str::to_owned),
            edited_at: at,
        }))
    }

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
