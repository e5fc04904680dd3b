//! `git berth fleet up|ls|down|clean`: many agents started from one manifest, each in its
//! worktree, and taken down together (`fleet`). `fleet _supervise` is the hidden supervisor a
//! headless agent runs under.

use std::io::Write;
use std::path::PathBuf;
use std::time::Duration;

use anyhow::Result;

use crate::error::refuse_with_hint;
use crate::fleet::list::{self, AgentRow, FleetRow};
use crate::fleet::{Run, down, supervise, up};
use crate::orchestrator::agents::STOP_GRACE;
use crate::orchestrator::backend::Backend;
use crate::orchestrator::terminal::Ended;
use crate::render::{Cell, Column, Cut, Paint, Table, Terminal};
use crate::repo::Context;
use crate::worktree::sweep::Outcome;
use crate::{clock, names};

#[derive(Debug, clap::Args)]
#[command(
    about = "Start many agents from one manifest, list them, take them down",
    long_about = "Start many agents from one manifest (a fleet), each in its worktree, list \
them, and take them down together.\n\n\
A manifest is TOML (.toml) or YAML (.yaml, .yml), one schema: examples are in \
share/examples/fleets/. Each agent gets a worktree of its own, named <fleet>/<agent>, on the \
branch <berth.branchPrefix><fleet>/<agent>; agents that name the same `worktree = \"<group>\"` \
share one worktree and branch; `worktree = false` runs an agent outside any checkout, in the \
fleet's shared folder. Interactive agents open in tabs (herdr inside herdr, else tmux); \
`background = true` agents run headless in their runtime's non-interactive mode (claude -p, \
codex exec, opencode run, pi -p, sh -c for shell), their output in a log, and run their \
on_complete or on_fail, then on_exit, when they end. An agent's `repo` naming another \
repository (a path or a URL) works in a worktree of berth's clone of it, made once in \
${XDG_DATA_HOME:-~/.local/share}/git-berth/clones/<hash>/ and reused; `repos` gives it one \
worktree per repository, listed in BERTH_AGENT_REPOS.\n\n\
A fleet's state, the agents' logs and the folder its agents share (BERTH_FLEET_DIR, what a \
prompt calls /fleet) live in <common dir>/berth/fleets/<fleet>/. `fleet down` ends the agents \
and removes each worktree that is clean and merged; every other one is kept and the reason \
given, and `fleet clean` removes it once it is merged."
)]
pub struct FleetArgs {
    #[command(subcommand)]
    pub action: Action,
}

#[derive(Debug, clap::Subcommand)]
pub enum Action {
    /// Start every agent of a manifest, each in its worktree, all at once
    Up(UpArgs),
    /// Show the fleets and their agents: running, exited with its code, or gone
    Ls(LsArgs),
    /// Stop a fleet's agents and remove its worktrees that are clean and merged
    Down(DownArgs),
    /// Remove a fleet's kept worktrees that are clean and merged by now
    Clean(CleanArgs),
}

#[derive(Debug, clap::Args)]
pub struct UpArgs {
    /// The fleet's manifest: a .toml, .yaml or .yml file
    #[arg(value_name = "MANIFEST")]
    pub manifest: String,
    /// Give the manifest's input or var KEY this value (repeatable)
    #[arg(long = "var", value_name = "KEY=VALUE", value_parser = super::key_value)]
    pub vars: Vec<(String, String)>,
    /// The terminal interactive agents open in [default: herdr inside herdr, else tmux]
    #[arg(long, value_enum, value_name = "BACKEND")]
    pub backend: Option<Backend>,
    /// Print the whole plan (agents, worktrees, branches, command lines, variables, what each
    /// field became) and change nothing
    #[arg(long, short = 'n')]
    pub dry_run: bool,
    /// Print JSON: the fleet as `fleet ls --json` shows it (with --dry-run, the plan)
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, clap::Args)]
pub struct LsArgs {
    /// The fleet to show [default: every fleet]
    #[arg(value_name = "FLEET")]
    pub fleet: Option<String>,
    /// Print JSON: {"fleets": [...]}, each with its agents and kept worktrees
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, clap::Args)]
pub struct DownArgs {
    /// The fleet to take down [default: the one fleet that is up]
    #[arg(value_name = "FLEET")]
    pub fleet: Option<String>,
    /// How long each agent gets to end after SIGTERM before SIGKILL (`30s`, `2m`) [default: 10s]
    #[arg(long, value_name = "DURATION", value_parser = grace)]
    pub grace: Option<Duration>,
    /// Print JSON: {"fleet", "agents": [...], "worktrees": [...]}
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, clap::Args)]
pub struct CleanArgs {
    /// The fleet whose kept worktrees to judge again [default: every fleet that has some]
    #[arg(value_name = "FLEET")]
    pub fleet: Option<String>,
    /// Print JSON: {"fleets": [{"fleet", "worktrees": [...]}]}
    #[arg(long)]
    pub json: bool,
}

/// `git berth fleet _supervise`, which berth starts itself for each headless agent: parsed
/// alone (`cli::supervise`), so it is in no help, manual or completion.
#[derive(Debug, clap::Args)]
pub struct SuperviseArgs {
    /// The fleet's folder
    pub fleet_dir: PathBuf,
    /// The agent's slug in the fleet's state
    pub agent: String,
    /// Where to write the agent's pid once it runs
    #[arg(long, value_name = "FILE", required_unless_present = "ended")]
    pub pid_file: Option<PathBuf>,
    /// An interactive agent ended in its tab with this exit code: record it and run its end's
    /// commands, there
    #[arg(long, value_name = "CODE", allow_negative_numbers = true)]
    pub ended: Option<i32>,
    /// The agent's command line
    #[arg(last = true, required_unless_present = "ended", value_name = "COMMAND")]
    pub command: Vec<String>,
}

fn grace(text: &str) -> Result<Duration, String> {
    clock::parse_duration(text)
        .map(Duration::from_secs)
        .ok_or_else(|| format!("'{text}' is not a duration such as 10s, 2m or 1h"))
}

/// The word after `fleet` that starts a supervisor.
pub const SUPERVISE: &str = "_supervise";

pub fn run(ctx: &Context, args: &FleetArgs, out: &mut dyn Write) -> Result<()> {
    match &args.action {
        Action::Up(a) => run_up(ctx, a, out),
        Action::Ls(a) => run_ls(ctx, a, out),
        Action::Down(a) => run_down(ctx, a, out),
        Action::Clean(a) => run_clean(ctx, a, out),
    }
}

/// Supervise one headless agent (`fleet::supervise`).
pub fn supervise(args: &SuperviseArgs) -> Result<()> {
    match (args.ended, &args.pid_file) {
        (Some(code), _) => {
            supervise::ended_in_tab(args.fleet_dir.clone(), &args.agent, code);
            Ok(())
        }
        (None, Some(pid_file)) => {
            supervise::run(args.fleet_dir.clone(), &args.agent, pid_file, &args.command)
        }
        (None, None) => Err(crate::error::bug(
            "a supervisor with neither --pid-file nor --ended",
        )),
    }
}

fn run_up(ctx: &Context, args: &UpArgs, out: &mut dyn Write) -> Result<()> {
    let plan = up::plan(
        ctx,
        &up::Ask {
            manifest: &args.manifest,
            vars: &args.vars,
        },
    )?;
    if args.dry_run {
        ctx.ui.status("nothing was changed (--dry-run)");
        if args.json {
            return super::write_json(out, &plan);
        }
        return print_plan(out, &plan);
    }
    let started = up::up(ctx, &plan, args.backend)?;
    for s in &started {
        match &s.error {
            None => ctx.ui.status(format_args!("started agent '{}'", s.name)),
            Some(why) => ctx
                .ui
                .warn(format_args!("agent '{}' did not start: {why}", s.name)),
        }
    }
    if let Some(attach) = started.iter().find_map(|s| s.attach.as_deref()) {
        ctx.ui.hint(format_args!("watch its tabs with: {attach}"));
    }
    let rows = list::list(ctx, Some(&plan.slug))?;
    if args.json {
        match rows.first() {
            Some(row) => super::write_json(out, row)?,
            None => super::write_json(out, &rows)?,
        }
    } else {
        print_fleets(ctx, out, &rows)?;
    }
    let failed: Vec<&str> = started
        .iter()
        .filter(|s| s.error.is_some())
        .map(|s| s.name.as_str())
        .collect();
    if failed.is_empty() {
        return Ok(());
    }
    Err(refuse_with_hint(
        format!(
            "{} of {} agents did not start: {}",
            failed.len(),
            started.len(),
            failed.join(", ")
        ),
        format!(
            "the others run; take the fleet down with {} fleet down {}",
            names::TOOL,
            plan.slug
        ),
    ))
}

/// The plan as a person reads it.
fn print_plan(out: &mut dyn Write, plan: &up::Plan) -> Result<()> {
    writeln!(out, "fleet {} ({})", plan.fleet, plan.manifest)?;
    writeln!(out, "  folder  {}", plan.folder.display())?;
    writeln!(out, "  shared  {}", plan.shared.display())?;
    if let Some(base) = &plan.base {
        writeln!(out, "  base    {base}")?;
    }
    if !plan.seed.is_empty() {
        writeln!(
            out,
            "  seed    {}: copied from this checkout into every worktree it makes",
            plan.seed.join(", ")
        )?;
    }
    if !plan.variables.is_empty() {
        writeln!(out, "variables")?;
        for v in &plan.variables {
            writeln!(out, "  {} = {}  ({})", v.key, v.value, v.from)?;
        }
    }
    if !plan.worktrees.is_empty() {
        writeln!(out, "worktrees")?;
        for w in &plan.worktrees {
            let clone = w
                .repo
                .as_ref()
                .map(|c| format!("  in the clone {}", c.display()))
                .unwrap_or_default();
            writeln!(
                out,
                "  {}  branch {}  at {}{clone}  for {}",
                w.name,
                w.branch,
                w.path.display(),
                w.agents.join(", ")
            )?;
        }
    }
    writeln!(out, "agents")?;
    for a in &plan.agents {
        let place = match (&a.worktree, &a.branch) {
            (Some(w), Some(b)) => format!("in worktree {w} on {b}"),
            _ => format!("outside any checkout, in {}", a.path.display()),
        };
        writeln!(out, "  {} ({}, {}) {place}", a.name, a.runtime, a.mode)?;
        writeln!(out, "    command  {}", shell_words::join(&a.command))?;
        for (key, value) in &a.env {
            writeln!(out, "    env      {key}={value}")?;
        }
        for key in &a.unset {
            writeln!(out, "    unset    {key}")?;
        }
        if let Some(log) = &a.log {
            writeln!(out, "    log      {}", log.display())?;
        }
        for f in &a.fields {
            writeln!(
                out,
                "    {} = {}: {}  [{}]",
                f.field, f.value, f.became, f.from
            )?;
        }
    }
    Ok(())
}

#[derive(serde::Serialize)]
struct Fleets<T> {
    fleets: Vec<T>,
}

fn run_ls(ctx: &Context, args: &LsArgs, out: &mut dyn Write) -> Result<()> {
    let rows = list::list(ctx, args.fleet.as_deref())?;
    if args.json {
        return super::write_json(out, &Fleets { fleets: rows });
    }
    if rows.is_empty() {
        ctx.ui.status(format_args!(
            "no fleets yet: start one with {} fleet up <manifest>",
            names::TOOL
        ));
        return Ok(());
    }
    print_fleets(ctx, out, &rows)
}

/// Each fleet: a line on it, a table of its agents, then the worktrees it kept.
fn print_fleets(ctx: &Context, out: &mut dyn Write, rows: &[FleetRow]) -> Result<()> {
    let term = Terminal::detect(|key| ctx.config_string(key));
    let now = clock::now();
    for (i, fleet) in rows.iter().enumerate() {
        if i > 0 {
            writeln!(out)?;
        }
        let when = match fleet.down {
            Some(down) => format!("down {}", clock::age(now, down)),
            None => format!("up since {}", clock::age(now, fleet.started)),
        };
        writeln!(
            out,
            "fleet {} ({}), {when}, {} agents",
            fleet.name,
            fleet.slug,
            fleet.agents.len()
        )?;
        let table = Table {
            columns: vec![
                Column::cut("AGENT", Cut::End, 2, 8),
                Column::keep("STATE"),
                Column::keep("ELAPSED"),
                Column::keep("PORTS"),
                Column::cut("BRANCH", Cut::Middle, 1, 10),
                Column::cut("WORKTREE", Cut::Middle, 0, 16),
            ],
            header: true,
            gutter: false,
            rows: fleet.agents.iter().map(agent_row).collect(),
        };
        out.write_all(table.render(&term).as_bytes())?;
        for a in &fleet.agents {
            if let Some(cost) = &a.max_cost {
                writeln!(
                    out,
                    "budget  {}  ${cost}  advisory: its runtime takes no budget, so nothing \
                     enforces it",
                    a.name
                )?;
            }
        }
        for w in &fleet.worktrees {
            if let Some(why) = &w.kept {
                writeln!(out, "kept  {}  branch {}  {why}", w.name, w.branch)?;
            }
        }
    }
    Ok(())
}

fn agent_row(a: &AgentRow) -> crate::render::Row {
    let said = a.said();
    let state = match a.state {
        Run::Running => Cell::painted(said, Paint::Green),
        Run::Exited if a.exit == Some(0) => Cell::from(said),
        Run::Exited => Cell::painted(said, Paint::Yellow),
        Run::Gone | Run::Pending if a.error.is_some() => Cell::painted(said, Paint::Red),
        Run::Gone | Run::Pending => Cell::painted(said, Paint::Dim),
    };
    let where_ = match (&a.worktree, &a.path) {
        (Some(w), _) => w.clone(),
        (None, Some(path)) => path.display().to_string(),
        (None, None) => "-".to_owned(),
    };
    crate::render::Row {
        mark: None,
        cells: vec![
            Cell::from(a.name.as_str()),
            state,
            Cell::from(a.elapsed.map_or_else(|| "-".to_owned(), elapsed)),
            Cell::from(a.ports.map_or_else(
                || "-".to_owned(),
                |b| format!("{}-{}", b.first, b.first + b.count.saturating_sub(1)),
            )),
            Cell::from(a.branch.as_deref().unwrap_or("-")),
            Cell::from(where_),
        ],
        details: Vec::new(),
    }
}

/// Seconds as a person reads a run's length: `42s`, `3m05s`, `2h07m`.
fn elapsed(secs: u64) -> String {
    match secs {
        s if s < 60 => format!("{s}s"),
        s if s < 3600 => format!("{}m{:02}s", s / 60, s % 60),
        s => format!("{}h{:02}m", s / 3600, (s % 3600) / 60),
    }
}

fn run_down(ctx: &Context, args: &DownArgs, out: &mut dyn Write) -> Result<()> {
    let (fleet, state) =
        list::find_or_only(ctx, args.fleet.as_deref(), "up", |s| s.is_up(), "down")?;
    let report = down::down(ctx, &fleet, &state, args.grace.unwrap_or(STOP_GRACE))?;
    for a in &report.agents {
        ctx.ui.status(crate::orchestrator::terminal::ended_line(
            &a.name, a.pid, a.outcome,
        ));
    }
    if args.json {
        super::write_json(out, &report)?;
    } else {
        print_outcomes(out, &report.worktrees)?;
        ctx.ui.status(format_args!(
            "fleet '{}' is down; its logs and shared folder stay in {}",
            report.fleet,
            report.folder.display()
        ));
    }
    kept_hint(ctx, &report.worktrees);
    let stuck: Vec<u32> = report
        .agents
        .iter()
        .filter(|a| matches!(a.outcome, Ended::NoStartTime | Ended::StillRunning))
        .filter_map(|a| a.pid)
        .collect();
    match stuck.first() {
        Some(pid) => Err(refuse_with_hint(
            format!("{} of the fleet's agents still run", stuck.len()),
            format!("check what pid {pid} is (ps -p {pid}), then end it yourself"),
        )),
        None => Ok(()),
    }
}

#[derive(serde::Serialize)]
struct Cleaned {
    fleet: String,
    worktrees: Vec<Outcome>,
}

fn run_clean(ctx: &Context, args: &CleanArgs, out: &mut dyn Write) -> Result<()> {
    let fleets = match &args.fleet {
        Some(name) => vec![list::find(ctx, name)?],
        None => crate::fleet::state::all(&ctx.state_dir())?
            .into_iter()
            .filter(|(_, s)| !s.worktrees.is_empty())
            .collect(),
    };
    let mut report = Vec::new();
    for (fleet, state) in &fleets {
        report.push(Cleaned {
            fleet: state.name.clone(),
            worktrees: down::teardown(ctx, fleet, state)?,
        });
    }
    for c in &report {
        kept_hint(ctx, &c.worktrees);
    }
    if args.json {
        return super::write_json(out, &Fleets { fleets: report });
    }
    if report.iter().all(|c| c.worktrees.is_empty()) {
        ctx.ui.status("no fleet worktrees left to clean");
    }
    for c in &report {
        print_outcomes(out, &c.worktrees)?;
    }
    Ok(())
}

/// Each worktree's outcome, as `clean` prints it.
fn print_outcomes(out: &mut dyn Write, outcomes: &[Outcome]) -> Result<()> {
    let width = outcomes
        .iter()
        .map(|o| o.name.chars().count())
        .max()
        .unwrap_or(0);
    for o in outcomes {
        match &o.reason {
            Some(reason) => writeln!(out, "kept     {:<width$}  {reason}", o.name)?,
            None => writeln!(
                out,
                "removed  {:<width$}  branch {} deleted",
                o.name, o.branch
            )?,
        }
    }
    Ok(())
}

/// Once for all the kept worktrees: how to take them later.
fn kept_hint(ctx: &Context, outcomes: &[Outcome]) {
    if outcomes.iter().any(|o| o.reason.is_some()) {
        ctx.ui.hint(format_args!(
            "a kept worktree holds work: commit and land it (or discard it), then {} fleet clean",
            names::TOOL
        ));
    }
}
