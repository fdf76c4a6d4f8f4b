//! Sessions, turns, state snapshots, facts, artifacts and outbox items
//! survive closing and reopening the data dir, and a turn commits whole or
//! not at all.

use crate::common;

use servicedesk::desk::Desk;
use servicedesk::engine::state::{Fact, FactKind, FactSource};
use servicedesk::engine::SessionState;
use servicedesk::store::{
    NewOutboxItem, NewSession, NewTurn, OutboxKind, SessionFilter, SessionStatus, Unit,
};

fn fact(id: &str, subject: &str, value: &str, turn_seq: u32) -> Fact {
    Fact {
        id: id.into(),
        kind: FactKind::Measurement,
        source: FactSource::Technician,
        subject: subject.into(),
        value: Some(value.into()),
        unit: Some("VDC".into()),
        text: format!("{value} V at the {subject}"),
        turn_seq,
        superseded_by: None,
        name: None,
        outcome: None,
    }
}

async fn new_session(desk: &Desk) -> String {
    desk.new_session(NewSession {
        complaint: "Furnace blows cold air".into(),
        customer: Some("Jane Doe".into()),
        technician: Some("Sam".into()),
        language: Some("es".into()),
        unit: Unit {
            vin: Some("1FUJA6CV94LM12345".into()),
            plate: Some("7ABC123".into()),
            make_model: Some("Winnebago View 24D".into()),
            odometer: Some(41_250),
            engine_hours: None,
            ..Default::default()
        },
        ..Default::default()
    })
    .await
    .unwrap()
    .id
}

#[tokio::test]
async fn everything_round_trips_through_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let desk = Desk::open(dir.path()).await.unwrap();
    let id = new_session(&desk).await;

    // Turn 1: a measurement.
    let (_, mut state) = desk.store().latest_state(&id).await.unwrap();
    assert_eq!(
        state.language, "es",
        "a new session's state carries its language"
    );
    state.active_procedure = Some("furnace_no_heat".into());
    state.completed_steps.push("board_voltage".into());
    state.facts.push(fact("f1", "board", "10.9", 1));
    let mut t1 = NewTurn::new(
        "10.9 V at the board",
        "Low. Check the battery.",
        state.clone(),
    );
    t1.intent = Some("main_diagnostic".into());
    t1.transition = Some("D1_step_answer".into());
    t1.trace = serde_json::json!({"why": "step answer for board_voltage"});
    t1.new_facts.push(fact("f1", "board", "10.9", 1));
    desk.record_turn(&id, &t1).await.unwrap();

    // Turn 2: a correction that supersedes f1, with a photo and an outbox item.
    state.facts[0].superseded_by = Some("f2".into());
    state.facts.push(fact("f2", "board", "12.6", 2));
    state.labor.estimated_hours = Some("1.50".into());
    let mut t2 = NewTurn::new(
        "sorry, it was 12.6",
        "Thanks, 12.6 V is fine.",
        state.clone(),
    );
    t2.new_facts.push(fact("f2", "board", "12.6", 2));
    t2.superseded.push(("f1".into(), "f2".into()));
    t2.artifacts.push(
        desk.prepare_artifact(
            "board.png".into(),
            common::png(40, 30, [10, 200, 10]),
            Some("board".into()),
        )
        .await
        .unwrap(),
    );
    t2.outbox.push(NewOutboxItem {
        kind: OutboxKind::LaborDraft,
        target: "/api/v1/labor-drafts/x".into(),
        payload: serde_json::json!({"hours": "1.50"}),
    });
    t2.status = Some(SessionStatus::Escalated);
    t2.report = Some((
        1,
        "es".into(),
        "Complaint:\nThe furnace blows cold air.\n".into(),
    ));
    let recorded = desk.record_turn(&id, &t2).await.unwrap();
    assert_eq!(recorded.turn.seq, 2);
    assert_eq!(recorded.artifact_ids.len(), 1);

    // A photo added outside a turn.
    let loose = desk
        .add_artifact_bytes(&id, "unit.png", common::png(8, 8, [1, 2, 3]), None)
        .await
        .unwrap();

    let before = desk.session_detail(&id).await.unwrap();
    desk.close().await;
    drop(desk);

    let desk = Desk::open(dir.path()).await.unwrap();
    let after = desk.session_detail(&id).await.unwrap();
    assert_eq!(after.session, before.session);
    assert_eq!(after.turns, before.turns);
    assert_eq!(after.artifacts, before.artifacts);
    assert_eq!(
        after.state, state,
        "the newest snapshot is the state after turn 2"
    );
    assert_eq!(after.session.status, SessionStatus::Escalated);
    assert_eq!(
        desk.reports(&id).await.unwrap(),
        vec![(
            1,
            "es".to_string(),
            "Complaint:\nThe furnace blows cold air.\n".to_string(),
            after.turns[1].created_at
        )],
        "the report revision committed with its turn"
    );
    assert_eq!(after.session.turn_count, 2);
    assert_eq!(after.session.artifact_count, 2);
    assert_eq!(after.turns[0].trace["why"], "step answer for board_voltage");
    assert_eq!(
        after.artifacts[0].turn_id.as_deref(),
        Some(recorded.turn.id.as_str())
    );
    assert_eq!(after.artifacts[1].id, loose.id);

    // Facts are queryable, with the supersession recorded.
    let facts: Vec<(String, Option<String>)> =
        sqlx::query_as("SELECT id, superseded_by FROM facts WHERE session_id = ? ORDER BY id")
            .bind(&id)
            .fetch_all(desk.store().pool())
            .await
            .unwrap();
    assert_eq!(
        facts,
        vec![("f1".into(), Some("f2".into())), ("f2".into(), None)]
    );

    // The outbox item is there, pending, with its own id.
    let outbox: Vec<(String, String)> =
        sqlx::query_as("SELECT id, status FROM outbox WHERE session_id = ?")
            .bind(&id)
            .fetch_all(desk.store().pool())
            .await
            .unwrap();
    assert_eq!(outbox.len(), 1);
    assert_eq!(outbox[0].1, "pending");
    assert_eq!(recorded.outbox_ids, vec![outbox[0].0.clone()]);

    // And the photo's bytes come back intact.
    let (mime, bytes) = desk.artifact_content(&loose.id, false).await.unwrap();
    assert_eq!(mime, "image/png");
    assert_eq!(bytes, common::png(8, 8, [1, 2, 3]));
}

/// A chat turn begins its transaction with a plain `BEGIN IMMEDIATE` and
/// commits in the same batch as its writes. A turn that fails midway, or
/// whose future is dropped midway, must leave nothing and must not keep the
/// write lock: the next turn commits at once.
#[tokio::test]
async fn a_failing_or_cancelled_chat_turn_rolls_back_and_releases_the_lock() {
    let dir = tempfile::tempdir().unwrap();
    let desk = Desk::open(dir.path()).await.unwrap();
    let id = new_session(&desk).await;
    let store = desk.store();
    let first = store
        .turn_with(&id, |_, state, _| {
            let mut t = NewTurn::new("first", "ok", state);
            t.new_facts.push(fact("dup", "board", "12.0", 1));
            Ok::<_, ()>((t, ()))
        })
        .await
        .unwrap()
        .unwrap();
    assert_eq!(first.0.turn.seq, 1);

    // A duplicate fact id fails inside the batch, after the turn row.
    let err = store
        .turn_with(&id, |_, mut state, _| {
            state.completed_steps.push("should_not_persist".into());
            let mut t = NewTurn::new("second", "never stored", state);
            t.new_facts.push(fact("dup", "board", "12.1", 2));
            t.status = Some(SessionStatus::Escalated);
            Ok::<_, ()>((t, ()))
        })
        .await
        .unwrap_err();
    assert!(err.to_string().contains("UNIQUE"), "{err}");

    // Dropped at every point of its life: before, during and after its batch.
    for micros in [1u64, 20, 50, 100, 200, 400, 800, 1600] {
        let attempt = store.turn_with(&id, |_, state, _| {
            Ok::<_, ()>((NewTurn::new("maybe", "maybe", state), ()))
        });
        let _ = tokio::time::timeout(std::time::Duration::from_micros(micros), attempt).await;
    }

    let started = std::time::Instant::now();
    let next = store
        .turn_with(&id, |_, state, _| {
            Ok::<_, ()>((NewTurn::new("next", "ok", state), ()))
        })
        .await
        .unwrap()
        .unwrap();
    assert!(
        started.elapsed() < std::time::Duration::from_secs(5),
        "the write lock was held by an abandoned turn"
    );
    let detail = desk.session_detail(&id).await.unwrap();
    let seqs: Vec<i64> = detail.turns.iter().map(|t| t.seq).collect();
    assert_eq!(seqs, (1..=seqs.len() as i64).collect::<Vec<_>>());
    assert_eq!(next.0.turn.seq, seqs.len() as i64);
    assert!(detail.turns.iter().all(|t| t.input != "second"));
    assert!(!detail
        .state
        .completed_steps
        .contains(&"should_not_persist".to_string()));
    assert_eq!(detail.session.status, SessionStatus::Open);
    let snapshots: i64 = sqlx::query_scalar(
        "SELECT COUNT(*) FROM session_states WHERE session_id = ? AND turn_seq > 0",
    )
    .bind(&id)
    .fetch_one(store.pool())
    .await
    .unwrap();
    assert_eq!(
        snapshots,
        seqs.len() as i64,
        "one snapshot per committed turn"
    );
    assert_eq!(store.integrity_check().await.unwrap(), "ok");
}

#[tokio::test]
async fn a_failing_turn_leaves_nothing_behind() {
    let dir = tempfile::tempdir().unwrap();
    let desk = Desk::open(dir.path()).await.unwrap();
    let id = new_session(&desk).await;
    let (_, state) = desk.store().latest_state(&id).await.unwrap();

    let mut ok = NewTurn::new("first", "ok", state.clone());
    ok.new_facts.push(fact("dup", "board", "12.0", 1));
    desk.record_turn(&id, &ok).await.unwrap();

    // The second turn reuses a fact id: its fact insert fails after the turn,
    // the snapshot and the outbox row were written. None of them may stay.
    let mut changed = state.clone();
    changed.completed_steps.push("should_not_persist".into());
    let mut bad = NewTurn::new("second", "never stored", changed);
    bad.outbox.push(NewOutboxItem {
        kind: OutboxKind::Escalation,
        target: "/api/v1/escalations".into(),
        payload: serde_json::json!({}),
    });
    bad.new_facts.push(fact("dup", "board", "12.1", 2));
    let err = desk.record_turn(&id, &bad).await.unwrap_err();
    assert!(err.to_string().contains("UNIQUE"), "{err}");

    let detail = desk.session_detail(&id).await.unwrap();
    assert_eq!(detail.turns.len(), 1);
    assert!(!detail
        .state
        .completed_steps
        .contains(&"should_not_persist".to_string()));
    let outbox: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM outbox")
        .fetch_one(desk.store().pool())
        .await
        .unwrap();
    assert_eq!(outbox, 0);
    assert!(desk.record_turn("no-such-session", &ok).await.is_err());
}

#[tokio::test]
async fn an_old_state_snapshot_is_migrated_on_load() {
    let dir = tempfile::tempdir().unwrap();
    let desk = Desk::open(dir.path()).await.unwrap();
    let id = new_session(&desk).await;
    sqlx::query(
        "INSERT INTO session_states (session_id, turn_seq, version, state, created_at)
         VALUES (?, 7, 0, '{\"lang\":\"ru\",\"open_steps\":[\"sail_switch\"]}', '2026-01-01T00:00:00.000Z')",
    )
    .bind(&id)
    .execute(desk.store().pool())
    .await
    .unwrap();
    let (seq, state) = desk.store().latest_state(&id).await.unwrap();
    assert_eq!(seq, 7);
    assert_eq!(state.language, "ru");
    assert_eq!(state.open_steps, vec!["sail_switch".to_string()]);
    assert_eq!(
        state,
        SessionState {
            language: "ru".into(),
            open_steps: vec!["sail_switch".into()],
            ..SessionState::default()
        }
    );
}

#[tokio::test]
async fn deleting_a_session_never_drops_photos_silently() {
    let dir = tempfile::tempdir().unwrap();
    let desk = Desk::open(dir.path()).await.unwrap();
    let a = new_session(&desk).await;
    let b = new_session(&desk).await;
    let shared = common::png(16, 16, [9, 9, 9]);
    desk.add_artifact_bytes(&a, "shared.png", shared.clone(), None)
        .await
        .unwrap();
    desk.add_artifact_bytes(&a, "only_a.png", common::png(17, 17, [1, 1, 1]), None)
        .await
        .unwrap();
    desk.add_artifact_bytes(&b, "same_bytes.png", shared, None)
        .await
        .unwrap();
    let blobs_before = common::blob_files(dir.path());

    let err = desk.delete_session(&a, false).await.unwrap_err();
    assert!(err.to_string().contains("has 2 photo(s)"), "{err}");
    assert_eq!(
        common::blob_files(dir.path()),
        blobs_before,
        "refusal changes nothing"
    );
    assert_eq!(desk.session_detail(&a).await.unwrap().artifacts.len(), 2);

    desk.delete_session(&a, true).await.unwrap();
    assert!(desk.session_detail(&a).await.is_err());
    // b still has its photo, whose bytes a shared: they must survive the purge.
    let b_detail = desk.session_detail(&b).await.unwrap();
    assert_eq!(desk.verify_artifacts(Some(&b)).await.unwrap().ok, 1);
    assert_eq!(b_detail.artifacts.len(), 1);
    assert!(
        common::blob_files(dir.path()).len() < blobs_before.len(),
        "a's own blob is gone"
    );

    // A session without photos deletes without ceremony.
    let c = new_session(&desk).await;
    assert_eq!(desk.delete_session(&c, false).await.unwrap(), 0);
    let left = desk.sessions(&SessionFilter::default()).await.unwrap();
    assert_eq!(
        left.iter().map(|s| s.id.clone()).collect::<Vec<_>>(),
        vec![b]
    );
}

#[tokio::test]
async fn list_filters_by_text_and_status() {
    let dir = tempfile::tempdir().unwrap();
    let desk = Desk::open(dir.path()).await.unwrap();
    let first = new_session(&desk).await;
    let second = desk
        .new_session(NewSession {
            complaint: "Slide-out 100% stuck_in".into(),
            ..Default::default()
        })
        .await
        .unwrap()
        .id;
    let q = |s: &str| SessionFilter {
        query: Some(s.into()),
        status: None,
    };
    let ids = |v: Vec<servicedesk::store::Session>| v.into_iter().map(|s| s.id).collect::<Vec<_>>();
    assert_eq!(
        ids(desk.sessions(&q("winnebago")).await.unwrap()),
        vec![first.clone()]
    );
    assert_eq!(
        ids(desk.sessions(&q("7abc")).await.unwrap()),
        vec![first.clone()]
    );
    // LIKE wildcards in the query are literal characters.
    assert_eq!(
        ids(desk.sessions(&q("100%")).await.unwrap()),
        vec![second.clone()]
    );
    assert!(desk.sessions(&q("0_s")).await.unwrap().is_empty());
    // Newest first.
    assert_eq!(
        ids(desk.sessions(&SessionFilter::default()).await.unwrap()),
        vec![second, first]
    );
    let escalated = SessionFilter {
        query: None,
        status: Some(SessionStatus::Escalated),
    };
    assert!(desk.sessions(&escalated).await.unwrap().is_empty());

    let err = desk
        .new_session(NewSession {
            complaint: "  ".into(),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert!(err.to_string().starts_with("complaint:"), "{err}");
    let err = desk
        .new_session(NewSession {
            complaint: "x".into(),
            language: Some("English".into()),
            ..Default::default()
        })
        .await
        .unwrap_err();
    assert!(err.to_string().contains("language"), "{err}");
}

#[tokio::test]
async fn an_empty_database_beside_stored_photos_is_refused_naming_it() {
    let dir = tempfile::tempdir().unwrap();
    let desk = Desk::open(dir.path()).await.unwrap();
    let s = desk
        .new_session(NewSession {
            complaint: "fridge".into(),
            customer: None,
            technician: None,
            language: None,
            unit: Default::default(),
            ..Default::default()
        })
        .await
        .unwrap();
    desk.add_artifact_bytes(&s.id, "f.pdf", b"%PDF-1.4 fridge".to_vec(), None)
        .await
        .unwrap();
    desk.close().await;
    // The database lost (a 0-byte file), the photos still there.
    let db = dir.path().join("servicedesk.db");
    std::fs::write(&db, b"").unwrap();
    for side in ["servicedesk.db-wal", "servicedesk.db-shm"] {
        let _ = std::fs::remove_file(dir.path().join(side));
    }
    let err = Desk::open(dir.path()).await.unwrap_err().to_string();
    assert!(
        err.contains(&db.display().to_string()) && err.contains("0 bytes"),
        "{err}"
    );
    assert_eq!(std::fs::metadata(&db).unwrap().len(), 0, "not replaced");
    assert!(
        !common::blob_files(dir.path()).is_empty(),
        "photos untouched"
    );

    // A database that cannot be opened at all names its path.
    let other = tempfile::tempdir().unwrap();
    std::fs::create_dir(other.path().join("servicedesk.db")).unwrap();
    let err = Desk::open(other.path()).await.unwrap_err().to_string();
    assert!(
        err.contains(&other.path().join("servicedesk.db").display().to_string()),
        "{err}"
    );
}

/// An outbox row whose kind this program does not know (a newer version's,
/// or a hand edit) is an error naming the item and the kind, never a panic
/// or a guess at how to send it.
#[tokio::test]
async fn an_unknown_outbox_kind_is_an_error_naming_the_item() {
    let dir = tempfile::tempdir().unwrap();
    let desk = Desk::open(dir.path()).await.unwrap();
    let pool = desk.store().pool();
    sqlx::query(
        "INSERT INTO outbox (id, session_id, kind, target, payload, status, created_at, updated_at)
         VALUES ('item-1', NULL, 'fax', '/api/v1/fax', '{}', 'failed', 'x', 'x')",
    )
    .execute(pool)
    .await
    .unwrap();
    let want = "outbox item item-1: kind \"fax\" is not one of attachment, report, labor_draft, escalation";
    let e = servicedesk::store::outbox_delivery::problems(pool)
        .await
        .unwrap_err();
    assert!(e.to_string().contains(want), "{e}");
    sqlx::query("UPDATE outbox SET status = 'pending'")
        .execute(pool)
        .await
        .unwrap();
    let e = servicedesk::store::outbox_delivery::due_heads(pool, 10, &[])
        .await
        .unwrap_err();
    assert!(e.to_string().contains(want), "{e}");
}
