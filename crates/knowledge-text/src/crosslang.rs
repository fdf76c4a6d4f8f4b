//! Cross-language retrieval without a model: a Spanish or Russian question
//! is also looked up under the English words the shop's documents use, so
//! "¿esto entra en garantía?" and "это по гарантии?" find the English
//! warranty FAQ.
//!
//! The translations are data: `crosslang.lex`, a bilingual term lexicon of
//! the trade (warranty / garantía / гарантия, water heater / calentador /
//! бойлер / колонка, …); its header says how to write it. At query time each
//! Spanish or Russian word that matches a form there gains the English
//! terms as extra variants of the same query term ([`super::text`]), so a
//! translated word counts once, like any other word, and the relevance floor
//! judges the question exactly as before: a chunk must still hold enough of
//! the question's words, in one language or the other.
//!
//! Matching is forgiving where people are: a form matches by its Snowball
//! stem with accents folded ("garantia" = "garantías"), a prefix form
//! ("гарант*") matches Russian inflections and derivations a stemmer keeps
//! apart, and a word of six letters or more may be one typo away from a
//! form ("garnatia", "гарантя"). Documents are indexed unchanged: the
//! expansion happens only in the query.

use super::text::{fold, stem_with};
use rust_stemmers::Algorithm;
use std::sync::OnceLock;

/// The lexicon shipped with the app.
const LEXICON: &str = include_str!("crosslang.lex");

/// The shortest prefix form: a shorter one would match unrelated words.
const MIN_PREFIX: usize = 3;
/// A word this long may be one typo away from a form.
const MIN_TYPO_WORD: usize = 6;
/// A stem this long may be one typo away from a form's stem. (At five,
/// "llanta" is a typo of "planta" and "entra" of "extra".)
const MIN_TYPO_STEM: usize = 6;

/// A language the lexicon translates to English from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    /// Spanish.
    Es,
    /// Russian.
    Ru,
}

impl Lang {
    fn algorithm(self) -> Algorithm {
        match self {
            Lang::Es => Algorithm::Spanish,
            Lang::Ru => Algorithm::Russian,
        }
    }
}

#[derive(Debug, Clone)]
struct Form {
    /// The form as written, lower-cased and folded (for a prefix, without
    /// its `*`).
    text: String,
    stem: String,
    prefix: bool,
    /// Index into [`Lexicon::english`].
    concept: usize,
}

/// A parsed lexicon: per language its forms, and per concept the English
/// index tokens (a phrase's tokens joined by one space).
#[derive(Debug, Default)]
pub struct Lexicon {
    es: Vec<Form>,
    ru: Vec<Form>,
    english: Vec<Vec<String>>,
}

/// A line of the lexicon that does not read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("crosslang.lex line {line}: {message}")]
pub struct LexiconError {
    /// The line of `crosslang.lex`, from 1.
    pub line: usize,
    /// What is wrong with it.
    pub message: String,
}

impl Lexicon {
    /// Reads the lexicon format (see the header of `crosslang.lex`).
    pub fn parse(text: &str) -> Result<Lexicon, LexiconError> {
        let mut lex = Lexicon::default();
        for (i, raw) in text.lines().enumerate() {
            let line = i + 1;
            let err = |message: String| LexiconError { line, message };
            let content = raw.split('#').next().unwrap_or("").trim();
            if content.is_empty() {
                continue;
            }
            let columns: Vec<&str> = content.split('|').map(str::trim).collect();
            let [english, es, ru] = columns[..] else {
                return Err(err(format!(
                    "want 3 columns (english | spanish | russian), found {}",
                    columns.len()
                )));
            };
            let concept = lex.english.len();
            let mut terms = Vec::new();
            for term in list(english) {
                let tokens = super::text::index_tokens(term, "en");
                if tokens.is_empty() {
                    return Err(err(format!("english term {term:?} has no word")));
                }
                terms.push(tokens.join(" "));
            }
            if terms.is_empty() {
                return Err(err("no english term".into()));
            }
            lex.english.push(terms);
            for (lang, column) in [(Lang::Es, es), (Lang::Ru, ru)] {
                for written in list(column) {
                    let form = read_form(written, lang, concept).map_err(err)?;
                    match lang {
                        Lang::Es => lex.es.push(form),
                        Lang::Ru => lex.ru.push(form),
                    }
                }
            }
        }
        Ok(lex)
    }

    /// The English index tokens (or phrases) a query word stands for, in
    /// lexicon order without repeats; empty when it matches no form.
    /// `word` is one word as [`super::text`] segments it (lower case).
    pub fn english_for(&self, word: &str, lang: Lang) -> Vec<String> {
        let forms = match lang {
            Lang::Es => &self.es,
            Lang::Ru => &self.ru,
        };
        let folded = fold(word);
        let stem = stem_with(&folded, lang.algorithm());
        let mut out: Vec<String> = Vec::new();
        let mut seen_concepts: Vec<usize> = Vec::new();
        for f in forms {
            if seen_concepts.contains(&f.concept) || !matches(f, &folded, &stem) {
                continue;
            }
            seen_concepts.push(f.concept);
            for t in &self.english[f.concept] {
                if !out.contains(t) {
                    out.push(t.clone());
                }
            }
        }
        out
    }
}

fn list(column: &str) -> impl Iterator<Item = &str> {
    column.split(',').map(str::trim).filter(|s| !s.is_empty())
}

fn read_form(written: &str, lang: Lang, concept: usize) -> Result<Form, String> {
    let (body, prefix) = match written.strip_suffix('*') {
        Some(b) => (b, true),
        None => (written, false),
    };
    let text = fold(&body.to_lowercase());
    if text.is_empty() || !text.chars().all(char::is_alphanumeric) {
        return Err(format!(
            "{written:?} is not one word (a phrase cannot be matched word by word)"
        ));
    }
    let cyrillic = text.chars().any(|c| ('\u{0400}'..='\u{04FF}').contains(&c));
    if cyrillic != (lang == Lang::Ru) {
        return Err(format!(
            "{written:?} is in the wrong column for its script ({})",
            if cyrillic { "Cyrillic" } else { "Latin" }
        ));
    }
    if prefix && text.chars().count() < MIN_PREFIX {
        return Err(format!(
            "prefix {written:?} is shorter than {MIN_PREFIX} letters"
        ));
    }
    Ok(Form {
        stem: stem_with(&text, lang.algorithm()),
        text,
        prefix,
        concept,
    })
}

fn matches(f: &Form, word: &str, stem: &str) -> bool {
    if f.prefix {
        if word.starts_with(&f.text) {
            return true;
        }
        // One typo inside the prefix: compare the word's start of about the
        // prefix's length (a letter left out or added shifts it by one).
        let n = f.text.chars().count();
        if n < MIN_TYPO_STEM {
            return false;
        }
        let chars: Vec<char> = word.chars().collect();
        return (n - 1..=n + 1).any(|k| {
            k <= chars.len() && {
                let head: String = chars[..k].iter().collect();
                within_one(&head, &f.text)
            }
        });
    }
    if stem == f.stem || word == f.text {
        return true;
    }
    (word.chars().count() >= MIN_TYPO_WORD
        && f.text.chars().count() >= MIN_TYPO_WORD
        && within_one(word, &f.text))
        || (stem.chars().count() >= MIN_TYPO_STEM
            && f.stem.chars().count() >= MIN_TYPO_STEM
            && within_one(stem, &f.stem))
}

/// Whether two words are at most one edit apart: one letter replaced,
/// added, left out, or two neighbours swapped (optimal string alignment).
pub fn within_one(a: &str, b: &str) -> bool {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    if a.len().abs_diff(b.len()) > 1 {
        return false;
    }
    let start = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
    let (a, b) = (&a[start..], &b[start..]);
    let end = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (a, b) = (&a[..a.len() - end], &b[..b.len() - end]);
    match (a.len(), b.len()) {
        (0, 0) | (1, 1) | (0, 1) | (1, 0) => true,
        (2, 2) => a[0] == b[1] && a[1] == b[0],
        _ => false,
    }
}

/// The shipped lexicon, parsed once. It is checked by a test; should it
/// ever fail to read, queries go untranslated rather than failing.
pub fn lexicon() -> &'static Lexicon {
    static LEX: OnceLock<Lexicon> = OnceLock::new();
    LEX.get_or_init(|| {
        Lexicon::parse(LEXICON).unwrap_or_else(|e| {
            tracing::error!("{e}");
            Lexicon::default()
        })
    })
}

/// The lexicon language a query word is looked up in: Russian for a
/// Cyrillic word, Spanish for a Latin one unless the asker writes English
/// (an English question is not second-guessed through Spanish stems).
pub fn lang_of(word: &str, asker: Option<&str>) -> Option<Lang> {
    if word.chars().any(|c| ('\u{0400}'..='\u{04FF}').contains(&c)) {
        Some(Lang::Ru)
    } else if asker.and_then(|l| l.split('-').next()) == Some("en") {
        None
    } else if word.chars().any(char::is_alphabetic) {
        Some(Lang::Es)
    } else {
        None
    }
}

/// The English terms a query word stands for under the shipped lexicon.
pub fn english_for(word: &str, asker: Option<&str>) -> Vec<String> {
    match lang_of(word, asker) {
        Some(lang) => lexicon().english_for(word, lang),
        None => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shipped_lexicon_reads() {
        let lex = Lexicon::parse(LEXICON).unwrap();
        assert!(lex.english.len() > 50, "{} concepts", lex.english.len());
        assert!(lex.es.len() > 100 && lex.ru.len() > 80);
    }

    #[test]
    fn a_bad_line_is_named() {
        let e = Lexicon::parse("# ok\nwarranty | garantia\n").unwrap_err();
        assert_eq!(e.line, 2);
        let e = Lexicon::parse("tire | llanta | шин*, ш*\n").unwrap_err();
        assert!(e.message.contains("shorter"), "{e}");
        let e = Lexicon::parse("rv | casa rodante |\n").unwrap_err();
        assert!(e.message.contains("not one word"), "{e}");
        let e = Lexicon::parse("tire | шина |\n").unwrap_err();
        assert!(e.message.contains("wrong column"), "{e}");
    }

    #[test]
    fn spanish_words_meet_their_english_terms_by_stem_accent_and_typo() {
        for w in [
            "garantía",
            "garantia",
            "garantias",
            "GARANTIA",
            "garnatia",
            "garantai",
        ] {
            let en = english_for(&w.to_lowercase(), Some("es"));
            assert!(en.contains(&"warranti".to_string()), "{w}: {en:?}");
        }
        assert!(english_for("calentador", None).contains(&"water heater".to_string()));
        assert!(english_for("llantas", Some("es")).contains(&"tire".to_string()));
        // An English asker's words are not read as Spanish.
        assert!(english_for("garantia", Some("en")).is_empty());
        // Words that are not in the lexicon stay as they are.
        assert!(english_for("paella", Some("es")).is_empty());
        assert!(english_for("bicicleta", Some("es")).is_empty());
    }

    #[test]
    fn russian_inflections_and_derivations_meet_one_concept() {
        for w in [
            "гарантия",
            "гарантии",
            "гарантию",
            "гарантийный",
            "гарантийной",
            "гаратния",
        ] {
            let en = english_for(w, Some("ru"));
            assert!(en.contains(&"warranti".to_string()), "{w}: {en:?}");
        }
        for w in ["бойлер", "бойлера", "водонагревателя", "колонку"]
        {
            let en = english_for(w, None);
            assert!(en.contains(&"water heater".to_string()), "{w}: {en:?}");
        }
        assert!(english_for("шинах", None).contains(&"tire".to_string()));
        // "плата" is a board and a fee; both senses are offered.
        let en = english_for("плату", None);
        assert!(en.contains(&"board".to_string()) && en.contains(&"fee".to_string()));
        // A prefix is not a substring: "стартер" is not "старый".
        assert!(english_for("стартер", None).is_empty());
        assert!(english_for("сборка", None).is_empty());
    }

    #[test]
    fn one_edit_apart() {
        assert!(within_one("garantia", "garnatia"));
        assert!(within_one("garantia", "garantis"));
        assert!(within_one("garantia", "garantiaa"));
        assert!(within_one("garantia", "garntia"));
        assert!(!within_one("garantia", "garnatai"));
        assert!(!within_one("costo", "corta"));
    }
}
