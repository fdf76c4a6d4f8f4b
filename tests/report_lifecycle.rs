//! The report's lifecycle: "write it up" makes a draft the technician reviews
//! and edits; only an explicit finalize queues it for the portal, once; a
//! finalized repair order is read-only (a chat note changes nothing and the
//! reply says how to reopen) until it is reopened, which the audit trail
//! records; the next finalize is revision 2. Through the api on a real data
//! dir and through the CLI.

use crate::common;

use serde_json::{json, Value};
use servicedesk::api::dispatch;
use servicedesk::desk::Desk;

/// The portal items queued for a session, oldest first: (kind, payload).
async fn outbox(desk: &Desk, session_id: &str) -> Vec<(String, Value)> {
    let rows: Vec<(String, String)> =
        sqlx::query_as("SELECT kind, payload FROM outbox WHERE session_id = ? ORDER BY seq")
            .bind(session_id)
            .fetch_all(desk.store().pool())
            .await
            .unwrap();
    rows.into_iter()
        .map(|(k, p)| (k, serde_json::from_str(&p).unwrap()))
        .collect()
}

fn kinds(items: &[(String, Value)]) -> Vec<&str> {
    items.iter().map(|(k, _)| k.as_str()).collect()
}

async fn call(desk: &Desk, command: &str, payload: Value) -> Value {
    dispatch(desk, command, payload)
        .await
        .unwrap_or_else(|e| panic!("{command}: {e:?}"))
}

async fn say(desk: &Desk, id: &str, text: &str) -> Value {
    call(desk, "chat_turn", json!({"session_id": id, "text": text})).await
}

/// A roof fan with its fuse found blown, and a photo of it.
async fn diagnosed(desk: &Desk) -> String {
    let s = call(
        desk,
        "session_new",
        json!({"complaint": "roof fan does not run", "technician": "Sam", "language": "en"}),
    )
    .await;
    let id = s["id"].as_str().unwrap().to_owned();
    say(desk, &id, "the roof fan does not work").await;
    let photo = common::png(8, 8, [200, 20, 20]);
    use base64::Engine as _;
    call(
        desk,
        "chat_turn",
        json!({"session_id": id, "text": "the panel fuse is blown", "attachments": [{
            "file_name": "fuse.png",
            "content_base64": base64::engine::general_purpose::STANDARD.encode(photo),
        }]}),
    )
    .await;
    id
}

#[tokio::test]
async fn draft_edit_finalize_queued_once_read_only_until_a_reopen_makes_revision_2() {
    let dir = tempfile::tempdir().unwrap();
    let desk = Desk::open(dir.path()).await.unwrap();
    let id = diagnosed(&desk).await;
    let sid = json!({"session_id": id});

    // "Write it up" shows the report in the chat, as a draft: nothing final,
    // nothing for the portal but the labor draft, and the session still open.
    let turn = say(&desk, &id, "write it up").await;
    assert_eq!(turn["reply"]["kind"], "report");
    assert_eq!(turn["report_revision"], 1);
    let state = call(&desk, "report_state", sid.clone()).await;
    assert_eq!(state["stage"], "draft", "{state:#}");
    assert_eq!(state["draft"]["revision"], 1);
    assert_eq!(state["final_revision"], Value::Null);
    assert!(state["draft"]["body"]
        .as_str()
        .unwrap()
        .contains("Customer states the roof vent fan does not operate."));
    assert_eq!(
        call(&desk, "report_list", sid.clone()).await["reports"],
        json!([])
    );
    assert_eq!(kinds(&outbox(&desk, &id).await), ["labor_draft"]);
    let show = call(&desk, "session_show", sid.clone()).await;
    assert_eq!(show["session"]["status"], "open", "{show:#}");
    // An export is of a final report, and there is none yet.
    let err = dispatch(
        &desk,
        "report_export",
        json!({"session_id": id, "format": "markdown"}),
    )
    .await
    .unwrap_err();
    assert!(err.message.contains("no final report yet"), "{err:?}");

    // The technician rewrites the cause: the draft has it, still unsent.
    let saved = call(
        &desk,
        "report_draft_save",
        json!({"session_id": id, "cause": "Fan fuse blown by a chafed lead at the roof fan."}),
    )
    .await;
    assert_eq!(saved["revision"], 1);
    let draft = call(&desk, "report_state", sid.clone()).await["draft"].clone();
    assert!(draft["body"]
        .as_str()
        .unwrap()
        .contains("Fan fuse blown by a chafed lead at the roof fan."));
    assert_eq!(kinds(&outbox(&desk, &id).await), ["labor_draft"]);
    // A blank paragraph is refused by name, and the draft keeps its words.
    let err = dispatch(
        &desk,
        "report_draft_save",
        json!({"session_id": id, "cause": "   "}),
    )
    .await
    .unwrap_err();
    assert!(err.message.starts_with("cause"), "{err:?}");
    let again = call(&desk, "report_state", sid.clone()).await["draft"].clone();
    assert_eq!(again["body"], draft["body"]);

    // Finalize: revision 1 with the edited cause, the photo then the report
    // queued once, the draft gone, the session finalized.
    let done = call(&desk, "report_finalize", sid.clone()).await;
    assert_eq!(
        (done["revision"].as_u64(), done["queued"].as_bool()),
        (Some(1), Some(true))
    );
    let items = outbox(&desk, &id).await;
    assert_eq!(kinds(&items), ["labor_draft", "attachment", "report"]);
    assert_eq!(items[2].1["revision"], 1);
    assert_eq!(
        items[2].1["cause"],
        "Fan fuse blown by a chafed lead at the roof fan."
    );
    let state = call(&desk, "report_state", sid.clone()).await;
    assert_eq!(
        (&state["stage"], &state["final_revision"], &state["draft"]),
        (&json!("finalized"), &json!(1), &Value::Null)
    );
    let reports = call(&desk, "report_list", sid.clone()).await["reports"].clone();
    assert_eq!(reports.as_array().unwrap().len(), 1);
    let final_body = reports[0]["body"].clone();

    // A second finalize is refused: the revision went out once.
    let err = dispatch(&desk, "report_finalize", sid.clone())
        .await
        .unwrap_err();
    assert!(
        err.message.starts_with("session_id") && err.message.contains("already finalized"),
        "{err:?}"
    );
    assert_eq!(outbox(&desk, &id).await.len(), 3);

    // Read-only: a note that would confirm 1.5 hours of labor, a new
    // write-up and a photo change nothing; the reply says how to reopen.
    let (_, before) = desk.store().latest_state(&id).await.unwrap();
    let note = say(&desk, &id, "labor was 1.5 hours").await;
    let reply = note["reply"]["text"].as_str().unwrap();
    assert!(
        reply.contains("is finalized") && reply.contains("reopen"),
        "{reply}"
    );
    assert_eq!(note["labor"]["mode"], "draft", "{note:#}");
    let rewrite = say(&desk, &id, "write it up").await;
    assert_eq!(rewrite["report_revision"], Value::Null);
    assert_ne!(rewrite["reply"]["kind"], "report");
    let err = dispatch(
        &desk,
        "chat_turn",
        json!({"session_id": id, "text": "another photo", "attachments": [{
            "file_name": "more.png", "content_base64": "iVBORw0KGgo=",
        }]}),
    )
    .await
    .unwrap_err();
    assert!(err.message.starts_with("attachments"), "{err:?}");
    let (_, after) = desk.store().latest_state(&id).await.unwrap();
    assert_eq!(after.facts, before.facts);
    assert_eq!(after.labor, before.labor);
    assert_eq!(after.report_revision, 1);
    assert_eq!(
        call(&desk, "report_list", sid.clone()).await["reports"],
        json!([{"revision": 1, "language": "en", "format": "markdown",
                "body": final_body, "created_at": reports[0]["created_at"]}])
    );
    assert_eq!(
        call(&desk, "report_state", sid.clone()).await["draft"],
        Value::Null
    );
    assert_eq!(outbox(&desk, &id).await.len(), 3);
    assert_eq!(
        call(&desk, "artifact_list", sid.clone()).await["artifacts"]
            .as_array()
            .unwrap()
            .len(),
        1
    );

    // Reopen: recorded with who and when; the session can change again.
    let reopened = call(
        &desk,
        "report_reopen",
        json!({"session_id": id, "by": "Marta (service manager)"}),
    )
    .await;
    assert_eq!(reopened["next_revision"], 2);
    let show = call(&desk, "session_show", sid.clone()).await;
    assert_eq!(show["session"]["status"], "open");
    let audit = show["edits"].as_array().unwrap();
    let row = audit.iter().find(|e| e["field"] == "status").unwrap();
    assert_eq!(
        (&row["old_value"], &row["new_value"], &row["edited_by"]),
        (
            &json!("finalized"),
            &json!("open"),
            &json!("Marta (service manager)")
        )
    );
    assert_eq!(row["edited_at"], reopened["reopened_at"]);
    let state = call(&desk, "report_state", sid.clone()).await;
    assert_eq!(state["stage"], "none");
    assert_eq!(state["reopened"]["by"], "Marta (service manager)");
    // Reopening what is open is refused by name.
    let err = dispatch(&desk, "report_reopen", sid.clone())
        .await
        .unwrap_err();
    assert!(err.message.contains("not finalized"), "{err:?}");

    // The note now counts; the next write-up is a draft of revision 2 that
    // keeps the technician's cause, and its finalize queues revision 2.
    let note = say(&desk, &id, "labor was 1.5 hours").await;
    assert_eq!(note["labor"]["mode"], "confirmed", "{note:#}");
    let turn = say(&desk, &id, "write it up").await;
    assert_eq!(turn["report_revision"], 2);
    assert_eq!(
        outbox(&desk, &id)
            .await
            .iter()
            .filter(|(k, _)| k == "report")
            .count(),
        1
    );
    let done = call(&desk, "report_finalize", sid.clone()).await;
    assert_eq!(done["revision"], 2);
    let items = outbox(&desk, &id).await;
    let reports: Vec<&Value> = items
        .iter()
        .filter(|(k, _)| k == "report")
        .map(|(_, p)| p)
        .collect();
    assert_eq!(reports.len(), 2);
    assert_eq!(reports[1]["revision"], 2);
    assert_eq!(reports[1]["labor"]["hours"], "1.50");
    assert_eq!(
        reports[1]["cause"],
        "Fan fuse blown by a chafed lead at the roof fan."
    );
    let listed = call(&desk, "report_list", sid.clone()).await["reports"].clone();
    assert_eq!(listed.as_array().unwrap().len(), 2);
    drop(desk);

    // The CLI tells the same story, and reopens with who did it.
    let status = common::cli_json(dir.path(), &["report", "status", &id, "--json"]);
    assert_eq!(
        (&status["stage"], &status["final_revision"]),
        (&json!("finalized"), &json!(2))
    );
    let out = common::cli_ok(dir.path(), &["report", "reopen", &id, "--by", "Sam"]);
    assert!(out.contains("the next finalize makes revision 3"), "{out}");
    let out = common::cli(dir.path(), &["report", "reopen", &id]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("session_id") && err.contains("not finalized"),
        "{err}"
    );
}

/// A Spanish session's note after finalizing is answered in Spanish.
#[tokio::test]
async fn the_read_only_reply_speaks_the_session_language() {
    let dir = tempfile::tempdir().unwrap();
    let desk = Desk::open(dir.path()).await.unwrap();
    let s = call(
        &desk,
        "session_new",
        json!({"complaint": "el ventilador del techo no funciona", "language": "es"}),
    )
    .await;
    let id = s["id"].as_str().unwrap().to_owned();
    say(&desk, &id, "el ventilador del techo no funciona").await;
    say(&desk, &id, "el fusible del panel está quemado").await;
    call(&desk, "report_finalize", json!({"session_id": id})).await;
    let note = say(&desk, &id, "cambié el fusible otra vez").await;
    let reply = note["reply"]["text"].as_str().unwrap();
    assert!(
        reply.contains("está finalizada") && reply.contains("reábrala"),
        "{reply}"
    );
}

/// A three-line repair order (warranty to the coach maker, customer pay,
/// and a line whose estimate the customer declined without a diagnosis):
/// the report has three 3C blocks and says which was approved and which
/// were declined, by whom, how and when, in the text, the Markdown, the JSON
/// and the PDF.
#[tokio::test]
async fn approved_and_declined_lines_are_reported_with_who_how_and_when() {
    let dir = tempfile::tempdir().unwrap();
    let desk = Desk::open(dir.path()).await.unwrap();
    let s = call(
        &desk,
        "session_new",
        json!({"complaint": "roof fan does not run", "customer": "Jane Doe", "language": "en"}),
    )
    .await;
    let id = s["id"].as_str().unwrap().to_owned();
    for line in [
        "the roof fan does not work",
        "also the water heater wont make hot water on gas",
        "the panel fuse is blown",
        "next",
        "12.6 at the board",
        "no spark",
        "electrode ceramic is cracked",
    ] {
        say(&desk, &id, line).await;
    }
    let ro = call(&desk, "ro_show", json!({"session_id": id})).await;
    let first = ro["lines"][0]["id"].as_str().unwrap().to_owned();
    call(
        &desk,
        "ro_line_save",
        json!({"session_id": id, "line": {"line_id": first, "complaint": "roof fan does not run",
            "pay_type": "warranty", "warranty_payer": "coach",
            "labor": [{"description": "Replace fan fuse", "hours": "0.5"}]}}),
    )
    .await;
    for words in ["No hot water on gas", "Awning will not retract"] {
        call(
            &desk,
            "ro_line_save",
            json!({"session_id": id, "line": {"complaint": words, "pay_type": "customer",
                "parts": [{"description": "Part", "qty": "1", "unit_price": "20.00"}]}}),
        )
        .await;
    }
    let ro = call(&desk, "ro_show", json!({"session_id": id})).await;
    let ids: Vec<String> = ro["lines"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(ids.len(), 3);
    let decide = |line: &str, decision: &str, method: &str| {
        json!({"session_id": id, "authorization": {"line_id": line, "decision": decision,
            "by": "Jane Doe", "method": method, "at": "2026-11-27T15:04:00Z"}})
    };
    call(
        &desk,
        "ro_line_authorize",
        decide(&ids[0], "approved", "signature"),
    )
    .await;
    call(
        &desk,
        "ro_line_authorize",
        decide(&ids[1], "declined", "phone"),
    )
    .await;
    call(
        &desk,
        "ro_line_authorize",
        decide(&ids[2], "declined", "in_person"),
    )
    .await;

    let turn = say(&desk, &id, "write it up").await;
    let draft = turn["reply"]["text"].as_str().unwrap();
    let when = servicedesk::when::local_display("2026-11-27T15:04:00Z");
    assert!(
        draft.contains(&format!(
            "Estimate declined: Jane Doe, by phone, {when}\n\nCause:"
        )),
        "{draft}"
    );
    // The approved line says who approved it, how and when, the same way.
    assert!(
        draft.contains(&format!(
            "Estimate approved: Jane Doe, signature on screen, {when}\n\nCause:"
        )),
        "{draft}"
    );
    assert_eq!(draft.matches("Estimate approved:").count(), 1, "{draft}");
    call(&desk, "report_finalize", json!({"session_id": id})).await;

    let js = dispatch(
        &desk,
        "report_export",
        json!({"session_id": id, "format": "json"}),
    )
    .await
    .unwrap();
    let doc: Value = serde_json::from_str(js["content"].as_str().unwrap()).unwrap();
    let blocks = doc["sections"][0]["complaints"].as_array().unwrap();
    assert_eq!(blocks.len(), 3, "{doc:#}");
    assert_eq!(blocks[0]["declined"], Value::Null);
    assert_eq!(
        blocks[0]["approved"],
        format!("Jane Doe, signature on screen, {when}").as_str()
    );
    assert!(
        !blocks[0]["complaint"]
            .as_str()
            .unwrap()
            .contains("approved"),
        "the Complaint is the words alone: {doc:#}"
    );
    assert_eq!(blocks[1]["approved"], Value::Null);
    assert_eq!(
        blocks[1]["declined"],
        format!("Jane Doe, by phone, {when}").as_str()
    );
    assert!(blocks[1]["cause"].as_str().unwrap().contains("electrode"));
    assert_eq!(blocks[2]["complaint"], "Awning will not retract");
    assert_eq!(
        blocks[2]["declined"],
        format!("Jane Doe, in person, {when}").as_str()
    );
    assert_eq!(blocks[2]["cause"], "Not diagnosed this visit.");

    let md = dispatch(
        &desk,
        "report_export",
        json!({"session_id": id, "format": "markdown"}),
    )
    .await
    .unwrap();
    let md = md["content"].as_str().unwrap();
    assert_eq!(
        md.matches("**Estimate declined:** Jane Doe").count(),
        2,
        "{md}"
    );
    assert_eq!(
        md.matches(&format!(
            "**Estimate approved:** Jane Doe, signature on screen, {when}"
        ))
        .count(),
        1,
        "{md}"
    );

    let pdf = dispatch(
        &desk,
        "report_export",
        json!({"session_id": id, "format": "pdf"}),
    )
    .await
    .unwrap();
    use base64::Engine as _;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(pdf["content"].as_str().unwrap())
        .unwrap();
    let work = tempfile::tempdir().unwrap();
    let path = work.path().join("r.pdf");
    std::fs::write(&path, bytes).unwrap();
    let text = common::pdf_text(&path);
    assert_eq!(text.matches("Estimate declined:").count(), 2, "{text}");
    assert_eq!(text.matches("Estimate approved:").count(), 1, "{text}");
    assert!(text.contains("signature on screen"), "{text}");
    assert!(text.contains("Awning will not retract"), "{text}");
}
