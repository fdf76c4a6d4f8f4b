//! `servicedesk serve`: the api and the built UI over HTTP, on 127.0.0.1
//! unless told otherwise (then only with a bearer token from a file or the
//! environment, never argv); the sweeper and the portal sync worker run
//! beside it.

use std::io::Write;
use std::net::IpAddr;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args;

use servicedesk::api::AppError;
use servicedesk::desk::Desk;
use servicedesk::serve::{self, ServeConfig, TOKEN_ENV};

#[derive(Args)]
pub(super) struct ServeArgs {
    /// Address to listen on; anything but loopback requires --token
    #[arg(long, default_value = "127.0.0.1")]
    host: IpAddr,
    /// Port; 0 picks a free one (the chosen port is printed)
    #[arg(long, default_value_t = 8787)]
    port: u16,
    /// Refused: a token on the command line is visible to every user in the
    /// process list. Use --token-file or $SERVICEDESK_SERVE_TOKEN
    #[arg(long, hide = true)]
    token: Option<String>,
    /// A file holding the bearer token every api call must carry (or set
    /// $SERVICEDESK_SERVE_TOKEN)
    #[arg(long, value_name = "FILE")]
    token_file: Option<PathBuf>,
    /// The built UI [default: ui/dist]
    #[arg(long, env = "SERVICEDESK_UI_DIR", value_name = "DIR")]
    ui_dir: Option<PathBuf>,
}

fn default_ui_dir() -> PathBuf {
    let local = PathBuf::from("ui/dist");
    if local.join("index.html").is_file() {
        return local;
    }
    PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/ui/dist"))
}

pub(super) async fn run(desk: &Desk, args: ServeArgs) -> Result<ExitCode, AppError> {
    if args.token.is_some() {
        return Err(AppError::new(
            "invalid_input",
            format!(
                "--token is refused: a token on the command line is visible to every user in the \
                 process list; put it in a file and pass --token-file FILE, or set {TOKEN_ENV}"
            ),
        ));
    }
    let token = match &args.token_file {
        Some(path) => Some(read_token_file(path)?),
        None => std::env::var(TOKEN_ENV)
            .ok()
            .filter(|t| !t.trim().is_empty()),
    };
    let config = ServeConfig {
        host: args.host,
        port: args.port,
        token,
        ui_dir: Some(args.ui_dir.unwrap_or_else(default_ui_dir)),
        csrf_token: std::env::var(serve::CSRF_ENV).ok(),
    };
    let listener = serve::bind(&config).await?;
    desk.warm_engine(|| {});
    desk.start_sweeper();
    let _sync = servicedesk::sync::spawn_worker(desk.clone());
    let addr = listener
        .local_addr()
        .map_err(|e| AppError::new("internal", e.to_string()))?;
    println!("listening on http://{addr}");
    let _ = std::io::stdout().flush();
    serve::serve(listener, serve::router(desk.clone(), &config))
        .await
        .map_err(|e| AppError::new("internal", format!("server stopped: {e}")))?;
    Ok(ExitCode::SUCCESS)
}

/// The bearer token from `--token-file`: its first line, trimmed.
fn read_token_file(path: &std::path::Path) -> Result<String, AppError> {
    let bad = |why: String| {
        AppError::new(
            "invalid_input",
            format!("--token-file {}: {why}", path.display()),
        )
    };
    let text = servicedesk::files::read_text_limited(path, 4096, "a token file")
        .map_err(|e| bad(e.to_string()))?;
    let token = text.lines().next().unwrap_or("").trim().to_owned();
    if token.is_empty() {
        return Err(bad("is empty".into()));
    }
    Ok(token)
}
