//! The portal token: in the OS keyring, or in `SERVICEDESK_PORTAL_TOKEN` for
//! headless use. The keyring is the Credential Manager on Windows, the
//! Keychain on macOS, and on Linux the desktop's Secret Service (GNOME
//! Keyring, KWallet) when the session has one, else the kernel keyutils
//! (headless machines, SSH sessions; run under `keyctl session -` when the
//! process has no session keyring of its own). The Linux choice is made once
//! per process: no D-Bus session bus (`DBUS_SESSION_BUS_ADDRESS` unset) means
//! keyutils; otherwise a lookup in the Secret Service decides (it answers,
//! even "no such item": Secret Service; it fails: keyutils). It is never written to the
//! database, a log, an outbox payload or an export; what is shown of it is
//! whether one is set and its last four characters.

use std::path::Path;
use std::sync::{Arc, RwLock};
use ts_rs::TS;

use sha2::{Digest, Sha256};

use super::SyncError;

pub const TOKEN_ENV: &str = "SERVICEDESK_PORTAL_TOKEN";
pub const URL_ENV: &str = "SERVICEDESK_PORTAL_URL";
const SERVICE: &str = "com.RVServiceDesk.ServiceDesk.portal";

/// Where the worker reads the token from, each time it needs it (so a new
/// token is picked up without a restart).
#[derive(Clone)]
pub enum TokenSource {
    /// `SERVICEDESK_PORTAL_TOKEN`, else the keyring entry of this data dir.
    Auto { account: String },
    /// A token held in memory (tests, and front ends that manage their own).
    Fixed(Arc<RwLock<Option<String>>>),
}

impl std::fmt::Debug for TokenSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TokenSource::Auto { account } => write!(f, "TokenSource::Auto({account})"),
            TokenSource::Fixed(_) => f.write_str("TokenSource::Fixed(..)"),
        }
    }
}

/// Which store holds the token, for status displays.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, TS)]
#[serde(rename_all = "kebab-case")]
pub enum TokenStore {
    /// Linux desktop keyring over D-Bus (GNOME Keyring, KWallet).
    SecretService,
    /// The Linux kernel key retention service (headless fallback).
    Keyutils,
    /// macOS Keychain.
    Keychain,
    /// Windows Credential Manager.
    CredentialManager,
    /// Held in memory by the process (tests, front ends managing their own).
    Memory,
}

impl TokenStore {
    pub fn as_str(&self) -> &'static str {
        match self {
            TokenStore::SecretService => "secret-service",
            TokenStore::Keyutils => "keyutils",
            TokenStore::Keychain => "keychain",
            TokenStore::CredentialManager => "credential-manager",
            TokenStore::Memory => "memory",
        }
    }
}

/// The OS store this process keeps tokens in (probed once on Linux).
pub fn os_store() -> TokenStore {
    #[cfg(target_os = "linux")]
    {
        static CHOSEN: std::sync::OnceLock<TokenStore> = std::sync::OnceLock::new();
        *CHOSEN.get_or_init(linux_probe)
    }
    #[cfg(target_os = "macos")]
    {
        TokenStore::Keychain
    }
    #[cfg(windows)]
    {
        TokenStore::CredentialManager
    }
    #[cfg(not(any(target_os = "linux", target_os = "macos", windows)))]
    {
        TokenStore::Memory
    }
}

#[cfg(target_os = "linux")]
fn linux_probe() -> TokenStore {
    use keyring::credential::CredentialApi;
    let bus = std::env::var_os("DBUS_SESSION_BUS_ADDRESS").filter(|a| !a.is_empty());
    if bus.is_none() {
        tracing::debug!("no D-Bus session bus: the portal token lives in kernel keyutils");
        return TokenStore::Keyutils;
    }
    let probe = keyring::secret_service::SsCredential::new_with_target(None, SERVICE, "probe")
        .and_then(|c| c.get_password());
    match probe {
        Ok(_) | Err(keyring::Error::NoEntry) => TokenStore::SecretService,
        Err(e) => {
            tracing::info!(
                "Secret Service not usable ({e}): the portal token lives in kernel keyutils"
            );
            TokenStore::Keyutils
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum TokenOrigin {
    Env,
    Keyring,
    Memory,
}

impl TokenSource {
    /// The keyring entry of a data dir: one token per data dir.
    pub fn for_data_dir(data_dir: &Path) -> Self {
        let dir = data_dir
            .canonicalize()
            .unwrap_or_else(|_| data_dir.to_path_buf());
        TokenSource::Auto {
            account: format!("portal-token:{}", dir.display()),
        }
    }

    pub fn fixed(token: Option<&str>) -> Self {
        TokenSource::Fixed(Arc::new(RwLock::new(token.map(str::to_owned))))
    }

    /// Where tokens are kept: the OS store for `Auto`, memory for `Fixed`.
    pub fn store_kind(&self) -> TokenStore {
        match self {
            TokenSource::Fixed(_) => TokenStore::Memory,
            TokenSource::Auto { .. } => os_store(),
        }
    }

    /// Replace an in-memory token (does nothing for `Auto`).
    pub fn set_fixed(&self, token: Option<&str>) {
        if let TokenSource::Fixed(t) = self {
            *t.write().unwrap_or_else(|e| e.into_inner()) = token.map(str::to_owned);
        }
    }

    /// The token in force and where it came from. Blocking (keyring I/O).
    pub fn current(&self) -> Result<Option<(String, TokenOrigin)>, SyncError> {
        match self {
            TokenSource::Fixed(t) => Ok(t
                .read()
                .unwrap_or_else(|e| e.into_inner())
                .clone()
                .filter(|t| !t.is_empty())
                .map(|t| (t, TokenOrigin::Memory))),
            TokenSource::Auto { account } => {
                if let Some(t) = std::env::var(TOKEN_ENV).ok().filter(|t| !t.is_empty()) {
                    return Ok(Some((t, TokenOrigin::Env)));
                }
                Ok(keyring_get(account)?.map(|t| (t, TokenOrigin::Keyring)))
            }
        }
    }

    /// Store a token: in the keyring for `Auto`, in memory for `Fixed`.
    pub fn store(&self, token: &str) -> Result<(), SyncError> {
        match self {
            TokenSource::Fixed(_) => {
                self.set_fixed(Some(token));
                Ok(())
            }
            TokenSource::Auto { account } => keyring_set(account, token),
        }
    }

    pub fn clear(&self) -> Result<(), SyncError> {
        match self {
            TokenSource::Fixed(_) => {
                self.set_fixed(None);
                Ok(())
            }
            TokenSource::Auto { account } => keyring_delete(account),
        }
    }
}

/// A short one-way fingerprint of a token, to notice that the credentials
/// changed since sync was paused. Not the token, and not reversible.
pub fn fingerprint(token: &str) -> String {
    let digest = Sha256::digest(format!("servicedesk-pause:{token}").as_bytes());
    hex::encode(&digest[..6])
}

/// The last four characters of a token, for "a token ending in …".
pub fn last4(token: &str) -> String {
    let chars: Vec<char> = token.chars().collect();
    if chars.len() < 12 {
        // A short token would be given away by four of its characters.
        return String::new();
    }
    chars[chars.len() - 4..].iter().collect()
}

fn keyring_error(e: keyring::Error) -> SyncError {
    SyncError::Keyring(format!(
        "{} {e} (on a Linux machine without a desktop session, run under `keyctl session -` \
         or set {TOKEN_ENV})",
        os_store().as_str()
    ))
}

/// The keyring entry of an account, in the store `os_store` chose.
fn entry(account: &str) -> Result<keyring::Entry, SyncError> {
    #[cfg(target_os = "linux")]
    {
        let credential: Box<keyring::credential::Credential> = match os_store() {
            TokenStore::SecretService => Box::new(
                keyring::secret_service::SsCredential::new_with_target(None, SERVICE, account)
                    .map_err(keyring_error)?,
            ),
            _ => Box::new(
                keyring::keyutils::KeyutilsCredential::new_with_target(None, SERVICE, account)
                    .map_err(keyring_error)?,
            ),
        };
        Ok(keyring::Entry::new_with_credential(credential))
    }
    #[cfg(not(target_os = "linux"))]
    {
        keyring::Entry::new(SERVICE, account).map_err(keyring_error)
    }
}

fn keyring_get(account: &str) -> Result<Option<String>, SyncError> {
    let entry = entry(account)?;
    match entry.get_password() {
        Ok(t) => Ok(Some(t)),
        Err(keyring::Error::NoEntry) => Ok(None),
        Err(e) => Err(keyring_error(e)),
    }
}

fn keyring_set(account: &str, token: &str) -> Result<(), SyncError> {
    entry(account)?.set_password(token).map_err(keyring_error)
}

fn keyring_delete(account: &str) -> Result<(), SyncError> {
    let entry = entry(account)?;
    match entry.delete_credential() {
        Ok(()) | Err(keyring::Error::NoEntry) => Ok(()),
        Err(e) => Err(keyring_error(e)),
    }
}
