//! Repair order commands: `ro_show`, `ro_line_save`, `ro_line_delete`,
//! `ro_line_authorize` (the answer to a line's estimate), `ro_settings`
//! (labor rates per pay type, tax).

use serde::Deserialize;
use ts_rs::TS;

use super::{AppError, SessionRef};
use crate::desk::repair_order::{
    RepairOrder, RoAuthorizeInput, RoLineInput, RoSettingsPatch, RoSettingsView,
};
use crate::desk::Desk;

#[derive(Debug, Clone, Deserialize, TS)]
#[ts(optional_fields = nullable)]
#[serde(deny_unknown_fields)]
pub struct RoLineSaveRequest {
    pub session_id: String,
    pub line: RoLineInput,
    /// Who makes the change, for the audit trail.
    #[serde(default)]
    pub edited_by: Option<String>,
}

#[derive(Debug, Clone, Deserialize, TS)]
#[ts(optional_fields = nullable)]
#[serde(deny_unknown_fields)]
pub struct RoLineAuthorizeRequest {
    pub session_id: String,
    pub authorization: RoAuthorizeInput,
    /// Who makes the change, for the audit trail.
    #[serde(default)]
    pub edited_by: Option<String>,
}

#[derive(Debug, Clone, Deserialize, TS)]
#[ts(optional_fields = nullable)]
#[serde(deny_unknown_fields)]
pub struct RoLineDeleteRequest {
    pub session_id: String,
    pub line_id: String,
    /// Who makes the change, for the audit trail.
    #[serde(default)]
    pub edited_by: Option<String>,
}

pub async fn ro_show(desk: &Desk, req: SessionRef) -> Result<RepairOrder, AppError> {
    Ok(desk.repair_order(&req.session_id).await?)
}

pub async fn ro_line_save(desk: &Desk, req: RoLineSaveRequest) -> Result<RepairOrder, AppError> {
    let by = super::blank_to_none(req.edited_by);
    Ok(desk
        .save_ro_line(&req.session_id, req.line, by.as_deref())
        .await?)
}

pub async fn ro_line_authorize(
    desk: &Desk,
    req: RoLineAuthorizeRequest,
) -> Result<RepairOrder, AppError> {
    let by = super::blank_to_none(req.edited_by);
    Ok(desk
        .authorize_ro_line(&req.session_id, req.authorization, by.as_deref())
        .await?)
}

pub async fn ro_line_delete(
    desk: &Desk,
    req: RoLineDeleteRequest,
) -> Result<RepairOrder, AppError> {
    let by = super::blank_to_none(req.edited_by);
    Ok(desk
        .delete_ro_line(&req.session_id, req.line_id.trim(), by.as_deref())
        .await?)
}

/// `shop_settings`: read (empty payload) or change the shop's name, address
/// and logo, printed at the top of every report PDF.
#[derive(Debug, Clone, Default, Deserialize, TS)]
#[ts(optional_fields = nullable)]
#[serde(deny_unknown_fields)]
pub struct ShopSettingsRequest {
    /// The shop's name; empty clears it.
    pub name: Option<String>,
    /// Its address, one line per address line; empty clears it.
    pub address: Option<String>,
    /// A PNG or JPEG, base64; at most 2 MiB.
    pub logo_base64: Option<String>,
    #[serde(default)]
    #[ts(optional = nullable)]
    pub remove_logo: bool,
}

pub async fn shop_settings(
    desk: &Desk,
    req: ShopSettingsRequest,
) -> Result<crate::desk::shop::ShopProfile, AppError> {
    use base64::Engine as _;
    let logo = match req.logo_base64 {
        Some(text) => Some(
            base64::engine::general_purpose::STANDARD
                .decode(text.trim().as_bytes())
                .map_err(|e| {
                    AppError::new("invalid_input", format!("logo_base64: is not base64: {e}"))
                })?,
        ),
        None => None,
    };
    Ok(desk
        .set_shop_profile(crate::desk::shop::ShopPatch {
            name: req.name,
            address: req.address,
            logo,
            remove_logo: req.remove_logo,
        })
        .await?)
}

/// Get, or change and get, the RO number's prefix and the money settings.
pub async fn ro_settings(desk: &Desk, req: RoSettingsPatch) -> Result<RoSettingsView, AppError> {
    Ok(desk.set_ro_settings(req).await?)
}
