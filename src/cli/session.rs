//! `servicedesk session new|edit|list|show|export|delete`: service sessions
//! (repair orders) through the typed api functions.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Subcommand};

use servicedesk::api::{self, AppError};
use servicedesk::desk::Desk;
use servicedesk::store::{OdometerUnit, Session, SessionStatus};

use super::{local_in, print_json, write_atomically};

#[derive(Subcommand)]
pub(super) enum SessionCmd {
    /// Open a new session (repair order) for a unit
    New(SessionNewArgs),
    /// Correct a session's customer, unit or complaint; each change is
    /// recorded with --by and the old value. An empty value clears a field.
    Edit(SessionEditArgs),
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
    technician: Option<String>,
    /// Language of the session: en, es, ru, ...
    #[arg(long)]
    language: Option<String>,
    #[command(flatten)]
    header: HeaderArgs,
    #[arg(long)]
    json: bool,
}

/// The header fields `new` and `edit` share.
#[derive(Args)]
pub(super) struct HeaderArgs {
    #[arg(long)]
    customer: Option<String>,
    #[arg(long)]
    phone: Option<String>,
    #[arg(long)]
    email: Option<String>,
    /// 17 characters with a valid check digit
    #[arg(long)]
    vin: Option<String>,
    #[arg(long)]
    plate: Option<String>,
    #[arg(long)]
    make_model: Option<String>,
    #[arg(long)]
    year: Option<i32>,
    #[arg(long)]
    odometer: Option<i64>,
    /// mi or km
    #[arg(long, value_parser = parse_odometer_unit)]
    odometer_unit: Option<OdometerUnit>,
    #[arg(long)]
    engine_hours: Option<f64>,
}

#[derive(Args)]
pub(super) struct SessionEditArgs {
    session_id: String,
    /// Who makes the change, for the audit trail
    #[arg(long)]
    by: Option<String>,
    #[arg(long)]
    complaint: Option<String>,
    #[arg(long)]
    technician: Option<String>,
    #[command(flatten)]
    header: HeaderArgs,
    #[arg(long)]
    json: bool,
}

fn parse_odometer_unit(s: &str) -> Result<OdometerUnit, String> {
    OdometerUnit::parse(s).ok_or_else(|| format!("{s:?} is not an odometer unit: mi or km"))
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
        s.updated_at.local_display(),
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
            let h = a.header;
            let s = api::session_new(
                desk,
                api::SessionNewRequest {
                    complaint: a.complaint,
                    customer: h.customer,
                    customer_phone: h.phone,
                    customer_email: h.email,
                    technician: a.technician,
                    language: a.language,
                    vin: h.vin,
                    plate: h.plate,
                    make_model: h.make_model,
                    model_year: h.year,
                    odometer: h.odometer,
                    odometer_unit: h.odometer_unit,
                    engine_hours: h.engine_hours,
                },
            )
            .await?;
            if a.json {
                print_json(&s)?;
            } else {
                // Scripts read the id from this line; the RO number is in
                // `show` and --json.
                println!("{}", s.id);
            }
        }
        SessionCmd::Edit(a) => {
            let was = api::session_show(
                desk,
                api::SessionRef {
                    session_id: a.session_id.clone(),
                },
            )
            .await?
            .session;
            let h = a.header;
            let u = was.unit;
            let s = api::session_update(
                desk,
                api::SessionUpdateRequest {
                    session_id: a.session_id,
                    edited_by: a.by,
                    complaint: a.complaint.unwrap_or(was.complaint),
                    customer: h.customer.or(was.customer),
                    customer_phone: h.phone.or(was.customer_phone),
                    customer_email: h.email.or(was.customer_email),
                    technician: a.technician.or(was.technician),
                    vin: h.vin.or(u.vin),
                    plate: h.plate.or(u.plate),
                    make_model: h.make_model.or(u.make_model),
                    model_year: h.year.or(u.model_year),
                    odometer: h.odometer.or(u.odometer),
                    odometer_unit: h.odometer_unit.or(u.odometer_unit),
                    engine_hours: h.engine_hours.or(u.engine_hours),
                },
            )
            .await?;
            if a.json {
                print_json(&s)?;
            } else {
                println!("{}", session_line(&s));
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
                let odometer = s.unit.odometer.map(|o| {
                    let unit = s.unit.odometer_unit.map_or("", |u| u.as_str());
                    format!("{o} {unit}").trim_end().to_owned()
                });
                for (label, value) in [
                    ("RO", Some(s.ro_number.clone())),
                    ("customer", s.customer.clone()),
                    ("phone", s.customer_phone.clone()),
                    ("e-mail", s.customer_email.clone()),
                    ("technician", s.technician.clone()),
                    ("maker", s.unit.manufacturer.clone()),
                    ("model year", s.unit.model_year.map(|y| y.to_string())),
                    ("odometer", odometer),
                    ("language", Some(s.language.clone())),
                    ("created", Some(s.created_at.local_display())),
                ] {
                    if let Some(v) = value {
                        println!("  {label:<11} {v}");
                    }
                }
                if !d.edits.is_empty() {
                    println!("  changes ({}):", d.edits.len());
                    for e in &d.edits {
                        println!(
                            "    {}  {}  {}: {} -> {}",
                            e.edited_at.local_display(),
                            e.edited_by.as_deref().unwrap_or("?"),
                            e.field,
                            e.old_value.as_deref().map_or("(none)".into(), local_in),
                            e.new_value.as_deref().map_or("(none)".into(), local_in)
                        );
                    }
                }
                if !d.earlier_visits.is_empty() {
                    println!("  other visits of this unit ({}):", d.earlier_visits.len());
                    for v in &d.earlier_visits {
                        println!("    {}  {}", v.ro_number, session_line(v));
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
