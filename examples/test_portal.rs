//! The loopback test portal (crates/test-portal) as a program, for browser tests
//! and manual runs:
//!
//! ```text
//! cargo run --example test_portal -- [--port 0] [--token T] [--seed N] [--stall-ms MS]
//! ```
//!
//! Prints one line, `listening http://127.0.0.1:PORT token TOKEN`, then
//! serves until killed. It implements the portal contract
//! (`docs/spec/portal.md`) and has control endpoints to inject faults and
//! read what it received and stored: see the top of `crates/test-portal/src/lib.rs`
//! (`GET /control/stats`, `POST /control/faults|token|offline|seed_report`).
//! Deterministic: the token defaults to `test-portal-token`, random faults
//! come from `--seed` (default 7), nothing is faulted until asked.

use servicedesk_test_portal as portal;

use std::io::Write;
use std::time::Duration;

fn usage(msg: &str) -> ! {
    eprintln!(
        "error: {msg}\nusage: test_portal [--port PORT] [--token TOKEN] [--seed N] [--stall-ms MS]"
    );
    std::process::exit(2)
}

fn main() {
    let mut port: u16 = 0;
    let mut token = "test-portal-token".to_owned();
    let mut seed: u64 = 7;
    let mut stall_ms: u64 = 2_000;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = |name: &str| {
            args.next()
                .unwrap_or_else(|| usage(&format!("{name} needs a value")))
        };
        match arg.as_str() {
            "--port" => {
                port = value("--port")
                    .parse()
                    .unwrap_or_else(|_| usage("--port: a number from 0 to 65535"))
            }
            "--token" => {
                token = value("--token");
                if token.is_empty() {
                    usage("--token must not be empty");
                }
            }
            "--seed" => {
                seed = value("--seed")
                    .parse()
                    .unwrap_or_else(|_| usage("--seed: a whole number"))
            }
            "--stall-ms" => {
                stall_ms = value("--stall-ms")
                    .parse()
                    .unwrap_or_else(|_| usage("--stall-ms: a whole number of milliseconds"))
            }
            "-h" | "--help" => {
                println!(
                    "usage: test_portal [--port PORT] [--token TOKEN] [--seed N] [--stall-ms MS]"
                );
                return;
            }
            other => usage(&format!("unknown argument {other:?}")),
        }
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap_or_else(|e| usage(&format!("cannot start the async runtime: {e}")));
    rt.block_on(async move {
        let listener = match tokio::net::TcpListener::bind(("127.0.0.1", port)).await {
            Ok(l) => l,
            Err(e) => usage(&format!("cannot listen on 127.0.0.1:{port}: {e}")),
        };
        let portal =
            portal::Portal::start_with(listener, &token, Duration::from_millis(stall_ms), seed);
        println!("listening {} token {token}", portal.url());
        let _ = std::io::stdout().flush();
        // Serve until killed (SIGINT/SIGTERM end it quietly).
        let _ = tokio::signal::ctrl_c().await;
        drop(portal);
    });
}
