//! The context engine's hot paths. Targets (issue 3): one engine step
//! (route + transition + reply, no I/O) under 50 µs p50; one full turn through
//! `Desk`, including the SQLite commit of the turn, its state and facts,
//! under 500 µs p50. Run: `cargo bench --bench engine_turn`.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion};

use servicedesk::engine::{Engine, SessionState, TurnContext};
use servicedesk::store::NewSession;
use servicedesk::Desk;

/// A session mid-diagnosis: system chosen, a step answered, a subflow done.
fn mid_diagnosis(engine: &Engine, ctx: &TurnContext) -> SessionState {
    let mut st = SessionState::new("en");
    for msg in [
        "roof vent fan doesn't work",
        "panel fuse is good",
        "where is the fan fuse?",
    ] {
        st = engine.turn(&st, ctx, msg).state;
    }
    st
}

fn engine_step(c: &mut Criterion) {
    let engine = Engine::embedded().expect("catalog loads");
    let ctx = TurnContext {
        id_prefix: "bench:".into(),
        complaint: Some("Roof vent fan does not run".into()),
        photos: Vec::new(),
    };
    let st = mid_diagnosis(&engine, &ctx);
    let mut group = c.benchmark_group("engine_step");
    // Dirty field notes answering three steps at once: the costliest common turn.
    group.bench_function("dirty_notes_three_facts", |b| {
        b.iter(|| {
            engine.turn(
                black_box(&st),
                &ctx,
                black_box("fan fuse ok, 12.5 V at the switch, 0 V at the motor"),
            )
        })
    });
    group.bench_function("locate_subflow", |b| {
        b.iter(|| engine.turn(black_box(&st), &ctx, black_box("where is the lid switch?")))
    });
    // The same notes through the whole conversation (the billing lane's
    // routing and the clarification check come before the engine).
    group.bench_function("conversation_dirty_notes", |b| {
        b.iter(|| {
            servicedesk::conversation::turn(
                &engine,
                black_box(&st),
                &ctx,
                black_box("fan fuse ok, 12.5 V at the switch, 0 V at the motor"),
                &[],
            )
            .unwrap()
        })
    });
    group.bench_function("root_entry_spanish", |b| {
        let fresh = SessionState::new("en");
        b.iter(|| {
            engine.turn(
                black_box(&fresh),
                &ctx,
                black_box("el ventilador del techo no funciona"),
            )
        })
    });
    group.finish();
}

fn desk_turn(c: &mut Criterion) {
    let rt = tokio::runtime::Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let desk = rt.block_on(Desk::open(dir.path())).unwrap();
    let mut group = c.benchmark_group("desk_turn");
    // Each measured turn answers two steps on a fresh mid-diagnosis session,
    // so every iteration does the same work (the setup turns are not timed).
    group.bench_function("answer_two_steps_with_commit", |b| {
        b.to_async(&rt).iter_custom(|iters| {
            let desk = desk.clone();
            async move {
                let mut timed = Duration::ZERO;
                for _ in 0..iters {
                    let session = desk
                        .new_session(NewSession {
                            complaint: "Roof vent fan does not run".into(),
                            ..Default::default()
                        })
                        .await
                        .unwrap();
                    desk.chat_turn(&session.id, "roof vent fan doesn't work", Vec::new())
                        .await
                        .unwrap();
                    let start = Instant::now();
                    let out = desk
                        .chat_turn(&session.id, "panel fuse good, fan fuse good", Vec::new())
                        .await
                        .unwrap();
                    timed += start.elapsed();
                    black_box(out);
                }
                timed
            }
        })
    });
    group.finish();
    rt.block_on(desk.close());
}

criterion_group!(benches, engine_step, desk_turn);
criterion_main!(benches);
