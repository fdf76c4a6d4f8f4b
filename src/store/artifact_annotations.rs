//! What a technician adds to a photo after it is stored: its caption and
//! condition tag (edited in place: they describe the photo, not its bytes),
//! and marked-up copies (new rows with their own blobs, linked to the photo
//! they were drawn on; the original's row keeps its hash).

use sqlx::{Sqlite, Transaction};

use super::artifacts::{insert_artifact, NewArtifact};
use super::ro_lines::touch_session;
use super::{now, Artifact, PhotoCondition, Result, Store, StoreError};

/// A change to a photo's caption and condition; `None` leaves a field as it
/// is, `Some(None)` clears it. The caption comes checked and trimmed.
#[derive(Debug, Clone, Default)]
pub struct Annotation {
    pub caption: Option<Option<String>>,
    pub condition: Option<Option<PhotoCondition>>,
}

impl Store {
    /// Sets a photo's caption and/or condition, in one transaction that also
    /// touches the session: refused (nothing written) when the artifact is
    /// not the session's or the session is finalized.
    pub async fn annotate_artifact(
        &self,
        session_id: &str,
        artifact_id: &str,
        annotation: &Annotation,
    ) -> Result<Artifact> {
        let at = now();
        let mut tx = self.begin_write().await?;
        session_artifact(&mut tx, session_id, artifact_id, "artifact_id").await?;
        touch_session(&mut tx, session_id, at).await?;
        if let Some(caption) = &annotation.caption {
            sqlx::query("UPDATE artifacts SET caption = ? WHERE id = ?")
                .bind(caption)
                .bind(artifact_id)
                .execute(&mut *tx)
                .await?;
        }
        if let Some(condition) = annotation.condition {
            sqlx::query("UPDATE artifacts SET condition = ? WHERE id = ?")
                .bind(condition.map(PhotoCondition::as_str))
                .bind(artifact_id)
                .execute(&mut *tx)
                .await?;
        }
        tx.commit().await?;
        self.artifact(artifact_id).await
    }

    /// Stores a marked-up copy of `original_id` (its blob already durable
    /// and pinned by the caller) as a new artifact of the same session that
    /// names its original. Refused, with nothing written, when the original
    /// is not the session's or the session is finalized.
    pub async fn add_marked_up_copy(
        &self,
        session_id: &str,
        original_id: &str,
        copy: &NewArtifact,
    ) -> Result<Artifact> {
        let at = now();
        let mut tx = self.begin_write().await?;
        let original = session_artifact(&mut tx, session_id, original_id, "original_id").await?;
        touch_session(&mut tx, session_id, at).await?;
        let copy = NewArtifact {
            derived_from: Some(original.id),
            ..copy.clone()
        };
        let id = insert_artifact(&mut tx, session_id, None, &copy, at).await?;
        tx.commit().await?;
        self.artifact(&id).await
    }
}

/// The artifact, if it belongs to the session; another session's photo is
/// "not found" here, exactly as one that does not exist. `field` is the
/// request field that named it, for the error.
async fn session_artifact(
    tx: &mut Transaction<'static, Sqlite>,
    session_id: &str,
    artifact_id: &str,
    field: &'static str,
) -> Result<Artifact> {
    let row = sqlx::query("SELECT * FROM artifacts WHERE id = ? AND session_id = ?")
        .bind(artifact_id)
        .bind(session_id)
        .fetch_optional(&mut **tx)
        .await?;
    match row {
        Some(row) => Ok(Artifact::from_row(&row)),
        None => Err(StoreError::NotFound {
            what: field,
            id: format!("{artifact_id} (a photo of session {session_id})"),
        }),
    }
}
