//! The `servicedesk` command line: the same operations as the app, for
//! scripts, headless machines and support.

mod cli;

fn main() -> std::process::ExitCode {
    restore_default_sigpipe();
    cli::main()
}

/// `servicedesk chat --json | head -1` must end quietly when the reader goes
/// away, not panic in `println!`. Rust ignores SIGPIPE by default; a command
/// line tool wants the default action back (what `head` and `grep` expect).
#[cfg(unix)]
#[allow(unsafe_code)]
fn restore_default_sigpipe() {
    // SAFETY: called first thing in main, before any thread is spawned;
    // setting a signal's disposition to its default has no other effect.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

#[cfg(not(unix))]
fn restore_default_sigpipe() {}
