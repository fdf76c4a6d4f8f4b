//! The Desk's operations for measuring and testing the store from a front
//! end, so the CLI never reaches the database or pool itself: the knowledge
//! eval (`knowledge::eval::run` over the Desk's store) and the latest state
//! snapshot of a session (what `dev write-turns` continues from).

use super::{Desk, Result};
use crate::engine::SessionState;
use crate::knowledge::eval::{self, Case, Metrics};
use crate::knowledge::index::SearchError;

impl Desk {
    /// Runs the knowledge eval's cases against this Desk's knowledge store,
    /// the top `k` results of each.
    pub async fn knowledge_eval(
        &self,
        cases: &[Case],
        k: usize,
    ) -> std::result::Result<Metrics, SearchError> {
        eval::run(self.store().pool(), cases, k).await
    }

    /// A session's newest state snapshot and the turn it was taken at (0
    /// before the first turn); an unknown session is `NotFound`.
    pub async fn latest_state(&self, session_id: &str) -> Result<(i64, SessionState)> {
        Ok(self.store().latest_state(session_id).await?)
    }
}
