//! `servicedesk knowledge ingest|list|search|file` and `servicedesk ask`:
//! the local knowledge store and a one-shot cited answer from it.

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Subcommand;

use servicedesk::api::{self, AppError};
use servicedesk::desk::Desk;

use super::print_json;

#[derive(Subcommand)]
pub(super) enum KnowledgeCmd {
    /// Import Markdown (with front matter) and JSONL files, or folders of them
    Ingest {
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        #[arg(long)]
        json: bool,
    },
    /// Every stored source version, newest first per source
    List {
        #[arg(long)]
        json: bool,
    },
    /// Ranked chunks for a query, best first
    Search {
        query: String,
        #[arg(long)]
        doc_type: Option<String>,
        #[arg(long)]
        source_type: Option<String>,
        #[arg(long = "city")]
        city_code: Option<String>,
        #[arg(long = "lot")]
        lot_code: Option<String>,
        /// Validity time: YYYY-MM-DD, YYYY-MM-DDTHH:MM (local time) or RFC 3339 (default: now)
        #[arg(long = "at")]
        at_time: Option<String>,
        #[arg(long = "source-id")]
        source_ids: Vec<String>,
        #[arg(long)]
        language: Option<String>,
        #[arg(long)]
        include_inactive: bool,
        #[arg(long, default_value_t = 5)]
        top_k: usize,
        #[arg(long)]
        json: bool,
    },
    /// Write the file a source version was imported from (a PDF manual) to OUT
    File {
        source_id: String,
        version: u32,
        #[arg(long)]
        out: PathBuf,
    },
}

pub(super) async fn run(desk: &Desk, cmd: KnowledgeCmd) -> Result<ExitCode, AppError> {
    use api::knowledge as k;
    match cmd {
        KnowledgeCmd::Ingest { paths, json } => {
            let report = k::knowledge_ingest_paths(desk, &paths).await?;
            if json {
                print_json(&report)?;
            } else {
                for s in &report.imported {
                    println!(
                        "imported  {} v{} ({} chunks) from {}",
                        s.source_id, s.version, s.chunks, s.origin
                    );
                }
                for s in &report.unchanged {
                    println!("unchanged {} v{} ({})", s.source_id, s.version, s.origin);
                }
                for e in &report.skipped {
                    println!("skipped   {e}");
                }
                println!(
                    "{} imported ({} chunks), {} unchanged, {} skipped",
                    report.imported.len(),
                    report.chunks,
                    report.unchanged.len(),
                    report.skipped.len()
                );
            }
            // Something skipped is worth a non-zero exit for scripts, but
            // what did import stays imported.
            return Ok(if report.skipped.is_empty() {
                ExitCode::SUCCESS
            } else {
                ExitCode::from(2)
            });
        }
        KnowledgeCmd::List { json } => {
            let list = k::knowledge_sources(desk).await?;
            if json {
                print_json(&list)?;
            } else {
                for s in &list.sources {
                    let scope = match (&s.city_code, s.lot_codes.is_empty()) {
                        (Some(c), false) => format!("{c}/{}", s.lot_codes.join(",")),
                        (Some(c), true) => c.clone(),
                        (None, _) => "all".into(),
                    };
                    println!(
                        "{}{} v{}  {}  {}  {}  {} chunks  {}",
                        if s.active { "*" } else { " " },
                        s.source_id,
                        s.version,
                        s.doc_type,
                        s.language,
                        scope,
                        s.chunks,
                        s.title
                    );
                }
                println!("{} source versions (* = active now)", list.sources.len());
            }
        }
        KnowledgeCmd::Search {
            query,
            doc_type,
            source_type,
            city_code,
            lot_code,
            at_time,
            source_ids,
            language,
            include_inactive,
            top_k,
            json,
        } => {
            let results = k::knowledge_search(
                desk,
                servicedesk::knowledge::SearchQuery {
                    query,
                    doc_type,
                    source_type,
                    city_code,
                    lot_code,
                    at_time,
                    source_ids,
                    language,
                    include_inactive,
                    top_k,
                    asker_language: None,
                },
            )
            .await?;
            if json {
                print_json(&results)?;
            } else if results.results.is_empty() {
                println!("nothing found");
            } else {
                for (i, r) in results.results.iter().enumerate() {
                    println!(
                        "{}. {} ({:.2})  {}\n   {}",
                        i + 1,
                        r.chunk_id,
                        r.score,
                        r.title,
                        r.snippet
                    );
                }
            }
        }
        KnowledgeCmd::File {
            source_id,
            version,
            out,
        } => {
            use base64::Engine as _;
            let file = k::knowledge_source_file(
                desk,
                k::SourceFileRequest {
                    source_id,
                    version,
                    chunk_id: None,
                },
            )
            .await?;
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(&file.data_base64)
                .map_err(|e| AppError::new("storage", format!("the stored file: {e}")))?;
            std::fs::write(&out, &bytes).map_err(|e| {
                AppError::new("invalid_input", format!("--out {}: {e}", out.display()))
            })?;
            println!(
                "wrote {} ({}, {} bytes) to {}",
                file.title,
                file.media_type,
                bytes.len(),
                out.display()
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}

pub(super) async fn ask(
    desk: &Desk,
    question: String,
    language: Option<String>,
    json: bool,
) -> Result<ExitCode, AppError> {
    let answer = api::knowledge::knowledge_ask(
        desk,
        api::knowledge::AskRequest {
            question,
            language,
            filters: None,
        },
    )
    .await?;
    if json {
        print_json(&answer)?;
    } else {
        println!("{}", servicedesk::knowledge::answer::render(&answer));
        if !answer.clarifying_questions.is_empty() {
            println!("\nThis document asks first:");
            for q in &answer.clarifying_questions {
                println!("- {q}");
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}
