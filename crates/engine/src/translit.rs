//! Russian typed in Latin letters ("motor napryamuyu ot akkuma krutit",
//! "katushka klapana 1.2 kOm"): a technician on a keyboard with no Cyrillic
//! layout writes Russian the way it sounds. In a Russian session such a
//! note is written back in Cyrillic before it is read, so the Russian
//! lexicon applies. Short all-capital words (PV, LED, GFCI, V) and words
//! with digits (MC4, 12V) are part names and units, kept as typed.

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::Regex;

/// Function words and endings that only transliterated Russian has.
static RUSSIAN_IN_LATIN: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(na|ne|net|iz|ot|pri|eto|uzhe|tozhe|chto|gde|nado|nichego|est|vrode|posle|cherez|kogda|seichas|sejchas|tolko|krutit|derzhit|zvonitsya|rabotaet|migaet|poryadke|poryadok|normalno|voobshche|vse|vsyo|eshche|tam|tut|kak|nasos\w*|predohranitel\w*|klemm\w*|provod\w*|gorit|greet|sgorel|peregorel|tsel\w*|zhivoi|zhivoy)\b|\b\w+(aet|yaet|itsya|etsya|atsya|ogo|nyi|nyy|ovka|ushka|yushchii)\b",
    )
    .expect("compiles")
});

static WORD: LazyLock<Regex> = LazyLock::new(|| Regex::new(r"[A-Za-z']+").expect("compiles"));

/// Latin letter groups and their Cyrillic letters, longest first.
const GROUPS: &[(&str, &str)] = &[
    ("tsya", "тся"),
    ("shch", "щ"),
    ("sch", "щ"),
    ("yo", "ё"),
    ("zh", "ж"),
    ("kh", "х"),
    ("ts", "ц"),
    ("ch", "ч"),
    ("sh", "ш"),
    ("yu", "ю"),
    ("ya", "я"),
    ("ye", "е"),
    ("a", "а"),
    ("b", "б"),
    ("c", "ц"),
    ("d", "д"),
    ("e", "е"),
    ("f", "ф"),
    ("g", "г"),
    ("h", "х"),
    ("i", "и"),
    ("j", "й"),
    ("k", "к"),
    ("l", "л"),
    ("m", "м"),
    ("n", "н"),
    ("o", "о"),
    ("p", "п"),
    ("q", "к"),
    ("r", "р"),
    ("s", "с"),
    ("t", "т"),
    ("u", "у"),
    ("v", "в"),
    ("w", "в"),
    ("x", "кс"),
    ("y", "ы"),
    ("z", "з"),
    ("'", "ь"),
];

/// `text` in Cyrillic when it is Russian typed in Latin letters (and has
/// no Cyrillic of its own); otherwise unchanged.
pub fn cyrillic(text: &str) -> Cow<'_, str> {
    let has_cyrillic = text.chars().any(|c| ('\u{0400}'..='\u{04FF}').contains(&c));
    if has_cyrillic || RUSSIAN_IN_LATIN.find_iter(text).count() < 1 {
        return Cow::Borrowed(text);
    }
    WORD.replace_all(text, |c: &regex::Captures<'_>| {
        let w = &c[0];
        let glued_to_digit = {
            let (s, e) = (
                c.get(0).map_or(0, |m| m.start()),
                c.get(0).map_or(0, |m| m.end()),
            );
            text[..s].ends_with(|ch: char| ch.is_ascii_digit())
                || text[e..].starts_with(|ch: char| ch.is_ascii_digit())
        };
        let acronym = w.len() <= 4 && w.chars().all(|ch| ch.is_ascii_uppercase());
        if glued_to_digit || acronym {
            w.to_string()
        } else {
            word(&w.to_lowercase())
        }
    })
}

/// One lowercase word in Cyrillic: "-yi", "-ii", "-oi" endings are "-ый",
/// "-ий", "-ой", and a "y" after a vowel is "й".
fn word(w: &str) -> String {
    let mut out = String::new();
    let mut rest = w;
    while !rest.is_empty() {
        let after_vowel = out.chars().last().is_some_and(|c| "аеёиоуыэюя".contains(c));
        if after_vowel
            && (rest == "i"
                || rest.starts_with('y')
                    && !rest.starts_with("ya")
                    && !rest.starts_with("yu")
                    && !rest.starts_with("yo")
                    && !rest.starts_with("ye"))
        {
            out.push('й');
            rest = &rest[1..];
            continue;
        }
        if rest == "yi" || rest == "yy" {
            out.push_str("ый");
            break;
        }
        if rest == "ii" {
            out.push_str("ий");
            break;
        }
        match GROUPS.iter().find(|(latin, _)| rest.starts_with(latin)) {
            Some((latin, cyr)) => {
                out.push_str(cyr);
                rest = &rest[latin.len()..];
            }
            None => {
                let ch = rest.chars().next().expect("non-empty");
                out.push(ch);
                rest = &rest[ch.len_utf8()..];
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::cyrillic;

    #[test]
    fn russian_in_latin_letters_is_written_in_cyrillic() {
        assert_eq!(
            cyrillic("motor napryamuyu ot akkuma krutit v obe storony"),
            "мотор напрямую от аккума крутит в обе стороны"
        );
        assert_eq!(
            cyrillic("termovyklyuchatel na holodnoi pechke zvonitsya"),
            "термовыключател на холодной печке звонится"
        );
        assert_eq!(
            cyrillic("PV na kontrollere 44 V holostoi hod"),
            "PV на контроллере 44 V холостой ход"
        );
        assert_eq!(
            cyrillic("katushka klapana 1.2 kOm"),
            "катушка клапана 1.2 ком"
        );
        assert_eq!(
            cyrillic("predohranitel nasosa v poryadke"),
            "предохранител насоса в порядке"
        );
    }

    #[test]
    fn english_and_cyrillic_notes_stay() {
        for s in [
            "motor runs on the battery",
            "12.4 at the board, fuse ok",
            "на плате 12,4",
            "PV input 21.4",
        ] {
            assert_eq!(cyrillic(s), s);
        }
    }
}
