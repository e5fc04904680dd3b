//! Files as committed: a commit's tree, the blob at a path in it, and the id git gives a blob.
//! Hooks and trust read through these, so no file outside `git/` asks gix for an object.

use anyhow::{Context as _, Result};

/// What a path holds in a commit's tree.
pub enum AtPath {
    Missing,
    /// A folder, a symlink or a submodule: never read as a file.
    NotAFile,
    File(Vec<u8>),
}

/// The tree of `commit`.
pub fn of_commit(repo: &gix::Repository, commit: gix::ObjectId) -> Result<gix::Tree<'_>> {
    repo.find_commit(commit)
        .map_err(super::gix_err)
        .and_then(|c| c.tree().map_err(super::gix_err))
        .with_context(|| format!("cannot read the tree of commit {commit}"))
}

/// The file at `path` (slash-separated, relative to the tree's root) in `tree`.
pub fn file_at(tree: &gix::Tree<'_>, path: &str, commit: &gix::ObjectId) -> Result<AtPath> {
    let entry = tree
        .lookup_entry_by_path(path)
        .map_err(super::gix_err)
        .with_context(|| format!("cannot read {path} at {commit}"))?;
    let Some(entry) = entry else {
        return Ok(AtPath::Missing);
    };
    if !entry.mode().is_blob() {
        return Ok(AtPath::NotAFile);
    }
    let blob = entry
        .object()
        .map_err(super::gix_err)
        .with_context(|| format!("cannot read {path} at {commit}"))?;
    Ok(AtPath::File(blob.detach().data))
}

/// The git blob id of `content` (SHA-1), as `git hash-object` computes it.
pub fn blob_id(content: &[u8]) -> Result<gix::ObjectId> {
    gix::objs::compute_hash(gix::hash::Kind::Sha1, gix::objs::Kind::Blob, content)
        .map_err(super::gix_err)
}

/// Every file of `commit`'s tree (blobs and symlinks, not folders or submodules), as
/// slash-separated paths from its root, sorted.
pub fn files_of(repo: &gix::Repository, commit: gix::ObjectId) -> Result<Vec<String>> {
    let tree = of_commit(repo, commit)?;
    let entries = tree
        .traverse()
        .breadthfirst
        .files()
        .map_err(super::gix_err)
        .with_context(|| format!("cannot list the files of commit {commit}"))?;
    let mut files: Vec<String> = entries
        .into_iter()
        .filter(|e| e.mode.is_blob_or_symlink())
        .map(|e| e.filepath.to_string())
        .collect();
    files.sort();
    Ok(files)
}
