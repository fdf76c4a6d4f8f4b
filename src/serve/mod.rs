//! The same api over HTTP: `POST /api/{command}` with a JSON body, plus the
//! built UI at `/`. It exists for browser tests and for a service writer's
//! second screen; it binds 127.0.0.1 unless told otherwise, and anywhere
//! else it demands a bearer token.
//!
//! It answers only its own UI (CSRF): an api call must be
//! `Content-Type: application/json`, carry no `Origin` but the server's own
//! (or Tauri's), and carry the per-launch CSRF token (`X-CSRF-Token`) the
//! served page holds in `<meta name="servicedesk-csrf">` (scripts:
//! `GET /api/csrf`). No page may frame it. Commands that name a file on the
//! server's disk are refused: uploads are bytes, exports are downloads.

use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::sync::Arc;

use axum::extract::{DefaultBodyLimit, Path, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::middleware;
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use tower_http::services::ServeDir;

use crate::api::{self, AppError};
use crate::artifacts::MAX_FILE_BYTES;
use crate::desk::Desk;

pub const TOKEN_ENV: &str = "SERVICEDESK_SERVE_TOKEN";
/// Fixes the CSRF token instead of a random one per launch (test harnesses
/// that start servers for a browser's request context).
pub const CSRF_ENV: &str = "SERVICEDESK_CSRF_TOKEN";
/// The header every api call carries the CSRF token in.
pub const CSRF_HEADER: &str = "x-csrf-token";
/// The page meta the served UI reads the CSRF token from.
pub const CSRF_META: &str = "servicedesk-csrf";
/// Origins of the Tauri shell's webview (it talks IPC, but may be pointed here).
const TAURI_ORIGINS: [&str; 3] = [
    "tauri://localhost",
    "http://tauri.localhost",
    "https://tauri.localhost",
];

#[derive(Debug, Clone)]
pub struct ServeConfig {
    pub host: IpAddr,
    pub port: u16,
    /// Required for every api call when set; mandatory off loopback.
    pub token: Option<String>,
    /// The built UI (`ui/dist`); when missing, `/` explains how to build it.
    pub ui_dir: Option<PathBuf>,
    /// The CSRF token; a random one per launch when None.
    pub csrf_token: Option<String>,
}

#[derive(Clone)]
struct AppState {
    desk: Desk,
    token: Option<String>,
    loopback_only: bool,
    csrf: Arc<str>,
    ui_dir: Option<PathBuf>,
    body_limit: usize,
    body_timeout: std::time::Duration,
}

/// How long a request body may take to arrive (`SERVICEDESK_BODY_TIMEOUT_SECS`
/// changes it): a stalled upload cannot hold a large-body permit for ever.
pub const BODY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(60);
pub const BODY_TIMEOUT_ENV: &str = "SERVICEDESK_BODY_TIMEOUT_SECS";

/// Validate the config and bind, so the caller learns the real port (with
/// port 0) before serving starts.
pub async fn bind(config: &ServeConfig) -> Result<tokio::net::TcpListener, AppError> {
    if !config.host.is_loopback() && config.token.as_deref().unwrap_or("").is_empty() {
        return Err(AppError::new(
            "invalid_input",
            format!(
                "refusing to serve on {} without a token: pass --token-file FILE or set {TOKEN_ENV}",
                config.host
            ),
        ));
    }
    let addr = SocketAddr::new(config.host, config.port);
    tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|e| AppError::new("invalid_input", format!("cannot listen on {addr}: {e}")))
}

pub fn router(desk: Desk, config: &ServeConfig) -> Router {
    let ui_dir = config
        .ui_dir
        .clone()
        .filter(|d| d.join("index.html").is_file());
    let state = AppState {
        desk,
        token: config.token.clone().filter(|t| !t.is_empty()),
        loopback_only: config.host.is_loopback(),
        csrf: config
            .csrf_token
            .clone()
            .filter(|t| !t.is_empty())
            .unwrap_or_else(|| {
                format!(
                    "{}{}",
                    uuid::Uuid::new_v4().simple(),
                    uuid::Uuid::new_v4().simple()
                )
            })
            .into(),
        ui_dir: ui_dir.clone(),
        body_limit: BODY_LIMIT,
        body_timeout: std::env::var(BODY_TIMEOUT_ENV)
            .ok()
            .and_then(|v| v.trim().parse().ok())
            .map(std::time::Duration::from_secs)
            .unwrap_or(BODY_TIMEOUT),
    };
    let body_limit = BODY_LIMIT;
    let api = Router::new()
        .route("/api/csrf", get(csrf_token))
        .route("/api/{command}", post(call))
        .route("/exports/{job}/{file}", get(download_export));
    let app = match ui_dir {
        Some(dir) => api
            .route("/", get(index_page))
            .route("/index.html", get(index_page))
            .fallback_service(
                ServeDir::new(&dir)
                    .append_index_html_on_directories(false)
                    .fallback(get(index_page).with_state(state.clone())),
            ),
        None => api.fallback(|| async {
            Html(
                "<!doctype html><title>RV Service Desk</title><h1>RV Service Desk</h1>\
                 <p>The API is up at <code>POST /api/{command}</code>, but the UI is not built. \
                 Run <code>npm ci &amp;&amp; npm run build</code> in <code>ui/</code>, \
                 or pass <code>--ui-dir</code>.</p>",
            )
        }),
    };
    app.layer(DefaultBodyLimit::max(body_limit))
        .layer(middleware::from_fn(limit_large_bodies))
        .layer(middleware::map_response(no_framing))
        .with_state(state)
}

/// Bodies larger than this (or of unknown length) wait for one of
/// [`LARGE_BODIES_AT_ONCE`] permits before they are read: uploads are
/// buffered whole (up to the body limit), so memory stays bounded whatever
/// the clients send at once.
const LARGE_BODY_BYTES: u64 = 256 * 1024;
pub const LARGE_BODIES_AT_ONCE: usize = 4;

async fn limit_large_bodies(request: axum::extract::Request, next: middleware::Next) -> Response {
    static LARGE: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(LARGE_BODIES_AT_ONCE);
    let small = request.method() == axum::http::Method::GET
        || request
            .headers()
            .get(header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.parse::<u64>().ok())
            .is_some_and(|n| n <= LARGE_BODY_BYTES);
    if small {
        return next.run(request).await;
    }
    let _permit = LARGE.acquire().await;
    next.run(request).await
}

/// base64 inflates uploads by a third; leave headroom for the JSON around it.
const BODY_LIMIT: usize = (MAX_FILE_BYTES as usize) * 4 / 3 + 64 * 1024;

/// Every answer: no page may frame the UI (clickjacking), no type sniffing.
async fn no_framing(mut response: Response) -> Response {
    let h = response.headers_mut();
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static("frame-ancestors 'none'"),
    );
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    response
}

/// The built UI's page with this launch's CSRF token in a meta tag.
async fn index_page(State(state): State<AppState>, headers: HeaderMap) -> Response {
    if let Err(e) = authorize_host(&state, &headers) {
        return error_response(e);
    }
    let Some(dir) = &state.ui_dir else {
        return error_response(AppError::new("not_found", "the UI is not built"));
    };
    let page = match tokio::fs::read_to_string(dir.join("index.html")).await {
        Ok(p) => p,
        Err(e) => return error_response(AppError::new("storage", format!("index.html: {e}"))),
    };
    let meta = format!(r#"<meta name="{CSRF_META}" content="{}">"#, state.csrf);
    let page = match page.find("<head>") {
        Some(at) => format!("{}{meta}{}", &page[..at + 6], &page[at + 6..]),
        None => format!("{meta}{page}"),
    };
    (
        [(header::CACHE_CONTROL, HeaderValue::from_static("no-store"))],
        Html(page),
    )
        .into_response()
}

/// The CSRF token for a script on this machine (a page elsewhere cannot read
/// it: no CORS headers, and the Origin checks below).
async fn csrf_token(State(state): State<AppState>, headers: HeaderMap) -> Response {
    if let Err(e) = authorize(&state, &headers).and_then(|()| same_origin(&headers)) {
        return error_response(e);
    }
    (
        [(header::CACHE_CONTROL, HeaderValue::from_static("no-store"))],
        Json(serde_json::json!({ "csrf_token": &*state.csrf })),
    )
        .into_response()
}

/// Serve until Ctrl-C (SIGINT) or SIGTERM (a service manager, `kill`):
/// requests in flight finish, then the caller closes the database.
/// How long a client may take to send a request's headers
/// (`SERVICEDESK_HEADER_TIMEOUT_SECS` changes it): a connection that opens
/// and stalls is closed rather than held for ever.
pub const HEADER_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(30);
pub const HEADER_TIMEOUT_ENV: &str = "SERVICEDESK_HEADER_TIMEOUT_SECS";
/// How long a shutdown waits for requests in flight.
const DRAIN: std::time::Duration = std::time::Duration::from_secs(10);

/// Serves `router` on `listener` until Ctrl-C or SIGTERM, then lets the
/// requests in flight finish. Each connection has a header read timeout
/// (hyper's HTTP/1 server with a timer; `axum::serve` sets none).
pub async fn serve(listener: tokio::net::TcpListener, router: Router) -> std::io::Result<()> {
    use hyper_util::rt::{TokioIo, TokioTimer};
    let header_timeout = std::env::var(HEADER_TIMEOUT_ENV)
        .ok()
        .and_then(|v| v.trim().parse().ok())
        .map(std::time::Duration::from_secs)
        .unwrap_or(HEADER_TIMEOUT);
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(header_timeout);
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let shutdown = shutdown_signal();
    tokio::pin!(shutdown);
    loop {
        tokio::select! {
            accepted = listener.accept() => {
                let stream = match accepted {
                    Ok((stream, _)) => stream,
                    // Out of file descriptors and the like: wait, do not spin.
                    Err(e) => {
                        tracing::warn!("accept: {e}");
                        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
                        continue;
                    }
                };
                let service = hyper_util::service::TowerToHyperService::new(router.clone());
                let connection = graceful.watch(http.serve_connection(TokioIo::new(stream), service));
                tokio::spawn(async move {
                    if let Err(e) = connection.await {
                        tracing::debug!("connection: {e}");
                    }
                });
            }
            () = &mut shutdown => break,
        }
    }
    drop(listener);
    if tokio::time::timeout(DRAIN, graceful.shutdown())
        .await
        .is_err()
    {
        tracing::warn!("shutdown: requests still running after {DRAIN:?}, closing");
    }
    Ok(())
}

/// Resolves on Ctrl-C (SIGINT) or SIGTERM. The handlers are installed
/// when this is called, not when it is first polled: the accept loop may
/// serve a request before it polls this, and a SIGTERM then would kill the
/// process instead of shutting it down.
fn shutdown_signal() -> impl std::future::Future<Output = ()> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{signal, SignalKind};
        let term = signal(SignalKind::terminate()).ok();
        let int = signal(SignalKind::interrupt()).ok();
        async move {
            let recv = |s: Option<tokio::signal::unix::Signal>| async move {
                match s {
                    Some(mut s) => {
                        s.recv().await;
                    }
                    None => std::future::pending::<()>().await,
                }
            };
            tokio::select! {
                () = recv(term) => {}
                () = recv(int) => {}
            }
        }
    }
    #[cfg(not(unix))]
    {
        async {
            let _ = tokio::signal::ctrl_c().await;
        }
    }
}

fn error_response(e: AppError) -> Response {
    let status = StatusCode::from_u16(e.http_status()).unwrap_or(StatusCode::BAD_REQUEST);
    (status, Json(e)).into_response()
}

async fn call(
    State(state): State<AppState>,
    Path(command): Path<String>,
    headers: HeaderMap,
    body: axum::body::Body,
) -> Response {
    if let Err(e) = authorize(&state, &headers)
        .and_then(|()| same_origin(&headers))
        .and_then(|()| json_content_type(&headers, &command))
        .and_then(|()| csrf(&state, &headers))
    {
        return error_response(e);
    }
    // The body is read only for a request that passed the checks, bounded
    // in size and in time.
    let read = axum::body::to_bytes(body, state.body_limit);
    let body = match tokio::time::timeout(state.body_timeout, read).await {
        Ok(Ok(bytes)) => bytes,
        Ok(Err(e)) => {
            return error_response(AppError::new(
                "too_large",
                format!(
                    "the request body for {command} was refused: {e} (at most {} bytes)",
                    state.body_limit
                ),
            ))
        }
        Err(_) => {
            return error_response(AppError::new(
                "timeout",
                format!(
                    "the request body for {command} did not arrive within {} s",
                    state.body_timeout.as_secs()
                ),
            ))
        }
    };
    let payload = if body.iter().all(u8::is_ascii_whitespace) {
        serde_json::Value::Null
    } else {
        match serde_json::from_slice(&body) {
            Ok(v) => v,
            Err(e) => {
                return error_response(AppError::new(
                    "invalid_json",
                    format!("the request body for {command} is not valid JSON: {e}"),
                ))
            }
        }
    };
    if let Some(why) = api::names_server_path(&command, &payload) {
        return error_response(AppError::new("server_path_refused", why));
    }
    match api::dispatch(&state.desk, &command, payload).await {
        Ok(v) => Json(v).into_response(),
        Err(e) => error_response(e),
    }
}

/// A finished manager export from `<data dir>/exports/<job>/` (see
/// `reports_export_status.download_url`); the same bearer token as the api.
async fn download_export(
    State(state): State<AppState>,
    Path((job, file)): Path<(String, String)>,
    headers: HeaderMap,
) -> Response {
    if let Err(e) = authorize(&state, &headers)
        .and_then(|()| same_origin(&headers))
        .and_then(|()| csrf(&state, &headers))
    {
        return error_response(e);
    }
    let plain = !file.is_empty()
        && !file.starts_with('.')
        && file
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    let job_ok = !job.is_empty() && job.chars().all(|c| c.is_ascii_hexdigit() || c == '-');
    if !plain || !file.ends_with(".zip") || !job_ok {
        return error_response(AppError::new(
            "invalid_input",
            format!("{job:?}/{file:?} is not an export job and file name"),
        ));
    }
    let path = api::reports::exports_dir(&state.desk)
        .join(&job)
        .join(&file);
    match tokio::fs::read(&path).await {
        Ok(bytes) => (
            [
                (header::CONTENT_TYPE, "application/zip".to_string()),
                (
                    header::CONTENT_DISPOSITION,
                    format!("attachment; filename=\"{file}\""),
                ),
            ],
            bytes,
        )
            .into_response(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => error_response(AppError::new(
            "not_found",
            format!("no export named {file}"),
        )),
        Err(e) => error_response(AppError::new("storage", format!("{file}: {e}"))),
    }
}

/// A browser says where a request comes from: only the server's own page
/// (or the Tauri shell) may call. Clients that send no `Origin` and no
/// `Sec-Fetch-Site` are not browsers; the CSRF token still applies.
fn same_origin(headers: &HeaderMap) -> Result<(), AppError> {
    let host = headers
        .get(header::HOST)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    if let Some(origin) = headers.get(header::ORIGIN) {
        let origin = origin.to_str().unwrap_or("");
        let own = !host.is_empty()
            && (origin == format!("http://{host}") || origin == format!("https://{host}"));
        if !own && !TAURI_ORIGINS.contains(&origin) {
            return Err(AppError::new(
                "forbidden",
                format!("requests from {origin:?} are refused: only this server's own page may call its api"),
            ));
        }
        return Ok(());
    }
    if let Some(site) = headers.get("sec-fetch-site") {
        let site = site.to_str().unwrap_or("");
        if !matches!(site, "same-origin" | "none") {
            return Err(AppError::new(
                "forbidden",
                format!(
                    "a {site} request is refused: only this server's own page may call its api"
                ),
            ));
        }
    }
    Ok(())
}

/// `Content-Type: application/json` (a page elsewhere can only send
/// `text/plain`, form or multipart bodies without a CORS preflight).
fn json_content_type(headers: &HeaderMap, command: &str) -> Result<(), AppError> {
    let given = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    let mime = given.split(';').next().unwrap_or("").trim();
    if mime.eq_ignore_ascii_case("application/json") {
        Ok(())
    } else {
        Err(AppError::new(
            "unsupported_media_type",
            format!(
                "{command}: the body must be sent as Content-Type: application/json, not {:?}",
                if given.is_empty() { "nothing" } else { given }
            ),
        ))
    }
}

/// The per-launch CSRF token, in `X-CSRF-Token`.
fn csrf(state: &AppState, headers: &HeaderMap) -> Result<(), AppError> {
    let given = headers
        .get(CSRF_HEADER)
        .map(|v| v.as_bytes())
        .unwrap_or_default();
    let want = state.csrf.as_bytes();
    // Compared in constant time: the token is a secret.
    let same = given.len() == want.len()
        && given
            .iter()
            .zip(want)
            .fold(0u8, |acc, (a, b)| acc | (a ^ b))
            == 0;
    if same {
        Ok(())
    } else {
        Err(AppError::new(
            "forbidden",
            "missing or wrong CSRF token (X-CSRF-Token): the served page carries it, scripts GET /api/csrf",
        ))
    }
}

fn authorize(state: &AppState, headers: &HeaderMap) -> Result<(), AppError> {
    authorize_host(state, headers)?;
    if let Some(token) = &state.token {
        let given = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "));
        if given != Some(token.as_str()) {
            return Err(AppError::new(
                "unauthorized",
                "missing or wrong bearer token (Authorization: Bearer <token>)",
            ));
        }
    }
    Ok(())
}

/// Without a token the only protection is the loopback bind; refuse requests
/// addressed to another host name, so a web page elsewhere cannot reach us
/// through DNS rebinding (nor read the page that holds the CSRF token).
fn authorize_host(state: &AppState, headers: &HeaderMap) -> Result<(), AppError> {
    if state.token.is_none() && state.loopback_only {
        let host = headers
            .get(header::HOST)
            .and_then(|v| v.to_str().ok())
            .unwrap_or("");
        let name = host.rsplit_once(':').map_or(host, |(h, _)| h);
        if !matches!(name, "127.0.0.1" | "localhost" | "[::1]" | "") {
            return Err(AppError::new(
                "unauthorized",
                format!("requests must be addressed to 127.0.0.1 or localhost, not {host:?}"),
            ));
        }
    }
    Ok(())
}
