//! Photos and files through the real CLI and api: phone formats accepted,
//! EXIF time read, damage detected, and bad input refused with a clear error
//! that changes nothing.

use crate::common;

use std::path::Path;

use base64::Engine as _;
use common::{blob_files, cli, cli_json, cli_ok, fixture};
use serde_json::{json, Value};
use servicedesk::api::dispatch;
use servicedesk::desk::Desk;

fn new_session(dir: &Path) -> String {
    cli_json(
        dir,
        &[
            "session",
            "new",
            "--complaint",
            "Water heater no spark",
            "--json",
        ],
    )["id"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// Everything that could change when an attach fails: rows and blob files.
fn snapshot(dir: &Path, session: &str) -> (Value, Vec<String>) {
    (
        cli_json(dir, &["artifact", "list", session, "--json"]),
        blob_files(dir),
    )
}

#[test]
fn jpeg_with_exif_gets_its_time_size_and_an_upright_thumbnail() {
    let dir = tempfile::tempdir().unwrap();
    let s = new_session(dir.path());
    let a = cli_json(
        dir.path(),
        &[
            "artifact",
            "add",
            &s,
            fixture("photo_exif.jpg").to_str().unwrap(),
            "--caption",
            "burner tube",
            "--json",
        ],
    );
    assert_eq!(a["mime"], "image/jpeg");
    assert_eq!(a["kind"], "image");
    assert_eq!(a["taken_at"], "2026-11-20T09:41:07-07:00");
    assert_eq!(
        (a["width"].as_i64(), a["height"].as_i64()),
        (Some(640), Some(480))
    );
    assert_eq!(a["thumbnail"], "generated");
    assert_eq!(a["caption"], "burner tube");
    let bytes = std::fs::read(fixture("photo_exif.jpg")).unwrap();
    assert_eq!(a["size_bytes"].as_u64(), Some(bytes.len() as u64));

    // The thumbnail honours EXIF orientation 6: the landscape sensor image is shown portrait.
    let rt = tokio::runtime::Runtime::new().unwrap();
    let thumb = rt.block_on(async {
        let desk = Desk::open(dir.path()).await.unwrap();
        dispatch(
            &desk,
            "artifact_content",
            json!({"artifact_id": a["id"], "thumbnail": true}),
        )
        .await
        .unwrap()
    });
    assert_eq!(thumb["mime"], "image/jpeg");
    let raw = base64::engine::general_purpose::STANDARD
        .decode(thumb["content_base64"].as_str().unwrap())
        .unwrap();
    let img = image::load_from_memory(&raw).unwrap();
    assert_eq!((img.width(), img.height()), (240, 320));
}

#[test]
fn heic_from_a_phone_is_kept_with_its_time_and_a_placeholder() {
    let dir = tempfile::tempdir().unwrap();
    let s = new_session(dir.path());
    let a = cli_json(
        dir.path(),
        &[
            "artifact",
            "add",
            &s,
            fixture("phone_photo.heic").to_str().unwrap(),
            "--json",
        ],
    );
    assert_eq!(a["mime"], "image/heic");
    assert_eq!(a["taken_at"], "2026-10-03T14:05:59");
    assert_eq!(a["thumbnail"], "placeholder");
    // The original bytes are stored untouched.
    let sha = a["sha256"].as_str().unwrap();
    let stored = std::fs::read(
        dir.path()
            .join("artifacts/sha256")
            .join(&sha[..2])
            .join(&sha[2..]),
    )
    .unwrap();
    assert_eq!(stored, std::fs::read(fixture("phone_photo.heic")).unwrap());
    let out = cli_ok(dir.path(), &["artifact", "verify", &s]);
    assert!(out.contains("1 of 1 file(s) intact"), "{out}");
}

#[test]
fn a_tampered_or_missing_blob_is_reported_and_never_served() {
    let dir = tempfile::tempdir().unwrap();
    let s = new_session(dir.path());
    let a = cli_json(
        dir.path(),
        &[
            "artifact",
            "add",
            &s,
            fixture("photo_exif.jpg").to_str().unwrap(),
            "--json",
        ],
    );
    let b_path = dir.path().join("b.png");
    std::fs::write(&b_path, common::png(20, 20, [0, 0, 255])).unwrap();
    let b = cli_json(
        dir.path(),
        &["artifact", "add", &s, b_path.to_str().unwrap(), "--json"],
    );
    assert!(cli(dir.path(), &["artifact", "verify"]).status.success());

    let blob = |v: &Value| {
        let sha = v["sha256"].as_str().unwrap();
        dir.path()
            .join("artifacts/sha256")
            .join(&sha[..2])
            .join(&sha[2..])
    };
    // Flip one byte in the middle of the JPEG.
    let mut bytes = std::fs::read(blob(&a)).unwrap();
    let mid = bytes.len() / 2;
    bytes[mid] ^= 0x01;
    std::fs::write(blob(&a), &bytes).unwrap();
    std::fs::remove_file(blob(&b)).unwrap();

    let out = cli(dir.path(), &["artifact", "verify", &s]);
    assert!(
        !out.status.success(),
        "verify must fail when a blob is damaged"
    );
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains(&format!("CORRUPT  {}", a["id"].as_str().unwrap())),
        "{text}"
    );
    assert!(
        text.contains(&format!("MISSING  {}", b["id"].as_str().unwrap())),
        "{text}"
    );
    assert!(text.contains("0 of 2 file(s) intact"), "{text}");

    let out = cli(dir.path(), &["artifact", "verify", "--json"]);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    let statuses: Vec<&str> = report["results"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["status"].as_str().unwrap())
        .collect();
    assert_eq!(statuses, vec!["corrupt", "missing"]);

    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let desk = Desk::open(dir.path()).await.unwrap();
        let err = dispatch(&desk, "artifact_content", json!({"artifact_id": a["id"]}))
            .await
            .unwrap_err();
        assert_eq!(err.code, "artifact_corrupt");
        let err = dispatch(&desk, "artifact_content", json!({"artifact_id": b["id"]}))
            .await
            .unwrap_err();
        assert_eq!(err.code, "artifact_missing");
    });

    // Adding the same photo again repairs the store.
    cli_ok(
        dir.path(),
        &[
            "artifact",
            "add",
            &s,
            fixture("photo_exif.jpg").to_str().unwrap(),
        ],
    );
    let out = cli(dir.path(), &["artifact", "verify", "--json"]);
    let report: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["results"][0]["status"], "ok");
    assert_eq!(
        report["results"][1]["status"], "missing",
        "b is still gone: nothing to repair it from"
    );
}

#[test]
fn bad_files_get_a_clear_error_and_change_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let s = new_session(dir.path());
    cli_ok(
        dir.path(),
        &[
            "artifact",
            "add",
            &s,
            fixture("photo_exif.jpg").to_str().unwrap(),
        ],
    );
    let before = snapshot(dir.path(), &s);

    let text = dir.path().join("notes.txt");
    std::fs::write(&text, "fuse ok, 12.6 V at the board").unwrap();
    let empty = dir.path().join("empty.jpg");
    std::fs::write(&empty, b"").unwrap();
    let video = dir.path().join("clip.mov");
    std::fs::write(&video, b"\0\0\0\x14ftypqt  \0\0\0\0qt  ").unwrap();
    let missing = dir.path().join("no-such-photo.jpg");
    let cases: [(&Path, &str, &str); 5] = [
        (
            &text,
            "unsupported_type",
            "notes.txt is not a supported file type (looks like text)",
        ),
        (&video, "unsupported_type", "brand `qt  `"),
        (&empty, "empty_file", "empty.jpg is empty"),
        (&missing, "unreadable_path", "no such file"),
        (dir.path(), "unreadable_path", "it is a directory"),
    ];
    for (path, code, words) in cases {
        let out = cli(dir.path(), &["artifact", "add", &s, path.to_str().unwrap()]);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{path:?} must be refused");
        assert_eq!(err.lines().count(), 1, "one line: {err}");
        assert!(
            err.starts_with(&format!("error: {code}: ")),
            "{path:?}: {err}"
        );
        assert!(err.contains(words), "{path:?}: {err}");
    }
    let out = cli(
        dir.path(),
        &[
            "artifact",
            "add",
            "no-such-session",
            fixture("photo_exif.jpg").to_str().unwrap(),
        ],
    );
    assert!(String::from_utf8_lossy(&out.stderr)
        .starts_with("error: not_found: session no-such-session not found"));

    // Through the api (the UI's upload path): a path-like name, bad base64.
    let rt = tokio::runtime::Runtime::new().unwrap();
    rt.block_on(async {
        let desk = Desk::open(dir.path()).await.unwrap();
        let png = base64::engine::general_purpose::STANDARD.encode(common::png(4, 4, [1, 2, 3]));
        for name in ["../../etc/passwd.png", "..\\evil.png", "sub/dir.png"] {
            let err = dispatch(
                &desk,
                "artifact_upload",
                json!({"session_id": s, "file_name": name, "content_base64": png}),
            )
            .await
            .unwrap_err();
            assert_eq!(err.code, "invalid_file_name", "{name}");
            assert!(err.message.contains(name), "{}", err.message);
        }
        let err = dispatch(
            &desk,
            "artifact_upload",
            json!({"session_id": s, "file_name": "a.png", "content_base64": "not base64!"}),
        )
        .await
        .unwrap_err();
        assert_eq!(err.code, "invalid_input");
        assert!(err.message.contains("not valid base64"));
        let err = dispatch(
            &desk,
            "artifact_upload",
            json!({"session_id": s, "file_name": "a.png"}),
        )
        .await
        .unwrap_err();
        assert_eq!(err.code, "invalid_input");
        assert!(
            err.message.contains("missing field `content_base64`"),
            "{}",
            err.message
        );
        desk.close().await;
    });

    assert_eq!(
        snapshot(dir.path(), &s),
        before,
        "no row and no blob was added"
    );
    assert_eq!(
        cli(dir.path(), &["artifact", "list", &s]).status.code(),
        Some(0)
    );
}

#[test]
fn export_writes_the_whole_session_as_json() {
    let dir = tempfile::tempdir().unwrap();
    let s = new_session(dir.path());
    cli_ok(
        dir.path(),
        &[
            "artifact",
            "add",
            &s,
            fixture("phone_photo.heic").to_str().unwrap(),
        ],
    );
    cli_ok(
        dir.path(),
        &[
            "dev",
            "write-turns",
            &s,
            "--count",
            "2",
            "--artifact-every",
            "0",
        ],
    );
    let out = dir.path().join("export.json");
    cli_ok(
        dir.path(),
        &["session", "export", &s, "--out", out.to_str().unwrap()],
    );
    let v: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
    assert_eq!(v["format"], "servicedesk.session.v1");
    assert_eq!(v["session"]["id"], s.as_str());
    assert_eq!(v["turns"].as_array().unwrap().len(), 2);
    assert_eq!(v["artifacts"][0]["file_name"], "phone_photo.heic");
    assert_eq!(v["state"]["completed_steps"], json!(["step-0", "step-1"]));

    let out = cli(dir.path(), &["session", "export", "nope"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("session nope not found"));
}
