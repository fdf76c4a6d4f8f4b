//! `servicedesk session new|list|show|export|delete`: service sessions
//! through the typed api functions.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};

use servicedesk::api::{self, AppError};
use servicedesk::desk::Desk;
use servicedesk::store::{Session, SessionStatus};

use super::{print_json, write_atomically};

#[derive(Subcommand)]
pub(super) enum SessionCmd {
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
pub(super) struct SessionNewArgs {
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

fn parse_status(s: &str) -> Result<SessionStatus, String> {
    SessionStatus::parse(s)
        .ok_or_else(|| format!("{s:?} is not a status: open, escalated or finalized"))
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

pub(super) async fn run(desk: &Desk, cmd: SessionCmd) -> Result<ExitCode, AppError> {
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
