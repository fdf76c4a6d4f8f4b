//! The purge/add race (issue 17): a purge deleting a session's photos while
//! another session adds the very same photo must never lose the photo the add
//! acknowledged. Run many rounds over the api (tasks on a multi-thread
//! runtime) and across two processes (the CLI binary). The sweep removes
//! only unreferenced blobs, stale pins and temp files older than its grace
//! period.
//!
//! `PURGE_RACE_ROUNDS` changes the number of rounds (500 over the api and
//! 500 across processes by default).

use crate::common;

use std::collections::BTreeSet;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, SystemTime};

use base64::Engine as _;
use serde_json::{json, Value};
use servicedesk::api;
use servicedesk::artifacts::BlobStatus;
use servicedesk::store::{NewSession, Unit};
use servicedesk::Desk;

fn rounds(default: usize) -> usize {
    std::env::var("PURGE_RACE_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// A distinct small PNG per round.
fn photo(round: usize) -> Vec<u8> {
    common::png(8, 8, [round as u8, (round >> 8) as u8, 7])
}

async fn call(desk: &Desk, command: &str, payload: Value) -> Result<Value, api::AppError> {
    api::dispatch(desk, command, payload).await
}

async fn new_session(desk: &Desk, complaint: &str) -> String {
    call(desk, "session_new", json!({ "complaint": complaint }))
        .await
        .unwrap()["id"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// Every blob on disk is named by a row, and every row's blob is intact.
async fn assert_store_consistent(desk: &Desk, data_dir: &Path) {
    let rows = desk.store().artifacts(None).await.unwrap();
    let mut named = BTreeSet::new();
    for a in &rows {
        assert_eq!(
            desk.blobs().status(&a.sha256).unwrap(),
            BlobStatus::Ok,
            "{} ({}) lost its blob",
            a.id,
            a.file_name
        );
        named.insert(a.sha256.clone());
        named.extend(a.thumb_sha256.clone());
    }
    let on_disk: BTreeSet<String> = common::blob_files(data_dir)
        .into_iter()
        .map(|p| p.replace(['/', '\\'], ""))
        .collect();
    let orphans: Vec<_> = on_disk.difference(&named).collect();
    assert!(orphans.is_empty(), "purges left orphan blobs: {orphans:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn purge_and_add_race_over_the_api_never_loses_an_acknowledged_photo() {
    let dir = tempfile::tempdir().unwrap();
    let desk = Desk::open(dir.path()).await.unwrap();
    let rounds = rounds(500);
    let mut acknowledged = 0;
    for r in 0..rounds {
        let content = base64::engine::general_purpose::STANDARD.encode(photo(r));
        let upload = |session: &str| json!({ "session_id": session, "file_name": format!("round{r}.png"), "content_base64": content });
        let a = new_session(&desk, "slide-out stuck").await;
        call(&desk, "artifact_upload", upload(&a)).await.unwrap();
        let b = new_session(&desk, "awning will not extend").await;
        let purge = {
            let desk = desk.clone();
            let req = json!({ "session_id": a, "purge": true });
            async move { call(&desk, "session_delete", req).await }
        };
        let add = {
            let desk = desk.clone();
            let req = upload(&b);
            async move { call(&desk, "artifact_upload", req).await }
        };
        // Alternate who starts first; both run on the worker threads at once.
        let (purged, added) = if r % 2 == 0 {
            let p = tokio::spawn(purge);
            let d = tokio::spawn(add);
            (p.await.unwrap(), d.await.unwrap())
        } else {
            let d = tokio::spawn(add);
            let p = tokio::spawn(purge);
            (p.await.unwrap(), d.await.unwrap())
        };
        purged.unwrap_or_else(|e| panic!("round {r}: the purge failed: {e:?}"));
        let added = added.unwrap_or_else(|e| panic!("round {r}: the add failed: {e:?}"));
        acknowledged += 1;
        let verify = call(&desk, "artifact_verify", json!({ "session_id": b }))
            .await
            .unwrap();
        assert_eq!(
            (verify["checked"].as_u64(), verify["ok"].as_u64()),
            (Some(1), Some(1)),
            "round {r}: the acknowledged photo {} of session {b} is gone: {verify}",
            added["id"]
        );
    }
    assert_eq!(acknowledged, rounds);
    assert_store_consistent(&desk, dir.path()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn purge_and_add_race_across_two_processes_never_loses_an_acknowledged_photo() {
    let dir = tempfile::tempdir().unwrap();
    let desk = Desk::open(dir.path()).await.unwrap();
    let rounds = rounds(500);
    for r in 0..rounds {
        let bytes = photo(r);
        let file = dir.path().join(format!("round{r}.png"));
        std::fs::write(&file, &bytes).unwrap();
        let session = |complaint: &str| NewSession {
            complaint: complaint.into(),
            customer: None,
            technician: None,
            language: None,
            unit: Unit::default(),
            ..Default::default()
        };
        let a = desk
            .new_session(session("slide-out stuck"))
            .await
            .unwrap()
            .id;
        desk.add_artifact_bytes(&a, "first.png", bytes, None)
            .await
            .unwrap();
        let b = desk
            .new_session(session("awning will not extend"))
            .await
            .unwrap()
            .id;
        let spawn = |args: Vec<&str>| {
            Command::new(common::BIN)
                .arg("--data-dir")
                .arg(dir.path())
                .args(args)
                .env_remove("SERVICEDESK_DATA_DIR")
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        };
        let file_arg = file.to_str().unwrap();
        let purge = spawn(vec!["session", "delete", &a, "--purge", "--json"]);
        let add = spawn(vec!["artifact", "add", &b, file_arg, "--json"]);
        let purged = purge.wait_with_output().unwrap();
        let added = add.wait_with_output().unwrap();
        assert!(
            purged.status.success(),
            "round {r}: the purge failed: {}",
            String::from_utf8_lossy(&purged.stderr)
        );
        assert!(
            added.status.success(),
            "round {r}: the add failed: {}",
            String::from_utf8_lossy(&added.stderr)
        );
        let row: Value = serde_json::from_slice(&added.stdout).unwrap();
        let sha = row["sha256"].as_str().unwrap();
        assert_eq!(
            desk.blobs().status(sha).unwrap(),
            BlobStatus::Ok,
            "round {r}: the photo the add acknowledged ({}) is gone",
            row["id"]
        );
    }
    assert_store_consistent(&desk, dir.path()).await;
}

fn age(path: &Path, by: Duration) {
    let f = std::fs::File::options().write(true).open(path).unwrap();
    f.set_modified(SystemTime::now() - by).unwrap();
}

#[tokio::test]
async fn sweep_removes_only_old_unreferenced_blobs_stale_pins_and_temp_files() {
    let dir = tempfile::tempdir().unwrap();
    let desk = Desk::open(dir.path()).await.unwrap();
    let hour = Duration::from_secs(3600);
    let s = desk
        .new_session(NewSession {
            complaint: "water heater".into(),
            customer: None,
            technician: None,
            language: None,
            unit: Unit::default(),
            ..Default::default()
        })
        .await
        .unwrap();
    let kept = desk
        .add_artifact_bytes(&s.id, "kept.png", photo(1), None)
        .await
        .unwrap();
    age(&desk.blobs().path_of(&kept.sha256), 2 * hour);
    // A crash between the blob's write and its row's commit: an old orphan.
    let old_orphan = desk.blobs().put(b"%PDF-1.4 orphan from a crash").unwrap();
    age(&desk.blobs().path_of(&old_orphan), 2 * hour);
    // An add still on its way: a young unreferenced blob...
    let young = desk.blobs().put(b"%PDF-1.4 an add in flight").unwrap();
    // ... and an old blob an add has pinned (it reuses it right now).
    let pinned = desk.blobs().put(b"%PDF-1.4 reused by an add").unwrap();
    age(&desk.blobs().path_of(&pinned), 2 * hour);
    desk.store().pin_blobs(&[pinned.as_str()]).await.unwrap();
    // A pin a crashed add left a day ago, on an old blob.
    let stale = desk.blobs().put(b"%PDF-1.4 its add crashed").unwrap();
    age(&desk.blobs().path_of(&stale), 2 * hour);
    sqlx::query("INSERT INTO blob_pins (id, sha256, created_at) VALUES ('crashed', ?, ?)")
        .bind(&stale)
        .bind(
            (chrono::Utc::now() - chrono::Duration::days(1))
                .to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
        )
        .execute(desk.store().pool())
        .await
        .unwrap();
    // Temp files a killed write left: one old, one young.
    let tmp = dir.path().join("artifacts/tmp");
    std::fs::write(tmp.join(".tmpOLD"), b"half a photo").unwrap();
    age(&tmp.join(".tmpOLD"), 2 * hour);
    std::fs::write(tmp.join(".tmpNEW"), b"half a photo").unwrap();

    let report = common::cli_json(dir.path(), &["artifact", "sweep", "--json"]);
    assert_eq!(report["blobs_removed"], 2, "{report}");
    assert_eq!(report["pins_dropped"], 1, "{report}");
    assert_eq!(report["temp_files_removed"], 1, "{report}");
    let status = |sha: &str| desk.blobs().status(sha).unwrap();
    assert_eq!(status(&kept.sha256), BlobStatus::Ok, "a referenced blob");
    assert_eq!(status(&old_orphan), BlobStatus::Missing, "an old orphan");
    assert_eq!(status(&stale), BlobStatus::Missing, "a stale pin's blob");
    assert_eq!(status(&young), BlobStatus::Ok, "within the grace period");
    assert_eq!(status(&pinned), BlobStatus::Ok, "pinned by an add");
    assert!(!tmp.join(".tmpOLD").exists());
    assert!(tmp.join(".tmpNEW").exists());
    // Sweeping again finds nothing more.
    let again = common::cli_json(dir.path(), &["artifact", "sweep", "--json"]);
    assert_eq!(again["blobs_removed"], 0, "{again}");
}
