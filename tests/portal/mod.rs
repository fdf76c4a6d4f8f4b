//! A test portal on 127.0.0.1 implementing the portal contract
//! (`shared/spec/portal.md`): idempotency keys answered once and replayed,
//! revisions where the highest wins (a lower one is a 409), attachments
//! checked against their sha256, and faults injected on demand: connection
//! dropped before storing, timeouts, 500s, 429 with Retry-After, the
//! response dropped (or timed out) after storing, 409, 401, and the whole
//! server stopped (connection refused). It counts what it stored.
#![allow(dead_code)]

use std::collections::{HashMap, VecDeque};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post, put};
use axum::{Json, Router};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Fault {
    /// The connection is dropped before anything is stored.
    Reset,
    /// The answer comes later than the client waits; nothing stored.
    TimeoutBefore,
    /// 500, nothing stored.
    Error500,
    /// 429 with `Retry-After: N` seconds, nothing stored.
    TooMany(u64),
    /// Stored, then the connection is dropped before the answer.
    DropAfterStore,
    /// Stored, then the answer comes later than the client waits.
    TimeoutAfterStore,
}

pub const ALL_FAULTS: [Fault; 6] = [
    Fault::Reset,
    Fault::TimeoutBefore,
    Fault::Error500,
    Fault::TooMany(1),
    Fault::DropAfterStore,
    Fault::TimeoutAfterStore,
];

#[derive(Debug, Default)]
pub struct Stored {
    pub token: String,
    /// Idempotency-Key → the first answer (status, body).
    pub keys: HashMap<String, (u16, String)>,
    /// Idempotency-Key → how many times a request with it was processed
    /// (not replayed). Exactly once in effect means 1 for every key.
    pub effects: HashMap<String, u32>,
    /// Idempotency-Key → requests seen (including replays and faults).
    pub requests_per_key: HashMap<String, u32>,
    pub attachments: HashMap<String, Vec<u8>>,
    pub reports: HashMap<String, (u64, Value)>,
    pub drafts: HashMap<String, (u64, Value)>,
    pub escalations: Vec<Value>,
    pub requests: u64,
    pub health_checks: u64,
    pub faults_injected: HashMap<Fault, u64>,
    pub duplicates_replayed: u64,
    pub unauthorized: u64,
    /// The chance (0..1) of a fault on each write.
    pub fault_rate: f64,
    /// Faults to inject on the next writes, in order, before the random ones.
    pub forced: VecDeque<Fault>,
    rng: Option<fastrand::Rng>,
}

pub struct Shared {
    pub stored: Mutex<Stored>,
    down: AtomicBool,
    /// How long a timeout fault sleeps (longer than the client's timeout).
    pub stall: Duration,
}

impl Shared {
    pub fn lock(&self) -> MutexGuard<'_, Stored> {
        self.stored.lock().unwrap_or_else(|e| e.into_inner())
    }
}

pub struct Portal {
    pub addr: SocketAddr,
    pub shared: Arc<Shared>,
    task: Option<tokio::task::JoinHandle<()>>,
}

impl Portal {
    /// A portal on 127.0.0.1 with a random port, accepting `token`.
    pub async fn start(token: &str, stall: Duration) -> Portal {
        let shared = Arc::new(Shared {
            stored: Mutex::new(Stored {
                token: token.to_owned(),
                rng: Some(fastrand::Rng::with_seed(
                    std::env::var("PORTAL_SEED")
                        .ok()
                        .and_then(|s| s.parse().ok())
                        .unwrap_or(7),
                )),
                ..Default::default()
            }),
            down: AtomicBool::new(false),
            stall,
        });
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let mut portal = Portal {
            addr,
            shared,
            task: None,
        };
        portal.serve(listener);
        portal
    }

    fn serve(&mut self, listener: tokio::net::TcpListener) {
        let app = Router::new()
            .route("/api/v1/health", get(health))
            .route("/api/v1/attachments/{sha}", put(attachment))
            .route("/api/v1/reports/{id}", put(report))
            .route("/api/v1/labor-drafts/{id}", put(labor_draft))
            .route("/api/v1/escalations", post(escalation))
            .with_state(self.shared.clone());
        self.task = Some(tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        }));
    }

    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Stop listening (new connections are refused) and drop every
    /// connection that is still open.
    pub fn stop(&mut self) {
        self.shared.down.store(true, Ordering::SeqCst);
        if let Some(t) = self.task.take() {
            t.abort();
        }
    }

    /// Listen again on the same address, with everything stored kept.
    pub async fn restart(&mut self) {
        let mut tries = 0;
        let listener = loop {
            match tokio::net::TcpListener::bind(self.addr).await {
                Ok(l) => break l,
                Err(e) if tries < 50 => {
                    tries += 1;
                    let _ = e;
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
                Err(e) => panic!("cannot listen on {} again: {e}", self.addr),
            }
        };
        self.shared.down.store(false, Ordering::SeqCst);
        self.serve(listener);
    }

    pub fn lock(&self) -> MutexGuard<'_, Stored> {
        self.shared.lock()
    }

    pub fn set_fault_rate(&self, rate: f64) {
        self.lock().fault_rate = rate;
    }

    pub fn force(&self, faults: &[Fault]) {
        self.lock().forced.extend(faults.iter().copied());
    }

    pub fn set_token(&self, token: &str) {
        self.lock().token = token.to_owned();
    }

    /// Pretend another client already stored this revision of a report.
    pub fn seed_report(&self, report_id: &str, revision: u64) {
        self.lock().reports.insert(
            report_id.to_owned(),
            (
                revision,
                json!({"report_id": report_id, "revision": revision}),
            ),
        );
    }
}

impl Drop for Portal {
    fn drop(&mut self) {
        self.stop();
    }
}

fn answer(status: u16, body: Value) -> Response {
    (StatusCode::from_u16(status).unwrap(), Json(body)).into_response()
}

/// Drop the connection: the handler's task unwinds without the panic hook
/// (no message), hyper's connection goes away, the client sees it cut.
fn drop_connection() -> ! {
    std::panic::resume_unwind(Box::new("connection dropped by the test portal"))
}

enum Gate {
    Go { key: String, fault: Option<Fault> },
    Done(Response),
}

/// Authorization, the down flag, the idempotency key (replays) and the fault
/// for this request.
fn gate(shared: &Shared, headers: &HeaderMap, write: bool) -> Gate {
    if shared.down.load(Ordering::SeqCst) {
        drop_connection();
    }
    let mut st = shared.lock();
    st.requests += 1;
    let auth = headers
        .get("authorization")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "));
    if auth != Some(st.token.as_str()) {
        st.unauthorized += 1;
        return Gate::Done(answer(401, json!({"message": "invalid token"})));
    }
    if !write {
        st.health_checks += 1;
        return Gate::Done(answer(200, json!({"status": "ok"})));
    }
    let Some(key) = headers
        .get("idempotency-key")
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned)
    else {
        return Gate::Done(answer(
            400,
            json!({"message": "Idempotency-Key is required"}),
        ));
    };
    *st.requests_per_key.entry(key.clone()).or_default() += 1;
    let fault = if let Some(f) = st.forced.pop_front() {
        Some(f)
    } else {
        let rate = st.fault_rate;
        let rng = st.rng.as_mut().unwrap();
        if rng.f64() < rate {
            Some(ALL_FAULTS[rng.usize(0..ALL_FAULTS.len())])
        } else {
            None
        }
    };
    if let Some(f) = fault {
        *st.faults_injected.entry(f).or_default() += 1;
    }
    match fault {
        Some(Fault::Reset) => {
            drop(st);
            drop_connection();
        }
        Some(Fault::Error500) => {
            return Gate::Done(answer(500, json!({"message": "injected 500"})));
        }
        Some(Fault::TooMany(secs)) => {
            let mut r = answer(429, json!({"message": "slow down"}));
            r.headers_mut()
                .insert("retry-after", secs.to_string().parse().unwrap());
            return Gate::Done(r);
        }
        _ => {}
    }
    if let Some((status, body)) = st.keys.get(&key).cloned() {
        st.duplicates_replayed += 1;
        let body: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
        return Gate::Done(answer(status, body));
    }
    Gate::Go { key, fault }
}

/// Record the first answer of a key, then apply an after-store fault.
async fn finish(
    shared: &Shared,
    key: String,
    fault: Option<Fault>,
    status: u16,
    body: Value,
) -> Response {
    {
        let mut st = shared.lock();
        st.keys.insert(key.clone(), (status, body.to_string()));
        *st.effects.entry(key).or_default() += 1;
    }
    match fault {
        Some(Fault::DropAfterStore) => drop_connection(),
        Some(Fault::TimeoutAfterStore) => tokio::time::sleep(shared.stall).await,
        _ => {}
    }
    answer(status, body)
}

async fn stall_if(shared: &Shared, fault: Option<Fault>) {
    if fault == Some(Fault::TimeoutBefore) {
        tokio::time::sleep(shared.stall).await;
    }
}

async fn health(State(shared): State<Arc<Shared>>, headers: HeaderMap) -> Response {
    match gate(&shared, &headers, false) {
        Gate::Done(r) => r,
        Gate::Go { .. } => unreachable!(),
    }
}

async fn attachment(
    State(shared): State<Arc<Shared>>,
    Path(sha): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let (key, fault) = match gate(&shared, &headers, true) {
        Gate::Done(r) => return r,
        Gate::Go { key, fault } => (key, fault),
    };
    stall_if(&shared, fault).await;
    if fault == Some(Fault::TimeoutBefore) {
        return answer(503, json!({"message": "too late"}));
    }
    let actual = hex::encode(Sha256::digest(&body));
    if actual != sha {
        return finish(
            &shared,
            key,
            fault,
            422,
            json!({"message": format!("hash mismatch: body is {actual}")}),
        )
        .await;
    }
    let status = {
        let mut st = shared.lock();
        if st.attachments.contains_key(&sha) {
            200
        } else {
            st.attachments.insert(sha.clone(), body.to_vec());
            201
        }
    };
    finish(&shared, key, fault, status, json!({"sha256": sha})).await
}

fn revisioned(map: &mut HashMap<String, (u64, Value)>, id: &str, body: Value) -> (u16, Value) {
    let Some(revision) = body.get("revision").and_then(Value::as_u64) else {
        return (422, json!({"message": "revision is required"}));
    };
    match map.get(id) {
        Some((stored, _)) if *stored > revision => (409, json!({"stored_revision": stored})),
        Some((stored, _)) if *stored == revision => (200, json!({"revision": stored})),
        Some(_) => {
            map.insert(id.to_owned(), (revision, body));
            (200, json!({"revision": revision}))
        }
        None => {
            map.insert(id.to_owned(), (revision, body));
            (201, json!({"revision": revision}))
        }
    }
}

async fn report(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<String>,
    headers: HeaderMap,
    Json(body): Json<Value>,
) -> Response {
    let (key, fault) = match gate(&shared, &headers, true) {
        Gate::Done(r) => return r,
        Gate::Go { key, fault } => (key, fault),
    };
    stall_if(&shared, fault).await;
    if fault == Some(Fault::TimeoutBefore) {
        return answer(503, json!({"message": "too late"}));
    }
    let (status, reply) = {
        let mut st = shared.lock();
        let missing: Vec<String> = body["attachments"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(|a| a["sha256"].as_str())
            .filter(|sha| !st.attachments.contains_key(*sha))
            .map(str::to_owned)
            .collect();
        if !missing.is_empty() {
            (
                422,
                json!({"message": format!("attachments not uploaded: {}", missing.join(", "))}),
            )
        } else if body["report_id"].as_str() != Some(id.as_str()) {
            (400, json!({"message": "report_id does not match the path"}))
        } else {
            revisioned(&mut st.reports, &id, body)
        }
    };
    finish(&shared, key, fault, status, reply).await
}

async fn labor_draft(
    State(shared): State<Arc<Shared>>,
    Path(id): Path<String>,
    headers: HeaderMap,
    Json(body): Json<Value>,
) -> Response {
    let (key, fault) = match gate(&shared, &headers, true) {
        Gate::Done(r) => return r,
        Gate::Go { key, fault } => (key, fault),
    };
    stall_if(&shared, fault).await;
    if fault == Some(Fault::TimeoutBefore) {
        return answer(503, json!({"message": "too late"}));
    }
    let (status, reply) = revisioned(&mut shared.lock().drafts, &id, body);
    finish(&shared, key, fault, status, reply).await
}

async fn escalation(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    Json(body): Json<Value>,
) -> Response {
    let (key, fault) = match gate(&shared, &headers, true) {
        Gate::Done(r) => return r,
        Gate::Go { key, fault } => (key, fault),
    };
    stall_if(&shared, fault).await;
    if fault == Some(Fault::TimeoutBefore) {
        return answer(503, json!({"message": "too late"}));
    }
    shared.lock().escalations.push(body);
    finish(&shared, key, fault, 201, json!({"status": "escalated"})).await
}
