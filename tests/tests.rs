//! The core's integration tests, one binary with a module per area (as
//! ripgrep's `tests/tests.rs`): each test binary links the whole dependency
//! tree, so one binary instead of two dozen keeps a clean build's disk use
//! and link time small. Run one area with `cargo test --test tests AREA::`.

// Shared helpers.
#[path = "billing/check.rs"]
mod check;
mod common;
mod sync_seed;

// The loopback test portal is its own crate (crates/test-portal).
use servicedesk_test_portal as portal;

mod artifacts;
mod billing_calc;
mod billing_chat;
mod billing_cli;
mod billing_eval;
mod billing_oracle_props;
mod billing_scenarios;
mod billing_store;
mod bindings;
mod bounded_input;
mod cli_pipe;
mod conversations;
mod crash_safety;
mod engine_bad_input;
mod exports;
mod input_limits;
mod knowledge_pdf;
mod knowledge_store;
mod lanes;
mod loop_guard_props;
mod photo_markup;
mod purge_race;
mod repair_order_header;
mod repair_order_lines;
mod report_lifecycle;
mod serve_csrf;
mod serve_http;
mod store_roundtrip;
mod sync;
mod sync_faults;
mod write_contention;
