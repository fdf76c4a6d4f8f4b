//! Machine set-up: the system packages the desktop shell and the browser
//! tests need, and the UI's npm dependencies and build.
//!
//! On Debian as root the missing packages are installed; anywhere else the
//! exact list and the command to install it are printed, and the step fails.

use std::path::Path;
use std::process::Command;

use crate::{root, step, Failed};

/// Which set of system packages a command needs.
#[derive(Clone, Copy, PartialEq)]
pub enum Need {
    /// Building and running the desktop app.
    Build,
    /// Everything the test suite uses: the build set plus a virtual display,
    /// a browser, the kernel keyring tools and poppler (PDF to text/PNG for the export tests).
    Test,
}

// libdbus-1-dev: the keyring crate's Secret Service store (the portal token) links libdbus.
const BUILD_PACKAGES: &[&str] = &[
    "build-essential",
    "pkg-config",
    "libwebkit2gtk-4.1-dev",
    "libdbus-1-dev",
];
// dbus-daemon (dbus-run-session) and gnome-keyring: the portal token tests
// with and without a Secret Service on the session bus.
const TEST_PACKAGES: &[&str] = &[
    "xvfb",
    "xauth",
    "keyutils",
    "dbus-daemon",
    "gnome-keyring",
    "chromium",
    "poppler-utils",
];

fn is_debian() -> bool {
    Path::new("/etc/debian_version").exists()
}

fn is_root() -> bool {
    Command::new("id")
        .arg("-u")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim() == "0")
        .unwrap_or(false)
}

fn installed(package: &str) -> bool {
    Command::new("dpkg-query")
        .args(["-W", "-f=${Status}", package])
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).contains("install ok installed"))
        .unwrap_or(false)
}

/// Ensures the system packages for `need` are present.
pub fn system_packages(need: Need) -> Result<(), Failed> {
    if !cfg!(target_os = "linux") {
        // macOS and Windows ship the webview; nothing to install for the app.
        return Ok(());
    }
    if !is_debian() {
        println!(
            "xtask: not a Debian system; make sure WebKitGTK 4.1 (dev), pkg-config and a C toolchain{} are installed",
            if need == Need::Test { ", Xvfb, xauth and Chromium" } else { "" }
        );
        return Ok(());
    }
    let mut wanted: Vec<&str> = BUILD_PACKAGES.to_vec();
    if need == Need::Test {
        wanted.extend_from_slice(TEST_PACKAGES);
    }
    let missing: Vec<&str> = wanted.into_iter().filter(|p| !installed(p)).collect();
    if missing.is_empty() {
        return Ok(());
    }
    let install = format!(
        "apt-get install -y --no-install-recommends {}",
        missing.join(" ")
    );
    if !is_root() {
        eprintln!(
            "xtask: missing system packages: {}\n       install them with: sudo apt-get update && sudo {install}",
            missing.join(" ")
        );
        return Err(Failed("system packages"));
    }
    let mut update = Command::new("apt-get");
    update.args(["update", "-q"]);
    update.env("DEBIAN_FRONTEND", "noninteractive");
    step("apt-get update", update)?;
    let mut apt = Command::new("apt-get");
    apt.args(["install", "-y", "-q", "--no-install-recommends"]);
    apt.args(&missing);
    apt.env("DEBIAN_FRONTEND", "noninteractive");
    step(&format!("apt-get install {}", missing.join(" ")), apt)
}

fn npm() -> Command {
    let mut cmd = Command::new(if cfg!(windows) { "npm.cmd" } else { "npm" });
    cmd.current_dir(root().join("ui"));
    // Playwright must never download a browser: the tests use the system Chromium.
    cmd.env("PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD", "1");
    cmd
}

pub fn npm_command(args: &[&str]) -> Command {
    let mut cmd = npm();
    cmd.args(args);
    cmd
}

/// Installs the UI's dependencies (only when the lock file changed) and builds `ui/dist`.
pub fn ui() -> Result<(), Failed> {
    if Command::new(if cfg!(windows) { "npm.cmd" } else { "npm" })
        .arg("--version")
        .output()
        .is_err()
    {
        eprintln!(
            "xtask: Node.js 20 or newer with npm is needed to build the UI (https://nodejs.org)"
        );
        return Err(Failed("node"));
    }
    let ui = root().join("ui");
    let lock = ui.join("package-lock.json");
    let installed_lock = ui.join("node_modules/.package-lock.json");
    let fresh = match (mtime(&lock), mtime(&installed_lock)) {
        (Some(l), Some(i)) => i >= l,
        _ => false,
    };
    if !fresh {
        // `npm install`, not `npm ci`: npm 11 rejects this lock file in `ci`
        // ("Missing: @rollup/rollup-…@ from lock file", its optional
        // platform packages) although `install` honours it unchanged.
        step(
            "npm install (ui)",
            npm_command(&["install", "--no-audit", "--no-fund"]),
        )?;
    }
    step("npm run build (ui/dist)", npm_command(&["run", "build"]))
}

fn mtime(path: &Path) -> Option<std::time::SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}
