//! The filesystem probe: which checkout a path lies in, found by resolving the path's links by
//! hand and walking up for `.git`, whose file, admin folder and config are read by hand. It runs
//! before every tool call of every agent, so it must stay a handful of system calls: never open a
//! repository with gix here, and never trust a `.git` file that its admin folder does not claim.

use std::ffi::{OsStr, OsString};
use std::fs;
use std::io::{self, Read as _};
use std::os::unix::ffi::OsStrExt as _;
use std::os::unix::fs::OpenOptionsExt as _;
use std::path::{Component, Path, PathBuf};

use rustix::fs::OFlags;

/// Where a path lies.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    /// In no git checkout at all.
    Outside,
    /// In a primary checkout; `root` is that checkout. Its `.git` is a directory, or a `.git`
    /// file naming a repository that is no worktree's admin folder and sets no `core.worktree`
    /// (`git init --separate-git-dir`): that checkout is the repository's main worktree.
    Primary { root: PathBuf },
    /// In a linked worktree or a submodule: its `.git` is a file that the admin folder it names
    /// points back at. `primary` is the primary checkout when the common dir is an ordinary
    /// `<checkout>/.git`.
    Linked {
        root: PathBuf,
        primary: Option<PathBuf>,
    },
}

/// Which checkout `path` (absolute; it need not exist yet) lies in. A `.git` file that its admin
/// folder does not point back at is ignored, as if it were not there, so a copied or forged one
/// cannot turn part of a primary checkout into a linked worktree. Any error reading a `.git` on
/// the way is returned, so the caller can block rather than guess.
pub fn locate(path: &Path) -> io::Result<Place> {
    let real = resolve(path)?;
    for dir in real.ancestors() {
        let dot_git = dir.join(".git");
        match fs::metadata(&dot_git) {
            Ok(meta) if meta.is_dir() => {
                return Ok(Place::Primary {
                    root: dir.to_path_buf(),
                });
            }
            Ok(_) => match read_git_file(dir, &dot_git)? {
                GitFile::Linked { primary } => {
                    return Ok(Place::Linked {
                        root: dir.to_path_buf(),
                        primary,
                    });
                }
                GitFile::MainWorktree => {
                    return Ok(Place::Primary {
                        root: dir.to_path_buf(),
                    });
                }
                GitFile::Untrusted => {}
            },
            // ENOTDIR: `dir` is the file being edited, not a directory; keep walking up.
            Err(e) if is_missing(&e) => {}
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

/// How many symlinks one resolution follows before it calls the path a loop, as Linux does.
const MAX_HOPS: usize = 40;

/// One piece of a path still to walk.
enum Step {
    /// The root (`/`), from the path or from an absolute link's target.
    Root(OsString),
    Up,
    Name(OsString),
}

/// [`locate`] for many paths of one command: a path whose parent was located already, and
/// which is itself no link and no checkout of its own (it does not exist, is a file, or is a
/// folder without a `.git`), lies where its parent lies. One `lstat` instead of a walk, so a
/// command naming thousands of paths stays fast.
#[derive(Default)]
pub struct Locator {
    /// Keyed by the path's bytes: hashing a `Path` walks its components, too slow for thousands.
    known: crate::fast::Map<std::ffi::OsString, Place>,
    listings: Listings,
    /// Paths found not to exist: nothing below them does either.
    missing: crate::fast::Set<std::ffi::OsString>,
}

/// How many folders up a path may climb to reach a located one before a full walk is cheaper.
const INHERIT_DEPTH: usize = 8;

impl Locator {
    pub fn locate(&mut self, path: &Path) -> io::Result<Place> {
        if let Some(p) = self.known.get(path.as_os_str()) {
            return Ok(p.clone());
        }
        // The folders between `path` and the nearest located ancestor, nearest last.
        let mut chain = vec![path];
        let mut up = path.parent();
        let mut from = None;
        while let Some(dir) = up {
            if let Some(p) = self.known.get(dir.as_os_str()) {
                from = Some(p.clone());
                break;
            }
            if chain.len() >= INHERIT_DEPTH {
                break;
            }
            chain.push(dir);
            up = dir.parent();
        }
        if let Some(place) = from {
            let mut inherited = true;
            // Below a folder that does not exist, nothing does: no need to look.
            let mut missing = chain
                .last()
                .and_then(|top| top.parent())
                .is_some_and(|p| self.missing.contains(p.as_os_str()));
            // The folders above `path` are kept for the paths that follow; `path` itself (most
            // often a file that is not there yet) is not, so thousands of them cost no memory.
            for (at, p) in chain.iter().enumerate().rev() {
                let keep = at > 0;
                if missing {
                    if keep {
                        self.missing.insert(p.as_os_str().to_owned());
                    }
                } else {
                    let seen = if self.listings.absent(p) {
                        Some(true)
                    } else {
                        lies_with_parent(p)
                    };
                    match seen {
                        Some(gone) => {
                            missing = gone;
                            if gone && keep {
                                self.missing.insert(p.as_os_str().to_owned());
                            }
                        }
                        None => {
                            inherited = false;
                            break;
                        }
                    }
                }
                if keep {
                    self.known.insert(p.as_os_str().to_owned(), place.clone());
                }
            }
            if inherited {
                return Ok(place);
            }
        }
        let place = locate(path)?;
        self.known
            .insert(path.as_os_str().to_owned(), place.clone());
        Ok(place)
    }
}

/// After this many paths looked up in one folder, its names are read once instead.
const LIST_AFTER: u32 = 8;

/// More names than this in a folder and it is not read whole: each path is looked up.
const LIST_AT_MOST: usize = 65_536;

/// The names in folders where a command names many paths, read once per folder: telling that
/// thousands of named paths do not exist costs one directory read instead of one `lstat` each.
#[derive(Default)]
pub struct Listings {
    asked: crate::fast::Map<std::ffi::OsString, u32>,
    names: crate::fast::Map<std::ffi::OsString, Option<crate::fast::Set<std::ffi::OsString>>>,
    gone: crate::fast::Set<std::ffi::OsString>,
}

impl Listings {
    /// True when `path` certainly does not exist: its folder was read and does not hold it, or
    /// its folder itself was found absent the same way. False when it may (or nobody knows yet):
    /// the caller looks.
    pub fn absent(&mut self, path: &Path) -> bool {
        if self.listed_absent(path) {
            return true;
        }
        if path.parent().is_some_and(|dir| self.listed_absent(dir)) {
            self.gone.insert(path.as_os_str().to_owned());
            return true;
        }
        false
    }

    fn listed_absent(&mut self, path: &Path) -> bool {
        if !self.gone.is_empty() && self.gone.contains(path.as_os_str()) {
            return true;
        }
        let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
            return false;
        };
        // One look-up of the folder for each path, one of the name in its listing: this runs
        // for every path of a command naming thousands.
        match self.names.get(dir.as_os_str()) {
            Some(Some(names)) => return !names.contains(name),
            Some(None) => return false,
            None => {}
        }
        let asked = self.asked.entry(dir.as_os_str().to_owned()).or_insert(0);
        *asked += 1;
        if *asked < LIST_AFTER {
            return false;
        }
        let names = read_names(dir);
        let absent = names.as_ref().is_some_and(|n| !n.contains(name));
        self.names.insert(dir.as_os_str().to_owned(), names);
        absent
    }
}

/// The names in `dir`; none at all when it does not exist; `None` when it cannot be read whole.
fn read_names(dir: &Path) -> Option<crate::fast::Set<std::ffi::OsString>> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if is_missing(&e) => return Some(Default::default()),
        Err(_) => return None,
    };
    let mut names = crate::fast::Set::default();
    for entry in entries {
        names.insert(entry.ok()?.file_name());
        if names.len() > LIST_AT_MOST {
            return None;
        }
    }
    Some(names)
}

/// `Some(true)` when nothing is at `path`, `Some(false)` when a plain file or a plain folder
/// without a `.git` is: either way it lies where its parent lies. `None` for a link, a
/// checkout of its own, or anything that cannot be read.
fn lies_with_parent(path: &Path) -> Option<bool> {
    match fs::symlink_metadata(path) {
        Err(e) => is_missing(&e).then_some(true),
        Ok(m) if m.file_type().is_symlink() => None,
        Ok(m) if m.is_dir() => {
            matches!(fs::symlink_metadata(path.join(".git")), Err(e) if is_missing(&e))
                .then_some(false)
        }
        Ok(m) => m.is_file().then_some(false),
    }
}

/// Where the kernel would land for the absolute `path`: each component is looked at with one
/// `lstat`, and a symlink is read and followed from its folder (even when what it names does not
/// exist yet, since a write through a dangling link creates its target), so `link/..` is the
/// target's parent. Past the first component that does not exist the rest is taken lexically; a
/// `..` that climbs back out of the missing part resumes resolving, where the folders a command
/// is about to make would lead. Following more than 40 links is an error, like ELOOP.
pub fn resolve(path: &Path) -> io::Result<PathBuf> {
    if !path.is_absolute() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} is not absolute", path.display()),
        ));
    }
    let mut todo = Vec::new();
    push_steps(&mut todo, path);
    let mut out = PathBuf::new();
    // How many components of `out` lie past the first one that does not exist.
    let mut missing = 0usize;
    let mut hops = 0;
    while let Some(step) = todo.pop() {
        let name = match step {
            Step::Root(root) => {
                out.push(root);
                continue;
            }
            Step::Up => {
                out.pop();
                missing = missing.saturating_sub(1);
                continue;
            }
            Step::Name(name) => name,
        };
        out.push(name);
        if missing > 0 {
            missing += 1;
            continue;
        }
        match fs::symlink_metadata(&out) {
            Ok(meta) if meta.file_type().is_symlink() => {
                hops += 1;
                if hops > MAX_HOPS {
                    return Err(io::Error::new(
                        io::Error::from(rustix::io::Errno::LOOP).kind(),
                        format!(
                            "cannot resolve {}: more than {MAX_HOPS} symbolic links on the way",
                            path.display()
                        ),
                    ));
                }
                let target = fs::read_link(&out).map_err(|e| {
                    io::Error::new(
                        e.kind(),
                        format!("cannot read the link {}: {e}", out.display()),
                    )
                })?;
                out.pop();
                if target.is_absolute() {
                    out = PathBuf::new();
                }
                push_steps(&mut todo, &target);
            }
            Ok(_) => {}
            Err(e) if is_missing(&e) => missing = 1,
            Err(e) => {
                return Err(io::Error::new(
                    e.kind(),
                    format!("cannot resolve {}: {e}", out.display()),
                ));
            }
        }
    }
    Ok(out)
}

/// Puts `path`'s components on `todo` so that the first one is popped first.
fn push_steps(todo: &mut Vec<Step>, path: &Path) {
    let start = todo.len();
    for comp in path.components() {
        match comp {
            Component::Prefix(_) | Component::RootDir => {
                todo.push(Step::Root(comp.as_os_str().to_owned()));
            }
            Component::CurDir => {}
            Component::ParentDir => todo.push(Step::Up),
            Component::Normal(name) => todo.push(Step::Name(name.to_owned())),
        }
    }
    todo[start..].reverse();
}

fn is_missing(e: &io::Error) -> bool {
    // A name too long to exist (a script handed as an argument) is as missing as any other.
    matches!(
        e.kind(),
        io::ErrorKind::NotFound | io::ErrorKind::NotADirectory | io::ErrorKind::InvalidFilename
    )
}

/// The branches of one checkout that the guard protects, read by hand from its git files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Branches {
    /// The branch the checkout has checked out; `None` when its HEAD is detached.
    pub head: Option<String>,
    /// The branch the repository's primary checkout has checked out (its common dir's HEAD).
    pub primary_head: Option<String>,
    /// The trunk, as DESIGN.md says: `berth.trunk`, else the primary checkout's branch, else
    /// `main`.
    pub trunk: String,
}

/// [`Branches`] of the checkout at `root`, a root [`locate`] found: its `.git` (a folder, or a
/// file naming its admin folder), the admin's `HEAD` and `commondir`, and the common dir's
/// `HEAD` and `config`. A handful of small reads, done only for a command that may move a
/// branch. `berth.trunk` is read from the common dir's `config` alone: not from the user's
/// or the system's config, an `[include]`d file or `git -c`, which would take a repository
/// open. A checkout whose `.git` is gone has nothing checked out, and git will not run there.
pub fn branches(root: &Path) -> io::Result<Branches> {
    let dot_git = root.join(".git");
    let admin = match fs::metadata(&dot_git) {
        Ok(meta) if meta.is_dir() => dot_git,
        Ok(_) => admin_of(root, &dot_git)?,
        Err(e) if is_missing(&e) => {
            return Ok(Branches {
                head: None,
                primary_head: None,
                trunk: crate::names::DEFAULT_TRUNK.to_string(),
            });
        }
        Err(e) => {
            return Err(io::Error::new(
                e.kind(),
                format!("cannot read {}: {e}", dot_git.display()),
            ));
        }
    };
    let common = match read_admin_file(&admin.join("commondir"), SMALL)? {
        Some(text) => admin.join(OsStr::from_bytes(first_line(&text))),
        None => admin.clone(),
    };
    let head = head_branch(&admin)?;
    let primary_head = if common == admin {
        head.clone()
    } else {
        head_branch(&common)?
    };
    let config = common.join("config");
    let configured = match read_admin_file(&config, CONFIG)? {
        Some(text) => {
            config_get(&String::from_utf8_lossy(&text), "berth", "trunk").map_err(|()| {
                io::Error::new(
                    io::ErrorKind::InvalidData,
                    format!("cannot read berth.trunk in {}", config.display()),
                )
            })?
        }
        None => None,
    };
    let trunk = configured
        .map(|t| {
            t.strip_prefix("refs/heads/")
                .map(str::to_string)
                .unwrap_or(t)
        })
        .filter(|t| !t.is_empty())
        .or_else(|| primary_head.clone())
        .unwrap_or_else(|| crate::names::DEFAULT_TRUNK.to_string());
    Ok(Branches {
        head,
        primary_head,
        trunk,
    })
}

/// The branch `<git dir>/HEAD` names; `None` when it is detached or missing.
fn head_branch(git_dir: &Path) -> io::Result<Option<String>> {
    let path = git_dir.join("HEAD");
    let Some(text) = read_admin_file(&path, SMALL)? else {
        return Ok(None);
    };
    let Some(name) = first_line(&text).strip_prefix(b"ref: refs/heads/") else {
        return Ok(None);
    };
    let name = String::from_utf8_lossy(name.trim_ascii()).into_owned();
    // A reftable repository keeps its refs in tables this reader does not open; its HEAD file
    // only says so.
    if name == ".invalid" {
        return Err(io::Error::new(
            io::ErrorKind::Unsupported,
            format!(
                "{} keeps its branches in a reftable, which the guard cannot read",
                git_dir.display()
            ),
        ));
    }
    Ok(Some(name))
}

/// What a `.git` file turned out to be.
enum GitFile {
    /// A linked worktree (or submodule) whose admin folder points back at this folder.
    Linked { primary: Option<PathBuf> },
    /// It names a repository's own git dir that sets no `core.worktree`: this folder is that
    /// repository's main worktree (`git init --separate-git-dir`).
    MainWorktree,
    /// Its admin folder names some other place, or is no git dir at all: copied or forged.
    Untrusted,
}

/// Reads `<dir>/.git` (`gitdir: <admin>`) and decides whether to trust it, as git itself lays a
/// checkout out. When `<admin>/commondir` exists (a worktree admin folder, made by `git worktree
/// add`), `<admin>/gitdir` must name this very `<dir>/.git`. When it does not (a submodule's
/// `.git/modules/<name>`, or a `--separate-git-dir` repository), the admin's `core.worktree`
/// must lead to `<dir>`; with no `core.worktree` at all, `<dir>` is the main worktree. A `.git`
/// file that cannot be read or does not say `gitdir:` is an error: git would refuse it too.
fn read_git_file(dir: &Path, dot_git: &Path) -> io::Result<GitFile> {
    let admin = admin_of(dir, dot_git)?;
    let Some(common) = read_admin_file(&admin.join("commondir"), SMALL)? else {
        return Ok(match read_admin_file(&admin.join("config"), CONFIG)? {
            None => GitFile::Untrusted,
            Some(config) => match core_worktree(&String::from_utf8_lossy(&config)) {
                Ok(None) => GitFile::MainWorktree,
                Ok(Some(wt)) if resolve(&admin.join(&wt))? == dir => {
                    GitFile::Linked { primary: None }
                }
                Ok(Some(_)) | Err(()) => GitFile::Untrusted,
            },
        });
    };
    if !points_back(&admin, dir)? {
        return Ok(GitFile::Untrusted);
    }
    let common = resolve(&admin.join(OsStr::from_bytes(first_line(&common))))?;
    Ok(GitFile::Linked {
        primary: match common.file_name() {
            Some(n) if n == ".git" => common.parent().map(Path::to_path_buf),
            _ => None,
        },
    })
}

/// The admin folder a `.git` file names (`gitdir: <admin>`, relative to `dir`, the folder that
/// holds it).
pub fn admin_of(dir: &Path, dot_git: &Path) -> io::Result<PathBuf> {
    let text = read_small(dot_git, SMALL)?;
    let Some(gitdir) = first_line(&text)
        .strip_prefix(b"gitdir:")
        .map(<[u8]>::trim_ascii)
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
    Ok(dir.join(OsStr::from_bytes(gitdir)))
}

/// The live holders of the linked worktree at `root` (see [`crate::holders`]): none when it has
/// no `.git` file, no holders file, or only holders whose process is gone.
pub fn holders(root: &Path) -> io::Result<Vec<crate::holders::Holder>> {
    let dot_git = root.join(".git");
    let admin = match fs::symlink_metadata(&dot_git) {
        Ok(meta) if meta.is_file() => admin_of(root, &dot_git)?,
        Ok(_) => return Ok(Vec::new()),
        Err(e) if is_missing(&e) => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    live_holders(&admin)
}

/// The holders listed in the worktree admin folder `admin` whose process still runs. A file
/// that is not a list of holders is an error naming it: the guard then blocks.
fn live_holders(admin: &Path) -> io::Result<Vec<crate::holders::Holder>> {
    let path = admin.join(crate::names::HOLDERS_FILE);
    let Some(text) = read_admin_file(&path, SMALL)? else {
        return Ok(Vec::new());
    };
    let mut live = crate::holders::parse(&String::from_utf8_lossy(&text)).map_err(|line| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("cannot read {} at line {line}", path.display()),
        )
    })?;
    live.retain(|h| crate::process::alive(h.pid, h.start));
    Ok(live)
}

/// The owned paths of the repository the checkout `place` lies in (see [`crate::owners`]): the
/// file `<common dir>/berth/owners.guard` and what it lists; `None` outside any checkout, and
/// when the file is not there or lists nothing. One read where git lays the repository out as
/// usual (the common dir is the primary checkout's `.git`); otherwise the `.git` file and
/// `commondir` lead to it first. A file that is not a list of owned paths is an error naming it
/// and the command that rewrites it: the guard then blocks.
pub fn owned(place: &Place) -> io::Result<Option<(PathBuf, Vec<crate::owners::Owned>)>> {
    let in_state = |common: &Path| {
        common
            .join(crate::names::STATE_DIR)
            .join(crate::names::OWNERS_GUARD_FILE)
    };
    let (file, text) = match place {
        Place::Outside => return Ok(None),
        Place::Linked { root, primary } => {
            let common = match primary {
                Some(p) => p.join(".git"),
                None => common_dir(root)?,
            };
            let file = in_state(&common);
            (file.clone(), read_admin_file(&file, OWNERS)?)
        }
        Place::Primary { root } => {
            let file = in_state(&root.join(".git"));
            match read_small(&file, OWNERS) {
                Ok(text) => (file, Some(text)),
                // `.git` is a file: the repository lies elsewhere (`--separate-git-dir`).
                Err(e) if e.kind() == io::ErrorKind::NotADirectory => {
                    let file = in_state(&common_dir(root)?);
                    (file.clone(), read_admin_file(&file, OWNERS)?)
                }
                Err(e) if is_missing(&e) => (file, None),
                Err(e) => return Err(e),
            }
        }
    };
    let Some(text) = text else {
        return Ok(None);
    };
    let owned = crate::owners::parse(&String::from_utf8_lossy(&text)).map_err(|line| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!(
                "cannot read {} at line {line}, which is no owned path; `{} owners` rewrites it",
                file.display(),
                crate::names::TOOL
            ),
        )
    })?;
    Ok((!owned.is_empty()).then_some((file, owned)))
}

/// The common dir of the repository whose checkout is `root`: its `.git` folder, or the admin
/// folder its `.git` file names, followed by that folder's `commondir` when it has one.
fn common_dir(root: &Path) -> io::Result<PathBuf> {
    let dot_git = root.join(".git");
    let admin = match fs::metadata(&dot_git) {
        Ok(meta) if meta.is_dir() => dot_git,
        Ok(_) => admin_of(root, &dot_git)?,
        Err(e) => {
            return Err(io::Error::new(
                e.kind(),
                format!("cannot read {}: {e}", dot_git.display()),
            ));
        }
    };
    Ok(match read_admin_file(&admin.join("commondir"), SMALL)? {
        Some(text) => admin.join(OsStr::from_bytes(first_line(&text))),
        None => admin,
    })
}

/// The branch each linked worktree of `root`'s repository has checked out, where a live
/// session holds that worktree: `(branch, the worktree's folder, its live holders)`. Read only
/// when a command names a branch to write.
pub fn held_branches(
    root: &Path,
) -> io::Result<Vec<(String, PathBuf, Vec<crate::holders::Holder>)>> {
    let dot_git = root.join(".git");
    let admin = match fs::metadata(&dot_git) {
        Ok(meta) if meta.is_dir() => dot_git,
        Ok(_) => admin_of(root, &dot_git)?,
        Err(e) if is_missing(&e) => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let common = match read_admin_file(&admin.join("commondir"), SMALL)? {
        Some(text) => admin.join(OsStr::from_bytes(first_line(&text))),
        None => admin,
    };
    let entries = match fs::read_dir(common.join("worktrees")) {
        Ok(entries) => entries,
        Err(e) if is_missing(&e) => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut out = Vec::new();
    for entry in entries {
        let wt = entry?.path();
        let live = live_holders(&wt)?;
        if live.is_empty() {
            continue;
        }
        let Some(gitdir) = read_admin_file(&wt.join("gitdir"), SMALL)? else {
            continue;
        };
        let dot_git = wt.join(OsStr::from_bytes(first_line(&gitdir).trim_ascii()));
        let folder = dot_git.parent().map_or(dot_git.clone(), Path::to_path_buf);
        if let Some(branch) = head_branch(&wt)? {
            out.push((branch, folder, live));
        }
    }
    Ok(out)
}

/// Whether the worktree admin folder `admin` names `<dir>/.git` in its `gitdir` file (absolute,
/// or relative to `admin` as git 2.48's relative worktrees write it). Only the folder part is
/// resolved: a `.git` that is itself a link to a real worktree's `.git` is not that worktree.
fn points_back(admin: &Path, dir: &Path) -> io::Result<bool> {
    let Some(text) = read_admin_file(&admin.join("gitdir"), SMALL)? else {
        return Ok(false);
    };
    let named = admin.join(OsStr::from_bytes(first_line(&text)));
    // What git writes: the absolute real path, so no system call is needed.
    if named == dir.join(".git") {
        return Ok(true);
    }
    match (named.parent(), named.file_name()) {
        (Some(parent), Some(name)) if name == ".git" => Ok(resolve(parent)? == dir),
        _ => Ok(false),
    }
}

/// The first line of a file, without its line end (git writes paths one to a line, and they
/// need not be UTF-8).
fn first_line(text: &[u8]) -> &[u8] {
    let line = text.split(|&b| b == b'\n').next().unwrap_or_default();
    line.strip_suffix(b"\r").unwrap_or(line)
}

/// The value of `core.worktree` in git config text (see [`config_get`]).
fn core_worktree(config: &str) -> Result<Option<String>, ()> {
    config_get(config, "core", "worktree")
}

/// The value of `<section>.<key>` (a section without a subsection) in git config text, the last
/// one winning as in git; `Ok(None)` when none is set, `Err` when the text is not config git
/// would read. Only what git writes is understood: headers, `key = value` lines, quotes,
/// escapes and comments; a value continued over lines, or one set through an `[include]` (or
/// in any file but this one), is not seen.
fn config_get(config: &str, section: &str, key: &str) -> Result<Option<String>, ()> {
    let mut in_section = false;
    let mut found = None;
    for line in config.lines() {
        let mut rest = line.trim_start();
        if let Some(header) = rest.strip_prefix('[') {
            let (name, after) = header.split_once(']').ok_or(())?;
            in_section = name.trim().eq_ignore_ascii_case(section);
            rest = after.trim_start();
        }
        if !in_section || rest.is_empty() || rest.starts_with(['#', ';']) {
            continue;
        }
        let key_end = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '-'))
            .unwrap_or(rest.len());
        let (name, after) = rest.split_at(key_end);
        if !name.eq_ignore_ascii_case(key) {
            continue;
        }
        // A key alone is the boolean form, which git refuses for a path or a branch.
        let value = after.trim_start().strip_prefix('=').ok_or(())?;
        found = Some(config_value(value)?);
    }
    Ok(found)
}

/// A config value as git reads it: surrounding blanks dropped, `"..."` unquoted, `\"`, `\\`,
/// `\n`, `\t`, `\b` unescaped, and a `#` or `;` outside quotes starting a comment.
fn config_value(raw: &str) -> Result<String, ()> {
    let mut out = String::new();
    let mut quoted = false;
    // Blanks outside quotes count only when something follows them.
    let mut pending = String::new();
    let mut chars = raw.trim_start().chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => {
                out.push_str(&std::mem::take(&mut pending));
                quoted = !quoted;
            }
            '\\' => {
                out.push_str(&std::mem::take(&mut pending));
                out.push(match chars.next().ok_or(())? {
                    'n' => '\n',
                    't' => '\t',
                    'b' => '\u{8}',
                    e @ ('"' | '\\') => e,
                    _ => return Err(()),
                });
            }
            '#' | ';' if !quoted => break,
            c if c.is_whitespace() && !quoted => pending.push(c),
            c => {
                out.push_str(&std::mem::take(&mut pending));
                out.push(c);
            }
        }
    }
    if quoted { Err(()) } else { Ok(out) }
}

/// Largest `.git`, `commondir` or `gitdir` file read: a path and a line end.
const SMALL: u64 = 16 * 1024;
/// Largest admin `config` read.
const CONFIG: u64 = 1024 * 1024;
/// Largest owned-paths file read: tens of thousands of patterns.
const OWNERS: u64 = 4 * 1024 * 1024;

/// An admin folder's file, `None` when it is not there (the folder is then no admin folder of
/// that kind).
fn read_admin_file(path: &Path, limit: u64) -> io::Result<Option<Vec<u8>>> {
    match read_small(path, limit) {
        Ok(text) => Ok(Some(text)),
        Err(e) if is_missing(&e) => Ok(None),
        Err(e) => Err(e),
    }
}

/// Reads a small regular file. The open does not wait (a FIFO planted as `.git` must not stall
/// the guard), anything but a regular file is refused, and so is one larger than `limit`.
fn read_small(path: &Path, limit: u64) -> io::Result<Vec<u8>> {
    let context =
        |e: io::Error| io::Error::new(e.kind(), format!("cannot read {}: {e}", path.display()));
    let file = fs::OpenOptions::new()
        .read(true)
        .custom_flags((OFlags::NONBLOCK | OFlags::NOCTTY).bits() as i32)
        .open(path)
        .map_err(context)?;
    let meta = file.metadata().map_err(context)?;
    if !meta.is_file() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{} is not a regular file", path.display()),
        ));
    }
    // Room for the whole file and the end-of-file read, so it is read in one call.
    let mut text = Vec::with_capacity(meta.len().min(limit) as usize + 1);
    file.take(limit + 1)
        .read_to_end(&mut text)
        .map_err(context)?;
    if text.len() as u64 > limit {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{} is larger than {limit} bytes", path.display()),
        ));
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// A private real folder, removed when dropped.
    struct Scratch(PathBuf);

    impl Scratch {
        fn new() -> Scratch {
            static NEXT: AtomicUsize = AtomicUsize::new(0);
            let dir = std::env::temp_dir().join(format!(
                "berth-probe-{}-{}",
                std::process::id(),
                NEXT.fetch_add(1, Ordering::Relaxed)
            ));
            let _ = fs::remove_dir_all(&dir);
            fs::create_dir_all(&dir).unwrap();
            Scratch(fs::canonicalize(dir).unwrap())
        }

        fn dir(&self, rel: &str) -> PathBuf {
            let p = self.0.join(rel);
            fs::create_dir_all(&p).unwrap();
            p
        }

        fn link(&self, rel: &str, target: &str) -> PathBuf {
            let p = self.0.join(rel);
            symlink(target, &p).unwrap();
            p
        }
    }

    impl Drop for Scratch {
        fn drop(&mut self) {
            let _ = fs::remove_dir_all(&self.0);
        }
    }

    #[test]
    fn a_dangling_link_into_a_primary_resolves_to_where_a_write_would_land() {
        let s = Scratch::new();
        let primary = s.dir("primary");
        s.dir("linked");
        let link = s.link("linked/p", "../primary/x");
        assert!(!primary.join("x").exists());
        assert_eq!(resolve(&link).unwrap(), primary.join("x"));
        assert_eq!(resolve(&link.join("y/z")).unwrap(), primary.join("x/y/z"));
    }

    #[test]
    fn a_chain_of_links_resolves_to_its_last_target() {
        let s = Scratch::new();
        let end = s.dir("end");
        s.link("c", &end.display().to_string());
        s.link("b", "c");
        let a = s.link("a", "./b");
        assert_eq!(resolve(&a.join("f")).unwrap(), end.join("f"));
        assert_eq!(resolve(&a).unwrap(), fs::canonicalize(&a).unwrap());
    }

    #[test]
    fn a_link_loop_is_an_error_not_a_hang() {
        let s = Scratch::new();
        let a = s.link("a", "b");
        s.link("b", "a");
        let self_loop = s.link("me", "me");
        for p in [a.join("x"), self_loop] {
            let e = resolve(&p).unwrap_err();
            assert!(e.to_string().contains("symbolic links"), "{e}");
        }
    }

    #[test]
    fn forty_links_in_a_row_resolve_and_forty_one_do_not() {
        let s = Scratch::new();
        let end = s.dir("end");
        let mut target = end.display().to_string();
        for i in 0..41 {
            let name = format!("l{i}");
            s.link(&name, &target);
            target = name;
        }
        assert_eq!(resolve(&s.0.join("l39")).unwrap(), end);
        assert!(resolve(&s.0.join("l40")).is_err());
    }

    #[test]
    fn dot_dot_after_a_link_climbs_from_the_links_target_as_the_kernel_does() {
        let s = Scratch::new();
        let deep = s.dir("primary/deep");
        s.dir("linked");
        let link = s.link("linked/d", &deep.display().to_string());
        let p = link.join("../x");
        assert_eq!(resolve(&p).unwrap(), s.0.join("primary/x"));
        // What the kernel says: creating the file through the same path lands there too.
        fs::write(&p, "").unwrap();
        assert!(s.0.join("primary/x").exists());
        assert!(!s.0.join("linked/x").exists());
    }

    #[test]
    fn a_relative_link_is_followed_from_the_folder_that_holds_it() {
        let s = Scratch::new();
        s.dir("a/b");
        let target = s.dir("a/t");
        let link = s.link("a/b/l", "../t");
        assert_eq!(resolve(&link.join("f")).unwrap(), target.join("f"));
    }

    #[test]
    fn a_missing_tail_stays_lexical_and_climbing_back_resumes_resolving() {
        let s = Scratch::new();
        let primary = s.dir("primary");
        s.dir("linked");
        s.link("linked/p", &primary.display().to_string());
        let linked = s.0.join("linked");
        assert_eq!(
            resolve(&linked.join("new/./deeper/../f")).unwrap(),
            linked.join("new/f")
        );
        assert_eq!(
            resolve(&linked.join("new/../p/f")).unwrap(),
            primary.join("f")
        );
    }

    #[test]
    fn a_path_through_a_file_stays_lexical_past_it() {
        let s = Scratch::new();
        let dir = s.dir("d");
        fs::write(dir.join("file"), "").unwrap();
        assert_eq!(resolve(&dir.join("file/x")).unwrap(), dir.join("file/x"));
    }

    #[test]
    fn an_existing_path_resolves_as_canonicalize_does() {
        let s = Scratch::new();
        s.dir("a/b/c");
        s.link("a/l", "b");
        let p = s.0.join("a/l/c/../c/./");
        assert_eq!(resolve(&p).unwrap(), fs::canonicalize(&p).unwrap());
        assert_eq!(resolve(Path::new("/")).unwrap(), Path::new("/"));
        assert_eq!(resolve(Path::new("/..")).unwrap(), Path::new("/"));
    }

    #[test]
    fn a_relative_path_is_refused() {
        let e = resolve(Path::new("a/b")).unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::InvalidInput);
    }

    #[test]
    fn core_worktree_is_read_as_git_writes_it() {
        // What `git submodule add` writes in `.git/modules/mods/s/config`.
        let sub = "[core]\n\trepositoryformatversion = 0\n\tbare = false\n\
                   \tworktree = ../../../../mods/s\n[remote \"origin\"]\n\turl = /x\n";
        assert_eq!(core_worktree(sub), Ok(Some("../../../../mods/s".into())));
        assert_eq!(
            core_worktree("[core]\n\tbare = false\n[remote \"o\"]\n\tworktree = /elsewhere\n"),
            Ok(None)
        );
        assert_eq!(
            core_worktree("[CORE]\n  WorkTree=\"/a b\" ; comment\n"),
            Ok(Some("/a b".into()))
        );
        assert_eq!(
            core_worktree("[core] worktree = /first\n[core]\nworktree = /last # c\n"),
            Ok(Some("/last".into()))
        );
        assert_eq!(core_worktree("[core \"x\"]\nworktree = /a\n"), Ok(None));
        assert_eq!(core_worktree("[core]\nworktreefoo = /a\n"), Ok(None));
        assert_eq!(core_worktree("[core]\nworktree\n"), Err(()));
        assert_eq!(core_worktree("[core]\nworktree = \"/a\n"), Err(()));
        assert_eq!(core_worktree("[core\nworktree = /a\n"), Err(()));
    }

    /// A repository laid out as git lays it out: a primary checkout on `primary_head` and a
    /// linked worktree `linked` (relative paths, as git 2.48 may write them) on `linked_head`.
    fn repo(
        s: &Scratch,
        primary_head: &str,
        linked_head: &str,
        config: &str,
    ) -> (PathBuf, PathBuf) {
        let primary = s.dir("p");
        let git = s.dir("p/.git");
        let admin = s.dir("p/.git/worktrees/l");
        let linked = s.dir("l");
        fs::write(git.join("HEAD"), primary_head).unwrap();
        fs::write(git.join("config"), config).unwrap();
        fs::write(admin.join("HEAD"), linked_head).unwrap();
        fs::write(admin.join("commondir"), "../..\n").unwrap();
        fs::write(
            admin.join("gitdir"),
            format!("{}\n", linked.join(".git").display()),
        )
        .unwrap();
        fs::write(linked.join(".git"), "gitdir: ../p/.git/worktrees/l\n").unwrap();
        (primary, linked)
    }

    #[test]
    fn the_trunk_is_berth_trunk_else_the_primarys_branch_else_main() {
        let s = Scratch::new();
        let config = "[core]\n\tbare = false\n[berth]\n\tbranchPrefix = b/\n\ttrunk = develop\n";
        let (primary, linked) = repo(
            &s,
            "ref: refs/heads/main\n",
            "ref: refs/heads/b/x\n",
            config,
        );
        assert_eq!(
            branches(&linked).unwrap(),
            Branches {
                head: Some("b/x".into()),
                primary_head: Some("main".into()),
                trunk: "develop".into(),
            }
        );
        assert_eq!(branches(&primary).unwrap().head.as_deref(), Some("main"));

        let s = Scratch::new();
        let (_, linked) = repo(
            &s,
            "ref: refs/heads/master\n",
            "0123abcd\n",
            "[berth \"x\"]\ntrunk = no\n",
        );
        let b = branches(&linked).unwrap();
        assert_eq!((b.head, b.trunk), (None, "master".to_string()));

        let s = Scratch::new();
        let (primary, _) = repo(&s, "0123abcd\n", "ref: refs/heads/main\n", "");
        assert_eq!(branches(&primary).unwrap().trunk, "main");

        let s = Scratch::new();
        let (primary, _) = repo(&s, "0123abcd\n", "x", "[berth]\ntrunk = refs/heads/dev\n");
        assert_eq!(branches(&primary).unwrap().trunk, "dev");
    }

    #[test]
    fn branches_git_cannot_show_in_files_block_rather_than_guess() {
        let s = Scratch::new();
        let (_, linked) = repo(
            &s,
            "ref: refs/heads/.invalid\n",
            "ref: refs/heads/.invalid\n",
            "",
        );
        let e = branches(&linked).unwrap_err();
        assert!(e.to_string().contains("reftable"), "{e}");
        let s = Scratch::new();
        let (primary, _) = repo(
            &s,
            "ref: refs/heads/main\n",
            "x",
            "[berth]\ntrunk = \"open\n",
        );
        let e = branches(&primary).unwrap_err();
        assert!(e.to_string().contains("berth.trunk"), "{e}");
    }

    #[test]
    fn config_values_are_unquoted_and_unescaped() {
        assert_eq!(config_value(" a\\\\b\\\"c "), Ok("a\\b\"c".into()));
        assert_eq!(config_value("a \"b ; c\" d"), Ok("a b ; c d".into()));
        assert_eq!(config_value("a\\x"), Err(()));
    }

    #[test]
    fn a_fifo_is_refused_without_waiting_for_a_writer() {
        let s = Scratch::new();
        let fifo = s.0.join("fifo");
        let fifo_mode = rustix::fs::Mode::RUSR | rustix::fs::Mode::WUSR;
        rustix::fs::mknodat(
            rustix::fs::CWD,
            &fifo,
            rustix::fs::FileType::Fifo,
            fifo_mode,
            0,
        )
        .unwrap();
        let e = read_small(&fifo, SMALL).unwrap_err();
        assert!(e.to_string().contains("not a regular file"), "{e}");
    }

    #[test]
    fn a_file_larger_than_the_limit_is_refused() {
        let s = Scratch::new();
        let f = s.0.join("big");
        fs::write(&f, vec![b'a'; 17]).unwrap();
        assert_eq!(read_small(&f, 17).unwrap().len(), 17);
        assert!(read_small(&f, 16).is_err());
    }
}
