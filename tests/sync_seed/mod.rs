//! Sessions and their outbox items seeded the way the app writes them: each
//! turn's items (labor draft changes, photos, report revisions, an
//! escalation) are committed with the turn by the store function a chat turn
//! commits with, `Desk::record_turn`. Also the fast `SyncConfig` the sync
//! tests run with. Used by tests/sync.rs, tests/sync_faults.rs and
//! benches/sync_deliver.rs; the bench includes it by `#[path]`, so it uses
//! nothing from the crate that includes it.
#![allow(dead_code)]

use std::io::Cursor;
use std::time::Duration;

use servicedesk::desk::Desk;
use servicedesk::engine::state::LaborStatus;
use servicedesk::store::outbox_items::{self as items, PhotoItem, ReportFields};
use servicedesk::store::{NewSession, NewTurn, Session, SessionStatus, Timestamp, Unit};
use servicedesk::sync::SyncConfig;

/// Sync settings for tests: short timeouts, a backoff in milliseconds, and
/// quick probes and polls.
pub fn test_sync_config() -> SyncConfig {
    SyncConfig {
        connect_timeout: Duration::from_millis(300),
        request_timeout: Duration::from_millis(400),
        backoff_base: Duration::from_millis(5),
        backoff_cap: Duration::from_millis(100),
        concurrency: 8,
        probe_interval: Duration::from_millis(50),
        poll_interval: Duration::from_millis(20),
        ..SyncConfig::default()
    }
}

/// What one seeded session holds.
#[derive(Debug, Clone, Copy)]
pub struct SessionShape {
    /// Photos, attached with the session's first turn; every report revision
    /// queues them before itself (the store keeps one item per photo and
    /// session).
    pub photos: usize,
    /// Labor draft changes, a turn each: 0, 1 (a draft of 1.5 h) or 2 (then
    /// confirmed at 2.0 h). The store numbers the draft's revisions.
    pub draft_changes: usize,
    /// Report revisions 1 to `revisions`, a finalize turn each.
    pub revisions: u32,
    /// A last turn that escalates the session.
    pub escalate: bool,
}

/// A seeded session.
pub struct Seeded {
    pub session: Session,
    pub photos: Vec<PhotoItem>,
    /// Outbox items its turns queued, as `record_turn` counted them.
    pub queued: usize,
}

/// Photo `k` of session `i`: a small real PNG, different for every `(i, k)`
/// with `i` below 2^24 (its colour is `i`, its width `6 + k`).
pub fn photo_png(i: usize, k: usize) -> Vec<u8> {
    let rgb = [i as u8, (i >> 8) as u8, (i >> 16) as u8];
    let img = image::RgbImage::from_pixel(6 + k as u32, 5, image::Rgb(rgb));
    let mut out = Cursor::new(Vec::new());
    img.write_to(&mut out, image::ImageFormat::Png).unwrap();
    out.into_inner()
}

/// Session `i` (its unit, photos and texts are numbered by `i`) in the
/// given shape, its turns recorded in order: labor draft changes, report
/// revisions, the escalation.
pub async fn seed_session(desk: &Desk, i: usize, shape: &SessionShape) -> Seeded {
    assert!(
        shape.draft_changes <= 2,
        "{shape:?}: at most 2 draft changes"
    );
    let session = desk
        .new_session(NewSession {
            complaint: format!("furnace {i} will not light"),
            customer: Some("Pat".into()),
            technician: Some("Sam".into()),
            language: None,
            unit: Unit {
                vin: Some(servicedesk::vin::with_check_digit(&format!("1FT{i:014}")).unwrap()),
                plate: Some(format!("P-{i}")),
                make_model: Some("Winnebago View".into()),
                odometer: Some(10_000 + i as i64),
                engine_hours: None,
                ..Default::default()
            },
            ..Default::default()
        })
        .await
        .unwrap();
    let (_, mut state) = desk.store().latest_state(&session.id).await.unwrap();
    let mut photos = Vec::new();
    let mut artifacts = Vec::new();
    for k in 0..shape.photos {
        let a = desk
            .prepare_artifact(
                format!("unit{i}_{k}.png"),
                photo_png(i, k),
                Some(format!("photo {k}")),
            )
            .await
            .unwrap();
        photos.push(PhotoItem {
            sha256: a.sha256.clone(),
            file_name: a.file_name.clone(),
            mime: a.mime.clone(),
            caption: a.caption.clone(),
            size_bytes: a.size_bytes,
        });
        artifacts.push(a);
    }
    let mut turns = Vec::new();
    for change in 0..shape.draft_changes {
        let input = if change == 0 {
            state.labor.status = LaborStatus::Draft;
            state.labor.estimated_hours = Some("1.5".into());
            "photos"
        } else {
            state.labor.status = LaborStatus::Confirmed;
            state.labor.confirmed_hours = Some("2.0".into());
            "2 hours"
        };
        let mut t = NewTurn::new(input, "ok", state.clone());
        let at = Timestamp::parse(&format!("2026-01-01T00:00:0{change}Z")).expect("a time");
        t.outbox.push(items::labor_item(&session, &state, at));
        turns.push(t);
    }
    for rev in 1..=shape.revisions {
        state.report_revision = rev;
        let mut t = NewTurn::new("write it up", format!("report {rev}"), state.clone());
        t.report = Some((rev, "en".into(), format!("report {rev}")));
        t.status = Some(SessionStatus::Finalized);
        t.outbox.extend(photos.iter().map(items::attachment_item));
        let fields = ReportFields {
            complaint: session.complaint.clone(),
            cause: format!("thermocouple, revision {rev}"),
            correction: "replaced the thermocouple".into(),
            labor: serde_json::json!({"mode": "confirmed", "hours": "2.00", "rate": "145.00",
                "lines": [{"op_code": "FU.1", "description": "replace thermocouple", "hours": "2.00"}]}),
            parts: vec![
                serde_json::json!({"part_no": "TC-1", "description": "thermocouple", "qty": 1}),
            ],
            key: None,
        };
        t.outbox.push(items::report_item(
            &session,
            rev,
            std::slice::from_ref(&fields),
            &photos,
            Timestamp::parse("2026-01-01T00:00:02Z").expect("a time"),
            &Default::default(),
        ));
        turns.push(t);
    }
    if shape.escalate {
        state.escalation.escalated = true;
        state.escalation.reason = Some("needs a human".into());
        let mut t = NewTurn::new("escalate", "escalated", state.clone());
        t.status = Some(SessionStatus::Escalated);
        t.outbox.push(items::escalation_item(
            &session,
            &state,
            Timestamp::parse("2026-01-01T00:00:03Z").expect("a time"),
        ));
        turns.push(t);
    }
    match turns.first_mut() {
        Some(first) => first.artifacts = artifacts,
        None if !artifacts.is_empty() => {
            let mut t = NewTurn::new("photos", "ok", state.clone());
            t.artifacts = artifacts;
            turns.push(t);
        }
        None => {}
    }
    let mut queued = 0;
    for t in &turns {
        queued += desk
            .record_turn(&session.id, t)
            .await
            .unwrap()
            .outbox_ids
            .len();
    }
    Seeded {
        session,
        photos,
        queued,
    }
}
