//! Slot values read from a message and validated by their type before the
//! lane takes them (issue 19): a plate must match one of the plate patterns
//! of a region (configurable: the Desk's `Context` tool sends them), a lot
//! or city code must be one the store knows (close misses get "did you
//! mean"), an order number has the order form, a date or month is read by a
//! date parser in en/es/ru/zh ("in August 2026" is a date scope, never a
//! city code). An acknowledgment ("ok", "thanks", "да", "好的") is never a
//! value. A value that does not validate is not taken: it comes back as a
//! [`Rejected`] so the lane can say why and ask again.

use chrono::{Datelike, NaiveDate};
use regex::Regex;
use serde::{Deserialize, Serialize};
use std::sync::LazyLock;

fn re(p: &str) -> Regex {
    Regex::new(p).expect("billing slot pattern")
}

/// What the store knows, from the Desk's `Context` tool.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Known {
    pub cities: Vec<String>,
    pub lots: Vec<String>,
    /// Plates with orders on record (offered as choices).
    pub plates: Vec<String>,
    pub plate_patterns: Vec<PlatePattern>,
    /// The Desk's date (`YYYY-MM-DD`), for a month named without a year.
    pub today: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PlatePattern {
    pub region: String,
    pub pattern: String,
}

/// The plate patterns used when the data dir configures none
/// (`billing_plates.json`): mainland China, the US, Spain, Russia.
pub fn default_plate_patterns() -> Vec<PlatePattern> {
    [
        ("CN", r"^\p{Han}[A-Z][A-Z0-9]{5,6}$"),
        ("US", r"^[A-Z0-9]{2,3}[A-Z0-9]{0,2}[0-9][A-Z0-9]{0,3}$"),
        ("ES", r"^[0-9]{4}[BCDFGHJKLMNPRSTVWXYZ]{3}$"),
        ("RU", r"^[АВЕКМНОРСТУХ][0-9]{3}[АВЕКМНОРСТУХ]{2}[0-9]{2,3}$"),
    ]
    .into_iter()
    .map(|(region, pattern)| PlatePattern {
        region: region.into(),
        pattern: pattern.into(),
    })
    .collect()
}

/// A date scope: a month or a day, as `[from, to)` dates.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DateScope {
    /// `2026-03` or `2026-03-05`.
    pub label: String,
    pub from: String,
    pub to: String,
}

impl DateScope {
    fn month(year: i32, month: u32) -> Option<DateScope> {
        let from = NaiveDate::from_ymd_opt(year, month, 1)?;
        let to = if month == 12 {
            NaiveDate::from_ymd_opt(year + 1, 1, 1)?
        } else {
            NaiveDate::from_ymd_opt(year, month + 1, 1)?
        };
        Some(DateScope {
            label: format!("{year:04}-{month:02}"),
            from: from.to_string(),
            to: to.to_string(),
        })
    }

    fn day(d: NaiveDate) -> Option<DateScope> {
        Some(DateScope {
            label: d.to_string(),
            from: d.to_string(),
            to: d.succ_opt()?.to_string(),
        })
    }

    /// Whether a stored time (`2026-03-05T09:00`, any accepted form) falls in it.
    pub fn contains(&self, time: &str) -> bool {
        let day = time.get(..10).unwrap_or("");
        day >= self.from.as_str() && day < self.to.as_str()
    }
}

/// A value the message gave that did not validate.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rejected {
    pub slot: String,
    pub value: String,
    /// Known values close to it ("did you mean").
    pub suggestions: Vec<String>,
}

/// Slots read from one message.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Read {
    pub values: Vec<(&'static str, String)>,
    pub date: Option<DateScope>,
    pub rejected: Vec<Rejected>,
}

impl Read {
    pub fn get(&self, name: &str) -> Option<&str> {
        self.values
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }

    pub fn has(&self, name: &str) -> bool {
        self.get(name).is_some()
    }
}

pub static ORDER: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)\b((?:ord|p|ord-no)-?\d{2,})\b"));
/// "order SH-1001": another shop's order numbering, named as an order. Not
/// in the store it is still the order asked about (the tool says it is not
/// found), never a plate.
static ORDER_NAMED: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\b(?:order|pedido|orden|заказ\w*)\s*(?:no\.?|#|№)?\s*([a-z]{1,4}-\d{2,})\b|订单\s*([a-z]{1,4}-\d{2,})",
    )
});
static PLATE_NAMED: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)(?:plate|placa|matr[ií]cula|номер\w*|госномер\w*|车牌号?)\s*(?:no\.?|number|#|:|n[uú]mero)?\s*(\p{Han}?[\p{L}0-9][\p{L}0-9]{1,9})",
    )
});
static PLATE_BARE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(\p{Han}[A-Za-z][A-Za-z0-9]{4,6})|\b([0-9][A-Z]{2,3}[0-9]{2,4}|[A-Z]{2,3}[0-9]{3,5}|[0-9]{4}[A-Z]{3})\b",
    )
});
static LOT: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)\blot-([A-Z0-9]{1,4})\b|\b(?:lot|lote|площадк\w*|стоянк\w*|парковк\w*)\s+([A-Z0-9]{1,3})\b|\b([A-Z])\s*(?:场|停车场)",
    )
});
/// A city named after its keyword: a value that must validate.
static CITY_NAMED: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)\b(?:city|ciudad|город\w*)\s+([A-Z]{2,4})\b|城市\s*([A-Z]{2,4})"));
/// "in SH", "in sh": taken only when the store knows the code.
static CITY_WEAK: LazyLock<Regex> = LazyLock::new(|| re(r"(?i)\b(?:in|en|в)\s+([A-Z]{2,3})\b"));
static CITY_NAMES: &[(&str, &str)] = &[
    ("上海", "SH"),
    ("shanghai", "SH"),
    ("шанха", "SH"),
    ("杭州", "HZ"),
    ("hangzhou", "HZ"),
    ("西雅图", "SEA"),
    ("seattle", "SEA"),
    ("portland", "PDX"),
];
static RULE_CODE: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)\b(?:rule|regla|правило|规则)\s+([A-Z][A-Z0-9]*(?:-[A-Z0-9]+)+)"));

// ------------------------------------------------------------------ dates

const MONTHS: &[(&str, u32)] = &[
    ("january", 1),
    ("february", 2),
    ("march", 3),
    ("april", 4),
    ("may", 5),
    ("june", 6),
    ("july", 7),
    ("august", 8),
    ("september", 9),
    ("october", 10),
    ("november", 11),
    ("december", 12),
    ("enero", 1),
    ("febrero", 2),
    ("marzo", 3),
    ("abril", 4),
    ("mayo", 5),
    ("junio", 6),
    ("julio", 7),
    ("agosto", 8),
    ("septiembre", 9),
    ("setiembre", 9),
    ("octubre", 10),
    ("noviembre", 11),
    ("diciembre", 12),
    ("январ", 1),
    ("феврал", 2),
    ("март", 3),
    ("апрел", 4),
    ("мая", 5),
    ("мае", 5),
    ("май", 5),
    ("июн", 6),
    ("июл", 7),
    ("август", 8),
    ("сентябр", 9),
    ("октябр", 10),
    ("ноябр", 11),
    ("декабр", 12),
];
const SHORT_MONTHS: &[(&str, u32)] = &[
    ("jan", 1),
    ("feb", 2),
    ("mar", 3),
    ("apr", 4),
    ("jun", 6),
    ("jul", 7),
    ("aug", 8),
    ("sep", 9),
    ("sept", 9),
    ("oct", 10),
    ("nov", 11),
    ("dec", 12),
];

static ISO_DAY: LazyLock<Regex> = LazyLock::new(|| re(r"\b(\d{4})-(\d{2})-(\d{2})\b"));
static ISO_MONTH: LazyLock<Regex> = LazyLock::new(|| re(r"\b(\d{4})-(\d{2})\b"));
static ZH_DATE: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?:(\d{4})\s*年\s*)?(\d{1,2})\s*月(?:\s*(\d{1,2})\s*[日号])?"));
static WORD_DATE: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)(?:\b(\d{1,2})(?:st|nd|rd|th)?\s+(?:de\s+|of\s+)?)?\b(\p{L}+)\b(?:\s+(\d{1,2})(?:st|nd|rd|th)?\b)?(?:,?\s+(?:de\s+|of\s+)?(\d{4})\b)?",
    )
});
/// "may" is a month only after "in / for / since / of / by" or before a year.
static MAY_AS_MONTH: LazyLock<Regex> =
    LazyLock::new(|| re(r"(?i)\b(in|for|since|of|by|during|from)\s+may\b|\bmay\s+\d{4}\b"));

fn month_of(word: &str) -> Option<(u32, bool)> {
    let w = word.to_lowercase();
    if let Some((_, m)) = MONTHS.iter().find(|(name, _)| {
        if name.chars().next().is_some_and(|c| c.is_ascii()) {
            w == *name
        } else {
            // Russian: the stem with any ending ("марте", "марта").
            w.starts_with(name) && w.chars().count() <= name.chars().count() + 3
        }
    }) {
        return Some((*m, true));
    }
    SHORT_MONTHS
        .iter()
        .find(|(name, _)| w == *name)
        .map(|(_, m)| (*m, false))
}

/// The year of a month named without one: the root's date scope's year, else
/// the most recent such month up to `today`.
fn year_for(month: u32, prev_year: Option<i32>, today: Option<NaiveDate>) -> Option<i32> {
    if let Some(y) = prev_year {
        return Some(y);
    }
    let t = today?;
    Some(if month <= t.month() {
        t.year()
    } else {
        t.year() - 1
    })
}

/// A date or month in the message, and the byte span it covered.
pub fn date_scope(
    text: &str,
    prev_year: Option<i32>,
    today: Option<NaiveDate>,
) -> Option<(DateScope, std::ops::Range<usize>)> {
    if let Some(c) = ISO_DAY.captures(text) {
        let d =
            NaiveDate::from_ymd_opt(c[1].parse().ok()?, c[2].parse().ok()?, c[3].parse().ok()?)?;
        return Some((DateScope::day(d)?, c.get(0)?.range()));
    }
    if let Some(c) = ISO_MONTH.captures(text) {
        let m: u32 = c[2].parse().ok()?;
        if (1..=12).contains(&m) {
            return Some((DateScope::month(c[1].parse().ok()?, m)?, c.get(0)?.range()));
        }
    }
    if let Some(c) = ZH_DATE.captures(text) {
        let m: u32 = c[2].parse().ok()?;
        if (1..=12).contains(&m) {
            let y = match c.get(1) {
                Some(y) => y.as_str().parse().ok()?,
                None => year_for(m, prev_year, today)?,
            };
            let scope = match c.get(3).and_then(|d| d.as_str().parse().ok()) {
                Some(day) => DateScope::day(NaiveDate::from_ymd_opt(y, m, day)?)?,
                None => DateScope::month(y, m)?,
            };
            return Some((scope, c.get(0)?.range()));
        }
    }
    for c in WORD_DATE.captures_iter(text) {
        let Some((m, full)) = month_of(&c[2]) else {
            continue;
        };
        let year: Option<i32> = c.get(4).and_then(|y| y.as_str().parse().ok());
        if !full && year.is_none() {
            continue;
        }
        if m == 5 && c[2].eq_ignore_ascii_case("may") && !MAY_AS_MONTH.is_match(text) {
            continue;
        }
        let Some(y) = year.or_else(|| year_for(m, prev_year, today)) else {
            continue;
        };
        let day: Option<u32> = c
            .get(1)
            .or_else(|| c.get(3))
            .and_then(|d| d.as_str().parse().ok());
        let scope = match day.and_then(|d| NaiveDate::from_ymd_opt(y, m, d)) {
            Some(d) => DateScope::day(d)?,
            None => DateScope::month(y, m)?,
        };
        return Some((scope, c.get(0)?.range()));
    }
    None
}

// ------------------------------------------------------------------ acknowledgments

static ACK_EXTRA: LazyLock<Regex> = LazyLock::new(|| {
    re(
        r"(?i)^\W*(ok(ay)?|thanks?|thank you|ty|yes|yeah|yep|no|nope|sure|fine|great|good|cool|got it|s[ií]|vale|gracias|bueno|claro|да|нет|ага|угу|ок|окей|спасибо|хорошо|ладно|понял|好的?|谢谢|嗯|对|是的?|行|收到)\W*$",
    )
});

/// "ok", "thanks", "да", "好的": an acknowledgment, never a slot value.
pub fn is_ack(text: &str) -> bool {
    ACK_EXTRA.is_match(text) || crate::engine::understand::is_ack(text)
}

// ------------------------------------------------------------------ validation

/// The region whose pattern a plate matches.
pub fn plate_region(plate: &str, known: &Known) -> Option<String> {
    if !plate.chars().any(|c| c.is_ascii_digit()) {
        return None;
    }
    static DEFAULTS: LazyLock<Vec<(String, Regex)>> = LazyLock::new(|| {
        default_plate_patterns()
            .into_iter()
            .map(|p| (p.region, re(&p.pattern)))
            .collect()
    });
    if known.plate_patterns.is_empty() {
        return DEFAULTS
            .iter()
            .find(|(_, r)| r.is_match(plate))
            .map(|(region, _)| region.clone());
    }
    // The shop's patterns (checked by the Desk when it read them; one that
    // does not compile here matches nothing).
    known.plate_patterns.iter().find_map(|p| {
        regex::RegexBuilder::new(&p.pattern)
            .size_limit(1 << 20)
            .build()
            .ok()?
            .is_match(plate)
            .then(|| p.region.clone())
    })
}

fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != cb);
            cur.push((prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

/// Known codes within one edit of `value` (case-insensitive), best first.
pub fn did_you_mean(value: &str, known: &[String]) -> Vec<String> {
    // "LOT-Z" is not a typo of "LOT-A": the shared prefix is left out, and
    // a one-character code has no close miss.
    let strip = |s: &str| s.to_uppercase().trim_start_matches("LOT-").to_string();
    let v = strip(value);
    if v.chars().count() < 2 {
        return Vec::new();
    }
    let mut close: Vec<(usize, &String)> = known
        .iter()
        .map(|k| (edit_distance(&v, &strip(k)), k))
        .filter(|(d, _)| *d <= 1)
        .collect();
    close.sort();
    close.into_iter().map(|(_, k)| k.clone()).take(3).collect()
}

/// Validates one value for `slot`: the canonical value, or why not.
pub fn validate(slot: &str, raw: &str, known: &Known) -> Result<String, Rejected> {
    let value = raw
        .trim()
        .trim_end_matches(['.', '!', '?', ','])
        .to_string();
    let reject = |value: String, suggestions: Vec<String>| Rejected {
        slot: slot.to_string(),
        value,
        suggestions,
    };
    if value.is_empty() || is_ack(&value) || value.chars().count() > 24 {
        return Err(reject(value, Vec::new()));
    }
    match slot {
        "plate_no" => {
            let upper = value.to_uppercase().replace([' ', '-', '·'], "");
            match plate_region(&upper, known) {
                Some(_) => Ok(upper),
                None => Err(reject(value, did_you_mean(&upper, &known.plates))),
            }
        }
        "order_no" => match ORDER.captures(&value).and_then(|c| c.get(1)) {
            Some(m) if m.as_str().len() == value.len() => Ok(m.as_str().to_ascii_uppercase()),
            _ => Err(reject(value, Vec::new())),
        },
        "lot_code" => {
            let upper = value.to_uppercase();
            let code = if upper.starts_with("LOT-") {
                upper
            } else {
                format!("LOT-{upper}")
            };
            if known.lots.iter().any(|k| k.eq_ignore_ascii_case(&code)) {
                Ok(code)
            } else {
                Err(reject(code.clone(), did_you_mean(&code, &known.lots)))
            }
        }
        "city_code" => {
            let lower = value.to_lowercase();
            let code = CITY_NAMES
                .iter()
                .find(|(name, _)| lower.contains(name))
                .map(|(_, c)| c.to_string())
                .unwrap_or_else(|| value.to_uppercase());
            if known.cities.iter().any(|k| k.eq_ignore_ascii_case(&code)) {
                Ok(code)
            } else {
                Err(reject(code.clone(), did_you_mean(&code, &known.cities)))
            }
        }
        "rule_code" => Ok(value.to_uppercase()),
        _ => Err(reject(value, Vec::new())),
    }
}

/// The slots a message names, validated against what the store knows. A
/// date or month is read first and its words are not read again as a code.
pub fn read(text: &str, known: &Known, prev_year: Option<i32>) -> Read {
    let today = NaiveDate::parse_from_str(&known.today, "%Y-%m-%d").ok();
    let mut out = Read::default();
    let mut rest = text.to_string();
    if let Some((scope, span)) = date_scope(text, prev_year, today) {
        out.date = Some(scope);
        rest.replace_range(span, " ");
    }
    let take = |out: &mut Read, slot: &'static str, raw: &str, strong: bool| {
        if out.has(slot) {
            return;
        }
        match validate(slot, raw, known) {
            Ok(v) => out.values.push((slot, v)),
            Err(r) if strong => out.rejected.push(r),
            Err(_) => {}
        }
    };
    let order = ORDER.captures(&rest).and_then(|c| c.get(1)).or_else(|| {
        ORDER_NAMED
            .captures(&rest)
            .and_then(|c| c.get(1).or_else(|| c.get(2)))
    });
    if let Some(m) = order {
        out.values
            .push(("order_no", m.as_str().to_ascii_uppercase()));
    }
    let without_order = ORDER.replace_all(&rest, " ");
    let without_order = ORDER_NAMED.replace_all(&without_order, " ").to_string();
    if let Some(m) = PLATE_NAMED.captures(&without_order).and_then(|c| c.get(1)) {
        // "номер заказа": a word after the keyword is not a plate typed wrong.
        let typed = m.as_str().chars().any(|c| c.is_ascii_digit());
        take(&mut out, "plate_no", m.as_str(), typed);
    }
    if let Some(c) = PLATE_BARE.captures(&without_order) {
        if let Some(m) = c.get(1).or_else(|| c.get(2)) {
            take(&mut out, "plate_no", m.as_str(), false);
        }
    }
    if let Some(c) = LOT.captures(&rest) {
        if let Some(m) = c.get(1).or_else(|| c.get(2)).or_else(|| c.get(3)) {
            take(&mut out, "lot_code", m.as_str(), true);
        }
    }
    if let Some(m) = CITY_NAMED
        .captures(&rest)
        .and_then(|c| c.get(1).or_else(|| c.get(2)))
    {
        take(&mut out, "city_code", m.as_str(), true);
    }
    if let Some(m) = CITY_WEAK.captures(&rest).and_then(|c| c.get(1)) {
        take(&mut out, "city_code", m.as_str(), false);
    }
    let lower = rest.to_lowercase();
    if let Some((name, _)) = CITY_NAMES.iter().find(|(name, _)| lower.contains(name)) {
        take(&mut out, "city_code", name, false);
    }
    if let Some(m) = RULE_CODE.captures(&rest).and_then(|c| c.get(1)) {
        out.values
            .push(("rule_code", m.as_str().to_ascii_uppercase()));
    }
    out
}

/// A reply that is only the value asked for ("沪B20009", "B", "SH").
pub fn bare_answer(text: &str, slot: &str, known: &Known) -> Result<String, Rejected> {
    let t = text.trim();
    let read = read(t, known, None);
    if let Some(v) = read.get(slot) {
        return Ok(v.to_string());
    }
    if let Some(r) = read.rejected.into_iter().find(|r| r.slot == slot) {
        return Err(r);
    }
    validate(slot, t, known)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn known() -> Known {
        Known {
            cities: vec!["SH".into(), "HZ".into()],
            lots: [
                "LOT-A", "LOT-B", "LOT-C", "LOT-D", "LOT-E", "LOT-F", "LOT-H",
            ]
            .map(String::from)
            .to_vec(),
            plates: vec!["沪B20009".into(), "沪A10001".into()],
            plate_patterns: Vec::new(),
            today: "2026-11-27".into(),
        }
    }

    #[test]
    fn plates_by_region_and_acknowledgments_never() {
        let k = known();
        for plate in ["沪B20009", "7ABC123", "1234BCD", "А123ВС77"] {
            assert!(validate("plate_no", plate, &k).is_ok(), "{plate}");
        }
        for not in [
            "ok", "thanks", "да", "好的", "gracias", "hello", "SH", "nothing",
        ] {
            assert!(validate("plate_no", not, &k).is_err(), "{not}");
        }
        let e = validate("plate_no", "沪B2000", &k).unwrap_err();
        assert_eq!(e.suggestions, vec!["沪B20009".to_string()]);
    }

    #[test]
    fn codes_only_from_the_store_with_did_you_mean() {
        let k = known();
        assert_eq!(validate("lot_code", "b", &k).unwrap(), "LOT-B");
        let e = validate("lot_code", "Z", &k).unwrap_err();
        assert_eq!(e.value, "LOT-Z");
        assert!(e.suggestions.is_empty());
        let e = validate("lot_code", "LOT-AA", &k).unwrap_err();
        assert_eq!(e.suggestions, vec!["LOT-A".to_string()]);
        assert_eq!(validate("city_code", "上海", &k).unwrap(), "SH");
        assert_eq!(
            validate("city_code", "SHH", &k).unwrap_err().suggestions,
            ["SH"]
        );
    }

    #[test]
    fn a_month_is_a_date_scope_never_a_city() {
        let k = known();
        let r = read("does plate 沪B20009 owe anything in August 2026?", &k, None);
        assert_eq!(r.date.as_ref().unwrap().label, "2026-08");
        assert_eq!(r.get("plate_no"), Some("沪B20009"));
        assert!(!r.has("city_code"), "{r:?}");
        assert!(r.rejected.is_empty(), "{r:?}");
        for (text, label) in [
            ("and for March?", "2026-03"),
            ("¿y en marzo de 2026?", "2026-03"),
            ("а за март?", "2026-03"),
            ("在2026年3月", "2026-03"),
            ("3月呢", "2026-03"),
            ("on 2026-03-05", "2026-03-05"),
            ("5 de marzo de 2026", "2026-03-05"),
            ("March 5, 2026", "2026-03-05"),
        ] {
            let r = read(text, &k, Some(2026));
            assert_eq!(r.date.map(|d| d.label).as_deref(), Some(label), "{text}");
        }
        // No year and no earlier scope: the latest such month up to today.
        let r = read("rule in December", &k, None);
        assert_eq!(r.date.unwrap().label, "2025-12");
        assert!(read("may I ask about lot A", &k, None).date.is_none());
    }

    #[test]
    fn weak_city_words_are_dropped_named_ones_rejected() {
        let k = known();
        let r = read("does plate 沪B20009 owe anything in SH?", &k, None);
        assert_eq!(r.get("city_code"), Some("SH"));
        let r = read("arrears for plate 沪B20009 in LA", &k, None);
        assert!(!r.has("city_code") && r.rejected.is_empty(), "{r:?}");
        let r = read("rules for lot b in sh, is it in the list", &k, None);
        assert_eq!(r.get("city_code"), Some("SH"));
        assert_eq!(r.get("lot_code"), Some("LOT-B"));
        let r = read("does 沪b20009 owe anyting", &k, None);
        assert_eq!(r.get("plate_no"), Some("沪B20009"));
        let r = read("rule for city XYZ lot A", &k, None);
        assert_eq!(r.rejected[0].slot, "city_code");
        let r = read("explain the rule for lot Z", &k, None);
        assert_eq!(r.rejected[0].value, "LOT-Z");
    }
}
