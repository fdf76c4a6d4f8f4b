//! Measurements in free text: "12.6 V", "0V at the board", "no 12 V",
//! "нет 12 В", "45 µF", "72°F", "11 in. WC", "118 vac". Units are normalized
//! so a reading can be compared with a step's in-spec range.

use std::sync::LazyLock;

use regex::Regex;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    Volt,
    Vac,
    Vdc,
    Amp,
    Ohm,
    MicroFarad,
    Fahrenheit,
    Celsius,
    Psi,
    InWc,
    Hertz,
    Percent,
    /// "11 deg", "20°": a temperature whose scale the technician left
    /// out; it is read in the scale of the step asking.
    Degrees,
    /// "4 grados": Spanish-speaking shops work in either scale (°F in the
    /// US, °C south of it), so a reading in bare "grados" answers a step
    /// only where both scales judge it the same.
    DegreesEitherScale,
}

impl Unit {
    /// Whether an RV's systems can show `value` in this unit at all: a
    /// number far outside it is another quantity (a temperature, a count,
    /// a time), whatever part the sentence names.
    pub fn can_read(self, value: f64) -> bool {
        let (low, high) = match self {
            Unit::Volt | Unit::Vdc => (-1.0, 40.0),
            Unit::Vac => (0.0, 300.0),
            Unit::Amp => (-400.0, 400.0),
            Unit::Ohm => (0.0, f64::INFINITY),
            Unit::MicroFarad => (0.0, 150.0),
            Unit::Fahrenheit | Unit::Degrees | Unit::DegreesEitherScale => (-60.0, 400.0),
            Unit::Celsius => (-50.0, 200.0),
            Unit::Psi => (0.0, 600.0),
            Unit::InWc => (0.0, 30.0),
            Unit::Hertz => (0.0, 100.0),
            Unit::Percent => (0.0, 100.0),
        };
        (low..=high).contains(&value)
    }

    /// Parses a unit as written in procedure files and in messages.
    pub fn parse(s: &str) -> Option<Unit> {
        let s = s.trim().to_lowercase();
        let s = s.trim_end_matches('.');
        Some(match s {
            "v" | "volt" | "volts" | "в" | "вольт" | "вольта" | "вольтов" | "voltios" => {
                Unit::Volt
            }
            "vac" | "v ac" | "в ac" => Unit::Vac,
            "vdc" | "v dc" | "в dc" => Unit::Vdc,
            "a" | "amp" | "amps" | "ampere" | "amperes" | "а" | "ампер" | "ампера" | "amperios" => {
                Unit::Amp
            }
            "ω" | "ohm" | "ohms" | "ом" | "ohmios" | "ohmio" => Unit::Ohm,
            "µf" | "μf" | "uf" | "mfd" | "мкф" => Unit::MicroFarad,
            "°f" | "f" | "deg f" | "degrees f" | "degf" => Unit::Fahrenheit,
            "°c" | "c" | "deg c" | "degrees c" | "degc" | "°с" => Unit::Celsius,
            "psi" => Unit::Psi,
            "inwc" | "in wc" | "in. wc" | "\" wc" | "″ wc" | "inches wc" | "inch wc"
            | "in. w.c" | "in w.c" | "iwc" => Unit::InWc,
            "hz" | "гц" => Unit::Hertz,
            "%" => Unit::Percent,
            "deg" | "degs" | "degrees" | "degree" | "°" => Unit::Degrees,
            "grados" | "grado" => Unit::DegreesEitherScale,
            // Russian-speaking shops work in Celsius.
            "градус" | "градуса" | "градусов" => Unit::Celsius,
            _ => return None,
        })
    }

    pub fn symbol(self) -> &'static str {
        match self {
            Unit::Volt => "V",
            Unit::Vac => "VAC",
            Unit::Vdc => "VDC",
            Unit::Amp => "A",
            Unit::Ohm => "Ω",
            Unit::MicroFarad => "µF",
            Unit::Fahrenheit => "°F",
            Unit::Celsius => "°C",
            Unit::Psi => "psi",
            Unit::InWc => "in. WC",
            Unit::Hertz => "Hz",
            Unit::Percent => "%",
            Unit::Degrees | Unit::DegreesEitherScale => "°",
        }
    }

    /// Whether a reading in `self` and one in `other` are the same kind of
    /// quantity (both pressures, both temperatures, ...), whatever the scale.
    pub fn same_kind(self, other: Unit) -> bool {
        let kind = |u: Unit| match u.family() {
            5 | 6 => 5,
            f => f,
        };
        kind(self) == kind(other)
    }

    fn family(self) -> u8 {
        match self {
            Unit::Volt | Unit::Vac | Unit::Vdc => 0,
            Unit::Amp => 1,
            Unit::Ohm => 2,
            Unit::MicroFarad => 3,
            Unit::Fahrenheit | Unit::Celsius | Unit::Degrees | Unit::DegreesEitherScale => 4,
            Unit::Psi => 5,
            Unit::InWc => 6,
            Unit::Hertz => 7,
            Unit::Percent => 8,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Quantity {
    pub value: f64,
    pub unit: Unit,
}

impl Quantity {
    /// The value in `target` units, if the two measure the same thing.
    /// AC and DC volts are not interchangeable when both sides say which.
    pub fn convert_to(&self, target: Unit) -> Option<f64> {
        if self.unit.family() != target.family() {
            return None;
        }
        match (self.unit, target) {
            (Unit::Vac, Unit::Vdc) | (Unit::Vdc, Unit::Vac) => None,
            // No scale given: only a step that itself names one can read it.
            (_, Unit::Degrees | Unit::DegreesEitherScale) => None,
            (Unit::Celsius, Unit::Fahrenheit) => Some(self.value * 9.0 / 5.0 + 32.0),
            (Unit::Fahrenheit, Unit::Celsius) => Some((self.value - 32.0) * 5.0 / 9.0),
            _ => Some(self.value),
        }
    }
}

/// A quantity found in text, with where it was.
#[derive(Debug, Clone, PartialEq)]
pub struct Found {
    pub quantity: Quantity,
    pub start: usize,
    pub end: usize,
}

static QUANTITY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r#"(?ix)
        (?P<neg>\b(?:no|zero|нет|нету|ноль|sin|без)\s+)?
        (?P<num>[-+−]?(?:\d{1,6}(?:[.,]\d{1,4})?|\.\d{1,4}))
        \s*
        (?P<unit>
            m[av]\b | milli-?amps? | milliamperes? | miliamperios? | миллиампер\w* | milli-?volts? | milivoltios? | милливольт\w* |
            k\s?(?:ohms?|Ω) | kΩ | ком | k\b |
            v\s?ac | v\s?dc | volts? | voltios | вольт\w* |
            amps? | amperes? | amperios | ампер\w* |
            ohms? | ohmios? | Ω | ом |
            [µμu]f | mfd | мкф |
            °\s?[fc] | deg(?:rees)?\s?[fc] |
            (?:градус\w*|град\.?)\s+(?:по\s+)?(?:цельси|фаренгейт)\w* | по\s+цельси\w* | по\s+фаренгейт\w* | grados?\s+(?:cent[ií]grados?|celsius) |
            grados?\s+fahrenheit | degrees?\s+(?:celsius|fahrenheit) | (?:grados?|degrees?|градус\w*)\s[cfсф]\b |
            deg(?:rees?|s)?\b | grados? | градус\w* | ° |
            psi | m\s?bar | мбар | bars? | бар\w* | kpa\b | кпа\b | w\.?c\b\.? |
            (?:in\.?|inch(?:es)?|"|″)\s?(?:of\s)?(?:wc|w\.c\.?|water\scolumn) | iwc |
            hz | гц |
            % |
            v | в | a | а | f | c
        )
        (?:\b|$|\s|[^\w])
        "#,
    )
    .expect("the quantity pattern compiles")
});

/// All quantities in `text`, in order.
pub fn find_quantities(text: &str) -> Vec<Found> {
    let mut out = Vec::new();
    for c in QUANTITY.captures_iter(text) {
        let whole = c.get(0).expect("group 0 always matches");
        let unit_raw = c["unit"].to_lowercase();
        let unit_norm = normalize_unit_text(&unit_raw);
        let (unit_norm, scale) = match unit_norm.as_str() {
            "ma" => ("a".to_string(), 0.001),
            u if u.starts_with("milli") && u.contains("amp")
                || u.starts_with("miliamp")
                || u.starts_with("миллиампер") =>
            {
                ("a".to_string(), 0.001)
            }
            u if u.starts_with("milli") && u.contains("volt")
                || u.starts_with("milivolt")
                || u.starts_with("милливольт") =>
            {
                ("v".to_string(), 0.001)
            }
            "mbar" | "m bar" | "мбар" => ("inwc".to_string(), 0.401865),
            u if u.starts_with("bar") || u.starts_with("бар") => ("psi".to_string(), 14.5038),
            "kpa" | "кпа" => ("psi".to_string(), 0.145038),
            "mv" => ("v".to_string(), 0.001),
            u if u.starts_with('k') || u == "ком" => ("ohm".to_string(), 1000.0),
            _ => (unit_norm, 1.0),
        };
        let Some(mut unit) = Unit::parse(&unit_norm) else {
            continue;
        };
        if unit == Unit::Degrees && writes_celsius(text) {
            unit = Unit::Celsius;
        }
        let Ok(mut value) = c["num"].replace(',', ".").replace('−', "-").parse::<f64>() else {
            continue;
        };
        if names_a_rating(
            &c["num"],
            value,
            &text[..whole.start()],
            &text[whole.end()..],
        ) || quoted_in(text, &c)
        {
            continue;
        }
        value *= scale;
        if c.name("neg").is_some() {
            value = 0.0;
        }
        out.push(Found {
            quantity: Quantity { value, unit },
            start: whole.start(),
            end: whole.end(),
        });
    }
    out
}

/// Whether the writer's shop reads temperatures in Celsius when no scale is
/// said: text in Cyrillic (Russian-speaking shops work in Celsius).
pub fn writes_celsius(text: &str) -> bool {
    if SAYS_FAHRENHEIT.is_match(text) {
        return false;
    }
    let letters = text.chars().filter(|c| c.is_alphabetic()).count();
    let cyrillic = text
        .chars()
        .filter(|c| ('\u{0400}'..='\u{04FF}').contains(c))
        .count();
    letters > 0 && cyrillic * 2 >= letters
}

/// "64 по F", "фаренгейт": the message says it is in Fahrenheit.
static SAYS_FAHRENHEIT: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)фаренгейт|°\s?f\b|\d\s?f\b|\bпо\s+f\b").expect("compiles"));

/// The scale of a number with no unit given for a step read in `unit`:
/// Celsius where the writer works in Celsius, else the step's own.
pub fn unsaid_scale(text: &str, unit: Unit) -> Unit {
    match unit {
        Unit::Fahrenheit | Unit::Celsius | Unit::Degrees if writes_celsius(text) => Unit::Celsius,
        _ => unit,
    }
}

static RATED_THING: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^\s*(input|in\s+(?:at|side)\b|side|circuit|system|line|supply|feed|fuse|breaker|outlet|receptacle|plug|cord|bulb|battery|batt|lugs?|terminals?|wires?|wiring|leads?|harness|connector|pins?|posts?|bus|rail|pigtail|leg|relay|service|pedestal|shore|model|motor|pump|unit|element|entrada|circuito|fusible|contacto|cable|вход|цеп\w*|предохранител\w*|розетк\w*|автомат\w*)\b")
        .expect("compiles")
});

/// "La entrada de 12 V", "el fusible de 15 A": the thing a Spanish nominal
/// value names comes before it.
static RATED_THING_BEFORE: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(entrada|circuito|lado|l[ií]nea|sistema|toma|contacto|fusible|breaker|cable|alimentaci[oó]n|bater[ií]a|foco|motor|bomba)\s+de\s*$")
        .expect("compiles")
});

/// "12v input", "30a breaker", "120v outlet", "la entrada de 12 V": a
/// system's nominal value naming a thing, not a reading of it.
fn names_a_rating(number: &str, value: f64, before: &str, after: &str) -> bool {
    const NOMINAL: [f64; 16] = [
        6.0, 12.0, 24.0, 48.0, 110.0, 115.0, 120.0, 125.0, 208.0, 220.0, 230.0, 240.0, 15.0, 20.0,
        30.0, 50.0,
    ];
    !number.contains(['.', ','])
        && NOMINAL.contains(&value)
        && (RATED_THING.is_match(after) || RATED_THING_BEFORE.is_match(before))
}

fn normalize_unit_text(u: &str) -> String {
    let u = u.replace(char::is_whitespace, " ");
    if u.contains("цельси") || u.contains("celsius") || u.contains("cent") {
        return "°c".into();
    }
    if u.contains("fahrenheit") || u.contains("фаренгейт") {
        return "°f".into();
    }
    // "16 grados C", "20 degrees F", "5 градусов С".
    if u.starts_with("grado") || u.starts_with("degree") || u.starts_with("градус") {
        match u.chars().last() {
            Some('c' | 'с') if u.contains(' ') => return "°c".into(),
            Some('f' | 'ф') if u.contains(' ') => return "°f".into(),
            _ => {}
        }
    }
    if u.starts_with("deg") {
        return match u.chars().last() {
            Some(last @ ('f' | 'c')) => format!("°{last}"),
            _ => "deg".into(),
        };
    }
    if u.starts_with("градус") {
        return "градус".into();
    }
    if u.starts_with('°') {
        return u.replace(' ', "");
    }
    if u.contains("wc") || u.contains("w.c") || u.contains("water") || u == "iwc" {
        return "inwc".into();
    }
    if u.starts_with("вольт") {
        return "вольт".into();
    }
    if u.starts_with("ампер") {
        return "ампер".into();
    }
    u.replace(' ', "")
}

/// The one number in a clause that answers a measurement step without its
/// unit ("119 at the main", "на проводах насоса 12,1", "cuts out at 40"),
/// or "zero" / "ноль" / "cero". `None` when the clause has no number, more
/// than one, or only a time, a count or a fraction ("after 30 min", "zone 2",
/// "1/4 tank").
static NUMBER: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)(?P<before>[/#x]\s*|\b(?:zone|zona|зона|model|modelo|модель|pin|#|part|pieza|p/?n|sku|serial|s/?n|ro|r/o|ot|w/?o|order|заказ\w*|артикул\w*)\s*#?\s*)?(?P<num>[-+−]?\d{0,6}[.,]?\d{1,4})(?P<after>\s*(?:/|x\b|min|sec|s\b|hours?|hrs?|h\b|ga\b|awg\b|gauge\b|minut|segund|hora|мин|сек|час|years?|yrs?|a[nñ]os?|лет|год|days?|d[ií]as?|дн|%|st\b|nd\b|rd\b|th\b|-?я\b|-?й\b))?(?P<unit>\s*(?:volts?\b|voltios\b|вольт|amps?\b|amperes?\b|amperios\b|ампер|watts?\b|ohms?\b|ом\b|deg|grados?\b|градус|°|psi\b|bars?\b|kpa\b|кпа\b|w\.?c\b|ah\b|amp-?hours?\b|gal|ft\b|feet\b|lbs?\b|mph\b|rpm\b|btu|tons?\b|[µμu]f\b|mfd\b|мкф|hz\b|гц)|(?:v|vac|vdc|a|w|k|kw|c|f|в|а|вт)\b|\s+(?:f|c)\b)?")
        .expect("compiles")
});

/// The part of `before` in the same clause as what follows it: after the
/// last clause break (a `;`, a sentence end, a comma or dash between words),
/// at most its last 60 characters.
fn clause_tail(before: &str) -> &str {
    static BREAK: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"[;!?\n|—]|[.,](?:\s|$)|\s[-/]\s").expect("compiles"));
    let from = BREAK.find_iter(before).last().map_or(0, |m| m.end());
    let tail = &before[from..];
    match tail.char_indices().rev().nth(59) {
        Some((i, _)) => &tail[i..],
        None => tail,
    }
}

/// "spec is 11 in wc", "label says 120v", "el manual pide 108", "по схеме
/// 12 В", "customer swears it showed 10", "11.5 per the manual": a value
/// quoted from a spec, a label, a manual or someone else, not the reading.
/// `before` and `after` are the text on either side of the number (and its
/// unit). A cue followed by the technician's own measuring ("should be 12,
/// I get 11.4", "label 45, reads 41") leaves that reading alone.
pub fn quoted_reference(before: &str, after: &str) -> bool {
    static CUE_BEFORE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)\b(?:specs?|speced|specification|label|sticker|tag|data ?plate|name ?plate|manual|book|chart|schematic|diagram|rated|rating|stamped|printed|nominal|should|supposed to|must|needs? to|wants|calls? for|normal is|customer|cust|campground|claims?|claimed|swears?|swore|diagrama|tabla|etiqueta|placa|fabricante|especificaci[oó]n|impreso|debe\w*|deber[ií]a\w*|tiene que|pide|cliente)\b|\bпо (?:схеме|мануалу|инструкции|паспорту|документации|спецификации|таблице|номиналу|норме)|\bноминал\w*|\bдолжн\w*|\bнорма\b|\bнаписано|\bна (?:бирке|шильдик\w*|этикетке|наклейке|табличке)|\bклиент\w*|\bзаявлен\w*")
            .expect("compiles")
    });
    static OWN_READING: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)\b(?:i|i'?m|im|we)\s+(?:got|get|read|have|see|seeing|measured|metered|reading|getting)\b|\b(?:got|getting|reading|reads|measur\w*|meter\w*|tester|clamp|med[ií]\w*|mido|tengo|mult[ií]metro|намер\w*|замер\w*|меря\w*|мерил|показыва\w*|мультиметр\w*|тестер\w*|клещи|у меня|по факту|actual\w*|really)\b")
            .expect("compiles")
    });
    static CUE_AFTER: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)^\s*(?:\p{L}{1,4}\.?\s*)?(?:\b(?:per|according to|as per|on the|by the|seg[uú]n|de acuerdo (?:a|con)|по|на)\s+(?:the |el |la |lo )?(?:spec|manual|label|sticker|book|chart|schematic|diagram|tag|data ?plate|name ?plate|tabla|etiqueta|placa|diagrama|fabricante|схеме|мануалу|инструкции|норме|паспорту|бирке|шильдик\w*|этикетке)|\b(?:rated|nominal|printed|stamped|marked|impres[oa]s?|marcad[oa]s?|номинал\w*|написан\w*|указан\w*)\b)")
            .expect("compiles")
    });
    if CUE_AFTER.is_match(after) {
        return true;
    }
    let tail = clause_tail(before);
    CUE_BEFORE
        .find_iter(tail)
        .last()
        .is_some_and(|cue| !OWN_READING.is_match(&tail[cue.end()..]))
}

/// The number `c` matched in `text` is a quoted value ([`quoted_reference`]).
fn quoted_in(text: &str, c: &regex::Captures<'_>) -> bool {
    let whole = c.get(0).expect("group 0 always matches");
    quoted_reference(&text[..whole.start()], &text[whole.end()..])
}

/// The count, time or fraction mark after a number; a slash that
/// separates checklist items ("recpt 118 / cord ok") is none.
fn after_number<'t>(text: &'t str, c: &regex::Captures<'t>) -> Option<regex::Match<'t>> {
    let a = c.name("after")?;
    let between_items = a.as_str().trim() == "/"
        && !text[a.end()..]
            .trim_start()
            .starts_with(|ch: char| ch.is_ascii_digit());
    (!between_items).then_some(a)
}

/// How many numbers in `text` could be readings (not a time, a count or a
/// fraction).
pub fn reading_numbers(text: &str) -> usize {
    NUMBER
        .captures_iter(text)
        .filter(|c| c.name("before").is_none() && after_number(text, c).is_none())
        .filter(|c| !names_a_thing(text, c))
        .filter(|c| !quoted_in(text, c))
        .count()
}

/// "La entrada de 12 V", "the 30 A breaker": a number with its unit that
/// names a thing by its nominal value.
fn names_a_thing(text: &str, c: &regex::Captures<'_>) -> bool {
    static UNIT_AFTER: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)^\s*(v|vac|vdc|volts?|voltios|a|amps?|в|вольт\w*|а|ампер\w*)\b")
            .expect("compiles")
    });
    let Some(num) = c.name("num") else {
        return false;
    };
    let Some(unit) = UNIT_AFTER.find(&text[num.end()..]) else {
        return false;
    };
    num.as_str()
        .replace(',', ".")
        .parse::<f64>()
        .is_ok_and(|v| {
            names_a_rating(
                num.as_str(),
                v,
                &text[..num.start()],
                &text[num.end() + unit.end()..],
            )
        })
}

/// Whether a number written after `before` names a part ("motor 2", "gato
/// 3") or counts an LED's flashes ("red flashes 3", "зелёный теперь 2").
fn designates(before: &str, num: &str) -> bool {
    static PART: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)\b(motor|мотор|jack|gato|домкрат|leg|pata|burner|zone|slide|room|line|circuit|port|channel|canal|канал)\s*#?\s*$")
            .expect("compiles")
    });
    static LED: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?i)\b(green|red|amber|yellow|verde|roj[oa]|amarill[oa]|зел[её]н\w*|красн\w*|ж[её]лт\w*|led|лампочк\w*|диод\w*|code|c[oó]digo|код\w*|blinks?|flash\w*|destell\w*|parpade\w*|мига\w*)\b(\W+\w+){0,3}\W*$")
            .expect("compiles")
    });
    let small_count = num.len() <= 2 && num.chars().all(|c| c.is_ascii_digit());
    small_count && (PART.is_match(before) || LED.is_match(before))
}

pub fn lone_number(text: &str) -> Option<f64> {
    static ZERO: LazyLock<Regex> =
        LazyLock::new(|| Regex::new(r"(?i)\b(zero|cero|ноль|нуль|нуле\w*)\b").expect("compiles"));
    let mut found = None;
    for c in NUMBER.captures_iter(text) {
        // "MC4", "L1", "R134a": digits glued to a letter name a part.
        let at = c.name("num").map_or(0, |m| m.start());
        if text[..at].ends_with(|ch: char| ch.is_alphabetic()) {
            continue;
        }
        // "motor 2", "jack 3", "green теперь 2": the number of a part or
        // of an LED's flashes, not a reading.
        if designates(&text[..at], &c["num"]) {
            continue;
        }
        // "spec is 11", "по схеме 12": a quoted value is no reading.
        if quoted_in(text, &c) {
            continue;
        }
        // "75 degrees" on a voltage step, "30 amp pedestal": a number
        // with a unit is a quantity (or a rating), never a bare reading.
        if names_a_thing(text, &c) {
            continue;
        }
        // "12.7 after sitting 3 hrs": a time or a count is no reading, and
        // leaves the other number the only one; a fraction or a pair
        // ("2/3", "22.1 / 22.4") is no lone number.
        match after_number(text, &c) {
            Some(a) if !a.as_str().trim().starts_with(['/', 'x', 'X']) => continue,
            Some(_) => return None,
            None => {}
        }
        if c.name("before").is_some() || c.name("unit").is_some() {
            return None;
        }
        if found.is_some() {
            return None;
        }
        found = Some(
            c["num"]
                .replace(',', ".")
                .replace('−', "-")
                .parse::<f64>()
                .ok()?,
        );
    }
    found.or_else(|| ZERO.is_match(text).then_some(0.0))
}

/// Which side of its number a reading said as a bound lies on: "a hair
/// over 65" is above 65, "just under 12" below 12, "más de 130" above.
/// `before` is the text before the number.
pub fn bound_side(before: &str) -> Option<std::cmp::Ordering> {
    static BOUND: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(
            r"(?i)(?:^|\b)(?P<over>over|above|more than|higher than|north of|past|m[aá]s de|arriba de|encima de|больше|выше|свыше|за)\s*[~]?\s*$|(?:^|\b)(?P<under>under|below|less than|lower than|south of|shy of|menos de|debajo de|abajo de|меньше|ниже)\s*[~]?\s*$",
        )
        .expect("compiles")
    });
    let c = BOUND.captures(before)?;
    Some(if c.name("over").is_some() {
        std::cmp::Ordering::Greater
    } else {
        std::cmp::Ordering::Less
    })
}

/// The value a bound stands for when judged against a range: a hair past
/// the number on the side it was said to lie.
pub fn past_bound(value: f64, side: Option<std::cmp::Ordering>) -> f64 {
    let nudge = 1e-6 * value.abs().max(1.0);
    match side {
        Some(std::cmp::Ordering::Greater) => value + nudge,
        Some(std::cmp::Ordering::Less) => value - nudge,
        _ => value,
    }
}

/// A bare number ("12.4", "45,2") as the whole answer.
pub fn bare_number(text: &str) -> Option<f64> {
    static BARE: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(
            r"^\s*(?:(?:so|then|ok so|really|entonces|o sea|osea|значит|то есть|итого)\s+)?(?:~|about|approx\.?|около|unos?|(?:more |something )?like|a hair (?:over|under|above|below)|just (?:over|under|above|below)|right (?:at|around)|(?:hanging |sitting |somewhere )?around|roughly|maybe|como|casi|m[aá]s o menos|примерно|где-?то|почти)?\s*([-+]?\d{1,6}(?:[.,]\d{1,4})?)(?:\s*-?ish)?\s*[.!]?\s*$",
        )
        .expect("compiles")
    });
    BARE.captures(text)?[1].replace(',', ".").parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_value_quoted_from_a_spec_a_label_or_someone_else_is_no_reading() {
        let values = |t: &str| -> Vec<f64> {
            find_quantities(t)
                .iter()
                .map(|f| f.quantity.value)
                .collect()
        };
        assert_eq!(values("spec is 11 in wc, I got 9.5 in wc"), vec![9.5]);
        assert_eq!(values("label says 120v 30a, meter shows 114v"), vec![114.0]);
        assert_eq!(
            values("el detector trae 12 VDC impreso; medí 12,6 V"),
            vec![12.6]
        );
        assert_eq!(
            values("по схеме 12 В на входе, мультиметр 12,7 В"),
            vec![12.7]
        );
        assert_eq!(values("should be 12v but I get 11.4v"), vec![11.4]);
        assert_eq!(
            values("customer swears it showed 10 volts"),
            Vec::<f64>::new()
        );
        assert_eq!(lone_number("manual wants 12.6 min"), None);
        assert_eq!(lone_number("spec 25-45, sitting at 31"), Some(31.0));
        assert_eq!(reading_numbers("норма 0,1 А, клещи показывают 0,04"), 1);
    }

    #[test]
    fn a_slash_between_checklist_items_is_no_fraction() {
        assert_eq!(lone_number("recpt 118 / cord ok"), Some(118.0));
        assert_eq!(reading_numbers("board 12.4 / blower runs"), 1);
        assert_eq!(lone_number("2/3 of a stream"), None);
        assert_eq!(
            reading_numbers("18ga motor leads, 12.1V"),
            1,
            "a wire gauge is no reading"
        );
    }

    #[test]
    fn a_part_name_with_digits_is_no_reading() {
        assert_eq!(lone_number("MC4 на крыше расплавился"), None);
        assert_eq!(lone_number("L1 104.8"), Some(104.8));
    }

    #[test]
    fn a_number_no_rv_system_shows_in_a_unit_is_not_read_in_it() {
        assert!(Unit::InWc.can_read(11.2));
        assert!(!Unit::InWc.can_read(39.0), "39 on LP is a temperature");
        assert!(Unit::Fahrenheit.can_read(-4.0));
        assert!(Unit::Vdc.can_read(0.2));
        assert!(!Unit::Vdc.can_read(120.0));
        assert!(Unit::Psi.can_read(210.0));
    }

    fn q(text: &str) -> Vec<(f64, Unit)> {
        find_quantities(text)
            .into_iter()
            .map(|f| (f.quantity.value, f.quantity.unit))
            .collect()
    }

    #[test]
    fn reads_common_field_notations() {
        assert_eq!(q("12.6 V at the battery"), vec![(12.6, Unit::Volt)]);
        assert_eq!(q("coil reads 1.2k"), vec![(1200.0, Unit::Ohm)]);
        assert_eq!(
            q("в морозилке -12 по цельсию"),
            vec![(-12.0, Unit::Celsius)]
        );
        assert_eq!(q("9.5wc burner lit"), vec![(9.5, Unit::InWc)]);
        // A nominal value naming a thing is not a reading of it.
        assert_eq!(q("12.8 at the board 12v input"), vec![]);
        assert_eq!(q("main 30a breaker has 121v"), vec![(121.0, Unit::Volt)]);
        assert_eq!(q("12 v at the input"), vec![(12.0, Unit::Volt)]);
        assert_eq!(q("13,2 en la entrada de 12 V"), vec![]);
        // ...and leaves the one bare number as the reading.
        assert_eq!(lone_number("12.8 at the board 12v input"), Some(12.8));
        assert_eq!(
            lone_number("13,2 en la entrada de 12 V de la placa"),
            Some(13.2)
        );
        assert_eq!(reading_numbers("got 9.8 on the 12v in at the board"), 1);
        assert_eq!(q("split is 11 deg"), vec![(11.0, Unit::Degrees)]);
        assert_eq!(q("разница 20 градусов"), vec![(20.0, Unit::Celsius)]);
        assert_eq!(q("на выходе 21°"), vec![(21.0, Unit::Celsius)]);
        assert_eq!(
            q("30 градусов по фаренгейту"),
            vec![(30.0, Unit::Fahrenheit)]
        );
        assert_eq!(q("marca 4 grados"), vec![(4.0, Unit::DegreesEitherScale)]);
        assert_eq!(
            q("return 75°, supply 56 °F"),
            vec![(75.0, Unit::Degrees), (56.0, Unit::Fahrenheit)]
        );
        let deg = Quantity {
            value: 11.0,
            unit: Unit::Degrees,
        };
        assert_eq!(deg.convert_to(Unit::Fahrenheit), Some(11.0));
        assert_eq!(deg.convert_to(Unit::Celsius), Some(11.0));
        assert_eq!(deg.convert_to(Unit::Volt), None);
        assert_eq!(q("118vac at the unit"), vec![(118.0, Unit::Vac)]);
        assert_eq!(q("cap reads 41.5 uF"), vec![(41.5, Unit::MicroFarad)]);
        assert_eq!(q("45 µF rated"), vec![], "a rating is no reading");
        assert_eq!(
            q("return 75°F supply 55 °F"),
            vec![(75.0, Unit::Fahrenheit), (55.0, Unit::Fahrenheit)]
        );
        assert_eq!(q("11 in. WC at the manifold"), vec![(11.0, Unit::InWc)]);
        assert_eq!(q("10.5\" wc"), vec![(10.5, Unit::InWc)]);
        assert_eq!(q("3,2 ohms"), vec![(3.2, Unit::Ohm)]);
        assert_eq!(q("draws 13 amps"), vec![(13.0, Unit::Amp)]);
        assert_eq!(q("на плате 11,8 В"), vec![(11.8, Unit::Volt)]);
        assert_eq!(q("24 C outside"), vec![(24.0, Unit::Celsius)]);
        assert_eq!(q("45 mA"), vec![(0.045, Unit::Amp)]);
        assert_eq!(q("like .3 v"), vec![(0.3, Unit::Volt)]);
        assert_eq!(q("9.5wc burner lit"), vec![(9.5, Unit::InWc)]);
        let mbar = q("на манометре 27 мбар");
        assert_eq!(mbar.len(), 1);
        assert_eq!(mbar[0].1, Unit::InWc);
        assert!((mbar[0].0 - 10.85).abs() < 0.01);
        assert_eq!(q("давление 3 бара"), vec![(3.0 * 14.5038, Unit::Psi)]);
        assert_eq!(
            q("отключается на 380 кПа"),
            vec![(380.0 * 0.145038, Unit::Psi)]
        );
        assert_eq!(
            q("cuts out at 276 kPa"),
            vec![(276.0 * 0.145038, Unit::Psi)]
        );
        assert_eq!(q("1.2k ohm"), vec![(1200.0, Unit::Ohm)]);
        assert_eq!(q("в морозилке −18 °C"), vec![(-18.0, Unit::Celsius)]);
        assert_eq!(
            q("на выходе 18 градусов цельсия"),
            vec![(18.0, Unit::Celsius)]
        );
        assert_eq!(q("sale a 7 grados centigrados"), vec![(7.0, Unit::Celsius)]);
        assert_eq!(
            q("center vent me da 16 grados C"),
            vec![(16.0, Unit::Celsius)]
        );
        assert_eq!(q("vent at 40 degrees F"), vec![(40.0, Unit::Fahrenheit)]);
    }

    #[test]
    fn a_negated_reading_is_zero() {
        assert_eq!(q("no 12V at the board"), vec![(0.0, Unit::Volt)]);
        assert_eq!(q("нет 12 В на плате"), vec![(0.0, Unit::Volt)]);
        assert_eq!(q("sin 12 V en la placa"), vec![(0.0, Unit::Volt)]);
    }

    #[test]
    fn words_are_not_units() {
        assert!(q("checked 2 fuses and a capacitor").is_empty());
        assert!(q("model 8535 has a valve").is_empty());
    }

    #[test]
    fn converts_within_a_family_only() {
        let c = Quantity {
            value: 20.0,
            unit: Unit::Celsius,
        };
        assert_eq!(c.convert_to(Unit::Fahrenheit), Some(68.0));
        let v = Quantity {
            value: 12.0,
            unit: Unit::Volt,
        };
        assert_eq!(v.convert_to(Unit::Vdc), Some(12.0));
        assert_eq!(v.convert_to(Unit::Amp), None);
        let ac = Quantity {
            value: 120.0,
            unit: Unit::Vac,
        };
        assert_eq!(ac.convert_to(Unit::Vdc), None);
    }

    #[test]
    fn lone_numbers() {
        assert_eq!(lone_number("119 at the main"), Some(119.0));
        assert_eq!(lone_number("на проводах насоса 12,1"), Some(12.1));
        assert_eq!(lone_number("на катушке ноль"), Some(0.0));
        // A time beside a number leaves it the one reading; alone, it is none.
        assert_eq!(lone_number("only 110 after 30 min on diesel"), Some(110.0));
        assert_eq!(lone_number("12.7 after sitting 3 hrs"), Some(12.7));
        assert_eq!(lone_number("after 30 min"), None);
        assert_eq!(lone_number("22.1 / 22.4"), None);
        assert_eq!(lone_number("zone 2 is cold"), None);
        assert_eq!(lone_number("menos de 1/4"), None);
        assert_eq!(lone_number("no reading"), None);
        // A temperature written with a spaced unit letter is no voltage.
        assert_eq!(lone_number("sale tibia, como 90 F"), None);
        assert_eq!(lone_number("motor 2 на контроллере"), None);
        assert_eq!(lone_number("green теперь 2"), None);
        assert_eq!(lone_number("the red code observed was 3"), None);
        assert_eq!(lone_number("motor leads 12.2"), Some(12.2));
    }

    #[test]
    fn bounds_lie_past_their_number() {
        use std::cmp::Ordering::*;
        assert_eq!(bound_side("a hair over "), Some(Greater));
        assert_eq!(bound_side("just under "), Some(Less));
        assert_eq!(bound_side("pressure reads "), None);
        assert_eq!(bound_side("un poco más de "), Some(Greater));
        assert_eq!(bound_side("чуть меньше "), Some(Less));
        assert!(past_bound(65.0, Some(Greater)) > 65.0);
        assert!(past_bound(12.0, Some(Less)) < 12.0);
        assert_eq!(past_bound(12.0, None), 12.0);
    }

    #[test]
    fn approximate_bare_numbers() {
        assert_eq!(bare_number("more like 0.4"), Some(0.4));
        assert_eq!(bare_number("a hair over 12.7"), Some(12.7));
        assert_eq!(bare_number("hanging around 60"), Some(60.0));
        assert_eq!(bare_number("12-ish"), Some(12.0));
        assert_eq!(bare_number("примерно 12,4"), Some(12.4));
    }

    #[test]
    fn bare_numbers() {
        assert_eq!(bare_number("12.4"), Some(12.4));
        assert_eq!(bare_number(" 45,5 "), Some(45.5));
        assert_eq!(bare_number("about 118"), Some(118.0));
        assert_eq!(bare_number("12 volts"), None);
    }
}
