//! Portal sync commands: `sync_status`, `sync_retry`, `portal_settings`.
//! The token goes into the OS keyring and never comes back out through the
//! api: only whether one is set, where from, and its last four characters.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::AppError;
use crate::desk::Desk;
use crate::sync::credentials::TokenStore;
use crate::sync::{self, ItemInfo, SyncError, SyncStatus, TokenOrigin, TokenSource};

impl From<SyncError> for AppError {
    fn from(e: SyncError) -> Self {
        let code = match &e {
            SyncError::Store(_) => "storage",
            SyncError::Invalid(_) => "invalid_input",
            SyncError::Keyring(_) => "keyring",
            SyncError::NotFound(_) => "not_found",
            SyncError::Join(_) => "internal",
        };
        match e {
            SyncError::Store(inner) => inner.into(),
            other => AppError::new(code, other.to_string()),
        }
    }
}

pub async fn sync_status(desk: &Desk) -> Result<SyncStatus, AppError> {
    Ok(sync::status(desk, &TokenSource::for_data_dir(desk.data_dir())).await?)
}

#[derive(Debug, Clone, Deserialize, TS)]
#[ts(optional_fields = nullable)]
#[serde(deny_unknown_fields)]
pub struct SyncRetryRequest {
    /// The outbox item's id (its Idempotency-Key).
    pub item: String,
}

pub async fn sync_retry(desk: &Desk, req: SyncRetryRequest) -> Result<ItemInfo, AppError> {
    Ok(sync::retry(desk, req.item.trim()).await?)
}

#[derive(Debug, Clone, Default, Deserialize, TS)]
#[ts(optional_fields = nullable)]
#[serde(deny_unknown_fields)]
pub struct PortalSettingsRequest {
    /// Set the portal base URL (https, or http on loopback).
    pub url: Option<String>,
    /// Store a new token in the OS keyring.
    pub token: Option<String>,
    /// Remove the token from the keyring.
    #[serde(default)]
    #[ts(optional = nullable)]
    pub clear_token: bool,
}

#[derive(Debug, Clone, Serialize, Deserialize, TS)]
pub struct PortalSettings {
    pub url: Option<String>,
    /// The URL comes from SERVICEDESK_PORTAL_URL, not the settings.
    pub url_from_env: bool,
    pub token_set: bool,
    /// env | keyring | memory
    pub token_origin: Option<TokenOrigin>,
    /// The token's last four characters (empty for short tokens); never the token.
    pub token_last4: Option<String>,
    /// Where a stored token is kept (Linux: Secret Service on a desktop,
    /// kernel keyutils when there is no D-Bus session or no provider).
    pub token_store: TokenStore,
    /// Why the keyring could not be read, if it could not.
    pub keyring_error: Option<String>,
}

/// Get, or set and get, the portal settings.
pub async fn portal_settings(
    desk: &Desk,
    req: PortalSettingsRequest,
) -> Result<PortalSettings, AppError> {
    portal_settings_with(desk, req, &TokenSource::for_data_dir(desk.data_dir())).await
}

pub async fn portal_settings_with(
    desk: &Desk,
    req: PortalSettingsRequest,
    tokens: &TokenSource,
) -> Result<PortalSettings, AppError> {
    // Check everything before changing anything: a login that fails leaves
    // the stored URL and token as they were.
    if let Some(url) = &req.url {
        sync::client::validate_url(url)?;
    }
    let setting_token = req.token.is_some();
    let token = req.token.map(|t| t.trim().to_owned());
    if token.as_deref() == Some("") {
        return Err(AppError::new("invalid_input", "token: must not be empty"));
    }
    let clear = req.clear_token;
    let src = tokens.clone();
    let current = tokio::task::spawn_blocking(move || {
        if clear {
            src.clear()?;
        }
        if let Some(t) = &token {
            src.store(t)?;
        }
        src.current()
    })
    .await
    .map_err(|e| AppError::new("internal", e.to_string()))?;
    let (token_set, token_origin, token_last4, keyring_error) = match current {
        Ok(Some((t, origin))) => (true, Some(origin), Some(sync::credentials::last4(&t)), None),
        Ok(None) => (false, None, None, None),
        // Storing failed: that is an error; reading back failed: say why.
        Err(e) if !setting_token && !clear => (false, None, None, Some(e.to_string())),
        Err(e) => return Err(e.into()),
    };
    // The token is stored: now the URL.
    if let Some(url) = &req.url {
        sync::set_portal_url(desk, url).await?;
    }
    Ok(PortalSettings {
        url: sync::portal_url(desk).await?,
        url_from_env: std::env::var(sync::URL_ENV).is_ok_and(|u| !u.trim().is_empty()),
        token_set,
        token_origin,
        token_last4,
        token_store: tokens.store_kind(),
        keyring_error,
    })
}
