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
    for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
        signal_hook::flag::register(signal, Arc::clone(&stop))?;
    }
    let (fleet, supervisor) = up::prepare(ctx, job.plan, fresh)?;
    let shared = Mutex::new(record);
    let (tx, rx) = mpsc::channel();
    let said = Said { rx, report };
    let mut said = said;
    let runner = Runner {
        tx: Mutex::new(tx),
        job,
        fleet: &fleet,
        supervisor: &supervisor,
        record: &shared,
        stop: &stop,
    };
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
            None => runner.agents(ctx, si, stage, &mut said)?,
        };
        let state = if stop.load(Ordering::SeqCst) {
            // Its agents end first, and are said to, before the stage.
            end_all(&fleet)?;
            runner.interrupt_agents(si)?;
            Standing::Interrupted
        } else if ok {
            Standing::Done
        } else {
            Standing::Failed
        };
        runner.set_stage(si, state, None)?;
        said.drain();
    }
    let interrupted = stop.load(Ordering::SeqCst);
    if interrupted {
        end_all(&fleet)?;
        for si in 0..job.stages.len() {
            runner.interrupt_agents(si)?;
        }
    }
    runner.change(|r| {
        r.state = if interrupted {
            Standing::Interrupted
        } else if r.stages.iter().all(|s| s.state == Standing::Done) {
            Standing::Done
        } else {
            Standing::Failed
        };
        r.ended = Some(clock::now());
        for s in &mut r.stages {
            if interrupted && matches!(s.state, Standing::Queued | Standing::Running) {
                s.state = Standing::Interrupted;
            }
            for a in &mut s.agents {
                if interrupted && matches!(a.state, Standing::Queued | Standing::Running) {
                    a.state = Standing::Interrupted;
                }
            }
        }
    })?;
    said.drain();
    let out = shared
        .into_inner()
        .map_err(|_| crate::error::bug("a pipeline thread panicked"))?;
    Ok(out)
}

/// End every agent of the run that still runs (its process group, then its supervisor's).
fn end_all(fleet: &Fleet) -> Result<()> {
    let Some(state) = fleet.load()? else {
        return Ok(());
    };
    let targets: Vec<Target> = state
        .agents
        .iter()
        .filter(|a| a.alive())
        .filter_map(|a| {
            a.pid.map(|pid| Target {
                pid,
                start: a.pid_start,
            })
        })
        .collect();
    terminal::end(&targets, crate::orchestrator::agents::STOP_GRACE);
    let supervisors: Vec<Target> = state
        .agents
        .iter()
        .filter(|a| a.supervisor_alive())
        .filter_map(|a| {
            a.supervisor.map(|pid| Target {
                pid,
                start: a.supervisor_start,
            })
        })
        .collect();
    // A supervisor records the end it saw within moments; then it goes too.
    std::thread::sleep(Duration::from_millis(200));
    terminal::end(&supervisors, Duration::from_secs(2));
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
                            if !self.one(&ctx, si, ai, &plan.agents[stage.agents[ai]])? {
                                failed.store(true, Ordering::SeqCst);
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

    /// Mark each agent of stage `si` that had not ended as interrupted, saying so as its other
    /// changes were said.
    fn interrupt_agents(&self, si: usize) -> Result<()> {
        for ai in 0..self.job.stages[si].agents.len() {
            if matches!(
                self.agent_state(si, ai),
                Standing::Queued | Standing::Running
            ) {
                self.set_agent(si, ai, |a| {
                    a.state = Standing::Interrupted;
                    a.ended = a.started.map(|_| clock::now());
                })?;
            }
        }
        Ok(())
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
            let state = self.fleet.load()?;
            let now = state
                .as_ref()
                .and_then(|s| s.agents.iter().find(|a| a.slug == agent.slug).cloned());
            if let Some(mut a) = now {
                let mut lost =
                    a.ended.is_none() && !a.alive() && !a.supervisor_alive() && a.pid.is_some();
                if lost {
                    // The state was read before both were seen gone, and a supervisor records
                    // the end just before it exits: read again, so that end is not missed.
                    if let Some(again) = self
                        .fleet
                        .load()?
                        .and_then(|s| s.agents.into_iter().find(|x| x.slug == agent.slug))
                    {
                        lost = again.ended.is_none();
                        a = again;
                    }
                }
                if a.ended.is_some() || lost {
                    let exit = a.exit_code();
                    let ok = exit == Some(0);
                    let message = agent
                        .log
                        .as_ref()
                        .and_then(|l| std::fs::read_to_string(l).ok())
                        .map(|t| judge::last_lines(&agent_output(&t), judge::SHELL_MESSAGE_LINES))
                        .unwrap_or_default();
                    self.set_agent(si, ai, |r| {
                        r.state = if ok { Standing::Done } else { Standing::Failed };
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
                                "its process and its supervisor are gone, and nothing recorded \
                                 how it ended"
                                    .to_owned(),
                            );
                        }
                    })?;
                    return Ok(ok);
                }
            }
            std::thread::sleep(POLL);
        }
    }

    /// Run the judge of stage `si` over its candidates; whether its verdict is kept and recorded.
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
        let log = self
            .job
            .dir
            .join(format!("{}.judge.log", record.stages[si].name));
        let candidates = self.job.dir.join(names::JUDGE_CANDIDATES_FILE);
        self.change(|r| {
            if let Some(j) = &mut r.stages[si].judge {
                j.log = Some(log.clone());
            }
        })?;
        let ran = judge::run::command(&ctx.repo).and_then(|command| {
            judge::run::write_candidates(&candidates, &entries)?;
            let prompt = judge::prompt::render(judge.criteria.as_deref(), &entries);
            let running = judge::run::start(&command, &prompt, self.job.dir, &candidates, &log)?;
            running.wait()
        });
        let ran = match ran {
            Ok(ran) => ran,
            Err(err) => return self.judge_failed(si, crate::error::render(&err).0),
        };
        if !ran.status.success() {
            return self.judge_failed(
                si,
                format!(
                    "the judge ended with {}; its output is in {}",
                    ran.status,
                    log.display()
                ),
            );
        }
        let names: Vec<&str> = entries.iter().map(|e| e.name.as_str()).collect();
        let verdict = match judge::verdict::parse(&ran.stdout, &names) {
            Ok(v) => v,
            Err(why) => {
                return self.judge_failed(
                    si,
                    format!(
                        "no valid verdict: {why}; its output is in {}",
                        log.display()
                    ),
                );
            }
        };
        judge::verdict::keep(self.job.dir, &verdict)?;
        let session = judge::record::session(&record.slug, &record.id);
        if let Err(err) = judge::record::record(ctx, &session, &verdict, &entries) {
            return self.judge_failed(si, crate::error::render(&err).0);
        }
        self.change(|r| r.verdict = Some(verdict))?;
        Ok(true)
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

/// A headless agent's log without the lines its supervisor wrote after it ended (`git berth:
/// the agent exited with code 0`): the agent's own output, whose last lines are its final
/// message. Pure.
fn agent_output(log: &str) -> String {
    let said = format!("{}: ", names::TOOL);
    let mut lines: Vec<&str> = log.trim_end().lines().collect();
    while lines
        .last()
        .is_some_and(|l| l.starts_with(&said) || l.trim().is_empty())
    {
        lines.pop();
    }
    lines.join("\n")
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
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_agents_output_ends_before_what_its_supervisor_said() {
        let log = "working\nall tests pass\n\ngit berth: the agent exited with code 0\n";
        assert_eq!(agent_output(log), "working\nall tests pass");
        assert_eq!(agent_output("git berth: cannot run x: not found\n"), "");
        assert_eq!(agent_output("done\n"), "done");
    }
}
