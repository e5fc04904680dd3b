//! Landing, in git terms: build a candidate commit on the trunk's tip in memory (squash, merge or
//! fast-forward), keep it only when it merges cleanly, and bring a checkout that has the trunk
//! checked out along to a new tip, file by file. The trunk itself moves by compare-and-swap
//! (`refs::swap`). Nothing here writes over a change in a checkout the caller did not check.

use std::collections::BTreeSet;
use std::path::Path;

use anyhow::{Context as _, Result};
use gix::objs::Write as _;

use super::gix_err;
use crate::ui::Ui;

/// How a worktree's branch becomes part of the trunk.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Strategy {
    /// One new commit on the trunk's tip with the branch's changes.
    Squash,
    /// A merge commit of the trunk's tip and the branch.
    Merge,
    /// The trunk moves to the branch's head; only when the trunk is an ancestor of it.
    Ff,
}

impl Strategy {
    pub fn as_str(self) -> &'static str {
        match self {
            Strategy::Squash => "squash",
            Strategy::Merge => "merge",
            Strategy::Ff => "ff",
        }
    }
}

/// What building a candidate gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Built {
    /// The candidate commit, written to the object database (no ref points at it).
    Commit(gix::ObjectId),
    /// The merge stops on these files.
    Conflicts(Vec<String>),
    /// The branch brings nothing the trunk lacks.
    Nothing,
    /// `ff` was asked, and the trunk is not an ancestor of the head.
    NotFastForward,
}

/// Build the candidate of landing `head` on `trunk` with `strategy`; `message` is the new
/// commit's message (unused for `ff`). The merge runs in memory; with `write`, a clean result's
/// new objects reach the object database (without, nothing is written: a dry run).
pub fn build(
    repo: &gix::Repository,
    trunk: gix::ObjectId,
    head: gix::ObjectId,
    strategy: Strategy,
    message: &str,
    write: bool,
) -> Result<Built> {
    if trunk == head || repo.is_ancestor(head, trunk).map_err(gix_err)? {
        return Ok(Built::Nothing);
    }
    if strategy == Strategy::Ff {
        return Ok(if repo.is_ancestor(trunk, head).map_err(gix_err)? {
            Built::Commit(head)
        } else {
            Built::NotFastForward
        });
    }
    let trunk_tree = tree_of(repo, trunk)?;
    super::graph::merge_in_memory(repo, trunk, head, |memory, mut outcome| {
        let how = gix::merge::tree::TreatAsUnresolved::git();
        if outcome.tree_merge.has_unresolved_conflicts(how) {
            let files: BTreeSet<String> = outcome
                .tree_merge
                .conflicts
                .iter()
                .filter(|c| c.is_unresolved(how))
                .map(|c| c.ours.location().to_string())
                .collect();
            return Ok(Built::Conflicts(files.into_iter().collect()));
        }
        let tree = outcome.tree_merge.tree.write().map_err(gix_err)?.detach();
        if tree == trunk_tree && strategy == Strategy::Squash {
            return Ok(Built::Nothing);
        }
        let parents: Vec<gix::ObjectId> = match strategy {
            Strategy::Merge => vec![trunk, head],
            _ => vec![trunk],
        };
        let commit = new_commit(memory, tree, &parents, message)?;
        if write {
            persist(memory, repo, commit)?;
        }
        Ok(Built::Commit(commit))
    })
}

/// A commit by the configured committer (author and committer alike), written to `repo`.
fn new_commit(
    repo: &gix::Repository,
    tree: gix::ObjectId,
    parents: &[gix::ObjectId],
    message: &str,
) -> Result<gix::ObjectId> {
    let who = repo
        .committer()
        .ok_or_else(|| {
            crate::error::refuse_with_hint(
                "no committer identity for the landing commit",
                "git config user.name '<name>' && git config user.email '<email>'",
            )
        })?
        .map_err(gix_err)?
        .to_owned()
        .map_err(gix_err)?;
    let commit = gix::objs::Commit {
        tree,
        parents: parents.iter().copied().collect(),
        author: who.clone(),
        committer: who,
        encoding: None,
        message: message.into(),
        extra_headers: Vec::new(),
    };
    Ok(repo.write_object(&commit).map_err(gix_err)?.detach())
}

/// Copy `id` and everything it needs that `disk` lacks from the in-memory repository to `disk`.
/// A tree already on disk has all its children there, so only new trees are walked.
fn persist(memory: &gix::Repository, disk: &gix::Repository, id: gix::ObjectId) -> Result<()> {
    if disk.has_object(id) {
        return Ok(());
    }
    let object = memory.find_object(id).map_err(gix_err)?.detach();
    match object.kind {
        gix::objs::Kind::Commit => {
            let tree = gix::objs::CommitRef::from_bytes(&object.data, memory.object_hash())
                .map_err(gix_err)?
                .tree();
            persist(memory, disk, tree)?;
        }
        gix::objs::Kind::Tree => {
            let tree = gix::objs::TreeRef::from_bytes(&object.data, memory.object_hash())
                .map_err(gix_err)?;
            for entry in tree.entries {
                if !entry.mode.is_commit() {
                    persist(memory, disk, entry.oid.to_owned())?;
                }
            }
        }
        _ => {}
    }
    disk.objects
        .write_buf(object.kind, &object.data)
        .map_err(gix_err)
        .context("cannot write the landing's objects")?;
    Ok(())
}

/// The tree of commit `id`.
pub fn tree_of(repo: &gix::Repository, id: gix::ObjectId) -> Result<gix::ObjectId> {
    Ok(repo
        .find_commit(id)
        .map_err(gix_err)?
        .tree_id()
        .map_err(gix_err)?
        .detach())
}

/// Local branches whose short name starts with `prefix`, with their tips.
pub fn branches_starting_with(
    repo: &gix::Repository,
    prefix: &str,
) -> Result<Vec<(String, gix::ObjectId)>> {
    let platform = repo.references().map_err(gix_err)?;
    let mut out = Vec::new();
    for reference in platform.local_branches().map_err(gix_err)?.flatten() {
        let mut reference = reference;
        let short = reference.name().shorten().to_string();
        if short.starts_with(prefix)
            && let Ok(id) = reference.peel_to_id()
        {
            out.push((short, id.detach()));
        }
    }
    Ok(out)
}

/// True when the checkout has staged or modified tracked files (untracked ones do not count).
pub fn has_tracked_changes(repo: &gix::Repository) -> Result<bool> {
    let mut iter = repo
        .status(gix::progress::Discard)
        .map_err(gix_err)?
        .untracked_files(gix::status::UntrackedFiles::None)
        .index_worktree_rewrites(None)
        .tree_index_track_renames(gix::status::tree_index::TrackRenames::Disabled)
        .index_worktree_submodules(gix::status::Submodule::AsConfigured { check_dirty: true })
        .into_iter(None)
        .map_err(gix_err)?;
    match iter.next() {
        None => Ok(false),
        Some(Ok(_)) => Ok(true),
        Some(Err(e)) => Err(gix_err(e)),
    }
}

/// The paths that differ between two trees, files only, with whether each is gone in `new`.
pub fn changed_paths(
    repo: &gix::Repository,
    old: gix::ObjectId,
    new: gix::ObjectId,
) -> Result<Vec<(String, bool)>> {
    let old = repo.find_tree(old).map_err(gix_err)?;
    let new = repo.find_tree(new).map_err(gix_err)?;
    let changes = repo
        .diff_tree_to_tree(&old, &new, gix::diff::Options::default())
        .map_err(gix_err)?;
    let mut out: Vec<(String, bool)> = changes
        .iter()
        .filter(|c| !c.entry_mode().is_tree())
        .map(|c| {
            let gone = matches!(c, gix::object::tree::diff::ChangeDetached::Deletion { .. });
            (c.location().to_string(), gone)
        })
        .collect();
    out.sort();
    out.dedup();
    Ok(out)
}

/// Files of `tree` that a checkout lacks in its index but has on disk: a checkout moved to
/// `tree` would write over them.
pub fn untracked_in_the_way(
    checkout: &gix::Repository,
    changed: &[(String, bool)],
) -> Result<Vec<String>> {
    let Some(dir) = checkout.workdir() else {
        return Ok(Vec::new());
    };
    let index = checkout.index_or_empty().map_err(gix_err)?;
    Ok(changed
        .iter()
        .filter(|(path, gone)| {
            !gone
                && index.entry_by_path(path.as_str().into()).is_none()
                && std::fs::symlink_metadata(dir.join(path)).is_ok()
        })
        .map(|(path, _)| path.clone())
        .collect())
}

/// Move a clean checkout's index and files from commit `old` to commit `new`: only the files
/// that differ are written or deleted; every other entry keeps its stat data, so `git status`
/// stays clean and fast. Safe to run again after a kill: the files are compared to `new`'s tree,
/// not to what the index says. Returns how many files changed.
///
/// git's `index.lock` is taken first, before any file is touched, so a git command at work in the
/// checkout is never raced; under it the checkout is judged again: HEAD must still be at `new`
/// (else it is left alone), the index at `old` or `new`, and each file the landing writes or
/// deletes as `old` or `new` has it (a change made since is never written over). `held` is a
/// file written under the lock before any file is touched and removed once the index is in place:
/// found naming `new`, a run of this was killed midway, and a file it half wrote is its own.
pub fn bring_checkout_along(
    checkout: &gix::Repository,
    old: gix::ObjectId,
    new: gix::ObjectId,
    held: &Path,
    ui: &Ui,
) -> Result<usize> {
    let dir = checkout
        .workdir()
        .context("the checkout to bring along has no work tree")?
        .to_owned();
    let index_path = checkout.index_path();
    let lock_path = super::locks::lock_of(&index_path);
    let common = checkout.common_dir();
    super::locks::clear_dead(common, ui);
    let _taking = super::locks::taking(common, std::slice::from_ref(&lock_path))?;
    let lock = gix::lock::File::acquire_to_update_resource(
        &index_path,
        gix::lock::acquire::Fail::Immediately,
        None,
        Default::default(),
    )
    .map_err(|err| {
        if lock_path.exists() {
            crate::error::refuse_with_hint(
                format!(
                    "another git command holds {}; the checkout has not caught up with the trunk",
                    lock_path.display()
                ),
                format!(
                    "when that git command is done: {} prune (if none is running, remove {})",
                    crate::names::TOOL,
                    lock_path.display()
                ),
            )
        } else {
            gix_err(err)
        }
    })?;
    // Tests stop here, the index locked and no file touched yet, to kill it.
    super::locks::test_pause("BERTH_TEST_PAUSE_INDEX_LOCKED_MS");
    if super::head(checkout) != Some(new) {
        ui.status(format_args!(
            "{} is no longer on the landed commit; it is left as it is",
            dir.display()
        ));
        return Ok(0);
    }
    let (old_tree, new_tree) = (tree_of(checkout, old)?, tree_of(checkout, new)?);
    let changed = changed_paths(checkout, old_tree, new_tree)?;
    let old_index = checkout.index_or_empty().map_err(gix_err)?;
    let mut index = checkout.index_from_tree(&new_tree).map_err(gix_err)?;
    let was = checkout.index_from_tree(&old_tree).map_err(gix_err)?;
    if !same_entries(&old_index, &was) && !same_entries(&old_index, &index) {
        return Err(crate::error::refuse_with_hint(
            format!(
                "the checkout {} has staged changes since the landing was checked; it has not caught up with the trunk",
                dir.display()
            ),
            format!(
                "commit or stash them there, then: {} prune",
                crate::names::TOOL
            ),
        ));
    }
    let resumed = std::fs::read_to_string(held)
        .is_ok_and(|t| gix::ObjectId::from_hex(t.trim().as_bytes()).ok() == Some(new));
    let touched: BTreeSet<&str> = if resumed {
        BTreeSet::new()
    } else {
        changed.iter().map(|(p, _)| p.as_str()).collect()
    };
    let unlike_old = differing(checkout, &was, &touched)?;
    let unlike_new = differing(checkout, &index, &touched)?;
    let changed_since: Vec<&str> = touched
        .iter()
        .copied()
        .filter(|p| {
            let matches = |tree: &gix::index::File, unlike: &BTreeSet<String>| {
                tree.entry_by_path(p.as_bytes().into()).is_some() && !unlike.contains(*p)
            };
            std::fs::symlink_metadata(dir.join(p)).is_ok()
                && !matches(&was, &unlike_old)
                && !matches(&index, &unlike_new)
        })
        .collect();
    if !changed_since.is_empty() {
        return Err(crate::error::refuse_with_hint(
            format!(
                "{} in the checkout {} changed since the landing was checked; it has not caught up with the trunk",
                changed_since.join(", "),
                dir.display()
            ),
            format!(
                "commit, stash or move them there, then: {} prune",
                crate::names::TOOL
            ),
        ));
    }
    if let Some(parent) = held.parent() {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("cannot create {}", parent.display()))?;
    }
    std::fs::write(held, new.to_string())
        .with_context(|| format!("cannot write {}", held.display()))?;
    for (path, gone) in &changed {
        if *gone {
            remove_file_and_empty_parents(&dir, path)?;
        }
    }
    // The changed files, and every `.gitattributes`: the checkout reads attributes (line endings,
    // filters) from the index it writes, so they must be in it, whether they changed or not.
    let attributes: Vec<String> = index
        .entries()
        .iter()
        .map(|e| e.path(&index).to_string())
        .filter(|p| p == ".gitattributes" || p.ends_with("/.gitattributes"))
        .collect();
    let wanted: BTreeSet<&str> = changed
        .iter()
        .filter(|(_, gone)| !gone)
        .map(|(p, _)| p.as_str())
        .chain(attributes.iter().map(String::as_str))
        .collect();
    let mut partial = index.clone();
    partial.remove_entries(|_, path, _| !wanted.contains(path.to_string().as_str()));
    if !partial.entries().is_empty() {
        let mut options = checkout
            .checkout_options(gix::worktree::stack::state::attributes::Source::IdMapping)
            .map_err(gix_err)?;
        options.destination_is_initially_empty = false;
        options.overwrite_existing = true;
        let files = gix::progress::Discard;
        let bytes = gix::progress::Discard;
        let interrupt = std::sync::atomic::AtomicBool::new(false);
        let outcome = gix::worktree::state::checkout(
            &mut partial,
            &dir,
            checkout.objects.clone().into_arc().map_err(gix_err)?,
            &files,
            &bytes,
            &interrupt,
            options,
        )
        .map_err(gix_err)
        .with_context(|| format!("cannot write the landed files into {}", dir.display()))?;
        if let Some(first) = outcome.errors.first() {
            anyhow::bail!(
                "cannot write {} into {}: {}",
                first.path,
                dir.display(),
                first.error
            );
        }
    }
    // Stat data: what the checkout just wrote for changed files, the old index's for the rest.
    let (entries, paths) = index.entries_mut_and_pathbacking();
    for entry in entries.iter_mut() {
        let path = entry.path_in(paths);
        let stat = if wanted.contains(path.to_string().as_str()) {
            partial.entry_by_path(path).map(|e| e.stat)
        } else {
            old_index
                .entry_by_path(path)
                .filter(|e| e.id == entry.id && e.mode == entry.mode)
                .map(|e| e.stat)
        };
        if let Some(stat) = stat {
            entry.stat = stat;
        }
    }
    write_index(&index, lock)
        .with_context(|| format!("cannot write the index of {}", dir.display()))?;
    std::fs::remove_file(held).with_context(|| format!("cannot remove {}", held.display()))?;
    Ok(changed.len())
}

/// Whether two indexes list the same paths at the same objects and modes (stat data aside).
fn same_entries(a: &gix::index::File, b: &gix::index::File) -> bool {
    a.entries().len() == b.entries().len()
        && a.entries().iter().zip(b.entries()).all(|(x, y)| {
            x.id == y.id && x.mode == y.mode && x.path(a) == y.path(b) && x.stage() == y.stage()
        })
}

/// Of `paths`, those `tree_index` (an index made from a tree, without stat data) holds whose file
/// in the checkout exists and differs from it, as `git status` would judge (filters applied).
fn differing(
    checkout: &gix::Repository,
    tree_index: &gix::index::File,
    paths: &BTreeSet<&str>,
) -> Result<BTreeSet<String>> {
    use gix::status::index_worktree::Item;
    use gix::status::plumbing::index_as_worktree::{Change, EntryStatus};
    let mut index = tree_index.clone();
    index.remove_entries(|_, path, _| !paths.contains(path.to_string().as_str()));
    if index.entries().is_empty() {
        return Ok(BTreeSet::new());
    }
    let iter = checkout
        .status(gix::progress::Discard)
        .map_err(gix_err)?
        .index(gix::worktree::IndexPersistedOrInMemory::InMemory(index))
        .untracked_files(gix::status::UntrackedFiles::None)
        .index_worktree_rewrites(None)
        .index_worktree_submodules(gix::status::Submodule::AsConfigured { check_dirty: true })
        .into_index_worktree_iter(Vec::<gix::bstr::BString>::new())
        .map_err(gix_err)?;
    let mut out = BTreeSet::new();
    for item in iter {
        if let Item::Modification {
            rela_path, status, ..
        } = item.map_err(gix_err)?
            && !matches!(
                status,
                EntryStatus::NeedsUpdate(_) | EntryStatus::Change(Change::Removed)
            )
        {
            out.insert(rela_path.to_string());
        }
    }
    Ok(out)
}

/// Write `index` into git's `index.lock`, which the caller took (and recorded), and put it in
/// place.
fn write_index(index: &gix::index::File, lock: gix::lock::File) -> Result<()> {
    let mut out = std::io::BufWriter::with_capacity(64 * 1024, lock);
    index
        .write_to(&mut out, gix::index::write::Options::default())
        .map_err(gix_err)?;
    let lock = out
        .into_inner()
        .map_err(|e| anyhow::Error::from(e.into_error()))
        .context("cannot flush the index")?;
    lock.commit().map_err(|e| gix_err(e.error))?;
    Ok(())
}

/// Delete a checked-out file and the folders it leaves empty (never the checkout's root).
fn remove_file_and_empty_parents(root: &Path, relative: &str) -> Result<()> {
    let path = root.join(relative);
    match std::fs::remove_file(&path) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(e).with_context(|| format!("cannot remove {}", path.display())),
    }
    let mut dir = path.parent();
    while let Some(d) = dir {
        if d == root || std::fs::remove_dir(d).is_err() {
            break;
        }
        dir = d.parent();
    }
    Ok(())
}
