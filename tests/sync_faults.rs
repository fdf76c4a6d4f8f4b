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

use crate::common;
use crate::portal;
use crate::sync_seed;

use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

use serde_json::Value;
use sha2::{Digest, Sha256};

use servicedesk::desk::Desk;
use servicedesk::store::{NewSession, Unit};
use servicedesk::sync::{self, OutboxStatus, SyncConfig, Syncer, TokenSource};

use portal::{Portal, ALL_FAULTS};
use sync_seed::{seed_session, test_sync_config, SessionShape};

const TOKEN: &str = "tok-faults-0123456789";

/// The sync settings of these tests: the shared ones, polling at 50 ms.
fn cfg() -> SyncConfig {
    SyncConfig {
        poll_interval: Duration::from_millis(50),
        ..test_sync_config()
    }
}

/// Session `i` the way the app writes it (tests/sync_seed), its shape
/// varying with `i`: 1–3 photos, one or two labor draft changes, 1–4 report
/// revisions (each queuing the photos it references before it, once per
/// session), and an escalation for every fourth. Returns the number of
/// outbox items queued.
async fn seed_varied(desk: &Desk, i: usize) -> usize {
    let shape = SessionShape {
        photos: 1 + i % 3,
        draft_changes: if i % 2 == 0 { 2 } else { 1 },
        revisions: (1 + i % 4) as u32,
        escalate: i % 4 == 0,
    };
    seed_session(desk, i, &shape).await.queued
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
            ..Default::default()
        })
        .await
        .unwrap();
    let photo = (
        format!("fuse{i}.png"),
        common::png(9, 9, [200, (i % 251) as u8, 77]),
    );
    for (text, files) in [
        ("maxxair fan stopped working", vec![]),
        ("the fan fuse is blown", vec![photo]),
        ("write it up", vec![]),
    ] {
        desk.chat_turn(&s.id, text, files).await.unwrap();
    }
    // Two revisions: finalize, reopen, finalize again.
    desk.finalize_report(&s.id, Default::default())
        .await
        .unwrap();
    desk.reopen_report(&s.id, None).await.unwrap();
    desk.finalize_report(&s.id, Default::default())
        .await
        .unwrap();
    let queued: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM outbox WHERE session_id = ?")
        .bind(&s.id)
        .fetch_one(desk.store().pool())
        .await
        .unwrap();
    queued as usize
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
        queued += seed_varied(&desk, sessions).await;
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
                    (st.state == servicedesk::sync::SyncState::Offline)
                        .then_some(())
                        .ok_or_else(|| format!("{st:?}"))
                }
            },
        )
        .await;
        // While offline the app keeps working: a new session is queued.
        seed_varied(&desk, 10_000 + fraction).await;
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
        .filter(|p| p.status == OutboxStatus::Conflict)
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
        queued += seed_varied(&desk, sessions).await;
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
        seed_varied(&desk, sessions).await;
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
