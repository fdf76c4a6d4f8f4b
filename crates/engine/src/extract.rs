//! Fact extraction: which steps a free-text message answers, with what
//! outcome. A message is split into clauses ("fuse ok, 12.5 V at the switch,
//! 0 V at the motor"); each clause may answer the step being asked or any
//! step whose subject it names, in any order.

use regex::Regex;

use super::catalog::{Outcome, Patterns, Procedure, ReadingMode, Step, StepKind};
use super::lexicon;
use super::understand;
use super::units::{
    self, bare_number, find_quantities, lone_number, reading_numbers, Quantity, Unit,
};

/// One step answered by part of the message.
#[derive(Debug, Clone, PartialEq)]
pub struct StepAnswer {
    pub step: usize,
    pub outcome: String,
    pub quantity: Option<Quantity>,
    pub clause: String,
    pub signal: bool,
    /// How the clause was tied to the step.
    pub basis: Basis,
}

/// How a clause was tied to the step it answers: by naming it, by being a
/// reply to the step asked, and so on. The eval reports precision per basis.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Basis {
    /// A reading compared with the part's stated rating.
    Rated,
    /// Several readings combined (lowest, difference).
    Combined,
    /// The clause names the step's subject.
    Named,
    /// The clause names nothing and keeps the subject of the one before.
    Inherited,
    /// The asked step's own test, performed in the sentence.
    TestResult,
    /// A reply to the step asked, naming no step.
    Asked,
    /// The technician confirmed a tentative reading.
    Confirmed,
    /// A corrected number for a reading given before ("12.17 not 12.7").
    Corrected,
}

impl Basis {
    /// The name the eval reports it by (as serialized).
    pub fn as_str(self) -> &'static str {
        match self {
            Basis::Rated => "rated",
            Basis::Combined => "combined",
            Basis::Named => "named",
            Basis::Inherited => "inherited",
            Basis::TestResult => "test_result",
            Basis::Asked => "asked",
            Basis::Confirmed => "confirmed",
            Basis::Corrected => "corrected",
        }
    }
}

pattern!(
    CLAUSE_SPLIT,
    r"[,;\n]+|\.\s+|\s[-–—]+\s|\s/\s|\s+(?:and|but|then|also|y|pero|luego|и|а|но|потом)\s+"
);

/// "22.1 / 22.4": a pair of readings, not two clauses (a slash between
/// checklist items, "BATT FUSE: OK / DISC: ON", is a split).
fn between_numbers(text: &str, start: usize, end: usize) -> bool {
    text[start..end].trim() == "/"
        && text[..start]
            .trim_end()
            .ends_with(|c: char| c.is_ascii_digit())
        && text[end..]
            .trim_start()
            .starts_with(|c: char| c.is_ascii_digit())
}

/// "14 and change", "22 y pico", "12 с чем-то": one reading, not two clauses.
fn approximate_tail(text: &str, start: usize, end: usize) -> bool {
    // The number before the split point: ASCII, so every byte is a boundary.
    let number = text[..start]
        .trim_end_matches(|c: char| c.is_ascii_digit() || c == '.' || c == ',')
        .len();
    number < start
        && APPROXIMATE
            .find(&text[number..])
            .is_some_and(|m| m.start() == 0 && number + m.end() > end)
}

pattern!(RANGE_OPENER, r"\b(between|from|entre|de|между|от)\s*$");

/// "entre 170 y 190 °F", "between 11 and 15", "от 11 до 15": the two ends of
/// a range, not two clauses.
fn range_ends(text: &str, start: usize, end: usize) -> bool {
    let joint = text[start..end].trim();
    if !matches!(joint, "and" | "y" | "и") || !text[end..].starts_with(|c: char| c.is_ascii_digit())
    {
        return false;
    }
    let before = text[..start].trim_end();
    let number = before
        .trim_end_matches(|c: char| c.is_ascii_digit() || c == '.' || c == ',')
        .len();
    number < before.len() && RANGE_OPENER.is_match(&before[..number])
}

/// The message's clauses without what it frames as not the case: "no es
/// que no giren: giran" keeps "giran", "it's not that it won't start" alone
/// is dropped.
pub fn stated_clauses(text: &str) -> Vec<&str> {
    let denied = understand::denied_spans(text);
    if denied.is_empty() {
        return clauses(text);
    }
    clauses(text)
        .into_iter()
        .filter_map(|c| {
            let start = offset_in(text, c);
            let end = start + c.len();
            let Some(&(_, b)) = denied.iter().find(|&&(a, b)| start < b && a < end) else {
                return Some(c);
            };
            let rest = text[b.min(end)..end]
                .trim_start_matches(|ch: char| ch.is_whitespace() || "-–—:;,.".contains(ch));
            (!rest.is_empty()).then_some(rest)
        })
        .collect()
}

/// Splits a message into clauses, except at a decimal comma ("12,6 В"),
/// after an abbreviation's period ("11 in. WC", "approx. 12 V"), inside
/// an approximate reading ("14 and change") and between a range's ends.
pub fn clauses(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    for m in CLAUSE_SPLIT.find_iter(text) {
        if is_decimal_comma(text, m.start(), m.end())
            || follows_abbreviation(text, m.start(), m.as_str())
            || approximate_tail(text, m.start(), m.end())
            || between_numbers(text, m.start(), m.end())
            || range_ends(text, m.start(), m.end())
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

/// The clause says a fix was made: a repair verb not denied ("gfci won't
/// reset" is a result), and not one of `test_words` where the procedure
/// tests by swapping or resetting.
fn states_a_fix(
    proc: Option<&Procedure>,
    clause: &str,
    test_words: Option<&Regex>,
    asked: Option<&Step>,
) -> bool {
    lexicon::REPAIR_VERB.find_iter(clause).any(|m| {
        let after = &clause[m.end()..];
        let a_test = (test_words.is_some_and(|t| t.is_match(m.as_str()))
            && !names_another_part(proc, asked, after))
            || asked.is_some_and(|s| sets_up_test(s, m.as_str(), after));
        !a_test && !negated_before(clause, m.start())
    })
}

/// "Поменял розетку" while the GFCI's reset test is asked: the swap word's
/// object is another part of the procedure, so it is a repair of that
/// part, not the asked test.
fn names_another_part(proc: Option<&Procedure>, asked: Option<&Step>, after: &str) -> bool {
    let (Some(proc), Some(step)) = (proc, asked) else {
        return false;
    };
    let object: String = after
        .trim_start_matches(|ch: char| !ch.is_alphanumeric())
        .chars()
        .take(30)
        .collect();
    if step.subject.first_at(&object).is_some_and(|at| at <= 12) {
        return false;
    }
    // "Поменял моторы 1 и 2" answers "swap the motor plugs and retry": a
    // part the question itself names is the test's.
    let in_question = |c: &super::catalog::Component| {
        ["en", "es", "ru"]
            .iter()
            .any(|l| c.names.is_match(step.question.get(l)))
    };
    proc.components.iter().enumerate().any(|(i, c)| {
        Some(i) != step.component
            && c.names.first_at(&object).is_some_and(|at| at <= 12)
            && !in_question(c)
    })
}

pattern!(
    /// A test done with something taken off ("with the LOAD wires
    /// disconnected"), as opposed to one that passes when something is
    /// gone ("no nests").
    TEST_DISCONNECTS,
    r"\b(disconnect\w*|unplug\w*|desconect\w*|retirad\w*|отключ\w*|отсоедин\w*|снят\w*)"
);

/// "Ya le quité los cables del LOAD" while the step asks for the GFCI
/// with its LOAD wires disconnected: taking off what the asked test says
/// to take off sets the test up; it repairs nothing.
fn sets_up_test(step: &Step, verb: &str, after: &str) -> bool {
    let disconnects = |l: &&str| TEST_DISCONNECTS.is_match(step.question.get(l));
    if !lexicon::REMOVAL_VERB.is_match(verb) || !["en", "es", "ru"].iter().any(disconnects) {
        return false;
    }
    let question: String = ["en", "es", "ru"]
        .iter()
        .map(|l| step.question.get(l).to_lowercase())
        .collect::<Vec<_>>()
        .join(" ");
    after
        .split(|c: char| !c.is_alphanumeric())
        .find(|w| w.chars().count() >= 4)
        .is_some_and(|w| question.contains(&w.to_lowercase()))
}

/// The step's own test swaps or resets a part ("swap the motor plugs and
/// retry", "does the GFCI reset and hold?"): repair words in a reply to it
/// can report the test. Reversing leads ("swap leads to reverse") and a
/// reset light are not such a test.
pub fn tests_by_substitution(step: &Step) -> bool {
    let q = step.question.get("en");
    lexicon::TEST_BY_SUBSTITUTION.find_iter(q).any(|m| {
        let after = q[m.end()..].trim_start();
        !after.starts_with("leads") && !after.starts_with("light") && !q[..m.start()].ends_with('/')
    })
}

/// Where the sentence holding byte `at` starts.
fn sentence_start(text: &str, at: usize) -> usize {
    offset_in(text, sentence_of(text, at))
}

/// The byte offset of `part`, a slice of `text` (a clause or sentence the
/// splitters returned), within `text`.
fn offset_in(text: &str, part: &str) -> usize {
    part.as_ptr() as usize - text.as_ptr() as usize
}

fn sentence_of(text: &str, at: usize) -> &str {
    let at = at.min(text.len());
    let end_of = |c: char| matches!(c, '!' | '?' | '\n' | '.');
    let start = text[..at].rfind(end_of).map_or(0, |i| i + 1);
    let end = text[at..].find(end_of).map_or(text.len(), |i| at + i);
    &text[start..end]
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

pattern!(
    /// "…, el del ventilador quemado", "…, the one on the fan is blown": a
    /// clause that names its part by pointing back at the one before it.
    ELLIPSIS,
    r"^(?:el|la|los|las|the ones?|the other ones?)\s+((?:de|del|on|at|in|for|by|of|near)\b)"
);
pattern!(
    PREPOSITION,
    r"^(?:de|del|on|at|in|for|by|of|near|в|на|у|для)$"
);

/// `words` (a subject match such as "fuse" or "предохранител") is a word,
/// or the start of one, of the step's own label in some language: the
/// asked part goes by that name too.
fn names_part_of(step: &Step, words: &str) -> bool {
    let words = words.trim().to_lowercase();
    !words.is_empty()
        && !words.contains(char::is_whitespace)
        && ["en", "es", "ru"].iter().any(|lang| {
            step.label
                .get(lang)
                .to_lowercase()
                .split(|c: char| !c.is_alphanumeric())
                .any(|w| w.starts_with(&words))
        })
}

/// An elliptical clause read with the head noun of the part the clause
/// before it named: "el del ventilador quemado" after "fusible del panel"
/// is "fusible del ventilador quemado"; "the one on the fan is blown" after
/// "panel fuse" is "fuse on the fan is blown".
fn resolve_ellipsis(clause: &str, antecedent: &str) -> Option<String> {
    let rest = ELLIPSIS.captures(clause)?.get(1)?.start();
    let words: Vec<&str> = antecedent.split_whitespace().collect();
    // Head-first names ("fusible del panel", "fuse on the fan") keep the
    // words before their preposition; head-last ones ("panel fuse") the last.
    let head = match words.iter().position(|w| PREPOSITION.is_match(w)) {
        Some(0) | None => words.last()?.to_string(),
        Some(i) => words[..i].join(" "),
    };
    Some(format!("{head} {}", &clause[rest..]))
}

pattern!(
    /// A negator in the few words before a match reverses it ("doesn't run",
    /// "never cycles off", "не запускается", "no arranca").
    NEGATOR,
    r"\b(not|never|no|nothing|neither|nor|without|won'?t|wont|wouldn'?t|wouldnt|couldn'?t|couldnt|doesn'?t|doesnt|don'?t|dont|didn'?t|didnt|isn'?t|isnt|aren'?t|wasn'?t|weren'?t|hasn'?t|haven'?t|can'?t|cant|cannot|ni|nunca|tampoco|sin|nada|ning[uú]n|ninguna|не|ни|нет|нету|ничего|никогда|без)\b"
);

pattern!(
    /// A clause that only owns up to a slip: "my bad", "sorry", "perdón",
    /// "mi error", "моя ошибка", "виноват".
    APOLOGY,
    r"^\s*(my bad|mb|sorry|oops|whoops|my mistake|my fault|correction|no wait|wait|scratch that|perd[oó]n|disculpa|mi error|me equivoqu[eé]|ups|correcci[oó]n|моя ошибка|виноват\w*|сорри|пардон|ошибся|ошиблась|поправка)\s*[!.:;,-]*\s*$"
);

pattern!(
    /// "No, it bleeds down", "нет, не держит": a "no" that opens the reply
    /// answers the question; it negates nothing after it.
    INTERJECTION,
    r"^\s*(no|nope|нет|не|не-а)\b[\s,.!:;-]*(?:$|,|(it|it'?s|its|that|this|the|i|we|he|she|they|el|la|los|las|eso|esto|s[ií]|он|она|оно|это|да)\b)"
);

pattern!(
    /// "Ni con el puente directo se mueve", "nor with the jumper": a clause
    /// that opens with "ni" / "nor" denies everything in it.
    NEGATED_CLAUSE,
    r"^\s*(ni|nor|neither)\b|\b(wouldn'?t|would not|don'?t|do not|can'?t|cannot|couldn'?t)\s+(call|say|consider|rate|count|mark)\b[^,.;:!?]{0,30}$|\bno (dir[ií]a|llamar[ií]a|considerar[ií]a)\b[^,.;:!?]{0,30}$|\bне (назов[уё]|сказал бы|считаю|назвал бы)\b[^,.;:!?]{0,30}$"
);

/// Whether a negator stands within three words before byte `at` of `clause`.
fn negated_before(clause: &str, at: usize) -> bool {
    if NEGATED_CLAUSE.is_match(&clause[..at]) {
        return true;
    }
    let skip = INTERJECTION.find(clause).map_or(0, |m| m.end().min(at));
    let before = &clause[skip..at];
    let words: Vec<&str> = before.split_whitespace().collect();
    let window = words[words.len().saturating_sub(3)..].join(" ");
    NEGATOR.is_match(&window) || SHORT_OF.is_match(&window)
}

pattern!(
    /// Right before a state word, a shortfall: "2 inches shy of full",
    /// "por debajo del full", "не доходит до полного" is not full.
    SHORT_OF,
    r"\b((shy|short) of|below|beneath|under|debajo de(l)?|abajo de(l)?|ниже|не доходит до|не хватает до)\s*(the|el|la|lo)?\s*$"
);

pattern!(
    /// A bare "yes" with no word of how the thing was: no answer to a
    /// question that asks for a reading.
    BARE_AFFIRMATION,
    r"^\s*(y|yes|yep|yeah|yea|yup|sure|correct|right|exactly|that'?s right|s[ií]|correcto|exacto|eso|да|ага|угу|верно|точно|так и есть)\s*[.!]*\s*$"
);

pattern!(
    /// Whose words a complaint clause gives: the customer's or owner's.
    CUSTOMER_SAYS,
    r"\b(cust\w*|owner\w*|client\w*|due[nñ]o|propietari\w*|клиент\w*|хозя\w*|владел\w*)\b"
);

/// A complaint clause that tells the symptom rather than a check's result:
/// it is given as the customer's ("per cust", "el cliente dice"), or it
/// denies an operation without a reading ("blower doesn't even come on",
/// "дизельная горелка не запускается").
pub fn customer_account(clause: &str, has_reading: bool) -> bool {
    CUSTOMER_SAYS.is_match(clause) || (!has_reading && NEGATOR.is_match(clause))
}

/// "Customer states furnace won't heat, blower runs but no flame": every
/// clause of a sentence the customer is the teller of is their account,
/// not only the one that names them.
pub fn in_customers_sentence(text: &str, clause: &str) -> bool {
    text.find(clause).is_some_and(|at| {
        let from = sentence_start(text, at);
        CUSTOMER_SAYS.is_match(&text[from..at])
    })
}

/// "Fridge won't run on propane, flips to check light after a few tries":
/// a clause in the complaint's own sentence, where that sentence has no
/// reading and names no check, goes on telling the symptom; the
/// technician's checks come with a reading ("wont heat water, 118v at the
/// outlet, cord plugged in tight") or in sentences of their own ("I try
/// myself, no power light").
pub fn in_complaint_sentence(text: &str, complaint: &str, clause: &str) -> bool {
    let (Some(at), Some(complaint_at)) = (text.find(clause), text.find(complaint)) else {
        return false;
    };
    let sentence = sentence_of(text, complaint_at);
    sentence_start(text, at) == offset_in(text, sentence)
        && only_symptoms(&WARNING_LIGHT.replace_all(sentence, " "))
}

pattern!(
    /// A lamp named for what it warns of ("check light", "reset lamp") is
    /// no check made.
    WARNING_LIGHT,
    r"\b(check|reset|fault|service) (light|lamp|led)\b"
);

/// A complaint message with no reading and no word of a check anywhere
/// ("печка не греет, вентилятор дует холодным", "los gatos no suben, uno se
/// quedó abajo") is the symptom as anyone would tell it: none of it is a
/// check's result. Where the note has a reading or a check ("blower runs,
/// 12.4v at the board"), it is the technician's, clause by clause.
pub fn only_symptoms(text: &str) -> bool {
    reading_numbers(text) == 0 && find_quantities(text).is_empty() && !CHECK_RESULT.is_match(text)
}

pattern!(
    /// Words of a check made and its result ("panel fuse ok", "checked the
    /// relay", "fusible quemado", "реле звонится"): a complaint clause with
    /// none of them ("blower blowing cold", "burner light comes on") tells
    /// the symptom as anyone would see it.
    CHECK_RESULT,
    r"\b(check(ed|s)?|ck'?d|test(ed|s)?|meter(ed|s)?|measur\w*|jump(ed)?|bypass(ed)?|found|verif\w*|confirm\w*|ohm(ed)?|prob(e|ed)|ok|okay|good|fine|bad|blown|popped|tripped|open|closed|continuity|clean|dirty|corroded|burnt|burned|reads?|reading|revis\w*|prob[eé]|med[ií]|verifiqu[eé]|encontr[eé]|bien|buen[oa]s?|mal[oa]?|quemad[oa]s?|fundid[oa]s?|botad[oa]|abiert[oa]s?|cerrad[oa]s?|continuidad|limpi[oa]s?|suci[oa]s?|sulfatad[oa]s?|marca|провер\w*|мерил\w*|замерил\w*|померил\w*|наш[её]л|норм\w*|в порядке|цел\w*|сгорел\w*|перегорел\w*|выбит\w*|обрыв\w*|звонит\w*|чист\w*|грязн\w*|окисл\w*|показыва\w*)\b"
);

pattern!(
    /// Words of a check made, whatever its result.
    CHECKED,
    r"\b(check(ed)?|ck'?d|test(ed)?|meter(ed)?|measur\w*|prob(e|ed)|verif\w*|revis[eéa]\w*|prob[eé]|med[ií]\w*|verifiqu[eé]|провер\w*|мерил\w*|замерил\w*|померил\w*|намерил\w*)\b"
);

pattern!(
    SETTLES,
    r"\b(so|but|actually|really|says|going with|comes? up to|rises? to|settles? (at|to)|pero|en realidad|o sea|entonces|sube a|на самом деле|то есть|значит|поднимается до|а реально)\b"
);

pattern!(
    /// Words of a measurement: what a generic "good" / "bad" must be about
    /// to answer a measurement step.
    MEASURED,
    r"\b(nothing|nada|zero|zip|dead|cero|ничего|ноль|нуль|volt\w*|v|vac|vdc|reading|reads?|read|pressure|psi|temp\w*|amps?|amperage|draw|ohms?|resistance|spec|range|power|juice|output|input|supply|voltaje|presi[oó]n|lectura|marca|corriente|consumo|rango|especificaci[oó]n|salida|entrada|напряжени\w*|давлени\w*|температур\w*|показ\w*|вольт\w*|ток\w*|сопротивлени\w*|норм\w*|питани\w*)\b"
);

pattern!(
    OPEN_CIRCUIT,
    r"\b(open|O\.?L\.?|infinit\w*|no continuity|abiert[oa]|infinito|sin continuidad|обрыв\w*|бесконечн\w*|не звонится)\b"
);
pattern!(
    SHORT_CIRCUIT,
    r"\b(shorted|dead short|short(ed)? to|en corto|замыкани\w*|коротит|кз)\b"
);

pattern!(
    /// What comes before the number a correction takes back.
    NOT_THIS_NUMBER,
    r"\b(not|no|не|ni)\s*$"
);

pattern!(
    /// "…, not 35", "не 35", "no 50": the value a correction takes back.
    REJECTED_VALUE,
    r"^\s*(not|no|не|ni)\s+[-+]?\d"
);

pattern!(
    /// "12,5 это было на соседнем светильнике", "the 13 was on the other
    /// one", "el 13 era del otro": a reading the technician says was taken
    /// at some other part is taken back.
    WITHDRAWN_READING,
    r"\b\d+(?:[.,]\d+)?\s*(?:v|vdc|vac|a|amps?|psi|ohms?)?\s+(i )?(previously reported|reported (earlier|before)|i gave( you)?( earlier| before)?|from before)\b|\b\d+(?:[.,]\d+)?\s*(?:v|vdc|vac|volts?|psi|a|amps?|ohms?)?\s+(was|were)\s+(actually\s+)?(at|on|from|off|for)\s+(the\s+)?(other|wrong|next|neighbou?r\w*|another)\b|\d+(?:[.,]\d+)?\s*(?:в|а|ом)?\s+(это\s+)?(было|был[аи]?)\s+(на|с|у|от)\s+(соседн|друг|не\s+т)\w*|\b\d+(?:[.,]\d+)?\s*(?:v|a)?\s+(era|fue|eran|fueron)\s+(en|de|del)\s+(otr|el de al lado|la de al lado|la equivocad|el equivocad)\w*"
);

pattern!(
    /// "That 12.1 was at the switch, not the motor": the reading belongs to
    /// the place named before the "not" (`(?P<not>…)` starts the rest).
    MOVED_READING,
    r"\b\d+(?:[.,]\d+)?\s*(?:v|vdc|vac|volts?|psi|a|amps?|ohms?|в|а)?\s+(was|were|это было|было|era|fue)\s+(actually\s+)?(at|on|from|off|for|на|en|de|del)\b.{0,40}?(?P<not>,?\s*\b(not|а не|no en|no de|no)\b)"
);

pattern!(
    /// "14 and change", "11 point something", "22 y pico", "12 с чем-то":
    /// a reading somewhere from the number up to the next whole one.
    APPROXIMATE,
    r"(\d+(?:[.,]\d+)?)\s*(?:v|psi|a|в)?\s*(and change|something|point something|odd|y pico|y algo|punto algo|с чем-то|с копейками|с хвостиком|с лишним)\b"
);

/// For a reading said as "N and change": whether everything from N up to
/// the next whole number judges the same, so the outcome is what was said.
fn approximate_is_decided(step: &Step, clause: &str, value: f64, unit: Unit) -> bool {
    let approximate = APPROXIMATE
        .captures_iter(clause)
        .any(|c| c[1].replace(',', ".").parse::<f64>() == Ok(value));
    if !approximate {
        return true;
    }
    let top = value.trunc() + 0.999;
    let judge = |v: f64| {
        step.classify(&Quantity { value: v, unit })
            .map(|o| o.name.clone())
    };
    judge(value) == judge(top)
}

pattern!(
    BELOW_REFERENCE,
    r"\b(way |well |a (good |little )?bit |slightly |just )?(below|under|lower than|less than)\s+(what|where)\s+(the\s+)?([\w/-]+\s+){0,3}(chart|range|spec|book|manual|table|sticker|label)\b.{0,12}\b(says|shows|calls for|wants|lists)\b|\b(below|under|lower than|less than)\s+(what\s+)?(it|they)\s+should\b|\b(por debajo de|menos de) lo que (dice|marca|pide) (la |el )?(tabla|rango|manual|especificaci[oó]n)|\bниже (чем )?(по )?(таблиц|норм|спецификаци)\w*"
);
pattern!(
    ABOVE_REFERENCE,
    r"\b(way |well |a (good |little )?bit |slightly |just )?(above|over|higher than|more than)\s+(what|where)\s+(the\s+)?([\w/-]+\s+){0,3}(chart|range|spec|book|manual|table|sticker|label)\b.{0,12}\b(says|shows|calls for|wants|lists)\b|\b(above|over|higher than|more than)\s+(what\s+)?(it|they)\s+should\b|\b(por encima de|m[aá]s de) lo que (dice|marca|pide) (la |el )?(tabla|rango|manual|especificaci[oó]n)|\bвыше (чем )?(по )?(таблиц|норм|спецификаци)\w*"
);

/// `Some(true)` when the clause puts the reading below the reference it
/// names (the chart, the range, what it should be), `Some(false)` above.
fn beside_reference(clause: &str) -> Option<bool> {
    // Most clauses name no reference at all: a cheap look for the words
    // every reference phrase has spares the two searches.
    let lower = clause.to_lowercase();
    if !["what", "where", "should", "lo que", "ниже", "выше"]
        .iter()
        .any(|w| lower.contains(w))
    {
        return None;
    }
    match (
        BELOW_REFERENCE.is_match(clause),
        ABOVE_REFERENCE.is_match(clause),
    ) {
        (true, false) => Some(true),
        (false, true) => Some(false),
        _ => None,
    }
}

pattern!(INPUT_SIDE, r"\b(input|line side|entrada|вход\w*)");
pattern!(
    OUTPUT_SIDE,
    r"\b(output|out of the|load side|salida|выход\w*)"
);

/// The clause speaks of the other terminal of the part than the step asks
/// about ("the controller output" is no reading at the switch input).
/// `said` is whether the clause speaks of an input and of an output.
fn other_terminal(step: &Step, said: (bool, bool)) -> bool {
    let (says_input, says_output) = said;
    if says_input == says_output {
        return false;
    }
    let label = step.label.get("en");
    let asks_input = INPUT_SIDE.is_match(label);
    let asks_output = OUTPUT_SIDE.is_match(label);
    (asks_input && !asks_output && says_output) || (asks_output && !asks_input && says_input)
}

pattern!(
    /// A reading taken off the coach's own display, not a meter at the
    /// point the step asks about.
    ON_DISPLAY,
    r"\b(on|off|per) the (coach |wall |tank |battery |house )?(monitor|display|screen|app)\b|\b(monitor|display|screen|pantalla|app)\b.{0,25}\b(says|shows|reads|dice|marca|muestra|показывает|пишет)\b|\b(на|по) (монитор|экран|диспле|приложени)\w*"
);

pattern!(
    /// A value printed on a part ("dice 40-50 psi en la etiqueta", "rated
    /// 45 on the sticker"): its rating, not a reading.
    ON_LABEL,
    r"\b(on|per) the (label|sticker|tag|data ?plate)\b|\b(en|seg[uú]n) la (etiqueta|placa de datos|calcoman[ií]a)\b|\b(на|по) (этикетке|шильдик\w*|наклейке|табличке)\b"
);

pattern!(
    /// The outdoor air ("на улице 35", "outside 95", "afuera 34"): not one of
    /// the two air temperatures a split is taken between.
    OUTDOOR,
    r"\b(outside|outdoors?|ambient|afuera|exterior|fuera|на улице|снаружи|за бортом)\b"
);

pattern!(
    /// Started, then stopped: "then dies", "se apaga", "гаснет".
    STOPS,
    r"\b(dies|died|goes out|went out|shuts? (off|down)|drops? out|cuts? out|quits|stops|flames? out|se apaga|se apag[oó]|se corta|se para|se detiene|гаснет|погас\w*|тухнет|потух\w*|глохнет|заглох\w*|отключается|выключается|останавливается)\b"
);

pattern!(
    /// A condition the check was made under ("with the lid open", "con el
    /// motor apagado", "при открытой крышке") says nothing about the result.
    CONDITION,
    r"\b(with|w/|w)\s+(the\s+)?[\w-]+(\s+[\w-]+){0,2}?\s+(open|closed|shut|on|off|running|going|lit|burning|unplugged|disconnected)\b|\b(con|sin)\s+(el|la|los|las)\s+\w+(\s+\w+){0,3}?\s+((en\s+)?off|(en\s+)?on|abiert|cerrad|apagad|prendid|encendid|desconectad)\w*|\bпри\s+(открыт|закрыт|выключенн|включённ|включенн|отключённ|отключенн)\w*\s+\w+|\b(when|while|once|cuando|mientras|когда|пока)\b.*$|\b(on|at|during)\s+(the\s+)?(comp(ressor)?\s+)?(start|startup|start-?up)(\s+attempt)?\b|\b(al|en el)\s+(arranque|arrancar)(\s+(del?|el)\s+compresor)?\b|\bпри\s+(пуске|старте|запуске)(\s+компрессора)?\b"
);

pattern!(
    /// "Split was 18 not 8", "9.8 а не 12": the value taken back after the
    /// one that stands.
    REJECTED_TAIL,
    r"(?P<kept>\d[^\d]{0,16}?)\s*,?\s*\b(?:not|no|не|ni|а не|y no)\s+[-+]?\d+(?:[.,]\d+)?"
);

pattern!(
    /// How a reading was taken that names another part or a count: "during
    /// the spark", "with 2 burners going", "after sitting 3 hrs". What the
    /// clause is about is what is left.
    SIDE_CONDITION,
    r"\bduring\s+(the\s+)?(spark|sparking|trial|ignition|purge|crank\w*|harvest|fill|cycle)\b|\bdurante\s+(el\s+|la\s+)?(encendido|chispa|arranque|ignici[oó]n|purga|cosecha|llenado|ciclo)\b|\bво\s+время\s+(розжига|искры|запуска|продувки|цикла)\b|\b(with|w/|w)\s+(\d+|two|three|all|both)\s+burners?\s+(going|on|lit|burning|running)\b|\b(after|despu[eé]s\s+de|через|после)\s+(sitting\s+|resting\s+|reposar\s+)?(\d+(?:[.,]\d+)?|an?|one|two|three|half\s+an?|una?|dos|tres|media)\s*(hrs?|hours?|horas?|min\w*|час\w*|мин\w*)\b"
);

fn without_conditions(clause: &str) -> std::borrow::Cow<'_, str> {
    match CONDITION.replace_all(clause, " ") {
        std::borrow::Cow::Borrowed(c) => REJECTED_TAIL.replace_all(c, "$kept"),
        std::borrow::Cow::Owned(c) => {
            std::borrow::Cow::Owned(REJECTED_TAIL.replace_all(&c, "$kept").into_owned())
        }
    }
}

/// Whether the match `a..b` of `clause` is reversed by a negator before it.
/// A match that carries its own negation ("не взводится", "doesn't hold")
/// is not reversed again by one further back ("даже без нагрузки").
fn negated_match(clause: &str, a: usize, b: usize) -> bool {
    let own = NEGATOR.find(&clause[a..b]).is_some_and(|m| m.start() == 0);
    !own && negated_before(clause, a)
}

/// Polarity of a clause for a yes/no step, from the generic answer words:
/// `Some(true)` yes, `Some(false)` no, with a negator before a word reversing
/// it ("not blown" is yes; "isn't good" is no).
fn generic_polarity(clause: &str, near: Option<(usize, usize)>) -> Option<bool> {
    // About a step that is not being asked, a generic word counts only next
    // to the words that name it ("fan fuse good"), not anywhere in the clause
    // ("no water into the mold" says nothing about the mold's temperature).
    const NEAR_BYTES: usize = 16;
    let close =
        |a: usize, b: usize| near.is_none_or(|(s, e)| a <= e + NEAR_BYTES && b + NEAR_BYTES >= s);
    // "Yes, the battery side": a yes or no that opens the clause answers
    // what was asked, not a step the clause goes on to name.
    let leading_reply = |m: &regex::Match| {
        near.is_some() && clause[..m.start()].trim().is_empty() && REPLY_WORD.is_match(m.as_str())
    };
    let best = |r: &Regex, positive: bool| {
        r.find_iter(clause)
            .filter(|m| {
                close(m.start(), m.end())
                    && !leading_reply(m)
                    && !acts_on_object(clause, m)
                    && !AMOUNT_AFTER.is_match(&clause[m.end()..])
            })
            .map(|m| {
                let negated = negated_match(clause, m.start(), m.end());
                (m.len(), positive != negated)
            })
            .max_by_key(|(len, _)| *len)
    };
    match (best(&lexicon::YES, true), best(&lexicon::NO, false)) {
        (Some((_, p)), None) | (None, Some((_, p))) => Some(p),
        (Some((y, py)), Some((n, pn))) => {
            if py == pn {
                Some(py)
            } else if n >= y {
                Some(pn)
            } else {
                Some(py)
            }
        }
        (None, None) => None,
    }
}

pattern!(
    /// "A good bit under", "a good while": "good" measuring an amount, not
    /// judging the part.
    AMOUNT_AFTER,
    r"^\s+(bit|deal|while|amount|ways|chunk|number|portion|part|few|many|long)\b"
);

pattern!(
    /// "Closed everything up", "opened it": the verb of an action done,
    /// with its object, not a state read off a part.
    OBJECT_AFTER,
    r"^\s+(everything|it|them|all|up|every|her|him|things)\b"
);

/// The answer word `m` is a verb acting on an object ("closed everything
/// up"), not the part's state ("relay closed").
fn acts_on_object(clause: &str, m: &regex::Match<'_>) -> bool {
    let word = m.as_str().trim().to_lowercase();
    (word.ends_with("closed") || word.ends_with("opened") || word.ends_with("open"))
        && OBJECT_AFTER.is_match(&clause[m.end()..])
}

pattern!(
    REPLY_WORD,
    r"^\s*(y|ya|yes|yep|yeah|yup|sure|s[ií]|да|ага|n|no|nope|nah|нет|не)\s*$"
);

/// How a clause stands to the step it may answer.
#[derive(Clone, Copy)]
struct Grounding {
    /// The step is the one being asked.
    is_active: bool,
    /// The message is this one clause, or the clause is only a number.
    bare: bool,
    /// The message is this one clause.
    whole: bool,
    /// The clause names this step (its subject) or is a bare reply to it:
    /// only then may generic words ("ok", "bad", "no") answer it.
    grounded: bool,
    /// The clause names the step.
    named: bool,
    /// The message holds one number that could be a reading.
    sole_number: bool,
    /// The message is written where temperatures are in Celsius.
    celsius: bool,
}

/// The outcome a clause states for `step`, if it states one. A number
/// without a unit is this step's reading when the message is that one
/// clause and the step is being asked, when the clause names the step, or
/// when the step is asked, the message has no other number and the number
/// is one this measurement can read.
fn outcome_in(
    proc: &Procedure,
    step: &Step,
    clause: &str,
    g: Grounding,
) -> Option<(String, Option<Quantity>)> {
    if lexicon::UNSURE.is_match(clause)
        || lexicon::DOUBT.is_match(clause)
        || understand::cannot_check(clause)
        || understand::not_done_yet(clause)
        || hedged_without_number(clause)
    {
        return None;
    }
    let stripped = without_conditions(clause);
    let clause: &str = &stripped;
    let near = (g.named && !g.is_active)
        .then(|| step.subject.longest_span(clause))
        .flatten();
    match step.kind {
        StepKind::Measurement => {
            let unit = step.unit?;
            // "Way below what the P/T chart says for 75 out here": the side of
            // the reference is the answer; the number is the reference's.
            if let Some(low) = beside_reference(clause) {
                return step
                    .outcome(if low { "low" } else { "high" })
                    .map(|o| (o.name.clone(), None));
            }
            for f in find_quantities(clause) {
                if f.quantity.convert_to(unit).is_some() {
                    let judged = Quantity {
                        value: units::past_bound(
                            f.quantity.value,
                            units::bound_side(&clause[..f.start]),
                        ),
                        ..f.quantity
                    };
                    if !approximate_is_decided(step, clause, f.quantity.value, f.quantity.unit) {
                        return None;
                    }
                    let o = step.classify(&judged)?;
                    return Some((o.name.clone(), Some(f.quantity)));
                }
            }
            // The step being asked, one number and nothing about another
            // component: that number is the reading ("119 at the main"). In
            // a longer clause ("leads at the arm show 12.1", "el touch pad
            // enseña 12,6") the number must also be one this measurement
            // can read: not a count, a time or a rating far off its range.
            let number = bare_number(clause)
                .or_else(|| lone_number(clause))
                .filter(|_| !instrument_reads_otherwise(clause, unit));
            if let Some(v) = number {
                // A number with no unit far off what this measurement can
                // read is another quantity ("39 middle shelf … on LP" is a
                // temperature, not 39 in. WC of gas).
                let plausible = g.sole_number
                    && v >= 0.0
                    && v <= step.max * 2.5
                    && (v >= step.min * 0.2 || v == 0.0);
                // "Dometic RM2852, 2016, tanque al 70%": a model year among
                // other notes is no reading, nor a number this measurement
                // cannot show.
                let model_year = !g.whole && v.fract() == 0.0 && (1980.0..=2035.0).contains(&v);
                let readable = unit.can_read(v) && !model_year;
                // "clamp shows 0.65", "I read 13.2": a number said as what
                // the meter showed is a reading however far off the range.
                let said_read = READ_AS.is_match(clause);
                if readable && ((g.is_active && (g.bare || plausible || said_read)) || g.named) {
                    let q = Quantity {
                        value: v,
                        unit: if g.celsius {
                            units::unsaid_scale(clause, unit)
                        } else {
                            unit
                        },
                    };
                    let judged = Quantity {
                        value: units::past_bound(v, bound_of(clause, v)),
                        ..q
                    };
                    if !approximate_is_decided(step, clause, v, q.unit) {
                        return None;
                    }
                    let o = step.classify(&judged)?;
                    return Some((o.name.clone(), Some(q)));
                }
            }
            // "no power at the board" with no number.
            if let Some((o, negated)) = best_outcome(proc, &step.outcomes, clause) {
                return (!negated).then(|| (o.name.clone(), None));
            }
            if !g.grounded {
                return None;
            }
            // A resistance that reads open is infinite, not low.
            if unit == Unit::Ohm {
                if OPEN_CIRCUIT.is_match(clause) {
                    return step
                        .outcome("high")
                        .or_else(|| step.outcome("low"))
                        .map(|o| (o.name.clone(), None));
                }
                if SHORT_CIRCUIT.is_match(clause) {
                    return step.outcome("low").map(|o| (o.name.clone(), None));
                }
            }
            // "reads in spec", "voltage is good": in range without the number.
            // A part that "doesn't work" ("дисплей на котле не работает") is
            // no reading: a clause that is more than a bare reply must speak
            // of the measurement.
            if !g.bare && !MEASURED.is_match(clause) {
                return None;
            }
            match generic_polarity(clause, near)? {
                false => step.outcome("low").map(|o| (o.name.clone(), None)),
                true => step.outcome("ok").map(|o| (o.name.clone(), None)),
            }
        }
        StepKind::YesNo => {
            if let Some((o, negated)) = best_outcome(proc, &step.outcomes, clause) {
                if !negated {
                    return Some((o.name.clone(), None));
                }
                // "never cycles off", "doesn't move even on direct power":
                // the other answer of a yes/no step.
                let other = if o.name == "yes" { "no" } else { "yes" };
                return step.outcome(other).map(|o| (o.name.clone(), None));
            }
            if !g.grounded {
                return None;
            }
            let yes = generic_polarity(clause, near)?;
            Some((if yes { "yes" } else { "no" }.into(), None))
        }
    }
}

/// The outcome whose own words match longest, and whether a negator stands
/// just before that match.
///
/// A word inside a part's name is not a state: "fill tube frozen" says
/// nothing about whether the mold fills, nor "run capacitor" about whether
/// anything runs.
fn best_outcome<'a>(
    proc: &Procedure,
    outcomes: &'a [Outcome],
    clause: &str,
) -> Option<(&'a Outcome, bool)> {
    let names: Vec<(usize, usize)> = proc
        .components
        .iter()
        .flat_map(|c| c.names.spans(clause))
        .collect();
    let in_a_name = |(a, b): (usize, usize)| names.iter().any(|&(s, e)| s <= a && b <= e);
    outcomes
        .iter()
        .filter_map(|o| {
            o.words
                .spans(clause)
                .into_iter()
                .filter(|&span| !in_a_name(span))
                .max_by_key(|&(a, b)| (clause[a..b].chars().count(), std::cmp::Reverse(a)))
                .map(|span| (span, o))
        })
        .max_by_key(|((a, b), _)| clause[*a..*b].chars().count())
        .map(|((a, b), o)| (o, negated_match(clause, a, b)))
}

/// Every step answered by `text`. A clause answers a step whose subject it
/// names; the active step may also be answered by a bare reply ("yes",
/// "12.4", "blown", "nope, dead"), but never by a clause about another
/// component ("burner won't stay lit" is not a gas-pressure reading). A
/// clause in a question, or one saying the check could not be done, answers
/// nothing.
///
/// `start` is the first step of the complaint being diagnosed: a clause
/// names only steps that complaint's walk can reach (a light's complaint
/// is never answered with the fan motor's terminal voltage).
pub fn step_answers(
    proc: &Procedure,
    start: Option<usize>,
    active: Option<usize>,
    text: &str,
) -> Vec<StepAnswer> {
    if understand::doubts_the_check(text) || understand::intermittent(text) {
        return Vec::new();
    }
    let in_scope = start.map(|s| proc.reachable_from(s));
    let parts = stated_clauses(text);
    let single = parts.len() == 1;
    let questions = understand::question_spans(text);
    // "No gauges on me, reads low anyway?": once the message says a check
    // could not be made, only clauses that name their step answer one.
    // A plan for another step's check ("doing the water test next") leaves
    // the asked step's answer standing.
    // A checklist item's "- didnt check yet" is about the item before it
    // ("water test - didnt do yet" while the receptacle is asked).
    let about = |k: usize| -> Vec<usize> {
        let named = steps_named(proc, parts[k]);
        if !named.is_empty() || k == 0 {
            return named;
        }
        let at = |c: &str| offset_in(text, c);
        let item_end = at(parts[k - 1]) + parts[k - 1].len();
        match text[item_end..at(parts[k])].trim() {
            "-" | "–" | "—" | "--" | ":" => steps_named(proc, parts[k - 1]),
            _ => named,
        }
    };
    let plans_this = |k: usize| {
        understand::not_done_yet(parts[k]) && {
            let named = about(k);
            named.is_empty() || active.is_some_and(|a| named.contains(&a))
        }
    };
    let opens_hedged = parts.first().is_some_and(|c| opening_hedge(c));
    let could_not_check = (0..parts.len()).any(|k| {
        lexicon::UNSURE.is_match(parts[k]) || understand::cannot_check(parts[k]) || plans_this(k)
    }) || opens_hedged;
    // "New 45/5 cap in, compressor starts and runs": the numbers of a
    // message that reports the fix describe the new part or the unit after
    // it, not the fault.
    let mut out: Vec<StepAnswer> = Vec::new();
    if !states_repair(text) {
        out.extend(rated_answers(proc, active, text, &questions));
        out.extend(combined_readings(proc, active, text, &questions));
    }
    // A step the rating comparison answered is not read again clause by clause.
    let mut conflicted: Vec<usize> = out.iter().map(|a| a.step).collect();
    let mut prev_named: Vec<(usize, usize)> = Vec::new();
    // The step the clause before answered, and whether with a reading.
    let mut prev_answered: Option<(usize, bool)> = None;
    let mut prev_end = 0;
    // "Swapped the solenoid, pumps fine now": from the repair on, the
    // message describes the unit after the fix, which answers no step of
    // the diagnosis. A step whose own test is a swap or reset is the
    // exception: its reply is worded like a repair.
    let repair_is_a_test = active.is_some_and(|a| tests_by_substitution(&proc.steps[a]));
    // Where a step of this procedure tests by swapping or resetting ("does
    // the GFCI reset and hold?"), those words report a test, not a repair.
    let substitution_tests = proc.steps.iter().any(tests_by_substitution);
    let mut repaired = false;
    let correcting = understand::is_correction(text);
    // One number in the whole message: an unlabelled one in a longer clause
    // may be the asked step's reading.
    let sole_number = reading_numbers(text) == 1;
    let celsius = units::writes_celsius(text);
    // The words the last clause that named a step used for its part.
    let mut antecedent: Option<String> = None;
    // Steps a clause said were not (fully) checked, with the sentence it
    // said so in, and the sentence each answer came from.
    let mut unchecked: Vec<(usize, usize)> = Vec::new();
    let mut answered_in: std::collections::HashMap<usize, usize> = std::collections::HashMap::new();
    for clause in parts {
        let offset = offset_in(text, clause);
        let clause_end = offset + clause.len();
        if understand::in_question(&questions, offset)
            || understand::asks_what_it_means(clause)
            || REJECTED_VALUE.is_match(clause)
            || REFERENCE_READING.is_match(clause)
            || WITHDRAWN_READING.is_match(clause)
            // "ok, subo el termostato y escucho": an "ok" that opens a
            // longer message agrees to go on; it is no verdict on the check.
            || (!single && offset == 0 && understand::without_ack_lead(clause).is_empty())
        {
            continue;
        }
        // What comes after the "not" of a moved reading is where it was not
        // taken; the reading answers only a step its place names.
        let moved = MOVED_READING
            .captures(clause)
            .and_then(|c| c.name("not"))
            .map(|m| m.start());
        let clause = &clause[..moved.unwrap_or(clause.len())];
        let resolved = antecedent
            .as_deref()
            .and_then(|a| resolve_ellipsis(clause, a));
        let clause = resolved.as_deref().unwrap_or(clause);
        // "My bad, split was 18": an apology or a "correction:" before the
        // corrected statement answers nothing itself.
        if APOLOGY.is_match(clause) {
            continue;
        }
        // "No, perdón, el límite está abierto": the "no" that opens a
        // correction takes back the earlier statement; it answers nothing.
        if correcting
            && INTERJECTION
                .find(clause)
                .is_some_and(|m| m.end() == clause.len())
        {
            continue;
        }
        let test_words = if repair_is_a_test {
            Some(&*lexicon::SUBSTITUTION_REPLY)
        } else {
            substitution_tests.then_some(&*lexicon::TEST_BY_SUBSTITUTION)
        };
        repaired |= states_a_fix(
            Some(proc),
            clause,
            test_words,
            active.map(|a| &proc.steps[a]),
        ) && !restores_test_setup(clause);
        if repaired {
            continue;
        }
        // "burner lights, then dies": what it came to is a no.
        if STOPS.is_match(clause) && !clause.contains(|c: char| c.is_ascii_digit()) {
            if let Some(prev) = out.last_mut() {
                if prev.outcome == "yes" && proc.steps[prev.step].outcome("no").is_some() {
                    prev.outcome = "no".into();
                    prev.clause = format!("{}, {clause}", prev.clause);
                    prev.signal = proc.steps[prev.step]
                        .outcome("no")
                        .is_some_and(|o| o.signal);
                    continue;
                }
            }
        }
        // Steps whose subject this clause names, most specific first.
        // A part named only in the clause's condition ("valve sees 11.8
        // during the spark") is not what the clause is about.
        let unconditioned = SIDE_CONDITION.replace_all(clause, " ");
        let about: &str = if unconditioned.trim().is_empty() {
            clause
        } else {
            &unconditioned
        };
        let said_side = (INPUT_SIDE.is_match(about), OUTPUT_SIDE.is_match(about));
        let mut named: Vec<(usize, usize)> = proc
            .steps
            .iter()
            .enumerate()
            .filter(|(i, _)| in_scope.as_ref().is_none_or(|r| r[*i]) || Some(*i) == active)
            .filter(|(_, s)| !other_terminal(s, said_side))
            .filter_map(|(i, s)| s.subject.longest_match(about).map(|len| (len, i)))
            .collect();
        // The step whose part the clause names most fully wins ("предохранитель
        // в панели" is the panel fuse even while the fan fuse is asked); then
        // the step being asked; then the most specific subject.
        let part = |i: usize| {
            proc.steps[i]
                .component
                .and_then(|c| proc.components[c].names.longest_match(clause))
                .unwrap_or(0)
        };
        // The asked step's test, performed in this sentence ("jumped R and W
        // at the furnace, blower took right off"): a clause in the step's
        // own result words is that test's result, even where it names
        // another step's part (the blower).
        let test_result = active.filter(|&a| {
            let step = &proc.steps[a];
            named.iter().any(|&(_, i)| i != a)
                && !out.iter().any(|x| x.step == a)
                && step.subject.is_match(sentence_of(text, offset))
                && best_outcome(proc, &step.outcomes, clause).is_some_and(|(_, negated)| !negated)
        });
        if let Some(a) = test_result {
            if !named.iter().any(|&(_, i)| i == a) {
                named.push((0, a));
            }
        }
        // "The fuse is blown" while the panel fuse is asked: a bare name that
        // the asked step's own part also goes by is that part, not the
        // other step's ("fuse" is the fan fuse's subject too). So are the
        // conductors a reading is taken across when the asked question
        // names them too ("114 hot to neutral" while the pedestal's
        // hot–neutral voltage is asked).
        if let Some(a) = active {
            let asked = &proc.steps[a];
            let shared = !named.iter().any(|&(_, i)| i == a)
                && named.iter().any(|&(_, i)| {
                    let other = &proc.steps[i];
                    other.subject.longest_span(clause).is_some_and(|(x, y)| {
                        names_part_of(asked, &clause[x..y])
                            || (CONDUCTORS.is_match(&clause[x..y])
                                && asked.question.all().any(|q| other.subject.is_match(q)))
                    })
                });
            if shared {
                named.push((0, a));
            }
        }
        named.sort_by_key(|&(len, i)| {
            (
                std::cmp::Reverse(Some(i) == test_result),
                std::cmp::Reverse(part(i)),
                std::cmp::Reverse(Some(i) == active),
                std::cmp::Reverse(len),
            )
        });
        // "compressor hums and won't start", "comp just hums, clicks off": a
        // clause that names nothing, joined to the one before it in the same
        // sentence, keeps that clause's subject.
        let same_sentence = !text[prev_end.min(offset)..offset].contains(['.', '!', '?', '\n']);
        let inherited = named.is_empty()
            && same_sentence
            && !prev_named.is_empty()
            && component_named(proc, clause).is_none()
            && !ON_DISPLAY.is_match(clause);
        if inherited {
            // "вентилятор запускается, крутит нормально": the clause goes on
            // about the step the one before it answered, if it answered one.
            // After a reading ("bottoms out around 109 when the comp kicks,
            // and it did start") the clause may turn to another part the
            // one before it named.
            named = match prev_answered {
                Some((step, false)) => vec![(0, step)],
                Some((step, true)) => {
                    let mut n = prev_named.clone();
                    n.sort_by_key(|&(_, i)| i != step);
                    n
                }
                None => prev_named.clone(),
            };
        } else if let Some(&(_, i)) = named.first() {
            let step = &proc.steps[i];
            antecedent = step
                .component
                .and_then(|c| proc.components[c].names.longest_span(clause))
                .or_else(|| step.subject.longest_span(clause))
                .map(|(a, b)| clause[a..b].to_string());
        }
        prev_named = named.clone();
        prev_end = clause_end;
        // "Electrode looks fine, but the gap I didn't measure": a check
        // left partly unmade is not answered by the part that was made.
        if lexicon::UNSURE.is_match(clause)
            || understand::cannot_check(clause)
            || understand::not_done_yet(clause)
        {
            let sentence = sentence_start(text, offset);
            unchecked.extend(named.iter().map(|&(_, i)| (i, sentence)));
            out.retain(|a| {
                !unchecked.contains(&(
                    a.step,
                    answered_in.get(&a.step).copied().unwrap_or(usize::MAX),
                ))
            });
            continue;
        }
        let mut answered = None;
        for (_, i) in &named {
            // "Chispa: no", "искра — нет": a checklist line's result word
            // answers the yes/no check its label names.
            if let Some(outcome) = labelled_yes_no(&proc.steps[*i], clause) {
                answered = Some((*i, outcome, None, Basis::Named));
                break;
            }
            // An inherited subject answers only by the step's own words or a
            // reading, never by a generic "no" ("prende pero no calienta").
            if let Some((outcome, q)) = outcome_in(
                proc,
                &proc.steps[*i],
                clause,
                Grounding {
                    is_active: Some(*i) == active,
                    bare: single,
                    whole: single,
                    grounded: !inherited,
                    named: !inherited,
                    sole_number,
                    celsius,
                },
            ) {
                let basis = if inherited {
                    Basis::Inherited
                } else if Some(*i) == test_result {
                    Basis::TestResult
                } else {
                    Basis::Named
                };
                answered = Some((*i, outcome, q, basis));
                break;
            }
        }
        if answered.is_none() && !could_not_check && !inherited && moved.is_none() {
            if let Some(a) = active {
                // A clause naming another step's subject without a result
                // is not an answer to the active step.
                let names_other = named.iter().any(|(_, i)| *i != a);
                // A reading in the step's unit is about the step even when
                // the clause names the part it was taken at ("0 V en el
                // inversor" for the inverter's DC input).
                let step = &proc.steps[a];
                let reading = step.unit.is_some_and(|u| {
                    find_quantities(clause)
                        .iter()
                        .any(|f| f.quantity.convert_to(u).is_some())
                });
                let elsewhere = read_at_another_part(proc, step, clause)
                    || (!reading && about_other_component(proc, step, clause))
                    || labelled_for_another_check(step, clause)
                    || (ON_DISPLAY.is_match(clause) && !step.subject.is_match(clause))
                    || (step.kind == StepKind::Measurement && ON_LABEL.is_match(clause))
                    || lexicon::DISPUTE.is_match(clause)
                    // "Nah. Not the fuel": the "no" that opens a dispute
                    // rejects the assistant's suspicion, it answers no check.
                    || (offset == 0
                        && is_bare_reply(clause)
                        && lexicon::DISPUTE.is_match(text)
                        && find_quantities(clause).is_empty()
                        && bare_number(clause).is_none());
                // "Yep" to "what voltage do you read?" agrees to nothing a
                // reading could be recorded from.
                let mute = step.kind == StepKind::Measurement && BARE_AFFIRMATION.is_match(clause);
                if (!names_other || single) && !elsewhere && !mute {
                    let bare = is_bare_reply(clause);
                    if let Some((outcome, q)) = outcome_in(
                        proc,
                        &proc.steps[a],
                        clause,
                        Grounding {
                            is_active: true,
                            // "…meter was on mV lol. so 12.6": a clause that
                            // is only a number is a reading for the asked step.
                            bare: single || bare_number(clause).is_some(),
                            whole: single,
                            grounded: bare,
                            named: false,
                            sole_number,
                            celsius,
                        },
                    ) {
                        answered = Some((a, outcome, q, Basis::Asked));
                    }
                }
            }
        }
        prev_answered = answered.as_ref().map(|a| (a.0, a.2.is_some()));
        if let Some((step, outcome, quantity, basis)) = answered {
            let signal = proc.steps[step].outcome(&outcome).is_some_and(|o| o.signal);
            // Two clauses about one step: the same answer counts once;
            // different answers ("fins frosty, absorber warm", "lights, then
            // dies") are not a statement of either, so neither is recorded.
            if conflicted.contains(&step)
                || unchecked.contains(&(step, sentence_start(text, offset)))
            {
                continue;
            }
            answered_in.insert(step, sentence_start(text, offset));
            if let Some(prev) = out.iter().position(|a| a.step == step) {
                // A second reading of one measurement that says it settles
                // the first is what it came to ("12600... meter was on mV,
                // so 12.6", "60 on the cheap meter but the fluke says 117");
                // two readings side by side ("12.4 V, again 0 V") are not.
                if quantity.is_some()
                    && out[prev].quantity.is_some()
                    && (SETTLES.is_match(clause) || understand::is_correction(text))
                {
                    out.remove(prev);
                } else {
                    if out[prev].outcome != outcome {
                        conflicted.push(step);
                        out.remove(prev);
                    }
                    continue;
                }
            }
            out.push(StepAnswer {
                step,
                outcome,
                quantity,
                clause: clause.to_string(),
                signal,
                basis,
            });
        }
    }
    // "Sorta, LED went to boost for a bit": a hedge that opens the message
    // qualifies its first sentence, whatever that sentence names.
    if opens_hedged {
        out.retain(|a| {
            text.find(a.clause.as_str())
                .is_none_or(|at| sentence_start(text, at) != 0)
        });
    }
    // "1500 rpm, max, recirc: low side 58 psi" is a running pressure, not
    // the static one the gauges' words name: a reading said under a
    // condition other than the step's own answers some other check.
    // "Solenoid contacts burnt, dropping almost 2v across it": a voltage
    // lost across a part is not the voltage a measurement step asks for.
    out.retain(|a| {
        let step = &proc.steps[a.step];
        !(a.quantity.is_some()
            && step.kind == StepKind::Measurement
            && step.reading != Some(ReadingMode::Difference)
            && LOST_ACROSS.is_match(&a.clause))
    });
    // "I put that element in myself in March, it read 44 ohms then": a
    // reading from an earlier visit is not this one's check.
    out.retain(|a| {
        !text.find(a.clause.as_str()).is_some_and(|at| {
            let (from, to) = sentence_bounds(text, at, at + a.clause.len());
            EARLIER_WORK.is_match(&text[from..to])
        })
    });
    // "The motor runs, but only if I flick the blade", "the blower runs,
    // but only on the jumper": a state that holds only under a condition
    // the sentence adds is not the plain answer the step asks for.
    out.retain(|a| {
        a.quantity.is_some()
            || !text.find(a.clause.as_str()).is_some_and(|at| {
                let (from, to) = sentence_bounds(text, at, at + a.clause.len());
                ONLY_IF.is_match(&text[from..to])
            })
    });
    // "на улице 35 градусов, в салоне 29": a pair with the outdoor air in
    // it is no split across the coil.
    out.retain(|a| {
        !(proc.steps[a.step].reading == Some(ReadingMode::Difference)
            && a.basis == Basis::Combined
            && OUTDOOR.is_match(&a.clause)
            && reading_numbers(&a.clause) <= 2)
    });
    out.retain(|a| {
        let not_when = &proc.steps[a.step].not_when;
        not_when.is_empty()
            || !text
                .find(a.clause.as_str())
                .is_some_and(|at| under_condition(text, at, at + a.clause.len(), not_when))
    });
    out
}

pattern!(
    /// A number introduced as what the meter showed.
    READ_AS,
    r"\b(i read|i'?m reading|im reading|reads|reading|shows|showing|i got|got|getting|measured|measures|meter says|clamp says|marca|mide|medí|medi|me da|показывает|показал|намерил|намерял|замерил)\s*(at|about|like|only|just|around|unos|como|около|всего)?\s*[-+~]?\d"
);

pattern!(
    /// The conductors a reading is taken between.
    CONDUCTORS,
    r"\b(hot|neutral|ground|gnd|fase|neutro|tierra|фаз\w*|нол\w*|нуль|земл\w*)\b"
);

pattern!(
    ONLY_IF,
    r"\bbut only (if|when|after|on|with|once|while)\b|\bpero (s[oó]lo|nom[aá]s) (si|cuando|con|despu[eé]s)\b|\bно только (если|когда|после|на|с|от)\b|\bif (i|you) (push|spin|flick|tap|nudge|help|turn) it\b|\bsi (lo |la )?(empujo|empujas|ayudo|giro con la mano|le doy con la mano)\b|\bесли (его |её |ее )?(пальцем|рукой|толкнуть|подтолкнуть|крутнуть|помочь)\b"
);

pattern!(
    /// "You're calling the motor bad", "dices que es el motor", "ты говоришь,
    /// что мотор": the assistant's conclusion quoted back, not a finding.
    ASSISTANTS_CLAIM,
    r"\b(you'?re|you are|ur|u r) (calling|saying|blaming|telling me)\b|\byou (said|say|called|think|want)\b|\b(dices|dijiste|dice el sistema) que\b|\b(ты|вы) (говоришь|говорите|пишешь|пишете|считаешь|считаете)\b"
);

/// Whether a condition of `conditions` governs the reading in
/// `start..end`: said in the same sentence, with no other reading between
/// them ("104.8 under load, 118 no load" gives each number its own), or
/// as the sentence's heading ("1500 rpm, max: low 58, high 180").
fn under_condition(text: &str, start: usize, end: usize, conditions: &Patterns) -> bool {
    let (from, to) = sentence_bounds(text, start, end);
    let has_reading = |s: &str| s.bytes().any(|b| b.is_ascii_digit());
    conditions
        .spans(&text[from..to])
        .into_iter()
        .map(|(a, b)| (from + a, from + b))
        .any(|(a, b)| {
            if b <= start {
                let between = &text[b..start];
                between.contains(':') || between.contains('—') || !has_reading(between)
            } else if a >= end {
                !has_reading(&text[end..a])
            } else {
                true
            }
        })
}

/// The sentence around `start..end`: up to a full stop, question or
/// exclamation mark, semicolon or line break, a decimal point not counted.
fn sentence_bounds(text: &str, start: usize, end: usize) -> (usize, usize) {
    let bytes = text.as_bytes();
    let ends_at = |i: usize| match bytes[i] {
        b'!' | b'?' | b'\n' | b';' => true,
        b'.' => {
            !(i > 0
                && bytes[i - 1].is_ascii_digit()
                && bytes.get(i + 1).is_some_and(u8::is_ascii_digit))
        }
        _ => false,
    };
    let from = (0..start).rev().find(|&i| ends_at(i)).map_or(0, |i| i + 1);
    let to = (end..text.len())
        .find(|&i| ends_at(i))
        .unwrap_or(text.len());
    (from, to)
}

/// The steps `wanted` keeps that are being asked or that the message names
/// (`wanted` first: it is cheap, the subject match is not).
fn asked_or_named<'p>(
    proc: &'p Procedure,
    active: Option<usize>,
    text: &'p str,
    wanted: impl Fn(&Step) -> bool + 'p,
) -> impl Iterator<Item = (usize, &'p Step)> {
    proc.steps
        .iter()
        .enumerate()
        .filter(move |(i, s)| wanted(s) && (Some(*i) == active || s.subject.is_match(text)))
}

pattern!(
    /// A checklist line: a label, then its bare result ("purga 15 s: sí",
    /// "розжиг — да", "coach unplugged - yes").
    LABELLED_RESULT,
    r"^\s*(?P<label>[^:—–]*?\pL[^:—–]*?)\s*(?::|\s[—–-]\s)\s*(yes|yep|no|nope|s[ií]|да|нет|ok|okay|good|bad|none|nothing|bien|mal|ninguno|nada|норм\w*|ничего)\s*[.!]*\s*$"
);

/// The outcome a checklist line ("chispa: no", "fuse — good") gives the
/// yes/no step its label names.
fn labelled_yes_no(step: &Step, clause: &str) -> Option<String> {
    if step.kind != StepKind::YesNo {
        return None;
    }
    let c = LABELLED_RESULT.captures(clause)?;
    if !step.subject.is_match(c.name("label")?.as_str()) {
        return None;
    }
    let word = c.get(2)?.as_str().to_lowercase();
    let yes = matches!(
        word.as_str(),
        "yes" | "yep" | "si" | "sí" | "да" | "ok" | "okay" | "good" | "bien"
    ) || word.starts_with("норм");
    let outcome = if yes { "yes" } else { "no" };
    step.outcome(outcome).map(|o| o.name.clone())
}

/// "Purga 15 s: sí" to "is there spark?": a checklist line answers the check
/// its label names, not the one asked.
fn labelled_for_another_check(step: &Step, clause: &str) -> bool {
    LABELLED_RESULT
        .captures(clause)
        .and_then(|c| c.name("label"))
        .is_some_and(|label| !step.subject.is_match(label.as_str()))
}

pattern!(
    /// A voltage lost across a part: "dropping almost 2v across it", "pierde
    /// 2 V en el relé", "теряет 2 вольта на реле".
    LOST_ACROSS,
    r"\b(dropping|drops|dropped|losing|loses|lost|pierde|perd[ií]a|теряет|теряется|проседает на)\s+(almost |about |like |around |over |nearly |casi |unos |como |почти |около |где-то )?[-+]?\d"
);

pattern!(
    /// "Rear zone pump connector 13.1 for comparison": a reading taken
    /// elsewhere to compare with, not the check asked.
    REFERENCE_READING,
    r"\b(for (comparison|reference|compare)|to compare|as a reference|para comparar|de referencia|como referencia|для сравнения|для справки|для примера|from earlier|(i|we) (gave|sent|told) you( earlier| before)?|que te (pas[eé]|di|mand[eé]|dije)|de antes|что (я )?(давал|писал|говорил|скидывал) (раньше|до этого|тебе))\b"
);

pattern!(
    STATED_DIFFERENCE,
    r"\b(split|difference|diff|delta|drop|diferencia|разница|перепад)\W{0,3}(?:of |de |в |)?([-+]?\d+(?:[.,]\d+)?)"
);

/// "cap measures 8 µF, rated 35", "39.8 on a 40uf", "кондёр 35 мкф, меряется
/// 33,9": a reading and the part's rating in one message answer a step that
/// compares the two (`rated` in the procedure), when the message names the
/// step or it is the one asked. Which number is which comes from the words
/// around them; when that is not clear, nothing is recorded.
fn rated_answers(
    proc: &Procedure,
    active: Option<usize>,
    text: &str,
    questions: &[(usize, usize)],
) -> Vec<StepAnswer> {
    let mut out = Vec::new();
    for (i, step) in asked_or_named(proc, active, text, |s| s.rated.is_some()) {
        let Some(rated) = &step.rated else { continue };
        let numbers: Vec<(f64, usize, usize)> = NUMBER_TOKEN
            .find_iter(text)
            .filter(|m| !understand::in_question(questions, m.start()))
            .filter_map(|m| {
                let v = m.as_str().replace(',', ".").parse::<f64>().ok()?;
                Some((v, m.start(), m.end()))
            })
            .collect();
        let role = |&(_, a, b): &(f64, usize, usize)| {
            let before: String = text[..a]
                .chars()
                .rev()
                .take(24)
                .collect::<Vec<_>>()
                .into_iter()
                .rev()
                .collect();
            let after: String = text[b..].chars().take(16).collect();
            if RATING_BEFORE.is_match(&before) || RATING_AFTER.is_match(&after) {
                Some(true)
            } else if READING_BEFORE.is_match(&before) {
                Some(false)
            } else {
                None
            }
        };
        let roles: Vec<Option<bool>> = numbers.iter().map(role).collect();
        if numbers.len() != 2 {
            continue;
        }
        // "45/5", "45+5": a dual capacitor's two ratings, not a reading
        // beside its rating.
        if matches!(text[numbers[0].2..numbers[1].1].trim(), "/" | "+") {
            continue;
        }
        let (rating, reading) = match (roles[0], roles[1]) {
            (Some(true), Some(true)) | (Some(false), Some(false)) | (None, None) => continue,
            (Some(true), _) | (_, Some(false)) => (numbers[0].0, numbers[1].0),
            (_, Some(true)) | (Some(false), _) => (numbers[1].0, numbers[0].0),
        };
        let outcome = rated.judge(reading, rating).to_string();
        let signal = step.outcome(&outcome).is_some_and(|o| o.signal);
        out.push(StepAnswer {
            step: i,
            outcome,
            quantity: Some(Quantity {
                value: reading,
                unit: rated.unit,
            }),
            clause: text.trim().to_string(),
            signal,
            basis: Basis::Rated,
        });
    }
    out
}

/// "122v at the leads idle, lowest on start was 114", "return grille 26C,
/// louver 15C", "1 L went 18C to 33C": several readings of a step that asks
/// for the lowest of them, for their difference (`reading` in the
/// procedure) or for how far they rose (`rise`) are combined into its one
/// answer, when the message names the step or it is the one asked.
fn combined_readings(
    proc: &Procedure,
    active: Option<usize>,
    text: &str,
    questions: &[(usize, usize)],
) -> Vec<StepAnswer> {
    let mut out = Vec::new();
    let combines = |s: &Step| s.reading.is_some() || s.rise.is_some();
    for (i, step) in asked_or_named(proc, active, text, combines) {
        let (mode, unit) = match (step.reading, step.unit, step.rise) {
            (Some(mode), Some(unit), _) => (mode, unit),
            (None, _, Some(rise)) => (ReadingMode::Difference, rise.unit),
            _ => continue,
        };
        let all = find_quantities(text);
        let found: Vec<_> = all
            .iter()
            .filter(|f| !understand::in_question(questions, f.start))
            .filter(|f| f.quantity.convert_to(unit).is_some())
            .cloned()
            .collect();
        // The numbers of the message that are no reading with a unit.
        let bare: Vec<(usize, f64, bool)> = NUMBER_TOKEN
            .find_iter(text)
            .filter_map(|m| {
                let rest = &text[m.start()..];
                let next_word = rest[m.len()..].trim_start();
                // "18 to 22C", "de 20 a 28 grados": the first of a pair.
                let paired = PAIRED_WITH_NEXT.is_match(next_word);
                // A number that is part of any reading ("11°F" beside volts)
                // is not a bare one, unless it is the first of a pair ("de
                // 18 a 31 °C" is no 18 A).
                let inside = all
                    .iter()
                    .any(|f| f.start <= m.start() && m.start() < f.end);
                if (inside && !paired) || understand::in_question(questions, m.start()) {
                    return None;
                }
                // "1000w": a number with letters glued on is some other
                // quantity.
                let glued = rest[m.len()..].starts_with(|c: char| c.is_alphabetic());
                let lone = !next_word.starts_with(|c: char| c.is_alphabetic())
                    || lone_number(rest.split([',', '.', ';']).next().unwrap_or(rest)).is_some()
                    || paired;
                let labelled = LABELLED_READING.is_match(next_word);
                let value = m.as_str().replace(',', ".").parse::<f64>().ok()?;
                Some((m.start(), value, !glued && (lone || labelled)))
            })
            .collect();
        // Readings in the order they were said: a rise is the later less
        // the earlier.
        let mut readings: Vec<(usize, Quantity)> =
            found.iter().map(|f| (f.start, f.quantity)).collect();
        match found.first() {
            // A number without a unit beside readings with one is read in
            // the same unit ("117 vac en reposo, baja a 109").
            Some(first) => readings.extend(bare.iter().filter(|b| b.2).map(|&(at, value, _)| {
                let unit = first.quantity.unit;
                (at, Quantity { value, unit })
            })),
            // "return 78 supply 64" to the split asked: two numbers with no
            // unit at all are the asked step's, in its unit.
            // "121 at rest, dips to 98 on start, back to 120": for the
            // lowest, any number of them.
            None if Some(i) == active
                && (bare.len() == 2 || (mode == ReadingMode::Lowest && bare.len() > 2))
                && bare.iter().all(|b| b.2) =>
            {
                // A rise given with no scale is in degrees of either.
                let unit = if step.rise.is_some() {
                    Unit::Degrees
                } else {
                    unit
                };
                let unit = units::unsaid_scale(text, unit);
                readings.extend(
                    bare.iter()
                        .map(|&(at, value, _)| (at, Quantity { value, unit })),
                )
            }
            None => continue,
        }
        readings.sort_by_key(|r| r.0);
        // "возврат 79 °F, подача 58 °F, разница 21": the difference the
        // technician worked out is the answer, said in the readings' scale.
        if mode == ReadingMode::Difference && step.rise.is_none() {
            if let Some(m) = STATED_DIFFERENCE.captures(text) {
                let number = m.get(2).expect("the pattern's number");
                let said = readings.iter().find(|r| r.0 == number.start());
                let other = readings.iter().find(|r| r.0 != number.start());
                if let (Some(said), Some(other)) = (said, other) {
                    let value = said.1.value;
                    let q = Quantity {
                        value: match (other.1.unit, unit) {
                            (Unit::Celsius, Unit::Fahrenheit) => value * 1.8,
                            (Unit::Fahrenheit, Unit::Celsius) => value / 1.8,
                            _ => value,
                        },
                        unit,
                    };
                    if let Some(o) = step.classify(&q) {
                        out.push(StepAnswer {
                            step: i,
                            outcome: o.name.clone(),
                            quantity: Some(q),
                            clause: text.to_string(),
                            signal: o.signal,
                            basis: Basis::Combined,
                        });
                    }
                    continue;
                }
            }
        }
        let readings: Vec<Quantity> = readings.into_iter().map(|r| r.1).collect();
        let value = match mode {
            ReadingMode::Lowest => {
                if readings.len() < 2 {
                    continue;
                }
                readings
                    .iter()
                    .filter_map(|q| q.convert_to(unit).map(|v| (v, *q)))
                    .min_by(|a, b| a.0.total_cmp(&b.0))
                    .map(|(_, q)| q)
            }
            ReadingMode::Difference => {
                let [a, b] = readings[..] else { continue };
                if a.unit != b.unit {
                    continue;
                }
                // A rise is the second reading less the first: water that
                // went from 33 to 18 did not rise.
                let diff = match step.rise {
                    Some(_) => b.value - a.value,
                    None => (a.value - b.value).abs(),
                };
                // A difference of two Celsius readings is 1.8 times as many
                // Fahrenheit degrees (no offset).
                let value = match (a.unit, unit) {
                    (Unit::Celsius, Unit::Fahrenheit) => diff * 1.8,
                    (Unit::Fahrenheit, Unit::Celsius) => diff / 1.8,
                    _ => diff,
                };
                Some(Quantity { value, unit })
            }
        };
        let Some(q) = value else { continue };
        let outcome = match step.rise {
            // "с 16 до 29 градусов": 13 degrees is a pass in Celsius and a
            // fail in Fahrenheit; with no scale said, only a rise that
            // judges the same in both is an answer.
            Some(rise) => {
                let scaleless = readings
                    .iter()
                    .any(|r| matches!(r.unit, Unit::Degrees | Unit::DegreesEitherScale));
                let as_celsius = match rise.unit {
                    Unit::Fahrenheit => q.value * 1.8,
                    _ => q.value / 1.8,
                };
                if scaleless && rise.judge(q.value) != rise.judge(as_celsius) {
                    continue;
                }
                step.outcome(rise.judge(q.value))
            }
            None => step.classify(&q),
        };
        let Some(o) = outcome else { continue };
        out.push(StepAnswer {
            step: i,
            outcome: o.name.clone(),
            quantity: Some(q),
            clause: text.trim().to_string(),
            signal: o.signal,
            basis: Basis::Combined,
        });
    }
    out
}

pattern!(
    /// After a number: "to 22C", "a 28", "до 29", "-> 21c": the number
    /// is the first of a pair of readings.
    PAIRED_WITH_NEXT,
    r"^(?:to|a|hasta|до|->|→|–|-)\s*\d"
);
pattern!(
    /// After a number: a word that says what the reading is of ("78
    /// supply", "64 at the register"), which keeps it a reading.
    LABELLED_READING,
    r"^(?:supply|return|retorno|salida|подача|возврат|at|en|на)\b"
);

pattern!(NUMBER_TOKEN, r"\d{1,4}(?:[.,]\d{1,3})?");
pattern!(
    /// Words before a number that make it the part's rating.
    RATING_BEFORE,
    r"(rated|rating|nameplate|label says|spec(ed)?|should be|supposed to be|on an?|of an?|it'?s an?|its an?|es de|de|nominal|номинал\w*|по номиналу|должно быть|должен быть|на банке|кондер|кондёр|конденсатор)\s*(is|of|at|:|=)?\s*$"
);
pattern!(
    /// Words after a number that make it the part's rating ("45 rated").
    RATING_AFTER,
    r"^\s*(µ|μ|u|mk|мк)?(f|fd|mfd|ф)?\s*(rated|rating|nominal|can|cap\b|номинал)"
);
pattern!(
    /// Words before a number that make it the reading.
    READING_BEFORE,
    r"(reads?|reading|measures?|measured|shows?|got|getting|meter says|tests? at|marca|mide|da|midi[oó]|меряется|мерит|показывает|намерял|намерил|замерил)\s*(at|about|like|only)?\s*$"
);

/// What a message seems to say about the step being asked when it does not
/// state it plainly ("checked it, looks good I guess"): the outcome its
/// answer words lean to, to be confirmed by the technician before it is a
/// fact. `None` for a question, a check not made, or words about another part.
pub fn tentative(proc: &Procedure, active: Option<usize>, text: &str) -> Option<(usize, String)> {
    let a = active?;
    let step = &proc.steps[a];
    // A message that asks anything, or disputes the conclusion, gets its
    // answer; a yes proposed from its words would answer what it did not say.
    if !understand::question_spans(text).is_empty()
        || lexicon::DISPUTE.is_match(text)
        || understand::is_ack(text)
        || lexicon::UNSURE.is_match(text)
        || understand::cannot_check(text)
        || about_other_component(proc, step, text)
        || (step.kind == StepKind::Measurement && BARE_AFFIRMATION.is_match(text))
    {
        return None;
    }
    let said = stated_clauses(understand::without_ack_lead(text));
    if said.iter().any(|c| understand::not_done_yet(c)) {
        return None;
    }
    let stated = said.join(", ");
    // "Runs fine on 120": a measurement is confirmed from words about it
    // (its part, a reading, a check), not from how the unit runs.
    if step.kind == StepKind::Measurement
        && !step.subject.is_match(&stated)
        && !MEASURED.is_match(&stated)
        && !CHECKED.is_match(&stated)
    {
        return None;
    }
    let yes = generic_polarity(&without_conditions(&stated), None)?;
    let outcome = match (step.kind, yes) {
        (StepKind::YesNo, true) => "yes",
        (StepKind::YesNo, false) => "no",
        (StepKind::Measurement, true) => "ok",
        (StepKind::Measurement, false) => "low",
    };
    step.outcome(outcome)?;
    Some((a, outcome.to_string()))
}

/// The clause names a component other than the one `step` checks.
fn about_other_component(proc: &Procedure, step: &Step, clause: &str) -> bool {
    component_named(proc, clause).is_some_and(|c| Some(c) != step.component)
}

/// The reading was taken at another part of the coach: the clause, its
/// conditions left aside and naming nothing of `step`'s subject, has a part
/// of another procedure (and none of this one's) a few words before the
/// number ("battery at the tongue is 12.5", "el convertidor saca 13,5",
/// "la presión de la toma de ciudad es 60 psi"). A part named after the number is where it was measured ("11 V
/// en la entrada del inversor"), and is left to the subject match.
fn read_at_another_part(proc: &Procedure, step: &Step, clause: &str) -> bool {
    let clause = without_conditions(clause);
    let Some(number) = clause.find(|c: char| c.is_ascii_digit()) else {
        return false;
    };
    if step.subject.is_match(&clause) {
        return false;
    }
    let own: Vec<(usize, usize)> = proc
        .components
        .iter()
        .flat_map(|c| c.names.spans(&clause))
        .collect();
    // A name of this procedure's parts is excluded by the overlap check.
    proc.catalog_parts.spans(&clause).into_iter().any(|(a, b)| {
        b <= number
            && clause[b..number].split_whitespace().count() <= 5
            && !own.iter().any(|&(s, e)| a < e && s < b)
    })
}

/// The side of `value` a clause says its reading lies on ("a hair over
/// 65"), from the words before where the number is written.
fn bound_of(clause: &str, value: f64) -> Option<std::cmp::Ordering> {
    static DIGITS: std::sync::LazyLock<Regex> =
        std::sync::LazyLock::new(|| Regex::new(r"[-+]?\d+(?:[.,]\d+)?").expect("compiles"));
    DIGITS
        .find_iter(clause)
        .find(|m| m.as_str().replace(',', ".").parse::<f64>() == Ok(value))
        .and_then(|m| units::bound_side(&clause[..m.start()]))
}

pattern!(
    PRESSURE_INSTRUMENT,
    r"\b(manometer|manifold|(pressure|test|water|lp|gas) gauges?|gauges? (on|at) the|man[oó]metro|манометр\w*)"
);
pattern!(
    TEMPERATURE_INSTRUMENT,
    r"\b(thermometer|pyrometer|ir gun|infrared|term[oó]metro|pir[oó]metro|термометр\w*|пирометр\w*)"
);
pattern!(
    CURRENT_INSTRUMENT,
    r"\b(amp clamp|clamp meter|clamp|ammeter|amper[ií]metro|pinza|клещ\w*|амперметр\w*)"
);

/// "Manometer at the valve inlet reads 11.1": a number with no unit, read
/// on an instrument of another kind than the step's unit (a pressure gauge
/// for a voltage step), is not this step's reading.
fn instrument_reads_otherwise(clause: &str, unit: Unit) -> bool {
    [
        (&*PRESSURE_INSTRUMENT, Unit::Psi),
        (&*TEMPERATURE_INSTRUMENT, Unit::Fahrenheit),
        (&*CURRENT_INSTRUMENT, Unit::Amp),
    ]
    .iter()
    .any(|(r, kind)| r.is_match(clause) && !unit.same_kind(*kind))
}

/// "Yeah mostly", "sorta", "ну такое...", "kinda?": a message that opens by
/// qualifying its own answer does not plainly give one.
fn opening_hedge(clause: &str) -> bool {
    hedged_without_number(clause) && clause.split_whitespace().count() <= 3
}

/// A clause that qualifies its own answer ("kinda", "más o menos") and
/// gives no number: no plain answer is in it.
fn hedged_without_number(clause: &str) -> bool {
    lexicon::HEDGE.is_match(clause) && !clause.contains(|c: char| c.is_ascii_digit())
}

/// A reply short enough that its answer words can only be about the question
/// just asked: "yes", "nope, blown", "всё норм", "sí, está bien".
fn is_bare_reply(clause: &str) -> bool {
    clause
        .split(|c: char| !c.is_alphanumeric() && c != '\'')
        .filter(|w| !w.is_empty())
        .count()
        <= 4
}

/// The message says a repair was made and the unit works now ("swapped the
/// relay, runs now"). Readings in it describe the unit after the repair,
/// not the fault, so they answer no step.
pub fn states_repair(text: &str) -> bool {
    // "With the converter running" is how a check was made, not the unit
    // working after a fix.
    lexicon::WORKS_NOW.is_match(&without_conditions(text))
        && !FIX_FAILED.is_match(text)
        && clauses(text).iter().any(|c| {
            lexicon::REPAIR_VERB.is_match(c)
                && !earlier_work(c)
                && !restores_test_setup(c)
                && !DIRECT_POWER_TEST.is_match(c)
        })
}

pattern!(
    /// "Мотор от акб напрямую подключил — крутит", "lo puse directo a la
    /// batería: gira": the part put on a known supply is a test of it,
    /// not a repair, however well it runs there.
    DIRECT_POWER_TEST,
    r"\b(direct(ly)?|straight (to|from|off|on)|jump(er|ed|ing)?|jump ?pack|jumper wire|fused jumper|напрямую|напрямик|перемычк\w*|directo|directamente|puente\w*)\b"
);

pattern!(
    /// "Battery reconnected", "подключил shore обратно", "plugged shore
    /// back in": putting the supply back after a test, not a repair.
    TEST_SETUP_RESTORED,
    r"\b(re-?connected|reconnect\w*|hooked (it |them )?back up|plugged (it |them )?back in|подключил\w*|переподключил\w*|воткнул\w*|reconect[eé]|conect[eé])\b\s*(the |el |la |los |обратно )?(shore|battery|batteries|batts?|power|cord|шор\w*|акб|аккумулятор\w*|батаре\w*|питание|bater[ií]as?|corriente)\b|\b(shore|battery|batteries|batts?|шор\w*|акб|аккумулятор\w*|батаре\w*|bater[ií]as?)\s+(re-?connected|back (on|in)|подключ\w*|reconectad\w*)\b"
);

/// The clause's only repair words put a test's supply back.
fn restores_test_setup(clause: &str) -> bool {
    TEST_SETUP_RESTORED.is_match(clause)
        && lexicon::REPAIR_VERB.find_iter(clause).all(|m| {
            TEST_SETUP_RESTORED
                .find_iter(clause)
                .any(|t| t.start() <= m.start() && m.end() <= t.end())
        })
}

/// Some clause of the message says a fix was made ("replaced the high
/// limit", "spliced + heatshrink"), not denied, and not one made before
/// this visit or by someone else.
pub fn states_a_fix_in(text: &str) -> bool {
    clauses(text)
        .iter()
        .any(|c| states_a_fix(None, c, None, None) && !earlier_work(c) && !restores_test_setup(c))
}

pattern!(
    /// "Swapped the fan motor, STILL nothing", "cambié el relé y sigue
    /// igual", "поменял, не помогло": the work did not fix it.
    FIX_FAILED,
    r"\b(still (nothing|dead|no|not|won'?t|wont|doesn'?t|doesnt|didn'?t|isn'?t|isnt|can'?t|cant|the same|same|tripping|trips|blows|blowing|leaking|leaks|clicking|clicks|lockout|locks out|faults?)|same (thing|as before|problem|deal)|no change|didn'?t (help|fix|change|do)|did nothing|no difference|sigue (igual|sin|muert\w*|sin \w+|fallando|haciendo)|lo mismo|igual que antes|no (sirvi[oó]|cambi[oó] nada|arregl[oó])|не помогл\w*|всё так же|все так же|то же самое|по-прежнему|всё равно|все равно|без изменений|ничего не изменилось)\b"
);

pattern!(
    /// Work done before this visit or by someone else: "replaced the
    /// cooling unit in April", "the customer put a new motor in last
    /// month", "el dueño le cambió el switch", "меняли в прошлом году".
    EARLIER_WORK,
    r"\b((in|last|this past) (jan|feb|march|april|may|june|july|aug|sept?|oct|nov|dec)\w*|last (mon|tues|wednes|thurs|fri|satur|sun)day|(el|este) (lunes|martes|mi[eé]rcoles|jueves|viernes|s[aá]bado|domingo) pasado|в прошл\w+ (понедельник|вторник|среду|четверг|пятницу|субботу|воскресенье)|last (week|month|year|season|spring|summer|fall|winter|trip|time)|(a|one|two|three|few|couple|\d+) (days?|weeks?|months?|years?) (ago|back)|(customer|cust|owner|client|dealer|previous (shop|owner|tech)|last shop|other (shop|tech)|they) (had |already )?(replaced|changed|installed|swapped|put|did|fixed)|hace (un|una|dos|tres|unos|unas|\d+) (d[ií]as?|semanas?|mes(es)?|años?)|(el|la) (mes|año|semana) pasad[oa]|en (enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|octubre|noviembre|diciembre)|(el cliente|el due[nñ]o|la due[nñ]a|el dealer|la agencia|otro taller) (le |lo |la )?(cambi[oó]|puso|instal[oó]|arregl[oó])|(в|на) прошлой неделе|в прошлом (месяце|году|сезоне)|(неделю|месяц|год|два года|пару лет) назад|в (январе|феврале|марте|апреле|мае|июне|июле|августе|сентябре|октябре|ноябре|декабре)|(клиент|хозяин|владелец|дилер|прошлый сервис) (сам )?(менял|поменял|ставил|поставил|заменил|чинил))\b"
);

/// The clause tells of work done before this visit or by someone else.
fn earlier_work(clause: &str) -> bool {
    EARLIER_WORK.is_match(clause)
}

pattern!(
    /// "122 now", "ya carga 12 A", "теперь совпадает": said with a report
    /// request, the state after the work, which answers no diagnostic step.
    AFTER_THE_WORK,
    r"\b(now|again|ahora|ya|теперь|уже)\b"
);

/// The message without its clauses that ask for the report ("…, write it
/// up") or tell how the unit is after the work ("absorb now 14.4"): what
/// was found, said with the request.
pub fn without_report_request(text: &str) -> String {
    clauses(text)
        .into_iter()
        .filter(|c| !lexicon::REPORT.is_match(c) && !AFTER_THE_WORK.is_match(c))
        .collect::<Vec<_>>()
        .join(", ")
}

/// A stated cause split into what was found and what was done: clauses
/// with a repair verb or "works now" are the correction, the rest the
/// cause ("ground strap corroded at the frame" / "cleaned it, works now").
pub fn split_stated(text: &str) -> (String, String) {
    // "…, write it up" asks for the report; it is neither cause nor fix.
    let parts: Vec<&str> = clauses(text)
        .into_iter()
        .filter(|c| !lexicon::REPORT.is_match(c))
        .collect();
    let is_fix = |c: &&str| lexicon::REPAIR_VERB.is_match(c) || lexicon::WORKS_NOW.is_match(c);
    // What was found comes before the first repair ("running lights came
    // on, it retracted. moved it to a key-on feed"): a state word before the
    // work is part of the fault, not the result.
    let (found, fix): (Vec<&str>, Vec<&str>) =
        match parts.iter().position(|c| lexicon::REPAIR_VERB.is_match(c)) {
            Some(first) if first > 0 => (parts[..first].to_vec(), parts[first..].to_vec()),
            _ => {
                let (fix, found): (Vec<&str>, Vec<&str>) = parts.iter().copied().partition(is_fix);
                (found, fix)
            }
        };
    let cause = if found.is_empty() {
        parts.join(", ")
    } else {
        found.join(", ")
    };
    (cause, fix.join(", "))
}

pattern!(
    /// "12.17 not 12.7", "40, no 50", "9.8 а не 12": the corrected number,
    /// then the one it replaces.
    NUMBER_NOT_NUMBER,
    r"(?P<new>\d{1,6}(?:[.,]\d{1,4})?)\s*(?:[a-zа-я°µ]{0,6}\s*)?,?\s*(?:not|no|а не|не)\s+(?P<old>\d{1,6}(?:[.,]\d{1,4})?)\b"
);

pattern!(
    /// The clause of a correction that tells what the earlier number was:
    /// "12,4 было без кнопки", "the 0,03 A fue con el solar", "вчера
    /// сказал 13,4".
    SAID_BEFORE,
    r"\b(was|were|said|told you|earlier|before|yesterday|fue|era|dije|de antes|antes|было|был|была|сказал\w*|раньше|вчера)\b"
);

/// "Поправка. 12,4 было без нажатой кнопки. с кнопкой 10,1": a correction
/// with two numbers, one in a clause telling what it was before: (the
/// earlier number, the corrected one, the clause that gives it).
fn said_before_and_now(text: &str) -> Option<(f64, f64, &str)> {
    let mut numbers: Vec<(f64, bool, &str)> = Vec::new();
    // "nope 58, not 48", "no it was 10.9 not 12.9": the number said with a
    // "not" is the one replaced.
    let mut rejected: Vec<bool> = Vec::new();
    for clause in clauses(text) {
        let before = SAID_BEFORE.is_match(clause);
        for m in NUMBER_TOKEN.find_iter(clause) {
            if clause[..m.start()].ends_with(|c: char| c.is_alphabetic()) {
                continue;
            }
            numbers.push((m.as_str().replace(',', ".").parse().ok()?, before, clause));
            rejected.push(NOT_THIS_NUMBER.is_match(&clause[..m.start()]));
        }
    }
    if let ([(a, _, a_clause), (b, _, b_clause)], [ra, rb]) = (&numbers[..], &rejected[..]) {
        match (ra, rb) {
            (true, false) => return Some((*a, *b, b_clause)),
            (false, true) => return Some((*b, *a, a_clause)),
            _ => {}
        }
    }
    match numbers[..] {
        [(old, true, _), (new, false, clause)] | [(new, false, clause), (old, true, _)] => {
            Some((old, new, clause))
        }
        _ => None,
    }
}

/// A correction that gives only a number ("wait i misread, that was 12.17
/// not 12.7", "perdón, fueron 40, no 50"): the reading it corrects is the
/// latest measurement recorded with the replaced number, else the latest
/// one the new number is a plausible reading of. `recorded` is the current
/// step facts, oldest first, as (step, value).
pub fn corrected_reading(
    proc: &Procedure,
    recorded: &[(usize, Option<f64>)],
    text: &str,
) -> Option<StepAnswer> {
    let parse = |s: &str| s.replace(',', ".").parse::<f64>().ok();
    // "nope 58, not 48" after 48 was recorded: the number it takes back
    // is one on record, so it is a correction however it is worded.
    let takes_back_a_record = NUMBER_NOT_NUMBER
        .captures(text)
        .and_then(|c| parse(&c["old"]))
        .is_some_and(|old| {
            recorded
                .iter()
                .any(|(_, v)| v.is_some_and(|v| (v - old).abs() < 1e-9))
        });
    if !understand::is_correction(text) && !APOLOGY_LEAD.is_match(text) && !takes_back_a_record
        || READING_MOVED.is_match(text)
    {
        return None;
    }
    // Where the corrected number was said: the part the message names
    // there is the one it was measured at.
    let mut scope = text;
    let (new, old) = match NUMBER_NOT_NUMBER.captures(text) {
        Some(c) => (parse(&c["new"])?, parse(&c["old"])),
        None => match said_before_and_now(text) {
            Some((old, new, clause)) => {
                scope = clause;
                (new, Some(old))
            }
            None => (lone_number(text).or_else(|| bare_number(text))?, None),
        },
    };
    let measurements = recorded.iter().rev().filter(|(i, _)| {
        proc.steps[*i].kind == StepKind::Measurement && proc.steps[*i].unit.is_some()
    });
    let plausible = |i: usize| {
        let step = &proc.steps[i];
        new >= 0.0 && new <= step.max * 2.5 && new >= step.min * 0.2
    };
    // "La resistencia marca 4.4 no 44": the step the message names; a
    // message naming another part ("that 118 was at the outlet, not the
    // module") moves a reading, which this does not read.
    let named = proc
        .steps
        .iter()
        .enumerate()
        .filter(|(_, st)| st.kind == StepKind::Measurement && st.unit.is_some())
        .filter_map(|(i, st)| st.subject.longest_match(scope).map(|len| (len, i)))
        .max_by_key(|(len, _)| *len)
        .map(|(_, i)| i);
    if named.is_none() && proc.components.iter().any(|c| c.names.is_match(scope)) {
        return None;
    }
    let step = match (named, old) {
        (Some(i), _) => Some(i),
        (None, Some(old)) => measurements
            .clone()
            .find(|(_, v)| v.is_some_and(|v| (v - old).abs() < 1e-9))
            .or_else(|| measurements.clone().find(|(i, _)| plausible(*i)))
            .map(|(i, _)| *i),
        (None, None) => measurements
            .clone()
            .find(|(i, _)| plausible(*i))
            .map(|(i, _)| *i),
    }?;
    let unit = proc.steps[step].unit?;
    let quantity = Quantity { value: new, unit };
    let outcome = proc.steps[step].classify(&quantity)?;
    Some(StepAnswer {
        step,
        outcome: outcome.name.clone(),
        quantity: Some(quantity),
        clause: text.to_string(),
        signal: outcome.signal,
        basis: Basis::Corrected,
    })
}

pattern!(
    /// "That 118 was at the outlet, not the module": the reading is moved to
    /// another place, not given a new number.
    READING_MOVED,
    r"\b(was|were|is) (at|on|from|taken at)\b.{0,50}\b(not|no)\b|\b(era|fue|eran) (en|del|de la|de el)\b.{0,50}\bno\b|\b(было|это) (на|в|у)\b.{0,50}\b(а не|не)\b"
);

pattern!(
    /// A message that opens by owning up to a slip: "perdón, era 12.6".
    APOLOGY_LEAD,
    r"^\s*(my bad|mb|sorry|oops|whoops|my mistake|perd[oó]n|disculpa|mi error|сорян|сорри|извини\w*|пардон|виноват\w*)\b"
);

/// A fault the technician states as found, by the catalog's own words for
/// it ("condenser coil plugged solid w cottonwood fluff", "la resistencia
/// está abierta"): the finding whose `found` words match a clause that is
/// not a question and does not deny them, the longest match winning.
pub fn stated_finding(proc: &Procedure, text: &str) -> Option<usize> {
    let questions = understand::question_spans(text);
    let mut best: Option<(usize, usize)> = None;
    for clause in clauses(text) {
        let offset = offset_in(text, clause);
        if understand::in_question(&questions, offset) || ASSISTANTS_CLAIM.is_match(clause) {
            continue;
        }
        for (i, f) in proc.findings.iter().enumerate() {
            let Some((start, end)) = f.found.longest_span(clause) else {
                continue;
            };
            // "Condenser isn't plugged", "no está tapado": a denial inside
            // or just before the words clears the fault.
            if negated_before(clause, start) || NEGATOR.is_match(&clause[start..end]) {
                continue;
            }
            if best.is_none_or(|(len, _)| end - start > len) {
                best = Some((end - start, i));
            }
        }
    }
    best.map(|(_, i)| i)
}

/// A repair-done statement ("replaced the fuse, heater works"): the finding
/// whose repair words match, or else the one finding of the part it names.
pub fn repair_done(proc: &Procedure, text: &str) -> Option<usize> {
    if !states_repair(text) {
        return None;
    }
    named_repair(proc, text)
}

/// The finding a repair statement names: the one whose repair words match,
/// or else the one finding of the part it names.
pub fn named_repair(proc: &Procedure, text: &str) -> Option<usize> {
    // "Lo reemplacé y el fusible nuevo ya no se quema": the result names
    // the part that suffered, not the one repaired.
    let work = clauses(text)
        .into_iter()
        .filter(|c| lexicon::REPAIR_VERB.is_match(c) || !lexicon::WORKS_NOW.is_match(c))
        .collect::<Vec<_>>()
        .join(", ");
    proc.findings
        .iter()
        .enumerate()
        .filter_map(|(i, f)| f.repair.longest_match(&work).map(|len| (len, i)))
        .max_by_key(|(len, _)| *len)
        .map(|(_, i)| i)
        .or_else(|| stated_finding(proc, text))
        .or_else(|| repaired_component_finding(proc, text))
}

/// The one catalog finding of the part a repair statement names first
/// ("swapped the lid switch, runs now" → the lid switch's finding), when
/// that part has exactly one finding; `None` otherwise, and the cause is
/// then recorded in the technician's words.
pub fn repaired_component_finding(proc: &Procedure, text: &str) -> Option<usize> {
    // "El gfci estaba bien, era el contacto de afuera": a part the message
    // clears is not the part repaired.
    let cleared: Vec<&str> = clauses(text)
        .into_iter()
        .filter(|c| {
            lexicon::PART_WAS_FINE
                .find(c)
                .is_some_and(|m| !negated_before(c, m.start()))
        })
        .collect();
    let c = proc
        .components
        .iter()
        .enumerate()
        .filter(|(_, c)| !cleared.iter().any(|cl| c.names.is_match(cl)))
        .filter_map(|(i, c)| c.names.first_at(text).map(|at| (at, i)))
        .min_by_key(|&(at, _)| at)?
        .1;
    // A repair must be done to that part: "put a new one in", "swapped the
    // motor", not "put a new blade on" after naming the motor, nor "el gfci
    // estaba bien … le cambié la tapa".
    if lexicon::REPAIR_VERB.is_match(text) && !acts_on(proc, c, text, &lexicon::REPAIR_VERB) {
        return None;
    }
    let of_component: Vec<usize> = proc
        .findings
        .iter()
        .enumerate()
        .filter(|(_, f)| f.component == Some(c))
        .map(|(i, _)| i)
        .collect();
    if let [one] = of_component[..] {
        return Some(one);
    }
    // A part with several findings ("motor inoperative", "motor binding",
    // "motor connector"): the one whose correction is what the technician
    // did to it ("put a new one in" replaces; "cleaned and tightened").
    let done = lexicon::REPAIR_ACTIONS
        .iter()
        .filter(|(said, _)| acts_on(proc, c, text, said))
        .map(|(_, correction)| correction)
        .collect::<Vec<_>>();
    let [action] = done[..] else {
        return None;
    };
    let mut matching = of_component
        .into_iter()
        .filter(|&i| action.is_match(proc.findings[i].correction.get("en")));
    match (matching.next(), matching.next()) {
        (Some(i), None) => Some(i),
        _ => None,
    }
}

/// Whether a verb of `verbs` in `text` acts on component `c`: its object
/// is the part's name (or "it", "one"), or the part is named just before
/// it in the same clause, as Russian and Spanish often put it ("клемму
/// мотора подтянул").
fn acts_on(proc: &Procedure, c: usize, text: &str, verbs: &regex::Regex) -> bool {
    let names = &proc.components[c].names;
    verbs.find_iter(text).any(|m| {
        let after: String = text[m.end()..].chars().take(40).collect();
        let object = after.trim_start_matches(|ch: char| !ch.is_alphanumeric());
        let clause_start = text[..m.start()]
            .rfind(|ch: char| ",.;!?—\n".contains(ch))
            .map_or(0, |i| i + 1);
        let before = &text[clause_start..m.start()];
        object.is_empty()
            || lexicon::PRONOUN_OBJECT.is_match(object)
            || names.first_at(object).is_some_and(|at| at <= 12)
            || names.is_match(before)
    })
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

    proptest::proptest! {
        /// Splitting never panics, whatever the letters around a split
        /// word (multi-byte ones included), and every clause is a piece of
        /// the message.
        #[test]
        fn clauses_are_pieces_of_any_message(
            text in "([0-9]{1,3}([.,][0-9])?|and change|y pico|с чем-то|мёртвой|ещё|, |и |and |y |— |[a-zа-яё]{1,6}| ){0,14}"
        ) {
            for c in clauses(&text) {
                proptest::prop_assert!(text.contains(c));
            }
        }
    }

    #[test]
    fn a_reading_said_against_a_reference_takes_its_side() {
        use super::{beside_reference, generic_polarity};
        assert_eq!(
            beside_reference(
                "static pressure is way below what the P/T chart says for 75 out here"
            ),
            Some(true)
        );
        assert_eq!(
            beside_reference("a good bit over what it should be"),
            Some(false)
        );
        assert_eq!(beside_reference("below the fill line"), None);
        // "A good bit" measures, it does not pass the part.
        assert_eq!(generic_polarity("a good bit under", None), None);
        assert_eq!(generic_polarity("looks good", None), Some(true));
    }

    #[test]
    fn an_approximate_reading_is_one_clause() {
        assert_eq!(
            clauses("batt posts 14 and change"),
            vec!["batt posts 14 and change"]
        );
        assert_eq!(clauses("12,3 и ещё"), vec!["12,3", "ещё"]);
        assert_eq!(clauses("22.1 / 22.4"), vec!["22.1 / 22.4"]);
        assert_eq!(
            clauses("BATT FUSE: OK / DISC: ON"),
            vec!["BATT FUSE: OK", "DISC: ON"]
        );
    }
    use super::{clauses, resolve_ellipsis};

    #[test]
    fn an_elliptical_clause_takes_the_head_noun_of_the_part_before_it() {
        let cases = [
            (
                "el del ventilador quemado",
                "fusible del panel",
                Some("fusible del ventilador quemado"),
            ),
            (
                "the one on the fan is blown",
                "panel fuse",
                Some("fuse on the fan is blown"),
            ),
            (
                "the ones at the jacks are dry",
                "hose fittings",
                Some("fittings at the jacks are dry"),
            ),
            (
                "la de la cocina no tiene",
                "toma de corriente",
                Some("toma de la cocina no tiene"),
            ),
            // Not elliptical, or nothing to point back at: read as written.
            ("el ventilador no jala", "fusible del panel", None),
            ("the other one is fine", "panel fuse", None),
        ];
        for (clause, antecedent, want) in cases {
            assert_eq!(
                resolve_ellipsis(clause, antecedent).as_deref(),
                want,
                "{clause:?} after {antecedent:?}"
            );
        }
    }

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
