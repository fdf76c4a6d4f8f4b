//! SQLite through sqlx: opening the database with the settings every
//! connection needs, the embedded migrations, and the repositories.
//!
//! Durability: WAL with `synchronous=NORMAL`. A commit survives the app being
//! killed at any instant (the WAL is written before COMMIT returns); only an
//! OS crash or power cut can lose the last few commits, never corrupt the
//! file. Photo blobs are fsynced before their row commits, so a row never
//! outlives its bytes. See the README's "Durability" section.

mod artifact_annotations;
mod artifacts;
mod models;
mod outbox;
pub mod outbox_delivery;
pub mod outbox_items;
mod reports;
mod ro_lines;
mod sessions;
pub mod settings;
mod timestamp;
mod turns;

use std::path::Path;
use std::str::FromStr;
use std::time::Duration;

use sqlx::sqlite::{SqliteConnectOptions, SqliteJournalMode, SqlitePoolOptions, SqliteSynchronous};
use sqlx::{Sqlite, SqlitePool, Transaction};

pub use artifact_annotations::Annotation;
pub use artifacts::{NewArtifact, SweepReport};
pub use models::{
    this_year, Artifact, DeliveryState, OdometerUnit, PhotoCondition, Session, SessionEdit,
    SessionStatus, Turn, Unit,
};
pub use outbox::{NewOutboxItem, OutboxKind};
pub use reports::{ReportDraft, ReportInRange};
pub use ro_lines::{
    AuthMethod, AuthStatus, Authorization, LaborRow, PartRow, PayType, RoLine, SaveLine,
    WarrantyPayer,
};
pub use sessions::{NewSession, SessionFilter, SessionHeader, DEFAULT_RO_PREFIX, RO_PREFIX_KEY};
pub use timestamp::Timestamp;
pub use turns::{NewTurn, RecordedTurn};

use crate::engine::StateError;

static MIGRATOR: sqlx::migrate::Migrator = sqlx::migrate!("./migrations");

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("database error: {0}")]
    Sqlx(#[from] sqlx::Error),
    #[error("database migration failed: {0}")]
    Migrate(#[from] sqlx::migrate::MigrateError),
    #[error("{what} {id} not found")]
    NotFound { what: &'static str, id: String },
    #[error("session {session_id} has {count} photo(s)/file(s); deleting it would drop them. Delete with purge to remove them too")]
    HasArtifacts { session_id: String, count: i64 },
    #[error(transparent)]
    Blob(#[from] crate::artifacts::ArtifactError),
    #[error("background task failed: {0}")]
    Join(String),
    #[error(
        "session_id: repair order {ro_number} is finalized, so it cannot change; reopen it first"
    )]
    Finalized { ro_number: String },
    #[error("session {session_id}: {source}")]
    State {
        session_id: String,
        #[source]
        source: StateError,
    },
}

pub type Result<T, E = StoreError> = std::result::Result<T, E>;

/// The database: a small pool of connections that all carry the same settings.
#[derive(Debug, Clone)]
pub struct Store {
    pool: SqlitePool,
}

impl Store {
    pub async fn open(db_path: &Path) -> Result<Self> {
        let options = SqliteConnectOptions::from_str("sqlite:")?
            .filename(db_path)
            .create_if_missing(true)
            .journal_mode(SqliteJournalMode::Wal)
            .synchronous(SqliteSynchronous::Normal)
            .foreign_keys(true)
            .busy_timeout(Duration::from_secs(10));
        let pool = SqlitePoolOptions::new()
            .max_connections(4)
            // A ping before every query is a round trip to the connection's
            // worker thread for nothing: a local file does not drop connections.
            .test_before_acquire(false)
            .connect_with(options)
            .await?;
        MIGRATOR.run(&pool).await?;
        Ok(Self { pool })
    }

    pub fn pool(&self) -> &SqlitePool {
        &self.pool
    }

    /// Start a write transaction. IMMEDIATE takes the write lock up front, so
    /// two writers wait on the busy timeout instead of failing mid-transaction.
    pub async fn begin_write(&self) -> Result<Transaction<'static, Sqlite>> {
        Ok(self.pool.begin_with("BEGIN IMMEDIATE").await?)
    }

    /// The newest migration applied: the database schema's version.
    pub async fn schema_version(&self) -> Result<i64> {
        let v: Option<i64> =
            sqlx::query_scalar("SELECT MAX(version) FROM _sqlx_migrations WHERE success = 1")
                .fetch_one(&self.pool)
                .await?;
        Ok(v.unwrap_or(0))
    }

    /// How many sessions and artifacts the store holds.
    pub async fn counts(&self) -> Result<(usize, usize)> {
        let (sessions, artifacts): (i64, i64) = sqlx::query_as(
            "SELECT (SELECT COUNT(*) FROM sessions), (SELECT COUNT(*) FROM artifacts)",
        )
        .fetch_one(&self.pool)
        .await?;
        Ok((sessions as usize, artifacts as usize))
    }

    /// Per session id: whether its newest state has a complete isolation (a
    /// report can be written), and the portal state of its newest report
    /// item, if one was queued.
    pub async fn session_stages(
        &self,
        ids: &[&str],
    ) -> Result<std::collections::HashMap<String, (bool, DeliveryState)>> {
        let ids = serde_json::Value::from_iter(ids.iter().copied());
        let rows: Vec<(String, Option<bool>, Option<String>)> = sqlx::query_as(
            "SELECT s.id,
                    (SELECT json_extract(st.state, '$.isolation.complete') FROM session_states st
                     WHERE st.session_id = s.id ORDER BY st.turn_seq DESC LIMIT 1),
                    (SELECT o.status FROM outbox o
                     WHERE o.session_id = s.id AND o.kind = 'report' ORDER BY o.seq DESC LIMIT 1)
             FROM sessions s WHERE s.id IN (SELECT value FROM json_each(?1))",
        )
        .bind(ids.to_string())
        .fetch_all(&self.pool)
        .await?;
        Ok(rows
            .into_iter()
            .map(|(id, ready, sync)| {
                let sync = DeliveryState::of_row(sync.as_deref());
                (id, (ready.unwrap_or(false), sync))
            })
            .collect())
    }

    /// `PRAGMA integrity_check`: "ok" or the first problems found.
    pub async fn integrity_check(&self) -> Result<String> {
        let rows: Vec<String> = sqlx::query_scalar("PRAGMA integrity_check")
            .fetch_all(&self.pool)
            .await?;
        Ok(rows.join("; "))
    }

    pub async fn close(&self) {
        self.pool.close().await;
    }
}

pub(crate) fn now() -> Timestamp {
    Timestamp::now()
}

pub(crate) fn new_id() -> String {
    uuid::Uuid::now_v7().to_string()
}
