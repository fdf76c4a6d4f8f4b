//! Idioms that say a check passed with a negative word in them ("no
//! problem with the sail switch", "nothing wrong with the fuse", "ningún
//! problema con el relé", "проблем нет"), and the negation of neighbouring
//! languages a technician mixes in (Portuguese "não", Ukrainian "ні"),
//! rewritten once into the plain words the rest of the engine reads, so a
//! pass is never read as a fail because of its "no".

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::Regex;

/// Each idiom and the plain words it is read as.
static IDIOMS: LazyLock<Vec<(Regex, &'static str)>> = LazyLock::new(|| {
    [
        (
            r"\b(no|not an?y?) (problems?|issues?|trouble) (with|on|at)\b",
            "fine $3",
        ),
        (r"\bnothing (wrong|bad) (with|on|at)\b", "fine $2"),
        (
            r"\b(no hay|ning[uú]n|sin) (problemas?|falla) (con|en)\b",
            "bien $3",
        ),
        (r"\bnada (malo|mal) (con|en)\b", "bien $2"),
        (r"\b(никаких )?проблем (нет|не вижу)\b", "в норме"),
        (r"\bn[aã]o\b", "no"),
        (r"(^|[^\p{L}])ні\b", "${1}нет"),
    ]
    .into_iter()
    .map(|(p, plain)| {
        (
            Regex::new(&format!("(?i){p}")).expect("idiom patterns compile"),
            plain,
        )
    })
    .collect()
});

/// `text` with its idioms written plainly; borrowed when it has none.
pub fn plain(text: &str) -> Cow<'_, str> {
    let mut out = Cow::Borrowed(text);
    for (idiom, plain) in IDIOMS.iter() {
        if let Cow::Owned(s) = idiom.replace_all(&out, *plain) {
            out = Cow::Owned(s);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::plain;

    #[test]
    fn a_pass_said_with_a_negative_word_is_read_plainly() {
        assert_eq!(
            plain("No problem with the sail switch closing"),
            "fine with the sail switch closing"
        );
        assert_eq!(plain("nothing wrong with the fuse"), "fine with the fuse");
        assert_eq!(plain("ningún problema con el relé"), "bien con el relé");
        assert_eq!(
            plain("по предохранителю проблем нет"),
            "по предохранителю в норме"
        );
        assert_eq!(plain("Não, não entrega nada"), "no, no entrega nada");
        assert_eq!(plain("ні, не крутить"), "нет, не крутить");
        // An acknowledgment and a fault keep their words.
        assert_eq!(
            plain("no problem, checking now"),
            "no problem, checking now"
        );
        assert_eq!(plain("no power at the pump"), "no power at the pump");
    }
}
