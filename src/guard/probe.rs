//! The filesystem probe: which checkout a path lies in, found by walking up for `.git` and
//! reading the `.git` file and `commondir` by hand. It runs before every tool call of every
//! agent, so it must stay a handful of system calls: never open a repository with gix here.

use std::fs;
use std::io;
use std::path::{Component, Path, PathBuf};

/// Where a path lies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    /// In no git checkout at all.
    Outside,
    /// In a primary checkout (its `.git` is a directory); `root` is that checkout.
    Primary { root: PathBuf },
    /// In a linked worktree (its `.git` is a file); `primary` is the primary checkout when the
    /// common dir is an ordinary `<checkout>/.git`.
    Linked {
        root: PathBuf,
        primary: Option<PathBuf>,
    },
}

/// Which checkout `path` (absolute; it need not exist yet) lies in. Any error reading a `.git`
/// on the way is returned, so the caller can block rather than guess.
pub fn locate(path: &Path) -> io::Result<Place> {
    if !path.is_absolute() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} is not absolute", path.display()),
        ));
    }
    let real = real_path(path)?;
    for dir in real.ancestors() {
        let dot_git = dir.join(".git");
        match fs::metadata(&dot_git) {
            Ok(meta) if meta.is_dir() => {
                return Ok(Place::Primary {
                    root: dir.to_path_buf(),
                });
            }
            Ok(_) => {
                let primary = primary_of_linked(dir, &dot_git)?;
                return Ok(Place::Linked {
                    root: dir.to_path_buf(),
                    primary,
                });
            }
            // ENOTDIR: `dir` is the file being edited, not a directory; keep walking up.
            Err(e)
                if matches!(
                    e.kind(),
                    io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
                ) => {}
            Err(e) => {
                return Err(io::Error::new(
                    e.kind(),
                    format!("cannot read {}: {e}", dot_git.display()),
                ));
            }
        }
    }
    Ok(Place::Outside)
}

/// `path` with symlinks resolved as far as it exists, and `.`/`..` resolved by hand past that,
/// so `linked/../primary/x` and a symlink into the primary both land where the kernel would.
fn real_path(path: &Path) -> io::Result<PathBuf> {
    if let Ok(p) = fs::canonicalize(path) {
        return Ok(p);
    }
    let mut out = PathBuf::new();
    let mut exists = true;
    for comp in path.components() {
        match comp {
            Component::Prefix(_) | Component::RootDir => out.push(comp.as_os_str()),
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(name) => {
                out.push(name);
                if exists {
                    match fs::canonicalize(&out) {
                        Ok(p) => out = p,
                        Err(e)
                            if matches!(
                                e.kind(),
                                io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
                            ) =>
                        {
                            exists = false;
                        }
                        Err(e) => {
                            return Err(io::Error::new(
                                e.kind(),
                                format!("cannot resolve {}: {e}", out.display()),
                            ));
                        }
                    }
                }
            }
        }
    }
    Ok(out)
}

/// Reads `<worktree>/.git` (`gitdir: <admin dir>`) and the admin dir's `commondir` to find the
/// primary checkout. A `.git` file that does not say `gitdir:` is an error: git would refuse
/// it too, and the guard must not call such a place a linked worktree.
fn primary_of_linked(worktree: &Path, dot_git: &Path) -> io::Result<Option<PathBuf>> {
    let text = fs::read_to_string(dot_git)
        .map_err(|e| io::Error::new(e.kind(), format!("cannot read {}: {e}", dot_git.display())))?;
    let Some(gitdir) = text
        .lines()
        .next()
        .and_then(|l| l.strip_prefix("gitdir:"))
        .map(str::trim)
    else {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{} does not name a gitdir", dot_git.display()),
        ));
    };
    if gitdir.is_empty() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{} names an empty gitdir", dot_git.display()),
        ));
    }
    let admin = worktree.join(gitdir);
    let common = match fs::read_to_string(admin.join("commondir")) {
        Ok(c) => admin.join(c.trim()),
        // No commondir: a submodule or `--separate-git-dir` checkout. The seed calls every
        // `.git` file a linked worktree; there is no primary checkout to name.
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) => {
            return Err(io::Error::new(
                e.kind(),
                format!("cannot read {}: {e}", admin.join("commondir").display()),
            ));
        }
    };
    let common = real_path(&common)?;
    Ok(match common.file_name() {
        Some(n) if n == ".git" => common.parent().map(Path::to_path_buf),
        _ => None,
    })
}
