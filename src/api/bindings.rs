//! The TypeScript side of the wire, generated from the Rust types: every
//! request and response type of the command table with all the types they
//! reach (`ui/src/gen/models.ts`), and the command map that types the UI's
//! `call` (`ui/src/gen/commands.ts`). The test suite fails when the files
//! on disk differ from what this generates; `UPDATE_BINDINGS=1` rewrites them.

use std::any::TypeId;
use std::collections::{BTreeMap, HashMap};

use ts_rs::{Config, TypeVisitor, TS};

const HEADER: &str =
    "// Generated from the Rust types by `servicedesk::api::bindings`. Do not edit:\n\
                      // run `UPDATE_BINDINGS=1 cargo test --test tests bindings` instead.\n";

/// JSON numbers are JavaScript numbers: 64-bit integers on the wire are
/// counts, sizes and sequence numbers well inside 2^53.
fn config() -> Config {
    Config::new().with_large_int("number")
}

/// Collects the declaration of each type once, by TypeScript name.
struct Collect {
    cfg: Config,
    decls: BTreeMap<String, (TypeId, String)>,
    clashes: Vec<String>,
}

impl TypeVisitor for Collect {
    fn visit<T: TS + 'static + ?Sized>(&mut self) {
        // Primitives and containers have no declaration of their own.
        if T::output_path().is_none() {
            return;
        }
        let name = T::ident(&self.cfg);
        let mut decl = T::docs().unwrap_or_default();
        decl.push_str("export ");
        decl.push_str(&T::decl(&self.cfg));
        match self.decls.get(&name) {
            Some((id, _)) if *id == TypeId::of::<T>() => return,
            // serde_json's Value and Map are both declared as `JsonValue`.
            Some((_, same)) if *same == decl => return,
            Some(_) => {
                self.clashes.push(name);
                return;
            }
            None => {}
        }
        self.decls.insert(name, (TypeId::of::<T>(), decl));
        T::visit_dependencies(self);
    }
}

/// Where `docs/api.md`'s generated table of command types begins and ends.
pub const DOC_BEGIN: &str = "<!-- command types: generated from the command table, do not edit -->";
pub const DOC_END: &str = "<!-- end of command types -->";

/// The table of each command's request and response type, for `docs/api.md`
/// (between `DOC_BEGIN` and `DOC_END`).
pub fn doc_table() -> String {
    let mut out = String::from("| command | request | response |\n|---|---|---|\n");
    for (name, req, resp) in super::command_signatures(&config()) {
        out.push_str(&format!("| `{name}` | `{req}` | `{resp}` |\n"));
    }
    out
}

/// The two generated files, by path under `ui/src/gen/`; an error names two
/// Rust types that would share a TypeScript name.
pub fn files() -> Result<HashMap<&'static str, String>, String> {
    let mut collect = Collect {
        cfg: config(),
        decls: BTreeMap::new(),
        clashes: Vec::new(),
    };
    super::visit_command_types(&mut collect);
    if !collect.clashes.is_empty() {
        return Err(format!(
            "two Rust types are named {:?} in TypeScript; rename one with #[ts(rename = \"...\")]",
            collect.clashes
        ));
    }
    let mut models = String::from(HEADER);
    for (_, decl) in collect.decls.values() {
        models.push('\n');
        models.push_str(decl);
        models.push('\n');
    }
    let signatures = super::command_signatures(&collect.cfg);
    let mut names: Vec<&str> = signatures
        .iter()
        .flat_map(|(_, req, resp)| [req.as_str(), resp.as_str()])
        .filter(|n| collect.decls.contains_key(*n))
        .collect();
    names.sort_unstable();
    names.dedup();
    let mut commands = String::from(HEADER);
    commands.push_str(&format!(
        "\nimport type {{ {} }} from './models';\n",
        names.join(", ")
    ));
    commands.push_str(
        "\n/** Every command `dispatch` serves, with its request and response. */\nexport interface Commands {\n",
    );
    for (name, req, resp) in &signatures {
        commands.push_str(&format!(
            "  {name}: {{ request: {req}; response: {resp} }};\n"
        ));
    }
    commands.push_str("}\n\nexport type Command = keyof Commands;\n\n/** The commands, in the order of the Rust table. */\nexport const COMMANDS: Command[] = [\n");
    for (name, _, _) in &signatures {
        commands.push_str(&format!("  '{name}',\n"));
    }
    commands.push_str("];\n");
    Ok(HashMap::from([
        ("models.ts", models),
        ("commands.ts", commands),
    ]))
}
