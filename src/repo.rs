//! Finding the repository as git does (`GIT_DIR`, `GIT_WORK_TREE`, subdirectories, linked
//! worktrees, bare repositories), and what every command needs from it: the common dir, the primary
//! checkout, where the caller stands, and berth's configuration. It never writes.

use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result};

use crate::paths::{data_dir, real_or_same};
use crate::{clock, error, git, names};

// Moved to `paths`; kept here until every caller imports them from there.
use crate::paths::expand_home;

/// Where the caller stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Standing {
    /// In the primary checkout (or one of its subdirectories).
    Primary,
    /// In a linked worktree.
    Linked,
    /// In a bare repository, with no checkout.
    Bare,
}

/// The repository a command works on.
pub struct Context {
    pub repo: gix::Repository,
    /// The common dir, as a real path: every piece of per-repository state is keyed by it.
    pub common_dir: PathBuf,
    /// The primary checkout, or `None` when the main repository is bare.
    pub primary: Option<PathBuf>,
    /// The root of the checkout the caller stands in, if any.
    pub current: Option<PathBuf>,
    pub standing: Standing,
    /// `--session`, when given.
    pub session_flag: Option<String>,
    /// Where status goes: every layer below the command says what it does through this.
    pub ui: crate::ui::Ui,
}

/// Why discovery from `cwd` failed, as a person acts on it: no repository here at all, or one
/// that was found but cannot be read (a config git itself would refuse, a broken `HEAD`).
fn discovery_error(cwd: &Path, err: gix::Error) -> anyhow::Error {
    if none_here(&err) {
        return error::refuse_with_hint(
            format!(
                "not a git repository (or any parent up to /): {}",
                cwd.display()
            ),
            "cd into a repository, or create one with: git init",
        );
    }
    let (reason, _) = error::render(&git::gix_err(err));
    error::refuse_with_hint(
        format!(
            "cannot read the git repository at {}: {reason}",
            cwd.display()
        ),
        "see what git makes of it with: git status",
    )
}

/// The repository git would find from `cwd`, with git's environment applied.
fn found_from(cwd: &Path) -> std::result::Result<gix::Repository, gix::Error> {
    gix::discover_with_environment_overrides_opts(
        cwd,
        Default::default(),
        git::config::open_options(),
    )
}

/// Whether discovery failed because there is no repository here or in any parent at all.
fn none_here(err: &gix::Error) -> bool {
    use gix::discover::upwards::Error as Upwards;
    matches!(
        err.downcast_any_ref::<Upwards>(),
        Some(
            Upwards::NoGitRepository { .. }
                | Upwards::NoGitRepositoryWithinCeiling { .. }
                | Upwards::NoGitRepositoryWithinFs { .. }
        )
    )
}

impl Context {
    /// Discover the repository from the current directory; `None` where neither it nor a parent
    /// is in one (a repository that cannot be read is still an error).
    pub fn discover_any() -> Result<Option<Self>> {
        let cwd = std::env::current_dir().context("cannot read the current directory")?;
        match found_from(&cwd) {
            Ok(repo) => Self::of(repo).map(Some),
            Err(err) if none_here(&err) => Ok(None),
            Err(err) => Err(discovery_error(&cwd, err)),
        }
    }

    /// Discover the repository from the current directory.
    pub fn discover() -> Result<Self> {
        let cwd = std::env::current_dir().context("cannot read the current directory")?;
        Self::discover_from(&cwd)
    }

    pub fn discover_from(cwd: &Path) -> Result<Self> {
        Self::of(found_from(cwd).map_err(|err| discovery_error(cwd, err))?)
    }

    /// What every command needs from the repository discovery found.
    fn of(repo: gix::Repository) -> Result<Self> {
        let common_dir = gix::path::realpath(repo.current_dir().join(repo.common_dir()))
            .context("cannot resolve the repository's common dir")?;
        let current = repo.workdir().map(real_or_same);
        let standing = match (repo.kind(), current.is_some()) {
            (gix::repository::Kind::LinkedWorkTree, _) => Standing::Linked,
            (_, true) => Standing::Primary,
            (_, false) => Standing::Bare,
        };
        let primary = match standing {
            Standing::Primary => current.clone(),
            Standing::Bare => None,
            Standing::Linked => repo
                .main_repo()
                .context("cannot open the main repository")?
                .workdir()
                .map(real_or_same),
        };
        let ui = crate::ui::Ui::detect(|key| config_string(&repo, key));
        Ok(Context {
            repo,
            common_dir,
            primary,
            current,
            standing,
            session_flag: None,
            ui,
        })
    }

    /// The caller's session (`--session`, `BERTH_SESSION`, `<user>@<host>`).
    pub fn session(&self) -> Result<crate::session::Session> {
        crate::session::current(self.session_flag.as_deref())
    }

    /// `berth.claimTtl` in seconds, default 12h; a value that does not read is an error.
    pub fn claim_ttl(&self) -> Result<u64> {
        let raw = self
            .config_string(names::config::CLAIM_TTL)
            .unwrap_or_else(|| names::DEFAULT_CLAIM_TTL.to_owned());
        clock::parse_duration(&raw).ok_or_else(|| {
            error::misconfigured(
                format!("{} is '{raw}', not a duration", names::config::CLAIM_TTL),
                format!("git config {} 12h", names::config::CLAIM_TTL),
            )
        })
    }

    /// A `berth.*` (or any) config value, with `git -c` applied.
    pub fn config_string(&self, key: &str) -> Option<String> {
        config_string(&self.repo, key)
    }

    /// `berth.branchPrefix`, default `berth/`.
    pub fn branch_prefix(&self) -> String {
        self.config_string(names::config::BRANCH_PREFIX)
            .unwrap_or_else(|| names::DEFAULT_BRANCH_PREFIX.to_owned())
    }

    /// The branch work lands on: `berth.trunk`, else the primary checkout's branch, else `main`.
    pub fn trunk(&self) -> String {
        if let Some(trunk) = self.config_string(names::config::TRUNK) {
            return trunk;
        }
        let main = self.repo.main_repo().ok();
        main.as_ref()
            .and_then(|m| m.head_name().ok().flatten())
            .map(|name| name.shorten().to_string())
            .unwrap_or_else(|| names::DEFAULT_TRUNK.to_owned())
    }

    /// The folder that holds this repository's worktrees: `berth.worktreeBase` (relative to the
    /// primary checkout), else `${XDG_DATA_HOME:-~/.local/share}/git-berth/<project>-<hash>`.
    pub fn worktree_base(&self) -> Result<PathBuf> {
        let anchor = self
            .primary
            .clone()
            .unwrap_or_else(|| self.common_dir.clone());
        if let Some(base) = self.config_string(names::config::WORKTREE_BASE) {
            let base = expand_home(&base);
            return Ok(anchor.join(base));
        }
        default_worktree_base(&anchor, &self.common_dir)
    }

    /// The repository's key, `<project>-<hash>` of its common dir: the same from the primary
    /// checkout and from every worktree of it (the MCP tools' `repo_key`, the default worktree
    /// folder's name).
    pub fn repo_key(&self) -> String {
        let anchor = self.primary.as_deref().unwrap_or(&self.common_dir);
        repo_key(anchor, &self.common_dir)
    }

    /// The state folder `<common dir>/berth`.
    pub fn state_dir(&self) -> PathBuf {
        self.common_dir.join(names::STATE_DIR)
    }
}

/// The folder that holds the worktrees of the repository whose primary checkout (or bare
/// repository) is `anchor` and whose common dir is `common_dir`, when `berth.worktreeBase` is
/// unset: `${XDG_DATA_HOME:-~/.local/share}/git-berth/<project>-<hash>`.
pub fn default_worktree_base(anchor: &Path, common_dir: &Path) -> Result<PathBuf> {
    Ok(data_dir()?.join(repo_key(anchor, common_dir)))
}

/// `<project>-<hash>`: the primary checkout's (or bare repository's) folder name and a hash of
/// the common dir.
fn repo_key(anchor: &Path, common_dir: &Path) -> String {
    format!(
        "{}-{}",
        project_name(anchor),
        short_hash(common_dir.as_os_str().as_encoded_bytes())
    )
}

/// The primary checkout's folder name (a bare repository's without `.git`).
fn project_name(anchor: &Path) -> String {
    let name = anchor
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "repo".to_owned());
    let name = name.strip_suffix(".git").unwrap_or(&name).to_owned();
    crate::slug::slug(&name).unwrap_or_else(|_| "repo".to_owned())
}

/// FNV-1a, 32 bits, hex: stable across Rust versions, unlike `DefaultHasher`, so a clone's
/// worktree folder never moves.
pub fn short_hash(bytes: &[u8]) -> String {
    let mut hash: u32 = 0x811c_9dc5;
    for b in bytes {
        hash ^= u32::from(*b);
        hash = hash.wrapping_mul(0x0100_0193);
    }
    format!("{hash:08x}")
}

/// A config value of `repo`, with `git -c` applied; empty is unset.
fn config_string(repo: &gix::Repository, key: &str) -> Option<String> {
    repo.config_snapshot()
        .string(key)
        .map(|v| v.to_string())
        .filter(|v| !v.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_hash_is_stable_and_short() {
        assert_eq!(short_hash(b"/r/.git"), short_hash(b"/r/.git"));
        assert_ne!(short_hash(b"/a/.git"), short_hash(b"/b/.git"));
        assert_eq!(short_hash(b"").len(), 8);
    }

    #[test]
    fn a_bare_repository_is_named_without_its_suffix() {
        assert_eq!(project_name(Path::new("/srv/app.git")), "app");
        assert_eq!(project_name(Path::new("/home/me/my app")), "my-app");
    }
}
