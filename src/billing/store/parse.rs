//! Reading import files: codes and plates normalized, JSON records checked
//! field by field with their line, rule and version records parsed.

use chrono::{NaiveDateTime, Timelike, Utc};
use serde_json::{Map, Value};

use super::super::{parse_site_time, parse_time_zone, Money, Payload, Tz};

use super::*;

// ---------------------------------------------------------------- helpers

pub(super) fn now() -> crate::store::Timestamp {
    crate::store::now()
}

/// Now, on the site's wall clock, at minute precision.
pub(super) fn now_in(tz: Tz) -> NaiveDateTime {
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

pub(super) fn check_rule_code(s: &str) -> std::result::Result<String, String> {
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

pub(super) fn check_order_no(s: &str) -> std::result::Result<String, String> {
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
pub(super) fn overlaps(
    a_from: NaiveDateTime,
    a_to: Option<NaiveDateTime>,
    b_from: NaiveDateTime,
    b_to: Option<NaiveDateTime>,
) -> bool {
    a_to.is_none_or(|t| b_from < t) && b_to.is_none_or(|t| a_from < t)
}

/// The line each top-level element of a JSON array starts on.
pub(super) fn element_lines(text: &str) -> Vec<usize> {
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
pub(super) struct Fields<'a> {
    pub(super) map: &'a Map<String, Value>,
    pub(super) prefix: String,
    pub(super) errors: Vec<(String, String)>,
}

impl<'a> Fields<'a> {
    pub(super) fn new(map: &'a Map<String, Value>, prefix: &str, known: &[&str]) -> Self {
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

    pub(super) fn fail(&mut self, field: &str, message: impl Into<String>) {
        self.errors
            .push((format!("{}{field}", self.prefix), message.into()));
    }

    pub(super) fn get(&self, key: &str) -> Option<&'a Value> {
        self.map.get(key).filter(|v| !v.is_null())
    }

    pub(super) fn string(&mut self, key: &str) -> Option<String> {
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

    pub(super) fn opt_string(&mut self, key: &str) -> Option<String> {
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
    pub(super) fn checked<T>(
        &mut self,
        key: &str,
        check: impl Fn(&str) -> std::result::Result<T, String>,
    ) -> Option<T> {
        let s = self.string(key)?;
        match check(&s) {
            Ok(v) => Some(v),
            Err(e) => {
                self.fail(key, e);
                None
            }
        }
    }

    pub(super) fn money(&mut self, key: &str) -> Option<Money> {
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
pub(super) struct RuleRecord {
    pub(super) rule_code: String,
    pub(super) name: String,
    pub(super) city_code: String,
    pub(super) lot_codes: Vec<String>,
    pub(super) status: RuleStatus,
    pub(super) time_zone: String,
    pub(super) versions: Vec<VersionRecord>,
}

pub(super) struct VersionRecord {
    /// Position in the record's `versions`.
    pub(super) index: usize,
    pub(super) version_no: i64,
    pub(super) from: NaiveDateTime,
    pub(super) to: Option<NaiveDateTime>,
    /// Canonical JSON of the validated payload.
    pub(super) payload_json: String,
}

impl VersionRecord {
    pub(super) fn same_as(&self, v: &VersionInfo) -> bool {
        let stored = serde_json::to_string(&v.payload).unwrap_or_default();
        self.from == v.from_time() && self.to == v.to_time() && self.payload_json == stored
    }

    pub(super) fn span(&self) -> String {
        match self.to {
            Some(to) => format!("{} to {}", show(self.from), show(to)),
            None => format!("from {} (open-ended)", show(self.from)),
        }
    }
}

pub(super) const RULE_FIELDS: &[&str] = &[
    "rule_code",
    "name",
    "city_code",
    "lot_codes",
    "status",
    "time_zone",
    "versions",
];
pub(super) const VERSION_FIELDS: &[&str] =
    &["version_no", "effective_from", "effective_to", "payload"];

/// Checks one version object against the site's zone.
pub(super) fn parse_version(
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

pub(super) fn parse_rule_record(
    item: &Value,
) -> std::result::Result<RuleRecord, Vec<(String, String)>> {
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
    let status = f.checked("status", |s| {
        RuleStatus::parse(s.trim())
            .ok_or_else(|| format!("{:?} is not active or inactive", s.trim()))
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
