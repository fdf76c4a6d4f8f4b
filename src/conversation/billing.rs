//! The billing lane of the conversation (spec item 13, seed 003 T2–T8): a
//! service writer asks whether a plate owes anything, why an order cost what
//! it did, or what a lot's rule is.
//!
//! Routing is deterministic (patterns, no model). Slots `city_code`,
//! `lot_code`, `plate_no`, `order_no` come from the message or are carried
//! from earlier turns, each with its source. A missing required slot gets one
//! targeted question, and the reply resumes the suspended request (T7).
//! "The first one", "el primero", "第一笔" pick from the last listed orders
//! (T3); "that order", "上一单", "verify it" act on the selected one (T5); "how
//! much was paid?" answers from the listed facts (T4); "and for lot B?"
//! re-runs the last request with the changed slot (T2); "is that a lot?"
//! explains the last answer without re-running anything (T8).
//!
//! Answers have three parts: the business facts (tool results), the evidence
//! (the cited rule explanation of the version used), and the conclusion.
//! Follow-ups only apply right after a billing reply, so "the first one" in
//! the middle of a diagnosis stays the engine's.

use super::{found, hits, lane_state, outcome, with_step, Fetched, Need, Retrieved, CANCEL};
use crate::engine::state::SessionState;
use crate::engine::{registry::TransitionId, Engine, Reply, ReplyKind, TurnOutcome};
use regex::Regex;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::LazyLock;

pub const BILLING_LANE: &str = "billing";

/// A billing tool call the Desk runs against the rules and orders store.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "tool", rename_all = "snake_case")]
pub enum BillingCall {
    Arrears {
        plate_no: String,
        city_code: Option<String>,
    },
    Verify {
        order_no: String,
    },
    /// The rule in force now, by code or by city and lot.
    Rule {
        rule_code: Option<String>,
        city_code: Option<String>,
        lot_code: Option<String>,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Intent {
    RuleExplain,
    ArrearsCheck,
    FeeVerify,
}

impl Intent {
    fn name(self) -> &'static str {
        match self {
            Intent::RuleExplain => "RULE_EXPLAIN",
            Intent::ArrearsCheck => "ARREARS_CHECK",
            Intent::FeeVerify => "FEE_VERIFY",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Slot {
    value: String,
    /// `message`, `answer` (to a targeted question), `selection` (picked
    /// from a listed result), or `carried` when reused from an earlier turn.
    source: String,
    turn: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Listed {
    order_no: String,
    lot_code: String,
    total_amount: String,
    paid_amount: String,
    arrears_amount: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
struct Lane {
    slots: BTreeMap<String, Slot>,
    last_intent: Option<Intent>,
    /// The last listed result set, in the order it was shown.
    results: Vec<Listed>,
    selected: Option<String>,
    /// A suspended request waiting for `missing`.
    pending: Option<Intent>,
    missing: Option<String>,
    /// The facts of the last answer, for "is that a lot?".
    last_facts: Option<Value>,
}

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

    fn set(&mut self, name: &str, value: String, source: &str, turn: u32) {
        self.slots.insert(
            name.to_string(),
            Slot {
                value,
                source: source.to_string(),
                turn,
            },
        );
    }
}

fn re(p: &str) -> Regex {
    Regex::new(p).expect("billing lane pattern")
}

static ORDER: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)\b((?:ord|p|ord-no)-?\d{2,})\b"));
static PLATE_NAMED: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)(?:plate|placa|matr[ií]cula|номер\w*|госномер\w*|车牌号?)\s*(?:no\.?|number|#|:|n[uú]mero)?\s*(\p{Han}?[A-Z0-9][A-Z0-9]{3,8})",
    )
});
static PLATE_BARE: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(\p{Han}[A-Z][A-Z0-9]{4,6})|\b([0-9][A-Z]{2,3}[0-9]{2,4}|[A-Z]{2,3}[0-9]{3,5})\b")
});
static LOT: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\blot-([A-Z0-9]{1,4})\b|\b(?:lot|lote|площадк\w*|стоянк\w*|парковк\w*)\s+([A-Z0-9]{1,3})\b|\b([A-Z])\s*(?:场|停车场)",
    )
});
static CITY: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?i)\b(?:city|ciudad|город\w*)\s+([A-Z]{2,4})\b|\bin ([A-Z]{2,3})\b|城市\s*([A-Z]{2,4})")
});
static CITY_NAMES: &[(&str, &str)] = &[
    ("上海", "SH"),
    ("杭州", "HZ"),
    ("西雅图", "SEA"),
    ("Seattle", "SEA"),
    ("Portland", "PDX"),
];
static RULE_CODE: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)\b(?:rule|regla|правило|规则)\s+([A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+)"));

static ARREARS: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(owe[sd]?|owing|arrears?|unpaid|balance due|deb[ea]n?|deuda\w*|adeud\w*|pendientes? de pago|долг\w*|задолж\w*|неоплач\w*)\b|欠费|欠款|未付|没付|欠",
    )
});
static VERIFY: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(verify|verif\w*|check|correct|right|wrong|overcharg\w*|charged|calculated|why|dispute\w*|comprueb\w*|revis\w*|cobr\w*|провер\w*|списал\w*|начисл\w*|правильн\w*|почему)\b|核对|核实|为什么|对吗|多收|怎么算",
    )
});
static RULE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(rule|tariff|rates?|pricing|regla\w*|tarifa\w*|правил\w*|тариф\w*)\b|规则|收费标准|怎么收费|计费",
    )
});
static RULE_CONTEXT: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(lot|lote|parking|storage|billing|fee|city|estacionamiento|площадк\w*|стоянк\w*|парковк\w*)\b|场|停车",
    )
});
static FIRST: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)\b(first|1st|primer[oa]?|перв\w*)\b|第一|头一"));
static SECOND: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)\b(second|2nd|segund[oa]|втор\w*)\b|第二"));
static THIRD: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)\b(third|3rd|tercer[oa]?|трет\w*)\b|第三"));
static LAST: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)\b(last one|the last|[uú]ltim[oa]|последн\w*)\b|最后一"));
static PRONOUN: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(that|this|the same) (one|order)\b|\b(verify|check) it\b|\b(ese|esa|este|esta) (pedido|orden)\b|\b(verif\w*|revis\w*)(lo|la)\b|\b(этот|эта|этого|его|тот)\b|这笔|那笔|上一单|这单|该订单",
    )
});
static PAID: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)\b(paid|pay|pagad[oa]|pag[oó]|оплач\w*|заплат\w*)\b|付了|支付"));
static FOLLOW_UP: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?i)^\W*(and|what about|how about|same for|y|и|а|что насчёт)\b|^\W*(那|那么)")
});
static META: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(is (that|this|it) (a lot|much|normal|high|too much|right)|es mucho|es normal|это много|это нормально|много ли)\b|多吗|贵吗|正常吗|^\W*why\W*$",
    )
});

/// Slots named in a message.
fn extract(text: &str) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    if let Some(m) = ORDER.captures(text).and_then(|c| c.get(1)) {
        out.push(("order_no", m.as_str().to_ascii_uppercase()));
    }
    let plate = PLATE_NAMED
        .captures(text)
        .and_then(|c| c.get(1))
        .or_else(|| {
            PLATE_BARE
                .captures(text)
                .and_then(|c| c.get(1).or_else(|| c.get(2)))
        })
        .map(|m| m.as_str().to_string())
        .filter(|p| !ORDER.is_match(p));
    if let Some(p) = plate {
        out.push(("plate_no", p.to_uppercase()));
    }
    if let Some(c) = LOT.captures(text) {
        if let Some(m) = c.get(1).or_else(|| c.get(2)).or_else(|| c.get(3)) {
            out.push((
                "lot_code",
                format!("LOT-{}", m.as_str().to_ascii_uppercase()),
            ));
        }
    }
    let city = CITY
        .captures(text)
        .and_then(|c| c.get(1).or_else(|| c.get(2)).or_else(|| c.get(3)))
        .map(|m| m.as_str().to_ascii_uppercase())
        .or_else(|| {
            CITY_NAMES
                .iter()
                .find(|(name, _)| text.contains(name))
                .map(|(_, code)| code.to_string())
        });
    if let Some(c) = city {
        out.push(("city_code", c));
    }
    if let Some(m) = RULE_CODE.captures(text).and_then(|c| c.get(1)) {
        out.push(("rule_code", m.as_str().to_ascii_uppercase()));
    }
    out
}

fn classify(text: &str, slots: &[(&str, String)]) -> Option<Intent> {
    let has = |name: &str| slots.iter().any(|(n, _)| *n == name);
    // A named order is verified (its answer says what was paid, so "does
    // ORD-005 owe anything?" is answered too); "check the second one" is a
    // follow-up (an ordinal over the last list), handled after a billing
    // reply only.
    if has("order_no") {
        return Some(Intent::FeeVerify);
    }
    if ARREARS.is_match(text) {
        return Some(Intent::ArrearsCheck);
    }
    if RULE.is_match(text) && (RULE_CONTEXT.is_match(text) || has("lot_code") || has("rule_code")) {
        return Some(Intent::RuleExplain);
    }
    None
}

fn ordinal(text: &str, n: usize) -> Option<usize> {
    let i = if FIRST.is_match(text) {
        0
    } else if SECOND.is_match(text) {
        1
    } else if THIRD.is_match(text) {
        2
    } else if LAST.is_match(text) {
        n.checked_sub(1)?
    } else {
        return None;
    };
    Some(i)
}

struct Words {
    facts: &'static str,
    evidence: &'static str,
    conclusion: &'static str,
    ask_plate: &'static str,
    ask_order: &'static str,
    ask_lot: &'static str,
    ask_city: &'static str,
    still_need: &'static str,
    dropped: &'static str,
    no_evidence: &'static str,
    records: &'static str,
    owes: &'static str,
    nothing_owed: &'static str,
    pick_hint: &'static str,
    consistent: &'static str,
    mismatch: &'static str,
    rule_applies: &'static str,
    cannot: &'static str,
    no_such_item: &'static str,
    paid: &'static str,
}

fn words(lang: &str) -> &'static Words {
    static EN: Words = Words {
        facts: "Facts",
        evidence: "Evidence",
        conclusion: "Conclusion",
        ask_plate: "Which plate number should I check?",
        ask_order: "Which order number should I verify?",
        ask_lot: "Which lot (for example LOT-A)?",
        ask_city: "Which city code (for example SH)?",
        still_need: "I still need this to continue",
        dropped: "Okay, I dropped that billing question.",
        no_evidence: "no rule explanation is stored for this version",
        records: "the parking order records (arrears = total − paid)",
        owes: "The customer owes",
        nothing_owed: "Nothing is owed on this plate.",
        pick_hint: "Say \"the first one\" (or second, ...) to verify an order.",
        consistent: "Consistent: the order matches the rule to the cent → auto-approve.",
        mismatch: "Mismatch → manual review. The order differs from the rule by",
        rule_applies: "This is the rule in force now for that scope.",
        cannot: "I can't answer that from the billing records",
        no_such_item: "There is no such item in the last list.",
        paid: "paid",
    };
    static ES: Words = Words {
        facts: "Hechos",
        evidence: "Evidencia",
        conclusion: "Conclusión",
        ask_plate: "¿Qué placa reviso?",
        ask_order: "¿Qué número de pedido verifico?",
        ask_lot: "¿Qué lote (por ejemplo LOT-A)?",
        ask_city: "¿Qué código de ciudad (por ejemplo SH)?",
        still_need: "Todavía necesito esto para seguir",
        dropped: "De acuerdo, dejé esa consulta de cobro.",
        no_evidence: "no hay explicación guardada para esta versión de la regla",
        records: "los registros de pedidos (adeudo = total − pagado)",
        owes: "El cliente debe",
        nothing_owed: "Esta placa no debe nada.",
        pick_hint: "Diga \"el primero\" (o el segundo, ...) para verificar un pedido.",
        consistent:
            "Consistente: el pedido coincide con la regla al centavo → aprobación automática.",
        mismatch: "No coincide → revisión manual. El pedido difiere de la regla en",
        rule_applies: "Esta es la regla vigente para ese ámbito.",
        cannot: "No puedo responder eso con los registros de cobro",
        no_such_item: "No hay ese elemento en la última lista.",
        paid: "pagado",
    };
    static RU: Words = Words {
        facts: "Факты",
        evidence: "Основание",
        conclusion: "Вывод",
        ask_plate: "Какой госномер проверить?",
        ask_order: "Какой номер заказа проверить?",
        ask_lot: "Какая площадка (например, LOT-A)?",
        ask_city: "Какой код города (например, SH)?",
        still_need: "Без этого не продолжить",
        dropped: "Хорошо, вопрос по оплате снят.",
        no_evidence: "пояснение к этой версии правила не сохранено",
        records: "записи заказов (долг = сумма − оплачено)",
        owes: "Клиент должен",
        nothing_owed: "По этому номеру долгов нет.",
        pick_hint: "Скажите «первый» (или второй, ...), чтобы проверить заказ.",
        consistent: "Совпадает: заказ соответствует правилу до копейки → автоодобрение.",
        mismatch: "Не совпадает → ручная проверка. Расхождение с правилом:",
        rule_applies: "Это правило действует сейчас для этой площадки.",
        cannot: "Не могу ответить по данным об оплате",
        no_such_item: "В последнем списке такого пункта нет.",
        paid: "оплачено",
    };
    match lang {
        "es" => &ES,
        "ru" => &RU,
        _ => &EN,
    }
}

fn s(v: &Value, key: &str) -> String {
    match &v[key] {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

fn cents(amount: &str) -> Option<i64> {
    let (whole, frac) = amount
        .trim()
        .split_once('.')
        .unwrap_or((amount.trim(), "0"));
    let negative = whole.starts_with('-');
    let whole: i64 = whole.trim_start_matches('-').parse().ok()?;
    let frac: i64 = format!("{frac:0<2}")[..2].parse().ok()?;
    let c = whole * 100 + frac;
    Some(if negative { -c } else { c })
}

/// What the lane decided before any tool ran.
struct Plan {
    intent: Intent,
    transition: TransitionId,
    trace: Vec<String>,
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
    let mut lane = Lane::from_state(state);
    let turn_no = state.turn + 1;
    let lang = state.language.clone();
    let w = words(&lang);
    let slots = extract(text);
    let just_billed = state
        .recent_actions
        .last()
        .and_then(|a| a.topic.as_deref())
        .is_some_and(|t| t.starts_with("billing"));

    // A suspended request takes the reply as the missing slot.
    if let (Some(intent), Some(missing)) = (lane.pending, lane.missing.clone()) {
        if CANCEL.is_match(text) {
            lane.pending = None;
            lane.missing = None;
            let st = save(state, &lane, ReplyKind::Answer);
            let (reply_text, step_id) = with_step(engine, &st, w.dropped.to_string());
            return Ok(Some(outcome(
                st,
                "CANCEL",
                TransitionId::T6DomainPivot,
                Reply {
                    kind: ReplyKind::Answer,
                    text: reply_text,
                    step_id,
                    citations: Vec::new(),
                },
                vec![format!("suspended {} dropped", intent.name())],
            )));
        }
        let value = slots
            .iter()
            .find(|(n, _)| *n == missing)
            .map(|(_, v)| v.clone())
            .or_else(|| bare_answer(text, &missing));
        let Some(value) = value else {
            let st = save(state, &lane, ReplyKind::Clarification);
            return Ok(Some(outcome(
                st,
                intent.name(),
                TransitionId::T7ClarificationContinue,
                Reply {
                    kind: ReplyKind::Clarification,
                    text: format!("{}: {}", w.still_need, question_for(&missing, w)),
                    step_id: None,
                    citations: Vec::new(),
                },
                vec![format!("no {missing} in the reply; the question stands")],
            )));
        };
        for (n, v) in &slots {
            if *n != missing {
                lane.set(n, v.clone(), "message", turn_no);
            }
        }
        lane.set(&missing, value.clone(), "answer", turn_no);
        lane.pending = None;
        lane.missing = None;
        let plan = Plan {
            intent,
            transition: TransitionId::T7ClarificationContinue,
            trace: vec![format!(
                "{missing} = {value} (answer to the targeted question); {} resumed",
                intent.name()
            )],
        };
        return run(engine, state, lane, plan, retrieved).map(Some);
    }

    if let Some(intent) = classify(text, &slots) {
        let mut trace = Vec::new();
        for (n, v) in &slots {
            lane.set(n, v.clone(), "message", turn_no);
            trace.push(format!("{n} = {v} (from the message)"));
        }
        let mut transition = TransitionId::T1RootEntry;
        // "verify the second one" / "check that order" after a list.
        if intent == Intent::FeeVerify && !slots.iter().any(|(n, _)| *n == "order_no") {
            if let Some(pick) = pick(&mut lane, text, turn_no, &mut trace) {
                transition = pick;
            }
        }
        return run(
            engine,
            state,
            lane,
            Plan {
                intent,
                transition,
                trace,
            },
            retrieved,
        )
        .map(Some);
    }

    if !just_billed || lane.last_intent.is_none() {
        return Ok(None);
    }
    let mut trace = Vec::new();
    // An ordinal or a pronoun over the last list.
    let wants_verify = VERIFY.is_match(text);
    if ordinal(text, lane.results.len()).is_some() || PRONOUN.is_match(text) {
        let Some(transition) = pick(&mut lane, text, turn_no, &mut trace) else {
            let st = save(state, &lane, ReplyKind::Clarification);
            return Ok(Some(outcome(
                st,
                "SELECTION",
                TransitionId::T3ObjectSelect,
                Reply {
                    kind: ReplyKind::Clarification,
                    text: w.no_such_item.to_string(),
                    step_id: None,
                    citations: Vec::new(),
                },
                trace,
            )));
        };
        if wants_verify || lane.last_intent == Some(Intent::FeeVerify) {
            let plan = Plan {
                intent: Intent::FeeVerify,
                transition,
                trace,
            };
            return run(engine, state, lane, plan, retrieved).map(Some);
        }
        return Ok(Some(item_facts(
            state,
            lane,
            transition,
            "SELECTION",
            trace,
        )));
    }
    if PAID.is_match(text) && lane.selected.is_some() {
        trace.push("short action on the selected order, answered from the listed facts".into());
        return Ok(Some(item_facts(
            state,
            lane,
            TransitionId::T4ObjectAction,
            "SELECTION",
            trace,
        )));
    }
    if META.is_match(text) {
        return Ok(Some(meta(state, lane)));
    }
    if FOLLOW_UP.is_match(text) && !slots.is_empty() {
        let intent = lane.last_intent.unwrap_or(Intent::RuleExplain);
        for (n, v) in &slots {
            let old = lane.slot(n).map(str::to_string);
            lane.set(n, v.clone(), "message", turn_no);
            trace.push(format!(
                "{n}: {} → {v} (scope change); other slots carried",
                old.unwrap_or_else(|| "none".into())
            ));
        }
        let plan = Plan {
            intent,
            transition: TransitionId::T2ScopeChange,
            trace,
        };
        return run(engine, state, lane, plan, retrieved).map(Some);
    }
    Ok(None)
}

/// A reply that is just the value (a plate typed alone, "SH", "B").
fn bare_answer(text: &str, missing: &str) -> Option<String> {
    let t = text.trim().trim_end_matches(['.', '!', '?']);
    if t.is_empty() || t.chars().count() > 16 || t.contains(' ') {
        return None;
    }
    Some(match missing {
        "lot_code" if !t.to_ascii_uppercase().starts_with("LOT-") => {
            format!("LOT-{}", t.to_ascii_uppercase())
        }
        _ => t.to_uppercase(),
    })
}

fn question_for(slot: &str, w: &Words) -> &'static str {
    match slot {
        "plate_no" => w.ask_plate,
        "order_no" => w.ask_order,
        "lot_code" => w.ask_lot,
        _ => w.ask_city,
    }
}

/// Resolves an ordinal or pronoun to an order: the transition it implies.
fn pick(
    lane: &mut Lane,
    text: &str,
    turn_no: u32,
    trace: &mut Vec<String>,
) -> Option<TransitionId> {
    if let Some(i) = ordinal(text, lane.results.len()) {
        let item = lane.results.get(i)?.order_no.clone();
        trace.push(format!("item {} of the last list = {item}", i + 1));
        lane.selected = Some(item.clone());
        lane.set("order_no", item, "selection", turn_no);
        return Some(TransitionId::T3ObjectSelect);
    }
    if PRONOUN.is_match(text) {
        let item = lane
            .selected
            .clone()
            .or_else(|| lane.slot("order_no").map(str::to_string))?;
        trace.push(format!("\"that order\" = {item}"));
        lane.set("order_no", item, "selection", turn_no);
        return Some(TransitionId::T5ObjectPronoun);
    }
    None
}

fn save(state: &SessionState, lane: &Lane, kind: ReplyKind) -> SessionState {
    let mut st = lane_state(state, None, kind, "billing".into());
    st.lanes.insert(
        BILLING_LANE.into(),
        serde_json::to_value(lane).unwrap_or_default(),
    );
    st
}

fn run(
    engine: &Engine,
    state: &SessionState,
    mut lane: Lane,
    mut plan: Plan,
    retrieved: &[Retrieved],
) -> Result<TurnOutcome, Need> {
    let lang = state.language.clone();
    let w = words(&lang);
    let intent = plan.intent;
    // Required slots, and what is carried.
    let required: &[&str] = match intent {
        Intent::ArrearsCheck => &["plate_no"],
        Intent::FeeVerify => &["order_no"],
        Intent::RuleExplain if lane.slot("rule_code").is_some() => &[],
        Intent::RuleExplain => &["lot_code", "city_code"],
    };
    for name in required {
        if let Some(slot) = lane.slots.get(*name) {
            if slot.turn < state.turn + 1 {
                plan.trace.push(format!(
                    "{name} = {} carried from turn {} ({})",
                    slot.value, slot.turn, slot.source
                ));
            }
        }
    }
    if let Some(missing) = required.iter().find(|n| lane.slot(n).is_none()) {
        lane.pending = Some(intent);
        lane.missing = Some(missing.to_string());
        plan.trace.push(format!(
            "{} needs {missing}: one targeted question",
            intent.name()
        ));
        let st = save(state, &lane, ReplyKind::Question);
        return Ok(outcome(
            st,
            intent.name(),
            plan.transition,
            Reply {
                kind: ReplyKind::Question,
                text: question_for(missing, w).to_string(),
                step_id: None,
                citations: Vec::new(),
            },
            plan.trace,
        ));
    }
    let call = match intent {
        Intent::ArrearsCheck => BillingCall::Arrears {
            plate_no: lane.slot("plate_no").unwrap_or_default().to_string(),
            city_code: lane.slot("city_code").map(str::to_string),
        },
        Intent::FeeVerify => BillingCall::Verify {
            order_no: lane.slot("order_no").unwrap_or_default().to_string(),
        },
        Intent::RuleExplain => BillingCall::Rule {
            rule_code: lane.slot("rule_code").map(str::to_string),
            city_code: lane.slot("city_code").map(str::to_string),
            lot_code: lane.slot("lot_code").map(str::to_string),
        },
    };
    let need = Need::Billing(call.clone());
    let result = match found(retrieved, &need) {
        Some(Fetched::Tool(r)) => r.clone(),
        _ => return Err(need),
    };
    plan.trace.push(format!(
        "tool {}: {}",
        serde_json::to_value(&call)
            .map(|v| v["tool"].as_str().unwrap_or("").to_string())
            .unwrap_or_default(),
        if result.is_ok() { "ok" } else { "error" }
    ));
    lane.last_intent = Some(intent);
    let facts = match result {
        Ok(v) => v,
        Err(message) => {
            lane.last_facts = None;
            let st = save(state, &lane, ReplyKind::Answer);
            let body = format!("{}: {message}\n{}: {}.", w.facts, w.conclusion, w.cannot);
            let (reply_text, step_id) = with_step(engine, &st, body);
            return Ok(outcome(
                st,
                intent.name(),
                plan.transition,
                Reply {
                    kind: ReplyKind::Answer,
                    text: reply_text,
                    step_id,
                    citations: Vec::new(),
                },
                plan.trace,
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
        let Some(found_hits) = hits(retrieved, &need) else {
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
    let (facts_text, conclusion) = match intent {
        Intent::ArrearsCheck => {
            lane.results = facts["orders"]
                .as_array()
                .map(|orders| {
                    orders
                        .iter()
                        .map(|o| Listed {
                            order_no: s(o, "order_no"),
                            lot_code: s(o, "lot_code"),
                            total_amount: s(o, "total_amount"),
                            paid_amount: s(o, "paid_amount"),
                            arrears_amount: s(o, "arrears_amount"),
                        })
                        .collect()
                })
                .unwrap_or_default();
            lane.selected = None;
            evidence = w.records.to_string();
            let mut text = format!(
                "{} {}: {} ({}), {}",
                s(&facts, "plate_no"),
                s(&facts, "city_code"),
                s(&facts, "status"),
                lane.results.len(),
                s(&facts, "total_arrears")
            );
            for (i, o) in lane.results.iter().enumerate() {
                text.push_str(&format!(
                    "\n{}. {} ({}): {} / {} → {}",
                    i + 1,
                    o.order_no,
                    o.lot_code,
                    o.total_amount,
                    o.paid_amount,
                    o.arrears_amount
                ));
            }
            let conclusion = if s(&facts, "status") == "HAS_ARREARS" {
                format!("{} {}. {}", w.owes, s(&facts, "total_arrears"), w.pick_hint)
            } else {
                w.nothing_owed.to_string()
            };
            (text, conclusion)
        }
        Intent::FeeVerify => {
            lane.selected = Some(s(&facts, "order_no"));
            let mut text = format!(
                "{} ({} {}, {} → {}): {} ({} {}); {} v{}: {}",
                s(&facts, "order_no"),
                s(&facts, "city_code"),
                s(&facts, "lot_code"),
                s(&facts, "entry_time"),
                s(&facts, "exit_time"),
                s(&facts, "order_total"),
                w.paid,
                s(&facts, "paid_amount"),
                rule,
                version,
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
            (text, conclusion)
        }
        Intent::RuleExplain => {
            let text = format!(
                "{} «{}», v{}: {} {} [{}], {} → {}",
                rule,
                s(&facts, "name"),
                version,
                s(&facts, "city_code"),
                facts["lot_codes"]
                    .as_array()
                    .map(|l| l
                        .iter()
                        .filter_map(Value::as_str)
                        .collect::<Vec<_>>()
                        .join(", "))
                    .unwrap_or_default(),
                s(&facts, "time_zone"),
                s(&facts, "effective_from"),
                {
                    let to = s(&facts, "effective_to");
                    if to.is_empty() {
                        "…".to_string()
                    } else {
                        to
                    }
                }
            );
            (text, w.rule_applies.to_string())
        }
    };
    lane.last_facts = Some(facts);
    let mut body = format!("{}: {facts_text}", w.facts);
    if !evidence.is_empty() {
        body.push_str(&format!("\n{}: {evidence}", w.evidence));
    }
    body.push_str(&format!("\n{}: {conclusion}", w.conclusion));
    if let Some(c) = citations.first() {
        body.push_str(&format!("\n\n[1] {c}"));
    }
    let st = save(state, &lane, ReplyKind::Answer);
    let (reply_text, step_id) = with_step(engine, &st, body);
    Ok(outcome(
        st,
        intent.name(),
        plan.transition,
        Reply {
            kind: ReplyKind::Answer,
            text: reply_text,
            step_id,
            citations,
        },
        plan.trace,
    ))
}

/// The listed facts of the selected order (T3 without an action, T4).
fn item_facts(
    state: &SessionState,
    lane: Lane,
    transition: TransitionId,
    intent: &'static str,
    mut trace: Vec<String>,
) -> TurnOutcome {
    let w = words(&state.language);
    let item = lane
        .selected
        .as_ref()
        .and_then(|sel| lane.results.iter().find(|o| &o.order_no == sel))
        .cloned();
    let text = match &item {
        Some(o) => format!(
            "{}: {} ({}) — total {}, paid {}, owes {}.",
            w.facts, o.order_no, o.lot_code, o.total_amount, o.paid_amount, o.arrears_amount
        ),
        None => w.no_such_item.to_string(),
    };
    trace.push("answered from the listed facts: no tool ran".into());
    let st = save(state, &lane, ReplyKind::Answer);
    outcome(
        st,
        intent,
        transition,
        Reply {
            kind: ReplyKind::Answer,
            text,
            step_id: None,
            citations: Vec::new(),
        },
        trace,
    )
}

/// "Is that a lot?": the last answer explained from its recorded facts.
fn meta(state: &SessionState, lane: Lane) -> TurnOutcome {
    let w = words(&state.language);
    let facts = lane.last_facts.clone().unwrap_or(Value::Null);
    let text = match lane.last_intent {
        Some(Intent::ArrearsCheck) => {
            let largest = lane
                .results
                .iter()
                .max_by_key(|o| cents(&o.arrears_amount).unwrap_or(0));
            match largest {
                Some(o) => format!(
                    "{} {} = {} × ({}); {} {} → {}. {}: {}.",
                    w.owes,
                    s(&facts, "total_arrears"),
                    lane.results.len(),
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
        Some(Intent::FeeVerify) => {
            let total = cents(&s(&facts, "order_total")).unwrap_or(0);
            let diff = cents(&s(&facts, "difference")).unwrap_or(0);
            if diff == 0 {
                w.consistent.to_string()
            } else {
                let pct = if total != 0 {
                    (diff.abs() as f64) * 100.0 / (total as f64)
                } else {
                    0.0
                };
                format!(
                    "{} {} ({} {}, {:.1} %).",
                    w.mismatch,
                    s(&facts, "difference"),
                    s(&facts, "order_total"),
                    s(&facts, "simulated_total"),
                    pct
                )
            }
        }
        _ => format!(
            "{} {} v{}.",
            w.rule_applies,
            s(&facts, "rule_code"),
            s(&facts, "version_no")
        ),
    };
    let st = save(state, &lane, ReplyKind::Answer);
    outcome(
        st,
        "META",
        TransitionId::T8Meta,
        Reply {
            kind: ReplyKind::Answer,
            text,
            step_id: None,
            citations: Vec::new(),
        },
        vec!["explained from the last answer's recorded facts: nothing re-run".into()],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_come_from_the_message_in_several_scripts() {
        let got = extract("does plate 7ABC123 owe anything in SH?");
        assert!(got.contains(&("plate_no", "7ABC123".into())), "{got:?}");
        assert!(got.contains(&("city_code", "SH".into())), "{got:?}");
        let got = extract("沪A10009有欠费吗");
        assert!(got.contains(&("plate_no", "沪A10009".into())), "{got:?}");
        let got = extract("why was order ORD-022 charged 15?");
        assert!(got.contains(&("order_no", "ORD-022".into())), "{got:?}");
        let got = extract("and for lot B?");
        assert_eq!(got, vec![("lot_code", "LOT-B".to_string())]);
        let got = extract("¿y para el lote b?");
        assert_eq!(got, vec![("lot_code", "LOT-B".to_string())]);
    }

    #[test]
    fn intents_route_deterministically_and_leave_diagnosis_alone() {
        assert_eq!(
            classify(
                "does plate 7ABC123 owe anything?",
                &extract("does plate 7ABC123 owe anything?")
            ),
            Some(Intent::ArrearsCheck)
        );
        assert_eq!(
            classify(
                "why was ORD-022 charged 15?",
                &extract("why was ORD-022 charged 15?")
            ),
            Some(Intent::FeeVerify)
        );
        assert_eq!(
            classify("explain the lot B rule", &extract("explain the lot B rule")),
            Some(Intent::RuleExplain)
        );
        for diag in [
            "check the fuse",
            "rule out the capacitor",
            "the first one is 12 V",
            "why?",
        ] {
            assert_eq!(classify(diag, &extract(diag)), None, "{diag}");
        }
    }

    #[test]
    fn ordinals_in_english_spanish_russian_and_chinese() {
        assert_eq!(ordinal("the first one", 3), Some(0));
        assert_eq!(ordinal("el segundo", 3), Some(1));
        assert_eq!(ordinal("проверь третий", 3), Some(2));
        assert_eq!(ordinal("第一笔", 3), Some(0));
        assert_eq!(ordinal("the last one", 3), Some(2));
        assert_eq!(cents("2.50"), Some(250));
        assert_eq!(cents("-0.5"), Some(-50));
    }
}
