//! How procedure patterns become automata: the character classes they mean,
//! written small, and the lean build of each group.
//!
//! Authors write `\w`, `\W` and `\d` in patterns (`отопител\w*`). In Unicode
//! mode those are the whole Unicode word and digit classes, and each use
//! compiles to a large UTF-8 automaton, forward and reverse: the catalog's
//! 600-odd pattern groups took about 113 MB built and 180 MB once they had
//! searched, most of the desktop app's memory. The technicians write English,
//! Spanish and Russian, so a word character is an ASCII letter or digit, `_`,
//! a Latin-1/Latin Extended letter, a combining accent or a Cyrillic letter;
//! with these classes the same groups take about 35 MB built and 60 MB after
//! searching (measured with the regex crate 1.13 on the embedded catalog).
//!
//! [`build_group`] then builds each group with only the engines the catalog's
//! searches use: a technician's note of a few hundred bytes, searched by
//! hundreds of groups for whether and how long they match.

use regex_automata::meta;
use regex_automata::nfa::thompson::WhichCaptures;

/// A pattern group's automaton, built lean: no one-pass DFA (built for any
/// group with a capture group or a Unicode `\b`, which is nearly every one,
/// though only anchored searches use it), no capture states (the catalog
/// never reads a group), and no literal prefilter (it doubled the build time
/// and a third of the memory; the lazy DFA scans a short note about as fast). Matching is leftmost-first,
/// as with `regex::Regex`. On the embedded catalog's 601 groups this takes
/// them from 36 to 25 MB built and from 59 to 49 MB after searching, built in
/// 190 ms instead of 360 (`lean_automata_match_like_the_regex_crate` checks
/// the matches are the same; `engine_turn` benches the turns unchanged).
pub fn build_group(pattern: &str) -> Result<meta::Regex, Box<meta::BuildError>> {
    let config = meta::Config::new()
        .which_captures(WhichCaptures::Implicit)
        .onepass(false)
        .auto_prefilter(false);
    meta::Builder::new()
        .configure(config)
        .build(pattern)
        .map_err(Box::new)
}

/// Word characters of the catalog's languages, as class items.
const WORD: &str = "0-9A-Za-z_\u{00C0}-\u{024F}\u{0300}-\u{036F}\u{0400}-\u{04FF}";

/// `pattern` with `\w`, `\W` and `\d` replaced by the narrow classes; every
/// other escape and character is kept as written. Inside a bracketed class
/// `\W` is kept (a complement cannot be spliced into a class).
pub fn narrow(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len());
    // Depth of bracketed classes (regex-syntax allows nesting), and whether
    // the previous token opened one: a `]` right after `[` or `[^` is literal.
    let mut depth = 0usize;
    let mut just_opened = false;
    let mut chars = pattern.chars().peekable();
    while let Some(c) = chars.next() {
        let opened = just_opened;
        just_opened = false;
        match c {
            '\\' => match chars.next() {
                Some('w') if depth > 0 => out.push_str(WORD),
                Some('w') => {
                    out.push('[');
                    out.push_str(WORD);
                    out.push(']');
                }
                Some('W') if depth == 0 => {
                    out.push_str("[^");
                    out.push_str(WORD);
                    out.push(']');
                }
                Some('d') if depth > 0 => out.push_str("0-9"),
                Some('d') => out.push_str("[0-9]"),
                Some(other) => {
                    out.push('\\');
                    out.push(other);
                }
                None => out.push('\\'),
            },
            '[' => {
                depth += 1;
                out.push('[');
                if chars.peek() == Some(&'^') {
                    out.push('^');
                    chars.next();
                }
                just_opened = true;
            }
            ']' if depth > 0 && !opened => {
                depth -= 1;
                out.push(']');
            }
            _ => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::narrow;
    use regex::Regex;

    fn re(p: &str) -> Regex {
        Regex::new(&narrow(p)).unwrap()
    }

    #[test]
    fn word_and_digit_classes_cover_the_catalog_languages() {
        let r = re(r"(?i)^отопител\w*$");
        assert!(r.is_match("отопителя"));
        assert!(r.is_match("ОТОПИТЕЛЁМ"));
        let r = re(r"(?i)^calefacci\w+$");
        assert!(r.is_match("calefacción"));
        assert!(r.is_match("calefaccio\u{0301}n"), "a decomposed accent");
        assert!(re(r"^\w+ \d+$").is_match("fuse_2 15"));
        assert!(!re(r"^\d$").is_match("٣"), "only ASCII digits");
    }

    #[test]
    fn negations_and_classes_keep_their_meaning() {
        let r = re(r"^a\Wb$");
        assert!(r.is_match("a b"));
        assert!(r.is_match("a-b"));
        assert!(!r.is_match("aяb"));
        let r = re(r"^[\w-]+$");
        assert!(r.is_match("t-stat"));
        assert!(r.is_match("плата-1"));
        let r = re(r"^[^\w]$");
        assert!(r.is_match("!"));
        assert!(!r.is_match("ñ"));
        // A `]` first in a class is literal, so the class is still open at `\w`.
        assert!(re(r"^[]\w]+$").is_match("]a]"));
        assert!(re(r"^[^]\d]$").is_match("x"));
    }

    #[test]
    fn other_escapes_are_left_alone() {
        assert_eq!(
            narrow(r"\bdsi\b \s+ \. \\w \p{L}"),
            r"\bdsi\b \s+ \. \\w \p{L}"
        );
        assert_eq!(narrow(r"trailing \"), r"trailing \");
    }
}
