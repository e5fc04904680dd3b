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
        .map_err(|e| anyhow::anyhow!("{e:#}"))?;
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
        .map_err(|e| anyhow::anyhow!("{e:#}"))?;
    let mut count = 0;
    for info in walk {
        info.map_err(|e| anyhow::anyhow!("{e:#}"))?;
        count += 1;
    }
    Ok(count)
}
