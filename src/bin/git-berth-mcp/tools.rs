//! What each MCP tool does, in plain functions the server calls off its event loop: each opens
//! the repository afresh (the state may have changed since the last call), acts through the
//! same code as the command of its name, and returns that command's `--json` form. A refusal is
//! an error carrying berth's one-line message and hint.

use std::path::{Path, PathBuf};

use anyhow::Result;
use berth::error::refuse_with_hint;
use berth::repo::Context;
use berth::worktree::create::{self, AddRequest};
use berth::worktree::listing::{self, Query, Status};
use berth::worktree::{claim, remove};
use rmcp::schemars::{self, JsonSchema};
use serde::Deserialize;
use serde_json::{Value, json};

/// Where the server runs. Its session is pinned by `git berth mcp` in the environment
/// (`BERTH_SESSION_PID`, or `BERTH_SESSION` from `--session`) and found by every call as for
/// every command.
#[derive(Debug, Clone)]
pub struct Scope {
    /// The folder the server started in (the agent's), with links resolved.
    pub folder: PathBuf,
}

/// Whether `folder` or one of its immediate child folders is a git repository, by the one rule
/// the tools use to open one ([`is_repository`]).
pub fn has_repository(folder: &Path) -> bool {
    if is_repository(folder) {
        return true;
    }
    let Ok(children) = std::fs::read_dir(folder) else {
        return false;
    };
    children.flatten().any(|c| {
        let path = c.path();
        // A cheap look first: a checkout has .git, a bare repository HEAD.
        c.file_type().is_ok_and(|t| t.is_dir())
            && (path.join(".git").exists() || path.join("HEAD").is_file())
            && is_repository(&path)
    })
}

/// `folder` is inside a repository (a checkout, or a bare one), found as every command finds it.
fn is_repository(folder: &Path) -> bool {
    Context::discover_from(folder).is_ok()
}

/// The repository a call is about: `repo_root` (a folder inside the server's, relative to it or
/// absolute), else the server's own folder. A repository given by `repo_root` must lie inside
/// the server's folder (or be the one the server runs in): where its checkout is, not only the
/// path named, since a link or a `.git` file can lead elsewhere.
fn context(scope: &Scope, repo_root: Option<&str>) -> Result<Context> {
    let Some(given) = repo_root.map(str::trim).filter(|r| !r.is_empty()) else {
        return Context::discover_from(&scope.folder).map_err(|_| {
            refuse_with_hint(
                format!("{} is not in a git repository", scope.folder.display()),
                "name one of its child repositories in repo_root",
            )
        });
    };
    let outside = || {
        refuse_with_hint(
            format!("repo_root {given} is outside {}", scope.folder.display()),
            "give a repository folder inside the server's folder",
        )
    };
    let real = std::fs::canonicalize(scope.folder.join(given)).map_err(|e| {
        refuse_with_hint(
            format!("repo_root {given}: {}", berth::error::io_reason(&e)),
            "give a repository folder inside the server's folder",
        )
    })?;
    if !real.starts_with(&scope.folder) {
        return Err(outside());
    }
    let ctx = Context::discover_from(&real).map_err(|_| {
        refuse_with_hint(
            format!("repo_root {given} is not a git repository"),
            "give a repository folder inside the server's folder",
        )
    })?;
    let found = ctx
        .current
        .clone()
        .unwrap_or_else(|| ctx.common_dir.clone());
    if !(found.starts_with(&scope.folder) || scope.folder.starts_with(&found)) {
        return Err(outside());
    }
    Ok(ctx)
}

/// The worktree of `rows` that holds `folder`: the deepest, since a linked worktree may lie
/// inside the primary checkout.
fn holding<'a>(rows: &'a [listing::Row], folder: &Path) -> Option<&'a listing::Row> {
    rows.iter()
        .filter(|r| folder.starts_with(&r.path))
        .max_by_key(|r| r.path.components().count())
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
#[serde(deny_unknown_fields)]
pub struct ListArgs {
    /// Only worktrees in this state: "available" (nobody holds it), "claimed" or "stale" (its
    /// holder is gone; it can be claimed).
    pub status: Option<StatusFilter>,
    /// Only worktrees branched from this ref, named exactly as it was given when each was made
    /// (e.g. "main").
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
    let here = holding(&listed.listing.worktrees, &scope.folder).map(|r| r.name.clone());
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
#[serde(deny_unknown_fields)]
pub struct CreateArgs {
    /// The worktree's name; its branch is the branch prefix and the name (berth/<name>).
    pub name: String,
    /// The commit or branch the new branch starts from; default: HEAD of the checkout acted on
    /// (repo_root's, else the server's folder's).
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
#[serde(deny_unknown_fields)]
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
#[serde(deny_unknown_fields)]
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
    let report = remove::Report::of(done);
    match report.stayed() {
        Some(err) => Err(err),
        None => Ok(serde_json::to_value(report)?),
    }
}
