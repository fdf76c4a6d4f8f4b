//! A report revision as a PDF: typst (as a library, with its embedded fonts)
//! lays out `report.typ` over a JSON view of the stored body. The body is the
//! record; the PDF shows exactly its parts (see `engine::report::parse`) plus
//! the session's unit/customer header and the photos the report cites.
//!
//! Everything is in memory: the template, `report.json` and the photos are
//! the only files the typst world can read, so a report cannot make the
//! layout read the disk. CPU-bound: call it from a blocking thread.

use std::collections::HashMap;
use std::sync::LazyLock;

use serde::Serialize;
use serde_json::{json, Value};
use typst::diag::{FileError, FileResult};
use typst::foundations::{Bytes, Datetime, Smart};
use typst::syntax::{FileId, RootedPath, Source, VirtualPath, VirtualRoot};
use typst::text::{Font, FontBook};
use typst::utils::LazyHash;
use typst::{Library, LibraryExt, World};
use typst_layout::PagedDocument;

use super::{header_rows, StoredReport};
use crate::engine::report::ReportBlock;
use crate::store::Session;

const TEMPLATE: &str = include_str!("report.typ");

/// Photos wider or heavier than this are re-encoded for the page: a 12 MP
/// picture printed 8 cm wide needs nothing like its full resolution.
const MAX_EMBEDDED_BYTES: usize = 1_500_000;
const MAX_EDGE_PX: u32 = 1600;

/// A photo of the session, with its verified bytes (None when the blob is
/// missing or does not match its hash).
#[derive(Debug, Clone)]
pub struct PhotoFile {
    pub file_name: String,
    pub mime: String,
    pub bytes: Option<Vec<u8>>,
}

#[derive(Debug, thiserror::Error)]
#[error("the PDF could not be laid out: {0}")]
pub struct PdfError(String);

impl PdfError {
    fn from_diagnostics(errors: &[typst::diag::SourceDiagnostic]) -> Self {
        let messages: Vec<String> = errors.iter().map(|e| e.message.to_string()).collect();
        PdfError(messages.join("; "))
    }
}

/// The shop a report's letterhead names (Settings): its name, address and
/// logo (type and verified bytes).
#[derive(Debug, Clone, Default)]
pub struct Shop {
    pub name: Option<String>,
    pub address: Option<String>,
    pub logo: Option<(String, Vec<u8>)>,
}

/// The revision as a PDF document, under the shop's letterhead.
pub fn report_pdf(
    session: &Session,
    report: &StoredReport,
    photos: &[PhotoFile],
    shop: &Shop,
) -> Result<Vec<u8>, PdfError> {
    let (doc, approved) = crate::report_marks::parse(&report.body, &report.language);
    let mut files: HashMap<FileId, Bytes> = HashMap::new();
    // A logo that cannot be embedded leaves the name and address alone.
    let logo = shop
        .logo
        .as_ref()
        .and_then(|(mime, bytes)| page_image(bytes, mime).ok())
        .map(|(ext, bytes)| {
            let p = format!("shop/logo.{ext}");
            files.insert(file_id(&p), Bytes::new(bytes));
            p
        });
    let shop_json = json!({
        "name": shop.name,
        "address": shop.address.as_deref().map(|a| a.lines().collect::<Vec<_>>()).unwrap_or_default(),
        "logo": logo,
    });
    let mut used = vec![false; photos.len()];
    let cited = doc
        .blocks
        .first()
        .map(|b| b.photos.clone())
        .unwrap_or_default();
    let mut photo_json = Vec::with_capacity(cited.len());
    for (i, line) in cited.iter().enumerate() {
        // The report names its photos; the first unused one by that name is it.
        let found = photos
            .iter()
            .enumerate()
            .find(|(j, p)| !used[*j] && p.file_name == line.file_name);
        let mut path = Value::Null;
        let mut missing = format!("Photo missing: {}", line.file_name);
        if let Some((j, photo)) = found {
            used[j] = true;
            match photo.bytes.as_deref().map(|b| page_image(b, &photo.mime)) {
                Some(Ok((ext, bytes))) => {
                    let p = format!("photos/{i}.{ext}");
                    files.insert(file_id(&p), Bytes::new(bytes));
                    path = Value::String(p);
                }
                Some(Err(why)) => missing = format!("Photo unreadable: {} ({why})", line.file_name),
                None => {}
            }
        }
        photo_json.push(json!({
            "number": format!("Photo {}.", i + 1),
            "file_name": line.file_name,
            "caption": line.caption,
            "taken_at": line.taken_at,
            "path": path,
            "missing_label": missing,
        }));
    }
    let mut header: Vec<Value> = header_rows(session)
        .into_iter()
        .map(|(label, value)| json!({"label": label, "value": value}))
        .collect();
    if header.len() % 2 == 1 {
        header.push(json!({"label": "", "value": ""}));
    }
    let blocks: Vec<Value> = crate::report_marks::blocks_json(&doc, &approved)
        .into_iter()
        .zip(&doc.blocks)
        .map(|(v, b)| with_table_labels(v, b))
        .collect();
    let translation_title = doc.blocks.get(1).map(|b| match b.language.as_str() {
        "es" => "Traducción (español)".to_string(),
        "ru" => "Перевод (русский)".to_string(),
        other => format!("Translation ({other})"),
    });
    let short: String = session.id.chars().take(8).collect();
    let data = json!({
        "title": "Service report",
        "subtitle": session.unit.make_model,
        "author": session.technician.clone().unwrap_or_default(),
        "revision_label": format!("Revision {}", report.revision),
        "finalized_at": report.created_at.local_display(),
        "header": header,
        "shop": shop_json,
        "blocks": blocks,
        "photos": photo_json,
        "photos_title": "Photos",
        "no_photos": "None attached.",
        "translation_title": translation_title,
        "footer": match &shop.name {
            Some(name) => format!("{name} · session {short} · revision {}", report.revision),
            None => format!("RV Service Desk · session {short} · revision {}", report.revision),
        },
    });
    files.insert(
        file_id("report.json"),
        Bytes::new(serde_json::to_vec(&data).map_err(|e| PdfError(e.to_string()))?),
    );
    let world = ReportWorld {
        main: Source::new(file_id("main.typ"), TEMPLATE.to_string()),
        files,
        today: today(report.created_at),
    };
    let compiled = typst::compile::<PagedDocument>(&world);
    for w in &compiled.warnings {
        tracing::debug!("report PDF: {}", w.message);
    }
    let document = compiled
        .output
        .map_err(|errors| PdfError::from_diagnostics(&errors))?;
    let options = typst_pdf::PdfOptions {
        ident: Smart::Custom(format!("{}-r{}", session.id, report.revision)),
        ..Default::default()
    };
    let pdf =
        typst_pdf::pdf(&document, &options).map_err(|errors| PdfError::from_diagnostics(&errors));
    // typst memoizes layouts across documents; a long export must not grow
    // without bound.
    typst::comemo::evict(10);
    pdf
}

#[derive(Serialize)]
struct TableLabels {
    operation: &'static str,
    hours: &'static str,
}

/// A block's JSON (`report_marks::blocks_json`) with its labor table's labels.
fn with_table_labels(mut v: Value, b: &ReportBlock) -> Value {
    let table = match b.language.as_str() {
        "es" => TableLabels {
            operation: "Operación",
            hours: "Horas",
        },
        "ru" => TableLabels {
            operation: "Операция",
            hours: "Часы",
        },
        _ => TableLabels {
            operation: "Operation",
            hours: "Hours",
        },
    };
    if let Value::Object(map) = &mut v {
        map.insert("table".into(), json!(table));
    }
    v
}

/// The photo as the page embeds it: JPEG/PNG/GIF as stored when small,
/// anything else (or anything large) decoded and re-encoded as JPEG.
fn page_image(bytes: &[u8], mime: &str) -> Result<(&'static str, Vec<u8>), String> {
    let ext = match mime {
        "image/jpeg" => Some("jpg"),
        "image/png" => Some("png"),
        "image/gif" => Some("gif"),
        _ => None,
    };
    if let Some(ext) = ext {
        if bytes.len() <= MAX_EMBEDDED_BYTES {
            return Ok((ext, bytes.to_vec()));
        }
    }
    let img = crate::artifacts::decode_photo(bytes).ok_or("the photo does not decode")?;
    let jpeg = crate::artifacts::jpeg_within(&img, MAX_EDGE_PX, 82)
        .ok_or("the photo cannot be re-encoded")?;
    Ok(("jpg", jpeg))
}

fn file_id(path: &str) -> FileId {
    let vpath = VirtualPath::new(format!("/{path}")).expect("our own paths are valid");
    RootedPath::new(VirtualRoot::Project, vpath).intern()
}

/// The revision's date, so `today` in the template is the report's, not the
/// machine's (the same revision always prints the same).
fn today(created_at: crate::store::Timestamp) -> Option<Datetime> {
    let date = created_at.instant();
    use chrono::Datelike;
    Datetime::from_ymd(date.year(), date.month() as u8, date.day() as u8)
}

static LIBRARY: LazyLock<LazyHash<Library>> =
    LazyLock::new(|| LazyHash::new(Library::builder().build()));

/// typst's embedded fonts (Libertinus Serif covers Latin and Cyrillic).
static FONTS: LazyLock<(LazyHash<FontBook>, Vec<Font>)> = LazyLock::new(|| {
    let fonts: Vec<Font> = typst_assets::fonts()
        .flat_map(|data| Font::iter(Bytes::new(data)))
        .collect();
    (LazyHash::new(FontBook::from_fonts(&fonts)), fonts)
});

struct ReportWorld {
    main: Source,
    files: HashMap<FileId, Bytes>,
    today: Option<Datetime>,
}

impl World for ReportWorld {
    fn library(&self) -> &LazyHash<Library> {
        &LIBRARY
    }

    fn book(&self) -> &LazyHash<FontBook> {
        &FONTS.0
    }

    fn main(&self) -> FileId {
        self.main.id()
    }

    fn source(&self, id: FileId) -> FileResult<Source> {
        if id == self.main.id() {
            Ok(self.main.clone())
        } else {
            Err(not_found(id))
        }
    }

    fn file(&self, id: FileId) -> FileResult<Bytes> {
        self.files.get(&id).cloned().ok_or_else(|| not_found(id))
    }

    fn font(&self, index: usize) -> Option<Font> {
        FONTS.1.get(index).cloned()
    }

    fn today(&self, _offset: Option<typst::foundations::Duration>) -> Option<Datetime> {
        self.today
    }
}

fn not_found(id: FileId) -> FileError {
    FileError::NotFound(id.vpath().get_with_slash().into())
}
