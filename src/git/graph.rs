//! Commit-graph questions: branch tips, ahead/behind, whether a branch holds work that exists
//! nowhere else, and what merging two commits would do (tried in memory). Read-only.

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

/// Merge `theirs` into `ours` in memory, as `git merge` (ort) would, touching no checkout, index or
/// object database; `then` reads the outcome beside the repository that holds its new objects.
pub(super) fn merge_in_memory<R>(
    repo: &gix::Repository,
    ours: gix::ObjectId,
    theirs: gix::ObjectId,
    then: impl FnOnce(&gix::Repository, gix::merge::commit::Outcome<'_>) -> Result<R>,
) -> Result<R> {
    let mut repo = repo.clone().with_object_memory();
    repo.object_cache_size_if_unset(8 * 1024 * 1024);
    let options = repo.tree_merge_options().map_err(crate::git::gix_err)?;
    let outcome = repo
        .merge_commits(ours, theirs, Default::default(), options.into())
        .map_err(crate::git::gix_err)?;
    then(&repo, outcome)
}

/// Merge `tip` into `trunk` in memory. `None` when the merge has conflicts; else the merged tree.
fn merged_tree(
    repo: &gix::Repository,
    trunk: gix::ObjectId,
    tip: gix::ObjectId,
) -> Result<Option<gix::ObjectId>> {
    merge_in_memory(repo, trunk, tip, |_, mut outcome| {
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
    })
}

/// A file on which merging two commits with each other stops for a person.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileConflict {
    pub path: String,
    /// The lines of the two commits' merge base (1-based, first and last) that both change, each
    /// its own way. Empty when the conflict is not in the text: a change against a deletion or a
    /// rename, a binary file, a file both add.
    pub lines: Vec<(u32, u32)>,
}

/// Merge `ours` and `theirs` with each other in memory, as `git merge` would, and say on which
/// files it conflicts; empty when it merges cleanly. Writes nothing.
pub fn conflicts_between(
    repo: &gix::Repository,
    ours: gix::ObjectId,
    theirs: gix::ObjectId,
) -> Result<Vec<FileConflict>> {
    merge_in_memory(repo, ours, theirs, |repo, outcome| {
        let how = gix::merge::tree::TreatAsUnresolved::git();
        let mut files = std::collections::BTreeMap::<String, Vec<(u32, u32)>>::new();
        for conflict in outcome
            .tree_merge
            .conflicts
            .iter()
            .filter(|c| c.is_unresolved(how))
        {
            let (ours, theirs) = conflict.changes_in_resolution();
            let in_text = conflict
                .content_merge()
                .is_some_and(|m| m.resolution == gix::merge::blob::Resolution::Conflict);
            let lines = if in_text {
                lines_both_change(repo, ours, theirs).unwrap_or_default()
            } else {
                Vec::new()
            };
            files
                .entry(ours.location().to_string())
                .or_default()
                .extend(lines);
        }
        Ok(files
            .into_iter()
            .map(|(path, mut lines)| {
                lines.sort_unstable();
                lines.dedup();
                FileConflict { path, lines }
            })
            .collect())
    })
}

/// The lines of the base that a text conflict is about, read from the three blobs the merge
/// had; `None` when there is no base (both add the file) or a blob is binary.
fn lines_both_change(
    repo: &gix::Repository,
    ours: &gix::diff::tree_with_rewrites::Change,
    theirs: &gix::diff::tree_with_rewrites::Change,
) -> Option<Vec<(u32, u32)>> {
    use gix::diff::tree_with_rewrites::Change;
    if matches!(ours, Change::Addition { .. }) || matches!(theirs, Change::Addition { .. }) {
        return None;
    }
    let blob = |id: &gix::oid| repo.find_object(id).ok().map(|o| o.detach().data);
    let base = blob(ours.source_entry_mode_and_id().1)?;
    let mine = blob(ours.entry_mode_and_id().1)?;
    let other = blob(theirs.entry_mode_and_id().1)?;
    // git's test for binary: a NUL in the first 8000 bytes.
    let binary = |data: &[u8]| data[..data.len().min(8000)].contains(&0);
    if binary(&base) || binary(&mine) || binary(&other) {
        return None;
    }
    Some(overlapping_changes(&base, &mine, &other))
}

/// The line ranges of `base` (1-based, first and last) that `ours` and `theirs` both change, each
/// to something else, grouped as a three-way merge groups them: changes whose ranges in the base
/// overlap or touch are one region. An insertion both make at one place is given as the line it
/// follows (line 1 at the top). Pure.
pub fn overlapping_changes(base: &[u8], ours: &[u8], theirs: &[u8]) -> Vec<(u32, u32)> {
    use gix::diff::blob::{Algorithm, Diff, InternedInput, sources::byte_lines};

    // One interner for all three, so that the two sides' lines compare as tokens.
    let mut input = InternedInput::new(byte_lines(base), byte_lines(ours));
    let hunks = |input: &InternedInput<&[u8]>| {
        let mut diff = Diff::compute(Algorithm::Histogram, input);
        // As gix's merge: moving a change by indentation can hide an overlap.
        diff.postprocess_no_heuristic(input);
        diff.hunks().collect::<Vec<_>>()
    };
    let mut all: Vec<(bool, gix::diff::blob::Hunk)> =
        hunks(&input).into_iter().map(|h| (true, h)).collect();
    let our_lines = std::mem::take(&mut input.after);
    input.update_after(byte_lines(theirs));
    all.extend(hunks(&input).into_iter().map(|h| (false, h)));
    let their_lines = &input.after;
    all.sort_by_key(|(_, h)| h.before.start);

    let mut regions = Vec::new();
    let mut at = 0;
    while at < all.len() {
        let start = all[at].1.before.start;
        let mut end = all[at].1.before.end;
        let mut group = at + 1;
        while group < all.len() && all[group].1.before.start <= end {
            end = end.max(all[group].1.before.end);
            group += 1;
        }
        let hunks = &all[at..group];
        at = group;
        // Where the region lies in one side: shifted by that side's first and last change in it.
        let side = |mine: bool| {
            let first = hunks.iter().find(|(m, _)| *m == mine)?;
            let last = hunks.iter().rev().find(|(m, _)| *m == mine)?;
            let shift = |after: u32, before: u32| i64::from(after) - i64::from(before);
            let from = i64::from(start) + shift(first.1.after.start, first.1.before.start);
            let to = i64::from(end) + shift(last.1.after.end, last.1.before.end);
            Some(usize::try_from(from).ok()?..usize::try_from(to).ok()?)
        };
        let (Some(mine), Some(other)) = (side(true), side(false)) else {
            continue;
        };
        if our_lines[mine] == their_lines[other] {
            continue;
        }
        regions.push(if end > start {
            (start + 1, end)
        } else {
            (start.max(1), start.max(1))
        });
    }
    regions
}

/// What merging a tip into the trunk would do, from one merge in memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IntoTrunk {
    /// It merges without conflicts.
    pub clean: bool,
    /// It would change nothing: every change on the branch is in the trunk already, as after a
    /// squash or rebase merge.
    pub changes_nothing: bool,
}

/// Merge `tip` into `trunk` in memory, once, and say what it would do.
pub fn into_trunk(
    repo: &gix::Repository,
    trunk: gix::ObjectId,
    tip: gix::ObjectId,
) -> Result<IntoTrunk> {
    let Some(merged) = merged_tree(repo, trunk, tip)? else {
        return Ok(IntoTrunk {
            clean: false,
            changes_nothing: false,
        });
    };
    let trunk_tree = repo
        .find_commit(trunk)
        .map_err(crate::git::gix_err)?
        .tree_id()
        .map_err(crate::git::gix_err)?;
    Ok(IntoTrunk {
        clean: true,
        changes_nothing: merged == trunk_tree.detach(),
    })
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
        && into_trunk(repo, trunk, tip)?.changes_nothing
    {
        return Ok(0);
    }
    Ok(count)
}

#[cfg(test)]
mod tests {
    use super::overlapping_changes;

    const BASE: &[u8] = b"one\ntwo\nthree\nfour\nfive\nsix\nseven\n";

    #[test]
    fn one_line_changed_two_ways_is_that_line() {
        let ours = b"one\nTWO\nthree\nfour\nfive\nsix\nseven\n";
        let theirs = b"one\n2\nthree\nfour\nfive\nsix\nseven\n";
        assert_eq!(overlapping_changes(BASE, ours, theirs), [(2, 2)]);
    }

    #[test]
    fn changes_far_apart_and_the_same_change_on_both_sides_do_not_count() {
        let ours = b"ONE\ntwo\nthree\nfour\nfive\nsix\nSEVEN\n";
        let theirs = b"one\ntwo\nthree\nFOUR\nfive\nsix\nSEVEN\n";
        assert!(overlapping_changes(BASE, ours, theirs).is_empty());
    }

    #[test]
    fn changes_to_neighbouring_lines_are_one_region_as_in_git() {
        let ours = b"one\nTWO\nthree\nfour\nfive\nsix\nseven\n";
        let theirs = b"one\ntwo\nTHREE\nfour\nfive\nsix\nseven\n";
        assert_eq!(overlapping_changes(BASE, ours, theirs), [(2, 3)]);
    }

    #[test]
    fn regions_are_placed_in_the_base_even_after_lines_come_and_go_above_them() {
        let ours = b"zero\none\ntwo\nthree\nfour\nfive\nsix\nSEVEN\n";
        let theirs = b"one\ntwo\nfour\nfive\nsix\n7\n";
        assert_eq!(overlapping_changes(BASE, ours, theirs), [(7, 7)]);
    }

    #[test]
    fn two_additions_at_the_end_are_given_as_the_last_line() {
        let ours = b"one\ntwo\nthree\nfour\nfive\nsix\nseven\neight\n";
        let theirs = b"one\ntwo\nthree\nfour\nfive\nsix\nseven\n8\n";
        assert_eq!(overlapping_changes(BASE, ours, theirs), [(7, 7)]);
    }
}
