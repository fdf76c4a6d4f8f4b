//! The shop as its documents name it (Settings): its name, address and
//! logo, printed at the top of every report PDF. The logo's bytes live in the
//! blob store (content-addressed, verified on read); the settings row names
//! its hash, which keeps the blob from being swept.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::{invalid, Desk, Result, MAX_NAME_CHARS};
use crate::store::settings;

/// A logo at most this big: a letterhead needs nothing like a photo's size.
pub const MAX_LOGO_BYTES: usize = 2 * 1024 * 1024;
const MAX_ADDRESS_CHARS: usize = 400;
const MAX_ADDRESS_LINES: usize = 5;

/// The shop's logo, as stored.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, TS)]
pub struct ShopLogo {
    pub sha256: String,
    pub mime: String,
}

/// The shop's name, address (one line per address line) and logo.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, TS)]
pub struct ShopProfile {
    pub name: Option<String>,
    pub address: Option<String>,
    pub logo: Option<ShopLogo>,
}

/// A change to the shop's profile: absent fields stay, an empty name or
/// address clears it; a logo given as bytes replaces the stored one.
#[derive(Debug, Clone, Default)]
pub struct ShopPatch {
    pub name: Option<String>,
    pub address: Option<String>,
    pub logo: Option<Vec<u8>>,
    pub remove_logo: bool,
}

impl Desk {
    pub async fn shop_profile(&self) -> Result<ShopProfile> {
        Ok(
            settings::get_json(self.store().pool(), settings::KEY_SHOP_PROFILE)
                .await?
                .unwrap_or_default(),
        )
    }

    /// The logo's verified bytes and type, if there is one (None when its
    /// blob is missing or damaged: the PDF then goes without it).
    pub async fn shop_logo(&self) -> Result<Option<(String, Vec<u8>)>> {
        let Some(logo) = self.shop_profile().await?.logo else {
            return Ok(None);
        };
        let blobs = self.blobs().clone();
        let bytes = tokio::task::spawn_blocking(move || blobs.get(&logo.sha256).ok())
            .await
            .map_err(|e| super::DeskError::Join(e.to_string()))?;
        Ok(bytes.map(|b| (logo.mime, b)))
    }

    /// Changes the profile: every field is checked before anything is
    /// stored (an error names the field); a new logo's bytes are durable in
    /// the blob store before the setting names them.
    pub async fn set_shop_profile(&self, patch: ShopPatch) -> Result<ShopProfile> {
        let mut profile = self.shop_profile().await?;
        if patch.name.is_none()
            && patch.address.is_none()
            && patch.logo.is_none()
            && !patch.remove_logo
        {
            return Ok(profile);
        }
        if let Some(name) = patch.name {
            let name = name.trim().to_owned();
            let chars = name.chars().count();
            if chars > MAX_NAME_CHARS {
                return Err(invalid(
                    "name",
                    format!("is {chars} characters long; at most {MAX_NAME_CHARS}"),
                ));
            }
            profile.name = (!name.is_empty()).then_some(name);
        }
        if let Some(address) = patch.address {
            let lines: Vec<&str> = address
                .lines()
                .map(str::trim)
                .filter(|l| !l.is_empty())
                .collect();
            let text = lines.join("\n");
            let chars = text.chars().count();
            if chars > MAX_ADDRESS_CHARS {
                return Err(invalid(
                    "address",
                    format!("is {chars} characters long; at most {MAX_ADDRESS_CHARS}"),
                ));
            }
            if lines.len() > MAX_ADDRESS_LINES {
                return Err(invalid(
                    "address",
                    format!("has {} lines; at most {MAX_ADDRESS_LINES}", lines.len()),
                ));
            }
            profile.address = (!text.is_empty()).then_some(text);
        }
        if patch.remove_logo {
            profile.logo = None;
        }
        let mut pin = None;
        if let Some(bytes) = patch.logo {
            if bytes.len() > MAX_LOGO_BYTES {
                return Err(invalid(
                    "logo",
                    format!(
                        "is {} bytes; at most {} (2 MiB)",
                        bytes.len(),
                        MAX_LOGO_BYTES
                    ),
                ));
            }
            // The type comes from the bytes; the page embeds PNG and JPEG.
            let mime = if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
                "image/png"
            } else if bytes.starts_with(&[0xFF, 0xD8, 0xFF]) {
                "image/jpeg"
            } else {
                return Err(invalid("logo", "is not a PNG or JPEG image"));
            };
            if crate::artifacts::decode_photo(&bytes).is_none() {
                return Err(invalid("logo", "does not decode as an image"));
            }
            let sha = crate::artifacts::sha256_hex(&bytes);
            // Pinned before the file is written, so a sweep keeps it until
            // the setting names it.
            pin = Some(self.store().pin_blobs(&[&sha]).await?);
            let blobs = self.blobs().clone();
            tokio::task::spawn_blocking(move || blobs.put(&bytes))
                .await
                .map_err(|e| super::DeskError::Join(e.to_string()))??;
            profile.logo = Some(ShopLogo {
                sha256: sha,
                mime: mime.to_owned(),
            });
        }
        settings::set_json(self.store().pool(), settings::KEY_SHOP_PROFILE, &profile).await?;
        if let Some(pin) = pin {
            self.store().unpin_blobs(&pin).await?;
        }
        Ok(profile)
    }
}
