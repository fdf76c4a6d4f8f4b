//! Sessions: one per unit visit, with its unit, customer and complaint.

use super::Timestamp;
use serde::Deserialize;

use super::artifacts::{blob_referenced, blocking, commit_then_empty};
use sqlx::{Row, Sqlite, Transaction};

use super::{new_id, now, Result, Session, SessionEdit, SessionStatus, Store, StoreError, Unit};
use crate::artifacts::BlobStore;
use crate::engine::{SessionState, STATE_VERSION};

#[derive(Debug, Clone, Default, Deserialize)]
pub struct NewSession {
    pub complaint: String,
    pub customer: Option<String>,
    #[serde(default)]
    pub customer_phone: Option<String>,
    #[serde(default)]
    pub customer_email: Option<String>,
    pub technician: Option<String>,
    pub language: Option<String>,
    pub unit: Unit,
}

/// A session's header as it is edited: every field, the unchanged ones
/// as they were.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SessionHeader {
    pub complaint: String,
    pub customer: Option<String>,
    pub customer_phone: Option<String>,
    pub customer_email: Option<String>,
    pub technician: Option<String>,
    pub unit: Unit,
}

impl SessionHeader {
    pub fn of(s: &Session) -> Self {
        Self {
            complaint: s.complaint.clone(),
            customer: s.customer.clone(),
            customer_phone: s.customer_phone.clone(),
            customer_email: s.customer_email.clone(),
            technician: s.technician.clone(),
            unit: s.unit.clone(),
        }
    }

    /// Each column with its value as text, in one order, for comparing two
    /// headers and writing the audit trail.
    fn columns(&self) -> [(&'static str, Option<String>); 12] {
        let u = &self.unit;
        [
            ("complaint", Some(self.complaint.clone())),
            ("customer", self.customer.clone()),
            ("customer_phone", self.customer_phone.clone()),
            ("customer_email", self.customer_email.clone()),
            ("technician", self.technician.clone()),
            ("vin", u.vin.clone()),
            ("plate", u.plate.clone()),
            ("make_model", u.make_model.clone()),
            ("model_year", u.model_year.map(|y| y.to_string())),
            ("odometer", u.odometer.map(|o| o.to_string())),
            (
                "odometer_unit",
                u.odometer_unit.map(|o| o.as_str().to_owned()),
            ),
            ("engine_hours", u.engine_hours.map(|h| h.to_string())),
        ]
    }
}

/// The settings key of the RO number's prefix.
pub const RO_PREFIX_KEY: &str = "ro_prefix";
pub const DEFAULT_RO_PREFIX: &str = "RO-";

#[derive(Debug, Clone, Default)]
pub struct SessionFilter {
    /// Matches complaint, customer, technician, VIN, plate or make/model.
    pub query: Option<String>,
    pub status: Option<SessionStatus>,
}

/// A session's columns with its turn and artifact counts, `FROM sessions s`;
/// a macro so the queries built on it stay `&'static str` constants.
macro_rules! select_session {
    ($($more_columns:literal)?) => {
        concat!(
            "SELECT s.*,
    (SELECT COUNT(*) FROM turns t WHERE t.session_id = s.id) AS turn_count,
    (SELECT COUNT(*) FROM artifacts a WHERE a.session_id = s.id) AS artifact_count",
            $($more_columns,)?
            "
  FROM sessions s"
        )
    };
}

pub(crate) use select_session;

const SELECT_SESSION: &str = select_session!();

/// What a chat turn reads as it takes the write lock: the session row with
/// its newest state snapshot (`state_version`, `state_json`).
pub(super) const BEGIN_TURN_READ: &str = concat!(
    "BEGIN IMMEDIATE;\n",
    select_session!(", st.version AS state_version, st.state AS state_json"),
    "
  JOIN session_states st ON st.session_id = s.id
   AND st.turn_seq = (SELECT MAX(turn_seq) FROM session_states WHERE session_id = s.id)
  WHERE s.id = ?1"
);

impl Store {
    /// Create a session and its initial state snapshot (turn 0) together.
    pub async fn create_session(&self, new: &NewSession) -> Result<Session> {
        let id = new_id();
        let at = now();
        let language = new.language.clone().unwrap_or_else(|| "en".to_owned());
        let mut state = SessionState::new(&language);
        // A language chosen when the session was opened is the technician's;
        // otherwise the first clear message sets it.
        state.language_locked = new.language.is_some();
        let mut tx = self.begin_write().await?;
        let ro_number = next_ro_number(&mut tx).await?;
        sqlx::query(
            "INSERT INTO sessions (id, ro_number, created_at, updated_at, status, language, customer,
               customer_phone, customer_email, technician, complaint, vin, plate, make_model,
               model_year, odometer, odometer_unit, engine_hours)
             VALUES (?, ?, ?, ?, 'open', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        )
        .bind(&id)
        .bind(&ro_number)
        .bind(at)
        .bind(at)
        .bind(&language)
        .bind(&new.customer)
        .bind(&new.customer_phone)
        .bind(&new.customer_email)
        .bind(&new.technician)
        .bind(&new.complaint)
        .bind(&new.unit.vin)
        .bind(&new.unit.plate)
        .bind(&new.unit.make_model)
        .bind(new.unit.model_year)
        .bind(new.unit.odometer)
        .bind(new.unit.odometer_unit.map(|u| u.as_str()))
        .bind(new.unit.engine_hours)
        .execute(&mut *tx)
        .await?;
        sqlx::query(
            "INSERT INTO session_states (session_id, turn_seq, version, state, created_at)
             VALUES (?, 0, ?, ?, ?)",
        )
        .bind(&id)
        .bind(STATE_VERSION)
        .bind(state.to_json())
        .bind(at)
        .execute(&mut *tx)
        .await?;
        super::ro_lines::insert_first_line(&mut tx, &id, &new.complaint, at).await?;
        tx.commit().await?;
        self.session(&id).await
    }

    /// Writes the header's changed fields and one audit row per change, in
    /// one transaction; nothing is written when nothing changed.
    pub async fn update_session(
        &self,
        id: &str,
        header: &SessionHeader,
        edited_by: Option<&str>,
    ) -> Result<Session> {
        let old = SessionHeader::of(&self.session(id).await?);
        let changes: Vec<(&str, Option<String>, Option<String>)> = old
            .columns()
            .into_iter()
            .zip(header.columns())
            .filter(|((_, a), (_, b))| a != b)
            .map(|((field, a), (_, b))| (field, a, b))
            .collect();
        if changes.is_empty() {
            return self.session(id).await;
        }
        let at = now();
        let u = &header.unit;
        let mut tx = self.begin_write().await?;
        let updated = sqlx::query(
            "UPDATE sessions SET complaint = ?, customer = ?, customer_phone = ?, customer_email = ?,
               technician = ?, vin = ?, plate = ?, make_model = ?, model_year = ?, odometer = ?,
               odometer_unit = ?, engine_hours = ?, updated_at = ?
             WHERE id = ? AND status != 'finalized'",
        )
        .bind(&header.complaint)
        .bind(&header.customer)
        .bind(&header.customer_phone)
        .bind(&header.customer_email)
        .bind(&header.technician)
        .bind(&u.vin)
        .bind(&u.plate)
        .bind(&u.make_model)
        .bind(u.model_year)
        .bind(u.odometer)
        .bind(u.odometer_unit.map(|o| o.as_str()))
        .bind(u.engine_hours)
        .bind(at)
        .bind(id)
        .execute(&mut *tx)
        .await?;
        // A finalized repair order is read-only until it is reopened.
        if updated.rows_affected() == 0 {
            let session = self.session(id).await?;
            return Err(StoreError::Finalized {
                ro_number: session.ro_number,
            });
        }
        for (field, old_value, new_value) in changes {
            insert_edit(
                &mut tx,
                id,
                field,
                old_value.as_deref(),
                new_value.as_deref(),
                edited_by,
                at,
            )
            .await?;
        }
        if old.complaint != header.complaint {
            super::ro_lines::follow_header_complaint(
                &mut tx,
                id,
                &old.complaint,
                &header.complaint,
                at,
            )
            .await?;
        }
        tx.commit().await?;
        self.session(id).await
    }

    /// A session's header changes, oldest first.
    pub async fn session_edits(&self, id: &str) -> Result<Vec<SessionEdit>> {
        let rows = sqlx::query(
            "SELECT field, old_value, new_value, edited_by, edited_at FROM session_edits
              WHERE session_id = ? ORDER BY edited_at, rowid",
        )
        .bind(id)
        .fetch_all(self.pool())
        .await?;
        Ok(rows
            .iter()
            .map(|r| SessionEdit {
                field: r.get("field"),
                old_value: r.get("old_value"),
                new_value: r.get("new_value"),
                edited_by: r.get("edited_by"),
                edited_at: r.get("edited_at"),
            })
            .collect())
    }

    /// The unit's other visits: sessions with the same VIN, or the same
    /// plate, newest first (two opened in the same millisecond in the order
    /// they were written).
    pub async fn unit_visits(&self, of: &Session) -> Result<Vec<Session>> {
        if of.unit.vin.is_none() && of.unit.plate.is_none() {
            return Ok(Vec::new());
        }
        let rows = sqlx::query(&format!(
            "{SELECT_SESSION} WHERE s.id <> ?1
               AND ((?2 IS NOT NULL AND s.vin = ?2) OR (?3 IS NOT NULL AND s.plate = ?3))
             ORDER BY s.created_at DESC, s.rowid DESC"
        ))
        .bind(&of.id)
        .bind(&of.unit.vin)
        .bind(&of.unit.plate)
        .fetch_all(self.pool())
        .await?;
        Ok(rows.iter().map(Session::from_row).collect())
    }

    pub async fn session(&self, id: &str) -> Result<Session> {
        let row = sqlx::query(&format!("{SELECT_SESSION} WHERE s.id = ?"))
            .bind(id)
            .fetch_optional(self.pool())
            .await?
            .ok_or_else(|| StoreError::NotFound {
                what: "session",
                id: id.to_owned(),
            })?;
        Ok(Session::from_row(&row))
    }

    /// Sessions, most recently touched first.
    pub async fn sessions(&self, filter: &SessionFilter) -> Result<Vec<Session>> {
        let pattern = filter
            .query
            .as_deref()
            .map(str::trim)
            .filter(|q| !q.is_empty())
            .map(|q| {
                format!(
                    "%{}%",
                    q.replace('\\', "\\\\")
                        .replace('%', "\\%")
                        .replace('_', "\\_")
                )
            });
        let rows = sqlx::query(&format!(
            "{SELECT_SESSION}
             WHERE (?1 IS NULL OR s.status = ?1)
               AND (?2 IS NULL OR s.complaint LIKE ?2 ESCAPE '\\' OR s.customer LIKE ?2 ESCAPE '\\'
                    OR s.technician LIKE ?2 ESCAPE '\\' OR s.vin LIKE ?2 ESCAPE '\\'
                    OR s.plate LIKE ?2 ESCAPE '\\' OR s.make_model LIKE ?2 ESCAPE '\\')
             ORDER BY s.updated_at DESC, s.id DESC"
        ))
        .bind(filter.status.map(SessionStatus::as_str))
        .bind(pattern)
        .fetch_all(self.pool())
        .await?;
        Ok(rows.iter().map(Session::from_row).collect())
    }

    /// The newest state snapshot, migrated to this build's version.
    pub async fn latest_state(&self, session_id: &str) -> Result<(i64, SessionState)> {
        let row: Option<(i64, u32, String)> = sqlx::query_as(
            "SELECT turn_seq, version, state FROM session_states
             WHERE session_id = ? ORDER BY turn_seq DESC LIMIT 1",
        )
        .bind(session_id)
        .fetch_optional(self.pool())
        .await?;
        let (seq, version, json) = row.ok_or_else(|| StoreError::NotFound {
            what: "session",
            id: session_id.to_owned(),
        })?;
        Ok((seq, decode_state(session_id, version, &json)?))
    }

    /// Delete a session with its turns, states and facts. With artifacts it is
    /// refused unless `purge`; then the blobs no other row or pin uses are
    /// removed, decided and moved aside inside the same write transaction
    /// (an add pins a blob before relying on it, so it never loses one), and
    /// deleted once that transaction commits. Returns how many were removed.
    pub async fn delete_session(&self, id: &str, purge: bool, blobs: &BlobStore) -> Result<usize> {
        let mut tx = self.begin_write().await?;
        let exists: Option<i64> = sqlx::query_scalar("SELECT 1 FROM sessions WHERE id = ?")
            .bind(id)
            .fetch_optional(&mut *tx)
            .await?;
        if exists.is_none() {
            return Err(StoreError::NotFound {
                what: "session",
                id: id.to_owned(),
            });
        }
        let hashes: Vec<(String, Option<String>)> =
            sqlx::query_as("SELECT sha256, thumb_sha256 FROM artifacts WHERE session_id = ?")
                .bind(id)
                .fetch_all(&mut *tx)
                .await?;
        if !hashes.is_empty() && !purge {
            return Err(StoreError::HasArtifacts {
                session_id: id.to_owned(),
                count: hashes.len() as i64,
            });
        }
        sqlx::query("DELETE FROM artifacts WHERE session_id = ?")
            .bind(id)
            .execute(&mut *tx)
            .await?;
        // Facts point at each other through superseded_by; clear that first.
        sqlx::query("UPDATE facts SET superseded_by = NULL WHERE session_id = ?")
            .bind(id)
            .execute(&mut *tx)
            .await?;
        // What the session still had to deliver can no longer be sent (its
        // photos and rows are gone): it is closed with the reason, not left
        // pending for ever behind a missing photo.
        sqlx::query(
            "UPDATE outbox SET status = 'failed', next_attempt_at = NULL,
                    last_error = 'the session was deleted before this item was delivered',
                    updated_at = ?
             WHERE session_id = ? AND status = 'pending'",
        )
        .bind(super::now())
        .bind(id)
        .execute(&mut *tx)
        .await?;
        sqlx::query("DELETE FROM sessions WHERE id = ?")
            .bind(id)
            .execute(&mut *tx)
            .await?;
        let mut hashes: Vec<String> = hashes
            .into_iter()
            .flat_map(|(a, b)| std::iter::once(a).chain(b))
            .collect();
        hashes.sort();
        hashes.dedup();
        let mut unused = Vec::with_capacity(hashes.len());
        for sha in hashes {
            if !blob_referenced(&mut tx, &sha).await? {
                unused.push(sha);
            }
        }
        let store = blobs.clone();
        let trash = blocking(move || store.trash(&unused)).await?;
        commit_then_empty(tx, trash).await
    }
}

/// A stored snapshot as this build's `SessionState`, migrated if older.
pub(super) fn decode_state(session_id: &str, version: u32, json: &str) -> Result<SessionState> {
    SessionState::from_snapshot(version, json).map_err(|source| StoreError::State {
        session_id: session_id.to_owned(),
        source,
    })
}

/// The next RO number under the shop's prefix: one past the highest number
/// already issued with it. Runs in the creating transaction, which holds
/// the write lock, so two desks never get the same number.
async fn next_ro_number(tx: &mut Transaction<'static, Sqlite>) -> Result<String> {
    let prefix: String = sqlx::query_scalar("SELECT value FROM settings WHERE key = ?")
        .bind(RO_PREFIX_KEY)
        .fetch_optional(&mut **tx)
        .await?
        .unwrap_or_else(|| DEFAULT_RO_PREFIX.to_owned());
    let issued: Vec<String> = sqlx::query_scalar(
        "SELECT ro_number FROM sessions WHERE ro_number IS NOT NULL AND substr(ro_number, 1, ?) = ?",
    )
    .bind(prefix.chars().count() as i64)
    .bind(&prefix)
    .fetch_all(&mut **tx)
    .await?;
    let last = issued
        .iter()
        .filter_map(|n| n[prefix.len()..].parse::<u64>().ok())
        .max()
        .unwrap_or(0);
    Ok(format!("{prefix}{:06}", last + 1))
}

/// One row of a session's audit trail: the field, both values, who, when.
pub(super) async fn insert_edit(
    tx: &mut sqlx::Transaction<'static, sqlx::Sqlite>,
    session_id: &str,
    field: &str,
    old_value: Option<&str>,
    new_value: Option<&str>,
    edited_by: Option<&str>,
    at: Timestamp,
) -> Result<()> {
    sqlx::query(
        "INSERT INTO session_edits (id, session_id, field, old_value, new_value, edited_by, edited_at)
         VALUES (?, ?, ?, ?, ?, ?, ?)",
    )
    .bind(new_id())
    .bind(session_id)
    .bind(field)
    .bind(old_value)
    .bind(new_value)
    .bind(edited_by)
    .bind(at)
    .execute(&mut **tx)
    .await?;
    Ok(())
}
