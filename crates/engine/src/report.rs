//! Labor drafts and the final report (the warranty "3C" story): Complaint,
//! Cause, Correction, Estimated labor, Required parts, Photos. English
//! first; a full translation follows `--- TRANSLATION ---` when the session
//! language is not English.

use serde::{Deserialize, Serialize};
use ts_rs::TS;

use super::catalog::{fmt_tenths, Finding, Procedure};

pub const TRANSLATION_SEPARATOR: &str = "--- TRANSLATION ---";

/// A photo attached to the session (the report cites only these).
#[derive(Debug, Clone, PartialEq)]
pub struct PhotoRef {
    pub file_name: String,
    pub caption: Option<String>,
    pub taken_at: Option<String>,
}

/// The finding's labor lines scaled to `total` tenths, summing exactly.
pub fn labor_lines(finding: &Finding, total: u32, lang: &str) -> Vec<(String, u32)> {
    let base = finding.labor_tenths();
    let mut lines: Vec<(String, u32)> = finding
        .labor
        .iter()
        .map(|l| (l.task.get(lang).to_string(), l.tenths))
        .collect();
    if total == base || base == 0 {
        return lines;
    }
    // Largest-remainder apportionment: exact sum, proportional lines.
    let mut assigned = 0;
    let mut rema: Vec<(usize, u64)> = Vec::new();
    for (i, l) in lines.iter_mut().enumerate() {
        let exact = u64::from(l.1) * u64::from(total);
        let share = (exact / u64::from(base)) as u32;
        rema.push((i, exact % u64::from(base)));
        l.1 = share;
        assigned += share;
    }
    rema.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    for (i, _) in rema.iter().take((total - assigned) as usize) {
        lines[*i].1 += 1;
    }
    lines.retain(|l| l.1 > 0);
    lines
}

/// The section titles and units of a report block in one language; the
/// parser reads them back and the PDF prints them.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, TS)]
pub struct Headings {
    complaint: &'static str,
    cause: &'static str,
    correction: &'static str,
    labor: &'static str,
    total: &'static str,
    hr: &'static str,
    parts: &'static str,
    photos: &'static str,
    no_photos: &'static str,
    repair_done: &'static str,
    unverified: &'static str,
    /// The cause of a complaint line the visit did not diagnose.
    not_diagnosed: &'static str,
    /// Its correction.
    no_repair: &'static str,
    /// The label of a line whose estimate the customer or the paying party
    /// declined.
    declined: &'static str,
}

pub fn headings(lang: &str) -> Headings {
    match lang {
        "es" => Headings {
            complaint: "Queja",
            cause: "Causa",
            correction: "Corrección",
            labor: "Mano de obra estimada",
            total: "Mano de obra total",
            hr: "h",
            parts: "Piezas requeridas",
            photos: "Fotos",
            no_photos: "Ninguna adjunta.",
            repair_done: "Reparación realizada y funcionamiento verificado.",
            unverified: "Revisiones no verificadas",
            not_diagnosed: "No se diagnosticó en esta visita.",
            no_repair: "No se realizó ninguna reparación.",
            declined: "Presupuesto rechazado",
        },
        "ru" => Headings {
            complaint: "Жалоба",
            cause: "Причина",
            correction: "Исправление",
            labor: "Оценка трудозатрат",
            total: "Итого трудозатрат",
            hr: "ч",
            parts: "Необходимые запчасти",
            photos: "Фото",
            no_photos: "Не приложены.",
            repair_done: "Ремонт выполнен, работа проверена.",
            unverified: "Не подтверждённые проверки",
            not_diagnosed: "Не диагностировалось в этот визит.",
            no_repair: "Ремонт не выполнялся.",
            declined: "Смета отклонена",
        },
        _ => Headings {
            complaint: "Complaint",
            cause: "Cause",
            correction: "Correction",
            labor: "Estimated labor",
            total: "Total labor",
            hr: "hr",
            parts: "Required parts",
            photos: "Photos",
            no_photos: "None attached.",
            repair_done: "Repair performed and operation verified.",
            unverified: "Checks not verified",
            not_diagnosed: "Not diagnosed this visit.",
            no_repair: "No repair performed.",
            declined: "Estimate declined",
        },
    }
}

/// The cause a report gives a complaint line the visit did not diagnose.
pub fn not_diagnosed(lang: &str) -> &'static str {
    headings(lang).not_diagnosed
}

/// The correction a report gives such a line.
pub fn no_repair(lang: &str) -> &'static str {
    headings(lang).no_repair
}

/// What a technician rewrote in the report before finalizing it: the 3C
/// paragraphs of the English block and of the translation. Kept in the
/// session state so every later revision keeps their words.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(default)]
pub struct ReportEdits {
    pub en: SectionEdits,
    pub translation: SectionEdits,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(default)]
pub struct SectionEdits {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub complaint: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cause: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub correction: Option<String>,
}

impl ReportEdits {
    pub fn is_empty(&self) -> bool {
        self.en.is_empty() && self.translation.is_empty()
    }
}

impl SectionEdits {
    pub fn is_empty(&self) -> bool {
        self.complaint.is_none() && self.cause.is_none() && self.correction.is_none()
    }

    /// Later edits win field by field.
    pub fn merge(&mut self, newer: SectionEdits) {
        if newer.complaint.is_some() {
            self.complaint = newer.complaint;
        }
        if newer.cause.is_some() {
            self.cause = newer.cause;
        }
        if newer.correction.is_some() {
            self.correction = newer.correction;
        }
    }
}

/// An edited paragraph as the report stores it: one paragraph (the report's
/// layout is line-based, so a line break could read as a new section), at
/// most 4,000 characters. `Err` says what is wrong with it.
pub fn normalize_edit(text: &str) -> Result<String, String> {
    let one: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if one.is_empty() {
        return Err("must not be empty".into());
    }
    let chars = one.chars().count();
    if chars > 4000 {
        return Err(format!("is {chars} characters; at most 4000"));
    }
    Ok(one)
}

/// One complaint line of the visit: its own Complaint / Cause / Correction,
/// labor and parts (warranty claims are filed per complaint line).
pub struct ComplaintInput<'a> {
    pub procedure: &'a Procedure,
    pub finding: Finding,
    pub complaint: String,
    pub complaint_translated: String,
    pub labor_tenths: u32,
    pub repair_done: bool,
    /// Ids of the steps that could not be verified (shown by their labels).
    pub unverified: Vec<String>,
    pub edits: &'a ReportEdits,
}

/// What a report is written from: the visit's complaint lines in order,
/// the lines it did not diagnose (their complaint in English and in the
/// session language), and the photos of the session.
pub struct ReportInput<'a> {
    pub lines: Vec<ComplaintInput<'a>>,
    pub undiagnosed: Vec<(String, String)>,
    pub photos: &'a [PhotoRef],
}

fn line_block(r: &ComplaintInput<'_>, lang: &str, complaint: &str, edits: &SectionEdits) -> String {
    let h = headings(lang);
    let mut out = String::new();
    let complaint = edits.complaint.as_deref().unwrap_or(complaint);
    out.push_str(&format!("{}:\n{}\n\n", h.complaint, complaint));
    let cause = edits
        .cause
        .as_deref()
        .unwrap_or_else(|| r.finding.cause.get(lang));
    out.push_str(&format!("{}:\n{}\n\n", h.cause, cause));
    // An edited correction is the technician's whole text: the "repair
    // performed" sentence they saw in the preview is already in it.
    let correction = match &edits.correction {
        Some(text) => text.clone(),
        None => {
            let mut text = r.finding.correction.get(lang).to_string();
            if r.repair_done {
                text.push(' ');
                text.push_str(h.repair_done);
            }
            text
        }
    };
    out.push_str(&format!("{}:\n{}\n\n", h.correction, correction));
    out.push_str(&format!("{}:\n", h.labor));
    for (task, tenths) in labor_lines(&r.finding, r.labor_tenths, lang) {
        out.push_str(&format!("- {task}: {} {}\n", fmt_tenths(tenths), h.hr));
    }
    out.push_str(&format!(
        "{}: {} {}\n\n",
        h.total,
        fmt_tenths(r.labor_tenths),
        h.hr
    ));
    out.push_str(&format!("{}:\n", h.parts));
    for p in r.finding.parts(lang) {
        out.push_str(&format!("- {p}\n"));
    }
    out.push('\n');
    if !r.unverified.is_empty() {
        out.push_str(&format!(
            "{}: {}\n\n",
            h.unverified,
            r.unverified
                .iter()
                .map(|id| r
                    .procedure
                    .step(id)
                    .map_or(id.as_str(), |s| s.label.get(lang)))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
    out
}

/// A complaint line the visit did not diagnose: its complaint, a cause and
/// correction saying so, and no labor (a claim line with nothing to pay).
fn undiagnosed_block(lang: &str, complaint: &str) -> String {
    let h = headings(lang);
    format!(
        "{}:\n{complaint}\n\n{}:\n{}\n\n{}:\n{}\n\n{}:\n{}: {} {}\n\n{}:\n\n",
        h.complaint,
        h.cause,
        h.not_diagnosed,
        h.correction,
        h.no_repair,
        h.labor,
        h.total,
        fmt_tenths(0),
        h.hr,
        h.parts
    )
}

fn photos_block(photos: &[PhotoRef], lang: &str) -> String {
    let h = headings(lang);
    let mut out = format!("{}:\n", h.photos);
    if photos.is_empty() {
        out.push_str(h.no_photos);
        out.push('\n');
    }
    for p in photos {
        let mut line = format!("- {}", p.file_name);
        if let Some(c) = &p.caption {
            line.push_str(&format!(": {c}"));
        }
        if let Some(t) = &p.taken_at {
            line.push_str(&format!(" ({t})"));
        }
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// The report text: every complaint line, then the photos; English first,
/// the translation after the separator.
pub fn render(r: &ReportInput<'_>, language: &str) -> String {
    let mut out = String::new();
    for line in &r.lines {
        out.push_str(&line_block(line, "en", &line.complaint, &line.edits.en));
    }
    for (complaint, _) in &r.undiagnosed {
        out.push_str(&undiagnosed_block("en", complaint));
    }
    out.push_str(&photos_block(r.photos, "en"));
    if language != "en" {
        out.push('\n');
        out.push_str(TRANSLATION_SEPARATOR);
        out.push_str("\n\n");
        for line in &r.lines {
            out.push_str(&line_block(
                line,
                language,
                &line.complaint_translated,
                &line.edits.translation,
            ));
        }
        for (_, complaint) in &r.undiagnosed {
            out.push_str(&undiagnosed_block(language, complaint));
        }
        out.push_str(&photos_block(r.photos, language));
    }
    out.trim_end().to_string() + "\n"
}

/// A declined estimate as the report states it: who declined it, how
/// (`in_person`, `phone`, `signature`) and when (as a person reads it).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Declined {
    pub by: Option<String>,
    pub method: Option<String>,
    pub at: Option<String>,
}

impl Declined {
    /// "Jane Doe, by phone, Nov 27, 2026 3:04 PM" in `lang`; never empty.
    fn detail(&self, lang: &str) -> String {
        authorization_detail(
            self.by.as_deref(),
            self.method.as_deref(),
            self.at.as_deref(),
            lang,
        )
    }
}

/// Who answered an estimate, how (`in_person`, `phone`, `signature`, said
/// in `lang`) and when, as one line: "Jane Doe, by phone, Nov 27, 2026
/// 3:04 PM"; "—" when none of it is known. Declines and approvals alike.
pub fn authorization_detail(
    by: Option<&str>,
    method: Option<&str>,
    at: Option<&str>,
    lang: &str,
) -> String {
    let method = method.map(|m| match (lang, m) {
        ("es", "in_person") => "en persona",
        ("es", "phone") => "por teléfono",
        ("es", "signature") => "firma en pantalla",
        ("ru", "in_person") => "лично",
        ("ru", "phone") => "по телефону",
        ("ru", "signature") => "подпись на экране",
        (_, "in_person") => "in person",
        (_, "phone") => "by phone",
        (_, "signature") => "signature on screen",
        (_, other) => other,
    });
    let parts: Vec<&str> = [by, method, at]
        .into_iter()
        .flatten()
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect();
    if parts.is_empty() {
        "—".to_owned()
    } else {
        parts.join(", ")
    }
}

/// A report body with the repair order's declined estimates stated, in
/// every language block: each complaint line at an index of `lines` (report
/// order) gets a "Estimate declined: who, how, when" line after its
/// Complaint, and each of `unlisted` (a declined repair order line the
/// diagnosis never reached: its words and the decline) becomes a block of
/// its own, not diagnosed, before the photos. [`parse`] reads the mark back
/// as `ComplaintSection::declined`.
pub fn mark_declined(
    body: &str,
    language: &str,
    lines: &[(usize, Declined)],
    unlisted: &[(String, Declined)],
) -> String {
    if lines.is_empty() && unlisted.is_empty() {
        return body.to_owned();
    }
    let (english, translated) = match body.split_once(TRANSLATION_SEPARATOR) {
        Some((en, tr)) => (en, Some(tr)),
        None => (body, None),
    };
    let mut out = mark_block(english, "en", lines, unlisted);
    if let Some(tr) = translated {
        out.push_str(TRANSLATION_SEPARATOR);
        out.push_str(&mark_block(tr, language, lines, unlisted));
    }
    out.trim_end().to_string() + "\n"
}

fn mark_block(
    text: &str,
    lang: &str,
    lines: &[(usize, Declined)],
    unlisted: &[(String, Declined)],
) -> String {
    let h = headings(lang);
    let (complaint, cause, photos) = (
        format!("{}:", h.complaint),
        format!("{}:", h.cause),
        format!("{}:", h.photos),
    );
    let mut out = String::with_capacity(text.len() + 200);
    let mut index: Option<usize> = None;
    let mut placed_unlisted = unlisted.is_empty();
    for line in text.split_inclusive('\n') {
        let bare = line.trim();
        if bare == complaint {
            index = Some(index.map_or(0, |i| i + 1));
        } else if bare == cause {
            if let Some((_, d)) = lines.iter().find(|(i, _)| Some(*i) == index) {
                out.push_str(&format!("{}: {}\n\n", h.declined, d.detail(lang)));
            }
        } else if bare == photos && !placed_unlisted {
            for (words, d) in unlisted {
                let block = undiagnosed_block(lang, words);
                let mark = format!("{}: {}\n\n", h.declined, d.detail(lang));
                out.push_str(&block.replacen(
                    &format!("\n\n{cause}"),
                    &format!("\n\n{mark}{cause}"),
                    1,
                ));
            }
            placed_unlisted = true;
        }
        out.push_str(line);
    }
    out
}

/// A stored report body read back into its parts, for layouts that need
/// them (the PDF). The body stays the record: this is a view of it.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct ReportDoc {
    /// The English block, then the translation when there is one.
    pub blocks: Vec<ReportBlock>,
}

/// One language's text of the report.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct ReportBlock {
    pub language: String,
    pub labels: Headings,
    /// One per complaint line of the visit, in order.
    pub complaints: Vec<ComplaintSection>,
    pub photos: Vec<PhotoLine>,
    /// Lines the parser did not place (a body from an older format); a
    /// layout shows them rather than dropping them.
    pub other: Vec<String>,
}

/// A complaint line's Complaint / Cause / Correction, labor and parts.
#[derive(Debug, Clone, Default, PartialEq, Serialize, TS)]
pub struct ComplaintSection {
    pub complaint: String,
    pub cause: String,
    pub correction: String,
    pub labor: Vec<LaborLine>,
    /// "1.3" (in the block's `labels.hr`).
    pub labor_total: Option<String>,
    pub parts: Vec<String>,
    pub unverified: Option<String>,
    /// Who declined the line's estimate, how and when, when it was declined.
    pub declined: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct LaborLine {
    pub task: String,
    pub hours: String,
}

#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct PhotoLine {
    pub file_name: String,
    pub caption: Option<String>,
    pub taken_at: Option<String>,
}

#[derive(Clone, Copy, PartialEq)]
enum Section {
    None,
    Complaint,
    Cause,
    Correction,
    Labor,
    Parts,
    Photos,
}

/// Reads a body written by [`render`] (the English block, then the
/// translation in `language` after the separator). Never fails: what it
/// cannot place is kept in `other`.
pub fn parse(body: &str, language: &str) -> ReportDoc {
    let (english, translated) = match body.split_once(TRANSLATION_SEPARATOR) {
        Some((en, tr)) => (en, Some(tr)),
        None => (body, None),
    };
    let mut blocks = vec![parse_block(english, "en")];
    if let Some(tr) = translated {
        blocks.push(parse_block(tr, language));
    }
    ReportDoc { blocks }
}

fn parse_block(text: &str, lang: &str) -> ReportBlock {
    let h = headings(lang);
    let mut b = ReportBlock {
        language: lang.to_string(),
        labels: h,
        complaints: Vec::new(),
        photos: Vec::new(),
        other: Vec::new(),
    };
    let mut c = ComplaintSection::default();
    let mut section = Section::None;
    let titles = [
        (h.complaint, Section::Complaint),
        (h.cause, Section::Cause),
        (h.correction, Section::Correction),
        (h.labor, Section::Labor),
        (h.parts, Section::Parts),
        (h.photos, Section::Photos),
    ];
    let hr_suffix = format!(" {}", h.hr);
    for line in text.lines() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        if let Some((_, s)) = line
            .strip_suffix(':')
            .and_then(|t| titles.iter().find(|(title, _)| *title == t))
        {
            // A second "Complaint:" opens the next complaint line.
            if *s == Section::Complaint && c != ComplaintSection::default() {
                b.complaints.push(std::mem::take(&mut c));
            }
            section = *s;
            continue;
        }
        if let Some(rest) = line.strip_prefix(&format!("{}: ", h.total)) {
            c.labor_total = Some(rest.strip_suffix(&hr_suffix).unwrap_or(rest).to_string());
            continue;
        }
        if let Some(rest) = line.strip_prefix(&format!("{}: ", h.declined)) {
            c.declined = Some(rest.to_string());
            continue;
        }
        if let Some(rest) = line.strip_prefix(&format!("{}: ", h.unverified)) {
            c.unverified = Some(rest.to_string());
            section = Section::None;
            continue;
        }
        let item = line.strip_prefix("- ");
        match (section, item) {
            (Section::Complaint, None) => push_paragraph(&mut c.complaint, line),
            (Section::Cause, None) => push_paragraph(&mut c.cause, line),
            (Section::Correction, None) => push_paragraph(&mut c.correction, line),
            (Section::Labor, Some(item)) => {
                let (task, hours) = match item.rsplit_once(": ") {
                    Some((task, hours)) => (task, hours.strip_suffix(&hr_suffix).unwrap_or(hours)),
                    None => (item, ""),
                };
                c.labor.push(LaborLine {
                    task: task.to_string(),
                    hours: hours.to_string(),
                });
            }
            (Section::Parts, Some(item)) => c.parts.push(item.to_string()),
            (Section::Photos, Some(item)) => b.photos.push(parse_photo(item)),
            (Section::Photos, None) if line == h.no_photos => {}
            _ => b.other.push(line.to_string()),
        }
    }
    if c != ComplaintSection::default() || b.complaints.is_empty() {
        b.complaints.push(c);
    }
    b
}

fn push_paragraph(into: &mut String, line: &str) {
    if !into.is_empty() {
        into.push(' ');
    }
    into.push_str(line);
}

/// "name: caption (taken)", where caption and time are optional.
fn parse_photo(item: &str) -> PhotoLine {
    let (rest, taken_at) = match item.strip_suffix(')').and_then(|r| r.rsplit_once(" (")) {
        Some((rest, t)) if t.starts_with(|c: char| c.is_ascii_digit()) => {
            (rest, Some(t.to_string()))
        }
        _ => (item, None),
    };
    let (file_name, caption) = match rest.split_once(": ") {
        Some((name, caption)) => (name, Some(caption.to_string())),
        None => (rest, None),
    };
    PhotoLine {
        file_name: file_name.to_string(),
        caption,
        taken_at,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::Catalog;

    #[test]
    fn scaled_labor_lines_sum_exactly() {
        let c = Catalog::embedded().unwrap();
        let f = c
            .get("dc_12v")
            .unwrap()
            .finding("feed_wiring_open")
            .unwrap();
        assert_eq!(f.labor_tenths(), 13);
        for total in [1, 5, 13, 25, 37, 100] {
            let lines = labor_lines(f, total, "en");
            assert_eq!(
                lines.iter().map(|l| l.1).sum::<u32>(),
                total,
                "total {total}"
            );
        }
        let lines = labor_lines(f, 26, "en");
        assert_eq!(
            lines.iter().map(|l| l.1).collect::<Vec<_>>(),
            vec![6, 14, 6]
        );
    }

    /// Every finding of the catalog, rendered in each language with photos
    /// and with edits, reads back into the same parts: the PDF shows what
    /// the stored body says, nothing more and nothing less.
    #[test]
    fn parse_reads_back_every_rendered_report() {
        let c = Catalog::embedded().unwrap();
        let photos = vec![
            PhotoRef {
                file_name: "fuse.jpg".into(),
                caption: Some("Blown 15 A fuse (slot 4)".into()),
                taken_at: Some("2026-11-20T09:12:00Z".into()),
            },
            PhotoRef {
                file_name: "panel.png".into(),
                caption: None,
                taken_at: None,
            },
        ];
        let edited = ReportEdits {
            en: SectionEdits {
                cause: Some("Corroded ground: at the frame.".into()),
                ..Default::default()
            },
            translation: SectionEdits {
                correction: Some("Limpié la masa.".into()),
                ..Default::default()
            },
        };
        let mut checked = 0;
        for p in &c.procedures {
            for f in &p.findings {
                for (lang, edits) in [
                    ("en", ReportEdits::default()),
                    ("es", edited.clone()),
                    ("ru", ReportEdits::default()),
                ] {
                    let input = ReportInput {
                        lines: vec![ComplaintInput {
                            procedure: p,
                            finding: f.clone(),
                            complaint: "Customer states the unit does not work.".into(),
                            complaint_translated: "Queja traducida.".into(),
                            labor_tenths: f.labor_tenths() + 2,
                            repair_done: true,
                            unverified: vec!["check a".into()],
                            edits: &edits,
                        }],
                        undiagnosed: vec![],
                        photos: &photos,
                    };
                    let body = render(&input, lang);
                    let doc = parse(&body, lang);
                    assert_eq!(doc.blocks.len(), if lang == "en" { 1 } else { 2 });
                    for (i, block) in doc.blocks.iter().enumerate() {
                        let bl = if i == 0 { "en" } else { lang };
                        assert_eq!(block.complaints.len(), 1);
                        let b = &block.complaints[0];
                        let e = if i == 0 {
                            &edits.en
                        } else {
                            &edits.translation
                        };
                        let want_cause = e
                            .cause
                            .clone()
                            .unwrap_or_else(|| f.cause.get(bl).to_string());
                        assert_eq!(b.cause, want_cause, "{}/{} {bl}", p.system, f.id);
                        assert!(b.correction.starts_with(
                            e.correction
                                .as_deref()
                                .unwrap_or_else(|| f.correction.get(bl))
                        ));
                        let lines = labor_lines(f, f.labor_tenths() + 2, bl);
                        assert_eq!(b.labor.len(), lines.len(), "{}/{}", p.system, f.id);
                        for (got, (task, tenths)) in b.labor.iter().zip(&lines) {
                            assert_eq!(got.task, *task);
                            assert_eq!(got.hours, fmt_tenths(*tenths));
                        }
                        assert_eq!(
                            b.labor_total.as_deref(),
                            Some(fmt_tenths(f.labor_tenths() + 2).as_str())
                        );
                        assert_eq!(b.parts, f.parts(bl));
                        assert_eq!(b.unverified.as_deref(), Some("check a"));
                        let b = block;
                        assert_eq!(b.photos.len(), 2);
                        assert_eq!(b.photos[0].file_name, "fuse.jpg");
                        assert_eq!(
                            b.photos[0].caption.as_deref(),
                            Some("Blown 15 A fuse (slot 4)")
                        );
                        assert_eq!(
                            b.photos[0].taken_at.as_deref(),
                            Some("2026-11-20T09:12:00Z")
                        );
                        assert_eq!(b.photos[1].caption, None);
                        assert!(b.other.is_empty(), "{:?}", b.other);
                    }
                    checked += 1;
                }
            }
        }
        assert!(checked > 50, "only {checked} reports");
    }

    /// A visit with two complaints: each line keeps its own 3C, labor and
    /// parts in both languages, and the photos are listed once per language.
    #[test]
    fn two_complaint_lines_read_back_in_order() {
        let c = Catalog::embedded().unwrap();
        let fan = c.get("dc_12v").unwrap();
        let wh = c.get("water_heater").unwrap();
        let (f1, f2) = (&fan.findings[0], &wh.findings[0]);
        let edits = ReportEdits::default();
        let line = |p, f: &Finding, text: &str| ComplaintInput {
            procedure: p,
            finding: f.clone(),
            complaint: text.into(),
            complaint_translated: format!("{text} (es)"),
            labor_tenths: f.labor_tenths(),
            repair_done: false,
            unverified: vec![],
            edits: &edits,
        };
        let input = ReportInput {
            lines: vec![
                line(fan, f1, "Roof fan does not run."),
                line(wh, f2, "Water heater does not light."),
            ],
            undiagnosed: vec![],
            photos: &[],
        };
        let doc = parse(&render(&input, "es"), "es");
        assert_eq!(doc.blocks.len(), 2);
        for (block, lang) in doc.blocks.iter().zip(["en", "es"]) {
            assert_eq!(block.complaints.len(), 2, "{lang}");
            let [a, b] = &block.complaints[..] else {
                unreachable!()
            };
            assert!(a.complaint.starts_with("Roof fan does not run."));
            assert!(b.complaint.starts_with("Water heater does not light."));
            assert_eq!(a.cause, f1.cause.get(lang));
            assert_eq!(b.cause, f2.cause.get(lang));
            assert_eq!(a.parts, f1.parts(lang));
            assert_eq!(b.parts, f2.parts(lang));
            assert_eq!(
                b.labor_total.as_deref(),
                Some(fmt_tenths(f2.labor_tenths()).as_str())
            );
            assert!(block.other.is_empty(), "{:?}", block.other);
        }
    }

    /// A line the visit did not diagnose follows the diagnosed ones with its
    /// own complaint, a cause and correction saying so, no parts and zero
    /// labor, in both languages; the diagnosed line is unchanged.
    #[test]
    fn a_line_not_diagnosed_reads_back_after_the_diagnosed_ones() {
        let c = Catalog::embedded().unwrap();
        let fan = c.get("dc_12v").unwrap();
        let f1 = &fan.findings[0];
        let edits = ReportEdits::default();
        let input = ReportInput {
            lines: vec![ComplaintInput {
                procedure: fan,
                finding: f1.clone(),
                complaint: "Roof fan does not run.".into(),
                complaint_translated: "El ventilador no funciona.".into(),
                labor_tenths: f1.labor_tenths(),
                repair_done: true,
                unverified: vec![],
                edits: &edits,
            }],
            undiagnosed: vec![(
                "Water heater does not light.".into(),
                "El calentador de agua no prende.".into(),
            )],
            photos: &[],
        };
        let doc = parse(&render(&input, "es"), "es");
        for (block, lang) in doc.blocks.iter().zip(["en", "es"]) {
            let h = headings(lang);
            let [a, b] = &block.complaints[..] else {
                panic!("{lang}: {:?}", block.complaints)
            };
            assert_eq!(a.cause, f1.cause.get(lang));
            assert!(b.complaint.starts_with(if lang == "en" {
                "Water heater does not light."
            } else {
                "El calentador de agua no prende."
            }));
            assert_eq!(b.cause, h.not_diagnosed);
            assert_eq!(b.correction, h.no_repair);
            assert!(b.parts.is_empty() && b.labor.is_empty());
            assert_eq!(b.labor_total.as_deref(), Some("0.0"));
            assert!(block.other.is_empty(), "{:?}", block.other);
        }
    }

    #[test]
    fn edits_are_one_bounded_paragraph() {
        assert_eq!(
            normalize_edit("  Worn\n\nbrushes  ").unwrap(),
            "Worn brushes"
        );
        assert_eq!(normalize_edit(" \n ").unwrap_err(), "must not be empty");
        assert!(normalize_edit(&"x".repeat(4001))
            .unwrap_err()
            .contains("4001"));
    }

    #[test]
    fn a_declined_line_is_marked_in_both_languages_and_reads_back() {
        let c = Catalog::embedded().unwrap();
        let p = c.get("dc_12v").unwrap();
        let f = p.findings[0].clone();
        let edits = ReportEdits::default();
        let input = ReportInput {
            lines: vec![ComplaintInput {
                procedure: p,
                finding: f,
                complaint: "Fan dead".into(),
                complaint_translated: "Ventilador muerto".into(),
                labor_tenths: 5,
                repair_done: false,
                unverified: Vec::new(),
                edits: &edits,
            }],
            undiagnosed: Vec::new(),
            photos: &[],
        };
        let body = render(&input, "es");
        let d = Declined {
            by: Some("Jane Doe".into()),
            method: Some("phone".into()),
            at: Some("Nov 27, 2026 3:04 PM".into()),
        };
        let marked = mark_declined(
            &body,
            "es",
            &[(0, d.clone())],
            &[("Awning will not retract".into(), d.clone())],
        );
        assert!(marked
            .contains("Estimate declined: Jane Doe, by phone, Nov 27, 2026 3:04 PM\n\nCause:"));
        assert!(marked.contains("Presupuesto rechazado: Jane Doe, por teléfono,"));
        let doc = parse(&marked, "es");
        for b in &doc.blocks {
            assert_eq!(b.complaints.len(), 2, "{marked}");
            assert!(b.complaints[0].declined.is_some());
            assert_eq!(b.complaints[1].complaint, "Awning will not retract");
            assert!(b.complaints[1].declined.is_some());
            assert_eq!(b.complaints[1].cause, headings(&b.language).not_diagnosed);
            assert!(b.other.is_empty(), "{:?}", b.other);
        }
        // Nothing declined: the body as it was.
        assert_eq!(mark_declined(&body, "es", &[], &[]), body);
    }
}
