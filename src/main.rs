//! The `servicedesk` command line: the same operations as the app, for
//! scripts, headless machines and support.

mod cli;
mod cli_billing;

fn main() -> std::process::ExitCode {
    cli::main()
}
