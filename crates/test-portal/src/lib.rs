//! A test portal on 127.0.0.1 implementing the portal contract
//! (`docs/spec/portal.md`): idempotency keys answered once and replayed,
//! revisions where the highest wins (a lower one is a 409), attachments
//! checked against their sha256, and faults injected on demand: connection
//! dropped before storing, timeouts, 500s, 429 with Retry-After, the
//! response dropped (or timed out) after storing, 409, 401, and the whole
//! server stopped (connection refused). It counts what it stored (`effects`,
//! one per Idempotency-Key that changed something) against what it received
//! (`requests_per_key`). Random faults come from a seeded generator
//! (`PORTAL_SEED`, default 7), so a run can be repeated.
//!
//! Control endpoints, for tests in another process (`cargo run --example
//! test_portal`, examples/test_portal.rs); no token, loopback only, never faulted:
//! - `GET  /control/stats`: what was received and stored, as JSON (counts,
//!   the stored revision per report and draft, the attachments' sha256s and
//!   whether their bytes still hash to them, faults injected by kind).
//! - `POST /control/faults` `{"rate": 0.3, "force": ["reset", "too_many:2"]}`:
//!   the chance of a random fault per write, and faults for the next writes
//!   in order. Names: `reset`, `timeout_before`, `error500`, `too_many[:SECS]`,
//!   `drop_after_store`, `timeout_after_store`; `reject422` (never random).
//! - `POST /control/token` `{"token": "..."}`: the token the portal accepts
//!   from now on (anything else gets 401).
//! - `POST /control/offline` `{"offline": true}`: every API request has its
//!   connection dropped (the client sees a network error) until set false.
//! - `POST /control/seed_report` `{"report_id": "...", "revision": 5}`:
//!   pretend another client stored that revision (a lower one is then a 409).

use std::collections::{HashMap, VecDeque};
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
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
    /// 422 with a message, nothing stored and the key not recorded (a
    /// validation the portal runs first; never chosen at random).
    Reject422,
    /// 422 whose message echoes the request's Authorization header (a
    /// careless portal or proxy; never chosen at random).
    EchoAuth,
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
    /// One lock per Idempotency-Key: two copies of a request in flight at
    /// once (two clients, or a retry racing a slow first attempt) are handled
    /// one after the other, so the second is a replay.
    key_locks: Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>,
    down: AtomicBool,
    /// Milliseconds every write takes before it is handled (a slow network).
    latency_ms: AtomicU64,
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

impl Fault {
    pub fn name(&self) -> String {
        match self {
            Fault::Reset => "reset".into(),
            Fault::TimeoutBefore => "timeout_before".into(),
            Fault::Error500 => "error500".into(),
            Fault::TooMany(s) => format!("too_many:{s}"),
            Fault::DropAfterStore => "drop_after_store".into(),
            Fault::TimeoutAfterStore => "timeout_after_store".into(),
            Fault::Reject422 => "reject422".into(),
            Fault::EchoAuth => "echo_auth".into(),
        }
    }

    pub fn parse(name: &str) -> Option<Fault> {
        Some(match name {
            "reset" => Fault::Reset,
            "timeout_before" => Fault::TimeoutBefore,
            "error500" => Fault::Error500,
            "too_many" => Fault::TooMany(1),
            "drop_after_store" => Fault::DropAfterStore,
            "timeout_after_store" => Fault::TimeoutAfterStore,
            "reject422" => Fault::Reject422,
            "echo_auth" => Fault::EchoAuth,
            other => Fault::TooMany(other.strip_prefix("too_many:")?.parse().ok()?),
        })
    }
}

impl Stored {
    /// What was received and stored, for `/control/stats` and test output.
    pub fn stats(&self) -> Value {
        let attachments_intact = self
            .attachments
            .iter()
            .all(|(sha, bytes)| &hex::encode(Sha256::digest(bytes)) == sha);
        json!({
            "requests": self.requests,
            "health_checks": self.health_checks,
            "unauthorized": self.unauthorized,
            "keys_received": self.requests_per_key.len(),
            "writes_received": self.requests_per_key.values().map(|n| u64::from(*n)).sum::<u64>(),
            "keys_stored": self.effects.len(),
            "keys_stored_more_than_once": self.effects.values().filter(|n| **n > 1).count(),
            "duplicates_replayed": self.duplicates_replayed,
            "attachments": self.attachments.keys().collect::<Vec<_>>(),
            "attachments_intact": attachments_intact,
            "reports": self.reports.iter().map(|(k, v)| (k.clone(), v.0)).collect::<HashMap<_, _>>(),
            "drafts": self.drafts.iter().map(|(k, v)| (k.clone(), v.0)).collect::<HashMap<_, _>>(),
            "escalations": self.escalations.len(),
            "fault_rate": self.fault_rate,
            "faults_injected": self.faults_injected.iter().map(|(f, n)| (f.name(), *n)).collect::<HashMap<_, _>>(),
        })
    }
}

impl Portal {
    /// A portal on 127.0.0.1 with a random port, accepting `token`.
    pub async fn start(token: &str, stall: Duration) -> Portal {
        let seed = std::env::var("PORTAL_SEED")
            .ok()
            .and_then(|s| s.parse().ok())
            .unwrap_or(7);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        Portal::start_with(listener, token, stall, seed)
    }

    /// A portal on a listener the caller bound, with a seed for its faults.
    pub fn start_with(
        listener: tokio::net::TcpListener,
        token: &str,
        stall: Duration,
        seed: u64,
    ) -> Portal {
        let shared = Arc::new(Shared {
            stored: Mutex::new(Stored {
                token: token.to_owned(),
                rng: Some(fastrand::Rng::with_seed(seed)),
                ..Default::default()
            }),
            key_locks: Mutex::new(HashMap::new()),
            down: AtomicBool::new(false),
            latency_ms: AtomicU64::new(0),
            stall,
        });
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
            .route("/control/stats", get(control_stats))
            .route("/control/faults", post(control_faults))
            .route("/control/token", post(control_token))
            .route("/control/offline", post(control_offline))
            .route("/control/seed_report", post(control_seed_report))
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

    /// Every write takes this long before it is handled.
    pub fn set_latency(&self, latency: Duration) {
        self.shared
            .latency_ms
            .store(latency.as_millis() as u64, Ordering::SeqCst);
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
        Some(Fault::Reject422) => {
            return Gate::Done(answer(
                422,
                json!({"message": "injected: the portal cannot read this file"}),
            ));
        }
        Some(Fault::EchoAuth) => {
            let auth = headers
                .get("authorization")
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default()
                .to_owned();
            return Gate::Done(answer(
                422,
                json!({"message": format!("cannot accept this request (Authorization: {auth})")}),
            ));
        }
        Some(Fault::TooMany(secs)) => {
            let mut r = answer(429, json!({"message": "slow down"}));
            r.headers_mut()
                .insert("retry-after", secs.to_string().parse().unwrap());
            return Gate::Done(r);
        }
        _ => {}
    }
    Gate::Go { key, fault }
}

/// Take the key's lock, then replay the key's first answer if it has one.
async fn claim(shared: &Shared, key: &str) -> Result<tokio::sync::OwnedMutexGuard<()>, Response> {
    let latency = shared.latency_ms.load(Ordering::SeqCst);
    if latency > 0 {
        tokio::time::sleep(Duration::from_millis(latency)).await;
    }
    let lock = {
        let mut locks = shared.key_locks.lock().unwrap_or_else(|e| e.into_inner());
        locks.entry(key.to_owned()).or_default().clone()
    };
    let guard = lock.lock_owned().await;
    let mut st = shared.lock();
    if let Some((status, body)) = st.keys.get(key).cloned() {
        st.duplicates_replayed += 1;
        let body: Value = serde_json::from_str(&body).unwrap_or(Value::Null);
        return Err(answer(status, body));
    }
    Ok(guard)
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

/// A write request let through: its idempotency key, its fault, and the
/// claim on the key held until the handler is done.
struct Admitted {
    key: String,
    fault: Option<Fault>,
    _claim: tokio::sync::OwnedMutexGuard<()>,
}

/// What every write does first: the gate, the claim on its key (a replay is
/// answered from the first reply), the stall and a timeout before the write.
async fn admit(shared: &Shared, headers: &HeaderMap) -> Result<Admitted, Response> {
    let (key, fault) = match gate(shared, headers, true) {
        Gate::Done(r) => return Err(r),
        Gate::Go { key, fault } => (key, fault),
    };
    let claim = claim(shared, &key).await?;
    stall_if(shared, fault).await;
    if fault == Some(Fault::TimeoutBefore) {
        return Err(answer(503, json!({"message": "too late"})));
    }
    Ok(Admitted {
        key,
        fault,
        _claim: claim,
    })
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
    let Admitted { key, fault, _claim } = match admit(&shared, &headers).await {
        Ok(a) => a,
        Err(r) => return r,
    };
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
    let Admitted { key, fault, _claim } = match admit(&shared, &headers).await {
        Ok(a) => a,
        Err(r) => return r,
    };
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
    let Admitted { key, fault, _claim } = match admit(&shared, &headers).await {
        Ok(a) => a,
        Err(r) => return r,
    };
    let (status, reply) = revisioned(&mut shared.lock().drafts, &id, body);
    finish(&shared, key, fault, status, reply).await
}

async fn escalation(
    State(shared): State<Arc<Shared>>,
    headers: HeaderMap,
    Json(body): Json<Value>,
) -> Response {
    let Admitted { key, fault, _claim } = match admit(&shared, &headers).await {
        Ok(a) => a,
        Err(r) => return r,
    };
    shared.lock().escalations.push(body);
    finish(&shared, key, fault, 201, json!({"status": "escalated"})).await
}

async fn control_stats(State(shared): State<Arc<Shared>>) -> Response {
    answer(200, shared.lock().stats())
}

async fn control_faults(State(shared): State<Arc<Shared>>, Json(body): Json<Value>) -> Response {
    let mut forced = Vec::new();
    for name in body["force"].as_array().into_iter().flatten() {
        match name.as_str().and_then(Fault::parse) {
            Some(f) => forced.push(f),
            None => return answer(400, json!({"message": format!("unknown fault {name}")})),
        }
    }
    let rate = match &body["rate"] {
        Value::Null => None,
        v => match v.as_f64().filter(|r| (0.0..=1.0).contains(r)) {
            Some(r) => Some(r),
            None => return answer(400, json!({"message": "rate: a number from 0 to 1"})),
        },
    };
    let mut st = shared.lock();
    if let Some(r) = rate {
        st.fault_rate = r;
    }
    st.forced.extend(forced);
    answer(
        200,
        json!({"fault_rate": st.fault_rate, "forced": st.forced.len()}),
    )
}

async fn control_token(State(shared): State<Arc<Shared>>, Json(body): Json<Value>) -> Response {
    match body["token"].as_str().filter(|t| !t.is_empty()) {
        Some(t) => {
            shared.lock().token = t.to_owned();
            answer(200, json!({"ok": true}))
        }
        None => answer(400, json!({"message": "token: a non-empty string"})),
    }
}

async fn control_offline(State(shared): State<Arc<Shared>>, Json(body): Json<Value>) -> Response {
    match body["offline"].as_bool() {
        Some(b) => {
            shared.down.store(b, Ordering::SeqCst);
            answer(200, json!({"offline": b}))
        }
        None => answer(400, json!({"message": "offline: true or false"})),
    }
}

async fn control_seed_report(
    State(shared): State<Arc<Shared>>,
    Json(body): Json<Value>,
) -> Response {
    match (body["report_id"].as_str(), body["revision"].as_u64()) {
        (Some(id), Some(rev)) => {
            shared.lock().reports.insert(
                id.to_owned(),
                (rev, json!({"report_id": id, "revision": rev})),
            );
            answer(200, json!({"report_id": id, "revision": rev}))
        }
        _ => answer(
            400,
            json!({"message": "report_id (string) and revision (number) are required"}),
        ),
    }
}
