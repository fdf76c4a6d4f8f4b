//! The context engine: the session state aggregate, the procedure catalog,
//! and the pure turn function that routes a message, fires one transition
//! class and writes the reply.

/// A case-insensitive pattern of the engine's own words, compiled on first
/// use: `pattern!(pub NAME, r"...")`.
macro_rules! pattern {
    ($(#[$meta:meta])* $vis:vis $name:ident, $p:expr) => {
        $(#[$meta])*
        $vis static $name: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
            regex::Regex::new(&format!("(?i){}", $p)).expect("engine patterns compile")
        });
    };
}

pub mod catalog;
pub mod eval;
pub mod extract;
pub mod idioms;
pub mod lexicon;
mod pattern_classes;
pub mod registry;
pub mod report;
pub mod shorthand;
pub mod spoken;
pub mod state;
pub mod translit;
pub mod turn;
pub mod understand;
pub mod units;
pub mod view;

pub use state::{SessionState, StateError, STATE_VERSION};
pub use turn::{Engine, Reply, ReplyKind, TurnContext, TurnOutcome};
