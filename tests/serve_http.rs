//! `servicedesk serve` over real HTTP on 127.0.0.1: the same api as the app,
//! clear errors for malformed requests, loopback by default, a token when
//! told to listen elsewhere.

use crate::common;

use std::path::Path;
use std::process::Command;

use common::Server;
use serde_json::{json, Value};

/// The CSRF token the servers here are started with.
const CSRF: &str = "serve-http-test-csrf";

fn start(data_dir: &Path, extra: &[&str]) -> Server {
    start_with(data_dir, extra, &[])
}

/// `start` with extra environment (timeouts shortened for a test).
fn start_with(data_dir: &Path, extra: &[&str], env: &[(&str, &str)]) -> Server {
    let mut env = env.to_vec();
    env.push(("SERVICEDESK_CSRF_TOKEN", CSRF));
    common::serve(data_dir, &data_dir.join("no-ui"), extra, &env)
}

async fn post(client: &reqwest::Client, url: &str, body: &str) -> (u16, Value) {
    let r = client
        .post(url)
        .header("content-type", "application/json")
        .header("x-csrf-token", CSRF)
        .body(body.to_owned())
        .send()
        .await
        .unwrap();
    let status = r.status().as_u16();
    (status, r.json().await.unwrap_or(Value::Null))
}

#[tokio::test]
async fn api_over_http_with_clear_errors() {
    let dir = tempfile::tempdir().unwrap();
    let server = start(dir.path(), &[]);
    assert!(
        server.base.starts_with("http://127.0.0.1:"),
        "loopback by default: {}",
        server.base
    );
    let c = reqwest::Client::new();
    let api = |cmd: &str| format!("{}/api/{cmd}", server.base);

    let (status, s) = post(
        &c,
        &api("session_new"),
        r#"{"complaint":"Slide-out won't retract","plate":"abc123"}"#,
    )
    .await;
    assert_eq!(status, 200, "{s}");
    assert_eq!(s["unit"]["plate"], "ABC123");
    let (_, list) = post(&c, &api("session_list"), "{}").await;
    assert_eq!(list["sessions"][0]["id"], s["id"]);
    let (status, _) = post(&c, &api("app_info"), "").await;
    assert_eq!(status, 200, "an empty body means no arguments");

    // Malformed requests: each a clear error, none changes anything.
    let cases = [
        (
            "session_new",
            r#"{"complaint": "x""#,
            400,
            "invalid_json",
            "not valid JSON",
        ),
        (
            "session_new",
            r#"{"complant": "typo"}"#,
            400,
            "invalid_input",
            "unknown field `complant`",
        ),
        (
            "session_new",
            r#"{"complaint": 42}"#,
            400,
            "invalid_input",
            "invalid type",
        ),
        (
            "session_new",
            r#"{"complaint": "x", "odometer": -5}"#,
            400,
            "invalid_input",
            "odometer",
        ),
        (
            "session_show",
            r#"{"session_id": "nope"}"#,
            404,
            "not_found",
            "session nope not found",
        ),
        (
            "drop_tables",
            "{}",
            400,
            "unknown_command",
            "unknown command \"drop_tables\"",
        ),
    ];
    for (cmd, body, want_status, code, words) in cases {
        let (status, err) = post(&c, &api(cmd), body).await;
        assert_eq!(status, want_status, "{cmd} {body}: {err}");
        assert_eq!(err["code"], code, "{cmd} {body}: {err}");
        assert!(
            err["message"].as_str().unwrap().contains(words),
            "{cmd} {body}: {err}"
        );
    }
    let (_, list) = post(&c, &api("session_list"), "{}").await;
    assert_eq!(
        list["sessions"].as_array().unwrap().len(),
        1,
        "bad requests created nothing"
    );

    // A photo upload and its thumbnail, through HTTP.
    use base64::Engine as _;
    let png = base64::engine::general_purpose::STANDARD.encode(common::png(64, 32, [200, 0, 0]));
    let body = json!({"session_id": s["id"], "file_name": "leak.png", "content_base64": png, "caption": "water at the inlet"});
    let (status, a) = post(&c, &api("artifact_upload"), &body.to_string()).await;
    assert_eq!(status, 200, "{a}");
    assert_eq!(a["thumbnail"], "generated");
    let (status, t) = post(
        &c,
        &api("artifact_content"),
        &json!({"artifact_id": a["id"], "thumbnail": true}).to_string(),
    )
    .await;
    assert_eq!(status, 200);
    assert_eq!(t["mime"], "image/jpeg");

    // A request addressed to another host name (DNS rebinding) is refused.
    let r = c
        .post(api("session_list"))
        .header("host", "evil.example.com")
        .header("content-type", "application/json")
        .header("x-csrf-token", CSRF)
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 401);

    // Without a built UI, / says how to build it.
    let page = c
        .get(&server.base)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(page.contains("npm run build"), "{page}");
}

#[tokio::test]
async fn listening_beyond_loopback_requires_a_token() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(common::BIN)
        .arg("--data-dir")
        .arg(dir.path())
        .args(["serve", "--host", "0.0.0.0", "--port", "0"])
        .env_remove("SERVICEDESK_SERVE_TOKEN")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("refusing to serve on 0.0.0.0 without a token"),
        "{err}"
    );

    // --token would show the token in the process list: refused.
    let out = Command::new(common::BIN)
        .arg("--data-dir")
        .arg(dir.path())
        .args(["serve", "--port", "0", "--token", "s3cret-token"])
        .env_remove("SERVICEDESK_SERVE_TOKEN")
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("--token is refused") && err.contains("--token-file"),
        "{err}"
    );

    let token_file = dir.path().join("serve-token");
    std::fs::write(&token_file, "s3cret-token\n").unwrap();
    let server = start(
        dir.path(),
        &[
            "--host",
            "0.0.0.0",
            "--token-file",
            token_file.to_str().unwrap(),
        ],
    );
    let port = server.base.rsplit(':').next().unwrap();
    let url = format!("http://127.0.0.1:{port}/api/session_list");
    let c = reqwest::Client::builder()
        .default_headers(
            [("content-type", "application/json"), ("x-csrf-token", CSRF)]
                .into_iter()
                .map(|(k, v)| (k.parse().unwrap(), v.parse().unwrap()))
                .collect(),
        )
        .build()
        .unwrap();
    let r = c.post(&url).body("{}").send().await.unwrap();
    assert_eq!(r.status().as_u16(), 401);
    let err: Value = r.json().await.unwrap();
    assert_eq!(err["code"], "unauthorized");
    let r = c
        .post(&url)
        .bearer_auth("wrong")
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 401);
    let r = c
        .post(&url)
        .bearer_auth("s3cret-token")
        .body("{}")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status().as_u16(), 200);
}

#[cfg(unix)]
#[tokio::test]
async fn sigterm_shuts_the_server_down_cleanly() {
    let dir = tempfile::tempdir().unwrap();
    let mut server = start(dir.path(), &[]);
    let c = reqwest::Client::new();
    let (status, _) = post(&c, &format!("{}/api/session_list", server.base), "{}").await;
    assert_eq!(status, 200);
    drop(c);
    // SAFETY: a signal to the child we started.
    #[allow(unsafe_code)]
    let sent = unsafe { libc::kill(server.child.id() as libc::pid_t, libc::SIGTERM) };
    assert_eq!(sent, 0);
    let guard = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let exit = loop {
        if let Some(s) = server.child.try_wait().unwrap() {
            break s;
        }
        assert!(
            std::time::Instant::now() < guard,
            "serve did not stop on SIGTERM"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    assert!(
        exit.success(),
        "serve must exit 0 on SIGTERM, not die of it: {exit:?}"
    );
}

/// A plain TCP connection to the server, with a 60 s read guard against a
/// server that never answers or never closes it (the defects tested).
fn raw_connection(addr: &str) -> std::net::TcpStream {
    let tcp = std::net::TcpStream::connect(addr).unwrap();
    tcp.set_read_timeout(Some(std::time::Duration::from_secs(60)))
        .unwrap();
    tcp
}

/// A body that stalls is answered 408 once the body timeout passes (1 s
/// here), instead of holding the connection and an upload permit for ever.
#[tokio::test]
async fn a_stalled_request_body_times_out() {
    use std::io::{Read, Write};
    let dir = tempfile::tempdir().unwrap();
    let server = start_with(dir.path(), &[], &[("SERVICEDESK_BODY_TIMEOUT_SECS", "1")]);
    let addr = server.base.strip_prefix("http://").unwrap().to_owned();
    let answer = tokio::task::spawn_blocking(move || {
        let mut tcp = raw_connection(&addr);
        write!(
            tcp,
            "POST /api/session_new HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
             X-CSRF-Token: {CSRF}\r\nContent-Length: 100\r\n\r\n{{\"complaint\":"
        )
        .unwrap();
        let mut buf = [0u8; 4096];
        let n = tcp.read(&mut buf).unwrap_or(0);
        String::from_utf8_lossy(&buf[..n]).into_owned()
    })
    .await
    .unwrap();
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(answer.contains("did not arrive within 1 s"), "{answer}");
    let c = reqwest::Client::new();
    let (_, list) = post(&c, &format!("{}/api/session_list", server.base), "{}").await;
    assert_eq!(
        list["sessions"],
        serde_json::json!([]),
        "nothing was created"
    );
}

/// A connection that opens and sends half a request line, then stalls, is
/// closed once the header timeout passes (1 s here), and the server goes on
/// answering everyone else meanwhile.
#[tokio::test]
async fn a_stalled_request_header_is_closed() {
    use std::io::{Read, Write};
    let dir = tempfile::tempdir().unwrap();
    let server = start_with(dir.path(), &[], &[("SERVICEDESK_HEADER_TIMEOUT_SECS", "1")]);
    let addr = server.base.strip_prefix("http://").unwrap().to_owned();
    let stalled = tokio::task::spawn_blocking(move || {
        let mut tcp = raw_connection(&addr);
        write!(tcp, "POST /api/session_list HTTP/1.1\r\nHost: {addr}\r\n").unwrap();
        let mut buf = Vec::new();
        tcp.read_to_end(&mut buf).map(|_| buf.len())
    });
    // Others are served while that connection stalls.
    let c = reqwest::Client::new();
    let (status, _) = post(&c, &format!("{}/api/session_list", server.base), "{}").await;
    assert_eq!(status, 200);
    let closed = stalled.await.unwrap();
    assert!(
        closed.is_ok(),
        "the stalled connection was not closed by the server: {closed:?}"
    );
}

/// The server's peak resident memory, from /proc (Linux).
fn peak_rss_bytes(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap();
    let kb: u64 = status
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmHWM in /proc status");
    kb * 1024
}

/// Sixteen decompression bombs uploaded at once (PNGs of a few hundred KB
/// that decode to ~190 MB each, the most a photo may decode to): each gets
/// an answer, and the server's memory stays under 512 MB.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn parallel_png_bombs_keep_the_server_under_512_mb() {
    use base64::Engine as _;
    // The bomb is made before the session: encoding it takes long on a busy
    // machine, and the server closes a keep-alive connection idle for its
    // header timeout (30 s); a client pooling connections longer than the
    // server keeps them may send on one as it closes. A browser retries
    // that; reqwest does not, so its pool lets go first.
    let bomb = tokio::task::spawn_blocking(|| common::png(7900, 7900, [40, 90, 200]))
        .await
        .unwrap();
    assert!(bomb.len() < 2 * 1024 * 1024, "{} bytes", bomb.len());
    let dir = tempfile::tempdir().unwrap();
    let server = start(dir.path(), &[]);
    let c = reqwest::Client::builder()
        .pool_idle_timeout(std::time::Duration::from_secs(10))
        .build()
        .unwrap();
    let (status, session) = post(
        &c,
        &format!("{}/api/session_new", server.base),
        r#"{"complaint": "roof fan does not run"}"#,
    )
    .await;
    assert_eq!(status, 200, "{session}");
    let id = session["id"].as_str().unwrap().to_owned();
    let body = json!({
        "session_id": id,
        "file_name": "bomb.png",
        "content_base64": base64::engine::general_purpose::STANDARD.encode(&bomb),
    })
    .to_string();
    let uploads: Vec<_> = (0..16)
        .map(|_| {
            let (c, url, body) = (
                c.clone(),
                format!("{}/api/artifact_upload", server.base),
                body.clone(),
            );
            tokio::spawn(async move { post(&c, &url, &body).await })
        })
        .collect();
    for u in uploads {
        let (status, answer) = u.await.unwrap();
        assert!(
            status == 200 || answer["code"].is_string(),
            "an upload got no clear answer: {status} {answer}"
        );
    }
    let peak = peak_rss_bytes(server.child.id());
    println!(
        "16 parallel PNG bombs: server peak {} MB",
        peak / (1024 * 1024)
    );
    assert!(
        peak < 512 * 1024 * 1024,
        "the server peaked at {} MB",
        peak / (1024 * 1024)
    );
}
