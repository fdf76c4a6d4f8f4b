//! The UI's TypeScript types are generated from the Rust ones
//! (`servicedesk::api::bindings`): the files in `ui/src/gen/` must be what
//! the Rust types generate now, so a changed wire type cannot reach the UI
//! untyped. `UPDATE_BINDINGS=1 cargo test --test tests bindings` rewrites them.

use std::path::Path;

#[test]
fn generated_typescript_types_match_the_rust_types() {
    let files = servicedesk::api::bindings::files().unwrap_or_else(|e| panic!("{e}"));
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("ui/src/gen");
    let update = std::env::var("UPDATE_BINDINGS").is_ok_and(|v| v == "1");
    let mut stale = Vec::new();
    for (name, text) in &files {
        let path = dir.join(name);
        if update {
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(&path, text).unwrap();
            continue;
        }
        let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
        if on_disk != *text {
            stale.push(path.display().to_string());
        }
    }
    assert!(
        stale.is_empty(),
        "{stale:?} differ from the Rust types; run `UPDATE_BINDINGS=1 cargo test --test tests bindings` and commit them"
    );
    // docs/api.md's table of command types, between its markers.
    use servicedesk::api::bindings::{doc_table, DOC_BEGIN, DOC_END};
    let doc_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/api.md");
    let doc = std::fs::read_to_string(&doc_path).unwrap();
    let (head, rest) = doc
        .split_once(DOC_BEGIN)
        .expect("docs/api.md has the begin marker");
    let (_, tail) = rest
        .split_once(DOC_END)
        .expect("docs/api.md has the end marker");
    let wanted = format!("{head}{DOC_BEGIN}\n{}{DOC_END}{tail}", doc_table());
    if update {
        std::fs::write(&doc_path, &wanted).unwrap();
    } else {
        assert!(
            doc == wanted,
            "docs/api.md's command types differ from the command table; run `UPDATE_BINDINGS=1 cargo test --test tests bindings`"
        );
    }
    // The command map names every command dispatch serves.
    let commands = &files["commands.ts"];
    for c in servicedesk::api::COMMANDS {
        assert!(
            commands.contains(&format!("  {c}: {{ request: ")),
            "{c} missing"
        );
    }
}
