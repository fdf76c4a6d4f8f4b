//! `AppError`: the one error that crosses every boundary (Tauri IPC, HTTP,
//! CLI). A stable snake_case `code` for programs, a one-line `message` for
//! people.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use crate::artifacts::ArtifactError;
use crate::billing::store::BillingStoreError;
use crate::billing::BillingError;
use crate::desk::DeskError;
use crate::files::ReadError;
use crate::store::StoreError;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error, TS)]
#[error("{code}: {message}")]
pub struct AppError {
    pub code: String,
    pub message: String,
}

impl AppError {
    pub fn new(code: &str, message: impl Into<String>) -> Self {
        Self {
            code: code.to_owned(),
            message: message.into(),
        }
    }

    /// The HTTP status a server should answer with.
    pub fn http_status(&self) -> u16 {
        match self.code.as_str() {
            "not_found" => 404,
            "unauthorized" => 401,
            "forbidden" | "server_path_refused" => 403,
            "unsupported_media_type" => 415,
            "timeout" => 408,
            "has_artifacts" | "conflict" => 409,
            "too_large" => 413,
            "artifact_missing" | "artifact_corrupt" => 410,
            "storage" | "internal" => 500,
            _ => 400,
        }
    }
}

impl From<ReadError> for AppError {
    fn from(e: ReadError) -> Self {
        AppError::new(e.code(), e.to_string())
    }
}

impl From<ArtifactError> for AppError {
    fn from(e: ArtifactError) -> Self {
        let code = match &e {
            ArtifactError::Empty(_) => "empty_file",
            ArtifactError::TooLarge { .. } => "too_large",
            ArtifactError::UnsupportedType { .. } => "unsupported_type",
            ArtifactError::UnreadablePath { .. } => "unreadable_path",
            ArtifactError::InvalidFileName { .. } => "invalid_file_name",
            ArtifactError::Missing { .. } => "artifact_missing",
            ArtifactError::Corrupt { .. } => "artifact_corrupt",
            ArtifactError::Io { .. } => "storage",
        };
        AppError::new(code, e.to_string())
    }
}

impl From<BillingError> for AppError {
    fn from(e: BillingError) -> Self {
        AppError::new(e.code(), e.to_string())
    }
}

impl From<BillingStoreError> for AppError {
    fn from(e: BillingStoreError) -> Self {
        AppError::new(e.code(), e.to_string())
    }
}

impl From<StoreError> for AppError {
    fn from(e: StoreError) -> Self {
        let e = match e {
            StoreError::Blob(b) => return b.into(),
            other => other,
        };
        let code = match &e {
            StoreError::NotFound { .. } => "not_found",
            StoreError::HasArtifacts { .. } => "has_artifacts",
            StoreError::Finalized { .. } => "invalid_input",
            StoreError::Blob(_) | StoreError::Join(_) => "internal",
            StoreError::Sqlx(_) | StoreError::Migrate(_) | StoreError::State { .. } => "storage",
        };
        AppError::new(code, e.to_string())
    }
}

impl From<DeskError> for AppError {
    fn from(e: DeskError) -> Self {
        match e {
            DeskError::Store(e) => e.into(),
            DeskError::Artifact(e) => e.into(),
            DeskError::Invalid { .. } => AppError::new("invalid_input", e.to_string()),
            DeskError::DataDir { .. }
            | DeskError::OpenDatabase { .. }
            | DeskError::EmptyDatabase { .. } => AppError::new("storage", e.to_string()),
            DeskError::Join(_) => AppError::new("internal", e.to_string()),
            DeskError::Catalog(_) => AppError::new("invalid_procedure", e.to_string()),
        }
    }
}
