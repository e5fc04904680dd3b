//! What each MCP tool does, in plain functions the server calls off its event loop: each opens
//! the repository afresh (the state may have changed since the last call), acts through the
//! same code as the command of its name, and returns that command's `--json` form. A refusal is
//! an error carrying berth's one-line message and hint.

use std::path::{Path, PathBuf};

use anyhow::Result;
use rmcp::schemars::{self, JsonSchema};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::error::refuse_with_hint;
use crate::repo::Context;
use crate::worktree::create::{self, AddRequest};
use crate::worktree::listing::{self, Query, Status};
use crate::worktree::{claim, remove};

/// Where the server runs, and as whom.
#[derive(Debug, Clone)]
pub struct Scope {
    /// The folder the server started in (the agent's).
    pub folder: PathBuf,
    /// `--session`, when given; otherwise the session is the agent process that started the
    /// server, found as for every command.
    pub session: Option<String>,
}

/// Whether `folder` or one of its immediate child folders is a git repository.
pub fn has_repository(folder: &Path) -> bool {
    if is_repository(folder) {
        return true;
    }
    let Ok(children) = std::fs::read_dir(folder) else {
        return false;
    };
    children
        .flatten()
        .any(|c| c.file_type().is_ok_and(|t| t.is_dir()) && c.path().join(".git").exists())
}

/// `folder` is inside a repository's checkout (or is one).
fn is_repository(folder: &Path) -> bool {
    gix::discover(folder).is_ok()
}

/// The repository a call is about: `repo_root` (a folder inside the server's, relative to it or
/// absolute), else the server's own folder.
fn context(scope: &Scope, repo_root: Option<&str>) -> Result<Context> {
    let folder = match repo_root.map(str::trim).filter(|r| !r.is_empty()) {
        None => {
            if !is_repository(&scope.folder) {
                return Err(refuse_with_hint(
                    format!("{} is not in a git repository", scope.folder.display()),
                    "name one of its child repositories in repo_root",
                ));
            }
            scope.folder.clone()
        }
        Some(given) => {
            let wanted = scope.folder.join(given);
            let real = std::fs::canonicalize(&wanted).map_err(|e| {
                refuse_with_hint(
                    format!("repo_root {given}: {}", crate::error::io_reason(&e)),
                    "give a repository folder inside the server's folder",
                )
            })?;
            let home = crate::paths::real_or_same(&scope.folder);
            if !real.starts_with(&home) {
                return Err(refuse_with_hint(
                    format!("repo_root {given} is outside {}", home.display()),
                    "give a repository folder inside the server's folder",
                ));
            }
            real
        }
    };
    let mut ctx = Context::discover_from(&folder)?;
    ctx.session_flag = scope.session.clone();
    Ok(ctx)
}

/// A worktree's state as `worktree_list` filters it.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum StatusFilter {
    Available,
    Claimed,
    Stale,
}

impl From<StatusFilter> for Status {
    fn from(s: StatusFilter) -> Status {
        match s {
            StatusFilter::Available => Status::Available,
            StatusFilter::Claimed => Status::Claimed,
            StatusFilter::Stale => Status::Stale,
        }
    }
}

/// `worktree_list`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ListArgs {
    /// Only worktrees in this state: "available" (nobody holds it), "claimed" or "stale" (its
    /// holder is gone; it can be claimed).
    pub status: Option<StatusFilter>,
    /// Only worktrees branched from this ref (as given when each was made, e.g. "main").
    pub base_ref: Option<String>,
    /// Only the worktrees your session holds.
    #[serde(default)]
    pub mine: bool,
    /// A repository inside the server's folder to act on, relative to it; default: the folder's own.
    pub repo_root: Option<String>,
}

/// Every managed worktree with its claim (`claimed_by` is "self" for yours), base, head, drift,
/// dirtiness and review, as `list --json` gives it, plus `base_commit` and `head_commit`; the
/// repository's key and the worktree the server runs in.
pub fn list(scope: &Scope, args: ListArgs) -> Result<Value> {
    let ctx = context(scope, args.repo_root.as_deref())?;
    let listed = listing::listing(&ctx, &Query::default())?;
    let wanted = args.status.map(Status::from);
    let here = listed
        .listing
        .worktrees
        .iter()
        .find(|r| r.current)
        .map(|r| r.name.clone());
    let mut rows = Vec::new();
    for row in listed.listing.worktrees {
        let mine = listed.mine.contains(&row.name);
        if wanted.is_some_and(|s| row.status != Some(s))
            || args
                .base_ref
                .as_ref()
                .is_some_and(|b| row.base_ref.as_ref() != Some(b))
            || (args.mine && !mine)
        {
            continue;
        }
        let (base, head) = (row.base.clone(), row.head.clone());
        let mut value = serde_json::to_value(&row)?;
        if mine {
            value["claimed_by"] = json!("self");
        }
        value["base_commit"] = json!(base);
        value["head_commit"] = json!(head);
        rows.push(value);
    }
    Ok(json!({
        "repo_key": ctx.repo_key(),
        "cwd_worktree": here,
        "worktrees": rows,
    }))
}

fn yes() -> bool {
    true
}

/// `worktree_create`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct CreateArgs {
    /// The worktree's name; its branch is the branch prefix and the name (berth/<name>).
    pub name: String,
    /// The commit or branch the new branch starts from; default: HEAD of the server's folder.
    pub base: Option<String>,
    /// When a worktree of that name exists and nobody else holds it, claim and return it
    /// (reused: true) instead of refusing.
    #[serde(default = "yes")]
    pub reuse_if_available: bool,
    /// A repository inside the server's folder to act on, relative to it; default: the folder's own.
    pub repo_root: Option<String>,
}

/// Make the worktree (or reuse an available one of that name) claimed for this session: `add
/// --json`'s form.
pub fn create(scope: &Scope, args: CreateArgs) -> Result<Value> {
    let ctx = context(scope, args.repo_root.as_deref())?;
    let added = create::add(
        &ctx,
        &AddRequest {
            name: args.name,
            base: args.base,
            no_reuse: !args.reuse_if_available,
            ..AddRequest::default()
        },
    )?;
    Ok(serde_json::to_value(added)?)
}

/// `worktree_claim`'s and `worktree_release`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct NameArgs {
    /// The worktree's name.
    pub name: String,
    /// A repository inside the server's folder to act on, relative to it; default: the folder's own.
    pub repo_root: Option<String>,
}

/// Take an existing worktree for this session: `claim --json`'s form.
pub fn claim(scope: &Scope, args: NameArgs) -> Result<Value> {
    let ctx = context(scope, args.repo_root.as_deref())?;
    Ok(serde_json::to_value(claim::claim(&ctx, &args.name)?)?)
}

/// Give a worktree back: `release --json`'s form.
pub fn release(scope: &Scope, args: NameArgs) -> Result<Value> {
    let ctx = context(scope, args.repo_root.as_deref())?;
    Ok(serde_json::to_value(claim::release(&ctx, &args.name)?)?)
}

/// `worktree_remove`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct RemoveArgs {
    /// The worktree's name.
    pub name: String,
    /// Remove it even with uncommitted or unmerged work, or held by another session: that work
    /// is lost. Only when a person asked for it.
    #[serde(default)]
    pub force: bool,
    /// Delete its branch too.
    #[serde(default)]
    pub delete_branch: bool,
    /// A repository inside the server's folder to act on, relative to it; default: the folder's own.
    pub repo_root: Option<String>,
}

/// Remove the worktree, with `remove`'s refusals: `remove --json`'s form.
pub fn remove(scope: &Scope, args: RemoveArgs) -> Result<Value> {
    let ctx = context(scope, args.repo_root.as_deref())?;
    let done = remove::remove(
        &ctx,
        std::slice::from_ref(&args.name),
        args.force,
        args.delete_branch,
        &mut |_| {},
    )?;
    let (kept, gone): (Vec<_>, Vec<_>) = done.into_iter().partition(|r| r.kept.is_some());
    if let Some(stays) = kept.first() {
        return Err(refuse_with_hint(
            format!(
                "worktree '{}' changed during its teardown and stayed: {}",
                stays.name,
                stays.kept.as_deref().unwrap_or_default()
            ),
            "look at what changed, then remove it again",
        ));
    }
    Ok(json!({
        "removed": gone
            .iter()
            .map(|r| json!({
                "name": r.name,
                "path": r.path,
                "branch": r.branch,
                "branch_deleted": r.branch_deleted,
            }))
            .collect::<Vec<_>>(),
        "kept": [],
    }))
}
