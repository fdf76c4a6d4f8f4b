//! The context engine. For now it holds the session state aggregate that every
//! turn snapshots; the router, transitions and lanes build on it.

pub mod state;

pub use state::{SessionState, StateError, STATE_VERSION};
