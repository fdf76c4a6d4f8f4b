//! PDF service manuals and bulletins as knowledge documents: the text layer
//! extracted page by page (`pdf-extract`, pure Rust over `lopdf`), each
//! page's text after a `[[page N]]` line, so the index chunks every page
//! apart and a citation names its page. A PDF with no text layer (a scan)
//! is refused naming the file, never imported empty.
//!
//! A PDF carries no front matter: its `source_id` is its file name made
//! into an id, its title the PDF's own Title when it has one (else the file
//! name), its language detected from its text, `doc_type` `procedure` and
//! `source_type` `pdf`. Page numbers are the PDF's physical pages (the
//! first page is 1), which is what a viewer opens at.

use super::document::{clean, DocError, Document};

/// The `source_type` of a document imported from a PDF.
pub const SOURCE_TYPE: &str = "pdf";
/// What a PDF manual is filed as.
pub const DOC_TYPE: &str = "procedure";
/// Manuals are larger than Markdown documents; past this a PDF is refused
/// before it is read.
pub const MAX_PDF_BYTES: u64 = 64 * 1024 * 1024;
/// At most this many pages are read.
pub const MAX_PAGES: u32 = 5_000;

/// Whether bytes are a PDF (its header, within the first KiB as readers allow).
pub fn is_pdf(bytes: &[u8]) -> bool {
    let head = &bytes[..bytes.len().min(1024)];
    head.windows(5).any(|w| w == b"%PDF-")
}

fn err(file: &str, message: impl Into<String>) -> DocError {
    DocError {
        file: file.to_string(),
        line: 0,
        field: None,
        message: message.into(),
    }
}

/// What a PDF holds: each page's text in page order (empty for a page with
/// no text layer), whether any page draws text at all, and its Title.
struct Read {
    pages: Vec<String>,
    draws_text: bool,
    title: Option<String>,
}

/// Whether a page's content stream shows text (Tj, TJ, ' or "): a scan
/// only draws images.
fn draws_text(doc: &pdf_extract::Document, page: pdf_extract::ObjectId) -> bool {
    doc.get_page_content(page)
        .ok()
        .and_then(|c| pdf_extract::content::Content::decode(&c).ok())
        .is_some_and(|c| {
            c.operations
                .iter()
                .any(|op| matches!(op.operator.as_str(), "Tj" | "TJ" | "'" | "\""))
        })
}

/// A page that cannot be read is an error naming it.
fn page_texts(file: &str, bytes: &[u8]) -> Result<Read, DocError> {
    let mut doc = pdf_extract::Document::load_mem(bytes)
        .map_err(|e| err(file, format!("not a readable PDF: {e}")))?;
    if doc.is_encrypted() && doc.decrypt("").is_err() {
        return Err(err(
            file,
            "the PDF is encrypted with a password; save an unprotected copy and import that",
        ));
    }
    let title = doc
        .trailer
        .get(b"Info")
        .ok()
        .and_then(|info| match info {
            pdf_extract::Object::Reference(id) => doc.get_dictionary(*id).ok(),
            pdf_extract::Object::Dictionary(d) => Some(d),
            _ => None,
        })
        .and_then(|info| info.get(b"Title").ok())
        .and_then(|t| pdf_extract::decode_text_string(t).ok())
        .map(|t| t.trim().to_string())
        .filter(|t| !t.is_empty() && t.chars().count() <= 300);
    let ids = doc.get_pages();
    let draws = ids.values().any(|id| draws_text(&doc, *id));
    let pages = ids.len() as u32;
    if pages == 0 {
        return Err(err(file, "the PDF has no pages"));
    }
    if pages > MAX_PAGES {
        return Err(err(
            file,
            format!("the PDF has {pages} pages; at most {MAX_PAGES} are imported (split it)"),
        ));
    }
    let mut out = Vec::with_capacity(pages as usize);
    for n in 1..=pages {
        let mut text = String::new();
        {
            let mut sink = pdf_extract::PlainTextOutput::new(&mut text);
            pdf_extract::output_doc_page(&doc, &mut sink, n)
                .map_err(|e| err(file, format!("page {n}: the text cannot be read: {e}")))?;
        }
        out.push(text);
    }
    Ok(Read {
        pages: out,
        draws_text: draws,
        title,
    })
}

/// The file name as an id: lower-case letters, digits and `-`.
fn source_id_of(file: &str) -> String {
    let name = std::path::Path::new(file)
        .file_stem()
        .map(|s| s.to_string_lossy().to_string())
        .unwrap_or_default();
    let mut id = String::new();
    for c in name.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_alphanumeric() {
            id.push(c);
        } else if !id.ends_with('-') && !id.is_empty() {
            id.push('-');
        }
    }
    let id: String = id.trim_end_matches('-').chars().take(150).collect();
    if id.is_empty() {
        "pdf-document".into()
    } else {
        format!("pdf-{id}")
    }
}

fn language_of(text: &str) -> String {
    let sample: String = text.chars().take(4_000).collect();
    let letters = sample.chars().filter(|c| c.is_alphabetic()).count();
    let cjk = sample
        .chars()
        .filter(|c| ('\u{4E00}'..='\u{9FFF}').contains(c))
        .count();
    if letters > 0 && cjk * 2 >= letters {
        return "zh".into();
    }
    crate::engine::lexicon::detect_language(&sample)
        .unwrap_or("en")
        .to_string()
}

/// One PDF as a knowledge document. Refused, naming the file: bytes that are
/// not a PDF, a damaged or password-protected PDF, and a PDF whose pages
/// hold no text (a scan: "no text layer").
pub fn load_pdf(file: &str, bytes: &[u8]) -> Result<Document, DocError> {
    if !is_pdf(bytes) {
        return Err(err(file, "not a PDF (no %PDF- header)"));
    }
    // pdf-extract unwraps on some malformed files: a panic there is this
    // file's error, never the import's end.
    let read = std::panic::catch_unwind(|| page_texts(file, bytes))
        .map_err(|_| err(file, "the PDF is damaged: its text could not be extracted"))??;
    let Read {
        pages,
        draws_text,
        title,
    } = read;
    let mut body = String::new();
    let mut with_text = 0;
    for (i, text) in pages.iter().enumerate() {
        let text = clean(text);
        if !text.chars().any(char::is_alphanumeric) {
            continue;
        }
        with_text += 1;
        body.push_str(&format!("[[page {}]]\n{text}\n\n", i + 1));
    }
    if with_text == 0 && draws_text {
        return Err(err(
            file,
            format!(
                "its {} page(s) draw text, but no letters or digits can be extracted from it (its fonts may lack a Unicode map); export it again as a PDF with a text layer, or as text",
                pages.len()
            ),
        ));
    }
    if with_text == 0 {
        return Err(err(
            file,
            format!(
                "no text layer: its {} page(s) are images only (a scanned PDF); run it through OCR and import the result",
                pages.len()
            ),
        ));
    }
    let title = title.unwrap_or_else(|| {
        std::path::Path::new(file)
            .file_stem()
            .map(|s| s.to_string_lossy().to_string())
            .unwrap_or_else(|| file.to_string())
    });
    Ok(Document {
        source_id: source_id_of(file),
        version: None,
        doc_type: DOC_TYPE.into(),
        source_type: SOURCE_TYPE.into(),
        title,
        language: language_of(&body),
        city_code: None,
        lot_codes: Vec::new(),
        effective_from: None,
        effective_to: None,
        clarifying_questions: Default::default(),
        requires_handoff: false,
        body: body.trim_end().to_string(),
        origin: file.to_string(),
        version_line: 0,
        original: Some(super::document::OriginalFile {
            media_type: "application/pdf",
            bytes: bytes.into(),
        }),
    })
}

/// The line that starts a page's text in a PDF document's body.
fn page_marker(line: &str) -> Option<u32> {
    line.trim()
        .strip_prefix("[[page ")?
        .strip_suffix("]]")?
        .parse()
        .ok()
        .filter(|&n| n >= 1)
}

/// A PDF document's body as (page, text) pairs, pages without text left out.
pub fn pages_of(body: &str) -> Vec<(u32, &str)> {
    let mut out = Vec::new();
    let mut page = 1;
    let mut start = 0;
    let mut offset = 0;
    for line in body.split_inclusive('\n') {
        if let Some(n) = page_marker(line) {
            let text = &body[start..offset];
            if !text.trim().is_empty() {
                out.push((page, text.trim()));
            }
            page = n;
            start = offset + line.len();
        }
        offset += line.len();
    }
    let text = &body[start..];
    if !text.trim().is_empty() {
        out.push((page, text.trim()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pages_split_at_their_markers() {
        let body = "[[page 1]]\nOne.\n\n[[page 3]]\nThree.\nMore three.\n";
        assert_eq!(
            pages_of(body),
            vec![(1, "One."), (3, "Three.\nMore three.")]
        );
        assert_eq!(pages_of("no markers"), vec![(1, "no markers")]);
    }

    #[test]
    fn not_a_pdf_and_garbage_are_errors_naming_the_file() {
        let e = load_pdf("manual.pdf", b"hello").unwrap_err();
        assert_eq!(e.file, "manual.pdf");
        assert!(e.message.contains("not a PDF"), "{e}");
        let e = load_pdf("broken.pdf", b"%PDF-1.7\n\x00\x01garbage").unwrap_err();
        assert_eq!(e.file, "broken.pdf");
    }

    #[test]
    fn ids_come_from_the_file_name() {
        assert_eq!(
            source_id_of("/x/Dometic RM2652 Manual.pdf"),
            "pdf-dometic-rm2652-manual"
        );
        assert_eq!(source_id_of("___.pdf"), "pdf-document");
    }
}
