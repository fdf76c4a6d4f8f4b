//! `servicedesk billing ...`: simulate, rules, orders, arrears, verify and
//! seed-demo, through the typed api functions (`servicedesk::api::billing`).
//! `--json` prints the api's JSON; without it, lines for people. Errors are
//! one line `error: code: message` (exit 1); an import that skipped records
//! exits 2 (what did import stays imported).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Subcommand};

use servicedesk::api::billing::{self as b, ImportRequest, SimulateResponse, MAX_IMPORT_BYTES};
use servicedesk::api::AppError;
use servicedesk::billing::store::ImportReport;
use servicedesk::billing::{Breakdown, Piece};
use servicedesk::desk::Desk;

use super::print_json;

#[derive(Subcommand)]
pub enum BillingCmd {
    /// What a stay costs: under a payload file, a stored rule, or the rule covering a lot
    Simulate(SimulateArgs),
    /// Import and list rules with their versions
    #[command(subcommand)]
    Rules(RulesCmd),
    /// Import and list parking/storage orders
    #[command(subcommand)]
    Orders(OrdersCmd),
    /// What a plate still owes (optionally in one city)
    Arrears {
        #[arg(long)]
        plate: String,
        #[arg(long)]
        city: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// Check an order's total against the simulated charge
    Verify {
        #[arg(long)]
        order: String,
        #[arg(long)]
        json: bool,
    },
    /// Load the demo rules, their explanations and orders (idempotent)
    SeedDemo {
        #[arg(long)]
        json: bool,
    },
}

#[derive(Args)]
pub struct SimulateArgs {
    /// A payload JSON file (free_minutes, segments)
    #[arg(long, value_name = "FILE", conflicts_with_all = ["rule_code", "city", "lot"])]
    payload: Option<PathBuf>,
    /// A stored rule by code
    #[arg(long, conflicts_with_all = ["city", "lot"])]
    rule_code: Option<String>,
    /// With --lot: the active rule covering this city and lot
    #[arg(long, requires = "lot")]
    city: Option<String>,
    #[arg(long, requires = "city")]
    lot: Option<String>,
    /// Site-local date (2026-03-02) or time (2026-03-02T08:00), or RFC 3339 with an offset
    #[arg(long)]
    entry: String,
    /// As --entry
    #[arg(long)]
    exit: String,
    /// The site's IANA time zone for --payload (default UTC)
    #[arg(long)]
    time_zone: Option<String>,
    #[arg(long)]
    json: bool,
}

#[derive(Subcommand)]
pub enum RulesCmd {
    /// Import a JSON array of rules with their versions
    Import {
        file: PathBuf,
        #[arg(long)]
        json: bool,
    },
    /// Every rule with its versions
    List {
        #[arg(long)]
        json: bool,
    },
    /// Create a rule from one record of a rules file (a JSON object)
    Create {
        file: PathBuf,
        #[arg(long)]
        json: bool,
    },
    /// Add a version to a stored rule (checked as an import checks it)
    AddVersion {
        rule_code: String,
        /// In the rule's time zone: 2026-09-01T00:00
        #[arg(long)]
        from: String,
        #[arg(long)]
        to: Option<String>,
        /// The tariff, a JSON file (docs/spec/billing.md)
        #[arg(long)]
        payload: PathBuf,
        #[arg(long)]
        json: bool,
    },
}

#[derive(Subcommand)]
pub enum OrdersCmd {
    /// Import orders from JSONL (one order a line)
    Import {
        file: PathBuf,
        #[arg(long)]
        json: bool,
    },
    /// Stored orders, by entry time
    List {
        #[arg(long)]
        plate: Option<String>,
        #[arg(long)]
        city: Option<String>,
        #[arg(long)]
        json: bool,
    },
}

/// A JSON file, read like an import file; the error names the file and where.
fn json_file(path: &Path) -> Result<serde_json::Value, AppError> {
    let text = read(path)?;
    serde_json::from_str(&text).map_err(|e| {
        AppError::new(
            "invalid_input",
            format!(
                "{}: not valid JSON at line {} column {}: {e}",
                path.display(),
                e.line(),
                e.column()
            ),
        )
    })
}

/// A payload or import file: a regular file of at most `MAX_IMPORT_BYTES`
/// (a FIFO or `/dev/zero` is refused before a byte is read).
fn read(path: &Path) -> Result<String, AppError> {
    let bytes = servicedesk::files::read_limited(
        path,
        MAX_IMPORT_BYTES as u64,
        "a billing payload or import file",
    )?;
    String::from_utf8(bytes).map_err(|e| {
        AppError::new(
            "invalid_input",
            format!(
                "{} is not UTF-8 text (byte {})",
                path.display(),
                e.utf8_error().valid_up_to()
            ),
        )
    })
}

fn piece_line(p: &Piece) -> String {
    let mut s = format!(
        "  {:<10} {}  {} to {}  {:>5} min  {:>3} units  {:>8}",
        p.segment,
        p.occurrence,
        p.start.format("%m-%d %H:%M"),
        p.end.format("%m-%d %H:%M"),
        p.minutes,
        p.units,
        p.amount.to_string()
    );
    if p.cap_applied {
        s.push_str(&format!("  (capped from {})", p.uncapped_amount));
    }
    s
}

fn print_breakdown(b: &Breakdown) {
    for p in &b.pieces {
        println!("{}", piece_line(p));
    }
    if b.grace_applied {
        println!(
            "  within the {}-minute grace period: nothing to pay",
            b.free_minutes
        );
    }
    println!(
        "total {} for {} minutes ({} to {}, {})",
        b.total,
        b.stay_minutes,
        b.entry.format("%Y-%m-%d %H:%M"),
        b.exit.format("%Y-%m-%d %H:%M"),
        b.time_zone.name()
    );
}

/// Prints an import report; exit 2 when something was skipped.
fn import_done(report: &ImportReport, json: bool) -> Result<ExitCode, AppError> {
    if json {
        print_json(report)?;
    } else {
        let item = |i: &servicedesk::billing::store::ImportedItem| match i.version_no {
            Some(v) => format!("{} v{} (line {})", i.key, v, i.line),
            None => format!("{} (line {})", i.key, i.line),
        };
        for i in &report.imported {
            println!("imported  {}", item(i));
        }
        for i in &report.unchanged {
            println!("unchanged {}", item(i));
        }
        for s in &report.skipped {
            println!("skipped   {}: {s}", report.origin);
        }
        if let Some(e) = &report.explanations {
            for id in &e.ingested {
                println!("explained {id}");
            }
        }
        println!(
            "{} imported, {} unchanged, {} skipped",
            report.imported.len(),
            report.unchanged.len(),
            report.skipped.len()
        );
    }
    Ok(if report.skipped.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(2)
    })
}

pub async fn run(desk: &Desk, cmd: BillingCmd) -> Result<ExitCode, AppError> {
    match cmd {
        BillingCmd::Simulate(a) => {
            let payload = match &a.payload {
                Some(path) => Some(serde_json::from_str(&read(path)?).map_err(|e| {
                    AppError::new(
                        "invalid_payload",
                        format!("{}: not valid JSON: {e}", path.display()),
                    )
                })?),
                None => None,
            };
            let r = b::billing_simulate(
                desk,
                b::SimulateRequest {
                    payload,
                    rule_code: a.rule_code,
                    city_code: a.city,
                    lot_code: a.lot,
                    entry: a.entry,
                    exit: a.exit,
                    time_zone: a.time_zone,
                },
            )
            .await?;
            if a.json {
                print_json(&r)?;
            } else {
                match &r {
                    SimulateResponse::Payload(bd) => print_breakdown(bd),
                    SimulateResponse::Rule(s) => {
                        println!(
                            "rule {} version {} ({})",
                            s.rule_code, s.version_no, s.rule_name
                        );
                        print_breakdown(&s.breakdown);
                    }
                }
            }
        }
        BillingCmd::Rules(RulesCmd::Import { file, json }) => {
            let content = read(&file)?;
            let report = b::billing_rules_import(
                desk,
                ImportRequest {
                    content,
                    name: Some(file.display().to_string()),
                },
            )
            .await?;
            return import_done(&report, json);
        }
        BillingCmd::Rules(RulesCmd::Create { file, json }) => {
            let rule = json_file(&file)?;
            let r = b::billing_rule_create(desk, b::RuleCreateRequest { rule }).await?;
            if json {
                print_json(&r)?;
            } else {
                println!(
                    "created {} with {} version(s)",
                    r.rule_code,
                    r.versions.len()
                );
            }
        }
        BillingCmd::Rules(RulesCmd::AddVersion {
            rule_code,
            from,
            to,
            payload,
            json,
        }) => {
            let payload = json_file(&payload)?;
            let v = b::billing_rule_version_add(
                desk,
                b::RuleVersionAddRequest {
                    rule_code: rule_code.clone(),
                    effective_from: from,
                    effective_to: to,
                    payload,
                },
            )
            .await?;
            if json {
                print_json(&v)?;
            } else {
                println!("{rule_code}: added {}", v.span());
            }
        }
        BillingCmd::Rules(RulesCmd::List { json }) => {
            let list = b::billing_rules(desk).await?;
            if json {
                print_json(&list)?;
            } else {
                for r in &list.rules {
                    println!(
                        "{}  {}  {} {}  {}  {}",
                        r.rule_code,
                        r.status,
                        r.city_code,
                        r.lot_codes.join(","),
                        r.time_zone,
                        r.name
                    );
                    for v in &r.versions {
                        println!("  {}", v.span());
                    }
                }
                println!("{} rules", list.rules.len());
            }
        }
        BillingCmd::Orders(OrdersCmd::Import { file, json }) => {
            let content = read(&file)?;
            let report = b::billing_orders_import(
                desk,
                ImportRequest {
                    content,
                    name: Some(file.display().to_string()),
                },
            )
            .await?;
            return import_done(&report, json);
        }
        BillingCmd::Orders(OrdersCmd::List { plate, city, json }) => {
            let list = b::billing_orders(
                desk,
                b::OrdersRequest {
                    plate_no: plate,
                    city_code: city,
                },
            )
            .await?;
            if json {
                print_json(&list)?;
            } else {
                for o in &list.orders {
                    println!(
                        "{}  {} {}  {}  {} to {}  total {}  paid {}  owes {}",
                        o.order_no,
                        o.city_code,
                        o.lot_code,
                        o.plate_no,
                        o.entry_time,
                        o.exit_time,
                        o.total_amount,
                        o.paid_amount,
                        o.arrears_amount
                    );
                }
                println!("{} orders", list.orders.len());
            }
        }
        BillingCmd::Arrears { plate, city, json } => {
            let r = b::billing_arrears(
                desk,
                b::ArrearsRequest {
                    plate_no: plate,
                    city_code: city,
                },
            )
            .await?;
            if json {
                print_json(&r)?;
            } else {
                let scope = r
                    .city_code
                    .as_deref()
                    .map(|c| format!(" in {c}"))
                    .unwrap_or_default();
                println!(
                    "plate {}{scope}: {} (owes {}, {} orders checked)",
                    r.plate_no, r.status, r.total_arrears, r.orders_checked
                );
                for o in &r.orders {
                    println!(
                        "  {}  {} {}  {}  total {}  paid {}  owes {}",
                        o.order_no,
                        o.city_code,
                        o.lot_code,
                        o.entry_time,
                        o.total_amount,
                        o.paid_amount,
                        o.arrears_amount
                    );
                }
            }
        }
        BillingCmd::Verify { order, json } => {
            let v = b::billing_verify(desk, b::VerifyRequest { order_no: order }).await?;
            if json {
                print_json(&v)?;
            } else {
                println!(
                    "{}: {} → {}  (order {}, simulated {}, difference {}; rule {} version {})",
                    v.order_no,
                    v.result,
                    v.action,
                    v.order_total,
                    v.simulated_total,
                    v.difference,
                    v.rule_code,
                    v.version_no
                );
                for p in &v.pieces {
                    println!("{}", piece_line(p));
                }
            }
        }
        BillingCmd::SeedDemo { json } => {
            let r = b::billing_seed_demo(desk).await?;
            if json {
                print_json(&r)?;
            } else {
                for (what, rep) in [("rule versions", &r.rules), ("orders", &r.orders)] {
                    println!(
                        "demo {what}: {} imported, {} unchanged, {} skipped",
                        rep.imported.len(),
                        rep.unchanged.len(),
                        rep.skipped.len()
                    );
                    for s in &rep.skipped {
                        println!("  skipped {s}");
                    }
                }
            }
            if !r.rules.skipped.is_empty() || !r.orders.skipped.is_empty() {
                return Ok(ExitCode::from(2));
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
