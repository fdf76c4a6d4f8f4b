//! The repair order's complaint lines with their labor and parts, as the
//! writer records them. Amounts are integers here (cents, hundredths of an
//! hour or of a unit); pricing them is the Desk's (`desk::pricing`, with the
//! exact `Money` type). A line is saved whole, its labor and parts replaced
//! in the same transaction, so a refused save leaves the line as it was.

use super::Timestamp;
use serde::{Deserialize, Serialize};
use sqlx::{Row, Sqlite, Transaction};
use ts_rs::TS;

use super::{new_id, now, Result, Store, StoreError};

/// Who pays for a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum PayType {
    Customer,
    Warranty,
    Internal,
    ServiceContract,
}

impl PayType {
    pub const ALL: [PayType; 4] = [
        PayType::Customer,
        PayType::Warranty,
        PayType::Internal,
        PayType::ServiceContract,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Customer => "customer",
            Self::Warranty => "warranty",
            Self::Internal => "internal",
            Self::ServiceContract => "service_contract",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.as_str() == s)
    }
}

/// For a warranty line: whose warranty pays.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum WarrantyPayer {
    /// The chassis maker (Ford, Freightliner, ...).
    Chassis,
    /// The coach (body) maker.
    Coach,
    /// The maker of a component (Dometic, Norcold, ...), named on the line.
    Component,
}

impl WarrantyPayer {
    pub const ALL: [WarrantyPayer; 3] = [Self::Chassis, Self::Coach, Self::Component];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Chassis => "chassis",
            Self::Coach => "coach",
            Self::Component => "component",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.as_str() == s)
    }
}

/// The answer to a line's estimate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum AuthStatus {
    Pending,
    Approved,
    Declined,
}

impl AuthStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Pending => "pending",
            Self::Approved => "approved",
            Self::Declined => "declined",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        [Self::Pending, Self::Approved, Self::Declined]
            .into_iter()
            .find(|a| a.as_str() == s)
    }
}

/// How an answer was given.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, TS)]
#[serde(rename_all = "snake_case")]
pub enum AuthMethod {
    InPerson,
    Phone,
    /// Signed on the screen.
    Signature,
}

impl AuthMethod {
    pub const ALL: [AuthMethod; 3] = [Self::InPerson, Self::Phone, Self::Signature];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::InPerson => "in_person",
            Self::Phone => "phone",
            Self::Signature => "signature",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|a| a.as_str() == s)
    }
}

/// A line's authorization as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Authorization {
    pub status: AuthStatus,
    pub by: Option<String>,
    pub method: Option<AuthMethod>,
    pub at: Option<Timestamp>,
    /// The estimate's total (cents) the answer was given for.
    pub total_cents: Option<i64>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LaborRow {
    pub description: String,
    pub hours_x100: i64,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartRow {
    pub part_no: String,
    pub description: String,
    pub qty_x100: i64,
    pub unit_price_cents: i64,
}

/// A line as stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoLine {
    pub id: String,
    pub line_no: i64,
    pub complaint: String,
    pub pay_type: PayType,
    pub warranty_payer: Option<WarrantyPayer>,
    pub warranty_maker: Option<String>,
    pub engine_complaint: Option<String>,
    pub labor: Vec<LaborRow>,
    pub parts: Vec<PartRow>,
    pub authorization: Authorization,
}

/// A line to save: a new one (no `id`, numbered after the last) or an
/// existing one replaced whole.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SaveLine {
    pub id: Option<String>,
    pub complaint: String,
    pub pay_type: PayType,
    pub warranty_payer: Option<WarrantyPayer>,
    pub warranty_maker: Option<String>,
    pub engine_complaint: Option<String>,
    pub labor: Vec<LaborRow>,
    pub parts: Vec<PartRow>,
    /// Whether the line's authorization stands (its estimate did not
    /// change); otherwise it goes back to pending.
    pub keep_authorization: bool,
}

impl Store {
    /// A session's lines in order, each with its labor and parts.
    pub async fn ro_lines(&self, session_id: &str) -> Result<Vec<RoLine>> {
        self.session(session_id).await?;
        // One read transaction: the lines and their items from one snapshot,
        // never a line from before a save with items from after it.
        let mut conn = self.pool().begin().await?;
        let rows = sqlx::query(
            "SELECT id, line_no, complaint, pay_type, warranty_payer, warranty_maker, engine_complaint,
                    auth_status, auth_by, auth_method, auth_at, auth_total_cents
               FROM ro_lines WHERE session_id = ? ORDER BY line_no",
        )
        .bind(session_id)
        .fetch_all(&mut *conn)
        .await?;
        let mut lines: Vec<RoLine> = rows
            .iter()
            .map(|r| RoLine {
                id: r.get("id"),
                line_no: r.get("line_no"),
                complaint: r.get("complaint"),
                // The table's CHECKs admit only the known values.
                pay_type: PayType::parse(r.get("pay_type")).unwrap_or(PayType::Customer),
                warranty_payer: r
                    .get::<Option<String>, _>("warranty_payer")
                    .as_deref()
                    .and_then(WarrantyPayer::parse),
                warranty_maker: r.get("warranty_maker"),
                engine_complaint: r.get("engine_complaint"),
                labor: Vec::new(),
                parts: Vec::new(),
                authorization: Authorization {
                    status: AuthStatus::parse(r.get("auth_status")).unwrap_or(AuthStatus::Pending),
                    by: r.get("auth_by"),
                    method: r
                        .get::<Option<String>, _>("auth_method")
                        .as_deref()
                        .and_then(AuthMethod::parse),
                    at: r.get("auth_at"),
                    total_cents: r.get("auth_total_cents"),
                },
            })
            .collect();
        let labor: Vec<(String, String, i64)> = sqlx::query_as(
            "SELECT l.line_id, l.description, l.hours_x100 FROM ro_labor l
               JOIN ro_lines r ON r.id = l.line_id WHERE r.session_id = ? ORDER BY l.line_id, l.seq",
        )
        .bind(session_id)
        .fetch_all(&mut *conn)
        .await?;
        let parts: Vec<(String, String, String, i64, i64)> = sqlx::query_as(
            "SELECT p.line_id, p.part_no, p.description, p.qty_x100, p.unit_price_cents FROM ro_parts p
               JOIN ro_lines r ON r.id = p.line_id WHERE r.session_id = ? ORDER BY p.line_id, p.seq",
        )
        .bind(session_id)
        .fetch_all(&mut *conn)
        .await?;
        for line in &mut lines {
            line.labor = labor
                .iter()
                .filter(|(id, ..)| *id == line.id)
                .map(|(_, description, hours_x100)| LaborRow {
                    description: description.clone(),
                    hours_x100: *hours_x100,
                })
                .collect();
            line.parts = parts
                .iter()
                .filter(|(id, ..)| *id == line.id)
                .map(
                    |(_, part_no, description, qty_x100, unit_price_cents)| PartRow {
                        part_no: part_no.clone(),
                        description: description.clone(),
                        qty_x100: *qty_x100,
                        unit_price_cents: *unit_price_cents,
                    },
                )
                .collect();
        }
        conn.commit().await?;
        Ok(lines)
    }

    /// Saves one line whole (its labor and parts replaced) in one
    /// transaction, with its audit row (`session_edits`: the line before
    /// and after); returns the line's id.
    pub async fn save_ro_line(
        &self,
        session_id: &str,
        line: &SaveLine,
        edited_by: Option<&str>,
    ) -> Result<String> {
        self.session(session_id).await?;
        let at = now();
        let mut tx = self.begin_write().await?;
        let (id, before) = match &line.id {
            Some(id) => {
                let before = line_summary(&mut tx, session_id, id).await?;
                let update = sqlx::query(
                    "UPDATE ro_lines SET complaint = ?, pay_type = ?, warranty_payer = ?,
                       warranty_maker = ?, engine_complaint = ?, updated_at = ?,
                       auth_status = CASE WHEN ?9 THEN auth_status ELSE 'pending' END,
                       auth_by = CASE WHEN ?9 THEN auth_by END,
                       auth_method = CASE WHEN ?9 THEN auth_method END,
                       auth_at = CASE WHEN ?9 THEN auth_at END,
                       auth_total_cents = CASE WHEN ?9 THEN auth_total_cents END
                     WHERE id = ?7 AND session_id = ?8",
                )
                .bind(&line.complaint)
                .bind(line.pay_type.as_str())
                .bind(line.warranty_payer.map(WarrantyPayer::as_str))
                .bind(&line.warranty_maker)
                .bind(&line.engine_complaint)
                .bind(at)
                .bind(id)
                .bind(session_id)
                .bind(line.keep_authorization);
                update_line(&mut tx, session_id, id, update, at).await?;
                sqlx::query("DELETE FROM ro_labor WHERE line_id = ?")
                    .bind(id)
                    .execute(&mut *tx)
                    .await?;
                sqlx::query("DELETE FROM ro_parts WHERE line_id = ?")
                    .bind(id)
                    .execute(&mut *tx)
                    .await?;
                (id.clone(), before)
            }
            None => {
                touch_session(&mut tx, session_id, at).await?;
                let id = new_id();
                sqlx::query(
                    "INSERT INTO ro_lines (id, session_id, line_no, complaint, pay_type,
                       warranty_payer, warranty_maker, engine_complaint, created_at, updated_at)
                     VALUES (?, ?, (SELECT COALESCE(MAX(line_no), 0) + 1 FROM ro_lines WHERE session_id = ?),
                             ?, ?, ?, ?, ?, ?, ?)",
                )
                .bind(&id)
                .bind(session_id)
                .bind(session_id)
                .bind(&line.complaint)
                .bind(line.pay_type.as_str())
                .bind(line.warranty_payer.map(WarrantyPayer::as_str))
                .bind(&line.warranty_maker)
                .bind(&line.engine_complaint)
                .bind(at)
                .bind(at)
                .execute(&mut *tx)
                .await?;
                (id, None)
            }
        };
        for (i, l) in line.labor.iter().enumerate() {
            sqlx::query(
                "INSERT INTO ro_labor (id, line_id, seq, description, hours_x100) VALUES (?, ?, ?, ?, ?)",
            )
            .bind(new_id())
            .bind(&id)
            .bind(i as i64 + 1)
            .bind(&l.description)
            .bind(l.hours_x100)
            .execute(&mut *tx)
            .await?;
        }
        for (i, p) in line.parts.iter().enumerate() {
            sqlx::query(
                "INSERT INTO ro_parts (id, line_id, seq, part_no, description, qty_x100, unit_price_cents)
                 VALUES (?, ?, ?, ?, ?, ?, ?)",
            )
            .bind(new_id())
            .bind(&id)
            .bind(i as i64 + 1)
            .bind(&p.part_no)
            .bind(&p.description)
            .bind(p.qty_x100)
            .bind(p.unit_price_cents)
            .execute(&mut *tx)
            .await?;
        }
        let after = line_summary(&mut tx, session_id, &id).await?;
        if let Some(after) = after {
            let old = before.as_ref().map(|b| b.line.clone());
            if old.as_deref() != Some(after.line.as_str()) {
                let field = format!("line {}", after.line_no);
                super::sessions::insert_edit(
                    &mut tx,
                    session_id,
                    &field,
                    old.as_deref(),
                    Some(&after.line),
                    edited_by,
                    at,
                )
                .await?;
            }
            // A changed estimate puts its answer back to pending: say so.
            if let Some(b) = before.filter(|b| b.authorization != after.authorization) {
                let field = format!("line {} authorization", after.line_no);
                super::sessions::insert_edit(
                    &mut tx,
                    session_id,
                    &field,
                    Some(&b.authorization),
                    Some(&after.authorization),
                    edited_by,
                    at,
                )
                .await?;
            }
        }
        tx.commit().await?;
        Ok(id)
    }

    /// Records the answer to a line's estimate, with its audit row.
    pub async fn authorize_ro_line(
        &self,
        session_id: &str,
        line_id: &str,
        auth: &Authorization,
        edited_by: Option<&str>,
    ) -> Result<()> {
        let mut tx = self.begin_write().await?;
        let at = now();
        let before = line_summary(&mut tx, session_id, line_id).await?;
        let update = sqlx::query(
            "UPDATE ro_lines SET auth_status = ?, auth_by = ?, auth_method = ?, auth_at = ?,
                    auth_total_cents = ?, updated_at = ?
              WHERE id = ? AND session_id = ?",
        )
        .bind(auth.status.as_str())
        .bind(&auth.by)
        .bind(auth.method.map(AuthMethod::as_str))
        .bind(auth.at)
        .bind(auth.total_cents)
        .bind(at)
        .bind(line_id)
        .bind(session_id);
        update_line(&mut tx, session_id, line_id, update, at).await?;
        if let (Some(b), Some(a)) = (before, line_summary(&mut tx, session_id, line_id).await?) {
            let field = format!("line {} authorization", a.line_no);
            super::sessions::insert_edit(
                &mut tx,
                session_id,
                &field,
                Some(&b.authorization),
                Some(&a.authorization),
                edited_by,
                at,
            )
            .await?;
        }
        tx.commit().await?;
        Ok(())
    }

    /// Removes a line with its labor and parts (the audit row keeps what it
    /// was); the lines after it move up one number, so a repair order's
    /// lines stay 1, 2, 3...
    pub async fn delete_ro_line(
        &self,
        session_id: &str,
        line_id: &str,
        edited_by: Option<&str>,
    ) -> Result<()> {
        let mut tx = self.begin_write().await?;
        let at = now();
        let Some(before) = line_summary(&mut tx, session_id, line_id).await? else {
            return Err(not_found(line_id));
        };
        touch_session(&mut tx, session_id, at).await?;
        sqlx::query("DELETE FROM ro_lines WHERE id = ?")
            .bind(line_id)
            .execute(&mut *tx)
            .await?;
        // Two steps: SQLite checks UNIQUE (session_id, line_no) row by row,
        // so moving each line straight down one could clash with the next.
        sqlx::query(
            "UPDATE ro_lines SET line_no = line_no + 1000000 WHERE session_id = ? AND line_no > ?",
        )
        .bind(session_id)
        .bind(before.line_no)
        .execute(&mut *tx)
        .await?;
        sqlx::query(
            "UPDATE ro_lines SET line_no = line_no - 1000001 WHERE session_id = ? AND line_no > 1000000",
        )
        .bind(session_id)
        .execute(&mut *tx)
        .await?;
        let field = format!("line {}", before.line_no);
        super::sessions::insert_edit(
            &mut tx,
            session_id,
            &field,
            Some(&before.line),
            None,
            edited_by,
            at,
        )
        .await?;
        tx.commit().await?;
        Ok(())
    }
}

fn not_found(line_id: &str) -> StoreError {
    StoreError::NotFound {
        what: "repair order line",
        id: line_id.to_owned(),
    }
}

/// Marks the session changed at `at`; refused (nothing written: the caller's
/// transaction rolls back) when the session is finalized, which makes its
/// repair order read-only until it is reopened.
pub(super) async fn touch_session(
    tx: &mut Transaction<'static, Sqlite>,
    session_id: &str,
    at: Timestamp,
) -> Result<()> {
    let touched =
        sqlx::query("UPDATE sessions SET updated_at = ? WHERE id = ? AND status != 'finalized'")
            .bind(at)
            .bind(session_id)
            .execute(&mut **tx)
            .await?
            .rows_affected();
    if touched == 0 {
        let ro: Option<String> = sqlx::query_scalar("SELECT ro_number FROM sessions WHERE id = ?")
            .bind(session_id)
            .fetch_optional(&mut **tx)
            .await?;
        return Err(match ro {
            Some(ro_number) => StoreError::Finalized { ro_number },
            None => StoreError::NotFound {
                what: "session",
                id: session_id.to_owned(),
            },
        });
    }
    Ok(())
}

/// Runs `update` (an UPDATE of one line of the session) and touches the
/// session: not found when no row changed, refused when it is finalized.
async fn update_line<'q>(
    tx: &mut Transaction<'static, Sqlite>,
    session_id: &str,
    line_id: &str,
    update: sqlx::query::Query<'q, Sqlite, sqlx::sqlite::SqliteArguments<'q>>,
    at: Timestamp,
) -> Result<()> {
    touch_session(tx, session_id, at).await?;
    if update.execute(&mut **tx).await?.rows_affected() == 0 {
        return Err(not_found(line_id));
    }
    Ok(())
}

/// A line as its audit rows show it: number, its words, pay type, labor
/// and parts; and its estimate's answer.
struct LineSummary {
    line_no: i64,
    line: String,
    authorization: String,
}

async fn line_summary(
    tx: &mut Transaction<'static, Sqlite>,
    session_id: &str,
    line_id: &str,
) -> Result<Option<LineSummary>> {
    let row = sqlx::query(
        "SELECT l.line_no, l.complaint, l.pay_type, l.warranty_payer, l.warranty_maker,
                l.auth_status, l.auth_by, l.auth_method, l.auth_at,
                (SELECT COALESCE(SUM(hours_x100), 0) FROM ro_labor WHERE line_id = l.id) AS hours,
                (SELECT COUNT(*) FROM ro_labor WHERE line_id = l.id) AS labor_lines,
                (SELECT group_concat(COALESCE(part_no || ' ', '') || description || ' x' ||
                        printf('%d.%02d', qty_x100 / 100, qty_x100 % 100) || ' @ ' ||
                        printf('%d.%02d', unit_price_cents / 100, unit_price_cents % 100), '; ')
                   FROM (SELECT * FROM ro_parts WHERE line_id = l.id ORDER BY seq)) AS parts
           FROM ro_lines l WHERE l.id = ? AND l.session_id = ?",
    )
    .bind(line_id)
    .bind(session_id)
    .fetch_optional(&mut **tx)
    .await?;
    Ok(row.map(|r| {
        let pay: String = r.get("pay_type");
        let payer: Option<String> = r.get("warranty_payer");
        let maker: Option<String> = r.get("warranty_maker");
        let hours: i64 = r.get("hours");
        let parts: Option<String> = r.get("parts");
        let mut pay_text = pay;
        if let Some(p) = payer {
            pay_text.push_str(&format!(" ({p}"));
            if let Some(m) = maker {
                pay_text.push_str(&format!(": {m}"));
            }
            pay_text.push(')');
        }
        let line = format!(
            "{}; {pay_text}; labor {}.{:02} h in {} line(s); parts: {}",
            r.get::<String, _>("complaint"),
            hours / 100,
            hours % 100,
            r.get::<i64, _>("labor_lines"),
            parts.unwrap_or_else(|| "none".into()),
        );
        let status: String = r.get("auth_status");
        let authorization = match status.as_str() {
            "pending" => status,
            _ => [
                Some(status),
                r.get::<Option<String>, _>("auth_by")
                    .map(|b| format!("by {b}")),
                r.get::<Option<String>, _>("auth_method"),
                r.get::<Option<String>, _>("auth_at"),
            ]
            .into_iter()
            .flatten()
            .collect::<Vec<_>>()
            .join(", "),
        };
        LineSummary {
            line_no: r.get("line_no"),
            line,
            authorization,
        }
    }))
}

/// A new session's first line: the writer's complaint, customer pay.
pub(super) async fn insert_first_line(
    tx: &mut Transaction<'static, Sqlite>,
    session_id: &str,
    complaint: &str,
    at: Timestamp,
) -> Result<()> {
    sqlx::query(
        "INSERT INTO ro_lines (id, session_id, line_no, complaint, pay_type, created_at, updated_at)
         VALUES (?, ?, 1, ?, 'customer', ?, ?)",
    )
    .bind(new_id())
    .bind(session_id)
    .bind(complaint)
    .bind(at)
    .bind(at)
    .execute(&mut **tx)
    .await?;
    Ok(())
}

/// A header whose complaint changed: line 1 follows while it still holds the
/// header's old words (a line the writer reworded keeps their wording).
pub(super) async fn follow_header_complaint(
    tx: &mut Transaction<'static, Sqlite>,
    session_id: &str,
    old: &str,
    new: &str,
    at: Timestamp,
) -> Result<()> {
    sqlx::query(
        "UPDATE ro_lines SET complaint = ?, updated_at = ?
          WHERE session_id = ? AND line_no = 1 AND complaint = ?",
    )
    .bind(new)
    .bind(at)
    .bind(session_id)
    .bind(old)
    .execute(&mut **tx)
    .await?;
    Ok(())
}
