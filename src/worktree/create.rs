//! Create: a worktree on a new branch (or the one of that name, reused), registered and claimed
//! for the caller. The registry lock is held from the name check to the final
//! registry write, so two adds of one name cannot both create it. A record marked `creating` is
//! written before anything is made; if the process dies midway, the next `add` or `prune` finds
//! the mark under a free lock and rolls the half-made worktree back.

use std::path::PathBuf;

use anyhow::{Context as _, Result};
use serde::Serialize;

use crate::error::refuse_with_hint;
use crate::git::{self, graph, worktrees};
use crate::hooks::{self, Hooks, Origin};
use crate::paths::real_or_same;
use crate::registry::{Creating, Locked, Record, SetupState, Store};
use crate::repo::Context;
use crate::{names, slug};

use super::bring_up as setup;
use super::claim::{self, Taken};

/// What to create: the name, and where its branch comes from.
#[derive(Debug, Clone, Default)]
pub struct AddRequest {
    pub name: String,
    /// Commit or branch the new branch starts from; `None` is HEAD of where the caller stands.
    pub base: Option<String>,
    /// Check out this existing branch instead of creating `<branchPrefix><name>`.
    pub branch: Option<String>,
    /// Refuse a name that exists instead of reusing its worktree.
    pub no_reuse: bool,
    /// Leave seeding and the setup hook for a later `setup`.
    pub no_setup: bool,
    /// Say nothing of the creation: the caller names the worktree its own way (ship's scratch
    /// worktree, which is not the user's).
    pub quiet: bool,
    /// Untracked paths copied in beside what the seed hook lists (a fleet's `worktree_seed`);
    /// only a worktree this add makes is seeded with them.
    pub seed: Vec<String>,
}

/// What was made or reused (`add --json` prints it).
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
    /// The session that now holds it.
    pub session: String,
    /// A stale claim of another session was replaced.
    pub reclaimed_stale: bool,
}

/// Create (or reuse) the worktree `args` describe; what was made is returned, nothing printed
/// on stdout. The stages, in order: check the name, plan the branch, judge the hooks, reserve
/// (record marked `creating`, port block), make the checkout, finish (post-checkout, setup).
pub fn add(ctx: &Context, args: &AddRequest) -> Result<Added> {
    add_on(ctx, args, None)
}

/// [`add`], with a new worktree's branch named `branch` instead of `<branchPrefix><slug>` (the
/// orchestrator's `layer1 <name> <branch>` and `feat`). A branch of that name that exists is
/// checked out and resumed, as a leftover `<branchPrefix><slug>` is.
pub fn add_on(ctx: &Context, args: &AddRequest, branch: Option<&str>) -> Result<Added> {
    add_making_room(ctx, args, branch, true)
}

/// [`add_on`]; with `may_make_room`, when no port block is free, the lock is given back, landed
/// worktrees nobody holds are removed (their teardowns never run under the lock) and the add
/// starts over once.
fn add_making_room(
    ctx: &Context,
    args: &AddRequest,
    branch: Option<&str>,
    may_make_room: bool,
) -> Result<Added> {
    let slug = slug::slug(&args.name)?;
    let me = ctx.session()?;
    let ttl = ctx.claim_ttl()?;
    let store = Store::new(ctx.state_dir());
    // Killed adds are rolled back and killed removals finished, so the name is free again.
    let mut locked = super::lock(ctx)?;
    // Another add making this name's checkout, with the lock given back: wait for it, as for the
    // lock itself, then reuse what it made (or make it, if it failed).
    let mut said = false;
    while let Some(pid) = locked
        .registry
        .worktrees
        .iter()
        .find(|r| r.name == args.name)
        .and_then(|r| r.creating.as_ref()?.maker())
    {
        drop(locked);
        if !said {
            ctx.ui.status(format_args!(
                "waiting for pid {pid}, which is making worktree '{}'",
                args.name
            ));
            said = true;
        }
        std::thread::sleep(std::time::Duration::from_millis(25));
        locked = super::lock(ctx)?;
    }
    if locked
        .registry
        .worktrees
        .iter()
        .any(|r| r.name == args.name)
    {
        return reuse(ctx, args, locked, &me, ttl);
    }
    let path = check_new_name(ctx, &locked, args, &slug)?;
    let plan = plan(ctx, args, &slug, branch)?;
    if !plan.new_branch {
        let dirs = worktrees::checked_out_in(&ctx.repo, &plan.branch)?;
        if !dirs.is_empty() {
            return Err(worktrees::checked_out_elsewhere(&plan.branch, &dirs));
        }
    }
    let in_force = hooks_for(ctx, &plan)?;
    let reserved = reserve(
        ctx,
        &mut locked,
        args,
        slug,
        &path,
        &plan,
        &in_force,
        &me,
        may_make_room,
    )?;
    let Some((record, tear_down)) = reserved else {
        drop(locked);
        let removed = super::sweep::make_room(ctx)?;
        ctx.ui.status(format_args!(
            "no port block was free; removed {removed} landed worktree(s) to make room"
        ));
        return add_making_room(ctx, args, branch, false);
    };
    // Tests stop `add` here (the record written, the worktree not yet made) to kill it.
    super::test_pause("BERTH_TEST_PAUSE_ADD_MS");
    // The checkout is made under the lock: gix's add reads every other worktree's admin entry,
    // and one another add is writing would fail it (an empty `gitdir`), so adds of different
    // names run one after another.
    let made = make(ctx, &mut locked, record, &plan);
    drop(locked);
    tear_down.run(&ctx.ui);
    let record = made?;
    ctx.ui.quiet_if(args.quiet).status(format_args!(
        "created worktree '{}' on branch {} from {} ({})",
        args.name,
        plan.branch,
        plan.base_ref,
        git::short(&plan.base_commit.to_string())
    ));
    let head = graph::branch_tip(&ctx.repo, &plan.branch).unwrap_or(plan.base_commit);
    git::hooks::post_checkout(&ctx.repo, &ctx.common_dir, &record.path, head)?;
    if !args.no_setup {
        setup::bring_up_seeding(ctx, &store, &record, &in_force, &args.seed)?;
    }
    Ok(Added {
        name: args.name.clone(),
        path: record.path,
        branch: plan.branch,
        base: plan.base_commit.to_string(),
        base_ref: plan.base_ref,
        reused: false,
        session: me.id,
        reclaimed_stale: false,
    })
}

/// A new name must not slug like another, and its folder must be free. Returns the folder.
fn check_new_name(
    ctx: &Context,
    locked: &Locked,
    args: &AddRequest,
    slug: &str,
) -> Result<PathBuf> {
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
    let path = ctx.worktree_base()?.join(slug);
    if path.exists() && !is_empty_dir(&path) {
        if let Some(linked) = super::unmanaged_named(ctx, &locked.registry, slug)
            && real_or_same(&linked) == real_or_same(&path)
        {
            return Err(super::not_managed(&args.name, &linked));
        }
        return Err(refuse_with_hint(
            format!("target path exists and is not empty: {}", path.display()),
            "remove it, or pick another name",
        ));
    }
    Ok(path)
}

/// The hooks of what will be checked out, judged (trusted) before anything is made. Hooks in
/// the checkout that differ from the commit's are not the ones that run: say so.
fn hooks_for(ctx: &Context, plan: &Plan) -> Result<Hooks> {
    let checkout_commit = if plan.new_branch {
        plan.base_commit
    } else {
        graph::branch_tip(&ctx.repo, &plan.branch).unwrap_or(plan.base_commit)
    };
    let in_force = hooks::in_force(&ctx.common_dir, Origin::Commit(&ctx.repo, checkout_commit))?;
    if let Some(current) = &ctx.current
        && let Ok(here) = hooks::in_force(&ctx.common_dir, Origin::Checkout(current))
        && !hooks::same_committed(&here, &in_force)
    {
        ctx.ui.warn(format_args!(
            "the hooks in {} differ from those of the commit '{}' starts from; the commit's run",
            hooks::checkout_dir(current).display(),
            plan.branch
        ));
        // Hooks committed here but not on an older base: committing changes nothing.
        let committed_here = git::head(&ctx.repo)
            .and_then(|head| hooks::in_force(&ctx.common_dir, Origin::Commit(&ctx.repo, head)).ok())
            .is_some_and(|at_head| hooks::same_committed(&here, &at_head));
        if committed_here {
            ctx.ui.hint(
                "its base predates them: start it from a commit that has them (--base), or bring \
                 them into its branch",
            );
        } else {
            ctx.ui.hint(hooks::UNCOMMITTED_HINT);
        }
    }
    setup::ensure_trusted(ctx, &in_force)?;
    Ok(in_force)
}

/// Write the record (marked `creating`, so a killed add is rolled back) with its port block,
/// under the lock. With no block free: `None` when `may_make_room` (the caller gives the lock
/// back and makes room), else the refusal.
#[allow(clippy::too_many_arguments)]
fn reserve(
    ctx: &Context,
    locked: &mut Locked,
    args: &AddRequest,
    slug: String,
    path: &std::path::Path,
    plan: &Plan,
    in_force: &Hooks,
    me: &crate::session::Session,
    may_make_room: bool,
) -> Result<Option<(Record, setup::TearDown)>> {
    let parent = path.parent().expect("a worktree path has a parent");
    std::fs::create_dir_all(parent)
        .with_context(|| format!("cannot create {}", parent.display()))?;
    // The record must name the path exactly as git's admin files will, for a later rollback.
    let path = real_or_same(parent).join(path.file_name().expect("the slug"));
    let now = crate::clock::now();
    let record = Record {
        name: args.name.clone(),
        slug,
        path,
        branch: plan.branch.clone(),
        base_ref: plan.base_ref.clone(),
        base_commit: Some(plan.base_commit),
        created: now,
        claim: Some(me.claim(now)),
        creating: Some(Creating::mine(plan.new_branch)),
        setup: in_force.setup.as_ref().map(|_| SetupState::Pending),
        ports: None,
        branch_given: args.branch.is_some(),
    };
    let given = match setup::try_give_ports(ctx, &record, in_force)? {
        Ok(given) => given,
        Err(_) if may_make_room => return Ok(None),
        Err(exhausted) => return Err(exhausted.refusal()),
    };
    locked.registry.worktrees.push(record.clone());
    let tear_down = given.apply(&mut locked.registry, &args.name);
    if let Err(err) = locked.save() {
        free_ports(ctx, &args.name);
        return Err(err);
    }
    let record = locked
        .registry
        .find_exact_mut(&args.name)
        .expect("pushed above")
        .clone();
    Ok(Some((record, tear_down)))
}

/// Make the checkout and clear the `creating` mark. Whatever fails undoes what was made, so
/// nothing stays behind that the registry does not know.
fn make(ctx: &Context, locked: &mut Locked, record: Record, plan: &Plan) -> Result<Record> {
    let checkout = if plan.new_branch {
        worktrees::Checkout::NewBranch {
            branch: &plan.branch,
            at: plan.base_commit,
            from: &plan.base_ref,
        }
    } else {
        worktrees::Checkout::Existing {
            branch: &plan.branch,
        }
    };
    let created = worktrees::create(&ctx.repo, &record.path, checkout, &ctx.ui);
    if let Err(err) = created {
        locked.registry.remove(&record.name);
        locked.save()?;
        free_ports(ctx, &record.name);
        return Err(err);
    }
    let real = real_or_same(&record.path);
    let entry = locked
        .registry
        .find_exact_mut(&record.name)
        .expect("the record written by reserve");
    entry.path = real.clone();
    entry.creating = None;
    let made = entry.clone();
    if let Err(err) = locked.save() {
        free_ports(ctx, &record.name);
        let _ = worktrees::remove(&ctx.repo, &real, true);
        if plan.new_branch {
            let _ = git::delete_branch(&ctx.repo, &plan.branch, plan.base_commit, &ctx.ui);
        }
        return Err(err);
    }
    Ok(made)
}

/// The branch to check out and where it starts.
struct Plan {
    branch: String,
    new_branch: bool,
    base_ref: String,
    base_commit: gix::ObjectId,
}

fn plan(ctx: &Context, args: &AddRequest, slug: &str, named: Option<&str>) -> Result<Plan> {
    if let Some(branch) = &args.branch {
        let tip = graph::branch_tip(&ctx.repo, branch).ok_or_else(|| {
            refuse_with_hint(
                format!(
                    "branch '{branch}' does not exist (--branch checks out a branch that is there)"
                ),
                format!(
                    "make it first with git branch {branch}, or leave out --branch: {} add '{}' \
                     starts {}{slug}",
                    names::TOOL,
                    args.name,
                    ctx.branch_prefix()
                ),
            )
        })?;
        return Ok(Plan {
            branch: branch.clone(),
            new_branch: false,
            base_ref: branch.clone(),
            base_commit: tip,
        });
    }
    // `HEAD` is recorded as the branch it names, so ahead/behind follow that branch later.
    let base_ref = match args.base.as_deref() {
        None | Some("HEAD") => git::head_branch(&ctx.repo).unwrap_or_else(|| "HEAD".to_owned()),
        Some(rev) => rev.to_owned(),
    };
    let base_rev = args.base.as_deref().unwrap_or("HEAD");
    if args.base.is_none() && git::head(&ctx.repo).is_none() {
        return Err(refuse_with_hint(
            "the repository has no commit yet, so there is nothing to start a worktree from",
            "make a first commit: git commit --allow-empty -m 'first commit'",
        ));
    }
    let base = graph::resolve_commit(&ctx.repo, base_rev).ok_or_else(|| {
        refuse_with_hint(
            format!("base '{base_rev}' is not a commit"),
            "name a branch, tag or commit that exists: git log --oneline",
        )
    })?;
    let branch = match named {
        Some(branch) => branch.to_owned(),
        None => format!("{}{slug}", ctx.branch_prefix()),
    };
    git::branch_ref(&branch)?;
    Ok(match graph::branch_tip(&ctx.repo, &branch) {
        // A branch kept by an earlier `remove` is resumed, not replaced.
        Some(tip) => {
            ctx.ui
                .status(format_args!("resuming existing branch {branch}"));
            let fork = git::merge_base(&ctx.repo, tip, base).unwrap_or(base);
            Plan {
                branch,
                new_branch: false,
                base_ref,
                base_commit: fork,
            }
        }
        None => Plan {
            branch,
            new_branch: true,
            base_ref,
            base_commit: base,
        },
    })
}

/// Hand back a worktree that already exists under this name, claimed for the caller.
fn reuse(
    ctx: &Context,
    args: &AddRequest,
    mut locked: Locked,
    me: &crate::session::Session,
    ttl: u64,
) -> Result<Added> {
    let entry = super::find(ctx, &locked.registry, &args.name)?;
    let record = entry.record.clone();
    super::refuse_if_busy(&locked, &record)?;
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
    if !entry.present {
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
    let entry = locked
        .registry
        .find_exact_mut(&args.name)
        .expect("checked above");
    let taken = claim::take(entry, me, ttl, &ctx.ui)?;
    // An unfinished setup (pending, failed, interrupted) runs again on reuse.
    let unfinished =
        !args.no_setup && matches!(entry.setup, Some(SetupState::Pending | SetupState::Failed));
    let mut rerun = None;
    let mut tear_down = setup::TearDown::default();
    if unfinished {
        let in_force = hooks::in_force(&ctx.common_dir, Origin::Checkout(&record.path))?;
        setup::ensure_trusted(ctx, &in_force)?;
        let given = setup::give_ports(ctx, entry, &in_force)?;
        entry.setup = in_force.setup.as_ref().map(|_| SetupState::Pending);
        tear_down = given.apply(&mut locked.registry, &args.name);
        let entry = locked
            .registry
            .find_exact_mut(&args.name)
            .expect("kept above");
        rerun = Some((entry.clone(), in_force));
    }
    let saved = if taken != Taken::AlreadyMine || rerun.is_some() {
        locked.save()
    } else {
        Ok(())
    };
    drop(locked);
    tear_down.run(&ctx.ui);
    saved?;
    if let Some((record, in_force)) = rerun {
        ctx.ui.status(format_args!(
            "running the unfinished setup of '{}' again",
            record.name
        ));
        let store = Store::new(ctx.state_dir());
        setup::bring_up(ctx, &store, &record, &in_force)?;
    }
    if args.base.is_some() || args.branch.is_some() {
        ctx.ui.status(format_args!(
            "worktree '{}' exists; --base and --branch apply only to a new one",
            args.name
        ));
    }
    let base = record.base_hex();
    Ok(Added {
        name: record.name,
        path: record.path,
        branch: record.branch,
        base,
        base_ref: record.base_ref,
        reused: true,
        session: me.id.clone(),
        reclaimed_stale: taken == Taken::ReclaimedStale,
    })
}

/// Undo every `add` that died midway. Called under the lock: a record marked `creating` by a
/// process that is gone (or by an older berth, whose mark names none) is a killed add's; one
/// whose maker lives is left to it.
pub fn roll_back_dead_adds(ctx: &Context, locked: &mut Locked) -> Result<Vec<Record>> {
    let dead: Vec<Record> = locked
        .registry
        .worktrees
        .iter()
        .filter(|r| r.creating.as_ref().is_some_and(|c| c.maker().is_none()))
        .cloned()
        .collect();
    for record in &dead {
        // A kill while git's ref was being written leaves its lock, which would refuse every
        // later add of this name: the add that held it is gone, and recorded it.
        git::locks::clear_dead(&ctx.common_dir, &ctx.ui);
        worktrees::discard_half_made(&ctx.common_dir, &record.path)?;
        if record.ports.is_some() {
            free_ports(ctx, &record.name);
        }
        let base = record.base_commit;
        let new_branch = record.creating.as_ref().is_some_and(|c| c.new_branch);
        if new_branch
            && let Some(base) = base
            && graph::branch_tip(&ctx.repo, &record.branch) == Some(base)
        {
            git::delete_branch(&ctx.repo, &record.branch, base, &ctx.ui)?;
        }
        locked.registry.remove(&record.name);
        ctx.ui.status(format_args!(
            "rolled back an unfinished add of '{}' ({})",
            record.name,
            record.path.display()
        ));
    }
    if !dead.is_empty() {
        locked.save()?;
    }
    Ok(dead)
}

/// Give back a block reserved for a worktree that will not exist; a failure is only reported,
/// `prune` frees what is left.
pub(crate) fn free_ports(ctx: &Context, name: &str) {
    let freed = crate::ports::Store::machine().and_then(|s| s.free(&ctx.common_dir, name));
    if let Err(err) = freed {
        ctx.ui.warn(format_args!(
            "could not free the port block of '{name}': {err:#}"
        ));
    }
}

fn is_empty_dir(path: &std::path::Path) -> bool {
    std::fs::read_dir(path).is_ok_and(|mut entries| entries.next().is_none())
}
