//! Portal sync (the client side of `docs/spec/portal.md`): the delivery of
//! the outbox items a change queued (built by `store::outbox_items` in the
//! change's own transaction), the HTTP client (`client`), the token in
//! the OS keyring (`credentials`), settings (`settings`), and the delivery
//! loop here: items go out in creation order per session; 2xx → done;
//! 400/422 → failed with the portal's message; 409 → conflict with both
//! revisions; 401/403 → all sync paused until the credentials change; 408,
//! 429, 5xx, timeouts and dropped connections → retried with exponential
//! backoff and full jitter, honouring `Retry-After`. Every decision is stored
//! in the item's row (`next_attempt_at` is the truth), so a restart resumes
//! exactly where the last run stopped.

pub mod client;
pub mod credentials;
pub mod settings;

use std::collections::HashSet;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use ts_rs::TS;

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use tokio::sync::Notify;

use crate::desk::Desk;
use crate::store::outbox_items as items;
use crate::store::{now, StoreError};
pub use client::{validate_url, Answer, PortalClient};
pub use credentials::{TokenOrigin, TokenSource, TOKEN_ENV, URL_ENV};

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
    at: String,
}

#[derive(Debug, Clone, Serialize, Deserialize, TS)]
struct Online {
    online: bool,
    at: String,
    reason: Option<String>,
}

/// One outbox row as the worker reads it.
#[derive(Debug, Clone, sqlx::FromRow)]
struct Item {
    id: String,
    kind: String,
    target: String,
    payload: String,
    attempts: i64,
}

/// A pending, failed or conflicting item, for status displays.
#[derive(Debug, Clone, Serialize, Deserialize, sqlx::FromRow, TS)]
pub struct ItemInfo {
    pub id: String,
    pub session_id: Option<String>,
    pub kind: String,
    pub target: String,
    pub status: String,
    pub attempts: i64,
    pub next_attempt_at: Option<String>,
    pub last_error: Option<String>,
    pub http_status: Option<i64>,
    pub created_at: String,
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

const ONLINE_UNKNOWN: u8 = 0;
const ONLINE_YES: u8 = 1;
const ONLINE_NO: u8 = 2;

/// SQL: outbox row `o` is the oldest pending item of its session.
const HEAD: &str = "NOT EXISTS (SELECT 1 FROM outbox p WHERE p.status = 'pending'
                    AND p.session_id IS o.session_id AND p.seq < o.seq)";

/// SQL: outbox row `o` is not a report whose photo was refused or could not
/// be read (a report never goes out without its photos).
const NOT_BLOCKED: &str = "NOT (o.kind = 'report' AND EXISTS (
        SELECT 1 FROM json_each(o.payload, '$.attachments') j
        JOIN outbox a ON a.session_id IS o.session_id AND a.kind = 'attachment'
             AND a.target = '/api/v1/attachments/' || json_extract(j.value, '$.sha256')
        WHERE a.status <> 'done'))";

/// Delivers the outbox of one data dir.
#[derive(Debug, Clone)]
pub struct Syncer {
    desk: Desk,
    cfg: SyncConfig,
    tokens: TokenSource,
    client: Arc<Mutex<Option<(String, PortalClient)>>>,
    online: Arc<AtomicU8>,
    /// The Desk's outbox signal: a commit that queued items wakes the worker.
    wake: Arc<Notify>,
}

impl Syncer {
    /// The token from `SERVICEDESK_PORTAL_TOKEN` or the keyring.
    pub fn new(desk: Desk, cfg: SyncConfig) -> Self {
        let tokens = TokenSource::for_data_dir(desk.data_dir());
        Self::with_tokens(desk, cfg, tokens)
    }

    pub fn with_tokens(desk: Desk, cfg: SyncConfig, tokens: TokenSource) -> Self {
        Self {
            cfg,
            tokens,
            client: Arc::new(Mutex::new(None)),
            online: Arc::new(AtomicU8::new(ONLINE_UNKNOWN)),
            wake: desk.outbox_wake(),
            desk,
        }
    }

    pub fn tokens(&self) -> &TokenSource {
        &self.tokens
    }

    pub fn config(&self) -> &SyncConfig {
        &self.cfg
    }

    fn pool(&self) -> &sqlx::SqlitePool {
        self.desk.store().pool()
    }

    async fn token(&self) -> Result<Option<String>, SyncError> {
        let tokens = self.tokens.clone();
        Ok(tokio::task::spawn_blocking(move || tokens.current())
            .await
            .map_err(|e| SyncError::Join(e.to_string()))??
            .map(|(t, _)| t))
    }

    fn client_for(&self, url: &str) -> Result<PortalClient, SyncError> {
        let mut cached = self.client.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((u, c)) = cached.as_ref() {
            if u == url {
                return Ok(c.clone());
            }
        }
        let c = PortalClient::new(url, &self.cfg)?;
        *cached = Some((url.to_owned(), c.clone()));
        Ok(c)
    }

    /// Where everything needed to talk to the portal stands: a client and a
    /// token, or why not.
    async fn ready(&self) -> Result<Result<(PortalClient, String), Stopped>, SyncError> {
        let Some(url) = portal_url(&self.desk).await? else {
            return Ok(Err(Stopped::NotConfigured(
                "no portal URL: run `servicedesk portal login --url URL`".into(),
            )));
        };
        let client = self.client_for(&url)?;
        let token = match self.token().await {
            Ok(Some(t)) => t,
            Ok(None) => {
                return Ok(Err(Stopped::NoToken(format!(
                    "no portal token: run `servicedesk portal login` or set {TOKEN_ENV}"
                ))))
            }
            Err(e) => return Ok(Err(Stopped::NoToken(e.to_string()))),
        };
        if let Some(pause) = settings::get_json::<Pause>(self.pool(), settings::KEY_PAUSE).await? {
            if pause.token_fp == credentials::fingerprint(&token) {
                return Ok(Err(Stopped::Paused(pause.reason)));
            }
            // The credentials changed since the portal refused them: resume.
            settings::delete(self.pool(), settings::KEY_PAUSE).await?;
            tracing::info!("portal credentials changed; sync resumes");
        }
        Ok(Ok((client, token)))
    }

    /// One pass: deliver every item that is due, until nothing is due or the
    /// portal stops us. Up to `concurrency` sessions are in flight at once,
    /// each with only its oldest pending item (per-session order); as soon as
    /// one answer is recorded the next due head is sent (a slow or stalled
    /// request holds up only its own session).
    pub async fn pass(&self) -> Result<PassSummary, SyncError> {
        let mut summary = PassSummary::default();
        let (client, token) = match self.ready().await? {
            Ok(ready) => ready,
            Err(stopped) => {
                summary.stopped = Some(stopped);
                return Ok(summary);
            }
        };
        let width = self.cfg.concurrency.max(1);
        let mut set = tokio::task::JoinSet::new();
        let mut in_flight: HashSet<String> = HashSet::new();
        let mut stop: Option<Stopped> = None;
        loop {
            // Refill when half the window is free: each recorded answer may
            // have made its session's next item due.
            if stop.is_none() && in_flight.len() <= width / 2 {
                let want = width - in_flight.len();
                let heads = self.due_heads(want, &in_flight).await?;
                for item in heads {
                    in_flight.insert(item.id.clone());
                    let this = self.clone();
                    let client = client.clone();
                    let token = token.clone();
                    set.spawn(async move {
                        let answer = this.deliver(&client, &token, &item).await;
                        (item, answer)
                    });
                }
            }
            let Some(joined) = set.join_next().await else {
                break;
            };
            let (item, answer) = joined.map_err(|e| SyncError::Join(e.to_string()))?;
            in_flight.remove(&item.id);
            summary.sent += 1;
            if let Some(s) = self.apply(&item, &answer, &token, &mut summary).await? {
                stop.get_or_insert(s);
            }
        }
        summary.stopped = stop;
        Ok(summary)
    }

    /// The first pending item of each session, where it is due and not
    /// blocked, oldest first; none of `skip` (in flight).
    async fn due_heads(
        &self,
        limit: usize,
        skip: &HashSet<String>,
    ) -> Result<Vec<Item>, SyncError> {
        let skip = serde_json::to_string(&skip.iter().collect::<Vec<_>>()).unwrap_or_default();
        Ok(sqlx::query_as(&format!(
            "SELECT o.id, o.kind, o.target, o.payload, o.attempts FROM outbox o
             WHERE o.status = 'pending'
               AND (o.next_attempt_at IS NULL OR o.next_attempt_at <= ?1)
               AND {HEAD} AND {NOT_BLOCKED}
               AND o.id NOT IN (SELECT value FROM json_each(?3))
             ORDER BY o.seq LIMIT ?2"
        ))
        .bind(now())
        .bind(limit as i64)
        .bind(skip)
        .fetch_all(self.pool())
        .await?)
    }

    /// The earliest next attempt among the sessions' first pending items
    /// that are not blocked (`Some(None)`: one is due now).
    async fn next_due(&self) -> Result<Option<Option<String>>, SyncError> {
        let row: Option<(Option<String>,)> = sqlx::query_as(&format!(
            "SELECT MIN(COALESCE(o.next_attempt_at, '')) FROM outbox o
             WHERE o.status = 'pending' AND {HEAD} AND {NOT_BLOCKED}
             HAVING COUNT(*) > 0"
        ))
        .fetch_optional(self.pool())
        .await?;
        Ok(row.map(|(at,)| at.filter(|a| !a.is_empty())))
    }

    async fn deliver(&self, client: &PortalClient, token: &str, item: &Item) -> Answer {
        let body = if item.kind == items::KIND_ATTACHMENT {
            let payload: Value = serde_json::from_str(&item.payload).unwrap_or_default();
            let sha = payload["sha256"].as_str().unwrap_or_default().to_owned();
            let mime = payload["mime"]
                .as_str()
                .unwrap_or("application/octet-stream")
                .to_owned();
            let blobs = self.desk.blobs().clone();
            // The blob store re-hashes on read: only intact bytes leave.
            match tokio::task::spawn_blocking(move || blobs.get(&sha)).await {
                Ok(Ok(bytes)) => client::Body::Bytes { mime, bytes },
                Ok(Err(e)) => {
                    return Answer::Rejected {
                        status: 0,
                        message: format!("not sent: {e}"),
                    }
                }
                Err(e) => {
                    return Answer::Retry {
                        status: None,
                        retry_after: None,
                        message: format!("reading the photo failed: {e}"),
                    }
                }
            }
        } else {
            client::Body::Json(item.payload.clone().into_bytes())
        };
        client
            .send(
                items::method_for(&item.kind),
                &item.target,
                body,
                &item.id,
                token,
            )
            .await
    }

    /// Record an answer in the item's row; a pause or an outage stops the pass.
    async fn apply(
        &self,
        item: &Item,
        answer: &Answer,
        token: &str,
        summary: &mut PassSummary,
    ) -> Result<Option<Stopped>, SyncError> {
        let at = now();
        let pool = self.pool();
        match answer {
            Answer::Ok { status } => {
                sqlx::query(
                    "UPDATE outbox SET status = 'done', attempts = attempts + 1, http_status = ?,
                            done_at = ?2, updated_at = ?2, last_error = NULL, next_attempt_at = NULL
                     WHERE id = ?3 AND status = 'pending'",
                )
                .bind(i64::from(*status))
                .bind(&at)
                .bind(&item.id)
                .execute(pool)
                .await?;
                self.set_online(true, None).await?;
                summary.done += 1;
                Ok(None)
            }
            Answer::Rejected { status, message } => {
                let http = (*status > 0).then_some(i64::from(*status));
                let text = match http {
                    Some(s) => format!("portal answered {s}: {message}"),
                    None => message.clone(),
                };
                self.finish(item, "failed", http, &text, &at).await?;
                if item.kind == items::KIND_ATTACHMENT {
                    self.block_reports(item, &text, &at).await?;
                }
                summary.failed += 1;
                Ok(None)
            }
            Answer::Conflict { status, body } => {
                let local: Value = serde_json::from_str(&item.payload).unwrap_or_default();
                let portal: Value =
                    serde_json::from_str(body).unwrap_or_else(|_| Value::String(body.clone()));
                let text = json!({
                    "message": format!(
                        "conflict: the portal keeps revision {} and this is revision {}",
                        portal.get("stored_revision").unwrap_or(&Value::Null),
                        local.get("revision").unwrap_or(&Value::Null)
                    ),
                    "local_revision": local.get("revision"),
                    "portal": portal,
                })
                .to_string();
                self.finish(item, "conflict", Some(i64::from(*status)), &text, &at)
                    .await?;
                summary.conflicts += 1;
                Ok(None)
            }
            Answer::Unauthorized { status, message } => {
                let reason = format!(
                    "the portal refused the credentials ({status}: {message}); sync is paused \
                     until the token changes"
                );
                settings::set_json(
                    pool,
                    settings::KEY_PAUSE,
                    &Pause {
                        reason: reason.clone(),
                        token_fp: credentials::fingerprint(token),
                        at: at.clone(),
                    },
                )
                .await?;
                sqlx::query(
                    "UPDATE outbox SET http_status = ?, last_error = ?, updated_at = ?
                     WHERE id = ? AND status = 'pending'",
                )
                .bind(i64::from(*status))
                .bind(format!("paused: {reason}"))
                .bind(&at)
                .bind(&item.id)
                .execute(pool)
                .await?;
                self.set_online(true, None).await?;
                Ok(Some(Stopped::Paused(reason)))
            }
            Answer::Retry {
                status,
                retry_after,
                message,
            } => {
                let delay =
                    retry_after.unwrap_or_else(|| backoff_delay(&self.cfg, item.attempts as u32));
                let text = match status {
                    Some(s) => format!("will retry: portal answered {s}: {message}"),
                    None => format!("will retry: {message}"),
                };
                self.reschedule(item, status.map(i64::from), &text, delay)
                    .await?;
                summary.retried += 1;
                Ok(None)
            }
            Answer::Unreachable { message } => {
                let delay = backoff_delay(&self.cfg, item.attempts as u32);
                let text = format!("portal unreachable: {message}");
                self.reschedule(item, None, &text, delay).await?;
                self.set_online(false, Some(message.clone())).await?;
                summary.retried += 1;
                Ok(Some(Stopped::Offline(text)))
            }
        }
    }

    async fn finish(
        &self,
        item: &Item,
        status: &str,
        http: Option<i64>,
        text: &str,
        at: &str,
    ) -> Result<(), SyncError> {
        sqlx::query(
            "UPDATE outbox SET status = ?, attempts = attempts + 1, http_status = ?,
                    last_error = ?, updated_at = ?, next_attempt_at = NULL
             WHERE id = ? AND status = 'pending'",
        )
        .bind(status)
        .bind(http)
        .bind(text)
        .bind(at)
        .bind(&item.id)
        .execute(self.pool())
        .await?;
        tracing::warn!(item = %item.id, kind = %item.kind, "outbox item {status}: {text}");
        Ok(())
    }

    /// A refused photo holds back the session's reports that reference it
    /// (and what the session queued after them): each says why.
    async fn block_reports(&self, photo: &Item, text: &str, at: &str) -> Result<(), SyncError> {
        let payload: Value = serde_json::from_str(&photo.payload).unwrap_or_default();
        let sha = payload["sha256"].as_str().unwrap_or_default();
        let name = payload["filename"].as_str().unwrap_or("photo");
        let reason = format!(
            "blocked: photo {name} ({sha}) was not sent ({text}); the report waits for it \
             (after fixing it, run `servicedesk sync retry {}`)",
            photo.id
        );
        // IMMEDIATE: it reads before it writes (a deferred BEGIN fails at
        // once with SQLITE_BUSY instead of waiting).
        let mut tx = self.pool().begin_with("BEGIN IMMEDIATE").await?;
        let first: Option<i64> = sqlx::query_scalar(
            "SELECT MIN(o.seq) FROM outbox o, json_each(o.payload, '$.attachments') j
             WHERE o.status = 'pending' AND o.kind = 'report'
               AND o.session_id IS (SELECT session_id FROM outbox WHERE id = ?1)
               AND json_extract(j.value, '$.sha256') = ?2",
        )
        .bind(&photo.id)
        .bind(sha)
        .fetch_one(&mut *tx)
        .await?;
        if let Some(first) = first {
            sqlx::query(
                "UPDATE outbox SET last_error = ?1, updated_at = ?2
                 WHERE status = 'pending' AND kind = 'report'
                   AND session_id IS (SELECT session_id FROM outbox WHERE id = ?3)
                   AND EXISTS (SELECT 1 FROM json_each(payload, '$.attachments') j
                               WHERE json_extract(j.value, '$.sha256') = ?4)",
            )
            .bind(&reason)
            .bind(at)
            .bind(&photo.id)
            .bind(sha)
            .execute(&mut *tx)
            .await?;
            sqlx::query(
                "UPDATE outbox SET last_error = ?1, updated_at = ?2
                 WHERE status = 'pending' AND seq > ?3 AND last_error IS NULL
                   AND session_id IS (SELECT session_id FROM outbox WHERE id = ?4)",
            )
            .bind(format!(
                "waiting: an earlier report of this session is blocked by photo {name} ({sha})"
            ))
            .bind(at)
            .bind(first)
            .bind(&photo.id)
            .execute(&mut *tx)
            .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    async fn reschedule(
        &self,
        item: &Item,
        http: Option<i64>,
        text: &str,
        delay: Duration,
    ) -> Result<(), SyncError> {
        let next = chrono::Utc::now()
            + chrono::Duration::from_std(delay).unwrap_or(chrono::Duration::seconds(300));
        let next = next.to_rfc3339_opts(chrono::SecondsFormat::Millis, true);
        sqlx::query(
            "UPDATE outbox SET attempts = attempts + 1, http_status = ?, last_error = ?,
                    next_attempt_at = ?, updated_at = ?
             WHERE id = ? AND status = 'pending'",
        )
        .bind(http)
        .bind(text)
        .bind(&next)
        .bind(now())
        .bind(&item.id)
        .execute(self.pool())
        .await?;
        tracing::debug!(item = %item.id, "outbox item retry at {next}: {text}");
        Ok(())
    }

    async fn set_online(&self, online: bool, reason: Option<String>) -> Result<(), SyncError> {
        let new = if online { ONLINE_YES } else { ONLINE_NO };
        if self.online.swap(new, Ordering::SeqCst) == new {
            return Ok(());
        }
        settings::set_json(
            self.pool(),
            settings::KEY_ONLINE,
            &Online {
                online,
                at: now(),
                reason,
            },
        )
        .await?;
        if online {
            // Back online: what waited only because the portal was away is due now.
            sqlx::query(
                "UPDATE outbox SET next_attempt_at = NULL
                 WHERE status = 'pending' AND last_error LIKE 'portal unreachable:%'",
            )
            .execute(self.pool())
            .await?;
        }
        Ok(())
    }

    /// Probe `GET /api/v1/health`: true when the portal answers 200.
    pub async fn probe(&self) -> Result<bool, SyncError> {
        let (client, token) = match self.ready().await? {
            Ok(ready) => ready,
            Err(_) => return Ok(false),
        };
        match client.health(&token).await {
            Answer::Ok { .. } => {
                self.set_online(true, None).await?;
                Ok(true)
            }
            Answer::Unauthorized { status, message } => {
                let reason = format!(
                    "the portal refused the credentials ({status}: {message}); sync is paused \
                     until the token changes"
                );
                settings::set_json(
                    self.pool(),
                    settings::KEY_PAUSE,
                    &Pause {
                        reason,
                        token_fp: credentials::fingerprint(&token),
                        at: now(),
                    },
                )
                .await?;
                self.set_online(true, None).await?;
                Ok(false)
            }
            Answer::Unreachable { message } | Answer::Retry { message, .. } => {
                self.set_online(false, Some(message)).await?;
                Ok(false)
            }
            Answer::Rejected { message, .. } | Answer::Conflict { body: message, .. } => {
                self.set_online(false, Some(message)).await?;
                Ok(false)
            }
        }
    }

    /// Deliver everything deliverable: passes, waiting for backoff and for
    /// the portal to come back, until nothing is pending, sync is paused or
    /// not configured, or `max_wait` has passed.
    pub async fn run_until_idle(&self, max_wait: Duration) -> Result<PassSummary, SyncError> {
        let deadline = Instant::now() + max_wait;
        let mut total = PassSummary::default();
        loop {
            let pass = self.pass().await?;
            total.add(&pass);
            match pass.stopped {
                Some(Stopped::NotConfigured(_) | Stopped::NoToken(_) | Stopped::Paused(_)) => break,
                Some(Stopped::Offline(_)) => {
                    // Probe until the portal is back or time is up.
                    loop {
                        if Instant::now() >= deadline {
                            return Ok(total);
                        }
                        let wait = self
                            .cfg
                            .backoff_base
                            .max(Duration::from_millis(10))
                            .min(deadline.saturating_duration_since(Instant::now()));
                        tokio::time::sleep(wait).await;
                        if self.probe().await? {
                            break;
                        }
                    }
                    continue;
                }
                None => {}
            }
            let Some(next) = self.next_due().await? else {
                total.stopped = None;
                break;
            };
            if Instant::now() >= deadline {
                break;
            }
            let wait = next
                .and_then(|n| chrono::DateTime::parse_from_rfc3339(&n).ok())
                .map(|n| (n.with_timezone(&chrono::Utc) - chrono::Utc::now()).to_std())
                .and_then(Result::ok)
                .unwrap_or(Duration::from_millis(1))
                .max(Duration::from_millis(1))
                .min(deadline.saturating_duration_since(Instant::now()));
            tokio::time::sleep(wait).await;
        }
        Ok(total)
    }

    /// The background loop. Passes while there is work; while offline, a
    /// `/health` probe every probe interval until the portal answers, then
    /// delivery resumes by itself; while idle, a probe every probe interval.
    /// A commit that queues items wakes it at once (`Desk::outbox_changed`);
    /// a look every poll interval catches items queued by another process
    /// (the CLI) and credentials changed outside the app.
    pub async fn run_forever(self) {
        let mut last_probe = Instant::now();
        loop {
            let wait = match self.pass().await {
                Ok(pass) => match pass.stopped {
                    Some(Stopped::Offline(_)) => {
                        // New items do not bring the portal back: only probes.
                        loop {
                            tokio::time::sleep(self.cfg.probe_interval).await;
                            last_probe = Instant::now();
                            match self.probe().await {
                                Ok(true) => break,
                                Ok(false) => {}
                                Err(e) => tracing::error!("sync probe failed: {e}"),
                            }
                            if self.online.load(Ordering::SeqCst) != ONLINE_NO {
                                // Reachable but refusing the token, or not
                                // configured: the pass says which.
                                break;
                            }
                        }
                        continue;
                    }
                    Some(_) => self.cfg.poll_interval,
                    None => {
                        let next = self.next_due().await;
                        if matches!(next, Ok(None))
                            && last_probe.elapsed() >= self.cfg.probe_interval
                        {
                            if let Err(e) = self.probe().await {
                                tracing::error!("sync probe failed: {e}");
                            }
                            last_probe = Instant::now();
                        }
                        match next {
                            Ok(Some(Some(at))) => chrono::DateTime::parse_from_rfc3339(&at)
                                .ok()
                                .and_then(|n| {
                                    (n.with_timezone(&chrono::Utc) - chrono::Utc::now())
                                        .to_std()
                                        .ok()
                                })
                                .unwrap_or(Duration::ZERO)
                                .min(self.cfg.poll_interval),
                            Ok(Some(None)) => Duration::ZERO,
                            _ => self.cfg.poll_interval.min(self.cfg.probe_interval),
                        }
                    }
                },
                Err(e) => {
                    tracing::error!("sync pass failed: {e}");
                    self.cfg.poll_interval
                }
            };
            tokio::select! {
                _ = tokio::time::sleep(wait.max(Duration::from_millis(5))) => {}
                _ = self.wake.notified() => {}
            }
        }
    }
}

/// Start the background sync worker for a Desk (the desktop app, `serve`).
/// It needs a Tokio runtime; abort the handle to stop it.
pub fn spawn_worker(desk: Desk) -> tokio::task::JoinHandle<()> {
    spawn_worker_with(Syncer::new(desk, SyncConfig::default()))
}

pub fn spawn_worker_with(syncer: Syncer) -> tokio::task::JoinHandle<()> {
    tokio::spawn(syncer.run_forever())
}

/// The portal base URL: `SERVICEDESK_PORTAL_URL`, else the settings.
pub async fn portal_url(desk: &Desk) -> Result<Option<String>, SyncError> {
    if let Some(url) = std::env::var(URL_ENV).ok().filter(|u| !u.trim().is_empty()) {
        return Ok(Some(url));
    }
    Ok(settings::get(desk.store().pool(), settings::KEY_PORTAL_URL).await?)
}

/// Save the portal base URL (validated: https, or http on loopback).
pub async fn set_portal_url(desk: &Desk, url: &str) -> Result<String, SyncError> {
    let parsed = validate_url(url)?;
    let text = parsed.as_str().trim_end_matches('/').to_owned();
    settings::set(desk.store().pool(), settings::KEY_PORTAL_URL, &text).await?;
    Ok(text)
}

/// Where sync stands, for the UI and `sync status`.
pub async fn status(desk: &Desk, tokens: &TokenSource) -> Result<SyncStatus, SyncError> {
    let pool = desk.store().pool();
    let at = now();
    let (pending, blocked, syncing, failed, conflicts, done): (i64, i64, i64, i64, i64, i64) =
        sqlx::query_as(&format!(
            "SELECT COALESCE(SUM(o.status = 'pending'), 0),
                    COALESCE(SUM(o.status = 'pending' AND (o.last_error LIKE 'blocked: %'
                                                         OR o.last_error LIKE 'waiting: %')), 0),
                    -- CASE, not AND: in a value SQLite evaluates both sides of
                    -- an AND, so NOT_BLOCKED's JSON scan ran for every report:
                    -- 83 ms of every poll on an outbox of 12,000 items, now 28
                    -- (`cargo bench --bench sync_deliver -- sync_status`).
                    COALESCE(SUM(CASE WHEN o.status = 'pending'
                                      AND (o.next_attempt_at IS NULL OR o.next_attempt_at <= ?)
                                      AND {HEAD}
                                 THEN {NOT_BLOCKED} ELSE 0 END), 0),
                    COALESCE(SUM(o.status = 'failed'), 0),
                    COALESCE(SUM(o.status = 'conflict'), 0),
                    COALESCE(SUM(o.status = 'done'), 0)
             FROM outbox o"
        ))
        .bind(&at)
        .fetch_one(pool)
        .await?;
    let last_success: Option<String> =
        sqlx::query_scalar("SELECT MAX(done_at) FROM outbox WHERE status = 'done'")
            .fetch_one(pool)
            .await?;
    let problems: Vec<ItemInfo> = sqlx::query_as(
        "SELECT id, session_id, kind, target, status, attempts, next_attempt_at, last_error,
                http_status, created_at
         FROM outbox WHERE status IN ('failed', 'conflict')
            OR (status = 'pending' AND last_error IS NOT NULL)
         ORDER BY seq LIMIT 200",
    )
    .fetch_all(pool)
    .await?;
    let url = portal_url(desk).await?;
    let tokens = tokens.clone();
    let token = tokio::task::spawn_blocking(move || tokens.current())
        .await
        .map_err(|e| SyncError::Join(e.to_string()))?;
    let token_set = matches!(token, Ok(Some(_)));
    let pause = settings::get_json::<Pause>(pool, settings::KEY_PAUSE).await?;
    // A pause holds only while the token is the one that was refused.
    let paused = match (&pause, &token) {
        (Some(p), Ok(Some((t, _)))) if p.token_fp == credentials::fingerprint(t) => {
            Some(p.reason.clone())
        }
        _ => None,
    };
    let online = settings::get_json::<Online>(pool, settings::KEY_ONLINE)
        .await?
        .map(|o| o.online);
    let state = if url.is_none() || !token_set {
        SyncState::NotConfigured
    } else if paused.is_some() {
        SyncState::Paused
    } else {
        match online {
            Some(true) => SyncState::Online,
            Some(false) => SyncState::Offline,
            None => SyncState::Unknown,
        }
    };
    Ok(SyncStatus {
        state,
        online,
        paused,
        portal_url: url,
        token_set,
        pending,
        syncing,
        waiting: pending - syncing - blocked,
        blocked,
        failed,
        conflicts,
        done,
        last_success,
        problems,
    })
}

/// Put a failed or conflicting item back in the queue (same Idempotency-Key).
pub async fn retry(desk: &Desk, item_id: &str) -> Result<ItemInfo, SyncError> {
    let pool = desk.store().pool();
    let changed = sqlx::query(
        "UPDATE outbox SET status = 'pending', next_attempt_at = NULL, last_error = NULL,
                updated_at = ?
         WHERE id = ? AND status IN ('failed', 'conflict')",
    )
    .bind(now())
    .bind(item_id)
    .execute(pool)
    .await?
    .rows_affected();
    let info: Option<ItemInfo> = sqlx::query_as(
        "SELECT id, session_id, kind, target, status, attempts, next_attempt_at, last_error,
                http_status, created_at FROM outbox WHERE id = ?",
    )
    .bind(item_id)
    .fetch_optional(pool)
    .await?;
    let info = info.ok_or_else(|| SyncError::NotFound(item_id.to_owned()))?;
    if changed > 0 && info.kind == items::KIND_ATTACHMENT {
        // What the photo held back goes out after it.
        sqlx::query(
            "UPDATE outbox SET last_error = NULL, updated_at = ?
             WHERE status = 'pending' AND session_id IS ?
               AND (last_error LIKE 'blocked: photo %' OR last_error LIKE 'waiting: %')",
        )
        .bind(now())
        .bind(&info.session_id)
        .execute(pool)
        .await?;
    }
    if changed == 0 {
        return Err(SyncError::Invalid(format!(
            "outbox item {item_id} is {}; only failed or conflict items are retried",
            info.status
        )));
    }
    Ok(info)
}
