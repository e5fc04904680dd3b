//! The trunk guard: may an agent's next action run? `decide` applies the seed's order over
//! plain data and asks an injected probe where each landing place lies; it never reads the
//! environment or stdin itself. Whatever goes wrong on the way blocks: the guard fails closed.

pub mod probe;
pub mod runtime;
pub mod shell;
pub mod whitelist;

use std::path::{Path, PathBuf};

pub use probe::Place;
pub use shell::Target;

/// The two escape hatches, as read from the environment (unset is `None`).
#[derive(Debug, Clone, Default)]
pub struct Hatches {
    pub allow_main_worktree: Option<String>,
    pub master_session: Option<String>,
}

/// What the agent is about to do.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Action {
    /// The shell command; empty for an edit, which never matches the whitelist.
    pub command: String,
    /// Where the agent stands (absolute).
    pub cwd: PathBuf,
    /// Files an edit writes (absolute); when there are any, they alone decide.
    pub edits: Vec<PathBuf>,
}

impl Action {
    pub fn command(command: impl Into<String>, cwd: impl Into<PathBuf>) -> Self {
        Action { command: command.into(), cwd: cwd.into(), edits: Vec::new() }
    }

    pub fn edit(files: Vec<PathBuf>, cwd: impl Into<PathBuf>) -> Self {
        Action { command: String::new(), cwd: cwd.into(), edits: files }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    Allow(Why),
    Block(Block),
}

/// Which rule let the action through; tests pin the order with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Why {
    AllowMainWorktree,
    MasterSession,
    Whitelisted,
    OutsideOrLinked,
    ReadOnlyTool,
}

/// Why the action is blocked, in words for the agent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Block {
    /// It lands in the primary checkout `root`; `what` says how.
    Primary { root: PathBuf, what: String },
    /// It lands somewhere only the running shell knows.
    Unknown { raw: String },
    /// The guard could not find out (unreadable `.git`, bad hook JSON, ...).
    Failed { what: String },
}

impl Block {
    /// The message for stderr (and the runtimes' deny JSON), in the seed's words: the primary
    /// checkout "is protected", then the way out through berth and through worktrunk.
    pub fn message(&self) -> String {
        let tool = crate::names::TOOL;
        let way_out = format!(
            "hint: work in a linked worktree: `{tool} add <name>`, then `cd \"$({tool} path <name>)\"` \
             (worktrunk: `wt switch -c <branch>`)"
        );
        match self {
            Block::Primary { root, what } => {
                format!("{tool}: the primary checkout {} is protected: {what}\n{way_out}", root.display())
            }
            Block::Unknown { raw } => format!(
                "{tool}: cannot tell where `{raw}` lands, so the guard blocks it \
                 (the primary checkout is protected)\n\
                 hint: spell the directory or file out, without variables or substitutions"
            ),
            Block::Failed { what } => {
                format!("{tool}: the guard blocks because it could not decide: {what}\n{way_out}")
            }
        }
    }
}

/// The seed's decision order, first match wins: each hatch at exactly `1`; the bootstrap
/// whitelist; then every place the action lands must be outside any checkout or in a linked
/// worktree. `probe` says where a path lies; `home` expands `~` in the command.
pub fn decide(
    hatches: &Hatches,
    action: &Action,
    home: Option<&Path>,
    probe: &mut dyn FnMut(&Path) -> std::io::Result<Place>,
) -> Decision {
    if let Some(why) = hatch(hatches) {
        return Decision::Allow(why);
    }
    if !action.command.is_empty() && whitelist::is_whitelisted(&action.command) {
        return Decision::Allow(Why::Whitelisted);
    }
    for target in landings(action, home) {
        if let Some(block) = judge(&target, &action.cwd, probe) {
            return Decision::Block(block);
        }
    }
    Decision::Allow(Why::OutsideOrLinked)
}

/// The first two rules: a hatch counts only at exactly `1`, so `true`, `yes` or ` 1` never open it.
pub fn hatch(hatches: &Hatches) -> Option<Why> {
    if hatches.allow_main_worktree.as_deref() == Some("1") {
        return Some(Why::AllowMainWorktree);
    }
    if hatches.master_session.as_deref() == Some("1") {
        return Some(Why::MasterSession);
    }
    None
}

/// Every place the action lands: the edited files alone for an edit; for anything else where
/// the agent stands, plus whatever the command names (a command that will not tokenize is
/// judged by where the agent stands, as the seed judges every command).
pub fn landings(action: &Action, home: Option<&Path>) -> Vec<Target> {
    if !action.edits.is_empty() && action.command.is_empty() {
        return action.edits.iter().map(|f| Target::File(action.cwd.join(f))).collect();
    }
    let mut out = vec![Target::Dir(action.cwd.clone())];
    out.extend(action.edits.iter().map(|f| Target::File(action.cwd.join(f))));
    if let Ok(found) = shell::targets(&action.command, &action.cwd, home) {
        out.extend(found);
    }
    out
}

fn judge(target: &Target, cwd: &Path, probe: &mut dyn FnMut(&Path) -> std::io::Result<Place>) -> Option<Block> {
    let path = match target {
        Target::Unknown(raw) => return Some(Block::Unknown { raw: raw.clone() }),
        Target::Dir(p) | Target::File(p) => p,
    };
    match probe(path) {
        Ok(Place::Outside | Place::Linked { .. }) => None,
        Ok(Place::Primary { root }) => {
            let what = match target {
                Target::File(f) => format!("the action writes {}", f.display()),
                _ if path == cwd => "the command runs there".to_string(),
                _ => format!("the command works in {}", path.display()),
            };
            Some(Block::Primary { root, what })
        }
        Err(e) => Some(Block::Failed { what: e.to_string() }),
    }
}
