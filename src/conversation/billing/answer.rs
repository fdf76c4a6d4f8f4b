//! Billing answers: the tool call and the three-part answer (facts from the
//! tool, evidence from the cited explanation of the rule version used, the
//! conclusion) with its coverage (seed 003's truth_mode: what of the
//! question the data covers and what it cannot); and the answers that run
//! no tool: the selected order's listed facts (T3/T4), the list again (T6),
//! meta questions over the last answer (T8), the billing recap (T9), the
//! boundary (T10).

use super::intents::{self, Intent};
use super::words::{question_for, words, Words};
use super::DateScope;
use super::{
    finish, found, intent_name, save, with_step_if, Answered, Ask, BillingCall, BillingFacts,
    Checked, Coverage, Ctx, Lane, Listed, Need, Plan, Root, Shown, TruthMode, HISTORY_KEPT,
};
use crate::billing::store::{ArrearsReport, ArrearsStatus, FeeCheck, RuleInForce, Verification};
use crate::billing::Money;
use crate::conversation::{hits, Fetched};
use crate::engine::{registry::TransitionId, Reply, ReplyKind, TurnOutcome};

/// A reply with no tool: the state saved, the first trace line `fired`.
#[allow(clippy::too_many_arguments)]
pub(super) fn reply(
    ctx: &Ctx,
    lane: &Lane,
    intent: &str,
    transition: TransitionId,
    kind: ReplyKind,
    text: String,
    citations: Vec<String>,
    fired: String,
    trace: Vec<String>,
    step: bool,
) -> TurnOutcome {
    let st = save(ctx.state, lane, kind);
    let (text, step_id) = with_step_if(ctx.engine, &st, text, step);
    finish(
        st,
        intent_name(intent),
        transition,
        Reply {
            kind,
            text,
            step_id,
            citations,
        },
        fired,
        trace,
    )
}

fn coverage_line(c: &Coverage, w: &Words) -> String {
    let mut line = format!("{}: {} {}", w.coverage, w.covers, c.covered.join("; "));
    if !c.not_covered.is_empty() {
        line.push_str(&format!("; {} {}", w.not_covered, c.not_covered.join("; ")));
    }
    line.push('.');
    line
}

fn uncovered(text: &str, w: &Words) -> Vec<String> {
    intents::uncovered_parts(text)
        .into_iter()
        .map(|k| {
            match k {
                "payer" => w.payer,
                "pay_date" => w.pay_date,
                "pay_method" => w.pay_method,
                _ => w.refunds,
            }
            .to_string()
        })
        .collect()
}

/// Runs the plan's intent: asks for a missing slot, or calls the tool and
/// answers in three parts with the coverage.
pub(super) fn run(ctx: &Ctx, mut lane: Lane, mut plan: Plan) -> Result<TurnOutcome, Need> {
    let w = words(&ctx.lang);
    let intent = plan.intent;
    let required = intent.required(lane.slot("rule_code").is_some());
    trace_carried(ctx, &lane, required, &mut plan.trace);
    keep_root(ctx, &mut lane, &plan);
    if let Some(missing) = required.iter().find(|n| lane.slot(n).is_none()) {
        return Ok(ask_for(ctx, lane, plan, missing, w));
    }
    let call = tool_call(intent, &lane, plan.date.as_ref());
    let need = Need::Billing(call.clone());
    let result = match found(ctx.retrieved, &need) {
        Some(Fetched::Billing(r)) => r.clone(),
        _ => return Err(need),
    };
    plan.trace.push(format!(
        "tool {}: {}",
        call.describe(),
        if result.is_ok() { "ok" } else { "error" }
    ));
    let mut not_covered = uncovered(ctx.text, w);
    // The record the intent's tool returns; another kind is the Desk's
    // error, answered as one.
    let answered = match (intent, result) {
        (Intent::ArrearsCheck, Ok(BillingFacts::Arrears(r))) => Ok(Answered::Arrears(r)),
        (Intent::FeeVerify, Ok(BillingFacts::Verify(v))) => Ok(Answered::Verify(v)),
        (Intent::RuleExplain, Ok(BillingFacts::Rule(r))) => Ok(Answered::Rule(r)),
        (_, Ok(other)) => Err(format!(
            "the {} tool answered with {} records",
            call.describe(),
            other.kind()
        )),
        (_, Err(message)) => Err(message),
    };
    let facts = match answered {
        Ok(v) => v,
        Err(message) => return Ok(tool_failed(ctx, lane, plan, &call, message, not_covered, w)),
    };
    let (rule, version) = match &facts {
        Answered::Arrears(_) => (String::new(), 0),
        Answered::Verify(v) => (v.rule_code.clone(), v.version_no as u32),
        Answered::Rule(r) => (r.rule_code.clone(), r.version_no as u32),
    };
    let (evidence, citations) = rule_evidence(ctx, &rule, version, w)?;
    let date = plan.date.as_ref();
    let stated = match &facts {
        Answered::Arrears(report) => arrears_stated(ctx, &mut lane, report, date, w),
        Answered::Verify(v) => verify_stated(&mut lane, v, &rule, version, date, w),
        Answered::Rule(r) => rule_stated(&mut lane, r, &rule, version, date, w),
    };
    not_covered.extend(stated.not_covered);
    let truth = if stated.limited || !not_covered.is_empty() {
        TruthMode::Limited
    } else {
        TruthMode::Confirmed
    };
    let coverage = Coverage {
        truth_mode: truth,
        covered: stated.covered,
        not_covered,
    };
    plan.trace.push(format!(
        "coverage gate: truth_mode {} (covers {}{})",
        coverage.truth_mode,
        coverage.covered.join("; "),
        if coverage.not_covered.is_empty() {
            String::new()
        } else {
            format!("; not covered: {}", coverage.not_covered.join("; "))
        }
    ));
    remember(
        &mut lane,
        ctx.turn_no,
        intent,
        stated.subject,
        stated.summary,
    );
    lane.shown = Some(Shown {
        intent,
        turn: ctx.turn_no,
        facts: Some(facts),
        coverage: coverage.clone(),
    });
    // An arrears answer's evidence is the records themselves.
    let evidence = stated.evidence.map(str::to_string).unwrap_or(evidence);
    let mut body = format!("{}: {}", w.facts, stated.text);
    if !evidence.is_empty() {
        body.push_str(&format!("\n{}: {evidence}", w.evidence));
    }
    body.push_str(&format!("\n{}: {}", w.conclusion, stated.conclusion));
    body.push_str(&format!("\n{}", coverage_line(&coverage, w)));
    if let Some(c) = citations.first() {
        body.push_str(&format!("\n\n[1] {c}"));
    }
    Ok(reply(
        ctx,
        &lane,
        intent.name(),
        plan.transition,
        ReplyKind::Answer,
        body,
        citations,
        plan.fired,
        plan.trace,
        true,
    ))
}

/// Names in the trace each required slot carried from an earlier turn.
fn trace_carried(ctx: &Ctx, lane: &Lane, required: &[&str], trace: &mut Vec<String>) {
    for name in required {
        if let Some(slot) = lane.slots.get(*name) {
            if slot.turn < ctx.turn_no {
                trace.push(format!(
                    "{name} = {} carried from turn {} ({})",
                    slot.value, slot.turn, slot.source
                ));
            }
        }
    }
}

/// The root frame is the business question: a verify of an order picked
/// from the list (T3/T5, or its clarification) acts on the object and
/// keeps the root it came from; any other intent becomes the root.
fn keep_root(ctx: &Ctx, lane: &mut Lane, plan: &Plan) {
    let intent = plan.intent;
    let object_action = matches!(
        plan.transition,
        TransitionId::T3ObjectSelect | TransitionId::T4ObjectAction | TransitionId::T5ObjectPronoun
    ) || (plan.transition == TransitionId::T7ClarificationContinue
        && lane.root.as_ref().is_some_and(|r| r.intent != intent));
    if !object_action {
        lane.root = Some(Root {
            intent,
            date: plan.date.clone(),
            turn: ctx.turn_no,
        });
    }
}

/// One targeted question for the first required slot still missing.
fn ask_for(ctx: &Ctx, mut lane: Lane, mut plan: Plan, missing: &str, w: &Words) -> TurnOutcome {
    let intent = plan.intent;
    lane.ask = Some(Ask {
        intent,
        slot: missing.to_string(),
        asked: 1,
        turn: ctx.turn_no,
        date: plan.date.clone(),
    });
    plan.fired.push_str(&format!(
        "; {} needs {missing}: one targeted question",
        intent.name()
    ));
    reply(
        ctx,
        &lane,
        intent.name(),
        plan.transition,
        ReplyKind::Question,
        question_for(missing, w).to_string(),
        Vec::new(),
        plan.fired,
        plan.trace,
        false,
    )
}

/// The tool the intent calls, with the lane's slots and the date scope.
fn tool_call(intent: Intent, lane: &Lane, date: Option<&DateScope>) -> BillingCall {
    match intent {
        Intent::ArrearsCheck => BillingCall::Arrears {
            plate_no: lane.slot("plate_no").unwrap_or_default().to_string(),
            city_code: lane.slot("city_code").map(str::to_string),
            from: date.map(|d| d.from.clone()),
            to: date.map(|d| d.to.clone()),
        },
        Intent::FeeVerify => BillingCall::Verify {
            order_no: lane.slot("order_no").unwrap_or_default().to_string(),
        },
        Intent::RuleExplain => BillingCall::Rule {
            rule_code: lane.slot("rule_code").map(str::to_string),
            city_code: lane.slot("city_code").map(str::to_string),
            lot_code: lane.slot("lot_code").map(str::to_string),
            at: date.map(|d| d.from.clone()),
        },
    }
}

/// The answer when the tool found nothing to answer from: its message as
/// the facts, truth_mode unsupported.
fn tool_failed(
    ctx: &Ctx,
    mut lane: Lane,
    mut plan: Plan,
    call: &BillingCall,
    message: String,
    mut not_covered: Vec<String>,
    w: &Words,
) -> TurnOutcome {
    let intent = plan.intent;
    not_covered.insert(0, w.cannot.to_string());
    let coverage = Coverage {
        truth_mode: TruthMode::Unsupported,
        covered: vec![message.clone()],
        not_covered,
    };
    plan.trace.push(
        "coverage gate: blocked (truth_mode unsupported): the tool found nothing to answer from"
            .into(),
    );
    lane.shown = Some(Shown {
        intent,
        turn: ctx.turn_no,
        facts: None,
        coverage: coverage.clone(),
    });
    remember(
        &mut lane,
        ctx.turn_no,
        intent,
        call_subject(call),
        message.clone(),
    );
    let body = format!(
        "{}: {message}\n{}: {}.\n{}",
        w.facts,
        w.conclusion,
        w.cannot,
        coverage_line(&coverage, w)
    );
    reply(
        ctx,
        &lane,
        intent.name(),
        plan.transition,
        ReplyKind::Answer,
        body,
        Vec::new(),
        plan.fired,
        plan.trace,
        true,
    )
}

/// The evidence line and its citation: the explanation of the rule version
/// the tool used (none without a rule). Asks for it when not yet fetched.
fn rule_evidence(
    ctx: &Ctx,
    rule: &str,
    version: u32,
    w: &Words,
) -> Result<(String, Vec<String>), Need> {
    if rule.is_empty() || version == 0 {
        return Ok((String::new(), Vec::new()));
    }
    let need = Need::Evidence {
        source_id: format!("rule.{rule}"),
        version,
    };
    let Some(found_hits) = hits(ctx.retrieved, &need) else {
        return Err(need);
    };
    Ok(match found_hits.first() {
        Some(h) => {
            let lines: Vec<&str> = crate::knowledge::chunk::sentences(&h.text)
                .into_iter()
                .take(3)
                .collect();
            (
                format!("«{}» — {} [1]", h.title, lines.join(" ")),
                vec![h.chunk_id.clone()],
            )
        }
        None => (format!("{rule} v{version}: {}", w.no_evidence), Vec::new()),
    })
}

/// What one tool record states: the facts, the conclusion, what of the
/// question it covers and cannot, and the recap's subject and summary.
struct Stated {
    text: String,
    conclusion: String,
    subject: String,
    summary: String,
    covered: Vec<String>,
    not_covered: Vec<String>,
    /// The record itself limits the answer (no orders checked).
    limited: bool,
    /// Evidence in place of the rule explanation's.
    evidence: Option<&'static str>,
}

/// A plate's arrears: the orders listed (the list a later turn picks from).
fn arrears_stated(
    ctx: &Ctx,
    lane: &mut Lane,
    report: &ArrearsReport,
    date: Option<&DateScope>,
    w: &Words,
) -> Stated {
    lane.results = report
        .orders
        .iter()
        .map(|o| Listed {
            order_no: o.order_no.clone(),
            lot_code: o.lot_code.clone(),
            entry_time: o.entry_time.clone(),
            total_amount: o.total_amount,
            paid_amount: o.paid_amount,
            arrears_amount: o.arrears_amount,
        })
        .collect();
    lane.result_set += 1;
    lane.focus = None;
    let plate = report.plate_no.clone();
    let city = report.city_code.clone().unwrap_or_default();
    let checked = report.orders_checked;
    let mut covered = vec![format!("{plate}: {checked} {}", w.orders_checked)];
    covered.push(if city.is_empty() {
        w.all_cities.to_string()
    } else {
        city.clone()
    });
    if let Some(d) = date {
        covered.push(format!("{} {}", w.entered_in, d.label));
    }
    let mut not_covered = Vec::new();
    if let Some(lot) = ctx.read.get("lot_code") {
        not_covered.push(format!("{lot}: {}", w.by_lot));
    }
    let mut text = format!(
        "{plate} {city}: {} ({}), {}",
        report.status,
        lane.results.len(),
        report.total_arrears
    );
    push_order_list(&mut text, &lane.results);
    let conclusion = if checked == 0 {
        w.no_orders.to_string()
    } else if report.status == ArrearsStatus::HasArrears {
        format!("{} {}. {}", w.owes, report.total_arrears, w.pick_hint)
    } else {
        w.nothing_owed.to_string()
    };
    let summary = format!(
        "{} {} ({} {})",
        report.status, report.total_arrears, checked, w.orders_checked
    );
    Stated {
        text,
        conclusion,
        subject: plate,
        summary,
        covered,
        not_covered,
        limited: checked == 0,
        evidence: Some(w.records),
    }
}

/// An order's fee checked against the rule version in force at its entry.
fn verify_stated(
    lane: &mut Lane,
    v: &Verification,
    rule: &str,
    version: u32,
    date: Option<&DateScope>,
    w: &Words,
) -> Stated {
    let order = v.order_no.clone();
    lane.focus = Some(order.clone());
    let entry = &v.entry_time;
    let covered = vec![format!(
        "{order}: {} ({rule} v{version}, {entry})",
        w.verify_covers
    )];
    let mut not_covered = Vec::new();
    if let Some(d) = date {
        if !d.contains(entry) {
            not_covered.push(format!("{} ({} {entry})", d.label, w.order_dated));
        }
    }
    let mut text = format!(
        "{order} ({} {}, {entry} → {}): {} ({} {}); {rule} v{version}: {}",
        v.city_code,
        v.lot_code,
        v.exit_time,
        v.order_total,
        w.paid,
        v.paid_amount,
        v.simulated_total
    );
    for p in v.pieces.iter().take(8) {
        text.push_str(&format!(
            "\n- {} {}: {} min, {} × → {}{}",
            p.segment,
            p.occurrence,
            p.minutes,
            p.units,
            p.amount,
            if p.cap_applied { " (cap)" } else { "" }
        ));
    }
    let conclusion = if v.result == FeeCheck::Consistent {
        w.consistent.to_string()
    } else {
        format!("{} {}.", w.mismatch, v.difference)
    };
    let summary = format!(
        "{} (order {}, rule {}, difference {})",
        v.result, v.order_total, v.simulated_total, v.difference
    );
    Stated {
        text,
        conclusion,
        subject: order,
        summary,
        covered,
        not_covered,
        limited: false,
        evidence: None,
    }
}

/// The rule version in force at the scope's date (or now).
fn rule_stated(
    lane: &mut Lane,
    r: &RuleInForce,
    rule: &str,
    version: u32,
    date: Option<&DateScope>,
    w: &Words,
) -> Stated {
    lane.results.clear();
    lane.focus = None;
    let covered = vec![match date {
        Some(d) => format!("{rule}: {} {}", w.in_force_on, d.from),
        None => format!("{rule}: {}", w.in_force_now),
    }];
    let text = format!(
        "{rule} «{}», v{version}: {} {} [{}], {} → {}",
        r.name,
        r.city_code,
        r.lot_codes.join(", "),
        r.time_zone,
        r.effective_from,
        r.effective_to.as_deref().unwrap_or("…")
    );
    Stated {
        text,
        conclusion: w.rule_applies.to_string(),
        subject: rule.to_string(),
        summary: format!("{rule} v{version}"),
        covered,
        not_covered: Vec::new(),
        limited: false,
        evidence: None,
    }
}

fn call_subject(call: &BillingCall) -> String {
    match call {
        BillingCall::Arrears { plate_no, .. } => plate_no.clone(),
        BillingCall::Verify { order_no } => order_no.clone(),
        BillingCall::Rule {
            rule_code,
            city_code,
            lot_code,
            ..
        } => rule_code.clone().unwrap_or_else(|| {
            format!(
                "{} {}",
                city_code.clone().unwrap_or_default(),
                lot_code.clone().unwrap_or_default()
            )
        }),
        BillingCall::Context => String::new(),
    }
}

fn remember(lane: &mut Lane, turn: u32, intent: Intent, subject: String, summary: String) {
    lane.history.push(Checked {
        turn,
        intent,
        subject,
        summary,
    });
    if lane.history.len() > HISTORY_KEPT {
        let extra = lane.history.len() - HISTORY_KEPT;
        lane.history.drain(..extra);
    }
}

/// The selected order's listed facts (T3 without an action, T4): no tool.
pub(super) fn item_facts(
    ctx: &Ctx,
    lane: Lane,
    transition: TransitionId,
    fired: String,
) -> TurnOutcome {
    let w = words(&ctx.lang);
    let item = lane
        .focus
        .as_ref()
        .and_then(|sel| lane.results.iter().find(|o| &o.order_no == sel))
        .cloned();
    let mut not_covered = uncovered(ctx.text, w);
    let text = match &item {
        Some(o) => {
            let mut t = format!(
                "{}: {} ({}, {}) — {} {}, {} {}, → {}.",
                w.facts,
                o.order_no,
                o.lot_code,
                o.entry_time,
                w.total,
                o.total_amount,
                w.paid,
                o.paid_amount,
                o.arrears_amount
            );
            let cov = Coverage {
                truth_mode: if not_covered.is_empty() {
                    TruthMode::Confirmed
                } else {
                    TruthMode::Limited
                },
                covered: vec![format!("{}: {}", o.order_no, w.item_covers)],
                not_covered: std::mem::take(&mut not_covered),
            };
            t.push_str(&format!("\n{}", coverage_line(&cov, w)));
            t
        }
        None => w.no_such_item.to_string(),
    };
    reply(
        ctx,
        &lane,
        "SELECTION",
        transition,
        ReplyKind::Answer,
        text,
        Vec::new(),
        fired,
        vec!["answered from the listed facts: no tool ran".into()],
        false,
    )
}

/// T6: the list again, the selected order dropped, the root kept.
pub(super) fn back_to_list(ctx: &Ctx, mut lane: Lane) -> TurnOutcome {
    let w = words(&ctx.lang);
    let dropped = lane.focus.take();
    lane.slots.remove("order_no");
    let root = lane.root.clone();
    let mut text = format!("{}:", w.back_to_list);
    push_order_list(&mut text, &lane.results);
    text.push_str(&format!("\n{}", w.pick_hint));
    let fired = format!(
        "T6: focus {} dropped; root {} ({}{}) kept: the list of result set {} shown again, no tool ran",
        dropped.unwrap_or_else(|| "none".into()),
        root.as_ref().map(|r| r.intent.name()).unwrap_or("?"),
        lane.slot("plate_no").unwrap_or(""),
        root.as_ref()
            .and_then(|r| r.date.as_ref())
            .map(|d| format!(", {}", d.label))
            .unwrap_or_default(),
        lane.result_set
    );
    reply(
        ctx,
        &lane,
        "SELECTION",
        TransitionId::T6DomainPivot,
        ReplyKind::Answer,
        text,
        Vec::new(),
        fired,
        Vec::new(),
        false,
    )
}

/// T8: a question about the last answer, answered from what it showed.
pub(super) fn meta(ctx: &Ctx, lane: Lane, kind: &str) -> TurnOutcome {
    let w = words(&ctx.lang);
    let Some(shown) = lane.shown.clone() else {
        return reply(
            ctx,
            &lane,
            "META",
            TransitionId::T8Meta,
            ReplyKind::Answer,
            w.no_last.into(),
            Vec::new(),
            "T8: a meta question, but no billing answer was shown".into(),
            Vec::new(),
            false,
        );
    };
    let text = match (&shown.facts, kind) {
        (None, _) => format!("{} {}", w.cannot, coverage_line(&shown.coverage, w)),
        (Some(Answered::Arrears(r)), "direction") => {
            if r.orders_checked == 0 {
                w.no_orders.to_string()
            } else if r.status == ArrearsStatus::HasArrears {
                format!(
                    "{} {} ({}); {}.",
                    w.customer_owes_shop,
                    r.total_arrears,
                    lane.results
                        .iter()
                        .map(|o| format!("{} {}", o.order_no, o.arrears_amount))
                        .collect::<Vec<_>>()
                        .join(", "),
                    w.shop_owes_nothing
                )
            } else {
                format!("{} {}.", w.nothing_owed, w.shop_owes_nothing)
            }
        }
        (Some(Answered::Arrears(r)), _) => {
            let largest = lane.results.iter().max_by_key(|o| o.arrears_amount);
            match largest {
                Some(o) => format!(
                    "{} {} = {}; {} {} → {}. {}: {}.",
                    w.owes,
                    r.total_arrears,
                    lane.results
                        .iter()
                        .map(|o| o.arrears_amount.to_string())
                        .collect::<Vec<_>>()
                        .join(" + "),
                    o.order_no,
                    o.total_amount,
                    o.arrears_amount,
                    w.evidence,
                    w.records
                ),
                None => w.nothing_owed.to_string(),
            }
        }
        (Some(Answered::Verify(v)), "direction") => {
            let diff = v.difference.cents();
            let owed = v.order_total.cents().saturating_sub(v.paid_amount.cents());
            let mut t = if diff > 0 {
                format!("{} {}.", w.overcharged, v.difference)
            } else if diff < 0 {
                format!("{} {}.", w.undercharged, Money::from_cents(-diff))
            } else {
                w.consistent.to_string()
            };
            if owed > 0 {
                t.push_str(&format!(
                    " {} {}.",
                    w.customer_owes_shop,
                    Money::from_cents(owed)
                ));
            }
            t
        }
        (Some(Answered::Verify(v)), _) => {
            let total = v.order_total.cents();
            let diff = v.difference.cents();
            if diff == 0 {
                w.consistent.to_string()
            } else {
                // Basis points, exact integer arithmetic: 12.34 %.
                let bp = if total != 0 {
                    diff.abs() * 10_000 / total.abs()
                } else {
                    0
                };
                format!(
                    "{} {} ({} / {}, {}.{:02} %).",
                    w.mismatch,
                    v.difference,
                    v.order_total,
                    v.simulated_total,
                    bp / 100,
                    bp % 100
                )
            }
        }
        (Some(Answered::Rule(r)), _) => {
            format!("{} {} v{}.", w.rule_applies, r.rule_code, r.version_no)
        }
    };
    // Without a record (the tool found nothing) the fields read as blanks.
    let brief = match (&shown.facts, shown.intent) {
        (Some(Answered::Arrears(r)), _) => format!("{} {}", r.status, r.total_arrears),
        (Some(Answered::Verify(v)), _) => format!("{} {}", v.order_no, v.result),
        (Some(Answered::Rule(r)), _) => format!("{} v{}", r.rule_code, r.version_no),
        (None, Intent::RuleExplain) => " v".to_string(),
        (None, _) => " ".to_string(),
    };
    let fired = format!(
        "T8: {kind} question answered from the {} answer of turn {} ({brief}): no tool re-run",
        shown.intent.name(),
        shown.turn,
    );
    reply(
        ctx,
        &lane,
        "META",
        TransitionId::T8Meta,
        ReplyKind::Answer,
        text,
        Vec::new(),
        fired,
        Vec::new(),
        false,
    )
}

/// T9: what was checked in billing this session, from the lane's history.
pub(super) fn recap(ctx: &Ctx, lane: Lane) -> TurnOutcome {
    let w = words(&ctx.lang);
    let asked: Option<String> = ctx
        .read
        .get("plate_no")
        .or_else(|| ctx.read.get("order_no"))
        .or_else(|| ctx.read.get("rule_code"))
        .map(str::to_string);
    let entries: Vec<&Checked> = lane
        .history
        .iter()
        .filter(|c| asked.as_ref().is_none_or(|a| &c.subject == a))
        .collect();
    let text = match (&asked, entries.is_empty()) {
        (Some(a), true) => format!("{a} {}.", w.recap_not_checked),
        (None, true) => w.recap_none.to_string(),
        _ => history_text(w, &entries),
    };
    let fired = format!(
        "T9: billing recap{} from {} recorded answer(s): {} match(es), nothing invented",
        asked.map(|a| format!(" of {a}")).unwrap_or_default(),
        lane.history.len(),
        entries.len()
    );
    reply(
        ctx,
        &lane,
        "RECAP",
        TransitionId::T9Recap,
        ReplyKind::Answer,
        text,
        Vec::new(),
        fired,
        Vec::new(),
        true,
    )
}

/// The recorded answers under the recap's heading, one line each: the
/// turn, the intent, the subject and what the answer said.
pub(super) fn history_text(w: &Words, entries: &[&Checked]) -> String {
    let mut t = format!("{}:", w.recap_intro);
    for c in entries {
        t.push_str(&format!(
            "\n- {} {}: {} {} → {}",
            w.turn,
            c.turn,
            c.intent.name(),
            c.subject,
            c.summary
        ));
    }
    t
}

/// T10: a billing question the records cannot answer (refunds, discounts).
pub(super) fn boundary(ctx: &Ctx, lane: Lane) -> TurnOutcome {
    let w = words(&ctx.lang);
    let parts = uncovered(ctx.text, w);
    let text = format!(
        "{}: {}.",
        w.boundary,
        if parts.is_empty() {
            w.refunds.to_string()
        } else {
            parts.join("; ")
        }
    );
    let fired = format!(
        "T10: outside the billing records ({}): truth_mode unsupported, no tool ran",
        intents::uncovered_parts(ctx.text).join(", ")
    );
    reply(
        ctx,
        &lane,
        "OUT_OF_SCOPE",
        TransitionId::T10Boundary,
        ReplyKind::Answer,
        text,
        Vec::new(),
        fired,
        Vec::new(),
        true,
    )
}

/// The numbered order lines of a listing: order, lot, entry, total / paid → arrears.
fn push_order_list(text: &mut String, results: &[Listed]) {
    for (i, o) in results.iter().enumerate() {
        text.push_str(&format!(
            "\n{}. {} ({}, {}): {} / {} → {}",
            i + 1,
            o.order_no,
            o.lot_code,
            o.entry_time,
            o.total_amount,
            o.paid_amount,
            o.arrears_amount
        ));
    }
}
