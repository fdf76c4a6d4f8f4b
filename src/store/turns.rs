//! Turns: one technician input and the reply, with the state snapshot, facts,
//! artifacts and outbox items it produced — all committed in one transaction.

use serde_json::Value;

use super::artifacts::{insert_artifact, NewArtifact};
use super::outbox::{enqueue, NewOutboxItem};
use super::{new_id, now, Result, SessionStatus, Store, StoreError, Turn};
use crate::engine::state::Fact;
use crate::engine::{SessionState, STATE_VERSION};

#[derive(Debug, Clone)]
pub struct NewTurn {
    pub input: String,
    pub reply: String,
    pub intent: Option<String>,
    pub transition: Option<String>,
    pub trace: Value,
    /// The state after this turn.
    pub state: SessionState,
    /// Facts this turn added (they are also in `state`; the table makes them queryable).
    pub new_facts: Vec<Fact>,
    /// (old fact id, new fact id): facts this turn superseded.
    pub superseded: Vec<(String, String)>,
    /// A final report revision written by this turn: (revision, language, text).
    pub report: Option<(u32, String, String)>,
    /// Files attached with this turn; their blobs are already durable.
    pub artifacts: Vec<NewArtifact>,
    pub outbox: Vec<NewOutboxItem>,
    pub status: Option<SessionStatus>,
}

impl NewTurn {
    pub fn new(input: impl Into<String>, reply: impl Into<String>, state: SessionState) -> Self {
        Self {
            input: input.into(),
            reply: reply.into(),
            intent: None,
            transition: None,
            trace: Value::Object(Default::default()),
            state,
            new_facts: Vec::new(),
            superseded: Vec::new(),
            report: None,
            artifacts: Vec::new(),
            outbox: Vec::new(),
            status: None,
        }
    }
}

#[derive(Debug, Clone)]
pub struct RecordedTurn {
    pub turn: Turn,
    pub artifact_ids: Vec<String>,
    pub outbox_ids: Vec<String>,
}

impl Store {
    /// Report revisions of a session, oldest first:
    /// (revision, language, body, created_at).
    pub async fn reports(&self, session_id: &str) -> Result<Vec<(u32, String, String, String)>> {
        Ok(sqlx::query_as(
            "SELECT revision, language, body, created_at FROM reports
             WHERE session_id = ? ORDER BY revision",
        )
        .bind(session_id)
        .fetch_all(self.pool())
        .await?)
    }

    /// Commit a turn and everything it changes, or nothing at all.
    pub async fn record_turn(&self, session_id: &str, new: &NewTurn) -> Result<RecordedTurn> {
        let mut tx = self.begin_write().await?;
        let id = new_id();
        let at = now();
        // The next seq is computed inside the insert; no row means no session.
        let seq: Option<i64> = sqlx::query_scalar(
            "INSERT INTO turns (id, session_id, seq, created_at, input, reply, intent, transition, trace)
             SELECT ?1, s.id, COALESCE((SELECT MAX(t.seq) FROM turns t WHERE t.session_id = s.id), 0) + 1,
                    ?3, ?4, ?5, ?6, ?7, ?8
             FROM sessions s WHERE s.id = ?2
             RETURNING seq",
        )
        .bind(&id)
        .bind(session_id)
        .bind(&at)
        .bind(&new.input)
        .bind(&new.reply)
        .bind(&new.intent)
        .bind(&new.transition)
        .bind(new.trace.to_string())
        .fetch_optional(&mut *tx)
        .await?;
        let Some(seq) = seq else {
            return Err(StoreError::NotFound {
                what: "session",
                id: session_id.to_owned(),
            });
        };
        sqlx::query(
            "INSERT INTO session_states (session_id, turn_seq, version, state, created_at)
             VALUES (?, ?, ?, ?, ?)",
        )
        .bind(session_id)
        .bind(seq)
        .bind(STATE_VERSION)
        .bind(new.state.to_json())
        .bind(&at)
        .execute(&mut *tx)
        .await?;
        for fact in &new.new_facts {
            sqlx::query(
                "INSERT INTO facts (id, session_id, turn_id, kind, source, subject, value, unit, text, created_at)
                 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            )
            .bind(&fact.id)
            .bind(session_id)
            .bind(&id)
            .bind(enum_str(&fact.kind))
            .bind(enum_str(&fact.source))
            .bind(&fact.subject)
            .bind(&fact.value)
            .bind(&fact.unit)
            .bind(&fact.text)
            .bind(&at)
            .execute(&mut *tx)
            .await?;
        }
        // Supersession can point at facts from earlier turns or from this one.
        for (old, new_id) in &new.superseded {
            sqlx::query("UPDATE facts SET superseded_by = ? WHERE id = ? AND session_id = ?")
                .bind(new_id)
                .bind(old)
                .bind(session_id)
                .execute(&mut *tx)
                .await?;
        }
        if let Some((revision, language, body)) = &new.report {
            sqlx::query(
                "INSERT INTO reports (session_id, revision, turn_id, language, body, created_at)
                 VALUES (?, ?, ?, ?, ?, ?)",
            )
            .bind(session_id)
            .bind(revision)
            .bind(&id)
            .bind(language)
            .bind(body)
            .bind(&at)
            .execute(&mut *tx)
            .await?;
        }
        let mut artifact_ids = Vec::with_capacity(new.artifacts.len());
        for artifact in &new.artifacts {
            artifact_ids
                .push(insert_artifact(&mut tx, session_id, Some(&id), artifact, &at).await?);
        }
        let mut outbox_ids = Vec::with_capacity(new.outbox.len());
        for item in &new.outbox {
            outbox_ids.push(enqueue(&mut tx, Some(session_id), item).await?);
        }
        // updated_at was set by the insert trigger.
        if let Some(status) = new.status {
            sqlx::query("UPDATE sessions SET status = ? WHERE id = ?")
                .bind(status.as_str())
                .bind(session_id)
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        Ok(RecordedTurn {
            turn: Turn {
                id,
                session_id: session_id.to_owned(),
                seq,
                created_at: at,
                input: new.input.clone(),
                reply: new.reply.clone(),
                intent: new.intent.clone(),
                transition: new.transition.clone(),
                trace: new.trace.clone(),
            },
            artifact_ids,
            outbox_ids,
        })
    }

    /// The newest turn of a session, if it has any.
    pub async fn last_turn(&self, session_id: &str) -> Result<Option<Turn>> {
        let row = sqlx::query("SELECT * FROM turns WHERE session_id = ? ORDER BY seq DESC LIMIT 1")
            .bind(session_id)
            .fetch_optional(self.pool())
            .await?;
        Ok(row.as_ref().map(Turn::from_row))
    }

    pub async fn turns(&self, session_id: &str) -> Result<Vec<Turn>> {
        let rows = sqlx::query("SELECT * FROM turns WHERE session_id = ? ORDER BY seq")
            .bind(session_id)
            .fetch_all(self.pool())
            .await?;
        Ok(rows.iter().map(Turn::from_row).collect())
    }
}

/// The snake_case name serde gives a unit enum variant.
fn enum_str<T: serde::Serialize>(v: &T) -> String {
    match serde_json::to_value(v) {
        Ok(Value::String(s)) => s,
        _ => String::new(),
    }
}
