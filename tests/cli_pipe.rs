//! A reader that goes away (`servicedesk chat --json | head -1`) ends the
//! command quietly: no panic message, no partial garbage on stderr.

use crate::common;

use std::io::Read;
use std::process::{Command, Stdio};

#[test]
fn a_closed_stdout_ends_the_command_without_a_panic() {
    let data = tempfile::tempdir().unwrap();
    let script = data.path().join("script.txt");
    let mut lines = vec!["roof ac not cooling".to_string()];
    lines.extend((0..150).map(|_| "where is the capacitor?".to_string()));
    std::fs::write(&script, lines.join("\n")).unwrap();
    let mut child = Command::new(common::BIN)
        .arg("--data-dir")
        .arg(data.path())
        .args(["chat", "--script", script.to_str().unwrap(), "--json"])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut first = [0u8; 64];
    child
        .stdout
        .as_mut()
        .unwrap()
        .read_exact(&mut first)
        .unwrap();
    drop(child.stdout.take());
    let mut stderr = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    child.wait().unwrap();
    assert!(!stderr.contains("panicked"), "{stderr}");
}
