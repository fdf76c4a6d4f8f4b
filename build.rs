//! Embeds every `knowledge/*.md` into the binary, so the app works from an
//! installed binary with no files beside it, and adding a document needs no
//! Rust change. (The engine crate embeds `procedures/` the same way.)

use std::fmt::Write as _;
use std::path::Path;

fn main() {
    embed(
        "knowledge",
        "md",
        "EMBEDDED_KNOWLEDGE",
        "default knowledge document",
    );
}

fn embed(folder: &str, ext: &str, name: &str, what: &str) {
    // Read when the script runs, not when it was compiled: a build script
    // compiled for one checkout can be reused by another sharing the target.
    let root = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let dir = Path::new(&root).join(folder);
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("the folder exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == ext))
        .filter(|p| {
            !p.file_name()
                .is_some_and(|n| n.eq_ignore_ascii_case("README.md"))
        })
        .collect();
    files.sort();
    let mut out = format!("/// `(file name, contents)` of every {what}, embedded at build time.\npub static {name}: &[(&str, &str)] = &[\n");
    for path in &files {
        println!("cargo:rerun-if-changed={}", path.display());
        let name = path.file_name().unwrap().to_string_lossy();
        writeln!(
            out,
            "    ({name:?}, include_str!({:?})),",
            path.display().to_string()
        )
        .unwrap();
    }
    out.push_str("];\n");
    let dest = Path::new(&std::env::var("OUT_DIR").unwrap()).join(format!("embedded_{folder}.rs"));
    std::fs::write(dest, out).unwrap();
}
