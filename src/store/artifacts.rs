//! Artifact rows. The blob behind a row is written and fsynced before the row
//! is inserted (see `crate::artifacts`).

use super::Timestamp;
use std::collections::HashSet;
use std::time::{Duration, SystemTime};

use sqlx::SqliteConnection;

use super::{new_id, now, Artifact, PhotoCondition, Result, Store, StoreError};
use crate::artifacts::{ArtifactError, BlobStore, FileKind, ThumbnailKind, Trash};

/// Everything about a file that goes into its row; produced by the Desk after
/// the blob and thumbnail are stored.
#[derive(Debug, Clone)]
pub struct NewArtifact {
    pub sha256: String,
    pub file_name: String,
    pub mime: String,
    pub kind: FileKind,
    pub size_bytes: i64,
    pub caption: Option<String>,
    pub taken_at: Option<String>,
    pub width: Option<i64>,
    pub height: Option<i64>,
    pub thumb_sha256: Option<String>,
    pub thumbnail: ThumbnailKind,
    pub condition: Option<PhotoCondition>,
    /// The artifact a marked-up copy was drawn on.
    pub derived_from: Option<String>,
    /// The pin ([`Store::pin_blobs`]) that keeps this file's blobs from a
    /// purge or sweep until the row exists; the row's insert drops it.
    pub pin: Option<String>,
}

/// A stored row's file, as the row was made from.
impl From<&Artifact> for NewArtifact {
    fn from(a: &Artifact) -> Self {
        Self {
            sha256: a.sha256.clone(),
            file_name: a.file_name.clone(),
            mime: a.mime.clone(),
            kind: a.kind,
            size_bytes: a.size_bytes,
            caption: a.caption.clone(),
            taken_at: a.taken_at.clone(),
            width: a.width,
            height: a.height,
            thumb_sha256: a.thumb_sha256.clone(),
            thumbnail: a.thumbnail,
            condition: a.condition,
            derived_from: a.derived_from.clone(),
            pin: None,
        }
    }
}

pub(crate) async fn insert_artifact(
    conn: &mut SqliteConnection,
    session_id: &str,
    turn_id: Option<&str>,
    a: &NewArtifact,
    at: Timestamp,
) -> Result<String> {
    let id = new_id();
    sqlx::query(
        "INSERT INTO artifacts (id, session_id, turn_id, sha256, file_name, mime, kind, size_bytes,
           caption, taken_at, width, height, thumb_sha256, thumbnail, created_at,
           condition, derived_from)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
    )
    .bind(&id)
    .bind(session_id)
    .bind(turn_id)
    .bind(&a.sha256)
    .bind(&a.file_name)
    .bind(&a.mime)
    .bind(match a.kind {
        FileKind::Image => "image",
        FileKind::Document => "document",
    })
    .bind(a.size_bytes)
    .bind(&a.caption)
    .bind(&a.taken_at)
    .bind(a.width)
    .bind(a.height)
    .bind(&a.thumb_sha256)
    .bind(a.thumbnail.as_str())
    .bind(at)
    .bind(a.condition.map(PhotoCondition::as_str))
    .bind(&a.derived_from)
    .execute(&mut *conn)
    .await?;
    // The row now holds the reference the pin held (same transaction).
    if let Some(pin) = &a.pin {
        sqlx::query("DELETE FROM blob_pins WHERE id = ?")
            .bind(pin)
            .execute(&mut *conn)
            .await?;
    }
    Ok(id)
}

impl Store {
    /// Attach a file to a session outside of a turn (file picker, CLI).
    pub async fn add_artifact(&self, session_id: &str, a: &NewArtifact) -> Result<Artifact> {
        let at = now();
        let mut tx = self.begin_write().await?;
        let exists: Option<i64> = sqlx::query_scalar("SELECT 1 FROM sessions WHERE id = ?")
            .bind(session_id)
            .fetch_optional(&mut *tx)
            .await?;
        if exists.is_none() {
            return Err(StoreError::NotFound {
                what: "session",
                id: session_id.to_owned(),
            });
        }
        let id = insert_artifact(&mut tx, session_id, None, a, at).await?;
        sqlx::query("UPDATE sessions SET updated_at = ? WHERE id = ?")
            .bind(at)
            .bind(session_id)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        self.artifact(&id).await
    }

    pub async fn artifact(&self, id: &str) -> Result<Artifact> {
        let row = sqlx::query("SELECT * FROM artifacts WHERE id = ?")
            .bind(id)
            .fetch_optional(self.pool())
            .await?
            .ok_or_else(|| StoreError::NotFound {
                what: "artifact",
                id: id.to_owned(),
            })?;
        Ok(Artifact::from_row(&row))
    }

    /// A session's artifacts in the order they were added; all of them when
    /// `session_id` is None.
    pub async fn artifacts(&self, session_id: Option<&str>) -> Result<Vec<Artifact>> {
        list_artifacts(self.pool(), session_id).await
    }

    /// Is any row or pin still using this blob (as content or thumbnail)?
    pub async fn blob_in_use(&self, sha256: &str) -> Result<bool> {
        blob_referenced(&mut *self.pool().acquire().await?, sha256).await
    }

    /// Pin blobs an add is about to rely on, before it checks or writes their
    /// files: committed at once, so a purge or sweep that runs from then on
    /// keeps them. Returns the pin's id, for [`NewArtifact::pin`].
    pub async fn pin_blobs(&self, hashes: &[&str]) -> Result<String> {
        let id = new_id();
        let at = now();
        let mut tx = self.begin_write().await?;
        for sha in hashes {
            sqlx::query(
                "INSERT OR IGNORE INTO blob_pins (id, sha256, created_at) VALUES (?, ?, ?)",
            )
            .bind(&id)
            .bind(sha)
            .bind(at)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(id)
    }

    /// Drop a pin whose add did not insert its row (it failed).
    pub async fn unpin_blobs(&self, pin: &str) -> Result<()> {
        let mut tx = self.begin_write().await?;
        sqlx::query("DELETE FROM blob_pins WHERE id = ?")
            .bind(pin)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        Ok(())
    }

    /// Remove what a crash or a failed add left behind: pins older than
    /// `grace`, then, inside the same write transaction that proves no row or
    /// pin names them, blob files older than `grace`; and temp files older
    /// than `grace`. A blob an add is relying on is pinned, so it stays.
    pub async fn sweep_blobs(&self, blobs: &BlobStore, grace: Duration) -> Result<SweepReport> {
        let cutoff = SystemTime::now()
            .checked_sub(grace)
            .unwrap_or(SystemTime::UNIX_EPOCH);
        let pin_cutoff = chrono::DateTime::<chrono::Utc>::from(cutoff)
            .to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
        let mut tx = self.begin_write().await?;
        let pins_dropped = sqlx::query("DELETE FROM blob_pins WHERE created_at < ?")
            .bind(&pin_cutoff)
            .execute(&mut *tx)
            .await?
            .rows_affected();
        let referenced: Vec<String> = sqlx::query_scalar(
            "SELECT sha256 FROM artifacts
             UNION SELECT thumb_sha256 FROM artifacts WHERE thumb_sha256 IS NOT NULL
             UNION SELECT sha256 FROM blob_pins
             UNION SELECT value ->> '$.logo.sha256' FROM settings
                    WHERE key = 'shop.profile' AND value ->> '$.logo.sha256' IS NOT NULL",
        )
        .fetch_all(&mut *tx)
        .await?;
        let referenced: HashSet<String> = referenced.into_iter().collect();
        let store = blobs.clone();
        let trash = blocking(move || {
            let old = store.blobs_older_than(cutoff)?;
            let unused: Vec<String> = old
                .into_iter()
                .filter(|sha| !referenced.contains(sha))
                .collect();
            store.trash(&unused)
        })
        .await?;
        let blobs_removed = commit_then_empty(tx, trash).await?;
        let store = blobs.clone();
        let temp_files_removed = blocking(move || store.sweep_tmp(cutoff)).await?;
        Ok(SweepReport {
            pins_dropped,
            blobs_removed,
            temp_files_removed,
        })
    }
}

/// What [`Store::sweep_blobs`] removed.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct SweepReport {
    pub pins_dropped: u64,
    pub blobs_removed: usize,
    pub temp_files_removed: usize,
}

/// Does an artifact row (content or thumbnail) or a pin name this blob?
pub(super) async fn blob_referenced(conn: &mut SqliteConnection, sha256: &str) -> Result<bool> {
    let used: bool = sqlx::query_scalar(
        "SELECT EXISTS (SELECT 1 FROM artifacts WHERE sha256 = ?1)
             OR EXISTS (SELECT 1 FROM artifacts WHERE thumb_sha256 = ?1)
             OR EXISTS (SELECT 1 FROM blob_pins WHERE sha256 = ?1)
             OR EXISTS (SELECT 1 FROM settings
                         WHERE key = 'shop.profile' AND value ->> '$.logo.sha256' = ?1)",
    )
    .bind(sha256)
    .fetch_one(conn)
    .await?;
    Ok(used)
}

/// Blob store work off the async workers.
pub(super) async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> std::result::Result<T, ArtifactError> + Send + 'static,
) -> Result<T> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| StoreError::Join(e.to_string()))?
        .map_err(StoreError::from)
}

/// Commit a transaction that moved blobs to the trash: the files are deleted
/// only once the commit succeeded, and put back if it failed.
pub(super) async fn commit_then_empty(
    tx: sqlx::Transaction<'static, sqlx::Sqlite>,
    trash: Trash,
) -> Result<usize> {
    match tx.commit().await {
        Ok(()) => Ok(blocking(move || Ok(trash.empty())).await?),
        Err(e) => {
            blocking(move || {
                trash.restore();
                Ok(())
            })
            .await?;
            Err(e.into())
        }
    }
}

/// Artifacts in the order they were added (one session's, or all), on the
/// pool or on a connection inside a transaction.
pub(super) async fn list_artifacts<'c>(
    executor: impl sqlx::Executor<'c, Database = sqlx::Sqlite>,
    session_id: Option<&str>,
) -> Result<Vec<Artifact>> {
    let rows = sqlx::query(
        "SELECT * FROM artifacts WHERE (?1 IS NULL OR session_id = ?1) ORDER BY created_at, id",
    )
    .bind(session_id)
    .fetch_all(executor)
    .await?;
    Ok(rows.iter().map(Artifact::from_row).collect())
}
