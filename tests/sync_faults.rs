//! Portal sync at scale, against the loopback test portal (tests/portal):
//! - 1,000+ outbox items (reports with photos and several revisions, labor
//!   drafts, escalations) over many sessions, delivered by two workers at
//!   once (the app's and a headless `sync run`) through 30 % injected faults
//!   of every kind, 409s from reports another client moved ahead, and two
//!   outages (connection refused);
//! - the real `servicedesk sync run --until-idle` killed with SIGKILL at
//!   random points 50 times, then run to the end.
//!
//! Both end with the same checks: every item the client queued is stored by
//! the portal exactly once (what it stored counted against what it
//! received), the highest revision wins, every photo's bytes hash to their
//! sha256, and nothing is pending without a reason shown in `sync status`.

mod common;
mod portal;

use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

use serde_json::Value;
use sha2::{Digest, Sha256};

use servicedesk::desk::Desk;
use servicedesk::engine::state::LaborStatus;
use servicedesk::store::{NewSession, NewTurn, SessionStatus, Unit};
use servicedesk::sync::items::{self, PhotoItem, ReportFields};
use servicedesk::sync::{self, SyncConfig, Syncer, TokenSource};

use portal::{Portal, ALL_FAULTS};

const TOKEN: &str = "tok-faults-0123456789";

fn cfg() -> SyncConfig {
    SyncConfig {
        connect_timeout: Duration::from_millis(300),
        request_timeout: Duration::from_millis(400),
        backoff_base: Duration::from_millis(5),
        backoff_cap: Duration::from_millis(100),
        concurrency: 8,
        probe_interval: Duration::from_millis(50),
        poll_interval: Duration::from_millis(50),
        ..SyncConfig::default()
    }
}

/// One session the way the app writes it, through the store function a chat
/// turn commits with (`Desk::record_turn`): its photos with a turn, one or
/// two labor draft changes, 1–4 report revisions (each queuing the photos it
/// references before it, once per session), and an escalation for every
/// fourth. Returns the number of outbox items queued.
async fn seed_session(desk: &Desk, i: usize) -> usize {
    let session = desk
        .new_session(NewSession {
            complaint: format!("water heater {i} will not light"),
            customer: Some("Pat".into()),
            technician: Some("Sam".into()),
            language: None,
            unit: Unit {
                vin: Some(format!("1FT{i:014}")),
                plate: Some(format!("P-{i}")),
                make_model: Some("Winnebago View".into()),
                odometer: Some(10_000 + i as i64),
                engine_hours: None,
            },
        })
        .await
        .unwrap();
    let (_, mut state) = desk.store().latest_state(&session.id).await.unwrap();
    let mut queued = 0;
    let mut photos = Vec::new();
    let mut prepared = Vec::new();
    for k in 0..(1 + i % 3) as u8 {
        let png = common::png(
            5 + u32::from(k),
            4,
            [(i % 251) as u8, k, (i / 251) as u8 + 100],
        );
        let a = desk
            .prepare_artifact(format!("unit{i}_{k}.png"), png, Some(format!("photo {k}")))
            .await
            .unwrap();
        photos.push(PhotoItem {
            sha256: a.sha256.clone(),
            file_name: a.file_name.clone(),
            mime: a.mime.clone(),
            caption: a.caption.clone(),
            size_bytes: a.size_bytes,
        });
        prepared.push(a);
    }
    state.labor.status = LaborStatus::Draft;
    state.labor.estimated_hours = Some("1.5".into());
    let mut t = NewTurn::new("photos", "ok", state.clone());
    t.artifacts = prepared;
    t.outbox
        .push(items::labor_item(&session, &state, "2026-01-01T00:00:00Z"));
    queued += desk
        .record_turn(&session.id, &t)
        .await
        .unwrap()
        .outbox_ids
        .len();
    if i % 2 == 0 {
        state.labor.status = LaborStatus::Confirmed;
        state.labor.confirmed_hours = Some("2.0".into());
        let mut t = NewTurn::new("2 hours", "ok", state.clone());
        t.outbox
            .push(items::labor_item(&session, &state, "2026-01-01T00:00:01Z"));
        queued += desk
            .record_turn(&session.id, &t)
            .await
            .unwrap()
            .outbox_ids
            .len();
    }
    for rev in 1..=(1 + i % 4) as u32 {
        state.report_revision = rev;
        let mut t = NewTurn::new("write it up", format!("report {rev}"), state.clone());
        t.report = Some((rev, "en".into(), format!("report {rev}")));
        t.status = Some(SessionStatus::Finalized);
        t.outbox.extend(photos.iter().map(items::attachment_item));
        let fields = ReportFields {
            complaint: session.complaint.clone(),
            cause: format!("thermocouple, revision {rev}"),
            correction: "replaced".into(),
            labor: serde_json::json!({"mode": "confirmed", "hours": "2.00", "rate": null, "lines": []}),
            parts: vec![],
        };
        t.outbox.push(items::report_item(
            &session,
            rev,
            &fields,
            &photos,
            "2026-01-01T00:00:02Z",
        ));
        queued += desk
            .record_turn(&session.id, &t)
            .await
            .unwrap()
            .outbox_ids
            .len();
    }
    if i % 4 == 0 {
        state.escalation.escalated = true;
        state.escalation.reason = Some("needs a human".into());
        let mut t = NewTurn::new("escalate", "escalated", state.clone());
        t.status = Some(SessionStatus::Escalated);
        t.outbox.push(items::escalation_item(
            &session,
            &state,
            "2026-01-01T00:00:03Z",
        ));
        queued += desk
            .record_turn(&session.id, &t)
            .await
            .unwrap()
            .outbox_ids
            .len();
    }
    queued
}

/// A session through the chat itself: a photo, then two write-ups (labor
/// draft, the photo, report revisions 1 and 2).
async fn chat_session(desk: &Desk, i: usize) -> usize {
    let s = desk
        .new_session(NewSession {
            complaint: "maxxair fan stopped working".into(),
            customer: None,
            technician: Some("Sam".into()),
            language: Some("en".into()),
            unit: Unit::default(),
        })
        .await
        .unwrap();
    let mut queued = 0;
    let photo = (
        format!("fuse{i}.png"),
        common::png(9, 9, [200, (i % 251) as u8, 77]),
    );
    for (text, files) in [
        ("maxxair fan stopped working", vec![]),
        ("the fan fuse is blown", vec![photo]),
        ("write it up", vec![]),
        ("write it up", vec![]),
    ] {
        let (rec, _) = desk.chat_turn(&s.id, text, files).await.unwrap();
        queued += rec.outbox_ids.len();
    }
    queued
}

/// What the outbox says the portal must end up with.
struct Expected {
    ids: Vec<String>,
    reports: HashMap<String, u64>,
    drafts: HashMap<String, u64>,
    escalations: usize,
    photos: HashSet<String>,
}

async fn expected(desk: &Desk) -> Expected {
    let rows: Vec<(String, String, String)> =
        sqlx::query_as("SELECT id, kind, payload FROM outbox ORDER BY seq")
            .fetch_all(desk.store().pool())
            .await
            .unwrap();
    let mut exp = Expected {
        ids: Vec::new(),
        reports: HashMap::new(),
        drafts: HashMap::new(),
        escalations: 0,
        photos: HashSet::new(),
    };
    for (id, kind, payload) in rows {
        let p: Value = serde_json::from_str(&payload).unwrap();
        let rev = p["revision"].as_u64().unwrap_or(0);
        match kind.as_str() {
            "report" => {
                let e = exp
                    .reports
                    .entry(p["report_id"].as_str().unwrap().to_owned())
                    .or_default();
                *e = (*e).max(rev);
            }
            "labor_draft" => {
                let e = exp
                    .drafts
                    .entry(p["draft_id"].as_str().unwrap().to_owned())
                    .or_default();
                *e = (*e).max(rev);
            }
            "escalation" => exp.escalations += 1,
            "attachment" => {
                exp.photos.insert(p["sha256"].as_str().unwrap().to_owned());
            }
            other => panic!("unexpected outbox kind {other}"),
        }
        exp.ids.push(id);
    }
    exp
}

/// Exactly once, highest revision (or the portal's own, for reports another
/// client moved ahead), intact photos.
fn check_portal(portal: &Portal, exp: &Expected, moved_ahead: &HashMap<String, u64>) {
    let st = portal.lock();
    for id in &exp.ids {
        let received = st.requests_per_key.get(id).copied().unwrap_or(0);
        let stored = st.effects.get(id).copied().unwrap_or(0);
        assert_eq!(
            stored, 1,
            "item {id}: stored {stored} times (received {received} times); want exactly once"
        );
    }
    assert_eq!(
        st.effects.len(),
        exp.ids.len(),
        "the portal stored keys the client never queued"
    );
    assert_eq!(st.reports.len(), exp.reports.len(), "reports stored");
    for (id, rev) in &exp.reports {
        let want = moved_ahead.get(id).copied().unwrap_or(*rev);
        assert_eq!(
            st.reports.get(id).map(|r| r.0),
            Some(want),
            "report {id}: the highest revision wins"
        );
    }
    assert_eq!(st.drafts.len(), exp.drafts.len(), "labor drafts stored");
    for (id, rev) in &exp.drafts {
        assert_eq!(
            st.drafts.get(id).map(|r| r.0),
            Some(*rev),
            "draft {id}: the highest revision wins"
        );
    }
    assert_eq!(st.escalations.len(), exp.escalations, "escalations stored");
    let sessions: HashSet<&str> = st
        .escalations
        .iter()
        .filter_map(|e| e["session_id"].as_str())
        .collect();
    assert_eq!(
        sessions.len(),
        exp.escalations,
        "one escalation per session"
    );
    let stored: HashSet<String> = st.attachments.keys().cloned().collect();
    assert_eq!(stored, exp.photos, "photos stored");
    for (sha, bytes) in &st.attachments {
        assert_eq!(
            &hex::encode(Sha256::digest(bytes)),
            sha,
            "photo {sha}: its bytes hash to something else"
        );
    }
}

/// Nothing waits without a reason: a pending item is either due now (being
/// delivered) or carries the reason it waits; failed and conflicting items
/// say why.
async fn check_reasons(desk: &Desk) {
    let silent: Vec<(String, String, Option<String>)> = sqlx::query_as(
        "SELECT id, status, next_attempt_at FROM outbox
         WHERE last_error IS NULL
           AND ((status = 'pending' AND next_attempt_at > strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
                OR status IN ('failed', 'conflict'))",
    )
    .fetch_all(desk.store().pool())
    .await
    .unwrap();
    assert!(
        silent.is_empty(),
        "items waiting with no reason: {silent:?}"
    );
}

async fn wait_for<F, Fut>(what: &str, limit: Duration, mut cond: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<(), String>>,
{
    let deadline = Instant::now() + limit;
    loop {
        match cond().await {
            Ok(()) => return,
            Err(state) if Instant::now() >= deadline => {
                panic!("{what}: not reached within {limit:?}; last seen: {state}")
            }
            Err(_) => tokio::time::sleep(Duration::from_millis(20)).await,
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_thousand_items_through_thirty_percent_faults_and_outages_arrive_exactly_once() {
    let dir = tempfile::tempdir().unwrap();
    let desk = Desk::open(dir.path()).await.unwrap();
    let mut portal = Portal::start(TOKEN, Duration::from_millis(700)).await;
    sync::set_portal_url(&desk, &portal.url()).await.unwrap();

    let seeding = Instant::now();
    let mut queued = 0;
    for i in 0..6 {
        queued += chat_session(&desk, i).await;
    }
    let mut sessions = 0;
    while queued < 1000 {
        queued += seed_session(&desk, sessions).await;
        sessions += 1;
    }
    let seeding = seeding.elapsed();
    let exp = expected(&desk).await;
    assert_eq!(
        exp.ids.len(),
        queued,
        "the outbox holds what the turns queued"
    );
    assert!(exp.reports.values().any(|r| *r >= 4), "several revisions");

    // Another client moved three reports ahead: each of their revisions is a 409.
    let mut moved_ahead = HashMap::new();
    for id in exp.reports.keys().take(3) {
        portal.seed_report(id, 50);
        moved_ahead.insert(id.clone(), 50);
    }
    // Every kind of fault at least once, then 30 % at random.
    portal.force(&ALL_FAULTS);
    portal.set_fault_rate(0.30);

    let started = Instant::now();
    // The app's background worker and, at the same time, a headless run.
    let app = Syncer::with_tokens(desk.clone(), cfg(), TokenSource::fixed(Some(TOKEN)));
    let worker = sync::spawn_worker_with(app.clone());
    let headless = Syncer::with_tokens(desk.clone(), cfg(), TokenSource::fixed(Some(TOKEN)));
    let cli = tokio::spawn(async move { headless.run_until_idle(Duration::from_secs(300)).await });

    // Two outages: the portal stops listening (connection refused) at a
    // quarter and at two thirds of the items, until the worker has noticed.
    let total = exp.ids.len();
    for fraction in [4, 3 * 2] {
        let at = match fraction {
            4 => total / 4,
            _ => total * 2 / 3,
        };
        wait_for(
            "deliveries before an outage",
            Duration::from_secs(120),
            || {
                let n = portal.lock().effects.len();
                async move { (n >= at).then_some(()).ok_or_else(|| format!("{n} stored")) }
            },
        )
        .await;
        portal.stop();
        wait_for(
            "the worker sees the portal offline",
            Duration::from_secs(30),
            || {
                let desk = desk.clone();
                let tokens = app.tokens().clone();
                async move {
                    let st = sync::status(&desk, &tokens).await.unwrap();
                    (st.state == "offline")
                        .then_some(())
                        .ok_or_else(|| format!("{st:?}"))
                }
            },
        )
        .await;
        // While offline the app keeps working: a new session is queued.
        seed_session(&desk, 10_000 + fraction).await;
        check_reasons(&desk).await;
        portal.restart().await;
    }
    let exp = expected(&desk).await;

    wait_for("everything delivered", Duration::from_secs(240), || {
        let desk = desk.clone();
        let tokens = app.tokens().clone();
        async move {
            let st = sync::status(&desk, &tokens).await.unwrap();
            (st.pending == 0)
                .then_some(())
                .ok_or_else(|| serde_json::to_string(&st).unwrap())
        }
    })
    .await;
    let elapsed = started.elapsed();
    worker.abort();
    let headless = cli.await.unwrap().unwrap();

    let status = sync::status(&desk, app.tokens()).await.unwrap();
    let conflicts: Vec<_> = status
        .problems
        .iter()
        .filter(|p| p.status == "conflict")
        .collect();
    let want_conflicts: usize = {
        let rows: Vec<(String,)> =
            sqlx::query_as("SELECT payload FROM outbox WHERE kind = 'report'")
                .fetch_all(desk.store().pool())
                .await
                .unwrap();
        rows.iter()
            .filter(|(p,)| {
                let p: Value = serde_json::from_str(p).unwrap();
                moved_ahead.contains_key(p["report_id"].as_str().unwrap())
            })
            .count()
    };
    assert_eq!(
        (status.failed, status.conflicts as usize, status.blocked),
        (0, want_conflicts, 0),
        "{status:?}"
    );
    assert_eq!(conflicts.len(), want_conflicts);
    for c in &conflicts {
        let e: Value = serde_json::from_str(c.last_error.as_deref().unwrap()).unwrap();
        assert_eq!(e["portal"]["stored_revision"], 50, "{e}");
        assert!(e["local_revision"].as_u64().is_some(), "{e}");
    }
    assert_eq!(
        status.done as usize + want_conflicts,
        exp.ids.len(),
        "{status:?}"
    );
    check_reasons(&desk).await;
    check_portal(&portal, &exp, &moved_ahead);
    let st = portal.lock();
    for f in ALL_FAULTS {
        assert!(
            st.faults_injected.get(&f).copied().unwrap_or(0) > 0,
            "fault {f:?} was injected"
        );
    }
    let received: u64 = st.requests_per_key.values().map(|n| u64::from(*n)).sum();
    assert!(
        st.duplicates_replayed > 0,
        "answers lost after storing made duplicate deliveries"
    );
    eprintln!(
        "{} items ({sessions} sessions + 6 chat sessions, seeded in {seeding:?}) delivered in \
         {elapsed:?}: {received} writes received for {} keys stored, {} replays, faults {:?}; \
         headless run {headless:?}",
        exp.ids.len(),
        st.effects.len(),
        st.duplicates_replayed,
        st.faults_injected
    );
}

#[cfg(unix)]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigkill_at_random_points_fifty_times_then_restart_delivers_exactly_once() {
    use std::process::{Command, Stdio};

    let dir = tempfile::tempdir().unwrap();
    let desk = Desk::open(dir.path()).await.unwrap();
    let portal = Portal::start(TOKEN, Duration::from_millis(700)).await;
    // A slow shop network: each write takes 10 ms, so kills find requests
    // in flight (stored by the portal, not yet marked done by the client).
    portal.set_latency(Duration::from_millis(10));
    let mut sessions = 0;
    let mut queued = 0;
    while queued < 300 {
        queued += seed_session(&desk, sessions).await;
        sessions += 1;
    }
    let seed: u64 = std::env::var("KILL_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(11);
    let mut rng = fastrand::Rng::with_seed(seed);
    let spawn = || {
        Command::new(env!("CARGO_BIN_EXE_servicedesk"))
            .arg("--data-dir")
            .arg(dir.path())
            .args(["sync", "run", "--until-idle", "--max-wait", "60", "--json"])
            .env("SERVICEDESK_PORTAL_URL", portal.url())
            .env("SERVICEDESK_PORTAL_TOKEN", TOKEN)
            .env_remove("SERVICEDESK_DATA_DIR")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the servicedesk binary starts")
    };
    let mut mid_delivery = 0;
    let mut finished_early = 0;
    for round in 0..50 {
        let before = portal.lock().requests;
        let mut child = spawn();
        // The app keeps working while the CLI delivers: a new session is
        // queued from this process at the same time.
        seed_session(&desk, sessions).await;
        sessions += 1;
        // Once this run has started delivering, kill it after a random
        // number of further portal requests or a random time.
        let by_requests = rng.bool();
        let requests = rng.u64(0..=8);
        let after = Duration::from_micros(rng.u64(0..20_000));
        let deadline = Instant::now() + Duration::from_secs(30);
        let mut delivering_since: Option<(Instant, u64)> = None;
        let exited = loop {
            if let Some(status) = child.try_wait().unwrap() {
                break Some(status);
            }
            let seen = portal.lock().requests;
            if delivering_since.is_none() && seen > before {
                delivering_since = Some((Instant::now(), seen));
            }
            if let Some((since, first)) = delivering_since {
                let due = if by_requests {
                    seen >= first + requests
                } else {
                    since.elapsed() >= after
                };
                if due {
                    break None;
                }
            }
            assert!(
                Instant::now() < deadline,
                "round {round}: the CLI neither delivered nor exited"
            );
            tokio::time::sleep(Duration::from_micros(200)).await;
        };
        match exited {
            Some(status) => {
                // It ran out of work before the kill point: counted. Exit 3
                // is "items still pending": the session queued meanwhile.
                assert!(
                    status.success() || status.code() == Some(3),
                    "round {round}: sync run exited {status}"
                );
                finished_early += 1;
            }
            None => {
                child.kill().expect("SIGKILL the CLI");
                child.wait().unwrap();
                mid_delivery += 1;
            }
        }
    }
    // The last run goes to the end.
    let child = spawn();
    let out = tokio::task::spawn_blocking(move || child.wait_with_output().unwrap())
        .await
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "final sync run: {stdout}");
    let run: Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(run["status"]["pending"], 0, "{run}");
    assert_eq!(run["status"]["failed"], 0, "{run}");
    assert_eq!(run["status"]["conflicts"], 0, "{run}");

    let exp = expected(&desk).await;
    let status = sync::status(&desk, &TokenSource::fixed(Some(TOKEN)))
        .await
        .unwrap();
    assert_eq!(status.done as usize, exp.ids.len(), "{status:?}");
    check_reasons(&desk).await;
    check_portal(&portal, &exp, &HashMap::new());
    assert!(
        mid_delivery >= 45,
        "only {mid_delivery} of 50 runs were killed while delivering ({finished_early} ran \
         out of work first)"
    );
    let st = portal.lock();
    eprintln!(
        "seed {seed}: {} items; 50 rounds: {mid_delivery} killed mid-delivery, {finished_early} \
         ran out of work; {} writes received, {} replays",
        exp.ids.len(),
        st.requests_per_key.values().sum::<u32>(),
        st.duplicates_replayed
    );
}
