//! Linked worktrees: list, create (branch first, deleted again on failure), remove, and prune,
//! which gix 0.91 lacks and is written here the way `git worktree prune` works.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use anyhow::{Context as _, Result};

use crate::error;
use crate::paths::real_or_same;
use crate::ui::Ui;

/// A linked worktree as git records it.
#[derive(Debug, Clone)]
pub struct Linked {
    /// The admin entry's name under `<common dir>/worktrees/`.
    pub id: String,
    /// The checkout, as a real path where it still exists.
    pub path: PathBuf,
    /// `Some(reason)` when locked; the reason may be empty.
    pub locked: Option<String>,
    /// Whether the checkout is still there: its folder with its `.git`. A folder without one is
    /// what a killed removal leaves, and git too lists it as prunable.
    pub exists: bool,
}

/// Every linked worktree git knows, in admin-entry order.
pub fn linked(repo: &gix::Repository) -> Result<Vec<Linked>> {
    let mut out = Vec::new();
    for proxy in repo.worktrees().context("cannot list linked worktrees")? {
        let Ok(base) = proxy.base() else { continue };
        let id = proxy.id().map(|id| id.to_string()).unwrap_or_default();
        let locked = proxy.is_locked().then(|| {
            proxy
                .lock_reason()
                .map(|r| r.to_string())
                .unwrap_or_default()
        });
        out.push(Linked {
            id,
            exists: base.is_dir() && base.join(".git").exists(),
            path: real_or_same(&base),
            locked,
        });
    }
    Ok(out)
}

/// What to check out in a new worktree.
pub enum Checkout<'a> {
    /// Create `branch` at `at` first; `from` is what the reflog says it was created from.
    NewBranch {
        branch: &'a str,
        at: gix::ObjectId,
        from: &'a str,
    },
    /// Check out an existing local branch.
    Existing { branch: &'a str },
}

/// Create a linked worktree at `path`. A branch created here is deleted again if the worktree
/// cannot be made, so a failed add leaves nothing behind. The checkout's progress is drawn on
/// `ui` when it shows progress.
pub fn create(repo: &gix::Repository, path: &Path, checkout: Checkout<'_>, ui: &Ui) -> Result<()> {
    let (branch, created) = match checkout {
        Checkout::NewBranch { branch, at, from } => {
            let name = super::branch_ref(branch)?;
            let message = format!("branch: Created from {from}");
            let created =
                super::refs::swap(repo, &name.as_bstr().to_string(), None, at, &message, ui)
                    .with_context(|| format!("cannot create branch '{branch}'"))?;
            if let super::refs::Swap::Moved(_) = created {
                return Err(error::refuse_with_hint(
                    format!("branch '{branch}' already exists"),
                    "pick another name, or check it out with --branch",
                ));
            }
            (name, Some(at))
        }
        Checkout::Existing { branch } => (super::branch_ref(branch)?, None),
    };
    let interrupt = AtomicBool::new(false);
    let root = gix::progress::tree::Root::new();
    let reporter = ProgressLine::start(&root, ui);
    let added = repo.add_worktree(
        path,
        gix::worktree::add::Head::Attached(branch.clone()),
        root.add_child("add"),
        &interrupt,
    );
    reporter.finish();
    if let Err(err) = added {
        if let Some(at) = created {
            let _ = super::refs::delete(repo, &branch.as_bstr().to_string(), at, ui);
        }
        if let Some(gix::worktree::add::Error::CheckedOut { worktree_dirs, .. }) =
            err.downcast_any_ref::<gix::worktree::add::Error>()
        {
            let dirs: Vec<_> = worktree_dirs
                .iter()
                .map(|d| d.display().to_string())
                .collect();
            return Err(error::refuse_with_hint(
                format!(
                    "branch '{}' is checked out in {}",
                    branch.shorten(),
                    dirs.join(", ")
                ),
                "pick another branch, or switch that worktree to another branch first",
            ));
        }
        let lock_taken = err
            .downcast_any_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::AlreadyExists);
        if let Some(refusal) = index_lock_refusal(repo.common_dir(), path, lock_taken) {
            return Err(refusal);
        }
        return Err(crate::git::gix_err(err))
            .with_context(|| format!("cannot create worktree {}", path.display()));
    }
    Ok(())
}

/// The refusal for a branch that another worktree has checked out.
pub fn checked_out_elsewhere(branch: &str, dirs: &[PathBuf]) -> anyhow::Error {
    let dirs: Vec<_> = dirs.iter().map(|d| d.display().to_string()).collect();
    error::refuse_with_hint(
        format!("branch '{branch}' is checked out in {}", dirs.join(", ")),
        "pick another branch, or switch that worktree to another branch first",
    )
}

/// The worktrees (primary included) that have local branch `short` checked out, so that a
/// refusal comes before anything is written.
pub fn checked_out_in(repo: &gix::Repository, short: &str) -> Result<Vec<PathBuf>> {
    let name = super::branch_ref(short)?;
    let mut dirs = Vec::new();
    for wt in repo
        .worktrees_including_main()
        .map_err(crate::git::gix_err)?
        .flatten()
    {
        if wt.head_name().ok().flatten().as_ref() == Some(&name)
            && let Some(dir) = wt.workdir()
        {
            dirs.push(real_or_same(dir));
        }
    }
    Ok(dirs)
}

/// Remove a linked worktree's checkout and admin entry. `discard` drops uncommitted changes;
/// a lock is always honoured.
pub fn remove(repo: &gix::Repository, path: &Path, discard: bool) -> Result<()> {
    let force = if discard {
        gix::worktree::remove::Force::DiscardChanges
    } else {
        gix::worktree::remove::Force::Never
    };
    repo.remove_worktree(path, force, gix::progress::Discard)
        .map_err(crate::git::gix_err)
        .with_context(|| format!("cannot remove worktree {}", path.display()))
}

/// An admin entry under `<common dir>/worktrees/` that points nowhere.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Stale {
    pub id: String,
    pub reason: String,
}

/// Admin entries `git worktree prune` would drop: not a folder, no `gitdir` file, or a `gitdir`
/// that points to a location that is gone. Locked entries are kept, as git keeps them.
pub fn stale_admin_entries(common_dir: &Path) -> Result<Vec<Stale>> {
    let dir = common_dir.join("worktrees");
    let entries = match fs::read_dir(&dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", dir.display())),
    };
    let mut out = Vec::new();
    for entry in entries {
        let entry = entry.with_context(|| format!("cannot read {}", dir.display()))?;
        let id = entry.file_name().to_string_lossy().into_owned();
        let admin = entry.path();
        let reason = if !admin.is_dir() {
            Some("not a valid directory".to_owned())
        } else if admin.join("locked").exists() {
            None
        } else {
            match fs::read_to_string(admin.join("gitdir")) {
                Err(_) => Some("gitdir file does not exist".to_owned()),
                Ok(text) => {
                    let target = PathBuf::from(text.trim_end_matches(['\n', '\r']));
                    let target = if target.is_absolute() {
                        target
                    } else {
                        admin.join(target)
                    };
                    (!target.exists())
                        .then(|| "gitdir file points to non-existent location".to_owned())
                }
            }
        };
        if let Some(reason) = reason {
            out.push(Stale { id, reason });
        }
    }
    out.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(out)
}

/// Drop the given admin entries, and the `worktrees/` folder once it is empty, as git does.
pub fn drop_admin_entries(common_dir: &Path, stale: &[Stale]) -> Result<()> {
    let dir = common_dir.join("worktrees");
    for entry in stale {
        let path = dir.join(&entry.id);
        let removed = if path.is_dir() {
            fs::remove_dir_all(&path)
        } else {
            fs::remove_file(&path)
        };
        removed.with_context(|| format!("cannot remove {}", path.display()))?;
    }
    let _ = fs::remove_dir(&dir);
    Ok(())
}

/// Remove what a killed `add` left at `path`: the folder, and every admin entry (locked or not)
/// whose `gitdir` points into it. Only for worktrees berth itself was creating.
pub fn discard_half_made(common_dir: &Path, path: &Path) -> Result<()> {
    drop_admin_entries_of(common_dir, path)?;
    remove_checkout(path)
}

/// Delete a linked worktree's checkout, its `.git` file first: from then on git, and berth, see
/// a checkout whose deletion has begun as gone. Nothing there is nothing to do, so a removal cut
/// short is finished by running this again. gix deletes the files (never across a mount point).
pub fn remove_checkout(path: &Path) -> Result<()> {
    let dot_git = path.join(".git");
    match fs::remove_file(&dot_git) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        // A `.git` folder is no linked worktree's; leave it to the deletion below to say so.
        Err(_) if dot_git.is_dir() => {}
        Err(e) => {
            return Err(e).with_context(|| format!("cannot remove {}", dot_git.display()));
        }
    }
    // The second root is the `.git` just deleted: gix takes the checkout and an admin folder, and
    // a missing root counts as removed.
    gix::worktree::remove(
        path,
        &dot_git,
        gix::progress::Discard,
        gix::worktree::remove::Options::default(),
    )
    .map_err(crate::git::gix_err)
    .with_context(|| format!("cannot remove worktree {}", path.display()))
}

/// Drop every admin entry (locked or not) whose `gitdir` points at `path`'s `.git`, and the
/// `worktrees/` folder once it is empty, as git does. Only for worktrees berth is removing.
pub fn drop_admin_entries_of(common_dir: &Path, path: &Path) -> Result<()> {
    let dir = common_dir.join("worktrees");
    for entry in admin_entries_of(common_dir, path) {
        fs::remove_dir_all(&entry).with_context(|| format!("cannot remove {}", entry.display()))?;
    }
    let _ = fs::remove_dir(&dir);
    Ok(())
}

/// The admin entries (`<common dir>/worktrees/<id>`) of the checkout at `path`: those whose
/// `gitdir` points at its `.git`, and one a kill left half written (its `gitdir` empty or
/// missing) named after its folder, maybe with a number.
fn admin_entries_of(common_dir: &Path, path: &Path) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(common_dir.join("worktrees")) else {
        return Vec::new();
    };
    let here = real_or_same(path);
    entries
        .flatten()
        .filter(|entry| {
            let gitdir = fs::read_to_string(entry.path().join("gitdir")).unwrap_or_default();
            let target = Path::new(gitdir.trim_end_matches(['\n', '\r']));
            let points_here = target.file_name().is_some_and(|n| n == ".git")
                && target
                    .parent()
                    .is_some_and(|p| p == path || real_or_same(p) == here);
            let half_written = gitdir.trim().is_empty()
                && path.file_name().is_some_and(|folder| {
                    let id = entry.file_name();
                    let (id, folder) = (id.to_string_lossy(), folder.to_string_lossy());
                    id.strip_prefix(folder.as_ref())
                        .is_some_and(|rest| rest.chars().all(|c| c.is_ascii_digit()))
                });
            points_here || half_written
        })
        .map(|entry| entry.path())
        .collect()
}

/// The index lock of the new checkout at `path` that another process holds (a git command run
/// in the folder while berth was making it), when that is why the add failed.
fn index_lock_of_new(common_dir: &Path, path: &Path) -> Option<PathBuf> {
    admin_entries_of(common_dir, path)
        .into_iter()
        .map(|entry| entry.join("index.lock"))
        .find(|lock| lock.exists())
}

/// The one-line refusal for an add whose new index was locked by another process: named while
/// the lock is there, and still named (as a race that is over) when gix found a lock taken
/// (`lock_taken`) that is gone by the time this looks.
fn index_lock_refusal(common_dir: &Path, path: &Path, lock_taken: bool) -> Option<anyhow::Error> {
    let what = format!("create worktree {}", path.display());
    if let Some(lock) = index_lock_of_new(common_dir, path) {
        return Some(super::locks::held_elsewhere(&lock, &what));
    }
    let entry = admin_entries_of(common_dir, path).into_iter().next()?;
    lock_taken.then(|| {
        error::refuse_with_hint(
            format!(
                "cannot {what}: another git command held {} while it was made",
                entry.join("index.lock").display()
            ),
            "run it again once no git command runs in that folder",
        )
    })
}

/// Checkout progress on the Ui, only where it shows progress (stderr a terminal, not quiet).
struct ProgressLine {
    done: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl ProgressLine {
    fn start(root: &Arc<gix::progress::tree::Root>, ui: &Ui) -> Self {
        let done = Arc::new(AtomicBool::new(false));
        if !ui.shows_progress() {
            return ProgressLine { done, thread: None };
        }
        let ui = ui.clone();
        let root = Arc::clone(root);
        let stop = Arc::clone(&done);
        let thread = std::thread::spawn(move || {
            let mut tasks = Vec::new();
            let mut shown = false;
            // Quiet for the first half second: a small checkout should not flash a line.
            let mut ticks = 0u32;
            while !stop.load(Ordering::Relaxed) {
                std::thread::sleep(std::time::Duration::from_millis(100));
                ticks += 1;
                if ticks < 5 {
                    continue;
                }
                root.sorted_snapshot(&mut tasks);
                let checkout = tasks.iter().find_map(|(_, task)| {
                    (task.name == "checkout")
                        .then_some(task.progress.as_ref())
                        .flatten()
                });
                if let Some(value) = checkout {
                    let step = value.step.load(Ordering::Relaxed);
                    match value.done_at {
                        Some(total) => {
                            ui.progress(format_args!("\rChecking out files: {step}/{total}"))
                        }
                        None => ui.progress(format_args!("\rChecking out files: {step}")),
                    }
                    shown = true;
                }
            }
            if shown {
                ui.status("\rChecking out files: done\x1b[K");
            }
        });
        ProgressLine {
            done,
            thread: Some(thread),
        }
    }

    fn finish(mut self) {
        self.done.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_index_lock_of_a_new_checkout_is_found_by_its_admin_entry_and_no_other() {
        let root = std::env::temp_dir().join(format!("berth-worktrees-{}", std::process::id()));
        let _ = fs::remove_dir_all(&root);
        let common = root.join("repo.git");
        let path = root.join("wt/n6");
        let mine = common.join("worktrees/n6");
        let other = common.join("worktrees/n7");
        for (entry, folder) in [(&mine, "n6"), (&other, "n7")] {
            fs::create_dir_all(entry).unwrap();
            let gitdir = root.join("wt").join(folder).join(".git");
            fs::write(entry.join("gitdir"), format!("{}\n", gitdir.display())).unwrap();
        }
        fs::write(other.join("index.lock"), "").unwrap();
        assert_eq!(index_lock_of_new(&common, &path), None, "another's lock");

        fs::write(mine.join("index.lock"), "").unwrap();

        assert_eq!(
            index_lock_of_new(&common, &path),
            Some(mine.join("index.lock"))
        );
        let named = index_lock_refusal(&common, &path, false)
            .unwrap()
            .to_string();
        assert!(named.ends_with("n6/index.lock exists (another git command holds it, or one was killed while it did)"), "{named}");
        // The race is over by the time berth looks: the lock is gone, and still named.
        fs::remove_file(mine.join("index.lock")).unwrap();
        assert!(index_lock_refusal(&common, &path, false).is_none());
        let raced = index_lock_refusal(&common, &path, true)
            .unwrap()
            .to_string();
        assert!(raced.contains("another git command held"), "{raced}");
        assert!(raced.contains("n6/index.lock"), "{raced}");
        fs::remove_dir_all(&root).unwrap();
    }
}
