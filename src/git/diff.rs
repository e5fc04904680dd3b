//! What a checkout changed since the commit it started from, committed or not: every file whose
//! content differs between that commit and the checkout's files as they are now, untracked files
//! included and ignored ones left out. Read-only; the text of a diff is made by the caller.

use std::collections::BTreeSet;
use std::path::Path;

use anyhow::{Context as _, Result};
use gix::bstr::{BString, ByteSlice as _};

/// What a path holds on one side of a change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Content {
    /// Nothing at that path.
    Missing,
    /// A file's bytes, or a symbolic link's target.
    Bytes(Vec<u8>),
    /// Something that is not read as a file (a submodule or a folder), in words.
    Other(&'static str),
}

/// One path whose content differs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Changed {
    /// Slash-separated, relative to the checkout's root.
    pub path: String,
    /// At the commit the changes are counted from.
    pub before: Content,
    /// In the checkout now.
    pub after: Content,
}

/// Every change of a checkout since a base.
#[derive(Debug, Clone)]
pub struct Changes {
    /// The commit the changes are counted from: the merge base of the base asked for and the
    /// checkout's HEAD, so a base branch that moved on since does not show as changes undone.
    pub from: gix::ObjectId,
    /// The checkout's HEAD when it was read.
    pub head: gix::ObjectId,
    /// Sorted by path.
    pub files: Vec<Changed>,
}

/// The changes in the checkout at `checkout` since `base` (a ref or a commit, resolved in that
/// checkout's repository): commits since it, staged and unstaged changes, untracked files.
///
/// Paths are found without reading every file: those the commits changed, and those `status`
/// reports (HEAD against the index, the index against the files, untracked files). Each is then
/// read on both sides; one whose content ends up the same (changed, then changed back) is left
/// out. File contents are read as they are on disk, with no attribute filters applied.
pub fn since(checkout: &Path, base: &str) -> Result<Changes> {
    let repo = super::config::open(checkout)?;
    let workdir = repo
        .workdir()
        .map(Path::to_path_buf)
        .with_context(|| format!("{} is not a checkout", checkout.display()))?;
    let head = super::head(&repo)
        .with_context(|| format!("the checkout {} has no commit", checkout.display()))?;
    let base_id = super::graph::resolve_commit(&repo, base).with_context(|| {
        format!(
            "'{base}' names no commit in the repository of {}",
            checkout.display()
        )
    })?;
    let from = super::merge_base(&repo, base_id, head).unwrap_or(base_id);
    let from_tree = super::tree::of_commit(&repo, from)?;
    let head_tree = super::tree::of_commit(&repo, head)?;

    let mut paths: BTreeSet<BString> = BTreeSet::new();
    let committed = repo
        .diff_tree_to_tree(&from_tree, &head_tree, gix::diff::Options::default())
        .map_err(super::gix_err)
        .with_context(|| format!("cannot compare {from} with {head}"))?;
    paths.extend(
        committed
            .iter()
            .filter(|c| !c.entry_mode().is_tree())
            .map(|c| c.location().to_owned()),
    );
    let status = repo
        .status(gix::progress::Discard)
        .map_err(super::gix_err)?
        .untracked_files(gix::status::UntrackedFiles::Files)
        .index_worktree_rewrites(None)
        .tree_index_track_renames(gix::status::tree_index::TrackRenames::Disabled)
        .index_worktree_submodules(gix::status::Submodule::AsConfigured { check_dirty: false })
        .into_iter(None)
        .map_err(super::gix_err)
        .with_context(|| format!("cannot read the status of {}", checkout.display()))?;
    for item in status {
        let item = item
            .map_err(super::gix_err)
            .with_context(|| format!("cannot read the status of {}", checkout.display()))?;
        paths.insert(item.location().to_owned());
    }

    let mut files = Vec::new();
    for path in paths {
        let before = in_tree(&from_tree, &path)?;
        let after = on_disk(&workdir, &path)?;
        if before != after {
            files.push(Changed {
                path: path.to_str_lossy().into_owned(),
                before,
                after,
            });
        }
    }
    Ok(Changes { from, head, files })
}

/// What `path` holds in `tree`.
fn in_tree(tree: &gix::Tree<'_>, path: &BString) -> Result<Content> {
    let shown = path.to_str_lossy();
    let entry = tree
        .lookup_entry(path.split(|b| *b == b'/'))
        .map_err(super::gix_err)
        .with_context(|| format!("cannot look up {shown} in tree {}", tree.id))?;
    let Some(entry) = entry else {
        return Ok(Content::Missing);
    };
    let mode = entry.mode();
    if mode.is_commit() {
        return Ok(Content::Other("a submodule"));
    }
    if mode.is_tree() {
        return Ok(Content::Other("a folder"));
    }
    let blob = entry
        .object()
        .map_err(super::gix_err)
        .with_context(|| format!("cannot read {shown} in tree {}", tree.id))?;
    Ok(Content::Bytes(blob.detach().data))
}

/// What `path` holds in the checkout at `workdir` now; a symbolic link is its target.
fn on_disk(workdir: &Path, path: &BString) -> Result<Content> {
    let relative = gix::path::from_bstr(path.as_bstr())
        .map_err(super::gix_err)
        .with_context(|| format!("{} is not a path here", path.to_str_lossy()))?;
    let full = workdir.join(relative);
    let meta = match std::fs::symlink_metadata(&full) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Content::Missing),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", full.display())),
    };
    if meta.is_symlink() {
        let target = std::fs::read_link(&full)
            .with_context(|| format!("cannot read the link {}", full.display()))?;
        let target = gix::path::into_bstr(target)
            .map_err(super::gix_err)
            .with_context(|| format!("cannot read the link {}", full.display()))?;
        return Ok(Content::Bytes(target.into_owned().into()));
    }
    if meta.is_dir() {
        return Ok(Content::Other(if full.join(".git").exists() {
            "a submodule"
        } else {
            "a folder"
        }));
    }
    let bytes = std::fs::read(&full).with_context(|| format!("cannot read {}", full.display()))?;
    Ok(Content::Bytes(bytes))
}
