//! The shape of `src/`, kept: every module has one place in the table below, and imports run one
//! way down it. The sources are read as text (no compiler, no dependency): `use` trees and paths
//! that start with `crate::`, `super::`, `self::` or `gix::`, with comments and strings stripped.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fs;
use std::path::Path;

/// The layers, from the top. A file may import from its own module, from the layers below its
/// own, and from another module of its own layer as long as the two never import each other
/// (directly or round a loop; files inside one module likewise). It never imports from a layer
/// above.
const LAYERS: &[(&str, &[&str])] = &[
    // The binary and the library's face: parse, dispatch, map an error to an exit code.
    ("face", &["main", "cli", "lib"]),
    // One file (or folder) per command: parse, call, print.
    ("commands", &["commands"]),
    // What commands drive: agents in tabs, review and landing, fleets, the trunk guard.
    (
        "domain",
        &["orchestrator", "landing", "manifest", "guard", "wiring"],
    ),
    // The worktree lifecycle every caller shares: create, claim, bring up, judge, tear down.
    ("lifecycle", &["worktree"]),
    // What berth keeps on disk: the registry and claims, ports, hooks, seeding, the repository.
    (
        "state",
        &[
            "registry",
            "session",
            "ports",
            "hooks",
            "seed",
            "statefile",
            "inventory",
            "repo",
            "trust",
        ],
    ),
    // Everything gix, over commits, refs and paths: it never reads berth's own state (issue 11:
    // "graph functions take commits and refs, not registry records").
    ("git", &["git"]),
    // Helpers every layer may use, which use nothing of berth's above them.
    (
        "leaves",
        &[
            "names", "clock", "process", "paths", "slug", "error", "render", "lockwait",
        ],
    ),
];

/// The guard runs before every tool call of every agent and decides from the call and the file
/// system alone: it never opens a repository or the registry. Beyond its own module it may use
/// the leaves, and of the state only these items.
const GUARD_MAY_ALSO_USE: &[&str] = &["session::holder_pid"];

/// What the guard may never reach, named in its failure message (anything else outside the
/// leaves is refused as well).
const GUARD_NEVER: &str = "registry, repo, git, gix or worktree";

#[test]
fn every_module_under_src_has_exactly_one_place_in_the_table() {
    let mut named = BTreeMap::<&str, Vec<&str>>::new();
    for (layer, modules) in LAYERS {
        for m in *modules {
            named.entry(m).or_default().push(layer);
        }
    }
    let twice: Vec<String> = named
        .iter()
        .filter(|(_, layers)| layers.len() > 1)
        .map(|(m, layers)| format!("`{m}` is placed in more than one layer: {layers:?}"))
        .collect();
    assert!(twice.is_empty(), "{}", twice.join("\n"));
    let unplaced = unplaced(&read_src());
    assert!(unplaced.is_empty(), "\n{}\n", unplaced.join("\n"));
}

#[test]
fn imports_run_one_way_down_the_layers() {
    let found = violations(&read_src());
    for v in &found {
        println!("{v}");
    }
    assert!(
        found.is_empty(),
        "{} imports break the layering of tests/it/architecture.rs:\n{}\n",
        found.len(),
        found.join("\n")
    );
}

#[test]
fn the_import_parser_reads_use_trees_and_paths_but_not_comments_or_strings() {
    let src = r##"
        //! Talks about crate::registry in a comment, which is not an import.
        use crate::{names, git::{self, status::Status}};
        pub(crate) use super::remove::Judge as J;
        use std::fs;
        /* crate::ports /* nested */ crate::hooks */
        fn f<'a>(s: &'a str) -> char {
            let _ = "crate::seed"; let _ = r#"crate::inventory"#;
            let _ = crate::clock::now(); let _ = gix::open(s); let _ = self::g();
            '{'
        }
        mod declared;
        #[cfg(test)]
        mod tests {
            use super::*;
            use super::super::list;
        }
    "##;
    let parsed = parse(src);
    let paths: Vec<String> = parsed
        .paths
        .iter()
        .map(|p| {
            let inside: String = p.inline.iter().map(|m| format!("in {m}: ")).collect();
            format!("{inside}{}", p.path.join("::"))
        })
        .collect();
    assert_eq!(
        paths,
        [
            "crate::names",
            "crate::git",
            "crate::git::status::Status",
            "super::remove::Judge",
            "std::fs",
            "crate::clock::now",
            "gix::open",
            "self::g",
            "in tests: super",
            "in tests: super::super::list",
        ]
    );
    assert_eq!(parsed.declared, ["declared", "tests"]);
    assert_eq!(parsed.paths[5].line, 9);
}

#[test]
fn a_command_importing_a_sibling_is_named_with_the_file_the_module_and_the_rule() {
    let files = [
        file(
            "lib.rs",
            "pub mod commands; pub mod registry; pub mod names;",
        ),
        file(
            "commands/mod.rs",
            "pub mod add; pub mod remove;\nuse crate::names;",
        ),
        file("commands/remove.rs", "use crate::registry;"),
        file(
            "commands/add.rs",
            "use crate::names;\nuse super::remove::Judge;",
        ),
        file("registry.rs", "use crate::names;"),
        file("names.rs", ""),
    ];
    assert_eq!(
        violations(&files),
        [
            "src/commands/add.rs:2 imports `commands::remove`: a command never imports another \
          command; what two commands share belongs in the lifecycle layer (worktree/) or below"
        ]
    );
}

#[test]
fn an_upward_import_loops_a_guard_reaching_for_the_registry_and_an_unplaced_module_all_fail() {
    let files = [
        file(
            "lib.rs",
            "pub mod guard; pub mod registry; pub mod session; pub mod ports; pub mod extra; \
             pub mod worktree;",
        ),
        file(
            "guard/mod.rs",
            "fn f() { crate::session::holder_pid(); crate::registry::load(); }",
        ),
        file("registry.rs", "use crate::ports::Block;\nuse crate::guard;"),
        file("ports.rs", "use crate::registry;"),
        file("session.rs", ""),
        file("extra.rs", ""),
        // A parent and its children may name each other; two children may not, both ways.
        file(
            "worktree/mod.rs",
            "pub mod create; pub mod sweep; pub use create::make;",
        ),
        file(
            "worktree/create.rs",
            "use super::Locked;\nuse super::sweep::sweep;",
        ),
        file("worktree/sweep.rs", "use super::{Locked, create::make};"),
    ];
    let found = violations(&files);
    let expect = [
        "src/extra.rs: module `extra` is in no layer: place it in exactly one layer of LAYERS at \
         the top of tests/it/architecture.rs",
        "src/guard/mod.rs:1 imports `registry`: the guard never opens a repository or the \
         registry (no registry, repo, git, gix or worktree); beyond its own module it uses the \
         leaves and session::holder_pid only",
        "src/ports.rs:1 imports `registry`: imports never go round a loop, and this one closes \
         ports → registry → ports",
        "src/registry.rs:1 imports `ports`: imports never go round a loop, and this one closes \
         registry → ports → registry",
        "src/registry.rs:2 imports `guard`: imports run down the layers, and state may not \
         import from domain above it",
        "src/worktree/create.rs:2 imports `worktree::sweep`: imports never go round a loop, and \
         this one closes worktree::create → worktree::sweep → worktree::create",
        "src/worktree/sweep.rs:1 imports `worktree::create`: imports never go round a loop, and \
         this one closes worktree::sweep → worktree::create → worktree::sweep",
    ];
    assert_eq!(found, expect);
}

fn file(path: &str, text: &str) -> (String, String) {
    (path.to_string(), text.to_string())
}

// ---------------------------------------------------------------------------------------------
// Reading the tree.

/// Every `.rs` file under `src/`, by its path relative to `src/`, sorted.
fn read_src() -> Vec<(String, String)> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut out = Vec::new();
    let mut dirs = vec![root.clone()];
    while let Some(dir) = dirs.pop() {
        let entries = fs::read_dir(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
        for entry in entries {
            let path = entry.expect("a directory entry").path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|x| x == "rs") {
                let text =
                    fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
                let rel = path.strip_prefix(&root).expect("under src");
                out.push((rel.to_string_lossy().replace('\\', "/"), text));
            }
        }
    }
    out.sort();
    out
}

/// The module a file is, as segments below the crate root: `commands/init/mod.rs` is
/// `commands::init`. `lib.rs` and `main.rs` are the roots of their crates and named `lib` and
/// `main` here, so the table can place them.
fn module_of(rel: &str) -> Vec<String> {
    let stem = rel.strip_suffix(".rs").unwrap_or(rel);
    let mut segs: Vec<String> = stem.split('/').map(str::to_string).collect();
    if segs.len() > 1 && segs.last().is_some_and(|s| s == "mod") {
        segs.pop();
    }
    segs
}

fn layer_of(top: &str) -> Option<usize> {
    LAYERS
        .iter()
        .position(|(_, modules)| modules.contains(&top))
}

fn is_crate_root(rel: &str) -> bool {
    rel == "lib.rs" || rel == "main.rs"
}

/// Every module under `src/` (a file or folder there, or a `mod` that `lib.rs` declares) that
/// the table does not place.
fn unplaced(files: &[(String, String)]) -> Vec<String> {
    let mut modules = BTreeMap::<String, String>::new();
    for (rel, _) in files {
        let top = module_of(rel)[0].clone();
        let shown = match rel.split_once('/') {
            Some((dir, _)) => format!("src/{dir}/"),
            None => format!("src/{rel}"),
        };
        modules.entry(top).or_insert(shown);
    }
    for (_, text) in files.iter().filter(|(rel, _)| rel == "lib.rs") {
        for m in parse(text).declared {
            modules.entry(m).or_insert_with(|| "src/lib.rs".to_string());
        }
    }
    modules
        .iter()
        .filter(|(m, _)| layer_of(m).is_none())
        .map(|(m, at)| {
            format!(
                "{at}: module `{m}` is in no layer: place it in exactly one layer of LAYERS at \
                 the top of tests/it/architecture.rs"
            )
        })
        .collect()
}

/// Every import in `files` that breaks a rule, one line each, sorted, after the modules the
/// table does not place. One line per importing file, imported module and rule: the first
/// place it happens.
fn violations(files: &[(String, String)]) -> Vec<String> {
    let known: BTreeSet<Vec<String>> = files
        .iter()
        .filter(|(rel, _)| !is_crate_root(rel))
        .map(|(rel, _)| module_of(rel))
        .collect();
    let leaves = LAYERS.last().map_or(&[][..], |(_, m)| *m);
    let mut found = BTreeMap::<(String, String, &str), (usize, String)>::new();
    // Imports between two modules of one layer, and between two files of one module where
    // neither is the other's parent: (from, to) -> where it first happens.
    let mut peers = BTreeMap::<(String, String), (String, usize)>::new();
    for (rel, text) in files {
        let own = module_of(rel);
        let own_top = own[0].as_str();
        let Some(own_layer) = layer_of(own_top) else {
            continue;
        };
        let shown = format!("src/{rel}");
        let mut flag = |line: usize, imported: &str, rule: &'static str, why: String| {
            found
                .entry((shown.clone(), imported.to_string(), rule))
                .or_insert((line, why));
        };
        for p in parse(text).paths {
            let Some(target) = resolve(rel, &own, &p.inline, &p.path) else {
                continue;
            };
            let abs = match target {
                Target::External(name) => {
                    if own_top == "guard" && name == "gix" {
                        flag(p.line, &name, "guard", guard_rule());
                    }
                    continue;
                }
                Target::Crate(abs) => abs,
            };
            // The module the path names: the longest prefix that is a file of its own.
            let module: Vec<String> = (1..=abs.len())
                .rev()
                .map(|n| abs[..n].to_vec())
                .find(|m| known.contains(m))
                .unwrap_or_else(|| vec!["lib".to_string()]);
            let top = module[0].as_str();
            let imported = module.join("::");
            if top == own_top {
                let dispatch = own.len() == 1;
                if own_top == "commands" && !dispatch && module.len() > 1 && module[1] != own[1] {
                    flag(p.line, &imported, "sibling", sibling_rule());
                } else if !module.starts_with(&own) && !own.starts_with(&module) {
                    peers
                        .entry((own.join("::"), imported))
                        .or_insert((shown.clone(), p.line));
                }
                continue;
            }
            if own_top == "guard" {
                let item = abs.join("::");
                let allowed = leaves.contains(&top)
                    || GUARD_MAY_ALSO_USE
                        .iter()
                        .any(|a| item == *a || item.starts_with(&format!("{a}::")));
                if !allowed {
                    flag(p.line, top, "guard", guard_rule());
                    continue;
                }
            }
            let Some(layer) = layer_of(top) else {
                continue; // reported once as unplaced
            };
            if layer < own_layer {
                let why = format!(
                    "imports run down the layers, and {} may not import from {} above it",
                    LAYERS[own_layer].0, LAYERS[layer].0
                );
                flag(p.line, top, "upward", why);
            } else if layer == own_layer {
                peers
                    .entry((own_top.to_string(), top.to_string()))
                    .or_insert((shown.clone(), p.line));
            }
        }
    }
    for ((from, to), (shown, line)) in &peers {
        if let Some(back) = path_between(&peers, to, from) {
            let mut round = vec![from.as_str()];
            round.extend(back.iter().map(String::as_str));
            let why = format!(
                "imports never go round a loop, and this one closes {}",
                round.join(" → ")
            );
            found
                .entry((shown.clone(), to.clone(), "loop"))
                .or_insert((*line, why));
        }
    }
    let mut out = unplaced(files);
    out.extend(
        found
            .into_iter()
            .map(|((file, imported, _), (line, why))| {
                let text = format!("{file}:{line} imports `{imported}`: {why}");
                (file, line, text)
            })
            .collect::<BTreeSet<_>>()
            .into_iter()
            .map(|(_, _, text)| text),
    );
    out
}

fn sibling_rule() -> String {
    "a command never imports another command; what two commands share belongs in the \
     lifecycle layer (worktree/) or below"
        .to_string()
}

fn guard_rule() -> String {
    format!(
        "the guard never opens a repository or the registry (no {GUARD_NEVER}); beyond its own \
         module it uses the leaves and {} only",
        GUARD_MAY_ALSO_USE.join(", ")
    )
}

/// The modules from `from` to `to` along peer imports, both ends included, if `to` is reached.
fn path_between(
    peers: &BTreeMap<(String, String), (String, usize)>,
    from: &str,
    to: &str,
) -> Option<Vec<String>> {
    let mut came_from = BTreeMap::<&str, &str>::new();
    let mut queue = VecDeque::from([from]);
    while let Some(at) = queue.pop_front() {
        if at == to {
            let mut path = vec![to.to_string()];
            let mut step = to;
            while step != from {
                step = came_from[step];
                path.push(step.to_string());
            }
            path.reverse();
            return Some(path);
        }
        for (a, b) in peers.keys() {
            if a == at && b != from && !came_from.contains_key(b.as_str()) {
                came_from.insert(b, a);
                queue.push_back(b);
            }
        }
    }
    None
}

enum Target {
    /// Segments below the library's root (`crate::` in the library, `berth::` in `main.rs`).
    Crate(Vec<String>),
    /// A crate the rules name, such as `gix`.
    External(String),
}

/// What a path written in the file `rel` (module `own`, inside inline modules `inline`) names;
/// `None` for the standard library, other crates and names brought in by an earlier `use`.
fn resolve(rel: &str, own: &[String], inline: &[String], path: &[String]) -> Option<Target> {
    let (first, rest) = path.split_first()?;
    let here = || {
        let mut m = if is_crate_root(rel) {
            Vec::new()
        } else {
            own.to_vec()
        };
        m.extend(inline.iter().cloned());
        m
    };
    match first.as_str() {
        "crate" if rel == "main.rs" => None, // the binary's own root: it has no modules
        "crate" => Some(Target::Crate(rest.to_vec())),
        "berth" if rel == "main.rs" => Some(Target::Crate(rest.to_vec())),
        "self" => Some(Target::Crate([here(), rest.to_vec()].concat())),
        "super" => {
            let ups = path.iter().take_while(|s| *s == "super").count();
            let mut base = here();
            base.truncate(base.len().saturating_sub(ups));
            Some(Target::Crate([base, path[ups..].to_vec()].concat()))
        }
        "gix" => Some(Target::External(first.clone())),
        _ => None,
    }
}

// ---------------------------------------------------------------------------------------------
// The parser: a tokenizer that drops comments, strings and characters, then `use` trees and
// paths read off the tokens.

struct Tok {
    text: String,
    line: usize,
}

/// A path as written (`super::remove::Judge`), the inline modules it sits in, and its line.
struct Found {
    path: Vec<String>,
    inline: Vec<String>,
    line: usize,
}

struct Parsed {
    paths: Vec<Found>,
    /// Every `mod name;` and `mod name { ... }`, in order.
    declared: Vec<String>,
}

fn is_ident(s: &str) -> bool {
    s.starts_with(|c: char| c.is_alphabetic() || c == '_')
}

fn tokens(src: &str) -> Vec<Tok> {
    let c: Vec<char> = src.chars().collect();
    let at = |i: usize| c.get(i).copied().unwrap_or('\0');
    let mut out = Vec::new();
    let (mut i, mut line) = (0, 1);
    // Skips a quoted string whose opening quote is at `i`, ending `hashes` `#`s after its quote.
    let skip_string = |i: &mut usize, line: &mut usize, hashes: usize, raw: bool| {
        *i += 1;
        while *i < c.len() {
            match c[*i] {
                '\\' if !raw => *i += 1,
                '"' if (1..=hashes).all(|k| at(*i + k) == '#') => {
                    *i += 1 + hashes;
                    return;
                }
                '\n' => *line += 1,
                _ => {}
            }
            *i += 1;
        }
    };
    while i < c.len() {
        let ch = c[i];
        if ch == '\n' {
            line += 1;
            i += 1;
        } else if ch.is_whitespace() {
            i += 1;
        } else if ch == '/' && at(i + 1) == '/' {
            while i < c.len() && c[i] != '\n' {
                i += 1;
            }
        } else if ch == '/' && at(i + 1) == '*' {
            let mut depth = 0;
            while i < c.len() {
                if c[i] == '/' && at(i + 1) == '*' {
                    depth += 1;
                    i += 2;
                } else if c[i] == '*' && at(i + 1) == '/' {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    line += usize::from(c[i] == '\n');
                    i += 1;
                }
            }
        } else if ch == '"' {
            skip_string(&mut i, &mut line, 0, false);
        } else if ch == '\'' {
            if at(i + 1) == '\\' {
                i += 3;
                while i < c.len() && c[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if at(i + 2) == '\'' {
                i += 3;
            } else {
                i += 1; // a lifetime: its name follows as an identifier
            }
        } else if ch.is_alphanumeric() || ch == '_' {
            let start = i;
            while i < c.len() && (c[i].is_alphanumeric() || c[i] == '_') {
                i += 1;
            }
            let word: String = c[start..i].iter().collect();
            let raw = matches!(word.as_str(), "r" | "br" | "cr");
            if matches!(word.as_str(), "b" | "c") && at(i) == '"' {
                skip_string(&mut i, &mut line, 0, false);
            } else if raw && (at(i) == '"' || (at(i) == '#' && matches!(at(i + 1), '#' | '"'))) {
                let hashes = c[i..].iter().take_while(|&&x| x == '#').count();
                i += hashes;
                skip_string(&mut i, &mut line, hashes, true);
            } else if word == "r" && at(i) == '#' {
                i += 1; // a raw identifier, r#type: the name follows
            } else {
                out.push(Tok { text: word, line });
            }
        } else if ch == ':' && at(i + 1) == ':' {
            out.push(Tok {
                text: "::".into(),
                line,
            });
            i += 2;
        } else {
            out.push(Tok {
                text: ch.to_string(),
                line,
            });
            i += 1;
        }
    }
    out
}

fn parse(src: &str) -> Parsed {
    let t = tokens(src);
    let text = |i: usize| t.get(i).map_or("", |k| k.text.as_str());
    let mut parsed = Parsed {
        paths: Vec::new(),
        declared: Vec::new(),
    };
    // Inline modules we are inside, with the brace depth their body opened at.
    let mut inline: Vec<(String, usize)> = Vec::new();
    let mut depth = 0;
    let mut i = 0;
    while i < t.len() {
        let here = || inline.iter().map(|(m, _)| m.clone()).collect::<Vec<_>>();
        match text(i) {
            "{" => depth += 1,
            "}" => {
                if inline.last().is_some_and(|(_, d)| *d == depth) {
                    inline.pop();
                }
                depth -= 1;
            }
            "mod" if is_ident(text(i + 1)) && matches!(text(i + 2), ";" | "{") => {
                parsed.declared.push(text(i + 1).to_string());
                if text(i + 2) == "{" {
                    inline.push((text(i + 1).to_string(), depth + 1));
                }
                i += 1;
            }
            // `use<..>` is precise capturing, not an import.
            "use" if text(i + 1) != "<" => {
                let line = t[i].line;
                i += 1;
                let mut trees = Vec::new();
                use_tree(&t, &mut i, &[], &mut trees);
                for path in trees {
                    parsed.paths.push(Found {
                        path,
                        inline: here(),
                        line,
                    });
                }
                continue;
            }
            w @ ("crate" | "super" | "self" | "berth" | "gix")
                if text(i + 1) == "::" && !matches!(text(i.wrapping_sub(1)), "::" | ".") =>
            {
                let line = t[i].line;
                let mut path = vec![w.to_string()];
                let mut j = i + 1;
                while text(j) == "::" && is_ident(text(j + 1)) {
                    path.push(text(j + 1).to_string());
                    j += 2;
                }
                parsed.paths.push(Found {
                    path,
                    inline: here(),
                    line,
                });
                i = j;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    parsed
}

/// Reads one use tree at `i` (`a::b`, `a::{b, c::d}`, `a::*`, `a as b`) into full paths under
/// `prefix`, leaving `i` after it.
fn use_tree(t: &[Tok], i: &mut usize, prefix: &[String], out: &mut Vec<Vec<String>>) {
    let text = |i: usize| t.get(i).map_or("", |k| k.text.as_str());
    let mut path = prefix.to_vec();
    loop {
        match text(*i) {
            "::" => *i += 1,
            "{" => {
                *i += 1;
                while !matches!(text(*i), "}" | "") {
                    use_tree(t, i, &path, out);
                    if text(*i) == "," {
                        *i += 1;
                    }
                }
                *i += 1;
                return;
            }
            "*" => {
                *i += 1;
                out.push(path);
                return;
            }
            w if is_ident(w) => {
                // `self` in a group names the group's own path.
                if w != "self" || path.is_empty() {
                    path.push(w.to_string());
                }
                *i += 1;
                if text(*i) == "as" {
                    *i += 2;
                }
                if text(*i) != "::" {
                    out.push(path);
                    return;
                }
            }
            _ => {
                if !path.is_empty() {
                    out.push(path);
                }
                return;
            }
        }
    }
}
