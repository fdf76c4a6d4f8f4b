//! The shell's IPC, exercised on Tauri's mock runtime (no display needed):
//! the same `invoke('api', …)` messages the UI sends, against a real data dir.

use serde_json::{json, Value};
use servicedesk_desktop::{app_builder, Shell};
use tauri::ipc::{CallbackFn, InvokeBody};
use tauri::test::{get_ipc_response, mock_builder, mock_context, noop_assets, INVOKE_KEY};
use tauri::webview::InvokeRequest;
use tauri::{WebviewUrl, WebviewWindow, WebviewWindowBuilder};

struct App {
    _app: tauri::App<tauri::test::MockRuntime>,
    window: WebviewWindow<tauri::test::MockRuntime>,
    _dir: tempfile::TempDir,
}

fn app(smoke_report: Option<std::path::PathBuf>) -> App {
    let dir = tempfile::tempdir().unwrap();
    let shell = Shell::open(dir.path().join("data"), smoke_report);
    let app = app_builder(mock_builder(), shell)
        .build(mock_context(noop_assets()))
        .expect("the app builds on the mock runtime");
    let window = WebviewWindowBuilder::new(&app, "main", WebviewUrl::default())
        .build()
        .unwrap();
    App {
        _app: app,
        window,
        _dir: dir,
    }
}

fn invoke(app: &App, cmd: &str, args: Value) -> Result<Value, Value> {
    get_ipc_response(
        &app.window,
        InvokeRequest {
            cmd: cmd.into(),
            callback: CallbackFn(0),
            error: CallbackFn(1),
            // On Linux the mock webview must claim the app's own origin;
            // http://tauri.localhost is treated as remote and refused.
            url: "tauri://localhost".parse().unwrap(),
            body: InvokeBody::Json(args),
            headers: Default::default(),
            invoke_key: INVOKE_KEY.to_string(),
        },
    )
    .map(|body| body.deserialize::<Value>().unwrap())
}

fn api(app: &App, command: &str, payload: Value) -> Result<Value, Value> {
    invoke(app, "api", json!({"command": command, "payload": payload}))
}

#[test]
fn sessions_created_over_ipc_are_listed_and_shown() {
    let app = app(None);
    let info = api(&app, "app_info", json!({})).unwrap();
    assert_eq!(info["sessions"], 0);

    let created = api(
        &app,
        "session_new",
        json!({"complaint": "Slide-out will not retract", "customer": "R. Diaz", "odometer": 41250}),
    )
    .unwrap();
    let id = created["id"].as_str().unwrap().to_string();
    assert_eq!(created["unit"]["odometer"], 41250);

    let list = api(&app, "session_list", json!({"query": "slide"})).unwrap();
    let sessions = list["sessions"].as_array().unwrap();
    assert_eq!(sessions.len(), 1);
    assert_eq!(sessions[0]["id"], id.as_str());

    let shown = api(&app, "session_show", json!({"session_id": id})).unwrap();
    assert_eq!(shown["session"]["complaint"], "Slide-out will not retract");
    assert_eq!(shown["turns"], json!([]));
}

#[test]
fn a_photo_uploaded_over_ipc_is_stored_and_verified() {
    let app = app(None);
    let session = api(
        &app,
        "session_new",
        json!({"complaint": "Water heater no ignition"}),
    )
    .unwrap();
    let jpeg = std::fs::read(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/fixtures/photo_exif.jpg"
    ))
    .unwrap();
    use base64::Engine as _;
    let artifact = api(
        &app,
        "artifact_upload",
        json!({
            "session_id": session["id"],
            "file_name": "igniter.jpg",
            "content_base64": base64::engine::general_purpose::STANDARD.encode(&jpeg),
        }),
    )
    .unwrap();
    assert_eq!(artifact["mime"], "image/jpeg");
    assert_eq!(artifact["thumbnail"], "generated");
    let verify = api(
        &app,
        "artifact_verify",
        json!({"session_id": session["id"]}),
    )
    .unwrap();
    assert_eq!(verify["ok"], 1);
}

#[test]
fn errors_cross_ipc_as_app_errors() {
    let app = app(None);
    let err = api(&app, "no_such_command", json!({})).unwrap_err();
    assert_eq!(err["code"], "unknown_command");

    let err = api(&app, "session_new", json!({"complaint": ""})).unwrap_err();
    assert_eq!(err["code"], "invalid_input");
    assert!(err["message"].as_str().unwrap().contains("complaint"));

    let err = api(
        &app,
        "session_new",
        json!({"complaint": "x", "colour": "red"}),
    )
    .unwrap_err();
    assert_eq!(err["code"], "invalid_input");

    // Nothing above left a session behind.
    let list = api(&app, "session_list", json!({})).unwrap();
    assert_eq!(list["sessions"], json!([]));
}

#[test]
fn smoke_report_is_refused_outside_smoke_mode() {
    let app = app(None);
    let err = invoke(&app, "smoke_report", json!({"report": {"ok": true}})).unwrap_err();
    assert_eq!(err["code"], "invalid_input");
}

#[test]
fn an_unopenable_data_dir_is_reported_to_every_command() {
    let dir = tempfile::tempdir().unwrap();
    // A regular file where the data dir should be.
    let blocker = dir.path().join("data");
    std::fs::write(&blocker, b"not a directory").unwrap();
    let shell = Shell::open(blocker, None);
    let app = app_builder(mock_builder(), shell)
        .build(mock_context(noop_assets()))
        .unwrap();
    let window = WebviewWindowBuilder::new(&app, "main", WebviewUrl::default())
        .build()
        .unwrap();
    let app = App {
        _app: app,
        window,
        _dir: dir,
    };
    let err = api(&app, "app_info", json!({})).unwrap_err();
    assert_eq!(err["code"], "storage");
    assert!(err["message"].as_str().unwrap().contains("data"));
}

/// The diagnostic chat over IPC, as the app's chat panel drives it: a
/// question, a signal that isolates, the context panel's view, the report
/// and its Markdown export, all committed to the real data dir.
#[test]
fn a_diagnosis_runs_over_ipc_to_an_exported_report() {
    let app = app(None);
    let created = api(
        &app,
        "session_new",
        json!({"complaint": "Roof vent fan dead", "plate": "7ABC123"}),
    )
    .unwrap();
    let id = created["id"].as_str().unwrap().to_string();

    let first = api(
        &app,
        "chat_turn",
        json!({"session_id": id, "text": "roof vent fan doesn't work"}),
    )
    .unwrap();
    assert_eq!(first["transition"], "T1_root_entry");
    assert_eq!(first["system"], "dc_12v");
    assert_eq!(first["reply"]["kind"], "question");

    let isolated = api(
        &app,
        "chat_turn",
        json!({"session_id": id, "text": "panel fuse is blown"}),
    )
    .unwrap();
    assert_eq!(isolated["isolation"]["complete"], true);
    assert_eq!(isolated["labor"]["mode"], "draft");

    let context = api(&app, "session_context", json!({"session_id": id})).unwrap();
    assert_eq!(context["system"]["id"], "dc_12v");
    assert_eq!(context["report_ready"], true);
    assert_eq!(context["last_transition"]["id"], isolated["transition"]);
    assert!(context["isolation"]["cause"]
        .as_str()
        .unwrap()
        .contains("fuse"));

    let report = api(
        &app,
        "chat_turn",
        json!({"session_id": id, "text": "write the report"}),
    )
    .unwrap();
    assert_eq!(report["reply"]["kind"], "report");
    assert_eq!(report["report_revision"], 1);
    // The write-up is a draft; the export is of the finalized revision.
    let done = api(&app, "report_finalize", json!({"session_id": id})).unwrap();
    assert_eq!(done["revision"], 1);
    let export = api(&app, "report_export", json!({"session_id": id})).unwrap();
    assert_eq!(export["revision"], 1);
    assert!(export["file_name"]
        .as_str()
        .unwrap()
        .starts_with("7ABC123-"));
    assert!(export["content"]
        .as_str()
        .unwrap()
        .contains("**Total labor:**"));

    let missing = api(
        &app,
        "report_export",
        json!({"session_id": id, "revision": 9}),
    )
    .unwrap_err();
    assert_eq!(missing["code"], "not_found");
}
