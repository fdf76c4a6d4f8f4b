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
    // The command map names every command dispatch serves.
    let commands = &files["commands.ts"];
    for c in servicedesk::api::COMMANDS {
        assert!(
            commands.contains(&format!("  {c}: {{ request: ")),
            "{c} missing"
        );
    }
}
