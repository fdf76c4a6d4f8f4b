//! Portal sync (the client side of `docs/spec/portal.md`): the delivery of
//! the outbox items a change queued (built by `store::outbox_items` in the
//! change's own transaction), the HTTP client (`client`), the token in the
//! OS keyring (`credentials`), the delivery loop (`worker`) and where sync
//! stands (`status`). The rules: items go out in creation order per session; 2xx → done;
//! 400/422 → failed with the portal's message; 409 → conflict with both
//! revisions; 401/403 → all sync paused until the credentials change; 408,
//! 429, 5xx, timeouts and dropped connections → retried with exponential
//! backoff and full jitter, honouring `Retry-After`. Every decision is stored
//! in the item's row (`next_attempt_at` is the truth), so a restart resumes
//! exactly where the last run stopped.

pub mod client;
pub mod credentials;
mod status;
mod worker;

use std::time::Duration;
use ts_rs::TS;

use serde::{Deserialize, Serialize};

use crate::desk::Desk;
pub use crate::store::outbox_delivery::{ItemInfo, OutboxStatus};
use crate::store::StoreError;
pub use client::{validate_url, Answer, PortalClient};
pub use credentials::{TokenOrigin, TokenSource, TOKEN_ENV, URL_ENV};
pub use status::{portal_url, retry, set_portal_url, status};
pub use worker::Syncer;

#[derive(Debug, thiserror::Error)]
pub enum SyncError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("{0}")]
    Invalid(String),
    #[error("keyring: {0}")]
    Keyring(String),
    #[error("outbox item {0} not found")]
    NotFound(String),
    #[error("background task failed: {0}")]
    Join(String),
}

impl From<sqlx::Error> for SyncError {
    fn from(e: sqlx::Error) -> Self {
        SyncError::Store(StoreError::Sqlx(e))
    }
}

/// Timeouts, backoff and limits. The defaults are the contract's (backoff
/// base 1 s, cap 5 min); tests shorten them.
#[derive(Debug, Clone)]
pub struct SyncConfig {
    pub connect_timeout: Duration,
    pub request_timeout: Duration,
    pub backoff_base: Duration,
    pub backoff_cap: Duration,
    /// The largest request body sent (a photo, a report).
    pub max_body_bytes: usize,
    /// Sessions delivered at once (each session's items stay in order).
    pub concurrency: usize,
    /// How often the worker probes `/health` while offline or idle.
    pub probe_interval: Duration,
    /// How often the worker looks for new items when it has nothing due.
    pub poll_interval: Duration,
}

impl Default for SyncConfig {
    fn default() -> Self {
        Self {
            connect_timeout: Duration::from_secs(10),
            request_timeout: Duration::from_secs(60),
            backoff_base: Duration::from_secs(1),
            backoff_cap: Duration::from_secs(300),
            max_body_bytes: crate::artifacts::MAX_FILE_BYTES as usize + 1024 * 1024,
            concurrency: 8,
            probe_interval: Duration::from_secs(30),
            poll_interval: Duration::from_secs(2),
        }
    }
}

/// Exponential backoff with full jitter: a uniform delay in
/// `[0, min(cap, base · 2^attempts)]`.
pub fn backoff_delay(cfg: &SyncConfig, attempts: u32) -> Duration {
    let base = cfg.backoff_base.as_millis() as u64;
    let ceiling = base
        .saturating_mul(1u64 << attempts.min(30))
        .min(cfg.backoff_cap.as_millis() as u64);
    Duration::from_millis(fastrand::u64(0..=ceiling))
}

/// Why a pass stopped before everything due was sent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
#[serde(tag = "kind", content = "reason", rename_all = "snake_case")]
pub enum Stopped {
    NotConfigured(String),
    NoToken(String),
    Paused(String),
    Offline(String),
}

/// What one pass (or a run of passes) did.
#[derive(Debug, Clone, Default, Serialize, TS)]
pub struct PassSummary {
    pub sent: u64,
    pub done: u64,
    pub failed: u64,
    pub conflicts: u64,
    pub retried: u64,
    pub stopped: Option<Stopped>,
}

impl PassSummary {
    fn add(&mut self, other: &PassSummary) {
        self.sent += other.sent;
        self.done += other.done;
        self.failed += other.failed;
        self.conflicts += other.conflicts;
        self.retried += other.retried;
        self.stopped = other.stopped.clone();
    }
}

/// The pause kept while the portal refuses the credentials.
#[derive(Debug, Clone, Serialize, Deserialize, TS)]
struct Pause {
    reason: String,
    /// A one-way fingerprint of the refused token (see `credentials::fingerprint`).
    token_fp: String,
    at: crate::store::Timestamp,
}

#[derive(Debug, Clone, Serialize, Deserialize, TS)]
struct Online {
    online: bool,
    at: crate::store::Timestamp,
    reason: Option<String>,
}

/// Where sync stands, as the indicator shows it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum SyncState {
    Online,
    Offline,
    /// The portal refused the credentials; nothing is sent until they change.
    Paused,
    /// No portal URL or no token.
    NotConfigured,
    /// Not tried yet.
    Unknown,
}

impl SyncState {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Online => "online",
            Self::Offline => "offline",
            Self::Paused => "paused",
            Self::NotConfigured => "not_configured",
            Self::Unknown => "unknown",
        }
    }
}

/// `sync status`: what the UI shows.
#[derive(Debug, Clone, Serialize, Deserialize, TS)]
pub struct SyncStatus {
    pub state: SyncState,
    /// The last probe or delivery reached the portal (None: not tried yet).
    pub online: Option<bool>,
    pub paused: Option<String>,
    pub portal_url: Option<String>,
    pub token_set: bool,
    /// Items not yet delivered.
    pub pending: i64,
    /// Pending items due now (each session's oldest, being delivered while online).
    pub syncing: i64,
    /// Pending items waiting for their next attempt (backoff, Retry-After;
    /// the reason is on the session's oldest item, in `problems`), or behind
    /// such an item in their session.
    pub waiting: i64,
    /// Pending items held back by a photo that was not sent (see `problems`).
    pub blocked: i64,
    pub failed: i64,
    pub conflicts: i64,
    pub done: i64,
    pub last_success: Option<String>,
    /// Failed and conflicting items, and pending ones with an error, with the reason.
    pub problems: Vec<ItemInfo>,
}

/// Start the background sync worker for a Desk (the desktop app, `serve`).
/// It needs a Tokio runtime; abort the handle to stop it.
pub fn spawn_worker(desk: Desk) -> tokio::task::JoinHandle<()> {
    spawn_worker_with(Syncer::new(desk, SyncConfig::default()))
}

pub fn spawn_worker_with(syncer: Syncer) -> tokio::task::JoinHandle<()> {
    tokio::spawn(syncer.run_forever())
}
