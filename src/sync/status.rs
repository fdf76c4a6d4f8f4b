//! Where sync stands, for the indicator and `sync status`; the portal URL
//! setting; putting a failed item back in the queue.

use super::credentials::{self, TokenSource, URL_ENV};
use super::{
    validate_url, ItemInfo, Online, OutboxStatus, Pause, SyncError, SyncState, SyncStatus,
};
use crate::desk::Desk;
use crate::store::outbox_delivery as outbox;
use crate::store::{now, settings};

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
    let counts = outbox::counts(pool, at).await?;
    let last_success = outbox::last_success(pool).await?;
    let problems = outbox::problems(pool).await?;
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
        pending: counts.pending,
        syncing: counts.syncing,
        waiting: counts.pending - counts.syncing - counts.blocked,
        blocked: counts.blocked,
        failed: counts.failed,
        conflicts: counts.conflicts,
        done: counts.done,
        last_success,
        problems,
    })
}

/// Put a failed or conflicting item back in the queue (same Idempotency-Key).
pub async fn retry(desk: &Desk, item_id: &str) -> Result<ItemInfo, SyncError> {
    let (changed, info) = outbox::requeue(desk.store().pool(), item_id).await?;
    let info = info.ok_or_else(|| SyncError::NotFound(item_id.to_owned()))?;
    if !changed {
        return Err(SyncError::Invalid(format!(
            "outbox item {item_id} is {}; only failed or conflict items are retried",
            info.status.as_str()
        )));
    }
    debug_assert_eq!(info.status, OutboxStatus::Pending);
    Ok(info)
}
