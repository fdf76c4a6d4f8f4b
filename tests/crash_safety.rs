//! Crash safety: a child process commits turns (some with a file) in a loop
//! and is killed with SIGKILL at random moments, 50 times. After each kill the
//! data dir is reopened, as the app would after a crash, and every turn the
//! child reported as committed must be there with its state snapshot, the
//! database must pass `PRAGMA integrity_check`, and no artifact row may point
//! at a missing or corrupt blob. At the end the sweep leaves exactly the blobs
//! rows name, no stale pin and no temp file.

use crate::common;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Duration;

use servicedesk::desk::Desk;

const KILLS: usize = 50;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_reported_turn_survives_sigkill() {
    let seed = std::env::var("CRASH_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| fastrand::u64(..));
    println!("CRASH_SEED={seed}");
    let mut rng = fastrand::Rng::with_seed(seed);

    let dir = tempfile::tempdir().unwrap();
    let session = common::cli_ok(dir.path(), &["session", "new", "--complaint", "crash test"])
        .trim()
        .to_owned();
    let mut reported_max = 0i64;
    let mut total_reported = 0usize;

    for round in 0..KILLS {
        let mut child = Command::new(common::BIN)
            .arg("--data-dir")
            .arg(dir.path())
            .args([
                "dev",
                "write-turns",
                &session,
                "--count",
                "1000000",
                "--artifact-every",
                "3",
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (first_tx, first_rx) = std::sync::mpsc::channel::<()>();
        let reader = std::thread::spawn(move || {
            BufReader::new(stdout)
                .lines()
                .map_while(Result::ok)
                .filter_map(|l| {
                    l.strip_prefix("committed ")
                        .and_then(|n| n.parse::<i64>().ok())
                })
                .inspect(|_| {
                    let _ = first_tx.send(());
                })
                .collect::<Vec<i64>>()
        });
        // Every fifth round waits for the writer's first commit, so the kills
        // land mid-stream however slow the machine is to start a process;
        // the others may land while it is still opening the database.
        if round % 5 == 0 {
            first_rx
                .recv_timeout(Duration::from_secs(60))
                .expect("the writer commits a turn within a minute");
        }
        std::thread::sleep(Duration::from_millis(rng.u64(5..400)));
        child.kill().unwrap(); // SIGKILL on Unix: no destructor, no flush
        child.wait().unwrap();
        let committed = reader.join().unwrap();
        total_reported += committed.len();

        let desk = Desk::open(dir.path()).await.unwrap();
        let pool = desk.store().pool();
        assert_eq!(
            desk.store().integrity_check().await.unwrap(),
            "ok",
            "round {round}"
        );
        let seqs: Vec<i64> =
            sqlx::query_scalar("SELECT seq FROM turns WHERE session_id = ? ORDER BY seq")
                .bind(&session)
                .fetch_all(pool)
                .await
                .unwrap();
        for seq in &committed {
            assert!(
                seqs.binary_search(seq).is_ok(),
                "round {round}: turn {seq} was reported committed but is gone (seed {seed})"
            );
        }
        // Turns are gapless and each has its snapshot.
        assert_eq!(
            seqs,
            (1..=seqs.len() as i64).collect::<Vec<_>>(),
            "round {round}"
        );
        let snapshots: i64 = sqlx::query_scalar(
            "SELECT COUNT(*) FROM session_states WHERE session_id = ? AND turn_seq > 0",
        )
        .bind(&session)
        .fetch_one(pool)
        .await
        .unwrap();
        assert_eq!(
            snapshots,
            seqs.len() as i64,
            "round {round}: one snapshot per turn"
        );
        let (_, state) = desk.store().latest_state(&session).await.unwrap();
        assert_eq!(
            state.completed_steps.len(),
            seqs.len(),
            "round {round}: the newest snapshot is the last turn's"
        );

        let report = desk.verify_artifacts(None).await.unwrap();
        assert_eq!(
            report.ok, report.checked,
            "round {round}: {:?}",
            report.results
        );
        let expected_artifacts = seqs.len().div_ceil(3);
        assert_eq!(
            report.checked, expected_artifacts,
            "round {round}: an artifact for every third turn"
        );

        reported_max = reported_max.max(committed.last().copied().unwrap_or(0));
        assert!(seqs.len() as i64 >= reported_max);
        desk.close().await;
    }
    // The sweep (what serve and the app run at start) leaves no orphan blob,
    // stale pin or temp file a kill left, and removes nothing a row uses.
    let swept = common::cli_json(
        dir.path(),
        &["artifact", "sweep", "--grace-secs", "0", "--json"],
    );
    println!("sweep after {KILLS} kills: {swept}");
    let desk = Desk::open(dir.path()).await.unwrap();
    let rows = desk.store().artifacts(None).await.unwrap();
    let mut named: Vec<String> = rows
        .iter()
        .flat_map(|a| std::iter::once(a.sha256.clone()).chain(a.thumb_sha256.clone()))
        .collect();
    named.sort();
    named.dedup();
    let mut on_disk: Vec<String> = common::blob_files(dir.path())
        .into_iter()
        .map(|p| p.replace(['/', '\\'], ""))
        .collect();
    on_disk.sort();
    assert_eq!(on_disk, named, "only blobs a row names are left");
    let report = desk.verify_artifacts(None).await.unwrap();
    assert_eq!(report.ok, report.checked, "{:?}", report.results);
    let pins: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM blob_pins")
        .fetch_one(desk.store().pool())
        .await
        .unwrap();
    assert_eq!(pins, 0, "no stale pin is left");
    let temp: Vec<_> = std::fs::read_dir(dir.path().join("artifacts/tmp"))
        .unwrap()
        .collect();
    assert!(temp.is_empty(), "temp files left: {temp:?}");
    desk.close().await;
    println!("{KILLS} kills, {total_reported} commits reported, {reported_max} turns at the end");
    assert!(
        total_reported >= KILLS / 5,
        "the writer made progress between kills"
    );
}
