//! The billing lane of the conversation (spec item 13, seed 003 T1–T10,
//! seed 004): a service writer asks whether a plate owes anything, why an
//! order cost what it did, or what a lot's rule is.
//!
//! One job per file: `intents.rs` (what a message asks, by pattern, no
//! model), `slots.rs` (values read and validated by type: plates by region
//! pattern, codes the store knows, dates in en/es/ru/zh), `answer.rs` (the
//! tool call and the three-part answer with its coverage; meta and recap
//! answers from what was shown), `words.rs` (the session language's words).
//! This file holds the lane's state (seed 003's frames) and routes a turn:
//!
//! - a pending slot question takes the reply (T7); a value that does not
//!   validate is asked again once, then the known choices are offered, then
//!   the question is dropped — never the same question three times;
//!   "never mind" cancels it (T11);
//! - a new root question (T1) starts a new root frame (intent, scope, date)
//!   and never inherits the old focus object;
//! - "and for March?" / "and for lot B?" re-run the root with the changed
//!   date or slot (T2); an ordinal picks from the list on screen (T3); "how
//!   much was paid?" acts on the selected order (T4); "that order" resolves
//!   only within the list on screen (T5); "back to the list" drops the
//!   object and keeps the root (T6); "do we owe them or do they owe us?" is
//!   answered from the last answer without a tool (T8); "did we check
//!   沪B20009?" recaps the billing history (T9); a refund or discount is
//!   outside the records (T10).
//!
//! Follow-ups apply only right after a billing reply, so "the first one" in
//! the middle of a diagnosis stays the engine's. Every trace line says what
//! fired with the actual values.

mod answer;
mod intents;
mod slots;
mod words;

use super::{found, lane_state, outcome, with_step, Fetched, Need, Retrieved, CANCEL};
use crate::billing::store::{ArrearsReport, RuleInForce, Verification};
use crate::billing::Money;
use crate::engine::state::SessionState;
use crate::engine::{registry::TransitionId, Engine, Reply, ReplyKind, TurnOutcome};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

pub use slots::{default_plate_patterns, DateScope, Known, PlatePattern};

use intents::Intent;
use slots::Read;
use words::{question_for, slot_label, words};

pub const BILLING_LANE: &str = "billing";

/// A billing tool call the Desk runs against the rules and orders store.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "tool", rename_all = "snake_case")]
pub enum BillingCall {
    /// What the store knows (cities, lots, plates), the plate patterns and
    /// the Desk's date: what slot values are validated against.
    Context,
    /// Unpaid and partly paid orders of a plate, optionally in one city and
    /// entered within `[from, to)` (dates).
    Arrears {
        plate_no: String,
        city_code: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        from: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        to: Option<String>,
    },
    Verify {
        order_no: String,
    },
    /// The rule by code or by city and lot, the version in force at `at`
    /// (a date; now when absent).
    Rule {
        rule_code: Option<String>,
        city_code: Option<String>,
        lot_code: Option<String>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        at: Option<String>,
    },
}

impl BillingCall {
    /// The tool's name and arguments, for the trace.
    pub fn describe(&self) -> String {
        match self {
            BillingCall::Context => "context".into(),
            BillingCall::Arrears {
                plate_no,
                city_code,
                from,
                to,
            } => {
                let mut s = format!("arrears(plate_no={plate_no}");
                if let Some(c) = city_code {
                    s.push_str(&format!(", city_code={c}"));
                }
                if let (Some(f), Some(t)) = (from, to) {
                    s.push_str(&format!(", entered {f}..{t}"));
                }
                s + ")"
            }
            BillingCall::Verify { order_no } => format!("verify(order_no={order_no})"),
            BillingCall::Rule {
                rule_code,
                city_code,
                lot_code,
                at,
            } => {
                let mut parts = Vec::new();
                for (k, v) in [
                    ("rule_code", rule_code),
                    ("city_code", city_code),
                    ("lot_code", lot_code),
                    ("at", at),
                ] {
                    if let Some(v) = v {
                        parts.push(format!("{k}={v}"));
                    }
                }
                format!("rule({})", parts.join(", "))
            }
        }
    }
}

/// What a [`BillingCall`] returns: the store's own records.
#[derive(Debug, Clone, PartialEq)]
pub enum BillingFacts {
    Context(Known),
    Arrears(ArrearsReport),
    Verify(Verification),
    Rule(RuleInForce),
}

impl BillingFacts {
    /// The tool that produced it, for traces.
    pub fn kind(&self) -> &'static str {
        match self {
            BillingFacts::Context(_) => "context",
            BillingFacts::Arrears(_) => "arrears",
            BillingFacts::Verify(_) => "verify",
            BillingFacts::Rule(_) => "rule",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Slot {
    value: String,
    source: SlotSource,
    turn: u32,
}

/// Where a slot's value came from (the trace says it when a later turn
/// carries it).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum SlotSource {
    /// Read from the message that asked.
    Message,
    /// The reply to a targeted question.
    Answer,
    /// Picked from a listed result.
    Selection,
}

impl std::fmt::Display for SlotSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            SlotSource::Message => "message",
            SlotSource::Answer => "answer",
            SlotSource::Selection => "selection",
        })
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Listed {
    order_no: String,
    lot_code: String,
    entry_time: String,
    total_amount: Money,
    paid_amount: Money,
    arrears_amount: Money,
}

/// Seed 003's root frame: the business question and its scope.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Root {
    intent: Intent,
    date: Option<DateScope>,
    turn: u32,
}

/// A slot question waiting for its answer (seed 003's clarification state).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Ask {
    intent: Intent,
    slot: String,
    /// How many times it was asked (1: the question; 2: asked again; 3: the
    /// choices offered).
    asked: u8,
    turn: u32,
    /// The root's date scope the suspended request runs with.
    date: Option<DateScope>,
}

/// The coverage gate of an answer (seed 003's truth_mode).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Coverage {
    truth_mode: TruthMode,
    covered: Vec<String>,
    not_covered: Vec<String>,
}

/// How much of the question the data answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum TruthMode {
    /// All of it.
    Confirmed,
    /// Part of it; the rest is listed as not covered.
    Limited,
    /// None of it: the tool found nothing to answer from.
    Unsupported,
}

impl std::fmt::Display for TruthMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            TruthMode::Confirmed => "confirmed",
            TruthMode::Limited => "limited",
            TruthMode::Unsupported => "unsupported",
        })
    }
}

/// The last answer shown (seed 003's answer context).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Shown {
    intent: Intent,
    turn: u32,
    /// `None` when the tool found nothing to answer from.
    facts: Option<Answered>,
    coverage: Coverage,
}

/// The tool result an answer was made from, kept for the questions about
/// it. Untagged: the state holds the record as the store serialized it, and
/// each kind has fields the others lack.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
enum Answered {
    Arrears(ArrearsReport),
    Verify(Verification),
    Rule(RuleInForce),
}

/// One billing answer of the session, for recaps.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Checked {
    turn: u32,
    intent: Intent,
    subject: String,
    summary: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
struct Lane {
    slots: BTreeMap<String, Slot>,
    root: Option<Root>,
    /// The selected order (seed 003's object frame).
    focus: Option<String>,
    /// The list of orders on screen, in the order shown, and its id.
    results: Vec<Listed>,
    result_set: u32,
    ask: Option<Ask>,
    shown: Option<Shown>,
    history: Vec<Checked>,
}

const HISTORY_KEPT: usize = 30;

impl Lane {
    fn from_state(state: &SessionState) -> Lane {
        state
            .lanes
            .get(BILLING_LANE)
            .and_then(|v| serde_json::from_value(v.clone()).ok())
            .unwrap_or_default()
    }

    fn slot(&self, name: &str) -> Option<&str> {
        self.slots.get(name).map(|s| s.value.as_str())
    }

    fn set(&mut self, name: &str, value: String, source: SlotSource, turn: u32) {
        self.slots.insert(
            name.to_string(),
            Slot {
                value,
                source,
                turn,
            },
        );
    }

    fn root_year(&self) -> Option<i32> {
        self.root
            .as_ref()
            .and_then(|r| r.date.as_ref())
            .and_then(|d| d.from.get(..4)?.parse().ok())
    }
}

/// What the lane decided before any tool ran.
struct Plan {
    intent: Intent,
    transition: TransitionId,
    date: Option<DateScope>,
    /// The first trace line: what fired, with the values.
    fired: String,
    trace: Vec<String>,
}

/// Everything one turn works with.
struct Ctx<'a> {
    engine: &'a Engine,
    state: &'a SessionState,
    text: &'a str,
    turn_no: u32,
    lang: String,
    known: Known,
    read: Read,
    retrieved: &'a [Retrieved],
}

fn billing_context(text: &str, lane: &Lane, just_billed: bool) -> bool {
    // Before the store's codes are known: orders, rule codes and plates by
    // their form are enough to tell a billing question.
    let bare = slots::read(text, &Known::default(), None);
    (lane.ask.is_some() && just_billed)
        || intents::classify(text, &bare, just_billed && lane.shown.is_some()).is_some()
        || (just_billed && lane.shown.is_some())
        || (!lane.history.is_empty()
            && intents::is_recap(text)
            && (just_billed || billing_words(text)))
        || (intents::out_of_scope(text) && billing_words(text))
}

fn billing_words(text: &str) -> bool {
    static W: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(r"(?i)\p{Han}[A-Z][A-Z0-9]{4,6}|\b(order|orders|parking|fee|fees|charge\w*|billing|bill|plate|pedido|cobro|placa|estacionamiento|заказ\w*|оплат\w*|парковк\w*|начисл\w*|номер)\b|订单|停车|收费|车牌|ORD-\d+")
            .expect("billing words")
    });
    W.is_match(text)
}

/// The billing lane's turn, or `None` when the message is not for it.
pub fn turn(
    engine: &Engine,
    state: &SessionState,
    input: &str,
    retrieved: &[Retrieved],
) -> Result<Option<TurnOutcome>, Need> {
    let text: String = input.chars().take(2_000).collect();
    let text = text.trim();
    let lane = Lane::from_state(state);
    let just_billed = state
        .recent_actions
        .last()
        .and_then(|a| a.topic.as_deref())
        .is_some_and(|t| t.starts_with("billing"));
    if !billing_context(text, &lane, just_billed) {
        return Ok(None);
    }
    // What the store knows, to validate the message's values against.
    let need = Need::Billing(BillingCall::Context);
    let (known, context_trace) = match found(retrieved, &need) {
        Some(Fetched::Billing(Ok(BillingFacts::Context(known)))) => (known.clone(), None),
        Some(Fetched::Billing(Ok(other))) => (
            Known::default(),
            Some(format!(
                "store context unavailable (the tool answered {}): codes cannot be validated",
                other.kind()
            )),
        ),
        Some(Fetched::Billing(Err(e))) => (
            Known::default(),
            Some(format!(
                "store context unavailable ({e}): codes cannot be validated"
            )),
        ),
        _ => return Err(need),
    };
    let read = slots::read(text, &known, lane.root_year());
    let ctx = Ctx {
        engine,
        state,
        text,
        turn_no: state.turn + 1,
        lang: state.language.clone(),
        known,
        read,
        retrieved,
    };
    let out = route(&ctx, lane, just_billed)?;
    Ok(out.map(|mut o| {
        if let Some(t) = context_trace {
            o.trace.push(t);
        }
        o
    }))
}

fn route(ctx: &Ctx, mut lane: Lane, just_billed: bool) -> Result<Option<TurnOutcome>, Need> {
    let text = ctx.text;
    let intent = intents::classify(text, &ctx.read, just_billed && lane.shown.is_some());

    // 1. A pending slot question takes the reply right after it was asked;
    // once another lane has answered, the question is stale and dropped.
    if !just_billed {
        lane.ask = None;
    }
    if let Some(ask) = lane.ask.clone() {
        if CANCEL.is_match(text) {
            lane.ask = None;
            let w = words(&ctx.lang);
            let fired = format!(
                "T11: clarification cancelled: the question for {} of {} (turn {}) dropped; root scope kept",
                ask.slot,
                ask.intent.name(),
                ask.turn
            );
            return Ok(Some(answer::reply(
                ctx,
                &lane,
                "CANCEL_CLARIFICATION",
                TransitionId::T11ClarificationCancel,
                ReplyKind::Answer,
                w.dropped.to_string(),
                Vec::new(),
                fired,
                Vec::new(),
                true,
            )));
        }
        // A new question instead of the answer: the question is dropped.
        let new_root = intent.is_some_and(|i| {
            i != ask.intent || ctx.read.values.iter().any(|(n, _)| *n != ask.slot)
        });
        // A sentence about something else ("roof ac not cooling") is not an
        // attempt at the value: the other lanes take it, and the question
        // goes stale.
        let elsewhere = ctx.read.values.is_empty()
            && ctx.read.date.is_none()
            && ctx.read.rejected.is_empty()
            && text.split_whitespace().count() >= 3
            && !billing_words(text)
            && slots::bare_answer(text, &ask.slot, &ctx.known).is_err();
        if elsewhere && intent.is_none() {
            return Ok(None);
        }
        if !new_root {
            return answer_ask(ctx, lane, ask).map(Some);
        }
        lane.ask = None;
    }

    // 2. Recap of the billing history (also mid-diagnosis, when it names a
    // plate, an order or billing): "did we check ORD-022?" is not a verify.
    let names_billing = billing_words(text) || ctx.read.has("plate_no") || ctx.read.has("order_no");
    // Mid-diagnosis, a recap that names nothing of billing ("what have we
    // checked so far?") is the engine's, even right after a billing answer:
    // it lists the diagnosis's facts and then these answers.
    if ctx.state.active_step.is_some()
        && !names_billing
        && crate::engine::lexicon::RECAP.is_match(text)
    {
        return Ok(None);
    }
    if intents::is_recap(text) && !lane.history.is_empty() && (just_billed || names_billing) {
        return Ok(Some(answer::recap(ctx, lane)));
    }

    // 3. A root question.
    if let Some(intent) = intent {
        return root_question(ctx, lane, intent, just_billed).map(Some);
    }

    // 4. Outside the records: a bounded answer.
    if intents::out_of_scope(text) && billing_words(text) {
        return Ok(Some(answer::boundary(ctx, lane)));
    }

    if !just_billed || lane.shown.is_none() {
        return Ok(None);
    }
    follow_up(ctx, lane)
}

/// The reply to a pending slot question.
fn answer_ask(ctx: &Ctx, mut lane: Lane, mut ask: Ask) -> Result<TurnOutcome, Need> {
    let w = words(&ctx.lang);
    let label = slot_label(&ask.slot, &ctx.lang);
    match slots::bare_answer(ctx.text, &ask.slot, &ctx.known) {
        Ok(value) => {
            for (n, v) in &ctx.read.values {
                if *n != ask.slot {
                    lane.set(n, v.clone(), SlotSource::Message, ctx.turn_no);
                }
            }
            lane.set(&ask.slot, value.clone(), SlotSource::Answer, ctx.turn_no);
            lane.ask = None;
            let plan = Plan {
                intent: ask.intent,
                transition: TransitionId::T7ClarificationContinue,
                date: ctx.read.date.clone().or(ask.date),
                fired: format!(
                    "T7: {} = {value} (answer to the question of turn {}, validated); {} resumed",
                    ask.slot,
                    ask.turn,
                    ask.intent.name()
                ),
                trace: Vec::new(),
            };
            answer::run(ctx, lane, plan)
        }
        Err(rejected) => {
            ask.asked += 1;
            let why = if slots::is_ack(ctx.text) {
                "an acknowledgment, not a value".to_string()
            } else {
                format!("not a valid {}", ask.slot)
            };
            let shown = if rejected.value.is_empty() {
                ctx.text.to_string()
            } else {
                rejected.value.clone()
            };
            let choices = choices_for(ctx, &lane, &ask.slot);
            if ask.asked == 2 {
                let mut text = format!("«{shown}» {} {label}.", w.not_valid);
                if !rejected.suggestions.is_empty() {
                    text.push_str(&format!(
                        " {} {}?",
                        w.did_you_mean,
                        rejected.suggestions.join(", ")
                    ));
                }
                text.push_str(&format!(" {}", question_for(&ask.slot, w)));
                let fired = format!(
                    "T7: {shown:?} rejected for {} ({why}); asked again (2 of at most 2 askings, then choices)",
                    ask.slot
                );
                lane.ask = Some(ask);
                return Ok(answer::reply(
                    ctx,
                    &lane,
                    "CLARIFY",
                    TransitionId::T7ClarificationContinue,
                    ReplyKind::Clarification,
                    text,
                    Vec::new(),
                    fired,
                    Vec::new(),
                    false,
                ));
            }
            if ask.asked == 3 && !choices.is_empty() {
                let text = format!(
                    "«{shown}» {} {label}. {}: {}.",
                    w.not_valid,
                    w.choices,
                    choices.join(", ")
                );
                let fired = format!(
                    "T7: {shown:?} rejected for {} ({why}) a second time; offering {} known choice(s) instead of asking again",
                    ask.slot,
                    choices.len()
                );
                lane.ask = Some(ask);
                return Ok(answer::reply(
                    ctx,
                    &lane,
                    "CLARIFY",
                    TransitionId::T7ClarificationContinue,
                    ReplyKind::Clarification,
                    text,
                    Vec::new(),
                    fired,
                    Vec::new(),
                    false,
                ));
            }
            let fired = format!(
                "T10: no valid {} after {} asking(s) ({shown:?}: {why}); {} dropped, not asked a third time",
                ask.slot,
                ask.asked - 1,
                ask.intent.name()
            );
            lane.ask = None;
            Ok(answer::reply(
                ctx,
                &lane,
                ask.intent.name(),
                TransitionId::T10Boundary,
                ReplyKind::Answer,
                w.gave_up.to_string(),
                Vec::new(),
                fired,
                Vec::new(),
                true,
            ))
        }
    }
}

/// The values the lane knows for a slot, offered as choices.
fn choices_for(ctx: &Ctx, lane: &Lane, slot: &str) -> Vec<String> {
    let mut v: Vec<String> = match slot {
        "lot_code" => ctx.known.lots.clone(),
        "city_code" => ctx.known.cities.clone(),
        "plate_no" => ctx.known.plates.clone(),
        "order_no" => lane.results.iter().map(|o| o.order_no.clone()).collect(),
        _ => Vec::new(),
    };
    v.truncate(8);
    v
}

/// A new root question (T1), or a verify on the list on screen (T3 / T5).
fn root_question(
    ctx: &Ctx,
    mut lane: Lane,
    intent: Intent,
    just_billed: bool,
) -> Result<TurnOutcome, Need> {
    let w = words(&ctx.lang);
    let mut trace = Vec::new();
    // "verify the second one" / "check that order" after a list: within the
    // list on screen only.
    if intent == Intent::FeeVerify && !ctx.read.has("order_no") {
        return pick_and_act(ctx, lane, Some(Intent::FeeVerify));
    }
    // The same root question with only its scope changed (T2).
    if just_billed
        && lane.root.as_ref().is_some_and(|r| r.intent == intent)
        && intents::is_follow_up(ctx.text)
    {
        return scope_change(ctx, lane, intent);
    }
    // A new root: a new frame; the old focus object and list are not
    // inherited, nor any root slot but the city (organization scope).
    let dropped_focus = lane.focus.take();
    lane.results.clear();
    lane.slots.retain(|k, _| k == "city_code");
    for (n, v) in &ctx.read.values {
        lane.set(n, v.clone(), SlotSource::Message, ctx.turn_no);
    }
    let mut fired = format!("T1: new root {}", intent.name());
    let named: Vec<String> = ctx
        .read
        .values
        .iter()
        .map(|(n, v)| format!("{n}={v}"))
        .collect();
    if !named.is_empty() {
        fired.push_str(&format!(" with {}", named.join(", ")));
    }
    if let Some(d) = &ctx.read.date {
        fired.push_str(&format!(", date scope {}", d.label));
    }
    if let Some(f) = dropped_focus.filter(|f| ctx.read.get("order_no") != Some(f.as_str())) {
        fired.push_str(&format!("; focus {f} of the old root not inherited"));
    }
    if let Some(c) = lane.slots.get("city_code").filter(|s| s.turn < ctx.turn_no) {
        trace.push(format!(
            "city_code = {} carried from turn {} ({})",
            c.value, c.turn, c.source
        ));
    }
    // A value given for a required slot that did not validate: say so and
    // ask (the first asking).
    for r in &ctx.read.rejected {
        if intent
            .required(lane.slot("rule_code").is_some())
            .contains(&r.slot.as_str())
            && lane.slot(&r.slot).is_none()
        {
            let label = slot_label(&r.slot, &ctx.lang);
            let mut text = format!("«{}» {} {label}.", r.value, w.not_valid);
            if !r.suggestions.is_empty() {
                text.push_str(&format!(
                    " {} {}?",
                    w.did_you_mean,
                    r.suggestions.join(", ")
                ));
            } else {
                let choices = choices_for(ctx, &lane, &r.slot);
                if !choices.is_empty() {
                    text.push_str(&format!(" {}: {}.", w.choices, choices.join(", ")));
                }
            }
            text.push_str(&format!(" {}", question_for(&r.slot, w)));
            lane.ask = Some(Ask {
                intent,
                slot: r.slot.clone(),
                asked: 1,
                turn: ctx.turn_no,
                date: ctx.read.date.clone(),
            });
            lane.root = Some(Root {
                intent,
                date: ctx.read.date.clone(),
                turn: ctx.turn_no,
            });
            fired.push_str(&format!(
                "; {} {:?} rejected (not a value the store knows{}): asked",
                r.slot,
                r.value,
                if r.suggestions.is_empty() {
                    String::new()
                } else {
                    format!(", close to {}", r.suggestions.join("/"))
                }
            ));
            return Ok(answer::reply(
                ctx,
                &lane,
                intent.name(),
                TransitionId::T1RootEntry,
                ReplyKind::Question,
                text,
                Vec::new(),
                fired,
                trace,
                false,
            ));
        }
    }
    let plan = Plan {
        intent,
        transition: TransitionId::T1RootEntry,
        date: ctx.read.date.clone(),
        fired,
        trace,
    };
    answer::run(ctx, lane, plan)
}

/// T2: the root question again with its date or a slot changed.
fn scope_change(ctx: &Ctx, mut lane: Lane, intent: Intent) -> Result<TurnOutcome, Need> {
    let old_date = lane.root.as_ref().and_then(|r| r.date.clone());
    let mut changes = Vec::new();
    let date = match (&ctx.read.date, &old_date) {
        (Some(new), Some(old)) => {
            changes.push(format!("date scope {} replaced {}", new.label, old.label));
            Some(new.clone())
        }
        (Some(new), None) => {
            changes.push(format!("date scope {} set (none before)", new.label));
            Some(new.clone())
        }
        (None, old) => old.clone(),
    };
    for (n, v) in &ctx.read.values {
        let old = lane.slot(n).map(str::to_string);
        if old.as_deref() == Some(v.as_str()) {
            continue;
        }
        changes.push(format!(
            "{n} {v} replaced {}",
            old.unwrap_or_else(|| "none".into())
        ));
        lane.set(n, v.clone(), SlotSource::Message, ctx.turn_no);
    }
    let kept: Vec<String> = lane
        .slots
        .iter()
        .filter(|(k, s)| s.turn < ctx.turn_no && k.as_str() != "order_no")
        .map(|(k, s)| format!("{k}={}", s.value))
        .collect();
    if let Some(f) = lane.focus.take() {
        changes.push(format!("focus {f} dropped with the old scope"));
    }
    lane.results.clear();
    let fired = format!(
        "T2: {}; {} re-run{}",
        if changes.is_empty() {
            "same scope".to_string()
        } else {
            changes.join(", ")
        },
        intent.name(),
        if kept.is_empty() {
            String::new()
        } else {
            format!(" with {} carried", kept.join(", "))
        }
    );
    answer::run(
        ctx,
        lane,
        Plan {
            intent,
            transition: TransitionId::T2ScopeChange,
            date,
            fired,
            trace: Vec::new(),
        },
    )
}

/// An ordinal or a pronoun over the list on screen (T3 / T5), then the
/// action: verify, or the listed facts.
fn pick_and_act(ctx: &Ctx, mut lane: Lane, action: Option<Intent>) -> Result<TurnOutcome, Need> {
    let w = words(&ctx.lang);
    let text = ctx.text;
    let wants_verify = action == Some(Intent::FeeVerify)
        || intents::wants_verify(text)
        || lane.shown.as_ref().map(|s| s.intent) == Some(Intent::FeeVerify);
    let clarify = |lane: &Lane, transition: TransitionId, text: String, fired: String| {
        answer::reply(
            ctx,
            lane,
            "SELECTION",
            transition,
            ReplyKind::Clarification,
            text,
            Vec::new(),
            fired,
            Vec::new(),
            false,
        )
    };
    let (order, transition, fired) = if intents::is_ordinal(text) {
        if lane.results.is_empty() {
            let fired = "T3: an ordinal, but no list of orders is on screen: nothing picked".into();
            return Ok(clarify(
                &lane,
                TransitionId::T3ObjectSelect,
                w.no_list.into(),
                fired,
            ));
        }
        match intents::ordinal(text, lane.results.len())
            .and_then(|i| lane.results.get(i).map(|o| (i, o)))
        {
            Some((i, o)) => (
                o.order_no.clone(),
                TransitionId::T3ObjectSelect,
                format!(
                    "T3: item {} of the list on screen (result set {}, {} item(s)) = {}",
                    i + 1,
                    lane.result_set,
                    lane.results.len(),
                    o.order_no
                ),
            ),
            None => {
                let fired = format!(
                    "T3: the ordinal is past the end of the list on screen ({} item(s))",
                    lane.results.len()
                );
                return Ok(clarify(
                    &lane,
                    TransitionId::T3ObjectSelect,
                    w.no_such_item.into(),
                    fired,
                ));
            }
        }
    } else {
        // A pronoun: the selected order if it is on screen, else the only
        // order of the list on screen; never an order of an older list.
        let on_screen = |o: &str| lane.results.iter().any(|l| l.order_no == o);
        let focus_ok = lane
            .focus
            .clone()
            .filter(|f| on_screen(f) || lane.results.is_empty());
        match (focus_ok, lane.results.len()) {
            (Some(f), _) => (
                f.clone(),
                TransitionId::T5ObjectPronoun,
                format!("T5: \"{text}\" = {f}, the order selected on screen"),
            ),
            (None, 1) => {
                let only = lane.results[0].order_no.clone();
                (
                    only.clone(),
                    TransitionId::T5ObjectPronoun,
                    format!(
                        "T5: \"{text}\" = {only}, the only order of the list on screen (result set {})",
                        lane.result_set
                    ),
                )
            }
            (None, 0) => {
                let fired = "T5: a pronoun, but no order is on screen: nothing resolved".into();
                return Ok(clarify(
                    &lane,
                    TransitionId::T5ObjectPronoun,
                    w.no_list.into(),
                    fired,
                ));
            }
            (None, n) => {
                let list: Vec<String> = lane.results.iter().map(|o| o.order_no.clone()).collect();
                lane.ask = Some(Ask {
                    intent: Intent::FeeVerify,
                    slot: "order_no".into(),
                    asked: 1,
                    turn: ctx.turn_no,
                    date: lane.root.as_ref().and_then(|r| r.date.clone()),
                });
                let fired = format!(
                    "T5: a pronoun with {n} orders on screen and none selected: asked which (not guessed)"
                );
                return Ok(clarify(
                    &lane,
                    TransitionId::T5ObjectPronoun,
                    format!("{} {}", w.which_item, list.join(", ")),
                    fired,
                ));
            }
        }
    };
    lane.focus = Some(order.clone());
    lane.set("order_no", order, SlotSource::Selection, ctx.turn_no);
    if wants_verify {
        let plan = Plan {
            intent: Intent::FeeVerify,
            transition,
            date: lane.root.as_ref().and_then(|r| r.date.clone()),
            fired,
            trace: Vec::new(),
        };
        return answer::run(ctx, lane, plan);
    }
    Ok(answer::item_facts(ctx, lane, transition, fired))
}

/// Follow-ups right after a billing reply.
fn follow_up(ctx: &Ctx, mut lane: Lane) -> Result<Option<TurnOutcome>, Need> {
    let text = ctx.text;
    if intents::is_back(text) && !lane.results.is_empty() {
        return Ok(Some(answer::back_to_list(ctx, lane)));
    }
    if intents::is_ordinal(text) || intents::is_pronoun(text) {
        return pick_and_act(ctx, lane, None).map(Some);
    }
    if intents::is_paid_action(text) && lane.focus.is_some() {
        let fired = format!(
            "T4: short action \"{text}\" on the selected order {}",
            lane.focus.clone().unwrap_or_default()
        );
        return Ok(Some(answer::item_facts(
            ctx,
            lane,
            TransitionId::T4ObjectAction,
            fired,
        )));
    }
    if let Some(kind) = intents::meta_kind(text) {
        return Ok(Some(answer::meta(ctx, lane, kind)));
    }
    let changed = ctx.read.date.is_some() || !ctx.read.values.is_empty();
    let short = text.split_whitespace().count() <= 5;
    if changed && (intents::is_follow_up(text) || short) {
        if let Some(root) = lane.root.clone() {
            return scope_change(ctx, lane, root.intent).map(Some);
        }
    }
    // A rejected value in a follow-up: not taken, said so.
    if let Some(r) = ctx.read.rejected.first().cloned() {
        if let Some(root) = lane.root.clone() {
            lane.ask = Some(Ask {
                intent: root.intent,
                slot: r.slot.clone(),
                asked: 1,
                turn: ctx.turn_no,
                date: root.date,
            });
            let w = words(&ctx.lang);
            let mut t = format!(
                "«{}» {} {}.",
                r.value,
                w.not_valid,
                slot_label(&r.slot, &ctx.lang)
            );
            if !r.suggestions.is_empty() {
                t.push_str(&format!(
                    " {} {}?",
                    w.did_you_mean,
                    r.suggestions.join(", ")
                ));
            }
            t.push_str(&format!(" {}", question_for(&r.slot, w)));
            let fired = format!(
                "T2: {} {:?} rejected (not a value the store knows): asked",
                r.slot, r.value
            );
            return Ok(Some(answer::reply(
                ctx,
                &lane,
                root.intent.name(),
                TransitionId::T2ScopeChange,
                ReplyKind::Question,
                t,
                Vec::new(),
                fired,
                Vec::new(),
                false,
            )));
        }
    }
    Ok(None)
}

/// The billing answers of this session, for a general recap the engine
/// gives mid-diagnosis ("what have we checked so far?"): `None` when the
/// lane answered nothing yet. The lines are the billing recap's (T9), so
/// the two recaps read alike.
pub(crate) fn history_section(state: &SessionState) -> Option<(String, usize)> {
    let lane = Lane::from_state(state);
    if lane.history.is_empty() {
        return None;
    }
    let entries: Vec<&Checked> = lane.history.iter().collect();
    Some((
        answer::history_text(words(&state.language), &entries),
        entries.len(),
    ))
}

fn save(state: &SessionState, lane: &Lane, kind: ReplyKind) -> SessionState {
    let mut st = lane_state(state, None, kind, "billing".into());
    st.lanes.insert(
        BILLING_LANE.into(),
        serde_json::to_value(lane).unwrap_or_default(),
    );
    st
}

/// A finished turn whose first trace line says what fired, with the values.
fn finish(
    st: SessionState,
    intent: &'static str,
    transition: TransitionId,
    reply: Reply,
    fired: String,
    trace: Vec<String>,
) -> TurnOutcome {
    outcome(st, intent, transition, reply, fired, trace)
}

/// Intent names are `&'static str` in the outcome.
fn intent_name(name: &str) -> &'static str {
    match name {
        "RULE_EXPLAIN" => "RULE_EXPLAIN",
        "ARREARS_CHECK" => "ARREARS_CHECK",
        "FEE_VERIFY" => "FEE_VERIFY",
        "SELECTION" => "SELECTION",
        "META" => "META",
        "RECAP" => "RECAP",
        "CLARIFY" => "CLARIFY",
        "CANCEL_CLARIFICATION" => "CANCEL_CLARIFICATION",
        "OUT_OF_SCOPE" => "OUT_OF_SCOPE",
        _ => "BILLING",
    }
}

fn with_step_if(
    engine: &Engine,
    st: &SessionState,
    text: String,
    step: bool,
) -> (String, Option<String>) {
    if step {
        with_step(engine, st, text)
    } else {
        (text, None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A stored state keeps the last answer's record as the store serialized
    /// it; each kind reads back as itself, and a re-serialized one is the same JSON.
    #[test]
    fn a_shown_record_reads_back_as_its_kind() {
        let arrears = r#"{"plate_no":"沪A10020","city_code":null,"status":"HAS_ARREARS","total_arrears":"15.00","orders_checked":1,"orders":[{"order_no":"ORD-022","city_code":"SH","lot_code":"LOT-A","entry_time":"2026-03-05T09:00","exit_time":"2026-03-05T11:10","total_amount":"15.00","paid_amount":"0.00","arrears_amount":"15.00"}]}"#;
        let verify = r#"{"order_no":"ORD-022","city_code":"SH","lot_code":"LOT-A","plate_no":"沪A10020","entry_time":"2026-03-05T09:00","exit_time":"2026-03-05T11:10","result":"mismatch","action":"manual_review","order_total":"15.00","simulated_total":"12.50","difference":"2.50","paid_amount":"0.00","rule_code":"SH-DAYNIGHT-STD","version_no":2,"time_zone":"Asia/Shanghai","pieces":[{"segment":"day","segment_index":0,"type":"periodic","window":"08:00-20:00","occurrence":"2026-03-05","start":"2026-03-05T09:00","end":"2026-03-05T11:10","minutes":130,"units":5,"lines":[{"from_minute":0,"units":5,"unit_price":"2.50","amount":"12.50"}],"uncapped_amount":"12.50","cap":"25.00","cap_applied":false,"amount":"12.50"}]}"#;
        let rule = r#"{"city_code":"SH","effective_from":"2026-03-01T00:00","effective_to":null,"lot_codes":["LOT-A"],"name":"Standard","rule_code":"SH-DAYNIGHT-STD","time_zone":"Asia/Shanghai","version_no":2}"#;
        for (text, kind) in [(arrears, "arrears"), (verify, "verify"), (rule, "rule")] {
            let a: Answered = serde_json::from_str(text).unwrap();
            let got = match &a {
                Answered::Arrears(_) => "arrears",
                Answered::Verify(_) => "verify",
                Answered::Rule(_) => "rule",
            };
            assert_eq!(got, kind);
            let before: serde_json::Value = serde_json::from_str(text).unwrap();
            assert_eq!(serde_json::to_value(&a).unwrap(), before, "{kind}");
        }
        let shown: Shown = serde_json::from_value(serde_json::json!({
            "intent": "arrears_check", "turn": 1, "facts": null,
            "coverage": {"truth_mode": "unsupported", "covered": [], "not_covered": []}
        }))
        .unwrap();
        assert_eq!(shown.facts, None);
    }
}
