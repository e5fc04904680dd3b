//! A pipeline planned before anything runs: its stages expanded (a `models` fan-out into one copy
//! per model, a sub-pipeline into its own stages, prefixed with the stage's name), their
//! `depends_on` expanded to match, the judges' rules checked and their candidates listed, every
//! agent resolved like a fleet's, and the stages put in dependency order (ties in the order
//! written). Pure: sub-pipelines and profiles are read through the caller's [`Files`], inputs
//! inferred through its [`Infer`]; warnings are returned, never printed.

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use super::agent::AgentFields;
use super::error::{Located, ManifestError, Place};
use super::inputs::{self, Binding, Bindings, Infer};
use super::interpolate::expand;
use super::profile::{Files, Profile};
use super::resolve::{self, AgentSpec, Context, Layer, Sourced, Written};
use super::schema::{self, Pipeline};
use super::stage::{
    DEFAULT_BASE, DEFAULT_CRITERIA, DEFAULT_MAX_DIFF, JudgeBlock, Stage, StageAgent, StageBody,
};
use super::syntax::read_tree;
use super::tree::printable;
use super::walk::{child, index, nearest};
use super::worktrees::{WorktreePlan, plan_worktrees};
use crate::orchestrator::runtime::Runtime;

/// A pipeline ready to run: every stage after expansion, in the order they can run.
#[derive(Debug, Clone, PartialEq)]
pub struct PipelinePlan {
    /// The manifest's file as the caller named it.
    pub file: Arc<str>,
    pub name: Located<String>,
    /// The name's slug: the pipeline's folder and branch component.
    pub slug: String,
    pub description: Option<Located<String>>,
    /// Every value `${key}` could read in the top manifest, and where each came from.
    pub bindings: Vec<Binding>,
    /// The profiles the agents name, as read.
    pub profiles: Vec<Profile>,
    /// In dependency order; stages that could run in either order keep the order written.
    pub stages: Vec<StagePlan>,
    /// What the manifest says that will not be done (a sub-pipeline stage's inline agents), as
    /// one line each, `file:line:col: field: what`.
    pub warnings: Vec<String>,
}

/// One stage of the plan.
#[derive(Debug, Clone, PartialEq)]
pub struct StagePlan {
    /// Unique in the plan and slug-safe: the stage's slug, `-<model>` after a fan-out, and a
    /// sub-pipeline's stages prefixed with the stage that runs it (`nested-lint`).
    pub name: String,
    /// Where the stage's name is written (in a sub-pipeline's file for its stages).
    pub at: Place,
    /// The stage's field path in that file: `stages[1]`, `steps[0]`.
    pub path: String,
    /// The stages that finish first, after expansion: a fanned-out stage is each of its copies,
    /// a sub-pipeline stage each of its last stages.
    pub depends_on: Vec<String>,
    /// The model of this copy of a fanned-out stage: every agent's `type` and `${model}`.
    pub model: Option<String>,
    pub kind: StageKind,
}

/// What a stage of the plan runs.
#[derive(Debug, Clone, PartialEq)]
pub enum StageKind {
    /// Agents, in parallel.
    Agents(Vec<AgentSpec>),
    /// Boxed: a judge's settings are many times the size of a list of agents.
    Judge(Box<JudgePlan>),
}

/// A judge stage: what it ranks by, what it does with the winner, and whom it judges.
#[derive(Debug, Clone, PartialEq)]
pub struct JudgePlan {
    /// Interpolated like a prompt.
    pub criteria: Setting<String>,
    /// Push the winner's branch and open a pull request.
    pub auto_pr: Setting<bool>,
    /// The pull request's base branch; interpolated.
    pub base: Setting<String>,
    /// The bytes of each candidate's diff the judge reads.
    pub max_diff: Setting<u64>,
    /// The agents of the stages it depends on (after expansion), in the plan's order.
    pub candidates: Vec<String>,
}

/// A judge's setting, and where it was written: `at` is `None` for berth's default.
#[derive(Debug, Clone, PartialEq)]
pub struct Setting<T> {
    pub value: T,
    pub at: Option<Place>,
    /// The field's path in its file, written or not: `steps[1].judge.base`.
    pub path: String,
}

impl PipelinePlan {
    /// Every agent of every stage, in the plan's order.
    pub fn agents(&self) -> impl Iterator<Item = &AgentSpec> {
        self.stages.iter().flat_map(|stage| match &stage.kind {
            StageKind::Agents(agents) => agents.as_slice(),
            StageKind::Judge(_) => &[],
        })
    }

    /// The pipeline's worktrees, one per group across all its stages (`prefix` is
    /// `berth.branchPrefix`).
    pub fn worktrees(&self, prefix: &str) -> Vec<WorktreePlan> {
        plan_worktrees(&self.slug, prefix, self.agents())
    }
}

/// Plan `pipeline`: expand its stages, resolve its agents, check its judges and order it.
pub fn plan_pipeline(
    pipeline: &Pipeline,
    ctx: &Context<'_>,
    files: &dyn Files,
    infer: &dyn Infer,
) -> Result<PipelinePlan, ManifestError> {
    let mut bindings = inputs::bind(
        &pipeline.inputs,
        &pipeline.vars,
        "not in a stage without models",
        ctx.vars,
        ctx.fleet_dir,
        infer,
    )?;
    let mut planner = Planner {
        ctx,
        files,
        profiles: Vec::new(),
        warnings: Vec::new(),
        out: Vec::new(),
        files_open: vec![normalize(Path::new(&*pipeline.file))],
    };
    let scope = Scope {
        prefix: None,
        defaults: vec![&pipeline.defaults],
        entry: Vec::new(),
        key: Vec::new(),
    };
    planner.expand(pipeline, &scope, &mut bindings)?;
    let Planner {
        profiles,
        warnings,
        out,
        ..
    } = planner;
    check_unique(&out)?;
    let stages = in_order(out);
    resolve::check_groups(stages.iter().flat_map(|stage| match &stage.kind {
        StageKind::Agents(agents) => agents.as_slice(),
        StageKind::Judge(_) => &[],
    }))?;
    Ok(PipelinePlan {
        file: pipeline.file.clone(),
        name: pipeline.name.clone(),
        slug: pipeline.slug.clone(),
        description: pipeline.description.clone(),
        bindings: bindings.into_list(),
        profiles,
        stages,
        warnings,
    })
}

/// What the planner carries across files.
struct Planner<'c> {
    ctx: &'c Context<'c>,
    files: &'c dyn Files,
    profiles: Vec<Profile>,
    warnings: Vec<String>,
    /// Each stage made, with its sort key: the indices of the stages written that made it, from
    /// the top file down, then its copy's index.
    out: Vec<(Vec<usize>, StagePlan)>,
    /// The files being expanded, top first: a sub-pipeline among them includes itself.
    files_open: Vec<PathBuf>,
}

/// Where a file's stages are expanded.
struct Scope<'d> {
    /// The name of the stage running this file as a sub-pipeline.
    prefix: Option<String>,
    /// The `defaults` that apply, this file's first.
    defaults: Vec<&'d AgentFields>,
    /// What the stage running this sub-pipeline depends on: its first stages wait for them too.
    entry: Vec<String>,
    /// The sort key of the stage running this sub-pipeline.
    key: Vec<usize>,
}

impl Scope<'_> {
    fn name(&self, slug: &str) -> String {
        match &self.prefix {
            Some(prefix) => format!("{prefix}-{slug}"),
            None => slug.to_owned(),
        }
    }
}

impl Planner<'_> {
    /// Expand the stages of `pipeline` into `self.out`; the names of its last stages (those no
    /// stage of it depends on), after expansion, are returned.
    fn expand(
        &mut self,
        pipeline: &Pipeline,
        scope: &Scope<'_>,
        bindings: &mut Bindings<'_>,
    ) -> Result<Vec<String>, ManifestError> {
        let stages = &pipeline.stages;
        let deps = dependencies(stages)?;
        check_cycles(stages, &deps)?;
        check_judges(stages, &deps)?;
        // What each stage written became: the names of its stages in the plan.
        let mut made: Vec<Vec<String>> = vec![Vec::new(); stages.len()];
        // The agents of each stage written, for the judges that depend on it.
        let mut agents_of: Vec<Vec<String>> = vec![Vec::new(); stages.len()];
        for i in file_order(&deps) {
            let stage = &stages[i];
            let mut depends_on: Vec<String> = Vec::new();
            if deps[i].is_empty() {
                depends_on.extend(scope.entry.iter().cloned());
            }
            for &d in &deps[i] {
                for name in &made[d] {
                    if !depends_on.contains(name) {
                        depends_on.push(name.clone());
                    }
                }
            }
            let name = scope.name(&stage.slug);
            let mut key = scope.key.clone();
            key.push(i);
            match &stage.body {
                StageBody::Agents(agents) => {
                    let copies: Vec<Option<(usize, &Located<_>)>> = if stage.models.is_empty() {
                        vec![None]
                    } else {
                        stage.models.iter().enumerate().map(Some).collect()
                    };
                    for copy in copies {
                        let (name, model, runtime) = match copy {
                            None => (name.clone(), None, None),
                            Some((j, model)) => {
                                let model_name = model.value.name();
                                bindings.set_model(model_name);
                                let runtime = Sourced {
                                    value: model.value,
                                    layer: Layer::Models,
                                    at: model.at.clone(),
                                    path: index(&child(&stage.path, "models"), j),
                                };
                                (
                                    format!("{name}-{model_name}"),
                                    Some(model_name.to_owned()),
                                    Some(runtime),
                                )
                            }
                        };
                        let specs = self.stage_agents(
                            stage,
                            agents,
                            scope,
                            model.as_deref(),
                            runtime,
                            bindings,
                        );
                        bindings.unset_model();
                        let specs = specs?;
                        agents_of[i].extend(specs.iter().map(|a| a.slug.clone()));
                        let mut copy_key = key.clone();
                        copy_key.push(made[i].len());
                        made[i].push(name.clone());
                        self.out.push((
                            copy_key,
                            StagePlan {
                                name,
                                at: stage.name.at.clone(),
                                path: stage.path.clone(),
                                depends_on: depends_on.clone(),
                                model,
                                kind: StageKind::Agents(specs),
                            },
                        ));
                    }
                }
                StageBody::Judge(judge) => {
                    let mut candidates: Vec<String> = Vec::new();
                    for &d in &deps[i] {
                        for agent in &agents_of[d] {
                            if !candidates.contains(agent) {
                                candidates.push(agent.clone());
                            }
                        }
                    }
                    let plan = judge_plan(judge, candidates, bindings)?;
                    made[i].push(name.clone());
                    self.out.push((
                        key,
                        StagePlan {
                            name,
                            at: stage.name.at.clone(),
                            path: stage.path.clone(),
                            depends_on,
                            model: None,
                            kind: StageKind::Judge(Box::new(plan)),
                        },
                    ));
                }
                StageBody::Pipeline {
                    file,
                    unused_agents,
                } => {
                    if let Some(at) = unused_agents {
                        self.warnings.push(format!(
                            "{at}: {}: not used: stage '{}' runs the sub-pipeline {} in place of \
                             its own agents",
                            child(&stage.path, "agents"),
                            printable(&stage.name.value),
                            printable(&file.value)
                        ));
                    }
                    let sub = self.read_sub(file, &child(&stage.path, "pipeline"))?;
                    self.warn_worktree_settings(&sub);
                    let mut sub_bindings = bindings.nested(&sub.inputs, &sub.vars)?;
                    let mut defaults = vec![&sub.defaults];
                    defaults.extend(scope.defaults.iter().copied());
                    let sub_scope = Scope {
                        prefix: Some(name),
                        defaults,
                        entry: depends_on,
                        key,
                    };
                    let last = self.expand(&sub, &sub_scope, &mut sub_bindings);
                    self.files_open.pop();
                    made[i] = last?;
                }
            }
        }
        let depended: Vec<bool> = (0..stages.len())
            .map(|i| deps.iter().any(|d| d.contains(&i)))
            .collect();
        Ok((0..stages.len())
            .filter(|&i| !depended[i])
            .flat_map(|i| made[i].iter().cloned())
            .collect())
    }

    /// The agents of one copy of `stage`, resolved: `model` renames each (`<agent>-<model>`) and
    /// `runtime` is their `type`; a sub-pipeline's prefix comes first.
    fn stage_agents(
        &mut self,
        stage: &Stage,
        agents: &[StageAgent],
        scope: &Scope<'_>,
        model: Option<&str>,
        runtime: Option<Sourced<Runtime>>,
        bindings: &mut Bindings<'_>,
    ) -> Result<Vec<AgentSpec>, ManifestError> {
        let mut specs = Vec::with_capacity(agents.len());
        for agent in agents {
            let Some(slug) = &agent.fields.slug else {
                return Err(ManifestError::at(
                    &agent.fields.at,
                    &child(&agent.path, "name"),
                    "required: the agent's name",
                ));
            };
            let name = agent.fields.name.as_ref().map_or("", |n| n.value.as_str());
            let (name, slug) = match model {
                Some(model) => (format!("{name}-{model}"), format!("{slug}-{model}")),
                None => (name.to_owned(), slug.clone()),
            };
            let rename = match &scope.prefix {
                Some(prefix) => Some((format!("{prefix}-{name}"), format!("{prefix}-{slug}"))),
                None if model.is_some() => Some((name, slug)),
                None => None,
            };
            if let (Some(_), Some(written)) = (&runtime, &agent.fields.runtime) {
                self.warnings.push(format!(
                    "{}: {}: not used: stage '{}' sets each agent's type from its models",
                    written.at,
                    child(&agent.path, "type"),
                    printable(&stage.name.value)
                ));
            }
            let written = Written {
                index: agent.index,
                path: agent.path.clone(),
                fields: &agent.fields,
                defaults: &scope.defaults,
                rename,
                runtime: runtime.clone(),
            };
            specs.push(resolve::resolve_agent(
                &written,
                self.ctx,
                self.files,
                &mut self.profiles,
                bindings,
            )?);
        }
        Ok(specs)
    }

    /// A sub-pipeline's worktree settings are its parent's: its own, if written, are not used.
    fn warn_worktree_settings(&mut self, sub: &Pipeline) {
        let written = [
            ("worktrees", sub.worktrees.as_ref().map(|w| &w.at)),
            ("worktree_base", sub.worktree_base.as_ref().map(|w| &w.at)),
            ("worktree_seed", sub.worktree_seed.first().map(|w| &w.at)),
        ];
        for (field, at) in written {
            if let Some(at) = at {
                self.warnings.push(format!(
                    "{at}: {field}: not used: a sub-pipeline's agents take the worktree \
                     settings of the pipeline that runs it"
                ));
            }
        }
    }

    /// The sub-pipeline `file` names, read relative to the folder of the file it is written in;
    /// one that is already being expanded (a pipeline including itself) is refused.
    fn read_sub(&mut self, file: &Located<String>, path: &str) -> Result<Pipeline, ManifestError> {
        let written = Path::new(&file.value);
        let full = if written.is_absolute() {
            written.to_path_buf()
        } else {
            Path::new(&*file.at.file)
                .parent()
                .map_or_else(|| written.to_path_buf(), |dir| dir.join(written))
        };
        let full = normalize(&full);
        if let Some(first) = self.files_open.iter().position(|open| *open == full) {
            let chain: Vec<String> = self.files_open[first..]
                .iter()
                .chain(std::iter::once(&full))
                .map(|p| p.display().to_string())
                .collect();
            return Err(ManifestError::at(
                &file.at,
                path,
                format!(
                    "the sub-pipeline includes itself ({}); a pipeline cannot run inside itself",
                    chain.join(" -> ")
                ),
            ));
        }
        let text = match self.files.read(&full) {
            Ok(Some(text)) => text,
            Ok(None) => {
                return Err(ManifestError::at(
                    &file.at,
                    path,
                    format!(
                        "no sub-pipeline at {} (a path is relative to the folder of the manifest \
                         that names it)",
                        full.display()
                    ),
                ));
            }
            Err(why) => {
                return Err(ManifestError::at(
                    &file.at,
                    path,
                    format!("cannot read the sub-pipeline {}: {why}", full.display()),
                ));
            }
        };
        let name: Arc<str> = Arc::from(full.display().to_string());
        let tree = read_tree(&name, &text)?;
        let sub = schema::read_pipeline(&name, &tree)?;
        self.files_open.push(full);
        Ok(sub)
    }
}

/// The judge `block` with its defaults filled in, judging `candidates`.
fn judge_plan(
    block: &JudgeBlock,
    candidates: Vec<String>,
    bindings: &mut Bindings<'_>,
) -> Result<JudgePlan, ManifestError> {
    let mut text = |field: &str, written: &Option<Located<String>>, default: &str| {
        let path = child(&block.path, field);
        match written {
            Some(located) => expand(&located.value, |key| bindings.lookup(key))
                .map(|value| Setting {
                    value,
                    at: Some(located.at.clone()),
                    path: path.clone(),
                })
                .map_err(|err| ManifestError::at(&located.at, &path, err.to_string())),
            None => Ok(Setting {
                value: default.to_owned(),
                at: None,
                path,
            }),
        }
    };
    let criteria = text("criteria", &block.criteria, DEFAULT_CRITERIA)?;
    let base = text("base", &block.base, DEFAULT_BASE)?;
    Ok(JudgePlan {
        criteria,
        auto_pr: setting(block, "auto_pr", &block.auto_pr, false),
        base,
        max_diff: setting(block, "max_diff", &block.max_diff, DEFAULT_MAX_DIFF),
        candidates,
    })
}

/// A judge's `field` as written, or `default`.
fn setting<T: Copy>(
    block: &JudgeBlock,
    field: &str,
    written: &Option<Located<T>>,
    default: T,
) -> Setting<T> {
    Setting {
        value: written.as_ref().map_or(default, |w| w.value),
        at: written.as_ref().map(|w| w.at.clone()),
        path: child(&block.path, field),
    }
}

/// For each stage, the index of the stage each entry of its `depends_on` names (by name or slug),
/// entry by entry; a name no stage has is refused with the nearest one.
fn dependencies(stages: &[Stage]) -> Result<Vec<Vec<usize>>, ManifestError> {
    let mut deps = Vec::with_capacity(stages.len());
    for stage in stages {
        let mut mine: Vec<usize> = Vec::new();
        for dep in &stage.depends_on {
            let wanted = dep.name.value.as_str();
            let found = stages
                .iter()
                .position(|s| s.name.value == wanted || s.slug == wanted);
            let Some(d) = found else {
                let mut message = format!("no stage is named '{}'", printable(wanted));
                match nearest(wanted, stages.iter().map(|s| s.name.value.as_str())) {
                    Some(near) => message.push_str(&format!("; did you mean '{near}'?")),
                    None => {
                        let names: Vec<&str> =
                            stages.iter().map(|s| s.name.value.as_str()).collect();
                        message.push_str(&format!("; the stages are {}", names.join(", ")));
                    }
                }
                return Err(ManifestError::at(&dep.name.at, &dep.path, message));
            };
            mine.push(d);
        }
        deps.push(mine);
    }
    Ok(deps)
}

/// A stage that waits, through its `depends_on`, for itself is refused, naming the stages on the
/// cycle in order from the first written, at that stage's `depends_on` entry.
fn check_cycles(stages: &[Stage], deps: &[Vec<usize>]) -> Result<(), ManifestError> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        Open,
        Done,
    }
    fn visit(
        i: usize,
        deps: &[Vec<usize>],
        marks: &mut [Mark],
        path: &mut Vec<usize>,
    ) -> Option<Vec<usize>> {
        marks[i] = Mark::Open;
        path.push(i);
        for &d in &deps[i] {
            match marks[d] {
                Mark::Open => {
                    let start = path.iter().position(|&p| p == d).unwrap_or(0);
                    return Some(path[start..].to_vec());
                }
                Mark::New => {
                    if let Some(cycle) = visit(d, deps, marks, path) {
                        return Some(cycle);
                    }
                }
                Mark::Done => {}
            }
        }
        path.pop();
        marks[i] = Mark::Done;
        None
    }
    let mut marks = vec![Mark::New; stages.len()];
    for i in 0..stages.len() {
        if marks[i] != Mark::New {
            continue;
        }
        let Some(mut cycle) = visit(i, deps, &mut marks, &mut Vec::new()) else {
            continue;
        };
        // Each waits for the next: start at the first written, and read it as "a waits for b".
        let first = cycle
            .iter()
            .enumerate()
            .min_by_key(|&(_, &s)| s)
            .map_or(0, |(k, _)| k);
        cycle.rotate_left(first);
        let a = cycle[0];
        let b = cycle.get(1).copied().unwrap_or(a);
        let names: Vec<String> = cycle
            .iter()
            .chain(std::iter::once(&a))
            .map(|&s| printable(&stages[s].name.value))
            .collect();
        let entry = stages[a]
            .depends_on
            .iter()
            .find(|dep| dep.name.value == stages[b].name.value || dep.name.value == stages[b].slug)
            .map_or_else(
                || (stages[a].at.clone(), child(&stages[a].path, "depends_on")),
                |dep| (dep.name.at.clone(), dep.path.clone()),
            );
        return Err(ManifestError::at(
            &entry.0,
            &entry.1,
            format!(
                "a dependency cycle: {}; a stage cannot wait for itself",
                names.join(" -> ")
            ),
        ));
    }
    Ok(())
}

/// The seed's judge rules that need the whole pipeline: a judge depends on no sub-pipeline stage
/// and no other judge, and on stages that make at least two candidates in all.
fn check_judges(stages: &[Stage], deps: &[Vec<usize>]) -> Result<(), ManifestError> {
    for (i, stage) in stages.iter().enumerate() {
        let StageBody::Judge(_) = &stage.body else {
            continue;
        };
        let mut candidates = 0;
        let mut seen: Vec<usize> = Vec::new();
        for (dep, &d) in stage.depends_on.iter().zip(&deps[i]) {
            if seen.contains(&d) {
                continue;
            }
            seen.push(d);
            let on = &stages[d];
            let count = match &on.body {
                StageBody::Judge(_) => {
                    return Err(ManifestError::at(
                        &dep.name.at,
                        &dep.path,
                        format!(
                            "'{}' is a judge: a judge cannot depend on another judge or a \
                             sub-pipeline stage; depend on the stages whose agents it judges",
                            printable(&on.name.value)
                        ),
                    ));
                }
                StageBody::Pipeline { .. } => {
                    return Err(ManifestError::at(
                        &dep.name.at,
                        &dep.path,
                        format!(
                            "'{}' runs a sub-pipeline: a judge cannot depend on a sub-pipeline \
                             stage or another judge; depend on the stages whose agents it judges",
                            printable(&on.name.value)
                        ),
                    ));
                }
                StageBody::Agents(agents) => agents.len() * on.models.len().max(1),
            };
            candidates += count;
        }
        if candidates < 2 {
            let (at, path) = match stage.depends_on.first() {
                Some(dep) => (dep.name.at.clone(), child(&stage.path, "depends_on")),
                None => (stage.at.clone(), child(&stage.path, "depends_on")),
            };
            let given = if stage.depends_on.is_empty() {
                "it depends on no stage".to_owned()
            } else {
                let names: Vec<String> = seen
                    .iter()
                    .map(|&d| format!("'{}'", printable(&stages[d].name.value)))
                    .collect();
                let verb = if names.len() == 1 { "makes" } else { "make" };
                let noun = if candidates == 1 {
                    "candidate"
                } else {
                    "candidates"
                };
                format!("{} {verb} {candidates} {noun}", names.join(", "))
            };
            return Err(ManifestError::at(
                &at,
                &path,
                format!(
                    "a judge depends on stages that make at least two candidates in all (a \
                     models fan-out, or several agents), and {given}"
                ),
            ));
        }
    }
    Ok(())
}

/// The stages of one file in an order that puts each after what it depends on; ties in the
/// order written. The file has no cycle (checked before).
fn file_order(deps: &[Vec<usize>]) -> Vec<usize> {
    let mut done = vec![false; deps.len()];
    let mut order = Vec::with_capacity(deps.len());
    while order.len() < deps.len() {
        let next = (0..deps.len()).find(|&i| !done[i] && deps[i].iter().all(|&d| done[d]));
        let Some(next) = next else { break };
        done[next] = true;
        order.push(next);
    }
    order
}

/// Two stages, or two agents, of the plan with one name are refused: a name is a stage's or an
/// agent's handle in the run (its log, its worktree), and fan-out or a prefix can make one twice.
fn check_unique(out: &[(Vec<usize>, StagePlan)]) -> Result<(), ManifestError> {
    let mut stages: HashMap<&str, &StagePlan> = HashMap::new();
    let mut agents: HashMap<&str, (&AgentSpec, &StagePlan)> = HashMap::new();
    for (_, stage) in out {
        if let Some(first) = stages.insert(stage.name.as_str(), stage) {
            return Err(ManifestError::at(
                &stage.at,
                &child(&stage.path, "name"),
                format!(
                    "this stage becomes '{}', which {} ({}) becomes too; rename one",
                    stage.name, first.path, first.at
                ),
            ));
        }
        let StageKind::Agents(specs) = &stage.kind else {
            continue;
        };
        for agent in specs {
            if let Some((first, of)) = agents.insert(agent.slug.as_str(), (agent, stage)) {
                return Err(ManifestError::at(
                    &agent.name.at,
                    &child(&agent.path, "name"),
                    format!(
                        "this agent becomes '{}', as {} of stage '{}' ({}) does; each agent \
                         has its own worktree and log, so agents' names are unique across a \
                         pipeline",
                        agent.slug, first.path, of.name, first.name.at
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// The stages in dependency order, ties by their sort keys (the order written).
fn in_order(mut out: Vec<(Vec<usize>, StagePlan)>) -> Vec<StagePlan> {
    out.sort_by(|a, b| a.0.cmp(&b.0));
    let mut placed: Vec<bool> = vec![false; out.len()];
    let mut names: Vec<&str> = Vec::new();
    let mut order: Vec<usize> = Vec::with_capacity(out.len());
    while order.len() < out.len() {
        let next = (0..out.len()).find(|&i| {
            !placed[i]
                && out[i]
                    .1
                    .depends_on
                    .iter()
                    .all(|d| names.contains(&d.as_str()))
        });
        // Every name depended on is a stage of the plan and no file has a cycle, so one is always
        // ready; should that ever fail, the rest keep the order written.
        let next = next.unwrap_or_else(|| (0..out.len()).find(|&i| !placed[i]).unwrap_or(0));
        placed[next] = true;
        names.push(out[next].1.name.as_str());
        order.push(next);
    }
    let mut slots: Vec<Option<StagePlan>> = out.into_iter().map(|(_, s)| Some(s)).collect();
    order.into_iter().filter_map(|i| slots[i].take()).collect()
}

/// `path` with `.` dropped and `..` taking back the folder before it, without the disk: two
/// spellings of one sub-pipeline are the same file.
fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                let last_is_name =
                    matches!(out.components().next_back(), Some(Component::Normal(_)));
                if last_is_name {
                    out.pop();
                } else {
                    out.push("..");
                }
            }
            other => out.push(other),
        }
    }
    out
}
