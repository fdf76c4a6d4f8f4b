//! `servicedesk export reports`: the manager's export of a date range (CSV
//! summary plus a PDF per report, or one ZIP).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};

use servicedesk::api::AppError;
use servicedesk::desk::Desk;
use servicedesk::reports::batch::{self, BatchOptions};

#[derive(Subcommand)]
pub enum ExportCmd {
    /// The reports finalized between two dates: a CSV summary and a PDF per report
    Reports(ExportReportsArgs),
}

#[derive(Args)]
pub struct ExportReportsArgs {
    /// First day, YYYY-MM-DD (local calendar, included)
    #[arg(long)]
    from: String,
    /// Last day, YYYY-MM-DD (included)
    #[arg(long)]
    to: String,
    /// Only this technician's reports
    #[arg(long)]
    technician: Option<String>,
    /// The folder to write into
    #[arg(long, value_name = "DIR")]
    out: PathBuf,
    /// One ZIP holding the CSV and the PDFs instead of a folder
    #[arg(long)]
    zip: bool,
    #[arg(long)]
    json: bool,
}

pub async fn run(desk: &Desk, cmd: ExportCmd) -> Result<ExitCode, AppError> {
    let ExportCmd::Reports(args) = cmd;
    let opts = BatchOptions::new(&args.from, &args.to, args.technician, args.out, args.zip)?;
    let quiet = args.json;
    let result = batch::export_reports(desk, &opts, |done, total| {
        if !quiet && total > 0 && (done == total || done % 25 == 0) {
            eprintln!("exported {done} of {total}");
        }
    })
    .await?;
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&result)
                .map_err(|e| AppError::new("internal", e.to_string()))?
        );
    } else {
        println!(
            "wrote {} report(s) ({} PDF, summary.csv) to {}",
            result.reports, result.pdfs, result.path
        );
    }
    Ok(ExitCode::SUCCESS)
}
