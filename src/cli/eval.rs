//! `servicedesk eval understanding`: how well the engine reads technician
//! notes, measured on a labelled dataset (`engine::eval`). It needs no data
//! dir: the engine is pure, and the dataset names everything it starts from.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::Args;

use servicedesk::api::AppError;
use servicedesk::desk::PROCEDURES_DIR_ENV;
use servicedesk::engine::catalog::Catalog;
use servicedesk::engine::eval::{self, Counts};
use servicedesk::engine::Engine;

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
            "{:<8} {:>8} {:>8} {:>9} {:>9} {:>8} {:>8}",
            "", "messages", "facts", "recorded", "wrong", "recall", "intent"
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
        "{:<8} {:>8} {:>8} {:>9} {:>8.2}% {:>7.1}% {:>7.1}%",
        name,
        c.messages,
        c.labelled_facts,
        c.recorded_facts,
        c.wrong_fact_rate() * 100.0,
        c.fact_recall() * 100.0,
        c.intent_accuracy() * 100.0
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
