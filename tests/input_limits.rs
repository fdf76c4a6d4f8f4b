//! Field limits and names that lie (issue 17): a session's text fields have
//! length limits named in the error, photo captions too, and a file name with
//! an invisible text-direction character (U+202E) is refused. Nothing is
//! stored on a refusal.

use crate::common;

use base64::Engine as _;
use serde_json::{json, Value};
use servicedesk::api;
use servicedesk::Desk;

async fn call(desk: &Desk, command: &str, payload: Value) -> Result<Value, api::AppError> {
    api::dispatch(desk, command, payload).await
}

#[tokio::test]
async fn session_fields_have_named_limits_and_nothing_is_stored_past_them() {
    let dir = tempfile::tempdir().unwrap();
    let desk = Desk::open(dir.path()).await.unwrap();
    let long = |n: usize| "ä".repeat(n);
    let cases = [
        (
            json!({ "complaint": long(4001) }),
            "complaint",
            "at most 4000",
        ),
        (
            json!({ "complaint": "fan", "customer": long(201) }),
            "customer",
            "at most 200",
        ),
        (
            json!({ "complaint": "fan", "technician": long(201) }),
            "technician",
            "at most 200",
        ),
        (
            json!({ "complaint": "fan", "make_model": long(201) }),
            "make_model",
            "at most 200",
        ),
        (
            json!({ "complaint": "fan", "plate": long(21) }),
            "plate",
            "at most 20",
        ),
    ];
    for (payload, field, words) in cases {
        let e = call(&desk, "session_new", payload).await.unwrap_err();
        assert_eq!(e.code, "invalid_input", "{field}: {e}");
        assert!(e.message.starts_with(&format!("{field}: ")), "{e}");
        assert!(e.message.contains(words), "{field}: {e}");
    }
    let list = call(&desk, "session_list", json!({})).await.unwrap();
    assert_eq!(list["sessions"], json!([]), "nothing was stored");
    // At the limits, everything is taken.
    let s = call(
        &desk,
        "session_new",
        json!({ "complaint": long(4000), "customer": long(200), "plate": "ABC1234567890ABCDEFG" }),
    )
    .await
    .unwrap();
    assert_eq!(s["complaint"].as_str().unwrap().chars().count(), 4000);
}

#[tokio::test]
async fn names_with_direction_overrides_and_overlong_captions_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let desk = Desk::open(dir.path()).await.unwrap();
    let s = call(&desk, "session_new", json!({ "complaint": "awning" }))
        .await
        .unwrap();
    let png = base64::engine::general_purpose::STANDARD.encode(common::png(8, 8, [1, 2, 3]));
    for name in [
        "photo\u{202E}gpj.exe",
        "\u{202D}report.png",
        "a\u{2066}b.png",
        "x\u{200F}.png",
    ] {
        let e = call(
            &desk,
            "artifact_upload",
            json!({ "session_id": s["id"], "file_name": name, "content_base64": png }),
        )
        .await
        .unwrap_err();
        assert_eq!(e.code, "invalid_file_name", "{name:?}: {e}");
        assert!(e.message.contains("text-direction character U+"), "{e}");
    }
    let e = call(
        &desk,
        "artifact_upload",
        json!({ "session_id": s["id"], "file_name": "ok.png", "content_base64": png, "caption": "c".repeat(1001) }),
    )
    .await
    .unwrap_err();
    assert!(
        e.message.starts_with("caption: ") && e.message.contains("at most 1000"),
        "{e}"
    );
    let list = call(&desk, "artifact_list", json!({ "session_id": s["id"] }))
        .await
        .unwrap();
    assert_eq!(list["artifacts"], json!([]), "nothing was stored");
    assert!(
        common::blob_files(dir.path()).is_empty(),
        "no blob was written"
    );
    // An ordinary non-ASCII name is fine.
    call(
        &desk,
        "artifact_upload",
        json!({ "session_id": s["id"], "file_name": "фото toldo.png", "content_base64": png }),
    )
    .await
    .unwrap();
}
