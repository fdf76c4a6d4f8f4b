//! Labor drafts and the final report (the warranty "3C" story): Complaint,
//! Cause, Correction, Estimated labor, Required parts, Photos. English
//! first; a full translation follows `--- TRANSLATION ---` when the session
//! language is not English.

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

struct Headings {
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
}

fn headings(lang: &str) -> Headings {
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
        },
    }
}

pub struct ReportInput<'a> {
    pub procedure: &'a Procedure,
    pub finding: &'a Finding,
    pub complaint: &'a str,
    pub complaint_translated: &'a str,
    pub labor_tenths: u32,
    pub repair_done: bool,
    pub unverified: Vec<String>,
    pub photos: &'a [PhotoRef],
}

fn block(r: &ReportInput<'_>, lang: &str, complaint: &str) -> String {
    let h = headings(lang);
    let mut out = String::new();
    out.push_str(&format!("{}:\n{}\n\n", h.complaint, complaint));
    out.push_str(&format!("{}:\n{}\n\n", h.cause, r.finding.cause.get(lang)));
    let mut correction = r.finding.correction.get(lang).to_string();
    if r.repair_done {
        correction.push(' ');
        correction.push_str(h.repair_done);
    }
    out.push_str(&format!("{}:\n{}\n\n", h.correction, correction));
    out.push_str(&format!("{}:\n", h.labor));
    for (task, tenths) in labor_lines(r.finding, r.labor_tenths, lang) {
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
            r.unverified.join(", ")
        ));
    }
    out.push_str(&format!("{}:\n", h.photos));
    if r.photos.is_empty() {
        out.push_str(h.no_photos);
        out.push('\n');
    }
    for p in r.photos {
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

/// The report text. English first; the translation after the separator.
pub fn render(r: &ReportInput<'_>, language: &str) -> String {
    let mut out = block(r, "en", r.complaint);
    if language != "en" {
        out.push('\n');
        out.push_str(TRANSLATION_SEPARATOR);
        out.push_str("\n\n");
        out.push_str(&block(r, language, r.complaint_translated));
    }
    out.trim_end().to_string() + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::catalog::Catalog;

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
}
