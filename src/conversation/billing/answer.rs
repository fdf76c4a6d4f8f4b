//! Billing answers: the tool call and the three-part answer (facts from the
//! tool, evidence from the cited explanation of the rule version used, the
//! conclusion) with its coverage (seed 003's truth_mode: what of the
//! question the data covers and what it cannot); and the answers that run
//! no tool: the selected order's listed facts (T3/T4), the list again (T6),
//! meta questions over the last answer (T8), the billing recap (T9), the
//! boundary (T10).

use super::intents::{self, Intent};
use super::words::{question_for, words, Words};
use super::{
    finish, found, intent_name, save, with_step_if, Ask, BillingCall, Checked, Coverage, Ctx, Lane,
    Listed, Need, Plan, Root, Shown, HISTORY_KEPT,
};
use crate::conversation::{hits, Fetched};
use crate::engine::{registry::TransitionId, Reply, ReplyKind, TurnOutcome};
use serde_json::Value;

fn s(v: &Value, key: &str) -> String {
    match &v[key] {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// An amount string in cents (`"2.50"` → 250), exact.
pub(super) fn cents(amount: &str) -> Option<i64> {
    let t = amount.trim();
    let (negative, t) = match t.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, t),
    };
    let (whole, frac) = t.split_once('.').unwrap_or((t, "0"));
    if frac.len() > 2 || !frac.chars().all(|c| c.is_ascii_digit()) {
        return None;
    }
    let whole: i64 = whole.parse().ok()?;
    let frac: i64 = format!("{frac:0<2}").parse().ok()?;
    let c = whole.checked_mul(100)?.checked_add(frac)?;
    Some(if negative { -c } else { c })
}

fn money(c: i64) -> String {
    let sign = if c < 0 { "-" } else { "" };
    format!("{sign}{}.{:02}", c.abs() / 100, c.abs() % 100)
}

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
    for name in required {
        if let Some(slot) = lane.slots.get(*name) {
            if slot.turn < ctx.turn_no {
                plan.trace.push(format!(
                    "{name} = {} carried from turn {} ({})",
                    slot.value, slot.turn, slot.source
                ));
            }
        }
    }
    // The root frame is the business question: a verify of an order picked
    // from the list (T3/T5, or its clarification) acts on the object and
    // keeps the root it came from.
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
    if let Some(missing) = required.iter().find(|n| lane.slot(n).is_none()) {
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
        return Ok(reply(
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
        ));
    }
    let date = plan.date.clone();
    let call = match intent {
        Intent::ArrearsCheck => BillingCall::Arrears {
            plate_no: lane.slot("plate_no").unwrap_or_default().to_string(),
            city_code: lane.slot("city_code").map(str::to_string),
            from: date.as_ref().map(|d| d.from.clone()),
            to: date.as_ref().map(|d| d.to.clone()),
        },
        Intent::FeeVerify => BillingCall::Verify {
            order_no: lane.slot("order_no").unwrap_or_default().to_string(),
        },
        Intent::RuleExplain => BillingCall::Rule {
            rule_code: lane.slot("rule_code").map(str::to_string),
            city_code: lane.slot("city_code").map(str::to_string),
            lot_code: lane.slot("lot_code").map(str::to_string),
            at: date.as_ref().map(|d| d.from.clone()),
        },
    };
    let need = Need::Billing(call.clone());
    let result = match found(ctx.retrieved, &need) {
        Some(Fetched::Tool(r)) => r.clone(),
        _ => return Err(need),
    };
    plan.trace.push(format!(
        "tool {}: {}",
        call.describe(),
        if result.is_ok() { "ok" } else { "error" }
    ));
    let mut not_covered = uncovered(ctx.text, w);
    let facts = match result {
        Ok(v) => v,
        Err(message) => {
            let coverage = Coverage {
                truth_mode: "unsupported".into(),
                covered: vec![message.clone()],
                not_covered: {
                    not_covered.insert(0, w.cannot.to_string());
                    not_covered
                },
            };
            plan.trace.push("coverage gate: blocked (truth_mode unsupported): the tool found nothing to answer from".into());
            lane.shown = Some(Shown {
                intent,
                turn: ctx.turn_no,
                facts: Value::Null,
                coverage: coverage.clone(),
            });
            remember(
                &mut lane,
                ctx.turn_no,
                intent,
                call_subject(&call),
                message.clone(),
            );
            let body = format!(
                "{}: {message}\n{}: {}.\n{}",
                w.facts,
                w.conclusion,
                w.cannot,
                coverage_line(&coverage, w)
            );
            return Ok(reply(
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
            ));
        }
    };
    // Evidence: the explanation of the rule version the tool used.
    let mut citations = Vec::new();
    let mut evidence = String::new();
    let rule = s(&facts, "rule_code");
    let version = facts["version_no"].as_u64().unwrap_or(0) as u32;
    if !rule.is_empty() && version > 0 {
        let need = Need::Evidence {
            source_id: format!("rule.{rule}"),
            version,
        };
        let Some(found_hits) = hits(ctx.retrieved, &need) else {
            return Err(need);
        };
        match found_hits.first() {
            Some(h) => {
                let lines: Vec<&str> = crate::knowledge::chunk::sentences(&h.text)
                    .into_iter()
                    .take(3)
                    .collect();
                evidence = format!("«{}» — {} [1]", h.title, lines.join(" "));
                citations.push(h.chunk_id.clone());
            }
            None => evidence = format!("{rule} v{version}: {}", w.no_evidence),
        }
    }
    let mut covered = Vec::new();
    let mut truth = "confirmed";
    let (facts_text, conclusion, subject, summary) = match intent {
        Intent::ArrearsCheck => {
            let orders: Vec<Listed> = facts["orders"]
                .as_array()
                .map(|orders| {
                    orders
                        .iter()
                        .map(|o| Listed {
                            order_no: s(o, "order_no"),
                            lot_code: s(o, "lot_code"),
                            entry_time: s(o, "entry_time"),
                            total_amount: s(o, "total_amount"),
                            paid_amount: s(o, "paid_amount"),
                            arrears_amount: s(o, "arrears_amount"),
                        })
                        .collect()
                })
                .unwrap_or_default();
            lane.results = orders;
            lane.result_set += 1;
            lane.focus = None;
            evidence = w.records.to_string();
            let plate = s(&facts, "plate_no");
            let city = s(&facts, "city_code");
            let checked = facts["orders_checked"].as_u64().unwrap_or(0);
            covered.push(format!("{plate}: {checked} {}", w.orders_checked));
            covered.push(if city.is_empty() {
                w.all_cities.to_string()
            } else {
                city.clone()
            });
            if let Some(d) = &date {
                covered.push(format!("{} {}", w.entered_in, d.label));
            }
            if let Some(lot) = ctx.read.get("lot_code") {
                not_covered.push(format!("{lot}: {}", w.by_lot));
            }
            let mut text = format!(
                "{plate} {city}: {} ({}), {}",
                s(&facts, "status"),
                lane.results.len(),
                s(&facts, "total_arrears")
            );
            for (i, o) in lane.results.iter().enumerate() {
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
            let conclusion = if checked == 0 {
                truth = "limited";
                w.no_orders.to_string()
            } else if s(&facts, "status") == "HAS_ARREARS" {
                format!("{} {}. {}", w.owes, s(&facts, "total_arrears"), w.pick_hint)
            } else {
                w.nothing_owed.to_string()
            };
            let summary = format!(
                "{} {} ({} {})",
                s(&facts, "status"),
                s(&facts, "total_arrears"),
                checked,
                w.orders_checked
            );
            (text, conclusion, plate, summary)
        }
        Intent::FeeVerify => {
            let order = s(&facts, "order_no");
            lane.focus = Some(order.clone());
            let entry = s(&facts, "entry_time");
            covered.push(format!(
                "{order}: {} ({rule} v{version}, {entry})",
                w.verify_covers
            ));
            if let Some(d) = &date {
                if !d.contains(&entry) {
                    not_covered.push(format!("{} ({} {entry})", d.label, w.order_dated));
                }
            }
            let mut text = format!(
                "{order} ({} {}, {entry} → {}): {} ({} {}); {rule} v{version}: {}",
                s(&facts, "city_code"),
                s(&facts, "lot_code"),
                s(&facts, "exit_time"),
                s(&facts, "order_total"),
                w.paid,
                s(&facts, "paid_amount"),
                s(&facts, "simulated_total")
            );
            for p in facts["pieces"].as_array().into_iter().flatten().take(8) {
                text.push_str(&format!(
                    "\n- {} {}: {} min, {} × → {}{}",
                    s(p, "segment"),
                    s(p, "occurrence"),
                    s(p, "minutes"),
                    s(p, "units"),
                    s(p, "amount"),
                    if p["cap_applied"] == true {
                        " (cap)"
                    } else {
                        ""
                    }
                ));
            }
            let conclusion = if s(&facts, "result") == "consistent" {
                w.consistent.to_string()
            } else {
                format!("{} {}.", w.mismatch, s(&facts, "difference"))
            };
            let summary = format!(
                "{} (order {}, rule {}, difference {})",
                s(&facts, "result"),
                s(&facts, "order_total"),
                s(&facts, "simulated_total"),
                s(&facts, "difference")
            );
            (text, conclusion, order, summary)
        }
        Intent::RuleExplain => {
            lane.results.clear();
            lane.focus = None;
            covered.push(match &date {
                Some(d) => format!("{rule}: {} {}", w.in_force_on, d.from),
                None => format!("{rule}: {}", w.in_force_now),
            });
            let lots = facts["lot_codes"]
                .as_array()
                .map(|l| {
                    l.iter()
                        .filter_map(Value::as_str)
                        .collect::<Vec<_>>()
                        .join(", ")
                })
                .unwrap_or_default();
            let to = s(&facts, "effective_to");
            let text = format!(
                "{rule} «{}», v{version}: {} {lots} [{}], {} → {}",
                s(&facts, "name"),
                s(&facts, "city_code"),
                s(&facts, "time_zone"),
                s(&facts, "effective_from"),
                if to.is_empty() { "…".to_string() } else { to }
            );
            let summary = format!("{rule} v{version}");
            (text, w.rule_applies.to_string(), rule.clone(), summary)
        }
    };
    if !not_covered.is_empty() {
        truth = "limited";
    }
    let coverage = Coverage {
        truth_mode: truth.into(),
        covered,
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
    remember(&mut lane, ctx.turn_no, intent, subject, summary);
    lane.shown = Some(Shown {
        intent,
        turn: ctx.turn_no,
        facts,
        coverage: coverage.clone(),
    });
    let mut body = format!("{}: {facts_text}", w.facts);
    if !evidence.is_empty() {
        body.push_str(&format!("\n{}: {evidence}", w.evidence));
    }
    body.push_str(&format!("\n{}: {conclusion}", w.conclusion));
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
                    "confirmed"
                } else {
                    "limited"
                }
                .into(),
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
    for (i, o) in lane.results.iter().enumerate() {
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
    let facts = &shown.facts;
    let status = s(facts, "status");
    let text = match (shown.intent, kind) {
        _ if facts.is_null() => format!("{} {}", w.cannot, coverage_line(&shown.coverage, w)),
        (Intent::ArrearsCheck, "direction") => {
            if facts["orders_checked"].as_u64() == Some(0) {
                w.no_orders.to_string()
            } else if status == "HAS_ARREARS" {
                format!(
                    "{} {} ({}); {}.",
                    w.customer_owes_shop,
                    s(facts, "total_arrears"),
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
        (Intent::ArrearsCheck, _) => {
            let largest = lane
                .results
                .iter()
                .max_by_key(|o| cents(&o.arrears_amount).unwrap_or(0));
            match largest {
                Some(o) => format!(
                    "{} {} = {}; {} {} → {}. {}: {}.",
                    w.owes,
                    s(facts, "total_arrears"),
                    lane.results
                        .iter()
                        .map(|o| o.arrears_amount.clone())
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
        (Intent::FeeVerify, "direction") => {
            let diff = cents(&s(facts, "difference")).unwrap_or(0);
            let owed = cents(&s(facts, "order_total")).unwrap_or(0)
                - cents(&s(facts, "paid_amount")).unwrap_or(0);
            let mut t = if diff > 0 {
                format!("{} {}.", w.overcharged, money(diff))
            } else if diff < 0 {
                format!("{} {}.", w.undercharged, money(-diff))
            } else {
                w.consistent.to_string()
            };
            if owed > 0 {
                t.push_str(&format!(" {} {}.", w.customer_owes_shop, money(owed)));
            }
            t
        }
        (Intent::FeeVerify, _) => {
            let total = cents(&s(facts, "order_total")).unwrap_or(0);
            let diff = cents(&s(facts, "difference")).unwrap_or(0);
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
                    s(facts, "difference"),
                    s(facts, "order_total"),
                    s(facts, "simulated_total"),
                    bp / 100,
                    bp % 100
                )
            }
        }
        (Intent::RuleExplain, _) => format!(
            "{} {} v{}.",
            w.rule_applies,
            s(facts, "rule_code"),
            s(facts, "version_no")
        ),
    };
    let fired = format!(
        "T8: {kind} question answered from the {} answer of turn {} ({}): no tool re-run",
        shown.intent.name(),
        shown.turn,
        match shown.intent {
            Intent::ArrearsCheck => format!("{} {}", status, s(facts, "total_arrears")),
            Intent::FeeVerify => format!("{} {}", s(facts, "order_no"), s(facts, "result")),
            Intent::RuleExplain => format!("{} v{}", s(facts, "rule_code"), s(facts, "version_no")),
        }
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
        _ => {
            let mut t = format!("{}:", w.recap_intro);
            for c in &entries {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cents_are_exact() {
        assert_eq!(cents("2.50"), Some(250));
        assert_eq!(cents("-0.5"), Some(-50));
        assert_eq!(cents("19.00"), Some(1900));
        assert_eq!(cents("1.234"), None);
        assert_eq!(money(-250), "-2.50");
        assert_eq!(money(1900), "19.00");
    }
}
