//! The repository's own git hooks that git would run for what berth does. gix runs none, so the
//! `post-checkout` hook after a new worktree is run here, as `git worktree add` runs it.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{Context as _, Result};

use crate::{error, names};

/// The hooks folder: `core.hooksPath` (relative to the worktree, as git resolves it), else
/// `<common dir>/hooks`.
fn hooks_dir(repo: &gix::Repository, common_dir: &Path, worktree: &Path) -> PathBuf {
    match repo.config_snapshot().string("core.hooksPath") {
        Some(path) if !path.is_empty() => {
            let path = PathBuf::from(path.to_string());
            let path = match path.to_str().and_then(|p| p.strip_prefix("~/")) {
                Some(rest) => dirs::home_dir().unwrap_or_default().join(rest),
                None => path,
            };
            worktree.join(path)
        }
        _ => common_dir.join("hooks"),
    }
}

/// Run `post-checkout <null id> <new head> 1` in the new worktree with `GIT_DIR` and
/// `GIT_WORK_TREE` removed, its output on stderr, as git does. A missing or non-executable hook is
/// skipped; a failing one is an error after the worktree exists.
pub fn post_checkout(
    repo: &gix::Repository,
    common_dir: &Path,
    worktree: &Path,
    head: gix::ObjectId,
) -> Result<()> {
    let hook = hooks_dir(repo, common_dir, worktree).join(names::POST_CHECKOUT_HOOK);
    if !is_executable(&hook) {
        return Ok(());
    }
    let null = gix::ObjectId::null(head.kind());
    let status = Command::new(&hook)
        .args([null.to_string(), head.to_string(), "1".to_owned()])
        .current_dir(worktree)
        .env_remove("GIT_DIR")
        .env_remove("GIT_WORK_TREE")
        .stdin(Stdio::null())
        .stdout(std::io::stderr())
        .status()
        .with_context(|| format!("cannot run {}", hook.display()))?;
    if !status.success() {
        return Err(error::refuse_with_hint(
            format!(
                "the post-checkout hook failed ({status}); the worktree {} was created",
                worktree.display()
            ),
            format!("fix {}, or remove the worktree again", hook.display()),
        ));
    }
    Ok(())
}

#[cfg(unix)]
fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt as _;
    path.metadata()
        .is_ok_and(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
}

#[cfg(not(unix))]
fn is_executable(path: &Path) -> bool {
    path.is_file()
}
