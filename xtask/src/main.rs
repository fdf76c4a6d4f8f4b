//! `cargo xtask run` / `cargo xtask test`: the two commands that set up and
//! run the project on a fresh machine. Dependency-free on purpose.

use std::process::{Command, ExitCode};
use std::time::Instant;

fn cargo() -> Command {
    Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()))
}

fn step(name: &str, mut cmd: Command) -> bool {
    println!("==> {name}");
    let start = Instant::now();
    let ok = cmd.status().map(|s| s.success()).unwrap_or(false);
    println!(
        "<== {name}: {} in {:.1}s",
        if ok { "ok" } else { "FAILED" },
        start.elapsed().as_secs_f64()
    );
    ok
}

fn test() -> ExitCode {
    let mut fmt = cargo();
    fmt.args(["fmt", "--all", "--check"]);
    let mut clippy = cargo();
    clippy.args([
        "clippy",
        "--workspace",
        "--all-targets",
        "--",
        "-D",
        "warnings",
    ]);
    let mut tests = cargo();
    tests.args(["test", "--workspace"]);
    let steps = [
        ("cargo fmt --check", fmt),
        ("cargo clippy -D warnings", clippy),
        ("cargo test", tests),
    ];
    let total = steps.len();
    let mut passed = 0;
    for (name, cmd) in steps {
        if !step(name, cmd) {
            println!("xtask: {passed} passed, 1 failed");
            return ExitCode::FAILURE;
        }
        passed += 1;
    }
    println!("xtask: {passed} passed, 0 failed (of {total} steps)");
    ExitCode::SUCCESS
}

fn run() -> ExitCode {
    // The desktop shell is not built yet (see the README); the same api and UI
    // are served over HTTP on 127.0.0.1.
    println!("Starting the RV Service Desk server; open the printed address in a browser (Ctrl-C to stop).");
    let mut serve = cargo();
    serve.args(["run", "--release", "--bin", "servicedesk", "--", "serve"]);
    if step("servicedesk serve", serve) {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

fn main() -> ExitCode {
    match std::env::args().nth(1).as_deref() {
        Some("test") => test(),
        Some("run") => run(),
        _ => {
            eprintln!("usage: cargo xtask <run|test>");
            ExitCode::from(2)
        }
    }
}
