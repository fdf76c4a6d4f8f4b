//! The desktop smoke test: start the real app (debug build) in smoke mode,
//! under a private Xvfb display on Linux, and read the report it writes.
//! The report proves the UI loaded in the webview, called the backend over
//! IPC, and that the session it created is in SQLite.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use crate::{cargo, root, step, Failed};

const APP_TIMEOUT: Duration = Duration::from_secs(120);

/// A virtual X display that is stopped when dropped.
struct Xvfb {
    child: Child,
    display: String,
}

impl Drop for Xvfb {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn start_xvfb() -> Result<Xvfb, Failed> {
    // Pick a display number nobody uses; -nolisten tcp keeps it local.
    let number = (99..200)
        .find(|n| {
            !Path::new(&format!("/tmp/.X11-unix/X{n}")).exists()
                && !Path::new(&format!("/tmp/.X{n}-lock")).exists()
        })
        .ok_or(Failed("no free X display number"))?;
    let display = format!(":{number}");
    let child = Command::new("Xvfb")
        .args([&display, "-screen", "0", "1280x800x24", "-nolisten", "tcp"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| {
            eprintln!("xtask: cannot start Xvfb: {e}");
            Failed("Xvfb")
        })?;
    let mut xvfb = Xvfb { child, display };
    let socket = PathBuf::from(format!("/tmp/.X11-unix/X{number}"));
    let start = Instant::now();
    while !socket.exists() {
        if let Ok(Some(status)) = xvfb.child.try_wait() {
            eprintln!("xtask: Xvfb exited at start ({status})");
            return Err(Failed("Xvfb"));
        }
        if start.elapsed() > Duration::from_secs(15) {
            eprintln!("xtask: Xvfb did not come up on {}", xvfb.display);
            return Err(Failed("Xvfb"));
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    Ok(xvfb)
}

pub fn desktop() -> Result<(), Failed> {
    let mut build = cargo();
    build.args([
        "build",
        "-p",
        "servicedesk-desktop",
        "--bin",
        "servicedesk-desktop",
    ]);
    step("cargo build -p servicedesk-desktop", build)?;

    println!("==> desktop smoke test");
    let started = Instant::now();
    let work = std::env::temp_dir().join(format!("servicedesk-smoke-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).map_err(|_| Failed("smoke temp dir"))?;
    let report = work.join("report.json");

    let exe = root().join("target/debug").join(format!(
        "servicedesk-desktop{}",
        std::env::consts::EXE_SUFFIX
    ));
    let mut app = Command::new(exe);
    app.env("SERVICEDESK_DATA_DIR", work.join("data"))
        .env("SERVICEDESK_SMOKE_REPORT", &report)
        .env("SERVICEDESK_SMOKE_TIMEOUT_SECS", "90");
    let _xvfb = if cfg!(target_os = "linux") {
        let xvfb = start_xvfb()?;
        app.env("DISPLAY", &xvfb.display)
            .env_remove("WAYLAND_DISPLAY");
        Some(xvfb)
    } else {
        None
    };
    let mut child = app.spawn().map_err(|e| {
        eprintln!("xtask: cannot start the desktop app: {e}");
        Failed("desktop smoke test")
    })?;
    let status = loop {
        if let Ok(Some(status)) = child.try_wait() {
            break Some(status);
        }
        if started.elapsed() > APP_TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let text = std::fs::read_to_string(&report).unwrap_or_default();
    let ok = status.is_some_and(|s| s.success()) && text.contains("\"ok\": true");
    println!("{text}");
    println!(
        "<== desktop smoke test: {} in {:.1}s (app exit: {})",
        if ok { "ok" } else { "FAILED" },
        started.elapsed().as_secs_f64(),
        status.map_or("killed after timeout".into(), |s| s.to_string())
    );
    let _ = std::fs::remove_dir_all(&work);
    if ok {
        Ok(())
    } else {
        Err(Failed("desktop smoke test"))
    }
}
