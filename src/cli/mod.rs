//! The `servicedesk` command line: the clap root (`Cli`, `Command`), the
//! entry point that opens the data dir and hands each command to its module,
//! and the output helpers the modules share. Every command goes through the
//! typed api functions or the Desk, so the CLI, the app and the HTTP server
//! cannot disagree. Errors print one line and exit non-zero.

mod artifact;
mod billing;
mod chat;
mod dev;
mod eval;
mod export;
mod knowledge;
mod procedures;
mod report;
mod ro;
mod serve;
mod session;
mod sync;

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use serde::Serialize;

use servicedesk::api::AppError;
use servicedesk::desk::{default_data_dir, Desk, DATA_DIR_ENV};

use artifact::ArtifactCmd;
use chat::ChatArgs;
use dev::DevCmd;
use eval::EvalCmd;
use knowledge::KnowledgeCmd;
use procedures::ProceduresCmd;
use report::ReportCmd;
use serve::ServeArgs;
use session::SessionCmd;

#[derive(Parser)]
#[command(
    name = "servicedesk",
    version,
    about = "RV Service Desk: sessions, photos and reports for RV service"
)]
struct Cli {
    /// Where the database and photos live [default: the OS app-data dir]
    #[arg(long, global = true, env = DATA_DIR_ENV, value_name = "DIR")]
    data_dir: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Create, list, show, export and delete service sessions
    #[command(subcommand)]
    Session(SessionCmd),
    /// A repair order's complaint lines (pay type, labor, parts, totals)
    /// and the shop's labor rates and tax
    #[command(subcommand)]
    Ro(ro::RoCmd),
    /// Attach, list and verify photos and files
    #[command(subcommand)]
    Artifact(ArtifactCmd),
    /// Serve the api and the UI over HTTP (127.0.0.1 unless told otherwise)
    Serve(ServeArgs),
    /// Talk to the diagnostic assistant (interactive, or --script FILE)
    Chat(ChatArgs),
    /// Check the diagnostic procedure catalog
    #[command(subcommand)]
    Procedures(ProceduresCmd),
    /// List, finalize and export a session's final report revisions
    #[command(subcommand)]
    Report(ReportCmd),
    /// A manager's export: reports of a date range as CSV + PDFs (or a ZIP)
    #[command(subcommand)]
    Export(export::ExportCmd),
    /// Import, list and search the local knowledge store
    #[command(subcommand)]
    Knowledge(KnowledgeCmd),
    /// A one-shot cited answer from the knowledge store
    Ask {
        question: String,
        /// The asker's language (default: detected from the question)
        #[arg(long)]
        language: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// Measure quality against a dataset
    #[command(subcommand)]
    Eval(EvalCmd),
    /// Billing: simulate charges, import and list rules and orders, arrears, verify
    #[command(subcommand)]
    Billing(billing::BillingCmd),
    /// Portal sync: `portal login|logout|show`, `sync run|status|retry`
    #[command(flatten)]
    Sync(sync::SyncTop),
    /// Tools for testing the store itself
    #[command(subcommand, hide = true)]
    Dev(DevCmd),
}

pub fn main() -> ExitCode {
    let cli = Cli::parse();
    tracing_subscriber::fmt()
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("SERVICEDESK_LOG")
                .unwrap_or_else(|_| "warn".into()),
        )
        .with_writer(std::io::stderr)
        .init();
    let runtime = match tokio::runtime::Runtime::new() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match runtime.block_on(run(cli)) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {}: {}", e.code, e.message.replace('\n', " "));
            ExitCode::FAILURE
        }
    }
}

async fn run(cli: Cli) -> Result<ExitCode, AppError> {
    let cli = match cli.command {
        Command::Procedures(ProceduresCmd::Check { dir }) => {
            return procedures::check(dir.as_deref());
        }
        Command::Eval(EvalCmd::Understanding(args)) => {
            return eval::understanding(args);
        }
        Command::Eval(EvalCmd::Billing(args)) => {
            return eval::billing(args).await;
        }
        command => Cli { command, ..cli },
    };
    let data_dir = cli.data_dir.unwrap_or_else(default_data_dir);
    let desk = Desk::open(&data_dir).await?;
    let code = match cli.command {
        Command::Session(cmd) => session::run(&desk, cmd).await?,
        Command::Ro(cmd) => ro::run(&desk, cmd).await?,
        Command::Artifact(cmd) => artifact::run(&desk, cmd).await?,
        Command::Serve(args) => serve::run(&desk, args).await?,
        Command::Dev(cmd) => dev::run(&desk, cmd).await?,
        Command::Chat(args) => chat::run(&desk, args).await?,
        Command::Report(cmd) => report::run(&desk, cmd).await?,
        Command::Knowledge(cmd) => knowledge::run(&desk, cmd).await?,
        Command::Ask {
            question,
            language,
            json,
        } => knowledge::ask(&desk, question, language, json).await?,
        Command::Eval(cmd) => eval::run(&desk, cmd).await?,
        Command::Billing(cmd) => billing::run(&desk, cmd).await?,
        Command::Sync(cmd) => sync::run(&desk, cmd).await?,
        Command::Export(cmd) => export::run(&desk, cmd).await?,
        Command::Procedures(_) => unreachable!("handled before the data dir is opened"),
    };
    desk.close().await;
    Ok(code)
}

/// A stored time (RFC 3339, UTC) as a person reads it: local, with the offset.
fn local(at: &str) -> String {
    servicedesk::when::local_display(at)
}

/// A recorded text with every time in it local ("approved, by Jane Doe,
/// phone, 2026-11-27 10:04 (UTC-05:00)"); the record itself keeps UTC.
fn local_in(text: &str) -> String {
    static INSTANT: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        regex::Regex::new(
            r"\b\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:\d{2})",
        )
        .expect("a valid pattern")
    });
    INSTANT
        .replace_all(text, |m: &regex::Captures| local(&m[0]))
        .into_owned()
}

fn print_json<T: Serialize>(value: &T) -> Result<(), AppError> {
    let text = serde_json::to_string_pretty(value)
        .map_err(|e| AppError::new("internal", e.to_string()))?;
    println!("{text}");
    Ok(())
}

/// Write an export next to its destination and rename it into place, so a
/// crash never leaves half a file under the real name.
fn write_atomically(path: &std::path::Path, bytes: &[u8]) -> Result<(), AppError> {
    let fail = |e: std::io::Error| {
        AppError::new(
            "unreadable_path",
            format!("cannot write {}: {e}", path.display()),
        )
    };
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(std::path::Path::new("."));
    let mut tmp = tempfile::NamedTempFile::new_in(dir).map_err(fail)?;
    tmp.write_all(bytes).map_err(fail)?;
    tmp.as_file().sync_all().map_err(fail)?;
    tmp.persist(path).map_err(|e| fail(e.error))?;
    Ok(())
}
