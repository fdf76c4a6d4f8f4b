//! Fact extraction: which steps a free-text message answers, with what
//! outcome. A message is split into clauses ("fuse ok, 12.5 V at the switch,
//! 0 V at the motor"); each clause may answer the step being asked or any
//! step whose subject it names, in any order.

use std::sync::LazyLock;

use regex::Regex;

use super::catalog::{Outcome, Procedure, Step, StepKind};
use super::lexicon;
use super::units::{bare_number, find_quantities, Quantity};

/// One step answered by part of the message.
#[derive(Debug, Clone, PartialEq)]
pub struct StepAnswer {
    pub step: usize,
    pub outcome: String,
    pub quantity: Option<Quantity>,
    pub clause: String,
    pub signal: bool,
}

static CLAUSE_SPLIT: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)[,;\n]+|\.\s+|\s+(?:and|but|then|also|y|pero|luego|и|а|но|потом)\s+")
        .expect("compiles")
});

/// Splits a message into clauses, except at a decimal comma ("12,6 В") and
/// after an abbreviation's period ("11 in. WC", "approx. 12 V").
pub fn clauses(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    for m in CLAUSE_SPLIT.find_iter(text) {
        if is_decimal_comma(text, m.start(), m.end())
            || follows_abbreviation(text, m.start(), m.as_str())
        {
            continue;
        }
        out.push(&text[start..m.start()]);
        start = m.end();
    }
    out.push(&text[start..]);
    out.into_iter()
        .map(str::trim)
        .filter(|c| !c.is_empty())
        .collect()
}

fn is_decimal_comma(text: &str, start: usize, end: usize) -> bool {
    &text[start..end] == ","
        && text[..start].ends_with(|c: char| c.is_ascii_digit())
        && text[end..].starts_with(|c: char| c.is_ascii_digit())
}

fn follows_abbreviation(text: &str, start: usize, sep: &str) -> bool {
    if !sep.starts_with('.') {
        return false;
    }
    let before = &text[..start];
    let word_start = before
        .char_indices()
        .rev()
        .take_while(|(_, c)| c.is_alphabetic())
        .last()
        .map_or(start, |(i, _)| i);
    matches!(
        before[word_start..].to_lowercase().as_str(),
        "in" | "approx" | "aprox" | "vs" | "pulg" | "ca" | "prox" | "est"
    )
}

/// The outcome a clause states for `step`, if it states one.
fn outcome_in(
    step: &Step,
    clause: &str,
    is_active: bool,
    bare: bool,
) -> Option<(String, Option<Quantity>)> {
    match step.kind {
        StepKind::Measurement => {
            let unit = step.unit?;
            for f in find_quantities(clause) {
                if f.quantity.convert_to(unit).is_some() {
                    let o = step.classify(&f.quantity)?;
                    return Some((o.name.clone(), Some(f.quantity)));
                }
            }
            if is_active && bare {
                if let Some(v) = bare_number(clause) {
                    let q = Quantity { value: v, unit };
                    let o = step.classify(&q)?;
                    return Some((o.name.clone(), Some(q)));
                }
            }
            // "no power at the board" with no number.
            let specific = best_outcome(&step.outcomes, clause);
            if let Some(o) = specific {
                return Some((o.name.clone(), None));
            }
            if lexicon::UNSURE.is_match(clause) {
                return None;
            }
            let no = lexicon::NO.is_match(clause);
            let yes = lexicon::YES.is_match(clause);
            if no && !yes {
                return step.outcome("low").map(|o| (o.name.clone(), None));
            }
            // "reads in spec", "voltage is good": in range without the number.
            if yes && !no {
                return step.outcome("ok").map(|o| (o.name.clone(), None));
            }
            None
        }
        StepKind::YesNo => {
            if let Some(o) = best_outcome(&step.outcomes, clause) {
                return Some((o.name.clone(), None));
            }
            if lexicon::UNSURE.is_match(clause) {
                return None;
            }
            let no = lexicon::NO.find_iter(clause).map(|m| m.len()).max();
            let yes = lexicon::YES.find_iter(clause).map(|m| m.len()).max();
            match (yes, no) {
                (Some(_), None) => Some(("yes".into(), None)),
                (None, Some(_)) => Some(("no".into(), None)),
                (Some(y), Some(n)) if n >= y => Some(("no".into(), None)),
                (Some(_), Some(_)) => Some(("yes".into(), None)),
                (None, None) => None,
            }
        }
    }
}

/// The outcome whose own words match longest.
fn best_outcome<'a>(outcomes: &'a [Outcome], clause: &str) -> Option<&'a Outcome> {
    outcomes
        .iter()
        .filter_map(|o| o.words.longest_match(clause).map(|len| (len, o)))
        .max_by_key(|(len, _)| *len)
        .map(|(_, o)| o)
}

/// Every step answered by `text`. The active step may be answered by a bare
/// "yes" or "12.4"; other steps only when the clause names their subject.
pub fn step_answers(proc: &Procedure, active: Option<usize>, text: &str) -> Vec<StepAnswer> {
    let parts = clauses(text);
    let single = parts.len() == 1;
    let mut out: Vec<StepAnswer> = Vec::new();
    for clause in parts {
        // Steps whose subject this clause names, most specific first.
        let mut named: Vec<(usize, usize)> = proc
            .steps
            .iter()
            .enumerate()
            .filter_map(|(i, s)| s.subject.longest_match(clause).map(|len| (len, i)))
            .collect();
        // The step being asked wins when the clause names it; otherwise the
        // most specific (longest) subject match.
        named.sort_by_key(|&(len, i)| {
            (std::cmp::Reverse(Some(i) == active), std::cmp::Reverse(len))
        });
        let mut answered = None;
        for (_, i) in &named {
            if out.iter().any(|a| a.step == *i) {
                continue;
            }
            if let Some((outcome, q)) =
                outcome_in(&proc.steps[*i], clause, Some(*i) == active, single)
            {
                answered = Some((*i, outcome, q));
                break;
            }
        }
        if answered.is_none() {
            if let Some(a) = active {
                if !out.iter().any(|x| x.step == a) {
                    // A clause naming another step's subject without a result
                    // is not an answer to the active step.
                    let names_other = named.iter().any(|(_, i)| *i != a);
                    if !names_other || single {
                        if let Some((outcome, q)) = outcome_in(&proc.steps[a], clause, true, single)
                        {
                            answered = Some((a, outcome, q));
                        }
                    }
                }
            }
        }
        if let Some((step, outcome, quantity)) = answered {
            let signal = proc.steps[step].outcome(&outcome).is_some_and(|o| o.signal);
            out.push(StepAnswer {
                step,
                outcome,
                quantity,
                clause: clause.to_string(),
                signal,
            });
        }
    }
    out
}

/// A repair-done statement ("replaced the fuse, heater works"): the finding
/// whose repair words match, when the message also says it works now.
pub fn repair_done(proc: &Procedure, text: &str) -> Option<usize> {
    if !lexicon::REPAIR_VERB.is_match(text) {
        return None;
    }
    let works = lexicon::WORKS_NOW.is_match(text);
    let best = proc
        .findings
        .iter()
        .enumerate()
        .filter_map(|(i, f)| f.repair.longest_match(text).map(|len| (len, i)))
        .max_by_key(|(len, _)| *len)?;
    works.then_some(best.1)
}

/// Physical evidence named by the procedure ("oil at the condenser coil").
pub fn evidence(proc: &Procedure, text: &str) -> Option<usize> {
    proc.evidence
        .iter()
        .enumerate()
        .filter_map(|(i, e)| e.patterns.longest_match(text).map(|len| (len, i)))
        .max_by_key(|(len, _)| *len)
        .map(|(_, i)| i)
}

/// The component a clarification question is about.
pub fn component_named(proc: &Procedure, text: &str) -> Option<usize> {
    proc.components
        .iter()
        .enumerate()
        .filter_map(|(i, c)| c.names.longest_match(text).map(|len| (len, i)))
        .max_by_key(|(len, _)| *len)
        .map(|(_, i)| i)
}

/// The steps a recap question is about: named by subject or component.
pub fn steps_named(proc: &Procedure, text: &str) -> Vec<usize> {
    let component = component_named(proc, text);
    proc.steps
        .iter()
        .enumerate()
        .filter(|(_, s)| {
            s.subject.is_match(text) || (component.is_some() && s.component == component)
        })
        .map(|(i, _)| i)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::clauses;

    #[test]
    fn clauses_keep_decimal_commas_and_abbreviations() {
        assert_eq!(
            clauses("на плате 12,6 В, вентилятор крутит"),
            vec!["на плате 12,6 В", "вентилятор крутит"]
        );
        assert_eq!(
            clauses("sparks fine, 10.9 in. WC at the test port. valve clicks"),
            vec![
                "sparks fine",
                "10.9 in. WC at the test port",
                "valve clicks"
            ]
        );
        assert_eq!(
            clauses("fuse ok,12 V at switch"),
            vec!["fuse ok", "12 V at switch"]
        );
        assert_eq!(clauses("pins 1, 2 and 3"), vec!["pins 1", "2", "3"]);
        assert_eq!(
            clauses("no. panel fuse good"),
            vec!["no", "panel fuse good"]
        );
    }
}
