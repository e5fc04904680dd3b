//! What git ignores in a checkout: its `.gitignore` files, `info/exclude` and `core.excludesFile`,
//! read as `git status` reads them.

use std::path::{Path, PathBuf};

use anyhow::Result;

/// Of `paths` (relative to the checkout at `root`, each with whether it is a folder), those git
/// does not ignore there: untracked, they make the checkout dirty.
pub fn not_ignored(root: &Path, paths: &[(PathBuf, bool)]) -> Result<Vec<PathBuf>> {
    if paths.is_empty() {
        return Ok(Vec::new());
    }
    let repo = super::config::open(root)?;
    let index = repo.index_or_empty().map_err(super::gix_err)?;
    let mut excludes = repo
        .excludes(
            &index,
            None,
            gix::worktree::stack::state::ignore::Source::WorktreeThenIdMappingIfNotSkipped,
        )
        .map_err(super::gix_err)?;
    let mut out = Vec::new();
    for (rel, is_dir) in paths {
        let mode = is_dir.then_some(gix::index::entry::Mode::DIR);
        if !excludes
            .at_path(rel, mode)
            .map_err(super::gix_err)?
            .is_excluded()
        {
            out.push(rel.clone());
        }
    }
    Ok(out)
}
