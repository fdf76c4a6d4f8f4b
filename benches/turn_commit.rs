//! Committing one turn with its state snapshot: the write every technician
//! message pays. Target: at least 2,000 turns per second on a 2-core machine
//! (WAL, synchronous=NORMAL). Run: `cargo bench --bench turn_commit`.

use criterion::{criterion_group, criterion_main, Criterion, Throughput};

use servicedesk::desk::Desk;
use servicedesk::engine::state::{Fact, FactKind, FactSource};
use servicedesk::store::{NewSession, NewTurn};

/// A state the size of a real mid-diagnosis session: a dozen steps done,
/// twenty facts, some topic history.
fn realistic_state(
    mut state: servicedesk::engine::SessionState,
) -> servicedesk::engine::SessionState {
    state.active_procedure = Some("furnace_no_heat".into());
    state.active_step = Some("sail_switch".into());
    state.completed_steps = (0..12).map(|i| format!("step_{i}")).collect();
    state.open_steps = (12..20).map(|i| format!("step_{i}")).collect();
    state.facts = (0..20)
        .map(|i| Fact {
            id: format!("fact-{i}"),
            kind: FactKind::Measurement,
            source: FactSource::Technician,
            subject: format!("point_{i}"),
            value: Some(format!("12.{i}")),
            unit: Some("VDC".into()),
            text: format!("12.{i} V measured at point {i}"),
            turn_seq: i,
            superseded_by: None,
            name: None,
            outcome: None,
        })
        .collect();
    state.recent_actions = (0..8)
        .map(|i| servicedesk::engine::state::AgentAction {
            turn: i,
            kind: "question".into(),
            step: Some(format!("step_{i}")),
            topic: None,
        })
        .collect();
    state
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let (desk, session, turn) = rt.block_on(async {
        let desk = Desk::open(dir.path()).await.unwrap();
        let session = desk
            .new_session(NewSession {
                complaint: "Furnace blows cold air".into(),
                ..Default::default()
            })
            .await
            .unwrap()
            .id;
        let (_, state) = desk.store().latest_state(&session).await.unwrap();
        let mut turn = NewTurn::new(
            "12.6 V at the board, sail switch closes",
            "Good. Next: with the blower running, do you hear the igniter click?",
            realistic_state(state),
        );
        turn.intent = Some("main_diagnostic".into());
        turn.transition = Some("D1_step_answer".into());
        turn.trace = serde_json::json!({"router": {"intent": "main_diagnostic", "pattern": "measurement"},
                                        "transition": {"class": "D1_step_answer", "why": "answers the active step"}});
        (desk, session, turn)
    });

    let mut group = c.benchmark_group("turn_commit");
    group.throughput(Throughput::Elements(1));
    group.bench_function("turn_with_state_snapshot", |b| {
        b.to_async(&rt)
            .iter(|| async { desk.record_turn(&session, &turn).await.unwrap() })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
