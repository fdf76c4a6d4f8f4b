//! Sessions: one per unit visit, with its unit, customer and complaint.

use serde::Deserialize;

use super::artifacts::{blob_referenced, blocking, commit_then_empty};
use super::{new_id, now, Result, Session, SessionStatus, Store, StoreError, Unit};
use crate::artifacts::BlobStore;
use crate::engine::{SessionState, STATE_VERSION};

#[derive(Debug, Clone, Default, Deserialize)]
pub struct NewSession {
    pub complaint: String,
    pub customer: Option<String>,
    pub technician: Option<String>,
    pub language: Option<String>,
    pub unit: Unit,
}

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
        sqlx::query(
            "INSERT INTO sessions (id, created_at, updated_at, status, language, customer, technician,
               complaint, vin, plate, make_model, odometer, engine_hours)
             VALUES (?, ?, ?, 'open', ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        )
        .bind(&id)
        .bind(&at)
        .bind(&at)
        .bind(&language)
        .bind(&new.customer)
        .bind(&new.technician)
        .bind(&new.complaint)
        .bind(&new.unit.vin)
        .bind(&new.unit.plate)
        .bind(&new.unit.make_model)
        .bind(new.unit.odometer)
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
        .bind(&at)
        .execute(&mut *tx)
        .await?;
        tx.commit().await?;
        self.session(&id).await
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
