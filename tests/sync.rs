//! Portal sync against the loopback test portal (crates/test-portal): delivery
//! through injected faults of every kind, exactly once in effect, highest
//! revision wins, photo hashes match; 401 pauses until the token changes;
//! 409 is a conflict that does not loop; an outage loses nothing; the token
//! never reaches the database, the outbox, the logs or an export.

use crate::common;
use crate::portal;
use crate::sync_seed;

use std::collections::HashMap;
use std::time::Duration;

use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use servicedesk::api;
use servicedesk::desk::Desk;
use servicedesk::store::outbox_items::{self as items, PhotoItem};
use servicedesk::store::{NewSession, Session, Unit};
use servicedesk::sync::{self, OutboxStatus, Stopped, SyncConfig, SyncState, Syncer, TokenSource};

use portal::{Fault, Portal, ALL_FAULTS};
use sync_seed::{seed_session, test_sync_config, SessionShape};

const STALL: Duration = Duration::from_millis(700);

async fn setup(
    portal_token: &str,
    client_token: &str,
) -> (tempfile::TempDir, Desk, Portal, Syncer) {
    let dir = tempfile::tempdir().unwrap();
    let desk = Desk::open(dir.path()).await.unwrap();
    let portal = Portal::start(portal_token, STALL).await;
    sync::set_portal_url(&desk, &portal.url()).await.unwrap();
    let syncer = Syncer::with_tokens(
        desk.clone(),
        test_sync_config(),
        TokenSource::fixed(Some(client_token)),
    );
    (dir, desk, portal, syncer)
}

/// What the portal should end up with.
#[derive(Default)]
struct Expected {
    reports: HashMap<String, u64>,
    drafts: HashMap<String, u64>,
    escalations: usize,
    photos: Vec<String>,
}

/// Sessions the way the app writes them (tests/sync_seed): two photos, a
/// labor draft then confirmed, two report revisions (finalize twice) and,
/// for every third session, an escalation.
async fn make_sessions(desk: &Desk, n: usize, exp: &mut Expected) -> Vec<Session> {
    let mut sessions = Vec::new();
    for i in 0..n {
        let shape = SessionShape {
            photos: 2,
            draft_changes: 2,
            revisions: 2,
            escalate: i % 3 == 0,
        };
        let seeded = seed_session(desk, i, &shape).await;
        let id = &seeded.session.id;
        exp.reports
            .insert(items::report_id(id), u64::from(shape.revisions));
        exp.drafts
            .insert(items::draft_id(id), shape.draft_changes as u64);
        exp.escalations += usize::from(shape.escalate);
        exp.photos
            .extend(seeded.photos.iter().map(|p| p.sha256.clone()));
        sessions.push(seeded.session);
    }
    exp.photos.sort();
    exp.photos.dedup();
    sessions
}

async fn outbox_ids(desk: &Desk) -> Vec<(String, String)> {
    sqlx::query_as("SELECT id, status FROM outbox ORDER BY seq")
        .fetch_all(desk.store().pool())
        .await
        .unwrap()
}

fn check_portal(portal: &Portal, exp: &Expected, ids: &[(String, String)]) {
    let st = portal.lock();
    for (id, _) in ids {
        assert_eq!(
            st.effects.get(id),
            Some(&1),
            "item {id} stored exactly once"
        );
    }
    assert_eq!(
        st.effects.len(),
        ids.len(),
        "nothing stored that was not queued"
    );
    assert_eq!(st.reports.len(), exp.reports.len());
    for (id, rev) in &exp.reports {
        assert_eq!(
            st.reports.get(id).map(|r| r.0),
            Some(*rev),
            "report {id}: highest revision wins"
        );
    }
    for (id, rev) in &exp.drafts {
        assert_eq!(st.drafts.get(id).map(|r| r.0), Some(*rev), "draft {id}");
    }
    assert_eq!(st.escalations.len(), exp.escalations);
    let mut shas: Vec<&String> = st.attachments.keys().collect();
    shas.sort();
    assert_eq!(shas, exp.photos.iter().collect::<Vec<_>>());
    for (sha, bytes) in &st.attachments {
        assert_eq!(
            &hex::encode(Sha256::digest(bytes)),
            sha,
            "photo bytes intact"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn hundreds_of_items_through_faults_of_every_kind_arrive_exactly_once() {
    let (_dir, desk, portal, syncer) = setup("tok-good-0123456789", "tok-good-0123456789").await;
    let mut exp = Expected::default();
    make_sessions(&desk, 60, &mut exp).await;
    let ids = outbox_ids(&desk).await;
    assert!(ids.len() >= 350, "{} items", ids.len());
    // Every kind of fault at least once, then 30 % at random.
    portal.force(&ALL_FAULTS);
    portal.set_fault_rate(0.30);
    let started = std::time::Instant::now();
    let summary = syncer
        .run_until_idle(Duration::from_secs(60))
        .await
        .unwrap();
    let elapsed = started.elapsed();
    assert_eq!(summary.stopped, None, "{summary:?}");
    let status = sync::status(&desk, syncer.tokens()).await.unwrap();
    assert_eq!(
        (status.pending, status.failed, status.conflicts),
        (0, 0, 0),
        "{status:?}"
    );
    assert_eq!(status.done as usize, ids.len());
    assert_eq!(status.state, SyncState::Online);
    check_portal(&portal, &exp, &ids);
    {
        let st = portal.lock();
        for f in ALL_FAULTS {
            assert!(
                st.faults_injected.get(&f).copied().unwrap_or(0) > 0,
                "fault {f:?} injected"
            );
        }
        let faults: u64 = st.faults_injected.values().sum();
        assert!(
            st.duplicates_replayed > 0,
            "a lost answer made a duplicate delivery"
        );
        eprintln!(
            "{} items, {} requests, {faults} faults, {} replays, {summary:?} in {elapsed:?}",
            ids.len(),
            st.requests,
            st.duplicates_replayed
        );
    }
    // Duplicate deliveries: a crash after sending but before marking done
    // leaves items pending; sending them again stores nothing new.
    portal.set_fault_rate(0.0);
    sqlx::query("UPDATE outbox SET status = 'pending' WHERE seq % 7 = 0")
        .execute(desk.store().pool())
        .await
        .unwrap();
    let replays_before = portal.lock().duplicates_replayed;
    syncer
        .run_until_idle(Duration::from_secs(20))
        .await
        .unwrap();
    assert!(portal.lock().duplicates_replayed > replays_before);
    let ids = outbox_ids(&desk).await;
    assert!(ids.iter().all(|(_, s)| s == "done"));
    check_portal(&portal, &exp, &ids);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unauthorized_pauses_until_the_token_changes() {
    let (_dir, desk, portal, syncer) = setup("tok-new-abcdefghijkl", "tok-old-abcdefghijkl").await;
    let mut exp = Expected::default();
    make_sessions(&desk, 3, &mut exp).await;
    let summary = syncer
        .run_until_idle(Duration::from_secs(10))
        .await
        .unwrap();
    assert!(
        matches!(summary.stopped, Some(Stopped::Paused(_))),
        "{summary:?}"
    );
    let status = sync::status(&desk, syncer.tokens()).await.unwrap();
    assert_eq!(status.state, SyncState::Paused);
    assert!(status.paused.as_deref().unwrap().contains("401"));
    assert_eq!(status.pending as usize, outbox_ids(&desk).await.len());
    assert!(status.problems.iter().any(|p| p
        .last_error
        .as_deref()
        .unwrap_or("")
        .starts_with("paused:")));
    // Paused: nothing more is sent while the token is the same.
    let before = portal.lock().requests;
    for _ in 0..3 {
        syncer.pass().await.unwrap();
    }
    assert_eq!(
        portal.lock().requests,
        before,
        "a paused sync sends nothing"
    );
    // New credentials: sync resumes by itself.
    syncer.tokens().set_fixed(Some("tok-new-abcdefghijkl"));
    let summary = syncer
        .run_until_idle(Duration::from_secs(10))
        .await
        .unwrap();
    assert_eq!(summary.stopped, None);
    let ids = outbox_ids(&desk).await;
    assert!(ids.iter().all(|(_, s)| s == "done"));
    check_portal(&portal, &exp, &ids);
    assert_eq!(
        sync::status(&desk, syncer.tokens()).await.unwrap().paused,
        None
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_409_is_a_conflict_with_both_revisions_and_does_not_loop() {
    let (_dir, desk, portal, syncer) = setup("tok-0123456789ab", "tok-0123456789ab").await;
    let mut exp = Expected::default();
    let sessions = make_sessions(&desk, 2, &mut exp).await;
    let report_id = items::report_id(&sessions[0].id);
    portal.seed_report(&report_id, 5);
    syncer
        .run_until_idle(Duration::from_secs(10))
        .await
        .unwrap();
    let status = sync::status(&desk, syncer.tokens()).await.unwrap();
    assert_eq!(
        (status.conflicts, status.failed, status.pending),
        (2, 0, 0),
        "{status:?}"
    );
    let conflicts: Vec<_> = status
        .problems
        .iter()
        .filter(|p| p.status == OutboxStatus::Conflict)
        .collect();
    for c in &conflicts {
        let e: Value = serde_json::from_str(c.last_error.as_deref().unwrap()).unwrap();
        assert_eq!(e["portal"]["stored_revision"], 5);
        assert!(e["local_revision"] == 1 || e["local_revision"] == 2, "{e}");
        assert_eq!(portal.lock().requests_per_key[&c.id], 1);
    }
    // Runs again: no request for a conflict.
    syncer.run_until_idle(Duration::from_secs(5)).await.unwrap();
    for c in &conflicts {
        assert_eq!(
            portal.lock().requests_per_key[&c.id],
            1,
            "a conflict is not retried blindly"
        );
    }
    // The other session went through; its report is at revision 2.
    assert_eq!(
        portal.lock().reports[&items::report_id(&sessions[1].id)].0,
        2
    );
    // Retry re-queues with the same key; the portal says 409 again.
    let item = sync::retry(&desk, &conflicts[0].id).await.unwrap();
    assert_eq!(item.status, OutboxStatus::Pending);
    syncer.run_until_idle(Duration::from_secs(5)).await.unwrap();
    {
        let st = portal.lock();
        assert_eq!(st.requests_per_key[&conflicts[0].id], 2, "sent once more");
        assert_eq!(
            st.effects[&conflicts[0].id], 1,
            "the key's first answer is replayed"
        );
    }
    let again = sync::status(&desk, syncer.tokens()).await.unwrap();
    assert_eq!(again.conflicts, 2);
    let done_id = outbox_ids(&desk)
        .await
        .into_iter()
        .find(|(_, s)| s == "done")
        .unwrap()
        .0;
    let err = sync::retry(&desk, &done_id).await.unwrap_err();
    assert!(err.to_string().contains("only failed or conflict"), "{err}");
    // A CLI-style exit status: conflicts remain.
    let out = api::dispatch(&desk, "sync_status", Value::Null)
        .await
        .unwrap();
    assert_eq!(out["conflicts"], 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn portal_down_loses_nothing_and_delivery_resumes_by_itself() {
    let (_dir, desk, mut portal, syncer) = setup("tok-0123456789ab", "tok-0123456789ab").await;
    let mut exp = Expected::default();
    make_sessions(&desk, 4, &mut exp).await;
    portal.stop();
    let summary = syncer.pass().await.unwrap();
    assert!(
        matches!(summary.stopped, Some(Stopped::Offline(_))),
        "{summary:?}"
    );
    let status = sync::status(&desk, syncer.tokens()).await.unwrap();
    assert_eq!(status.state, SyncState::Offline);
    // The app keeps working while the portal is away: more work is queued.
    make_sessions(&desk, 2, &mut exp).await;
    // The background worker, and the portal back after a while.
    let worker = sync::spawn_worker_with(syncer.clone());
    tokio::time::sleep(Duration::from_millis(800)).await;
    assert_eq!(portal.lock().effects.len(), 0);
    portal.restart().await;
    let ids = outbox_ids(&desk).await;
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    loop {
        let st = sync::status(&desk, syncer.tokens()).await.unwrap();
        if st.done as usize == ids.len() {
            assert_eq!(st.state, SyncState::Online);
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "not delivered: {st:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    worker.abort();
    check_portal(&portal, &exp, &ids);
}

/// A session diagnosed in the chat with one photo and written up once.
async fn fan_fuse_report_with_a_photo(desk: &Desk) -> Session {
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
    desk.chat_turn(&s.id, "maxxair fan stopped working", vec![])
        .await
        .unwrap();
    let photo = ("fuse.png".to_owned(), common::png(9, 9, [200, 10, 10]));
    desk.chat_turn(&s.id, "the fan fuse is blown", vec![photo])
        .await
        .unwrap();
    desk.chat_turn(&s.id, "write it up", vec![]).await.unwrap();
    desk.finalize_report(&s.id, Default::default())
        .await
        .unwrap();
    s
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_finalize_queues_photos_before_the_report_once_each() {
    let dir = tempfile::tempdir().unwrap();
    let desk = Desk::open(dir.path()).await.unwrap();
    let s = fan_fuse_report_with_a_photo(&desk).await;
    // A write-up after finalizing changes nothing until a reopen; the next
    // finalize is revision 2, and the photo is not sent again.
    desk.chat_turn(&s.id, "write it up", vec![]).await.unwrap();
    desk.reopen_report(&s.id, Some("Sam")).await.unwrap();
    desk.chat_turn(&s.id, "write it up", vec![]).await.unwrap();
    desk.finalize_report(&s.id, Default::default())
        .await
        .unwrap();
    let rows: Vec<(String, String, String)> = sqlx::query_as(
        "SELECT kind, target, payload FROM outbox WHERE session_id = ? ORDER BY seq",
    )
    .bind(&s.id)
    .fetch_all(desk.store().pool())
    .await
    .unwrap();
    let kinds: Vec<&str> = rows.iter().map(|r| r.0.as_str()).collect();
    assert_eq!(
        kinds,
        ["labor_draft", "attachment", "report", "report"],
        "{rows:?}"
    );
    let report: Value = serde_json::from_str(&rows[2].2).unwrap();
    assert_eq!(report["revision"], 1);
    assert_eq!(report["labor"]["hours"], "0.50");
    assert!(!report["cause"].as_str().unwrap().is_empty());
    let sha = report["attachments"][0]["sha256"].as_str().unwrap();
    assert_eq!(rows[1].1, format!("/api/v1/attachments/{sha}"));
    let rev2: Value = serde_json::from_str(&rows[3].2).unwrap();
    assert_eq!(rev2["revision"], 2);
    let draft: Value = serde_json::from_str(&rows[0].2).unwrap();
    assert_eq!(
        (draft["revision"].as_i64(), draft["mode"].as_str()),
        (Some(1), Some("draft"))
    );
}

/// The payloads of a session's queued report revisions, oldest first.
async fn queued_reports(desk: &Desk, session_id: &str) -> Vec<Value> {
    let rows: Vec<(String,)> = sqlx::query_as(
        "SELECT payload FROM outbox WHERE session_id = ? AND kind = 'report' ORDER BY seq",
    )
    .bind(session_id)
    .fetch_all(desk.store().pool())
    .await
    .unwrap();
    rows.iter()
        .map(|(p,)| serde_json::from_str(p).unwrap())
        .collect()
}

/// A visit with two complaint lines reaches the portal with both (warranty
/// claims are filed per line): `lines` in report order, each with its own
/// cause, labor lines and parts; the top-level 3C is the first line's. An
/// edit made before finalizing is the first line's, the one the app shows,
/// in the report and in the payload alike; the second line keeps its words.
#[tokio::test]
async fn a_two_complaint_report_reaches_the_portal_with_both_lines() {
    use servicedesk::engine::report::{ReportEdits, SectionEdits};
    let dir = tempfile::tempdir().unwrap();
    let desk = Desk::open(dir.path()).await.unwrap();
    let s = desk
        .new_session(NewSession {
            complaint: "roof fan does not run".into(),
            customer: None,
            technician: Some("Sam".into()),
            language: Some("en".into()),
            unit: Unit::default(),
            ..Default::default()
        })
        .await
        .unwrap();
    for line in [
        "the roof fan does not work",
        "also the water heater wont make hot water on gas",
        "the panel fuse is blown",
        "next",
        "12.6 at the board",
        "no spark",
        "electrode ceramic is cracked",
    ] {
        desk.chat_turn(&s.id, line, vec![]).await.unwrap();
    }
    let edits = ReportEdits {
        en: SectionEdits {
            cause: Some("Panel fuse blown by a pinched fan lead.".into()),
            ..Default::default()
        },
        ..Default::default()
    };
    desk.finalize_report(&s.id, edits).await.unwrap();
    let report = queued_reports(&desk, &s.id).await.pop().unwrap();
    let lines = report["lines"].as_array().unwrap();
    assert_eq!(lines.len(), 2, "{report:#}");
    assert_eq!(lines[0]["cause"], "Panel fuse blown by a pinched fan lead.");
    assert_eq!(report["cause"], lines[0]["cause"]);
    assert!(lines[1]["complaint"]
        .as_str()
        .unwrap()
        .contains("no hot water"));
    assert!(lines[1]["cause"].as_str().unwrap().contains("electrode"));
    let op = lines[1]["labor"]["lines"][0]["op_code"].as_str().unwrap();
    assert!(op.starts_with("water_heater."), "{op}");
    assert!(!lines[1]["parts"].as_array().unwrap().is_empty());

    let reports = desk.store().reports(&s.id).await.unwrap();
    let body = &reports.last().unwrap().2;
    let doc = servicedesk::engine::report::parse(body, "en");
    let blocks = &doc.blocks[0].complaints;
    assert_eq!(blocks[0].cause, "Panel fuse blown by a pinched fan lead.");
    assert!(blocks[1].cause.contains("electrode"), "{body}");
}

/// A line the visit did not diagnose goes to the portal as such: its
/// complaint, a cause saying it was not diagnosed, no labor lines, no parts.
#[tokio::test]
async fn a_declined_line_reaches_the_portal_as_not_diagnosed() {
    let dir = tempfile::tempdir().unwrap();
    let desk = Desk::open(dir.path()).await.unwrap();
    let s = fan_fuse_report_with_a_photo(&desk).await;
    // One line, one report: the payload has that line alone.
    let first = queued_reports(&desk, &s.id).await.pop().unwrap();
    assert_eq!(first["lines"].as_array().unwrap().len(), 1);
    assert_eq!(first["lines"][0]["cause"], first["cause"]);
    desk.reopen_report(&s.id, None).await.unwrap();
    for line in [
        "also the water heater wont make hot water on gas",
        "write it up",
        "customer declined the water heater, write it up",
    ] {
        desk.chat_turn(&s.id, line, vec![]).await.unwrap();
    }
    desk.finalize_report(&s.id, Default::default())
        .await
        .unwrap();
    let report = queued_reports(&desk, &s.id).await.pop().unwrap();
    let lines = report["lines"].as_array().unwrap();
    assert_eq!(lines.len(), 2, "{report:#}");
    assert!(lines[0]["cause"].as_str().unwrap().contains("fuse"));
    assert!(lines[1]["complaint"]
        .as_str()
        .unwrap()
        .contains("no hot water"));
    assert_eq!(lines[1]["cause"], "Not diagnosed this visit.");
    assert_eq!(lines[1]["labor"]["hours"], "0.00");
    assert_eq!(lines[1]["labor"]["lines"], json!([]));
    assert_eq!(lines[1]["parts"], json!([]));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_token_never_reaches_the_database_the_outbox_the_logs_or_an_export() {
    const TOKEN: &str = "tok-SECRET-7f3a9c1e5b2d";
    let (dir, desk, portal, syncer) = setup(TOKEN, TOKEN).await;
    let mut exp = Expected::default();
    let sessions = make_sessions(&desk, 3, &mut exp).await;
    // Settings through the api: only the last four characters come back.
    let settings = api::sync::portal_settings_with(
        &desk,
        api::sync::PortalSettingsRequest {
            token: Some(TOKEN.into()),
            ..Default::default()
        },
        syncer.tokens(),
    )
    .await
    .unwrap();
    assert_eq!(settings.token_last4.as_deref(), Some("5b2d"));
    assert!(!serde_json::to_string(&settings).unwrap().contains(TOKEN));
    // A 401 pause stores a fingerprint of the refused token, not the token.
    syncer.tokens().set_fixed(Some("tok-wrong-000000000000"));
    syncer.run_until_idle(Duration::from_secs(5)).await.unwrap();
    assert_eq!(
        sync::status(&desk, syncer.tokens()).await.unwrap().state,
        SyncState::Paused
    );
    // Deliver through the CLI with the token in the environment and every log on.
    let url = portal.url();
    let data = dir.path().to_path_buf();
    let out = tokio::task::spawn_blocking(move || {
        std::process::Command::new(common::BIN)
            .arg("--data-dir")
            .arg(&data)
            .args(["sync", "run", "--until-idle", "--max-wait", "30", "--json"])
            .env("SERVICEDESK_PORTAL_TOKEN", TOKEN)
            .env("SERVICEDESK_PORTAL_URL", &url)
            .env("SERVICEDESK_LOG", "trace")
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}\n{stderr}");
    assert!(!stderr.is_empty(), "trace logging was on");
    assert!(
        !stdout.contains(TOKEN) && !stderr.contains(TOKEN),
        "token in the CLI output"
    );
    let run: Value = serde_json::from_str(stdout.trim()).unwrap();
    for key in ["online", "pending", "failed", "conflicts", "done"] {
        assert!(run["status"].get(key).is_some(), "status has {key}");
    }
    assert_eq!(run["status"]["pending"], 0);
    // The status command too.
    let status = common::cli_json(dir.path(), &["sync", "status", "--json"]);
    assert_eq!(status["failed"], 0);
    // Exports.
    for s in &sessions {
        let export = api::dispatch(
            &desk,
            "session_export",
            serde_json::json!({"session_id": s.id}),
        )
        .await
        .map(|v| v.to_string())
        .unwrap_or_default();
        assert!(!export.contains(TOKEN));
        // The report as a manager gets it (Markdown).
        let report = api::dispatch(
            &desk,
            "report_export",
            serde_json::json!({"session_id": s.id, "format": "markdown"}),
        )
        .await
        .unwrap();
        let markdown = report["content"].as_str().unwrap();
        assert!(markdown.contains("report 2"), "{markdown}");
        assert!(
            !report.to_string().contains(TOKEN),
            "token in the Markdown export"
        );
    }
    // The outbox payloads and errors.
    let rows: Vec<(String, Option<String>)> =
        sqlx::query_as("SELECT payload, last_error FROM outbox")
            .fetch_all(desk.store().pool())
            .await
            .unwrap();
    for (p, e) in rows {
        assert!(!p.contains(TOKEN) && !e.unwrap_or_default().contains(TOKEN));
    }
    // The database files, byte for byte.
    desk.close().await;
    for name in ["servicedesk.db", "servicedesk.db-wal", "servicedesk.db-shm"] {
        if let Ok(bytes) = std::fs::read(dir.path().join(name)) {
            assert!(
                !bytes.windows(TOKEN.len()).any(|w| w == TOKEN.as_bytes()),
                "token in {name}"
            );
        }
    }
    check_portal(&portal, &exp, &{
        let d = Desk::open(dir.path()).await.unwrap();
        outbox_ids(&d).await
    });
}

#[test]
fn plain_http_only_on_loopback() {
    assert!(sync::validate_url("https://portal.example.com").is_ok());
    assert!(sync::validate_url("http://127.0.0.1:8080").is_ok());
    assert!(sync::validate_url("http://localhost:1").is_ok());
    assert!(sync::validate_url("http://[::1]:9").is_ok());
    for bad in [
        "http://portal.example.com",
        "http://10.0.0.5",
        "ftp://x",
        "https://u:p@x.com",
        "nonsense",
    ] {
        assert!(sync::validate_url(bad).is_err(), "{bad}");
    }
    let cfg = SyncConfig::default();
    for attempts in 0..40 {
        assert!(sync::backoff_delay(&cfg, attempts) <= cfg.backoff_cap);
    }
    assert_eq!(
        sync::client::parse_retry_after("7"),
        Some(Duration::from_secs(7))
    );
    let _ = Fault::Reset;
}

/// A session with one photo and one report revision, queued by a turn.
async fn photo_report_session(desk: &Desk, n: usize) -> (Session, PhotoItem) {
    let shape = SessionShape {
        photos: 1,
        draft_changes: 0,
        revisions: 1,
        escalate: false,
    };
    let mut seeded = seed_session(desk, n, &shape).await;
    (seeded.session, seeded.photos.remove(0))
}

async fn item_of(desk: &Desk, session_id: &str, kind: &str) -> sync::ItemInfo {
    sqlx::query_as(
        "SELECT id, session_id, kind, target, status, attempts, next_attempt_at, last_error,
                http_status, created_at FROM outbox WHERE session_id = ? AND kind = ?",
    )
    .bind(session_id)
    .bind(kind)
    .fetch_one(desk.store().pool())
    .await
    .unwrap()
}

/// A session purged before its report was delivered: its items are closed
/// with the reason (visible in the sync status), never left pending behind
/// a photo that is gone.
#[tokio::test]
async fn purging_a_session_closes_its_undelivered_items_with_the_reason() {
    let dir = tempfile::tempdir().unwrap();
    let desk = Desk::open(dir.path()).await.unwrap();
    let s = fan_fuse_report_with_a_photo(&desk).await;
    let before: Vec<String> =
        sqlx::query_scalar("SELECT status FROM outbox WHERE session_id = ? ORDER BY seq")
            .bind(&s.id)
            .fetch_all(desk.store().pool())
            .await
            .unwrap();
    assert!(
        before.len() >= 2 && before.iter().all(|st| st == "pending"),
        "{before:?}"
    );

    desk.delete_session(&s.id, true).await.unwrap();
    let after: Vec<(String, Option<String>)> =
        sqlx::query_as("SELECT status, last_error FROM outbox WHERE session_id = ? ORDER BY seq")
            .bind(&s.id)
            .fetch_all(desk.store().pool())
            .await
            .unwrap();
    assert_eq!(after.len(), before.len());
    for (status, why) in &after {
        assert_eq!(status, "failed");
        assert!(
            why.as_deref().unwrap_or("").contains("session was deleted"),
            "{why:?}"
        );
    }
    let status = api::sync::sync_status(&desk).await.unwrap();
    assert_eq!(status.pending, 0);
    assert!(
        status.problems.iter().any(|p| p
            .last_error
            .as_deref()
            .unwrap_or("")
            .contains("session was deleted")),
        "{:?}",
        status.problems
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_item_wakes_the_worker_at_once() {
    let (_dir, desk, portal, _) = setup("tok-0123456789ab", "tok-0123456789ab").await;
    // The worker would look for new items only once an hour: only the wake-up
    // a committed turn sends can make it deliver within the test.
    let cfg = SyncConfig {
        poll_interval: Duration::from_secs(3600),
        probe_interval: Duration::from_secs(3600),
        ..test_sync_config()
    };
    let syncer = Syncer::with_tokens(
        desk.clone(),
        cfg,
        TokenSource::fixed(Some("tok-0123456789ab")),
    );
    let worker = sync::spawn_worker_with(syncer.clone());
    // Let it go idle first (its first pass finds nothing).
    tokio::time::sleep(Duration::from_millis(100)).await;
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
    for text in [
        "maxxair fan stopped working",
        "the fan fuse is blown",
        "write it up",
    ] {
        desk.chat_turn(&s.id, text, vec![]).await.unwrap();
    }
    desk.finalize_report(&s.id, Default::default())
        .await
        .unwrap();
    let queued = outbox_ids(&desk).await.len();
    assert!(queued >= 2, "the chat queued a labor draft and a report");
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    loop {
        let st = sync::status(&desk, syncer.tokens()).await.unwrap();
        if st.done as usize == queued {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the worker did not wake for new items: {st:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    worker.abort();
    assert_eq!(portal.lock().reports.len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_429_delays_only_its_item_and_its_session() {
    let (_dir, desk, portal, syncer) = setup("tok-0123456789ab", "tok-0123456789ab").await;
    let mut exp = Expected::default();
    let sessions = make_sessions(&desk, 4, &mut exp).await;
    // The first write is told to come back in an hour.
    portal.force(&[Fault::TooMany(3600)]);
    let summary = syncer.pass().await.unwrap();
    assert_eq!(
        (summary.retried, &summary.stopped),
        (1, &None),
        "{summary:?}"
    );
    type Row = (
        String,
        String,
        String,
        Option<i64>,
        Option<String>,
        Option<String>,
    );
    let rows: Vec<Row> = sqlx::query_as(
        "SELECT id, session_id, status, http_status, next_attempt_at, last_error
             FROM outbox ORDER BY seq",
    )
    .fetch_all(desk.store().pool())
    .await
    .unwrap();
    let limited: Vec<_> = rows.iter().filter(|r| r.3 == Some(429)).collect();
    assert_eq!(limited.len(), 1, "{rows:?}");
    let (id, session, status, _, next, error) = limited[0];
    assert_eq!(status, "pending");
    assert!(error.as_deref().unwrap().contains("429"), "{error:?}");
    let next = chrono::DateTime::parse_from_rfc3339(next.as_deref().unwrap()).unwrap();
    assert!(
        next > chrono::Utc::now() + chrono::Duration::minutes(50),
        "Retry-After honoured: {next}"
    );
    // Every other session was delivered in full; that session waits from
    // its rate-limited item on (per-session order).
    for s in &sessions {
        let mine: Vec<_> = rows.iter().filter(|r| r.1 == s.id).collect();
        if s.id == *session {
            let at = mine.iter().position(|r| r.0 == *id).unwrap();
            assert!(mine[..at].iter().all(|r| r.2 == "done"));
            assert!(mine[at..].iter().all(|r| r.2 == "pending"));
        } else {
            assert!(mine.iter().all(|r| r.2 == "done"), "{mine:?}");
        }
    }
    let st = sync::status(&desk, syncer.tokens()).await.unwrap();
    assert_eq!(st.syncing, 0, "{st:?}");
    assert!(st.waiting > 0 && st.pending == st.waiting, "{st:?}");
    assert!(st.problems.iter().any(|p| &p.id == id));
    assert_eq!(
        portal.lock().requests_per_key[id],
        1,
        "asked once, not hammered"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_photo_that_is_not_sent_blocks_its_report_with_a_reason() {
    let (_dir, desk, portal, syncer) = setup("tok-0123456789ab", "tok-0123456789ab").await;
    // Session A: the photo's file is damaged on disk, so it cannot be sent.
    let (a, photo_a) = photo_report_session(&desk, 1).await;
    let blob = desk.blobs().path_of(&photo_a.sha256);
    let good = std::fs::read(&blob).unwrap();
    std::fs::write(&blob, b"not the photo").unwrap();
    // Session B: the portal refuses the photo (422). A's photo never reaches
    // the portal, so B's is the first write it sees.
    let (b, photo_b) = photo_report_session(&desk, 2).await;
    portal.force(&[Fault::Reject422]);
    let summary = syncer.pass().await.unwrap();
    assert_eq!((summary.failed, summary.done), (2, 0), "{summary:?}");
    for (s, photo, why_photo) in [
        (&a, &photo_a, "not sent"),
        (&b, &photo_b, "cannot read this file"),
    ] {
        let att = item_of(&desk, &s.id, "attachment").await;
        let rep = item_of(&desk, &s.id, "report").await;
        assert_eq!(att.status, OutboxStatus::Failed, "{att:?}");
        assert_eq!(rep.status, OutboxStatus::Pending, "{rep:?}");
        let why = rep.last_error.as_deref().unwrap();
        assert!(
            why.starts_with("blocked: photo") && why.contains(&photo.sha256),
            "{why}"
        );
        assert!(
            why.contains(why_photo),
            "says what happened to the photo: {why}"
        );
        assert!(why.contains(&att.id), "names the item to retry: {why}");
        assert!(
            !portal.lock().requests_per_key.contains_key(&rep.id),
            "the report never went out without its photo"
        );
    }
    let st = sync::status(&desk, syncer.tokens()).await.unwrap();
    assert_eq!((st.blocked, st.failed, st.syncing), (2, 2, 0), "{st:?}");
    // Blocked reports are not waited for: a run ends at once.
    let summary = syncer.run_until_idle(Duration::from_secs(5)).await.unwrap();
    assert_eq!(summary.sent, 0, "{summary:?}");
    // The photos are retried (A's repaired first): the reports follow them.
    std::fs::write(&blob, &good).unwrap();
    for s in [&a, &b] {
        let att = item_of(&desk, &s.id, "attachment").await;
        sync::retry(&desk, &att.id).await.unwrap();
    }
    syncer
        .run_until_idle(Duration::from_secs(10))
        .await
        .unwrap();
    for (s, photo) in [(&a, &photo_a), (&b, &photo_b)] {
        let rep = item_of(&desk, &s.id, "report").await;
        assert_eq!((rep.status.as_str(), rep.last_error), ("done", None));
        assert!(portal.lock().attachments.contains_key(&photo.sha256));
    }
    let st = sync::status(&desk, syncer.tokens()).await.unwrap();
    assert_eq!((st.blocked, st.failed, st.pending), (0, 0, 0), "{st:?}");
}

/// Runs `script` (sh) under its own kernel session keyring (inside
/// `wrapper`, e.g. a private D-Bus session), with the CLI in `$BIN`, a data
/// dir in `$D`, the token in `$T` and `$HOME` in a temporary directory;
/// returns stdout.
#[cfg(target_os = "linux")]
fn in_keyring_session(
    wrapper: &[&str],
    needs: &[&str],
    dir: &std::path::Path,
    token: &str,
    script: &str,
) -> String {
    for tool in needs.iter().chain(["keyctl"].iter()) {
        let found = std::process::Command::new("sh")
            .args(["-c", &format!("command -v {tool}")])
            .output()
            .map(|o| o.status.success())
            .unwrap_or(false);
        assert!(
            found,
            "{tool} not found: install keyutils, dbus-daemon and gnome-keyring (cargo xtask setup)"
        );
    }
    let home = tempfile::tempdir().unwrap();
    let mut cmd = std::process::Command::new(wrapper.first().copied().unwrap_or("keyctl"));
    cmd.args(wrapper.iter().skip(1))
        .args(if wrapper.is_empty() {
            &["session", "-"][..]
        } else {
            &["keyctl", "session", "-"][..]
        })
        .args(["sh", "-c", script])
        .env("BIN", common::BIN)
        .env("D", dir)
        .env("T", token)
        .env("HOME", home.path())
        .env("XDG_DATA_HOME", home.path().join("data"))
        .env("XDG_CACHE_HOME", home.path().join("cache"))
        .env_remove("XDG_RUNTIME_DIR")
        .env_remove("DBUS_SESSION_BUS_ADDRESS")
        .env_remove("SERVICEDESK_PORTAL_TOKEN")
        .env_remove("SERVICEDESK_PORTAL_URL")
        .env_remove("SERVICEDESK_DATA_DIR");
    let out = cmd.output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "{script}\nstdout: {stdout}\nstderr: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!stdout.contains(token), "the token was printed");
    stdout
}

#[cfg(target_os = "linux")]
const KEYRING_SCRIPT: &str = r#"set -e
printf '%s' "$T" | "$BIN" --data-dir "$D" portal login --token-stdin --json
"$BIN" --data-dir "$D" portal show --json
"$BIN" --data-dir "$D" portal logout > /dev/null
"$BIN" --data-dir "$D" portal show --json
"#;

/// Login, show, logout, show: the token is stored in `store`, read back,
/// and removed.
#[cfg(target_os = "linux")]
fn check_token_round_trip(stdout: &str, store: &str) {
    let lines: Vec<Value> = stdout
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    assert_eq!(lines.len(), 3, "{stdout}");
    for set in &lines[..2] {
        assert_eq!(set["token_store"], store, "{set}");
        assert_eq!(set["token_origin"], "keyring", "{set}");
        assert_eq!(set["token_last4"], "9f2e", "{set}");
        assert_eq!(set["keyring_error"], Value::Null, "{set}");
    }
    assert_eq!(
        lines[2]["token_set"], false,
        "logout removed it: {}",
        lines[2]
    );
    assert_eq!(lines[2]["token_store"], store);
}

/// Headless Linux: no D-Bus session bus, so the token goes to kernel
/// keyutils (under `keyctl session -`), is read back, and is removed.
#[cfg(target_os = "linux")]
#[test]
fn without_a_session_bus_the_token_lives_in_kernel_keyutils() {
    let dir = tempfile::tempdir().unwrap();
    let out = in_keyring_session(
        &[],
        &[],
        dir.path(),
        "tok-keyutils-55aa9f2e",
        KEYRING_SCRIPT,
    );
    check_token_round_trip(&out, "keyutils");
}

/// A session bus where nothing provides the Secret Service (a minimal
/// desktop, a container; the bus here starts no services on demand): the
/// probe fails and keyutils is used.
#[cfg(target_os = "linux")]
#[test]
fn a_session_bus_without_secret_service_falls_back_to_keyutils() {
    let dir = tempfile::tempdir().unwrap();
    let conf = dir.path().join("bus.conf");
    std::fs::write(
        &conf,
        r#"<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:tmpdir=/tmp</listen>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/>
    <allow eavesdrop="true"/>
    <allow own="*"/>
  </policy>
</busconfig>
"#,
    )
    .unwrap();
    let config = format!("--config-file={}", conf.display());
    let out = in_keyring_session(
        &["dbus-run-session", &config, "--"],
        &["dbus-run-session"],
        dir.path(),
        "tok-keyutils-66bb9f2e",
        KEYRING_SCRIPT,
    );
    check_token_round_trip(&out, "keyutils");
}

/// A desktop session: a session bus with an unlocked GNOME Keyring. The
/// token goes to the Secret Service (not keyutils), is read back by a second
/// process, and is removed.
#[cfg(target_os = "linux")]
#[test]
fn with_a_secret_service_the_token_lives_there() {
    let dir = tempfile::tempdir().unwrap();
    let script = format!(
        "printf '%s' test-unlock | gnome-keyring-daemon --unlock --components=secrets \
         > /dev/null 2>&1\n{KEYRING_SCRIPT}"
    );
    let out = in_keyring_session(
        &["dbus-run-session", "--"],
        &["dbus-run-session", "gnome-keyring-daemon"],
        dir.path(),
        "tok-secret-77cc9f2e",
        &script,
    );
    check_token_round_trip(&out, "secret-service");
}

/// Offline for hours, simulated: the backoff is at its cap (5 min, the
/// contract's), the portal is down while the app keeps queuing work, then it
/// comes back. The worker notices by its `/health` probe and delivers
/// everything without waiting out the backoff, with no user action.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn after_hours_offline_the_worker_resumes_by_itself_without_waiting_out_its_backoff() {
    let (_dir, desk, mut portal, _) = setup("tok-0123456789ab", "tok-0123456789ab").await;
    let cfg = SyncConfig {
        backoff_base: Duration::from_secs(300),
        backoff_cap: Duration::from_secs(300),
        probe_interval: Duration::from_millis(50),
        poll_interval: Duration::from_secs(3600),
        ..test_sync_config()
    };
    let syncer = Syncer::with_tokens(
        desk.clone(),
        cfg,
        TokenSource::fixed(Some("tok-0123456789ab")),
    );
    portal.stop();
    let worker = sync::spawn_worker_with(syncer.clone());
    let mut exp = Expected::default();
    make_sessions(&desk, 3, &mut exp).await;
    // The worker tried, found the portal unreachable, and says so.
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    loop {
        let st = sync::status(&desk, syncer.tokens()).await.unwrap();
        let unreachable = st.problems.iter().any(|p| {
            p.last_error
                .as_deref()
                .is_some_and(|e| e.starts_with("portal unreachable:"))
                && p.next_attempt_at.is_some()
        });
        if st.state == SyncState::Offline && unreachable {
            assert_eq!(st.done, 0);
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "offline not shown: {st:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    // The app keeps working offline: chat turns still commit and queue.
    make_sessions(&desk, 2, &mut exp).await;
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
    for text in [
        "maxxair fan stopped working",
        "the fan fuse is blown",
        "write it up",
    ] {
        desk.chat_turn(&s.id, text, vec![]).await.unwrap();
    }
    let ids = outbox_ids(&desk).await;
    assert!(ids.iter().all(|(_, s)| s == "pending"), "nothing lost");
    // Items wait up to 5 minutes; the portal comes back now.
    portal.restart().await;
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    loop {
        let st = sync::status(&desk, syncer.tokens()).await.unwrap();
        if st.done as usize == ids.len() {
            assert_eq!(st.state, SyncState::Online);
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "delivery did not resume by itself: {st:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    worker.abort();
    assert_eq!(portal.lock().effects.len(), ids.len());
    assert!(portal.lock().effects.values().all(|n| *n == 1));
}

/// `cargo run --example test_portal -- --port 0`: one line with the URL and
/// token, the contract served, the control endpoints answering.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_test_portal_example_runs_on_its_own() {
    use std::io::BufRead;
    let exe = std::env::current_exe().unwrap();
    let bin = exe
        .parent()
        .and_then(|deps| deps.parent())
        .map(|dir| dir.join("examples").join("test_portal"))
        .unwrap();
    // A plain `cargo test` builds the examples; `cargo test --test tests`
    // does not, and a stale binary would test old code.
    let built = std::fs::metadata(&bin)
        .and_then(|m| m.modified())
        .unwrap_or_else(|e| {
            panic!(
                "{}: {e}; build it with `cargo build --example test_portal` (plain `cargo test` does)",
                bin.display()
            )
        });
    for src in ["examples/test_portal.rs", "crates/test-portal/src/lib.rs"] {
        let changed = std::fs::metadata(std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(src))
            .and_then(|m| m.modified())
            .unwrap();
        assert!(
            changed <= built,
            "{} is older than {src}: run `cargo build --example test_portal` (plain `cargo test` does)",
            bin.display()
        );
    }
    let mut child = std::process::Command::new(&bin)
        .args(["--port", "0", "--token", "tok-example-1234567"])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let words: Vec<&str> = line.split_whitespace().collect();
    assert!(
        matches!(words[..], ["listening", url, "token", "tok-example-1234567"] if url.starts_with("http://127.0.0.1:")),
        "{line:?}"
    );
    let url = words[1].to_owned();
    let dir = tempfile::tempdir().unwrap();
    let desk = Desk::open(dir.path()).await.unwrap();
    sync::set_portal_url(&desk, &url).await.unwrap();
    let syncer = Syncer::with_tokens(
        desk.clone(),
        test_sync_config(),
        TokenSource::fixed(Some("tok-example-1234567")),
    );
    let mut exp = Expected::default();
    make_sessions(&desk, 2, &mut exp).await;
    let http = reqwest::Client::new();
    let forced = http
        .post(format!("{url}/control/faults"))
        .json(&serde_json::json!({"force": ["error500", "drop_after_store"]}))
        .send()
        .await
        .unwrap();
    assert_eq!(forced.status(), 200);
    let summary = syncer
        .run_until_idle(Duration::from_secs(20))
        .await
        .unwrap();
    assert_eq!(summary.stopped, None, "{summary:?}");
    let stats: Value = http
        .get(format!("{url}/control/stats"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let n = outbox_ids(&desk).await.len();
    assert_eq!(stats["keys_stored"], n, "{stats}");
    assert_eq!(stats["keys_stored_more_than_once"], 0, "{stats}");
    assert_eq!(stats["attachments_intact"], true, "{stats}");
    assert_eq!(stats["faults_injected"]["error500"], 1, "{stats}");
    assert_eq!(stats["faults_injected"]["drop_after_store"], 1, "{stats}");
    assert!(
        stats["duplicates_replayed"].as_u64().unwrap() >= 1,
        "{stats}"
    );
    let bad = http
        .post(format!("{url}/control/faults"))
        .json(&serde_json::json!({"force": ["gremlins"]}))
        .send()
        .await
        .unwrap();
    assert_eq!(bad.status(), 400);
    child.kill().unwrap();
    child.wait().unwrap();
}

/// A portal that echoes the Authorization header in its error: the token is
/// scrubbed before the message is stored, logged or returned.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_portal_echoing_the_token_never_gets_it_stored_or_returned() {
    const TOKEN: &str = "tok-ECHOED-4c1d9e7a2b60";
    let (dir, desk, portal, syncer) = setup(TOKEN, TOKEN).await;
    let mut exp = Expected::default();
    make_sessions(&desk, 1, &mut exp).await;
    portal.force(&[Fault::EchoAuth, Fault::EchoAuth, Fault::EchoAuth]);
    syncer
        .run_until_idle(Duration::from_secs(10))
        .await
        .unwrap();
    assert!(portal
        .lock()
        .faults_injected
        .get(&Fault::EchoAuth)
        .is_some_and(|n| *n >= 1));
    // The portal's words are kept, the token is not.
    let errors: Vec<Option<String>> = sqlx::query_scalar("SELECT last_error FROM outbox")
        .fetch_all(desk.store().pool())
        .await
        .unwrap();
    let errors: Vec<String> = errors.into_iter().flatten().collect();
    assert!(
        errors
            .iter()
            .any(|e| e.contains("Authorization: Bearer [redacted]")),
        "{errors:?}"
    );
    assert!(errors.iter().all(|e| !e.contains(TOKEN)), "{errors:?}");
    // Nor in any api answer about sync.
    for (command, payload) in [
        ("sync_status", serde_json::json!({})),
        ("portal_settings", serde_json::json!({})),
    ] {
        let answer = api::dispatch(&desk, command, payload)
            .await
            .map(|v| v.to_string())
            .unwrap_or_else(|e| e.to_string());
        assert!(!answer.contains(TOKEN), "{command}: {answer}");
    }
    let status = sync::status(&desk, syncer.tokens()).await.unwrap();
    assert!(!serde_json::to_string(&status).unwrap().contains(TOKEN));
    // Nor anywhere in the database files.
    desk.close().await;
    for name in ["servicedesk.db", "servicedesk.db-wal"] {
        if let Ok(bytes) = std::fs::read(dir.path().join(name)) {
            assert!(
                !bytes.windows(TOKEN.len()).any(|w| w == TOKEN.as_bytes()),
                "token in {name}"
            );
        }
    }
}

/// A portal login that fails changes nothing: the URL is saved only with
/// the token it came with.
#[tokio::test]
async fn a_failed_portal_login_keeps_the_stored_url() {
    let dir = tempfile::tempdir().unwrap();
    let desk = Desk::open(dir.path()).await.unwrap();
    sync::set_portal_url(&desk, "https://portal.example.com")
        .await
        .unwrap();
    let err = api::dispatch(
        &desk,
        "portal_settings",
        serde_json::json!({ "url": "https://elsewhere.example.com", "token": "   " }),
    )
    .await
    .unwrap_err();
    assert!(err.message.contains("token"), "{err}");
    assert_eq!(
        sync::portal_url(&desk).await.unwrap().as_deref(),
        Some("https://portal.example.com")
    );
}
