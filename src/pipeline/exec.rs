//! Running a planned pipeline: its stages in dependency order, the agents of a stage in
//! parallel (at most `jobs` at once), each headless in its worktree through the fleet's one
//! launcher, and a judge stage through `judge`. A stage fails when any of its agents does, and
//! the stages that depend on it are skipped. Every change goes to the run's record and, as one
//! event, to the caller's output. Ctrl-C (SIGINT) or SIGTERM ends every agent's process group
//! and records the run as interrupted.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::Result;
use serde::Serialize;

use super::record::{self, AgentRecord, JudgeRecord, RunRecord, Standing};
use crate::fleet::Fleet;
use crate::fleet::plan::PlannedAgent;
use crate::fleet::up::{self, Plan};
use crate::judge;
use crate::orchestrator::terminal::{self, Target};
use crate::repo::Context;
use crate::{clock, names};

/// A stage as the runner takes it: its agents are indices into the plan's agents.
#[derive(Debug, Clone)]
pub struct Stage {
    pub name: String,
    pub depends_on: Vec<String>,
    pub agents: Vec<usize>,
    pub judge: Option<JudgeStage>,
}

#[derive(Debug, Clone)]
pub struct JudgeStage {
    pub criteria: Option<String>,
    pub max_diff: usize,
    /// `auto_pr`: the base branch of the pull request it opens for the winner.
    pub auto_pr: Option<String>,
    /// The candidates, indices into the plan's agents.
    pub candidates: Vec<usize>,
}

/// One change, as `--json` prints it (one object a line) and a person reads it.
#[derive(Debug, Clone, Serialize)]
pub struct Event {
    pub run: String,
    pub stage: String,
    /// The agent, or none for a change of the stage itself.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    pub state: Standing,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub exit: Option<i32>,
    /// Seconds since it started.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub elapsed: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub log: Option<PathBuf>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// What the run is given.
pub struct Job<'a> {
    pub plan: &'a Plan,
    pub stages: &'a [Stage],
    pub dir: &'a Path,
    pub jobs: usize,
}

/// How often a running agent's end is looked for.
const POLL: Duration = Duration::from_millis(50);

/// Run `job`'s stages that its record (`record`, already saved in the run's folder) does not
/// hold as done, saying each change to `report` (always on this thread, which may hold stdout);
/// return the record as the run left it.
pub fn run(
    ctx: &Context,
    job: &Job<'_>,
    record: RunRecord,
    fresh: bool,
    report: &mut dyn FnMut(&Event),
) -> Result<RunRecord> {
    let stop = Arc::new(AtomicBool::new(false));
    for signal in [
        signal_hook::consts::SIGINT,
        signal_hook::consts::SIGTERM,
        signal_hook::consts::SIGHUP,
    ] {
        signal_hook::flag::register(signal, Arc::clone(&stop))?;
    }
    let (fleet, supervisor) = up::prepare(ctx, job.plan, fresh)?;
    let shared = Mutex::new(record);
    let (tx, rx) = mpsc::channel();
    let mut said = Said { rx, report };
    let runner = Runner {
        tx: Mutex::new(tx),
        ran: Mutex::new(std::collections::HashSet::new()),
        job,
        fleet: &fleet,
        supervisor: &supervisor,
        record: &shared,
        stop: &stop,
    };
    // Whatever ends the stages (done, a signal, an error, a panic), every agent left running is
    // ended and the record says how the run went; an error is returned after that.
    let went = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        stages(ctx, &runner, &mut said)
    }));
    let failure = match went {
        Ok(Ok(())) => None,
        Ok(Err(err)) => Some(err),
        Err(_) => Some(crate::error::bug("a pipeline thread panicked")),
    };
    let stopped = stop.load(Ordering::SeqCst) || failure.is_some();
    if stopped && let Some(state) = fleet.load()? {
        crate::fleet::down::end_agents(&fleet, &state, crate::orchestrator::agents::STOP_GRACE)?;
        // An agent that finished its work meanwhile is done; one the stop ended is interrupted.
        for (si, stage) in job.stages.iter().enumerate() {
            for (ai, &i) in stage.agents.iter().enumerate() {
                if runner.agent_state(si, ai) == Standing::Running
                    && runner.settle(si, ai, &job.plan.agents[i], true)?.is_none()
                {
                    runner.set_agent(si, ai, |a| a.state = Standing::Interrupted)?;
                }
            }
        }
        // Then each stage the stop cut short, after its agents.
        for si in 0..job.stages.len() {
            if runner.stage_state(si) == Standing::Running {
                runner.set_stage(si, Standing::Interrupted, None)?;
            }
        }
    }
    // After a stop, nothing of the run may be left running (a supervisor finishing an agent's
    // end commands after a run that ended well is no concern).
    let left = match stopped {
        true => fleet
            .load()?
            .map(|s| {
                s.running()
                    .iter()
                    .map(|a| a.name.clone())
                    .collect::<Vec<_>>()
            })
            .unwrap_or_default(),
        false => Vec::new(),
    };
    runner.change(|r| {
        r.state = if failure.is_some() {
            Standing::Failed
        } else if stopped {
            Standing::Interrupted
        } else if r.stages.iter().all(|s| s.state == Standing::Done) {
            Standing::Done
        } else {
            Standing::Failed
        };
        r.ended = Some(clock::now());
        for s in &mut r.stages {
            if stopped && matches!(s.state, Standing::Queued | Standing::Running) {
                s.state = Standing::Interrupted;
            }
            for a in &mut s.agents {
                if stopped && matches!(a.state, Standing::Queued | Standing::Running) {
                    a.state = Standing::Interrupted;
                }
            }
        }
    })?;
    said.drain();
    if !left.is_empty() {
        return Err(crate::error::refuse_with_hint(
            format!(
                "agents of the run still run after being ended: {}",
                left.join(", ")
            ),
            "end them with: git berth stop <agent>",
        ));
    }
    if let Some(err) = failure {
        return Err(err);
    }
    shared
        .into_inner()
        .map_err(|_| crate::error::bug("a pipeline thread panicked"))
}

/// Run the stages not done, in order: a stage whose dependencies are not all done is skipped, and
/// a stop (a signal) starts no further stage.
fn stages(ctx: &Context, runner: &Runner<'_>, said: &mut Said<'_>) -> Result<()> {
    let job = runner.job;
    let stop = runner.stop;
    runner.change(|r| {
        r.state = Standing::Running;
        r.ended = None;
    })?;
    for (si, stage) in job.stages.iter().enumerate() {
        if !runner.stage_state(si).redo() {
            continue;
        }
        if stop.load(Ordering::SeqCst) {
            break;
        }
        let blocked = stage.depends_on.iter().any(|d| {
            job.stages
                .iter()
                .position(|s| &s.name == d)
                .is_some_and(|i| runner.stage_state(i) != Standing::Done)
        });
        if blocked {
            runner.set_stage(si, Standing::Skipped, None)?;
            for ai in 0..stage.agents.len() {
                runner.set_agent(si, ai, |a| a.state = Standing::Skipped)?;
            }
            said.drain();
            continue;
        }
        runner.set_stage(si, Standing::Running, None)?;
        said.drain();
        let ok = match &stage.judge {
            Some(judge) => runner.judge(ctx, si, judge)?,
            None => runner.agents(ctx, si, stage, said)?,
        };
        if stop.load(Ordering::SeqCst) {
            // Its agents are ended first, then it is recorded as interrupted.
            break;
        }
        let state = if ok { Standing::Done } else { Standing::Failed };
        runner.set_stage(si, state, None)?;
        said.drain();
    }
    Ok(())
}

/// Changes said by the run's threads, handed to the caller's `report` on the run's own thread.
struct Said<'r> {
    rx: Receiver<Event>,
    report: &'r mut dyn FnMut(&Event),
}

impl Said<'_> {
    /// Say every change sent so far.
    fn drain(&mut self) {
        while let Ok(e) = self.rx.try_recv() {
            (self.report)(&e);
        }
    }
}

/// What every thread of a run shares (a repository handle is not among it: each thread opens
/// its own).
struct Runner<'a> {
    tx: Mutex<Sender<Event>>,
    /// The agents this invocation launched (by slug): a kept verdict over any of them is stale.
    ran: Mutex<std::collections::HashSet<String>>,
    job: &'a Job<'a>,
    fleet: &'a Fleet,
    supervisor: &'a [String],
    record: &'a Mutex<RunRecord>,
    stop: &'a AtomicBool,
}

impl Runner<'_> {
    /// Change the record and save it.
    fn change(&self, f: impl FnOnce(&mut RunRecord)) -> Result<()> {
        let mut record = self
            .record
            .lock()
            .map_err(|_| crate::error::bug("a pipeline thread panicked"))?;
        f(&mut record);
        record::save(self.job.dir, &record)
    }

    fn stage_state(&self, si: usize) -> Standing {
        self.record
            .lock()
            .map(|r| r.stages[si].state)
            .unwrap_or(Standing::Failed)
    }

    fn set_stage(&self, si: usize, state: Standing, error: Option<String>) -> Result<()> {
        let mut event = None;
        self.change(|r| {
            r.stages[si].state = state;
            if let (Some(j), Some(e)) = (&mut r.stages[si].judge, &error) {
                j.error = Some(e.clone());
            }
            event = Some(Event {
                run: r.id.clone(),
                stage: r.stages[si].name.clone(),
                agent: None,
                state,
                exit: None,
                elapsed: None,
                log: r.stages[si].judge.as_ref().and_then(|j| j.log.clone()),
                error,
            });
        })?;
        if let Some(e) = event {
            self.say(e);
        }
        Ok(())
    }

    fn say(&self, e: Event) {
        if let Ok(tx) = self.tx.lock() {
            let _ = tx.send(e);
        }
    }

    fn set_agent(&self, si: usize, ai: usize, f: impl FnOnce(&mut AgentRecord)) -> Result<()> {
        let mut event = None;
        self.change(|r| {
            let stage = r.stages[si].name.clone();
            let a = &mut r.stages[si].agents[ai];
            let before = a.state;
            f(a);
            if a.state != before {
                event = Some(Event {
                    run: r.id.clone(),
                    stage,
                    agent: Some(a.name.clone()),
                    state: a.state,
                    exit: a.exit,
                    elapsed: a
                        .started
                        .map(|s| a.ended.unwrap_or_else(clock::now).saturating_sub(s)),
                    log: a.log.clone(),
                    error: a.error.clone(),
                });
            }
        })?;
        if let Some(e) = event {
            self.say(e);
        }
        Ok(())
    }

    /// Run the agents of stage `si` that are not done, at most `jobs` at once (the agents that
    /// share a worktree one after another); whether every one of them ended with 0.
    fn agents(&self, ctx: &Context, si: usize, stage: &Stage, said: &mut Said<'_>) -> Result<bool> {
        let plan = self.job.plan;
        let todo: Vec<usize> = (0..stage.agents.len())
            .filter(|&ai| self.agent_state(si, ai).redo())
            .collect();
        for &ai in &todo {
            self.set_agent(si, ai, |a| {
                a.state = Standing::Queued;
                a.exit = None;
                a.ended = None;
                a.error = None;
            })?;
        }
        // Lanes over this stage's agents: a worktree's agents in order, one lane each else.
        let members: Vec<PlannedAgent> = todo
            .iter()
            .map(|&ai| plan.agents[stage.agents[ai]].clone())
            .collect();
        let lanes: Vec<Vec<usize>> = up::lanes_of(&members)
            .into_iter()
            .map(|lane| lane.into_iter().map(|k| todo[k]).collect())
            .collect();
        let queue = Mutex::new(lanes.into_iter());
        let failed = AtomicBool::new(false);
        let workers = self.job.jobs.max(1).min(todo.len().max(1));
        std::thread::scope(|scope| -> Result<()> {
            let mut handles = Vec::new();
            for _ in 0..workers {
                let ctx = up::context_for_thread(ctx);
                let (queue, failed) = (&queue, &failed);
                handles.push(scope.spawn(move || -> Result<()> {
                    loop {
                        let lane = match queue.lock() {
                            Ok(mut q) => q.next(),
                            Err(_) => None,
                        };
                        let Some(lane) = lane else { return Ok(()) };
                        for ai in lane {
                            if self.stop.load(Ordering::SeqCst) {
                                return Ok(());
                            }
                            match self.one(&ctx, si, ai, &plan.agents[stage.agents[ai]]) {
                                Ok(true) => {}
                                Ok(false) => failed.store(true, Ordering::SeqCst),
                                Err(err) => {
                                    // The run stops: every agent it started is ended.
                                    self.stop.store(true, Ordering::SeqCst);
                                    return Err(err);
                                }
                            }
                        }
                    }
                }));
            }
            // This thread says the workers' changes as they come, until every worker is done.
            while !handles.iter().all(|h| h.is_finished()) {
                if let Ok(e) = said.rx.recv_timeout(POLL) {
                    (said.report)(&e);
                }
            }
            said.drain();
            for h in handles {
                h.join()
                    .map_err(|_| crate::error::bug("a pipeline thread panicked"))??;
            }
            Ok(())
        })?;
        let all_done = (0..stage.agents.len()).all(|ai| self.agent_state(si, ai) == Standing::Done);
        Ok(!failed.load(Ordering::SeqCst) && all_done)
    }

    fn agent_state(&self, si: usize, ai: usize) -> Standing {
        self.record
            .lock()
            .map(|r| r.stages[si].agents[ai].state)
            .unwrap_or(Standing::Failed)
    }

    /// Launch one agent and wait for its end; whether it ended with 0.
    fn one(&self, ctx: &Context, si: usize, ai: usize, agent: &PlannedAgent) -> Result<bool> {
        let started = clock::now();
        self.set_agent(si, ai, |a| {
            a.state = Standing::Running;
            a.started = Some(started);
        })?;
        // A resumed agent's state still holds how its last run ended: cleared, so that end
        // is not taken for this run's.
        self.fleet.update_agent(&agent.slug, |s| {
            (s.pid, s.pid_start) = (None, None);
            (s.supervisor, s.supervisor_start) = (None, None);
            (s.ended, s.exit, s.signal) = (None, None, None);
        })?;
        if let Ok(mut ran) = self.ran.lock() {
            ran.insert(agent.slug.clone());
        }
        let launched = up::launch_headless(ctx, self.fleet, self.job.plan, agent, self.supervisor);
        if let Some(why) = launched.error {
            self.set_agent(si, ai, |a| {
                a.state = Standing::Failed;
                a.ended = Some(clock::now());
                a.error = Some(why);
            })?;
            return Ok(false);
        }
        loop {
            if self.stop.load(Ordering::SeqCst) {
                return Ok(false);
            }
            if let Some(ok) = self.settle(si, ai, agent, false)? {
                return Ok(ok);
            }
            std::thread::sleep(POLL);
        }
    }

    /// Record agent `ai` of stage `si` as its fleet state says it ended: whether it ended 0, or
    /// none while it runs. After a stop (`stopped`), an end other than 0 is the stop's doing:
    /// recorded as interrupted.
    fn settle(
        &self,
        si: usize,
        ai: usize,
        agent: &PlannedAgent,
        stopped: bool,
    ) -> Result<Option<bool>> {
        let find = |state: Option<crate::fleet::State>| {
            state.and_then(|s| s.agents.into_iter().find(|a| a.slug == agent.slug))
        };
        let Some(mut a) = find(self.fleet.load()?) else {
            return Ok(None);
        };
        if a.ended.is_none() && a.lost() {
            // The supervisor may have recorded the end and gone since the state was read.
            match find(self.fleet.load()?) {
                Some(again) => a = again,
                None => return Ok(None),
            }
        }
        let lost = a.ended.is_none() && a.lost();
        if a.ended.is_none() && !lost {
            return Ok(None);
        }
        let exit = a.exit_code();
        let ok = exit == Some(0);
        let message = agent
            .log
            .as_ref()
            .and_then(|l| std::fs::read_to_string(l).ok())
            .map(|t| final_message(&t))
            .unwrap_or_default();
        self.set_agent(si, ai, |r| {
            r.state = match (ok, stopped) {
                (true, _) => Standing::Done,
                (false, true) => Standing::Interrupted,
                (false, false) => Standing::Failed,
            };
            r.exit = exit;
            r.ended = Some(a.ended.unwrap_or_else(clock::now));
            r.worktree = a.worktree.clone();
            r.branch = a.branch.clone();
            if let Some(p) = &a.path {
                r.path = p.clone();
            }
            r.message = message;
            if lost {
                r.error = Some(
                    "its process and its supervisor are gone, and nothing recorded how it ended"
                        .to_owned(),
                );
            }
        })?;
        Ok(Some(ok))
    }

    /// Run the judge of stage `si` over its candidates; whether its verdict is kept and recorded
    /// (and, with `auto_pr`, its pull request opened). A verdict kept by an earlier attempt of
    /// this run is used again when no candidate ran since, so a resumed run neither asks the
    /// judge twice nor opens a second pull request.
    fn judge(&self, ctx: &Context, si: usize, judge: &JudgeStage) -> Result<bool> {
        let plan = self.job.plan;
        let base = plan.base.clone().unwrap_or_else(|| ctx.trunk());
        let record = self
            .record
            .lock()
            .map_err(|_| crate::error::bug("a pipeline thread panicked"))?
            .clone();
        let mut entries = Vec::new();
        for &i in &judge.candidates {
            let agent = &plan.agents[i];
            let done = record
                .stages
                .iter()
                .flat_map(|s| &s.agents)
                .find(|a| a.slug == agent.slug);
            let candidate = judge::Candidate {
                name: agent.name.clone(),
                worktree: done.map_or_else(|| agent.path.clone(), |a| a.path.clone()),
                branch: agent.branch.clone().unwrap_or_default(),
                base: base.clone(),
                message: done.map(|a| a.message.clone()).unwrap_or_default(),
            };
            match judge::read(&candidate, judge.max_diff) {
                Ok(entry) => entries.push(entry),
                Err(err) => return self.judge_failed(si, crate::error::render(&err).0),
            }
        }
        let reran = judge.candidates.iter().any(|&i| {
            self.ran
                .lock()
                .is_ok_and(|r| r.contains(&plan.agents[i].slug))
        });
        let verdict = match record.verdict.clone().filter(|_| !reran) {
            Some(kept) => kept,
            None => {
                self.change(|r| {
                    r.verdict = None;
                    r.pull_request = None;
                })?;
                match self.ask_judge(ctx, si, judge, &record, &entries)? {
                    Some(v) => v,
                    None => return Ok(false),
                }
            }
        };
        if self.stop.load(Ordering::SeqCst) {
            return Ok(false);
        }
        judge::verdict::keep(self.job.dir, &verdict)?;
        let session = judge::record::session(&record.slug, &record.id);
        let given = match judge::record::record(ctx, &session, &verdict, &entries) {
            Ok(given) => given,
            Err(err) => return self.judge_failed(si, crate::error::render(&err).0),
        };
        self.change(|r| r.verdict = Some(verdict.clone()))?;
        let dirty = given
            .iter()
            .find(|g| g.dirty && g.review == crate::landing::review::State::Approved);
        if let Some(w) = dirty {
            ctx.ui.warn(format_args!(
                "the winner's worktree {} has uncommitted changes the judge read; the approval \
                 covers its commits only: commit them there and have it reviewed again before \
                 git berth ship",
                w.name
            ));
        }
        let Some(base) = &judge.auto_pr else {
            return Ok(true);
        };
        if record.pull_request.is_some() && !reran {
            return Ok(true);
        }
        let Some(w) = entries.iter().find(|e| e.name == verdict.winner) else {
            return Ok(true);
        };
        if let Some(d) = dirty {
            // What the judge read is not in the branch: a pull request of it would not hold it.
            return self.judge_failed(
                si,
                format!(
                    "auto_pr: the winner {} has uncommitted work, so its branch {} holds none of \
                     what the judge read: commit it in {}, then push it and open the pull \
                     request yourself (gh pr create --base {base} --head {})",
                    d.name,
                    w.branch,
                    w.worktree.display(),
                    w.branch
                ),
            );
        }
        // From the primary checkout, where a remote's relative path is meant from.
        let from = ctx.primary.clone().unwrap_or_else(|| w.worktree.clone());
        let opened = crate::git::program::push_winner(&ctx.repo, &from, &w.branch).and_then(|_| {
            crate::gh::pr_create(
                &from,
                base,
                &w.branch,
                &format!("{}: {}", record.pipeline, w.name),
                &format!(
                    "Picked by the judge of pipeline run {}.\n\n{}",
                    record.id, verdict.reasons
                ),
            )
        });
        match opened {
            Ok(url) => self.change(|r| r.pull_request = Some(url))?,
            Err(err) => return self.judge_failed(si, crate::error::render(&err).0),
        }
        Ok(true)
    }

    /// Run the judge command over `entries` and read its verdict; none when it failed (said in
    /// the stage's record) or the run was stopped meanwhile (the judge's process group ended).
    fn ask_judge(
        &self,
        ctx: &Context,
        si: usize,
        judge: &JudgeStage,
        record: &RunRecord,
        entries: &[judge::Entry],
    ) -> Result<Option<judge::verdict::Verdict>> {
        let log = self.job.dir.join(format!(
            "{}.{}",
            record.stages[si].name,
            names::JUDGE_LOG_SUFFIX
        ));
        let candidates = self.job.dir.join(names::JUDGE_CANDIDATES_FILE);
        self.change(|r| {
            if let Some(j) = &mut r.stages[si].judge {
                j.log = Some(log.clone());
                j.error = None;
            }
        })?;
        let started = judge::run::command(&ctx.repo).and_then(|command| {
            judge::run::write_candidates(&candidates, entries)?;
            let prompt = judge::prompt::render(judge.criteria.as_deref(), entries);
            judge::run::start(&command, &prompt, self.job.dir, &candidates, &log)
        });
        let mut running = match started {
            Ok(running) => running,
            Err(err) => {
                self.judge_failed(si, crate::error::render(&err).0)?;
                return Ok(None);
            }
        };
        // The judge runs in a process group of its own, out of the terminal's Ctrl-C: the run's
        // stop ends it.
        while !running.ended()? {
            if self.stop.load(Ordering::SeqCst) {
                let pid = running.pid();
                terminal::end(
                    &[Target {
                        pid,
                        start: crate::process::start_time(pid),
                    }],
                    crate::orchestrator::agents::STOP_GRACE,
                );
                let _ = running.wait();
                return Ok(None);
            }
            std::thread::sleep(POLL);
        }
        let ran = match running.wait() {
            Ok(ran) => ran,
            Err(err) => {
                self.judge_failed(si, crate::error::render(&err).0)?;
                return Ok(None);
            }
        };
        if !ran.status.success() {
            self.judge_failed(
                si,
                format!(
                    "the judge ended with {}; its output is in {}",
                    ran.status,
                    log.display()
                ),
            )?;
            return Ok(None);
        }
        let names: Vec<&str> = entries.iter().map(|e| e.name.as_str()).collect();
        match judge::verdict::parse(&ran.stdout, &names) {
            Ok(v) => Ok(Some(v)),
            Err(why) => {
                self.judge_failed(
                    si,
                    format!(
                        "no valid verdict: {why}; its output is in {}",
                        log.display()
                    ),
                )?;
                Ok(None)
            }
        }
    }

    fn judge_failed(&self, si: usize, why: String) -> Result<bool> {
        self.change(|r| {
            if let Some(j) = &mut r.stages[si].judge {
                j.error = Some(why.clone());
            }
        })?;
        Ok(false)
    }
}

/// An agent's final message: the last lines of its log, without the lines its supervisor adds
/// (`git berth: the agent exited with code 0`, its end commands' headers).
fn final_message(log: &str) -> String {
    let prefix = format!("{}: ", names::TOOL);
    let own: String = log
        .lines()
        .filter(|l| !l.starts_with(&prefix))
        .collect::<Vec<_>>()
        .join("\n");
    judge::last_lines(&own, judge::SHELL_MESSAGE_LINES)
}

/// A fresh record of a run of `plan`'s `stages`: every stage and agent queued.
pub fn fresh_record(
    plan: &Plan,
    stages: &[Stage],
    id: &str,
    pipeline: (&str, &str),
    description: Option<String>,
    vars: &[(String, String)],
) -> RunRecord {
    RunRecord {
        version: record::FORMAT_VERSION,
        pipeline: pipeline.0.to_owned(),
        slug: pipeline.1.to_owned(),
        id: id.to_owned(),
        manifest: plan.manifest.clone(),
        vars: vars.to_vec(),
        description,
        state: Standing::Queued,
        started: clock::now(),
        ended: None,
        stages: stages
            .iter()
            .map(|s| record::StageRecord {
                name: s.name.clone(),
                depends_on: s.depends_on.clone(),
                state: Standing::Queued,
                agents: s
                    .agents
                    .iter()
                    .map(|&i| {
                        let a = &plan.agents[i];
                        AgentRecord {
                            name: a.name.clone(),
                            slug: a.slug.clone(),
                            runtime: a.runtime.clone(),
                            state: Standing::Queued,
                            exit: None,
                            started: None,
                            ended: None,
                            worktree: a.worktree.clone(),
                            branch: a.branch.clone(),
                            path: a.path.clone(),
                            log: a.log.clone(),
                            message: String::new(),
                            error: None,
                        }
                    })
                    .collect(),
                judge: s.judge.as_ref().map(|j| JudgeRecord {
                    candidates: j
                        .candidates
                        .iter()
                        .map(|&i| plan.agents[i].name.clone())
                        .collect(),
                    log: None,
                    error: None,
                }),
            })
            .collect(),
        verdict: None,
        pull_request: None,
    }
}
