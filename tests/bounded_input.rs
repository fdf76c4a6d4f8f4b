//! Every command that takes a file reads only a regular file, bounded
//! (issue 17): a FIFO, `/dev/zero`, `/dev/stdin` and a 2 GB sparse file given
//! to each one get a clear error naming what was wrong (the kind of file,
//! or the limit), never a hang or a process growing without end.
#![cfg(unix)]

use crate::common;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Run the CLI with stdin an open pipe nobody writes to (so a read of
/// `/dev/stdin` would block). Gives up after a generous guard: a command
/// that blocks on a file is the defect under test. Returns whether it
/// succeeded, its output, and its own peak resident set in bytes (from
/// `wait4`, so children other tests of this binary run at the same time do
/// not count).
// The child is reaped by wait4 below (std cannot give its rusage).
#[allow(clippy::zombie_processes)]
fn run(data_dir: &Path, args: &[&str]) -> (bool, String, u64) {
    use std::io::Read;
    let mut child = Command::new(common::BIN)
        .arg("--data-dir")
        .arg(data_dir)
        .args(args)
        .env_remove("SERVICEDESK_DATA_DIR")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let _stdin = child.stdin.take();
    let drain = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut buf = Vec::new();
            let _ = r.read_to_end(&mut buf);
            buf
        })
    };
    let stdout = drain(Box::new(child.stdout.take().unwrap()));
    let stderr = drain(Box::new(child.stderr.take().unwrap()));
    let pid = child.id() as libc::pid_t;
    let guard = Instant::now() + Duration::from_secs(120);
    let mut status = 0;
    let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
    loop {
        // SAFETY: wait4 on our own child's pid, with valid out-pointers.
        #[allow(unsafe_code)]
        let got = unsafe { libc::wait4(pid, &mut status, libc::WNOHANG, usage.as_mut_ptr()) };
        if got == pid {
            break;
        }
        assert_eq!(got, 0, "wait4 failed");
        if Instant::now() > guard {
            let _ = child.kill();
            let _ = child.wait();
            panic!("servicedesk {args:?} blocked on its input file");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    // SAFETY: wait4 returned the child's pid, so it filled `usage`.
    #[allow(unsafe_code)]
    let usage = unsafe { usage.assume_init() };
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&stdout.join().unwrap()),
        String::from_utf8_lossy(&stderr.join().unwrap())
    );
    let ok = libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0;
    (ok, text, usage.ru_maxrss as u64 * 1024)
}

#[test]
fn fifos_devices_and_huge_files_are_refused_by_every_file_taking_command() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let session = common::cli_json(d, &["session", "new", "--complaint", "fan", "--json"])["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let fifo = d.join("fifo.md");
    let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
    // SAFETY: a plain mkfifo on a path we own.
    // SAFETY: a valid NUL-terminated path; mkfifo only creates a file.
    #[allow(unsafe_code)]
    let made = unsafe { libc::mkfifo(c.as_ptr(), 0o600) };
    assert_eq!(made, 0);
    let sparse = d.join("huge.md");
    std::fs::File::create(&sparse)
        .unwrap()
        .set_len(2 << 30)
        .unwrap();

    // What the error must say: the kind of file, or the limit.
    let inputs: [(&str, &[&str]); 4] = [
        (fifo.to_str().unwrap(), &["a FIFO"]),
        ("/dev/zero", &["a device"]),
        ("/dev/stdin", &["a FIFO"]),
        (sparse.to_str().unwrap(), &["MiB)", "at most 4 MB"]),
    ];
    let mut max_rss = 0;
    let mut biggest: Vec<String> = Vec::new();
    let commands: Vec<Vec<&str>> = vec![
        vec!["artifact", "add", &session, "{}"],
        vec![
            "billing",
            "simulate",
            "--payload",
            "{}",
            "--entry",
            "2026-03-02T09:00",
            "--exit",
            "2026-03-02T10:00",
        ],
        vec!["billing", "rules", "import", "{}"],
        vec!["billing", "orders", "import", "{}"],
        vec!["eval", "understanding", "--dataset", "{}"],
        vec!["eval", "knowledge", "--dataset", "{}"],
        vec!["chat", "--script", "{}"],
        vec!["knowledge", "ingest", "{}"],
    ];
    for command in &commands {
        for (path, words) in inputs {
            let args: Vec<&str> = command
                .iter()
                .map(|a| if *a == "{}" { path } else { a })
                .collect();
            let (ok, text, rss) = run(d, &args);
            if rss > max_rss {
                max_rss = rss;
                biggest = args.iter().map(|a| a.to_string()).collect();
            }
            assert!(!ok, "{args:?} must fail: {text}");
            // `knowledge ingest` refuses a name that is not .md before reading.
            let named = words.iter().any(|w| text.contains(w))
                || (args[0] == "knowledge" && text.contains("not a knowledge file"));
            assert!(named, "{args:?}: the error should say {words:?}: {text}");
            assert!(!text.contains("panicked"), "{args:?}: {text}");
        }
    }
    // Nothing was read into memory: every child stayed small. A child
    // spawned by vfork reports the mm it shared with this process until its
    // exec as part of its peak (Linux records the old mm's high-water mark
    // at exec), so the bound is 100 MB over this process's own peak: with
    // other tests running in this binary that peak is not small.
    let own_peak = own_peak_rss();
    assert!(
        max_rss < 100 * 1024 * 1024 + own_peak,
        "a command grew to {} MB (this test process peaked at {} MB): {biggest:?}",
        max_rss / (1024 * 1024),
        own_peak / (1024 * 1024)
    );
    // Nothing was attached or imported.
    let list = common::cli_json(d, &["artifact", "list", &session, "--json"]);
    assert_eq!(list["artifacts"], serde_json::json!([]));
}

#[test]
fn a_chat_script_with_invalid_utf8_is_refused_naming_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("script.txt");
    std::fs::write(&script, b"the roof fan does not work\nfuse \xff blown\n").unwrap();
    let (ok, text, _) = run(dir.path(), &["chat", "--script", script.to_str().unwrap()]);
    assert!(!ok, "{text}");
    assert!(text.contains("not UTF-8 text (line 2"), "{text}");
}

/// This process's peak resident set in bytes (`VmHWM`), 0 where unknown.
fn own_peak_rss() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find_map(|l| l.strip_prefix("VmHWM:"))
                .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        })
        .map_or(0, |kb| kb * 1024)
}
