//! Readings dictated by voice: speech-to-text writes "nine point two volts",
//! "one forty two degrees", "eight and a half inches". Such runs of English
//! number words are rewritten as digits before the message is read, so they
//! are readings like any typed one. A lone "one" ("not one fan kicks on",
//! "panel one") stays a word: a run is rewritten only when it is two number
//! words or more, or one followed by a unit.

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
];

#[derive(Clone, Copy, PartialEq)]
enum Word {
    Small(u32),
    Tens(u32),
    Hundred,
    Point,
    Half,
    Quarter,
    And,
    A,
}

fn word(w: &str) -> Option<Word> {
    let w = w.to_ascii_lowercase();
    if let Some(i) = UNITS.iter().position(|u| *u == w) {
        return Some(Word::Small(i as u32));
    }
    if w == "oh" {
        return Some(Word::Small(0));
    }
    if let Some(i) = TENS.iter().position(|t| *t == w) {
        return Some(Word::Tens(20 + 10 * i as u32));
    }
    match w.as_str() {
        "hundred" => Some(Word::Hundred),
        "point" => Some(Word::Point),
        "half" => Some(Word::Half),
        "quarter" => Some(Word::Quarter),
        "and" => Some(Word::And),
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
            Word::Tens(n) => {
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
                    (Some(Word::Small(_) | Word::Tens(_)), _) if current >= 100 => {}
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
pub fn digits_for_spoken_numbers(text: &str) -> Cow<'_, str> {
    let words = number_words_as_digits(text);
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
            let part = c.is_ascii_alphabetic();
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
        if !matches!(first, Word::Small(_) | Word::Tens(_)) {
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
            .filter(|w| matches!(w, Word::Small(_) | Word::Tens(_) | Word::Hundred))
            .count();
        let unit_follows = tokens.get(j + 1).is_some_and(|&(a, b)| {
            text[tokens[j].1..a].trim().is_empty()
                && UNIT_WORDS.contains(&text[a..b].to_ascii_lowercase().as_str())
        });
        let spoken = numeric >= 2 || words.contains(&Word::Point) || words.contains(&Word::Half);
        match value(&words) {
            Some(v) if spoken || unit_follows => {
                out.push_str(&text[copied..tokens[i].0]);
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
        ] {
            assert_eq!(d(s), s);
        }
    }
}
