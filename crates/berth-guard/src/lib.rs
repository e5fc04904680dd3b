//! The trunk guard: may an agent's next action run? `decide` applies the seed's order over
//! plain data and asks an injected probe where each landing place lies; it never reads the
//! environment or stdin itself. Whatever goes wrong on the way blocks: the guard fails closed.
//!
//! Its own crate, with no gix and no way to git berth's state: the guard never opens a repository
//! or the registry. It also holds the two leaves both sides share, every user-visible name
//! (`names`) and the process table (`process`); git berth re-exports them.

pub(crate) mod fast;
pub mod holders;
pub mod managed;
pub mod names;
mod owned;
#[cfg(test)]
mod owned_tests;
pub mod owners;
pub mod probe;
pub mod process;
pub mod runtime;
pub mod scan;
pub mod shell;
pub mod whitelist;

use std::path::{Path, PathBuf};

pub use probe::Place;
use shell::names_branch;
pub use shell::{Effect, Ref};

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
        Action {
            command: command.into(),
            cwd: cwd.into(),
            edits: Vec::new(),
        }
    }

    pub fn edit(files: Vec<PathBuf>, cwd: impl Into<PathBuf>) -> Self {
        Action {
            command: String::new(),
            cwd: cwd.into(),
            edits: files,
        }
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

/// Commands longer than this are blocked unread: nobody types them, and the guard must stay
/// fast on any input.
pub const MAX_COMMAND_BYTES: usize = 256 * 1024;

/// Why the action is blocked, in words for the agent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Block {
    /// It lands in the primary checkout `root`; `what` says how.
    Primary { root: PathBuf, what: String },
    /// It lands somewhere only the running shell knows.
    Unknown { raw: String },
    /// It would write the files that wire the guard in.
    Settings { path: PathBuf },
    /// It changes configuration every worktree shares.
    SharedConfig { what: String },
    /// It writes the trunk `trunk`, which only `ship` moves; `what` says how, naming the trunk
    /// last.
    Trunk { trunk: String, what: String },
    /// The guard could not find out (unreadable `.git`, bad hook JSON, unreadable shell, ...).
    Failed { what: String },
    /// The guard did decide, for a reason of its own that the way out of the primary does not
    /// answer: `hint` says what does.
    Refused { what: String, hint: String },
    /// It writes what another worktree owns (`git berth own`): `what` says how, `owner` is that
    /// worktree's folder and `pattern` the owned path it claimed.
    Owned {
        what: String,
        owner: PathBuf,
        pattern: String,
        agent: Option<String>,
    },
}

impl Block {
    /// The message for stderr (and the runtimes' deny JSON), in the seed's words: the primary
    /// checkout "is protected", then a way out that passes the guard exactly as printed.
    pub fn message(&self) -> String {
        let tool = crate::names::TOOL;
        match self {
            Block::Primary { root, what } => format!(
                "{tool}: blocked: the primary checkout {} is protected: {what}\n{}",
                root.display(),
                way_out()
            ),
            Block::Unknown { raw } => format!(
                "{tool}: blocked: cannot tell where {} lands (the primary checkout is protected)\n\
                 hint: spell the directory or file out, without variables or substitutions",
                // A phrase that quotes its own words is not quoted again.
                if raw.starts_with('`') {
                    raw.clone()
                } else {
                    format!("`{raw}`")
                }
            ),
            Block::Settings { path } => format!(
                "{tool}: blocked: {} wires the guard into an agent runtime; agents may not change it \
                 (the primary checkout is protected)\n\
                 hint: a person edits it, or runs `{tool} init`",
                path.display()
            ),
            Block::SharedConfig { what } => format!(
                "{tool}: blocked: `{what}` changes configuration every worktree shares \
                 (the primary checkout is protected)\n\
                 hint: a person sets it, in the primary checkout"
            ),
            // No hint names approving or landing: those are not an agent's to do.
            Block::Trunk { what, .. } => format!(
                "{tool}: blocked: {what}, which moves only when a person or the master lands \
                 reviewed work\n\
                 hint: commit on your worktree's own branch and tell the master it is ready"
            ),
            Block::Refused { what, hint } => format!("{tool}: blocked: {what}\nhint: {hint}"),
            Block::Owned {
                what,
                owner,
                pattern,
                agent,
            } => {
                let name = owner.file_name().map_or_else(
                    || owner.display().to_string(),
                    |n| n.to_string_lossy().into(),
                );
                match agent {
                    Some(agent) => format!(
                        "{tool}: blocked: {what}, which the worktree {name} of agent {agent} owns \
                         ({pattern}); only its agent changes it\n\
                         hint: ask {agent} to make the change or to give the path back: `{tool} \
                         send {agent} ...`, or ask the master"
                    ),
                    None => format!(
                        "{tool}: blocked: {what}, which the worktree {name} owns ({pattern}); only \
                         its agent changes it\n\
                         hint: ask its agent to make the change or to give the path back: `{tool} \
                         send <agent> ...` (`{tool} list` shows the agent of {name}), or ask the \
                         master"
                    ),
                }
            }
            // Only these two name the way out: finding the agent's pid for it reads `/proc`.
            Block::Failed { what } => format!(
                "{tool}: blocked: the guard could not decide, and the primary checkout is protected: {what}\n{}",
                way_out()
            ),
        }
    }
}

/// The block message's way out: a command that passes the guard as printed, from anywhere.
pub fn way_out() -> String {
    let tool = crate::names::TOOL;
    format!(
        "hint: work in a linked worktree of your own: cd \"$({tool} add {})\" \
         (worktrunk: `wt switch -c <branch>`)",
        suggested_name()
    )
}

/// A worktree name for the hint: one per agent process, so two agents are not sent to one.
pub fn suggested_name() -> String {
    format!("agent-{}", crate::process::holder_pid())
}

/// The seed's decision order, first match wins: each hatch at exactly `1`; the bootstrap
/// whitelist; then every effect of the action must land outside any primary checkout, and no
/// git command may write the trunk (or the primary's branch) from anywhere. `probe` says where
/// a path lies; `home` expands `~` in the command.
pub fn decide(
    hatches: &Hatches,
    action: &Action,
    home: Option<&Path>,
    probe: &mut dyn FnMut(&Path) -> std::io::Result<Place>,
) -> Decision {
    let env = shell::Env {
        home,
        ..Default::default()
    };
    decide_in(hatches, action, env, probe)
}

/// [`decide`] with everything the guard knows of the agent's shell.
pub fn decide_in(
    hatches: &Hatches,
    action: &Action,
    env: shell::Env<'_>,
    probe: &mut dyn FnMut(&Path) -> std::io::Result<Place>,
) -> Decision {
    if let Some(why) = hatch(hatches) {
        return Decision::Allow(why);
    }
    if !action.command.is_empty() && whitelist::is_whitelisted(&action.command) {
        return Decision::Allow(Why::Whitelisted);
    }
    if action.command.len() > MAX_COMMAND_BYTES {
        return Decision::Block(Block::Refused {
            what: format!(
                "the command is {} KiB, over the {} KiB the guard reads",
                action.command.len() / 1024,
                MAX_COMMAND_BYTES / 1024
            ),
            hint: "write long text with the edit tool, or split the command".to_owned(),
        });
    }
    let effects = match effects_of(action, env) {
        Ok(e) => e,
        Err(what) => return Decision::Block(Block::Failed { what }),
    };
    let exits = env.exits;
    let mut judge = Judge {
        probe,
        places: fast::Map::default(),
        primaries: Vec::new(),
        home: env.home,
        in_primary: None,
        listings: probe::Listings::default(),
        branches: fast::Map::default(),
        cwd: action.cwd.clone(),
        reals: fast::Map::default(),
        plain: fast::Map::default(),
        session: env.session.map(str::to_string),
        agent: env.agent.map(Agent::Find),
        held: fast::Map::default(),
        owned: fast::Map::default(),
        mine: None,
        mine_as: fast::Map::default(),
        alive: fast::Map::default(),
    };
    let decision = judge.all(&action.cwd, &effects);
    if exits {
        std::mem::forget(judge);
        std::mem::forget(effects);
    }
    decision
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

/// Every effect of the action: an edit writes its files (and, with no file, is judged where the
/// agent stands); a command does what its text says. Text the guard cannot read is an error.
pub fn effects_of(action: &Action, env: shell::Env<'_>) -> Result<Vec<Effect>, String> {
    let mut out: Vec<Effect> = action
        .edits
        .iter()
        .map(|f| Effect::Writes {
            path: action.cwd.join(f),
            by: "the edit".into(),
        })
        .collect();
    if action.command.is_empty() {
        if out.is_empty() {
            out.push(Effect::Runs {
                dir: action.cwd.clone(),
                program: String::new(),
                reads: false,
            });
        }
        return Ok(out);
    }
    let found = shell::effects(&action.command, &action.cwd, env)
        .map_err(|e| format!("cannot read the command as shell: {}", e.0))?;
    out.extend(found);
    Ok(out)
}

struct Judge<'p, 'h> {
    probe: &'p mut dyn FnMut(&Path) -> std::io::Result<Place>,
    /// Keyed by the path's bytes (hashing a `Path` walks its components).
    places: fast::Map<std::ffi::OsString, Place>,
    /// Primary checkouts known so far: a path that contains one may write into it.
    primaries: Vec<PathBuf>,
    home: Option<&'h Path>,
    /// The agent stands in this primary checkout: everything must land in linked worktrees.
    in_primary: Option<PathBuf>,
    listings: probe::Listings,
    /// The protected branches of each checkout git writes branches in, keyed by its root.
    branches: fast::Map<PathBuf, probe::Branches>,
    /// Where the agent stands.
    cwd: PathBuf,
    /// Who asks (see [`shell::Env`]).
    session: Option<String>,
    agent: Option<Agent>,
    /// The live holder of each linked worktree written in that is not the caller, by root.
    held: fast::Map<PathBuf, Option<holders::Holder>>,
    /// The owned paths of the repository of each checkout written in, by the checkout's root:
    /// `None` when its repository has none (see [`probe::owned`]).
    owned: fast::Map<PathBuf, Option<std::rc::Rc<[owners::Owned]>>>,
    /// The checkout the agent stands in, by its root: what it owns never blocks it.
    mine: Option<PathBuf>,
    /// Whether each owner's worktree folder, as written, is [`Judge::mine`] (see
    /// [`Judge::is_mine`]).
    mine_as: fast::Map<PathBuf, bool>,
    /// Whether each owner's claim holder still runs, by pid and start time.
    alive: fast::Map<(u32, Option<u64>), bool>,
    /// Paths with every link on their way followed, by the path's bytes (see [`Judge::real`]).
    reals: fast::Map<std::ffi::OsString, PathBuf>,
    /// Folders a write of a plain file (or one not there yet) was judged in and allowed, the
    /// folder itself no link, not managed and not git's: another plain file in one, named like
    /// no managed path and not `.git`, is allowed the same way. Tens of thousands of files cost
    /// a look-up and at most one `lstat` each. With each, the root of its checkout when that
    /// checkout's repository has owned paths, which such a file is still looked up in.
    plain: fast::Map<std::ffi::OsString, Option<PathBuf>>,
}

/// The branches a command checks out, in order, with each `-` or `@{-N}` replaced by the one
/// it names when the command itself checked that one out (or it is `head`, checked out at the
/// start). One that reaches back further stays as written: only git's reflog knows it.
fn previous_resolved(head: Option<&str>, checked_out: &[&str]) -> Vec<String> {
    let mut history: Vec<Option<String>> = vec![head.map(str::to_string)];
    let mut out = Vec::new();
    for c in checked_out {
        let back = match *c {
            "-" => Some(1),
            c => c
                .strip_prefix("@{-")
                .and_then(|n| n.strip_suffix('}'))
                .and_then(|n| n.parse::<usize>().ok()),
        };
        let named = match back {
            Some(n) => history
                .len()
                .checked_sub(1 + n)
                .and_then(|at| history[at].clone()),
            None => Some(c.to_string()),
        };
        out.push(named.clone().unwrap_or_else(|| c.to_string()));
        history.push(named);
    }
    out
}

/// What an effect does, in the words of a block message.
fn said(effect: &Effect) -> String {
    match effect {
        Effect::Runs { program, .. } if program.is_empty() => "the command runs there".to_string(),
        Effect::Runs { dir, program, .. } => format!("`{program}` runs in {}", dir.display()),
        Effect::Enters(dir) => format!("the command enters {}", dir.display()),
        Effect::GitPlace(dir) => format!("git is pointed at {}", dir.display()),
        Effect::Writes { path, by } if by == "the edit" => {
            format!("the action writes {}", path.display())
        }
        Effect::Writes { path, by } => format!("{by} may write {}", path.display()),
        other => format!("{other:?}"),
    }
}

/// The caller's agent process: how to find it, then what was found.
#[derive(Clone, Copy)]
enum Agent {
    Find(fn() -> u32),
    Found(u32),
}

impl Judge<'_, '_> {
    /// Every effect judged in turn, where the agent stands (`cwd`) first.
    fn all(&mut self, cwd: &Path, effects: &[Effect]) -> Decision {
        // The primary of where the agent stands is the one a path may contain.
        match self.place(cwd) {
            Ok(Place::Primary { root }) => {
                self.primaries.push(root.clone());
                self.mine = Some(root.clone());
                self.in_primary = Some(root);
            }
            Ok(Place::Linked { root, primary }) => {
                self.primaries.extend(primary);
                self.mine = Some(root);
            }
            Ok(Place::Outside) => {}
            Err(e) => {
                return Decision::Block(Block::Failed {
                    what: e.to_string(),
                });
            }
        }
        for effect in effects {
            if let Some(block) = self.effect(effect) {
                return Decision::Block(block);
            }
        }
        // Then the trunk, only for a command that writes a branch: where it lands is settled, and
        // a block in the primary keeps its way out.
        let checked_out: Vec<&str> = effects
            .iter()
            .filter_map(|e| match e {
                Effect::ChecksOut(b) => Some(b.as_str()),
                _ => None,
            })
            .collect();
        for effect in effects {
            if let Effect::MovesBranch { dir, branch, by } = effect
                && let Some(block) = self.moves(dir, branch, by, &checked_out)
            {
                return Decision::Block(block);
            }
        }
        Decision::Allow(Why::OutsideOrLinked)
    }
}

impl Judge<'_, '_> {
    /// `path` (absolute, lexically normal) with every link on its way followed, worked out
    /// folder by folder and remembered: a command naming thousands of paths costs one look per
    /// new name, and none for a name its folder's listing shows is not there.
    fn real(&mut self, path: &Path) -> PathBuf {
        if let Some(real) = self.reals.get(path.as_os_str()) {
            return real.clone();
        }
        let real = match (path.parent(), path.file_name()) {
            (Some(parent), Some(name)) => {
                let joined = self.real(parent).join(name);
                if self.listings.absent(&joined) {
                    // Not there: no link to follow, and nothing below it to ask about again.
                    return joined;
                }
                let is_link =
                    std::fs::symlink_metadata(&joined).is_ok_and(|m| m.file_type().is_symlink());
                if is_link {
                    probe::resolve(&joined).unwrap_or(joined)
                } else {
                    joined
                }
            }
            _ => path.to_path_buf(),
        };
        self.reals.insert(path.as_os_str().to_owned(), real.clone());
        real
    }

    fn place(&mut self, path: &Path) -> std::io::Result<Place> {
        if let Some(p) = self.places.get(path.as_os_str()) {
            return Ok(p.clone());
        }
        let p = (self.probe)(path)?;
        if let Place::Primary { root } = &p
            && !self.primaries.contains(root)
        {
            self.primaries.push(root.clone());
        }
        self.places.insert(path.as_os_str().to_owned(), p.clone());
        Ok(p)
    }

    fn effect(&mut self, effect: &Effect) -> Option<Block> {
        let Effect::Writes { path, .. } = effect else {
            return self.judge_effect(effect);
        };
        let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
            return self.judge_effect(effect);
        };
        // Not there yet, or a plain file (no link, no folder, one link to its data): where it
        // lies and what writing it does are its folder's.
        let plain_name = |n: &std::ffi::OsStr| n != ".git" && !managed::may_be_managed(n);
        let plain_file = |judge: &mut Self| {
            use std::os::unix::fs::MetadataExt as _;
            plain_name(name)
                && (judge.listings.absent(path)
                    || std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file() && m.nlink() == 1))
        };
        // The folder it is judged by: its own, or for folders not there yet (`d7/f`), the
        // nearest one on its way that is, when every name between is plain: what the path
        // lands in is that folder's.
        let mut top = dir;
        while self.listings.absent(top) {
            match (top.parent(), top.file_name()) {
                (Some(up), Some(n)) if plain_name(n) => top = up,
                _ => {
                    top = dir;
                    break;
                }
            }
        }
        if let Some(scope) = self.plain.get(top.as_os_str()).cloned()
            && plain_file(self)
        {
            // A plain file's path below a real folder is its real path.
            return scope.and_then(|root| self.owned_in(&root, path, path, effect));
        }
        let mut block = self.judge_effect(effect);
        if block.is_none() {
            block = self.ownership(path, effect);
        }
        // A checkout's own root is no plain file: its folder may hold other checkouts.
        let a_root = matches!(
            self.places.get(path.as_os_str()),
            Some(Place::Primary { root } | Place::Linked { root, .. }) if root == path
        );
        // Judged by a folder further up, it must be in the same place as the path itself.
        let same_place = top == dir || {
            let here = self.places.get(path.as_os_str()).cloned();
            here.is_some() && self.place(top).ok() == here
        };
        if block.is_none()
            && !a_root
            && same_place
            && plain_file(self)
            && self.real(top) == top
            && !top
                .components()
                .any(|c| c.as_os_str() == ".git" || managed::may_be_managed(c.as_os_str()))
        {
            let scope = match self.places.get(path.as_os_str()) {
                Some(Place::Primary { root } | Place::Linked { root, .. })
                    if self.owned.get(root).is_some_and(Option::is_some) =>
                {
                    Some(root.clone())
                }
                _ => None,
            };
            self.plain.insert(top.as_os_str().to_owned(), scope);
        }
        block
    }

    fn judge_effect(&mut self, effect: &Effect) -> Option<Block> {
        // What the effect does, in words, is made only for a block: most effects pass.
        let path = match effect {
            Effect::Unknown(raw) => return Some(Block::Unknown { raw: raw.clone() }),
            Effect::Refused { what, hint } => {
                return Some(Block::Refused {
                    what: what.clone(),
                    hint: hint.clone(),
                });
            }
            Effect::SharedConfig(what) => {
                return Some(Block::SharedConfig { what: what.clone() });
            }
            // Judged by `moves`, once every place is.
            Effect::MovesBranch { .. } | Effect::ChecksOut(_) => return None,
            Effect::Runs { dir, .. } | Effect::Enters(dir) | Effect::GitPlace(dir) => dir,
            Effect::Writes { path, .. } => {
                // Through a link (`cl -> .claude`) the file written is the one it resolves to.
                let real = Some(self.real(path)).filter(|r| r != path);
                let either = |check: &dyn Fn(&Path) -> bool| {
                    check(path) || real.as_deref().is_some_and(check)
                };
                if either(&|p| managed::is_managed(p, self.home)) {
                    return Some(Block::Settings { path: path.clone() });
                }
                // A worktree's `.git` file (or any of git's own files) decides where git works:
                // rewritten, it points git at the primary's repository.
                if either(&|p| p.components().any(|c| c.as_os_str() == ".git")) {
                    return Some(Block::Refused {
                        what: format!("{} is git's own; only git writes it", path.display()),
                        hint: "run the git command that makes the change instead".to_owned(),
                    });
                }
                if !self.listings.absent(path) && hard_linked(path) {
                    return Some(Block::Refused {
                        what: format!(
                            "{} is hard-linked, so writing it may change a file in the primary checkout",
                            path.display()
                        ),
                        hint: format!(
                            "a person gives the worktree its own copy: cp --remove-destination <the \
                             original> {}",
                            path.display()
                        ),
                    });
                }
                path
            }
        };
        let place = match self.place(path) {
            Ok(p) => p,
            Err(e) => {
                return Some(Block::Failed {
                    what: e.to_string(),
                });
            }
        };
        if let Place::Primary { root } = place {
            // Reading the primary from elsewhere is allowed; standing in it, nothing is.
            let reads = matches!(effect, Effect::Runs { reads: true, .. });
            if !(reads && self.in_primary.is_none()) {
                return Some(Block::Primary {
                    root,
                    what: said(effect),
                });
            }
            return None;
        }
        // From the primary, the way out is into a linked worktree, not anywhere else.
        if let Some(root) = &self.in_primary
            && !matches!(place, Place::Linked { .. })
        {
            return Some(Block::Primary {
                root: root.clone(),
                what: format!("{}, which is not a linked worktree", said(effect)),
            });
        }
        // `rm -rf ..` from a worktree beside the primary reaches into it.
        let reaches_in = matches!(effect, Effect::Writes { .. } | Effect::GitPlace(_));
        if reaches_in && let Some(root) = self.primaries.iter().find(|p| p.starts_with(path)) {
            return Some(Block::Primary {
                root: root.clone(),
                what: format!("{}, which holds it", said(effect)),
            });
        }
        // Another live session's worktree is not this agent's to change.
        let writes = reaches_in || matches!(effect, Effect::Runs { reads: false, .. });
        if writes && let Place::Linked { root, .. } = &place {
            return self.foreign(root, effect);
        }
        None
    }

    /// The caller's agent process, looked up the first time it is asked for.
    fn agent_pid(&mut self) -> Option<u32> {
        match self.agent {
            Some(Agent::Find(find)) => {
                let pid = find();
                self.agent = Some(Agent::Found(pid));
                Some(pid)
            }
            Some(Agent::Found(pid)) => Some(pid),
            None => None,
        }
    }

    /// A block when the branch `name` names is checked out in a linked worktree another live
    /// session holds (`Some(None)` when none is, `None` to let `moves` go on).
    fn sibling_branch(&mut self, root: &Path, name: &str, by: &str) -> Option<Option<Block>> {
        let held = match probe::held_branches(root) {
            Ok(held) => held,
            Err(e) => {
                return Some(Some(Block::Failed {
                    what: e.to_string(),
                }));
            }
        };
        let agent = self.agent_pid();
        for (branch, folder, holders) in held {
            if self.cwd.starts_with(&folder) || !names_branch(name, &branch) {
                continue;
            }
            let theirs = holders
                .iter()
                .find(|h| !h.is(self.session.as_deref(), agent));
            if let Some(h) = theirs {
                return Some(Some(Block::Refused {
                    what: format!(
                        "`{by}` moves {branch}, the branch of a worktree another live session holds \
                         ({}, pid {})",
                        h.session, h.pid
                    ),
                    hint: "work on your own branch; ask its holder or the master".to_owned(),
                }));
            }
        }
        None
    }

    /// A block when the linked worktree at `root` is not where the agent stands and another
    /// live session holds it (its claim, or an agent berth launched there).
    fn foreign(&mut self, root: &Path, effect: &Effect) -> Option<Block> {
        if self.cwd.starts_with(root) {
            return None;
        }
        let holder = match self.held.get(root) {
            Some(h) => h.clone(),
            None => {
                let live = match probe::holders(root) {
                    Ok(live) => live,
                    Err(e) => {
                        return Some(Block::Failed {
                            what: e.to_string(),
                        });
                    }
                };
                let agent = self.agent_pid();
                let theirs = live
                    .into_iter()
                    .find(|h| !h.is(self.session.as_deref(), agent));
                self.held.insert(root.to_path_buf(), theirs.clone());
                theirs
            }
        }?;
        Some(Block::Refused {
            what: format!(
                "{}, in the worktree {} that another live session holds ({}, pid {})",
                said(effect),
                root.display(),
                holder.session,
                holder.pid
            ),
            hint: format!(
                "work in your own worktree; to take this one over, ask its holder or the master \
                 (`{} list` shows who holds what)",
                crate::names::TOOL
            ),
        })
    }

    /// `by`, working at `dir`, writes `branch`: blocked when that is the trunk of the
    /// repository there, or the branch its primary checkout has checked out. `checked_out`: the
    /// branches the same command checks out, where what it commits next may land.
    fn moves(&mut self, dir: &Path, branch: &Ref, by: &str, checked_out: &[&str]) -> Option<Block> {
        let failed = |e: std::io::Error| {
            Some(Block::Failed {
                what: e.to_string(),
            })
        };
        let mut place = self.place(dir);
        if matches!(place, Ok(Place::Outside)) && *branch == Ref::Current && !checked_out.is_empty()
        {
            // A worktree the command makes (`git worktree add ../t main && cd ../t && git
            // commit`) is not there yet: its repository is the one the agent stands in.
            let cwd = self.cwd.clone();
            place = self.place(&cwd);
        }
        let (root, primary) = match place {
            Ok(Place::Primary { root }) => (root.clone(), Some(root)),
            Ok(Place::Linked { root, primary }) => (root, primary),
            // Git finds no branches to write there.
            Ok(Place::Outside) => return None,
            Err(e) => return failed(e),
        };
        let b = match self.branches.get(&root) {
            Some(b) => b.clone(),
            None => match probe::branches(&root) {
                Ok(b) => {
                    self.branches.insert(root.clone(), b.clone());
                    b
                }
                Err(e) => return failed(e),
            },
        };
        let trunk = &b.trunk;
        let on_trunk = |name: &str| names_branch(name, trunk);
        // `-` and `@{-N}` the command can answer itself (`git switch -c t && git switch -`).
        let checked_out = previous_resolved(b.head.as_deref(), checked_out);
        let checked_out: Vec<&str> = checked_out.iter().map(String::as_str).collect();
        let trunk_block = |what: String| {
            Some(Block::Trunk {
                trunk: trunk.clone(),
                what,
            })
        };
        if let Ref::Named(name) = branch
            && !on_trunk(name)
            && let Some(block) = self.sibling_branch(&root, name, by)
        {
            return block;
        }
        match branch {
            Ref::All => trunk_block(format!(
                "`{by}` may move every branch, the trunk {trunk} too"
            )),
            Ref::Unknown(raw) => trunk_block(format!(
                "`{by}` writes a branch only the shell knows ({raw}), maybe the trunk {trunk}"
            )),
            Ref::Named(name) if on_trunk(name) => {
                trunk_block(format!("`{by}` moves the trunk {trunk}"))
            }
            Ref::Current if b.head.as_deref().is_some_and(on_trunk) => trunk_block(format!(
                "`{by}` moves the branch checked out in {}, the trunk {trunk}",
                root.display()
            )),
            Ref::Current if checked_out.iter().any(|c| on_trunk(c)) => trunk_block(format!(
                "`{by}` moves the branch the command checks out, the trunk {trunk}"
            )),
            Ref::Current if checked_out.iter().any(|c| shell::names_previous(c)) => {
                trunk_block(format!(
                    "`{by}` moves the branch the command checks out again ({}), which may be \
                     the trunk {trunk}",
                    checked_out
                        .iter()
                        .find(|c| shell::names_previous(c))
                        .unwrap_or(&"-")
                ))
            }
            _ => {
                // The primary checkout's own branch, when the trunk is another one: moved under
                // it, the primary would look as if it had undone work.
                let theirs = b.primary_head.as_deref()?;
                let hit = match branch {
                    Ref::Named(name) => names_branch(name, theirs),
                    Ref::Current => b.head.as_deref() == Some(theirs),
                    _ => false,
                };
                hit.then(|| Block::Primary {
                    root: primary.unwrap_or(root),
                    what: format!(
                        "`{by}` moves {theirs}, the branch it has checked out (it moves only \
                         through review and landing, or by a person)"
                    ),
                })
            }
        }
    }
}

/// A regular file with more than one name: one of them may lie in the primary checkout.
fn hard_linked(path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file() && m.nlink() > 1)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use std::io;
    use std::path::Component;

    pub const PRIMARY: &str = "/repo/primary";
    pub const LINKED: &str = "/repo/linked";
    pub const HOME: &str = "/repo";

    /// A stand-in for the filesystem: `/repo/primary` is a primary checkout (with a linked
    /// worktree nested at `.claude/worktrees/x`), `/repo/linked` a linked worktree,
    /// `/repo/broken` unreadable, everything else outside any repository.
    pub fn fake_probe(path: &Path) -> io::Result<Place> {
        let mut norm = PathBuf::new();
        for c in path.components() {
            match c {
                Component::ParentDir => {
                    norm.pop();
                }
                Component::CurDir => {}
                other => norm.push(other.as_os_str()),
            }
        }
        if norm.starts_with("/repo/primary/.claude/worktrees/x") {
            Ok(Place::Linked {
                root: "/repo/primary/.claude/worktrees/x".into(),
                primary: Some(PRIMARY.into()),
            })
        } else if norm.starts_with(PRIMARY) {
            Ok(Place::Primary {
                root: PRIMARY.into(),
            })
        } else if norm.starts_with(LINKED) {
            Ok(Place::Linked {
                root: LINKED.into(),
                primary: Some(PRIMARY.into()),
            })
        } else if norm.starts_with("/repo/broken") {
            Err(io::Error::new(
                io::ErrorKind::PermissionDenied,
                "cannot read /repo/broken/.git",
            ))
        } else {
            Ok(Place::Outside)
        }
    }

    fn no_hatches() -> Hatches {
        Hatches::default()
    }

    fn run(hatches: &Hatches, action: &Action) -> Decision {
        decide(hatches, action, Some(Path::new(HOME)), &mut fake_probe)
    }

    pub(crate) fn cmd(command: &str, cwd: &str) -> Decision {
        run(&no_hatches(), &Action::command(command, cwd))
    }

    pub(crate) fn blocked(d: &Decision) -> bool {
        matches!(d, Decision::Block(_))
    }

    #[test]
    fn a_mutating_command_in_the_primary_checkout_is_blocked_with_the_way_out() {
        let d = cmd("rm -rf build", PRIMARY);
        let Decision::Block(b) = &d else {
            panic!("{d:?}")
        };
        let msg = b.message();
        assert!(msg.contains("is protected"), "{msg}");
        assert!(msg.contains("blocked"), "{msg}");
        assert!(msg.contains("cd \"$(git berth add agent-"), "{msg}");
        assert!(msg.contains("wt switch -c <branch>"), "{msg}");
    }

    #[test]
    fn a_command_in_a_linked_worktree_is_allowed() {
        assert_eq!(
            cmd("rm -rf build", LINKED),
            Decision::Allow(Why::OutsideOrLinked)
        );
    }

    #[test]
    fn a_command_outside_any_repository_is_allowed() {
        assert_eq!(
            cmd("rm -rf build", "/tmp"),
            Decision::Allow(Why::OutsideOrLinked)
        );
    }

    #[test]
    fn each_hatch_at_exactly_one_allows_in_the_primary_checkout() {
        let a = Hatches {
            allow_main_worktree: Some("1".into()),
            master_session: None,
        };
        let m = Hatches {
            allow_main_worktree: None,
            master_session: Some("1".into()),
        };
        let act = Action::command("rm -rf build", PRIMARY);
        assert_eq!(run(&a, &act), Decision::Allow(Why::AllowMainWorktree));
        assert_eq!(run(&m, &act), Decision::Allow(Why::MasterSession));
    }

    #[test]
    fn the_first_hatch_wins_over_the_second() {
        let both = Hatches {
            allow_main_worktree: Some("1".into()),
            master_session: Some("1".into()),
        };
        assert_eq!(
            run(&both, &Action::command("x", PRIMARY)),
            Decision::Allow(Why::AllowMainWorktree)
        );
    }

    #[test]
    fn garbage_hatch_values_do_not_open_the_primary_checkout() {
        for value in [
            "", "0", "true", "yes", "TRUE", " 1", "1 ", "01", "11", "1\n", "on", "-1", "１",
        ] {
            let h = Hatches {
                allow_main_worktree: Some(value.into()),
                master_session: Some(value.into()),
            };
            assert!(
                blocked(&run(&h, &Action::command("rm -rf build", PRIMARY))),
                "{value:?}"
            );
        }
    }

    #[test]
    fn whitelisted_verbs_are_allowed_in_the_primary_checkout() {
        for c in [
            "wt switch -c feat/x",
            "wt list",
            "git berth add auth",
            "git berth path auth",
            "git berth ls",
        ] {
            assert_eq!(cmd(c, PRIMARY), Decision::Allow(Why::Whitelisted), "{c}");
        }
    }

    #[test]
    fn smuggling_past_the_whitelist_is_blocked() {
        for c in [
            "wt switch foo; rm -rf /",
            "wt switch foo && rm -rf /",
            "wt switch foo | sh",
            "wt switch foo > x",
            "wt switch $(rm -rf /)",
            "wt switch `rm -rf /`",
        ] {
            assert!(blocked(&cmd(c, PRIMARY)), "{c}");
        }
    }

    #[test]
    fn excluded_verbs_are_blocked_in_the_primary_checkout() {
        for c in [
            "wt merge main",
            "wt remove x",
            "git berth remove x",
            "git berth clean",
        ] {
            assert!(blocked(&cmd(c, PRIMARY)), "{c}");
        }
    }

    #[test]
    fn the_empty_command_is_judged_by_where_the_agent_stands() {
        assert!(blocked(&cmd("", PRIMARY)));
        assert_eq!(cmd("", LINKED), Decision::Allow(Why::OutsideOrLinked));
    }

    fn corpus(text: &str) -> Vec<String> {
        text.lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with("# "))
            .map(|l| l.replace("@PRIMARY@", PRIMARY))
            .collect()
    }

    #[test]
    fn every_command_of_the_injection_corpus_is_blocked() {
        let from_primary = corpus(include_str!(
            "../../../tests/fixtures/guard/injection-from-primary.txt"
        ));
        let from_linked = corpus(include_str!(
            "../../../tests/fixtures/guard/injection-from-linked.txt"
        ));
        assert!(
            from_primary.len() + from_linked.len() >= 100,
            "the corpus holds at least 100 commands"
        );
        let mut let_through = Vec::new();
        for c in &from_primary {
            if !blocked(&cmd(c, PRIMARY)) {
                let_through.push(format!("from primary: {c}"));
            }
        }
        for c in &from_linked {
            if !blocked(&cmd(c, LINKED)) {
                let_through.push(format!("from linked: {c}"));
            }
        }
        assert!(
            let_through.is_empty(),
            "let through:\n{}",
            let_through.join("\n")
        );
    }

    #[test]
    fn multi_line_commands_and_heredocs_reaching_the_primary_are_blocked() {
        for c in [
            "ls\ncd /repo/primary\ntouch x",
            "cat > /repo/primary/a <<EOF\nhello\nEOF",
            "echo a \\\n > /repo/primary/a",
            "for f in a b; do\n  cd /repo/primary && touch $f\ndone",
        ] {
            assert!(blocked(&cmd(c, LINKED)), "{c:?}");
        }
    }

    #[test]
    fn an_edit_of_a_file_in_the_primary_is_blocked_even_from_a_linked_worktree() {
        let act = Action::edit(vec!["/repo/primary/src/lib.rs".into()], LINKED);
        let d = run(&no_hatches(), &act);
        let Decision::Block(Block::Primary { root, what }) = &d else {
            panic!("{d:?}")
        };
        assert_eq!(root, Path::new(PRIMARY));
        assert!(what.contains("/repo/primary/src/lib.rs"));
    }

    #[test]
    fn an_edit_of_a_file_in_a_linked_worktree_is_allowed_even_from_the_primary() {
        let act = Action::edit(vec!["/repo/linked/src/lib.rs".into()], PRIMARY);
        assert_eq!(
            run(&no_hatches(), &act),
            Decision::Allow(Why::OutsideOrLinked)
        );
    }

    #[test]
    fn a_relative_edit_path_is_taken_from_where_the_agent_stands() {
        assert!(blocked(&run(
            &no_hatches(),
            &Action::edit(vec!["../primary/a".into()], LINKED)
        )));
        assert!(!blocked(&run(
            &no_hatches(),
            &Action::edit(vec!["src/a".into()], LINKED)
        )));
    }

    #[test]
    fn a_linked_worktree_nested_inside_the_primary_is_still_a_linked_worktree() {
        let act = Action::edit(
            vec!["/repo/primary/.claude/worktrees/x/a.rs".into()],
            PRIMARY,
        );
        assert_eq!(
            run(&no_hatches(), &act),
            Decision::Allow(Why::OutsideOrLinked)
        );
    }

    #[test]
    fn commands_that_stay_out_of_the_primary_are_allowed_from_a_linked_worktree() {
        for c in [
            "cargo test",
            "cd src && cargo test",
            "git -C /repo/linked status",
            "echo x > /tmp/out 2>&1",
            "echo x > /dev/null",
            "cmd >&2",
            "cmd 2>&1 | tee /tmp/log",
            "ls /repo/primary",
            "cat /repo/primary/README.md",
            "git --git-dir=/repo/linked/.git log",
            "echo 'cd /repo/primary && touch x'",
            "echo \"> /repo/primary/a\"",
            "grep -r 'GIT_DIR=/repo/primary' .",
            "cd /repo/primary/.claude/worktrees/x && make",
            "cd \"$(git berth path other)\"",
        ] {
            assert_eq!(cmd(c, LINKED), Decision::Allow(Why::OutsideOrLinked), "{c}");
        }
        // Where any other substitution leads is unknowable: fail closed.
        assert!(blocked(&cmd(
            "cd \"$(git rev-parse --show-toplevel)\"",
            LINKED
        )));
    }

    #[test]
    fn a_command_that_will_not_parse_blocks_even_in_a_linked_worktree() {
        for c in [
            "cd /repo/primary && echo 'unterminated",
            "echo 'unterminated",
        ] {
            let d = cmd(c, LINKED);
            let Decision::Block(b) = &d else {
                panic!("{c}: {d:?}")
            };
            assert!(b.message().contains("cannot read the command"), "{c}");
        }
        assert!(blocked(&cmd("echo 'unterminated", PRIMARY)));
    }

    #[test]
    fn a_probe_error_blocks() {
        let d = cmd("ls", "/repo/broken");
        let Decision::Block(Block::Failed { what }) = &d else {
            panic!("{d:?}")
        };
        assert!(what.contains("/repo/broken"));
        assert!(blocked(&run(
            &no_hatches(),
            &Action::edit(vec!["/repo/broken/a".into()], LINKED)
        )));
    }

    #[test]
    fn an_unknowable_place_blocks_with_a_reason_naming_it() {
        let d = cmd("echo x > \"$LOG\"", LINKED);
        let Decision::Block(b @ Block::Unknown { .. }) = &d else {
            panic!("{d:?}")
        };
        assert!(b.message().contains("$LOG"));
    }

    fn fixture_lines(text: &str) -> Vec<String> {
        corpus(text)
            .into_iter()
            .map(|l| l.replace("@LINKED@", LINKED).replace("\\n", "\n"))
            .collect()
    }

    #[test]
    fn every_attack_of_the_issue_10_classes_is_blocked_from_a_linked_worktree() {
        let attacks = fixture_lines(include_str!(
            "../../../tests/fixtures/guard/attacks-from-linked.txt"
        ));
        assert!(attacks.len() >= 140, "{}", attacks.len());
        let let_through: Vec<&String> = attacks
            .iter()
            .filter(|c| !blocked(&cmd(c, LINKED)))
            .collect();
        assert!(let_through.is_empty(), "let through:\n{let_through:#?}");
    }

    #[test]
    fn ordinary_work_in_a_linked_worktree_and_reading_the_primary_are_allowed() {
        let work = fixture_lines(include_str!(
            "../../../tests/fixtures/guard/ordinary-work.txt"
        ));
        let stopped: Vec<String> = work
            .iter()
            .filter_map(|c| match cmd(c, LINKED) {
                Decision::Allow(_) => None,
                Decision::Block(b) => Some(format!("{c}\n  -> {}", b.message())),
            })
            .collect();
        assert!(stopped.is_empty(), "blocked:\n{}", stopped.join("\n"));
    }

    /// The trunk section of the attack corpus: every line after its `# 9.` header.
    fn trunk_attacks() -> Vec<String> {
        let text = include_str!("../../../tests/fixtures/guard/attacks-from-linked.txt");
        let section = text.split("\n# 9. ").nth(1).expect("the trunk section");
        fixture_lines(section.split_once('\n').expect("its lines").1)
    }

    #[test]
    fn every_trunk_write_of_the_corpus_is_blocked_as_a_trunk_write_from_a_linked_worktree() {
        let attacks = trunk_attacks();
        assert!(attacks.len() >= 50, "{}", attacks.len());
        let wrong: Vec<String> = attacks
            .iter()
            .filter_map(|c| match cmd(c, LINKED) {
                Decision::Block(Block::Trunk { trunk, .. }) if trunk == "main" => None,
                other => Some(format!("{c}\n  -> {other:?}")),
            })
            .collect();
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    }

    #[test]
    fn going_back_to_a_branch_the_command_itself_left_is_that_branch() {
        let r = |head, c: &[&str]| previous_resolved(head, c);
        assert_eq!(r(Some("x"), &["t", "-"]), ["t", "x"]);
        assert_eq!(r(Some("x"), &["-"]), ["-"]);
        assert_eq!(r(None, &["t", "-"]), ["t", "-"]);
        assert_eq!(r(Some("x"), &["t", "u", "@{-2}"]), ["t", "u", "x"]);
        assert_eq!(r(Some("x"), &["t", "@{-2}"]), ["t", "@{-2}"]);
        assert_eq!(r(Some("x"), &["t", "-", "-"]), ["t", "x", "t"]);
    }

    #[test]
    fn a_trunk_write_is_blocked_and_its_hint_never_suggests_approving_or_landing() {
        let Decision::Block(b) = cmd("git push origin HEAD:main", LINKED) else {
            panic!("allowed")
        };
        assert_eq!(
            b.message(),
            "git berth: blocked: `git push origin HEAD:main` moves the trunk main, which moves \
             only when a person or the master lands reviewed work\n\
             hint: commit on your worktree's own branch and tell the master it is ready"
        );
    }

    #[test]
    fn each_hatch_opens_a_trunk_write() {
        for (h, why) in [
            (
                Hatches {
                    allow_main_worktree: Some("1".into()),
                    master_session: None,
                },
                Why::AllowMainWorktree,
            ),
            (
                Hatches {
                    allow_main_worktree: None,
                    master_session: Some("1".into()),
                },
                Why::MasterSession,
            ),
        ] {
            for c in trunk_attacks() {
                assert_eq!(
                    run(&h, &Action::command(&c, LINKED)),
                    Decision::Allow(why),
                    "{c}"
                );
            }
        }
    }

    #[test]
    fn ship_and_review_do_not_pass_the_whitelist_in_the_primary_checkout() {
        // Approving and landing are refused to agents anywhere; looking is not whitelisted.
        for c in [
            "git berth ship",
            "git berth ship auth",
            "git berth ship --all-approved",
            "git berth review approve auth",
        ] {
            let d = cmd(c, PRIMARY);
            assert!(
                matches!(d, Decision::Block(Block::Refused { .. })),
                "{c}: {d:?}"
            );
        }
        let d = cmd("git berth review status", PRIMARY);
        assert!(matches!(d, Decision::Block(Block::Primary { .. })), "{d:?}");
    }

    #[test]
    fn a_block_in_the_primary_keeps_its_way_out_even_for_a_trunk_write() {
        let d = cmd("git push origin main", PRIMARY);
        assert!(matches!(d, Decision::Block(Block::Primary { .. })), "{d:?}");
    }

    #[test]
    fn a_branch_write_outside_any_repository_is_not_judged_as_a_trunk_write() {
        assert_eq!(
            cmd("git branch -f main HEAD", "/tmp"),
            Decision::Allow(Why::OutsideOrLinked)
        );
    }

    #[test]
    fn a_command_all_of_whose_effects_land_in_a_linked_worktree_leaves_the_primary() {
        let out = fixture_lines(include_str!(
            "../../../tests/fixtures/guard/way-out-from-primary.txt"
        ));
        let stopped: Vec<String> = out
            .iter()
            .filter_map(|c| match cmd(c, PRIMARY) {
                Decision::Allow(_) => None,
                Decision::Block(b) => Some(format!("{c}\n  -> {}", b.message())),
            })
            .collect();
        assert!(stopped.is_empty(), "blocked:\n{}", stopped.join("\n"));
    }

    #[test]
    fn the_way_out_in_the_block_message_passes_the_guard_as_printed() {
        let Decision::Block(b) = cmd("npm test", PRIMARY) else {
            panic!("not blocked")
        };
        let msg = b.message();
        let hint = msg
            .split("hint: ")
            .nth(1)
            .and_then(|h| h.split(": ").nth(1))
            .and_then(|h| h.split(" (worktrunk").next())
            .expect("a hint");
        assert!(hint.starts_with("cd \"$(git berth add "), "{hint}");
        assert!(!blocked(&cmd(hint, PRIMARY)), "{hint}");
    }

    #[test]
    fn leaving_the_primary_by_a_cd_that_may_fail_is_blocked() {
        for c in [
            "cd /repo/linked; npm test",
            "cd /repo/linked || npm test",
            "cd /tmp && rm -rf build",
            "cd \"$(git berth add x)\" && npm test",
            "cd /repo/linked && cd /repo/primary && touch x",
            "(cd /repo/linked) && touch x",
            "cd /repo/linked | cat && touch x",
        ] {
            assert!(blocked(&cmd(c, PRIMARY)), "{c}");
        }
    }

    #[test]
    fn a_command_over_the_size_limit_is_blocked_at_once_with_a_reason() {
        let big = format!("echo {}", "a".repeat(MAX_COMMAND_BYTES));
        let d = cmd(&big, LINKED);
        let Decision::Block(b) = &d else {
            panic!("allowed")
        };
        assert!(b.message().contains("KiB"), "{}", b.message());
    }

    #[test]
    fn the_pathological_inputs_of_issue_10_are_decided_quickly() {
        let heredoc = format!("cat <<'EOF'\n{}\nEOF\ntouch PWNED", "$(".repeat(30_000));
        let nested = format!("echo {}", "$(".repeat(30_000));
        let cds = format!("{}touch x", "cd a; ".repeat(400));
        let cds_and = format!("{}touch x", "cd a && ".repeat(400));
        for (c, cwd) in [
            (&heredoc, PRIMARY),
            (&nested, LINKED),
            (&cds, LINKED),
            (&cds_and, LINKED),
            (&heredoc, LINKED),
        ] {
            let t = std::time::Instant::now();
            let d = cmd(c, cwd);
            assert!(t.elapsed().as_millis() < 2000, "{:?}", t.elapsed());
            if cwd == PRIMARY {
                assert!(blocked(&d));
            }
        }
        assert!(blocked(&cmd(&nested, LINKED)));
    }
}
