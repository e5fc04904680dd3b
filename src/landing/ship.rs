//! Ship: land approved worktrees on the trunk, one after another. For each: check the review and
//! the checkout, build the candidate on the trunk's tip in memory, run the gate on it in a scratch
//! worktree, then (under the ship lock, briefly) move the trunk by compare-and-swap, bring the
//! primary checkout along, and log the landing; last, remove the worktree and its branch.
//!
//! It never moves the trunk to a candidate the gate has not passed, nor over a trunk that moved
//! since the candidate was built (it builds and gates again). A journal written before the trunk
//! moves lets the next `ship` or `prune` finish a landing a kill cut short ([`clear_killed`]),
//! and remove the scratch worktree and branch of a ship killed while gating.

use std::path::PathBuf;

use anyhow::{Context as _, Result};
use serde::{Deserialize, Serialize};

use super::forecast::{self, Candidate};
use super::log::{self, Landing};
use super::review;
use crate::error::{Refusal, refuse_with_hint};
use crate::git::land::{self, Built, Strategy};
use crate::git::{self, graph, refs, status};
use crate::hooks::{self, Hook, Origin, Source};
use crate::registry::Store;
use crate::repo::Context;
use crate::worktree::{self, create::AddRequest};
use crate::{clock, names, process, statefile};

/// How many times a landing is built and gated again when the trunk moved under it.
pub const MAX_ATTEMPTS: usize = 3;

/// What to land and how.
#[derive(Debug, Clone)]
pub struct Request {
    /// Worktrees to land, in this order; empty with `all_approved` (or for the one you stand in).
    pub names: Vec<String>,
    pub all_approved: bool,
    pub strategy: Strategy,
    /// The gate command (`--gate`), before `berth.gate` and the gate hook.
    pub gate: Option<String>,
    /// Keep the worktree, its branch and its port block after landing.
    pub keep: bool,
    pub dry_run: bool,
    /// The landing commit's message (`--message`), instead of the one made from the branch.
    pub message: Option<String>,
}

/// What `ship --json` prints.
#[derive(Debug, Serialize)]
pub struct Report {
    pub trunk: String,
    pub dry_run: bool,
    /// The worktrees in the order they were (or would be) landed.
    pub order: Vec<String>,
    /// Pairs of candidates whose changes conflict with each other (`collect`'s forecast).
    pub forecast: Vec<forecast::Pair>,
    pub worktrees: Vec<Outcome>,
    /// How many landed: always 0 in a dry run, which counts `would_land` instead.
    pub landed: usize,
    pub would_land: usize,
    pub refused: usize,
}

/// What happened to one worktree.
#[derive(Debug, Clone, Serialize)]
pub struct Outcome {
    pub name: String,
    pub branch: String,
    /// `landed`, `would land` or `refused`.
    pub outcome: &'static str,
    /// Why it was refused.
    pub reason: Option<String>,
    /// The files its candidate conflicts on.
    pub conflicts: Vec<String>,
    pub strategy: Strategy,
    pub old_tip: Option<String>,
    pub new_tip: Option<String>,
    pub reviewer: Option<String>,
    /// `passed`, `failed` or `none`.
    pub gate: &'static str,
    /// The gate's output, kept when it failed.
    pub gate_log: Option<PathBuf>,
    /// How many times the candidate was built (more than one when the trunk moved meanwhile).
    pub attempts: usize,
    /// The worktree stays (`--keep`, or it changed after its review); why, if so.
    pub kept: Option<String>,
}

impl Outcome {
    fn new(name: &str, branch: &str, strategy: Strategy) -> Self {
        Outcome {
            name: name.to_owned(),
            branch: branch.to_owned(),
            outcome: "refused",
            reason: None,
            conflicts: Vec::new(),
            strategy,
            old_tip: None,
            new_tip: None,
            reviewer: None,
            gate: "none",
            gate_log: None,
            attempts: 0,
            kept: None,
        }
    }

    fn refused(mut self, refusal: &Refusal) -> Self {
        self.outcome = "refused";
        self.reason = Some(refusal.message.clone());
        self
    }
}

/// Land what `request` names. Refusals of single worktrees are in the report (and said on
/// stderr); the others still land.
pub fn ship(ctx: &Context, request: &Request) -> Result<Report> {
    let trunk = ctx.trunk();
    if !request.dry_run {
        clear_killed(ctx)?;
    }
    // A landing is logged after the trunk moves: a log that cannot take it stops the ship now,
    // before anything lands, not after.
    log::read(&ctx.common_dir)?;
    let names = chosen(ctx, request)?;
    let (order, forecast) = order(ctx, &trunk, names, request.all_approved)?;
    let gate = configured_gate(ctx, request);
    let mut report = Report {
        trunk: trunk.clone(),
        dry_run: request.dry_run,
        order: order.clone(),
        forecast,
        worktrees: Vec::new(),
        landed: 0,
        would_land: 0,
        refused: 0,
    };
    // A dry run lands each candidate on the trunk as the one before it left it, in memory, so
    // what conflicts with an earlier landing is foretold as a refusal, as the real run meets it.
    let mut dry = request.dry_run.then(|| DryRun {
        repo: ctx.repo.clone().with_object_memory(),
        tip: None,
    });
    for name in &order {
        let outcome = land_one(ctx, &trunk, name, request, &gate, dry.as_mut());
        match outcome.outcome {
            "landed" => report.landed += 1,
            "would land" => report.would_land += 1,
            _ => report.refused += 1,
        }
        report.worktrees.push(outcome);
    }
    Ok(report)
}

/// The worktrees asked for: the names, every approved one, or the one the caller stands in.
fn chosen(ctx: &Context, request: &Request) -> Result<Vec<String>> {
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
fn order(
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
    let forecast = forecast::forecast(&ctx.repo, &candidates);
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

/// The gate in force: `--gate`, else `berth.gate`, else the gate hook of the trunk's tip
/// (checked for trust when it runs; none there is no gate).
enum Gate {
    Command(Hook),
    FromHook,
}

fn configured_gate(ctx: &Context, request: &Request) -> Gate {
    let given = |command: &str, whence: &str| Hook {
        name: names::HOOK_GATE,
        content: hooks::script(command).into_bytes(),
        // The user's own command, as a local hook is: it needs no trust.
        source: Source::Local(PathBuf::from(whence)),
    };
    if let Some(command) = &request.gate {
        return Gate::Command(given(command, "--gate"));
    }
    if let Some(command) = ctx.config_string(names::config::GATE) {
        return Gate::Command(given(&command, names::config::GATE));
    }
    Gate::FromHook
}

/// A dry run's trunk: the repository whose new objects stay in memory, and the trunk's tip after
/// the candidates that would land so far (`None` until one would).
struct DryRun {
    repo: gix::Repository,
    tip: Option<gix::ObjectId>,
}

/// Land one worktree, or say why not.
fn land_one(
    ctx: &Context,
    trunk: &str,
    name: &str,
    request: &Request,
    gate: &Gate,
    dry: Option<&mut DryRun>,
) -> Outcome {
    let registry = match Store::new(ctx.state_dir()).load() {
        Ok(r) => r,
        Err(err) => return failed(name, "", request.strategy, &err),
    };
    let Some(record) = registry.find(name).cloned() else {
        return failed(
            name,
            "",
            request.strategy,
            &worktree::unknown_in(ctx, &registry, name),
        );
    };
    let mut outcome = Outcome::new(&record.name, &record.branch, request.strategy);
    // One whose teardown runs is its remover's: landing it now would land work that is going.
    if let Ok(Some(pid)) = Store::new(ctx.state_dir()).removed_by(&record) {
        return refused(outcome, &worktree::being_removed_refusal(&record, pid));
    }
    match try_land(ctx, trunk, &record, request, gate, dry, &mut outcome) {
        Ok(()) => outcome,
        Err(err) => refused(outcome, &err),
    }
}

fn failed(name: &str, branch: &str, strategy: Strategy, err: &anyhow::Error) -> Outcome {
    refused(Outcome::new(name, branch, strategy), err)
}

/// `outcome`, refused for `err`, which is said on stderr as every error is (the command goes on
/// with the next worktree).
fn refused(outcome: Outcome, err: &anyhow::Error) -> Outcome {
    let (message, hint) = crate::error::render(err);
    eprintln!("{}: {message}", names::TOOL);
    if let Some(hint) = &hint {
        eprintln!("hint: {hint}");
    }
    outcome.refused(&Refusal { message, hint })
}

fn try_land(
    ctx: &Context,
    trunk: &str,
    record: &crate::registry::Record,
    request: &Request,
    gate: &Gate,
    mut dry: Option<&mut DryRun>,
    outcome: &mut Outcome,
) -> Result<()> {
    let name = &record.name;
    let branch = &record.branch;
    let head = graph::branch_tip(&ctx.repo, branch).ok_or_else(|| {
        refuse_with_hint(
            format!("worktree '{name}' has no branch {branch} to land"),
            format!("see it with {} list", names::TOOL),
        )
    })?;
    let verdict = approved(ctx, name, branch, head)?;
    outcome.reviewer = Some(verdict.reviewer.clone());
    let checkout = worktree_checkout(ctx, record, head)?;
    if status::is_dirty(&checkout)? {
        return Err(refuse_with_hint(
            format!("worktree '{name}' has uncommitted changes or untracked files"),
            format!(
                "commit them (and have the new head reviewed), or clean them up, then {} ship '{name}'",
                names::TOOL
            ),
        ));
    }
    for attempt in 1..=MAX_ATTEMPTS {
        outcome.attempts = attempt;
        let simulated = dry.as_ref().and_then(|d| d.tip);
        let repo = dry.as_ref().map_or(&ctx.repo, |d| &d.repo);
        let tip = simulated
            .or_else(|| graph::branch_tip(&ctx.repo, trunk))
            .ok_or_else(|| {
                refuse_with_hint(
                    format!("the trunk '{trunk}' does not exist"),
                    format!(
                        "set the trunk with git config {} <branch>",
                        names::config::TRUNK
                    ),
                )
            })?;
        let message = match &request.message {
            Some(given) => given_message(given),
            None => message(repo, request.strategy, branch, trunk, tip, head)?,
        };
        // A dry run's candidate is written to its memory, where the next one is built on it.
        let built = land::build(repo, tip, head, request.strategy, &message, true)?;
        if let Built::Conflicts(files) = &built
            && !request.dry_run
        {
            tell_agent_of_conflicts(ctx, name, &record.path, trunk, files);
        }
        let candidate = accept(name, branch, trunk, request.strategy, built, outcome)?;
        outcome.old_tip = Some(tip.to_string());
        if let Some(dry) = dry.as_mut() {
            dry.tip = Some(candidate);
            outcome.outcome = "would land";
            return Ok(());
        }
        outcome.new_tip = Some(candidate.to_string());
        outcome.gate = run_gate(ctx, record, tip, candidate, gate, outcome)?;
        let landing = Landing {
            worktree: name.clone(),
            branch: branch.clone(),
            trunk: trunk.to_owned(),
            old_tip: tip.to_string(),
            new_tip: candidate.to_string(),
            strategy: request.strategy.as_str().to_owned(),
            reviewer: verdict.reviewer.clone(),
            gate: outcome.gate.to_owned(),
            head: head.to_string(),
            time: clock::now(),
        };
        match commit_landing(ctx, &landing, tip, candidate, head, request.keep, outcome)? {
            Committed::Landed => {
                outcome.outcome = "landed";
                return Ok(());
            }
            Committed::Raced(now) => {
                let now = now.map_or_else(
                    || "gone".to_owned(),
                    |id| git::short(&id.to_string()).to_owned(),
                );
                if attempt < MAX_ATTEMPTS {
                    eprintln!(
                        "{trunk} moved from {} to {now} while '{name}' was gated; building and gating again (attempt {} of {MAX_ATTEMPTS})",
                        git::short(&tip.to_string()),
                        attempt + 1
                    );
                }
            }
        }
    }
    Err(refuse_with_hint(
        format!(
            "{trunk} kept moving while '{name}' was gated ({MAX_ATTEMPTS} attempts); nothing of it landed"
        ),
        format!("try again: {} ship '{name}'", names::TOOL),
    ))
}

/// The verdict that lets `head` land; any other review state is a refusal that says what to do.
fn approved(
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
fn worktree_checkout(
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
fn message(
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
fn accept(
    name: &str,
    branch: &str,
    trunk: &str,
    strategy: Strategy,
    built: Built,
    outcome: &mut Outcome,
) -> Result<gix::ObjectId> {
    match built {
        Built::Commit(id) => Ok(id),
        Built::Conflicts(files) => {
            outcome.conflicts = files.clone();
            Err(refuse_with_hint(
                format!(
                    "worktree '{name}' conflicts with {trunk} in {}",
                    files.join(", ")
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

/// Tell the live agents berth launched in worktree `name` (at `path`) which files conflict with
/// what is on the trunk. Best effort: the refusal itself is on stderr and in `--json` anyway.
pub fn tell_agent_of_conflicts(
    ctx: &Context,
    name: &str,
    path: &std::path::Path,
    trunk: &str,
    files: &[String],
) {
    let text = format!(
        "{}: your branch in worktree '{name}' conflicts with {trunk} in {}; it was not landed. \
         Merge {trunk} into your branch, resolve those files, commit, and ask for a review again.",
        names::TOOL,
        files.join(", ")
    );
    match crate::orchestrator::agents::tell_worktree(ctx, path, &text) {
        Ok(told) if !told.is_empty() => {
            eprintln!("told agent {} which files conflict", told.join(", "));
        }
        Ok(_) => {}
        Err(err) => crate::error::warn(format_args!(
            "could not tell the agents in '{name}' about the conflict: {}",
            crate::error::render(&err).0
        )),
    }
}

/// Run the gate on `candidate` in a scratch worktree brought up like any other, removed after
/// either way. `passed` or `none`; a failure is a refusal naming the log.
fn run_gate(
    ctx: &Context,
    record: &crate::registry::Record,
    tip: gix::ObjectId,
    candidate: gix::ObjectId,
    gate: &Gate,
    outcome: &mut Outcome,
) -> Result<&'static str> {
    let hook = match gate {
        Gate::Command(hook) => hook.clone(),
        Gate::FromHook => {
            match hooks::in_force(&ctx.common_dir, Origin::Commit(&ctx.repo, tip))?.gate {
                Some(hook) => {
                    hooks::ensure_trusted(&ctx.common_dir, &[&hook])?;
                    hook
                }
                None => return Ok("none"),
            }
        }
    };
    let logs = ctx.state_dir().join(names::SHIP_DIR);
    std::fs::create_dir_all(&logs).with_context(|| format!("cannot create {}", logs.display()))?;
    let log = logs.join(format!(
        "{}-{}-{}.log",
        record.slug,
        git::short(&candidate.to_string()),
        clock::now()
    ));
    // The ship's pid and its start time: a scratch worktree whose ship is gone is anyone's to
    // remove, and a pid used again by another process does not keep it.
    let me = std::process::id();
    let scratch = format!(
        "{}{me}.{}-{}",
        names::SHIP_SCRATCH_PREFIX,
        process::start_time(me).unwrap_or_default(),
        record.slug
    );
    eprintln!(
        "gating '{}' at {} in a scratch worktree (log: {})",
        record.name,
        git::short(&candidate.to_string()),
        log.display()
    );
    let added = worktree::create::add(
        ctx,
        &AddRequest {
            name: scratch.clone(),
            base: Some(candidate.to_string()),
            branch: None,
            no_reuse: true,
            no_setup: false,
            quiet: true,
        },
    );
    let result = added.and_then(|added| {
        crate::worktree::test_pause("BERTH_TEST_PAUSE_GATE_MS");
        // The gate sees the worktree it gates (its name, branch and base) in the scratch
        // worktree's folder, with the scratch worktree's ports.
        let scratch_record = Store::new(ctx.state_dir())
            .load()?
            .find(&scratch)
            .cloned()
            .with_context(|| format!("the scratch worktree '{scratch}' has no record"))?;
        let env = worktree::bring_up::hook_env(
            ctx,
            &crate::registry::Record {
                name: record.name.clone(),
                path: added.path.clone(),
                branch: record.branch.clone(),
                base_commit: Some(tip),
                ..scratch_record
            },
        );
        let timeout = hooks::timeout(ctx.config_string(names::config::HOOK_TIMEOUT).as_deref())?;
        let logged = Hook {
            content: [
                format!("exec >>{} 2>&1\n", hooks::quote(&log.display().to_string())).into_bytes(),
                hook.content.clone(),
            ]
            .concat(),
            ..hook.clone()
        };
        hooks::run(&logged, &added.path, &env, timeout)
    });
    remove_scratch(ctx, &scratch);
    keep_newest_logs(&logs, names::GATE_LOGS_KEPT);
    match result {
        Ok(()) => Ok("passed"),
        Err(err) => {
            outcome.gate = "failed";
            outcome.gate_log = Some(log.clone());
            let (line, _) = crate::error::render(&err);
            // The scratch worktree may have failed before the gate ran (its setup): say so there.
            if !log.exists() {
                let _ = std::fs::write(&log, format!("{line}\n"));
            }
            Err(refuse_with_hint(
                format!(
                    "the gate failed on '{}' ({line}); {} was not moved; its output: {}",
                    record.name,
                    git::short(&tip.to_string()),
                    log.display()
                ),
                format!(
                    "read the log, fix the branch, commit, have it reviewed, then {} ship '{}'",
                    names::TOOL,
                    record.name
                ),
            ))
        }
    }
}

/// Remove all but the newest `keep` gate logs in `dir` (by modification time), so that the folder
/// does not grow with every landing. Best effort: a log that cannot be removed stays.
fn keep_newest_logs(dir: &std::path::Path, keep: usize) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut logs: Vec<(std::time::SystemTime, PathBuf)> = entries
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|ext| ext == "log"))
        .filter_map(|p| Some((std::fs::metadata(&p).ok()?.modified().ok()?, p)))
        .collect();
    logs.sort();
    let excess = logs.len().saturating_sub(keep);
    for (_, path) in logs.into_iter().take(excess) {
        let _ = std::fs::remove_file(path);
    }
}

/// Remove a scratch worktree and its branch, whatever is in it, through the lifecycle's removal
/// (teardown, checkout, admin entry, record, port block), without judging it first: it holds
/// nothing of anyone's. A failure is only a warning (the next `ship`, or `prune`, removes it).
fn remove_scratch(ctx: &Context, scratch: &str) {
    let removed = (|| -> Result<()> {
        let locked = worktree::lock(ctx)?;
        if locked.registry.find(scratch).is_none() {
            return Ok(());
        }
        let entry = worktree::find(ctx, &locked.registry, scratch)?;
        let seen = worktree::remove::seen_now(ctx, &entry)?;
        worktree::remove::mark_and_carry_out(ctx, locked, &entry, true, true, &seen)?;
        Ok(())
    })();
    if let Err(err) = removed {
        crate::error::warn(format_args!(
            "could not remove the scratch worktree '{scratch}': {}",
            crate::error::render(&err).0
        ));
    }
}

/// Clear up after `ship` runs that were killed: finish the landing one left half done (its
/// journal), and remove the scratch worktrees of those killed while gating. `prune` and every
/// `ship` call it.
pub fn clear_killed(ctx: &Context) -> Result<()> {
    recover(ctx)?;
    remove_dead_scratch(ctx);
    Ok(())
}

/// Remove the scratch worktrees of `ship` runs that are gone (killed while gating), and the
/// branches of those whose removal a kill cut short.
fn remove_dead_scratch(ctx: &Context) {
    let dead = |name: &str| {
        let owner = name
            .strip_prefix(names::SHIP_SCRATCH_PREFIX)
            .and_then(|rest| rest.split('-').next())
            .and_then(|owner| owner.split_once('.'));
        owner.is_some_and(|(pid, start)| {
            let (Ok(pid), Ok(start)) = (pid.parse::<u32>(), start.parse::<u64>()) else {
                return false;
            };
            pid != std::process::id() && !process::alive(pid, Some(start))
        })
    };
    // Taking the lock first rolls back a killed add of a scratch worktree and finishes a killed
    // removal of one, so that what is left below is a whole worktree or a lone branch.
    let Ok(registry) = worktree::lock(ctx).map(|locked| locked.registry.clone()) else {
        return;
    };
    for record in registry.worktrees.iter().filter(|r| dead(&r.name)) {
        remove_scratch(ctx, &record.name);
    }
    let prefix = format!("{}{}", ctx.branch_prefix(), names::SHIP_SCRATCH_PREFIX);
    for (branch, tip) in land::branches_starting_with(&ctx.repo, &prefix).unwrap_or_default() {
        let name = &branch[ctx.branch_prefix().len()..];
        if dead(name)
            && Store::new(ctx.state_dir())
                .load()
                .is_ok_and(|r| r.find(name).is_none())
            && let Err(err) = git::delete_branch(&ctx.repo, &branch, tip)
        {
            crate::error::warn(format_args!(
                "could not delete the scratch branch {branch}: {}",
                crate::error::render(&err).0
            ));
        }
    }
}

/// The landing under way, kept from before the trunk moves until the landing is logged.
#[derive(Debug, Serialize, Deserialize)]
struct Journal {
    landing: Landing,
    /// The branch's head that landed: the worktree goes only while it still holds exactly this.
    head: String,
    /// `--keep`: the worktree stays.
    keep: bool,
}

fn journal_path(ctx: &Context) -> PathBuf {
    ctx.state_dir()
        .join(names::SHIP_DIR)
        .join(names::SHIP_JOURNAL)
}

/// The lock every landing's last step holds: the trunk, the primary checkout and the log move
/// together, and never two at once.
fn ship_lock(ctx: &Context) -> Result<crate::lockwait::Held> {
    let dir = ctx.state_dir().join(names::SHIP_DIR);
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    crate::lockwait::lock(&dir.join(names::SHIP_LOCK), "another ship")
}

enum Committed {
    Landed,
    Raced(Option<gix::ObjectId>),
}

/// The landing's last step, under the ship lock: refuse a dirty primary checkout that has the
/// trunk, write the journal, move the trunk from `tip` to `candidate` (or find it moved), bring
/// the primary along, log the landing, drop the journal.
fn commit_landing(
    ctx: &Context,
    landing: &Landing,
    tip: gix::ObjectId,
    candidate: gix::ObjectId,
    head: gix::ObjectId,
    keep: bool,
    outcome: &mut Outcome,
) -> Result<Committed> {
    let lock = ship_lock(ctx)?;
    recover_locked(ctx)?;
    // Again under the lock: the log may have gone bad while the gate ran.
    log::read(&ctx.common_dir)?;
    let trunk = &landing.trunk;
    let now = graph::branch_tip(&ctx.repo, trunk);
    if now != Some(tip) {
        return Ok(Committed::Raced(now));
    }
    let primary = primary_on(ctx, trunk)?;
    if let Some(primary) = &primary {
        check_primary(primary, tip, candidate)?;
    }
    // Only the primary is brought along: a linked worktree on the trunk would seem to revert it.
    let elsewhere: Vec<String> = git::worktrees::checked_out_in(&ctx.repo, trunk)?
        .into_iter()
        .filter(|dir| Some(dir) != ctx.primary.as_ref())
        .map(|dir| dir.display().to_string())
        .collect();
    if !elsewhere.is_empty() {
        return Err(refuse_with_hint(
            format!(
                "{trunk} is checked out in {}, which ship does not bring along; nothing was landed",
                elsewhere.join(", ")
            ),
            "switch that worktree to another branch, then ship again",
        ));
    }
    let journal = journal_path(ctx);
    let text = toml::to_string(&Journal {
        landing: landing.clone(),
        head: head.to_string(),
        keep,
    })
    .context("cannot serialize the landing journal")?;
    statefile::write_atomic(&journal, text.as_bytes(), None)?;
    crate::worktree::test_pause("BERTH_TEST_PAUSE_LAND_MS");
    let message = format!(
        "{}: land {} ({})",
        names::TOOL,
        landing.worktree,
        landing.strategy
    );
    match refs::swap(
        &ctx.repo,
        &format!("refs/heads/{trunk}"),
        Some(tip),
        candidate,
        &message,
    )? {
        refs::Swap::Done => {}
        refs::Swap::Moved(now) => {
            let _ = std::fs::remove_file(&journal);
            return Ok(Committed::Raced(now));
        }
    }
    eprintln!(
        "landed '{}' on {trunk}: {}..{} ({}, gate {})",
        landing.worktree,
        git::short(&landing.old_tip),
        git::short(&landing.new_tip),
        landing.strategy,
        landing.gate
    );
    // The trunk moved: from here on the worktree landed, whatever else fails. What `finish`
    // leaves undone stays in the journal for the next ship or `prune`.
    let landed = match finish(ctx) {
        Ok(landed) => landed,
        Err(err) => {
            let (message, hint) = crate::error::render(&err);
            let next =
                hint.unwrap_or_else(|| format!("{} prune finishes the landing", names::TOOL));
            let why = format!("{message}; {next}");
            crate::error::warn(format_args!(
                "worktree '{}' landed but stays: {why}",
                landing.worktree
            ));
            outcome.kept = Some(why);
            None
        }
    };
    // The worktree goes after the lock is given back: its teardown may take long, and other
    // landings need not wait for it. A kill before it leaves a landed worktree `clean` removes.
    drop(lock);
    if let Some(landed) = landed {
        remove_landed(ctx, &landed, outcome);
    }
    Ok(Committed::Landed)
}

/// The primary checkout, opened, when it has `trunk` checked out; `None` otherwise (it is left
/// alone).
fn primary_on(ctx: &Context, trunk: &str) -> Result<Option<gix::Repository>> {
    let Some(path) = &ctx.primary else {
        return Ok(None);
    };
    let repo = git::config::open(path)?;
    Ok((git::head_branch(&repo).as_deref() == Some(trunk)).then_some(repo))
}

/// A primary checkout that would look as if it reverted the landing, or whose untracked files
/// the landing would overwrite, refuses the landing before the trunk moves.
fn check_primary(
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

/// A landing whose worktree is still to be removed.
struct Landed {
    name: String,
    branch: String,
    head: gix::ObjectId,
    keep: bool,
}

/// Finish the landing a journal records, under the ship lock: if the trunk moved to its new tip,
/// bring the primary along, log it and forget the review; if not, it never happened. Then drop
/// the journal. Every step is safe to repeat after a kill. Returns the landed worktree, for the
/// caller to remove.
fn finish(ctx: &Context) -> Result<Option<Landed>> {
    let path = journal_path(ctx);
    let Some(text) = statefile::read_text(&path, "landing journal")? else {
        return Ok(None);
    };
    let journal: Journal = toml::from_str(&text).map_err(|e| {
        statefile::corrupt(&path, "landing journal", &statefile::toml_reason(&text, &e))
    })?;
    let landing = &journal.landing;
    let parse = |hex: &str| gix::ObjectId::from_hex(hex.as_bytes()).ok();
    let (old, new, head) = (
        parse(&landing.old_tip),
        parse(&landing.new_tip),
        parse(&journal.head),
    );
    // The trunk's ref lock and the primary's index lock, if a kill left them, are cleared here:
    // only those berth recorded taking, never another git command's.
    git::locks::clear_dead(&ctx.common_dir);
    let now = graph::branch_tip(&ctx.repo, &landing.trunk);
    let mut landed = None;
    if let (Some(old), Some(new), Some(head)) = (old, new, head)
        && now == Some(new)
    {
        // Tests stop here, the trunk moved and the primary not yet along, to kill it.
        crate::worktree::test_pause("BERTH_TEST_PAUSE_LANDED_MS");
        if let Some(primary) = primary_on(ctx, &landing.trunk)? {
            let held = ctx
                .state_dir()
                .join(names::SHIP_DIR)
                .join(names::SHIP_INDEX_HELD);
            land::bring_checkout_along(&primary, old, new, &held)?;
        }
        log::append(&ctx.common_dir, landing)?;
        if let Err(err) = review::forget(&ctx.repo, &landing.branch) {
            crate::error::warn(format_args!(
                "could not drop the review of '{}': {}",
                landing.worktree,
                crate::error::render(&err).0
            ));
        }
        landed = Some(Landed {
            name: landing.worktree.clone(),
            branch: landing.branch.clone(),
            head,
            keep: journal.keep,
        });
    }
    std::fs::remove_file(&path).with_context(|| format!("cannot remove {}", path.display()))?;
    Ok(landed)
}

/// Finish a landing a kill cut short (see [`finish`]).
pub fn recover(ctx: &Context) -> Result<()> {
    if !journal_path(ctx).exists() {
        return Ok(());
    }
    let _lock = ship_lock(ctx)?;
    recover_locked(ctx)
}

/// [`recover`] under the ship lock the caller holds.
fn recover_locked(ctx: &Context) -> Result<()> {
    if !journal_path(ctx).exists() {
        return Ok(());
    }
    eprintln!("finishing a landing an earlier ship left half done");
    if let Some(landed) = finish(ctx)? {
        remove_landed(ctx, &landed, &mut Outcome::new("", "", Strategy::Squash));
    }
    Ok(())
}

/// After the trunk moved and the lock is given back: unless `keep`, remove the worktree and its
/// branch through the lifecycle layer, but only while it still holds exactly what landed.
fn remove_landed(ctx: &Context, landed: &Landed, outcome: &mut Outcome) {
    let (name, branch, head) = (landed.name.as_str(), landed.branch.as_str(), landed.head);
    if landed.keep {
        outcome.kept = Some("--keep".to_owned());
        return;
    }
    let kept = (|| -> Result<Option<String>> {
        let locked = worktree::lock(ctx)?;
        let Some(record) = locked.registry.find(name).cloned() else {
            return Ok(None);
        };
        let repo = git::config::open(&record.path)?;
        if git::head(&repo) != Some(head) || graph::branch_tip(&ctx.repo, branch) != Some(head) {
            return Ok(Some("it has commits since the landed head".to_owned()));
        }
        if status::is_dirty(&repo)? {
            return Ok(Some(
                "it has uncommitted changes since the landing".to_owned(),
            ));
        }
        // A live agent there is a live claim: its worktree is never taken from under it.
        if let Some(agent) = worktree::judge::live_agent(&locked.agents, &record.path) {
            return Ok(Some(format!(
                "agent '{agent}' still runs there; once it ends: {} remove --delete-branch '{name}'",
                names::TOOL
            )));
        }
        // Standing in the worktree that goes, work from the primary's side: once its admin
        // entry is gone, a repository opened in it no longer finds the branch to delete.
        let elsewhere;
        let ctx = if ctx.current.as_deref() == Some(record.path.as_path()) {
            let mut other =
                Context::discover_from(ctx.primary.as_deref().unwrap_or(&ctx.common_dir))?;
            other.session_flag = ctx.session_flag.clone();
            elsewhere = other;
            &elsewhere
        } else {
            ctx
        };
        let entry = worktree::find(ctx, &locked.registry, name)?;
        worktree::remove::check_state_writable(&locked, record.ports.is_some())?;
        // It goes only while it holds the landed head, after its teardown too; its branch is
        // deleted only from there.
        let landed = worktree::judge::Seen {
            head: Some(head),
            tip: Some(head),
        };
        match worktree::remove::mark_and_carry_out(ctx, locked, &entry, false, true, &landed)? {
            worktree::remove::Carried::Removed(note) => {
                eprintln!(
                    "removed worktree '{name}' ({}); {note}",
                    record.path.display()
                );
                Ok(None)
            }
            worktree::remove::Carried::Kept(why) => Ok(Some(why)),
        }
    })();
    let why = match kept {
        Ok(None) => return,
        Ok(Some(why)) => why,
        Err(err) => crate::error::render(&err).0,
    };
    crate::error::warn(format_args!("worktree '{name}' landed but stays: {why}"));
    outcome.kept = Some(why);
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
    fn only_the_newest_gate_logs_are_kept_and_other_files_stay() {
        let dir = std::env::temp_dir().join(format!("berth-gate-logs-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let epoch = std::time::UNIX_EPOCH;
        for n in 0..5u64 {
            let file = std::fs::File::create(dir.join(format!("w-{n}.log"))).unwrap();
            // Named against their age, so that the order kept is the time's, not the name's.
            file.set_modified(epoch + std::time::Duration::from_secs(1_000 - n))
                .unwrap();
        }
        std::fs::write(dir.join("landing.toml"), "").unwrap();
        keep_newest_logs(&dir, 2);
        let mut left: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        assert_eq!(left, ["landing.toml", "w-0.log", "w-1.log"]);
        std::fs::remove_dir_all(&dir).unwrap();
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
