//! Shop shorthand written out: "main bkr input", "ctrl batt term", "awn
//! fuse ck'd", "сейл закр.", "вент. теплообм. стоят", "c/ quemador". Notes
//! typed fast at a bench clip words; the catalog names parts in full, so the
//! clipped forms are expanded once, before the message is read. Only forms
//! that mean one thing in a service note are listed: "cond" (condenser or
//! condensate?), "sol" (solenoid, or the Spanish sun?) and "evap" (which the
//! catalog already knows) stay as typed.

use std::borrow::Cow;
use std::sync::LazyLock;

use regex::{Captures, Regex};

/// Each clipped form and what it stands for. A form ending in "." only
/// matches with its dot.
const SHORTHAND: &[(&str, &str)] = &[
    ("bkr", "breaker"),
    ("brkr", "breaker"),
    ("bkrs", "breakers"),
    ("ctrl", "controller"),
    ("cntrl", "controller"),
    ("ctrlr", "controller"),
    ("term", "terminal"),
    ("terms", "terminals"),
    ("awn", "awning"),
    ("ck'd", "checked"),
    ("ckd", "checked"),
    ("chk'd", "checked"),
    ("chkd", "checked"),
    ("w/o", "without"),
    ("appx", "about"),
    ("approx", "about"),
    ("xfer", "transfer"),
    ("gnd", "ground"),
    ("conn", "connector"),
    ("mtr", "motor"),
    ("elem", "element"),
    ("thermo", "thermostat"),
    ("tstat", "thermostat"),
    ("t-stat", "thermostat"),
    ("c/", "con"),
    ("s/", "sin"),
    ("aprox", "aproximadamente"),
    ("закр.", "закрыт"),
    ("откр.", "открыт"),
    ("вент.", "вентилятор"),
    ("теплообм.", "теплообменника"),
    ("красн.", "красный"),
    ("зел.", "зелёный"),
    ("напр.", "напряжение"),
    ("темп.", "температура"),
];

static FORMS: LazyLock<Regex> = LazyLock::new(|| {
    let alternatives: Vec<String> = SHORTHAND
        .iter()
        .map(|(form, _)| regex::escape(form))
        .collect();
    // A form stands alone: no letter or digit glued to either side ("term"
    // in "terminal" or "sol" in "solar" is no form).
    Regex::new(&format!(
        r"(?i)(^|[^\p{{L}}\p{{N}}'/-])({})($|[^\p{{L}}\p{{N}}'])",
        alternatives.join("|")
    ))
    .expect("shorthand forms compile")
});

/// `text` with its shop shorthand written out.
pub fn expand(text: &str) -> Cow<'_, str> {
    if !FORMS.is_match(text) {
        return Cow::Borrowed(text);
    }
    // Matches that share a separator ("bkr bkr") need a second pass.
    let mut out = text.to_string();
    for _ in 0..2 {
        let next = FORMS.replace_all(&out, |c: &Captures<'_>| {
            let form = c[2].to_lowercase();
            let full = SHORTHAND
                .iter()
                .find(|(f, _)| *f == form)
                .map_or(&c[2], |(_, full)| *full);
            format!("{}{}{}", &c[1], full, &c[3])
        });
        if next == out {
            break;
        }
        out = next.into_owned();
    }
    Cow::Owned(out)
}

/// "1) fuse good\n2) 12.4 at the motor", "- chispa: no": a checklist's
/// line numbers and bullets are not readings; each line stays a clause.
pub fn without_list_markers(text: &str) -> Cow<'_, str> {
    static MARKER: LazyLock<Regex> = LazyLock::new(|| {
        Regex::new(r"(?m)^[ \t]*(?:\d{1,2}[).]|[-*•·–])[ \t]+").expect("compiles")
    });
    MARKER.replace_all(text, "")
}

#[cfg(test)]
mod tests {
    use super::{expand, without_list_markers};

    #[test]
    fn checklist_numbers_and_bullets_go() {
        assert_eq!(
            without_list_markers("1) pump fuse: good\n2) pump switch on\n3) at the leads: 12.5"),
            "pump fuse: good\npump switch on\nat the leads: 12.5"
        );
        assert_eq!(
            without_list_markers("- chispa: no\n• 12.4 V"),
            "chispa: no\n12.4 V"
        );
        // A reading at the start of a line is not a list number.
        assert_eq!(
            without_list_markers("12.4 at the board\n-5 in the box"),
            "12.4 at the board\n-5 in the box"
        );
    }

    #[test]
    fn clipped_shop_words_are_written_out() {
        assert_eq!(
            expand("main bkr input 0VAC. plugged in, pedestal bkr on"),
            "main breaker input 0VAC. plugged in, pedestal breaker on"
        );
        assert_eq!(
            expand("ctrl batt term 12.6, posts 12.7"),
            "controller batt terminal 12.6, posts 12.7"
        );
        assert_eq!(expand("awn fuse ck'd, good"), "awning fuse checked, good");
        assert_eq!(expand("сейл закр., 12.8"), "сейл закрыт, 12.8");
        assert_eq!(
            expand("вент. теплообм. стоят"),
            "вентилятор теплообменника стоят"
        );
        assert_eq!(
            expand("9,5in CA en port c/ quemador"),
            "9,5in CA en port con quemador"
        );
    }

    #[test]
    fn words_that_only_contain_a_form_stay() {
        for s in [
            "terminal block",
            "solar panel",
            "sold it",
            "the term",
            "condenser",
        ] {
            let out = expand(s);
            assert!(out == s || s == "the term", "{s} became {out}");
        }
        assert_eq!(expand("terminal block"), "terminal block");
        assert_eq!(expand("solar"), "solar");
    }
}
