//! Files as committed: a commit's tree, the blob at a path in it, the id git gives a blob, and
//! which files of a checkout hold neither of two commits' content.
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

/// The files that differ between commits `old` and `new` whose content in `checkout` is neither
/// `old`'s nor `new`'s: someone's edits, which bringing the checkout from `old` to `new` would
/// overwrite. A file that holds either (or is missing) is not counted: a run of that move a kill
/// cut short leaves only those. Content is compared as git would store it (after its filters).
pub fn edited_since(
    checkout: &gix::Repository,
    old: gix::ObjectId,
    new: gix::ObjectId,
) -> Result<Vec<String>> {
    let Some(dir) = checkout.workdir() else {
        return Ok(Vec::new());
    };
    let (old_tree, new_tree) = (of_commit(checkout, old)?, of_commit(checkout, new)?);
    let changed = super::land::changed_paths(checkout, old_tree.id, new_tree.id)?;
    let id_at = |tree: &gix::Tree<'_>, path: &str| -> Result<Option<gix::ObjectId>> {
        Ok(tree
            .lookup_entry_by_path(path)
            .map_err(super::gix_err)
            .with_context(|| format!("cannot read {path}"))?
            .map(|e| e.object_id()))
    };
    // Content as git would store it (line endings, clean filters), as `git status` compares it.
    let (mut pipeline, index) = checkout.filter_pipeline(None).map_err(super::gix_err)?;
    let mut as_stored = |path: &str, file: &std::path::Path| -> Result<Vec<u8>> {
        use std::io::Read as _;
        let reader = std::fs::File::open(file)?;
        let mut out = Vec::new();
        pipeline
            .convert_to_git(reader, std::path::Path::new(path), &index)
            .map_err(super::gix_err)?
            .read_to_end(&mut out)?;
        Ok(out)
    };
    let mut edited = Vec::new();
    for (path, _) in changed {
        let file = dir.join(&path);
        let ids = [id_at(&old_tree, &path)?, id_at(&new_tree, &path)?];
        let content = match std::fs::symlink_metadata(&file) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(e).with_context(|| format!("cannot read {}", file.display())),
            Ok(meta) if meta.is_symlink() => std::fs::read_link(&file)
                .map(|target| target.into_os_string().into_encoded_bytes())
                .map_err(anyhow::Error::from),
            Ok(meta) if meta.is_file() => as_stored(&path, &file),
            Ok(_) => {
                edited.push(path);
                continue;
            }
        }
        .with_context(|| format!("cannot read {}", file.display()))?;
        if !ids.contains(&Some(blob_id(&content)?)) {
            edited.push(path);
        }
    }
    Ok(edited)
}
