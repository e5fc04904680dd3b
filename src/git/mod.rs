//! Everything berth does to git goes through this folder, on gix. The `git` program runs in one
//! place only, `program` (`ship --push`: gix 0.91 cannot push); see README, "Where the git
//! program runs".

pub mod config;
pub mod diff;
pub mod graph;
pub mod hooks;
pub mod ignore;
pub mod land;
pub mod locks;
pub mod program;
pub mod quick;
pub mod refs;
pub mod status;
pub mod tree;
pub mod worktrees;

/// git's environment variables that point a `git` (or gix's discovery) at a repository other
/// than the one its folder is in: dropped wherever berth starts something that must find the
/// repository from its own folder (a hook, the MCP server).
pub const LOCATION_VARIABLES: &[&str] = &[
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_COMMON_DIR",
    "GIT_INDEX_FILE",
    "GIT_PREFIX",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
];

/// A gix error as an anyhow error, its causes kept as a chain (not formatted: gix 0.91's `{:#}`
/// is Rust debug text, `Message { .. } Caused by: Os { code: 28, .. }`), so that
/// [`crate::error::render`] can say each in words and find the I/O error beneath.
pub fn gix_err<E: std::error::Error + Send + Sync + 'static>(e: E) -> anyhow::Error {
    anyhow::Error::new(e)
}

/// `refs/heads/<short>`, validated as git validates a branch name.
pub fn branch_ref(short: &str) -> anyhow::Result<gix::refs::FullName> {
    let invalid = || {
        crate::error::refuse_with_hint(
            format!("'{short}' is not a valid branch name"),
            "check it with: git check-ref-format --branch <name> (and berth.branchPrefix)",
        )
    };
    let full: gix::refs::FullName = format!("refs/heads/{short}")
        .try_into()
        .map_err(|_| invalid())?;
    gix::validate::reference::branch_name(full.as_bstr()).map_err(|_| invalid())?;
    Ok(full)
}

/// Delete a local branch, its reflog and its `branch.<name>` config, but only while it still
/// points at `expected`, so work added since is never lost.
pub fn delete_branch(
    repo: &gix::Repository,
    short: &str,
    expected: gix::ObjectId,
    ui: &crate::ui::Ui,
) -> anyhow::Result<()> {
    let name = branch_ref(short)?;
    // gix takes the config's lock to drop `branch.<name>` even when there is none, and a kill
    // while it holds it leaves `config.lock`, which refuses every later branch deletion. A
    // branch with no config of its own (every branch berth makes) is deleted by its ref alone.
    let has_config = repo
        .config_snapshot()
        .plumbing()
        .sections_by_name("branch")
        .into_iter()
        .flatten()
        .any(|section| section.header().subsection_name() == Some(short.into()));
    if !has_config {
        // As gix would: a branch some worktree has checked out is not deleted.
        let dirs = worktrees::checked_out_in(repo, short)?;
        if !dirs.is_empty() {
            return Err(worktrees::checked_out_elsewhere(short, &dirs));
        }
        let edit = gix::refs::transaction::RefEdit {
            change: gix::refs::transaction::Change::Delete {
                expected: gix::refs::transaction::PreviousValue::MustExistAndMatch(
                    gix::refs::Target::Object(expected),
                ),
                log: gix::refs::transaction::RefLog::AndReference,
            },
            name,
            deref: false,
        };
        return refs::edit_recorded(repo, edit, &[], ui)
            .map_err(|e| e.context(format!("cannot delete branch '{short}'")));
    }
    let common = repo.common_dir();
    locks::clear_dead(common, ui);
    let _taking = locks::taking(
        common,
        &[
            locks::lock_of(&locks::ref_path(common, &name)),
            common.join("packed-refs.lock"),
            common.join("config.lock"),
        ],
    )?;
    let mut repo = repo.clone();
    repo.delete_local_branches_if_unchanged([(name, gix::refs::Target::Object(expected))])
        .map_err(crate::git::gix_err)
        .map_err(|e| e.context(format!("cannot delete branch '{short}'")))
}

/// The commit HEAD points at; `None` on an unborn branch or an unreadable HEAD.
pub fn head(repo: &gix::Repository) -> Option<gix::ObjectId> {
    repo.head_id().ok().map(|id| id.detach())
}

/// The short name of the branch HEAD is on; `None` when detached.
pub fn head_branch(repo: &gix::Repository) -> Option<String> {
    repo.head_name()
        .ok()
        .flatten()
        .map(|n| n.shorten().to_string())
}

/// The first line of a commit's message.
pub fn subject(repo: &gix::Repository, id: gix::ObjectId) -> Option<String> {
    let commit = repo.find_commit(id).ok()?;
    let message = commit.message().ok()?;
    Some(message.summary().to_string())
}

/// The best common ancestor of two commits.
pub fn merge_base(
    repo: &gix::Repository,
    a: gix::ObjectId,
    b: gix::ObjectId,
) -> Option<gix::ObjectId> {
    repo.merge_base(a, b).ok().flatten().map(|id| id.detach())
}

/// Every path in the primary checkout's index (the repository's main worktree).
pub fn tracked_paths(repo: &gix::Repository) -> anyhow::Result<std::collections::BTreeSet<String>> {
    use anyhow::Context as _;
    let main = repo.main_repo().map_err(gix_err)?;
    let index = main
        .index_or_empty()
        .map_err(gix_err)
        .context("cannot read the primary checkout's index")?;
    Ok(index
        .entries()
        .iter()
        .map(|e| e.path(&index).to_string())
        .collect())
}

/// The abbreviated commit id shown to people.
pub fn short(hex: &str) -> &str {
    &hex[..hex.len().min(7)]
}

/// [`delete_branch`] as a compare-and-swap that tells instead of failing: [`refs::Swap::Moved`]
/// with where the branch points now when it no longer points at `expected` (a commit made since
/// the caller judged it: the branch stays), [`refs::Swap::Done`] when it is gone (already, or now).
pub fn delete_branch_at(
    repo: &gix::Repository,
    short: &str,
    expected: gix::ObjectId,
    ui: &crate::ui::Ui,
) -> anyhow::Result<refs::Swap> {
    let name = branch_ref(short)?.to_string();
    let moved = |now: Option<gix::ObjectId>| match now {
        None => refs::Swap::Done,
        now => refs::Swap::Moved(now),
    };
    let now = refs::target(repo, &name)?;
    if now != Some(expected) {
        return Ok(moved(now));
    }
    match delete_branch(repo, short, expected, ui) {
        Ok(()) => Ok(refs::Swap::Done),
        // It moved between the look and the delete: the delete refused, as it must.
        Err(err) => match refs::target(repo, &name)? {
            now if now != Some(expected) => Ok(moved(now)),
            _ => Err(err),
        },
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_gix_error_keeps_its_causes_for_the_reporter_never_its_debug_text() {
        let err = super::gix_err(crate::error::tests::gix_disk_full());
        let (line, hint) = crate::error::render(&err);
        assert_eq!(
            line,
            "Could not remove the linked worktree: no space left on device"
        );
        assert!(hint.is_some_and(|h| h.starts_with("free space")));
    }
}
