//! `servicedesk ro show|line|delete|settings`: a repair order's complaint
//! lines, their pay types, labor and parts, and the shop's labor rates and
//! tax, through the typed api functions.

use std::process::ExitCode;

use clap::Subcommand;

use servicedesk::api::repair_order::{
    self as ro, RoLineAuthorizeRequest, RoLineDeleteRequest, RoLineSaveRequest,
};
use servicedesk::api::{AppError, SessionRef};
use servicedesk::desk::repair_order::{
    RepairOrder, RoAuthorizeInput, RoLaborInput, RoLineInput, RoPartInput, RoSettingsPatch,
};
use servicedesk::desk::Desk;

use super::print_json;

#[derive(Subcommand)]
pub(super) enum RoCmd {
    /// A session's lines with their labor, parts and totals
    Show {
        session_id: String,
        #[arg(long)]
        json: bool,
    },
    /// Add a line, or replace line --line N whole
    Line {
        session_id: String,
        /// The number of the line to replace (default: add a new line)
        #[arg(long, value_name = "N")]
        line: Option<i64>,
        /// The customer's words for this line
        #[arg(long)]
        complaint: String,
        /// customer, warranty, internal or service_contract
        #[arg(long, default_value = "customer")]
        pay_type: String,
        /// For warranty: chassis, coach or component
        #[arg(long)]
        payer: Option<String>,
        /// For a component maker's warranty: the maker
        #[arg(long)]
        maker: Option<String>,
        /// The diagnosis this line is (a key `ro show` lists)
        #[arg(long)]
        diagnosis: Option<String>,
        /// A labor line, "DESCRIPTION=HOURS" (repeat for more)
        #[arg(long, value_name = "DESCRIPTION=HOURS")]
        labor: Vec<String>,
        /// A part line, "PART_NO|DESCRIPTION|QTY|UNIT_PRICE" (repeat for more)
        #[arg(long, value_name = "NO|DESCRIPTION|QTY|PRICE")]
        part: Vec<String>,
        #[arg(long)]
        json: bool,
    },
    /// Record the customer's or the warranty company's answer to line N's
    /// estimate
    Authorize {
        session_id: String,
        #[arg(long, value_name = "N")]
        line: i64,
        /// approved or declined
        #[arg(long)]
        decision: String,
        /// Who answered
        #[arg(long)]
        by: String,
        /// in_person, phone or signature
        #[arg(long)]
        method: String,
        /// When (default: now); YYYY-MM-DDTHH:MM local or RFC 3339
        #[arg(long)]
        at: Option<String>,
        #[arg(long)]
        json: bool,
    },
    /// Remove line N (the lines after it move up)
    Delete {
        session_id: String,
        #[arg(long, value_name = "N")]
        line: i64,
        #[arg(long)]
        json: bool,
    },
    /// Show or set the RO number's prefix, the labor rates per pay type,
    /// the tax rate and whether labor is taxed
    Settings {
        /// What new RO numbers start with ("SVC-" gives SVC-000001)
        #[arg(long, value_name = "PREFIX")]
        prefix: Option<String>,
        /// A labor rate, "PAY_TYPE=AMOUNT" (repeat for more)
        #[arg(long, value_name = "PAY_TYPE=AMOUNT")]
        rate: Vec<String>,
        /// Tax rate in percent ("8.25")
        #[arg(long)]
        tax: Option<String>,
        /// Whether labor is taxed (parts always are)
        #[arg(long, value_name = "true|false")]
        labor_taxed: Option<bool>,
        #[arg(long)]
        json: bool,
    },
}

fn bad(message: String) -> AppError {
    AppError::new("invalid_input", message)
}

/// The id of line `n` of a repair order.
fn line_id(order: &RepairOrder, n: i64) -> Result<String, AppError> {
    order
        .lines
        .iter()
        .find(|l| l.line_no == n)
        .map(|l| l.id.clone())
        .ok_or_else(|| {
            bad(format!(
                "line: {} has no line {n} (it has {})",
                order.ro_number,
                order.lines.len()
            ))
        })
}

fn print_order(o: &RepairOrder) {
    println!(
        "{}  (tax {} %, labor taxed: {})",
        o.ro_number, o.settings.tax_rate_millipercent, o.settings.labor_taxable
    );
    for l in &o.lines {
        let payer = match (&l.warranty_payer, &l.warranty_maker) {
            (Some(_), Some(m)) => format!(" ({m})"),
            (Some(p), None) => format!(" ({})", p.as_str()),
            _ => String::new(),
        };
        let a = &l.authorization;
        let answered = match (&a.by, a.method, &a.at) {
            (Some(by), Some(method), Some(at)) => {
                format!(
                    "  {} by {by} ({}) {}",
                    a.status.as_str(),
                    method.as_str(),
                    at.local_display()
                )
            }
            _ => format!("  {}", a.status.as_str()),
        };
        println!(
            "  {}. {}  [{}{}]  rate {}{answered}",
            l.line_no,
            l.complaint,
            l.pay_type.as_str(),
            payer,
            l.labor_rate
        );
        for x in &l.labor {
            println!(
                "       labor  {:<40} {:>6} h  {:>10}",
                x.description, x.hours, x.amount
            );
        }
        for x in &l.parts {
            println!(
                "       part   {:<12} {:<27} {:>6} x {:>8}  {:>10}",
                x.part_no, x.description, x.qty, x.unit_price, x.amount
            );
        }
        println!(
            "       labor {}  parts {}  tax {}  total {}",
            l.totals.labor, l.totals.parts, l.totals.tax, l.totals.total
        );
    }
    println!(
        "  total: labor {}  parts {}  tax {}  total {}",
        o.totals.labor, o.totals.parts, o.totals.tax, o.totals.total
    );
    if !o.diagnoses.is_empty() {
        println!("  diagnoses:");
        for d in &o.diagnoses {
            println!("    {}  {}", d.key, d.title);
        }
    }
}

pub(super) async fn run(desk: &Desk, cmd: RoCmd) -> Result<ExitCode, AppError> {
    let (order, json) = match cmd {
        RoCmd::Show { session_id, json } => {
            (ro::ro_show(desk, SessionRef { session_id }).await?, json)
        }
        RoCmd::Line {
            session_id,
            line,
            complaint,
            pay_type,
            payer,
            maker,
            diagnosis,
            labor,
            part,
            json,
        } => {
            let line_id = match line {
                Some(n) => Some(line_id(
                    &ro::ro_show(
                        desk,
                        SessionRef {
                            session_id: session_id.clone(),
                        },
                    )
                    .await?,
                    n,
                )?),
                None => None,
            };
            let labor = labor
                .iter()
                .map(|l| {
                    let (description, hours) = l
                        .rsplit_once('=')
                        .ok_or_else(|| bad(format!("labor: {l:?} is not DESCRIPTION=HOURS")))?;
                    Ok(RoLaborInput {
                        description: description.into(),
                        hours: hours.into(),
                    })
                })
                .collect::<Result<_, AppError>>()?;
            let parts = part
                .iter()
                .map(|p| {
                    let f: Vec<&str> = p.split('|').collect();
                    let [no, description, qty, price] = f.as_slice() else {
                        return Err(bad(format!(
                            "part: {p:?} is not PART_NO|DESCRIPTION|QTY|UNIT_PRICE"
                        )));
                    };
                    Ok(RoPartInput {
                        part_no: Some((*no).into()),
                        description: (*description).into(),
                        qty: (*qty).into(),
                        unit_price: (*price).into(),
                    })
                })
                .collect::<Result<_, AppError>>()?;
            let req = RoLineSaveRequest {
                session_id,
                edited_by: None,
                line: RoLineInput {
                    line_id,
                    complaint,
                    pay_type,
                    warranty_payer: payer,
                    warranty_maker: maker,
                    engine_complaint: diagnosis,
                    labor,
                    parts,
                },
            };
            (ro::ro_line_save(desk, req).await?, json)
        }
        RoCmd::Authorize {
            session_id,
            line,
            decision,
            by,
            method,
            at,
            json,
        } => {
            let order = ro::ro_show(
                desk,
                SessionRef {
                    session_id: session_id.clone(),
                },
            )
            .await?;
            let line_id = line_id(&order, line)?;
            let req = RoLineAuthorizeRequest {
                session_id,
                edited_by: None,
                authorization: RoAuthorizeInput {
                    line_id,
                    decision,
                    by,
                    method,
                    at,
                },
            };
            (ro::ro_line_authorize(desk, req).await?, json)
        }
        RoCmd::Delete {
            session_id,
            line,
            json,
        } => {
            let order = ro::ro_show(
                desk,
                SessionRef {
                    session_id: session_id.clone(),
                },
            )
            .await?;
            let line_id = line_id(&order, line)?;
            (
                ro::ro_line_delete(
                    desk,
                    RoLineDeleteRequest {
                        session_id,
                        edited_by: None,
                        line_id,
                    },
                )
                .await?,
                json,
            )
        }
        RoCmd::Settings {
            prefix,
            rate,
            tax,
            labor_taxed,
            json,
        } => {
            let mut patch = RoSettingsPatch {
                tax_rate: tax,
                labor_taxable: labor_taxed,
                ro_prefix: prefix,
                ..Default::default()
            };
            for r in &rate {
                let (pay, amount) = r
                    .split_once('=')
                    .ok_or_else(|| bad(format!("rate: {r:?} is not PAY_TYPE=AMOUNT")))?;
                let slot = match pay.trim() {
                    "customer" => &mut patch.rate_customer,
                    "warranty" => &mut patch.rate_warranty,
                    "internal" => &mut patch.rate_internal,
                    "service_contract" => &mut patch.rate_service_contract,
                    other => {
                        return Err(bad(format!(
                            "rate: {other:?} is not a pay type; use customer, warranty, internal or service_contract"
                        )))
                    }
                };
                *slot = Some(amount.into());
            }
            let s = ro::ro_settings(desk, patch).await?;
            if json {
                print_json(&s)?;
            } else {
                println!("RO number prefix: {}", s.ro_prefix);
                let r = &s.money.labor_rates;
                println!(
                    "labor rates: customer {}, warranty {}, internal {}, service contract {}",
                    r.customer, r.warranty, r.internal, r.service_contract
                );
                println!(
                    "tax {} % on parts{}",
                    s.money.tax_rate_millipercent,
                    if s.money.labor_taxable {
                        " and labor"
                    } else {
                        ""
                    }
                );
            }
            return Ok(ExitCode::SUCCESS);
        }
    };
    if json {
        print_json(&order)?;
    } else {
        print_order(&order);
    }
    Ok(ExitCode::SUCCESS)
}
