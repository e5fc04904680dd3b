//! `git berth init`: wires the guard into a repository for each agent runtime, or takes it out
//! again. It plans every change first (a pure function over the files' current contents) and
//! writes only when the whole plan holds; it must never clobber a key or hook it did not add.
//!
//! This file is the flow: find the checkout, plan (`plan`, merging JSON settings with `merge`),
//! carry the plan out (`apply`, the only writer), and print what changed.

use crate::error::Refusal;
pub use crate::wiring::plan::{Change, ReadFile, Uninstall, Want, plan_install, plan_uninstall};
use crate::wiring::{apply, master, mcp};

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::guard::probe::{self, Place};
use crate::guard::runtime::Runtime;
use crate::names;

/// Wire the trunk guard into a repository for each agent runtime.
#[derive(clap::Args, Debug, Clone)]
pub struct InitArgs {
    /// The repository to install into (default: the current directory).
    pub target: Option<PathBuf>,

    /// Comma list of runtimes: claude, codex, gemini, cursor, copilot, opencode, pi
    /// (default: claude,opencode,pi).
    #[arg(long, value_delimiter = ',')]
    pub runtime: Vec<String>,

    /// Also make Claude Code create and remove its worktrees through berth.
    #[arg(long)]
    pub worktrees: bool,

    /// Also write the master agent's definition for each runtime in --runtime that has one:
    /// .claude/agents/master.md (claude; no Write, Edit, MultiEdit or NotebookEdit tool),
    /// .opencode/agent/master.md (opencode; edit and write denied), .pi/prompts/master.md (pi; the
    /// rule in words). codex, gemini, cursor and copilot get none.
    #[arg(long)]
    pub with_orchestrator: bool,

    /// Overwrite berth's files and hook entries that differ from what this version installs.
    #[arg(long)]
    pub force: bool,

    /// Leave out berth's MCP server (git berth mcp). Without this flag init registers it in the
    /// project configuration of each runtime that takes MCP servers (.mcp.json for claude and
    /// copilot, .codex/config.toml, .gemini/settings.json, .cursor/mcp.json, opencode.json) and
    /// lets Claude Code run worktree_list without asking; pi takes none and is skipped.
    #[arg(long)]
    pub no_mcp: bool,

    /// Take out exactly what init added, leaving every other key and hook as it was: from every
    /// runtime where berth's entries are found, unless --runtime names some. A master definition
    /// goes only while it is as init wrote it; a changed one is kept, with a warning.
    #[arg(long)]
    pub uninstall: bool,
}

/// The seed's default set.
pub const DEFAULT_RUNTIMES: [Runtime; 3] = [Runtime::Claude, Runtime::Opencode, Runtime::Pi];

/// Runs init in the process's working directory; prints what it did on stderr and returns the
/// exit code: 0 done (or nothing to do), 1 refused (nothing was written).
pub fn run(args: &InitArgs) -> i32 {
    let stderr = &mut io::stderr();
    match execute(args, stderr) {
        Ok(()) => 0,
        Err(refusal) => {
            let err = refusal.into();
            crate::error::report(&err);
            i32::from(crate::error::kind(&err).exit_code())
        }
    }
}

pub fn execute(args: &InitArgs, out: &mut dyn Write) -> Result<(), Refusal> {
    // Uninstall looks everywhere it could have installed, unless told where.
    let runtimes = if args.uninstall && args.runtime.iter().all(|r| r.trim().is_empty()) {
        Runtime::ALL.to_vec()
    } else {
        parse_runtimes(&args.runtime)?
    };
    let (root, primary) = checkout_root(args.target.as_deref())?;
    if let Some(primary) = primary {
        let _ = writeln!(
            out,
            "note: writing into the linked worktree {} (the primary checkout is {}); agents \
             started in the primary checkout read the primary's own settings",
            root.display(),
            primary.display()
        );
    }
    let want = Want {
        runtimes: runtimes.clone(),
        // Uninstall takes out berth's worktree hooks too, wherever it finds them.
        worktrees: args.worktrees || args.uninstall,
        orchestrator: args.with_orchestrator,
        mcp: !args.no_mcp,
        force: args.force,
    };
    let root_for_read = root.clone();
    let read = move |rel: &str| read_file(&root_for_read.join(rel));
    let Uninstall { changes, kept } = if args.uninstall {
        plan_uninstall(&want, &read)?
    } else {
        Uninstall {
            changes: plan_install(&want, &read)?,
            kept: Vec::new(),
        }
    };

    let mut list = if args.uninstall && runtimes.len() == Runtime::ALL.len() {
        "any runtime".to_owned()
    } else {
        runtimes
            .iter()
            .map(|r| r.name())
            .collect::<Vec<_>>()
            .join(", ")
    };
    if args.with_orchestrator && !args.uninstall {
        list.push_str(", with the master agent");
    }
    if changes.is_empty() {
        let what = if args.uninstall {
            "not installed"
        } else {
            "already installed"
        };
        let _ = writeln!(
            out,
            "{}: {what} ({list}) in {}",
            names::TOOL,
            root.display()
        );
        warn_kept(out, &root, &kept);
        return Ok(());
    }
    apply::apply(&root, &changes).map_err(|e| Refusal::new(format!("nothing was changed: {e}")))?;
    for c in &changes {
        let verb = match (&c.before, &c.after, args.uninstall) {
            (None, Some(_), _) => "created",
            (Some(_), Some(_), false) => "updated",
            (Some(_), Some(_), true) => "removed berth's entries from",
            _ => "removed",
        };
        let _ = writeln!(out, "{verb} {}", root.join(&c.path).display());
    }
    warn_kept(out, &root, &kept);
    if !args.uninstall {
        for r in &runtimes {
            let _ = writeln!(out, "{}: {}", r.name(), trust_step(*r));
            if args.with_orchestrator {
                let _ = writeln!(out, "{}: {}", r.name(), master_step(*r));
            }
        }
        if !args.no_mcp {
            tell_mcp_skipped(out, &runtimes);
        }
    }
    Ok(())
}

/// Names each runtime that got no MCP server because it takes none.
fn tell_mcp_skipped(out: &mut dyn Write, runtimes: &[Runtime]) {
    for r in runtimes.iter().filter(|r| mcp::target(**r).is_none()) {
        let _ = writeln!(
            out,
            "{}: MCP server skipped: this runtime takes no MCP servers",
            r.name()
        );
    }
}

/// Names each master definition uninstall left because a person changed it.
fn warn_kept(out: &mut dyn Write, root: &Path, kept: &[String]) {
    for path in kept {
        let _ = writeln!(
            out,
            "warning: kept {}: it was changed since init wrote it (remove it by hand, or: {} init \
             --uninstall --runtime {} --force)",
            root.join(path).display(),
            names::TOOL,
            kept_runtime(path)
        );
    }
}

/// The runtime whose master definition lives at `path`, for the hint that removes it.
fn kept_runtime(path: &str) -> &'static str {
    Runtime::ALL
        .into_iter()
        .find(|r| {
            master::definition(*r).is_some_and(|d| d.path == path)
                || mcp::target(*r).is_some_and(|t| t.path() == path)
        })
        .map_or("", |r| r.name())
}

/// How a person starts the master in `r`, or why it has none.
fn master_step(r: Runtime) -> String {
    let (tool, master, name) = (names::TOOL, names::MASTER_AGENT, r.name());
    match r {
        Runtime::Claude | Runtime::Opencode => format!(
            "start the master in the primary checkout with {tool} master {name} (it runs \
             {name} --agent {master})"
        ),
        Runtime::Pi => format!(
            "start the master in the primary checkout with {tool} master {name}, then type /{master}"
        ),
        _ => "no master definition for this runtime; its master rests on the guard alone".into(),
    }
}

/// `--runtime a,b,a` in order, duplicates dropped; the seed's default when none is given.
pub fn parse_runtimes(given: &[String]) -> Result<Vec<Runtime>, Refusal> {
    let mut out = Vec::new();
    for name in given.iter().map(|s| s.trim()).filter(|s| !s.is_empty()) {
        let Some(r) = Runtime::from_name(name) else {
            let known = Runtime::ALL
                .iter()
                .map(|r| r.name())
                .collect::<Vec<_>>()
                .join(", ");
            return Err(
                Refusal::new(format!("unknown runtime '{name}' (known: {known})")).hint(format!(
                    "{} init --runtime {}",
                    names::TOOL,
                    DEFAULT_RUNTIMES.map(|r| r.name()).join(",")
                )),
            );
        };
        if !out.contains(&r) {
            out.push(r);
        }
    }
    if out.is_empty() {
        out.extend(DEFAULT_RUNTIMES);
    }
    Ok(out)
}

/// The checkout init writes into, and the primary checkout when that is a linked worktree.
fn checkout_root(target: Option<&Path>) -> Result<(PathBuf, Option<PathBuf>), Refusal> {
    let cwd = std::env::current_dir()
        .map_err(|e| Refusal::new(format!("cannot read the current directory: {e}")))?;
    let target = target.map_or(cwd.clone(), |t| cwd.join(t));
    if !target.is_dir() {
        return Err(Refusal::new(format!(
            "{} is not a directory",
            target.display()
        )));
    }
    match probe::locate(&target) {
        Ok(Place::Primary { root }) => Ok((root, None)),
        Ok(Place::Linked { root, primary }) => Ok((root, primary)),
        Ok(Place::Outside) => Err(Refusal::new(format!(
            "{} is not in a git repository",
            target.display()
        ))
        .hint(format!("git init {}", target.display()))),
        Err(e) => Err(Refusal::new(format!(
            "cannot tell whether {} is a git repository: {e}",
            target.display()
        ))),
    }
}

fn read_file(path: &Path) -> Result<Option<Vec<u8>>, String> {
    match fs::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("cannot read {}: {e}", path.display())),
    }
}

fn trust_step(r: Runtime) -> &'static str {
    match r {
        Runtime::Claude => {
            "restart Claude Code and accept the folder's trust dialog so project hooks run \
             (onFailure: block needs Claude Code 2.1.295 or later)"
        }
        Runtime::Codex => {
            "trust the project's .codex/ layer, then review and trust the hook in /hooks"
        }
        Runtime::Gemini => {
            "restart Gemini CLI and accept the new project hook when it warns about it"
        }
        Runtime::Cursor => "restart Cursor so it reads .cursor/hooks.json",
        Runtime::Copilot => "commit .github/hooks/ so Copilot CLI and the coding agent load it",
        Runtime::Opencode => "restart OpenCode so it loads the plugin from .opencode/plugins/",
        Runtime::Pi => "trust the project in Pi so .pi/extensions/ load, then /reload",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runtimes_are_a_comma_list_without_duplicates_and_default_to_the_seeds_three() {
        let list =
            |s: &[&str]| parse_runtimes(&s.iter().map(|s| s.to_string()).collect::<Vec<_>>());
        assert_eq!(list(&[]).expect("ok"), DEFAULT_RUNTIMES.to_vec());
        assert_eq!(
            list(&["pi", "claude", "pi"]).expect("ok"),
            vec![Runtime::Pi, Runtime::Claude]
        );
        let err = list(&["claude", "vim"]).expect_err("unknown");
        assert!(err.message.contains("'vim'"));
    }
}
