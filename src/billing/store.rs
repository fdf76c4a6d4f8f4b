//! The billing rule and order store (migrations/0004_billing.sql) on top of
//! the pure calculator: importing rules with append-only versions and
//! parking/storage orders, resolving the rule that covers a lot at a time,
//! simulating a stay under a stored rule, arrears by plate and fee
//! verification of an order. Every import and addition is recorded in
//! `billing_changes` with its file and line.
//!
//! Invariants:
//! - a (rule_code, version_no) is written once; re-importing it unchanged
//!   changes nothing, with other content is refused (`conflict`);
//! - versions of one rule never overlap (effective_from inclusive,
//!   effective_to exclusive, NULL open); a clash names the stored version;
//! - at most one active rule covers a (city, lot);
//! - a lookup that finds no rule or no version is an error, never a zero charge;
//! - a bad record is skipped with its line and field and nothing of it is
//!   stored; the good records of the same file are stored.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use ts_rs::TS;

use chrono::{DateTime, NaiveDateTime, Timelike, Utc};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use sqlx::{Row, SqliteConnection, SqlitePool};

pub use super::model::{RuleInfo, VersionInfo};
use super::{
    parse_site_time, parse_time_zone, simulate_between, BillingError, Breakdown, Money, Payload,
    Piece, Tz, MAX_STAY_DAYS, WALL_FORMAT,
};
use crate::knowledge;

/// What can go wrong in the store. `code()` is the api's error code.
#[derive(Debug, thiserror::Error)]
pub enum BillingStoreError {
    /// An unknown rule or order, no rule covering a lot, no version in force.
    #[error("{0}")]
    NotFound(String),
    /// A request that does not make sense (missing or contradictory fields).
    #[error("{0}")]
    Invalid(String),
    /// The data contradicts what is stored (a changed version, an overlap).
    #[error("{0}")]
    Conflict(String),
    /// A payload, amount, time or stay the calculator refuses.
    #[error(transparent)]
    Billing(#[from] BillingError),
    #[error("database error: {0}")]
    Storage(#[from] sqlx::Error),
}

impl BillingStoreError {
    pub fn code(&self) -> &'static str {
        match self {
            BillingStoreError::NotFound(_) => "not_found",
            BillingStoreError::Invalid(_) => "invalid_input",
            BillingStoreError::Conflict(_) => "conflict",
            BillingStoreError::Billing(e) => e.code(),
            BillingStoreError::Storage(_) => "storage",
        }
    }
}

pub type Result<T, E = BillingStoreError> = std::result::Result<T, E>;

/// How a caller names the rule: by code, or by the lot it covers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RuleRef {
    Code(String),
    Scope { city: String, lot: String },
}

impl fmt::Display for RuleRef {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RuleRef::Code(c) => write!(f, "rule {c}"),
            RuleRef::Scope { city, lot } => write!(f, "city {city} lot {lot}"),
        }
    }
}

impl RuleInfo {
    pub fn tz(&self) -> Result<Tz> {
        Ok(parse_time_zone(&self.time_zone)?)
    }

    /// The version in force at `at` (site-local): effective_from inclusive,
    /// effective_to exclusive.
    pub fn version_at(&self, at: NaiveDateTime) -> Result<&VersionInfo> {
        self.versions.iter().find(|v| v.covers(at)).ok_or_else(|| {
            let known = self
                .versions
                .iter()
                .map(VersionInfo::span)
                .collect::<Vec<_>>()
                .join("; ");
            BillingStoreError::NotFound(format!(
                "rule {} has no version in force at {} (site time, {}); its versions: {}",
                self.rule_code,
                at.format(WALL_FORMAT),
                self.time_zone,
                if known.is_empty() {
                    "none".to_owned()
                } else {
                    known
                }
            ))
        })
    }
}

fn show(t: NaiveDateTime) -> String {
    t.format(WALL_FORMAT).to_string()
}

/// A version to add, in the import file's shape.
#[derive(Debug, Clone, Deserialize, TS)]
#[serde(deny_unknown_fields)]
pub struct NewVersion {
    /// `None`: one more than the newest stored version.
    #[serde(default)]
    pub version_no: Option<i64>,
    pub effective_from: String,
    #[serde(default)]
    pub effective_to: Option<String>,
    pub payload: Value,
}

/// What an import did, record by record.
#[derive(Debug, Clone, Default, Serialize, TS)]
pub struct ImportReport {
    pub origin: String,
    pub imported: Vec<ImportedItem>,
    pub unchanged: Vec<ImportedItem>,
    pub skipped: Vec<SkippedRecord>,
    /// Rule imports only: the generated explanations put into the knowledge store.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub explanations: Option<ExplainSummary>,
}

/// A rule version (`key` = rule_code, `version_no`) or an order (`key` = order_no).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct ImportedItem {
    pub key: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version_no: Option<i64>,
    /// The line of the record in the file.
    pub line: usize,
}

/// A record that was not imported, and exactly why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct SkippedRecord {
    pub line: usize,
    /// 1-based position of the record in the file (array element or JSONL record).
    pub record: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    pub message: String,
}

impl fmt::Display for SkippedRecord {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {} (record {}", self.line, self.record)?;
        if let Some(k) = &self.key {
            write!(f, ", {k}")?;
        }
        f.write_str("): ")?;
        if let Some(field) = &self.field {
            write!(f, "{field}: ")?;
        }
        f.write_str(&self.message)
    }
}

/// The rule explanations an import ingested into the knowledge store.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, TS)]
pub struct ExplainSummary {
    pub ingested: Vec<String>,
    pub unchanged: usize,
    /// Explanations the knowledge store kept an older text of (not an error).
    pub kept: Vec<String>,
}

/// A stored order with its arrears.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct OrderInfo {
    pub order_no: String,
    pub city_code: String,
    pub lot_code: String,
    pub plate_no: String,
    pub entry_time: String,
    pub exit_time: String,
    pub total_amount: Money,
    pub paid_amount: Money,
    /// `total - paid`, never below 0.
    pub arrears_amount: Money,
    pub created_at: String,
}

/// `billing arrears --plate P [--city C] --json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct ArrearsReport {
    pub plate_no: String,
    pub city_code: Option<String>,
    /// `NONE` or `HAS_ARREARS`.
    pub status: &'static str,
    pub total_arrears: Money,
    /// How many orders of the plate (in the city) were checked.
    pub orders_checked: usize,
    /// The unpaid and partly paid orders, by entry time then order number.
    pub orders: Vec<ArrearsOrder>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, TS)]
pub struct ArrearsOrder {
    pub order_no: String,
    pub city_code: String,
    pub lot_code: String,
    pub entry_time: String,
    pub exit_time: String,
    pub total_amount: Money,
    pub paid_amount: Money,
    pub arrears_amount: Money,
}

/// `billing verify --order NO --json`.
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct Verification {
    pub order_no: String,
    pub city_code: String,
    pub lot_code: String,
    pub plate_no: String,
    pub entry_time: String,
    pub exit_time: String,
    /// `consistent` or `mismatch`.
    pub result: &'static str,
    /// `auto_approve` or `manual_review`.
    pub action: &'static str,
    pub order_total: Money,
    pub simulated_total: Money,
    /// `order_total - simulated_total`.
    pub difference: Money,
    pub paid_amount: Money,
    pub rule_code: String,
    pub version_no: i64,
    pub time_zone: String,
    pub pieces: Vec<Piece>,
}

/// A stay simulated under a stored rule: the breakdown plus the rule and
/// version that priced it (the version in force at the entry).
#[derive(Debug, Clone, PartialEq, Serialize, TS)]
pub struct RuleSimulation {
    pub rule_code: String,
    pub version_no: i64,
    pub rule_name: String,
    pub city_code: String,
    pub lot_codes: Vec<String>,
    #[serde(flatten)]
    pub breakdown: Breakdown,
}

// ---------------------------------------------------------------- helpers

fn now() -> String {
    crate::store::now()
}

/// Now, on the site's wall clock, at minute precision.
fn now_in(tz: Tz) -> NaiveDateTime {
    let t = Utc::now().with_timezone(&tz).naive_local();
    t.with_second(0)
        .and_then(|t| t.with_nanosecond(0))
        .unwrap_or(t)
}

/// City and lot codes: letters, digits, `-` and `_`, compared upper-case.
pub fn normalize_code(s: &str) -> std::result::Result<String, String> {
    let t = s.trim();
    if t.is_empty() {
        return Err("must not be empty".into());
    }
    if t.len() > 32
        || !t
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        return Err(format!(
            "{t:?} is not a code (letters, digits, - and _, at most 32)"
        ));
    }
    Ok(t.to_ascii_uppercase())
}

/// Plates are compared without blanks and upper-case (`7abc 123` = `7ABC123`).
pub fn normalize_plate(s: &str) -> std::result::Result<String, String> {
    let t: String = s.chars().filter(|c| !c.is_whitespace()).collect();
    if t.is_empty() {
        return Err("must not be empty".into());
    }
    if t.chars().count() > 32 || t.chars().any(char::is_control) {
        return Err(format!(
            "{s:?} is not a plate number (at most 32 characters)"
        ));
    }
    Ok(t.to_uppercase())
}

fn check_rule_code(s: &str) -> std::result::Result<String, String> {
    let t = s.trim();
    if t.is_empty() {
        return Err("must not be empty".into());
    }
    if t.len() > 64
        || !t
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
    {
        return Err(format!(
            "{t:?} is not a rule code (letters, digits, - _ and ., at most 64)"
        ));
    }
    Ok(t.to_owned())
}

fn check_order_no(s: &str) -> std::result::Result<String, String> {
    let t = s.trim();
    if t.is_empty() {
        return Err("must not be empty".into());
    }
    if t.chars().count() > 64 || t.chars().any(char::is_control) {
        return Err(format!(
            "{t:?} is not an order number (at most 64 characters)"
        ));
    }
    Ok(t.to_owned())
}

/// Whether `[a_from, a_to)` and `[b_from, b_to)` share a minute (`None`: open).
fn overlaps(
    a_from: NaiveDateTime,
    a_to: Option<NaiveDateTime>,
    b_from: NaiveDateTime,
    b_to: Option<NaiveDateTime>,
) -> bool {
    a_to.is_none_or(|t| b_from < t) && b_to.is_none_or(|t| a_from < t)
}

/// The line each top-level element of a JSON array starts on.
fn element_lines(text: &str) -> Vec<usize> {
    let mut out = Vec::new();
    let (mut depth, mut line) = (0usize, 1usize);
    let (mut in_str, mut esc, mut expect) = (false, false, false);
    for c in text.chars() {
        if c == '\n' {
            line += 1;
        }
        if in_str {
            if esc {
                esc = false;
            } else if c == '\\' {
                esc = true;
            } else if c == '"' {
                in_str = false;
            }
            continue;
        }
        if c.is_whitespace() {
            continue;
        }
        if depth == 1 && expect && !matches!(c, ']' | ',') {
            out.push(line);
            expect = false;
        }
        match c {
            '"' => in_str = true,
            '[' | '{' => {
                depth += 1;
                if depth == 1 {
                    expect = true;
                }
            }
            ']' | '}' => depth = depth.saturating_sub(1),
            ',' if depth == 1 => expect = true,
            _ => {}
        }
    }
    out
}

/// Field access on one record, collecting `(field, message)` errors.
struct Fields<'a> {
    map: &'a Map<String, Value>,
    prefix: String,
    errors: Vec<(String, String)>,
}

impl<'a> Fields<'a> {
    fn new(map: &'a Map<String, Value>, prefix: &str, known: &[&str]) -> Self {
        let mut f = Fields {
            map,
            prefix: prefix.to_owned(),
            errors: Vec::new(),
        };
        for key in map.keys() {
            if !known.contains(&key.as_str()) {
                f.fail(key, format!("unknown field (known: {})", known.join(", ")));
            }
        }
        f
    }

    fn fail(&mut self, field: &str, message: impl Into<String>) {
        self.errors
            .push((format!("{}{field}", self.prefix), message.into()));
    }

    fn get(&self, key: &str) -> Option<&'a Value> {
        self.map.get(key).filter(|v| !v.is_null())
    }

    fn string(&mut self, key: &str) -> Option<String> {
        match self.get(key) {
            None => {
                self.fail(key, "is required");
                None
            }
            Some(Value::String(s)) => Some(s.clone()),
            Some(other) => {
                self.fail(key, format!("must be a string, got {other}"));
                None
            }
        }
    }

    fn opt_string(&mut self, key: &str) -> Option<String> {
        match self.get(key) {
            None => None,
            Some(Value::String(s)) => Some(s.clone()),
            Some(other) => {
                self.fail(key, format!("must be a string or null, got {other}"));
                None
            }
        }
    }

    /// A required string passed through a checker.
    fn checked(
        &mut self,
        key: &str,
        check: impl Fn(&str) -> std::result::Result<String, String>,
    ) -> Option<String> {
        let s = self.string(key)?;
        match check(&s) {
            Ok(v) => Some(v),
            Err(e) => {
                self.fail(key, e);
                None
            }
        }
    }

    fn money(&mut self, key: &str) -> Option<Money> {
        let v = match self.get(key) {
            None => {
                self.fail(key, "is required");
                return None;
            }
            Some(v) => v,
        };
        match serde_json::from_value::<Money>(v.clone()) {
            Ok(m) if m.is_negative() => {
                self.fail(key, format!("may not be negative, got {m}"));
                None
            }
            Ok(m) => Some(m),
            Err(e) => {
                self.fail(key, e.to_string());
                None
            }
        }
    }
}

/// A rule record of an import file, checked.
struct RuleRecord {
    rule_code: String,
    name: String,
    city_code: String,
    lot_codes: Vec<String>,
    status: String,
    time_zone: String,
    versions: Vec<VersionRecord>,
}

struct VersionRecord {
    /// Position in the record's `versions`.
    index: usize,
    version_no: i64,
    from: NaiveDateTime,
    to: Option<NaiveDateTime>,
    /// Canonical JSON of the validated payload.
    payload_json: String,
}

impl VersionRecord {
    fn same_as(&self, v: &VersionInfo) -> bool {
        let stored = serde_json::to_string(&v.payload).unwrap_or_default();
        self.from == v.from_time() && self.to == v.to_time() && self.payload_json == stored
    }

    fn span(&self) -> String {
        match self.to {
            Some(to) => format!("{} to {}", show(self.from), show(to)),
            None => format!("from {} (open-ended)", show(self.from)),
        }
    }
}

const RULE_FIELDS: &[&str] = &[
    "rule_code",
    "name",
    "city_code",
    "lot_codes",
    "status",
    "time_zone",
    "versions",
];
const VERSION_FIELDS: &[&str] = &["version_no", "effective_from", "effective_to", "payload"];

/// Checks one version object against the site's zone.
fn parse_version(
    map: &Map<String, Value>,
    prefix: &str,
    index: usize,
    tz: Tz,
    default_no: Option<i64>,
    errors: &mut Vec<(String, String)>,
) -> Option<VersionRecord> {
    let mut f = Fields::new(map, prefix, VERSION_FIELDS);
    let version_no = match f.get("version_no") {
        None => match default_no {
            Some(n) => Some(n),
            None => {
                f.fail("version_no", "is required");
                None
            }
        },
        Some(Value::Number(n)) => match n.as_i64() {
            Some(n) if n >= 1 => Some(n),
            _ => {
                f.fail("version_no", format!("must be a whole number ≥ 1, got {n}"));
                None
            }
        },
        Some(other) => {
            f.fail(
                "version_no",
                format!("must be a whole number ≥ 1, got {other}"),
            );
            None
        }
    };
    let time = |f: &mut Fields, key: &str, text: Option<String>| {
        let text = text?;
        match parse_site_time(&text, tz) {
            Ok(t) => Some(t.naive_local()),
            Err(e) => {
                f.fail(key, e.to_string());
                None
            }
        }
    };
    let from_text = f.string("effective_from");
    let from = time(&mut f, "effective_from", from_text);
    let to_text = f.opt_string("effective_to");
    let to = time(&mut f, "effective_to", to_text);
    if let (Some(a), Some(b)) = (from, to) {
        if b <= a {
            f.fail(
                "effective_to",
                format!("{} is not after effective_from {}", show(b), show(a)),
            );
        }
    }
    let payload_json = match f.get("payload") {
        None => {
            f.fail("payload", "is required");
            None
        }
        Some(v) => match Payload::from_value(v.clone()).and_then(|p| p.validate().map(|_| p)) {
            Ok(p) => Some(serde_json::to_string(&p).unwrap_or_default()),
            Err(e) => {
                f.fail("payload", e.to_string());
                None
            }
        },
    };
    errors.append(&mut f.errors);
    Some(VersionRecord {
        index,
        version_no: version_no?,
        from: from?,
        to: if map.get("effective_to").is_some_and(|v| !v.is_null()) {
            Some(to?)
        } else {
            None
        },
        payload_json: payload_json?,
    })
}

fn parse_rule_record(item: &Value) -> std::result::Result<RuleRecord, Vec<(String, String)>> {
    let Value::Object(map) = item else {
        return Err(vec![(
            String::new(),
            format!("a rule must be a JSON object, got {item}"),
        )]);
    };
    let mut f = Fields::new(map, "", RULE_FIELDS);
    let rule_code = f.checked("rule_code", check_rule_code);
    let name = f.checked("name", |s| {
        let t = s.trim();
        if t.is_empty() {
            Err("must not be empty".into())
        } else {
            Ok(t.to_owned())
        }
    });
    let city_code = f.checked("city_code", normalize_code);
    let lot_codes = match f.get("lot_codes") {
        None => {
            f.fail("lot_codes", "is required (a list of lot codes)");
            None
        }
        Some(Value::Array(items)) if items.is_empty() => {
            f.fail("lot_codes", "must list at least one lot");
            None
        }
        Some(Value::Array(items)) => {
            let mut lots = Vec::new();
            let mut ok = true;
            for (i, item) in items.iter().enumerate() {
                match item.as_str().map(normalize_code) {
                    Some(Ok(l)) => {
                        if !lots.contains(&l) {
                            lots.push(l);
                        }
                    }
                    Some(Err(e)) => {
                        f.fail(&format!("lot_codes[{i}]"), e);
                        ok = false;
                    }
                    None => {
                        f.fail(
                            &format!("lot_codes[{i}]"),
                            format!("must be a string, got {item}"),
                        );
                        ok = false;
                    }
                }
            }
            ok.then_some(lots)
        }
        Some(other) => {
            f.fail(
                "lot_codes",
                format!("must be a list of lot codes, got {other}"),
            );
            None
        }
    };
    let status = f.checked("status", |s| match s.trim() {
        "active" | "inactive" => Ok(s.trim().to_owned()),
        other => Err(format!("{other:?} is not active or inactive")),
    });
    let tz_name = f.opt_string("time_zone").unwrap_or_else(|| "UTC".into());
    let tz = match parse_time_zone(&tz_name) {
        Ok(tz) => Some(tz),
        Err(e) => {
            f.fail("time_zone", e.to_string());
            None
        }
    };
    let mut errors = std::mem::take(&mut f.errors);
    let mut versions = Vec::new();
    match map.get("versions") {
        None | Some(Value::Null) => errors.push(("versions".into(), "is required".into())),
        Some(Value::Array(items)) if items.is_empty() => {
            errors.push(("versions".into(), "must list at least one version".into()))
        }
        Some(Value::Array(items)) => {
            for (i, item) in items.iter().enumerate() {
                let prefix = format!("versions[{i}].");
                match (item, tz) {
                    (Value::Object(vm), Some(tz)) => {
                        if let Some(v) = parse_version(vm, &prefix, i, tz, None, &mut errors) {
                            versions.push(v);
                        }
                    }
                    (Value::Object(_), None) => {}
                    (other, _) => errors.push((
                        format!("versions[{i}]"),
                        format!("a version must be a JSON object, got {other}"),
                    )),
                }
            }
        }
        Some(other) => errors.push((
            "versions".into(),
            format!("must be a list of versions, got {other}"),
        )),
    }
    // Within the record: unique numbers, no overlaps.
    for (i, a) in versions.iter().enumerate() {
        for b in &versions[..i] {
            if a.version_no == b.version_no {
                errors.push((
                    format!("versions[{}].version_no", a.index),
                    format!(
                        "version {} appears twice (also versions[{}])",
                        a.version_no, b.index
                    ),
                ));
            } else if overlaps(a.from, a.to, b.from, b.to) {
                errors.push((
                    format!("versions[{}].effective_from", a.index),
                    format!(
                        "version {} ({}) clashes with version {} ({}): versions of a rule may not overlap",
                        a.version_no,
                        a.span(),
                        b.version_no,
                        b.span()
                    ),
                ));
            }
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    match (rule_code, name, city_code, lot_codes, status) {
        (Some(rule_code), Some(name), Some(city_code), Some(lot_codes), Some(status)) => {
            Ok(RuleRecord {
                rule_code,
                name,
                city_code,
                lot_codes,
                status,
                time_zone: tz.map(|t| t.name().to_owned()).unwrap_or(tz_name),
                versions,
            })
        }
        _ => Err(vec![(String::new(), "incomplete rule".into())]),
    }
}

// ---------------------------------------------------------------- reading

async fn load_rules(conn: &mut SqliteConnection, code: Option<&str>) -> Result<Vec<RuleInfo>> {
    let rows = sqlx::query(
        "SELECT rule_code, name, city_code, lot_codes, status, time_zone, created_at
         FROM billing_rules WHERE (?1 IS NULL OR rule_code = ?1) ORDER BY rule_code",
    )
    .bind(code)
    .fetch_all(&mut *conn)
    .await?;
    let mut rules: Vec<RuleInfo> = rows
        .into_iter()
        .map(|r| RuleInfo {
            rule_code: r.get("rule_code"),
            name: r.get("name"),
            city_code: r.get("city_code"),
            lot_codes: serde_json::from_str(r.get::<&str, _>("lot_codes")).unwrap_or_default(),
            status: r.get("status"),
            time_zone: r.get("time_zone"),
            created_at: r.get("created_at"),
            versions: Vec::new(),
        })
        .collect();
    let rows = sqlx::query(
        "SELECT rule_code, version_no, effective_from, effective_to, payload, created_at
         FROM billing_rule_versions WHERE (?1 IS NULL OR rule_code = ?1)
         ORDER BY rule_code, version_no",
    )
    .bind(code)
    .fetch_all(&mut *conn)
    .await?;
    let mut by_code: BTreeMap<String, Vec<VersionInfo>> = BTreeMap::new();
    for r in rows {
        let rule_code: String = r.get("rule_code");
        let payload = Payload::from_json(r.get::<&str, _>("payload"))?;
        by_code
            .entry(rule_code.to_ascii_uppercase())
            .or_default()
            .push(VersionInfo {
                rule_code,
                version_no: r.get("version_no"),
                effective_from: r.get("effective_from"),
                effective_to: r.get("effective_to"),
                payload,
                created_at: r.get("created_at"),
            });
    }
    for rule in &mut rules {
        if let Some(v) = by_code.remove(&rule.rule_code.to_ascii_uppercase()) {
            rule.versions = v;
        }
    }
    Ok(rules)
}

/// Every rule with its versions, by rule code.
pub async fn list_rules(pool: &SqlitePool) -> Result<Vec<RuleInfo>> {
    let mut conn = pool.acquire().await?;
    load_rules(&mut conn, None).await
}

/// One rule by code (case-insensitive).
pub async fn get_rule(pool: &SqlitePool, rule_code: &str) -> Result<RuleInfo> {
    let mut conn = pool.acquire().await?;
    find_rule(&mut conn, &RuleRef::Code(rule_code.to_owned())).await
}

/// The rule `rule` names (by code, or the active rule covering a lot),
/// whatever its versions.
pub async fn find_rule_by(pool: &SqlitePool, rule: &RuleRef) -> Result<RuleInfo> {
    let mut conn = pool.acquire().await?;
    find_rule(&mut conn, rule).await
}

async fn find_rule(conn: &mut SqliteConnection, rule: &RuleRef) -> Result<RuleInfo> {
    match rule {
        RuleRef::Code(code) => {
            let code = code.trim();
            load_rules(conn, Some(code)).await?.pop().ok_or_else(|| {
                BillingStoreError::NotFound(format!(
                    "unknown rule {code:?}: no rule has that code (see `billing rules list`)"
                ))
            })
        }
        RuleRef::Scope { city, lot } => {
            let city = normalize_code(city)
                .map_err(|e| BillingStoreError::Invalid(format!("city_code: {e}")))?;
            let lot = normalize_code(lot)
                .map_err(|e| BillingStoreError::Invalid(format!("lot_code: {e}")))?;
            let rows: Vec<(String, String)> = sqlx::query_as(
                "SELECT rule_code, lot_codes FROM billing_rules
                 WHERE city_code = ? AND status = 'active' ORDER BY rule_code",
            )
            .bind(&city)
            .fetch_all(&mut *conn)
            .await?;
            let mut covered = BTreeSet::new();
            let mut hits = Vec::new();
            for (code, lots) in rows {
                let lots: Vec<String> = serde_json::from_str(&lots).unwrap_or_default();
                if lots.contains(&lot) {
                    hits.push(code);
                }
                covered.extend(lots);
            }
            match hits.as_slice() {
                [code] => {
                    let code = code.clone();
                    Ok(load_rules(conn, Some(&code)).await?.pop().ok_or_else(|| {
                        BillingStoreError::NotFound(format!("rule {code} vanished"))
                    })?)
                }
                [] => Err(BillingStoreError::NotFound(format!(
                    "no active rule covers city {city} lot {lot}{}",
                    if covered.is_empty() {
                        format!(" (there is no active rule in city {city})")
                    } else {
                        format!(
                            " (active rules in {city} cover {})",
                            covered.into_iter().collect::<Vec<_>>().join(", ")
                        )
                    }
                ))),
                many => Err(BillingStoreError::Conflict(format!(
                    "city {city} lot {lot} is covered by more than one active rule: {}",
                    many.join(", ")
                ))),
            }
        }
    }
}

/// The rule `rule` names and its version in force at `at` (site-local wall
/// clock; `None`: now). No rule or no version is an error, never a zero charge.
pub async fn resolve_rule(
    pool: &SqlitePool,
    rule: &RuleRef,
    at: Option<NaiveDateTime>,
) -> Result<(RuleInfo, VersionInfo)> {
    let mut conn = pool.acquire().await?;
    let info = find_rule(&mut conn, rule).await?;
    let at = match at {
        Some(t) => t,
        None => now_in(info.tz()?),
    };
    let version = info.version_at(at)?.clone();
    Ok((info, version))
}

/// Simulates a stay under the rule `rule` names, priced by the version in
/// force at the entry. Times as typed: site-local (`2026-03-02T08:00`) or
/// RFC 3339 with an offset (converted to the rule's time zone).
pub async fn simulate_rule(
    pool: &SqlitePool,
    rule: &RuleRef,
    entry: &str,
    exit: &str,
) -> Result<RuleSimulation> {
    let mut conn = pool.acquire().await?;
    let info = find_rule(&mut conn, rule).await?;
    drop(conn);
    simulate_with(&info, entry, exit)
}

fn simulate_with(info: &RuleInfo, entry: &str, exit: &str) -> Result<RuleSimulation> {
    let tz = info.tz()?;
    let entry = parse_site_time(entry, tz)?;
    let exit = parse_site_time(exit, tz)?;
    let version = info.version_at(entry.naive_local())?;
    let breakdown = simulate_between(&version.payload, &entry, &exit)?;
    Ok(RuleSimulation {
        rule_code: info.rule_code.clone(),
        version_no: version.version_no,
        rule_name: info.name.clone(),
        city_code: info.city_code.clone(),
        lot_codes: info.lot_codes.clone(),
        breakdown,
    })
}

// ---------------------------------------------------------------- writing rules

async fn record_change(
    conn: &mut SqliteConnection,
    action: &str,
    entity: &str,
    key: &str,
    detail: Value,
    origin: &str,
    line: Option<usize>,
) -> Result<()> {
    sqlx::query(
        "INSERT INTO billing_changes (changed_at, action, entity, entity_key, detail, origin, line)
         VALUES (?, ?, ?, ?, ?, ?, ?)",
    )
    .bind(now())
    .bind(action)
    .bind(entity)
    .bind(key)
    .bind(detail.to_string())
    .bind(origin)
    .bind(line.map(|l| l as i64))
    .execute(&mut *conn)
    .await?;
    Ok(())
}

/// What applying one rule record did.
enum Applied {
    Done {
        rule_code: String,
        new: Vec<i64>,
        same: Vec<i64>,
    },
    Refused(Vec<(String, String)>),
}

/// Checks a record against the store and writes it, or nothing of it.
async fn apply_rule(
    conn: &mut SqliteConnection,
    rec: &RuleRecord,
    origin: &str,
    line: usize,
) -> Result<Applied> {
    let mut errors: Vec<(String, String)> = Vec::new();
    let stored = load_rules(conn, Some(&rec.rule_code)).await?.pop();
    let rule_code = stored
        .as_ref()
        .map(|s| s.rule_code.clone())
        .unwrap_or_else(|| rec.rule_code.clone());
    if let Some(s) = &stored {
        if s.city_code != rec.city_code {
            errors.push((
                "city_code".into(),
                format!(
                    "rule {} is stored with city {}; a rule's city cannot change (use a new rule code)",
                    s.rule_code, s.city_code
                ),
            ));
        }
        if s.time_zone != rec.time_zone {
            errors.push((
                "time_zone".into(),
                format!(
                    "rule {} is stored with time zone {}; it gives its versions' times their meaning and cannot change",
                    s.rule_code, s.time_zone
                ),
            ));
        }
    }
    if rec.status == "active" {
        let rows: Vec<(String, String)> = sqlx::query_as(
            "SELECT rule_code, lot_codes FROM billing_rules
             WHERE city_code = ? AND status = 'active' AND rule_code <> ? ORDER BY rule_code",
        )
        .bind(&rec.city_code)
        .bind(&rule_code)
        .fetch_all(&mut *conn)
        .await?;
        for (other, lots) in rows {
            let lots: Vec<String> = serde_json::from_str(&lots).unwrap_or_default();
            for lot in rec.lot_codes.iter().filter(|l| lots.contains(l)) {
                errors.push((
                    "lot_codes".into(),
                    format!(
                        "lot {lot} in {} is already covered by active rule {other}; one active rule per lot",
                        rec.city_code
                    ),
                ));
            }
        }
    }
    let empty = Vec::new();
    let stored_versions = stored.as_ref().map(|s| &s.versions).unwrap_or(&empty);
    let mut new = Vec::new();
    let mut same = Vec::new();
    for v in &rec.versions {
        let field = |f: &str| format!("versions[{}].{f}", v.index);
        if let Some(s) = stored_versions
            .iter()
            .find(|s| s.version_no == v.version_no)
        {
            if v.same_as(s) {
                same.push(v.version_no);
            } else {
                errors.push((
                    field("version_no"),
                    format!(
                        "version {} of {} is already stored ({}) with different content; \
                         versions are append-only: give the change a new version number",
                        v.version_no,
                        rule_code,
                        s.span()
                    ),
                ));
            }
            continue;
        }
        for s in stored_versions {
            if overlaps(v.from, v.to, s.from_time(), s.to_time()) {
                errors.push((
                    field("effective_from"),
                    format!(
                        "version {} ({}) clashes with version {} ({}): versions of a rule may not overlap{}",
                        v.version_no,
                        v.span(),
                        s.version_no,
                        s.span(),
                        if s.effective_to.is_none() {
                            "; the stored version is open-ended and versions are never edited"
                        } else {
                            ""
                        }
                    ),
                ));
            }
        }
        new.push(v);
    }
    if !errors.is_empty() {
        return Ok(Applied::Refused(errors));
    }
    let at = now();
    let lots_json = serde_json::to_string(&rec.lot_codes).unwrap_or_default();
    match &stored {
        None => {
            sqlx::query(
                "INSERT INTO billing_rules (rule_code, name, city_code, lot_codes, status, time_zone, created_at)
                 VALUES (?, ?, ?, ?, ?, ?, ?)",
            )
            .bind(&rule_code)
            .bind(&rec.name)
            .bind(&rec.city_code)
            .bind(&lots_json)
            .bind(&rec.status)
            .bind(&rec.time_zone)
            .bind(&at)
            .execute(&mut *conn)
            .await?;
            record_change(
                conn,
                "rule_created",
                "rule",
                &rule_code,
                serde_json::json!({"name": rec.name, "city_code": rec.city_code,
                    "lot_codes": rec.lot_codes, "status": rec.status, "time_zone": rec.time_zone}),
                origin,
                Some(line),
            )
            .await?;
        }
        Some(s) if s.name != rec.name || s.status != rec.status || s.lot_codes != rec.lot_codes => {
            sqlx::query(
                "UPDATE billing_rules SET name = ?, lot_codes = ?, status = ? WHERE rule_code = ?",
            )
            .bind(&rec.name)
            .bind(&lots_json)
            .bind(&rec.status)
            .bind(&rule_code)
            .execute(&mut *conn)
            .await?;
            record_change(
                conn,
                "rule_updated",
                "rule",
                &rule_code,
                serde_json::json!({
                    "before": {"name": s.name, "lot_codes": s.lot_codes, "status": s.status},
                    "after": {"name": rec.name, "lot_codes": rec.lot_codes, "status": rec.status}}),
                origin,
                Some(line),
            )
            .await?;
        }
        Some(_) => {}
    }
    for v in &new {
        insert_version(conn, &rule_code, v, &at, origin, Some(line)).await?;
    }
    Ok(Applied::Done {
        rule_code,
        new: new.iter().map(|v| v.version_no).collect(),
        same,
    })
}

async fn insert_version(
    conn: &mut SqliteConnection,
    rule_code: &str,
    v: &VersionRecord,
    at: &str,
    origin: &str,
    line: Option<usize>,
) -> Result<()> {
    sqlx::query(
        "INSERT INTO billing_rule_versions (rule_code, version_no, effective_from, effective_to, payload, created_at)
         VALUES (?, ?, ?, ?, ?, ?)",
    )
    .bind(rule_code)
    .bind(v.version_no)
    .bind(show(v.from))
    .bind(v.to.map(show))
    .bind(&v.payload_json)
    .bind(at)
    .execute(&mut *conn)
    .await?;
    record_change(
        conn,
        "version_added",
        "version",
        &format!("{rule_code} v{}", v.version_no),
        serde_json::json!({"version_no": v.version_no, "effective_from": show(v.from),
            "effective_to": v.to.map(show),
            "payload": serde_json::from_str::<Value>(&v.payload_json).unwrap_or(Value::Null)}),
        origin,
        line,
    )
    .await
}

/// Imports a JSON array of rules (the spec's shape). Each rule record is
/// checked whole: a bad one is skipped with its line and field and nothing of
/// it is stored; the others are. Identical data changes nothing; a new
/// version is appended; a stored version with other content is refused. The
/// explanations of the imported rules' versions go into the knowledge store.
pub async fn import_rules(
    pool: &SqlitePool,
    json_text: &str,
    origin: &str,
) -> Result<ImportReport> {
    let value: Value = serde_json::from_str(json_text).map_err(|e| {
        BillingStoreError::Invalid(format!(
            "{origin}: not valid JSON at line {} column {}: {e}",
            e.line(),
            e.column()
        ))
    })?;
    let Value::Array(items) = value else {
        return Err(BillingStoreError::Invalid(format!(
            "{origin}: expected a JSON array of rules ([{{\"rule_code\": ..., \"versions\": [...]}}, ...])"
        )));
    };
    if items.is_empty() {
        return Err(BillingStoreError::Invalid(format!(
            "{origin}: no rules in the file"
        )));
    }
    let lines = element_lines(json_text);
    let mut report = ImportReport {
        origin: origin.to_owned(),
        ..Default::default()
    };
    let mut touched: BTreeMap<String, BTreeSet<i64>> = BTreeMap::new();
    let mut tx = pool.begin_with("BEGIN IMMEDIATE").await?;
    for (i, item) in items.iter().enumerate() {
        let line = lines.get(i).copied().unwrap_or(1);
        let key = item
            .get("rule_code")
            .and_then(Value::as_str)
            .map(|s| s.trim().to_owned());
        let skip = |errors: Vec<(String, String)>, report: &mut ImportReport| {
            for (field, message) in errors {
                report.skipped.push(SkippedRecord {
                    line,
                    record: i + 1,
                    key: key.clone(),
                    field: (!field.is_empty()).then_some(field),
                    message,
                });
            }
        };
        let rec = match parse_rule_record(item) {
            Ok(r) => r,
            Err(errors) => {
                skip(errors, &mut report);
                continue;
            }
        };
        match apply_rule(&mut tx, &rec, origin, line).await? {
            Applied::Refused(errors) => skip(errors, &mut report),
            Applied::Done {
                rule_code,
                new,
                same,
            } => {
                for (list, nos) in [(&mut report.imported, &new), (&mut report.unchanged, &same)] {
                    for n in nos {
                        list.push(ImportedItem {
                            key: rule_code.clone(),
                            version_no: Some(*n),
                            line,
                        });
                    }
                }
                touched
                    .entry(rule_code)
                    .or_default()
                    .extend(new.iter().chain(&same));
            }
        }
    }
    // The explanations commit with the rules: never a rule without its own.
    report.explanations = Some(ingest_explanations(&mut tx, &touched).await?);
    tx.commit().await?;
    Ok(report)
}

/// Adds one version to a stored rule, with the overlap guard. Adding a
/// version identical to a stored one changes nothing.
pub async fn add_version(
    pool: &SqlitePool,
    rule_code: &str,
    version: NewVersion,
    origin: &str,
) -> Result<VersionInfo> {
    let mut tx = pool.begin_with("BEGIN IMMEDIATE").await?;
    let rule = find_rule(&mut tx, &RuleRef::Code(rule_code.to_owned())).await?;
    let tz = rule.tz()?;
    let next = rule
        .versions
        .iter()
        .map(|v| v.version_no)
        .max()
        .unwrap_or(0)
        + 1;
    let map = serde_json::to_value(&version)
        .ok()
        .and_then(|v| v.as_object().cloned())
        .unwrap_or_default();
    let mut errors = Vec::new();
    let rec = parse_version(&map, "", 0, tz, Some(next), &mut errors);
    let rec = match (rec, errors.first()) {
        (Some(r), None) => r,
        (_, Some((field, message))) => {
            return Err(BillingStoreError::Invalid(format!("{field}: {message}")))
        }
        (None, None) => return Err(BillingStoreError::Invalid("incomplete version".into())),
    };
    let record = RuleRecord {
        rule_code: rule.rule_code.clone(),
        name: rule.name.clone(),
        city_code: rule.city_code.clone(),
        lot_codes: rule.lot_codes.clone(),
        status: rule.status.clone(),
        time_zone: rule.time_zone.clone(),
        versions: vec![rec],
    };
    let version_no = record.versions[0].version_no;
    match apply_rule(&mut tx, &record, origin, 0).await? {
        Applied::Refused(errors) => {
            let text = errors
                .into_iter()
                .map(|(f, m)| format!("{}: {m}", f.trim_start_matches("versions[0].")))
                .collect::<Vec<_>>()
                .join("; ");
            return Err(BillingStoreError::Conflict(text));
        }
        Applied::Done { .. } => {}
    }
    let touched = BTreeMap::from([(rule.rule_code.clone(), BTreeSet::from([version_no]))]);
    ingest_explanations(&mut tx, &touched).await?;
    tx.commit().await?;
    let rule = get_rule(pool, &rule.rule_code).await?;
    rule.versions
        .into_iter()
        .find(|v| v.version_no == version_no)
        .ok_or_else(|| BillingStoreError::NotFound(format!("version {version_no} vanished")))
}

// This `Serialize` lets `add_version` reuse the import's field checks.
impl Serialize for NewVersion {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(None)?;
        if let Some(n) = self.version_no {
            m.serialize_entry("version_no", &n)?;
        }
        m.serialize_entry("effective_from", &self.effective_from)?;
        if let Some(t) = &self.effective_to {
            m.serialize_entry("effective_to", t)?;
        }
        m.serialize_entry("payload", &self.payload)?;
        m.end()
    }
}

/// Generates and ingests the explanations of the given rule versions.
/// Idempotent: unchanged explanations are left as they are; an explanation
/// stored earlier with another text (the rule's name or lots changed since)
/// is kept and listed in `kept`.
async fn ingest_explanations(
    tx: &mut SqliteConnection,
    touched: &BTreeMap<String, BTreeSet<i64>>,
) -> Result<ExplainSummary> {
    let mut docs = Vec::new();
    for (code, nos) in touched {
        let rule = find_rule(&mut *tx, &RuleRef::Code(code.clone())).await?;
        for v in rule.versions.iter().filter(|v| nos.contains(&v.version_no)) {
            docs.push(super::explain::explain(&rule, v));
        }
    }
    if docs.is_empty() {
        return Ok(ExplainSummary::default());
    }
    let report = knowledge::index::ingest_in(tx, docs, Vec::new()).await?;
    for s in &report.skipped {
        tracing::info!("billing explanation kept as stored: {s}");
    }
    Ok(ExplainSummary {
        ingested: report
            .imported
            .iter()
            .map(|s| format!("{}@v{}", s.source_id, s.version))
            .collect(),
        unchanged: report.unchanged.len(),
        kept: report.skipped.iter().map(|e| e.message.clone()).collect(),
    })
}

// ---------------------------------------------------------------- orders

const ORDER_FIELDS: &[&str] = &[
    "order_no",
    "city_code",
    "lot_code",
    "plate_no",
    "entry_time",
    "exit_time",
    "total_amount",
    "paid_amount",
];

struct OrderRecord {
    order_no: String,
    city_code: String,
    lot_code: String,
    plate_no: String,
    entry_time: String,
    exit_time: String,
    entry_utc: String,
    total: Money,
    paid: Money,
}

/// The zone a site's order times are read in: the covering rule's, else any
/// rule's in the city, else UTC.
async fn site_zone(conn: &mut SqliteConnection, city: &str, lot: &str) -> Result<Tz> {
    let rows: Vec<(String, String, String)> = sqlx::query_as(
        "SELECT time_zone, lot_codes, status FROM billing_rules WHERE city_code = ?
         ORDER BY status = 'active' DESC, rule_code",
    )
    .bind(city)
    .fetch_all(&mut *conn)
    .await?;
    let covering = rows.iter().find(|(_, lots, _)| {
        serde_json::from_str::<Vec<String>>(lots).is_ok_and(|l| l.iter().any(|x| x == lot))
    });
    let name = covering
        .or(rows.first())
        .map(|(tz, _, _)| tz.as_str())
        .unwrap_or("UTC");
    Ok(parse_time_zone(name).unwrap_or(Tz::UTC))
}

async fn parse_order(
    conn: &mut SqliteConnection,
    map: &Map<String, Value>,
) -> Result<std::result::Result<OrderRecord, Vec<(String, String)>>> {
    let mut f = Fields::new(map, "", ORDER_FIELDS);
    let order_no = f.checked("order_no", check_order_no);
    let city = f.checked("city_code", normalize_code);
    let lot = f.checked("lot_code", normalize_code);
    let plate = f.checked("plate_no", normalize_plate);
    let entry_text = f.string("entry_time").map(|s| s.trim().to_owned());
    let exit_text = f.string("exit_time").map(|s| s.trim().to_owned());
    let total = f.money("total_amount");
    let paid = f.money("paid_amount");
    let tz = match (&city, &lot) {
        (Some(c), Some(l)) => site_zone(conn, c, l).await?,
        _ => Tz::UTC,
    };
    let time = |f: &mut Fields, key: &str, text: &Option<String>| -> Option<DateTime<Tz>> {
        match parse_site_time(text.as_deref()?, tz) {
            Ok(t) => Some(t),
            Err(e) => {
                f.fail(key, e.to_string());
                None
            }
        }
    };
    let entry = time(&mut f, "entry_time", &entry_text);
    let exit = time(&mut f, "exit_time", &exit_text);
    if let (Some(a), Some(b)) = (&entry, &exit) {
        let minutes = (b.timestamp() - a.timestamp()).div_euclid(60);
        let (ea, eb) = (show(a.naive_local()), show(b.naive_local()));
        if b < a {
            f.fail(
                "exit_time",
                BillingError::ExitBeforeEntry {
                    entry: ea,
                    exit: eb,
                }
                .to_string(),
            );
        } else if minutes > MAX_STAY_DAYS * 1440 {
            f.fail(
                "exit_time",
                BillingError::StayTooLong {
                    entry: ea,
                    exit: eb,
                    minutes,
                }
                .to_string(),
            );
        }
    }
    if !f.errors.is_empty() {
        return Ok(Err(f.errors));
    }
    match (
        order_no, city, lot, plate, entry_text, exit_text, entry, total, paid,
    ) {
        (
            Some(order_no),
            Some(city_code),
            Some(lot_code),
            Some(plate_no),
            Some(entry_time),
            Some(exit_time),
            Some(entry),
            Some(total),
            Some(paid),
        ) => Ok(Ok(OrderRecord {
            order_no,
            city_code,
            lot_code,
            plate_no,
            entry_time,
            exit_time,
            entry_utc: entry
                .with_timezone(&Utc)
                .format("%Y-%m-%dT%H:%M:%SZ")
                .to_string(),
            total,
            paid,
        })),
        _ => Ok(Err(vec![(String::new(), "incomplete order".into())])),
    }
}

/// Imports orders from JSONL, one a line. A bad line is skipped with its
/// line and field and nothing of it is stored; the good lines are. An order
/// already stored identically is unchanged; with other content, refused.
pub async fn import_orders(
    pool: &SqlitePool,
    jsonl_text: &str,
    origin: &str,
) -> Result<ImportReport> {
    let mut report = ImportReport {
        origin: origin.to_owned(),
        ..Default::default()
    };
    let mut tx = pool.begin_with("BEGIN IMMEDIATE").await?;
    let mut record = 0;
    for (i, raw) in jsonl_text.lines().enumerate() {
        let line = i + 1;
        if raw.trim().is_empty() {
            continue;
        }
        record += 1;
        let mut skip = |key: Option<String>, field: Option<String>, message: String| {
            report.skipped.push(SkippedRecord {
                line,
                record,
                key,
                field,
                message,
            })
        };
        let map = match serde_json::from_str::<Value>(raw) {
            Ok(Value::Object(m)) => m,
            Ok(other) => {
                skip(
                    None,
                    None,
                    format!("a line must be one JSON object (an order), got {other}"),
                );
                continue;
            }
            Err(e) => {
                skip(
                    None,
                    None,
                    format!("not valid JSON (column {}): {e}", e.column()),
                );
                continue;
            }
        };
        let key = map
            .get("order_no")
            .and_then(Value::as_str)
            .map(|s| s.trim().to_owned());
        let o = match parse_order(&mut tx, &map).await? {
            Ok(o) => o,
            Err(errors) => {
                for (field, message) in errors {
                    skip(key.clone(), (!field.is_empty()).then_some(field), message);
                }
                continue;
            }
        };
        let stored = sqlx::query(
            "SELECT city_code, lot_code, plate_no, entry_time, exit_time, total_amount_cents, paid_amount_cents
             FROM parking_orders WHERE order_no = ?",
        )
        .bind(&o.order_no)
        .fetch_optional(&mut *tx)
        .await?;
        if let Some(r) = stored {
            let mut differs = Vec::new();
            for (field, mine, theirs) in [
                (
                    "city_code",
                    o.city_code.clone(),
                    r.get::<String, _>("city_code"),
                ),
                ("lot_code", o.lot_code.clone(), r.get("lot_code")),
                ("plate_no", o.plate_no.clone(), r.get("plate_no")),
                ("entry_time", o.entry_time.clone(), r.get("entry_time")),
                ("exit_time", o.exit_time.clone(), r.get("exit_time")),
                (
                    "total_amount",
                    o.total.to_string(),
                    Money::from_cents(r.get("total_amount_cents")).to_string(),
                ),
                (
                    "paid_amount",
                    o.paid.to_string(),
                    Money::from_cents(r.get("paid_amount_cents")).to_string(),
                ),
            ] {
                if mine != theirs {
                    differs.push(format!("{field} {theirs} stored, {mine} here"));
                }
            }
            if differs.is_empty() {
                report.unchanged.push(ImportedItem {
                    key: o.order_no,
                    version_no: None,
                    line,
                });
            } else {
                skip(
                    Some(o.order_no.clone()),
                    Some("order_no".into()),
                    format!(
                        "order {} is already stored with other content ({}); import does not edit orders",
                        o.order_no,
                        differs.join(", ")
                    ),
                );
            }
            continue;
        }
        sqlx::query(
            "INSERT INTO parking_orders (order_no, city_code, lot_code, plate_no, entry_time, exit_time, entry_utc,
                                         total_amount_cents, paid_amount_cents, created_at)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        )
        .bind(&o.order_no)
        .bind(&o.city_code)
        .bind(&o.lot_code)
        .bind(&o.plate_no)
        .bind(&o.entry_time)
        .bind(&o.exit_time)
        .bind(&o.entry_utc)
        .bind(o.total.cents())
        .bind(o.paid.cents())
        .bind(now())
        .execute(&mut *tx)
        .await?;
        record_change(
            &mut tx,
            "order_added",
            "order",
            &o.order_no,
            serde_json::json!({"city_code": o.city_code, "lot_code": o.lot_code,
                "plate_no": o.plate_no, "entry_time": o.entry_time, "exit_time": o.exit_time,
                "total_amount": o.total, "paid_amount": o.paid}),
            origin,
            Some(line),
        )
        .await?;
        report.imported.push(ImportedItem {
            key: o.order_no,
            version_no: None,
            line,
        });
    }
    if record == 0 {
        return Err(BillingStoreError::Invalid(format!(
            "{origin}: no orders in the file (JSONL: one order object a line)"
        )));
    }
    tx.commit().await?;
    Ok(report)
}

fn order_from_row(r: &sqlx::sqlite::SqliteRow) -> OrderInfo {
    let total = Money::from_cents(r.get("total_amount_cents"));
    let paid = Money::from_cents(r.get("paid_amount_cents"));
    OrderInfo {
        order_no: r.get("order_no"),
        city_code: r.get("city_code"),
        lot_code: r.get("lot_code"),
        plate_no: r.get("plate_no"),
        entry_time: r.get("entry_time"),
        exit_time: r.get("exit_time"),
        total_amount: total,
        paid_amount: paid,
        arrears_amount: Money::from_cents((total.cents() - paid.cents()).max(0)),
        created_at: r.get("created_at"),
    }
}

/// Stored orders, optionally of one plate and/or city, by entry time then
/// order number.
pub async fn list_orders(
    pool: &SqlitePool,
    plate: Option<&str>,
    city: Option<&str>,
) -> Result<Vec<OrderInfo>> {
    let plate = plate
        .map(normalize_plate)
        .transpose()
        .map_err(|e| BillingStoreError::Invalid(format!("plate_no: {e}")))?;
    let city = city
        .map(normalize_code)
        .transpose()
        .map_err(|e| BillingStoreError::Invalid(format!("city_code: {e}")))?;
    let rows = sqlx::query(
        "SELECT * FROM parking_orders
         WHERE (?1 IS NULL OR plate_no = ?1) AND (?2 IS NULL OR city_code = ?2)
         ORDER BY entry_utc, order_no",
    )
    .bind(plate)
    .bind(city)
    .fetch_all(pool)
    .await?;
    Ok(rows.iter().map(order_from_row).collect())
}

/// One stored order.
pub async fn get_order(pool: &SqlitePool, order_no: &str) -> Result<OrderInfo> {
    let row = sqlx::query("SELECT * FROM parking_orders WHERE order_no = ?")
        .bind(order_no.trim())
        .fetch_optional(pool)
        .await?;
    row.as_ref().map(order_from_row).ok_or_else(|| {
        BillingStoreError::NotFound(format!(
            "unknown order {:?}: no order has that number",
            order_no.trim()
        ))
    })
}

/// What a plate still owes (optionally in one city): the unpaid and partly
/// paid orders and their sum. A plate with no orders owes nothing (`NONE`).
pub async fn arrears(pool: &SqlitePool, plate: &str, city: Option<&str>) -> Result<ArrearsReport> {
    let plate_no =
        normalize_plate(plate).map_err(|e| BillingStoreError::Invalid(format!("plate_no: {e}")))?;
    let all = list_orders(pool, Some(&plate_no), city).await?;
    let city_code = city.map(normalize_code).transpose().ok().flatten();
    let mut total = Money::ZERO;
    let mut orders = Vec::new();
    for o in &all {
        if o.arrears_amount > Money::ZERO {
            total = total.checked_add(o.arrears_amount).ok_or_else(|| {
                BillingStoreError::Billing(BillingError::Overflow { what: "arrears" })
            })?;
            orders.push(ArrearsOrder {
                order_no: o.order_no.clone(),
                city_code: o.city_code.clone(),
                lot_code: o.lot_code.clone(),
                entry_time: o.entry_time.clone(),
                exit_time: o.exit_time.clone(),
                total_amount: o.total_amount,
                paid_amount: o.paid_amount,
                arrears_amount: o.arrears_amount,
            });
        }
    }
    Ok(ArrearsReport {
        plate_no,
        city_code,
        status: if total > Money::ZERO {
            "HAS_ARREARS"
        } else {
            "NONE"
        },
        total_arrears: total,
        orders_checked: all.len(),
        orders,
    })
}

/// Checks an order's total against its stay simulated under the rule that
/// covers its lot at its entry: `consistent` (auto-approve) or `mismatch`
/// (manual review) with the difference and the breakdown.
pub async fn verify(pool: &SqlitePool, order_no: &str) -> Result<Verification> {
    let o = get_order(pool, order_no).await?;
    let scope = RuleRef::Scope {
        city: o.city_code.clone(),
        lot: o.lot_code.clone(),
    };
    let mut conn = pool.acquire().await?;
    let rule = find_rule(&mut conn, &scope).await.map_err(|e| match e {
        BillingStoreError::NotFound(m) => {
            BillingStoreError::NotFound(format!("cannot verify order {}: {m}", o.order_no))
        }
        other => other,
    })?;
    drop(conn);
    let sim = simulate_with(&rule, &o.entry_time, &o.exit_time).map_err(|e| match e {
        BillingStoreError::NotFound(m) => {
            BillingStoreError::NotFound(format!("cannot verify order {}: {m}", o.order_no))
        }
        other => other,
    })?;
    let simulated = sim.breakdown.total;
    let difference = o
        .total_amount
        .checked_sub(simulated)
        .ok_or(BillingError::Overflow { what: "difference" })?;
    let consistent = difference == Money::ZERO;
    Ok(Verification {
        order_no: o.order_no,
        city_code: o.city_code,
        lot_code: o.lot_code,
        plate_no: o.plate_no,
        entry_time: o.entry_time,
        exit_time: o.exit_time,
        result: if consistent { "consistent" } else { "mismatch" },
        action: if consistent {
            "auto_approve"
        } else {
            "manual_review"
        },
        order_total: o.total_amount,
        simulated_total: simulated,
        difference,
        paid_amount: o.paid_amount,
        rule_code: sim.rule_code,
        version_no: sim.version_no,
        time_zone: rule.time_zone,
        pieces: sim.breakdown.pieces,
    })
}

/// How many rules, versions, orders and change records are stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, TS)]
pub struct Counts {
    pub rules: i64,
    pub versions: i64,
    pub orders: i64,
    pub changes: i64,
}

pub async fn counts(pool: &SqlitePool) -> Result<Counts> {
    let (rules, versions, orders, changes): (i64, i64, i64, i64) = sqlx::query_as(
        "SELECT (SELECT COUNT(*) FROM billing_rules), (SELECT COUNT(*) FROM billing_rule_versions),
                (SELECT COUNT(*) FROM parking_orders), (SELECT COUNT(*) FROM billing_changes)",
    )
    .fetch_one(pool)
    .await?;
    Ok(Counts {
        rules,
        versions,
        orders,
        changes,
    })
}

pub(crate) async fn meta_get(pool: &SqlitePool, key: &str) -> Result<Option<String>> {
    Ok(
        sqlx::query_scalar("SELECT value FROM billing_meta WHERE key = ?")
            .bind(key)
            .fetch_optional(pool)
            .await?,
    )
}

pub(crate) async fn meta_set(pool: &SqlitePool, key: &str, value: &str) -> Result<()> {
    sqlx::query(
        "INSERT INTO billing_meta (key, value) VALUES (?, ?)
         ON CONFLICT (key) DO UPDATE SET value = excluded.value",
    )
    .bind(key)
    .bind(value)
    .execute(pool)
    .await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn element_lines_finds_each_record() {
        let text = "[\n  {\"a\": \"x, [y]\"},\n  {\"b\": [1,\n 2]}\n  ,\n  3\n]";
        assert_eq!(element_lines(text), vec![2, 3, 6]);
        assert_eq!(element_lines("[{}, {}]"), vec![1, 1]);
        assert!(element_lines("[]").is_empty());
    }

    #[test]
    fn overlap_is_half_open() {
        let t = |s: &str| crate::billing::model::wall(s);
        let (a, b, c) = (
            t("2026-01-01T00:00"),
            t("2026-03-01T00:00"),
            t("2026-04-01T00:00"),
        );
        assert!(!overlaps(a, Some(b), b, None));
        assert!(overlaps(a, None, b, Some(c)));
        assert!(overlaps(a, Some(c), b, None));
        assert!(!overlaps(b, Some(c), a, Some(b)));
    }

    #[test]
    fn codes_and_plates_normalize() {
        assert_eq!(normalize_code(" lot-a ").unwrap(), "LOT-A");
        assert!(normalize_code("lot a").is_err());
        assert_eq!(normalize_plate("7abc 123").unwrap(), "7ABC123");
        assert_eq!(normalize_plate("沪A10001").unwrap(), "沪A10001");
    }
}
