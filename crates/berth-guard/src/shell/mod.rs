//! Where a shell command's effects land: the directories each program runs in, the folders the
//! shell enters, the files redirections write, the paths programs that may write are handed,
//! and the repositories git is pointed at. It reads the text only (through `scan`); whatever
//! depends on the running shell is reported as unknown, so the decision can fail closed. Every
//! path is bounded: one walk over the scanned text, at most [`MAX_DIRS`] possible directories.

mod berth;
mod branches;
mod git;
mod git_programs;
mod history;
mod links;
mod nested;
mod places;
mod positional;
mod programs;
mod runners;
mod taint;
mod walker;
mod words;
mod xargs;

use std::path::{Path, PathBuf};

use super::scan::{self, NotShell};
use walker::Walk;

/// More possible current directories than this and the command is too tangled to follow.
pub const MAX_DIRS: usize = 16;

/// A directory the shell may be in.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Dir {
    Path(PathBuf),
    /// A worktree berth itself named (`cd "$(git berth path x)"`): managed, so linked.
    Berth(String),
}

/// One thing the command does that the decision must judge.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    /// `program` runs with `dir` as its working directory; `reads` when it only reads there.
    Runs {
        dir: PathBuf,
        program: String,
        reads: bool,
    },
    /// The shell enters `dir` (`cd`, `pushd`) and stays there for what follows.
    Enters(PathBuf),
    /// `by` may write `path`: a redirection's file, or a path handed to a program that can write.
    Writes { path: PathBuf, by: String },
    /// Git is pointed at this repository or work tree (`--git-dir`, `GIT_WORK_TREE`, ...).
    GitPlace(PathBuf),
    /// Configuration every worktree shares, which could send git into the primary.
    SharedConfig(String),
    /// Git, working on the checkout at `dir`, moves (or deletes, renames, pushes to, fetches
    /// into) `branch`.
    MovesBranch {
        dir: PathBuf,
        branch: Ref,
        by: String,
    },
    /// Git checks this branch out somewhere (`git checkout x`, `git worktree add p x`): what
    /// the same command commits afterwards may land on it.
    ChecksOut(String),
    /// A place or program only the running shell knows.
    Unknown(String),
    /// Refused for a reason of the guard's own, which no way out of the primary answers: code
    /// it cannot read would run (configuration from another file, a folder of hooks), or an
    /// agent would approve or land work. `what` says what, `hint` the way forward.
    Refused { what: String, hint: String },
}

/// Paths hash by their bytes, not component by component as `Path` does: a command naming tens
/// of thousands of them is deduplicated in a fraction of the time. Two equal paths spelled apart
/// (`a//b`, `a/b`) only hash apart, and are then judged twice.
impl std::hash::Hash for Effect {
    fn hash<H: std::hash::Hasher>(&self, h: &mut H) {
        let path = |p: &PathBuf, h: &mut H| p.as_os_str().as_encoded_bytes().hash(h);
        std::mem::discriminant(self).hash(h);
        match self {
            Effect::Runs {
                dir,
                program,
                reads,
            } => {
                path(dir, h);
                program.hash(h);
                reads.hash(h);
            }
            Effect::Enters(p) | Effect::GitPlace(p) => path(p, h),
            Effect::Writes { path: p, by } => {
                path(p, h);
                by.hash(h);
            }
            Effect::MovesBranch { dir, branch, by } => {
                path(dir, h);
                branch.hash(h);
                by.hash(h);
            }
            Effect::SharedConfig(t) | Effect::ChecksOut(t) | Effect::Unknown(t) => t.hash(h),
            Effect::Refused { what, hint } => {
                what.hash(h);
                hint.hash(h);
            }
        }
    }
}

/// A branch a git command writes.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Ref {
    /// Named in the command (`main`, `refs/heads/main`, `heads/*`): a refspec's destination, a
    /// branch to delete, reset or rename.
    Named(String),
    /// Every branch (`push --all`, `update-ref --stdin`, `filter-branch`).
    All,
    /// The branch checked out where git works (`commit`, `merge`, `reset`, a bare `push`).
    Current,
    /// A branch only the running shell knows (`git push origin "$B"`), shown as written.
    Unknown(String),
}

/// Does the branch name or refspec pattern `named` (`main`, `heads/main`, `refs/heads/*`)
/// name the branch `branch`? A pattern holds at most one `*`, as in git's refspecs.
pub fn names_branch(named: &str, branch: &str) -> bool {
    let full = |n: &str| -> String {
        if n.starts_with("refs/") {
            n.to_string()
        } else if n.starts_with("heads/") {
            format!("refs/{n}")
        } else {
            format!("refs/heads/{n}")
        }
    };
    let (pattern, target) = (full(named), format!("refs/heads/{branch}"));
    match pattern.split_once('*') {
        Some((pre, post)) => {
            target.len() >= pre.len() + post.len()
                && target.starts_with(pre)
                && target.ends_with(post)
        }
        None => pattern == target,
    }
}

/// `-` and `@{-N}`: a branch checked out before, which only git's reflog knows.
pub fn names_previous(named: &str) -> bool {
    named == "-" || named.starts_with("@{-")
}

/// What the guard knows of the agent's shell: its home and its `CDPATH`.
#[derive(Debug, Clone, Copy, Default)]
pub struct Env<'a> {
    pub home: Option<&'a Path>,
    pub cdpath: Option<&'a str>,
    /// Who asks: the caller's session id (`BERTH_SESSION`), when set, and how to find its agent
    /// process (looked up only when a write lands in another linked worktree). A worktree they
    /// hold is theirs; one another live session holds is not.
    pub session: Option<&'a str>,
    pub agent: Option<fn() -> u32>,
    /// The process ends right after this decision (the `guard` command): the tables built for
    /// it are left for the exit to free, which for a command naming tens of thousands of paths
    /// is a tenth of the time.
    pub exits: bool,
}

/// Every effect of `command` run from `cwd`. An error means bash would not run the text as
/// written (or it nests too deep to follow): the caller blocks.
pub fn effects(command: &str, cwd: &Path, env: Env<'_>) -> Result<Vec<Effect>, NotShell> {
    let toks = scan::scan(command, 0)?;
    let mut walk = Walk::new(env, cwd);
    walk.taint(&toks);
    if let Some(what) = walk.redefines.take() {
        walk.unknown(what);
        return Ok(walk.effects);
    }
    walk.list(&toks);
    if walk.commands == 0 && walk.effects.is_empty() {
        // Nothing runs at all (an empty command, a comment): judged where the agent stands.
        walk.emit(Effect::Runs {
            dir: cwd.to_path_buf(),
            program: String::new(),
            reads: false,
        });
    }
    let effects = std::mem::take(&mut walk.effects);
    if walk.env.exits {
        std::mem::forget(walk);
        std::mem::forget(toks);
    }
    Ok(effects)
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(super) fn fx(cmd: &str) -> Vec<Effect> {
        let env = Env {
            home: Some(Path::new("/home/u")),
            ..Env::default()
        };
        effects(cmd, Path::new("/w"), env).expect("reads as shell")
    }

    pub(super) fn runs(dir: &str, program: &str, reads: bool) -> Effect {
        Effect::Runs {
            dir: dir.into(),
            program: program.into(),
            reads,
        }
    }

    pub(super) fn writes(path: &str, by: &str) -> Effect {
        Effect::Writes {
            path: path.into(),
            by: by.into(),
        }
    }

    #[test]
    fn a_refspec_pattern_names_the_branches_it_matches() {
        for (named, yes) in [
            ("main", true),
            ("heads/main", true),
            ("refs/heads/main", true),
            ("refs/heads/*", true),
            ("refs/*", true),
            ("refs/heads/ma*", true),
            ("*", true),
            ("refs/heads/m*x", false),
            ("refs/remotes/origin/main", false),
            ("refs/for/main", false),
            ("mainline", false),
            ("berth/main", false),
        ] {
            assert_eq!(names_branch(named, "main"), yes, "{named}");
        }
    }
}
