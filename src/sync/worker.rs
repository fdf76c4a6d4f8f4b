//! The delivery loop: one pass sends each session's oldest due item, up to
//! `concurrency` sessions at once, and records every answer in the item's
//! row (`store::outbox_delivery`); passes repeat while there is work, and
//! `/health` probes tell when an unreachable portal is back.

use std::collections::HashSet;
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tokio::sync::Notify;

use super::client::{self, Answer, PortalClient};
use super::credentials::{self, TokenSource, TOKEN_ENV};
use super::{
    backoff_delay, portal_url, Online, PassSummary, Pause, Stopped, SyncConfig, SyncError,
};
use crate::desk::Desk;
use crate::store::outbox_delivery::{self as outbox, OutboxRow as Item, OutboxStatus};
use crate::store::{now, settings, OutboxKind, Timestamp};

pub(super) const ONLINE_UNKNOWN: u8 = 0;
pub(super) const ONLINE_YES: u8 = 1;
pub(super) const ONLINE_NO: u8 = 2;

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
        let skip: Vec<&String> = skip.iter().collect();
        Ok(outbox::due_heads(self.pool(), limit, &skip).await?)
    }

    /// The earliest next attempt among the sessions' first pending items
    /// that are not blocked (`Some(None)`: one is due now).
    async fn next_due(&self) -> Result<Option<Option<String>>, SyncError> {
        Ok(outbox::next_due(self.pool()).await?)
    }

    async fn deliver(&self, client: &PortalClient, token: &str, item: &Item) -> Answer {
        let body = if item.kind == OutboxKind::Attachment {
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
            .send(item.kind.method(), &item.target, body, &item.id, token)
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
                outbox::mark_done(pool, &item.id, i64::from(*status), at).await?;
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
                self.finish(item, OutboxStatus::Failed, http, &text, at)
                    .await?;
                if item.kind == OutboxKind::Attachment {
                    self.block_reports(item, &text, at).await?;
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
                self.finish(
                    item,
                    OutboxStatus::Conflict,
                    Some(i64::from(*status)),
                    &text,
                    at,
                )
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
                        at,
                    },
                )
                .await?;
                outbox::note_paused(
                    pool,
                    &item.id,
                    i64::from(*status),
                    &format!("paused: {reason}"),
                    at,
                )
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
        status: OutboxStatus,
        http: Option<i64>,
        text: &str,
        at: Timestamp,
    ) -> Result<(), SyncError> {
        outbox::finish(self.pool(), &item.id, status, http, text, at).await?;
        let status = status.as_str();
        tracing::warn!(item = %item.id, kind = %item.kind, "outbox item {status}: {text}");
        Ok(())
    }

    /// A refused photo holds back the session's reports that reference it
    /// (and what the session queued after them): each says why.
    async fn block_reports(
        &self,
        photo: &Item,
        text: &str,
        at: Timestamp,
    ) -> Result<(), SyncError> {
        let payload: Value = serde_json::from_str(&photo.payload).unwrap_or_default();
        let sha = payload["sha256"].as_str().unwrap_or_default();
        let name = payload["filename"].as_str().unwrap_or("photo");
        let reason = format!(
            "blocked: photo {name} ({sha}) was not sent ({text}); the report waits for it \
             (after fixing it, run `servicedesk sync retry {}`)",
            photo.id
        );
        let waiting = format!(
            "waiting: an earlier report of this session is blocked by photo {name} ({sha})"
        );
        outbox::block_reports(self.pool(), &photo.id, sha, &reason, &waiting, at).await?;
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
        let next = Timestamp::from(next);
        outbox::reschedule(self.pool(), &item.id, http, text, next).await?;
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
            outbox::release_unreachable(self.pool()).await?;
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
