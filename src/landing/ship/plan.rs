//! What is decided before anything moves: which worktrees land, in what order, whether each may
//! (its review, its checkout, the primary's), and the candidate's message. It reads the repository
//! and the registry; it never writes a ref, a file or a worktree.

use anyhow::Result;

use super::report::{Outcome, Request};
use crate::error::refuse_with_hint;
use crate::git::land::{self, Built, Strategy};
use crate::git::{self, graph};
use crate::landing::forecast::{self, Candidate};
use crate::landing::review;
use crate::ownership::FileOwner;
use crate::registry::Store;
use crate::repo::Context;
use crate::{names, worktree};

/// The worktrees asked for: the names, every approved one, or the one the caller stands in.
pub(super) fn chosen(ctx: &Context, request: &Request) -> Result<Vec<String>> {
    let registry = Store::new(ctx.state_dir()).load()?;
    if request.all_approved {
        let mut names = Vec::new();
        for record in &registry.worktrees {
            if record.name.starts_with(names::SHIP_SCRATCH_PREFIX) || record.creating.is_some() {
                continue;
            }
            let Some(head) = graph::branch_tip(&ctx.repo, &record.branch) else {
                continue;
            };
            // An unreadable verdict is not an approval, and no reason to land none of the rest.
            if review::standing(&ctx.repo, &record.branch, Some(head), &[])?.0
                == review::State::Approved
            {
                names.push(record.name.clone());
            }
        }
        return Ok(names);
    }
    if !request.names.is_empty() {
        let mut names = Vec::new();
        for name in &request.names {
            let record = registry
                .find(name)
                .ok_or_else(|| worktree::unknown_in(ctx, &registry, name))?;
            if !names.contains(&record.name) {
                names.push(record.name.clone());
            }
        }
        return Ok(names);
    }
    let here = ctx
        .current
        .as_ref()
        .filter(|_| ctx.standing == crate::repo::Standing::Linked)
        .and_then(|cur| {
            registry
                .worktrees
                .iter()
                .find(|r| crate::paths::real_or_same(&r.path) == *cur)
        });
    match here {
        Some(record) => Ok(vec![record.name.clone()]),
        None => Err(refuse_with_hint(
            "name the worktrees to ship; you are not in a managed worktree",
            format!(
                "{} ship <name>, or every approved one: {} ship --all-approved",
                names::TOOL,
                names::TOOL
            ),
        )),
    }
}

/// The landing order and the conflicts forecast between the candidates, as `collect` forecasts
/// them (a landed candidate pairs with none). With `all_approved`, worktrees whose changes share
/// no file with another candidate go first, then those that share files but merge cleanly with
/// every other, then those that conflict: one conflict does not stop the rest. Named worktrees
/// keep the order they were given.
pub(super) fn order(
    ctx: &Context,
    trunk: &str,
    names: Vec<String>,
    all_approved: bool,
) -> Result<(Vec<String>, Vec<forecast::Pair>)> {
    let registry = Store::new(ctx.state_dir()).load()?;
    let Some(tip) = graph::branch_tip(&ctx.repo, trunk) else {
        return Ok((names, Vec::new()));
    };
    let candidates: Vec<Candidate> = names
        .iter()
        .map(|name| {
            let record = registry.find(name);
            let head = record.and_then(|r| graph::branch_tip(&ctx.repo, &r.branch));
            let files = match (record, head) {
                (Some(r), Some(head)) => {
                    let base =
                        graph::Base::of(&ctx.repo, r.base_commit, &r.base_ref, Some(&r.branch));
                    let own = graph::unmerged_count(&ctx.repo, head, &base.hidden()).unwrap_or(0);
                    forecast::standing(&ctx.repo, tip, head, &base, own).files
                }
                _ => Vec::new(),
            };
            Candidate {
                name: name.clone(),
                head,
                files,
            }
        })
        .collect();
    let forecast = forecast::forecast(&ctx.repo, &candidates, &ctx.ui);
    let conflicts = forecast
        .conflicts
        .iter()
        .map(|c| forecast::Pair {
            worktrees: c.worktrees.clone(),
            file: c.file.clone(),
        })
        .collect();
    if !all_approved {
        return Ok((names, conflicts));
    }
    let rank: Vec<u8> = names.iter().map(|n| forecast.weight(n)).collect();
    Ok((by_rank(names, &rank), conflicts))
}

/// `names` sorted by `rank`, lowest first, keeping the order within a rank. Pure.
pub fn by_rank(names: Vec<String>, rank: &[u8]) -> Vec<String> {
    let mut ranked: Vec<(u8, usize, String)> = names
        .into_iter()
        .enumerate()
        .map(|(i, n)| (rank[i], i, n))
        .collect();
    ranked.sort();
    ranked.into_iter().map(|(_, _, n)| n).collect()
}

/// The verdict that lets `head` land; any other review state is a refusal that says what to do.
pub(super) fn approved(
    ctx: &Context,
    name: &str,
    branch: &str,
    head: gix::ObjectId,
) -> Result<review::Verdict> {
    let (state, verdict) = review::state(&ctx.repo, branch, head)?;
    let approve = format!("{} review approve '{name}'", names::TOOL);
    match (state, verdict) {
        (review::State::Approved, Some(verdict)) => Ok(verdict),
        (review::State::Rejected, verdict) => Err(refuse_with_hint(
            format!(
                "worktree '{name}' was rejected{}",
                verdict
                    .filter(|v| !v.note.is_empty())
                    .map(|v| format!(" by {}: {}", v.reviewer, v.note))
                    .unwrap_or_default()
            ),
            format!("address the review, commit, and have it reviewed again: {approve}"),
        )),
        (review::State::Stale, _) => Err(refuse_with_hint(
            format!(
                "worktree '{name}' has commits after its review: {} is not what was approved",
                git::short(&head.to_string())
            ),
            format!("have the new head reviewed: {approve}"),
        )),
        _ => Err(refuse_with_hint(
            format!("worktree '{name}' is not approved: nothing lands until a review says so"),
            format!("have it reviewed: {approve}"),
        )),
    }
}

/// The worktree's checkout, which must be there and have the branch's head checked out.
pub(super) fn worktree_checkout(
    ctx: &Context,
    record: &crate::registry::Record,
    head: gix::ObjectId,
) -> Result<gix::Repository> {
    let registry = Store::new(ctx.state_dir()).load()?;
    let entry = worktree::find(ctx, &registry, &record.name)?;
    if !entry.present {
        return Err(refuse_with_hint(
            format!(
                "worktree '{}' is missing: {} is gone",
                record.name,
                record.path.display()
            ),
            format!("{} prune", names::TOOL),
        ));
    }
    let repo = git::config::open(&entry.path)?;
    if git::head(&repo) != Some(head) {
        return Err(refuse_with_hint(
            format!(
                "worktree '{}' does not have the head of {} checked out",
                record.name, record.branch
            ),
            format!("check out {} in it, then ship again", record.branch),
        ));
    }
    Ok(repo)
}

/// The candidate's commit message: squash lists the branch's commit subjects under the first
/// commit's subject; merge says what it merged.
pub(super) fn message(
    repo: &gix::Repository,
    strategy: Strategy,
    branch: &str,
    trunk: &str,
    tip: gix::ObjectId,
    head: gix::ObjectId,
) -> Result<String> {
    match strategy {
        Strategy::Ff => Ok(String::new()),
        Strategy::Merge => Ok(format!("Merge branch '{branch}' into {trunk}\n")),
        Strategy::Squash => {
            let mut subjects: Vec<String> = graph::commits_since(repo, head, &[tip], usize::MAX)?
                .into_iter()
                .map(|c| c.subject)
                .collect();
            subjects.reverse();
            Ok(squash_message(branch, &subjects))
        }
    }
}

/// The first commit's subject (the branch's name when it has none), a blank line, then
/// `- <subject>` for each commit, oldest first: the work's first step usually says what it is
/// for, which the branch's bare name does not. Pure.
pub fn squash_message(branch: &str, subjects: &[String]) -> String {
    let title = subjects
        .first()
        .filter(|s| !s.trim().is_empty())
        .map_or(branch, String::as_str);
    let mut text = format!("{title}\n");
    if !subjects.is_empty() {
        text.push('\n');
        for subject in subjects {
            text.push_str(&format!("- {subject}\n"));
        }
    }
    text
}

/// `--message` as the commit's message: trailing blank lines trimmed, ended by one newline, as
/// `git commit -m` leaves it. Pure.
pub fn given_message(text: &str) -> String {
    format!("{}\n", text.trim_end())
}

/// The candidate's commit, or the refusal for what building it found.
pub(super) fn accept(
    name: &str,
    branch: &str,
    trunk: &str,
    strategy: Strategy,
    built: Built,
    owned: Vec<FileOwner>,
    outcome: &mut Outcome,
) -> Result<gix::ObjectId> {
    match built {
        Built::Commit(id) => Ok(id),
        Built::Conflicts(files) => {
            outcome.conflicts = files.clone();
            let said: Vec<String> = files
                .iter()
                .map(|f| match owned.iter().find(|o| &o.file == f) {
                    Some(o) => format!("{f} (owned by {})", o.said()),
                    None => f.clone(),
                })
                .collect();
            outcome.conflict_owners = owned;
            Err(refuse_with_hint(
                format!(
                    "worktree '{name}' conflicts with {trunk} in {}",
                    said.join(", ")
                ),
                format!(
                    "merge {trunk} into {branch} in it, resolve, commit, have it reviewed, then {} ship '{name}'",
                    names::TOOL
                ),
            ))
        }
        Built::Nothing => Err(refuse_with_hint(
            format!("worktree '{name}' brings nothing {trunk} does not have"),
            format!("remove it: {} remove '{name}'", names::TOOL),
        )),
        Built::NotFastForward => Err(refuse_with_hint(
            format!(
                "{trunk} is not an ancestor of {branch}, so it cannot be fast-forwarded (--strategy {})",
                strategy.as_str()
            ),
            format!(
                "land it as one commit: {} ship '{name}' --strategy squash",
                names::TOOL
            ),
        )),
    }
}

/// The primary checkout, opened, when it has `trunk` checked out; `None` otherwise (it is left
/// alone).
pub(super) fn primary_on(ctx: &Context, trunk: &str) -> Result<Option<gix::Repository>> {
    let Some(path) = &ctx.primary else {
        return Ok(None);
    };
    let repo = git::config::open(path)?;
    Ok((git::head_branch(&repo).as_deref() == Some(trunk)).then_some(repo))
}

/// A primary checkout that would look as if it reverted the landing, or whose untracked files
/// the landing would overwrite, refuses the landing before the trunk moves.
pub(super) fn check_primary(
    primary: &gix::Repository,
    tip: gix::ObjectId,
    candidate: gix::ObjectId,
) -> Result<()> {
    let dir = primary
        .workdir()
        .map(|d| d.display().to_string())
        .unwrap_or_default();
    if land::has_tracked_changes(primary)? {
        return Err(refuse_with_hint(
            format!(
                "the primary checkout {dir} has uncommitted changes on the trunk; nothing was landed"
            ),
            "commit or stash them there, then ship again",
        ));
    }
    let changed = land::changed_paths(
        primary,
        land::tree_of(primary, tip)?,
        land::tree_of(primary, candidate)?,
    )?;
    let in_the_way = land::untracked_in_the_way(primary, &changed)?;
    if !in_the_way.is_empty() {
        return Err(refuse_with_hint(
            format!(
                "untracked files in the primary checkout {dir} would be overwritten by the landing: {}; nothing was landed",
                in_the_way.join(", ")
            ),
            "move them away there, then ship again",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_squash_takes_its_first_commits_subject_and_lists_every_subject() {
        assert_eq!(
            squash_message("berth/a", &["Add login".to_owned()]),
            "Add login\n\n- Add login\n"
        );
        assert_eq!(
            squash_message("berth/a", &["one".to_owned(), "two".to_owned()]),
            "one\n\n- one\n- two\n"
        );
        assert_eq!(squash_message("berth/a", &[]), "berth/a\n");
    }

    #[test]
    fn a_given_message_ends_with_one_newline_and_keeps_its_lines() {
        assert_eq!(given_message("Land it"), "Land it\n");
        assert_eq!(given_message("Title\n\nbody\n\n"), "Title\n\nbody\n");
    }

    #[test]
    fn candidates_that_overlap_no_other_go_first_and_conflicting_ones_last() {
        let names = vec![
            "c".to_owned(),
            "a".to_owned(),
            "b".to_owned(),
            "d".to_owned(),
        ];
        assert_eq!(by_rank(names, &[2, 0, 1, 0]), ["a", "d", "b", "c"]);
    }
}
