//! The outbox: items for the portal, written in the same transaction as the
//! change they carry. The sync worker that drains it lives in `sync/`.

use std::fmt;

use serde::{Deserialize, Serialize};
use sqlx::SqliteConnection;
use ts_rs::TS;

use super::{now, Result};

/// What an outbox item carries to the portal; stored in `outbox.kind`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum OutboxKind {
    /// A photo or file a report references, once per session.
    Attachment,
    /// A report revision.
    Report,
    LaborDraft,
    Escalation,
}

impl OutboxKind {
    pub const ALL: [OutboxKind; 4] = [
        OutboxKind::Attachment,
        OutboxKind::Report,
        OutboxKind::LaborDraft,
        OutboxKind::Escalation,
    ];

    /// As stored in `outbox.kind` and named in the SQL that filters on it.
    pub fn as_str(self) -> &'static str {
        match self {
            OutboxKind::Attachment => "attachment",
            OutboxKind::Report => "report",
            OutboxKind::LaborDraft => "labor_draft",
            OutboxKind::Escalation => "escalation",
        }
    }

    pub fn parse(text: &str) -> Option<OutboxKind> {
        OutboxKind::ALL.into_iter().find(|k| k.as_str() == text)
    }

    /// A stored row's kind; one this program does not know (a newer
    /// version's, or a hand edit) is a decode error naming the item.
    pub(crate) fn of_row(id: &str, text: &str) -> sqlx::Result<OutboxKind> {
        OutboxKind::parse(text).ok_or_else(|| {
            sqlx::Error::Decode(
                format!(
                    "outbox item {id}: kind {text:?} is not one of attachment, report, labor_draft, escalation"
                )
                .into(),
            )
        })
    }

    /// The portal method: everything is a PUT except an escalation, a POST.
    pub fn method(self) -> &'static str {
        match self {
            OutboxKind::Escalation => "POST",
            _ => "PUT",
        }
    }
}

impl fmt::Display for OutboxKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[derive(Debug, Clone)]
pub struct NewOutboxItem {
    pub kind: OutboxKind,
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
    .bind(item.kind.as_str())
    .bind(&item.target)
    .bind(item.payload.to_string())
    .bind(at)
    .execute(conn)
    .await?
    .rows_affected();
    Ok((inserted > 0).then_some(id))
}
