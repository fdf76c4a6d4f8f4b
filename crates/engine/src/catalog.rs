//! The procedure catalog: one TOML file per system in `procedures/`, parsed,
//! validated and compiled into the form the engine walks. The format is
//! described in `procedures/README.md`.
//!
//! Invariant: a `Catalog` that exists is valid. Every reference resolves,
//! every step is reachable, every text has en/es/ru, every pattern compiled,
//! and every finding has 2–5 labor lines. Errors name the file and line.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::fmt;
use std::path::Path;
use std::sync::{Arc, LazyLock, OnceLock};

use regex::Regex;
use regex_automata::meta;
use serde::Deserialize;
use toml::Spanned;

use super::units::{Quantity, Unit};

/// The languages every procedure text must carry.
pub const LANGUAGES: [&str; 3] = ["en", "es", "ru"];

include!(concat!(env!("OUT_DIR"), "/embedded_procedures.rs"));

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CatalogError {
    pub file: String,
    pub line: usize,
    pub message: String,
}

impl fmt::Display for CatalogError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}", self.file, self.line, self.message)
    }
}

impl std::error::Error for CatalogError {}

// ---------------------------------------------------------------- file format

type Text = BTreeMap<String, String>;
type PatternsDef = BTreeMap<String, Vec<String>>;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileDef {
    system: Spanned<String>,
    #[serde(default)]
    complex: bool,
    title: Spanned<Text>,
    #[serde(rename = "symptom")]
    symptoms: Vec<SymptomDef>,
    #[serde(rename = "component", default)]
    components: Vec<ComponentDef>,
    #[serde(rename = "step")]
    steps: Vec<StepDef>,
    #[serde(rename = "finding")]
    findings: Vec<FindingDef>,
    #[serde(rename = "evidence", default)]
    evidence: Vec<EvidenceDef>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct SymptomDef {
    id: Spanned<String>,
    start: Spanned<String>,
    patterns: Spanned<PatternsDef>,
    complaint: Spanned<Text>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct ComponentDef {
    id: Spanned<String>,
    names: Spanned<PatternsDef>,
    #[serde(rename = "where")]
    where_: Spanned<Text>,
    what: Spanned<Text>,
    how: Spanned<Text>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StepDef {
    id: Spanned<String>,
    component: Option<Spanned<String>>,
    kind: Spanned<String>,
    unit: Option<Spanned<String>>,
    min: Option<f64>,
    max: Option<f64>,
    /// Optional here so that a step without one is reported by its id.
    label: Option<Spanned<Text>>,
    rated: Option<Spanned<RatedDef>>,
    /// How several readings of this step in one message combine:
    /// `lowest` (the lowest is the answer) or `difference` (two readings,
    /// their difference: a temperature split).
    reading: Option<Spanned<String>>,
    rise: Option<Spanned<RiseDef>>,
    subject: Spanned<PatternsDef>,
    /// Conditions other than the step's own ("1500 rpm" for a static
    /// pressure, "inverter on" for a converter output without battery): a
    /// reading said under them, in the same sentence, does not answer it.
    not_when: Option<Spanned<PatternsDef>>,
    question: Spanned<Text>,
    outcome: Spanned<BTreeMap<String, OutcomeDef>>,
}

/// A yes/no step answered by comparing a reading with the part's own
/// rating ("cap reads 8 µF, rated 35"): `within` is the outcome when the
/// reading is within `tolerance` percent of the rating, `outside` otherwise.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RatedDef {
    unit: String,
    tolerance: f64,
    within: String,
    outside: String,
}

/// A yes/no step answered by how far a reading rose between two readings
/// ("1 L went 18 °C to 33 °C in 60 s"): `yes` at `at_least` (in `unit`)
/// or more, `no` below.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RiseDef {
    unit: String,
    at_least: f64,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct OutcomeDef {
    next: Option<Spanned<String>>,
    finding: Option<Spanned<String>>,
    #[serde(default)]
    signal: bool,
    signal_next: Option<Spanned<String>>,
    fact: Option<String>,
    #[serde(default)]
    words: PatternsDef,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FindingDef {
    id: Spanned<String>,
    component: Option<Spanned<String>>,
    cause: Spanned<Text>,
    correction: Spanned<Text>,
    parts: Spanned<BTreeMap<String, Vec<String>>>,
    #[serde(default)]
    repair: PatternsDef,
    #[serde(default)]
    found: PatternsDef,
    labor: Spanned<Vec<LaborDef>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LaborDef {
    hours: Spanned<String>,
    task: Spanned<Text>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EvidenceDef {
    id: Spanned<String>,
    finding: Option<Spanned<String>>,
    next: Option<Spanned<String>>,
    patterns: Spanned<PatternsDef>,
}

// ---------------------------------------------------------------- compiled form

/// One text in every catalog language.
#[derive(Debug, Clone)]
pub struct Localized(BTreeMap<String, String>);

impl Localized {
    /// The same text in every catalog language (the technician's own words).
    pub fn uniform(text: &str) -> Localized {
        Localized(
            ["en", "es", "ru"]
                .iter()
                .map(|l| (l.to_string(), text.to_string()))
                .collect(),
        )
    }

    /// The text in every language it has.
    pub fn all(&self) -> impl Iterator<Item = &str> {
        self.0.values().map(String::as_str)
    }

    /// The text in `lang`, falling back to English.
    pub fn get(&self, lang: &str) -> &str {
        self.0
            .get(lang)
            .or_else(|| self.0.get("en"))
            .map(String::as_str)
            .unwrap_or("")
    }
}

/// A group of patterns from all languages, compiled into one case-insensitive
/// regex: technicians mix languages in one message.
///
/// The syntax is checked when the catalog loads (in full for a catalog from
/// files; parsed only for the embedded one, whose full check is the test
/// `the_embedded_catalog_is_valid`); the automaton is built on first use.
/// Building every pattern of every procedure up front took most of a second,
/// paid by every command even when it never chats.
#[derive(Debug, Clone)]
pub struct Patterns(Option<LazyRegex>);

#[derive(Debug, Clone)]
struct LazyRegex {
    source: String,
    compiled: OnceLock<meta::Regex>,
    /// Each alternative on its own, built when the group first matches: the
    /// group's leftmost-first search stops at the first alternative that
    /// matches at a position, which hides a longer one written after it
    /// ("solar" before "el solar no carga las baterías").
    alternatives: Vec<Alternative>,
}

#[derive(Debug, Clone)]
struct Alternative {
    source: String,
    compiled: OnceLock<meta::Regex>,
}

const CHECKED: &str = "checked in full when the catalog loaded, or for the embedded catalog by \
                       the_embedded_catalog_is_valid";

impl LazyRegex {
    /// `alternatives` as written (already narrowed); the group is their union.
    fn new(alternatives: Vec<String>) -> LazyRegex {
        LazyRegex {
            source: format!("(?:{})", alternatives.join(")|(?:")),
            compiled: OnceLock::new(),
            alternatives: alternatives
                .into_iter()
                .map(|source| Alternative {
                    source,
                    compiled: OnceLock::new(),
                })
                .collect(),
        }
    }

    fn get(&self) -> &meta::Regex {
        self.compiled
            .get_or_init(|| super::pattern_classes::build_group(&self.source).expect(CHECKED))
    }

    /// Every match of every alternative, each alternative searched on its
    /// own (only when the group matches at all, which most groups do not).
    fn each_match<'a>(&'a self, text: &'a str) -> impl Iterator<Item = (usize, usize)> + 'a {
        let single = self.alternatives.len() == 1;
        let searched: &[Alternative] = if self.get().is_match(text) {
            &self.alternatives
        } else {
            &[]
        };
        searched.iter().flat_map(move |alt| {
            let re = if single {
                self.get()
            } else {
                alt.compiled.get_or_init(|| {
                    super::pattern_classes::build_group(&alt.source).expect(CHECKED)
                })
            };
            re.find_iter(text).map(|m| (m.start(), m.end()))
        })
    }
}

impl Patterns {
    pub fn is_match(&self, text: &str) -> bool {
        self.0.as_ref().is_some_and(|r| r.get().is_match(text))
    }

    /// Length of the longest match of any one pattern, for ranking
    /// competing outcomes.
    pub fn longest_match(&self, text: &str) -> Option<usize> {
        self.longest_span(text)
            .map(|(a, b)| text[a..b].chars().count())
    }

    /// Where the first match starts.
    pub fn first_at(&self, text: &str) -> Option<usize> {
        self.0.as_ref()?.get().find(text).map(|m| m.start())
    }

    /// The byte range of the longest match of any one pattern (the first of
    /// equal length).
    pub fn longest_span(&self, text: &str) -> Option<(usize, usize)> {
        self.0
            .as_ref()?
            .each_match(text)
            .max_by_key(|&(a, b)| (text[a..b].chars().count(), std::cmp::Reverse(a)))
    }

    /// One group matching what any of `groups` matches.
    pub fn union<'a>(groups: impl IntoIterator<Item = &'a Patterns>) -> Patterns {
        let alternatives: Vec<String> = groups
            .into_iter()
            .filter_map(|g| g.0.as_ref())
            .flat_map(|r| r.alternatives.iter().map(|a| a.source.clone()))
            .collect();
        if alternatives.is_empty() {
            return Patterns(None);
        }
        Patterns(Some(LazyRegex::new(alternatives)))
    }

    /// The byte ranges of every match, leftmost first.
    pub fn spans(&self, text: &str) -> Vec<(usize, usize)> {
        self.0.as_ref().map_or_else(Vec::new, |r| {
            r.get()
                .find_iter(text)
                .map(|m| (m.start(), m.end()))
                .collect()
        })
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_none()
    }

    /// Build the automaton now. After a full check the only error left is a
    /// group too large to compile; after a parse only, also what translation
    /// rejects (an unknown `\p{..}` class, say).
    fn build(&self) -> Result<(), Box<meta::BuildError>> {
        if let Some(r) = &self.0 {
            if r.compiled.get().is_none() {
                let _ = r
                    .compiled
                    .set(super::pattern_classes::build_group(&r.source)?);
            }
        }
        Ok(())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    Step(usize),
    Finding(usize),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepKind {
    YesNo,
    Measurement,
}

#[derive(Debug, Clone)]
pub struct Outcome {
    pub name: String,
    pub target: Target,
    pub signal: bool,
    /// Where a signal sends the walk (defaults to `target`).
    pub signal_target: Target,
    pub fact: Option<String>,
    pub words: Patterns,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadingMode {
    /// "122 at rest, 114 on start": the step asks for the lowest.
    Lowest,
    /// "return 26C, louver 15C": the step asks for the difference.
    Difference,
}

#[derive(Debug, Clone)]
pub struct Rated {
    pub unit: Unit,
    /// Percent either side of the rating.
    pub tolerance: f64,
    pub within: String,
    pub outside: String,
}

/// A yes/no step's threshold on the rise between two readings.
#[derive(Debug, Clone, Copy)]
pub struct Rise {
    pub unit: Unit,
    pub at_least: f64,
}

impl Rise {
    /// `yes` when the rise reaches the threshold, `no` below it.
    pub fn judge(&self, rise: f64) -> &'static str {
        if rise + 1e-9 >= self.at_least {
            "yes"
        } else {
            "no"
        }
    }
}

impl Rated {
    /// The outcome a reading gives against a rating.
    pub fn judge(&self, reading: f64, rating: f64) -> &str {
        if rating > 0.0 && (reading - rating).abs() <= rating * self.tolerance / 100.0 + 1e-9 {
            &self.within
        } else {
            &self.outside
        }
    }
}

#[derive(Debug, Clone)]
pub struct Step {
    pub id: String,
    /// Answered by comparing a reading with the part's rating.
    pub rated: Option<Rated>,
    /// How several readings in one message combine.
    pub reading: Option<ReadingMode>,
    /// Answered by the rise between two readings.
    pub rise: Option<Rise>,
    pub component: Option<usize>,
    pub kind: StepKind,
    pub unit: Option<Unit>,
    pub min: f64,
    pub max: f64,
    /// A short name for what the step checks ("panel fuse", "voltage at the
    /// motor terminals"), used mid-sentence: lowercase, no period.
    pub label: Localized,
    pub subject: Patterns,
    /// Conditions other than the step's own: a sentence that states one
    /// answers some other check, not this one.
    pub not_when: Patterns,
    pub question: Localized,
    pub outcomes: Vec<Outcome>,
}

impl Step {
    pub fn outcome(&self, name: &str) -> Option<&Outcome> {
        self.outcomes.iter().find(|o| o.name == name)
    }

    /// A reading in the step's unit. A step that asks for a difference
    /// reads a stated split as an interval: "a 5 °C split" is 9 °F of
    /// split, not 41 °F.
    pub fn value_of(&self, q: &Quantity) -> Option<f64> {
        let unit = self.unit?;
        if self.reading == Some(ReadingMode::Difference) {
            match (q.unit, unit) {
                (Unit::Celsius, Unit::Fahrenheit) => return Some(q.value * 1.8),
                (Unit::Fahrenheit, Unit::Celsius) => return Some(q.value / 1.8),
                _ => {}
            }
        }
        q.convert_to(unit)
    }

    /// The outcome a measurement falls in (`low` / `ok` / `high`).
    pub fn classify(&self, q: &Quantity) -> Option<&Outcome> {
        let value = self.value_of(q)?;
        let name = self.judge(value);
        // "4 grados" may be either scale: an answer only where both agree.
        if q.unit == Unit::DegreesEitherScale {
            let other = match self.unit? {
                Unit::Fahrenheit => Quantity {
                    value: q.value,
                    unit: Unit::Celsius,
                },
                Unit::Celsius => Quantity {
                    value: q.value,
                    unit: Unit::Fahrenheit,
                },
                _ => return None,
            };
            if self.judge(self.value_of(&other)?) != name {
                return None;
            }
        }
        self.outcome(name).or_else(|| self.outcome("ok"))
    }

    fn judge(&self, value: f64) -> &'static str {
        if value < self.min {
            "low"
        } else if value > self.max {
            "high"
        } else {
            "ok"
        }
    }

    pub fn spec_text(&self) -> Option<String> {
        let unit = self.unit?;
        Some(format!(
            "{}–{} {}",
            fmt_num(self.min),
            fmt_num(self.max),
            unit.symbol()
        ))
    }
}

pub fn fmt_num(v: f64) -> String {
    let s = format!("{v:.2}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

#[derive(Debug, Clone)]
pub struct Component {
    pub id: String,
    pub names: Patterns,
    pub where_: Localized,
    pub what: Localized,
    pub how: Localized,
}

#[derive(Debug, Clone)]
pub struct LaborLine {
    /// Tenths of an hour: labor is billed in 0.1 hr and must sum exactly.
    pub tenths: u32,
    pub task: Localized,
}

#[derive(Debug, Clone)]
pub struct Finding {
    pub id: String,
    pub component: Option<usize>,
    pub cause: Localized,
    pub correction: Localized,
    pub parts: BTreeMap<String, Vec<String>>,
    pub repair: Patterns,
    /// The words a technician uses to state this fault as found, with no
    /// repair yet ("condenser coil plugged solid with cottonwood"): such a
    /// statement isolates the finding.
    pub found: Patterns,
    pub labor: Vec<LaborLine>,
}

impl Finding {
    pub fn parts(&self, lang: &str) -> &[String] {
        self.parts
            .get(lang)
            .or_else(|| self.parts.get("en"))
            .map(Vec::as_slice)
            .unwrap_or(&[])
    }

    pub fn labor_tenths(&self) -> u32 {
        self.labor.iter().map(|l| l.tenths).sum()
    }

    /// The id of a cause the technician stated in their own words, which
    /// no catalog finding matches.
    pub const STATED: &'static str = "technician_stated";

    /// A cause the technician stated that the catalog does not have: the
    /// report carries their own words for Cause and Correction, in every
    /// language, with no labor lines or parts of the catalog's.
    pub fn stated(cause: &str, correction: &str) -> Finding {
        Finding {
            id: Self::STATED.to_string(),
            component: None,
            cause: Localized::uniform(cause),
            correction: Localized::uniform(correction),
            parts: ["en", "es", "ru"]
                .iter()
                .map(|l| {
                    let parts = super::lexicon::phrases(l).stated_parts;
                    (l.to_string(), vec![parts.to_string()])
                })
                .collect(),
            repair: Patterns(None),
            found: Patterns(None),
            labor: Vec::new(),
        }
    }
}

#[derive(Debug, Clone)]
pub struct Symptom {
    pub id: String,
    pub start: usize,
    pub patterns: Patterns,
    pub complaint: Localized,
}

#[derive(Debug, Clone)]
pub struct Evidence {
    pub id: String,
    pub target: Target,
    pub patterns: Patterns,
}

#[derive(Debug, Clone)]
pub struct Procedure {
    pub system: String,
    pub file: String,
    pub complex: bool,
    pub title: Localized,
    pub symptoms: Vec<Symptom>,
    pub components: Vec<Component>,
    pub steps: Vec<Step>,
    pub findings: Vec<Finding>,
    pub evidence: Vec<Evidence>,
    /// The names of every part in the catalog, this procedure's and the
    /// others' ("the battery", "the converter" while the fridge is
    /// diagnosed).
    pub catalog_parts: Arc<Patterns>,
}

impl Procedure {
    pub fn step_index(&self, id: &str) -> Option<usize> {
        self.steps.iter().position(|s| s.id == id)
    }

    pub fn step(&self, id: &str) -> Option<&Step> {
        self.steps.iter().find(|s| s.id == id)
    }

    pub fn finding(&self, id: &str) -> Option<&Finding> {
        self.findings.iter().find(|f| f.id == id)
    }

    /// The steps a walk from `start` can reach (through outcomes and
    /// signals): what a complaint that starts there can be asked about.
    pub fn reachable_from(&self, start: usize) -> Vec<bool> {
        let mut seen = vec![false; self.steps.len()];
        let mut stack = vec![start];
        while let Some(i) = stack.pop() {
            if i >= seen.len() || seen[i] {
                continue;
            }
            seen[i] = true;
            for o in &self.steps[i].outcomes {
                for t in [o.target, o.signal_target] {
                    if let Target::Step(n) = t {
                        stack.push(n);
                    }
                }
            }
        }
        seen
    }

    pub fn finding_index(&self, id: &str) -> Option<usize> {
        self.findings.iter().position(|f| f.id == id)
    }
}

#[derive(Debug, Clone)]
pub struct Catalog {
    pub procedures: Vec<Procedure>,
}

impl Catalog {
    /// The catalog compiled into the binary from `procedures/` at build time.
    ///
    /// Its patterns are only parsed when it loads, not translated: the
    /// translation (Unicode case folding of every group) was most of the time
    /// a CLI command or the app's launch spent before doing anything, and the
    /// same text is checked in full by `the_embedded_catalog_is_valid`.
    pub fn embedded() -> Result<Catalog, CatalogError> {
        Catalog::compile_sources(embedded_sources(), SyntaxCheck::Parse)
    }

    /// The embedded catalog, compiled once per process and shared: compiling
    /// every procedure's patterns costs far more than anything a turn does,
    /// and the embedded sources cannot change while the process runs.
    pub fn embedded_shared() -> Result<Arc<Catalog>, CatalogError> {
        static EMBEDDED: LazyLock<Result<Arc<Catalog>, CatalogError>> =
            LazyLock::new(|| Catalog::embedded().map(Arc::new));
        EMBEDDED.clone()
    }

    /// Every `*.toml` in `dir` (for authoring procedures without a rebuild).
    pub fn from_dir(dir: &Path) -> Result<Catalog, CatalogError> {
        let err = |message: String| CatalogError {
            file: dir.display().to_string(),
            line: 0,
            message,
        };
        let mut files: Vec<_> = std::fs::read_dir(dir)
            .map_err(|e| err(format!("cannot read the procedures directory: {e}")))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "toml"))
            .collect();
        files.sort();
        let mut sources = Vec::new();
        for path in files {
            let text = std::fs::read_to_string(&path).map_err(|e| CatalogError {
                file: path.display().to_string(),
                line: 0,
                message: format!("cannot read: {e}"),
            })?;
            sources.push((
                path.file_name().unwrap().to_string_lossy().into_owned(),
                text,
            ));
        }
        let catalog = Catalog::from_sources(sources.iter().map(|(n, t)| (n.clone(), t.as_str())))?;
        catalog.build_all()?;
        Ok(catalog)
    }

    pub fn from_sources<'a>(
        sources: impl IntoIterator<Item = (String, &'a str)>,
    ) -> Result<Catalog, CatalogError> {
        Catalog::compile_sources(sources, SyntaxCheck::Full)
    }

    fn compile_sources<'a>(
        sources: impl IntoIterator<Item = (String, &'a str)>,
        check: SyntaxCheck,
    ) -> Result<Catalog, CatalogError> {
        let mut procedures = Vec::new();
        let mut seen: HashMap<String, String> = HashMap::new();
        for (file, text) in sources {
            let p = compile(&file, text, check)?;
            if let Some(other) = seen.insert(p.system.clone(), file.clone()) {
                return Err(CatalogError {
                    file,
                    line: 1,
                    message: format!("system `{}` is already defined in {other}", p.system),
                });
            }
            procedures.push(p);
        }
        if procedures.is_empty() {
            return Err(CatalogError {
                file: "procedures".into(),
                line: 0,
                message: "no procedure files".into(),
            });
        }
        // One automaton for the whole catalog, built once on first use and
        // shared by every procedure.
        let parts = Arc::new(Patterns::union(
            procedures
                .iter()
                .flat_map(|p| p.components.iter().map(|c| &c.names)),
        ));
        for p in &mut procedures {
            p.catalog_parts = Arc::clone(&parts);
        }
        Ok(Catalog { procedures })
    }

    pub fn get(&self, system: &str) -> Option<&Procedure> {
        self.procedures.iter().find(|p| p.system == system)
    }

    /// Build every pattern's automaton now, so that a catalog being checked
    /// (or authored from a directory) reports a group that does not build
    /// (too large, or for the embedded catalog anything its load's parse let
    /// through) as an error with its file, instead of failing mid-conversation.
    pub fn build_all(&self) -> Result<(), CatalogError> {
        for p in &self.procedures {
            for (what, patterns) in p.pattern_groups() {
                patterns.build().map_err(|e| CatalogError {
                    file: p.file.clone(),
                    line: 0,
                    message: format!("{what}: patterns do not compile: {e}"),
                })?;
            }
        }
        Ok(())
    }
}

impl Procedure {
    /// Every pattern group of the procedure, named as an author would look
    /// for it in the file.
    fn pattern_groups(&self) -> impl Iterator<Item = (String, &Patterns)> {
        self.symptoms
            .iter()
            .map(|s| (format!("symptom `{}`", s.id), &s.patterns))
            .chain(
                self.components
                    .iter()
                    .map(|c| (format!("component `{}`", c.id), &c.names)),
            )
            .chain(self.steps.iter().flat_map(|st| {
                std::iter::once((format!("step `{}` subject", st.id), &st.subject)).chain(
                    st.outcomes.iter().map(move |o| {
                        (
                            format!("step `{}` outcome `{}` words", st.id, o.name),
                            &o.words,
                        )
                    }),
                )
            }))
            .chain(self.findings.iter().flat_map(|f| {
                [
                    (format!("finding `{}` repair", f.id), &f.repair),
                    (format!("finding `{}` found", f.id), &f.found),
                ]
            }))
            .chain(
                self.evidence
                    .iter()
                    .map(|e| (format!("evidence `{}`", e.id), &e.patterns)),
            )
    }
}

// ---------------------------------------------------------------- compilation

/// The procedure files compiled into the binary, as (file name, text).
fn embedded_sources() -> impl Iterator<Item = (String, &'static str)> {
    EMBEDDED_PROCEDURES.iter().map(|(n, t)| (n.to_string(), *t))
}

/// How far a pattern group's syntax is checked when the catalog loads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum SyntaxCheck {
    /// Parsed and translated: everything `Regex::new` would reject but the
    /// automaton's size, reported at the pattern's line.
    Full,
    /// Parsed only, for a catalog whose text the tests check in full.
    Parse,
}

struct Ctx<'a> {
    file: &'a str,
    text: &'a str,
    check: SyntaxCheck,
}

impl Ctx<'_> {
    fn line(&self, offset: usize) -> usize {
        self.text[..offset.min(self.text.len())]
            .matches('\n')
            .count()
            + 1
    }

    fn err<T>(
        &self,
        span: std::ops::Range<usize>,
        message: impl Into<String>,
    ) -> Result<T, CatalogError> {
        Err(CatalogError {
            file: self.file.to_string(),
            line: self.line(span.start),
            message: message.into(),
        })
    }

    fn localized(&self, t: &Spanned<Text>, what: &str) -> Result<Localized, CatalogError> {
        for lang in LANGUAGES {
            match t.get_ref().get(lang) {
                Some(s) if !s.trim().is_empty() => {}
                _ => {
                    return self.err(
                        t.span(),
                        format!("{what}: missing the `{lang}` translation"),
                    )
                }
            }
        }
        Ok(Localized(t.get_ref().clone()))
    }

    /// The English texts of a report (cause, correction, parts, labor) state
    /// findings neutrally: a blame word gets warranty claims rejected.
    fn warranty_safe(
        &self,
        text: &str,
        span: std::ops::Range<usize>,
        what: &str,
    ) -> Result<(), CatalogError> {
        static BLAME: LazyLock<Regex> = LazyLock::new(|| {
            Regex::new(r"(?i)\b(broken|failed|defective|bad|damaged|worn|misadjusted|leaking)\b")
                .expect("compiles")
        });
        match BLAME.find(text) {
            Some(m) => self.err(
                span,
                format!(
                    "{what} (en): `{}` is not warranty-safe wording; state the finding neutrally (\"not operating per specification\", \"no output at ...\")",
                    m.as_str()
                ),
            ),
            None => Ok(()),
        }
    }

    fn patterns(
        &self,
        p: &PatternsDef,
        span: std::ops::Range<usize>,
        what: &str,
        required: bool,
    ) -> Result<Patterns, CatalogError> {
        if required {
            for lang in LANGUAGES {
                if p.get(lang).is_none_or(|v| v.is_empty()) {
                    return self.err(span, format!("{what}: no `{lang}` patterns"));
                }
            }
        }
        let mut alternatives = Vec::new();
        for (lang, list) in p {
            if !LANGUAGES.contains(&lang.as_str()) {
                return self.err(span, format!("{what}: unknown language `{lang}`"));
            }
            alternatives.extend(list.iter().map(String::as_str));
        }
        if alternatives.is_empty() {
            return Ok(Patterns(None));
        }
        // Word and digit classes as the catalog's languages need them: the
        // Unicode ones cost most of the catalog's memory (pattern_classes).
        let joined =
            super::pattern_classes::narrow(&format!("(?i)(?:{})", alternatives.join(")|(?:")));
        let checked = match self.check {
            SyntaxCheck::Full => regex_syntax::Parser::new().parse(&joined).map(drop),
            SyntaxCheck::Parse => regex_syntax::ast::parse::Parser::new()
                .parse(&joined)
                .map(drop)
                .map_err(regex_syntax::Error::from),
        };
        match checked {
            Ok(()) => Ok(Patterns(Some(LazyRegex::new(
                alternatives
                    .iter()
                    .map(|a| super::pattern_classes::narrow(&format!("(?i){a}")))
                    .collect(),
            )))),
            Err(joined_err) => {
                let culprit = alternatives.iter().find_map(|pat| {
                    regex_syntax::Parser::new()
                        .parse(pat)
                        .err()
                        .map(|e| format!("{what}: pattern {pat:?} does not compile: {e}"))
                });
                self.err(
                    span,
                    culprit.unwrap_or_else(|| {
                        format!("{what}: patterns do not compile together: {joined_err}")
                    }),
                )
            }
        }
    }
}

fn compile(file: &str, text: &str, check: SyntaxCheck) -> Result<Procedure, CatalogError> {
    let ctx = Ctx { file, text, check };
    let def: FileDef = toml::from_str(text).map_err(|e| CatalogError {
        file: file.to_string(),
        line: e.span().map(|s| ctx.line(s.start)).unwrap_or(0),
        message: e.message().to_string(),
    })?;
    let system = def.system.get_ref().clone();
    let stem = file.trim_end_matches(".toml");
    if stem != system {
        return ctx.err(
            def.system.span(),
            format!("system `{system}` must be in a file named {system}.toml"),
        );
    }

    // Ids first, so references can be resolved in any order.
    let mut component_ids = HashMap::new();
    for (i, c) in def.components.iter().enumerate() {
        if component_ids.insert(c.id.get_ref().clone(), i).is_some() {
            return ctx.err(
                c.id.span(),
                format!("duplicate component id `{}`", c.id.get_ref()),
            );
        }
    }
    let mut step_ids = HashMap::new();
    for (i, s) in def.steps.iter().enumerate() {
        if step_ids.insert(s.id.get_ref().clone(), i).is_some() {
            return ctx.err(
                s.id.span(),
                format!("duplicate step id `{}`", s.id.get_ref()),
            );
        }
    }
    let mut finding_ids = HashMap::new();
    for (i, f) in def.findings.iter().enumerate() {
        if finding_ids.insert(f.id.get_ref().clone(), i).is_some() {
            return ctx.err(
                f.id.span(),
                format!("duplicate finding id `{}`", f.id.get_ref()),
            );
        }
    }
    let step_ref = |s: &Spanned<String>| -> Result<usize, CatalogError> {
        step_ids.get(s.get_ref()).copied().map_or_else(
            || ctx.err(s.span(), format!("unknown step `{}`", s.get_ref())),
            Ok,
        )
    };
    let finding_ref = |s: &Spanned<String>| -> Result<usize, CatalogError> {
        finding_ids.get(s.get_ref()).copied().map_or_else(
            || ctx.err(s.span(), format!("unknown finding `{}`", s.get_ref())),
            Ok,
        )
    };
    let component_ref = |s: &Option<Spanned<String>>| -> Result<Option<usize>, CatalogError> {
        match s {
            None => Ok(None),
            Some(s) => component_ids
                .get(s.get_ref())
                .copied()
                .map(Some)
                .map_or_else(
                    || ctx.err(s.span(), format!("unknown component `{}`", s.get_ref())),
                    Ok,
                ),
        }
    };
    let target = |next: &Option<Spanned<String>>,
                  finding: &Option<Spanned<String>>,
                  span: std::ops::Range<usize>,
                  what: &str|
     -> Result<Target, CatalogError> {
        match (next, finding) {
            (Some(n), None) => Ok(Target::Step(step_ref(n)?)),
            (None, Some(f)) => Ok(Target::Finding(finding_ref(f)?)),
            _ => ctx.err(
                span,
                format!("{what}: give exactly one of `next` (a step) or `finding`"),
            ),
        }
    };

    let title = ctx.localized(&def.title, "title")?;
    if def.symptoms.is_empty() {
        return ctx.err(0..0, "no [[symptom]]: nothing would start this procedure");
    }
    let mut symptoms = Vec::new();
    for s in &def.symptoms {
        symptoms.push(Symptom {
            id: s.id.get_ref().clone(),
            start: step_ref(&s.start)?,
            patterns: ctx.patterns(
                s.patterns.get_ref(),
                s.patterns.span(),
                &format!("symptom `{}`", s.id.get_ref()),
                true,
            )?,
            complaint: ctx.localized(
                &s.complaint,
                &format!("symptom `{}` complaint", s.id.get_ref()),
            )?,
        });
    }
    let mut components = Vec::new();
    for c in &def.components {
        let what = format!("component `{}`", c.id.get_ref());
        components.push(Component {
            id: c.id.get_ref().clone(),
            names: ctx.patterns(c.names.get_ref(), c.names.span(), &what, true)?,
            where_: ctx.localized(&c.where_, &format!("{what} where"))?,
            what: ctx.localized(&c.what, &format!("{what} what"))?,
            how: ctx.localized(&c.how, &format!("{what} how"))?,
        });
    }
    let mut steps = Vec::new();
    for s in &def.steps {
        let id = s.id.get_ref().clone();
        let what = format!("step `{id}`");
        let kind = match s.kind.get_ref().as_str() {
            "yes_no" => StepKind::YesNo,
            "measurement" => StepKind::Measurement,
            other => {
                return ctx.err(
                    s.kind.span(),
                    format!("{what}: kind `{other}` is not yes_no or measurement"),
                )
            }
        };
        let required: &[&str] = match kind {
            StepKind::YesNo => &["yes", "no"],
            StepKind::Measurement => &["ok", "low"],
        };
        let allowed: &[&str] = match kind {
            StepKind::YesNo => &["yes", "no"],
            StepKind::Measurement => &["ok", "low", "high"],
        };
        for r in required {
            if !s.outcome.get_ref().contains_key(*r) {
                return ctx.err(s.outcome.span(), format!("{what}: missing outcome `{r}`"));
            }
        }
        let (unit, min, max) = match kind {
            StepKind::YesNo => (None, 0.0, 0.0),
            StepKind::Measurement => {
                let Some(u) = &s.unit else {
                    return ctx.err(s.id.span(), format!("{what}: a measurement needs `unit`"));
                };
                let Some(unit) = Unit::parse(u.get_ref()) else {
                    return ctx.err(u.span(), format!("{what}: unknown unit `{}`", u.get_ref()));
                };
                let (Some(min), Some(max)) = (s.min, s.max) else {
                    return ctx.err(
                        s.id.span(),
                        format!("{what}: a measurement needs `min` and `max` (the in-spec range)"),
                    );
                };
                if min > max {
                    return ctx.err(s.id.span(), format!("{what}: min {min} is above max {max}"));
                }
                (Some(unit), min, max)
            }
        };
        let Some(label) = &s.label else {
            return ctx.err(
                s.id.span(),
                format!("{what}: missing `label` (a short name for what the step checks, in en, es and ru)"),
            );
        };
        let label = ctx.localized(label, &format!("{what} label"))?;
        let rated = match &s.rated {
            None => None,
            Some(r) => {
                let d = r.get_ref();
                let Some(unit) = Unit::parse(&d.unit) else {
                    return ctx.err(
                        r.span(),
                        format!("{what}: rated: unknown unit `{}`", d.unit),
                    );
                };
                for o in [&d.within, &d.outside] {
                    if !s.outcome.get_ref().contains_key(o) {
                        return ctx.err(r.span(), format!("{what}: rated: no outcome `{o}`"));
                    }
                }
                if !(d.tolerance > 0.0 && d.tolerance < 100.0) {
                    return ctx.err(
                        r.span(),
                        format!(
                            "{what}: rated: tolerance {} is not a percentage above 0",
                            d.tolerance
                        ),
                    );
                }
                Some(Rated {
                    unit,
                    tolerance: d.tolerance,
                    within: d.within.clone(),
                    outside: d.outside.clone(),
                })
            }
        };
        let reading = match &s.reading {
            None => None,
            Some(r) => match (r.get_ref().as_str(), kind) {
                ("lowest", StepKind::Measurement) => Some(ReadingMode::Lowest),
                ("difference", StepKind::Measurement) => Some(ReadingMode::Difference),
                (other, _) => {
                    return ctx.err(
                        r.span(),
                        format!("{what}: reading `{other}` is not `lowest` or `difference` (measurement steps only)"),
                    )
                }
            },
        };
        let rise = match &s.rise {
            None => None,
            Some(r) => {
                let d = r.get_ref();
                let Some(unit) = Unit::parse(&d.unit) else {
                    return ctx.err(r.span(), format!("{what}: rise: unknown unit `{}`", d.unit));
                };
                if kind != StepKind::YesNo || d.at_least.is_nan() || d.at_least <= 0.0 {
                    return ctx.err(
                        r.span(),
                        format!("{what}: rise needs a yes_no step and `at_least` above 0"),
                    );
                }
                Some(Rise {
                    unit,
                    at_least: d.at_least,
                })
            }
        };
        let mut outcomes = Vec::new();
        for (name, o) in s.outcome.get_ref() {
            if !allowed.contains(&name.as_str()) {
                return ctx.err(
                    s.outcome.span(),
                    format!("{what}: outcome `{name}` is not one of {allowed:?}"),
                );
            }
            let ow = format!("{what} outcome `{name}`");
            let t = target(&o.next, &o.finding, s.outcome.span(), &ow)?;
            let signal_target = match &o.signal_next {
                Some(n) => Target::Step(step_ref(n)?),
                None => t,
            };
            outcomes.push(Outcome {
                name: name.clone(),
                target: t,
                signal: o.signal,
                signal_target,
                fact: o.fact.clone(),
                words: ctx.patterns(&o.words, s.outcome.span(), &ow, false)?,
            });
        }
        steps.push(Step {
            id,
            rated,
            reading,
            rise,
            component: component_ref(&s.component)?,
            kind,
            unit,
            min,
            max,
            label,
            subject: ctx.patterns(s.subject.get_ref(), s.subject.span(), &what, true)?,
            not_when: match &s.not_when {
                Some(w) => {
                    ctx.patterns(w.get_ref(), w.span(), &format!("{what} not_when"), false)?
                }
                None => Patterns(None),
            },
            question: ctx.localized(&s.question, &format!("{what} question"))?,
            outcomes,
        });
    }
    let mut findings = Vec::new();
    for f in &def.findings {
        let what = format!("finding `{}`", f.id.get_ref());
        let lines = f.labor.get_ref();
        if !(2..=5).contains(&lines.len()) {
            return ctx.err(
                f.labor.span(),
                format!(
                    "{what}: labor needs 2 to 5 task lines, found {}",
                    lines.len()
                ),
            );
        }
        let mut labor = Vec::new();
        for l in lines {
            let Some(tenths) = parse_tenths(l.hours.get_ref()) else {
                return ctx.err(l.hours.span(), format!("{what}: labor hours {:?} must be like \"0.5\" (tenths of an hour, above 0)", l.hours.get_ref()));
            };
            labor.push(LaborLine {
                tenths,
                task: ctx.localized(&l.task, &format!("{what} labor task"))?,
            });
        }
        for lang in LANGUAGES {
            if f.parts.get_ref().get(lang).is_none_or(|v| v.is_empty()) {
                return ctx.err(
                    f.parts.span(),
                    format!("{what} parts: missing the `{lang}` translation"),
                );
            }
        }
        let en = |t: &Spanned<Text>| t.get_ref().get("en").cloned().unwrap_or_default();
        ctx.warranty_safe(&en(&f.cause), f.cause.span(), &format!("{what} cause"))?;
        ctx.warranty_safe(
            &en(&f.correction),
            f.correction.span(),
            &format!("{what} correction"),
        )?;
        for part in f.parts.get_ref().get("en").into_iter().flatten() {
            ctx.warranty_safe(part, f.parts.span(), &format!("{what} parts"))?;
        }
        for l in lines {
            ctx.warranty_safe(&en(&l.task), l.task.span(), &format!("{what} labor task"))?;
        }
        findings.push(Finding {
            id: f.id.get_ref().clone(),
            component: component_ref(&f.component)?,
            cause: ctx.localized(&f.cause, &format!("{what} cause"))?,
            correction: ctx.localized(&f.correction, &format!("{what} correction"))?,
            parts: f.parts.get_ref().clone(),
            repair: ctx.patterns(&f.repair, f.id.span(), &format!("{what} repair"), false)?,
            found: ctx.patterns(&f.found, f.id.span(), &format!("{what} found"), false)?,
            labor,
        });
    }
    let mut evidence = Vec::new();
    for e in &def.evidence {
        let what = format!("evidence `{}`", e.id.get_ref());
        evidence.push(Evidence {
            id: e.id.get_ref().clone(),
            target: target(&e.next, &e.finding, e.id.span(), &what)?,
            patterns: ctx.patterns(e.patterns.get_ref(), e.patterns.span(), &what, true)?,
        });
    }

    // Reachability: from symptom starts, signal targets and evidence.
    let mut reached: HashSet<usize> = HashSet::new();
    let mut found: HashSet<usize> = HashSet::new();
    let mut todo: Vec<Target> = symptoms.iter().map(|s| Target::Step(s.start)).collect();
    todo.extend(evidence.iter().map(|e| e.target));
    while let Some(t) = todo.pop() {
        match t {
            Target::Finding(f) => {
                found.insert(f);
            }
            Target::Step(s) => {
                if reached.insert(s) {
                    for o in &steps[s].outcomes {
                        todo.push(o.target);
                        todo.push(o.signal_target);
                    }
                }
            }
        }
    }
    for (i, s) in def.steps.iter().enumerate() {
        if !reached.contains(&i) {
            return ctx.err(
                s.id.span(),
                format!("step `{}` is unreachable from any symptom", s.id.get_ref()),
            );
        }
    }
    for (i, f) in def.findings.iter().enumerate() {
        if !found.contains(&i) {
            return ctx.err(
                f.id.span(),
                format!(
                    "finding `{}` is unreachable: no step or evidence leads to it",
                    f.id.get_ref()
                ),
            );
        }
    }

    Ok(Procedure {
        system,
        file: file.to_string(),
        complex: def.complex,
        title,
        symptoms,
        components,
        steps,
        findings,
        evidence,
        catalog_parts: Arc::new(Patterns(None)),
    })
}

/// "1.5" → 15. Labor is kept in tenths so totals are exact.
pub fn parse_tenths(s: &str) -> Option<u32> {
    let s = s.trim();
    let (whole, frac) = s.split_once('.').unwrap_or((s, "0"));
    if whole.is_empty()
        || frac.len() != 1
        || !whole.bytes().all(|b| b.is_ascii_digit())
        || !frac.bytes().all(|b| b.is_ascii_digit())
    {
        return None;
    }
    let v = whole
        .parse::<u32>()
        .ok()?
        .checked_mul(10)?
        .checked_add(frac.parse::<u32>().ok()?)?;
    (v > 0).then_some(v)
}

pub fn fmt_tenths(t: u32) -> String {
    format!("{}.{}", t / 10, t % 10)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_embedded_catalog_is_valid() {
        // In full, as a catalog from a directory is checked: the app only
        // parses the embedded patterns when it loads them.
        Catalog::from_sources(embedded_sources()).unwrap_or_else(|e| panic!("{e}"));
        let c = Catalog::embedded().unwrap_or_else(|e| panic!("{e}"));
        c.build_all().unwrap_or_else(|e| panic!("{e}"));
        assert!(c.get("dc_12v").is_some());
    }

    /// The lean automata find exactly what `regex::Regex` finds, for every
    /// group of the catalog, on the catalog's own complaints in three
    /// languages and on notes the way technicians type them.
    #[test]
    fn lean_automata_match_like_the_regex_crate() {
        let c = Catalog::embedded().unwrap_or_else(|e| panic!("{e}"));
        let mut notes: Vec<String> = [
            "Furnace blows cold air, board LED blinks 3 times, 12.4V at the board",
            "where's the sail switch? the fridge won't run on LP, ok on 120v",
            "печка не греет, дует холодным воздухом; на плате 11,8 В",
            "la calefacción no calienta, sopla aire frío; fusible quemado",
            "AWNING WON'T RETRACT!! motor hums, no movement",
            "no 120v power at outlets, gfci tripped and won't reset",
        ]
        .map(String::from)
        .to_vec();
        for p in &c.procedures {
            for s in &p.symptoms {
                notes.extend(["en", "es", "ru"].map(|l| s.complaint.get(l).to_string()));
            }
        }
        let mut compared = 0;
        for p in &c.procedures {
            for (what, group) in p.pattern_groups() {
                let Some(lazy) = &group.0 else { continue };
                let reference = Regex::new(&lazy.source).unwrap();
                for note in &notes {
                    let lean: Vec<_> = lazy.get().find_iter(note).map(|m| m.range()).collect();
                    let expected: Vec<_> = reference.find_iter(note).map(|m| m.range()).collect();
                    assert_eq!(lean, expected, "{}: {what} on {note:?}", p.file);
                    compared += usize::from(!expected.is_empty());
                }
            }
        }
        assert!(
            compared > 50,
            "only {compared} group/note pairs matched at all"
        );
    }

    /// The longest match is over every pattern, not over what the group's
    /// leftmost-first search reports: a short pattern written first must not
    /// hide a longer one matching at the same place.
    #[test]
    fn the_longest_match_is_looked_for_in_every_pattern() {
        let catalog = Catalog::embedded().unwrap();
        let solar = catalog.get("solar").unwrap();
        let converter = catalog.get("inverter_converter").unwrap();
        let note = "el solar no carga las baterías";
        let best = |p: &Procedure| {
            p.symptoms
                .iter()
                .filter_map(|s| s.patterns.longest_match(note))
                .max()
                .unwrap_or(0)
        };
        assert!(
            best(solar) > best(converter),
            "solar {} vs converter {}",
            best(solar),
            best(converter)
        );
        let group = Patterns::union([&solar.symptoms[0].patterns]);
        assert_eq!(
            group.longest_match(note),
            solar.symptoms[0].patterns.longest_match(note)
        );
    }

    fn dc() -> String {
        EMBEDDED_PROCEDURES
            .iter()
            .find(|(n, _)| *n == "dc_12v.toml")
            .unwrap()
            .1
            .to_string()
    }

    fn load_err(text: &str) -> CatalogError {
        Catalog::from_sources([("dc_12v.toml".to_string(), text)]).unwrap_err()
    }

    #[test]
    fn an_unknown_step_reference_names_file_and_line() {
        let text = dc().replacen("next = \"fan_fuse\"", "next = \"fan_fusee\"", 1);
        assert!(
            text.contains("fan_fusee"),
            "the fixture names fan_fuse as a next step"
        );
        let e = load_err(&text);
        assert!(e.message.contains("unknown step `fan_fusee`"), "{e}");
        let line = text.lines().position(|l| l.contains("fan_fusee")).unwrap() + 1;
        assert_eq!(e.file, "dc_12v.toml");
        assert!(
            e.line > 0 && e.line <= line,
            "{e} (reference on line {line})"
        );
    }

    #[test]
    fn a_missing_translation_is_an_error() {
        let text = dc().replace(
            "question.ru = \"Цел ли предохранитель цепи освещения в панели 12 В?\"\n",
            "",
        );
        let e = load_err(&text);
        assert!(
            e.message
                .contains("step `light_fuse` question: missing the `ru` translation"),
            "{e}"
        );
    }

    #[test]
    fn a_step_without_a_label_is_an_error_naming_the_step() {
        let text = dc().replace(
            "label = { en = \"lighting circuit fuse\", es = \"fusible del circuito de luces\", ru = \"предохранитель цепи освещения\" }\n",
            "",
        );
        let e = load_err(&text);
        assert_eq!(e.file, "dc_12v.toml");
        assert!(
            e.message.contains("step `light_fuse`: missing `label`"),
            "{e}"
        );
        let line = text
            .lines()
            .position(|l| l == "id = \"light_fuse\"")
            .unwrap()
            + 1;
        assert_eq!(e.line, line, "{e}");
    }

    #[test]
    fn a_label_needs_every_language() {
        let text = dc().replace(
            ", ru = \"предохранитель цепи освещения\" }",
            ", ru = \" \" }",
        );
        let e = load_err(&text);
        assert!(
            e.message
                .contains("step `light_fuse` label: missing the `ru` translation"),
            "{e}"
        );
    }

    #[test]
    fn a_rise_threshold_on_a_measurement_step_is_refused() {
        let text = dc().replacen(
            "kind = \"measurement\"\n",
            "kind = \"measurement\"\nrise = { unit = \"°F\", at_least = 20.0 }\n",
            1,
        );
        let e = load_err(&text);
        assert!(e.message.contains("rise needs a yes_no step"), "{e}");
        let text = dc().replacen(
            "kind = \"yes_no\"\n",
            "kind = \"yes_no\"\nrise = { unit = \"furlongs\", at_least = 20.0 }\n",
            1,
        );
        let e = load_err(&text);
        assert!(e.message.contains("rise: unknown unit `furlongs`"), "{e}");
    }

    #[test]
    fn blame_words_in_a_finding_are_refused_with_file_and_line() {
        let text = dc().replacen("cause.en = \"", "cause.en = \"Fuse failed. ", 1);
        let err = Catalog::from_sources([("dc_12v.toml".to_string(), text.as_str())]).unwrap_err();
        assert_eq!(err.file, "dc_12v.toml");
        assert!(err.line > 1, "{err}");
        assert!(
            err.message.contains("`failed` is not warranty-safe"),
            "{err}"
        );
    }

    #[test]
    fn an_unreachable_step_is_an_error() {
        let text = dc().replace(
            "outcome.ok = { next = \"motor_direct\" }",
            "outcome.ok = { finding = \"motor_connector_open\" }",
        );
        let e = load_err(&text);
        assert!(e.message.contains("unreachable"), "{e}");
    }

    #[test]
    fn labor_hours_are_tenths() {
        assert_eq!(parse_tenths("1.5"), Some(15));
        assert_eq!(parse_tenths("2"), Some(20));
        assert_eq!(parse_tenths("0.25"), None);
        assert_eq!(parse_tenths("0"), None);
        assert_eq!(parse_tenths("-1"), None);
        assert_eq!(fmt_tenths(25), "2.5");
    }
}
