//! `servicedesk artifact add|list|verify|sweep`: photos and files attached
//! to sessions, their integrity, and the sweep of what a crash left.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Subcommand;

use servicedesk::api::{self, AppError};
use servicedesk::artifacts::BlobStatus;
use servicedesk::desk::Desk;

use super::print_json;

#[derive(Subcommand)]
pub(super) enum ArtifactCmd {
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

pub(super) async fn run(desk: &Desk, cmd: ArtifactCmd) -> Result<ExitCode, AppError> {
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
