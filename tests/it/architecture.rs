//! The two layout rules the compiler does not keep. The guard's distance from repositories and
//! the registry is its own crate's doing (`crates/berth-guard` has no gix and no path into git
//! berth), so what is left here is that its manifest stays so, and that no command imports another.

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

/// What the guard's crate may depend on. Each entry is a reason, not a convenience: gix or a
/// path to git berth's own crate here would let the guard open a repository or the registry.
const GUARD_DEPENDS_ON: &[&str] = &["clap", "serde_json", "shell-words", "rustix"];

#[test]
fn the_guard_crate_depends_on_nothing_that_reaches_a_repository_or_the_registry() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let text = fs::read_to_string(root.join("crates/berth-guard/Cargo.toml")).unwrap();
    let found = unexpected_dependencies(&text);
    assert!(
        found.is_empty(),
        "crates/berth-guard/Cargo.toml depends on {found:?}: the guard never opens a repository \
         or the registry, so it depends on {GUARD_DEPENDS_ON:?} only"
    );
}

#[test]
fn a_guard_manifest_naming_gix_or_a_path_crate_is_caught() {
    let bad = "[dependencies]\nrustix = \"1\"\ngix = \"0.91\"\n\
               [target.'cfg(unix)'.dependencies]\ngit-berth = { path = \"../..\" }\n";
    assert_eq!(unexpected_dependencies(bad), ["gix", "git-berth"]);
    let good = "[dependencies]\nrustix = \"1\"\n[dev-dependencies]\nproptest = \"1\"\n";
    assert!(unexpected_dependencies(good).is_empty());
}

#[test]
fn no_command_imports_another_command() {
    let commands = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/commands");
    let names = command_names(&commands);
    let mut found = Vec::new();
    for entry in walk(&commands) {
        let rel = entry.strip_prefix(&commands).unwrap();
        let own = rel
            .components()
            .next()
            .unwrap()
            .as_os_str()
            .to_string_lossy();
        let own = own.trim_end_matches(".rs").to_string();
        if own == "mod" {
            continue; // the dispatch names every command
        }
        let text = fs::read_to_string(&entry).unwrap();
        for (line, other) in sibling_imports(&text, &own, &names, rel.components().count() > 1) {
            found.push(format!(
                "src/commands/{}:{line} imports the `{other}` command: a command never imports \
                 another; what two share belongs in the lifecycle layer (worktree/) or below",
                rel.display()
            ));
        }
    }
    assert!(found.is_empty(), "\n{}\n", found.join("\n"));
}

#[test]
fn a_sibling_import_in_any_spelling_is_caught_and_shared_helpers_are_not() {
    let names: BTreeSet<String> = ["add", "list", "remove"].map(String::from).into();
    let text = "use super::write_json;\n\
                use super::{list, LaunchArgs};\n\
                // super::remove::run is only mentioned here\n\
                let x = crate::commands::remove::run(a);\n\
                use super::add::Args;\n";
    let found = sibling_imports(text, "add", &names, false);
    assert_eq!(found, [(2, "list".to_string()), (4, "remove".to_string())]);
    // One level down (src/commands/<own>/x.rs), `super::` is the command's own module.
    assert!(sibling_imports("use super::list;\n", "add", &names, true).is_empty());
}

/// Dependencies (of any target, not dev ones) outside `GUARD_DEPENDS_ON`, in file order.
fn unexpected_dependencies(manifest: &str) -> Vec<String> {
    let doc: toml::Table = manifest.parse().expect("the guard's Cargo.toml parses");
    let mut tables = vec![doc.get("dependencies")];
    if let Some(targets) = doc.get("target").and_then(|t| t.as_table()) {
        tables.extend(targets.values().map(|t| t.get("dependencies")));
    }
    tables
        .into_iter()
        .flatten()
        .filter_map(|t| t.as_table())
        .flat_map(|t| t.keys())
        .filter(|name| !GUARD_DEPENDS_ON.contains(&name.as_str()))
        .cloned()
        .collect()
}

/// `(line, command)` for each other command the text names as `crate::commands::<x>`, or as
/// `super::<x>` / `super::{.., x, ..}` when `super` is the dispatch module. Comment lines are
/// skipped; the dispatch's own helpers (`super::write_json`) are not commands.
fn sibling_imports(
    text: &str,
    own: &str,
    commands: &BTreeSet<String>,
    nested: bool,
) -> Vec<(usize, String)> {
    let mut found = Vec::new();
    for (n, line) in text.lines().enumerate() {
        if line.trim_start().starts_with("//") {
            continue;
        }
        let mut named = Vec::new();
        let prefixes: &[&str] = if nested {
            &["crate::commands::"]
        } else {
            &["crate::commands::", "super::"]
        };
        for prefix in prefixes {
            for (at, _) in line.match_indices(prefix) {
                let rest = &line[at + prefix.len()..];
                match rest.strip_prefix('{') {
                    Some(group) => {
                        let group = group.split('}').next().unwrap_or("");
                        named.extend(group.split(',').map(|s| s.trim().split("::").next()));
                    }
                    None => named.push(
                        rest.split(|c: char| !c.is_alphanumeric() && c != '_')
                            .next(),
                    ),
                }
            }
        }
        for name in named.into_iter().flatten() {
            if name != own && commands.contains(name) {
                found.push((n + 1, name.to_string()));
            }
        }
    }
    found
}

/// The command modules: `src/commands/<name>.rs` and `src/commands/<name>/`.
fn command_names(dir: &Path) -> BTreeSet<String> {
    fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .map(|name| name.trim_end_matches(".rs").to_string())
        .filter(|name| name != "mod")
        .collect()
}

fn walk(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    for entry in fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(walk(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
    out.sort();
    out
}
