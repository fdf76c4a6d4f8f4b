//! `servicedesk report list|status|draft|finalize|reopen|export`: a session's
//! report: its final revisions, where it stands (draft, finalized, reopened)
//! with the draft's text, edits saved into the draft, the finalize that queues
//! it for the portal, a reopen (recorded with who and when), and a revision
//! written as Markdown, JSON or PDF.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};

use servicedesk::api::{self, AppError, ContentEncoding};
use servicedesk::desk::Desk;
use servicedesk::reports::ReportStage;

use super::{print_json, write_atomically};

#[derive(Subcommand)]
pub(super) enum ReportCmd {
    /// The report revisions of a session, oldest first
    List {
        session_id: String,
        #[arg(long)]
        json: bool,
    },
    /// Where the report stands (none, draft, finalized; reopened by whom) and the draft's text
    Status {
        session_id: String,
        #[arg(long)]
        json: bool,
    },
    /// Save your wording into the report draft (made from the diagnosis when there is none); nothing is queued
    Draft(FinalizeArgs),
    /// Finalize the session's current report as a new revision and queue it for the portal;
    /// the repair order is then read-only until reopened
    Finalize(FinalizeArgs),
    /// Reopen a finalized repair order so it can change; the next finalize is the next revision
    Reopen {
        session_id: String,
        /// Who reopens it (kept in the audit trail)
        #[arg(long)]
        by: Option<String>,
        #[arg(long)]
        json: bool,
    },
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

#[derive(Args)]
pub(super) struct FinalizeArgs {
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

impl FinalizeArgs {
    fn request(self) -> api::reports::ReportFinalizeRequest {
        api::reports::ReportFinalizeRequest {
            session_id: self.session_id,
            complaint: self.complaint,
            cause: self.cause,
            correction: self.correction,
            translation: Default::default(),
        }
    }
}

pub(super) async fn run(desk: &Desk, cmd: ReportCmd) -> Result<ExitCode, AppError> {
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
                    println!(
                        "r{}  {}  {}  {first}",
                        r.revision,
                        r.created_at.local_display(),
                        r.language
                    );
                }
            }
        }
        ReportCmd::Finalize(args) => return finalize(desk, args).await,
        ReportCmd::Status { session_id, json } => {
            let state = api::reports::report_state(desk, api::SessionRef { session_id }).await?;
            if json {
                print_json(&state)?;
            } else {
                let stage = match state.stage {
                    ReportStage::None => "no draft",
                    ReportStage::Draft => "draft",
                    ReportStage::Finalized => "finalized (read-only until reopened)",
                };
                println!("report: {stage}");
                if let Some(rev) = state.final_revision {
                    println!("newest final revision: {rev}");
                }
                if let Some(r) = &state.reopened {
                    println!(
                        "reopened {} by {}",
                        r.at.local_display(),
                        r.by.as_deref().unwrap_or("(not given)")
                    );
                }
                if let Some(d) = &state.draft {
                    println!(
                        "draft of revision {} (saved {}):\n{}",
                        d.revision,
                        d.updated_at.local_display(),
                        d.body
                    );
                }
            }
        }
        ReportCmd::Draft(args) => {
            let json = args.json;
            let saved = api::reports::report_draft_save(desk, args.request()).await?;
            if json {
                print_json(&saved)?;
            } else {
                println!(
                    "saved the draft of revision {}:\n{}",
                    saved.revision, saved.body
                );
            }
        }
        ReportCmd::Reopen {
            session_id,
            by,
            json,
        } => {
            let done = api::reports::report_reopen(
                desk,
                api::reports::ReportReopenRequest { session_id, by },
            )
            .await?;
            if json {
                print_json(&done)?;
            } else {
                println!(
                    "reopened at {}; the next finalize makes revision {}",
                    done.reopened_at.local_display(),
                    done.next_revision
                );
            }
        }
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
            let bytes = if export.encoding == ContentEncoding::Base64 {
                use base64::Engine as _;
                base64::engine::general_purpose::STANDARD
                    .decode(&export.content)
                    .map_err(|e| AppError::new("internal", e.to_string()))?
            } else {
                export.content.clone().into_bytes()
            };
            if out.is_none() && export.encoding == ContentEncoding::Base64 && !json {
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

async fn finalize(desk: &Desk, args: FinalizeArgs) -> Result<ExitCode, AppError> {
    let json = args.json;
    let done = api::reports::report_finalize(desk, args.request()).await?;
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(&done)
                .map_err(|e| AppError::new("internal", e.to_string()))?
        );
    } else {
        println!(
            "finalized revision {} at {}{}",
            done.revision,
            done.created_at.local_display(),
            if done.queued {
                "; queued for the portal"
            } else {
                ""
            }
        );
    }
    Ok(ExitCode::SUCCESS)
}
