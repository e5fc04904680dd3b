//! The hooks in force for a worktree: each local hook, else the project's, read from a commit's
//! tree (a new worktree's base, before anything is made) or from a checkout on disk. A hook is kept
//! as its exact bytes, so what is trusted and run is what was read. A hook that is not a plain
//! file is refused, never followed.

use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};

use crate::git::tree::AtPath;
use anyhow::{Context as _, Result};

use super::write::{checkout_dir, local_dir, parse_command, parse_ports};
use crate::names::MAX_PORTS;
use crate::{error, names};

/// Every hook name, in the order they are listed.
pub const NAMES: [&str; 5] = [
    names::HOOK_SETUP,
    names::HOOK_TEARDOWN,
    names::HOOK_PORTS,
    names::HOOK_SEED,
    names::HOOK_GATE,
];

/// Where a hook in force was read from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    /// `.worktree-hooks/<name>` in the tree of this commit.
    Committed(gix::ObjectId),
    /// `.worktree-hooks/<name>` in a checkout on disk; the path is the file.
    Checkout(PathBuf),
    /// `<common dir>/worktree-hooks/<name>`: the clone's own, always trusted.
    Local(PathBuf),
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Committed(id) => write!(f, "committed at {}", id.to_hex_with_len(7)),
            Source::Checkout(path) => write!(f, "checkout {}", path.display()),
            Source::Local(path) => write!(f, "local {}", path.display()),
        }
    }
}

/// One hook in force: its name (one of [`NAMES`]), its exact bytes, where they came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hook {
    pub name: &'static str,
    pub content: Vec<u8>,
    pub source: Source,
}

impl Hook {
    /// The hook as a person finds it: the file's path, or `.worktree-hooks/<name>` at a commit.
    pub fn location(&self) -> String {
        match &self.source {
            Source::Committed(id) => format!(
                "{}/{} (committed at {})",
                names::HOOKS_DIR,
                self.name,
                id.to_hex_with_len(7)
            ),
            Source::Checkout(path) | Source::Local(path) => path.display().to_string(),
        }
    }

    pub fn is_local(&self) -> bool {
        matches!(self.source, Source::Local(_))
    }

    /// Setup, teardown and gate are run (and trusted); ports and seed are only read.
    pub fn is_script(&self) -> bool {
        self.name == names::HOOK_SETUP
            || self.name == names::HOOK_TEARDOWN
            || self.name == names::HOOK_GATE
    }

    /// The command of a hook [`install`](super::write::install) wrote, or `None` for one written
    /// another way.
    pub fn command(&self) -> Option<String> {
        parse_command(&self.content)
    }

    /// The number a `ports` hook holds; bad content is an error naming the file.
    pub fn ports(&self) -> Result<u16> {
        let text = std::str::from_utf8(&self.content).unwrap_or("\u{fffd}");
        parse_ports(text).map_err(|reason| {
            error::misconfigured(
                format!("bad ports hook {}: {reason}", self.location()),
                format!(
                    "write one whole number from 1 to {MAX_PORTS} into it, or run `{} install --ports <n>`",
                    names::TOOL
                ),
            )
        })
    }

    /// The content's git blob id, the same as `git hash-object` gives for the file.
    pub fn hash(&self) -> Result<gix::ObjectId> {
        content_hash(&self.content)
    }
}

/// The hooks in force for one worktree; a missing hook means the project has none of that kind.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Hooks {
    pub setup: Option<Hook>,
    pub teardown: Option<Hook>,
    pub ports: Option<Hook>,
    pub seed: Option<Hook>,
    /// What `ship` runs on a landing's candidate.
    pub gate: Option<Hook>,
}

impl Hooks {
    pub fn get(&self, name: &str) -> Option<&Hook> {
        self.iter().find(|h| h.name == name)
    }

    /// The hooks present, in the order of [`NAMES`].
    pub fn iter(&self) -> impl Iterator<Item = &Hook> {
        [
            &self.setup,
            &self.teardown,
            &self.ports,
            &self.seed,
            &self.gate,
        ]
        .into_iter()
        .flatten()
    }

    /// The number of ports the project asks for, if it asks.
    pub fn ports(&self) -> Result<Option<u16>> {
        self.ports.as_ref().map(Hook::ports).transpose()
    }

    fn set(&mut self, hook: Hook) {
        let slot = match hook.name {
            names::HOOK_SETUP => &mut self.setup,
            names::HOOK_TEARDOWN => &mut self.teardown,
            names::HOOK_PORTS => &mut self.ports,
            names::HOOK_GATE => &mut self.gate,
            _ => &mut self.seed,
        };
        *slot = Some(hook);
    }
}

/// Where the project's hooks are read from.
#[derive(Clone, Copy)]
pub enum Origin<'a> {
    /// The committed content at a commit: a new worktree's base, read before anything is made.
    Commit(&'a gix::Repository, gix::ObjectId),
    /// A checkout on disk, as it is now (see [`teardown_checkout`]).
    Checkout(&'a Path),
}

/// The hooks in force: each local hook in `<common dir>/worktree-hooks`, else the project's.
/// The two sets hold the same hooks, byte for byte (the checkout's and a commit's: when they
/// differ, hooks were changed and not committed).
pub fn same_committed(a: &Hooks, b: &Hooks) -> bool {
    NAMES
        .iter()
        .all(|name| a.get(name).map(|h| &h.content) == b.get(name).map(|h| &h.content))
}

pub fn in_force(common_dir: &Path, origin: Origin<'_>) -> Result<Hooks> {
    let tree = match origin {
        Origin::Commit(repo, commit) => Some(commit_tree(repo, commit)?),
        Origin::Checkout(_) => None,
    };
    let mut hooks = Hooks::default();
    for name in NAMES {
        let hook = match local(common_dir, name)? {
            Some(hook) => Some(hook),
            None => match (origin, &tree) {
                (Origin::Commit(_, commit), Some(tree)) => in_tree(tree, &commit, name)?,
                (Origin::Checkout(checkout), _) => in_checkout(checkout, name)?,
                (Origin::Commit(..), None) => None,
            },
        };
        if let Some(hook) = hook {
            hooks.set(hook);
        }
    }
    Ok(hooks)
}

/// Where teardown is read: the worktree while its folder exists, else the primary checkout.
pub fn teardown_checkout<'a>(worktree: &'a Path, primary: &'a Path) -> &'a Path {
    if worktree.is_dir() { worktree } else { primary }
}

/// The local hook `name`, if the clone has one. A symlink is followed: the file is the user's.
pub fn local(common_dir: &Path, name: &'static str) -> Result<Option<Hook>> {
    let path = local_dir(common_dir).join(name);
    let content = match fs::read(&path) {
        Ok(content) => content,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    Ok(Some(Hook {
        name,
        content,
        source: Source::Local(path),
    }))
}

/// The hook `name` in a checkout on disk. It must be a plain file, as it must be when committed.
pub fn in_checkout(checkout: &Path, name: &'static str) -> Result<Option<Hook>> {
    let path = checkout_dir(checkout).join(name);
    let meta = match fs::symlink_metadata(&path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", path.display())),
    };
    if !meta.is_file() {
        return Err(not_a_file(&path.display().to_string()));
    }
    let content = fs::read(&path).with_context(|| format!("cannot read {}", path.display()))?;
    Ok(Some(Hook {
        name,
        content,
        source: Source::Checkout(path),
    }))
}

/// The hook `name` as committed at `commit`, without touching any checkout.
pub fn committed(
    repo: &gix::Repository,
    commit: gix::ObjectId,
    name: &'static str,
) -> Result<Option<Hook>> {
    in_tree(&commit_tree(repo, commit)?, &commit, name)
}

fn commit_tree(repo: &gix::Repository, commit: gix::ObjectId) -> Result<gix::Tree<'_>> {
    crate::git::tree::of_commit(repo, commit)
}

fn in_tree(
    tree: &gix::Tree<'_>,
    commit: &gix::ObjectId,
    name: &'static str,
) -> Result<Option<Hook>> {
    let relative = format!("{}/{name}", names::HOOKS_DIR);
    match crate::git::tree::file_at(tree, &relative, commit)? {
        AtPath::Missing => Ok(None),
        AtPath::NotAFile => Err(not_a_file(&format!(
            "{relative} (committed at {})",
            commit.to_hex_with_len(7)
        ))),
        AtPath::File(content) => Ok(Some(Hook {
            name,
            content,
            source: Source::Committed(*commit),
        })),
    }
}

fn not_a_file(what: &str) -> anyhow::Error {
    error::misconfigured(
        format!("hook {what} is not a plain file"),
        format!(
            "make it a file (a symlink or folder is never read), or run `{} install`",
            names::TOOL
        ),
    )
}

/// The git blob id of `content` (SHA-1): the hash trust records.
pub fn content_hash(content: &[u8]) -> Result<gix::ObjectId> {
    crate::git::tree::blob_id(content)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hooks::install;
    use crate::hooks::testing::scratch;

    fn git(dir: &Path, args: &[&str]) {
        crate::testing::git(dir, args);
    }

    #[test]
    fn a_local_hook_replaces_the_committed_one_of_its_name() {
        let dir = scratch("local");
        let repo_dir = dir.join("repo");
        fs::create_dir_all(&repo_dir).unwrap();
        git(&repo_dir, &["init", "-q"]);
        install(
            &checkout_dir(&repo_dir),
            Some("committed setup"),
            Some("committed down"),
            Some(20),
        )
        .unwrap();
        fs::write(checkout_dir(&repo_dir).join("seed"), ".env\n").unwrap();
        git(&repo_dir, &["add", "."]);
        git(&repo_dir, &["commit", "-q", "-m", "hooks"]);
        // A later change on disk is not what is committed.
        install(&checkout_dir(&repo_dir), Some("uncommitted"), None, None).unwrap();
        let repo = gix::open(&repo_dir).unwrap();
        let head = repo.head_id().unwrap().detach();
        let common = repo_dir.join(".git");
        install(&local_dir(&common), Some("local setup"), None, Some(5)).unwrap();

        let hooks = in_force(&common, Origin::Commit(&repo, head)).unwrap();
        let setup = hooks.setup.as_ref().unwrap();
        assert_eq!(setup.command().as_deref(), Some("local setup"));
        assert_eq!(
            setup.source,
            Source::Local(local_dir(&common).join("setup"))
        );
        let teardown = hooks.teardown.as_ref().unwrap();
        assert_eq!(teardown.command().as_deref(), Some("committed down"));
        assert_eq!(teardown.source, Source::Committed(head));
        assert!(
            teardown
                .location()
                .starts_with(".worktree-hooks/teardown (committed at ")
        );
        assert_eq!(hooks.ports().unwrap(), Some(5));
        assert_eq!(hooks.seed.as_ref().unwrap().content, b".env\n");

        let on_disk = in_force(&common, Origin::Checkout(&repo_dir)).unwrap();
        assert_eq!(
            on_disk.setup.unwrap().command().as_deref(),
            Some("local setup")
        );
        let teardown = on_disk.teardown.unwrap();
        assert_eq!(
            teardown.source,
            Source::Checkout(checkout_dir(&repo_dir).join("teardown"))
        );
        assert_eq!(
            committed(&repo, head, names::HOOK_SETUP)
                .unwrap()
                .unwrap()
                .command()
                .as_deref(),
            Some("committed setup")
        );
        // The trusted hash is git's own blob id.
        let blob = repo
            .head_commit()
            .unwrap()
            .tree()
            .unwrap()
            .lookup_entry_by_path(".worktree-hooks/teardown")
            .unwrap()
            .unwrap()
            .object_id();
        assert_eq!(teardown.hash().unwrap(), blob);
    }

    #[test]
    fn a_project_without_hooks_has_none_in_force() {
        let dir = scratch("none");
        let hooks = in_force(&dir.join(".git"), Origin::Checkout(&dir)).unwrap();
        assert_eq!(hooks, Hooks::default());
        assert_eq!(hooks.ports().unwrap(), None);
    }

    #[test]
    fn teardown_is_read_from_the_primary_once_the_worktree_is_gone() {
        let dir = scratch("teardown-from");
        let primary = dir.join("primary");
        let worktree = dir.join("wt");
        fs::create_dir_all(&primary).unwrap();
        assert_eq!(teardown_checkout(&worktree, &primary), primary.as_path());
        fs::create_dir_all(&worktree).unwrap();
        assert_eq!(teardown_checkout(&worktree, &primary), worktree.as_path());
    }

    #[test]
    fn a_symlinked_hook_in_a_checkout_is_refused() {
        let dir = scratch("symlink");
        fs::create_dir_all(checkout_dir(&dir)).unwrap();
        std::os::unix::fs::symlink("/etc/hostname", checkout_dir(&dir).join("setup")).unwrap();
        let err = in_checkout(&dir, names::HOOK_SETUP).unwrap_err();
        let kind = crate::error::kind(&err);
        assert_eq!(kind, crate::error::Kind::Configuration, "{err}");
        assert!(err.to_string().contains("not a plain file"), "{err}");
    }
}
