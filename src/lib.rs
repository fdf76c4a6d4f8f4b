//! RV Service Desk core: everything the desktop app does, with no Tauri, no
//! UI and no global state. Front ends go through [`api::dispatch`] or
//! [`desk::Desk`]. See ARCHITECTURE.md for the map.

pub mod api;
pub mod artifacts;
pub mod billing;
pub mod conversation;
pub mod desk;
pub use servicedesk_engine as engine;
pub mod export;
pub mod files;
pub mod knowledge;
pub mod report_marks;
pub mod reports;
pub mod serve;
pub mod store;
pub mod sync;
pub mod vin;
pub use servicedesk_when as when;

pub use api::AppError;
pub use desk::Desk;
