//! A manager's export of a date range: a CSV summary (one row per report)
//! and a PDF per report, as a folder or as one ZIP.
//!
//! The CSV is UTF-8 with a byte order mark, so a spreadsheet opening it
//! reads "José Núñez", "Пётр" and "µF" as written instead of guessing a
//! legacy code page. Its money columns are the repair order's lines priced
//! as they stand when the export runs (`desk::pricing`), as exact decimals
//! with two places.
//!
//! Dates are the shop's local calendar days, both ends included. The output
//! is written under a temporary name next to its target and renamed into
//! place at the end, so a failed or interrupted export leaves nothing that
//! looks finished.

use std::io::Write;
use std::path::{Path, PathBuf};

use chrono::{Local, NaiveDate, TimeZone, Utc};
use serde::Serialize;

use super::RangeReport;
use crate::desk::{Desk, DeskError, Result};
use crate::engine::catalog::{fmt_tenths, parse_tenths};
use crate::export::report_file_name;

#[derive(Debug, Clone)]
pub struct BatchOptions {
    from: NaiveDate,
    to: NaiveDate,
    technician: Option<String>,
    out_dir: PathBuf,
    /// One ZIP holding the CSV and the PDFs, instead of a folder.
    zip: bool,
}

impl BatchOptions {
    /// Checks what the manager typed, for the CLI and the api alike: both
    /// dates (YYYY-MM-DD) and their order. A blank technician means all.
    pub fn new(
        from: &str,
        to: &str,
        technician: Option<String>,
        out_dir: PathBuf,
        zip: bool,
    ) -> Result<Self> {
        let from = parse_date("from", from)?;
        let to = parse_date("to", to)?;
        if to < from {
            return Err(DeskError::Invalid {
                field: "to",
                message: format!("{to} is before from ({from})"),
            });
        }
        let technician = technician
            .map(|t| t.trim().to_string())
            .filter(|t| !t.is_empty());
        Ok(Self {
            from,
            to,
            technician,
            out_dir,
            zip,
        })
    }

    pub fn out_dir(&self) -> &Path {
        &self.out_dir
    }

    /// One ZIP (true) or a folder of files.
    pub fn zip(&self) -> bool {
        self.zip
    }
}

#[derive(Debug, Clone, Serialize)]
pub struct BatchResult {
    pub reports: usize,
    /// The folder or the ZIP written.
    pub path: String,
    pub file_name: String,
    pub csv_rows: usize,
    pub pdfs: usize,
}

/// The byte order mark the CSV starts with.
pub const UTF8_BOM: &str = "\u{feff}";

pub const CSV_HEADER: [&str; 25] = [
    "finalized_at",
    "session_created_at",
    "session_id",
    "revision",
    "technician",
    "customer",
    "vin",
    "plate",
    "make_model",
    "odometer",
    "complaint",
    "cause",
    "correction",
    "labor_hours",
    "parts",
    "photos",
    "status",
    "synced",
    "pdf",
    "ro_number",
    "ro_lines",
    "labor_amount",
    "parts_amount",
    "tax",
    "total",
];

/// Parses a `YYYY-MM-DD` date; the error names the option.
fn parse_date(field: &'static str, value: &str) -> Result<NaiveDate> {
    NaiveDate::parse_from_str(value.trim(), "%Y-%m-%d").map_err(|_| DeskError::Invalid {
        field,
        message: format!("{value:?} is not a date like 2026-11-23"),
    })
}

/// The UTC instants of local midnight at the start of `from` and after `to`.
fn range_bounds(from: NaiveDate, to: NaiveDate) -> (String, String) {
    let start = |d: NaiveDate| {
        let local = d.and_hms_opt(0, 0, 0).expect("midnight exists");
        Local
            .from_local_datetime(&local)
            .earliest()
            .map(|t| t.with_timezone(&Utc))
            .unwrap_or_else(|| Utc.from_utc_datetime(&local))
            .to_rfc3339_opts(chrono::SecondsFormat::Millis, true)
    };
    let after = to.succ_opt().unwrap_or(to);
    (start(from), start(after))
}

/// Runs the export; `progress(done, total)` is called after each report.
pub async fn export_reports(
    desk: &Desk,
    opts: &BatchOptions,
    mut progress: impl FnMut(usize, usize),
) -> Result<BatchResult> {
    let (from, to) = range_bounds(opts.from, opts.to);
    let reports = desk
        .reports_in_range(&from, &to, opts.technician.as_deref())
        .await?;
    let total = reports.len();
    progress(0, total);
    std::fs::create_dir_all(&opts.out_dir).map_err(|e| io_error(&opts.out_dir, e))?;
    let base = match &opts.technician {
        Some(t) => format!("reports-{}-{}-{}", opts.from, opts.to, safe(t)),
        None => format!("reports-{}-{}", opts.from, opts.to),
    };
    let file_name = if opts.zip {
        format!("{base}.zip")
    } else {
        base.clone()
    };
    let target = opts.out_dir.join(&file_name);
    // Unique per run: two exports of one range into one folder never share it.
    let partial = opts.out_dir.join(format!(
        ".{file_name}.{}.partial",
        uuid::Uuid::new_v4().simple()
    ));
    let mut sink = if opts.zip {
        let file = std::fs::File::create(&partial).map_err(|e| io_error(&partial, e))?;
        Sink::Zip(Box::new(zip::ZipWriter::new(file)))
    } else {
        std::fs::create_dir_all(&partial).map_err(|e| io_error(&partial, e))?;
        Sink::Dir(partial.clone())
    };
    let mut csv = String::from(UTF8_BOM);
    csv_row(&mut csv, CSV_HEADER.iter().map(|s| s.to_string()));
    let mut pdfs = 0;
    let shop = desk.letterhead().await?;
    let result: Result<()> = async {
        for (i, item) in reports.iter().enumerate() {
            let pdf_name = report_file_name(&item.session, item.report.revision, "pdf");
            let photos = desk.report_photos(&item.session.id).await?;
            let (s, r, shop) = (item.session.clone(), item.report.clone(), shop.clone());
            let pdf = tokio::task::spawn_blocking(move || {
                crate::export::pdf::report_pdf(&s, &r, &photos, &shop)
            })
            .await
            .map_err(|e| DeskError::Join(e.to_string()))?
            .map_err(|e| DeskError::Invalid {
                field: "report",
                message: format!("{}: {e}", item.session.id),
            })?;
            sink.write(&pdf_name, &pdf)?;
            pdfs += 1;
            let order = desk.priced_order(&item.session.id).await?;
            let mut row = summary_row(item, &pdf_name);
            row.extend(money_cells(&order));
            csv_row(&mut csv, row);
            progress(i + 1, total);
        }
        sink.write("summary.csv", csv.as_bytes())?;
        sink.finish()
    }
    .await;
    if let Err(e) = result {
        remove_any(&partial);
        return Err(e);
    }
    remove_any(&target);
    std::fs::rename(&partial, &target).map_err(|e| io_error(&target, e))?;
    Ok(BatchResult {
        reports: total,
        path: target.display().to_string(),
        file_name,
        csv_rows: total,
        pdfs,
    })
}

/// One report's CSV row, in `CSV_HEADER` order.
fn summary_row(item: &RangeReport, pdf_name: &str) -> Vec<String> {
    // The approval is in the ro_lines cell; the complaint cell is the words.
    let (doc, _) = crate::report_marks::parse(&item.report.body, &item.report.language);
    let en = doc.blocks.first();
    let s = &item.session;
    // A visit with several complaint lines keeps one row: each column
    // lists its lines in order, and the labor total is theirs summed.
    let lines = en.map(|b| b.complaints.as_slice()).unwrap_or_default();
    let joined = |f: fn(&crate::engine::report::ComplaintSection) -> String| {
        lines.iter().map(f).collect::<Vec<_>>().join(" | ")
    };
    let labor_total = lines
        .iter()
        .map(|c| c.labor_total.as_deref().and_then(parse_tenths))
        .sum::<Option<u32>>()
        .map(fmt_tenths)
        .unwrap_or_default();
    vec![
        // A person reads these in a spreadsheet: local time with its offset.
        item.report.created_at.local_display(),
        s.created_at.local_display(),
        s.id.clone(),
        item.report.revision.to_string(),
        s.technician.clone().unwrap_or_default(),
        s.customer.clone().unwrap_or_default(),
        s.unit.vin.clone().unwrap_or_default(),
        s.unit.plate.clone().unwrap_or_default(),
        s.unit.make_model.clone().unwrap_or_default(),
        s.unit.odometer.map(|o| o.to_string()).unwrap_or_default(),
        joined(|c| c.complaint.clone()),
        joined(|c| c.cause.clone()),
        joined(|c| c.correction.clone()),
        labor_total,
        lines
            .iter()
            .flat_map(|c| c.parts.iter().cloned())
            .collect::<Vec<_>>()
            .join("; "),
        en.map(|b| b.photos.len().to_string()).unwrap_or_default(),
        s.status.as_str().to_string(),
        item.sync.state.as_str().to_string(),
        pdf_name.to_string(),
    ]
}

/// The repair order's cells, in `CSV_HEADER` order after `pdf`: its
/// number, each line with its pay type and the answer to its estimate, and
/// the amounts (a declined line's are not in them).
fn money_cells(order: &crate::desk::repair_order::RepairOrder) -> Vec<String> {
    let lines = order
        .lines
        .iter()
        .map(|l| {
            let pay = match (l.warranty_payer, &l.warranty_maker) {
                (_, Some(maker)) => format!("warranty: {maker}"),
                (Some(payer), None) => format!("warranty: {}", payer.as_str()),
                _ => l.pay_type.as_str().to_owned(),
            };
            let answer = match l.authorization.status {
                crate::store::AuthStatus::Pending => "",
                crate::store::AuthStatus::Approved => ", approved",
                crate::store::AuthStatus::Declined => ", declined",
            };
            format!("{}. {} ({pay}{answer})", l.line_no, l.complaint)
        })
        .collect::<Vec<_>>()
        .join(" | ");
    let t = &order.totals;
    vec![
        order.ro_number.clone(),
        lines,
        t.labor.to_string(),
        t.parts.to_string(),
        t.tax.to_string(),
        t.total.to_string(),
    ]
}

/// RFC 4180 quoting, CRLF line ends; a cell a spreadsheet would run as a
/// formula (=, +, -, @ first) is prefixed with an apostrophe.
fn csv_row(out: &mut String, cells: impl IntoIterator<Item = String>) {
    let mut first = true;
    for cell in cells {
        if !first {
            out.push(',');
        }
        first = false;
        let cell = if cell.starts_with(['=', '+', '-', '@', '\t', '\r']) {
            format!("'{cell}")
        } else {
            cell
        };
        if cell.contains([',', '"', '\n', '\r']) {
            out.push('"');
            out.push_str(&cell.replace('"', "\"\""));
            out.push('"');
        } else {
            out.push_str(&cell);
        }
    }
    out.push_str("\r\n");
}

enum Sink {
    Dir(PathBuf),
    Zip(Box<zip::ZipWriter<std::fs::File>>),
}

impl Sink {
    fn write(&mut self, name: &str, bytes: &[u8]) -> Result<()> {
        match self {
            Sink::Dir(dir) => {
                let path = dir.join(name);
                std::fs::write(&path, bytes).map_err(|e| io_error(&path, e))
            }
            Sink::Zip(zip) => {
                // PDFs are compressed already; the CSV is worth deflating.
                let method = if name.ends_with(".pdf") {
                    zip::CompressionMethod::Stored
                } else {
                    zip::CompressionMethod::Deflated
                };
                let options = zip::write::SimpleFileOptions::default().compression_method(method);
                zip.start_file(name, options)
                    .map_err(|e| zip_error(name, e))?;
                zip.write_all(bytes)
                    .map_err(|e| io_error(Path::new(name), e))
            }
        }
    }

    fn finish(self) -> Result<()> {
        match self {
            Sink::Dir(_) => Ok(()),
            Sink::Zip(zip) => {
                let file = zip.finish().map_err(|e| zip_error("the archive", e))?;
                file.sync_all()
                    .map_err(|e| io_error(Path::new("the archive"), e))
            }
        }
    }
}

fn remove_any(path: &Path) {
    if path.is_dir() {
        let _ = std::fs::remove_dir_all(path);
    } else {
        let _ = std::fs::remove_file(path);
    }
}

fn safe(s: &str) -> String {
    s.chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect()
}

fn io_error(path: &Path, e: std::io::Error) -> DeskError {
    DeskError::Invalid {
        field: "out",
        message: format!("{}: {e}", path.display()),
    }
}

fn zip_error(name: &str, e: zip::result::ZipError) -> DeskError {
    DeskError::Invalid {
        field: "out",
        message: format!("writing {name} into the ZIP: {e}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_cells_are_quoted_and_formulas_defused() {
        let mut out = String::new();
        csv_row(
            &mut out,
            ["plain", "a,b", "say \"hi\"", "=SUM(A1)", "line\nbreak"].map(String::from),
        );
        assert_eq!(
            out,
            "plain,\"a,b\",\"say \"\"hi\"\"\",'=SUM(A1),\"line\nbreak\"\r\n"
        );
    }

    #[test]
    fn dates_are_checked_and_name_the_option() {
        assert!(parse_date("from", "2026-11-23").is_ok());
        let err = parse_date("to", "23/11/2026").unwrap_err().to_string();
        assert!(err.starts_with("to: "), "{err}");
    }
}
