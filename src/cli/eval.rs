//! `servicedesk eval understanding|knowledge|billing`: quality measured against a
//! dataset, exiting 1 under the thresholds. `understanding`: how well the
//! engine reads technician notes, on a labelled dataset (`engine::eval`); it
//! needs no data dir: the engine is pure, and the dataset names everything it
//! starts from. `knowledge`: retrieval and answer quality of the knowledge
//! store (`knowledge::eval`, through the Desk). `billing`: billing and
//! hybrid chat answers (`desk::billing_eval`), in a scratch data dir.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Subcommand};

use servicedesk::api::AppError;
use servicedesk::desk::{Desk, PROCEDURES_DIR_ENV};
use servicedesk::engine::catalog::Catalog;
use servicedesk::engine::eval::{self, Counts};
use servicedesk::engine::Engine;

use super::print_json;

#[derive(Subcommand)]
pub(super) enum EvalCmd {
    /// How well technician notes are read: wrong-fact rate, fact recall, intent accuracy (exits 1 under the thresholds)
    Understanding(UnderstandingArgs),
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
        #[arg(long, default_value_t = 1.0)]
        min_empty_rate: f64,
        #[arg(long, default_value_t = 0.9)]
        min_consistency: f64,
        #[arg(long)]
        json: bool,
    },
    /// Billing and hybrid chat answers: tool-call compliance, fact accuracy, citation coverage
    /// (runs in a scratch data dir with the demo data; exits 1 under the thresholds)
    Billing(BillingEvalArgs),
}

#[derive(Args)]
pub struct BillingEvalArgs {
    /// JSON Lines of cases (tests/data/billing/chat_eval.jsonl)
    #[arg(long, value_name = "FILE")]
    dataset: PathBuf,
    #[arg(long, default_value_t = 0.95)]
    min_tool_call_compliance: f64,
    #[arg(long, default_value_t = 1.0)]
    min_fact_accuracy: f64,
    #[arg(long)]
    json: bool,
}

/// `eval billing`: every case in a new session of a scratch data dir
/// holding the demo rules and orders, never the shop's store.
pub async fn billing(args: BillingEvalArgs) -> Result<ExitCode, AppError> {
    let text = read_dataset(&args.dataset)?;
    let cases = servicedesk::desk::billing_eval::parse_dataset(&text)
        .map_err(|e| AppError::new("invalid_input", format!("{}: {e}", args.dataset.display())))?;
    let scratch = tempfile::tempdir()
        .map_err(|e| AppError::new("storage", format!("scratch data dir: {e}")))?;
    let desk = Desk::open(scratch.path()).await?;
    desk.billing_seed_demo().await?;
    let r = desk.billing_chat_eval(&cases).await?;
    desk.close().await;
    let mut below = Vec::new();
    if r.tool_call_compliance < args.min_tool_call_compliance {
        below.push(format!(
            "tool_call_compliance {:.3} < {}",
            r.tool_call_compliance, args.min_tool_call_compliance
        ));
    }
    if r.fact_accuracy < args.min_fact_accuracy {
        below.push(format!(
            "fact_accuracy {:.3} < {}",
            r.fact_accuracy, args.min_fact_accuracy
        ));
    }
    if args.json {
        let mut v = serde_json::to_value(&r).unwrap_or_default();
        v["passed"] = serde_json::Value::Bool(below.is_empty());
        v["below_threshold"] = serde_json::json!(below);
        print_json(&v)?;
    } else {
        println!(
            "{} cases: tool-call compliance {:.3}, fact accuracy {:.3}, citation coverage {:.3}, intent accuracy {:.3}",
            r.cases, r.tool_call_compliance, r.fact_accuracy, r.citation_coverage, r.intent_accuracy
        );
        for (cat, c) in &r.by_category {
            println!(
                "  {cat}: {} cases, tools {}/{}, facts {}/{}",
                c.cases, c.tools_ok, c.cases, c.facts_stated, c.facts
            );
        }
        println!("  languages: {:?}", r.by_language);
        for f in &r.failures {
            println!(
                "  {} {:?}: {} (tools {:?})",
                f.case_id,
                f.query,
                f.problems.join("; "),
                f.tools_called
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

/// A dataset larger than this is not a dataset someone wrote by hand.
const MAX_DATASET_BYTES: u64 = 32 * 1024 * 1024;

#[derive(Args)]
pub struct UnderstandingArgs {
    /// JSON Lines of labelled messages (tests/data/understanding/*.jsonl)
    #[arg(long, value_name = "FILE")]
    dataset: PathBuf,
    /// Fail (exit 1) when the wrong-fact rate is above this
    #[arg(long, default_value_t = 0.005)]
    max_wrong_fact_rate: f64,
    /// Fail (exit 1) when fact recall is below this
    #[arg(long, default_value_t = 0.9)]
    min_fact_recall: f64,
    /// How many confusions to list (all with --json)
    #[arg(long, default_value_t = 40)]
    show: usize,
    #[arg(long)]
    json: bool,
}

pub fn understanding(args: UnderstandingArgs) -> Result<ExitCode, AppError> {
    let catalog = match std::env::var_os(PROCEDURES_DIR_ENV) {
        Some(dir) => Catalog::from_dir(Path::new(&dir)).map(std::sync::Arc::new),
        None => Catalog::embedded_shared(),
    }
    .map_err(|e| AppError::new("invalid_procedure", e.to_string()))?;
    let engine = Engine::new(catalog);
    let text = read_dataset(&args.dataset)?;
    let cases = eval::parse_dataset(&text, &engine)
        .map_err(|e| AppError::new("invalid_input", format!("{}: {e}", args.dataset.display())))?;
    let report = eval::run(&engine, &cases);
    let mut below = Vec::new();
    if report.wrong_fact_rate() > args.max_wrong_fact_rate {
        below.push(format!(
            "wrong_fact_rate {:.4} > {}",
            report.wrong_fact_rate(),
            args.max_wrong_fact_rate
        ));
    }
    if report.fact_recall() < args.min_fact_recall {
        below.push(format!(
            "fact_recall {:.4} < {}",
            report.fact_recall(),
            args.min_fact_recall
        ));
    }
    if args.json {
        let mut v =
            serde_json::to_value(&report).map_err(|e| AppError::new("internal", e.to_string()))?;
        v["passed"] = serde_json::Value::Bool(below.is_empty());
        v["below_threshold"] = serde_json::json!(below);
        let text = serde_json::to_string_pretty(&v)
            .map_err(|e| AppError::new("internal", e.to_string()))?;
        println!("{text}");
    } else {
        println!(
            "{:<8} {:>8} {:>8} {:>9} {:>9} {:>8} {:>8} {:>12}",
            "", "messages", "facts", "recorded", "wrong", "recall", "intent", "asked (right)"
        );
        for (lang, c) in &report.by_language {
            print_row(lang, c);
        }
        print_row("overall", &report.overall);
        println!("\nby how a fact was tied to its step:");
        for (basis, b) in &report.by_basis {
            println!(
                "  {basis:<12} {:>6} recorded {:>5} wrong ({:.1} %)",
                b.recorded,
                b.wrong,
                if b.recorded == 0 {
                    0.0
                } else {
                    b.wrong as f64 * 100.0 / b.recorded as f64
                }
            );
        }
        if !report.confusions.is_empty() {
            println!(
                "\n{} confusions (first {}):",
                report.confusions.len(),
                args.show.min(report.confusions.len())
            );
        }
        for c in report.confusions.iter().take(args.show) {
            println!(
                "  {} {:?}\n      intent {} -> {}{}{}",
                c.id,
                c.text,
                c.expected_intent,
                c.got_intent,
                if c.wrong.is_empty() {
                    String::new()
                } else {
                    format!("; WRONG {}", c.wrong.join(", "))
                },
                if c.missed.is_empty() {
                    String::new()
                } else {
                    format!("; missed {}", c.missed.join(", "))
                },
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

fn print_row(name: &str, c: &Counts) {
    println!(
        "{:<8} {:>8} {:>8} {:>9} {:>8.2}% {:>7.1}% {:>7.1}% {:>7} ({})",
        name,
        c.messages,
        c.labelled_facts,
        c.recorded_facts,
        c.wrong_fact_rate() * 100.0,
        c.fact_recall() * 100.0,
        c.intent_accuracy() * 100.0,
        c.confirmations,
        c.confirmations_right
    );
}

/// Reads a regular file of bounded size: a FIFO or a device is refused
/// instead of blocking or growing without end.
fn read_dataset(path: &Path) -> Result<String, AppError> {
    Ok(servicedesk::files::read_text_limited(
        path,
        MAX_DATASET_BYTES,
        "a dataset",
    )?)
}

pub(super) async fn run(desk: &Desk, cmd: EvalCmd) -> Result<ExitCode, AppError> {
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
        unreachable!("eval understanding and billing run before the data dir is opened")
    };
    let text = servicedesk::files::read_text_limited(
        &dataset,
        32 * 1024 * 1024,
        "a knowledge eval dataset",
    )?;
    let cases = servicedesk::knowledge::eval::parse_dataset(&text)
        .map_err(|e| AppError::new("invalid_input", format!("{}: {e}", dataset.display())))?;
    let m = desk
        .knowledge_eval(&cases, k)
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
