//! What a billing message asks: the root intents (seed 004: `rule_explain`,
//! `arrears_check`, `fee_verify`) and the follow-up forms of seed 003
//! (ordinals, pronouns, short actions, scope changes, meta questions,
//! recaps, going back to the list), by pattern in en/es/ru/zh. No model.

use regex::Regex;
use serde::{Deserialize, Serialize};
use std::sync::LazyLock;

use super::slots::Read;

fn re(p: &str) -> Regex {
    Regex::new(p).expect("billing intent pattern")
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Intent {
    RuleExplain,
    ArrearsCheck,
    FeeVerify,
}

impl Intent {
    pub fn name(self) -> &'static str {
        match self {
            Intent::RuleExplain => "RULE_EXPLAIN",
            Intent::ArrearsCheck => "ARREARS_CHECK",
            Intent::FeeVerify => "FEE_VERIFY",
        }
    }

    /// The slots the intent cannot run without (a rule needs its code, or
    /// its city and lot).
    pub fn required(self, has_rule_code: bool) -> &'static [&'static str] {
        match self {
            Intent::ArrearsCheck => &["plate_no"],
            Intent::FeeVerify => &["order_no"],
            Intent::RuleExplain if has_rule_code => &[],
            Intent::RuleExplain => &["lot_code", "city_code"],
        }
    }
}

static ARREARS: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(owe[sd]?|owing|arrears?|unpaid|balance due|outstanding|deb[ea]n?|deuda\w*|adeud\w*|pendientes? de pago|долг\w*|задолж\w*|долж(ен|на|ны)|неоплач\w*)\b|欠费|欠款|未付|没付|欠",
    )
});
static SHOULD_BE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(deb(e|en|er[ií]a|ía|ia) (ser|estar|de (ser|estar|dar|marcar|tener)|haber|tener|marcar|dar|leer|andar|llegar)|долж(ен|на|ны|но) (быть|показ\w*|держ\w*|давать|стоять|быть не)|should (be|read|show|hold))\b",
    )
});
static VERIFY: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(verify|verif\w*|check|correct|right|wrong|overcharg\w*|charged|calculated|dispute\w*|comprueb\w*|revis\w*|cobr\w*|провер\w*|сверь\w*|списал\w*|начисл\w*|правильн\w*)\b|核对|核实|对吗|多收|怎么算",
    )
});
static RULE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(rules?|tariffs?|rates?|pricing|regla\w*|tarifa\w*|правил\w*|тариф\w*)\b|规则|收费标准|怎么收费|计费",
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
pub static PRONOUN: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(that|this|the same) (one|order)\b|\b(verify|check) it\b|\b(ese|esa|este|esta|mismo) (pedido|orden)\b|\b(verif\w*|revis\w*|comprueb\w*)(lo|la)\b|\b(этот|эта|этого|его|тот|того|этому) ?(заказ\w*)?\b|这笔|那笔|上一单|这单|该订单",
    )
});
static PAID: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(how much (was |is )?paid|paid|pagad[oa]|pag[oó]|оплач\w*|заплат\w*)\b|付了多少|付了|支付",
    )
});
static FOLLOW_UP: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^\W*(and|what about|how about|same for|same thing for|now for|y|¿y|и|а|что насчёт|теперь)\b|^\W*(那|那么|还有)|呢\W*$",
    )
});
/// "Do we owe them or do they owe us?": who owes whom, from the last answer.
static META_DIRECTION: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(do we owe|we owe them|owe us|who owes (whom|who)|les debemos|nos deben|nos debe|qui[eé]n le debe|мы (им |ему )?должны|(они|он) (нам )?должн\w*|кто кому)\b|我们欠|欠我们|谁欠谁",
    )
});
static META_EVAL: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(is (that|this|it) (a lot|much|normal|high|too much|right|bad)|which is (worse|bigger|larger|the biggest|the largest)|es mucho|es normal|cu[aá]l es (peor|mayor)|это много|это нормально|много ли|какой (больше|хуже))\b|多吗|贵吗|正常吗|哪个(更)?(多|大)|^\W*(why|por qu[eé]|почему|为什么)\W*$",
    )
});
static RECAP: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(did we (already )?(check|verify|look)|have we (checked|verified|looked)|what did we (check|verify|look)|(ya )?revisamos|(ya )?verificamos|qu[eé] revisamos|мы (уже )?(проверял\w*|смотрел\w*)|что мы проверял\w*)\b|我们查过|查过.*吗|之前查",
    )
});
static BACK: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(back to the list|show (me )?the list( again)?|the other orders|(de )?vuelta a la lista|volver a la lista|los otros pedidos|назад к списку|снова список|остальные заказы)\b|回到列表|其他订单",
    )
});
/// What the billing records cannot answer.
static REFUND: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(refund\w*|discount\w*|waive\w*|write (it )?off|reembols\w*|descuent\w*|condon\w*|возврат\w*|верн(уть|ите)|скидк\w*|списа(ть|ние))\b|退款|优惠|减免|打折",
    )
});
static PAYER: LazyLock<Regex> = LazyLock::new(|| {
    re(r"(?i)\b(who paid|who pays|qui[eé]n pag[oó]|кто (оплатил|платил|заплатил))\b|谁付")
});
static PAY_DATE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\bwhen (did|was|were) .{0,30}\b(pa(id|y))\b|\bcu[aá]ndo pag\w*|\bкогда (оплатил\w*|заплатил\w*|оплачен\w*)|什么时候付",
    )
});
static PAY_METHOD: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(by card|in cash|credit card|paid with|con tarjeta|en efectivo|картой|наличн\w*)\b|微信|支付宝|现金|刷卡",
    )
});

/// `after_answer`: a billing answer is on screen, so "do we owe them or do
/// they owe us?" asks about it (T8); with none shown it is an arrears check.
pub fn classify(text: &str, read: &Read, after_answer: bool) -> Option<Intent> {
    // A named order is verified (its answer says what was paid, so "does
    // ORD-005 owe anything?" is answered too).
    if read.has("order_no") {
        return Some(Intent::FeeVerify);
    }
    // "El capacitor marca 12 uf, debe ser 45", "должен быть 45": what a
    // reading should be, not what anyone owes.
    let text = &*SHOULD_BE.replace_all(text, " ");
    if ARREARS.is_match(text) && !(after_answer && META_DIRECTION.is_match(text)) {
        return Some(Intent::ArrearsCheck);
    }
    if RULE.is_match(text)
        && (RULE_CONTEXT.is_match(text) || read.has("lot_code") || read.has("rule_code"))
    {
        return Some(Intent::RuleExplain);
    }
    None
}

/// A billing word with no intent of its own: a boundary question when it
/// asks for what the records do not hold ("can you refund ORD-022?" still
/// verifies, with the refund part not covered).
pub fn out_of_scope(text: &str) -> bool {
    REFUND.is_match(text)
}

/// Parts of a question the records cannot cover, as `Words` field keys.
pub fn uncovered_parts(text: &str) -> Vec<&'static str> {
    let mut out = Vec::new();
    if PAYER.is_match(text) {
        out.push("payer");
    }
    if PAY_DATE.is_match(text) {
        out.push("pay_date");
    }
    if PAY_METHOD.is_match(text) {
        out.push("pay_method");
    }
    if REFUND.is_match(text) {
        out.push("refunds");
    }
    out
}

pub fn wants_verify(text: &str) -> bool {
    VERIFY.is_match(text)
}

pub fn ordinal(text: &str, n: usize) -> Option<usize> {
    if FIRST.is_match(text) {
        Some(0)
    } else if SECOND.is_match(text) {
        Some(1)
    } else if THIRD.is_match(text) {
        Some(2)
    } else if LAST.is_match(text) {
        n.checked_sub(1)
    } else {
        None
    }
}

pub fn is_ordinal(text: &str) -> bool {
    FIRST.is_match(text) || SECOND.is_match(text) || THIRD.is_match(text) || LAST.is_match(text)
}

pub fn is_pronoun(text: &str) -> bool {
    PRONOUN.is_match(text)
}

pub fn is_paid_action(text: &str) -> bool {
    PAID.is_match(text)
}

pub fn is_follow_up(text: &str) -> bool {
    FOLLOW_UP.is_match(text)
}

/// A meta question about the last answer, and its kind.
pub fn meta_kind(text: &str) -> Option<&'static str> {
    if META_DIRECTION.is_match(text) {
        Some("direction")
    } else if META_EVAL.is_match(text) {
        Some("evaluation")
    } else {
        None
    }
}

pub fn is_recap(text: &str) -> bool {
    RECAP.is_match(text)
}

pub fn is_back(text: &str) -> bool {
    BACK.is_match(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::conversation::billing::slots::{read, Known};

    fn known() -> Known {
        Known {
            cities: vec!["SH".into()],
            lots: vec!["LOT-A".into(), "LOT-B".into()],
            ..Default::default()
        }
    }

    #[test]
    fn intents_route_deterministically_and_leave_diagnosis_alone() {
        let k = known();
        let c = |t: &str| classify(t, &read(t, &k, None), true);
        assert_eq!(
            c("does plate 7ABC123 owe anything?"),
            Some(Intent::ArrearsCheck)
        );
        assert_eq!(c("why was ORD-022 charged 15?"), Some(Intent::FeeVerify));
        assert_eq!(c("explain the lot B rule"), Some(Intent::RuleExplain));
        assert_eq!(c("do we owe them or do they owe us?"), None);
        // With no answer on screen, who owes whom is the arrears check itself.
        let t = "do they owe us for the storage in SH lot A?";
        assert_eq!(
            classify(t, &read(t, &k, None), false),
            Some(Intent::ArrearsCheck)
        );
        let t = "verify order SH-1001 for plate 沪A12345";
        let r = read(t, &k, None);
        assert_eq!(r.get("order_no"), Some("SH-1001"));
        assert_eq!(classify(t, &r, false), Some(Intent::FeeVerify));
        for diag in [
            "check the fuse",
            "rule out the capacitor",
            "the first one is 12 V",
            "why?",
        ] {
            assert_eq!(c(diag), None, "{diag}");
        }
    }

    #[test]
    fn follow_up_forms_in_four_languages() {
        assert_eq!(ordinal("the first one", 3), Some(0));
        assert_eq!(ordinal("el segundo", 3), Some(1));
        assert_eq!(ordinal("проверь третий", 3), Some(2));
        assert_eq!(ordinal("第一笔", 3), Some(0));
        assert_eq!(ordinal("the last one", 3), Some(2));
        assert_eq!(
            meta_kind("do we owe them or do they owe us?"),
            Some("direction")
        );
        assert_eq!(
            meta_kind("¿nosotros les debemos o ellos nos deben?"),
            Some("direction")
        );
        assert_eq!(meta_kind("мы им должны или они нам?"), Some("direction"));
        assert_eq!(meta_kind("是我们欠他们还是他们欠我们?"), Some("direction"));
        assert_eq!(meta_kind("is that a lot?"), Some("evaluation"));
        assert!(is_recap("did we already check plate 沪B20009?"));
        assert!(is_recap("¿qué revisamos?"));
        assert!(is_recap("что мы проверяли?"));
        assert!(is_recap("我们查过哪些订单?"));
        assert!(is_follow_up("and for March?"));
        assert!(is_follow_up("3月呢?"));
        assert_eq!(
            uncovered_parts("who paid it and when did they pay?"),
            ["payer", "pay_date"]
        );
    }
}
