//! PDF service manuals and bulletins through the real CLI, the api and a
//! real SQLite file: PDFs written here with lopdf (a text layer on some
//! pages; a scan that is only an image), imported page by page, searched
//! and cited with their page number; a scan, a damaged file and a file that
//! only claims to be a PDF are refused naming the file.

use crate::common;

use common::{cli, cli_ok};
use lopdf::content::{Content, Operation};
use lopdf::{dictionary, Document, Object, Stream};
use serde_json::Value;
use std::path::Path;

/// A PDF whose pages hold these lines of text (an empty page has none), with
/// an Info Title when one is given.
fn text_pdf(title: Option<&str>, pages: &[&[&str]]) -> Vec<u8> {
    let mut doc = Document::with_version("1.5");
    let pages_id = doc.new_object_id();
    let font_id = doc.add_object(dictionary! {
        "Type" => "Font",
        "Subtype" => "Type1",
        "BaseFont" => "Helvetica",
        "Encoding" => "WinAnsiEncoding",
    });
    let resources_id = doc.add_object(dictionary! {
        "Font" => dictionary! { "F1" => font_id },
    });
    let mut kids = Vec::new();
    for lines in pages {
        let mut ops = vec![
            Operation::new("BT", vec![]),
            Operation::new("Tf", vec!["F1".into(), 11.into()]),
            Operation::new("TL", vec![14.into()]),
            Operation::new("Td", vec![60.into(), 760.into()]),
        ];
        for line in *lines {
            ops.push(Operation::new("Tj", vec![Object::string_literal(*line)]));
            ops.push(Operation::new("T*", vec![]));
        }
        ops.push(Operation::new("ET", vec![]));
        let content = Content { operations: ops };
        let content_id = doc.add_object(Stream::new(dictionary! {}, content.encode().unwrap()));
        let page_id = doc.add_object(dictionary! {
            "Type" => "Page",
            "Parent" => pages_id,
            "Contents" => content_id,
        });
        kids.push(page_id.into());
    }
    let count = kids.len() as i64;
    doc.objects.insert(
        pages_id,
        Object::Dictionary(dictionary! {
            "Type" => "Pages",
            "Kids" => kids,
            "Count" => count,
            "Resources" => resources_id,
            "MediaBox" => vec![0.into(), 0.into(), 612.into(), 792.into()],
        }),
    );
    let catalog_id = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages_id });
    doc.trailer.set("Root", catalog_id);
    if let Some(t) = title {
        let info_id = doc.add_object(dictionary! { "Title" => Object::string_literal(t) });
        doc.trailer.set("Info", info_id);
    }
    let mut out = Vec::new();
    doc.save_to(&mut out).unwrap();
    out
}

/// A scanned page: an image drawn over the page, no text operators at all.
fn scanned_pdf(pages: usize) -> Vec<u8> {
    let mut doc = Document::with_version("1.5");
    let pages_id = doc.new_object_id();
    let image_id = doc.add_object(Stream::new(
        dictionary! {
            "Type" => "XObject",
            "Subtype" => "Image",
            "Width" => 4,
            "Height" => 4,
            "ColorSpace" => "DeviceGray",
            "BitsPerComponent" => 8,
        },
        vec![0x80; 16],
    ));
    let resources_id = doc.add_object(dictionary! {
        "XObject" => dictionary! { "Im1" => image_id },
    });
    let mut kids = Vec::new();
    for _ in 0..pages {
        let content = Content {
            operations: vec![
                Operation::new("q", vec![]),
                Operation::new(
                    "cm",
                    vec![
                        612.into(),
                        0.into(),
                        0.into(),
                        792.into(),
                        0.into(),
                        0.into(),
                    ],
                ),
                Operation::new("Do", vec!["Im1".into()]),
                Operation::new("Q", vec![]),
            ],
        };
        let content_id = doc.add_object(Stream::new(dictionary! {}, content.encode().unwrap()));
        kids.push(
            doc.add_object(dictionary! {
                "Type" => "Page",
                "Parent" => pages_id,
                "Contents" => content_id,
            })
            .into(),
        );
    }
    let count = kids.len() as i64;
    doc.objects.insert(
        pages_id,
        Object::Dictionary(dictionary! {
            "Type" => "Pages",
            "Kids" => kids,
            "Count" => count,
            "Resources" => resources_id,
            "MediaBox" => vec![0.into(), 0.into(), 612.into(), 792.into()],
        }),
    );
    let catalog_id = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages_id });
    doc.trailer.set("Root", catalog_id);
    let mut out = Vec::new();
    doc.save_to(&mut out).unwrap();
    out
}

fn manual() -> Vec<u8> {
    text_pdf(
        Some("Norcold N8 refrigerator service manual"),
        &[
            &[
                "Norcold N8 refrigerator service manual.",
                "Read the safety notices before servicing.",
            ],
            &[],
            &[
                "Flue baffle and burner.",
                "The flue baffle hangs in the flue tube above the burner.",
                "Clean the burner orifice with alcohol and a soft brush, never a wire.",
            ],
            &[
                "Thermistor check.",
                "The zorbatron thermistor reads 10 kOhm at 25 C; replace it when open.",
            ],
        ],
    )
}

fn ingest(data: &Path, path: &Path) -> (bool, Value) {
    let out = cli(
        data,
        &["knowledge", "ingest", path.to_str().unwrap(), "--json"],
    );
    let v: Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "ingest output is JSON ({e}): {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.success(), v)
}

#[test]
fn a_pdf_manual_is_imported_page_by_page_and_cited_with_its_page() {
    let data = tempfile::tempdir().unwrap();
    let docs = tempfile::tempdir().unwrap();
    let pdf = docs.path().join("Norcold N8 Manual.pdf");
    std::fs::write(&pdf, manual()).unwrap();
    let (ok, report) = ingest(data.path(), &pdf);
    assert!(ok, "{report}");
    let imported = report["imported"].as_array().unwrap();
    assert_eq!(imported.len(), 1, "{report}");
    assert_eq!(imported[0]["source_id"], "pdf-norcold-n8-manual");
    assert_eq!(imported[0]["version"], 1);
    // Three pages have text (page 2 is blank), and no chunk spans two pages.
    assert!(imported[0]["chunks"].as_u64().unwrap() >= 3, "{report}");

    let hits: Value = serde_json::from_str(&cli_ok(
        data.path(),
        &["knowledge", "search", "zorbatron thermistor", "--json"],
    ))
    .unwrap();
    let first = &hits["results"][0];
    assert_eq!(first["source_id"], "pdf-norcold-n8-manual", "{hits}");
    assert_eq!(first["page"], 4, "{hits}");
    assert_eq!(first["source"], "shop");
    assert_eq!(first["source_type"], "pdf");
    assert_eq!(first["title"], "Norcold N8 refrigerator service manual");
    assert!(
        first["snippet"].as_str().unwrap().contains("10 kOhm"),
        "{hits}"
    );

    let answer: Value = serde_json::from_str(&cli_ok(
        data.path(),
        &["ask", "how do I clean the burner orifice", "--json"],
    ))
    .unwrap();
    let c = &answer["citations"][0];
    assert_eq!(c["source_id"], "pdf-norcold-n8-manual", "{answer}");
    assert_eq!(c["page"], 3, "{answer}");
    assert!(
        answer["conclusion"].as_str().unwrap().contains("alcohol"),
        "{answer}"
    );
    let text = cli_ok(data.path(), &["ask", "how do I clean the burner orifice"]);
    assert!(text.contains(", p. 3, shop document)"), "{text}");

    // The manual itself comes back from the store, byte for byte.
    let copy = docs.path().join("copy.pdf");
    cli_ok(
        data.path(),
        &[
            "knowledge",
            "file",
            "pdf-norcold-n8-manual",
            "1",
            "--out",
            copy.to_str().unwrap(),
        ],
    );
    assert_eq!(std::fs::read(&copy).unwrap(), manual());

    // The same file again changes nothing.
    let (ok, again) = ingest(data.path(), &pdf);
    assert!(ok, "{again}");
    assert_eq!(again["imported"], serde_json::json!([]), "{again}");
    assert_eq!(again["unchanged"].as_array().unwrap().len(), 1, "{again}");
}

#[test]
fn a_scanned_pdf_a_damaged_one_and_a_fake_are_refused_naming_the_file() {
    let data = tempfile::tempdir().unwrap();
    let docs = tempfile::tempdir().unwrap();
    std::fs::write(docs.path().join("scanned-bulletin.pdf"), scanned_pdf(3)).unwrap();
    let mut damaged = manual();
    damaged.truncate(damaged.len() / 3);
    std::fs::write(docs.path().join("damaged.pdf"), damaged).unwrap();
    std::fs::write(docs.path().join("fake.pdf"), "# not a pdf\n").unwrap();
    std::fs::write(docs.path().join("good.pdf"), manual()).unwrap();
    let (ok, report) = ingest(data.path(), docs.path());
    assert!(!ok, "a batch with refused files exits non-zero: {report}");
    let skipped = report["skipped"].as_array().unwrap();
    let about = |name: &str| {
        skipped
            .iter()
            .find(|e| e["file"].as_str().unwrap().ends_with(name))
            .unwrap_or_else(|| panic!("{name} not reported: {report}"))["message"]
            .as_str()
            .unwrap()
            .to_string()
    };
    let scan = about("scanned-bulletin.pdf");
    assert!(scan.contains("no text layer"), "{scan}");
    assert!(scan.contains("3 page(s)"), "{scan}");
    assert!(!about("damaged.pdf").is_empty());
    assert!(about("fake.pdf").contains("not a PDF"));
    // The good one imports; nothing of the others does.
    let imported: Vec<&str> = report["imported"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["source_id"].as_str().unwrap())
        .collect();
    assert_eq!(imported, ["pdf-good"], "{report}");
    let list: Value =
        serde_json::from_str(&cli_ok(data.path(), &["knowledge", "list", "--json"])).unwrap();
    let ids: Vec<&str> = list["sources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["source_id"].as_str().unwrap())
        .collect();
    assert!(!ids
        .iter()
        .any(|id| id.contains("scanned") || id.contains("damaged") || id.contains("fake")));
}

#[tokio::test]
async fn a_pdf_sent_over_the_api_is_imported_and_a_scan_refused() {
    use base64::Engine as _;
    let data = tempfile::tempdir().unwrap();
    let desk = servicedesk::Desk::open(data.path()).await.unwrap();
    let b64 = |b: Vec<u8>| base64::engine::general_purpose::STANDARD.encode(b);
    let report = servicedesk::api::dispatch(
        &desk,
        "knowledge_ingest",
        serde_json::json!({ "files": [
            { "name": "N8.pdf", "content_base64": b64(manual()) },
            { "name": "scan.pdf", "content_base64": b64(scanned_pdf(1)) },
            { "name": "bad.pdf", "content_base64": "%%%" },
        ]}),
    )
    .await
    .unwrap();
    assert_eq!(report["imported"][0]["source_id"], "pdf-n8", "{report}");
    let skipped = report["skipped"].as_array().unwrap();
    assert_eq!(skipped.len(), 2, "{report}");
    assert_eq!(skipped[0]["file"], "scan.pdf");
    assert!(skipped[0]["message"]
        .as_str()
        .unwrap()
        .contains("no text layer"));
    assert_eq!(skipped[1]["file"], "bad.pdf");
    assert_eq!(skipped[1]["field"], "content_base64");
    let hits = servicedesk::api::dispatch(
        &desk,
        "knowledge_search",
        serde_json::json!({ "query": "flue baffle" }),
    )
    .await
    .unwrap();
    assert_eq!(hits["results"][0]["page"], 3, "{hits}");

    // The cited PDF itself comes back, byte for byte, for the app to open
    // at the cited page; a text document has no file, and says so.
    let file = servicedesk::api::dispatch(
        &desk,
        "knowledge_source_file",
        serde_json::json!({ "source_id": "pdf-n8", "version": 1 }),
    )
    .await
    .unwrap();
    assert_eq!(file["media_type"], "application/pdf");
    assert_eq!(file["title"], "Norcold N8 refrigerator service manual");
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(file["data_base64"].as_str().unwrap())
        .unwrap();
    assert_eq!(bytes, manual());
    for (source, version) in [("policy-labor-diagnostic-fees", 1), ("pdf-n8", 2)] {
        let e = servicedesk::api::dispatch(
            &desk,
            "knowledge_source_file",
            serde_json::json!({ "source_id": source, "version": version }),
        )
        .await
        .unwrap_err();
        assert_eq!(e.code, "not_found", "{source} v{version}: {e:?}");
        assert!(e.message.contains(source), "{e:?}");
    }

    // A chat reply cites only its chunk id: named, the file comes back with
    // the page that chunk is on; a chunk of another source is refused.
    let cited = hits["results"][0]["chunk_id"].as_str().unwrap().to_string();
    let file = servicedesk::api::dispatch(
        &desk,
        "knowledge_source_file",
        serde_json::json!({ "source_id": "pdf-n8", "version": 1, "chunk_id": cited }),
    )
    .await
    .unwrap();
    assert_eq!(file["page"], 3, "{cited}");
    for wrong in [
        "policy-labor-diagnostic-fees@v1#0",
        "pdf-n8@v1#999",
        "pdf-n8@v1#x",
    ] {
        let e = servicedesk::api::dispatch(
            &desk,
            "knowledge_source_file",
            serde_json::json!({ "source_id": "pdf-n8", "version": 1, "chunk_id": wrong }),
        )
        .await
        .unwrap_err();
        assert_eq!(e.code, "invalid_input", "{wrong}: {e:?}");
        assert!(e.message.starts_with("chunk_id: "), "{e:?}");
    }
    // The source list says which versions have a file to open.
    let sources = servicedesk::api::dispatch(&desk, "knowledge_sources", serde_json::json!({}))
        .await
        .unwrap();
    let has_file = |id: &str| {
        sources["sources"]
            .as_array()
            .unwrap()
            .iter()
            .find(|s| s["source_id"] == id)
            .map(|s| s["has_file"].clone())
    };
    assert_eq!(has_file("pdf-n8"), Some(serde_json::json!(true)));
    assert_eq!(
        has_file("policy-labor-diagnostic-fees"),
        Some(serde_json::json!(false))
    );
    desk.close().await;
}
