//! Report deliveries per second through the sync worker against the
//! loopback test portal (crates/test-portal), no faults, the production
//! `SyncConfig` (8 sessions in flight). Each measured batch is 200 final
//! reports of 200 sessions, queued (untimed) by the store function a turn
//! commits with (tests/sync_seed), then delivered by
//! `Syncer::run_until_idle` (timed): the item read, the HTTP PUT with its
//! Idempotency-Key, the portal's store and answer, and the row marked done. A second group does the same for
//! reports that each reference a photo (photo PUT first, then the report).
//! Target: at least 500 report deliveries per second on a 2-core machine.
//!
//! `sync_status` times the answer the header's indicator polls every 4 s,
//! over an outbox that never reached a portal: 1,000 sessions, each with
//! 10 photos, a labor draft and a final report queued (12,000 items).
//!
//! Run: `cargo bench --bench sync_deliver`.

#[path = "../tests/sync_seed/mod.rs"]
mod sync_seed;

use std::time::{Duration, Instant};

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use servicedesk_test_portal as portal;

use servicedesk::desk::Desk;
use servicedesk::sync::{self, SyncConfig, Syncer, TokenSource};

use sync_seed::{seed_session, SessionShape};

const TOKEN: &str = "tok-bench-0123456789";
const BATCH: u64 = 200;

/// Queue `n` final reports (one per new session, seeded the way the app
/// writes them: tests/sync_seed), with a photo each if asked.
async fn queue_reports(desk: &Desk, n: u64, with_photo: bool, counter: &mut u64) {
    let shape = SessionShape {
        photos: usize::from(with_photo),
        draft_changes: 0,
        revisions: 1,
        escalate: false,
    };
    for _ in 0..n {
        *counter += 1;
        seed_session(desk, *counter as usize, &shape).await;
    }
}

/// A multi-thread runtime, as the app's, and an empty data dir.
fn runtime_and_dir() -> (tokio::runtime::Runtime, tempfile::TempDir) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .unwrap();
    (rt, tempfile::tempdir().unwrap())
}

fn bench(c: &mut Criterion) {
    let (rt, dir) = runtime_and_dir();
    let (desk, portal, syncer) = rt.block_on(async {
        let desk = Desk::open(dir.path()).await.unwrap();
        let portal = portal::Portal::start(TOKEN, Duration::from_secs(5)).await;
        sync::set_portal_url(&desk, &portal.url()).await.unwrap();
        let syncer = Syncer::with_tokens(
            desk.clone(),
            SyncConfig::default(),
            TokenSource::fixed(Some(TOKEN)),
        );
        (desk, portal, syncer)
    });
    let mut counter = 0u64;
    for (name, with_photo) in [("report", false), ("report_with_photo", true)] {
        let mut group = c.benchmark_group("sync_deliver");
        group.sample_size(10);
        group.measurement_time(Duration::from_secs(10));
        group.throughput(Throughput::Elements(BATCH));
        let mut best = 0f64;
        group.bench_function(format!("{name}_x{BATCH}"), |b| {
            b.iter_custom(|iters| {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    rt.block_on(queue_reports(&desk, BATCH, with_photo, &mut counter));
                    let started = Instant::now();
                    let summary = rt
                        .block_on(syncer.run_until_idle(Duration::from_secs(120)))
                        .unwrap();
                    let took = started.elapsed();
                    total += took;
                    assert_eq!(summary.stopped, None, "{summary:?}");
                    let expect = if with_photo { 2 * BATCH } else { BATCH };
                    assert_eq!(summary.done, expect, "{summary:?}");
                    best = best.max(BATCH as f64 / took.as_secs_f64());
                }
                total
            })
        });
        group.finish();
        eprintln!("sync_deliver/{name}: best batch {best:.0} reports/s");
    }
    let st = portal.lock();
    assert_eq!(st.reports.len() as u64, counter, "every report stored");
    assert!(st.effects.values().all(|n| *n == 1), "each stored once");
}

fn status(c: &mut Criterion) {
    let (rt, dir) = runtime_and_dir();
    let desk = rt.block_on(async {
        let desk = Desk::open(dir.path()).await.unwrap();
        let shape = SessionShape {
            photos: 10,
            draft_changes: 1,
            revisions: 1,
            escalate: false,
        };
        for i in 0..1_000 {
            seed_session(&desk, i, &shape).await;
        }
        desk
    });
    let tokens = TokenSource::fixed(None);
    let mut group = c.benchmark_group("sync_status");
    group.sample_size(20);
    group.bench_function("outbox_12000_items", |b| {
        b.iter(|| {
            let st = rt.block_on(sync::status(&desk, &tokens)).unwrap();
            assert_eq!(st.pending, 12_000, "{st:?}");
            st
        })
    });
    group.finish();
}

criterion_group!(benches, bench, status);
criterion_main!(benches);
