//! Knowledge documents as read from disk: Markdown with front matter, or
//! JSONL records with the same fields and a `body`. Everything a document
//! claims is validated here, and every error names the file, the line and
//! the field, so one bad file never stops the rest of a batch.

use super::frontmatter::{self, Field, Value};
use crate::engine::lexicon::is_language_tag;
use chrono::Utc;
use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;
use ts_rs::TS;

pub const DOC_TYPES: &[&str] = &[
    "rule_explain",
    "policy_doc",
    "faq",
    "sop",
    "component",
    "procedure",
];

/// Larger files are refused before they are read: the default set's longest
/// document is a few KiB, and a 50 MB "document" is a mistake, not knowledge.
pub const MAX_FILE_BYTES: u64 = 4 * 1024 * 1024;
const MAX_QUESTIONS: usize = 10;

#[derive(Debug, Clone, PartialEq)]
pub struct Document {
    pub source_id: String,
    /// `None`: the store assigns the next version when the content changed.
    pub version: Option<u32>,
    pub doc_type: String,
    pub source_type: String,
    pub title: String,
    pub language: String,
    pub city_code: Option<String>,
    pub lot_codes: Vec<String>,
    /// RFC 3339 UTC (`2026-01-01T00:00:00Z`).
    pub effective_from: Option<String>,
    pub effective_to: Option<String>,
    /// Language → questions; the document's own language is always present
    /// when there are questions, translations are optional.
    pub clarifying_questions: BTreeMap<String, Vec<String>>,
    pub requires_handoff: bool,
    pub body: String,
    /// Where it came from: a file path, or `procedures` / `billing` for derived ones.
    pub origin: String,
    /// The line of the `version` field (of the record, for JSONL), for errors
    /// the store finds later.
    pub version_line: usize,
    /// The file itself where the app can show it (a PDF, opened at a cited
    /// page); `None` for text documents, whose body is the document.
    pub original: Option<OriginalFile>,
}

/// The bytes of the file a document came from, with its media type.
#[derive(Clone, PartialEq)]
pub struct OriginalFile {
    pub media_type: &'static str,
    pub bytes: std::sync::Arc<[u8]>,
}

impl std::fmt::Debug for OriginalFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} ({} bytes)", self.media_type, self.bytes.len())
    }
}

/// A document that could not be imported, and exactly why.
#[derive(Debug, Clone, PartialEq, serde::Serialize, TS)]
pub struct DocError {
    pub file: String,
    pub line: usize,
    pub field: Option<String>,
    pub message: String,
}

impl fmt::Display for DocError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: ", self.file, self.line)?;
        if let Some(field) = &self.field {
            write!(f, "{field}: ")?;
        }
        f.write_str(&self.message)
    }
}

impl std::error::Error for DocError {}

fn err(file: &str, line: usize, field: Option<&str>, message: impl Into<String>) -> DocError {
    DocError {
        file: file.to_string(),
        line,
        field: field.map(str::to_string),
        message: message.into(),
    }
}

/// Reads one Markdown document.
pub fn parse_markdown(file: &str, text: &str) -> Result<Document, DocError> {
    let (fields, body, body_line) =
        frontmatter::split(text).map_err(|e| err(file, e.line, e.field.as_deref(), e.message))?;
    let end_line = fields.iter().map(|f| f.line).max().unwrap_or(1) + 1;
    from_fields(file, fields, body, body_line, end_line)
}

/// Reads JSONL: one document per line. Good lines import even when others fail.
pub fn parse_jsonl(file: &str, text: &str) -> (Vec<Document>, Vec<DocError>) {
    let mut docs = Vec::new();
    let mut errors = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        if raw.trim().is_empty() {
            continue;
        }
        let record: serde_json::Map<String, serde_json::Value> = match serde_json::from_str(raw) {
            Ok(serde_json::Value::Object(m)) => m,
            Ok(_) => {
                errors.push(err(
                    file,
                    line,
                    None,
                    "a JSONL line must be one JSON object",
                ));
                continue;
            }
            Err(e) => {
                errors.push(err(
                    file,
                    line,
                    None,
                    format!("not valid JSON (column {}): {e}", e.column()),
                ));
                continue;
            }
        };
        let mut fields = Vec::new();
        let mut body = None;
        let mut bad = None;
        for (key, value) in record {
            if key == "body" || key == "text" {
                match value {
                    serde_json::Value::String(s) => body = Some(s),
                    _ => bad = Some(err(file, line, Some(&key), "must be a string")),
                }
                continue;
            }
            let value = match value {
                serde_json::Value::Null => Value::Null,
                serde_json::Value::String(s) => Value::Scalar(s),
                serde_json::Value::Bool(b) => Value::Scalar(b.to_string()),
                serde_json::Value::Number(n) => Value::Scalar(n.to_string()),
                serde_json::Value::Array(items) => {
                    let mut list = Vec::new();
                    for item in items {
                        match item {
                            serde_json::Value::String(s) => list.push(s),
                            _ => {
                                bad =
                                    Some(err(file, line, Some(&key), "list items must be strings"));
                            }
                        }
                    }
                    Value::List(list)
                }
                serde_json::Value::Object(_) => {
                    bad = Some(err(file, line, Some(&key), "objects are not a field value"));
                    continue;
                }
            };
            fields.push(Field { key, value, line });
        }
        if let Some(e) = bad {
            errors.push(e);
            continue;
        }
        let Some(body) = body else {
            errors.push(err(
                file,
                line,
                Some("body"),
                "a JSONL record needs a `body` string",
            ));
            continue;
        };
        match from_fields(file, fields, &body, line, line) {
            Ok(d) => docs.push(d),
            Err(e) => errors.push(e),
        }
    }
    (docs, errors)
}

fn from_fields(
    file: &str,
    fields: Vec<Field>,
    body: &str,
    body_line: usize,
    missing_line: usize,
) -> Result<Document, DocError> {
    let mut by_key: BTreeMap<String, Field> = BTreeMap::new();
    for f in fields {
        by_key.insert(f.key.clone(), f);
    }
    let scalar = |key: &str| -> Result<Option<(String, usize)>, DocError> {
        match by_key.get(key) {
            None => Ok(None),
            Some(Field {
                value: Value::Null, ..
            }) => Ok(None),
            Some(Field {
                value: Value::Scalar(s),
                line,
                ..
            }) => Ok(Some((s.trim().to_string(), *line))),
            Some(Field {
                value: Value::List(_),
                line,
                ..
            }) => Err(err(
                file,
                *line,
                Some(key),
                "expected a single value, found a list",
            )),
        }
    };
    let list = |key: &str| -> Result<Option<(Vec<String>, usize)>, DocError> {
        match by_key.get(key) {
            None
            | Some(Field {
                value: Value::Null, ..
            }) => Ok(None),
            Some(Field {
                value: Value::List(items),
                line,
                ..
            }) => Ok(Some((
                items.iter().map(|s| s.trim().to_string()).collect(),
                *line,
            ))),
            Some(Field {
                value: Value::Scalar(s),
                line,
                ..
            }) => Ok(Some((vec![s.trim().to_string()], *line))),
        }
    };
    const KNOWN: &[&str] = &[
        "source_id",
        "doc_type",
        "source_type",
        "title",
        "city_code",
        "lot_codes",
        "effective_from",
        "effective_to",
        "version",
        "language",
        "clarifying_questions",
        "requires_handoff",
    ];
    for f in by_key.values() {
        if !KNOWN.contains(&f.key.as_str()) && !f.key.starts_with("clarifying_questions_") {
            return Err(err(
                file,
                f.line,
                Some(&f.key),
                format!("unknown field (known: {})", KNOWN.join(", ")),
            ));
        }
    }
    let required = |key: &str| -> Result<(String, usize), DocError> {
        match scalar(key)? {
            Some((v, line)) if !v.is_empty() => Ok((v, line)),
            Some((_, line)) => Err(err(file, line, Some(key), "must not be empty")),
            None => Err(err(file, missing_line, Some(key), "is required")),
        }
    };

    let (source_id, line) = required("source_id")?;
    if source_id.len() > 200
        || !source_id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | ':'))
    {
        return Err(err(
            file,
            line,
            Some("source_id"),
            format!("{source_id:?}: use letters, digits and - _ . : (at most 200)"),
        ));
    }
    let (doc_type, line) = required("doc_type")?;
    if !DOC_TYPES.contains(&doc_type.as_str()) {
        return Err(err(
            file,
            line,
            Some("doc_type"),
            format!(
                "unknown doc_type {doc_type:?} (one of {})",
                DOC_TYPES.join(", ")
            ),
        ));
    }
    let source_type = match scalar("source_type")? {
        None => "document".to_string(),
        Some((s, line)) => {
            if s.is_empty() || !s.chars().all(|c| c.is_ascii_lowercase() || c == '_') {
                return Err(err(
                    file,
                    line,
                    Some("source_type"),
                    format!("{s:?}: use lower-case letters and _"),
                ));
            }
            s
        }
    };
    let body_text = clean(body);
    let title = match scalar("title")? {
        Some((t, _)) if !t.is_empty() => t,
        _ => first_heading(&body_text).ok_or_else(|| {
            err(
                file,
                missing_line,
                Some("title"),
                "is required (or start the body with a `# Heading`)",
            )
        })?,
    };
    let version = match scalar("version")? {
        None => None,
        Some((v, line)) => match v.parse::<u32>() {
            Ok(n) if n >= 1 => Some(n),
            _ => {
                return Err(err(
                    file,
                    line,
                    Some("version"),
                    format!("{v:?} is not a whole number ≥ 1"),
                ))
            }
        },
    };
    let language = match scalar("language")? {
        None => "en".to_string(),
        Some((l, line)) => {
            if !is_language_tag(&l) {
                return Err(err(
                    file,
                    line,
                    Some("language"),
                    format!("{l:?} is not a language tag like en, es, ru, zh"),
                ));
            }
            l
        }
    };
    let city_code = match scalar("city_code")? {
        None => None,
        Some((c, line)) => {
            if c.is_empty()
                || c.len() > 16
                || !c
                    .chars()
                    .all(|ch| ch.is_ascii_alphanumeric() || ch == '_' || ch == '-')
            {
                return Err(err(
                    file,
                    line,
                    Some("city_code"),
                    format!("{c:?} is not a city code"),
                ));
            }
            Some(c.to_ascii_uppercase())
        }
    };
    let lot_codes = match list("lot_codes")? {
        None => Vec::new(),
        Some((lots, line)) => {
            for l in &lots {
                if l.is_empty()
                    || l.len() > 16
                    || !l
                        .chars()
                        .all(|ch| ch.is_ascii_alphanumeric() || ch == '_' || ch == '-')
                {
                    return Err(err(
                        file,
                        line,
                        Some("lot_codes"),
                        format!("{l:?} is not a lot code"),
                    ));
                }
            }
            lots.into_iter().map(|l| l.to_ascii_uppercase()).collect()
        }
    };
    let date = |key: &str| -> Result<Option<(String, usize)>, DocError> {
        match scalar(key)? {
            None => Ok(None),
            Some((s, line)) => parse_time(&s).map(|t| Some((t, line))).ok_or_else(|| {
                err(
                    file,
                    line,
                    Some(key),
                    format!("{s:?} is not a date or time: use {TIME_FORMS}"),
                )
            }),
        }
    };
    let effective_from = date("effective_from")?;
    let effective_to = date("effective_to")?;
    if let (Some((from, _)), Some((to, line))) = (&effective_from, &effective_to) {
        if to <= from {
            return Err(err(
                file,
                *line,
                Some("effective_to"),
                format!("{to} is not after effective_from {from}"),
            ));
        }
    }
    let mut clarifying_questions = BTreeMap::new();
    for f in by_key.values() {
        let lang = if f.key == "clarifying_questions" {
            language.clone()
        } else if let Some(lang) = f.key.strip_prefix("clarifying_questions_") {
            if !is_language_tag(lang) {
                return Err(err(
                    file,
                    f.line,
                    Some(&f.key),
                    format!("{lang:?} is not a language tag"),
                ));
            }
            lang.to_string()
        } else {
            continue;
        };
        let Some((qs, line)) = list(&f.key)? else {
            continue;
        };
        if qs.iter().any(|q| q.is_empty()) || qs.len() > MAX_QUESTIONS {
            return Err(err(
                file,
                line,
                Some(&f.key),
                format!("1 to {MAX_QUESTIONS} non-empty questions"),
            ));
        }
        if !qs.is_empty() {
            clarifying_questions.insert(lang, qs);
        }
    }
    if let Some(own) = clarifying_questions.get(&language) {
        for (lang, qs) in &clarifying_questions {
            if qs.len() != own.len() {
                let line = by_key
                    .get(&format!("clarifying_questions_{lang}"))
                    .map(|f| f.line)
                    .unwrap_or(missing_line);
                return Err(err(
                    file,
                    line,
                    Some(&format!("clarifying_questions_{lang}")),
                    format!("{} questions, but the document has {}", qs.len(), own.len()),
                ));
            }
        }
    } else if !clarifying_questions.is_empty() {
        return Err(err(
            file,
            missing_line,
            Some("clarifying_questions"),
            "translations are given but not the questions in the document's language",
        ));
    }
    let requires_handoff = match scalar("requires_handoff")? {
        None => false,
        Some((v, line)) => match v.as_str() {
            "true" | "yes" => true,
            "false" | "no" => false,
            _ => {
                return Err(err(
                    file,
                    line,
                    Some("requires_handoff"),
                    format!("{v:?} is not true or false"),
                ))
            }
        },
    };
    if body_text.trim().is_empty() {
        return Err(err(
            file,
            body_line,
            Some("body"),
            "the document has no text",
        ));
    }
    Ok(Document {
        source_id,
        version,
        doc_type,
        source_type,
        title,
        language,
        city_code,
        lot_codes,
        effective_from: effective_from.map(|(t, _)| t),
        effective_to: effective_to.map(|(t, _)| t),
        clarifying_questions,
        requires_handoff,
        body: body_text,
        origin: file.to_string(),
        version_line: by_key
            .get("version")
            .map(|f| f.line)
            .unwrap_or(missing_line),
        original: None,
    })
}

/// The time forms a document's dates and the store's `at_time` take, as
/// their errors state them.
pub const TIME_FORMS: &str = "YYYY-MM-DD, YYYY-MM-DDTHH:MM (UTC, as a date alone is) \
                              or RFC 3339 with an offset (2026-03-02T08:00:00+08:00)";

/// A time in one of [`TIME_FORMS`] (read by the `when` crate, the parser of
/// every time field), as canonical UTC text that sorts by time. A document
/// is read the same on every machine, so a time without an offset is UTC,
/// as its date alone is (midnight UTC); the api reads a person's
/// `at_time` in the machine's zone before it gets here.
pub fn parse_time(s: &str) -> Option<String> {
    let t = crate::when::parse("time", s).ok()?.in_zone(&Utc);
    Some(t.format("%Y-%m-%dT%H:%M:%SZ").to_string())
}

/// Line endings unified, control characters and trailing spaces dropped,
/// runs of blank lines collapsed.
pub fn clean(body: &str) -> String {
    let mut out = String::with_capacity(body.len());
    let mut blank = 0;
    for line in body.replace("\r\n", "\n").replace('\r', "\n").lines() {
        let line: String = line
            .chars()
            .map(|c| if c == '\t' { ' ' } else { c })
            .filter(|c| !c.is_control())
            .collect();
        let line = line.trim_end();
        if line.is_empty() {
            blank += 1;
            if blank > 1 {
                continue;
            }
        } else {
            blank = 0;
        }
        out.push_str(line);
        out.push('\n');
    }
    out.trim().to_string()
}

fn first_heading(body: &str) -> Option<String> {
    body.lines()
        .find_map(|l| l.strip_prefix("# "))
        .map(|t| t.trim().to_string())
        .filter(|t| !t.is_empty())
}

/// Everything importable under `paths` (files, or folders searched
/// recursively for `.md`, `.markdown`, `.jsonl` and `.pdf`; `README.md` is
/// skipped), with the errors of what is not.
pub fn load_paths(paths: &[impl AsRef<Path>]) -> (Vec<Document>, Vec<DocError>) {
    let mut files = Vec::new();
    let mut errors = Vec::new();
    for p in paths {
        collect(p.as_ref(), true, &mut files, &mut errors);
    }
    files.sort();
    files.dedup();
    let mut docs = Vec::new();
    for f in files {
        let (d, e) = load_file(&f);
        docs.extend(d);
        errors.extend(e);
    }
    (docs, errors)
}

fn collect(
    path: &Path,
    explicit: bool,
    files: &mut Vec<std::path::PathBuf>,
    errors: &mut Vec<DocError>,
) {
    let name = path.display().to_string();
    match std::fs::metadata(path) {
        Err(e) => errors.push(err(&name, 0, None, format!("cannot read: {e}"))),
        Ok(m) if m.is_dir() => match std::fs::read_dir(path) {
            Err(e) => errors.push(err(&name, 0, None, format!("cannot list the folder: {e}"))),
            Ok(entries) => {
                for entry in entries.flatten() {
                    collect(&entry.path(), false, files, errors);
                }
            }
        },
        Ok(_) => {
            let ext = path.extension().and_then(|e| e.to_str()).unwrap_or("");
            let readme = path
                .file_name()
                .is_some_and(|n| n.to_string_lossy().eq_ignore_ascii_case("readme.md"));
            let ext = ext.to_ascii_lowercase();
            if matches!(ext.as_str(), "md" | "markdown" | "jsonl" | "pdf") && !readme {
                files.push(path.to_path_buf());
            } else if explicit {
                errors.push(err(
                    &name,
                    0,
                    None,
                    "not a knowledge file (.md, .markdown, .jsonl or .pdf)",
                ));
            }
        }
    }
}

/// One file: its documents and errors. Too large, unreadable or non-UTF-8
/// files are one error each.
pub fn load_file(path: &Path) -> (Vec<Document>, Vec<DocError>) {
    let name = path.display().to_string();
    let pdf = path
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("pdf"));
    let limit = if pdf {
        super::pdf::MAX_PDF_BYTES
    } else {
        MAX_FILE_BYTES
    };
    // Only a regular file, bounded (a FIFO named `x.md` never blocks).
    match crate::files::read_limited(path, limit, "a knowledge file") {
        Ok(bytes) => load_bytes(&name, &bytes),
        Err(crate::files::ReadError::TooLarge { size, .. }) => (
            Vec::new(),
            vec![err(
                &name,
                0,
                None,
                format!(
                    "the file is {:.1} MB; knowledge files are at most {} MB (split it into documents)",
                    size as f64 / 1_000_000.0,
                    limit / (1024 * 1024)
                ),
            )],
        ),
        Err(e) => (Vec::new(), vec![err(&name, 0, None, e.to_string())]),
    }
}

/// Like [`load_file`] for content that did not come from a path (the app's
/// drag and drop, the embedded default set). A PDF is known by its bytes.
pub fn load_bytes(name: &str, bytes: &[u8]) -> (Vec<Document>, Vec<DocError>) {
    if super::pdf::is_pdf(bytes) {
        if bytes.len() as u64 > super::pdf::MAX_PDF_BYTES {
            return (
                Vec::new(),
                vec![err(
                    name,
                    0,
                    None,
                    format!(
                        "the PDF is {:.1} MB; PDFs are at most {} MB",
                        bytes.len() as f64 / 1_000_000.0,
                        super::pdf::MAX_PDF_BYTES / (1024 * 1024)
                    ),
                )],
            );
        }
        return match super::pdf::load_pdf(name, bytes) {
            Ok(d) => (vec![d], Vec::new()),
            Err(e) => (Vec::new(), vec![e]),
        };
    }
    if name.to_ascii_lowercase().ends_with(".pdf") {
        return (
            Vec::new(),
            vec![err(name, 0, None, "not a PDF (no %PDF- header)")],
        );
    }
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return (
            Vec::new(),
            vec![err(
                name,
                0,
                None,
                format!(
                    "the file is {:.1} MB; knowledge files are at most {} MB",
                    bytes.len() as f64 / 1_000_000.0,
                    MAX_FILE_BYTES / (1024 * 1024)
                ),
            )],
        );
    }
    let text = match std::str::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => {
            let line = bytes[..e.valid_up_to()]
                .iter()
                .filter(|&&b| b == b'\n')
                .count()
                + 1;
            return (
                Vec::new(),
                vec![err(name, line, None, "the file is not UTF-8 text")],
            );
        }
    };
    if name.ends_with(".jsonl") {
        parse_jsonl(name, text)
    } else {
        match parse_markdown(name, text) {
            Ok(d) => (vec![d], Vec::new()),
            Err(e) => (Vec::new(), vec![e]),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::parse_time;

    /// Every form the `when` crate takes; a time without an offset is UTC,
    /// as a date alone is.
    #[test]
    fn document_times_take_every_typed_form() {
        for (typed, utc) in [
            ("2025-06-01", "2025-06-01T00:00:00Z"),
            ("2025-06-01T12:00", "2025-06-01T12:00:00Z"),
            ("2025-06-01 12:00:30", "2025-06-01T12:00:30Z"),
            ("2025-06-01T12:00:00+02:00", "2025-06-01T10:00:00Z"),
            ("2025-06-01T12:00+02:00", "2025-06-01T10:00:00Z"),
            ("2025-06-01T12:00:00Z", "2025-06-01T12:00:00Z"),
        ] {
            assert_eq!(parse_time(typed).as_deref(), Some(utc), "{typed}");
        }
        for bad in ["", "June 1", "2025-13-01", "2025-06-01T25:00", "12:00"] {
            assert_eq!(parse_time(bad), None, "{bad:?}");
        }
    }
}
