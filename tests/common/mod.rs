//! Helpers shared by the integration tests: a fresh data dir, the real
//! `servicedesk` binary, and small real image files.
#![allow(dead_code)]

use std::io::Cursor;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

pub const BIN: &str = env!("CARGO_BIN_EXE_servicedesk");

pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// Run the CLI against a data dir; returns the raw output.
pub fn cli(data_dir: &Path, args: &[&str]) -> Output {
    Command::new(BIN)
        .arg("--data-dir")
        .arg(data_dir)
        .args(args)
        .env_remove("SERVICEDESK_DATA_DIR")
        .output()
        .expect("the servicedesk binary runs")
}

/// Run the CLI, insist it succeeded, return stdout.
pub fn cli_ok(data_dir: &Path, args: &[&str]) -> String {
    let out = cli(data_dir, args);
    assert!(
        out.status.success(),
        "servicedesk {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("utf-8 output")
}

pub fn cli_json(data_dir: &Path, args: &[&str]) -> serde_json::Value {
    let text = cli_ok(data_dir, args);
    serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("{args:?} printed non-JSON ({e}): {text}"))
}

/// A real PNG of the given size.
pub fn png(width: u32, height: u32, rgb: [u8; 3]) -> Vec<u8> {
    let img = image::RgbImage::from_pixel(width, height, image::Rgb(rgb));
    let mut out = Cursor::new(Vec::new());
    image::DynamicImage::ImageRgb8(img)
        .write_to(&mut out, image::ImageFormat::Png)
        .unwrap();
    out.into_inner()
}

/// Every file under the artifact store's blob dir, as sorted relative paths.
pub fn blob_files(data_dir: &Path) -> Vec<String> {
    fn walk(dir: &Path, root: &Path, out: &mut Vec<String>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for e in entries.flatten() {
            let p = e.path();
            if p.is_dir() {
                walk(&p, root, out);
            } else {
                out.push(p.strip_prefix(root).unwrap().display().to_string());
            }
        }
    }
    let root = data_dir.join("artifacts/sha256");
    let mut out = Vec::new();
    walk(&root, &root, &mut out);
    out.sort();
    out
}

/// A `servicedesk serve` child on an ephemeral loopback port; killed when
/// dropped.
pub struct Server {
    pub child: Child,
    /// `http://127.0.0.1:PORT`.
    pub base: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts `serve` on `data_dir` with the UI from `ui_dir`, `args` after the
/// command and only the environment in `env` among its token variables (no
/// bearer token, no fixed CSRF token unless `env` sets one).
pub fn serve(data_dir: &Path, ui_dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Server {
    let mut child = Command::new(BIN)
        .arg("--data-dir")
        .arg(data_dir)
        .args(["serve", "--port", "0", "--ui-dir"])
        .arg(ui_dir)
        .args(args)
        .env_remove("SERVICEDESK_SERVE_TOKEN")
        .env_remove("SERVICEDESK_CSRF_TOKEN")
        .envs(env.iter().copied())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let base = line
        .trim()
        .strip_prefix("listening on ")
        .unwrap_or_else(|| panic!("unexpected first line: {line:?}"))
        .to_owned();
    Server { child, base }
}

/// A command-line tool's standard output (poppler-utils' pdftotext,
/// pdfimages, pdftoppm read PDFs back as a person would see them).
pub fn tool(name: &str, args: &[&str]) -> Vec<u8> {
    let out = Command::new(name)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("{name} is needed for this test (poppler-utils): {e}"));
    assert!(
        out.status.success(),
        "{name} {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out.stdout
}

/// The PDF's text, laid out as on the page.
pub fn pdf_text(path: &Path) -> String {
    String::from_utf8(tool("pdftotext", &["-layout", path.to_str().unwrap(), "-"])).unwrap()
}
