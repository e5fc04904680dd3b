//! `git berth pipeline run|show|runs|inspect`: a manifest's stages run in dependency order, each
//! agent headless in its own worktree, a judge picking the best candidate (`pipeline`).

use std::io::{IsTerminal as _, Write};
use std::path::PathBuf;
use std::sync::Mutex;

use anyhow::Result;

use crate::clock;
use crate::error::refuse_with_hint;
use crate::pipeline::exec::{self, Event, Job};
use crate::pipeline::plan::{self, Planned};
use crate::pipeline::record::{self, RunRecord, Standing};
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
            (planned, dir, old, false, held)
        }
        None => {
            // Planned as given, so its errors name the file as the person wrote it; recorded
            // absolute, so `--resume` finds it from any folder.
            let manifest = args.manifest.as_deref().unwrap_or_default();
            let made = Mutex::new(None);
            let planned = plan::plan(ctx, manifest, &args.vars, &|slug| {
                let (id, dir) = record::new_run_dir(&state_dir, slug)?;
                if let Ok(mut m) = made.lock() {
                    *m = Some(dir.clone());
                }
                Ok((id, dir))
            });
            let mut planned = match planned {
                Ok(p) => p,
                Err(err) => {
                    // A plan refused leaves no run behind.
                    if let Some(dir) = made.lock().ok().and_then(|m| m.clone()) {
                        let _ = std::fs::remove_dir_all(dir);
                    }
                    return Err(err);
                }
            };
            planned.plan.manifest = absolute(manifest);
            let dir = planned.plan.folder.clone();
            let held = record::hold(&dir)?.ok_or_else(|| {
                crate::error::bug(format!("the new run {} is held already", planned.id))
            })?;
            let rec = exec::fresh_record(
                &planned.plan,
                &planned.run_stages,
                &planned.id,
                (&planned.pipeline, &planned.slug),
                planned.description.clone(),
                &args.vars,
            );
            record::save(&dir, &rec)?;
            (planned, dir, rec, true, held)
        }
    };
    for w in &planned.warnings {
        ctx.ui.warn(format_args!("{w}"));
    }
    let jobs = args.jobs.map_or_else(
        || std::thread::available_parallelism().map_or(2, |n| n.get()),
        usize::from,
    );
    let view = View::new(args.json, &rec);
    let mut report = |e: &Event| view.show(e, &mut *out);
    ctx.ui
        .status(format_args!("run {} of pipeline {}", rec.id, rec.pipeline));
    let done = exec::run(
        ctx,
        &Job {
            plan: &planned.plan,
            stages: &planned.run_stages,
            dir: &dir,
            jobs,
        },
        rec,
        fresh,
        &mut report,
    )?;
    view.finish();
    if args.json {
        // One line, as every change before it: the output is a stream of JSON lines.
        let line = serde_json::to_string(&done)
            .map_err(|e| crate::error::bug(format!("cannot write JSON: {e}")))?;
        writeln!(out, "{line}")?;
    } else {
        summary(ctx, &done);
    }
    finish(&done)
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
    if let Some(v) = &r.verdict {
        let worktree = r
            .stages
            .iter()
            .flat_map(|s| &s.agents)
            .find(|a| a.name == v.winner)
            .and_then(|a| a.worktree.clone())
            .unwrap_or_else(|| v.winner.clone());
        ctx.ui
            .status(format_args!("the judge picked {}: {}", v.winner, v.reasons));
        ctx.ui
            .hint(format_args!("land it with: git berth ship {worktree}"));
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

/// How changes are shown: a live view on a terminal, a line per change into a pipe, a JSON
/// object per change with `--json`.
enum View {
    Json,
    Lines,
    Live {
        _bars: indicatif::MultiProgress,
        rows: Vec<((String, Option<String>), indicatif::ProgressBar)>,
    },
}

impl View {
    fn new(json: bool, r: &RunRecord) -> View {
        if json {
            return View::Json;
        }
        if !std::io::stdout().is_terminal() || !std::io::stderr().is_terminal() {
            return View::Lines;
        }
        // Drawn on stderr, the same terminal: stdout is held by the command for its output.
        let bars =
            indicatif::MultiProgress::with_draw_target(indicatif::ProgressDrawTarget::stderr());
        let style = indicatif::ProgressStyle::with_template("{spinner} {prefix:32} {msg}")
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner());
        let mut rows = Vec::new();
        for s in &r.stages {
            let mut add = |agent: Option<&str>, state: Standing| {
                let bar = bars.add(indicatif::ProgressBar::new_spinner());
                bar.set_style(style.clone());
                bar.set_prefix(match agent {
                    Some(a) => format!("{}/{a}", s.name),
                    None => format!("{} (judge)", s.name),
                });
                bar.set_message(state.as_str());
                if state != Standing::Done {
                    bar.enable_steady_tick(std::time::Duration::from_millis(200));
                } else {
                    bar.finish();
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
        View::Live { _bars: bars, rows }
    }

    /// Say `e` on `out`; a reader that went away loses the line, never the run.
    fn show(&self, e: &Event, out: &mut dyn Write) {
        match self {
            View::Json => {
                if let Ok(text) = serde_json::to_string(e) {
                    let _ = writeln!(out, "{text}");
                    let _ = out.flush();
                }
            }
            View::Lines => {
                let _ = writeln!(out, "{}", line(e));
                let _ = out.flush();
            }
            View::Live { rows, .. } => {
                let key = (e.stage.clone(), e.agent.clone());
                let Some((_, bar)) = rows.iter().find(|(k, _)| *k == key) else {
                    return;
                };
                match e.state {
                    Standing::Running => {
                        bar.reset_elapsed();
                        bar.set_message("running {elapsed}");
                        bar.set_style(
                            indicatif::ProgressStyle::with_template(
                                "{spinner} {prefix:32} running {elapsed}",
                            )
                            .unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner()),
                        );
                    }
                    Standing::Queued => bar.set_message("queued"),
                    _ => {
                        bar.set_style(
                            indicatif::ProgressStyle::with_template("  {prefix:32} {msg}")
                                .unwrap_or_else(|_| indicatif::ProgressStyle::default_spinner()),
                        );
                        bar.finish_with_message(ending(e));
                    }
                }
            }
        }
    }

    /// Stop redrawing; the last state of every line stays on the screen.
    fn finish(&self) {
        if let View::Live { rows, .. } = self {
            for (_, bar) in rows {
                if !bar.is_finished() {
                    bar.abandon();
                }
            }
        }
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
                state: r.state,
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
            .map(|(_, r)| Row {
                mark: None,
                cells: vec![
                    Cell::from(r.pipeline.clone()),
                    Cell::from(r.id.clone()),
                    state_cell(r.state),
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
        r.state.as_str()
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
    Ok(())
}
