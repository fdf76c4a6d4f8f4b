//! `servicedesk report finalize` and `servicedesk export reports`: a new
//! report revision from the command line, and the manager's export of a
//! date range (CSV summary plus a PDF per report, or one ZIP).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};

use servicedesk::api::{self, AppError};
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

#[derive(Args)]
pub struct FinalizeArgs {
    session_id: String,
    /// Your wording for the complaint (English block)
    #[arg(long)]
    complaint: Option<String>,
    /// Your wording for the cause (English block)
    #[arg(long)]
    cause: Option<String>,
    /// Your wording for the correction (English block)
    #[arg(long)]
    correction: Option<String>,
    #[arg(long)]
    json: bool,
}

pub async fn finalize(desk: &Desk, args: FinalizeArgs) -> Result<ExitCode, AppError> {
    let done = api::reports::report_finalize(
        desk,
        api::reports::ReportFinalizeRequest {
            session_id: args.session_id,
            complaint: args.complaint,
            cause: args.cause,
            correction: args.correction,
            translation: Default::default(),
        },
    )
    .await?;
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&done)
                .map_err(|e| AppError::new("internal", e.to_string()))?
        );
    } else {
        println!(
            "finalized revision {} at {}{}",
            done.revision,
            done.created_at,
            if done.queued {
                "; queued for the portal"
            } else {
                ""
            }
        );
    }
    Ok(ExitCode::SUCCESS)
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
