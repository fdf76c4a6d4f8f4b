//! `servicedesk procedures check`: validate the diagnostic procedure
//! catalog (the built-in one, or a directory of procedure files). It needs
//! no data dir.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Subcommand;

use servicedesk::api::AppError;
use servicedesk::engine::catalog::Catalog;

#[derive(Subcommand)]
pub(super) enum ProceduresCmd {
    /// Validate procedure files (default: the catalog built into this binary)
    Check {
        /// A directory of *.toml procedure files to validate instead
        dir: Option<PathBuf>,
    },
}

pub(super) fn check(dir: Option<&std::path::Path>) -> Result<ExitCode, AppError> {
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
