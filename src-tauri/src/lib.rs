//! The desktop shell: a Tauri 2 window around the web UI, and one IPC command
//! that forwards to `servicedesk::api::dispatch`. No business logic lives
//! here; everything the UI can do, `servicedesk serve` can do over HTTP too.
//!
//! The smoke mode (`SERVICEDESK_SMOKE_REPORT=path`) exists so that an
//! automated test can prove the real app works end to end: the shell tells
//! the UI to run its smoke routine, the UI calls the backend over IPC and
//! hands back a report, the shell checks that report against SQLite, writes
//! it to `path` and exits (0 when everything held, 1 otherwise).

#[cfg(target_os = "linux")]
mod display;

use std::path::PathBuf;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use servicedesk::api::{self, AppError};
use servicedesk::desk::{default_data_dir, Desk};
use tauri::{AppHandle, Builder, Manager, Runtime, State, WebviewUrl, WebviewWindowBuilder};
use tokio::sync::OnceCell;

/// Set by whoever launches the app in smoke mode: the wall-clock time of the
/// spawn, in epoch milliseconds, so the report can say how long the launch took.
pub const LAUNCH_EPOCH_ENV: &str = "SERVICEDESK_LAUNCH_EPOCH_MS";

/// What the shell holds for the lifetime of the app.
pub struct Shell {
    /// The opened data dir, or why it could not be opened. An open failure
    /// (say, a database written by a newer version) is answered to every
    /// command, so the UI shows it instead of a blank window. Opened while
    /// the window and the webview start: a first start creates the database
    /// and indexes the default knowledge set, which took half a second
    /// before the window began loading.
    desk: Arc<OnceCell<Result<Desk, AppError>>>,
    data_dir: PathBuf,
    smoke_report: Option<PathBuf>,
    /// When the process began opening the store, and when the UI first had
    /// the session list: the launch time the README reports.
    started: Instant,
    first_session_list: OnceLock<Duration>,
}

impl Shell {
    /// Starts opening the data dir on Tauri's async runtime (so the sqlx
    /// pool lives on the runtime that serves the commands) and returns at
    /// once; a command that arrives first waits for the same opening.
    pub fn open(data_dir: PathBuf, smoke_report: Option<PathBuf>) -> Shell {
        let started = Instant::now();
        let desk = Arc::new(OnceCell::new());
        let opening = desk.clone();
        let dir = data_dir.clone();
        tauri::async_runtime::spawn(async move {
            if let Ok(desk) = opening.get_or_init(|| open_desk(dir)).await {
                // Final reports, labor drafts and escalations go to the portal
                // while the app is open; the worker sleeps until an item is
                // queued or its next retry or /health probe is due.
                let syncer = servicedesk::sync::Syncer::new(
                    desk.clone(),
                    servicedesk::sync::SyncConfig::default(),
                );
                tauri::async_runtime::spawn(syncer.run_forever());
                // Orphan blobs and temp files a crash left, now and then.
                desk.start_sweeper();
            }
        });
        Shell {
            desk,
            data_dir,
            smoke_report,
            started,
            first_session_list: OnceLock::new(),
        }
    }

    async fn desk(&self) -> Result<&Desk, AppError> {
        self.desk
            .get_or_init(|| open_desk(self.data_dir.clone()))
            .await
            .as_ref()
            .map_err(Clone::clone)
    }
}

async fn open_desk(data_dir: PathBuf) -> Result<Desk, AppError> {
    Desk::open(&data_dir).await.map_err(AppError::from)
}

/// The one command the UI uses: `invoke('api', { command, payload })`.
#[tauri::command]
async fn api(
    shell: State<'_, Shell>,
    command: String,
    payload: Option<Value>,
) -> Result<Value, AppError> {
    let result = api::dispatch(
        shell.desk().await?,
        &command,
        payload.unwrap_or_else(|| json!({})),
    )
    .await;
    if command == "session_list"
        && result.is_ok()
        && shell
            .first_session_list
            .set(shell.started.elapsed())
            .is_ok()
    {
        // The procedures' automata are built once the window shows its
        // sessions: on a 2-core machine building them at start delayed the
        // session list, and the technician's first message is seconds away.
        // Compiling them frees as much as it keeps; that is handed back.
        if let Ok(desk) = shell.desk().await {
            desk.warm_engine(allocator::release_free_memory);
        }
    }
    result
}

/// Called once by the UI's smoke routine. Only answered in smoke mode.
#[tauri::command]
async fn smoke_report<R: Runtime>(
    app: AppHandle<R>,
    shell: State<'_, Shell>,
    report: Value,
) -> Result<(), AppError> {
    let Some(path) = shell.smoke_report.clone() else {
        return Err(AppError::new(
            "invalid_input",
            "smoke_report is only accepted when SERVICEDESK_SMOKE_REPORT is set",
        ));
    };
    let verdict = check_smoke_report(shell.desk().await, &report).await;
    if let Ok(desk) = shell.desk().await {
        // Memory is reported with every automaton built, as after a day of
        // chats, whether or not the warm-up thread has finished.
        let _ = desk.engine().catalog.build_all();
    }
    let ok = verdict.is_ok();
    // The launcher (xtask) writes the moment it spawned the app; the UI says
    // when its session list first showed. Both are wall-clock epoch ms.
    let launched_at = std::env::var(LAUNCH_EPOCH_ENV)
        .ok()
        .and_then(|v| v.parse::<u64>().ok());
    let since_launch = |key: &str| {
        let at = report.get(key).and_then(Value::as_u64);
        launched_at.zip(at).map(|(l, at)| at.saturating_sub(l))
    };
    let written = json!({
        "ok": ok,
        "launch": {
            "page_started_since_launch_ms": since_launch("page_started_at_ms"),
            "script_ready_since_launch_ms": since_launch("script_ready_at_ms"),
            "shown_since_launch_ms": since_launch("session_list_shown_at_ms"),
            "session_list_ms": shell.first_session_list.get().map(|d| d.as_millis() as u64),
            "note": "from the process being spawned to: the webview starting the page \
                     (page_started), every module of the UI evaluated (script_ready), the \
                     session list in the window (shown); session_list_ms: from opening the \
                     data dir to the UI's first session_list answer",
        },
        "memory": memory_report(),
        "ui_report": report,
        "shell_check": match &verdict { Ok(s) => json!(s), Err(e) => json!({"error": e}) },
    });
    let text = serde_json::to_string_pretty(&written).unwrap_or_default();
    std::fs::write(&path, text).map_err(|e| {
        AppError::new(
            "storage",
            format!("cannot write smoke report {}: {e}", path.display()),
        )
    })?;
    app.exit(if ok { 0 } else { 1 });
    Ok(())
}

/// Resident memory of the app and of the processes it started (the webview
/// runs in its own processes), in KiB; Linux only.
fn memory_report() -> Value {
    #[cfg(target_os = "linux")]
    {
        /// The KiB after `field` in a /proc file of `pid` (`status`, `smaps_rollup`).
        fn kib(pid: &str, file: &str, field: &str) -> Option<u64> {
            let text = std::fs::read_to_string(format!("/proc/{pid}/{file}")).ok()?;
            text.lines()
                .find_map(|l| l.strip_prefix(field))
                .and_then(|v| v.split_whitespace().next()?.parse().ok())
        }
        let status_field = |pid: &str, field: &str| kib(pid, "status", field);
        let me = std::process::id().to_string();
        let mut tree = vec![me.clone()];
        let mut i = 0;
        let procs: Vec<String> = std::fs::read_dir("/proc")
            .map(|d| {
                d.flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .filter(|n| n.chars().all(|c| c.is_ascii_digit()))
                    .collect()
            })
            .unwrap_or_default();
        while i < tree.len() {
            let parent = tree[i].clone();
            for p in &procs {
                if status_field(p, "PPid:").map(|v| v.to_string()) == Some(parent.clone())
                    && !tree.contains(p)
                {
                    tree.push(p.clone());
                }
            }
            i += 1;
        }
        // Resident memory counts the shared libraries (WebKitGTK, and Mesa's
        // software GL under Xvfb) in full in every process that maps them;
        // PSS splits shared pages among their users, and private pages are
        // what this process alone holds.
        let rollup = |pid: &str, fields: &[&str]| -> Option<u64> {
            fields.iter().map(|f| kib(pid, "smaps_rollup", f)).sum()
        };
        let private = ["Private_Clean:", "Private_Dirty:"];
        let app = status_field(&me, "VmRSS:");
        let total: u64 = tree.iter().filter_map(|p| status_field(p, "VmRSS:")).sum();
        let total_pss: u64 = tree.iter().filter_map(|p| rollup(p, &["Pss:"])).sum();
        json!({
            "app_rss_kib": app,
            "app_pss_kib": rollup(&me, &["Pss:"]),
            "app_private_kib": rollup(&me, &private),
            "with_webview_rss_kib": total,
            "with_webview_pss_kib": total_pss,
            "processes": tree.len(),
        })
    }
    #[cfg(not(target_os = "linux"))]
    {
        Value::Null
    }
}

/// The UI's word is not enough: the session it says it created through IPC
/// must be in SQLite.
async fn check_smoke_report(
    desk: Result<&Desk, AppError>,
    report: &Value,
) -> Result<String, String> {
    if report.get("ok") != Some(&Value::Bool(true)) {
        return Err(format!("the UI reported a failure: {report}"));
    }
    let session_id = report
        .get("session_id")
        .and_then(Value::as_str)
        .ok_or("the UI report has no session_id")?;
    let desk = desk.map_err(|e| e.message)?;
    let detail = desk
        .session_detail(session_id)
        .await
        .map_err(|e| format!("session {session_id} is not in the store: {e}"))?;
    let chat_turn = report
        .pointer("/chat/turn")
        .and_then(Value::as_i64)
        .ok_or("the UI report has no chat turn")?;
    let stored = detail
        .turns
        .iter()
        .find(|t| t.seq == chat_turn)
        .ok_or_else(|| format!("chat turn {chat_turn} is not in the store"))?;
    if stored.transition.as_deref() != report.pointer("/chat/transition").and_then(Value::as_str) {
        return Err(format!(
            "chat turn {chat_turn} is stored as {:?}, the UI saw {:?}",
            stored.transition,
            report.pointer("/chat/transition")
        ));
    }
    Ok(format!(
        "session {} found in {} with complaint {:?}; chat turn {} stored as {}",
        session_id,
        desk.data_dir().display(),
        detail.session.complaint,
        chat_turn,
        stored.transition.as_deref().unwrap_or("?")
    ))
}

/// Registers state and commands. Shared by the real app and the IPC tests,
/// which run it on Tauri's mock runtime.
pub fn app_builder<R: Runtime>(builder: Builder<R>, shell: Shell) -> Builder<R> {
    builder
        .manage(shell)
        .invoke_handler(tauri::generate_handler![api, smoke_report])
}

/// Creates the main window. The native drag-and-drop handler is off so that
/// the web UI receives HTML5 drop events for photos.
fn open_main_window<R: Runtime, M: Manager<R>>(manager: &M, smoke: bool) -> tauri::Result<()> {
    let mut window =
        WebviewWindowBuilder::new(manager, "main", WebviewUrl::App("index.html".into()))
            .title("RV Service Desk")
            .inner_size(1200.0, 800.0)
            .min_inner_size(800.0, 560.0)
            .disable_drag_drop_handler();
    if smoke {
        window = window.initialization_script("window.__SERVICEDESK_SMOKE__ = true;");
    }
    window.build()?;
    Ok(())
}

/// glibc's allocator, tuned for a long-lived desktop process (Linux only).
mod allocator {
    /// glibc gives each thread that allocates an arena of its own (up to
    /// eight per core) and keeps what is freed in it; with two arenas the
    /// app process held 17 MiB less on the 1,000-session store (of 230).
    /// Called before any thread starts.
    #[allow(unsafe_code)]
    pub fn limit_arenas() {
        #[cfg(all(target_os = "linux", target_env = "gnu"))]
        // SAFETY: mallopt only sets an allocator parameter; it is called
        // before the app starts any thread.
        unsafe {
            libc::mallopt(libc::M_ARENA_MAX, 2);
        }
    }

    /// Returns free heap pages to the OS after a burst of allocation.
    #[allow(unsafe_code)]
    pub fn release_free_memory() {
        #[cfg(all(target_os = "linux", target_env = "gnu"))]
        // SAFETY: malloc_trim only releases memory the allocator holds free.
        unsafe {
            libc::malloc_trim(0);
        }
    }
}

/// Starts the desktop app. Data dir: `SERVICEDESK_DATA_DIR`, else the OS app-data dir.
pub fn run() {
    #[cfg(target_os = "linux")]
    display::avoid_software_gl();
    allocator::limit_arenas();
    let smoke_report = std::env::var_os("SERVICEDESK_SMOKE_REPORT").map(PathBuf::from);
    let smoke_timeout = std::env::var("SERVICEDESK_SMOKE_TIMEOUT_SECS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(60u64);
    let shell = Shell::open(default_data_dir(), smoke_report.clone());
    let result = app_builder(tauri::Builder::default(), shell)
        .setup(move |app| {
            open_main_window(app, smoke_report.is_some())?;
            if let Some(path) = smoke_report {
                // A UI that never loads must fail the smoke test, not hang it.
                let handle = app.handle().clone();
                std::thread::spawn(move || {
                    std::thread::sleep(Duration::from_secs(smoke_timeout));
                    let report = json!({"ok": false, "shell_check": {"error": format!(
                        "timeout: the UI did not report within {smoke_timeout} s"
                    )}});
                    let _ = std::fs::write(&path, report.to_string());
                    handle.exit(2);
                });
            }
            Ok(())
        })
        .run(tauri::generate_context!());
    if let Err(e) = result {
        eprintln!("servicedesk-desktop: {e}");
        std::process::exit(1);
    }
}
