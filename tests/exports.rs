//! Report finalize and exports, as a manager and a technician meet them: a
//! diagnosis run to its report, edited and finalized from the preview, then
//! exported as PDF (read back with pdftotext and rendered with pdftoppm),
//! Markdown and JSON, and a date range exported as CSV + PDFs or a ZIP.

use crate::common::{self, pdf_text, tool};

use std::io::Read;
use std::path::Path;

use base64::Engine as _;
use serde_json::{json, Value};
use servicedesk::api::{self, dispatch};
use servicedesk::desk::Desk;
use servicedesk::store::{NewSession, Unit};

async fn diagnosed(desk: &Desk, language: &str, technician: &str) -> String {
    let session = desk
        .new_session(NewSession {
            complaint: "roof fan does not run".into(),
            customer: Some("Dana Whitfield".into()),
            technician: Some(technician.into()),
            language: None,
            unit: Unit {
                vin: Some("1FUJA6CV94LM12345".into()),
                plate: Some("7ABC123".into()),
                make_model: Some("Winnebago View 24D".into()),
                odometer: Some(41250),
                engine_hours: None,
                ..Default::default()
            },
            ..Default::default()
        })
        .await
        .unwrap();
    desk.add_artifact_bytes(
        &session.id,
        "fuse.png",
        common::png(640, 480, [200, 30, 30]),
        Some("Blown 15 A fuse in slot 4".into()),
    )
    .await
    .unwrap();
    let script: &[&str] = match language {
        "es" => &[
            "el ventilador del techo no funciona",
            "el fusible del panel está quemado",
            "haz el reporte",
        ],
        _ => &[
            "the roof fan does not work",
            "the panel fuse is blown",
            "write the report",
        ],
    };
    for line in script {
        desk.chat_turn(&session.id, line, vec![]).await.unwrap();
    }
    // The write-up is a draft; exports are of what was finalized.
    assert_eq!(desk.store().reports(&session.id).await.unwrap().len(), 0);
    desk.finalize_report(&session.id, Default::default())
        .await
        .unwrap();
    assert_eq!(desk.store().reports(&session.id).await.unwrap().len(), 1);
    session.id
}

/// Share of pixels in page 1 (rendered at 50 dpi) that are strongly red:
/// the test photo is a red rectangle.
fn red_share_of_first_page(pdf: &Path, dir: &Path) -> f64 {
    let prefix = dir.join("page");
    tool(
        "pdftoppm",
        &[
            "-png",
            "-r",
            "50",
            "-f",
            "1",
            "-l",
            "1",
            pdf.to_str().unwrap(),
            prefix.to_str().unwrap(),
        ],
    );
    let png = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|e| e == "png"))
        .expect("pdftoppm wrote a page");
    let img = image::open(png).unwrap().to_rgb8();
    let red = img
        .pixels()
        .filter(|p| p[0] > 170 && p[1] < 80 && p[2] < 80)
        .count();
    red as f64 / (img.width() * img.height()) as f64
}

async fn export(desk: &Desk, session_id: &str, format: &str) -> Value {
    dispatch(
        desk,
        "report_export",
        json!({"session_id": session_id, "format": format}),
    )
    .await
    .unwrap()
}

#[tokio::test]
async fn finalize_with_edits_makes_a_new_revision_queued_with_its_photo() {
    let dir = tempfile::tempdir().unwrap();
    let desk = Desk::open(dir.path()).await.unwrap();
    let id = diagnosed(&desk, "en", "Alex").await;
    let turns_before = desk.store().turns(&id).await.unwrap().len();

    // A finalized report changes only after a reopen.
    dispatch(
        &desk,
        "report_reopen",
        json!({"session_id": id, "by": "Alex"}),
    )
    .await
    .unwrap();
    let done = dispatch(
        &desk,
        "report_finalize",
        json!({"session_id": id, "cause": "Fuse blown by a chafed fan lead\n\nshorting to the frame."}),
    )
    .await
    .unwrap();
    assert_eq!(done["revision"], 2);
    assert_eq!(done["queued"], true);

    let reports = desk.store().reports(&id).await.unwrap();
    let body = &reports[1].2;
    assert!(
        body.contains("Cause:\nFuse blown by a chafed fan lead shorting to the frame.\n"),
        "{body}"
    );
    // The transcript shows the finalize as a turn.
    let turns = desk.store().turns(&id).await.unwrap();
    assert_eq!(turns.len(), turns_before + 1);
    assert_eq!(turns.last().unwrap().input, "Finalize the report (edited)");

    // The portal gets the photo, then the report with the edited cause.
    let rows: Vec<(String, String)> =
        sqlx::query_as("SELECT kind, payload FROM outbox WHERE session_id = ? ORDER BY seq")
            .bind(&id)
            .fetch_all(desk.store().pool())
            .await
            .unwrap();
    let last_report = rows
        .iter()
        .rposition(|(k, _)| k == "report")
        .expect("a report item");
    let payload: Value = serde_json::from_str(&rows[last_report].1).unwrap();
    assert_eq!(payload["revision"], 2);
    assert_eq!(
        payload["cause"],
        "Fuse blown by a chafed fan lead shorting to the frame."
    );
    assert!(rows[..last_report].iter().any(|(k, _)| k == "attachment"));

    // Later revisions keep the technician's wording.
    dispatch(&desk, "report_reopen", json!({"session_id": id}))
        .await
        .unwrap();
    desk.chat_turn(&id, "write the report", vec![])
        .await
        .unwrap();
    desk.finalize_report(&id, Default::default()).await.unwrap();
    let reports = desk.store().reports(&id).await.unwrap();
    assert_eq!(reports.len(), 3);
    assert!(reports[2].2.contains("Fuse blown by a chafed fan lead"));

    // The context lists each revision with its portal state.
    let ctx = dispatch(&desk, "session_context", json!({"session_id": id}))
        .await
        .unwrap();
    let states: Vec<&str> = ctx["reports"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["sync"]["state"].as_str().unwrap())
        .collect();
    assert_eq!(states, ["pending", "pending", "pending"]);

    // The sidebar's stage: finalized until the portal has the newest revision.
    let stage = |list: &Value| {
        list["sessions"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["id"] == id.as_str())
            .unwrap()["stage"]
            .clone()
    };
    let list = dispatch(&desk, "session_list", json!({})).await.unwrap();
    assert_eq!(stage(&list), "finalized");
    sqlx::query("UPDATE outbox SET status = 'done' WHERE session_id = ?")
        .bind(&id)
        .execute(desk.store().pool())
        .await
        .unwrap();
    let list = dispatch(&desk, "session_list", json!({})).await.unwrap();
    assert_eq!(stage(&list), "synced");
}

#[tokio::test]
async fn finalize_is_refused_before_a_finding_and_records_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let desk = Desk::open(dir.path()).await.unwrap();
    let session = desk
        .new_session(NewSession {
            complaint: "roof fan".into(),
            ..Default::default()
        })
        .await
        .unwrap();
    desk.chat_turn(&session.id, "the roof fan does not work", vec![])
        .await
        .unwrap();
    let list = dispatch(&desk, "session_list", json!({})).await.unwrap();
    assert_eq!(list["sessions"][0]["stage"], "open");
    desk.chat_turn(&session.id, "the panel fuse is blown", vec![])
        .await
        .unwrap();
    let list = dispatch(&desk, "session_list", json!({})).await.unwrap();
    assert_eq!(list["sessions"][0]["stage"], "report_ready");
    let fresh = desk
        .new_session(NewSession {
            complaint: "roof fan".into(),
            ..Default::default()
        })
        .await
        .unwrap();
    desk.chat_turn(&fresh.id, "the roof fan does not work", vec![])
        .await
        .unwrap();
    let err = dispatch(&desk, "report_finalize", json!({"session_id": fresh.id}))
        .await
        .unwrap_err();
    assert_eq!(err.code, "invalid_input");
    assert!(
        err.message.contains("cannot be finalized yet"),
        "{}",
        err.message
    );
    assert_eq!(desk.store().turns(&fresh.id).await.unwrap().len(), 1);
    assert!(desk.store().reports(&fresh.id).await.unwrap().is_empty());

    let err = dispatch(
        &desk,
        "report_finalize",
        json!({"session_id": session.id, "translation": {"cause": "   "}}),
    )
    .await
    .unwrap_err();
    assert!(
        err.message
            .starts_with("translation.cause: must not be empty"),
        "{}",
        err.message
    );
}

#[tokio::test]
async fn the_pdf_has_the_header_the_3c_labor_photo_and_translation() {
    let dir = tempfile::tempdir().unwrap();
    let desk = Desk::open(dir.path()).await.unwrap();
    let id = diagnosed(&desk, "es", "Marta").await;
    let out = export(&desk, &id, "pdf").await;
    assert_eq!(out["format"], "pdf");
    assert_eq!(out["encoding"], "base64");
    assert!(out["file_name"].as_str().unwrap().ends_with("-r1.pdf"));
    let pdf = base64::engine::general_purpose::STANDARD
        .decode(out["content"].as_str().unwrap())
        .unwrap();
    assert!(pdf.starts_with(b"%PDF-"));
    let work = tempfile::tempdir().unwrap();
    let path = work.path().join("report.pdf");
    std::fs::write(&path, &pdf).unwrap();

    let text = pdf_text(&path);
    for want in [
        "Service report",
        "Winnebago View 24D",
        "Dana Whitfield",
        "1FUJA6CV94LM12345",
        "7ABC123",
        "41250",
        "Marta",
        "Revision 1",
        "Complaint",
        "Cause",
        "Correction",
        "Estimated labor",
        "Operation",
        "Total labor",
        "0.6 hr",
        "Required parts",
        "Photos",
        "Blown 15 A fuse in slot 4",
        "Traducción (español)",
        "Queja",
        "Mano de obra total",
        "Horas",
    ] {
        assert!(
            text.contains(want),
            "{want:?} missing from the PDF text:\n{text}"
        );
    }
    // The photo is on the page, not just its caption.
    let images = String::from_utf8(tool("pdfimages", &["-list", path.to_str().unwrap()])).unwrap();
    assert!(
        images.lines().count() >= 3,
        "no image in the PDF:\n{images}"
    );
    let red = red_share_of_first_page(&path, work.path());
    assert!(red > 0.01, "the red test photo covers {red} of page 1");

    // Markdown and JSON of the same revision.
    let md = export(&desk, &id, "markdown").await;
    assert_eq!(md["encoding"], "utf8");
    assert!(md["content"].as_str().unwrap().contains("## Translation"));
    let js = export(&desk, &id, "json").await;
    let doc: Value = serde_json::from_str(js["content"].as_str().unwrap()).unwrap();
    assert_eq!(doc["format"], "servicedesk.report.v2");
    assert_eq!(doc["unit"]["vin"], "1FUJA6CV94LM12345");
    assert_eq!(doc["sections"][0]["complaints"][0]["labor_total"], "0.6");
    assert_eq!(doc["sections"][1]["language"], "es");
    assert_eq!(
        doc["sections"][0]["photos"][0]["caption"],
        "Blown 15 A fuse in slot 4"
    );

    let err = dispatch(
        &desk,
        "report_export",
        json!({"session_id": id, "format": "docx"}),
    )
    .await
    .unwrap_err();
    assert_eq!(
        err.message,
        "format: \"docx\" is not one of markdown, json, pdf"
    );
}

/// Two complaints in one visit: the PDF and the JSON carry one Complaint /
/// Cause / Correction block per complaint line, each with its own labor.
#[tokio::test]
async fn a_visit_with_two_complaints_has_a_block_for_each() {
    let dir = tempfile::tempdir().unwrap();
    let desk = Desk::open(dir.path()).await.unwrap();
    let session = desk
        .new_session(NewSession {
            complaint: "roof fan does not run, water heater no hot water on gas".into(),
            customer: Some("Dana Whitfield".into()),
            technician: Some("Marta".into()),
            language: None,
            unit: Unit::default(),
            ..Default::default()
        })
        .await
        .unwrap();
    for line in [
        "the roof fan does not work",
        "also the water heater wont make hot water on gas",
        "the panel fuse is blown",
        "next",
        "12.6 at the board",
        "no spark",
        "electrode ceramic is cracked",
        "write the report",
    ] {
        desk.chat_turn(&session.id, line, vec![]).await.unwrap();
    }
    desk.finalize_report(&session.id, Default::default())
        .await
        .unwrap();
    assert_eq!(desk.store().reports(&session.id).await.unwrap().len(), 1);
    let js = export(&desk, &session.id, "json").await;
    let doc: Value = serde_json::from_str(js["content"].as_str().unwrap()).unwrap();
    let lines = doc["sections"][0]["complaints"].as_array().unwrap();
    assert_eq!(lines.len(), 2, "{doc:#}");
    assert!(lines[0]["complaint"]
        .as_str()
        .unwrap()
        .contains("roof vent fan"));
    assert!(lines[1]["complaint"]
        .as_str()
        .unwrap()
        .contains("no hot water"));
    assert!(lines[1]["cause"].as_str().unwrap().contains("electrode"));
    assert_ne!(lines[0]["labor_total"], lines[1]["labor_total"]);

    let out = export(&desk, &session.id, "pdf").await;
    let pdf = base64::engine::general_purpose::STANDARD
        .decode(out["content"].as_str().unwrap())
        .unwrap();
    let work = tempfile::tempdir().unwrap();
    let path = work.path().join("report.pdf");
    std::fs::write(&path, &pdf).unwrap();
    let text = pdf_text(&path);
    for want in [
        "Complaint 1",
        "Complaint 2",
        "roof vent fan",
        "no hot water",
        "electrode",
    ] {
        assert!(
            text.contains(want),
            "{want:?} missing from the PDF text:\n{text}"
        );
    }
}

/// The customer declines the second complaint: asked twice for the report,
/// the visit is written up with the fan line and the water heater line as
/// not diagnosed (no parts, zero labor), and finalizing keeps both lines.
#[tokio::test]
async fn a_declined_second_complaint_is_written_up_as_not_diagnosed() {
    let dir = tempfile::tempdir().unwrap();
    let desk = Desk::open(dir.path()).await.unwrap();
    let session = desk
        .new_session(NewSession {
            complaint: "roof fan does not run".into(),
            customer: None,
            technician: Some("Marta".into()),
            language: None,
            unit: Unit::default(),
            ..Default::default()
        })
        .await
        .unwrap();
    for line in [
        "the roof fan does not work",
        "also the water heater wont make hot water on gas",
        "the panel fuse is blown",
        "write the report",
        "customer declined the water heater, write the report",
    ] {
        desk.chat_turn(&session.id, line, vec![]).await.unwrap();
    }
    desk.finalize_report(&session.id, Default::default())
        .await
        .unwrap();
    // Both write-ups were the draft; the finalize is the one revision.
    assert_eq!(desk.store().reports(&session.id).await.unwrap().len(), 1);
    let js = export(&desk, &session.id, "json").await;
    let doc: Value = serde_json::from_str(js["content"].as_str().unwrap()).unwrap();
    let lines = doc["sections"][0]["complaints"].as_array().unwrap();
    assert_eq!(lines.len(), 2, "{doc:#}");
    assert!(lines[0]["cause"].as_str().unwrap().contains("fuse"));
    assert!(lines[1]["complaint"]
        .as_str()
        .unwrap()
        .contains("no hot water"));
    assert_eq!(lines[1]["cause"], "Not diagnosed this visit.");
    assert_eq!(lines[1]["labor_total"], "0.0");
    assert_eq!(lines[1]["parts"], json!([]));

    let out = export(&desk, &session.id, "pdf").await;
    let pdf = base64::engine::general_purpose::STANDARD
        .decode(out["content"].as_str().unwrap())
        .unwrap();
    let work = tempfile::tempdir().unwrap();
    let path = work.path().join("report.pdf");
    std::fs::write(&path, &pdf).unwrap();
    let text = pdf_text(&path);
    for want in ["Complaint 2", "no hot water", "Not diagnosed this visit."] {
        assert!(
            text.contains(want),
            "{want:?} missing from the PDF text:\n{text}"
        );
    }
}

#[tokio::test]
async fn a_missing_photo_is_said_on_the_page_instead_of_failing_the_pdf() {
    let dir = tempfile::tempdir().unwrap();
    let desk = Desk::open(dir.path()).await.unwrap();
    let id = diagnosed(&desk, "en", "Alex").await;
    let blobs = common::blob_files(dir.path());
    assert!(!blobs.is_empty());
    for blob in blobs {
        std::fs::remove_file(dir.path().join("artifacts/sha256").join(&blob)).unwrap();
    }
    let out = export(&desk, &id, "pdf").await;
    let pdf = base64::engine::general_purpose::STANDARD
        .decode(out["content"].as_str().unwrap())
        .unwrap();
    let work = tempfile::tempdir().unwrap();
    let path = work.path().join("r.pdf");
    std::fs::write(&path, pdf).unwrap();
    let text = pdf_text(&path);
    assert!(text.contains("Photo missing: fuse.png"), "{text}");
}

fn csv_rows(text: &str) -> Vec<Vec<String>> {
    // The test data has no quoted line breaks; quoted commas are handled.
    text.split("\r\n")
        .filter(|l| !l.is_empty())
        .map(|line| {
            let mut cells = Vec::new();
            let mut cell = String::new();
            let mut quoted = false;
            let mut chars = line.chars().peekable();
            while let Some(c) = chars.next() {
                match (c, quoted) {
                    ('"', true) if chars.peek() == Some(&'"') => {
                        cell.push('"');
                        chars.next();
                    }
                    ('"', _) => quoted = !quoted,
                    (',', false) => cells.push(std::mem::take(&mut cell)),
                    _ => cell.push(c),
                }
            }
            cells.push(cell);
            cells
        })
        .collect()
}

#[tokio::test]
async fn the_cli_exports_a_range_as_csv_and_pdfs_or_one_zip() {
    let dir = tempfile::tempdir().unwrap();
    {
        let desk = Desk::open(dir.path()).await.unwrap();
        diagnosed(&desk, "en", "Alex").await;
        diagnosed(&desk, "es", "Marta").await;
        let open = desk
            .new_session(NewSession {
                complaint: "no report yet".into(),
                ..Default::default()
            })
            .await
            .unwrap();
        desk.chat_turn(&open.id, "the roof fan does not work", vec![])
            .await
            .unwrap();
        desk.close().await;
    }
    let today = chrono::Local::now().date_naive();
    let (from, to) = (
        (today - chrono::Duration::days(1)).to_string(),
        (today + chrono::Duration::days(1)).to_string(),
    );
    let out = tempfile::tempdir().unwrap();
    let out_dir = out.path().to_str().unwrap();

    // A folder: summary.csv and one PDF per report.
    let result = common::cli_json(
        dir.path(),
        &[
            "export", "reports", "--from", &from, "--to", &to, "--out", out_dir, "--json",
        ],
    );
    assert_eq!(result["reports"], 2);
    let folder = Path::new(result["path"].as_str().unwrap());
    let csv = std::fs::read_to_string(folder.join("summary.csv")).unwrap();
    let csv = csv
        .strip_prefix('\u{feff}')
        .expect("the CSV starts with a BOM");
    let rows = csv_rows(csv);
    assert_eq!(rows.len(), 3, "{csv}");
    assert_eq!(rows[0][0], "finalized_at");
    let col = |name: &str| rows[0].iter().position(|h| h == name).unwrap();
    let marta = rows
        .iter()
        .find(|r| r[col("technician")] == "Marta")
        .unwrap();
    assert_eq!(marta[col("plate")], "7ABC123");
    assert_eq!(marta[col("labor_hours")], "0.6");
    assert_eq!(marta[col("status")], "finalized");
    assert_eq!(marta[col("synced")], "pending");
    assert_eq!(marta[col("photos")], "1");
    assert!(marta[col("cause")].len() > 10);
    // Two sessions of the same unit opened the same minute: two PDFs.
    let pdfs: Vec<_> = std::fs::read_dir(folder)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".pdf"))
        .collect();
    assert_eq!(pdfs.len(), 2, "{pdfs:?}");
    for row in &rows[1..] {
        let pdf = folder.join(&row[col("pdf")]);
        assert!(
            pdf_text(&pdf).contains("Service report"),
            "{}",
            pdf.display()
        );
    }

    // One technician, as a ZIP.
    let result = common::cli_json(
        dir.path(),
        &[
            "export",
            "reports",
            "--from",
            &from,
            "--to",
            &to,
            "--technician",
            "alex",
            "--out",
            out_dir,
            "--zip",
            "--json",
        ],
    );
    assert_eq!(result["reports"], 1);
    let zip_path = result["path"].as_str().unwrap();
    assert!(zip_path.ends_with(".zip"));
    let mut archive = zip::ZipArchive::new(std::fs::File::open(zip_path).unwrap()).unwrap();
    let names: Vec<String> = archive
        .file_names()
        .map(|n| n.unwrap().into_owned())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");
    let mut csv = String::new();
    archive
        .by_name("summary.csv")
        .unwrap()
        .read_to_string(&mut csv)
        .unwrap();
    let rows = csv_rows(csv.trim_start_matches('\u{feff}'));
    assert_eq!(rows.len(), 2);
    assert_eq!(
        rows[1][rows[0].iter().position(|h| h == "technician").unwrap()],
        "Alex"
    );
    let pdf_name = names.iter().find(|n| n.ends_with(".pdf")).unwrap().clone();
    let mut pdf = Vec::new();
    archive
        .by_name(&pdf_name)
        .unwrap()
        .read_to_end(&mut pdf)
        .unwrap();
    assert!(pdf.starts_with(b"%PDF-"));

    // An empty range still writes the header; a bad date names the option.
    let result = common::cli_json(
        dir.path(),
        &[
            "export",
            "reports",
            "--from",
            "2020-01-01",
            "--to",
            "2020-01-31",
            "--out",
            out_dir,
            "--json",
        ],
    );
    assert_eq!(result["reports"], 0);
    // A range the CLI refuses, with the message that says why.
    let refused = |from: &str, to: &str, expected: &str| {
        let out = common::cli(
            dir.path(),
            &[
                "export", "reports", "--from", from, "--to", to, "--out", out_dir,
            ],
        );
        assert!(!out.status.success(), "{from}..{to} was accepted");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(expected), "{stderr}");
    };
    refused("2026-13-01", &to, "from: \"2026-13-01\" is not a date");
    refused(
        "2026-02-10",
        "2026-02-01",
        "to: 2026-02-01 is before from (2026-02-10)",
    );
    // Nothing half-written is left behind.
    let leftovers: Vec<_> = std::fs::read_dir(out.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains("partial"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[tokio::test]
async fn the_export_job_reports_progress_and_serve_hands_out_the_zip() {
    let dir = tempfile::tempdir().unwrap();
    let desk = Desk::open(dir.path()).await.unwrap();
    diagnosed(&desk, "en", "Alex").await;
    let today = chrono::Local::now().date_naive().to_string();
    // Two exports of the same range at once: each in its own job folder.
    let mut urls = Vec::new();
    let (a, b) = tokio::join!(
        dispatch(
            &desk,
            "reports_export_start",
            json!({"from": today, "to": today})
        ),
        dispatch(
            &desk,
            "reports_export_start",
            json!({"from": today, "to": today})
        ),
    );
    for job in [a.unwrap(), b.unwrap()] {
        assert_eq!(
            job["download_url"],
            serde_json::Value::Null,
            "not before the file exists"
        );
        let job_id = job["job_id"].as_str().unwrap().to_string();
        let mut status = job;
        for _ in 0..600 {
            if status["state"] != "running" {
                break;
            }
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
            status = dispatch(&desk, "reports_export_status", json!({"job_id": job_id}))
                .await
                .unwrap();
        }
        assert_eq!(status["state"], "done", "{status}");
        assert_eq!(status["done"], 1);
        assert_eq!(status["total"], 1);
        let url = status["download_url"].as_str().unwrap().to_string();
        assert!(
            url.starts_with(&format!("/exports/{job_id}/reports-")) && url.ends_with(".zip"),
            "{url}"
        );
        urls.push(url);
    }
    assert_ne!(urls[0], urls[1]);
    let url = urls[0].clone();
    // No partial file is left in either job folder.
    for entry in std::fs::read_dir(dir.path().join("exports")).unwrap() {
        for f in std::fs::read_dir(entry.unwrap().path()).unwrap() {
            let name = f.unwrap().file_name().to_string_lossy().into_owned();
            assert!(!name.contains("partial"), "{name}");
        }
    }

    // The same file over HTTP, as the browser UI fetches it.
    let config = servicedesk::serve::ServeConfig {
        host: "127.0.0.1".parse().unwrap(),
        port: 0,
        token: None,
        ui_dir: None,
        csrf_token: Some("exports-test-csrf".into()),
    };
    let listener = servicedesk::serve::bind(&config).await.unwrap();
    let addr = listener.local_addr().unwrap();
    let router = servicedesk::serve::router(desk.clone(), &config);
    tokio::spawn(servicedesk::serve::serve(listener, router));
    let client = reqwest::Client::new();
    // Without the CSRF token the download is refused.
    let resp = client
        .get(format!("http://{addr}{url}"))
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 403);
    for url in &urls {
        let resp = client
            .get(format!("http://{addr}{url}"))
            .header("x-csrf-token", "exports-test-csrf")
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), 200, "{url}");
        assert_eq!(resp.headers()["content-type"], "application/zip");
        let bytes = resp.bytes().await.unwrap();
        let archive = zip::ZipArchive::new(std::io::Cursor::new(bytes.to_vec())).unwrap();
        assert_eq!(archive.len(), 2, "{url}");
    }
    let job_dir = url.split('/').nth(2).unwrap().to_owned();
    for bad in [
        format!("/exports/{job_dir}/..%2F..%2Fservicedesk.db"),
        "/exports/..%2F..%2F/servicedesk.zip".to_owned(),
        format!("/exports/{job_dir}/summary.csv"),
    ] {
        let resp = client
            .get(format!("http://{addr}{bad}"))
            .header("x-csrf-token", "exports-test-csrf")
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), 400, "{bad}");
    }

    let err = api::reports::reports_export_status(api::reports::ExportJobRef {
        job_id: "nope".into(),
    })
    .await
    .unwrap_err();
    assert_eq!(err.code, "not_found");
}

/// The images `pdfimages -list` finds in a PDF, as (width, height).
fn pdf_images(path: &Path) -> Vec<(u32, u32)> {
    let list = String::from_utf8(tool("pdfimages", &["-list", path.to_str().unwrap()])).unwrap();
    list.lines()
        .skip(2)
        .filter_map(|row| {
            let cols: Vec<&str> = row.split_whitespace().collect();
            Some((cols.get(3)?.parse().ok()?, cols.get(4)?.parse().ok()?))
        })
        .collect()
}

/// The shop's name, address and logo (Settings) head every report PDF: one
/// exported from the app and each of a date range's; a bad logo is refused
/// by name and changes nothing; the logo survives a sweep of unused blobs.
#[tokio::test]
async fn every_pdf_carries_the_shops_name_address_and_logo() {
    let dir = tempfile::tempdir().unwrap();
    let desk = Desk::open(dir.path()).await.unwrap();
    // 120 × 60: a size no other picture in the report has.
    let logo = common::png(120, 60, [20, 90, 200]);
    let shop = dispatch(
        &desk,
        "shop_settings",
        json!({"name": "Sunbelt RV Service", "address": "1200 Desert Rd\n  Mesa, AZ 85201  \n",
               "logo_base64": base64::engine::general_purpose::STANDARD.encode(&logo)}),
    )
    .await
    .unwrap();
    assert_eq!(shop["address"], "1200 Desert Rd\nMesa, AZ 85201");
    assert_eq!(shop["logo"]["mime"], "image/png");

    // A logo that is not an image is refused by name; the profile stays.
    let err = dispatch(
        &desk,
        "shop_settings",
        json!({"name": "Other name", "logo_base64": base64::engine::general_purpose::STANDARD.encode(b"GIF89a not a logo")}),
    )
    .await
    .unwrap_err();
    assert!(err.message.starts_with("logo:"), "{err:?}");
    let now = dispatch(&desk, "shop_settings", json!({})).await.unwrap();
    assert_eq!(now, shop);

    // A sweep of unused blobs keeps the logo (the setting names it).
    desk.sweep_artifacts(std::time::Duration::ZERO)
        .await
        .unwrap();

    let id = diagnosed(&desk, "en", "Alex").await;
    let out = export(&desk, &id, "pdf").await;
    let pdf = base64::engine::general_purpose::STANDARD
        .decode(out["content"].as_str().unwrap())
        .unwrap();
    let work = tempfile::tempdir().unwrap();
    let path = work.path().join("report.pdf");
    std::fs::write(&path, &pdf).unwrap();
    let text = pdf_text(&path);
    for want in ["Sunbelt RV Service", "1200 Desert Rd", "Mesa, AZ 85201"] {
        assert!(text.contains(want), "{want:?} missing:\n{text}");
    }
    assert!(
        text.find("Sunbelt RV Service").unwrap() < text.find("Service report").unwrap(),
        "the letterhead heads the page:\n{text}"
    );
    let images = pdf_images(&path);
    assert!(images.contains(&(120, 60)), "no logo in {images:?}");
    assert!(images.contains(&(640, 480)), "the photo too: {images:?}");
    desk.close().await;

    // Every PDF of a date range has them too.
    let today = chrono::Local::now().date_naive();
    let (from, to) = (
        (today - chrono::Duration::days(1)).to_string(),
        (today + chrono::Duration::days(1)).to_string(),
    );
    let out = tempfile::tempdir().unwrap();
    let result = common::cli_json(
        dir.path(),
        &[
            "export",
            "reports",
            "--from",
            &from,
            "--to",
            &to,
            "--out",
            out.path().to_str().unwrap(),
            "--json",
        ],
    );
    let folder = Path::new(result["path"].as_str().unwrap());
    let pdfs: Vec<_> = std::fs::read_dir(folder)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "pdf"))
        .collect();
    assert_eq!(pdfs.len(), 1);
    for p in pdfs {
        assert!(pdf_text(&p).contains("Sunbelt RV Service"));
        assert!(pdf_images(&p).contains(&(120, 60)));
    }
}

/// A person reads an export's times in the machine's zone: the PDF's and
/// the Markdown's revision time is local with its offset, never UTC ISO.
#[tokio::test]
async fn exports_show_times_in_the_machines_zone() {
    let dir = tempfile::tempdir().unwrap();
    let desk = Desk::open(dir.path()).await.unwrap();
    let id = diagnosed(&desk, "en", "Alex").await;
    let created = desk.store().reports(&id).await.unwrap()[0].3;
    desk.close().await;
    // Phoenix keeps UTC-7 all year: the expected text does not move with DST.
    let utc = created.instant();
    let phoenix = (utc - chrono::Duration::hours(7))
        .format("%Y-%m-%d %H:%M (UTC-07:00)")
        .to_string();
    let run = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_servicedesk"))
            .arg("--data-dir")
            .arg(dir.path())
            .args(args)
            .env("TZ", "America/Phoenix")
            .env_remove("SERVICEDESK_DATA_DIR")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let md = run(&["report", "export", &id, "--format", "markdown"]);
    assert!(
        md.contains(&format!("| Revision | 1 ({phoenix}) |")),
        "{md}"
    );
    assert!(!md.contains(&created.to_string()), "{md}");
    let work = tempfile::tempdir().unwrap();
    let pdf = work.path().join("r.pdf");
    run(&[
        "report",
        "export",
        &id,
        "--format",
        "pdf",
        "--out",
        pdf.to_str().unwrap(),
    ]);
    let text = pdf_text(&pdf);
    assert!(text.contains(&phoenix), "{phoenix:?} not in:\n{text}");
}

/// The same for the manager's CSV and the CLI's text: the CSV's two date
/// columns, `session show` (created, each change's time and the time an
/// estimate was answered, which the change log records in UTC), `ro show`,
/// `report list` and `report status` read in the machine's zone.
#[tokio::test]
async fn the_csv_and_the_clis_text_show_local_times() {
    let dir = tempfile::tempdir().unwrap();
    let desk = Desk::open(dir.path()).await.unwrap();
    let s = desk
        .new_session(NewSession {
            complaint: "roof fan does not run".into(),
            technician: Some("Alex".into()),
            ..Default::default()
        })
        .await
        .unwrap();
    let order = dispatch(&desk, "ro_show", json!({ "session_id": s.id }))
        .await
        .unwrap();
    let line_id = order["lines"][0]["id"].as_str().unwrap().to_owned();
    dispatch(
        &desk,
        "ro_line_save",
        json!({"session_id": s.id, "line": {"line_id": line_id, "complaint": "roof fan does not run",
            "pay_type": "customer", "labor": [{"description": "Diagnose fan", "hours": "0.5"}]}}),
    )
    .await
    .unwrap();
    dispatch(
        &desk,
        "ro_line_authorize",
        json!({"session_id": s.id, "authorization": {"line_id": line_id, "decision": "declined",
            "by": "Dana Whitfield", "method": "phone", "at": "2026-11-27T15:04:00Z"}}),
    )
    .await
    .unwrap();
    for line in [
        "the roof fan does not work",
        "the panel fuse is blown",
        "write the report",
    ] {
        desk.chat_turn(&s.id, line, vec![]).await.unwrap();
    }
    desk.finalize_report(&s.id, Default::default())
        .await
        .unwrap();
    let finalized = desk.store().reports(&s.id).await.unwrap()[0].3;
    desk.close().await;

    // Phoenix keeps UTC-7 all year.
    let phoenix = |t: &servicedesk::store::Timestamp| {
        (t.instant() - chrono::Duration::hours(7))
            .format("%Y-%m-%d %H:%M (UTC-07:00)")
            .to_string()
    };
    let run = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_servicedesk"))
            .arg("--data-dir")
            .arg(dir.path())
            .args(args)
            .env("TZ", "America/Phoenix")
            .env_remove("SERVICEDESK_DATA_DIR")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let answered = "2026-11-27 08:04 (UTC-07:00)";
    let show = run(&["session", "show", &s.id]);
    assert!(
        show.contains(&format!("created     {}", phoenix(&s.created_at))),
        "{show}"
    );
    assert!(
        show.contains(&format!("declined, by Dana Whitfield, phone, {answered}")),
        "the audit trail's answer time is local:\n{show}"
    );
    assert!(!show.contains("T15:04"), "{show}");
    assert!(
        !show.contains(&s.created_at.to_string()[..16]),
        "no UTC time left in the text:\n{show}"
    );
    let ro = run(&["ro", "show", &s.id]);
    assert!(
        ro.contains(&format!("declined by Dana Whitfield (phone) {answered}")),
        "{ro}"
    );
    let list = run(&["report", "list", &s.id]);
    assert!(
        list.starts_with(&format!("r1  {}  en", phoenix(&finalized))),
        "{list}"
    );
    let status = run(&["report", "status", &s.id]);
    assert!(status.contains("report: finalized"), "{status}");

    let today = chrono::Local::now().date_naive();
    let (from, to) = (
        (today - chrono::Duration::days(1)).to_string(),
        (today + chrono::Duration::days(1)).to_string(),
    );
    let out = tempfile::tempdir().unwrap();
    let done = run(&[
        "export",
        "reports",
        "--from",
        &from,
        "--to",
        &to,
        "--out",
        out.path().to_str().unwrap(),
        "--json",
    ]);
    let done: Value = serde_json::from_str(&done).unwrap();
    let csv =
        std::fs::read_to_string(Path::new(done["path"].as_str().unwrap()).join("summary.csv"))
            .unwrap();
    let rows = csv_rows(csv.strip_prefix('\u{feff}').unwrap());
    assert_eq!(rows.len(), 2, "{csv}");
    let col = |name: &str| rows[0].iter().position(|h| h == name).unwrap();
    assert_eq!(rows[1][col("finalized_at")], phoenix(&finalized));
    assert_eq!(rows[1][col("session_created_at")], phoenix(&s.created_at));
}
