//! Readings dictated by voice: speech-to-text writes "nine point two volts",
//! "one forty two degrees", "eight and a half inches", "catorce punto
//! cuatro", "cuarenta y dos voltios", "сто восемнадцать вольт", "двенадцать
//! и семь". Such runs of number words (English, Spanish, Russian) are
//! rewritten as digits before the message is read, so they are readings
//! like any typed one. A lone "one" ("not one fan kicks on", "panel one",
//! "un fusible") stays a word: a run is rewritten only when it is two number
//! words or more, or one followed by a unit or led by "minus".

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::Regex;

const UNITS: [&str; 20] = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
];
const TENS: [&str; 8] = [
    "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety",
];
/// Words that, after a number, make it a reading.
const UNIT_WORDS: &[&str] = &[
    "volt",
    "volts",
    "v",
    "vac",
    "vdc",
    "amp",
    "amps",
    "psi",
    "degree",
    "degrees",
    "inch",
    "inches",
    "ohm",
    "ohms",
    "percent",
    "microfarad",
    "microfarads",
    "mfd",
    "uf",
    "voltios",
    "voltio",
    "amperios",
    "grados",
    "grado",
    "pulgadas",
    "ohmios",
    "вольт",
    "вольта",
    "вольтов",
    "ампер",
    "ампера",
    "градусов",
    "градуса",
    "градус",
    "дюймов",
    "дюйма",
    "ом",
    "ома",
];

/// Spanish and Russian number words below twenty, in every form a
/// dictation gives them ("сорока psi", "восьми вольт").
const SMALL_WORDS: &[(&str, u32)] = &[
    ("cero", 0),
    ("uno", 1),
    ("una", 1),
    ("un", 1),
    ("dos", 2),
    ("tres", 3),
    ("cuatro", 4),
    ("cinco", 5),
    ("seis", 6),
    ("siete", 7),
    ("ocho", 8),
    ("nueve", 9),
    ("diez", 10),
    ("once", 11),
    ("doce", 12),
    ("trece", 13),
    ("catorce", 14),
    ("quince", 15),
    ("dieciseis", 16),
    ("dieciséis", 16),
    ("diecisiete", 17),
    ("dieciocho", 18),
    ("diecinueve", 19),
    ("ноль", 0),
    ("нуль", 0),
    ("нуля", 0),
    ("один", 1),
    ("одна", 1),
    ("одно", 1),
    ("одного", 1),
    ("два", 2),
    ("две", 2),
    ("двух", 2),
    ("три", 3),
    ("трёх", 3),
    ("трех", 3),
    ("четыре", 4),
    ("четырёх", 4),
    ("четырех", 4),
    ("пять", 5),
    ("пяти", 5),
    ("шесть", 6),
    ("шести", 6),
    ("семь", 7),
    ("семи", 7),
    ("восемь", 8),
    ("восьми", 8),
    ("девять", 9),
    ("девяти", 9),
    ("десять", 10),
    ("десяти", 10),
    ("одиннадцать", 11),
    ("двенадцать", 12),
    ("тринадцать", 13),
    ("четырнадцать", 14),
    ("пятнадцать", 15),
    ("шестнадцать", 16),
    ("семнадцать", 17),
    ("восемнадцать", 18),
    ("девятнадцать", 19),
];

/// Spanish and Russian tens, and Spanish twenty-something in one word.
const TENS_WORDS: &[(&str, u32)] = &[
    ("veinte", 20),
    ("treinta", 30),
    ("cuarenta", 40),
    ("cincuenta", 50),
    ("sesenta", 60),
    ("setenta", 70),
    ("ochenta", 80),
    ("noventa", 90),
    ("двадцать", 20),
    ("двадцати", 20),
    ("тридцать", 30),
    ("тридцати", 30),
    ("сорок", 40),
    ("сорока", 40),
    ("пятьдесят", 50),
    ("пятидесяти", 50),
    ("шестьдесят", 60),
    ("шестидесяти", 60),
    ("семьдесят", 70),
    ("семидесяти", 70),
    ("восемьдесят", 80),
    ("восьмидесяти", 80),
    ("девяносто", 90),
];

const VEINTI: &[(&str, u32)] = &[
    ("veintiuno", 21),
    ("veintidos", 22),
    ("veintidós", 22),
    ("veintitres", 23),
    ("veintitrés", 23),
    ("veinticuatro", 24),
    ("veinticinco", 25),
    ("veintiseis", 26),
    ("veintiséis", 26),
    ("veintisiete", 27),
    ("veintiocho", 28),
    ("veintinueve", 29),
];

const MINUS: &[&str] = &["minus", "menos", "минус"];

#[derive(Clone, Copy, PartialEq)]
enum Word {
    Small(u32),
    Tens(u32),
    Compound(u32),
    Hundred,
    Point,
    Half,
    Quarter,
    And,
    A,
}

fn word(w: &str) -> Option<Word> {
    let w = w.to_lowercase();
    if let Some(i) = UNITS.iter().position(|u| *u == w) {
        return Some(Word::Small(i as u32));
    }
    let find = |table: &[(&str, u32)]| table.iter().find(|(t, _)| *t == w).map(|&(_, n)| n);
    if let Some(n) = find(SMALL_WORDS) {
        return Some(Word::Small(n));
    }
    if let Some(n) = find(TENS_WORDS) {
        return Some(Word::Tens(n));
    }
    // "Veintidós" is twenty and two in one word: a tens word the next
    // small word cannot add to.
    if let Some(n) = find(VEINTI) {
        return Some(Word::Compound(n));
    }
    if w == "oh" {
        return Some(Word::Small(0));
    }
    if let Some(i) = TENS.iter().position(|t| *t == w) {
        return Some(Word::Tens(20 + 10 * i as u32));
    }
    match w.as_str() {
        "hundred" | "cien" | "ciento" | "сто" | "ста" => Some(Word::Hundred),
        // "Двенадцать и семь" is how 12.7 is said aloud in Russian.
        "point" | "punto" | "coma" | "точка" | "запятая" | "целых" | "и" => {
            Some(Word::Point)
        }
        "half" | "medio" => Some(Word::Half),
        "quarter" => Some(Word::Quarter),
        "and" | "y" => Some(Word::And),
        "a" => Some(Word::A),
        _ => None,
    }
}

/// The value of a run of number words, or `None` when the run is not a
/// number ("and a", "point" alone).
fn value(words: &[Word]) -> Option<f64> {
    let (int_part, rest) = match words.iter().position(|w| *w == Word::Point) {
        Some(i) => (&words[..i], Some(&words[i + 1..])),
        None => (words, None),
    };
    let mut current: u32 = 0;
    let mut fraction = 0.0;
    let mut seen = false;
    let mut i = 0;
    while i < int_part.len() {
        match int_part[i] {
            Word::Small(n) => {
                // "Veintidós tres" is no number.
                if current % 10 != 0 && current > 20 && current < 100 {
                    return None;
                }
                // "one forty two": a leading digit before tens is hundreds.
                if current > 0 && current < 10 && n < 10 {
                    return None;
                }
                // "One eighteen" is 118, as "one forty two" is 142.
                if current > 0 && current < 10 {
                    current *= 100;
                }
                current += n;
                seen = true;
            }
            Word::Tens(n) | Word::Compound(n) => {
                if current > 0 && current < 10 {
                    current *= 100;
                } else if current % 100 >= 10 {
                    return None;
                }
                current += n;
                seen = true;
            }
            Word::Hundred => {
                current = current.max(1) * 100;
                seen = true;
            }
            Word::And => {
                // "and a half", "one hundred and three"
                match (int_part.get(i + 1), int_part.get(i + 2)) {
                    (Some(Word::A), Some(Word::Half)) => {
                        fraction = 0.5;
                        i += 2;
                    }
                    (Some(Word::A), Some(Word::Quarter)) => {
                        fraction = 0.25;
                        i += 2;
                    }
                    (Some(Word::Small(_) | Word::Tens(_) | Word::Compound(_)), _)
                        if current >= 100 => {}
                    // "cuarenta y dos": tens and a digit.
                    (Some(Word::Small(n)), _) if *n < 10 && current >= 20 && current % 10 == 0 => {}
                    _ => return None,
                }
            }
            Word::A | Word::Half | Word::Quarter | Word::Point => return None,
        }
        i += 1;
    }
    if !seen {
        return None;
    }
    let mut v = f64::from(current) + fraction;
    if let Some(digits) = rest {
        if digits.is_empty() {
            return None;
        }
        let mut s = String::new();
        for d in digits {
            match d {
                Word::Small(n) if *n < 10 => s.push(char::from_digit(*n, 10)?),
                _ => return None,
            }
        }
        v += format!("0.{s}").parse::<f64>().ok()?;
    }
    Some(v)
}

static AND_A_HALF: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(\d{1,4}) (?:and a half|y medio|с половиной)\b").expect("compiles")
});

/// `text` with its dictated readings written as digits.
/// "минус 18", "menos 5": a sign written as a word before typed digits.
static MINUS_DIGITS: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?i)\b(?:minus|menos|минус)\s+(\d)").expect("minus pattern"));

pub fn digits_for_spoken_numbers(text: &str) -> Cow<'_, str> {
    let words = number_words_as_digits(text);
    let words = match MINUS_DIGITS.replace_all(&words, "-$1") {
        Cow::Owned(signed) => Cow::Owned(signed),
        Cow::Borrowed(_) => words,
    };
    if !AND_A_HALF.is_match(&words) {
        return words;
    }
    let halves = AND_A_HALF
        .replace_all(&words, |c: &regex::Captures<'_>| format!("{}.5", &c[1]))
        .into_owned();
    Cow::Owned(halves)
}

fn number_words_as_digits(text: &str) -> Cow<'_, str> {
    // Words with their byte spans.
    let tokens: Vec<(usize, usize)> = {
        let mut out = Vec::new();
        let mut start = None;
        for (i, c) in text.char_indices() {
            let part = c.is_alphabetic();
            match (part, start) {
                (true, None) => start = Some(i),
                (false, Some(s)) => {
                    out.push((s, i));
                    start = None;
                }
                _ => {}
            }
        }
        if let Some(s) = start {
            out.push((s, text.len()));
        }
        out
    };
    let mut out = String::new();
    let mut copied = 0;
    let mut i = 0;
    while i < tokens.len() {
        let Some(first) = word(&text[tokens[i].0..tokens[i].1]) else {
            i += 1;
            continue;
        };
        if !matches!(
            first,
            Word::Small(_) | Word::Tens(_) | Word::Compound(_) | Word::Hundred
        ) {
            i += 1;
            continue;
        }
        // The longest run of number words separated by spaces or hyphens.
        let mut j = i;
        let mut words = vec![first];
        while j + 1 < tokens.len() {
            let gap = &text[tokens[j].1..tokens[j + 1].0];
            if !gap.chars().all(|c| c == ' ' || c == '-') || gap.is_empty() {
                break;
            }
            let Some(w) = word(&text[tokens[j + 1].0..tokens[j + 1].1]) else {
                break;
            };
            words.push(w);
            j += 1;
        }
        // Trailing words that end no number ("and", "a", "point").
        while matches!(words.last(), Some(Word::And | Word::A | Word::Point)) {
            words.pop();
            j -= 1;
        }
        let numeric = words
            .iter()
            .filter(|w| {
                matches!(
                    w,
                    Word::Small(_) | Word::Tens(_) | Word::Compound(_) | Word::Hundred
                )
            })
            .count();
        let unit_follows = tokens.get(j + 1).is_some_and(|&(a, b)| {
            text[tokens[j].1..a].trim().is_empty()
                && UNIT_WORDS.contains(&text[a..b].to_lowercase().as_str())
        });
        // "menos cinco", "минус восемнадцать": a temperature below zero.
        let minus = i > 0
            && MINUS.contains(
                &text[tokens[i - 1].0..tokens[i - 1].1]
                    .to_lowercase()
                    .as_str(),
            )
            && text[tokens[i - 1].1..tokens[i].0].trim().is_empty();
        // "ни одного вольта", "not one volt": none, not one.
        let none = i > 0
            && ["ни", "not", "ni"].contains(
                &text[tokens[i - 1].0..tokens[i - 1].1]
                    .to_lowercase()
                    .as_str(),
            );
        if none {
            i += 1;
            continue;
        }
        let spoken = numeric >= 2
            || words.contains(&Word::Point)
            || words.contains(&Word::Half)
            || matches!(words[..], [Word::Compound(_)]);
        match value(&words) {
            Some(v) if spoken || unit_follows || minus => {
                let (start, v) = if minus {
                    (tokens[i - 1].0, -v)
                } else {
                    (tokens[i].0, v)
                };
                out.push_str(&text[copied..start]);
                let mut s = format!("{v}");
                if s.ends_with(".0") {
                    s.truncate(s.len() - 2);
                }
                out.push_str(&s);
                copied = tokens[j].1;
                i = j + 1;
            }
            _ => i += 1,
        }
    }
    if copied == 0 {
        return Cow::Borrowed(text);
    }
    out.push_str(&text[copied..]);
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::digits_for_spoken_numbers as d;

    #[test]
    fn dictated_readings_become_digits() {
        assert_eq!(
            d("reading nine point two volts at the controller"),
            "reading 9.2 volts at the controller"
        );
        assert_eq!(
            d("pedestal reads one hundred three volts"),
            "pedestal reads 103 volts"
        );
        assert_eq!(
            d("came back one forty two degrees"),
            "came back 142 degrees"
        );
        assert_eq!(
            d("eight and a half inches with the burner going"),
            "8.5 inches with the burner going"
        );
        assert_eq!(d("zero point zero two amps"), "0.02 amps");
        assert_eq!(
            d("panel two is only showing eleven volts, panel one is twenty two"),
            "panel two is only showing 11 volts, panel one is 22"
        );
        assert_eq!(d("one hundred and twenty volts"), "120 volts");
        assert_eq!(
            d("only one eighteen after half an hour"),
            "only 118 after half an hour"
        );
        assert_eq!(
            d("10 and a half wc during the trial"),
            "10.5 wc during the trial"
        );
        assert_eq!(d("11 y medio de columna"), "11.5 de columna");
        assert_eq!(
            d("sube a catorce punto cuatro y luego baja"),
            "sube a 14.4 y luego baja"
        );
        assert_eq!(
            d("hay cuarenta y dos voltios o sea con sol"),
            "hay 42 voltios o sea con sol"
        );
        assert_eq!(d("en el molde marca menos cinco"), "en el molde marca -5");
        assert_eq!(
            d("градусник показывает минус 18"),
            "градусник показывает -18"
        );
        assert_eq!(d("marca menos 5 en el molde"), "marca -5 en el molde");
        assert_eq!(d("veintidós psi"), "22 psi");
        assert_eq!(
            d("на разъёме модуля короче сто восемнадцать вольт"),
            "на разъёме модуля короче 118 вольт"
        );
        assert_eq!(
            d("на насосе двенадцать и семь вольт а он не крутится"),
            "на насосе 12.7 вольт а он не крутится"
        );
        assert_eq!(d("выключается на сорока psi"), "выключается на 40 psi");
    }

    #[test]
    fn words_that_are_not_readings_stay() {
        for s in [
            "not one fan under the bed kicks on",
            "panel one looks fine",
            "one of the jacks",
            "a fuse and a relay",
            "point the meter at it",
            "put a new one in, runs",
            "cambié un fusible y los dos relés",
            "один и тот же провод",
            "uno de los gatos",
            "на шине нуля в щите болт еле держится",
            "фаза-ноль ни одного вольта",
        ] {
            assert_eq!(d(s), s);
        }
    }
}
