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
    crate::build_debug_bins()?;
    println!("==> desktop smoke test");
    let started = Instant::now();
    let work = std::env::temp_dir().join(format!("servicedesk-smoke-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).map_err(|_| Failed("smoke temp dir"))?;
    let (ok, text, status) = run_app(&work.join("data"), &work, false)?;
    println!("{text}");
    println!(
        "<== desktop smoke test: {} in {:.1}s (app exit: {})",
        if ok { "ok" } else { "FAILED" },
        started.elapsed().as_secs_f64(),
        status
    );
    let _ = std::fs::remove_dir_all(&work);
    if ok {
        Ok(())
    } else {
        Err(Failed("desktop smoke test"))
    }
}

/// `cargo xtask measure`: the release app's launch time (to the first
/// session list) and resident memory, on an empty store and on one seeded
/// with 1,000 sessions and 10,000 photos (`servicedesk dev seed-scale`).
pub fn measure() -> Result<(), Failed> {
    build_release_bins()?;
    let work = std::env::temp_dir().join(format!("servicedesk-measure-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).map_err(|_| Failed("measure temp dir"))?;
    let empty = work.join("empty");
    let seeded = work.join("seeded");
    let mut seed = Command::new(root().join("target/release/servicedesk"));
    seed.args(["--data-dir", &seeded.to_string_lossy(), "dev", "seed-scale"]);
    seed.args(["--sessions", "1000", "--photos-per-session", "10"]);
    step("seed 1,000 sessions and 10,000 photos", seed)?;
    for (name, dir) in [
        ("empty store", &empty),
        ("1,000 sessions / 10,000 photos", &seeded),
    ] {
        // The first start of a store also builds caches; the second is the one a user sees daily.
        for run in ["first start", "second start"] {
            let (ok, text, _) = run_app(dir, &work, true)?;
            let mib = |key| number(&text, key).map_or("?".into(), |k| (k / 1024).to_string());
            let ms = |key| number(&text, key).map_or("?".into(), |n| n.to_string());
            println!(
                "{name}, {run}: session list in the window {} ms after launch (page started at {} ms, script ready at {} ms; {} ms after the store opened); app process RSS / PSS / private {} / {} / {} MiB; with the webview RSS / PSS {} / {} MiB{}",
                ms("shown_since_launch_ms"),
                ms("page_started_since_launch_ms"),
                ms("script_ready_since_launch_ms"),
                ms("session_list_ms"),
                mib("app_rss_kib"),
                mib("app_pss_kib"),
                mib("app_private_kib"),
                mib("with_webview_rss_kib"),
                mib("with_webview_pss_kib"),
                if ok { "" } else { " — the smoke check FAILED" }
            );
        }
    }
    let _ = std::fs::remove_dir_all(&work);
    Ok(())
}

/// The number after `"key":` in the app's pretty-printed report.
fn number(text: &str, key: &str) -> Option<u64> {
    let at = text.find(&format!("\"{key}\":"))? + key.len() + 3;
    let digits: String = text[at..]
        .trim_start()
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

/// The release app and CLI in one cargo run: one feature resolution, so the
/// tree is built once for both.
fn build_release_bins() -> Result<(), Failed> {
    let mut build = cargo();
    build.args([
        "build",
        "--release",
        "-p",
        "servicedesk",
        "-p",
        "servicedesk-desktop",
        "--bins",
    ]);
    step(
        "cargo build --release (servicedesk, servicedesk-desktop)",
        build,
    )
}

/// Runs the app in smoke mode on `data_dir`; (ok, report text, exit status).
fn run_app(data_dir: &Path, work: &Path, release: bool) -> Result<(bool, String, String), Failed> {
    let report = work.join("report.json");
    let _ = std::fs::remove_file(&report);
    let started = Instant::now();
    let exe = root()
        .join(if release {
            "target/release"
        } else {
            "target/debug"
        })
        .join(format!(
            "servicedesk-desktop{}",
            std::env::consts::EXE_SUFFIX
        ));
    let mut app = Command::new(exe);
    app.env("SERVICEDESK_DATA_DIR", data_dir)
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
    // The launch the report times starts here, with the display already up.
    let spawned_at = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis());
    app.env("SERVICEDESK_LAUNCH_EPOCH_MS", spawned_at.to_string());
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
    Ok((
        ok,
        text,
        status.map_or("killed after timeout".into(), |s| s.to_string()),
    ))
}
