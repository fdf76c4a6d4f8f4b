//! `servicedesk portal login` and `servicedesk sync run|status|retry`: the
//! portal sync from the command line (headless machines, scripts, support).
//! The token is read from standard input (`--token-stdin`) or
//! `SERVICEDESK_PORTAL_TOKEN`, stored in the OS keyring, and never printed.

use std::io::Read;
use std::process::ExitCode;
use std::time::Duration;

use clap::Subcommand;

use servicedesk::api::sync::{self as s, PortalSettingsRequest, SyncRetryRequest};
use servicedesk::api::AppError;
use servicedesk::desk::Desk;
use servicedesk::sync::{SyncConfig, Syncer};

#[derive(Subcommand)]
pub enum SyncTop {
    /// Portal credentials: the URL in the settings, the token in the OS keyring
    #[command(subcommand)]
    Portal(PortalCmd),
    /// Deliver the outbox to the portal, show where it stands, re-queue an item
    #[command(subcommand)]
    Sync(SyncCmd),
}

#[derive(Subcommand)]
pub enum PortalCmd {
    /// Set the portal URL (and, with --token-stdin, the token)
    Login {
        /// The portal's base URL (https; http only for 127.0.0.1/localhost/::1)
        #[arg(long)]
        url: Option<String>,
        /// Read the token from standard input and store it in the OS keyring
        #[arg(long)]
        token_stdin: bool,
        #[arg(long)]
        json: bool,
    },
    /// Remove the token from the OS keyring
    Logout,
    /// Show the portal URL and whether a token is set (never the token)
    Show {
        #[arg(long)]
        json: bool,
    },
}

#[derive(Subcommand)]
pub enum SyncCmd {
    /// Deliver what is due (with --until-idle: everything deliverable, waiting
    /// out backoff and outages up to --max-wait). Exit 1 if items are failed
    /// or in conflict, 3 if items are still pending.
    Run {
        #[arg(long)]
        until_idle: bool,
        /// Seconds to keep waiting for backoff or the portal (with --until-idle)
        #[arg(long, default_value_t = 300)]
        max_wait: u64,
        #[arg(long)]
        json: bool,
    },
    /// online/offline, pending, syncing, failed, conflicts, last success
    Status {
        #[arg(long)]
        json: bool,
    },
    /// Re-queue a failed or conflicting item (same Idempotency-Key)
    Retry {
        item: String,
        #[arg(long)]
        json: bool,
    },
}

pub async fn run(desk: &Desk, cmd: SyncTop) -> Result<ExitCode, AppError> {
    match cmd {
        SyncTop::Portal(PortalCmd::Login {
            url,
            token_stdin,
            json,
        }) => {
            let token = if token_stdin {
                let mut text = String::new();
                // A token is one short line: read at most 64 KiB.
                std::io::stdin()
                    .take(64 * 1024)
                    .read_to_string(&mut text)
                    .map_err(|e| AppError::new("invalid_input", format!("stdin: {e}")))?;
                let t = text.trim().to_owned();
                if t.is_empty() {
                    return Err(AppError::new("invalid_input", "no token on standard input"));
                }
                Some(t)
            } else {
                None
            };
            if url.is_none() && token.is_none() {
                return Err(AppError::new(
                    "invalid_input",
                    "nothing to do: pass --url URL and/or --token-stdin",
                ));
            }
            let out = s::portal_settings(
                desk,
                PortalSettingsRequest {
                    url,
                    token,
                    clear_token: false,
                },
            )
            .await?;
            print_settings(&out, json);
        }
        SyncTop::Portal(PortalCmd::Logout) => {
            let out = s::portal_settings(
                desk,
                PortalSettingsRequest {
                    clear_token: true,
                    ..Default::default()
                },
            )
            .await?;
            print_settings(&out, false);
        }
        SyncTop::Portal(PortalCmd::Show { json }) => {
            let out = s::portal_settings(desk, PortalSettingsRequest::default()).await?;
            print_settings(&out, json);
        }
        SyncTop::Sync(SyncCmd::Run {
            until_idle,
            max_wait,
            json,
        }) => {
            let syncer = Syncer::new(desk.clone(), SyncConfig::default());
            let summary = if until_idle {
                syncer.run_until_idle(Duration::from_secs(max_wait)).await?
            } else {
                syncer.pass().await?
            };
            let status = s::sync_status(desk).await?;
            if json {
                println!("{}", serde_json::json!({"run": summary, "status": status}));
            } else {
                println!(
                    "sent {}: {} done, {} failed, {} conflicts, {} to retry",
                    summary.sent, summary.done, summary.failed, summary.conflicts, summary.retried
                );
                if let Some(stopped) = &summary.stopped {
                    println!(
                        "stopped: {}",
                        serde_json::to_value(stopped).unwrap_or_default()
                    );
                }
                print_status(&status);
            }
            return Ok(if status.failed > 0 || status.conflicts > 0 {
                ExitCode::from(1)
            } else if status.pending > 0 {
                ExitCode::from(3)
            } else {
                ExitCode::SUCCESS
            });
        }
        SyncTop::Sync(SyncCmd::Status { json }) => {
            let status = s::sync_status(desk).await?;
            if json {
                println!("{}", serde_json::to_string(&status).unwrap_or_default());
            } else {
                print_status(&status);
            }
        }
        SyncTop::Sync(SyncCmd::Retry { item, json }) => {
            let info = s::sync_retry(desk, SyncRetryRequest { item }).await?;
            if json {
                println!("{}", serde_json::to_string(&info).unwrap_or_default());
            } else {
                println!("re-queued {} ({} {})", info.id, info.kind, info.target);
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

fn print_settings(out: &s::PortalSettings, json: bool) {
    if json {
        println!("{}", serde_json::to_string(out).unwrap_or_default());
        return;
    }
    println!(
        "portal: {}{}",
        out.url.as_deref().unwrap_or("(not set)"),
        if out.url_from_env {
            " (from SERVICEDESK_PORTAL_URL)"
        } else {
            ""
        }
    );
    let from = match out.token_origin {
        Some(servicedesk::sync::TokenOrigin::Env) => "from SERVICEDESK_PORTAL_TOKEN".to_owned(),
        _ => format!("in {}", out.token_store.as_str()),
    };
    match (&out.token_last4, &out.keyring_error) {
        (Some(l4), _) if !l4.is_empty() => println!("token: set ({from}), ending in {l4}"),
        (Some(_), _) => println!("token: set ({from})"),
        (None, Some(e)) => println!("token: unknown ({e})"),
        (None, None) => println!("token: not set (store: {})", out.token_store.as_str()),
    }
}

fn print_status(st: &servicedesk::sync::SyncStatus) {
    println!(
        "{}: {} pending ({} syncing, {} waiting), {} failed, {} conflicts, {} done; last success {}",
        st.state.as_str(),
        st.pending,
        st.syncing,
        st.waiting,
        st.failed,
        st.conflicts,
        st.done,
        st.last_success
            .as_deref()
            .map_or("never".into(), super::local)
    );
    if let Some(p) = &st.paused {
        println!("paused: {p}");
    }
    for item in &st.problems {
        println!(
            "  {} {} {} {}: {}",
            item.id,
            item.status.as_str(),
            item.kind,
            item.target,
            item.last_error.as_deref().unwrap_or("")
        );
    }
}
