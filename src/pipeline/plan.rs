//! A pipeline manifest made into what the runner takes: the manifest's pure plan
//! (`manifest::plan_pipeline`: stages, fan-outs, sub-pipelines, judges) and, for its agents,
//! the fleet's plan (worktrees, branches, command lines, environment, what each field became),
//! every agent headless, named under the run's id.

use std::path::{Path, PathBuf};

use anyhow::Result;
use serde::Serialize;

use super::exec::{JudgeStage, Stage};
use crate::error::{Refusal, refuse_with_hint};
use crate::fleet::Fleet;
use crate::fleet::up::{self, Plan, Wide};
use crate::manifest::{self, InferFrom, PipelinePlan, StageKind};
use crate::repo::Context;

/// A pipeline ready to run (or to show).
#[derive(Debug, Clone, Serialize)]
pub struct Planned {
    /// The pipeline's name as written, and its slug.
    pub pipeline: String,
    pub slug: String,
    /// The run's id (`<slug>-<n>`): the name its agents and worktrees are under.
    pub id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The stages in the order they run, each with its agents (by name) or its judge.
    pub stages: Vec<ShownStage>,
    /// The agents: worktree, branch, command line, environment, what each field became.
    #[serde(flatten)]
    pub plan: Plan,
    #[serde(skip)]
    pub run_stages: Vec<Stage>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
}

/// A stage as `pipeline show` prints it.
#[derive(Debug, Clone, Serialize)]
pub struct ShownStage {
    pub name: String,
    pub depends_on: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    pub agents: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub judge: Option<ShownJudge>,
}

#[derive(Debug, Clone, Serialize)]
pub struct ShownJudge {
    pub criteria: String,
    pub auto_pr: bool,
    pub base: String,
    pub max_diff: u64,
    pub candidates: Vec<String>,
}

/// Read and plan the pipeline manifest `path` with `vars`, its run named by `run` (given the
/// pipeline's slug: the run's id and folder).
pub fn plan(
    ctx: &Context,
    path: &str,
    vars: &[(String, String)],
    run: &dyn Fn(&str) -> Result<(String, PathBuf)>,
) -> Result<Planned> {
    let text = up::read_text(path)?;
    plan_text(ctx, path, &text, vars, run, None)
}

/// Plan the pipeline manifest `text`, read from `path` (its errors name it, its sub-pipelines
/// are found next to it, its extension says TOML or YAML), as [`plan`] does. `base`, when
/// given, is the ref the run's worktrees start from in place of the manifest's
/// `worktree_base` (`pr-review`: the pull request's head).
pub fn plan_text(
    ctx: &Context,
    path: &str,
    text: &str,
    vars: &[(String, String)],
    run: &dyn Fn(&str) -> Result<(String, PathBuf)>,
    base: Option<&str>,
) -> Result<Planned> {
    let pipeline = manifest::parse_pipeline(path, text).map_err(up::manifest_error)?;
    let (id, dir) = run(&pipeline.slug)?;
    let fleet = Fleet::at(dir);
    let shared = fleet.shared().display().to_string();
    let config_home = up::config_home();
    let pp = manifest::plan_pipeline(
        &pipeline,
        &manifest::Context {
            vars,
            fleet_dir: &shared,
            config_home: config_home.as_deref(),
        },
        &up::read_optional,
        &|from: InferFrom| up::infer(ctx, from),
    )
    .map_err(up::manifest_error)?;
    refuse_auto_pr_without_gh(&pp)?;
    one_judge(&pp)?;
    let specs: Vec<manifest::AgentSpec> = pp.agents().cloned().collect();
    let plan = up::plan_agents(
        ctx,
        path,
        &Wide {
            name: pp.name.value.clone(),
            base: base
                .map(str::to_owned)
                .or_else(|| pipeline.worktree_base.as_ref().map(|b| b.value.clone())),
            seed: pipeline
                .worktree_seed
                .iter()
                .map(|s| s.value.clone())
                .collect(),
        },
        &id,
        &fleet,
        &specs,
        &pp.bindings,
        true,
    )?;
    let (run_stages, stages) = stages_of(&pp, &plan);
    Ok(Planned {
        pipeline: pp.name.value.clone(),
        slug: pp.slug.clone(),
        id,
        description: pp.description.as_ref().map(|d| d.value.clone()),
        stages,
        plan,
        run_stages,
        warnings: pp.warnings.clone(),
    })
}

/// A run keeps one verdict (`verdict.json`, the reviews it gives): a second judge is refused.
fn one_judge(pp: &PipelinePlan) -> Result<()> {
    let mut judges = pp
        .stages
        .iter()
        .filter(|s| matches!(s.kind, StageKind::Judge(_)));
    if let (Some(first), Some(second)) = (judges.next(), judges.next()) {
        let err = manifest::ManifestError::at(
            &second.at,
            &second.path,
            format!(
                "a pipeline has one judge, and stage {} judges already: its verdict is the run's; \
                 make this a separate pipeline",
                first.name
            ),
        );
        return Err(Refusal::from(err).into());
    }
    Ok(())
}

/// `auto_pr` opens the pull request through `gh`: without it, refused before anything runs.
fn refuse_auto_pr_without_gh(pp: &PipelinePlan) -> Result<()> {
    for stage in &pp.stages {
        if let StageKind::Judge(j) = &stage.kind
            && j.auto_pr.value
            && !crate::orchestrator::terminal::installed("gh")
        {
            let at = j.auto_pr.at.clone().unwrap_or_else(|| stage.at.clone());
            let err = manifest::ManifestError::at(
                &at,
                &j.auto_pr.path,
                "auto_pr opens the pull request with gh, which is not installed: install the \
                 GitHub CLI, or set auto_pr = false and ship the winner yourself",
            );
            return Err(Refusal::from(err).into());
        }
    }
    Ok(())
}

/// The runner's stages (agents as indices into the plan's) and the stages as shown.
fn stages_of(pp: &PipelinePlan, plan: &Plan) -> (Vec<Stage>, Vec<ShownStage>) {
    let mut next = 0;
    let index_of = |name: &str| plan.agents.iter().position(|a| a.name == name);
    let mut run = Vec::new();
    let mut shown = Vec::new();
    for stage in &pp.stages {
        match &stage.kind {
            StageKind::Agents(agents) => {
                let indices: Vec<usize> = (next..next + agents.len()).collect();
                next += agents.len();
                shown.push(ShownStage {
                    name: stage.name.clone(),
                    depends_on: stage.depends_on.clone(),
                    model: stage.model.clone(),
                    agents: indices
                        .iter()
                        .map(|&i| plan.agents[i].name.clone())
                        .collect(),
                    judge: None,
                });
                run.push(Stage {
                    name: stage.name.clone(),
                    depends_on: stage.depends_on.clone(),
                    agents: indices,
                    judge: None,
                });
            }
            StageKind::Judge(j) => {
                shown.push(ShownStage {
                    name: stage.name.clone(),
                    depends_on: stage.depends_on.clone(),
                    model: None,
                    agents: Vec::new(),
                    judge: Some(ShownJudge {
                        criteria: j.criteria.value.clone(),
                        auto_pr: j.auto_pr.value,
                        base: j.base.value.clone(),
                        max_diff: j.max_diff.value,
                        candidates: j.candidates.clone(),
                    }),
                });
                run.push(Stage {
                    name: stage.name.clone(),
                    depends_on: stage.depends_on.clone(),
                    agents: Vec::new(),
                    judge: Some(JudgeStage {
                        criteria: Some(j.criteria.value.clone()),
                        max_diff: usize::try_from(j.max_diff.value).unwrap_or(usize::MAX),
                        candidates: j.candidates.iter().filter_map(|c| index_of(c)).collect(),
                        auto_pr: j.auto_pr.value.then(|| j.base.value.clone()),
                    }),
                });
            }
        }
    }
    (run, shown)
}

/// The id and folder a new run of `slug` would get, made by nothing (`pipeline show`).
pub fn next_run(state_dir: &Path, slug: &str) -> (String, PathBuf) {
    let all = super::record::runs_of(state_dir, slug);
    let n = super::record::next_number(&all);
    (format!("{slug}-{n}"), all.join(n.to_string()))
}

/// A run of a pipeline that is not a pipeline: said with the command for a fleet.
pub fn not_a_pipeline(path: &str) -> anyhow::Error {
    refuse_with_hint(
        format!("{path} is a fleet manifest (it lists agents, no steps or stages)"),
        format!("start it with: git berth fleet up {path}"),
    )
}
