//! The HTTP client for the portal: rustls, a connect timeout and a
//! whole-request timeout, a bounded request body, TLS required for anything
//! that is not loopback. Answers are classified here; what to do with them
//! is the worker's business.

use std::time::Duration;

use reqwest::{Method, Url};

use super::{SyncConfig, SyncError};

/// The most of a portal's answer that is read (messages, conflicts).
const MAX_ANSWER_BYTES: usize = 64 * 1024;

/// Check a portal base URL: https, or http only on loopback.
pub fn validate_url(url: &str) -> Result<Url, SyncError> {
    let trimmed = url.trim().trim_end_matches('/');
    let parsed = Url::parse(trimmed)
        .map_err(|e| SyncError::Invalid(format!("portal URL {trimmed:?}: {e}")))?;
    let host = parsed.host_str().unwrap_or("");
    let loopback = matches!(host, "localhost" | "127.0.0.1" | "[::1]" | "::1");
    match parsed.scheme() {
        "https" => {}
        "http" if loopback => {}
        "http" => {
            return Err(SyncError::Invalid(format!(
                "portal URL {trimmed:?}: plain http is allowed only for 127.0.0.1, localhost \
                 or ::1; use https"
            )))
        }
        other => {
            return Err(SyncError::Invalid(format!(
                "portal URL {trimmed:?}: scheme {other:?} is not http(s)"
            )))
        }
    }
    if host.is_empty() || !parsed.username().is_empty() || parsed.password().is_some() {
        return Err(SyncError::Invalid(format!(
            "portal URL {trimmed:?} needs a host and no user name or password"
        )));
    }
    if parsed.query().is_some() || parsed.fragment().is_some() {
        return Err(SyncError::Invalid(format!(
            "portal URL {trimmed:?} must not have a query or fragment"
        )));
    }
    Ok(parsed)
}

/// What one request came to.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// 2xx.
    Ok { status: u16 },
    /// 400 or 422 (or another 4xx the contract does not name): the portal's message.
    Rejected { status: u16, message: String },
    /// 409: the portal's answer (`{"stored_revision": M}`).
    Conflict { status: u16, body: String },
    /// 401/403: the credentials are refused.
    Unauthorized { status: u16, message: String },
    /// 408, 429, 5xx; `retry_after` from the header when given.
    Retry {
        status: Option<u16>,
        retry_after: Option<Duration>,
        message: String,
    },
    /// The portal cannot be reached (connection refused, no route, connect timeout).
    Unreachable { message: String },
}

pub enum Body {
    Json(Vec<u8>),
    Bytes { mime: String, bytes: Vec<u8> },
}

#[derive(Debug, Clone)]
pub struct PortalClient {
    http: reqwest::Client,
    base: Url,
    max_body: usize,
}

impl PortalClient {
    pub fn new(url: &str, cfg: &SyncConfig) -> Result<Self, SyncError> {
        let base = validate_url(url)?;
        let https_only = base.scheme() == "https";
        let http = reqwest::Client::builder()
            .connect_timeout(cfg.connect_timeout)
            .timeout(cfg.request_timeout)
            .https_only(https_only)
            .redirect(reqwest::redirect::Policy::none())
            .user_agent(concat!("servicedesk/", env!("CARGO_PKG_VERSION")))
            .build()
            .map_err(|e| SyncError::Invalid(format!("HTTP client: {e}")))?;
        Ok(Self {
            http,
            base,
            max_body: cfg.max_body_bytes,
        })
    }

    pub fn base(&self) -> &Url {
        &self.base
    }

    fn url(&self, path: &str) -> String {
        format!("{}{}", self.base.as_str().trim_end_matches('/'), path)
    }

    /// `GET /api/v1/health`.
    pub async fn health(&self, token: &str) -> Answer {
        let req = self.http.get(self.url("/api/v1/health")).bearer_auth(token);
        classify(req.send().await, token).await
    }

    /// One write: method, path, body, with the item's Idempotency-Key.
    pub async fn send(
        &self,
        method: &str,
        path: &str,
        body: Body,
        idempotency_key: &str,
        token: &str,
    ) -> Answer {
        let method = if method == "POST" {
            Method::POST
        } else {
            Method::PUT
        };
        let (mime, bytes) = match body {
            Body::Json(b) => ("application/json".to_owned(), b),
            Body::Bytes { mime, bytes } => (mime, bytes),
        };
        if bytes.len() > self.max_body {
            return Answer::Rejected {
                status: 413,
                message: format!(
                    "not sent: the body is {} bytes, more than the {} allowed",
                    bytes.len(),
                    self.max_body
                ),
            };
        }
        let req = self
            .http
            .request(method, self.url(path))
            .bearer_auth(token)
            .header("Idempotency-Key", idempotency_key)
            .header(reqwest::header::CONTENT_TYPE, mime)
            .body(bytes);
        classify(req.send().await, token).await
    }
}

/// What replaces a secret found in text received from the portal.
pub const REDACTED: &str = "[redacted]";

/// The text with every occurrence of the token replaced by [`REDACTED`]: a
/// portal (or a proxy) that echoes the request's headers must not get the
/// token stored, logged or returned by us.
pub fn scrub(text: &str, token: &str) -> String {
    if token.len() < 4 {
        return text.to_owned();
    }
    text.replace(token, REDACTED)
}

/// Everything read from the portal goes through [`scrub`] before it is
/// classified, so no message or conflict body can carry the token.
async fn classify(result: reqwest::Result<reqwest::Response>, token: &str) -> Answer {
    let resp = match result {
        Ok(r) => r,
        Err(e) => return transport_error(&e, token),
    };
    let status = resp.status().as_u16();
    let retry_after = resp
        .headers()
        .get(reqwest::header::RETRY_AFTER)
        .and_then(|v| v.to_str().ok())
        .and_then(parse_retry_after);
    let text = match read_bounded(resp).await {
        Ok(t) => scrub(&t, token),
        // The status line came but the answer was cut: for a success that is
        // still a success (the portal stored it); otherwise, retry.
        Err(e) if (200..300).contains(&status) => {
            tracing::debug!("portal answer body cut after {status}: {e}");
            String::new()
        }
        Err(e) => return transport_error(&e, token),
    };
    match status {
        200..=299 => Answer::Ok { status },
        401 | 403 => Answer::Unauthorized {
            status,
            message: portal_message(&text, status),
        },
        409 => Answer::Conflict { status, body: text },
        408 | 425 | 429 | 500..=599 => Answer::Retry {
            status: Some(status),
            retry_after,
            message: portal_message(&text, status),
        },
        _ => Answer::Rejected {
            status,
            message: portal_message(&text, status),
        },
    }
}

fn transport_error(e: &reqwest::Error, token: &str) -> Answer {
    // The chain of causes says what happened ("connection refused").
    let mut message = e.to_string();
    let mut source = std::error::Error::source(e);
    while let Some(s) = source {
        message.push_str(": ");
        message.push_str(&s.to_string());
        source = s.source();
    }
    let message = scrub(&message, token);
    if e.is_connect() {
        Answer::Unreachable { message }
    } else {
        Answer::Retry {
            status: None,
            retry_after: None,
            message: if e.is_timeout() {
                format!("timed out: {message}")
            } else {
                message
            },
        }
    }
}

async fn read_bounded(mut resp: reqwest::Response) -> reqwest::Result<String> {
    let mut buf = Vec::new();
    while let Some(chunk) = resp.chunk().await? {
        let room = MAX_ANSWER_BYTES.saturating_sub(buf.len());
        buf.extend_from_slice(&chunk[..chunk.len().min(room)]);
        if buf.len() >= MAX_ANSWER_BYTES {
            break;
        }
    }
    Ok(String::from_utf8_lossy(&buf).into_owned())
}

/// The portal's message from a JSON answer (`message` or `error`), else the text.
fn portal_message(text: &str, status: u16) -> String {
    let from_json = serde_json::from_str::<serde_json::Value>(text)
        .ok()
        .and_then(|v| {
            ["message", "error", "detail"]
                .iter()
                .find_map(|k| v.get(k).and_then(|m| m.as_str()).map(str::to_owned))
        });
    let msg = from_json.unwrap_or_else(|| text.trim().chars().take(500).collect());
    if msg.is_empty() {
        format!("HTTP {status}")
    } else {
        msg
    }
}

/// `Retry-After`: delay-seconds or an HTTP date.
pub fn parse_retry_after(v: &str) -> Option<Duration> {
    let v = v.trim();
    if let Ok(secs) = v.parse::<u64>() {
        return Some(Duration::from_secs(secs.min(24 * 3600)));
    }
    let when = chrono::DateTime::parse_from_rfc2822(v).ok()?;
    let delta = when.with_timezone(&chrono::Utc) - chrono::Utc::now();
    Some(delta.to_std().unwrap_or(Duration::ZERO))
}
