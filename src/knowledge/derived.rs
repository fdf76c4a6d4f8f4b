//! Knowledge generated from other data rather than written by hand, so the
//! two can never disagree: one `component` note per component of every
//! procedure (where it is, what it is, how to check it, in every language
//! the procedure has). Rule explanations join here when billing lands.

use super::document::Document;
use crate::engine::catalog::{Catalog, Component, Procedure};
use std::collections::BTreeMap;

/// `component.<system>.<component id>`.
pub fn component_source_id(system: &str, component: &str) -> String {
    format!("component.{system}.{component}")
}

/// Section headings of a component note; the subflows cite the section
/// they answered from by these.
pub const WHERE: &str = "Where / Dónde / Где";
pub const WHAT: &str = "What it is / Qué es / Что это";
pub const HOW: &str = "How to check / Cómo comprobar / Как проверить";

fn label(c: &Component) -> String {
    c.id.replace('_', " ")
}

fn note(p: &Procedure, c: &Component) -> Document {
    let mut body = format!("# {} — {}\n", p.title.get("en"), label(c));
    for (heading, text) in [(WHERE, &c.where_), (WHAT, &c.what), (HOW, &c.how)] {
        body.push_str(&format!("\n## {heading}\n"));
        for lang in ["en", "es", "ru"] {
            let t = text.get(lang);
            if lang == "en" || t != text.get("en") {
                body.push_str(&format!("\n{t}\n"));
            }
        }
    }
    Document {
        source_id: component_source_id(&p.system, &c.id),
        version: None,
        doc_type: "component".into(),
        source_type: "procedure_derived".into(),
        title: format!("{} — {}", p.title.get("en"), label(c)),
        language: "en".into(),
        city_code: None,
        lot_codes: Vec::new(),
        effective_from: None,
        effective_to: None,
        clarifying_questions: BTreeMap::new(),
        requires_handoff: false,
        body: super::document::clean(&body),
        origin: format!("procedures/{}", p.file),
        version_line: 0,
        original: None,
    }
}

/// Every component note of the catalog.
pub fn component_notes(catalog: &Catalog) -> Vec<Document> {
    catalog
        .procedures
        .iter()
        .flat_map(|p| p.components.iter().map(move |c| note(p, c)))
        .collect()
}
