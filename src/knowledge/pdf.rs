//! PDF service manuals and bulletins as knowledge documents: the text layer
//! extracted page by page, each page's text after a `[[page N]]` line, so
//! the index chunks every page apart and a citation names its page.

/// The `source_type` of a document imported from a PDF.
pub const SOURCE_TYPE: &str = "pdf";

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
