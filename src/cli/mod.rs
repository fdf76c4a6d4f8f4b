//! Argument parsing and output for the `servicedesk` binary. Every command
//! goes through the typed api functions, so the CLI, the app and the HTTP
//! server cannot disagree. Errors print one line and exit non-zero.

use std::io::Write;
use std::net::IpAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand};
use serde::Serialize;

use servicedesk::api::{self, AppError};
use servicedesk::artifacts::BlobStatus;
use servicedesk::desk::{default_data_dir, Desk, DATA_DIR_ENV};
use servicedesk::engine::catalog::Catalog;
use servicedesk::engine::state::{Fact, FactKind, FactSource};
use servicedesk::serve::{self, ServeConfig, TOKEN_ENV};
use servicedesk::store::{NewSession, NewTurn, Session, SessionStatus};

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
    Export(crate::cli_export::ExportCmd),
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
    Billing(crate::cli_billing::BillingCmd),
    /// Portal sync: `portal login|logout|show`, `sync run|status|retry`
    #[command(flatten)]
    Sync(crate::cli_sync::SyncTop),
    /// Tools for testing the store itself
    #[command(subcommand, hide = true)]
    Dev(DevCmd),
}

#[derive(Subcommand)]
enum KnowledgeCmd {
    /// Import Markdown (with front matter) and JSONL files, or folders of them
    Ingest {
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        #[arg(long)]
        json: bool,
    },
    /// Every stored source version, newest first per source
    List {
        #[arg(long)]
        json: bool,
    },
    /// Ranked chunks for a query, best first
    Search {
        query: String,
        #[arg(long)]
        doc_type: Option<String>,
        #[arg(long)]
        source_type: Option<String>,
        #[arg(long = "city")]
        city_code: Option<String>,
        #[arg(long = "lot")]
        lot_code: Option<String>,
        /// Validity time: YYYY-MM-DD or RFC 3339 (default: now)
        #[arg(long = "at")]
        at_time: Option<String>,
        #[arg(long = "source-id")]
        source_ids: Vec<String>,
        #[arg(long)]
        language: Option<String>,
        #[arg(long)]
        include_inactive: bool,
        #[arg(long, default_value_t = 5)]
        top_k: usize,
        #[arg(long)]
        json: bool,
    },
}

#[derive(Subcommand)]
enum EvalCmd {
    /// How well technician notes are read: wrong-fact rate, fact recall, intent accuracy (exits 1 under the thresholds)
    Understanding(crate::cli_eval::UnderstandingArgs),
    /// Retrieval and answer quality of the knowledge store (exits 1 under the thresholds)
    Knowledge {
        #[arg(long, value_name = "FILE")]
        dataset: PathBuf,
        #[arg(long, default_value_t = 5)]
        k: usize,
        #[arg(long, default_value_t = 0.95)]
        min_hit_rate: f64,
        #[arg(long, default_value_t = 1.0)]
        min_citation_coverage: f64,
        #[arg(long, default_value_t = 0.9)]
        min_empty_rate: f64,
        #[arg(long, default_value_t = 0.9)]
        min_consistency: f64,
        #[arg(long)]
        json: bool,
    },
}

#[derive(Args)]
struct ChatArgs {
    /// Continue this session (default: a new session whose complaint is the first message)
    #[arg(long)]
    session: Option<String>,
    /// Read one user turn per line: plain text, or {"text": "...", "attachments": ["photo.jpg"]}
    #[arg(long, value_name = "FILE")]
    script: Option<PathBuf>,
    /// Print one JSON object per turn (the transcript contract)
    #[arg(long)]
    json: bool,
    /// The technician's language for a new session (default: detected from the first message)
    #[arg(long)]
    language: Option<String>,
}

#[derive(Subcommand)]
enum ProceduresCmd {
    /// Validate procedure files (default: the catalog built into this binary)
    Check {
        /// A directory of *.toml procedure files to validate instead
        dir: Option<PathBuf>,
    },
}

#[derive(Subcommand)]
enum ReportCmd {
    /// The report revisions of a session, oldest first
    List {
        session_id: String,
        #[arg(long)]
        json: bool,
    },
    /// Finalize the session's current report as a new revision and queue it for the portal
    Finalize(crate::cli_export::FinalizeArgs),
    /// Write a report revision as Markdown, JSON or PDF (the newest unless --revision)
    Export {
        session_id: String,
        #[arg(long)]
        revision: Option<u32>,
        /// markdown, json or pdf
        #[arg(long, default_value = "markdown")]
        format: String,
        /// Write to this file (or into this directory under the report's own name)
        /// instead of standard output
        #[arg(long, value_name = "PATH")]
        out: Option<PathBuf>,
        #[arg(long)]
        json: bool,
    },
}

#[derive(Subcommand)]
enum SessionCmd {
    /// Open a new session for a unit
    New(SessionNewArgs),
    /// List sessions, most recently touched first
    List {
        /// Match complaint, customer, technician, VIN, plate or make/model
        #[arg(long)]
        query: Option<String>,
        /// open, escalated or finalized
        #[arg(long, value_parser = parse_status)]
        status: Option<SessionStatus>,
        #[arg(long)]
        json: bool,
    },
    /// Show a session with its turns and photos
    Show {
        session_id: String,
        #[arg(long)]
        json: bool,
    },
    /// Write a session (turns, state, photo list) as JSON
    Export {
        session_id: String,
        /// Write to this file instead of standard output
        #[arg(long, value_name = "FILE")]
        out: Option<PathBuf>,
    },
    /// Delete a session; one with photos needs --purge
    Delete {
        session_id: String,
        /// Also delete the session's photos and files
        #[arg(long)]
        purge: bool,
        #[arg(long)]
        json: bool,
    },
}

#[derive(Args)]
struct SessionNewArgs {
    /// What the customer says is wrong
    #[arg(long)]
    complaint: String,
    #[arg(long)]
    customer: Option<String>,
    #[arg(long)]
    technician: Option<String>,
    /// Language of the session: en, es, ru, ...
    #[arg(long)]
    language: Option<String>,
    #[arg(long)]
    vin: Option<String>,
    #[arg(long)]
    plate: Option<String>,
    #[arg(long)]
    make_model: Option<String>,
    #[arg(long)]
    odometer: Option<i64>,
    #[arg(long)]
    engine_hours: Option<f64>,
    #[arg(long)]
    json: bool,
}

#[derive(Subcommand)]
enum ArtifactCmd {
    /// Copy a photo or file into the store and attach it to a session
    Add {
        session_id: String,
        path: PathBuf,
        #[arg(long)]
        caption: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// List a session's photos and files
    List {
        session_id: String,
        #[arg(long)]
        json: bool,
    },
    /// Check stored bytes against their hashes (one session or all); exits 1 on any problem
    Verify {
        session_id: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// Remove what a crash left: blobs no row uses, stale pins and temp
    /// files, all older than the grace period (serve and the app do this
    /// at start and every few hours)
    Sweep {
        /// Leave anything younger than this many seconds alone
        #[arg(long, default_value_t = servicedesk::desk::SWEEP_GRACE.as_secs())]
        grace_secs: u64,
        #[arg(long)]
        json: bool,
    },
}

#[derive(Args)]
struct ServeArgs {
    /// Address to listen on; anything but loopback requires --token
    #[arg(long, default_value = "127.0.0.1")]
    host: IpAddr,
    /// Port; 0 picks a free one (the chosen port is printed)
    #[arg(long, default_value_t = 8787)]
    port: u16,
    /// Refused: a token on the command line is visible to every user in the
    /// process list. Use --token-file or $SERVICEDESK_SERVE_TOKEN
    #[arg(long, hide = true)]
    token: Option<String>,
    /// A file holding the bearer token every api call must carry (or set
    /// $SERVICEDESK_SERVE_TOKEN)
    #[arg(long, value_name = "FILE")]
    token_file: Option<PathBuf>,
    /// The built UI [default: ui/dist]
    #[arg(long, env = "SERVICEDESK_UI_DIR", value_name = "DIR")]
    ui_dir: Option<PathBuf>,
}

#[derive(Subcommand)]
enum DevCmd {
    /// Commit turns in a loop, printing `committed SEQ` after each commit
    WriteTurns {
        session_id: String,
        #[arg(long, default_value_t = 1000)]
        count: u32,
        /// Attach a small document to turns 1, 1+N, 1+2N, ... (0: never)
        #[arg(long, default_value_t = 5)]
        artifact_every: u32,
    },
    /// Fill the store like a busy shop's year: sessions with a short
    /// diagnosis each and small real photos (for size and memory checks)
    SeedScale {
        #[arg(long, default_value_t = 1000)]
        sessions: u32,
        #[arg(long, default_value_t = 10)]
        photos_per_session: u32,
    },
}

fn parse_status(s: &str) -> Result<SessionStatus, String> {
    SessionStatus::parse(s)
        .ok_or_else(|| format!("{s:?} is not a status: open, escalated or finalized"))
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
            return procedures_check(dir.as_deref());
        }
        Command::Eval(EvalCmd::Understanding(args)) => {
            return crate::cli_eval::understanding(args);
        }
        command => Cli { command, ..cli },
    };
    let data_dir = cli.data_dir.unwrap_or_else(default_data_dir);
    let desk = Desk::open(&data_dir).await?;
    let code = match cli.command {
        Command::Session(cmd) => session(&desk, cmd).await?,
        Command::Artifact(cmd) => artifact(&desk, cmd).await?,
        Command::Serve(args) => serve_cmd(&desk, args).await?,
        Command::Dev(cmd) => dev(&desk, cmd).await?,
        Command::Chat(args) => chat(&desk, args).await?,
        Command::Report(cmd) => report(&desk, cmd).await?,
        Command::Knowledge(cmd) => knowledge_cmd(&desk, cmd).await?,
        Command::Ask {
            question,
            language,
            json,
        } => ask(&desk, question, language, json).await?,
        Command::Eval(cmd) => eval(&desk, cmd).await?,
        Command::Billing(cmd) => crate::cli_billing::run(&desk, cmd).await?,
        Command::Sync(cmd) => crate::cli_sync::run(&desk, cmd).await?,
        Command::Export(cmd) => crate::cli_export::run(&desk, cmd).await?,
        Command::Procedures(_) => unreachable!("handled before the data dir is opened"),
    };
    desk.close().await;
    Ok(code)
}

/// One line of a chat script.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct ScriptTurn {
    text: String,
    #[serde(default)]
    attachments: Vec<PathBuf>,
}

fn parse_script_line(
    line: &str,
    base: &std::path::Path,
    n: usize,
) -> Result<(String, Vec<PathBuf>), AppError> {
    let trimmed = line.trim_start();
    if trimmed.starts_with('{') {
        let t: ScriptTurn = serde_json::from_str(trimmed)
            .map_err(|e| AppError::new("invalid_input", format!("script line {n}: {e}")))?;
        Ok((
            t.text,
            t.attachments
                .into_iter()
                .map(|p| if p.is_absolute() { p } else { base.join(p) })
                .collect(),
        ))
    } else {
        Ok((line.to_string(), Vec::new()))
    }
}

/// The largest chat script `chat --script` reads.
const MAX_SCRIPT_BYTES: u64 = 4 * 1024 * 1024;

async fn chat(desk: &Desk, args: ChatArgs) -> Result<ExitCode, AppError> {
    use std::io::{BufRead, Write};
    let mut session_id = args.session.clone();
    if let Some(id) = &session_id {
        desk.session(id).await.map_err(AppError::from)?;
    }
    let (lines, base): (Box<dyn Iterator<Item = std::io::Result<String>>>, PathBuf) =
        match &args.script {
            Some(path) => {
                // A regular file of bounded size (a FIFO or /dev/stdin is
                // refused); invalid UTF-8 is refused naming its line.
                let text =
                    servicedesk::files::read_text_limited(path, MAX_SCRIPT_BYTES, "a chat script")?;
                let base = path.parent().map(|p| p.to_path_buf()).unwrap_or_default();
                let lines: Vec<std::io::Result<String>> =
                    text.lines().map(|l| Ok(l.to_owned())).collect();
                (Box::new(lines.into_iter()), base)
            }
            None => {
                if !args.json {
                    eprintln!("RV Service Desk assistant. Describe the problem; Ctrl-D to quit.");
                }
                (
                    Box::new(std::io::stdin().lock().lines()),
                    PathBuf::from("."),
                )
            }
        };
    let interactive = args.script.is_none() && !args.json;
    let mut n = 0;
    if interactive {
        eprint!("> ");
    }
    for line in lines {
        let line =
            line.map_err(|e| AppError::new("invalid_input", format!("cannot read input: {e}")))?;
        n += 1;
        if line.trim().is_empty() && args.script.is_some() {
            continue;
        }
        let (text, paths) = parse_script_line(&line, &base, n)?;
        let mut files = Vec::new();
        for p in paths {
            let bytes = servicedesk::files::read_limited(
                &p,
                servicedesk::artifacts::MAX_FILE_BYTES,
                "a photo or file",
            )
            .map_err(|e| AppError::new(e.code(), format!("script line {n}: {e}")))?;
            let name = p
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            files.push((name, bytes));
        }
        let id = match &session_id {
            Some(id) => id.clone(),
            None => {
                let complaint: String = text.trim().chars().take(500).collect();
                let session = desk
                    .new_session(NewSession {
                        complaint: if complaint.is_empty() {
                            "chat session".into()
                        } else {
                            complaint
                        },
                        language: args.language.clone(),
                        ..Default::default()
                    })
                    .await
                    .map_err(AppError::from)?;
                session_id = Some(session.id.clone());
                session.id
            }
        };
        let (recorded, outcome) = desk
            .chat_turn(&id, &text, files)
            .await
            .map_err(AppError::from)?;
        if args.json {
            let v = servicedesk::api::transcript_turn(&id, recorded.turn.seq, &outcome);
            println!(
                "{}",
                serde_json::to_string(&v).map_err(|e| AppError::new("internal", e.to_string()))?
            );
        } else {
            println!("{}\n", outcome.reply.text);
        }
        std::io::stdout().flush().ok();
        if interactive {
            eprint!("> ");
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn procedures_check(dir: Option<&std::path::Path>) -> Result<ExitCode, AppError> {
    let catalog = match dir {
        Some(dir) => Catalog::from_dir(dir),
        None => Catalog::embedded().and_then(|c| c.build_all().map(|()| c)),
    }
    .map_err(|e| AppError::new("invalid_procedure", e.to_string()))?;
    for p in &catalog.procedures {
        println!(
            "{:<20} {:>2} symptoms {:>3} steps {:>3} findings {:>2} components  {}",
            p.system,
            p.symptoms.len(),
            p.steps.len(),
            p.findings.len(),
            p.components.len(),
            p.title.get("en")
        );
    }
    println!("{} procedures, all valid", catalog.procedures.len());
    Ok(ExitCode::SUCCESS)
}

fn print_json<T: Serialize>(value: &T) -> Result<(), AppError> {
    let text = serde_json::to_string_pretty(value)
        .map_err(|e| AppError::new("internal", e.to_string()))?;
    println!("{text}");
    Ok(())
}

fn session_line(s: &Session) -> String {
    let unit = [
        s.unit.make_model.as_deref(),
        s.unit.plate.as_deref(),
        s.unit.vin.as_deref(),
    ]
    .into_iter()
    .flatten()
    .collect::<Vec<_>>()
    .join(" · ");
    format!(
        "{}  {:<9}  {}  {}{}",
        s.id,
        s.status.as_str(),
        &s.updated_at[..16.min(s.updated_at.len())],
        s.complaint,
        if unit.is_empty() {
            String::new()
        } else {
            format!("  [{unit}]")
        }
    )
}

async fn session(desk: &Desk, cmd: SessionCmd) -> Result<ExitCode, AppError> {
    match cmd {
        SessionCmd::New(a) => {
            let s = api::session_new(
                desk,
                api::SessionNewRequest {
                    complaint: a.complaint,
                    customer: a.customer,
                    technician: a.technician,
                    language: a.language,
                    vin: a.vin,
                    plate: a.plate,
                    make_model: a.make_model,
                    odometer: a.odometer,
                    engine_hours: a.engine_hours,
                },
            )
            .await?;
            if a.json {
                print_json(&s)?;
            } else {
                println!("{}", s.id);
            }
        }
        SessionCmd::List {
            query,
            status,
            json,
        } => {
            let list = api::session_list(desk, api::SessionListRequest { query, status }).await?;
            if json {
                print_json(&list)?;
            } else if list.sessions.is_empty() {
                println!("no sessions");
            } else {
                for s in &list.sessions {
                    println!("{}", session_line(&s.session));
                }
            }
        }
        SessionCmd::Show { session_id, json } => {
            let d = api::session_show(desk, api::SessionRef { session_id }).await?;
            if json {
                print_json(&d)?;
            } else {
                let s = &d.session;
                println!("{}", session_line(s));
                for (label, value) in [
                    ("customer", s.customer.clone()),
                    ("technician", s.technician.clone()),
                    ("odometer", s.unit.odometer.map(|o| o.to_string())),
                    ("language", Some(s.language.clone())),
                    ("created", Some(s.created_at.clone())),
                ] {
                    if let Some(v) = value {
                        println!("  {label:<11} {v}");
                    }
                }
                println!("  turns ({}):", d.turns.len());
                for t in &d.turns {
                    println!("    {:>3}. > {}", t.seq, t.input);
                    println!("         {}", t.reply);
                }
                println!("  photos and files ({}):", d.artifacts.len());
                for a in &d.artifacts {
                    println!(
                        "    {}  {}  {}  {} bytes{}",
                        a.id,
                        a.file_name,
                        a.mime,
                        a.size_bytes,
                        a.caption
                            .as_deref()
                            .map(|c| format!("  \"{c}\""))
                            .unwrap_or_default()
                    );
                }
            }
        }
        SessionCmd::Export { session_id, out } => {
            let export = api::session_export(desk, api::SessionRef { session_id }).await?;
            let text = serde_json::to_string_pretty(&export)
                .map_err(|e| AppError::new("internal", e.to_string()))?;
            match out {
                Some(path) => write_atomically(&path, text.as_bytes())?,
                None => println!("{text}"),
            }
        }
        SessionCmd::Delete {
            session_id,
            purge,
            json,
        } => {
            let r =
                api::session_delete(desk, api::SessionDeleteRequest { session_id, purge }).await?;
            if json {
                print_json(&r)?;
            } else {
                println!("deleted; {} stored file(s) purged", r.purged_artifacts);
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Write an export next to its destination and rename it into place, so a
/// crash never leaves half a file under the real name.
async fn report(desk: &Desk, cmd: ReportCmd) -> Result<ExitCode, AppError> {
    match cmd {
        ReportCmd::List { session_id, json } => {
            let list = api::report_list(desk, api::SessionRef { session_id }).await?;
            if json {
                print_json(&list)?;
            } else if list.reports.is_empty() {
                println!("no report yet");
            } else {
                for r in &list.reports {
                    let first = r.body.lines().nth(1).unwrap_or("");
                    println!("r{}  {}  {}  {first}", r.revision, r.created_at, r.language);
                }
            }
        }
        ReportCmd::Finalize(args) => return crate::cli_export::finalize(desk, args).await,
        ReportCmd::Export {
            session_id,
            revision,
            format,
            out,
            json,
        } => {
            let export = api::report_export(
                desk,
                api::ReportExportRequest {
                    session_id,
                    revision,
                    format: Some(format),
                },
            )
            .await?;
            let bytes = if export.encoding == "base64" {
                use base64::Engine as _;
                base64::engine::general_purpose::STANDARD
                    .decode(&export.content)
                    .map_err(|e| AppError::new("internal", e.to_string()))?
            } else {
                export.content.clone().into_bytes()
            };
            if out.is_none() && export.encoding == "base64" && !json {
                return Err(AppError::new(
                    "invalid_input",
                    "out: a PDF is written to a file; pass --out FILE or --out DIR",
                ));
            }
            let written = match out {
                Some(path) => {
                    let path = if path.is_dir() {
                        path.join(&export.file_name)
                    } else {
                        path
                    };
                    write_atomically(&path, &bytes)?;
                    Some(path)
                }
                None => None,
            };
            match (json, &written) {
                (true, _) => print_json(&serde_json::json!({
                    "revision": export.revision,
                    "file_name": export.file_name,
                    "format": export.format,
                    "path": written.as_ref().map(|p| p.display().to_string()),
                    "content": if written.is_none() { Some(&export.content) } else { None },
                }))?,
                (false, Some(path)) => {
                    println!("wrote revision {} to {}", export.revision, path.display())
                }
                (false, None) => print!("{}", export.content),
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

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

async fn artifact(desk: &Desk, cmd: ArtifactCmd) -> Result<ExitCode, AppError> {
    match cmd {
        ArtifactCmd::Add {
            session_id,
            path,
            caption,
            json,
        } => {
            let a = api::artifact_add(
                desk,
                api::ArtifactAddRequest {
                    session_id,
                    path,
                    caption,
                },
            )
            .await?;
            if json {
                print_json(&a)?;
            } else {
                println!("{}  {}  {}  sha256:{}", a.id, a.file_name, a.mime, a.sha256);
            }
        }
        ArtifactCmd::List { session_id, json } => {
            let list = api::artifact_list(desk, api::SessionRef { session_id }).await?;
            if json {
                print_json(&list)?;
            } else if list.artifacts.is_empty() {
                println!("no photos or files");
            } else {
                for a in &list.artifacts {
                    println!(
                        "{}  {}  {}  {} bytes  taken {}",
                        a.id,
                        a.file_name,
                        a.mime,
                        a.size_bytes,
                        a.taken_at.as_deref().unwrap_or("unknown")
                    );
                }
            }
        }
        ArtifactCmd::Verify { session_id, json } => {
            let report =
                api::artifact_verify(desk, api::ArtifactVerifyRequest { session_id }).await?;
            if json {
                print_json(&report)?;
            } else {
                for r in report.results.iter().filter(|r| r.status != BlobStatus::Ok) {
                    let what = match r.status {
                        BlobStatus::Missing => "MISSING",
                        _ => "CORRUPT",
                    };
                    println!(
                        "{what}  {}  {}  sha256:{}",
                        r.artifact_id, r.file_name, r.sha256
                    );
                }
                println!("{} of {} file(s) intact", report.ok, report.checked);
            }
            if report.ok != report.checked {
                return Ok(ExitCode::FAILURE);
            }
        }
        ArtifactCmd::Sweep { grace_secs, json } => {
            let r = desk
                .sweep_artifacts(std::time::Duration::from_secs(grace_secs))
                .await?;
            if json {
                print_json(&r)?;
            } else {
                println!(
                    "removed {} orphan blob(s), {} temp file(s), {} stale pin(s)",
                    r.blobs_removed, r.temp_files_removed, r.pins_dropped
                );
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn default_ui_dir() -> PathBuf {
    let local = PathBuf::from("ui/dist");
    if local.join("index.html").is_file() {
        return local;
    }
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/ui/dist"))
}

async fn serve_cmd(desk: &Desk, args: ServeArgs) -> Result<ExitCode, AppError> {
    if args.token.is_some() {
        return Err(AppError::new(
            "invalid_input",
            format!(
                "--token is refused: a token on the command line is visible to every user in the \
                 process list; put it in a file and pass --token-file FILE, or set {TOKEN_ENV}"
            ),
        ));
    }
    let token = match &args.token_file {
        Some(path) => Some(read_token_file(path)?),
        None => std::env::var(TOKEN_ENV)
            .ok()
            .filter(|t| !t.trim().is_empty()),
    };
    let config = ServeConfig {
        host: args.host,
        port: args.port,
        token,
        ui_dir: Some(args.ui_dir.unwrap_or_else(default_ui_dir)),
        csrf_token: std::env::var(serve::CSRF_ENV).ok(),
    };
    let listener = serve::bind(&config).await?;
    desk.warm_engine(|| {});
    desk.start_sweeper();
    let _sync = servicedesk::sync::spawn_worker(desk.clone());
    let addr = listener
        .local_addr()
        .map_err(|e| AppError::new("internal", e.to_string()))?;
    println!("listening on http://{addr}");
    let _ = std::io::stdout().flush();
    serve::serve(listener, serve::router(desk.clone(), &config))
        .await
        .map_err(|e| AppError::new("internal", format!("server stopped: {e}")))?;
    Ok(ExitCode::SUCCESS)
}

/// The bearer token from `--token-file`: its first line, trimmed.
fn read_token_file(path: &std::path::Path) -> Result<String, AppError> {
    let bad = |why: String| {
        AppError::new(
            "invalid_input",
            format!("--token-file {}: {why}", path.display()),
        )
    };
    let text = servicedesk::files::read_text_limited(path, 4096, "a token file")
        .map_err(|e| bad(e.to_string()))?;
    let token = text.lines().next().unwrap_or("").trim().to_owned();
    if token.is_empty() {
        return Err(bad("is empty".into()));
    }
    Ok(token)
}

/// Sessions through the real paths (a chat diagnosis to its report, photos
/// stored and thumbnailed), each photo a distinct small PNG.
async fn seed_scale(desk: &Desk, sessions: u32, photos: u32) -> Result<ExitCode, AppError> {
    let script = [
        "the roof fan does not work",
        "the panel fuse is blown",
        "write the report",
    ];
    for i in 0..sessions {
        let session = desk
            .new_session(NewSession {
                complaint: format!("roof fan does not run (unit {i})"),
                customer: Some(format!("Customer {i}")),
                technician: Some(["Alex", "Marta", "Ivan"][i as usize % 3].to_string()),
                language: None,
                unit: servicedesk::store::Unit {
                    plate: Some(format!("SEED{i:05}")),
                    make_model: Some("Winnebago View 24D".into()),
                    ..Default::default()
                },
            })
            .await?;
        for p in 0..photos {
            let n = i * photos + p;
            let mut img = image::RgbImage::new(48, 36);
            for (x, y, px) in img.enumerate_pixels_mut() {
                *px = image::Rgb([
                    (n % 251) as u8,
                    (x * 5) as u8,
                    ((n / 251) as u8) ^ (y as u8),
                ]);
            }
            let mut bytes = std::io::Cursor::new(Vec::new());
            image::DynamicImage::ImageRgb8(img)
                .write_to(&mut bytes, image::ImageFormat::Png)
                .map_err(|e| AppError::new("internal", e.to_string()))?;
            desk.add_artifact_bytes(
                &session.id,
                &format!("photo-{p}.png"),
                bytes.into_inner(),
                Some(format!("photo {p} of unit {i}")),
            )
            .await?;
        }
        for line in script {
            desk.chat_turn(&session.id, line, vec![]).await?;
        }
        if (i + 1) % 100 == 0 {
            eprintln!("seeded {} of {sessions} sessions", i + 1);
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// Commit turns one after another, each with a new state snapshot and fact,
/// some with a file; after each commit print its sequence number. The crash
/// test kills this at random moments and checks that every printed turn is
/// there after a restart.
async fn dev(desk: &Desk, cmd: DevCmd) -> Result<ExitCode, AppError> {
    let (session_id, count, artifact_every) = match cmd {
        DevCmd::WriteTurns {
            session_id,
            count,
            artifact_every,
        } => (session_id, count, artifact_every),
        DevCmd::SeedScale {
            sessions,
            photos_per_session,
        } => return seed_scale(desk, sessions, photos_per_session).await,
    };
    let (last_seq, mut state) = desk
        .store()
        .latest_state(&session_id)
        .await
        .map_err(AppError::from)?;
    let mut out = std::io::stdout().lock();
    for i in 0..count {
        let fact = Fact {
            id: uuid::Uuid::new_v4().to_string(),
            kind: FactKind::Measurement,
            source: FactSource::Technician,
            subject: "board_supply".into(),
            value: Some(format!("12.{}", i % 10)),
            unit: Some("VDC".into()),
            text: format!("12.{} V at the board", i % 10),
            turn_seq: 0,
            superseded_by: None,
            name: None,
            outcome: None,
        };
        state.completed_steps.push(format!("step-{i}"));
        state.facts.push(fact.clone());
        let mut turn = NewTurn::new(format!("measured 12.{} V", i % 10), "Noted.", state.clone());
        turn.intent = Some("main_diagnostic".into());
        turn.transition = Some("D1_step_answer".into());
        turn.trace = serde_json::json!({ "writer": "dev write-turns", "i": i });
        turn.new_facts.push(fact);
        // Keyed on the turn's own number so the pattern holds across restarts.
        let seq = last_seq + 1 + i64::from(i);
        if artifact_every > 0 && (seq - 1) % i64::from(artifact_every) == 0 {
            let body = format!("%PDF-1.4\n% crash-test document for turn {seq} of {session_id}\n");
            turn.artifacts.push(
                desk.prepare_artifact(format!("doc-{seq}.pdf"), body.into_bytes(), None)
                    .await?,
            );
        }
        let recorded = desk.record_turn(&session_id, &turn).await?;
        let _ = writeln!(out, "committed {}", recorded.turn.seq);
        let _ = out.flush();
    }
    Ok(ExitCode::SUCCESS)
}

async fn knowledge_cmd(desk: &Desk, cmd: KnowledgeCmd) -> Result<ExitCode, AppError> {
    use api::knowledge as k;
    match cmd {
        KnowledgeCmd::Ingest { paths, json } => {
            let report = k::knowledge_ingest_paths(desk, &paths).await?;
            if json {
                print_json(&report)?;
            } else {
                for s in &report.imported {
                    println!(
                        "imported  {} v{} ({} chunks) from {}",
                        s.source_id, s.version, s.chunks, s.origin
                    );
                }
                for s in &report.unchanged {
                    println!("unchanged {} v{} ({})", s.source_id, s.version, s.origin);
                }
                for e in &report.skipped {
                    println!("skipped   {e}");
                }
                println!(
                    "{} imported ({} chunks), {} unchanged, {} skipped",
                    report.imported.len(),
                    report.chunks,
                    report.unchanged.len(),
                    report.skipped.len()
                );
            }
            // Something skipped is worth a non-zero exit for scripts, but
            // what did import stays imported.
            return Ok(if report.skipped.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(2)
            });
        }
        KnowledgeCmd::List { json } => {
            let list = k::knowledge_sources(desk).await?;
            if json {
                print_json(&list)?;
            } else {
                for s in &list.sources {
                    let scope = match (&s.city_code, s.lot_codes.is_empty()) {
                        (Some(c), false) => format!("{c}/{}", s.lot_codes.join(",")),
                        (Some(c), true) => c.clone(),
                        (None, _) => "all".into(),
                    };
                    println!(
                        "{}{} v{}  {}  {}  {}  {} chunks  {}",
                        if s.active { "*" } else { " " },
                        s.source_id,
                        s.version,
                        s.doc_type,
                        s.language,
                        scope,
                        s.chunks,
                        s.title
                    );
                }
                println!("{} source versions (* = active now)", list.sources.len());
            }
        }
        KnowledgeCmd::Search {
            query,
            doc_type,
            source_type,
            city_code,
            lot_code,
            at_time,
            source_ids,
            language,
            include_inactive,
            top_k,
            json,
        } => {
            let results = k::knowledge_search(
                desk,
                servicedesk::knowledge::SearchQuery {
                    query,
                    doc_type,
                    source_type,
                    city_code,
                    lot_code,
                    at_time,
                    source_ids,
                    language,
                    include_inactive,
                    top_k,
                    asker_language: None,
                },
            )
            .await?;
            if json {
                print_json(&results)?;
            } else if results.results.is_empty() {
                println!("nothing found");
            } else {
                for (i, r) in results.results.iter().enumerate() {
                    println!(
                        "{}. {} ({:.2})  {}\n   {}",
                        i + 1,
                        r.chunk_id,
                        r.score,
                        r.title,
                        r.snippet
                    );
                }
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

async fn ask(
    desk: &Desk,
    question: String,
    language: Option<String>,
    json: bool,
) -> Result<ExitCode, AppError> {
    let answer = api::knowledge::knowledge_ask(
        desk,
        api::knowledge::AskRequest {
            question,
            language,
            filters: None,
        },
    )
    .await?;
    if json {
        print_json(&answer)?;
    } else {
        println!("{}", servicedesk::knowledge::answer::render(&answer));
        if !answer.clarifying_questions.is_empty() {
            println!("\nThis document asks first:");
            for q in &answer.clarifying_questions {
                println!("- {q}");
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

async fn eval(desk: &Desk, cmd: EvalCmd) -> Result<ExitCode, AppError> {
    let EvalCmd::Knowledge {
        dataset,
        k,
        min_hit_rate,
        min_citation_coverage,
        min_empty_rate,
        min_consistency,
        json,
    } = cmd
    else {
        unreachable!("eval understanding runs before the data dir is opened")
    };
    let text = servicedesk::files::read_text_limited(
        &dataset,
        32 * 1024 * 1024,
        "a knowledge eval dataset",
    )?;
    let cases = servicedesk::knowledge::eval::parse_dataset(&text)
        .map_err(|e| AppError::new("invalid_input", format!("{}: {e}", dataset.display())))?;
    let m = servicedesk::knowledge::eval::run(desk.store().pool(), &cases, k)
        .await
        .map_err(|e| AppError::new("invalid_input", e.to_string()))?;
    let checks = [
        ("hit_rate_at_k", m.hit_rate_at_k, min_hit_rate),
        (
            "citation_coverage",
            m.citation_coverage,
            min_citation_coverage,
        ),
        (
            "empty_retrieval_rate",
            m.empty_retrieval_rate,
            min_empty_rate,
        ),
        ("answer_consistency", m.answer_consistency, min_consistency),
    ];
    let below: Vec<String> = checks
        .iter()
        .filter(|(_, v, min)| v < min)
        .map(|(name, v, min)| format!("{name} {v:.3} < {min}"))
        .collect();
    if json {
        let mut v = serde_json::to_value(&m).unwrap_or_default();
        v["passed"] = serde_json::Value::Bool(below.is_empty());
        v["below_threshold"] = serde_json::json!(below);
        print_json(&v)?;
    } else {
        println!(
            "{} cases (k = {}): hit@{} {:.3}, citation coverage {:.3}, empty on negatives {:.3}, consistency {:.3}, empty on positives {:.3}",
            m.cases, m.k, m.k, m.hit_rate_at_k, m.citation_coverage, m.empty_retrieval_rate, m.answer_consistency, m.positive_empty_rate
        );
        for f in &m.failures {
            println!(
                "  {} [{}] {:?}: {} (got {:?})",
                f.id, f.kind, f.query, f.problem, f.got
            );
        }
        if !below.is_empty() {
            println!("below threshold: {}", below.join(", "));
        }
    }
    Ok(if below.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
