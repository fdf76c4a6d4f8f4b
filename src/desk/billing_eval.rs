//! The billing and hybrid chat evaluation (seed 004's RAG-006 form): each
//! case is a question as a service writer types it (after optional earlier
//! turns of the same session), with the tools the answer must call, the
//! facts its reply must state and the sources it must cite. Every case runs
//! in a new session through the real chat turn (`Desk::chat_turn`), so what
//! is measured is what a person gets.
//!
//! Metrics: tool-call compliance (cases whose tools called equal the
//! expected set), fact accuracy (expected facts stated, over all expected
//! facts), citation coverage (cases with expected citations that carry them
//! all), and intent accuracy (not gated).

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use super::{Desk, Result};
use crate::store::NewSession;

/// The categories a dataset must cover.
pub const CATEGORIES: [&str; 6] = [
    "rule_explain",
    "arrears_check",
    "fee_verify",
    "knowledge",
    "clarify",
    "out_of_scope",
];

/// The tools a case may expect: the billing tools and the knowledge search.
pub const TOOLS: [&str; 4] = ["arrears", "verify", "rule", "knowledge_search"];

#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct EvalCase {
    pub case_id: String,
    /// One of [`CATEGORIES`].
    pub intent_tag: String,
    #[serde(default)]
    pub language: Option<String>,
    /// Earlier turns of the same session, sent first (not scored).
    #[serde(default)]
    pub history: Vec<String>,
    pub query: String,
    /// Tools the scored turn must call, and no others ([] = none).
    pub expected_tools: Vec<String>,
    /// Texts the reply must contain (amounts exact to the cent, verdicts,
    /// codes).
    #[serde(default)]
    pub expected_facts: Vec<String>,
    /// Prefixes of citations the reply must carry (`rule.SH-HOURLY-B@v1#`).
    #[serde(default)]
    pub expected_citations: Vec<String>,
    /// The turn's intent, when it is part of the contract.
    #[serde(default)]
    pub expected_intent: Option<String>,
    #[serde(default)]
    pub notes: Option<String>,
}

/// A dataset's cases; an error names the line and the field.
pub fn parse_dataset(text: &str) -> std::result::Result<Vec<EvalCase>, String> {
    let mut out = Vec::new();
    let mut ids = BTreeSet::new();
    for (i, line) in text.lines().enumerate() {
        let n = i + 1;
        if line.trim().is_empty() {
            continue;
        }
        let case: EvalCase = serde_json::from_str(line).map_err(|e| format!("line {n}: {e}"))?;
        if !CATEGORIES.contains(&case.intent_tag.as_str()) {
            return Err(format!(
                "line {n}: intent_tag: {:?} is not one of {}",
                case.intent_tag,
                CATEGORIES.join(", ")
            ));
        }
        if let Some(t) = case
            .expected_tools
            .iter()
            .find(|t| !TOOLS.contains(&t.as_str()))
        {
            return Err(format!(
                "line {n}: expected_tools: {t:?} is not one of {}",
                TOOLS.join(", ")
            ));
        }
        if case.query.trim().is_empty() {
            return Err(format!("line {n}: query: must not be empty"));
        }
        if !ids.insert(case.case_id.clone()) {
            return Err(format!(
                "line {n}: case_id: {:?} is used twice",
                case.case_id
            ));
        }
        out.push(case);
    }
    if out.is_empty() {
        return Err("no cases".into());
    }
    Ok(out)
}

#[derive(Debug, Clone, Default, Serialize)]
pub struct CategoryCounts {
    pub cases: usize,
    pub tools_ok: usize,
    pub facts: usize,
    pub facts_stated: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct CaseFailure {
    pub case_id: String,
    pub query: String,
    pub problems: Vec<String>,
    pub tools_called: Vec<String>,
    pub reply: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct EvalReport {
    pub cases: usize,
    pub tool_call_compliance: f64,
    pub fact_accuracy: f64,
    pub citation_coverage: f64,
    pub intent_accuracy: f64,
    pub by_category: BTreeMap<String, CategoryCounts>,
    pub by_language: BTreeMap<String, usize>,
    pub failures: Vec<CaseFailure>,
}

/// The tools a turn called, from its trace: the billing lane's `tool
/// NAME(...)` lines and the knowledge lane's search.
pub fn tools_called(trace: &[String]) -> Vec<String> {
    let mut out = BTreeSet::new();
    for line in trace {
        for part in line.split("; ") {
            if let Some(rest) = part.strip_prefix("tool ") {
                if let Some((name, _)) = rest.split_once('(') {
                    out.insert(name.to_string());
                }
            }
            if part.starts_with("knowledge store searched") {
                out.insert("knowledge_search".to_string());
            }
        }
    }
    out.into_iter().collect()
}

fn ratio(a: usize, b: usize) -> f64 {
    if b == 0 {
        1.0
    } else {
        a as f64 / b as f64
    }
}

impl Desk {
    /// Runs the cases, each in a new session of this Desk (a scratch data
    /// dir with the demo data, for `servicedesk eval billing`).
    pub async fn billing_chat_eval(&self, cases: &[EvalCase]) -> Result<EvalReport> {
        let mut by_category: BTreeMap<String, CategoryCounts> = BTreeMap::new();
        let mut by_language: BTreeMap<String, usize> = BTreeMap::new();
        let mut failures = Vec::new();
        let (mut tools_ok, mut facts, mut stated) = (0, 0, 0);
        let (mut cite_cases, mut cite_ok, mut intent_cases, mut intent_ok) = (0, 0, 0, 0);
        for case in cases {
            let session = self
                .new_session(NewSession {
                    complaint: format!("billing eval {}", case.case_id),
                    language: case.language.clone(),
                    ..Default::default()
                })
                .await?;
            for earlier in &case.history {
                self.chat_turn(&session.id, earlier, Vec::new()).await?;
            }
            let (_, out) = self.chat_turn(&session.id, &case.query, Vec::new()).await?;
            let mut problems = Vec::new();
            let called = tools_called(&out.trace);
            let want: BTreeSet<&str> = case.expected_tools.iter().map(String::as_str).collect();
            let got: BTreeSet<&str> = called.iter().map(String::as_str).collect();
            let cat = by_category.entry(case.intent_tag.clone()).or_default();
            cat.cases += 1;
            *by_language
                .entry(case.language.clone().unwrap_or_else(|| "en".into()))
                .or_default() += 1;
            if want == got {
                tools_ok += 1;
                cat.tools_ok += 1;
            } else {
                problems.push(format!("tools: want {want:?}, called {got:?}"));
            }
            for f in &case.expected_facts {
                facts += 1;
                cat.facts += 1;
                if out.reply.text.contains(f.as_str()) {
                    stated += 1;
                    cat.facts_stated += 1;
                } else {
                    problems.push(format!("fact {f:?} not stated"));
                }
            }
            if !case.expected_citations.is_empty() {
                cite_cases += 1;
                let missing: Vec<&String> = case
                    .expected_citations
                    .iter()
                    .filter(|c| {
                        !out.reply
                            .citations
                            .iter()
                            .any(|r| r.starts_with(c.as_str()))
                    })
                    .collect();
                if missing.is_empty() {
                    cite_ok += 1;
                } else {
                    problems.push(format!(
                        "citations {missing:?} missing from {:?}",
                        out.reply.citations
                    ));
                }
            }
            if let Some(want) = &case.expected_intent {
                intent_cases += 1;
                if out.intent == want.as_str() {
                    intent_ok += 1;
                } else {
                    problems.push(format!("intent: want {want}, got {}", out.intent));
                }
            }
            if !problems.is_empty() {
                failures.push(CaseFailure {
                    case_id: case.case_id.clone(),
                    query: case.query.clone(),
                    problems,
                    tools_called: called,
                    reply: out.reply.text.chars().take(600).collect(),
                });
            }
        }
        Ok(EvalReport {
            cases: cases.len(),
            tool_call_compliance: ratio(tools_ok, cases.len()),
            fact_accuracy: ratio(stated, facts),
            citation_coverage: ratio(cite_ok, cite_cases),
            intent_accuracy: ratio(intent_ok, intent_cases),
            by_category,
            by_language,
            failures,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tools_come_from_the_trace() {
        let trace = vec![
            "T1: new root ARREARS_CHECK with plate_no=X; tool arrears(plate_no=X): ok".to_string(),
            "knowledge store searched: 2 hit(s)".to_string(),
        ];
        assert_eq!(tools_called(&trace), ["arrears", "knowledge_search"]);
    }

    #[test]
    fn bad_lines_name_the_line_and_field() {
        let e = parse_dataset("{\"case_id\": \"a\", \"intent_tag\": \"nope\", \"query\": \"q\", \"expected_tools\": []}")
            .unwrap_err();
        assert!(e.starts_with("line 1: intent_tag: \"nope\""), "{e}");
        let e = parse_dataset("\n{\"case_id\": \"a\", \"intent_tag\": \"clarify\", \"query\": \"q\", \"expected_tools\": [\"hammer\"]}")
            .unwrap_err();
        assert!(e.starts_with("line 2: expected_tools: \"hammer\""), "{e}");
        assert!(parse_dataset("{").unwrap_err().starts_with("line 1: "));
    }
}
