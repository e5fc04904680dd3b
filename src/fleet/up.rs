//! `fleet up`: read and resolve the manifest, plan every agent ([`plan`]), then, unless the
//! fleet is up already, record it and launch every agent through the orchestrator's one
//! launcher ([`up`]): the agents of one worktree group one after another (the first makes the
//! worktree, the others join it), the groups in parallel threads, so worktrees are made, seeded
//! and set up side by side.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result};
use serde::Serialize;

use super::clones::{self, RepoAt};
use super::plan::{Facts, PlannedAgent, meanings};
use super::state::{AgentState, Fleet, State, WorktreeState};
use crate::error::{Refusal, refuse_with_hint};
use crate::manifest::{self, InferFrom, Placement};
use crate::orchestrator::agents::{self, Extra, Headless, Launched, Place, Request};
use crate::orchestrator::folder_trust::{self, Applied};
use crate::orchestrator::runtime::{self, Norms};
use crate::registry::Backend;
use crate::repo::Context;
use crate::{clock, names};

/// What `fleet up` was asked.
#[derive(Debug, Clone)]
pub struct Ask<'a> {
    /// The manifest, as the person named it.
    pub manifest: &'a str,
    /// `--var key=value`, in order.
    pub vars: &'a [(String, String)],
}

/// Everything `up` will do (`--dry-run` prints it).
#[derive(Debug, Clone, Serialize)]
pub struct Plan {
    /// The fleet's name, as its manifest writes it.
    pub fleet: String,
    pub slug: String,
    pub manifest: String,
    /// The fleet's folder: its state and the agents' logs.
    pub folder: PathBuf,
    /// The folder its agents share (`BERTH_FLEET_DIR`).
    pub shared: PathBuf,
    /// Every value `${key}` could read, and where each came from.
    pub variables: Vec<Variable>,
    pub worktrees: Vec<PlannedWorktree>,
    pub agents: Vec<PlannedAgent>,
    /// The ref new worktrees start from; none is HEAD.
    pub base: Option<String>,
    /// Untracked paths of the primary checkout copied into every worktree the fleet makes
    /// (`worktree_seed`), beside what the seed hook lists.
    pub seed: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct Variable {
    pub key: String,
    pub value: String,
    pub from: String,
}

/// One worktree of the plan.
#[derive(Debug, Clone, Serialize)]
pub struct PlannedWorktree {
    /// Its managed name: `<fleet>/<group>`.
    pub name: String,
    pub group: String,
    pub branch: String,
    /// Where it will be (or is, when a kept one is reused).
    pub path: PathBuf,
    /// The clone of another repository it is made in; none for this repository.
    pub repo: Option<PathBuf>,
    /// The agents that work in it, by name.
    pub agents: Vec<String>,
}

/// The manifest at `ask.manifest`, read, resolved and planned. Nothing is changed.
pub fn plan(ctx: &Context, ask: &Ask<'_>) -> Result<Plan> {
    let m = read_manifest(ask.manifest)?;
    let fleet = Fleet::new(&ctx.state_dir(), &m.slug);
    let shared_text = fleet.shared().display().to_string();
    let config_home = config_home();
    let resolved = manifest::resolve(
        &m,
        &manifest::Context {
            vars: ask.vars,
            fleet_dir: &shared_text,
            config_home: config_home.as_deref(),
        },
        &read_optional,
        &|from: InferFrom| infer(ctx, from),
    )
    .map_err(manifest_error)?;
    plan_agents(
        ctx,
        ask.manifest,
        &Wide {
            name: m.name.value.clone(),
            base: m.worktree_base.as_ref().map(|b| b.value.clone()),
            seed: m.worktree_seed.iter().map(|s| s.value.clone()).collect(),
        },
        &m.slug,
        &fleet,
        &resolved.agents,
        &resolved.bindings,
        false,
    )
}

/// The manifest at `path`, parsed; a file that cannot be read is refused naming it.
pub fn read_manifest(path: &str) -> Result<manifest::Manifest> {
    manifest::parse(path, &read_text(path)?).map_err(manifest_error)
}

/// The text of the manifest at `path`; a file that cannot be read is refused naming it.
pub fn read_text(path: &str) -> Result<String> {
    std::fs::read_to_string(path).map_err(|e| {
        refuse_with_hint(
            format!(
                "cannot read the manifest {path}: {}",
                crate::error::io_reason(&e)
            ),
            "name a manifest (.toml, .yaml or .yml); examples are in share/examples/",
        )
    })
}

/// `${XDG_CONFIG_HOME:-~/.config}`, where profiles and templates live.
pub fn config_home() -> Option<PathBuf> {
    manifest::config_home(
        std::env::var_os("XDG_CONFIG_HOME").as_deref(),
        dirs::home_dir().as_deref(),
    )
}

/// A file's text, none when it does not exist: how profiles and templates are read.
pub fn read_optional(path: &Path) -> Result<Option<String>, String> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(crate::error::io_reason(&e)),
    }
}

/// What a manifest says for all its agents at once.
#[derive(Debug, Clone)]
pub struct Wide {
    /// Its name, as written.
    pub name: String,
    /// `worktree_base`: the ref new worktrees start from; none is HEAD.
    pub base: Option<String>,
    /// `worktree_seed`: untracked paths copied into every worktree it makes.
    pub seed: Vec<String>,
}

/// The plan for the resolved agents `specs` of a manifest (read from `manifest`; `wide` what it
/// says for all of them): each
/// agent's worktree, branch, command line and environment. `slug` names the agents
/// (`<slug>/<agent>`), their worktrees (`<slug>/<group>`) and branches; `fleet` is the folder
/// that keeps their state, logs and shared folder. A pipeline run plans its agents through
/// here too, under its own folder and name, every agent `headless`.
#[allow(clippy::too_many_arguments)]
pub fn plan_agents(
    ctx: &Context,
    manifest: &str,
    wide: &Wide,
    slug: &str,
    fleet: &Fleet,
    specs: &[manifest::AgentSpec],
    bindings: &[manifest::Binding],
    headless: bool,
) -> Result<Plan> {
    let shared = fleet.shared();
    let shared_text = shared.display().to_string();
    let config_home = config_home();
    let prefix = ctx.branch_prefix();
    let base_dir = ctx.worktree_base()?;
    let groups = manifest::plan_worktrees(slug, &prefix, specs);
    let worktree_name = |group: &str| format!("{slug}/{group}");
    let worktree_path = |group: &str| {
        let name = worktree_name(group);
        base_dir.join(crate::slug::slug(&name).unwrap_or(name))
    };
    let this_repo = this_repo(ctx);
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    let mut bases: BTreeMap<PathBuf, PathBuf> = BTreeMap::new();
    let mut repo_at = |written: Option<&String>, group: &str| -> Result<RepoAt> {
        let name = worktree_name(group);
        let folder_name = crate::slug::slug(&name).unwrap_or(name);
        let other = written.filter(|w| !clones::names_this(&this_repo, w, &cwd));
        let Some(repo) = other else {
            return Ok(RepoAt {
                written: written.cloned(),
                clone: None,
                path: worktree_path(group),
            });
        };
        let clone = clones::folder(&crate::paths::data_dir()?, repo, &cwd);
        let base = match bases.get(&clone) {
            Some(base) => base.clone(),
            None => {
                let base = clone_worktree_base(&clone)?;
                bases.insert(clone.clone(), base.clone());
                base
            }
        };
        Ok(RepoAt {
            written: Some(repo.clone()),
            clone: Some(clone),
            path: base.join(folder_name),
        })
    };
    let read = |path: &Path| std::fs::read_to_string(path).map_err(|e| crate::error::io_reason(&e));
    let installed = crate::orchestrator::terminal::installed;
    let template =
        |name: &str| super::templates::find(name, config_home.as_deref(), &read_optional);
    let facts = Facts {
        this_repo: &this_repo,
        fleet_dir: &fleet.dir,
        read: &read,
        installed: &installed,
        template: &template,
        bindings,
        headless,
    };
    let mut agents = Vec::with_capacity(specs.len());
    for spec in specs {
        let fx = meanings(spec, &facts).map_err(manifest_error)?;
        for warning in &fx.warnings {
            ctx.ui.warn(format_args!("{warning}"));
        }
        let agent = format!("{slug}/{}", spec.slug);
        let (worktree, branch, path, repos) = match &spec.placement {
            Placement::Worktree { group } => {
                let repos = match &spec.repos {
                    None => vec![repo_at(None, group)?],
                    Some(list) => list
                        .value
                        .iter()
                        .map(|w| repo_at(Some(w), group))
                        .collect::<Result<Vec<_>>>()?,
                };
                let branch = groups
                    .iter()
                    .find(|g| &g.group == group)
                    .map(|g| g.branch.clone())
                    .unwrap_or_else(|| manifest::branch_name(&prefix, slug, group));
                let path = repos
                    .first()
                    .map(|r| r.path.clone())
                    .unwrap_or_else(|| worktree_path(group));
                (Some(worktree_name(group)), Some(branch), path, repos)
            }
            Placement::Outside => (None, None, shared.clone(), Vec::new()),
        };
        let runtime = spec.runtime.value;
        let mut fields = fx.fields.clone();
        let trust = if let Some(field) = fx.auto_trust {
            // Codex keys a linked worktree's trust by its main checkout: the common dir's parent.
            let main = match repos.first().and_then(|r| r.clone.as_ref()) {
                Some(clone) => clone.clone(),
                None => ctx
                    .common_dir
                    .parent()
                    .map_or_else(|| ctx.common_dir.clone(), Path::to_owned),
            };
            let (grant, became) = folder_trust::grant_for(
                runtime,
                fx.background,
                &folder_trust::canonical(&path),
                &crate::paths::real_or_same(&main),
                &folder_trust::Homes::from_env(),
            );
            if let Some(f) = fields.get_mut(field) {
                f.became = became;
            }
            grant
        } else {
            None
        };
        let base = agents::base_command(ctx, runtime)?;
        let norms_file = ctx
            .state_dir()
            .join(names::AGENTS_DIR)
            .join(format!("{}.md", crate::slug::slug(&agent)?));
        let norms = Norms {
            text: "<norms>",
            file: &norms_file,
        };
        let prompt = fx.prompt.clone();
        let command = match (fx.background, prompt.as_deref()) {
            (true, Some(prompt)) => runtime::deliver_headless(runtime, &base, norms, prompt).argv,
            _ => runtime::deliver(runtime, &base, norms, prompt.as_deref()).argv,
        };
        let mut env = BTreeMap::new();
        env.insert(names::env::FLEET_DIR.to_owned(), shared_text.clone());
        env.extend(fx.env.clone());
        let mut norms = fleet_norms(&wide.name, &shared);
        for text in &fx.instructions {
            norms.push('\n');
            norms.push_str(text.trim_end());
            norms.push('\n');
        }
        agents.push(PlannedAgent {
            name: spec.name.value.clone(),
            slug: spec.slug.clone(),
            agent,
            runtime: runtime.name().to_owned(),
            mode: if fx.background { "headless" } else { "tab" },
            worktree,
            branch,
            path,
            repos,
            command,
            env,
            unset: fx.unset.clone(),
            log: fx.background.then(|| fleet.log(&spec.slug)),
            prompt,
            max_cost: spec.max_cost.as_ref().map(|c| c.value.clone()),
            fields,
            norms,
            runtime_kind: runtime,
            on_exit: spec.on_exit.as_ref().map(|s| s.value.clone()),
            on_complete: spec.on_complete.as_ref().map(|s| s.value.clone()),
            on_fail: spec.on_fail.as_ref().map(|s| s.value.clone()),
            notify: fx.notify.clone(),
            no_setup: fx.no_setup,
            trust,
            owns: fx.owns.clone(),
        });
        if let Some(o) = &spec.owns {
            refuse_overlapping_owns(&agents, o)?;
        }
    }
    let by_slug: BTreeMap<&str, &str> = specs
        .iter()
        .map(|a| (a.slug.as_str(), a.name.value.as_str()))
        .collect();
    Ok(Plan {
        fleet: wide.name.clone(),
        slug: slug.to_owned(),
        manifest: manifest.to_owned(),
        folder: fleet.dir.clone(),
        shared,
        variables: bindings
            .iter()
            .map(|b| Variable {
                key: b.key.clone(),
                value: b.value.clone(),
                from: b.from.to_string(),
            })
            .collect(),
        worktrees: planned_worktrees(&groups, &agents, &worktree_name, &worktree_path, &by_slug),
        agents,
        base: wide.base.clone(),
        seed: wide.seed.clone(),
    })
}

/// Two worktrees never own overlapping paths: the last agent planned (whose `owns` is `o`) is
/// refused when what its worktree owns overlaps another worktree's; agents sharing a worktree
/// share what it owns.
fn refuse_overlapping_owns(
    agents: &[PlannedAgent],
    o: &manifest::Sourced<Vec<String>>,
) -> Result<()> {
    let Some((last, before)) = agents.split_last() else {
        return Ok(());
    };
    for other in before.iter().filter(|a| a.worktree != last.worktree) {
        for mine in &last.owns {
            if let Some(theirs) = other
                .owns
                .iter()
                .find(|t| crate::guard::owners::overlap(mine, t))
            {
                let err = manifest::ManifestError::at(
                    &o.at,
                    &o.path,
                    format!(
                        "'{mine}' overlaps '{theirs}', which agent {} owns in another worktree: two \
                         worktrees never own the same paths; share a worktree group, or split them",
                        other.name
                    ),
                );
                return Err(manifest_error(err));
            }
        }
    }
    Ok(())
}

/// The plan's worktrees: one for each group in each repository its agents work in (this
/// repository when none of them names another).
fn planned_worktrees(
    groups: &[manifest::WorktreePlan],
    agents: &[PlannedAgent],
    worktree_name: &dyn Fn(&str) -> String,
    worktree_path: &dyn Fn(&str) -> PathBuf,
    by_slug: &BTreeMap<&str, &str>,
) -> Vec<PlannedWorktree> {
    let mut out = Vec::new();
    for g in groups {
        let name = worktree_name(&g.group);
        let mut places: Vec<(Option<PathBuf>, PathBuf)> = Vec::new();
        for agent in agents
            .iter()
            .filter(|a| a.worktree.as_deref() == Some(&name))
        {
            for r in &agent.repos {
                if !places.iter().any(|(clone, _)| *clone == r.clone) {
                    places.push((r.clone.clone(), r.path.clone()));
                }
            }
        }
        if places.is_empty() {
            places.push((None, worktree_path(&g.group)));
        }
        for (repo, path) in places {
            out.push(PlannedWorktree {
                name: name.clone(),
                group: g.group.clone(),
                branch: g.branch.clone(),
                path,
                repo,
                agents: g
                    .agents
                    .iter()
                    .map(|s| by_slug.get(s.as_str()).copied().unwrap_or(s).to_owned())
                    .collect(),
            });
        }
    }
    out
}

/// The folder a clone's worktrees go in: its own `worktree_base` once it is cloned, else where
/// the default would put them.
fn clone_worktree_base(clone: &Path) -> Result<PathBuf> {
    if clone.join(".git").is_dir() {
        return Context::discover_from(clone)?.worktree_base();
    }
    let real_parent = clone
        .parent()
        .and_then(|p| gix::path::realpath(p).ok())
        .zip(clone.file_name())
        .map(|(p, n)| p.join(n))
        .unwrap_or_else(|| clone.to_owned());
    crate::repo::default_worktree_base(&real_parent, &real_parent.join(".git"))
}

/// A manifest error as berth says it: file, line, column, field, then what is wrong.
pub fn manifest_error(err: manifest::ManifestError) -> anyhow::Error {
    Refusal::from(err).into()
}

/// What the norms add for a fleet's agent: the fleet, and where its shared folder is.
fn fleet_norms(fleet: &str, shared: &Path) -> String {
    format!(
        "You are one agent of the fleet `{fleet}`. Its agents share the folder `{}` \
         (`${}`): where your task speaks of `/fleet`, it means that folder.\n",
        shared.display(),
        names::env::FLEET_DIR
    )
}

/// Every way to name this repository: its origin's URL, its checkout's and common dir's paths.
fn this_repo(ctx: &Context) -> Vec<String> {
    let mut out: Vec<String> = ctx.config_string("remote.origin.url").into_iter().collect();
    out.extend(ctx.primary.iter().map(|p| p.display().to_string()));
    out.push(ctx.common_dir.display().to_string());
    out
}

/// An input's value inferred on this machine: the origin's URL, or the current branch's open
/// pull request through `gh`.
pub fn infer(ctx: &Context, from: InferFrom) -> Result<String, String> {
    match from {
        InferFrom::Repo => ctx
            .config_string("remote.origin.url")
            .ok_or_else(|| "this repository has no origin remote".to_owned()),
        InferFrom::Pr => {
            if !crate::orchestrator::terminal::installed("gh") {
                return Err("gh is not installed".to_owned());
            }
            let out = std::process::Command::new("gh")
                .args(["pr", "view", "--json", "number", "--jq", ".number"])
                .current_dir(ctx.current.as_deref().unwrap_or(&ctx.common_dir))
                .stdin(std::process::Stdio::null())
                .output()
                .map_err(|e| format!("cannot run gh: {}", crate::error::io_reason(&e)))?;
            let said = String::from_utf8_lossy(&out.stdout).trim().to_owned();
            if out.status.success() && !said.is_empty() {
                Ok(said)
            } else {
                let why = String::from_utf8_lossy(&out.stderr);
                Err(format!(
                    "gh found no pull request: {}",
                    why.split_whitespace().collect::<Vec<_>>().join(" ")
                ))
            }
        }
    }
}

/// How one agent's launch went.
#[derive(Debug, Clone, Serialize)]
pub struct Started {
    pub name: String,
    pub agent: String,
    /// Why it did not start; none when it did.
    pub error: Option<String>,
    /// How to watch it, when it opened in a tmux session out of sight.
    #[serde(skip)]
    pub attach: Option<String>,
}

/// Launch the fleet `plan` describes: refuse it while it is up (or when an interactive agent
/// would have no terminal), record it, then launch every agent. One agent that fails to start
/// does not stop the others; each says how it went.
pub fn up(ctx: &Context, plan: &Plan, backend: Option<Backend>) -> Result<Vec<Started>> {
    let fleet = Fleet::at(plan.folder.clone());
    let interactive = plan.agents.iter().filter(|a| a.mode == "tab").count();
    if interactive > 0 && agents::choose_backend(backend)? == Backend::None {
        let why = if backend == Some(Backend::None) {
            "--backend none opens no tab"
        } else {
            "there is no terminal: not inside herdr or tmux, and tmux is not installed"
        };
        return Err(refuse_with_hint(
            format!("{interactive} of the fleet's agents open in a tab, and {why}"),
            "install tmux, or set background = true on them to run them headless",
        ));
    }
    if let Some(state) = fleet.load()?
        && state.is_up()
        && !state.name.is_empty()
    {
        return Err(already_up(plan, &state));
    }
    make_clones(ctx, plan)?;
    fleet.update(|state| {
        if state.is_up() && !state.name.is_empty() {
            return Err(already_up(plan, state));
        }
        *state = fresh_state(plan, std::mem::take(&mut state.worktrees));
        Ok(())
    })?;
    std::fs::create_dir_all(&plan.shared)
        .with_context(|| format!("cannot create {}", plan.shared.display()))?;
    for log in plan.agents.iter().filter_map(|a| a.log.as_ref()) {
        // A log is the output of one run: the last run's goes.
        let _ = std::fs::remove_file(log);
    }
    let supervisor = supervisor_command(&fleet)?;
    let mut results: Vec<Option<Started>> = vec![None; plan.agents.len()];
    std::thread::scope(|scope| {
        let mut lanes = Vec::new();
        for lane in lanes_of(&plan.agents) {
            let thread_ctx = context_for_thread(ctx);
            let fleet = &fleet;
            let supervisor = &supervisor;
            lanes.push(scope.spawn(move || {
                lane.into_iter()
                    .map(|i| {
                        let agent = &plan.agents[i];
                        let started =
                            launch_one(&thread_ctx, fleet, plan, agent, backend, supervisor);
                        (i, started)
                    })
                    .collect::<Vec<_>>()
            }));
        }
        for lane in lanes {
            match lane.join() {
                Ok(done) => {
                    for (i, started) in done {
                        results[i] = Some(started);
                    }
                }
                Err(panic) => std::panic::resume_unwind(panic),
            }
        }
    });
    Ok(results
        .into_iter()
        .zip(&plan.agents)
        .map(|(r, a)| {
            r.unwrap_or_else(|| Started {
                name: a.name.clone(),
                agent: a.agent.clone(),
                error: Some("it was never launched".to_owned()),
                attach: None,
            })
        })
        .collect())
}

/// Ready `plan`'s folder for launches one at a time (a pipeline run's): the clones its agents
/// need made, its state recorded afresh (`fresh`) or kept as it is (a resumed run), its shared
/// folder made; the supervisor command its headless agents run under.
pub fn prepare(ctx: &Context, plan: &Plan, fresh: bool) -> Result<(Fleet, Vec<String>)> {
    let fleet = Fleet::at(plan.folder.clone());
    make_clones(ctx, plan)?;
    fleet.update(|state| {
        if fresh || state.name.is_empty() {
            *state = fresh_state(plan, std::mem::take(&mut state.worktrees));
        }
        Ok(())
    })?;
    std::fs::create_dir_all(&plan.shared)
        .with_context(|| format!("cannot create {}", plan.shared.display()))?;
    Ok((fleet.clone(), supervisor_command(&fleet)?))
}

/// Launch one headless agent of a plan [`prepare`] readied, from a thread of its own (`ctx`
/// made by [`context_for_thread`]); its old log goes first.
pub fn launch_headless(
    ctx: &Context,
    fleet: &Fleet,
    plan: &Plan,
    agent: &PlannedAgent,
    supervisor: &[String],
) -> Started {
    if let Some(log) = &agent.log {
        let _ = std::fs::remove_file(log);
    }
    launch_one(ctx, fleet, plan, agent, None, supervisor)
}

/// Clone, once each, the other repositories the plan's agents work in; a clone made by an
/// earlier fleet is reused.
fn make_clones(ctx: &Context, plan: &Plan) -> Result<()> {
    let cwd = std::env::current_dir().context("cannot read the current directory")?;
    let mut done: Vec<&Path> = Vec::new();
    for r in plan.agents.iter().flat_map(|a| &a.repos) {
        let (Some(written), Some(clone)) = (&r.written, &r.clone) else {
            continue;
        };
        if done.contains(&clone.as_path()) {
            continue;
        }
        if !clone.join(".git").is_dir() {
            ctx.ui
                .status(format_args!("cloning {written} into {}", clone.display()));
        }
        clones::ensure(written, clone, &cwd)?;
        done.push(clone);
    }
    Ok(())
}

/// The refusal for a fleet that is up.
fn already_up(plan: &Plan, state: &State) -> anyhow::Error {
    let running = state.running().len();
    refuse_with_hint(
        format!(
            "fleet '{}' is up since {} ({running} of {} agents running)",
            plan.fleet,
            clock::age(clock::now(), state.started),
            state.agents.len()
        ),
        format!(
            "take it down first: {} fleet down {}",
            names::TOOL,
            plan.slug
        ),
    )
}

/// The state of a fleet `plan` starts, keeping the worktrees an earlier run left (`kept`).
fn fresh_state(plan: &Plan, kept: Vec<WorktreeState>) -> State {
    let mut worktrees = kept;
    for w in &plan.worktrees {
        match worktrees
            .iter_mut()
            .find(|k| k.name == w.name && k.repo == w.repo)
        {
            Some(old) => old.kept = None,
            None => worktrees.push(WorktreeState {
                name: w.name.clone(),
                group: w.group.clone(),
                branch: w.branch.clone(),
                repo: w.repo.clone(),
                kept: None,
                trusted: Vec::new(),
            }),
        }
    }
    State {
        version: super::state::FORMAT_VERSION,
        name: plan.fleet.clone(),
        manifest: plan.manifest.clone(),
        started: clock::now(),
        down: None,
        agents: plan
            .agents
            .iter()
            .map(|a| AgentState {
                name: a.name.clone(),
                slug: a.slug.clone(),
                agent: a.agent.clone(),
                runtime: a.runtime.clone(),
                background: a.mode == "headless",
                worktree: a.worktree.clone(),
                branch: a.branch.clone(),
                log: a.log.clone(),
                env: a.env.clone(),
                unset: a.unset.clone(),
                on_exit: a.on_exit.clone(),
                on_complete: a.on_complete.clone(),
                on_fail: a.on_fail.clone(),
                max_cost: a.max_cost.clone(),
                notify: a.notify.clone(),
                ..AgentState::default()
            })
            .collect(),
        worktrees,
    }
}

/// The agents in launch lanes: one lane per worktree group (its agents in the manifest's order,
/// so the first makes the worktree and the others join it), one per agent outside any worktree.
pub fn lanes_of(agents: &[PlannedAgent]) -> Vec<Vec<usize>> {
    let mut lanes: Vec<(Option<&str>, Vec<usize>)> = Vec::new();
    for (i, agent) in agents.iter().enumerate() {
        match agent.worktree.as_deref() {
            Some(w) => match lanes.iter_mut().find(|(k, _)| *k == Some(w)) {
                Some((_, lane)) => lane.push(i),
                None => lanes.push((Some(w), vec![i])),
            },
            None => lanes.push((None, vec![i])),
        }
    }
    lanes.into_iter().map(|(_, lane)| lane).collect()
}

/// This binary as a headless agent's supervisor: `git-berth fleet _supervise <fleet> `; the
/// launch adds the agent's slug, its pid file and its command line.
fn supervisor_command(fleet: &Fleet) -> Result<Vec<String>> {
    let exe = std::env::current_exe().context("cannot find the git-berth binary")?;
    Ok(vec![
        exe.display().to_string(),
        "fleet".to_owned(),
        "_supervise".to_owned(),
        fleet.dir.display().to_string(),
    ])
}

/// A context for a launch thread: the same repository and session, its own handle.
pub fn context_for_thread(ctx: &Context) -> Context {
    Context {
        repo: ctx.repo.clone(),
        common_dir: ctx.common_dir.clone(),
        primary: ctx.primary.clone(),
        current: ctx.current.clone(),
        standing: ctx.standing,
        session_flag: ctx.session_flag.clone(),
        ui: ctx.ui.clone(),
    }
}

/// For an agent of several repositories (`repos`), its worktrees in all but the first (where its
/// launch makes one), claimed for the agent, and `BERTH_AGENT_REPOS` listing all of them; nothing
/// for an agent of one repository. `first` is the context of its first repository.
fn other_worktrees(
    first: &Context,
    ctx: &Context,
    plan: &Plan,
    agent: &PlannedAgent,
) -> Result<Option<(String, String)>> {
    let (Some(name), [head, rest @ ..]) = (&agent.worktree, agent.repos.as_slice()) else {
        return Ok(None);
    };
    if rest.is_empty() {
        return Ok(None);
    }
    let session = crate::orchestrator::identity::session_id(&crate::slug::slug(&agent.agent)?);
    let mut paths = vec![existing_path(first, name).unwrap_or_else(|| head.path.clone())];
    for r in rest {
        let mut there = clones::open(ctx, r.clone.as_deref())?;
        // A squad's worktree its first agent made is joined as it is, as the launch joins the
        // first repository's.
        if let Some(path) = existing_path(&there, name) {
            paths.push(path);
            continue;
        }
        there.session_flag = Some(session.clone());
        let added = crate::worktree::create::add_on(
            &there,
            &crate::worktree::create::AddRequest {
                name: name.clone(),
                base: plan.base.clone(),
                ..Default::default()
            },
            agent.branch.as_deref(),
        )?;
        paths.push(added.path);
    }
    let joined =
        std::env::join_paths(&paths).context("a worktree's path holds the path separator ':'")?;
    Ok(Some((
        names::env::AGENT_REPOS.to_owned(),
        joined.to_string_lossy().into_owned(),
    )))
}

/// The folder of the worktree `name` in `ctx`'s repository, when its registry has it.
fn existing_path(ctx: &Context, name: &str) -> Option<PathBuf> {
    let registry = crate::registry::Store::new(ctx.state_dir()).load().ok()?;
    registry.find(name).map(|r| r.path.clone())
}

/// Note in the fleet's state a folder-trust record written for `agent`'s worktree, for `down` to
/// take out when it removes the worktree.
fn record_grant(fleet: &Fleet, agent: &PlannedAgent, grant: &folder_trust::Grant) -> Result<()> {
    let Some(name) = &agent.worktree else {
        return Ok(());
    };
    let repo = agent.repos.first().and_then(|r| r.clone.clone());
    fleet.update(|state| {
        if let Some(w) = state
            .worktrees
            .iter_mut()
            .find(|w| &w.name == name && w.repo == repo)
            && !w.trusted.contains(grant)
        {
            w.trusted.push(grant.clone());
        }
        Ok(())
    })
}

/// An agent that could not be started, `err` recorded in the fleet's state as the reason.
fn not_started(fleet: &Fleet, agent: &PlannedAgent, err: &anyhow::Error) -> Started {
    let why = crate::error::render(err).0;
    let _ = fleet.update_agent(&agent.slug, |s| s.error = Some(why.clone()));
    Started {
        name: agent.name.clone(),
        agent: agent.agent.clone(),
        error: Some(why),
        attach: None,
    }
}

/// For an agent in a tab with end commands or notifications: its supervisor's `--ended`, which
/// its tab runs when it exits, with its exit code.
fn after_in_tab(agent: &PlannedAgent, supervisor: &[String]) -> Option<Vec<String>> {
    let wants = agent.on_exit.is_some()
        || agent.on_complete.is_some()
        || agent.on_fail.is_some()
        || !agent.notify.is_empty();
    (agent.log.is_none() && wants).then(|| {
        let mut argv = supervisor.to_vec();
        argv.push(agent.slug.clone());
        argv.push("--ended".to_owned());
        argv
    })
}

/// Launch one agent and record how it went in the fleet's state.
fn launch_one(
    ctx: &Context,
    fleet: &Fleet,
    plan: &Plan,
    agent: &PlannedAgent,
    backend: Option<Backend>,
    supervisor: &[String],
) -> Started {
    let place = match (&agent.worktree, &agent.branch) {
        (Some(name), branch) => Place::Worktree {
            name: name.clone(),
            branch: branch.clone(),
            share: true,
        },
        (None, _) => Place::Folder {
            path: plan.shared.clone(),
        },
    };
    let headless = agent.log.as_ref().map(|log| {
        let mut argv = supervisor.to_vec();
        argv.push(agent.slug.clone());
        Headless {
            supervisor: argv,
            log: log.clone(),
        }
    });
    let opened = match agent.repos.first() {
        Some(first) => clones::open(ctx, first.clone.as_deref()),
        None => clones::open(ctx, None),
    };
    let ctx = match opened.and_then(|c| other_worktrees(&c, ctx, plan, agent).map(|env| (c, env))) {
        Ok(done) => done,
        Err(err) => return not_started(fleet, agent, &err),
    };
    let (ctx, repos_env) = (&ctx.0, ctx.1);
    if let Some(grant) = &agent.trust {
        let applied = folder_trust::apply(grant).and_then(|applied| {
            if applied == Applied::Added {
                record_grant(fleet, agent, grant)?;
            }
            Ok(applied)
        });
        match applied {
            Ok(Applied::Refused) => ctx.ui.warn(format_args!(
                "{}: {} marks {} untrusted; auto_trust kept your choice",
                agent.name,
                grant.file.display(),
                grant.key
            )),
            Ok(_) => {}
            Err(err) => return not_started(fleet, agent, &err),
        }
    }
    let request = Request {
        name: agent.agent.clone(),
        layer: 1,
        runtime: agent.runtime_kind,
        command: None,
        prompt: agent.prompt.clone(),
        place,
        backend,
        here: false,
        extra: Extra {
            env: agent
                .env
                .iter()
                .map(|(k, v)| (k.clone(), v.clone()))
                .chain(repos_env)
                .collect(),
            unset: agent.unset.clone(),
            norms: Some(agent.norms.clone()),
            headless,
            base: plan.base.clone(),
            seed: plan.seed.clone(),
            no_setup: agent.no_setup,
            after: after_in_tab(agent, supervisor),
            owns: agent.owns.clone(),
        },
    };
    let launched = agents::launch(ctx, &request);
    let recorded = match &launched {
        Ok(Launched { agent: a, .. }) => fleet.update_agent(&agent.slug, |s| {
            s.path = Some(a.worktree.clone());
            s.worktree = a.worktree_name.clone();
            s.branch = Some(a.branch.clone()).filter(|b| !b.is_empty());
            s.backend = Some(a.backend);
            s.pane = a.pane.clone();
            s.pid = a.pid;
            s.pid_start = a.pid_start;
            s.started = a.started;
            s.error = None;
        }),
        Err(err) => {
            let why = crate::error::render(err).0;
            fleet.update_agent(&agent.slug, |s| s.error = Some(why))
        }
    };
    let error = match (&launched, recorded) {
        (Err(err), _) => Some(crate::error::render(err).0),
        (Ok(_), Err(err)) => Some(crate::error::render(&err).0),
        (Ok(_), Ok(())) => None,
    };
    Started {
        name: agent.name.clone(),
        agent: agent.agent.clone(),
        error,
        attach: launched.ok().and_then(|l| l.attach),
    }
}
