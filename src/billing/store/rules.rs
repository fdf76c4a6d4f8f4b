//! Rules and their versions: reading, resolving the rule that covers a lot
//! at a time, simulating a stay under it, importing with append-only
//! versions, and ingesting each version's explanation.

use std::collections::{BTreeMap, BTreeSet};

use chrono::NaiveDateTime;
use serde::Serialize;
use serde_json::Value;
use sqlx::{Row, SqliteConnection, SqlitePool};

use super::super::{parse_site_time_as, simulate_between, Payload};
use crate::knowledge;

use super::*;

// ---------------------------------------------------------------- reading

pub(super) async fn load_rules(
    conn: &mut SqliteConnection,
    code: Option<&str>,
) -> Result<Vec<RuleInfo>> {
    let rows = sqlx::query(
        "SELECT rule_code, name, city_code, lot_codes, status, time_zone, created_at
         FROM billing_rules WHERE (?1 IS NULL OR rule_code = ?1) ORDER BY rule_code",
    )
    .bind(code)
    .fetch_all(&mut *conn)
    .await?;
    let mut rules: Vec<RuleInfo> = rows
        .into_iter()
        .map(|r| {
            let rule_code: String = r.get("rule_code");
            let status: &str = r.get("status");
            let status = RuleStatus::parse(status).ok_or_else(|| {
                BillingStoreError::BadRow(format!(
                    "billing_rules row {rule_code}: status {status:?} is not active or inactive"
                ))
            })?;
            Ok(RuleInfo {
                name: r.get("name"),
                city_code: r.get("city_code"),
                lot_codes: serde_json::from_str(r.get::<&str, _>("lot_codes")).unwrap_or_default(),
                status,
                time_zone: r.get("time_zone"),
                created_at: r.get("created_at"),
                versions: Vec::new(),
                rule_code,
            })
        })
        .collect::<Result<_>>()?;
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

pub(super) async fn find_rule(conn: &mut SqliteConnection, rule: &RuleRef) -> Result<RuleInfo> {
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

pub(super) fn simulate_with(info: &RuleInfo, entry: &str, exit: &str) -> Result<RuleSimulation> {
    let tz = info.tz()?;
    let entry = parse_site_time_as("entry", entry, tz)?;
    let exit = parse_site_time_as("exit", exit, tz)?;
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

pub(super) async fn record_change(
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
pub(super) enum Applied {
    Done {
        rule_code: String,
        new: Vec<i64>,
        same: Vec<i64>,
    },
    Refused(Vec<(String, String)>),
}

/// Checks a record against the store and writes it, or nothing of it.
pub(super) async fn apply_rule(
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
    if rec.status == RuleStatus::Active {
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
            .bind(rec.status.as_str())
            .bind(&rec.time_zone)
            .bind(at)
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
            .bind(rec.status.as_str())
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
        insert_version(conn, &rule_code, v, at, origin, Some(line)).await?;
    }
    Ok(Applied::Done {
        rule_code,
        new: new.iter().map(|v| v.version_no).collect(),
        same,
    })
}

pub(super) async fn insert_version(
    conn: &mut SqliteConnection,
    rule_code: &str,
    v: &VersionRecord,
    at: crate::store::Timestamp,
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

/// `field: message` pairs as one line, each pair saying what is wrong where.
fn joined(errors: &[(String, String)]) -> String {
    errors
        .iter()
        .map(|(f, m)| {
            if f.is_empty() {
                m.clone()
            } else {
                format!("{f}: {m}")
            }
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// Creates a rule from one record of a rules file, checked as an import
/// checks it. Unlike an import, a rule code already stored is refused: an
/// import of it would rename or rescope the stored rule, which a form meant
/// to make a new one must not do. The rule, its versions, their
/// explanations and the change log are written in one transaction or not at
/// all; every problem of the record is reported, not only the first.
pub async fn create_rule(pool: &SqlitePool, record: &Value, origin: &str) -> Result<RuleInfo> {
    let rec = parse_rule_record(record).map_err(|e| BillingStoreError::Invalid(joined(&e)))?;
    // IMMEDIATE: the existence check and the insert see the same store.
    let mut tx = pool.begin_with("BEGIN IMMEDIATE").await?;
    if let Some(s) = load_rules(&mut tx, Some(&rec.rule_code)).await?.pop() {
        return Err(BillingStoreError::Conflict(format!(
            "rule_code: {} already exists; add a version to it instead",
            s.rule_code
        )));
    }
    let rule_code = match apply_rule(&mut tx, &rec, origin, 0).await? {
        Applied::Refused(errors) => return Err(BillingStoreError::Conflict(joined(&errors))),
        Applied::Done { rule_code, new, .. } => {
            let touched = BTreeMap::from([(rule_code.clone(), new.into_iter().collect())]);
            ingest_explanations(&mut tx, &touched).await?;
            rule_code
        }
    };
    tx.commit().await?;
    get_rule(pool, &rule_code).await
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
    let rec = match rec {
        Some(r) if errors.is_empty() => r,
        _ if !errors.is_empty() => return Err(BillingStoreError::Invalid(joined(&errors))),
        _ => return Err(BillingStoreError::Invalid("incomplete version".into())),
    };
    let record = RuleRecord {
        rule_code: rule.rule_code.clone(),
        name: rule.name.clone(),
        city_code: rule.city_code.clone(),
        lot_codes: rule.lot_codes.clone(),
        status: rule.status,
        time_zone: rule.time_zone.clone(),
        versions: vec![rec],
    };
    let version_no = record.versions[0].version_no;
    match apply_rule(&mut tx, &record, origin, 0).await? {
        Applied::Refused(errors) => {
            let errors: Vec<_> = errors
                .into_iter()
                .map(|(f, m)| (f.trim_start_matches("versions[0].").to_owned(), m))
                .collect();
            return Err(BillingStoreError::Conflict(joined(&errors)));
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
pub(super) async fn ingest_explanations(
    tx: &mut SqliteConnection,
    touched: &BTreeMap<String, BTreeSet<i64>>,
) -> Result<ExplainSummary> {
    let mut docs = Vec::new();
    for (code, nos) in touched {
        let rule = find_rule(&mut *tx, &RuleRef::Code(code.clone())).await?;
        for v in rule.versions.iter().filter(|v| nos.contains(&v.version_no)) {
            docs.push(super::super::explain::explain(&rule, v));
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
