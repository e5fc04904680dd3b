//! `git berth pipeline run|show|runs|inspect`: a manifest's stages run in dependency order, each
//! agent headless in its own worktree, a judge picking the best candidate (`pipeline`); and
//! `git berth pr-review` / `pr-fix`, a review preset run at a pull request's head.

use std::io::{IsTerminal as _, Write};
use std::path::PathBuf;
use std::sync::Mutex;

use anyhow::Result;

use crate::clock;
use crate::error::refuse_with_hint;
use crate::orchestrator::{agents, identity};
use crate::pipeline::exec::{self, Event, Job};
use crate::pipeline::plan::{self, Planned};
use crate::pipeline::record::{self, RunRecord, Standing};
use crate::pipeline::reviews;
use crate::render::{Cell, Column, Cut, Paint, Row, Table, Terminal};
use crate::repo::Context;

#[derive(Debug, clap::Args)]
#[command(
    about = "Run a pipeline of agents in stages, with a judge that picks the best",
    long_about = "Run a pipeline manifest: its stages in dependency order, the agents of a stage \
in parallel, each headless in a worktree of its own, and a judge stage that reads the candidates' \
diffs and final messages, picks a winner and records it as an approving review, so `git berth \
ship <winner's worktree>` lands it through the gate.\n\n\
A pipeline manifest is TOML or YAML with `steps` (each one agent; `depends_on` a stage name) or \
`stages` (agents in parallel; `depends_on` a list); `models = [...]` copies a stage once per \
runtime, `pipeline = \"<file>\"` runs a sub-pipeline in place of a stage, and `judge = {...}` \
picks the best of the stages it depends on. Examples are in share/examples/pipelines/.\n\n\
A run lives in <common dir>/berth/runs/<pipeline>/<n>/: each agent's log, run.json (states, \
exit codes, times, worktrees, final messages) and the judge's verdict.json. Its id, \
<pipeline>-<n>, names its worktrees (<pipeline>-<n>/<agent>) and what --resume and inspect take."
)]
pub struct PipelineArgs {
    #[command(subcommand)]
    pub action: Action,
}

#[derive(Debug, clap::Subcommand)]
pub enum Action {
    /// Run a pipeline: stages in order, each stage's agents in parallel, then its judge
    Run(RunArgs),
    /// Print the expanded plan (stages, agents, worktrees, prompts) and change nothing
    Show(ShowArgs),
    /// List the runs: pipeline, id, state, when it started, how long it took
    Runs(RunsArgs),
    /// Show one run: its stages, agents, exit codes, times, logs and verdict
    Inspect(InspectArgs),
}

#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// The pipeline's manifest: a .toml, .yaml or .yml file
    #[arg(
        value_name = "MANIFEST",
        required_unless_present = "resume",
        conflicts_with = "resume"
    )]
    pub manifest: Option<String>,
    /// Give the manifest's input or var KEY this value (repeatable)
    #[arg(long = "var", value_name = "KEY=VALUE", value_parser = super::key_value)]
    pub vars: Vec<(String, String)>,
    /// Run again only what failed or never ran in run ID, in the same worktrees
    #[arg(long, value_name = "ID", conflicts_with = "vars")]
    pub resume: Option<String>,
    /// How many agents run at once [default: the number of cores]
    #[arg(long, short = 'j', value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub jobs: Option<u16>,
    /// Print each change as one JSON object a line, then the run's record
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, clap::Args)]
pub struct ShowArgs {
    /// The pipeline's manifest
    #[arg(value_name = "MANIFEST")]
    pub manifest: String,
    /// Give the manifest's input or var KEY this value (repeatable)
    #[arg(long = "var", value_name = "KEY=VALUE", value_parser = super::key_value)]
    pub vars: Vec<(String, String)>,
    /// Print the plan as JSON
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, clap::Args)]
pub struct RunsArgs {
    /// Print JSON: {"runs": [...]}
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, clap::Args)]
pub struct InspectArgs {
    /// The run's id, as `pipeline runs` lists it (<pipeline>-<n>)
    #[arg(value_name = "ID")]
    pub id: String,
    /// Print the run's record (run.json) as JSON
    #[arg(long)]
    pub json: bool,
}

pub fn run(ctx: &Context, args: &PipelineArgs, out: &mut dyn Write) -> Result<()> {
    match &args.action {
        Action::Run(a) => run_run(ctx, a, out),
        Action::Show(a) => run_show(ctx, a, out),
        Action::Runs(a) => run_runs(ctx, a, out),
        Action::Inspect(a) => run_inspect(ctx, a, out),
    }
}

fn run_show(ctx: &Context, args: &ShowArgs, out: &mut dyn Write) -> Result<()> {
    let state_dir = ctx.state_dir();
    let planned = plan::plan(ctx, &args.manifest, &args.vars, &|slug| {
        Ok(plan::next_run(&state_dir, slug))
    })?;
    for w in &planned.warnings {
        ctx.ui.warn(format_args!("{w}"));
    }
    if args.json {
        return super::write_json(out, &planned);
    }
    print_plan(out, &planned)
}

fn print_plan(out: &mut dyn Write, p: &Planned) -> Result<()> {
    writeln!(out, "pipeline {} (run {} when started)", p.pipeline, p.id)?;
    if let Some(d) = &p.description {
        writeln!(out, "  {d}")?;
    }
    for v in &p.plan.variables {
        writeln!(out, "  var {} = {}  ({})", v.key, v.value, v.from)?;
    }
    for stage in &p.stages {
        let after = if stage.depends_on.is_empty() {
            String::new()
        } else {
            format!(" after {}", stage.depends_on.join(", "))
        };
        writeln!(out, "\nstage {}{after}", stage.name)?;
        if let Some(j) = &stage.judge {
            writeln!(out, "  judge of {}", j.candidates.join(", "))?;
            writeln!(out, "    criteria: {}", j.criteria)?;
            writeln!(out, "    max_diff: {} bytes a candidate", j.max_diff)?;
            if j.auto_pr {
                writeln!(
                    out,
                    "    auto_pr: a pull request for the winner into {}",
                    j.base
                )?;
            }
        }
        for name in &stage.agents {
            let Some(a) = p.plan.agents.iter().find(|a| &a.name == name) else {
                continue;
            };
            writeln!(out, "  agent {} ({})", a.name, a.runtime)?;
            if let (Some(w), Some(b)) = (&a.worktree, &a.branch) {
                writeln!(out, "    worktree {w} on {b}")?;
                writeln!(out, "    at {}", a.path.display())?;
            } else {
                writeln!(out, "    in the run's shared folder {}", a.path.display())?;
            }
            writeln!(out, "    runs: {}", shell_words::join(&a.command))?;
            if let Some(prompt) = &a.prompt {
                writeln!(
                    out,
                    "    prompt: {}",
                    prompt.replace('\n', "\n            ")
                )?;
            }
            for f in &a.fields {
                writeln!(
                    out,
                    "    {} = {}  ({}): {}",
                    f.field, f.value, f.from, f.became
                )?;
            }
        }
    }
    Ok(())
}

fn run_run(ctx: &Context, args: &RunArgs, out: &mut dyn Write) -> Result<()> {
    let state_dir = ctx.state_dir();
    let (planned, dir, rec, fresh, _held) = match &args.resume {
        Some(id) => {
            let dir = record::find(&state_dir, id).ok_or_else(|| {
                refuse_with_hint(
                    format!("no pipeline run '{id}' here"),
                    "list the runs with: git berth pipeline runs",
                )
            })?;
            let Some(held) = record::hold(&dir)? else {
                return Err(refuse_with_hint(
                    format!("run {id} is running, in another git berth"),
                    format!("see it with: git berth pipeline inspect {id}"),
                ));
            };
            let old = record::load(&dir)?;
            if old.state == Standing::Running {
                left_running(ctx, &dir, id)?;
            }
            let at = dir.clone();
            let planned = plan::plan(ctx, &old.manifest, &old.vars, &|_| {
                Ok((old.id.clone(), at.clone()))
            })?;
            same_shape(&old, &planned)?;
            judge_allowed(&planned)?;
            (planned, dir, old, false, held)
        }
        None => {
            // Planned as given, so its errors name the file as the person wrote it; recorded
            // absolute, so `--resume` finds it from any folder.
            let manifest = args.manifest.as_deref().unwrap_or_default();
            let (planned, dir, rec, held) = start(&state_dir, &args.vars, &|run| {
                plan::plan(ctx, manifest, &args.vars, run).map(|mut p| {
                    p.plan.manifest = absolute(manifest);
                    p
                })
            })?;
            (planned, dir, rec, true, held)
        }
    };
    let done = execute(ctx, &planned, &dir, rec, fresh, args.jobs, args.json, out)?;
    finish(&done)
}

/// How a plan names its run, given the pipeline's slug: the run's id and folder.
type NameRun<'a> = &'a dyn Fn(&str) -> Result<(String, PathBuf)>;

/// A new run: planned by `plan` (given how to make the run's id and folder), its folder made and
/// its record saved. A plan refused leaves no run behind.
fn start(
    state_dir: &std::path::Path,
    vars: &[(String, String)],
    plan: &dyn Fn(NameRun<'_>) -> Result<Planned>,
) -> Result<(Planned, PathBuf, RunRecord, crate::lockwait::Held)> {
    let made = Mutex::new(None);
    // A run's id names its worktrees: one whose worktrees are still here is not given again.
    let names: Vec<String> = crate::registry::Store::new(state_dir.to_path_buf())
        .load()?
        .worktrees
        .into_iter()
        .map(|w| w.name)
        .collect();
    let planned = plan(&|slug| {
        let (id, dir) = record::new_run_dir(state_dir, slug, &|id| worktrees_named(&names, id))?;
        if let Ok(mut m) = made.lock() {
            *m = Some(dir.clone());
        }
        Ok((id, dir))
    });
    let planned = planned.and_then(|p| judge_allowed(&p).map(|()| p));
    let planned = match planned {
        Ok(p) => p,
        Err(err) => {
            if let Some(dir) = made.lock().ok().and_then(|m| m.clone()) {
                let _ = std::fs::remove_dir_all(dir);
            }
            return Err(err);
        }
    };
    let dir = planned.plan.folder.clone();
    let held = record::hold(&dir)?
        .ok_or_else(|| crate::error::bug(format!("the new run {} is held already", planned.id)))?;
    let rec = exec::fresh_record(
        &planned.plan,
        &planned.run_stages,
        &planned.id,
        (&planned.pipeline, &planned.slug),
        planned.description.clone(),
        vars,
    );
    record::save(&dir, &rec)?;
    Ok((planned, dir, rec, held))
}

/// Run the planned pipeline in its folder `dir` from its record `rec` (`fresh` when nothing of it
/// ran yet), showing each change, then say how it went: its record as JSON with `json`, else a
/// summary on stderr.
#[allow(clippy::too_many_arguments)]
fn execute(
    ctx: &Context,
    planned: &Planned,
    dir: &std::path::Path,
    rec: RunRecord,
    fresh: bool,
    jobs: Option<u16>,
    json: bool,
    out: &mut dyn Write,
) -> Result<RunRecord> {
    for w in &planned.warnings {
        ctx.ui.warn(format_args!("{w}"));
    }
    let jobs = jobs.map_or_else(
        || std::thread::available_parallelism().map_or(2, |n| n.get()),
        usize::from,
    );
    ctx.ui
        .status(format_args!("run {} of pipeline {}", rec.id, rec.pipeline));
    let live = std::io::stderr().is_terminal() && !ctx.ui.is_quiet();
    let view = View::new(json, live, &rec);
    // Under the live view, what the launches say goes above its lines, never through them.
    let mut run_ctx = crate::fleet::up::context_for_thread(ctx);
    if let Some(Live { bars, .. }) = &view.live {
        run_ctx.ui = crate::ui::Ui::to(Above {
            bars: bars.clone(),
            line: Vec::new(),
        });
    }
    let mut report = |e: &Event| view.show(e, &mut *out);
    let done = exec::run(
        &run_ctx,
        &Job {
            plan: &planned.plan,
            stages: &planned.run_stages,
            dir,
            jobs,
        },
        rec,
        fresh,
        &mut report,
    )?;
    view.finish();
    if json {
        // One line, as every change before it: the output is a stream of JSON lines.
        let line = serde_json::to_string(&done)
            .map_err(|e| crate::error::bug(format!("cannot write JSON: {e}")))?;
        writeln!(out, "{line}")?;
    } else {
        summary(ctx, &done);
    }
    Ok(done)
}

/// Whether a worktree named `<id>/...` is among `names`.
fn worktrees_named(names: &[String], id: &str) -> bool {
    names
        .iter()
        .any(|n| n.strip_prefix(id).is_some_and(|rest| rest.starts_with('/')))
}

/// A judge approves its winner, as `review approve` does: for a person or the master only.
fn judge_allowed(planned: &Planned) -> Result<()> {
    if planned.run_stages.iter().any(|s| s.judge.is_some()) {
        identity::check_lands(
            agents::caller_layer()?,
            "running a judge, which approves a head",
        )?;
    }
    Ok(())
}

/// A run to resume that its record says runs, while no berth holds it: the berth that ran it
/// ended without saying so (killed). Refused while an agent of it still runs under its
/// supervisor; else said, and resumed.
fn left_running(ctx: &Context, dir: &std::path::Path, id: &str) -> Result<()> {
    let running: Vec<String> = crate::fleet::Fleet::at(dir.to_path_buf())
        .load()?
        .map(|state| {
            state
                .agents
                .iter()
                .filter(|a| a.alive() || a.supervisor_alive())
                .map(|a| match a.pid.or(a.supervisor) {
                    Some(pid) => format!("{} (pid {pid})", a.name),
                    None => a.name.clone(),
                })
                .collect()
        })
        .unwrap_or_default();
    if !running.is_empty() {
        return Err(refuse_with_hint(
            format!(
                "run {id} was left by a git berth that ended without saying so, and its agents {} still run",
                running.join(", ")
            ),
            format!(
                "wait for them to end, or end them with kill <pid>; then: git berth pipeline run --resume {id}"
            ),
        ));
    }
    ctx.ui.warn(format_args!(
        "run {id} was left by a git berth that ended without saying so; running again what did not finish"
    ));
    Ok(())
}

/// The manifest's path made absolute, so `--resume` finds it from any folder.
fn absolute(path: &str) -> String {
    std::fs::canonicalize(path)
        .or_else(|_| std::path::absolute(path))
        .map_or_else(|_| path.to_owned(), |p| p.display().to_string())
}

/// A resumed run's manifest must still plan the same stages and agents.
fn same_shape(old: &RunRecord, planned: &Planned) -> Result<()> {
    let was: Vec<(&str, Vec<&str>)> = old
        .stages
        .iter()
        .map(|s| {
            (
                s.name.as_str(),
                s.agents.iter().map(|a| a.name.as_str()).collect(),
            )
        })
        .collect();
    let now: Vec<(&str, Vec<&str>)> = planned
        .stages
        .iter()
        .map(|s| {
            (
                s.name.as_str(),
                s.agents.iter().map(String::as_str).collect(),
            )
        })
        .collect();
    if was != now {
        return Err(refuse_with_hint(
            format!(
                "the manifest {} no longer plans the stages and agents run {} had",
                old.manifest, old.id
            ),
            "start a new run instead: git berth pipeline run <manifest>",
        ));
    }
    Ok(())
}

/// What a person reads once the run ends.
fn summary(ctx: &Context, r: &RunRecord) {
    let took = r.took(clock::now());
    ctx.ui.status(format_args!(
        "run {} {} in {}s",
        r.id,
        r.state.as_str(),
        took
    ));
    if let Some(v) = r.verdict.as_ref().filter(|_| r.state == Standing::Done) {
        let worktree = r
            .stages
            .iter()
            .flat_map(|s| &s.agents)
            .find(|a| a.name == v.winner)
            .and_then(|a| a.worktree.clone())
            .unwrap_or_else(|| v.winner.clone());
        ctx.ui
            .status(format_args!("the judge picked {}: {}", v.winner, v.reasons));
        match &r.pull_request {
            Some(url) => ctx
                .ui
                .status(format_args!("opened its pull request: {url}")),
            None => ctx
                .ui
                .hint(format_args!("land it with: git berth ship {worktree}")),
        }
    }
}

/// The run's exit: 0 when done; a refusal naming what failed and how to run it again; 130
/// when interrupted.
fn finish(r: &RunRecord) -> Result<()> {
    match r.state {
        Standing::Done => Ok(()),
        Standing::Interrupted => Err(crate::error::Refusal::new(format!(
            "run {} was interrupted; no agent of it is left running",
            r.id
        ))
        .hint(format!(
            "run again what did not finish: git berth pipeline run --resume {}",
            r.id
        ))
        .kind(crate::error::Kind::Interrupted)
        .into()),
        _ => {
            let failed: Vec<String> = r
                .stages
                .iter()
                .filter(|s| s.state == Standing::Failed)
                .map(|s| {
                    let why: Vec<String> = s
                        .agents
                        .iter()
                        .filter(|a| a.state == Standing::Failed)
                        .map(|a| match a.exit {
                            Some(code) => format!("{} exit {code}", a.name),
                            None => a.name.clone(),
                        })
                        .chain(s.judge.as_ref().and_then(|j| j.error.clone()))
                        .collect();
                    format!("{} ({})", s.name, why.join(", "))
                })
                .collect();
            Err(refuse_with_hint(
                format!("run {} failed: stage {}", r.id, failed.join("; stage ")),
                format!(
                    "see the logs with: git berth pipeline inspect {}; run again what failed: git berth pipeline run --resume {}",
                    r.id, r.id
                ),
            ))
        }
    }
}

/// How changes are shown: on stdout a JSON object per change (`--json`) or, into a pipe (or
/// when stderr is not a terminal), a plain line per change; and, when stderr is a terminal and
/// status is not silenced, a live view there, one line per agent redrawn in place (the progress
/// every long command shows on stderr).
struct View {
    out: Say,
    live: Option<Live>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Say {
    Nothing,
    Lines,
    Json,
}

struct Live {
    bars: indicatif::MultiProgress,
    rows: Vec<((String, Option<String>), indicatif::ProgressBar)>,
}

fn style(template: &str) -> indicatif::ProgressStyle {
    indicatif::ProgressStyle::with_template(template)
        .unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner())
}

impl View {
    fn new(json: bool, live: bool, r: &RunRecord) -> View {
        let out = if json {
            Say::Json
        } else if !std::io::stdout().is_terminal() || !live {
            Say::Lines
        } else {
            Say::Nothing
        };
        View {
            out,
            live: live.then(|| Live::new(r)),
        }
    }

    /// Say `e`; a reader that went away loses the line, never the run.
    fn show(&self, e: &Event, out: &mut dyn Write) {
        let text = match self.out {
            Say::Json => serde_json::to_string(e).ok(),
            Say::Lines => Some(line(e)),
            Say::Nothing => None,
        };
        if let Some(text) = text {
            let _ = writeln!(out, "{text}");
            let _ = out.flush();
        }
        if let Some(live) = &self.live {
            live.show(e);
        }
    }

    /// Stop redrawing; the last state of every line stays on the screen.
    fn finish(&self) {
        if let Some(live) = &self.live {
            for (_, bar) in &live.rows {
                if !bar.is_finished() {
                    bar.abandon();
                }
            }
        }
    }
}

impl Live {
    fn new(r: &RunRecord) -> Live {
        // Drawn on stderr: stdout is the command's output.
        let bars =
            indicatif::MultiProgress::with_draw_target(indicatif::ProgressDrawTarget::stderr());
        let mut rows = Vec::new();
        for s in &r.stages {
            let mut add = |agent: Option<&str>, state: Standing| {
                let bar = bars.add(indicatif::ProgressBar::new_spinner());
                bar.set_style(style("{spinner} {prefix:32} {msg}"));
                bar.set_prefix(match agent {
                    Some(a) => format!("{}/{a}", s.name),
                    None => format!("{} (judge)", s.name),
                });
                bar.set_message(state.as_str());
                if state == Standing::Done {
                    bar.finish();
                } else {
                    bar.enable_steady_tick(std::time::Duration::from_millis(200));
                }
                rows.push(((s.name.clone(), agent.map(str::to_owned)), bar));
            };
            if s.judge.is_some() {
                add(None, s.state);
            }
            for a in &s.agents {
                add(Some(&a.name), a.state);
            }
        }
        Live { bars, rows }
    }

    fn show(&self, e: &Event) {
        let key = (e.stage.clone(), e.agent.clone());
        let Some((_, bar)) = self.rows.iter().find(|(k, _)| *k == key) else {
            return;
        };
        match e.state {
            Standing::Running => {
                bar.reset_elapsed();
                bar.set_style(style("{spinner} {prefix:32} running {elapsed}"));
            }
            Standing::Queued => bar.set_message("queued"),
            _ => {
                bar.set_style(style("  {prefix:32} {msg}"));
                bar.finish_with_message(ending(e));
            }
        }
    }
}

/// Lines written while the live view draws, printed above its lines whole.
struct Above {
    bars: indicatif::MultiProgress,
    line: Vec<u8>,
}

impl Write for Above {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        for &b in buf {
            if b == b'\n' {
                let text = String::from_utf8_lossy(&self.line).into_owned();
                self.bars.println(text)?;
                self.line.clear();
            } else {
                self.line.push(b);
            }
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// One change as one plain line.
fn line(e: &Event) -> String {
    let who = match &e.agent {
        Some(a) => format!("{}/{a}", e.stage),
        None => format!("stage {}", e.stage),
    };
    match e.state {
        Standing::Queued | Standing::Running => format!("{who}: {}", e.state.as_str()),
        _ => format!("{who}: {}", ending(e)),
    }
}

/// How something ended, in words: `done in 3s`, `failed (exit 2) in 1s; log: <path>`.
fn ending(e: &Event) -> String {
    let mut s = e.state.as_str().to_owned();
    if e.state == Standing::Failed
        && let Some(code) = e.exit
    {
        s.push_str(&format!(" (exit {code})"));
    }
    if let Some(t) = e.elapsed {
        s.push_str(&format!(" in {t}s"));
    }
    if let Some(why) = &e.error {
        s.push_str(&format!(": {why}"));
    }
    if e.state == Standing::Failed
        && let Some(log) = &e.log
    {
        s.push_str(&format!("; log: {}", log.display()));
    }
    s
}

fn run_runs(ctx: &Context, args: &RunsArgs, out: &mut dyn Write) -> Result<()> {
    let runs = record::all(&ctx.state_dir())?;
    let now = clock::now();
    if args.json {
        #[derive(serde::Serialize)]
        struct Row<'a> {
            pipeline: &'a str,
            id: &'a str,
            state: Standing,
            started: u64,
            took: u64,
            folder: &'a PathBuf,
        }
        #[derive(serde::Serialize)]
        struct Runs<'a> {
            runs: Vec<Row<'a>>,
        }
        let rows = runs
            .iter()
            .map(|(dir, r)| Row {
                pipeline: &r.pipeline,
                id: &r.id,
                state: record::standing_now(dir, r),
                started: r.started,
                took: r.took(now),
                folder: dir,
            })
            .collect();
        return super::write_json(out, &Runs { runs: rows });
    }
    if runs.is_empty() {
        ctx.ui.status("no pipeline runs here");
        ctx.ui
            .hint("start one with: git berth pipeline run <manifest>");
        return Ok(());
    }
    let table = Table {
        columns: vec![
            Column::cut("PIPELINE", Cut::End, 1, 8),
            Column::keep("ID"),
            Column::keep("STATE"),
            Column::keep("STARTED"),
            Column::keep("TOOK"),
        ],
        header: true,
        gutter: false,
        rows: runs
            .iter()
            .map(|(dir, r)| Row {
                mark: None,
                cells: vec![
                    Cell::from(r.pipeline.clone()),
                    Cell::from(r.id.clone()),
                    state_cell(record::standing_now(dir, r)),
                    Cell::from(clock::age(now, r.started)),
                    Cell::from(clock::format_duration(r.took(now))),
                ],
                details: Vec::new(),
            })
            .collect(),
    };
    let term = Terminal::detect(|key| ctx.config_string(key));
    out.write_all(table.render(&term).as_bytes())?;
    Ok(())
}

fn state_cell(s: Standing) -> Cell {
    match s {
        Standing::Done => Cell::painted(s.as_str(), Paint::Green),
        Standing::Failed | Standing::Interrupted => Cell::painted(s.as_str(), Paint::Red),
        Standing::Running => Cell::painted(s.as_str(), Paint::Yellow),
        _ => Cell::from(s.as_str().to_owned()),
    }
}

fn run_inspect(ctx: &Context, args: &InspectArgs, out: &mut dyn Write) -> Result<()> {
    let dir = record::find(&ctx.state_dir(), &args.id).ok_or_else(|| {
        refuse_with_hint(
            format!("no pipeline run '{}' here", args.id),
            "list the runs with: git berth pipeline runs",
        )
    })?;
    let r = record::load(&dir)?;
    if args.json {
        return super::write_json(out, &r);
    }
    let now = clock::now();
    writeln!(
        out,
        "run {} of pipeline {}: {}",
        r.id,
        r.pipeline,
        record::standing_now(&dir, &r).as_str()
    )?;
    if let Some(d) = &r.description {
        writeln!(out, "  {d}")?;
    }
    writeln!(out, "  manifest: {}", r.manifest)?;
    writeln!(
        out,
        "  started {}, took {}s",
        clock::age(now, r.started),
        r.took(now)
    )?;
    writeln!(out, "  folder: {}", dir.display())?;
    for s in &r.stages {
        let after = if s.depends_on.is_empty() {
            String::new()
        } else {
            format!(" after {}", s.depends_on.join(", "))
        };
        writeln!(out, "\nstage {}{after}: {}", s.name, s.state.as_str())?;
        if let Some(j) = &s.judge {
            writeln!(out, "  judge of {}", j.candidates.join(", "))?;
            if let Some(log) = &j.log {
                writeln!(out, "    log: {}", log.display())?;
            }
            if let Some(e) = &j.error {
                writeln!(out, "    failed: {e}")?;
            }
        }
        for a in &s.agents {
            let exit = a.exit.map(|c| format!(", exit {c}")).unwrap_or_default();
            let took = match (a.started, a.ended) {
                (Some(s), Some(e)) => format!(", {}s", e.saturating_sub(s)),
                _ => String::new(),
            };
            writeln!(
                out,
                "  {} ({}): {}{exit}{took}",
                a.name,
                a.runtime,
                a.state.as_str()
            )?;
            if let (Some(w), Some(b)) = (&a.worktree, &a.branch) {
                writeln!(out, "    worktree {w} on {b}")?;
            }
            if let Some(log) = &a.log {
                writeln!(out, "    log: {}", log.display())?;
            }
            if let Some(e) = &a.error {
                writeln!(out, "    {e}")?;
            }
        }
    }
    if let Some(v) = &r.verdict {
        writeln!(out, "\nverdict: {} wins", v.winner)?;
        if !v.ranking.is_empty() {
            writeln!(out, "  ranking: {}", v.ranking.join(", "))?;
        }
        writeln!(out, "  reasons: {}", v.reasons)?;
    }
    if let Some(url) = &r.pull_request {
        writeln!(out, "  pull request: {url}")?;
    }
    Ok(())
}

/// `git berth pr-review`: a review preset run on a pull request.
#[derive(Debug, clap::Args)]
#[command(
    about = "Review a pull request with agents, and post the review as its comment",
    long_about = "Review a pull request with coding agents, each headless in a worktree of its \
own at the pull request's head, and post their review as the pull request's comment.\n\n\
The pull request's head is fetched from origin (GitHub's refs/pull/<N>/head, or GitLab's \
refs/merge-requests/<N>/head) into refs/berth/pr/<N>, and every worktree of the run starts \
there. The agents write the review to review.md in the run's shared folder; when gh is \
installed it is posted with `gh pr comment <N>`, and either way the command says where it is.\n\n\
The presets are ordinary pipeline manifests (see `git berth pipeline --help`): dual, the \
default, has Claude Code and Codex review in parallel, then Codex reconcile the two reviews and \
fix what holds; claude and codex have that one review; fix has Codex fix what the reviews ask \
for (as `git berth pr-fix`). Your own ${XDG_CONFIG_HOME:-~/.config}/git-berth/pipelines/reviews/<name>.toml or .yaml is used \
in place of a built-in of the same name, or as a preset of its own. Each preset declares the \
inputs repo (inferred from origin) and pr (--pr, else the current branch's pull request as gh \
finds it).\n\n\
The run is a pipeline run: `git berth pipeline inspect <id>` shows it and its logs, and the \
fixes an agent committed are on its worktree's branch, for you to push or ship.",
    after_help = "Examples:\n  git berth pr-review --pr 42\n  git berth pr-review --preset claude \
--pr 42\n  git berth pr-fix --pr 42"
)]
pub struct PrReviewArgs {
    /// The preset to run: dual, claude, codex, fix, or one of your own
    #[arg(long, value_name = "NAME", default_value = reviews::DEFAULT_PRESET)]
    pub preset: String,
    #[command(flatten)]
    pub pr: PrArgs,
}

/// `git berth pr-fix`: the `fix` preset run on a pull request.
#[derive(Debug, clap::Args)]
#[command(
    about = "Fix what a pull request's reviews ask for, with an agent at its head",
    long_about = "Run the fix review preset on a pull request: Codex, headless in a worktree at \
the pull request's head (fetched from origin into refs/berth/pr/<N>), reads the reviews and their \
comments and makes each fix a commit of its own on its worktree's branch. What it did is written \
to review.md in the run's shared folder and, when gh is installed, posted as the pull request's \
comment.\n\n\
Your own ${XDG_CONFIG_HOME:-~/.config}/git-berth/pipelines/reviews/fix.toml or fix.yaml is used \
in place of the built-in. The same as `git berth pr-review --preset fix`."
)]
pub struct PrFixArgs {
    #[command(flatten)]
    pub pr: PrArgs,
}

/// What `pr-review` and `pr-fix` share.
#[derive(Debug, clap::Args)]
pub struct PrArgs {
    /// The pull request's number [default: the current branch's, as gh finds it]
    #[arg(long, value_name = "N", value_parser = pr_arg)]
    pub pr: Option<u64>,
    /// Give the preset's input or var KEY this value (repeatable)
    #[arg(long = "var", value_name = "KEY=VALUE", value_parser = super::key_value)]
    pub vars: Vec<(String, String)>,
    /// How many agents run at once [default: the number of cores]
    #[arg(long, short = 'j', value_name = "N", value_parser = clap::value_parser!(u16).range(1..))]
    pub jobs: Option<u16>,
    /// Print each change as one JSON object a line, then the run's record
    #[arg(long)]
    pub json: bool,
}

/// `--pr`'s value: a pull request's number, 1 or more (`#42` is taken as 42).
fn pr_arg(text: &str) -> Result<u64, String> {
    text.trim_start_matches('#')
        .parse::<u64>()
        .ok()
        .filter(|n| *n > 0)
        .ok_or_else(|| "a pull request's number is a whole number from 1".to_owned())
}

/// `git berth pr-review`: the preset `--preset` names (`dual` unless it names another).
pub fn run_pr_review(ctx: &Context, args: &PrReviewArgs, out: &mut dyn Write) -> Result<()> {
    review_pr(ctx, &args.preset, &args.pr, out)
}

/// `git berth pr-fix`: the `fix` preset.
pub fn run_pr_fix(ctx: &Context, args: &PrFixArgs, out: &mut dyn Write) -> Result<()> {
    review_pr(ctx, reviews::FIX_PRESET, &args.pr, out)
}

/// Run the review preset `name` on the pull request `args` names: its head fetched, the run's
/// worktrees started there, the review posted (or said where it is).
fn review_pr(ctx: &Context, name: &str, args: &PrArgs, out: &mut dyn Write) -> Result<()> {
    let config_home = crate::fleet::up::config_home();
    let listed = |dir: &std::path::Path| {
        let files: Vec<String> = std::fs::read_dir(dir)
            .map(|d| {
                d.flatten()
                    .filter_map(|e| e.file_name().into_string().ok())
                    .collect()
            })
            .unwrap_or_default();
        reviews::preset_names(&files)
    };
    let preset = reviews::find(
        name,
        config_home.as_deref(),
        &crate::fleet::up::read_optional,
        &listed,
    )
    .map_err(|why| {
        let dir = config_home.as_deref().map_or_else(
            || "~/.config/git-berth/pipelines/reviews".to_owned(),
            |h| reviews::user_dir(h).display().to_string(),
        );
        refuse_with_hint(
            why,
            format!("name one of them with --preset, or write your own as {dir}/{name}.yaml"),
        )
    })?;
    let number = pr_number(ctx, args)?;
    let mut vars: Vec<(String, String)> = args
        .vars
        .iter()
        .filter(|(k, _)| k != "pr")
        .cloned()
        .collect();
    vars.push(("pr".to_owned(), number.to_string()));
    let head = fetch_head(ctx, number)?;
    let state_dir = ctx.state_dir();
    let (planned, dir, mut rec, _held) = start(&state_dir, &vars, &|run| {
        plan::plan_text(ctx, &preset.from, &preset.text, &vars, run, Some(&head))
    })?;
    // The preset's text, kept with the run, so `pipeline run --resume <id>` can plan it again.
    let ext = std::path::Path::new(&preset.from)
        .extension()
        .and_then(|e| e.to_str())
        .unwrap_or("yaml");
    let copy = dir.join(format!("{}.{ext}", crate::names::RUN_MANIFEST));
    std::fs::write(&copy, &preset.text).map_err(|e| {
        anyhow::anyhow!(
            "cannot write {}: {}",
            copy.display(),
            crate::error::io_reason(&e)
        )
    })?;
    rec.manifest = copy.display().to_string();
    record::save(&dir, &rec)?;
    let done = execute(ctx, &planned, &dir, rec, true, args.jobs, args.json, out)?;
    post_review(ctx, number, &planned.plan.folder, &done);
    finish(&done)
}

/// The pull request's number: `--pr`, else `--var pr=N`, else the current branch's as gh finds it.
fn pr_number(ctx: &Context, args: &PrArgs) -> Result<u64> {
    if let Some(n) = args.pr {
        return Ok(n);
    }
    let given = args
        .vars
        .iter()
        .rev()
        .find(|(k, _)| k == "pr")
        .map(|(_, v)| v.clone());
    let text = match given {
        Some(v) => v,
        None => crate::fleet::up::infer(ctx, crate::manifest::InferFrom::Pr).map_err(|why| {
            refuse_with_hint(
                format!("no pull request named, and the current branch's was not found ({why})"),
                "name it: --pr <number>",
            )
        })?,
    };
    text.trim()
        .trim_start_matches('#')
        .parse::<u64>()
        .ok()
        .filter(|n| *n > 0)
        .ok_or_else(|| {
            refuse_with_hint(
                format!("'{text}' is not a pull request's number"),
                "name it: --pr <number>",
            )
        })
}

/// Fetch pull request `number`'s head from origin into its local ref; that ref.
fn fetch_head(ctx: &Context, number: u64) -> Result<String> {
    let remote = "origin";
    let url = ctx
        .config_string(&format!("remote.{remote}.url"))
        .ok_or_else(|| {
            refuse_with_hint(
                format!(
                    "this repository has no {remote} remote to fetch pull request {number} from"
                ),
                format!("add it: git remote add {remote} <url>"),
            )
        })?;
    let local = reviews::local_ref(number);
    let dir = ctx.current.as_deref().unwrap_or(&ctx.common_dir);
    let mut why = Vec::new();
    for from in reviews::head_refs(&url, number) {
        match crate::git::program::fetch_ref(dir, remote, &from, &local) {
            Ok(()) => {
                ctx.ui.status(format_args!(
                    "fetched pull request {number} ({from} of {remote}) into {local}"
                ));
                return Ok(local);
            }
            Err(e) => why.push(format!("{from}: {e}")),
        }
    }
    Err(refuse_with_hint(
        format!(
            "cannot fetch pull request {number} from {remote} ({url}): {}",
            why.join("; ")
        ),
        format!("see what {remote} publishes: git ls-remote {remote} '*/{number}/head'"),
    ))
}

/// Post the run's review as the pull request's comment when gh is installed; say where it is.
fn post_review(ctx: &Context, number: u64, folder: &std::path::Path, done: &RunRecord) {
    let file = crate::fleet::Fleet::at(folder.to_path_buf())
        .shared()
        .join(crate::names::PR_REVIEW_FILE);
    if !file.is_file() {
        ctx.ui.warn(format_args!(
            "no agent wrote the review {}; see why with: git berth pipeline inspect {}",
            file.display(),
            done.id
        ));
        return;
    }
    if !crate::gh::installed() {
        ctx.ui.status(format_args!(
            "gh is not installed, so the review was not posted; it is at {}",
            file.display()
        ));
        return;
    }
    let dir = ctx.current.as_deref().unwrap_or(&ctx.common_dir);
    match crate::gh::pr_comment(dir, number, &file) {
        Ok(()) => ctx.ui.status(format_args!(
            "posted the review on pull request {number}; it is also at {}",
            file.display()
        )),
        Err(why) => ctx.ui.warn(format_args!(
            "{why}; the review is at {}; post it with: gh pr comment {number} --body-file {}",
            file.display(),
            file.display()
        )),
    }
}
