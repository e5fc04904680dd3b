//! The files that wire the guard into each agent runtime (settings, hook files, plugins). An
//! agent that could write them could switch the guard off or set a hatch, so every write to
//! them is blocked, wherever they lie. `init` installs by the same table the guard protects by,
//! so the two cannot drift apart. This runs on every tool call: no allocation, no file reads.

use std::path::{Component, Path};

use super::runtime::Runtime;
use crate::names;

/// How `git berth init` puts one of its files in place.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A settings file shared with the user and other tools: berth merges its entries in.
    Merge,
    /// A file berth owns outright.
    Whole,
    /// A file berth owns in a folder whose every file the runtime loads: any other file there
    /// runs beside berth's and could undo its answer, so the whole folder is guarded.
    WholeInLoadedFolder,
}

/// One file `git berth init` writes for a runtime, relative to the checkout root.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Installed {
    pub runtime: Runtime,
    pub path: &'static str,
    pub kind: Kind,
}

/// Every file `git berth init` writes, one per runtime: init plans its writes from this table,
/// and the guard refuses agents' writes to the same files.
pub const INSTALLED: [Installed; 7] = [
    Installed {
        runtime: Runtime::Claude,
        path: names::CLAUDE_SETTINGS,
        kind: Kind::Merge,
    },
    Installed {
        runtime: Runtime::Codex,
        path: names::CODEX_HOOKS,
        kind: Kind::Merge,
    },
    Installed {
        runtime: Runtime::Gemini,
        path: names::GEMINI_SETTINGS,
        kind: Kind::Merge,
    },
    Installed {
        runtime: Runtime::Cursor,
        path: names::CURSOR_HOOKS,
        kind: Kind::Merge,
    },
    Installed {
        runtime: Runtime::Copilot,
        path: names::COPILOT_HOOKS,
        kind: Kind::Whole,
    },
    Installed {
        runtime: Runtime::Opencode,
        path: names::OPENCODE_PLUGIN,
        kind: Kind::WholeInLoadedFolder,
    },
    Installed {
        runtime: Runtime::Pi,
        path: names::PI_EXTENSION,
        kind: Kind::WholeInLoadedFolder,
    },
];

/// Where init puts `runtime`'s wiring.
pub fn installed(runtime: Runtime) -> &'static Installed {
    // Every runtime has exactly one row; a unit test holds the table to that.
    INSTALLED
        .iter()
        .find(|i| i.runtime == runtime)
        .unwrap_or(&INSTALLED[0])
}

/// A guarded place named by its last components: a file, or a folder and all it holds.
struct Tail {
    path: &'static str,
    folder: bool,
}

const fn file(path: &'static str) -> Tail {
    Tail {
        path,
        folder: false,
    }
}

const fn folder(path: &'static str) -> Tail {
    Tail { path, folder: true }
}

/// What init does not write but what switches the same runtimes' hooks off or runs beside
/// them, in any checkout: Claude Code's local settings layer (`disableAllHooks`) and hook
/// scripts, Codex's `config.toml` (`[features] hooks = false`), OpenCode's other plugin folder.
const BESIDE: [Tail; 4] = [
    file(".claude/settings.local.json"),
    folder(".claude/hooks"),
    file(".codex/config.toml"),
    folder(".opencode/plugin"),
];

/// The master agent's definitions `init --with-orchestrator` writes: the tool lists and
/// permissions that keep the master from editing. An agent that rewrote one would loosen them.
const MASTER: [Tail; 3] = [
    file(names::CLAUDE_MASTER_AGENT),
    file(names::OPENCODE_MASTER_AGENT),
    file(names::PI_MASTER_PROMPT),
];

/// The user's own settings for each runtime, relative to the home directory, and the
/// configuration that sends git or worktrunk elsewhere for every checkout (hooks, aliases,
/// includes; worktrunk's hooks run on `wt switch`, which the whitelist lets through).
const IN_HOME: [Tail; 14] = [
    file(".gitconfig"),
    file(".config/git/config"),
    file(".config/worktrunk/config.toml"),
    file(".config/wt.toml"),
    file(".claude/settings.json"),
    file(".claude/settings.local.json"),
    folder(".claude/hooks"),
    file(".codex/config.toml"),
    file(".codex/hooks.json"),
    file(".gemini/settings.json"),
    file(".cursor/hooks.json"),
    folder(".config/opencode/plugins"),
    folder(".config/opencode/plugin"),
    folder(".pi/agent/extensions"),
];

/// True when `path` (absolute, lexically normal) is one of the hook or settings files
/// `git berth init` manages for any runtime, in any checkout, or the user's own runtime
/// settings under `home`. A folder that holds one of them counts too: removing or renaming
/// it takes the file with it. Names compare without regard to ASCII case, as they do on the
/// file systems of macOS and Windows.
pub fn is_managed(path: &Path, home: Option<&Path>) -> bool {
    // Every managed path, or folder holding one, has a component named like the first segment
    // of some entry (`.claude`, `.codex`, ...): most paths have none, and are answered at once.
    let firsts = first_segments();
    if !path
        .components()
        .any(|c| firsts.iter().any(|f| is_named(c, f)))
    {
        return false;
    }
    let installed = INSTALLED.iter().map(|i| match i.kind {
        Kind::Merge | Kind::Whole => file(i.path),
        Kind::WholeInLoadedFolder => folder(i.path.rsplit_once('/').map_or(i.path, |(d, _)| d)),
    });
    if installed
        .chain(BESIDE)
        .chain(MASTER)
        .any(|t| holds(path, &t, ends_with))
    {
        return true;
    }
    let Some(rel) = home.and_then(|h| path.strip_prefix(h).ok()) else {
        return false;
    };
    IN_HOME.iter().any(|t| holds(rel, t, same))
}

/// `path` is the guarded place or one of the folders on the way to it, or (for a folder) lies
/// anywhere inside it; `is` says whether a path is a given `/`-separated place: by its last
/// components anywhere, or by all of them under the home directory.
fn holds(path: &Path, tail: &Tail, is: fn(&Path, &str) -> bool) -> bool {
    if prefixes(tail.path).any(|p| is(path, p)) {
        return true;
    }
    tail.folder && path.ancestors().skip(1).any(|a| is(a, tail.path))
}

/// `a`, `a/b`, `a/b/c` for `a/b/c`.
fn prefixes(tail: &str) -> impl Iterator<Item = &str> {
    tail.match_indices('/')
        .map(move |(i, _)| &tail[..i])
        .chain(std::iter::once(tail))
}

/// The last components of `path` are the `/`-separated segments of `segments`.
/// The first segment of every entry, found once per process.
fn first_segments() -> &'static [&'static str] {
    static FIRSTS: std::sync::OnceLock<Vec<&'static str>> = std::sync::OnceLock::new();
    FIRSTS.get_or_init(|| {
        let mut firsts: Vec<&'static str> = INSTALLED
            .iter()
            .map(|i| i.path)
            .chain(BESIDE.iter().chain(IN_HOME.iter()).map(|t| t.path))
            .map(|t| t.split('/').next().unwrap_or(t))
            .collect();
        firsts.sort_unstable();
        firsts.dedup();
        firsts
    })
}

fn ends_with(path: &Path, segments: &str) -> bool {
    let mut components = path.components().rev();
    segments
        .rsplit('/')
        .all(|seg| components.next().is_some_and(|c| is_named(c, seg)))
}

/// `path` is exactly the `/`-separated `segments`.
fn same(path: &Path, segments: &str) -> bool {
    let mut components = path.components();
    segments
        .split('/')
        .all(|seg| components.next().is_some_and(|c| is_named(c, seg)))
        && components.next().is_none()
}

/// Could a path holding a component named `name` be managed? False for nearly every name, and
/// then no path is managed for it.
pub fn may_be_managed(name: &std::ffi::OsStr) -> bool {
    first_segments()
        .iter()
        .any(|f| is_named(Component::Normal(name), f))
}

fn is_named(c: Component<'_>, name: &str) -> bool {
    match c {
        Component::Normal(n) => n.to_str().is_some_and(|n| n.eq_ignore_ascii_case(name)),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOME: &str = "/home/u";

    fn managed(path: &str) -> bool {
        is_managed(Path::new(path), Some(Path::new(HOME)))
    }

    fn assert_managed(paths: &[&str], expected: bool) {
        for p in paths {
            assert_eq!(managed(p), expected, "{p}");
        }
    }

    #[test]
    fn every_file_init_writes_is_managed_in_any_checkout() {
        for i in INSTALLED {
            for root in ["/repo/primary", "/repo/linked", "/tmp/other/checkout"] {
                let p = format!("{root}/{}", i.path);
                assert!(managed(&p), "{p}");
            }
        }
    }

    #[test]
    fn each_runtime_has_exactly_one_row_in_the_table() {
        for r in Runtime::ALL {
            assert_eq!(INSTALLED.iter().filter(|i| i.runtime == r).count(), 1);
            assert_eq!(installed(r).runtime, r);
        }
    }

    #[test]
    fn the_master_agents_definitions_are_managed_in_any_checkout() {
        for rel in [
            names::CLAUDE_MASTER_AGENT,
            names::OPENCODE_MASTER_AGENT,
            names::PI_MASTER_PROMPT,
        ] {
            assert!(is_managed(&Path::new("/wt/x").join(rel), None), "{rel}");
        }
        assert!(!is_managed(
            Path::new("/wt/x/.claude/agents/reviewer.md"),
            None
        ));
    }

    #[test]
    fn the_settings_beside_berths_are_managed_too() {
        assert_managed(
            &[
                "/repo/primary/.claude/settings.local.json",
                "/repo/linked/.claude/hooks/pre.sh",
                "/repo/linked/.codex/config.toml",
                "/repo/primary/.github/hooks/berth-guard.json",
            ],
            true,
        );
    }

    #[test]
    fn any_file_in_a_folder_whose_plugins_all_load_is_managed() {
        assert_managed(
            &[
                "/repo/primary/.opencode/plugins/other.ts",
                "/repo/primary/.opencode/plugin/other.js",
                "/repo/linked/.pi/extensions/mine/index.ts",
                "/repo/linked/.pi/extensions/x.ts",
            ],
            true,
        );
    }

    #[test]
    fn a_folder_on_the_way_to_a_managed_file_is_managed() {
        assert_managed(
            &[
                "/repo/primary/.claude",
                "/repo/linked/.github/hooks",
                "/repo/linked/.opencode/plugins",
                "/repo/linked/.pi",
            ],
            true,
        );
    }

    #[test]
    fn the_users_own_runtime_settings_are_managed() {
        assert_managed(
            &[
                "/home/u/.claude/settings.json",
                "/home/u/.claude/settings.local.json",
                "/home/u/.codex/config.toml",
                "/home/u/.codex/hooks.json",
                "/home/u/.gemini/settings.json",
                "/home/u/.cursor/hooks.json",
                "/home/u/.config/opencode/plugins/guard.ts",
                "/home/u/.config/opencode/plugin/guard.js",
                "/home/u/.pi/agent/extensions/guard.ts",
                "/home/u/.pi/agent/extensions/guard/index.ts",
                "/home/u/.gitconfig",
                "/home/u/.config/git/config",
                "/home/u/.config/worktrunk/config.toml",
                "/home/u/.config",
            ],
            true,
        );
    }

    #[test]
    fn ordinary_files_are_not_managed() {
        assert_managed(
            &[
                "/repo/primary/src/lib.rs",
                "/repo/primary/.github/workflows/ci.yml",
                "/repo/primary/.github/hooks/team.json",
                "/repo/primary/.claude/commands/review.md",
                "/repo/primary/.claude/worktrees/x/src/a.rs",
                "/repo/primary/hooks/claude/guard.json",
                "/repo/primary/settings.json",
                "/repo/primary/claude/settings.json",
                "/home/u/.config/opencode/opencode.json",
                "/home/u/.pi/agent/sessions/a.jsonl",
                "/home/u/notes.md",
                "/home/u",
                "/",
            ],
            false,
        );
    }

    #[test]
    fn home_settings_count_only_under_that_home() {
        assert!(!managed("/srv/.config/opencode/plugins/guard.ts"));
        assert!(!is_managed(
            Path::new("/home/u/.pi/agent/extensions/x.ts"),
            None
        ));
    }

    #[test]
    fn names_compare_without_regard_to_case() {
        assert!(managed("/repo/primary/.Claude/Settings.JSON"));
        assert!(managed("/repo/primary/.CODEX/hooks.json"));
    }

    #[test]
    fn a_linked_worktree_nested_in_the_primary_has_its_own_managed_files() {
        assert!(managed(
            "/repo/primary/.claude/worktrees/x/.claude/settings.json"
        ));
    }
}
