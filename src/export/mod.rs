//! Documents a manager files from a stored report revision: Markdown, JSON
//! and PDF (`pdf`), and the batch export of a date range (`batch`). The body
//! is never re-derived from the session's state: a revision is exported
//! exactly as it was finalized, with the unit and customer the session
//! records as its header.

pub mod pdf;

use crate::engine::report::TRANSLATION_SEPARATOR;
use crate::store::Session;

/// One stored report revision, as the store hands it out.
#[derive(Debug, Clone)]
pub struct StoredReport {
    pub revision: u32,
    pub language: String,
    pub body: String,
    pub created_at: crate::store::Timestamp,
}

/// The file name a revision is exported under: unit, the session id's last
/// twelve characters and the revision, all safe on Windows, macOS and Linux.
/// The id's tail is its random part: the head of a UUID v7 is a timestamp,
/// equal for sessions opened within the same minute.
pub fn report_file_name(session: &Session, revision: u32, extension: &str) -> String {
    let unit = session
        .unit
        .plate
        .as_deref()
        .or(session.unit.vin.as_deref())
        .unwrap_or("report");
    let safe: String = unit
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect();
    // Never a name that starts with `-` (a command line would read it as an
    // option) and never an empty one.
    let safe = match safe.trim_matches('-') {
        "" => "report".to_owned(),
        s => s.to_owned(),
    };
    let id: Vec<char> = session.id.chars().filter(|c| *c != '-').collect();
    let short: String = id[id.len().saturating_sub(12)..].iter().collect();
    format!("{safe}-{short}-r{revision}.{extension}")
}

/// The session's header lines (label, value) for every export format: the
/// customer, the unit and who worked on it; empty values are left out.
pub fn header_rows(session: &Session) -> Vec<(&'static str, String)> {
    let rows = [
        ("Customer", session.customer.clone()),
        ("VIN", session.unit.vin.clone()),
        ("Plate", session.unit.plate.clone()),
        ("Unit", session.unit.make_model.clone()),
        ("Odometer", session.unit.odometer.map(|o| o.to_string())),
        (
            "Engine hours",
            session.unit.engine_hours.map(|h| h.to_string()),
        ),
        ("Technician", session.technician.clone()),
        ("Session", Some(session.id.clone())),
    ];
    rows.into_iter()
        .filter_map(|(label, value)| value.filter(|v| !v.is_empty()).map(|v| (label, v)))
        .collect()
}

/// The revision as a Markdown document: a header with the unit and the
/// customer, then the report's sections as headings.
pub fn report_markdown(session: &Session, report: &StoredReport) -> String {
    let mut out = String::new();
    let title = session
        .unit
        .make_model
        .as_deref()
        .map(|m| format!("Service report: {m}"))
        .unwrap_or_else(|| "Service report".to_string());
    out.push_str(&format!("# {}\n\n", escape(&title)));
    out.push_str("| | |\n|---|---|\n");
    for (label, value) in header_rows(session) {
        out.push_str(&format!("| {label} | {} |\n", escape(&value)));
    }
    out.push_str(&format!(
        "| Revision | {} ({}) |\n",
        report.revision,
        report.created_at.local_display()
    ));
    out.push('\n');
    for line in report.body.lines() {
        out.push_str(&markdown_line(line));
        out.push('\n');
    }
    out.trim_end().to_string() + "\n"
}

/// The revision as JSON: the session header, the stored body (the record)
/// and the body read into its parts, for systems that file reports.
pub fn report_json(session: &Session, report: &StoredReport) -> serde_json::Value {
    let (doc, approved) = crate::report_marks::parse(&report.body, &report.language);
    let sections = crate::report_marks::blocks_json(&doc, &approved);
    serde_json::json!({
        "format": "servicedesk.report.v2",
        "session_id": session.id,
        "revision": report.revision,
        "language": report.language,
        "finalized_at": report.created_at,
        "customer": session.customer,
        "technician": session.technician,
        "unit": {
            "vin": session.unit.vin,
            "plate_no": session.unit.plate,
            "make_model": session.unit.make_model,
            "odometer": session.unit.odometer,
            "engine_hours": session.unit.engine_hours,
        },
        "body": report.body,
        "sections": sections,
    })
}

/// Report bodies are "Heading:" lines, "- item" lines, a "Total ...: X hr"
/// line and prose; each maps to its Markdown form.
fn markdown_line(line: &str) -> String {
    let trimmed = line.trim();
    if trimmed == TRANSLATION_SEPARATOR {
        return "---\n\n## Translation".to_string();
    }
    if let Some(item) = trimmed.strip_prefix("- ") {
        return format!("- {}", escape(item));
    }
    if let Some(heading) = trimmed.strip_suffix(':') {
        if !heading.is_empty() && !heading.contains(": ") {
            return format!("### {}", escape(heading));
        }
    }
    if trimmed.is_empty() {
        return String::new();
    }
    // "Total labor: 0.7 hr" and "Checks not verified: ...": label in bold.
    if let Some((label, rest)) = trimmed.split_once(": ") {
        if label.chars().count() <= 40 && !label.contains('.') {
            return format!("**{}:** {}", escape(label), escape(rest));
        }
    }
    escape(trimmed)
}

/// Technician text must not turn into Markdown structure (tables, emphasis, links).
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if matches!(
            c,
            '\\' | '|' | '*' | '_' | '`' | '[' | ']' | '<' | '>' | '#'
        ) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::store::{SessionStatus, Unit};

    fn session() -> Session {
        Session {
            id: "0193a5f2-aaaa-bbbb-cccc-000000000000".into(),
            ro_number: "RO-000042".into(),
            customer_phone: None,
            customer_email: None,
            created_at: crate::store::Timestamp::parse("2026-11-23T10:00:00Z").unwrap(),
            updated_at: crate::store::Timestamp::parse("2026-11-23T10:00:00Z").unwrap(),
            status: SessionStatus::Finalized,
            language: "es".into(),
            customer: Some("Jane | Doe".into()),
            complaint: "fan".into(),
            technician: None,
            unit: Unit {
                vin: Some("1FUJA6CV94LM12345".into()),
                plate: Some("7ABC 123".into()),
                make_model: Some("Winnebago View 24D".into()),
                odometer: Some(41250),
                engine_hours: None,
                ..Default::default()
            },
            turn_count: 3,
            artifact_count: 0,
        }
    }

    #[test]
    fn sections_become_headings_and_the_translation_is_marked() {
        let report = StoredReport {
            revision: 2,
            language: "es".into(),
            body: "Complaint:\nCustomer states the fan does not operate.\n\nEstimated labor:\n- Verify fuse: 0.3 hr\nTotal labor: 0.3 hr\n\n--- TRANSLATION ---\n\nQueja:\nEl cliente indica *algo*.\n".into(),
            created_at: crate::store::Timestamp::parse("2026-11-23T10:05:00Z").unwrap(),
        };
        let md = report_markdown(&session(), &report);
        assert!(md.starts_with("# Service report: Winnebago View 24D\n"));
        assert!(md.contains("| Customer | Jane \\| Doe |"));
        // The revision's time as a person reads it: the machine's zone.
        let local = crate::when::local_display("2026-11-23T10:05:00Z");
        assert!(md.contains(&format!("| Revision | 2 ({local}) |")));
        assert!(!md.contains("2026-11-23T10:05:00Z"));
        assert!(md.contains("### Complaint\n"));
        assert!(md.contains("- Verify fuse: 0.3 hr\n"));
        assert!(md.contains("**Total labor:** 0.3 hr\n"));
        assert!(md.contains("---\n\n## Translation\n"));
        assert!(md.contains("### Queja\n"));
        assert!(md.contains("El cliente indica \\*algo\\*."));
        assert_eq!(
            report_file_name(&session(), 2, "md"),
            "7ABC-123-000000000000-r2.md"
        );
    }

    #[test]
    fn a_file_name_never_starts_with_a_dash() {
        for plate in ["-rf", "--help", "ЖЖ 12", "ü"] {
            let mut s = session();
            s.unit.plate = Some(plate.into());
            let name = report_file_name(&s, 1, "pdf");
            assert!(!name.starts_with('-'), "{plate:?} gave {name}");
        }
        let mut s = session();
        s.unit.plate = Some("ü".into());
        assert_eq!(report_file_name(&s, 1, "pdf"), "report-000000000000-r1.pdf");
    }
}
