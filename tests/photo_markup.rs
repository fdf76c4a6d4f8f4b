//! A photo's caption and condition tag, and marked-up copies: through the
//! api on a real data dir (SQLite and blob files). A copy is a new artifact
//! linked to its original, whose row and bytes never change; bad input and a
//! finalized session are refused with nothing written; the report lists each
//! photo's caption and condition and what a copy marks up.

use crate::common;

use base64::Engine as _;
use serde_json::{json, Value};
use servicedesk::api::{dispatch, AppError};
use servicedesk::desk::Desk;

fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

async fn call(desk: &Desk, command: &str, payload: Value) -> Value {
    dispatch(desk, command, payload)
        .await
        .unwrap_or_else(|e| panic!("{command}: {e:?}"))
}

async fn refused(desk: &Desk, command: &str, payload: Value) -> AppError {
    match dispatch(desk, command, payload).await {
        Ok(v) => panic!("{command} should be refused, got {v:#}"),
        Err(e) => e,
    }
}

/// A session with one photo: (session id, artifact).
async fn session_with_photo(desk: &Desk, complaint: &str) -> (String, Value) {
    let s = call(
        desk,
        "session_new",
        json!({"complaint": complaint, "technician": "Sam", "language": "en"}),
    )
    .await;
    let id = s["id"].as_str().unwrap().to_owned();
    let photo = call(
        desk,
        "artifact_upload",
        json!({"session_id": id, "file_name": "fuse.png",
               "content_base64": b64(&common::png(40, 30, [200, 20, 20]))}),
    )
    .await;
    (id, photo)
}

/// Everything that says what the session's photos are: rows, blob files,
/// pins and the session's last change.
async fn snapshot(desk: &Desk, dir: &std::path::Path, id: &str) -> (Value, usize, i64, Value) {
    let shown = call(desk, "session_show", json!({"session_id": id})).await;
    let pins: i64 = sqlx::query_scalar("SELECT count(*) FROM blob_pins")
        .fetch_one(desk.store().pool())
        .await
        .unwrap();
    (
        shown["artifacts"].clone(),
        blob_files(dir),
        pins,
        shown["session"]["updated_at"].clone(),
    )
}

fn blob_files(dir: &std::path::Path) -> usize {
    walk(&dir.join("artifacts").join("sha256"))
}

fn walk(p: &std::path::Path) -> usize {
    std::fs::read_dir(p).map_or(0, |rd| {
        rd.flatten()
            .map(|e| {
                if e.path().is_dir() {
                    walk(&e.path())
                } else {
                    1
                }
            })
            .sum()
    })
}

#[tokio::test]
async fn caption_and_condition_round_trip_and_clear() {
    let dir = tempfile::tempdir().unwrap();
    let desk = Desk::open(dir.path()).await.unwrap();
    let (id, photo) = session_with_photo(&desk, "roof fan does not run").await;
    let pid = photo["id"].as_str().unwrap();
    assert_eq!(photo["condition"], Value::Null);
    assert_eq!(photo["derived_from"], Value::Null);

    let a = call(
        &desk,
        "artifact_annotate",
        json!({"session_id": id, "artifact_id": pid,
               "caption": "  blown 15 A fuse  ", "condition": "urgent"}),
    )
    .await;
    assert_eq!(a["caption"], "blown 15 A fuse");
    assert_eq!(a["condition"], "urgent");

    // Kept across a restart, and session_show has them.
    drop(desk);
    let desk = Desk::open(dir.path()).await.unwrap();
    let shown = call(&desk, "session_show", json!({"session_id": id})).await;
    assert_eq!(shown["artifacts"][0]["caption"], "blown 15 A fuse");
    assert_eq!(shown["artifacts"][0]["condition"], "urgent");

    // A field left out keeps its value.
    let a = call(
        &desk,
        "artifact_annotate",
        json!({"session_id": id, "artifact_id": pid, "condition": "attention"}),
    )
    .await;
    assert_eq!(a["caption"], "blown 15 A fuse");
    assert_eq!(a["condition"], "attention");

    // An empty caption and the condition "none" clear them.
    let a = call(
        &desk,
        "artifact_annotate",
        json!({"session_id": id, "artifact_id": pid, "caption": "   ", "condition": "none"}),
    )
    .await;
    assert_eq!(a["caption"], Value::Null);
    assert_eq!(a["condition"], Value::Null);
    // The bytes were never touched.
    assert_eq!(a["sha256"], photo["sha256"]);
}

#[tokio::test]
async fn markup_is_a_linked_copy_and_the_original_is_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let desk = Desk::open(dir.path()).await.unwrap();
    let (id, photo) = session_with_photo(&desk, "roof fan does not run").await;
    let pid = photo["id"].as_str().unwrap();
    call(
        &desk,
        "artifact_annotate",
        json!({"session_id": id, "artifact_id": pid, "caption": "panel fuse", "condition": "urgent"}),
    )
    .await;
    let original_bytes = desk.artifact_content(pid, false).await.unwrap().1;

    let drawn = common::png(40, 30, [20, 200, 20]);
    let copy = call(
        &desk,
        "artifact_markup",
        json!({"session_id": id, "original_id": pid, "data_base64": b64(&drawn),
               "caption": "arrow at the blown fuse"}),
    )
    .await;
    assert_ne!(copy["id"], photo["id"]);
    assert_eq!(copy["derived_from"], photo["id"]);
    assert_eq!(copy["session_id"], id.as_str());
    assert_eq!(copy["file_name"], "fuse-markup.png");
    assert_eq!(copy["mime"], "image/png");
    assert_eq!(copy["caption"], "arrow at the blown fuse");
    // The copy carries the original's tag.
    assert_eq!(copy["condition"], "urgent");
    let copy_bytes = desk
        .artifact_content(copy["id"].as_str().unwrap(), false)
        .await
        .unwrap()
        .1;
    assert_eq!(copy_bytes, drawn);

    // The original: same row, same hash, same bytes on disk.
    let shown = call(&desk, "session_show", json!({"session_id": id})).await;
    let arts = shown["artifacts"].as_array().unwrap();
    assert_eq!(arts.len(), 2);
    assert_eq!(arts[0]["id"], photo["id"]);
    assert_eq!(arts[0]["sha256"], photo["sha256"]);
    assert_eq!(arts[0]["derived_from"], Value::Null);
    assert_eq!(
        desk.artifact_content(pid, false).await.unwrap().1,
        original_bytes
    );
    let verified = call(&desk, "artifact_verify", json!({"session_id": id})).await;
    assert_eq!(verified["ok"], 2, "{verified:#}");

    // A second copy gets a name of its own; without a caption it takes the original's.
    let again = call(
        &desk,
        "artifact_markup",
        json!({"session_id": id, "original_id": pid, "data_base64": b64(&common::png(40, 30, [0, 0, 200]))}),
    )
    .await;
    assert_eq!(again["file_name"], "fuse-markup-2.png");
    assert_eq!(again["caption"], "panel fuse");

    // A purge removes copies and originals together.
    let gone = call(
        &desk,
        "session_delete",
        json!({"session_id": id, "purge": true}),
    )
    .await;
    assert_eq!(gone["deleted"], true);
    assert_eq!(blob_files(dir.path()), 0);
}

#[tokio::test]
async fn bad_input_is_refused_by_field_with_nothing_written() {
    let dir = tempfile::tempdir().unwrap();
    let desk = Desk::open(dir.path()).await.unwrap();
    let (id, photo) = session_with_photo(&desk, "roof fan does not run").await;
    let pid = photo["id"].as_str().unwrap();
    let (other, other_photo) = session_with_photo(&desk, "awning will not extend").await;
    let before = snapshot(&desk, dir.path(), &id).await;
    let png = b64(&common::png(40, 30, [1, 2, 3]));

    let e = refused(
        &desk,
        "artifact_annotate",
        json!({"session_id": id, "artifact_id": pid, "condition": "broken"}),
    )
    .await;
    assert_eq!(e.code, "invalid_input");
    assert!(
        e.message
            .contains("condition must be ok, attention, urgent or none"),
        "{e:?}"
    );

    let e = refused(
        &desk,
        "artifact_annotate",
        json!({"session_id": id, "artifact_id": pid, "caption": "x".repeat(1001)}),
    )
    .await;
    assert!(e.message.starts_with("caption:"), "{e:?}");
    let e = refused(
        &desk,
        "artifact_annotate",
        json!({"session_id": id, "artifact_id": pid, "caption": "two\nlines"}),
    )
    .await;
    assert!(e.message.starts_with("caption: must be one line"), "{e:?}");
    let e = refused(
        &desk,
        "artifact_annotate",
        json!({"session_id": id, "artifact_id": pid}),
    )
    .await;
    assert_eq!(e.code, "invalid_input");

    let e = refused(
        &desk,
        "artifact_annotate",
        json!({"session_id": id, "artifact_id": "no-such-photo", "caption": "x"}),
    )
    .await;
    assert_eq!(e.code, "not_found");
    assert!(e.message.starts_with("artifact_id no-such-photo"), "{e:?}");

    // Another session's photo is not this session's to annotate or mark up.
    let oid = other_photo["id"].as_str().unwrap();
    let e = refused(
        &desk,
        "artifact_annotate",
        json!({"session_id": id, "artifact_id": oid, "condition": "ok"}),
    )
    .await;
    assert_eq!(e.code, "not_found");
    let e = refused(
        &desk,
        "artifact_markup",
        json!({"session_id": id, "original_id": oid, "data_base64": png}),
    )
    .await;
    assert_eq!(e.code, "not_found");
    assert!(e.message.starts_with("original_id "), "{e:?}");

    let e = refused(
        &desk,
        "artifact_markup",
        json!({"session_id": id, "original_id": pid, "data_base64": "not base64!"}),
    )
    .await;
    assert!(e.message.starts_with("data_base64"), "{e:?}");
    let e = refused(
        &desk,
        "artifact_markup",
        json!({"session_id": id, "original_id": pid,
               "data_base64": b64(&std::fs::read(common::fixture("photo_exif.jpg")).unwrap())}),
    )
    .await;
    assert!(e.message.starts_with("data_base64: is not a PNG"), "{e:?}");
    // A PNG header with nothing that decodes behind it.
    let mut torn = common::png(40, 30, [1, 2, 3]);
    torn.truncate(40);
    let e = refused(
        &desk,
        "artifact_markup",
        json!({"session_id": id, "original_id": pid, "data_base64": b64(&torn)}),
    )
    .await;
    assert!(e.message.starts_with("data_base64"), "{e:?}");

    let after = snapshot(&desk, dir.path(), &id).await;
    // The torn PNG's blob may wait for the sweep, but no row names it and no pin holds it.
    assert_eq!(
        (&after.0, after.2, &after.3),
        (&before.0, before.2, &before.3)
    );
    let other_shown = call(&desk, "session_show", json!({"session_id": other})).await;
    assert_eq!(other_shown["artifacts"].as_array().unwrap().len(), 1);
    assert_eq!(other_shown["artifacts"][0]["condition"], Value::Null);
}

/// The roof fan diagnosed down to its fuse, with a photo of the fuse.
async fn diagnosed(desk: &Desk) -> (String, String) {
    let (id, photo) = session_with_photo(desk, "roof fan does not run").await;
    call(
        desk,
        "chat_turn",
        json!({"session_id": id, "text": "the roof fan does not work"}),
    )
    .await;
    call(
        desk,
        "chat_turn",
        json!({"session_id": id, "text": "the panel fuse is blown"}),
    )
    .await;
    (id, photo["id"].as_str().unwrap().to_owned())
}

#[tokio::test]
async fn a_finalized_session_refuses_annotation_and_markup_until_reopened() {
    let dir = tempfile::tempdir().unwrap();
    let desk = Desk::open(dir.path()).await.unwrap();
    let (id, pid) = diagnosed(&desk).await;
    call(&desk, "report_finalize", json!({"session_id": id})).await;
    let before = snapshot(&desk, dir.path(), &id).await;

    let e = refused(
        &desk,
        "artifact_annotate",
        json!({"session_id": id, "artifact_id": pid, "caption": "late", "condition": "ok"}),
    )
    .await;
    assert!(e.message.contains("is finalized"), "{e:?}");
    assert!(e.message.contains("reopen it first"), "{e:?}");
    let e = refused(
        &desk,
        "artifact_markup",
        json!({"session_id": id, "original_id": pid,
               "data_base64": b64(&common::png(40, 30, [9, 9, 9]))}),
    )
    .await;
    assert!(e.message.contains("is finalized"), "{e:?}");
    assert_eq!(snapshot(&desk, dir.path(), &id).await, before);

    call(&desk, "report_reopen", json!({"session_id": id})).await;
    let a = call(
        &desk,
        "artifact_annotate",
        json!({"session_id": id, "artifact_id": pid, "condition": "ok"}),
    )
    .await;
    assert_eq!(a["condition"], "ok");
}

#[tokio::test]
async fn the_report_lists_caption_condition_and_what_a_copy_marks_up() {
    let dir = tempfile::tempdir().unwrap();
    let desk = Desk::open(dir.path()).await.unwrap();
    let (id, pid) = diagnosed(&desk).await;
    call(
        &desk,
        "artifact_annotate",
        json!({"session_id": id, "artifact_id": pid, "caption": "panel fuse", "condition": "urgent"}),
    )
    .await;
    call(
        &desk,
        "artifact_markup",
        json!({"session_id": id, "original_id": pid,
               "data_base64": b64(&common::png(40, 30, [20, 200, 20])), "caption": "arrow at the fuse"}),
    )
    .await;
    call(&desk, "report_finalize", json!({"session_id": id})).await;

    let md = call(
        &desk,
        "report_export",
        json!({"session_id": id, "format": "markdown"}),
    )
    .await;
    let md = md["content"].as_str().unwrap();
    assert!(
        md.contains("fuse.png: panel fuse — Condition: Urgent"),
        "{md}"
    );
    assert!(
        md.contains(
            "fuse-markup.png: arrow at the fuse — Condition: Urgent — marked-up copy of fuse.png"
        ),
        "{md}"
    );

    let js = call(
        &desk,
        "report_export",
        json!({"session_id": id, "format": "json"}),
    )
    .await;
    let doc: Value = serde_json::from_str(js["content"].as_str().unwrap()).unwrap();
    let photos = &doc["sections"][0]["photos"];
    assert_eq!(photos[0]["file_name"], "fuse.png", "{doc:#}");
    assert_eq!(photos[0]["caption"], "panel fuse — Condition: Urgent");
    assert_eq!(photos[1]["file_name"], "fuse-markup.png");

    let pdf = call(
        &desk,
        "report_export",
        json!({"session_id": id, "format": "pdf"}),
    )
    .await;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(pdf["content"].as_str().unwrap())
        .unwrap();
    let path = dir.path().join("r.pdf");
    std::fs::write(&path, bytes).unwrap();
    let text = common::pdf_text(&path)
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(text.contains("panel fuse — Condition: Urgent"), "{text}");
    assert!(text.contains("marked-up copy of fuse.png"), "{text}");
}
