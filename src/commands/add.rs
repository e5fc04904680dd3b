//! `git berth add`: create a worktree on a new branch (or reuse the one of that name), register it,
//! print its path. The registry lock is held from the name check to the registry write, so two
//! adds of one name cannot both create it; the post-checkout hook runs after the lock is released.

use std::io::Write;
use std::path::PathBuf;

use anyhow::{Context as _, Result};
use serde::Serialize;

use crate::error::refuse_with_hint;
use crate::git::{self, graph, worktrees};
use crate::registry::{self, Record, Store};
use crate::repo::{Context, real_or_same};
use crate::{inventory, names, slug};

#[derive(Debug, clap::Args)]
pub struct AddArgs {
    /// Name of the worktree; anything outside [A-Za-z0-9._-] becomes '-'
    pub name: String,
    /// Commit or branch the new branch starts from [default: HEAD of the worktree you are in]
    #[arg(long, value_name = "REV")]
    pub base: Option<String>,
    /// Check out this existing branch instead of creating <berth.branchPrefix><name>
    #[arg(long, value_name = "BRANCH", conflicts_with = "base")]
    pub branch: Option<String>,
    /// Refuse a name that already exists instead of reusing its worktree
    #[arg(long)]
    pub no_reuse: bool,
    /// Print a JSON object instead of the path
    #[arg(long)]
    pub json: bool,
}

/// What `add --json` prints.
#[derive(Debug, Serialize)]
pub struct Added {
    pub name: String,
    pub path: PathBuf,
    pub branch: String,
    /// The commit the branch started from.
    pub base: String,
    /// What `--base` named.
    pub base_ref: String,
    pub reused: bool,
}

pub fn run(ctx: &Context, args: &AddArgs, out: &mut dyn Write) -> Result<()> {
    let added = add(ctx, args)?;
    report(out, args.json, &added)
}

/// Create (or reuse) the worktree `args` describe; what was made is returned, nothing printed
/// on stdout.
pub fn add(ctx: &Context, args: &AddArgs) -> Result<Added> {
    let slug = slug::slug(&args.name)?;
    let store = Store::new(ctx.state_dir());
    let mut locked = store.lock()?;

    if let Some(existing) = locked
        .registry
        .worktrees
        .iter()
        .find(|r| r.name == args.name)
    {
        let existing = existing.clone();
        drop(locked);
        return reuse(ctx, args, &existing);
    }
    if let Some(other) = locked.registry.worktrees.iter().find(|r| r.slug == slug) {
        return Err(refuse_with_hint(
            format!(
                "names '{}' and '{}' both slug to '{slug}'",
                args.name, other.name
            ),
            format!(
                "pick another name, or use the existing one: {} path '{}'",
                names::TOOL,
                other.name
            ),
        ));
    }

    let path = ctx.worktree_base()?.join(&slug);
    if path.exists() && !is_empty_dir(&path) {
        return Err(refuse_with_hint(
            format!("target path exists and is not empty: {}", path.display()),
            "remove it, or pick another name",
        ));
    }

    let (plan, base_ref, base_commit) = match &args.branch {
        Some(branch) => {
            let tip = graph::branch_tip(&ctx.repo, branch).ok_or_else(|| {
                refuse_with_hint(
                    format!("branch '{branch}' does not exist"),
                    format!(
                        "start a new branch from it: {} add {} --base {branch}",
                        names::TOOL,
                        args.name
                    ),
                )
            })?;
            (Plan::Existing(branch.clone()), branch.clone(), tip)
        }
        None => {
            // `HEAD` is recorded as the branch it names, so ahead/behind follow that branch later.
            let base_ref = match args.base.as_deref() {
                None | Some("HEAD") => ctx
                    .repo
                    .head_name()
                    .ok()
                    .flatten()
                    .map(|n| n.shorten().to_string())
                    .unwrap_or_else(|| "HEAD".to_owned()),
                Some(rev) => rev.to_owned(),
            };
            let base = graph::resolve_commit(&ctx.repo, &base_ref).ok_or_else(|| {
                refuse_with_hint(
                    format!("base '{base_ref}' is not a commit"),
                    "name a branch, tag or commit that exists: git log --oneline",
                )
            })?;
            let branch = format!("{}{slug}", ctx.branch_prefix());
            git::branch_ref(&branch)?;
            match graph::branch_tip(&ctx.repo, &branch) {
                // A branch kept by an earlier `remove` is resumed, not replaced.
                Some(tip) => {
                    eprintln!("resuming existing branch {branch}");
                    let fork = ctx
                        .repo
                        .merge_base(tip, base)
                        .ok()
                        .flatten()
                        .map(|id| id.detach())
                        .unwrap_or(base);
                    (Plan::Existing(branch), base_ref, fork)
                }
                None => (Plan::New(branch), base_ref, base),
            }
        }
    };

    let (branch, checkout) = match &plan {
        Plan::New(branch) => (
            branch.clone(),
            worktrees::Checkout::NewBranch {
                branch,
                at: base_commit,
                from: &base_ref,
            },
        ),
        Plan::Existing(branch) => (branch.clone(), worktrees::Checkout::Existing { branch }),
    };
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .with_context(|| format!("cannot create {}", parent.display()))?;
    }
    worktrees::create(&ctx.repo, &path, checkout)?;
    let path = real_or_same(&path);

    let record = Record {
        name: args.name.clone(),
        slug,
        path: path.clone(),
        branch: branch.clone(),
        base_ref: base_ref.clone(),
        base_commit: base_commit.to_string(),
        created: registry::now(),
    };
    locked.registry.worktrees.push(record);
    if let Err(err) = locked.save() {
        // Nothing may stay behind that the registry does not know: undo the worktree and branch.
        let _ = worktrees::remove(&ctx.repo, &path, true);
        if matches!(plan, Plan::New(_)) {
            let _ = git::delete_branch(&ctx.repo, &branch, base_commit);
        }
        return Err(err);
    }
    drop(locked);
    eprintln!(
        "created worktree '{}' on branch {branch} from {base_ref} ({})",
        args.name,
        short(&base_commit.to_string())
    );

    let head = graph::branch_tip(&ctx.repo, &branch).unwrap_or(base_commit);
    git::hooks::post_checkout(&ctx.repo, &ctx.common_dir, &path, head)?;

    Ok(Added {
        name: args.name.clone(),
        path,
        branch,
        base: base_commit.to_string(),
        base_ref,
        reused: false,
    })
}

enum Plan {
    New(String),
    Existing(String),
}

/// Hand back a worktree that already exists under this name.
fn reuse(ctx: &Context, args: &AddArgs, record: &Record) -> Result<Added> {
    if args.no_reuse {
        return Err(refuse_with_hint(
            format!(
                "worktree '{}' already exists at {}",
                args.name,
                record.path.display()
            ),
            format!(
                "pick another name, or drop --no-reuse to reuse it: {} path '{}'",
                names::TOOL,
                args.name
            ),
        ));
    }
    let registry = registry::Registry {
        version: registry::FORMAT_VERSION,
        worktrees: vec![record.clone()],
    };
    let present = inventory::entries(ctx, &registry, false)?
        .first()
        .is_some_and(|e| e.present);
    if !present {
        return Err(refuse_with_hint(
            format!(
                "worktree '{}' is registered but {} is gone",
                args.name,
                record.path.display()
            ),
            format!(
                "forget it, then add it again: {} prune && {} add '{}'",
                names::TOOL,
                names::TOOL,
                args.name
            ),
        ));
    }
    if args.base.is_some() || args.branch.is_some() {
        eprintln!(
            "worktree '{}' exists; --base and --branch apply only to a new one",
            args.name
        );
    }
    Ok(Added {
        name: record.name.clone(),
        path: record.path.clone(),
        branch: record.branch.clone(),
        base: record.base_commit.clone(),
        base_ref: record.base_ref.clone(),
        reused: true,
    })
}

fn report(out: &mut dyn Write, json: bool, added: &Added) -> Result<()> {
    if json {
        super::write_json(out, added)
    } else {
        writeln!(out, "{}", added.path.display())?;
        Ok(())
    }
}

fn is_empty_dir(path: &std::path::Path) -> bool {
    std::fs::read_dir(path).is_ok_and(|mut entries| entries.next().is_none())
}

/// The abbreviated commit id shown to people.
pub fn short(hex: &str) -> &str {
    &hex[..hex.len().min(7)]
}
