//! Text normalization shared by indexing and querying, so both sides of a
//! match always agree: lower-case, stem, fold accents, and cut CJK into
//! bigrams.
//!
//! Why not an FTS5 tokenizer alone: `unicode61` treats a run of Chinese or
//! Japanese characters as one token (a whole sentence becomes one "word"),
//! `porter` stems English only, and `trigram` cannot match the two-letter
//! words this trade lives on ("AC", "LP", "12V") and triples the index. So
//! the index holds each chunk's *index form* built here: Latin words stemmed
//! with Snowball for the document's language (English or Spanish), Cyrillic
//! words with the Russian stemmer, accents folded, and CJK runs as
//! overlapping character bigrams (the classic CJK approach of Lucene's
//! CJKAnalyzer). FTS5's `unicode61` then only splits on the spaces. Queries
//! go through the same functions; a Latin query word whose language is
//! unknown is looked up under both its English and its Spanish stem.

use rust_stemmers::{Algorithm, Stemmer};
use std::collections::BTreeSet;
use std::sync::OnceLock;

/// One word of a query: the index tokens any of which counts as the word
/// being present (several when the language is uncertain). The first
/// `native` variants are the word's own forms; any after them are English
/// terms it translates to ([`super::crosslang`]), a phrase as its tokens
/// joined by one space.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct QueryTerm {
    /// The index tokens (or space-joined phrases) that count as the word.
    pub variants: Vec<String>,
    /// A CJK bigram rather than a word: counted apart in the required matches.
    pub cjk: bool,
    /// How many of `variants`, from the first, are the word's own forms.
    pub native: usize,
}

impl QueryTerm {
    /// Whether a text's token set holds the term: any variant, a phrase
    /// with all its words. (FTS5 matched the phrase as a phrase; in a
    /// chunk's token set, with its title and questions, the words suffice.)
    pub fn present_in(&self, tokens: &BTreeSet<String>) -> bool {
        self.variants
            .iter()
            .any(|v| v.split(' ').all(|w| tokens.contains(w)))
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Script {
    Word,
    Cjk,
}

fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF      // Hiragana, Katakana
        | 0x3400..=0x4DBF    // CJK Extension A
        | 0x4E00..=0x9FFF    // CJK Unified Ideographs
        | 0xAC00..=0xD7AF    // Hangul syllables
        | 0xF900..=0xFAFF    // CJK Compatibility Ideographs
        | 0x20000..=0x2FA1F) // Extensions B..F and supplements
}

fn is_cyrillic(word: &str) -> bool {
    word.chars().any(|c| ('\u{0400}'..='\u{04FF}').contains(&c))
}

/// Splits text into lower-cased words and CJK runs. Anything that is not a
/// letter or digit separates words.
fn segments(text: &str) -> Vec<(Script, String)> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut cur_script = Script::Word;
    for c in text.chars() {
        let script = if is_cjk(c) {
            Some(Script::Cjk)
        } else if c.is_alphanumeric() {
            Some(Script::Word)
        } else {
            None
        };
        match script {
            Some(s) if s == cur_script || cur.is_empty() => {
                cur_script = s;
                cur.extend(c.to_lowercase());
            }
            Some(s) => {
                out.push((cur_script, std::mem::take(&mut cur)));
                cur_script = s;
                cur.extend(c.to_lowercase());
            }
            None => {
                if !cur.is_empty() {
                    out.push((cur_script, std::mem::take(&mut cur)));
                }
            }
        }
    }
    if !cur.is_empty() {
        out.push((cur_script, cur));
    }
    out
}

fn stemmer(alg: Algorithm) -> &'static Stemmer {
    static EN: OnceLock<Stemmer> = OnceLock::new();
    static ES: OnceLock<Stemmer> = OnceLock::new();
    static RU: OnceLock<Stemmer> = OnceLock::new();
    match alg {
        Algorithm::Spanish => ES.get_or_init(|| Stemmer::create(Algorithm::Spanish)),
        Algorithm::Russian => RU.get_or_init(|| Stemmer::create(Algorithm::Russian)),
        _ => EN.get_or_init(|| Stemmer::create(Algorithm::English)),
    }
}

/// Accent folding, before stemming: people type "garantia" as often as
/// "garantía", and both must reach the same stem. (FTS5's
/// `remove_diacritics 2` folds too; doing it here keeps the coverage check
/// in Rust identical to what FTS5 matched.)
pub(super) fn fold(word: &str) -> String {
    word.chars()
        .map(|c| match c {
            'á' | 'à' | 'â' | 'ä' | 'ã' => 'a',
            'é' | 'è' | 'ê' | 'ë' => 'e',
            'í' | 'ì' | 'î' | 'ï' => 'i',
            'ó' | 'ò' | 'ô' | 'ö' | 'õ' => 'o',
            'ú' | 'ù' | 'û' | 'ü' => 'u',
            'ñ' => 'n',
            'ç' => 'c',
            'ё' => 'е',
            other => other,
        })
        .collect()
}

pub(super) fn stem_with(word: &str, alg: Algorithm) -> String {
    let word = fold(word);
    if word.chars().any(|c| c.is_ascii_digit()) || word.chars().count() < 3 {
        return word;
    }
    stemmer(alg).stem(&word).into_owned()
}

/// The stemmer a document's language implies for its Latin-script words.
fn latin_algorithm(language: &str) -> Option<Algorithm> {
    match language.split('-').next().unwrap_or("") {
        "en" => Some(Algorithm::English),
        "es" => Some(Algorithm::Spanish),
        _ => None,
    }
}

fn word_token(word: &str, language: &str) -> String {
    if is_cyrillic(word) {
        stem_with(word, Algorithm::Russian)
    } else {
        match latin_algorithm(language) {
            Some(alg) => stem_with(word, alg),
            None => fold(word),
        }
    }
}

fn cjk_bigrams(run: &str) -> Vec<String> {
    let chars: Vec<char> = run.chars().collect();
    if chars.len() == 1 {
        return vec![run.to_string()];
    }
    chars.windows(2).map(|w| w.iter().collect()).collect()
}

/// The index tokens of a text written in `language`.
pub fn index_tokens(text: &str, language: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (script, seg) in segments(text) {
        match script {
            Script::Cjk => out.extend(cjk_bigrams(&seg)),
            Script::Word => out.push(word_token(&seg, language)),
        }
    }
    out
}

/// The index form stored in FTS5: the tokens joined by spaces.
pub fn index_form(text: &str, language: &str) -> String {
    index_tokens(text, language).join(" ")
}

/// Every index token of a text under every stemmer a query might have used;
/// the coverage check looks query variants up in this set.
pub fn token_set(text: &str, language: &str) -> BTreeSet<String> {
    index_tokens(text, language).into_iter().collect()
}

/// Words that carry no subject in a question, in the languages the shop
/// speaks. Only queries drop them; the index keeps every word. "Where" is
/// kept on purpose: it is what finds the "Where" section of a component note.
fn is_stopword(word: &str) -> bool {
    const WORDS: &[&str] = &[
        // en
        "a",
        "about",
        "after",
        "all",
        "also",
        "am",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "been",
        "before",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "for",
        "from",
        "get",
        "got",
        "had",
        "has",
        "have",
        "he",
        "her",
        "here",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "let",
        "me",
        "might",
        "must",
        "my",
        "need",
        "no",
        "not",
        "of",
        "on",
        "or",
        "our",
        "please",
        "she",
        "should",
        "so",
        "than",
        "that",
        "the",
        "their",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "those",
        "to",
        "us",
        "was",
        "we",
        "were",
        "what",
        "whats",
        "when",
        "which",
        "who",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
        "tell",
        "know",
        "s",
        "t",
        "there's",
        "it's",
        "what's",
        "someone",
        "anything",
        // as people type them
        "wheres",
        "hows",
        "whos",
        "im",
        "u",
        "r",
        "ur",
        "pls",
        "plz",
        "rn",
        "dont",
        "doesnt",
        "cant",
        "wont",
        "isnt",
        // es
        "al",
        "como",
        "cómo",
        "con",
        "cual",
        "cuál",
        "cuando",
        "cuándo",
        "de",
        "del",
        "el",
        "ella",
        "en",
        "es",
        "esta",
        "está",
        "este",
        "hay",
        "la",
        "las",
        "le",
        "les",
        "lo",
        "los",
        "me",
        "mi",
        "mis",
        "nos",
        "o",
        "para",
        "pero",
        "por",
        "que",
        "qué",
        "quien",
        "quién",
        "se",
        "si",
        "sobre",
        "son",
        "su",
        "sus",
        "tu",
        "un",
        "una",
        "unos",
        "unas",
        "y",
        "yo",
        "puedo",
        "debo",
        "hacer",
        "esto",
        "puede",
        "pueden",
        "podemos",
        "tener",
        "tiene",
        "tienen",
        "tenemos",
        "ser",
        "estar",
        "hace",
        "hacen",
        "hago",
        // as people type them
        "q",
        "k",
        "pa",
        "xq",
        "pq",
        // "el partido" is a game; as a generic word its stem would make
        // every English "parts" generic too.
        "partido",
        "partidos",
        // "¿esto entra en garantía?" is "is this under warranty?"
        "entra",
        "entran",
        "entrar",
        // ru
        "а",
        "без",
        "бы",
        "в",
        "во",
        "да",
        "для",
        "до",
        "же",
        "за",
        "и",
        "из",
        "или",
        "к",
        "как",
        "какая",
        "какие",
        "какой",
        "когда",
        "ко",
        "ли",
        "мне",
        "мы",
        "на",
        "нам",
        "не",
        "нет",
        "ну",
        "о",
        "об",
        "он",
        "она",
        "они",
        "от",
        "по",
        "почему",
        "с",
        "со",
        "так",
        "то",
        "у",
        "что",
        "это",
        "эта",
        "этот",
        "эти",
        "я",
        "вы",
        "можно",
        "нужно",
        "надо",
        "есть",
        "ли",
        "чем",
        "сколько",
        "может",
        "могут",
        "быть",
        "нужен",
        "нужна",
        "нужны",
        "пока",
        "перед",
        "под",
        "щас",
    ];
    WORDS.contains(&word)
}

/// Words that may be asked about but never name a subject on their own:
/// time ("what time", "the week before"), comparison ("which is worse"),
/// going and coming ("did it leave"), courtesy and small talk. A query made
/// only of these (or of numbers) names nothing the store could cover, and
/// they never count toward a chunk covering a question (see
/// [`is_key_term`]). They stay in the query for ranking.
const GENERIC_WORDS: &[&str] = &[
    // en
    "time",
    "times",
    "week",
    "weeks",
    "day",
    "days",
    "month",
    "months",
    "year",
    "years",
    "today",
    "yesterday",
    "tomorrow",
    "tonight",
    "morning",
    "evening",
    "afternoon",
    "night",
    "hour",
    "hours",
    "minute",
    "minutes",
    "ago",
    "earlier",
    "later",
    "now",
    "again",
    "still",
    "already",
    "last",
    "next",
    "previous",
    "worse",
    "worst",
    "better",
    "best",
    "good",
    "bad",
    "more",
    "less",
    "same",
    "other",
    "another",
    "one",
    "ones",
    "thing",
    "things",
    "stuff",
    "way",
    "kind",
    "sort",
    "leave",
    "left",
    "leaves",
    "go",
    "goes",
    "went",
    "gone",
    "come",
    "came",
    "happen",
    "happened",
    "say",
    "said",
    "think",
    "mean",
    "like",
    "want",
    "really",
    "just",
    "ok",
    "okay",
    "yes",
    "yeah",
    "yep",
    "nope",
    "thanks",
    "thank",
    "thx",
    "hello",
    "hi",
    "hey",
    "sure",
    "cool",
    "great",
    "nice",
    "fine",
    "right",
    "well",
    "much",
    "many",
    "big",
    "small",
    "long",
    "old",
    "new",
    "back",
    "guy",
    "guys",
    "man",
    "dude",
    "bro",
    "lol",
    "wow",
    "hmm",
    "um",
    "uh",
    "doing",
    "going",
    "does",
    "done",
    "make",
    "made",
    "take",
    "took",
    "give",
    "gave",
    "show",
    "look",
    "see",
    "put",
    "very",
    "too",
    "some",
    "something",
    "everything",
    "nothing",
    "ever",
    "never",
    "always",
    "about",
    "whether",
    "worth",
    "maybe",
    "probably",
    "yours",
    "mine",
    "weather",
    "joke",
    "name",
    // es
    "tiempo",
    "semana",
    "semanas",
    "dia",
    "dias",
    "mes",
    "meses",
    "ano",
    "anos",
    "hoy",
    "ayer",
    "manana",
    "tarde",
    "noche",
    "hora",
    "horas",
    "antes",
    "despues",
    "luego",
    "ahora",
    "otra",
    "otro",
    "otros",
    "mismo",
    "misma",
    "peor",
    "mejor",
    "bueno",
    "buena",
    "malo",
    "mala",
    "cosa",
    "cosas",
    "gracias",
    "hola",
    "vale",
    "bien",
    "salio",
    "salir",
    "paso",
    "pasa",
    "dijo",
    "decir",
    "quiero",
    "mas",
    "menos",
    "muy",
    "entonces",
    "ya",
    "todavia",
    "oye",
    "buenas",
    "buenos",
    "chido",
    "ok",
    "pues",
    "cuanto",
    "cuanta",
    "cuantos",
    "cuantas",
    "cual",
    "cuales",
    "estas",
    "estoy",
    "eso",
    "esa",
    "ese",
    "fue",
    "fueron",
    "tal",
    "clima",
    "chiste",
    "llamas",
    "nombre",
    "pasada",
    "pasado",
    // "¿seguro?" is "sure?"
    "seguro",
    "segura",
    // ru
    "время",
    "неделя",
    "неделю",
    "недели",
    "день",
    "дня",
    "дней",
    "месяц",
    "год",
    "вчера",
    "сегодня",
    "завтра",
    "утром",
    "вечером",
    "час",
    "часа",
    "часов",
    "раньше",
    "позже",
    "потом",
    "сейчас",
    "опять",
    "снова",
    "ещё",
    "еще",
    "уже",
    "прошлой",
    "прошлый",
    "прошлая",
    "хуже",
    "лучше",
    "хорошо",
    "плохо",
    "другой",
    "другая",
    "тот",
    "та",
    "те",
    "такой",
    "штука",
    "вещь",
    "спасибо",
    "привет",
    "здравствуйте",
    "ладно",
    "ок",
    "окей",
    "уехал",
    "уехала",
    "уехали",
    "ушёл",
    "ушел",
    "ушла",
    "ушли",
    "который",
    "которая",
    "которое",
    "какое",
    "какую",
    "во",
    "сколько",
    "было",
    "был",
    "была",
    "будет",
    "очень",
    "много",
    "мало",
    "погода",
    "погоду",
    "анекдот",
    "зовут",
    "дела",
    "понял",
    "поняла",
    "ага",
    "угу",
    "значит",
    "оформить",
    "оформлять",
    "сделать",
    "делать",
    // "сколько лет можно ездить на одних шинах?": years, one, going
    "лет",
    "один",
    "одна",
    "одно",
    "одни",
    "одних",
    "ездить",
    "ездит",
    "ехать",
    // "стоит": costs, stands, should
    "стоит",
];

fn generic_stems() -> &'static BTreeSet<String> {
    static SET: OnceLock<BTreeSet<String>> = OnceLock::new();
    SET.get_or_init(|| {
        let mut set = BTreeSet::new();
        for w in GENERIC_WORDS {
            let w = fold(w);
            if is_cyrillic(&w) {
                set.insert(stem_with(&w, Algorithm::Russian));
            } else {
                set.insert(stem_with(&w, Algorithm::English));
                set.insert(stem_with(&w, Algorithm::Spanish));
            }
            set.insert(w);
        }
        set
    })
}

/// Whether a query term names a subject the store could cover: a CJK
/// bigram, or a word with a letter in it that is not one of the
/// [`GENERIC_WORDS`] (a bare number names nothing: "12" is in half of the
/// component notes).
pub fn is_key_term(term: &QueryTerm) -> bool {
    if term.cjk {
        return true;
    }
    let Some(first) = term.variants.first() else {
        return false;
    };
    // A number, or a lone letter ("120 v", "lot c" without the lot): no subject.
    if !first.chars().any(char::is_alphabetic) || first.chars().count() < 2 {
        return false;
    }
    // Only the word's own forms: a translation never makes a word generic.
    let generic = generic_stems();
    !term.variants[..term.native.min(term.variants.len())]
        .iter()
        .any(|v| generic.contains(v))
}

/// The key terms of a query ([`is_key_term`]), in query order.
pub fn key_terms(terms: &[QueryTerm]) -> Vec<&QueryTerm> {
    terms.iter().filter(|t| is_key_term(t)).collect()
}

/// The terms of a query. `language` is the asker's language when known;
/// a Latin word is also looked up under the other stemmer, since shops mix
/// English and Spanish freely, and a Spanish or Russian word also under the
/// English terms it translates to ([`super::crosslang`]), since most of a
/// shop's documents are in English. Duplicate terms are dropped.
pub fn query_terms(text: &str, language: Option<&str>) -> Vec<QueryTerm> {
    let mut out: Vec<QueryTerm> = Vec::new();
    for (script, seg) in segments(text) {
        match script {
            Script::Cjk => {
                for bigram in cjk_bigrams(&seg) {
                    let term = QueryTerm {
                        variants: vec![bigram],
                        cjk: true,
                        native: 1,
                    };
                    if !out.contains(&term) {
                        out.push(term);
                    }
                }
            }
            Script::Word => {
                if is_stopword(&seg) {
                    continue;
                }
                let mut variants = Vec::new();
                if is_cyrillic(&seg) {
                    variants.push(stem_with(&seg, Algorithm::Russian));
                } else {
                    let first = language.and_then(latin_algorithm);
                    for alg in first
                        .into_iter()
                        .chain([Algorithm::English, Algorithm::Spanish])
                    {
                        let v = stem_with(&seg, alg);
                        if !variants.contains(&v) {
                            variants.push(v);
                        }
                    }
                    let plain = fold(&seg);
                    if !variants.contains(&plain) {
                        variants.push(plain);
                    }
                }
                let native = variants.len();
                for english in super::crosslang::english_for(&seg, language) {
                    if !variants.contains(&english) {
                        variants.push(english);
                    }
                }
                let term = QueryTerm {
                    variants,
                    cjk: false,
                    native,
                };
                if !out.contains(&term) {
                    out.push(term);
                }
            }
        }
    }
    out
}

/// The FTS5 MATCH expression. The "minimum should match" is pushed down
/// into FTS5 so it never ranks chunks that cannot qualify: a query whose
/// every word is required becomes `(a1 OR a2) AND (b1 OR b2)`, one that needs
/// `m` of `n` words the OR of every `m`-word combination (while there are at
/// most [`MAX_COMBINATIONS`]), anything else an OR of all variants with the
/// check left to [`matched_terms`]. Tokens are letters and digits only, but
/// are quoted anyway so no token can become FTS5 syntax.
pub fn match_expression(terms: &[QueryTerm]) -> Option<String> {
    match_plan(terms).map(|(e, _)| e)
}

/// The expression, and whether it enforces the minimum by itself (then no
/// chunk it returns needs checking in Rust).
pub fn match_plan(terms: &[QueryTerm]) -> Option<(String, bool)> {
    if terms.is_empty() {
        return None;
    }
    let group = |t: &QueryTerm| {
        let parts: Vec<String> = t.variants.iter().map(|v| quoted(v)).collect();
        format!("({})", parts.join(" OR "))
    };
    let required = required_matches(terms);
    let cjk = terms.iter().any(|t| t.cjk);
    if !cjk && required >= 2 {
        let combos = combinations(terms.len(), required);
        if combos.len() <= MAX_COMBINATIONS {
            let alternatives: Vec<String> = combos
                .iter()
                .map(|c| {
                    let groups: Vec<String> = c.iter().map(|&i| group(&terms[i])).collect();
                    format!("({})", groups.join(" AND "))
                })
                .collect();
            return Some((alternatives.join(" OR "), true));
        }
    }
    let mut seen = BTreeSet::new();
    let parts: Vec<String> = terms
        .iter()
        .flat_map(|t| t.variants.iter())
        .filter(|v| seen.insert(v.as_str()))
        .map(|v| quoted(v))
        .collect();
    Some((parts.join(" OR "), required <= 1))
}

/// A token as an FTS5 string: quoted, so no token can become FTS5 syntax.
fn quoted(token: &str) -> String {
    format!("\"{}\"", token.replace('"', "\"\""))
}

/// Past this many combinations the expression costs more than it saves.
pub const MAX_COMBINATIONS: usize = 20;

/// Every `k`-element subset of `0..n`, as sorted index lists (at most
/// `MAX_COMBINATIONS + 1` are built: the caller only needs to know it is more).
fn combinations(n: usize, k: usize) -> Vec<Vec<usize>> {
    let mut out = Vec::new();
    let mut cur = Vec::with_capacity(k);
    fn rec(start: usize, n: usize, k: usize, cur: &mut Vec<usize>, out: &mut Vec<Vec<usize>>) {
        if out.len() > MAX_COMBINATIONS {
            return;
        }
        if cur.len() == k {
            out.push(cur.clone());
            return;
        }
        for i in start..n {
            cur.push(i);
            rec(i + 1, n, k, cur, out);
            cur.pop();
        }
    }
    rec(0, n, k, &mut cur, &mut out);
    out
}

/// How many of a query's terms must appear in a chunk for it to count as a
/// hit (a "minimum should match"): every word of a one- or two-word query
/// ("bitcoin price" is not answered by a page that says "price"), half of
/// the words of a longer one, and a third of the CJK bigrams (a bigram that
/// spans two words matches nothing by design).
pub fn required_matches(terms: &[QueryTerm]) -> usize {
    let words = terms.iter().filter(|t| !t.cjk).count() as f64;
    let cjk = terms.iter().filter(|t| t.cjk).count() as f64;
    let words_needed = if words <= 2.0 { words } else { words * 0.5 };
    (words_needed + (cjk / 3.0)).ceil().max(1.0) as usize
}

/// How many terms have a variant in `tokens`.
pub fn matched_terms(terms: &[QueryTerm], tokens: &BTreeSet<String>) -> usize {
    terms.iter().filter(|t| t.present_in(tokens)).count()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cjk_runs_become_bigrams_and_match_between_index_and_query() {
        assert_eq!(index_form("停车费", "zh"), "停车 车费");
        let terms = query_terms("停车费怎么算", None);
        let tokens = token_set("本停车场的停车费按小时计算", "zh");
        assert!(matched_terms(&terms, &tokens) >= required_matches(&terms));
    }

    #[test]
    fn russian_and_english_inflections_meet_at_the_stem() {
        let tokens = token_set("Проверка аккумулятора и предохранителей", "ru");
        let terms = query_terms("как проверить аккумулятор", Some("ru"));
        assert_eq!(matched_terms(&terms, &tokens), 1, "{terms:?} vs {tokens:?}");
        let tokens = token_set("Checking the batteries while storing units", "en");
        let terms = query_terms("battery storage", None);
        assert_eq!(matched_terms(&terms, &tokens), 1);
    }

    #[test]
    fn spanish_accents_fold_and_stopwords_drop() {
        let terms = query_terms("¿Cuál es la garantía del calentador?", None);
        let tokens = token_set("Proceso de garantia para calentadores de agua", "es");
        assert_eq!(terms.len(), 2, "{terms:?}");
        assert_eq!(matched_terms(&terms, &tokens), 2, "{terms:?} vs {tokens:?}");
    }

    #[test]
    fn required_words_are_pushed_into_the_match_expression() {
        let two = match_expression(&query_terms("storage fees", Some("en"))).unwrap();
        assert!(two.contains(") AND ("), "{two}");
        let three = match_expression(&query_terms("lp leak test", Some("en"))).unwrap();
        assert_eq!(three.matches(" AND ").count(), 3, "{three}");
        let cjk = match_expression(&query_terms("停车费", None)).unwrap();
        assert!(!cjk.contains("AND"), "{cjk}");
    }

    #[test]
    fn a_query_of_only_stopwords_has_no_match_expression() {
        assert_eq!(match_expression(&query_terms("what is the", None)), None);
        assert_eq!(match_expression(&query_terms("¿?!", None)), None);
    }
}
