//! `cargo xtask run` / `cargo xtask test`: the two commands that set up and
//! run the project on a fresh machine. Dependency-free on purpose: it must
//! build before anything else is installed.
//!
//! Also: `cargo xtask setup` (packages and UI build only), `cargo xtask e2e`
//! (browser tests of the served UI), `cargo xtask smoke` (the desktop app
//! under a virtual display).

mod setup;
mod smoke;

use std::path::PathBuf;
use std::process::{Command, ExitCode};
use std::time::Instant;

use setup::Need;

/// A step that failed; its output has already been printed.
#[derive(Debug)]
pub struct Failed(pub &'static str);

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("xtask lives in the workspace")
        .to_path_buf()
}

pub fn cargo() -> Command {
    let mut cmd = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cmd.current_dir(root());
    cmd
}

/// Runs one command, with its name and time printed around it.
pub fn step(name: &str, mut cmd: Command) -> Result<(), Failed> {
    println!("==> {name}");
    let start = Instant::now();
    let result = cmd.status();
    let ok = matches!(&result, Ok(s) if s.success());
    if let Err(e) = &result {
        eprintln!("xtask: cannot run {name}: {e}");
    }
    println!(
        "<== {name}: {} in {:.1}s",
        if ok { "ok" } else { "FAILED" },
        start.elapsed().as_secs_f64()
    );
    if ok {
        Ok(())
    } else {
        Err(Failed("step"))
    }
}

fn cargo_step(name: &str, args: &[&str]) -> Result<(), Failed> {
    let mut cmd = cargo();
    cmd.args(args);
    step(name, cmd)
}

/// The debug `servicedesk` and `servicedesk-desktop` binaries, built the way
/// `cargo test --workspace` builds them. A plain `cargo build --bin` resolves
/// dependency features without the dev-dependencies, so it would rebuild most
/// of the tree (typst included: about 11 minutes in CI) for the same code.
pub fn build_debug_bins() -> Result<(), Failed> {
    cargo_step(
        "cargo test --workspace --no-run (the debug binaries)",
        &["test", "--workspace", "--no-run"],
    )
}

fn e2e() -> Result<(), Failed> {
    build_debug_bins()?;
    let mut e2e = setup::npm_command(&["run", "e2e"]);
    e2e.env(
        "SERVICEDESK_BIN",
        root()
            .join("target/debug")
            .join(format!("servicedesk{}", std::env::consts::EXE_SUFFIX)),
    );
    step("browser tests (Playwright, system Chromium)", e2e)
}

fn test() -> Result<(), Failed> {
    setup::system_packages(Need::Test)?;
    // The shell embeds ui/dist at compile time, so the UI is built before clippy.
    setup::ui()?;
    // The UI's linter takes under a second: it runs before the Rust build so
    // that a finding fails the run in seconds, not after clippy and the tests.
    step("UI lint (oxlint)", setup::npm_command(&["run", "lint"]))?;
    cargo_step("cargo fmt --check", &["fmt", "--all", "--check"])?;
    cargo_step(
        "cargo clippy -D warnings",
        &[
            "clippy",
            "--workspace",
            "--all-targets",
            "--",
            "-D",
            "warnings",
        ],
    )?;
    cargo_step("cargo test (core, shell IPC)", &["test", "--workspace"])?;
    step("UI unit tests (vitest)", setup::npm_command(&["test"]))?;
    e2e()?;
    smoke::desktop()
}

fn has_display() -> bool {
    !cfg!(target_os = "linux")
        || std::env::var_os("DISPLAY").is_some()
        || std::env::var_os("WAYLAND_DISPLAY").is_some()
}

fn run() -> Result<(), Failed> {
    setup::system_packages(Need::Build)?;
    setup::ui()?;
    if has_display() {
        println!("Building and starting the RV Service Desk desktop app (release build; the first one takes several minutes).");
        return cargo_step(
            "RV Service Desk (desktop)",
            &[
                "run",
                "--release",
                "-p",
                "servicedesk-desktop",
                "--bin",
                "servicedesk-desktop",
            ],
        );
    }
    println!(
        "No display here (neither DISPLAY nor WAYLAND_DISPLAY is set), so the desktop window cannot open.\n\
         Serving the same app to a browser instead: open the address printed below (Ctrl-C to stop).\n\
         From another machine, use an SSH tunnel: ssh -L 8787:127.0.0.1:8787 THIS_HOST"
    );
    cargo_step(
        "servicedesk serve",
        &[
            "run",
            "--release",
            "--bin",
            "servicedesk",
            "--",
            "serve",
            "--ui-dir",
            &root().join("ui/dist").to_string_lossy(),
        ],
    )
}

fn main() -> ExitCode {
    let start = Instant::now();
    let result = match std::env::args().nth(1).as_deref() {
        Some("test") => test(),
        Some("run") => run(),
        Some("setup") => setup::system_packages(Need::Test).and_then(|_| setup::ui()),
        Some("e2e") => setup::ui().and_then(|_| e2e()),
        Some("smoke") => setup::ui().and_then(|_| smoke::desktop()),
        Some("measure") => setup::ui().and_then(|_| smoke::measure()),
        _ => {
            eprintln!("usage: cargo xtask <run|test|setup|e2e|smoke|measure>");
            return ExitCode::from(2);
        }
    };
    let elapsed = start.elapsed().as_secs_f64();
    match result {
        Ok(()) => {
            println!("xtask: ok in {elapsed:.0}s");
            ExitCode::SUCCESS
        }
        Err(Failed(what)) => {
            eprintln!("xtask: FAILED ({what}) after {elapsed:.0}s");
            ExitCode::FAILURE
        }
    }
}
