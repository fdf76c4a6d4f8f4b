//! The `servicedesk` command line: the same operations as the app, for
//! scripts, headless machines and support.

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
