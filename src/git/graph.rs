//! Commit-graph questions: branch tips, ahead/behind, and whether a branch holds work that exists
//! nowhere else. Read-only.

use anyhow::Result;

/// The commit a local branch points to, if the branch exists.
pub fn branch_tip(repo: &gix::Repository, short: &str) -> Option<gix::ObjectId> {
    let name = super::branch_ref(short).ok()?;
    let mut reference = repo.try_find_reference(name.as_ref()).ok()??;
    reference.peel_to_id().ok().map(|id| id.detach())
}

/// The commit `rev` names, or `None` when it names no commit.
pub fn resolve_commit(repo: &gix::Repository, rev: &str) -> Option<gix::ObjectId> {
    let object = repo.rev_parse_single(rev).ok()?.object().ok()?;
    object.peel_to_commit().ok().map(|c| c.id)
}

/// Commits on `tip` not reachable from `base`, and on `base` not reachable from `tip`.
pub fn ahead_behind(
    repo: &gix::Repository,
    tip: gix::ObjectId,
    base: gix::ObjectId,
) -> Result<(usize, usize)> {
    if tip == base {
        return Ok((0, 0));
    }
    let counts = repo
        .ahead_behind_counts(tip, base)
        .map_err(crate::git::gix_err)?;
    Ok((counts.ahead, counts.behind))
}

/// The commit the branch's upstream (`branch.<name>.merge` on its remote) points to.
pub fn upstream_tip(repo: &gix::Repository, short: &str) -> Option<gix::ObjectId> {
    let name = super::branch_ref(short).ok()?;
    let tracking = repo
        .branch_remote_tracking_ref_name(name.as_ref(), gix::remote::Direction::Fetch)?
        .ok()?;
    let mut reference = repo.try_find_reference(tracking.as_ref()).ok()??;
    reference.peel_to_id().ok().map(|id| id.detach())
}

/// How many commits of `tip` exist nowhere else: not on the trunk, not on the upstream, and not
/// before the worktree's base (commits it started from are not its work).
pub fn unmerged_count(
    repo: &gix::Repository,
    tip: gix::ObjectId,
    elsewhere: &[gix::ObjectId],
) -> Result<usize> {
    if elsewhere.contains(&tip) {
        return Ok(0);
    }
    let walk = repo
        .rev_walk([tip])
        .with_hidden(elsewhere.iter().copied())
        .all()
        .map_err(crate::git::gix_err)?;
    let mut count = 0;
    for info in walk {
        info.map_err(crate::git::gix_err)?;
        count += 1;
    }
    Ok(count)
}

/// Merge `tip` into `trunk` in memory, as `git merge` (ort) would, touching no checkout, index or
/// object database. `None` when the merge has conflicts; else the merged tree.
fn merged_tree(
    repo: &gix::Repository,
    trunk: gix::ObjectId,
    tip: gix::ObjectId,
) -> Result<Option<gix::ObjectId>> {
    let mut repo = repo.clone().with_object_memory();
    repo.object_cache_size_if_unset(8 * 1024 * 1024);
    let options = repo.tree_merge_options().map_err(crate::git::gix_err)?;
    let mut outcome = repo
        .merge_commits(trunk, tip, Default::default(), options.into())
        .map_err(crate::git::gix_err)?;
    if outcome
        .tree_merge
        .has_unresolved_conflicts(gix::merge::tree::TreatAsUnresolved::git())
    {
        return Ok(None);
    }
    let tree = outcome
        .tree_merge
        .tree
        .write()
        .map_err(crate::git::gix_err)?;
    Ok(Some(tree.detach()))
}

/// True when merging `tip` into `trunk` would change nothing: every change on the branch is in
/// the trunk already, as after a squash or rebase merge.
pub fn merge_changes_nothing(
    repo: &gix::Repository,
    trunk: gix::ObjectId,
    tip: gix::ObjectId,
) -> Result<bool> {
    let Some(merged) = merged_tree(repo, trunk, tip)? else {
        return Ok(false);
    };
    let trunk_tree = repo
        .find_commit(trunk)
        .map_err(crate::git::gix_err)?
        .tree_id()
        .map_err(crate::git::gix_err)?;
    Ok(merged == trunk_tree.detach())
}

/// True when `tip` merges into `trunk` without conflicts.
pub fn merges_cleanly(
    repo: &gix::Repository,
    trunk: gix::ObjectId,
    tip: gix::ObjectId,
) -> Result<bool> {
    Ok(merged_tree(repo, trunk, tip)?.is_some())
}

/// A commit shown to people.
#[derive(Debug, Clone, serde::Serialize)]
pub struct CommitLine {
    pub id: String,
    pub subject: String,
}

/// Commits on `tip` reachable from none of `base`, newest first, at most `limit`.
pub fn commits_since(
    repo: &gix::Repository,
    tip: gix::ObjectId,
    base: &[gix::ObjectId],
    limit: usize,
) -> Result<Vec<CommitLine>> {
    let walk = repo
        .rev_walk([tip])
        .with_hidden(base.iter().copied())
        .sorting(gix::revision::walk::Sorting::ByCommitTime(
            Default::default(),
        ))
        .all()
        .map_err(crate::git::gix_err)?;
    let mut out = Vec::new();
    for info in walk.take(limit) {
        let info = info.map_err(crate::git::gix_err)?;
        let commit = info.object().map_err(crate::git::gix_err)?;
        let subject = commit
            .message()
            .map(|m| m.summary().to_string())
            .unwrap_or_default();
        out.push(CommitLine {
            id: info.id.to_string(),
            subject,
        });
    }
    Ok(out)
}

/// Files that `tip` changes relative to its merge base with `trunk` (what merging it would
/// bring), without rename tracking.
pub fn changed_files(
    repo: &gix::Repository,
    trunk: gix::ObjectId,
    tip: gix::ObjectId,
) -> Result<Vec<String>> {
    let Some(base) = repo
        .merge_base(tip, trunk)
        .ok()
        .flatten()
        .map(|id| id.detach())
    else {
        return Ok(Vec::new());
    };
    let tree_of = |id: gix::ObjectId| -> Result<gix::Tree<'_>> {
        repo.find_commit(id)
            .map_err(crate::git::gix_err)?
            .tree()
            .map_err(crate::git::gix_err)
    };
    let old = tree_of(base)?;
    let new = tree_of(tip)?;
    let changes = repo
        .diff_tree_to_tree(&old, &new, gix::diff::Options::default())
        .map_err(crate::git::gix_err)?;
    let mut files: Vec<String> = changes
        .iter()
        .filter(|c| !c.entry_mode().is_tree())
        .map(|c| c.location().to_string())
        .collect();
    files.sort();
    files.dedup();
    Ok(files)
}

/// The commits every ref except local branch `short` points to: branches, remote branches and
/// tags. A commit they reach survives deleting `short`.
pub fn other_ref_tips(repo: &gix::Repository, short: &str) -> Result<Vec<gix::ObjectId>> {
    let own = super::branch_ref(short)?;
    let platform = repo.references().map_err(crate::git::gix_err)?;
    let mut tips = Vec::new();
    for reference in platform.all().map_err(crate::git::gix_err)? {
        let Ok(mut reference) = reference else {
            continue;
        };
        if reference.name() == own.as_ref() {
            continue;
        }
        if let Ok(id) = reference.peel_to_id() {
            tips.push(id.detach());
        }
    }
    tips.sort();
    tips.dedup();
    Ok(tips)
}

/// Where a worktree's own work starts: the commit it was made from, and the current tip of the
/// branch it was made from (so work rebased onto that branch does not count the branch's
/// commits). The branch counts only when it is a local branch other than the worktree's own.
#[derive(Debug, Clone)]
pub struct Base {
    pub commit: Option<gix::ObjectId>,
    pub branch_tip: Option<gix::ObjectId>,
}

impl Base {
    /// The base of a worktree made from `commit` off `base_ref`, now on branch `own`.
    pub fn of(
        repo: &gix::Repository,
        commit: Option<gix::ObjectId>,
        base_ref: &str,
        own: Option<&str>,
    ) -> Self {
        let branch_tip = (own != Some(base_ref) && base_ref != "HEAD")
            .then(|| branch_tip(repo, base_ref))
            .flatten();
        Base { commit, branch_tip }
    }

    /// The commits that are not the worktree's work.
    pub fn hidden(&self) -> Vec<gix::ObjectId> {
        self.commit.into_iter().chain(self.branch_tip).collect()
    }

    /// Commits on `head` that are the worktree's own, and commits on the base branch it lacks.
    pub fn ahead_behind(
        &self,
        repo: &gix::Repository,
        head: gix::ObjectId,
    ) -> Result<(usize, usize)> {
        let ahead = unmerged_count(repo, head, &self.hidden())?;
        let behind = match self.branch_tip {
            Some(tip) => ahead_behind(repo, head, tip)?.1,
            None => 0,
        };
        Ok((ahead, behind))
    }
}

/// How many commits of `tip` exist nowhere in `elsewhere`, counting none when merging `tip` into
/// `trunk` would change nothing: a squash or rebase merge leaves the commits off the trunk but
/// their changes on it.
pub fn work_not_landed(
    repo: &gix::Repository,
    tip: gix::ObjectId,
    elsewhere: &[gix::ObjectId],
    trunk: Option<gix::ObjectId>,
) -> Result<usize> {
    let count = unmerged_count(repo, tip, elsewhere)?;
    if count > 0
        && let Some(trunk) = trunk
        && merge_changes_nothing(repo, trunk, tip)?
    {
        return Ok(0);
    }
    Ok(count)
}
