//! The same api over HTTP: `POST /api/{command}` with a JSON body, plus the
//! built UI at `/`. It exists for browser tests and for a service writer's
//! second screen; it binds 127.0.0.1 unless told otherwise, and anywhere
//! else it demands a bearer token.

use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;

use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, Path, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{Html, IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use tower_http::services::{ServeDir, ServeFile};

use crate::api::{self, AppError};
use crate::artifacts::MAX_FILE_BYTES;
use crate::desk::Desk;

pub const TOKEN_ENV: &str = "SERVICEDESK_SERVE_TOKEN";

#[derive(Debug, Clone)]
pub struct ServeConfig {
    pub host: IpAddr,
    pub port: u16,
    /// Required for every api call when set; mandatory off loopback.
    pub token: Option<String>,
    /// The built UI (`ui/dist`); when missing, `/` explains how to build it.
    pub ui_dir: Option<PathBuf>,
}

#[derive(Clone)]
struct AppState {
    desk: Desk,
    token: Option<String>,
    loopback_only: bool,
}

/// Validate the config and bind, so the caller learns the real port (with
/// port 0) before serving starts.
pub async fn bind(config: &ServeConfig) -> Result<tokio::net::TcpListener, AppError> {
    if !config.host.is_loopback() && config.token.as_deref().unwrap_or("").is_empty() {
        return Err(AppError::new(
            "invalid_input",
            format!(
                "refusing to serve on {} without a token: pass --token or set {TOKEN_ENV}",
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
    let state = AppState {
        desk,
        token: config.token.clone().filter(|t| !t.is_empty()),
        loopback_only: config.host.is_loopback(),
    };
    // base64 inflates uploads by a third; leave headroom for the JSON around it.
    let body_limit = (MAX_FILE_BYTES as usize) * 4 / 3 + 64 * 1024;
    let api = Router::new()
        .route("/api/{command}", post(call))
        .route("/exports/{file}", get(download_export))
        .layer(DefaultBodyLimit::max(body_limit))
        .with_state(state);
    match config
        .ui_dir
        .as_ref()
        .filter(|d| d.join("index.html").is_file())
    {
        Some(dir) => api
            .fallback_service(ServeDir::new(dir).fallback(ServeFile::new(dir.join("index.html")))),
        None => api.fallback(|| async {
            Html(
                "<!doctype html><title>RV Service Desk</title><h1>RV Service Desk</h1>\
                 <p>The API is up at <code>POST /api/{command}</code>, but the UI is not built. \
                 Run <code>npm ci &amp;&amp; npm run build</code> in <code>ui/</code>, \
                 or pass <code>--ui-dir</code>.</p>",
            )
        }),
    }
}

pub async fn serve(listener: tokio::net::TcpListener, router: Router) -> std::io::Result<()> {
    axum::serve(listener, router)
        .with_graceful_shutdown(async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await
}

fn error_response(e: AppError) -> Response {
    let status = StatusCode::from_u16(e.http_status()).unwrap_or(StatusCode::BAD_REQUEST);
    (status, Json(e)).into_response()
}

async fn call(
    State(state): State<AppState>,
    Path(command): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    if let Err(e) = authorize(&state, &headers) {
        return error_response(e);
    }
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
    match api::dispatch(&state.desk, &command, payload).await {
        Ok(v) => Json(v).into_response(),
        Err(e) => error_response(e),
    }
}

/// A finished manager export from `<data dir>/exports` (see
/// `reports_export_status.download_url`); the same bearer token as the api.
async fn download_export(
    State(state): State<AppState>,
    Path(file): Path<String>,
    headers: HeaderMap,
) -> Response {
    if let Err(e) = authorize(&state, &headers) {
        return error_response(e);
    }
    let plain = !file.is_empty()
        && !file.starts_with('.')
        && file
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if !plain || !file.ends_with(".zip") {
        return error_response(AppError::new(
            "invalid_input",
            format!("{file:?} is not an export file name"),
        ));
    }
    let path = api::reports::exports_dir(&state.desk).join(&file);
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

fn authorize(state: &AppState, headers: &HeaderMap) -> Result<(), AppError> {
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
    } else if state.loopback_only {
        // Without a token the only protection is the loopback bind; refuse
        // requests addressed to another host name so a web page elsewhere
        // cannot reach us through DNS rebinding.
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
