//! Artifact rows. The blob behind a row is written and fsynced before the row
//! is inserted (see `crate::artifacts`).

use sqlx::SqliteConnection;

use super::{new_id, now, Artifact, Result, Store, StoreError};
use crate::artifacts::{FileKind, ThumbnailKind};

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
        }
    }
}

pub(crate) async fn insert_artifact(
    conn: &mut SqliteConnection,
    session_id: &str,
    turn_id: Option<&str>,
    a: &NewArtifact,
    at: &str,
) -> Result<String> {
    let id = new_id();
    sqlx::query(
        "INSERT INTO artifacts (id, session_id, turn_id, sha256, file_name, mime, kind, size_bytes,
           caption, taken_at, width, height, thumb_sha256, thumbnail, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
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
    .execute(conn)
    .await?;
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
        let id = insert_artifact(&mut tx, session_id, None, a, &at).await?;
        sqlx::query("UPDATE sessions SET updated_at = ? WHERE id = ?")
            .bind(&at)
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

    /// Is any row still using this blob (as content or thumbnail)?
    pub async fn blob_in_use(&self, sha256: &str) -> Result<bool> {
        let n: i64 = sqlx::query_scalar(
            "SELECT COUNT(*) FROM artifacts WHERE sha256 = ?1 OR thumb_sha256 = ?1",
        )
        .bind(sha256)
        .fetch_one(self.pool())
        .await?;
        Ok(n > 0)
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
