//! `servicedesk chat`: talk to the diagnostic assistant, interactively or
//! from a script (one user turn per line, optionally with attachments), as
//! text or one JSON object per turn (the transcript contract).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use servicedesk::api::AppError;
use servicedesk::desk::Desk;
use servicedesk::store::NewSession;

#[derive(Args)]
pub(super) struct ChatArgs {
    /// Continue this session (default: a new session whose complaint is the first message)
    #[arg(long)]
    session: Option<String>,
    /// Read one user turn per line: plain text, or {"text": "...", "attachments": ["photo.jpg"]}
    #[arg(long, value_name = "FILE")]
    script: Option<PathBuf>,
    /// Print one JSON object per turn (the transcript contract)
    #[arg(long)]
    json: bool,
    /// The technician's language for a new session (default: detected from the first message)
    #[arg(long)]
    language: Option<String>,
}

/// One line of a chat script.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct ScriptTurn {
    text: String,
    #[serde(default)]
    attachments: Vec<PathBuf>,
}

fn parse_script_line(
    line: &str,
    base: &std::path::Path,
    n: usize,
) -> Result<(String, Vec<PathBuf>), AppError> {
    let trimmed = line.trim_start();
    if trimmed.starts_with('{') {
        let t: ScriptTurn = serde_json::from_str(trimmed)
            .map_err(|e| AppError::new("invalid_input", format!("script line {n}: {e}")))?;
        Ok((
            t.text,
            t.attachments
                .into_iter()
                .map(|p| if p.is_absolute() { p } else { base.join(p) })
                .collect(),
        ))
    } else {
        Ok((line.to_string(), Vec::new()))
    }
}

/// The largest chat script `chat --script` reads.
const MAX_SCRIPT_BYTES: u64 = 4 * 1024 * 1024;

pub(super) async fn run(desk: &Desk, args: ChatArgs) -> Result<ExitCode, AppError> {
    use std::io::{BufRead, Write};
    let mut session_id = args.session.clone();
    if let Some(id) = &session_id {
        desk.session(id).await.map_err(AppError::from)?;
    }
    let (lines, base): (Box<dyn Iterator<Item = std::io::Result<String>>>, PathBuf) =
        match &args.script {
            Some(path) => {
                // A regular file of bounded size (a FIFO or /dev/stdin is
                // refused); invalid UTF-8 is refused naming its line.
                let text =
                    servicedesk::files::read_text_limited(path, MAX_SCRIPT_BYTES, "a chat script")?;
                let base = path.parent().map(|p| p.to_path_buf()).unwrap_or_default();
                let lines: Vec<std::io::Result<String>> =
                    text.lines().map(|l| Ok(l.to_owned())).collect();
                (Box::new(lines.into_iter()), base)
            }
            None => {
                if !args.json {
                    eprintln!("RV Service Desk assistant. Describe the problem; Ctrl-D to quit.");
                }
                (
                    Box::new(std::io::stdin().lock().lines()),
                    PathBuf::from("."),
                )
            }
        };
    let interactive = args.script.is_none() && !args.json;
    let mut n = 0;
    if interactive {
        eprint!("> ");
    }
    for line in lines {
        let line =
            line.map_err(|e| AppError::new("invalid_input", format!("cannot read input: {e}")))?;
        n += 1;
        if line.trim().is_empty() && args.script.is_some() {
            continue;
        }
        let (text, paths) = parse_script_line(&line, &base, n)?;
        let mut files = Vec::new();
        for p in paths {
            let bytes = servicedesk::files::read_limited(
                &p,
                servicedesk::artifacts::MAX_FILE_BYTES,
                "a photo or file",
            )
            .map_err(|e| AppError::new(e.code(), format!("script line {n}: {e}")))?;
            let name = p
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            files.push((name, bytes));
        }
        let id = match &session_id {
            Some(id) => id.clone(),
            None => {
                let complaint: String = text.trim().chars().take(500).collect();
                let session = desk
                    .new_session(NewSession {
                        complaint: if complaint.is_empty() {
                            "chat session".into()
                        } else {
                            complaint
                        },
                        language: args.language.clone(),
                        ..Default::default()
                    })
                    .await
                    .map_err(AppError::from)?;
                session_id = Some(session.id.clone());
                session.id
            }
        };
        let (recorded, outcome) = desk
            .chat_turn(&id, &text, files)
            .await
            .map_err(AppError::from)?;
        if args.json {
            let v = servicedesk::api::transcript_turn(&id, recorded.turn.seq, &outcome);
            println!(
                "{}",
                serde_json::to_string(&v).map_err(|e| AppError::new("internal", e.to_string()))?
            );
        } else {
            println!("{}\n", outcome.reply.text);
            if let Some((revision, _)) = &outcome.report {
                // On stderr: the report on stdout stays the report alone.
                eprintln!(
                    "(a draft of revision {revision}: review or edit it with `servicedesk report draft {id}`, \
                     then `servicedesk report finalize {id}` queues it for the portal)"
                );
            }
        }
        std::io::stdout().flush().ok();
        if interactive {
            eprint!("> ");
        }
    }
    Ok(ExitCode::SUCCESS)
}
