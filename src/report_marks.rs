//! An approved estimate as a report states it: "Estimate approved: who, how,
//! when" after the line's Complaint, in every language block, beside the
//! "Estimate declined" line the engine writes and reads itself
//! (`engine::report::mark_declined`). The engine's parser does not know the
//! approval line and reads it as the end of the Complaint paragraph, so the
//! exports take it back out of there with [`parse`].

use crate::engine::report::{self, ComplaintSection, ReportDoc, TRANSLATION_SEPARATOR};

/// Who approved a line's estimate, how (`in_person`, `phone`, `signature`)
/// and when (as a person reads it).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Approved {
    pub by: Option<String>,
    pub method: Option<String>,
    pub at: Option<String>,
}

/// The approval line's label in `lang`.
pub fn approved_label(lang: &str) -> &'static str {
    match lang {
        "es" => "Presupuesto aprobado",
        "ru" => "Смета одобрена",
        _ => "Estimate approved",
    }
}

impl Approved {
    /// "Jane Doe, by phone, 2026-11-27 10:04 (UTC-05:00)" in `lang`; never empty.
    fn detail(&self, lang: &str) -> String {
        crate::engine::report::authorization_detail(
            self.by.as_deref(),
            self.method.as_deref(),
            self.at.as_deref(),
            lang,
        )
    }
}

/// A block's section title, as the engine writes it ("Cause", "Causa").
fn heading(lang: &str, which: &str) -> String {
    serde_json::to_value(report::headings(lang))
        .ok()
        .and_then(|v| v[which].as_str().map(str::to_owned))
        .unwrap_or_default()
}

/// The body with "Estimate approved: …" before the Cause of each complaint
/// line at an index of `lines` (report order), in every language block.
pub fn mark_approved(body: &str, language: &str, lines: &[(usize, Approved)]) -> String {
    if lines.is_empty() {
        return body.to_owned();
    }
    let (english, translated) = match body.split_once(TRANSLATION_SEPARATOR) {
        Some((en, tr)) => (en, Some(tr)),
        None => (body, None),
    };
    let mut out = mark_block(english, "en", lines);
    if let Some(tr) = translated {
        out.push_str(TRANSLATION_SEPARATOR);
        out.push_str(&mark_block(tr, language, lines));
    }
    out
}

fn mark_block(text: &str, lang: &str, lines: &[(usize, Approved)]) -> String {
    let (complaint, cause) = (
        format!("{}:", heading(lang, "complaint")),
        format!("{}:", heading(lang, "cause")),
    );
    let label = approved_label(lang);
    let mut out = String::with_capacity(text.len() + 100 * lines.len());
    let mut index: Option<usize> = None;
    for line in text.split_inclusive('\n') {
        let bare = line.trim();
        if bare == complaint {
            index = Some(index.map_or(0, |i| i + 1));
        } else if bare == cause {
            if let Some((_, a)) = lines.iter().find(|(i, _)| Some(*i) == index) {
                out.push_str(&format!("{label}: {}\n\n", a.detail(lang)));
            }
        }
        out.push_str(line);
    }
    out
}

/// Takes the approval out of a Complaint paragraph the engine's parser read
/// it into, and returns it ("Jane Doe, by phone, …").
fn take_approved(c: &mut ComplaintSection, lang: &str) -> Option<String> {
    let mark = format!("{}: ", approved_label(lang));
    if let Some(rest) = c.complaint.strip_prefix(&mark) {
        let rest = rest.to_owned();
        c.complaint.clear();
        return Some(rest);
    }
    let (words, rest) = c.complaint.rsplit_once(&format!(" {mark}"))?;
    let (words, rest) = (words.to_owned(), rest.to_owned());
    c.complaint = words;
    Some(rest)
}

/// A stored body read into its parts (`engine::report::parse`), with each
/// complaint line's approval taken out of its Complaint: per block, per
/// complaint line, who approved it, how and when.
pub fn parse(body: &str, language: &str) -> (ReportDoc, Vec<Vec<Option<String>>>) {
    let mut doc = report::parse(body, language);
    let approved = doc
        .blocks
        .iter_mut()
        .map(|b| {
            let lang = b.language.clone();
            b.complaints
                .iter_mut()
                .map(|c| take_approved(c, &lang))
                .collect()
        })
        .collect();
    (doc, approved)
}

/// The blocks as JSON, each complaint line with its `approved` (or null)
/// beside the engine's `declined`, and each block's `approved_label`.
pub fn blocks_json(doc: &ReportDoc, approved: &[Vec<Option<String>>]) -> Vec<serde_json::Value> {
    doc.blocks
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let mut v = serde_json::to_value(b).unwrap_or(serde_json::Value::Null);
            if let Some(complaints) = v["complaints"].as_array_mut() {
                for (j, c) in complaints.iter_mut().enumerate() {
                    let a = approved.get(i).and_then(|l| l.get(j)).cloned().flatten();
                    c["approved"] = serde_json::json!(a);
                }
            }
            v["approved_label"] = serde_json::json!(approved_label(&b.language));
            v
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const BODY: &str = "Complaint:\nCustomer states the fan does not run.\n\nCause:\nBlown fuse.\n\nCorrection:\nReplaced the fuse.\n\nComplaint:\nAwning will not retract.\n\nCause:\nWorn arm.\n\nCorrection:\nAdjusted.\n\nPhotos:\nNone attached.\n\n--- TRANSLATION ---\n\nQueja:\nEl ventilador no funciona.\n\nCausa:\nFusible quemado.\n\nCorrección:\nSe cambió el fusible.\n\nQueja:\nEl toldo no se recoge.\n\nCausa:\nBrazo gastado.\n\nCorrección:\nAjustado.\n\nFotos:\nNinguna adjunta.\n";

    #[test]
    fn an_approved_line_is_marked_in_both_languages_and_reads_back() {
        assert!(BODY.contains(TRANSLATION_SEPARATOR), "the body's divider");
        let a = Approved {
            by: Some("Jane Doe".into()),
            method: Some("phone".into()),
            at: Some("2026-11-27 10:04 (UTC-05:00)".into()),
        };
        let marked = mark_approved(BODY, "es", &[(1, a)]);
        assert!(marked.contains(
            "Awning will not retract.\n\nEstimate approved: Jane Doe, by phone, 2026-11-27 10:04 (UTC-05:00)\n\nCause:\nWorn arm."
        ), "{marked}");
        assert!(marked.contains(
            "El toldo no se recoge.\n\nPresupuesto aprobado: Jane Doe, por teléfono, 2026-11-27 10:04 (UTC-05:00)\n\nCausa:"
        ), "{marked}");
        assert_eq!(
            marked.matches("aprobado").count(),
            1,
            "line 1 is not marked"
        );
        let (doc, approved) = parse(&marked, "es");
        for (b, a) in doc.blocks.iter().zip(&approved) {
            assert_eq!(b.complaints.len(), 2);
            assert_eq!(a[0], None);
            assert!(a[1].as_deref().unwrap().starts_with("Jane Doe, "), "{a:?}");
            assert!(
                !b.complaints[1].complaint.contains("Jane"),
                "{:?}",
                b.complaints[1]
            );
            assert!(b.other.is_empty(), "{:?}", b.other);
        }
        assert_eq!(
            doc.blocks[0].complaints[1].complaint,
            "Awning will not retract."
        );
        assert_eq!(
            doc.blocks[1].complaints[1].complaint,
            "El toldo no se recoge."
        );
        let json = blocks_json(&doc, &approved);
        assert_eq!(json[1]["approved_label"], "Presupuesto aprobado");
        assert_eq!(
            json[0]["complaints"][0]["approved"],
            serde_json::Value::Null
        );
        assert_eq!(
            json[0]["complaints"][1]["approved"],
            "Jane Doe, by phone, 2026-11-27 10:04 (UTC-05:00)"
        );
        // Nothing approved: the body as it was, and nothing read back.
        assert_eq!(mark_approved(BODY, "es", &[]), BODY);
        assert!(parse(BODY, "es").1.iter().flatten().all(Option::is_none));
    }
}
