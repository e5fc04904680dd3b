//! The repositories a fleet's manifest names with `repo` / `repos`: this repository, or another
//! one, cloned once into `<data dir>/clones/<hash>/` (the hash of its URL as written, normalized)
//! and reused by every later fleet. A clone is a repository like any other: its worktrees and
//! its registry live in its own common dir, so a [`Context`] opened on it does the usual work.

use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result};

use crate::names;
use crate::repo::Context;

/// One agent's worktree in one repository.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct RepoAt {
    /// The repository as the manifest wrote it; none for this repository by omission.
    pub written: Option<String>,
    /// The clone berth keeps of another repository; none for this repository.
    pub clone: Option<PathBuf>,
    /// The worktree's folder, as it will be made.
    pub path: PathBuf,
}

/// Whether `repo` is written as a URL (`scheme://...` or scp-like `user@host:path`) rather than
/// a local path.
fn is_url(repo: &str) -> bool {
    if repo.contains("://") {
        return true;
    }
    match repo.split_once(':') {
        Some((host, _)) => !host.is_empty() && !host.contains('/'),
        None => false,
    }
}

/// `repo` as berth hashes it: trimmed, a `file://` URL taken as its path, a local path made
/// absolute (relative to `cwd`), without a trailing `/` or `.git`.
pub fn normalize(repo: &str, cwd: &Path) -> String {
    let repo = repo.trim();
    let repo = repo.strip_prefix("file://").unwrap_or(repo);
    let repo = if is_url(repo) {
        repo.to_owned()
    } else {
        cwd.join(repo).display().to_string()
    };
    let repo = repo.trim_end_matches('/');
    repo.strip_suffix(".git").unwrap_or(repo).to_owned()
}

/// What `git clone` is given for `repo`: a local path made absolute, a URL as written.
pub fn source(repo: &str, cwd: &Path) -> String {
    let repo = repo.trim();
    if is_url(repo) {
        repo.to_owned()
    } else {
        cwd.join(repo).display().to_string()
    }
}

/// The folder berth's clone of `repo` lives in (or will): `<data>/clones/<hash>`.
pub fn folder(data: &Path, repo: &str, cwd: &Path) -> PathBuf {
    data.join(names::CLONES_DIR)
        .join(crate::repo::short_hash(normalize(repo, cwd).as_bytes()))
}

/// Whether `given` names the repository one of `known`'s spellings names: the same text, the
/// same URL up to a trailing `.git` or `/`, or the same folder on disk.
pub fn names_this(known: &[String], given: &str, cwd: &Path) -> bool {
    let norm = |s: &str| {
        let s = s.trim().trim_end_matches('/');
        s.strip_suffix(".git").unwrap_or(s).to_owned()
    };
    if known.iter().any(|k| norm(k) == norm(given)) {
        return true;
    }
    let given = given.trim();
    let given = given.strip_prefix("file://").unwrap_or(given);
    if is_url(given) {
        return false;
    }
    let Ok(real) = gix::path::realpath(cwd.join(given)) else {
        return false;
    };
    known
        .iter()
        .filter_map(|k| gix::path::realpath(k).ok())
        .any(|k| k == real)
}

/// Clone `repo` into `folder` unless a clone is there already. The clone is made beside it
/// under a temporary name and moved into place, so a clone cut short is never taken for one.
pub fn ensure(repo: &str, folder: &Path, cwd: &Path) -> Result<()> {
    if folder.join(".git").is_dir() {
        return Ok(());
    }
    let parent = folder
        .parent()
        .context("a clone's folder has no parent folder")?;
    std::fs::create_dir_all(parent)
        .with_context(|| format!("cannot create {}", parent.display()))?;
    let name = folder
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let part = parent.join(format!(".{name}.part-{}", std::process::id()));
    if part.exists() {
        std::fs::remove_dir_all(&part)
            .with_context(|| format!("cannot remove {}", part.display()))?;
    }
    crate::git::program::clone(&source(repo, cwd), &part)?;
    match std::fs::rename(&part, folder) {
        Ok(()) => Ok(()),
        // Another fleet cloned it meanwhile: theirs is the clone.
        Err(_) if folder.join(".git").is_dir() => {
            let _ = std::fs::remove_dir_all(&part);
            Ok(())
        }
        Err(e) => Err(e).with_context(|| format!("cannot move the clone to {}", folder.display())),
    }
}

/// A context on `clone` (or on `ctx`'s repository when `clone` is none), with `ctx`'s session
/// and output.
pub fn open(ctx: &Context, clone: Option<&Path>) -> Result<Context> {
    let mut opened = match clone {
        Some(folder) => Context::discover_from(folder)?,
        None => Context {
            repo: ctx.repo.clone(),
            common_dir: ctx.common_dir.clone(),
            primary: ctx.primary.clone(),
            current: ctx.current.clone(),
            standing: ctx.standing,
            session_flag: None,
            ui: ctx.ui.clone(),
        },
    };
    opened.session_flag = ctx.session_flag.clone();
    opened.ui = ctx.ui.clone();
    Ok(opened)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_and_paths_normalize_to_one_spelling() {
        let cwd = Path::new("/w");
        assert_eq!(normalize("git@h:o/a.git", cwd), "git@h:o/a");
        assert_eq!(normalize("https://h/o/a/", cwd), "https://h/o/a");
        assert_eq!(normalize("file:///r/a.git", cwd), "/r/a");
        assert_eq!(
            folder(cwd, "file:///r/a.git", cwd),
            folder(cwd, "/r/a", cwd)
        );
        assert_eq!(normalize("a.git", cwd), "/w/a");
        assert_eq!(normalize("/r/a.git/", cwd), "/r/a");
        assert_eq!(folder(cwd, "a.git", cwd), folder(cwd, "/w/a", cwd));
        assert_ne!(folder(cwd, "/w/a", cwd), folder(cwd, "/w/b", cwd));
    }

    #[test]
    fn this_repository_is_known_by_its_url_and_by_its_folder() {
        let dir = std::env::temp_dir();
        let known = vec!["git@h:o/app.git".to_owned(), dir.display().to_string()];
        let cwd = Path::new("/");
        assert!(names_this(&known, "git@h:o/app", cwd));
        assert!(names_this(&known, &format!("{}/", dir.display()), cwd));
        assert!(names_this(
            &known,
            &format!("file://{}", dir.display()),
            cwd
        ));
        assert!(!names_this(&known, "git@h:o/web.git", cwd));
        assert!(!names_this(&known, "/no/such/folder", cwd));
    }
}
