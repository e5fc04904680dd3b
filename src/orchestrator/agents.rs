//! Agents berth launches, from request to record: the worktree (made or reused through the
//! lifecycle layer and claimed for the agent's own session), the norms, the command line, the
//! terminal, then the `[[agent]]` record under the registry lock, whose claim then follows the
//! agent's own process. Also respawn, typed input, the list, and `tell_worktree` for `ship`.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anyhow::{Context as _, Result};
use serde::Serialize;

use super::backend::{self, Backend, Seen, Window};
use super::identity::{self, Identity};
use super::norms;
use super::runtime::{self, Norms, Runtime};
use super::terminal::{self, Pane};
use crate::error::refuse_with_hint;
use crate::names;
use crate::paths::real_or_same;
use crate::registry::{Agent, Store};
use crate::repo::Context;
use crate::session::{self, Hold};
use crate::worktree::create::{self, AddRequest};
use crate::worktree::ownership::Typed;

/// How long an agent gets between SIGTERM and SIGKILL, when `stop` or `respawn` ends it.
pub const STOP_GRACE: Duration = Duration::from_secs(10);
/// How long a herdr pane's shell gets to start the agent and write its pid.
const HERDR_START: Duration = Duration::from_secs(10);

/// Held while a tab or split opens: launches in parallel (a fleet's) would otherwise both find
/// no detached tmux session and both try to make it.
static OPENING: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Where an agent works.
#[derive(Debug, Clone)]
pub enum Place {
    /// The managed worktree `name`, made if missing. `branch` names a new worktree's branch
    /// (else `<branchPrefix><slug>`); with `share`, a worktree another live agent works in is
    /// joined (a `spawn --worktree` group), otherwise it is refused.
    Worktree {
        name: String,
        branch: Option<String>,
        share: bool,
    },
    /// The caller's own worktree, beside its pane (layer 2).
    Beside { parent: Parent },
    /// A folder outside any checkout (a fleet's `worktree = false` agent, in the fleet's shared
    /// folder): no worktree is made or claimed.
    Folder { path: PathBuf },
}

/// A layer-2 agent's parent: the calling layer-1 agent, as its environment and record say.
/// [`parent_from_env`] reads its identity variables; `launch` completes the rest from the
/// terminal's variables and the parent's record.
#[derive(Debug, Clone)]
pub struct Parent {
    pub name: Option<String>,
    pub worktree: PathBuf,
    pub branch: String,
    /// Its session (`BERTH_SESSION`), which finds its record.
    pub session: Option<String>,
    /// The pane to split, and its tmux server (`$TMUX_PANE` and `$TMUX`, else the parent's
    /// record); herdr's pane (`$HERDR_PANE_ID`).
    pub pane: Option<String>,
    pub socket: Option<PathBuf>,
}

/// One agent to launch.
#[derive(Debug, Clone)]
pub struct Request {
    pub name: String,
    pub layer: u8,
    pub runtime: Runtime,
    /// A command line that replaces the runtime's (`spawn -- <cmd>`).
    pub command: Option<Vec<String>>,
    pub prompt: Option<String>,
    pub place: Place,
    pub backend: Option<Backend>,
    /// Run it in this terminal instead of a new tab (`--here`).
    pub here: bool,
    /// What a fleet adds; empty for every other launch.
    pub extra: Extra,
}

/// What a fleet's agent adds to a launch.
#[derive(Debug, Clone, Default)]
pub struct Extra {
    /// Variables set for the agent beside its identity (`BERTH_FLEET_DIR`, `AWS_PROFILE`, ...).
    pub env: Vec<(String, String)>,
    /// Variables taken out of what it inherits, beside the hatches (`SSH_AUTH_SOCK` when the
    /// manifest withholds SSH).
    pub unset: Vec<String>,
    /// Text appended to its norms (the fleet's folder, the manifest's `instructions`).
    pub norms: Option<String>,
    /// The ref a new worktree starts from (a manifest's `worktree_base`) instead of HEAD.
    pub base: Option<String>,
    /// Untracked paths of the primary checkout copied into a worktree the launch makes (a
    /// manifest's `worktree_seed`), beside what the seed hook lists.
    pub seed: Vec<String>,
    /// A worktree the launch makes runs no setup hook (a manifest's `allow_setup_scripts =
    /// false`).
    pub no_setup: bool,
    /// Run it headless instead of in a terminal.
    pub headless: Option<Headless>,
    /// Paths relative to the repository's root its worktree owns before the agent starts (a
    /// manifest's `owns`).
    pub owns: Vec<String>,
    /// In a tab: a command its tab runs once the agent ends, with the agent's exit code as one
    /// more argument (a fleet's supervisor recording the end and running `on_exit`).
    pub after: Option<Vec<String>>,
}

/// A headless run: no terminal. `supervisor` is started detached (a process group of its own,
/// stdin empty, stdout and stderr appended to `log`) in the agent's folder, with
/// `--pid-file <file> -- <the agent's command line>` added; it starts the agent in a process
/// group of its own, writes the agent's pid to the file, and waits for it to end.
#[derive(Debug, Clone)]
pub struct Headless {
    pub supervisor: Vec<String>,
    pub log: PathBuf,
}

/// What `layer1`, `layer2`, `spawn` and `respawn` report (`--json`).
#[derive(Debug, Serialize)]
pub struct Launched {
    #[serde(flatten)]
    pub agent: Agent,
    /// How to look at it, for people: `tmux attach ...` when it opened outside the caller's
    /// terminal.
    #[serde(skip)]
    pub attach: Option<String>,
}

/// One row of `git berth agents`.
#[derive(Debug, Serialize)]
pub struct Row {
    pub name: String,
    pub layer: u8,
    pub runtime: String,
    pub worktree: PathBuf,
    pub branch: String,
    pub backend: Backend,
    pub pane: Option<String>,
    pub socket: Option<PathBuf>,
    pub pid: Option<u32>,
    /// `alive` or `gone`.
    pub status: &'static str,
    pub session: String,
    pub parent: Option<String>,
    pub started: u64,
    pub command: Vec<String>,
}

/// What the environment says about the terminals, read once.
fn seen() -> Seen {
    let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
    Seen {
        tmux: var(backend::TMUX),
        tmux_pane: var(backend::TMUX_PANE),
        herdr: var(backend::HERDR_ENV).as_deref() == Some("1"),
        herdr_pane: var(backend::HERDR_PANE_ID),
        tmux_installed: terminal::installed("tmux"),
        herdr_installed: terminal::installed("herdr"),
    }
}

/// The terminal a launch with `asked` would open its agent in (`None` when there is none).
pub fn choose_backend(asked: Option<Backend>) -> Result<Backend> {
    backend::choose(&seen(), asked)
}

/// The caller's layer (`BERTH_AGENT_LAYER`; unset is a person, layer 0).
pub fn caller_layer() -> Result<u8> {
    identity::caller_layer(std::env::var(names::env::AGENT_LAYER).ok().as_deref())
}

fn store(ctx: &Context) -> Store {
    Store::new(ctx.state_dir())
}

/// Every agent berth launched for this repository.
pub fn all(ctx: &Context) -> Result<Vec<Agent>> {
    store(ctx).agents()
}

/// The agent named `name` (by its name or its slug), or a refusal that lists how to see them.
pub fn find(ctx: &Context, name: &str) -> Result<Agent> {
    find_in(&all(ctx)?, name)
}

/// [`find`] among `agents`.
fn find_in(agents: &[Agent], name: &str) -> Result<Agent> {
    let slug = crate::slug::slug(name).ok();
    agents
        .iter()
        .find(|a| a.name == name)
        .or_else(|| {
            agents
                .iter()
                .find(|a| slug.is_some() && crate::slug::slug(&a.name).ok() == slug)
        })
        .cloned()
        .ok_or_else(|| {
            refuse_with_hint(
                format!("no agent named '{name}'"),
                format!("see the agents with {} agents", names::TOOL),
            )
        })
}

/// The caller as a layer-2 agent's parent, as its identity variables say: its worktree, branch
/// and session. `launch` completes it ([`complete_parent`]).
pub fn parent_from_env() -> Result<Parent> {
    let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
    let worktree = var(names::env::AGENT_WORKTREE).ok_or_else(|| {
        refuse_with_hint(
            format!(
                "{} is not set: this is no agent berth launched",
                names::env::AGENT_WORKTREE
            ),
            format!("run layer2 from a layer-1 agent ({} layer1)", names::TOOL),
        )
    })?;
    Ok(Parent {
        name: None,
        worktree: PathBuf::from(worktree),
        branch: var(names::env::AGENT_BRANCH).unwrap_or_default(),
        session: var(names::env::SESSION),
        pane: None,
        socket: None,
    })
}

/// The parent of a layer-2 request completed: its name (and branch, when unset) from its record
/// among `agents`, its pane from the terminal's variables, else from that record.
fn complete_parent(req: &Request, seen: &Seen, agents: &[Agent]) -> Request {
    let mut req = req.clone();
    if let Place::Beside { parent } = &mut req.place {
        let record = agents
            .iter()
            .find(|a| parent.session.as_deref() == Some(a.session.as_str()));
        if parent.branch.is_empty()
            && let Some(record) = record
        {
            parent.branch = record.branch.clone();
        }
        (parent.pane, parent.socket) = if seen.herdr {
            (seen.herdr_pane.clone(), None)
        } else if let (Some(pane), Some(tmux)) = (&seen.tmux_pane, &seen.tmux) {
            (Some(pane.clone()), backend::tmux_socket(tmux))
        } else {
            (
                record.and_then(|a| a.pane.clone()),
                record.and_then(|a| a.socket.clone()),
            )
        };
        parent.name = record.map(|a| a.name.clone());
    }
    req
}

/// The command to run in a terminal of its own when there is no terminal to open a tab in:
/// this very command, with `--here`, from where it was run.
fn rerun_here() -> String {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let here = std::env::current_dir()
        .map(|d| shell_words::quote(&d.display().to_string()).into_owned())
        .unwrap_or_else(|_| ".".to_owned());
    format!(
        "cd {here} && {} {} --here",
        names::TOOL,
        shell_words::join(&args)
    )
}

/// Launch one agent: check everything first (a refusal changes nothing), make or reuse its
/// worktree, open its tab or split, record it. With `--here` it replaces this process, and
/// returns only on failure.
pub fn launch(ctx: &Context, req: &Request) -> Result<Launched> {
    let slug = crate::slug::slug(&req.name).map_err(|e| {
        refuse_with_hint(
            format!(
                "invalid agent name '{}': its slug '{}' {}",
                e.name.escape_debug(),
                e.slug,
                e.reason
            ),
            "name it with letters, digits, '.', '_' and '-', not starting with '.' or '-'",
        )
    })?;
    let agents = all(ctx)?;
    // Its session and files are named after the slug: two names of one slug are one agent.
    if let Some(live) = agents
        .iter()
        .find(|a| crate::slug::slug(&a.name).ok().as_ref() == Some(&slug) && a.alive())
    {
        return Err(refuse_with_hint(
            format!(
                "agent '{}' is running (layer {}, {} pane {})",
                live.name,
                live.layer,
                live.backend,
                live.pane.as_deref().unwrap_or("-")
            ),
            format!(
                "pick another name, talk to it with {} send '{}' <text>, or move it with {} respawn",
                names::TOOL,
                live.name,
                names::TOOL
            ),
        ));
    }
    let seen = seen();
    let req = &complete_parent(req, &seen, &agents);
    let chosen = if req.extra.headless.is_some() {
        Backend::Headless
    } else if req.here {
        Backend::None
    } else {
        backend::choose(&seen, req.backend)?
    };
    if chosen == Backend::None && !req.here {
        // On stdout for a script to run; a reader gone loses it, never the refusal that follows.
        let _ = std::io::Write::write_all(
            &mut std::io::stdout(),
            format!("{}\n", rerun_here()).as_bytes(),
        );
        return Err(refuse_with_hint(
            "no terminal to open the agent in: not inside herdr or tmux, and tmux is not installed",
            "run the command above in a terminal of its own (it adds --here), or install tmux",
        ));
    }
    let session = identity::session_id(&slug);
    let base = match &req.command {
        Some(command) => command.clone(),
        None => base_command(ctx, req.runtime)?,
    };
    let spot = place(ctx, &agents, &req.place, &req.name, &session, &req.extra)?;
    if !req.extra.owns.is_empty() {
        // Owned before the agent runs, so its first edit is already guarded; record() then hands
        // the ownership to the agent's process with its claim.
        let worktree = spot
            .name
            .as_deref()
            .ok_or_else(|| crate::error::bug("an agent with owns placed outside a worktree"))?;
        crate::worktree::ownership::own(ctx, Some(worktree), Typed::Rooted(&req.extra.owns))?;
    }
    let plan = plan(ctx, req, &slug, &session, &spot, base)?;
    let pane = match chosen {
        Backend::None => {
            record(ctx, plan.agent(Backend::None, here_pane()))?;
            return Err(terminal::exec_here(&spot.path, &plan.argv, &[]));
        }
        Backend::Tmux => {
            let _one = OPENING.lock().unwrap_or_else(|e| e.into_inner());
            open_tmux(ctx, req, &seen, &spot, &plan)?
        }
        Backend::Herdr => {
            let _one = OPENING.lock().unwrap_or_else(|e| e.into_inner());
            open_herdr(ctx, req, &seen, &spot, &plan, &slug)?
        }
        Backend::Headless => match &req.extra.headless {
            Some(headless) => start_headless(ctx, &req.name, &slug, &spot, &plan, headless)?,
            None => {
                return Err(crate::error::bug(
                    "a headless launch without its supervisor",
                ));
            }
        },
    };
    let attach = pane.1;
    let agent = plan.agent(chosen, pane.0);
    record(ctx, agent.clone())?;
    Ok(Launched { agent, attach })
}

/// This process, which `--here` turns into the agent.
fn here_pane() -> Pane {
    let pid = std::process::id();
    Pane {
        id: String::new(),
        pid: Some(pid),
        pid_start: crate::process::start_time(pid),
        socket: None,
    }
}

/// How long a headless agent's supervisor gets to start it and write its pid.
const HEADLESS_START: Duration = Duration::from_secs(10);

/// Start a headless agent through its supervisor, detached, and wait for the agent's pid. A
/// supervisor that ends without one could not start the agent: its log says why.
fn start_headless(
    ctx: &Context,
    name: &str,
    slug: &str,
    spot: &Spot,
    plan: &Plan,
    headless: &Headless,
) -> Result<(Pane, Option<String>)> {
    let pid_file = norms_file(ctx, slug, "pid");
    let _ = std::fs::remove_file(&pid_file);
    let mut argv = headless.supervisor.clone();
    argv.extend(["--pid-file".to_owned(), pid_file.display().to_string()]);
    argv.push("--".to_owned());
    argv.extend(plan.argv.iter().cloned());
    let supervisor = terminal::start_detached(&argv, &spot.path, &headless.log)?;
    match terminal::wait_for_pid_file(&pid_file, Some(supervisor), HEADLESS_START) {
        Some((pid, pid_start)) => Ok((
            Pane {
                id: String::new(),
                pid: Some(pid),
                pid_start,
                socket: None,
            },
            None,
        )),
        None => Err(refuse_with_hint(
            format!("agent '{name}' did not start"),
            format!("its log says why: {}", headless.log.display()),
        )),
    }
}

/// The runtime's command line: `berth.runtime.<name>.command`, else its default.
pub fn base_command(ctx: &Context, runtime: Runtime) -> Result<Vec<String>> {
    let shell = std::env::var("SHELL").ok();
    runtime::base_command(
        runtime,
        ctx.config_string(&runtime.config_key()).as_deref(),
        shell.as_deref(),
    )
}

/// The worktree an agent works in.
struct Spot {
    path: PathBuf,
    branch: String,
    /// Its managed name, when berth manages it.
    name: Option<String>,
}

/// Make or reuse the worktree of `place`, claimed for the agent's `session` (a worktree the
/// caller holds is handed over; one a live agent works in is joined only when shared).
fn place(
    ctx: &Context,
    agents: &[Agent],
    place: &Place,
    agent: &str,
    session: &str,
    extra: &Extra,
) -> Result<Spot> {
    let registry = store(ctx).load()?;
    let (name, branch, share) = match place {
        Place::Folder { path } => {
            std::fs::create_dir_all(path)
                .with_context(|| format!("cannot create {}", path.display()))?;
            return Ok(Spot {
                path: real_or_same(path),
                branch: String::new(),
                name: None,
            });
        }
        Place::Beside { parent } => {
            let path = real_or_same(&parent.worktree);
            if !path.is_dir() {
                return Err(refuse_with_hint(
                    format!("the parent's worktree {} is gone", path.display()),
                    format!(
                        "start a layer-1 agent in a worktree that exists: {} layer1 <name> <branch>",
                        names::TOOL
                    ),
                ));
            }
            let name = registry
                .worktrees
                .iter()
                .find(|r| real_or_same(&r.path) == path)
                .map(|r| r.name.clone());
            return Ok(Spot {
                path,
                branch: parent.branch.clone(),
                name,
            });
        }
        Place::Worktree {
            name,
            branch,
            share,
        } => (name, branch, *share),
    };
    if let Some(record) = registry.find(name) {
        if let Some(wanted) = branch
            && record.branch != *wanted
        {
            return Err(refuse_with_hint(
                format!(
                    "worktree '{}' exists on branch {}, not {wanted}",
                    record.name, record.branch
                ),
                "pick another name for the agent, or drop the branch to use the worktree as it is",
            ));
        }
        let path = real_or_same(&record.path);
        let held_by = agents
            .iter()
            .find(|a| a.alive() && a.name != agent && real_or_same(&a.worktree) == path);
        if let Some(other) = held_by {
            if share {
                return Ok(Spot {
                    path,
                    branch: record.branch.clone(),
                    name: Some(record.name.clone()),
                });
            }
            return Err(refuse_with_hint(
                format!(
                    "worktree '{}' is where agent '{}' works",
                    record.name, other.name
                ),
                format!(
                    "give the agent a worktree of its own, or join it on purpose: {} spawn {agent} --worktree '{}'",
                    names::TOOL,
                    record.name
                ),
            ));
        }
        hand_over(ctx, &record.name, session)?;
    }
    // The lifecycle claims what it makes or reuses for the context's session: the agent's.
    let as_agent = Context {
        repo: ctx.repo.clone(),
        common_dir: ctx.common_dir.clone(),
        primary: ctx.primary.clone(),
        current: ctx.current.clone(),
        standing: ctx.standing,
        session_flag: Some(session.to_owned()),
        ui: ctx.ui.clone(),
    };
    let added = create::add_on(
        &as_agent,
        &AddRequest {
            name: name.clone(),
            base: extra.base.clone(),
            seed: extra.seed.clone(),
            no_setup: extra.no_setup,
            ..AddRequest::default()
        },
        branch.as_deref(),
    )?;
    Ok(Spot {
        path: real_or_same(&added.path),
        branch: added.branch,
        name: Some(added.name),
    })
}

/// A worktree the caller's own session holds becomes the agent's: the master that made it
/// hands it to the agent it dispatches.
fn hand_over(ctx: &Context, name: &str, session: &str) -> Result<()> {
    let me = ctx.session()?;
    let ttl = ctx.claim_ttl()?;
    let mut locked = crate::worktree::lock(ctx)?;
    let Some(record) = locked.registry.find_mut(name) else {
        return Ok(());
    };
    let handed = match &record.claim {
        Some(claim)
            if claim.session != session && session::hold(Some(claim), &me, ttl) == Hold::Mine =>
        {
            let mut claim = claim.clone();
            claim.session = session.to_owned();
            record.claim = Some(claim);
            true
        }
        _ => false,
    };
    if handed {
        locked.save()?;
    }
    Ok(())
}

/// Everything a launch needs, worked out before any terminal is touched.
struct Plan {
    name: String,
    layer: u8,
    runtime: Runtime,
    spot_path: PathBuf,
    spot_name: Option<String>,
    branch: String,
    session: String,
    parent: Option<String>,
    base: Vec<String>,
    /// The runtime's own command line (norms and prompt included).
    command: Vec<String>,
    prompt: Option<String>,
    env: BTreeMap<String, String>,
    /// What the terminal runs: `env -u <hatches> <env> <command>`.
    argv: Vec<String>,
}

impl Plan {
    /// The record of the agent running in `at` (whose empty id is no pane: `--here`).
    fn agent(&self, backend: Backend, at: Pane) -> Agent {
        Agent {
            name: self.name.clone(),
            layer: self.layer,
            runtime: self.runtime.name().to_owned(),
            worktree: self.spot_path.clone(),
            worktree_name: self.spot_name.clone(),
            branch: self.branch.clone(),
            backend,
            pane: Some(at.id).filter(|p| !p.is_empty()),
            socket: at.socket,
            pid: at.pid,
            pid_start: at.pid_start,
            session: self.session.clone(),
            parent: self.parent.clone(),
            base: self.base.clone(),
            command: self.command.clone(),
            prompt: self.prompt.clone(),
            started: crate::clock::now(),
            env: self.env.clone(),
        }
    }
}

/// The norms file of an agent: `<common dir>/berth/agents/<slug>.md`.
fn norms_file(ctx: &Context, slug: &str, ext: &str) -> PathBuf {
    ctx.state_dir()
        .join(names::AGENTS_DIR)
        .join(format!("{slug}.{ext}"))
}

fn plan(
    ctx: &Context,
    req: &Request,
    slug: &str,
    session: &str,
    spot: &Spot,
    base: Vec<String>,
) -> Result<Plan> {
    let worktree_name = spot.name.clone().unwrap_or_else(|| {
        spot.path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    });
    let mut text = match &req.place {
        Place::Folder { .. } => norms::render_outside(&spot.path, req.layer),
        _ => norms::render(&worktree_name, &spot.branch, &spot.path, req.layer),
    };
    if let Some(more) = &req.extra.norms {
        text.push('\n');
        text.push_str(more);
    }
    let file = norms_file(ctx, slug, "md");
    let dir = file.parent().expect("agents dir");
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    crate::statefile::write_atomic(&file, text.as_bytes(), None)?;
    let norms = Norms {
        text: &text,
        file: &file,
    };
    let delivery = match (&req.extra.headless, req.prompt.as_deref()) {
        (None, prompt) => runtime::deliver(req.runtime, &base, norms, prompt),
        (Some(_), Some(prompt)) => runtime::deliver_headless(req.runtime, &base, norms, prompt),
        (Some(_), None) => {
            return Err(refuse_with_hint(
                format!("agent '{}' runs headless but has no prompt", req.name),
                "give it a prompt: the task it does before it exits",
            ));
        }
    };
    let mut extra_env = delivery.env.clone();
    extra_env.extend(req.extra.env.iter().cloned());
    let who = Identity {
        name: &req.name,
        layer: req.layer,
        branch: &spot.branch,
        worktree: &spot.path,
        session,
    };
    let path = std::env::var("PATH").ok();
    let env = identity::environment(&who, &extra_env, path.as_deref());
    let command = match (&req.extra.after, &req.extra.headless) {
        (Some(after), None) => after_exit(&delivery.argv, after),
        _ => delivery.argv.clone(),
    };
    let argv = identity::wrapped(&env, &req.extra.unset, &command);
    Ok(Plan {
        name: req.name.clone(),
        layer: req.layer,
        runtime: req.runtime,
        spot_path: spot.path.clone(),
        spot_name: spot.name.clone(),
        branch: spot.branch.clone(),
        session: session.to_owned(),
        parent: match &req.place {
            Place::Beside { parent } => parent.name.clone(),
            Place::Worktree { .. } | Place::Folder { .. } => None,
        },
        base,
        command: delivery.argv,
        prompt: req.prompt.clone(),
        env,
        argv,
    })
}

/// `argv` run in the foreground of its tab by `sh`, then `after` with its exit code, the tab's
/// shell ending with that code.
fn after_exit(argv: &[String], after: &[String]) -> Vec<String> {
    let script = format!(
        "\"$@\"; code=$?; {} \"$code\"; exit \"$code\"",
        shell_words::join(after)
    );
    let mut out = vec!["sh".to_owned(), "-c".to_owned(), script, "sh".to_owned()];
    out.extend(argv.iter().cloned());
    out
}

/// Open the agent's tmux window (layer 1: in the caller's session, or in the project's detached
/// session outside tmux) or split (layer 2: beside the parent's pane). Returns the pane and,
/// when it opened out of sight, how to attach.
fn open_tmux(
    ctx: &Context,
    req: &Request,
    seen: &Seen,
    spot: &Spot,
    plan: &Plan,
) -> Result<(Pane, Option<String>)> {
    if let Place::Beside { parent } = &req.place {
        let pane = parent.pane.as_deref().ok_or_else(|| {
            refuse_with_hint(
                "no pane to split: the parent runs in no tmux pane berth knows",
                "run layer2 from inside the parent's tmux pane",
            )
        })?;
        let argv = backend::tmux_split(parent.socket.as_deref(), pane, &spot.path, &plan.argv);
        return Ok((terminal::tmux_open(&argv)?, None));
    }
    if let Some(tmux) = &seen.tmux {
        let socket = backend::tmux_socket(tmux);
        let argv = backend::tmux_tab(
            socket.as_deref(),
            &Window::Current,
            &req.name,
            &spot.path,
            false,
            &plan.argv,
        );
        return Ok((terminal::tmux_open(&argv)?, None));
    }
    let project = ctx
        .primary
        .as_deref()
        .and_then(Path::file_name)
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "repo".to_owned());
    let session = backend::tmux_session_name(&crate::slug::slug(&project).unwrap_or(project));
    let at = detached(&session);
    let argv = backend::tmux_tab(None, &at, &req.name, &spot.path, false, &plan.argv);
    let pane = terminal::tmux_open(&argv)?;
    let attach = match &pane.socket {
        Some(socket) => format!("tmux -S {} attach -t {session}", socket.display()),
        None => format!("tmux attach -t {session}"),
    };
    Ok((pane, Some(attach)))
}

/// A window in the detached session `session` of the default tmux server: a new session the
/// first time, a window in it after that.
fn detached(session: &str) -> Window {
    if terminal::tmux_has_session(None, session) {
        Window::InSession(session.to_owned())
    } else {
        Window::NewSession(session.to_owned())
    }
}

/// Open the agent's herdr tab (layer 1) or split (layer 2), then start it there through the
/// pane's shell; its pid comes back through a file.
fn open_herdr(
    ctx: &Context,
    req: &Request,
    seen: &Seen,
    spot: &Spot,
    plan: &Plan,
    slug: &str,
) -> Result<(Pane, Option<String>)> {
    let pairs: Vec<String> = plan.env.iter().map(|(k, v)| format!("{k}={v}")).collect();
    let pane = match &req.place {
        Place::Beside { parent } => {
            let of = parent
                .pane
                .as_deref()
                .or(seen.herdr_pane.as_deref())
                .ok_or_else(|| {
                    refuse_with_hint(
                        "no herdr pane to split: HERDR_PANE_ID is not set",
                        "run layer2 from inside the parent's herdr pane",
                    )
                })?;
            terminal::herdr_open(&backend::herdr_split(of, &spot.path, &pairs), "pane")?
        }
        Place::Worktree { .. } | Place::Folder { .. } => terminal::herdr_open(
            &backend::herdr_tab(&req.name, &spot.path, &pairs, false),
            "root_pane",
        )?,
    };
    start_in_herdr(ctx, slug, &pane, &spot.path, &plan.argv)
}

/// Start `argv` in the herdr pane `pane` and wait for its pid.
fn start_in_herdr(
    ctx: &Context,
    slug: &str,
    pane: &str,
    cwd: &Path,
    argv: &[String],
) -> Result<(Pane, Option<String>)> {
    let pid_file = norms_file(ctx, slug, "pid");
    let _ = std::fs::remove_file(&pid_file);
    // Type the line that starts it into the pane's shell and press Enter.
    terminal::run_only(&backend::herdr_run(
        pane,
        &backend::herdr_line(cwd, &pid_file, argv),
    ))?;
    let started = terminal::wait_for_pid_file(&pid_file, None, HERDR_START);
    if started.is_none() {
        ctx.ui.warn(format_args!(
            "herdr pane {pane} has not started the agent yet; {} agents shows it as gone until it does",
            names::TOOL
        ));
    }
    Ok((
        Pane {
            id: pane.to_owned(),
            pid: started.map(|s| s.0),
            pid_start: started.and_then(|s| s.1),
            socket: None,
        },
        None,
    ))
}

/// Save `agent` (replacing a gone agent of its name), and let the claim its session holds on
/// its worktree follow its process from now on.
fn record(ctx: &Context, agent: Agent) -> Result<()> {
    let mut locked = crate::worktree::lock(ctx)?;
    let path = real_or_same(&agent.worktree);
    for record in locked.registry.worktrees.iter_mut() {
        if let Some(claim) = record.claim.as_mut()
            && claim.session == agent.session
        {
            if real_or_same(&record.path) == path {
                if let Some(pid) = agent.pid {
                    claim.pid = pid;
                    claim.pid_start = agent.pid_start;
                    claim.at = agent.started;
                    crate::worktree::ownership::follow(
                        ctx,
                        &record.name,
                        &agent.session,
                        &agent.name,
                        pid,
                        agent.pid_start,
                    )?;
                }
            } else {
                // The agent moved on (respawn into another worktree): it holds the old one no more.
                record.claim = None;
            }
        }
    }
    locked.agents.retain(|a| a.name != agent.name);
    locked.agents.push(agent);
    locked.save()
}

/// Stop the agent `name` gracefully and launch it again, with the same command line, identity
/// and environment: in the worktree `group` (made if missing) or, without one, where it was.
pub fn respawn(ctx: &Context, name: &str, group: Option<&str>) -> Result<Launched> {
    let agents = all(ctx)?;
    let old = find_in(&agents, name)?;
    let runtime = Runtime::parse(&old.runtime)?;
    let pane = old
        .pane
        .clone()
        .filter(|_| old.backend != Backend::None)
        .ok_or_else(|| opened_elsewhere(&old, "stop it there and start it again"))?;
    let spot = match group {
        Some(group) => place(
            ctx,
            &agents,
            &Place::Worktree {
                name: group.to_owned(),
                branch: None,
                share: true,
            },
            &old.name,
            &old.session,
            &Extra::default(),
        )?,
        None => {
            if !old.worktree.is_dir() {
                return Err(refuse_with_hint(
                    format!(
                        "agent '{}' worked in {}, which is gone",
                        old.name,
                        old.worktree.display()
                    ),
                    format!(
                        "respawn it into a worktree: {} respawn '{}' --worktree <name>",
                        names::TOOL,
                        old.name
                    ),
                ));
            }
            Spot {
                path: real_or_same(&old.worktree),
                branch: old.branch.clone(),
                name: old.worktree_name.clone(),
            }
        }
    };
    let slug = crate::slug::slug(&old.name)?;
    let req = Request {
        name: old.name.clone(),
        layer: old.layer,
        runtime,
        command: None,
        prompt: old.prompt.clone(),
        place: Place::Worktree {
            name: spot.name.clone().unwrap_or_default(),
            branch: None,
            share: true,
        },
        backend: None,
        here: false,
        extra: Extra::default(),
    };
    let mut plan = plan(ctx, &req, &slug, &old.session, &spot, old.base.clone())?;
    plan.parent = old.parent.clone();
    let socket = old.socket.as_deref();
    let new_pane = match old.backend {
        // The pane must outlive its process for a moment, to be respawned in place. A pane that
        // is gone (closed by hand) cannot be: the agent gets a new window instead.
        Backend::Tmux if terminal::run_only(&backend::tmux_hold(socket, &pane)).is_ok() => {
            end_old(&old);
            // Respawned in place: the same pane id, with the new process.
            let mut pane = terminal::tmux_open(&backend::tmux_respawn(
                socket, &pane, &spot.path, &plan.argv,
            ))?;
            pane.socket = pane.socket.or_else(|| old.socket.clone());
            pane
        }
        Backend::Tmux => {
            end_old(&old);
            let (pane, attach) = open_tmux(ctx, &req, &seen(), &spot, &plan)?;
            if let Some(attach) = attach {
                ctx.ui.status(format_args!(
                    "its pane was gone: it runs in a new window (watch it with: {attach})"
                ));
            }
            pane
        }
        Backend::Herdr => {
            end_old(&old);
            start_in_herdr(ctx, &slug, &pane, &spot.path, &plan.argv)?.0
        }
        // Refused above, before anything was made: berth holds no pane of it.
        Backend::None | Backend::Headless => {
            return Err(opened_elsewhere(&old, "stop it there and start it again"));
        }
    };
    let agent = plan.agent(old.backend, new_pane);
    record(ctx, agent.clone())?;
    Ok(Launched {
        agent,
        attach: None,
    })
}

/// End the agent a respawn replaces, as `stop` ends one.
fn end_old(old: &Agent) {
    if let Some(target) = target_of(old) {
        terminal::end(&[target], STOP_GRACE);
    }
}

fn target_of(agent: &Agent) -> Option<terminal::Target> {
    agent.pid.map(|pid| terminal::Target {
        pid,
        start: agent.pid_start,
    })
}

/// What `stop` did to one agent.
#[derive(Debug, Serialize)]
pub struct Stopped {
    pub name: String,
    pub pid: Option<u32>,
    pub worktree: PathBuf,
    /// `stopped`, `killed`, `already_gone`, `no_start_time` or `still_running`.
    pub outcome: terminal::Ended,
}

/// Stop the agents named (by name or slug), or with `all` every live one: SIGTERM, then SIGKILL
/// after `grace`, all at once. An agent that is gone already is reported, not refused; an
/// unknown name refuses before anything is signalled.
pub fn stop(ctx: &Context, wanted: &[String], all: bool, grace: Duration) -> Result<Vec<Stopped>> {
    let agents = self::all(ctx)?;
    let chosen: Vec<Agent> = if all {
        agents.iter().filter(|a| a.alive()).cloned().collect()
    } else {
        let mut chosen: Vec<Agent> = Vec::new();
        for name in wanted {
            let agent = find_in(&agents, name)?;
            if !chosen.iter().any(|c| c.name == agent.name) {
                chosen.push(agent);
            }
        }
        chosen
    };
    let targets: Vec<Option<terminal::Target>> = chosen.iter().map(target_of).collect();
    let live: Vec<terminal::Target> = targets.iter().flatten().copied().collect();
    let mut ended = terminal::end(&live, grace).into_iter();
    Ok(chosen
        .into_iter()
        .zip(targets)
        .map(|(agent, target)| Stopped {
            outcome: match target {
                Some(_) => ended.next().unwrap_or(terminal::Ended::AlreadyGone),
                None => terminal::Ended::AlreadyGone,
            },
            name: agent.name,
            pid: agent.pid,
            worktree: agent.worktree,
        })
        .collect())
}

/// Type `text` into the live agent `name`'s pane and press Enter.
pub fn send(ctx: &Context, name: &str, text: &str) -> Result<()> {
    let agent = find(ctx, name)?;
    if !agent.alive() {
        return Err(refuse_with_hint(
            format!("agent '{}' is gone", agent.name),
            format!("start it again: {} respawn '{}'", names::TOOL, agent.name),
        ));
    }
    deliver_text(&agent, text)
}

fn deliver_text(agent: &Agent, text: &str) -> Result<()> {
    match (agent.backend, agent.pane.as_deref()) {
        (Backend::Tmux, Some(pane)) => {
            // send-keys: the text, then Enter.
            terminal::run_only(&backend::tmux_send(agent.socket.as_deref(), pane, text))
        }
        // pane run: the text typed into the pane, then Enter.
        (Backend::Herdr, Some(pane)) => terminal::run_only(&backend::herdr_run(pane, text)),
        (Backend::None | Backend::Headless, _) | (_, None) => {
            Err(opened_elsewhere(agent, "type it there"))
        }
    }
}

/// The refusal for an agent whose terminal berth did not open, so cannot reach.
fn opened_elsewhere(agent: &Agent, hint: &str) -> anyhow::Error {
    if agent.backend == Backend::Headless {
        return refuse_with_hint(
            format!(
                "agent '{}' runs headless, in no terminal: it does its prompt's task and exits",
                agent.name
            ),
            format!(
                "see how it goes with {} fleet ls, and start its fleet again to change it",
                names::TOOL
            ),
        );
    }
    refuse_with_hint(
        format!(
            "agent '{}' runs in a terminal berth did not open (--here)",
            agent.name
        ),
        hint,
    )
}

/// Send `text` to every live agent that works in `worktree` (the ship step tells a worktree's
/// agents that their work landed); the names of those it reached. Agents started with `--here`
/// are skipped: berth cannot type into their terminal.
pub fn tell_worktree(ctx: &Context, worktree: &Path, text: &str) -> Result<Vec<String>> {
    let path = real_or_same(worktree);
    let mut told = Vec::new();
    for agent in all(ctx)? {
        if agent.alive()
            && !matches!(agent.backend, Backend::None | Backend::Headless)
            && real_or_same(&agent.worktree) == path
        {
            deliver_text(&agent, text)?;
            told.push(agent.name);
        }
    }
    Ok(told)
}

/// Every agent, alive or gone, oldest first.
pub fn list(ctx: &Context) -> Result<Vec<Row>> {
    let mut agents = all(ctx)?;
    agents.sort_by_key(|a| a.started);
    Ok(agents
        .into_iter()
        .map(|a| Row {
            status: if a.alive() { "alive" } else { "gone" },
            name: a.name,
            layer: a.layer,
            runtime: a.runtime,
            worktree: a.worktree,
            branch: a.branch,
            backend: a.backend,
            pane: a.pane,
            socket: a.socket,
            pid: a.pid,
            session: a.session,
            parent: a.parent,
            started: a.started,
            command: a.command,
        })
        .collect())
}

/// What `feat` made: the worktree, and the tab it opened there, if any.
#[derive(Debug, Serialize)]
pub struct Feat {
    pub name: String,
    pub path: PathBuf,
    pub branch: String,
    pub reused: bool,
    /// The pane of the shell tab it opened (none without a terminal).
    pub pane: Option<String>,
}

/// `feat <branch>`: the branch is `feat/<branch>` unless it has a prefix; the worktree is named
/// after what follows the prefix.
pub fn feat_names(branch: &str) -> (String, String) {
    let full = if branch.contains('/') {
        branch.to_owned()
    } else {
        format!("{}{branch}", names::FEAT_PREFIX)
    };
    let name = full
        .strip_prefix(names::FEAT_PREFIX)
        .unwrap_or(&full)
        .to_owned();
    (name, full)
}

/// A person opens a change: a worktree on `feat/<branch>` claimed for them, and a shell tab
/// there when berth runs inside tmux or herdr.
pub fn feat(ctx: &Context, branch: &str, backend: Option<Backend>) -> Result<Feat> {
    let (name, full) = feat_names(branch);
    let seen = seen();
    let chosen = match backend {
        Some(asked) => backend::choose(&seen, Some(asked))?,
        None if seen.herdr && seen.herdr_installed => Backend::Herdr,
        None if seen.tmux.is_some() => Backend::Tmux,
        None => Backend::None,
    };
    let added = create::add_on(
        ctx,
        &AddRequest {
            name,
            ..AddRequest::default()
        },
        Some(&full),
    )?;
    if added.branch != full {
        ctx.ui.warn(format_args!(
            "worktree '{}' exists on branch {}, not {full}",
            added.name, added.branch
        ));
    }
    let path = real_or_same(&added.path);
    let shell = vec![std::env::var("SHELL").unwrap_or_else(|_| "sh".to_owned())];
    let pane = match chosen {
        // A person's tab is a terminal: headless is for a fleet's agents only.
        Backend::None | Backend::Headless => None,
        Backend::Tmux => {
            let socket = seen.tmux.as_deref().and_then(backend::tmux_socket);
            let at = if seen.tmux.is_some() {
                Window::Current
            } else {
                detached(&backend::tmux_session_name(&added.name))
            };
            let argv = backend::tmux_tab(socket.as_deref(), &at, &added.name, &path, true, &shell);
            Some(terminal::tmux_open(&argv)?.id)
        }
        Backend::Herdr => Some(terminal::herdr_open(
            &backend::herdr_tab(&added.name, &path, &[], true),
            "root_pane",
        )?),
    };
    Ok(Feat {
        name: added.name,
        path,
        branch: added.branch,
        reused: added.reused,
        pane,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn feat_adds_its_prefix_only_to_a_bare_branch() {
        assert_eq!(
            feat_names("login"),
            ("login".to_owned(), "feat/login".to_owned())
        );
        assert_eq!(
            feat_names("feat/login"),
            ("login".to_owned(), "feat/login".to_owned())
        );
        assert_eq!(
            feat_names("fix/crash"),
            ("fix/crash".to_owned(), "fix/crash".to_owned())
        );
    }
}
