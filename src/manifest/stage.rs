//! A pipeline's stages as written (seed 001's "Pipeline manifest", "Stage fields", "Judge block"):
//! flat `steps`, each one agent and its own stage, or `stages`, each running agents in parallel, a
//! sub-pipeline, or a judge; with their `depends_on` and `models`. Each is checked for type and
//! form, and a judge for carrying nothing of its own; which stage names exist, cycles and the
//! judge's other rules need the whole pipeline, and the plan checks them. Pure.

use std::collections::HashMap;

use super::agent::{self, AgentFields, Role};
use super::error::{Located, ManifestError, Place};
use super::tree::{Entry, Node, Value, printable};
use super::walk::{Walk, child, index};
use crate::names;
use crate::orchestrator::runtime::Runtime;

/// The fields of an entry of `stages`.
pub const STAGE_FIELDS: &[&str] = &[
    "name",
    "depends_on",
    "agents",
    "models",
    "pipeline",
    "judge",
];

/// The seed's control fields, refused wherever they are written rather than ignored.
pub const CONTROL_FIELDS: &[&str] = &["on_failure", "retry", "when", "outputs"];

/// The fields of a `judge` block.
pub const JUDGE_FIELDS: &[&str] = &["criteria", "auto_pr", "base", "max_diff"];

/// What a judge ranks by when its block gives no `criteria`.
pub const DEFAULT_CRITERIA: &str = "Pick the candidate whose change is of the highest quality: \
    correct and complete, covered by tests, and no larger than the task needs.";

/// The branch a judge's pull request targets when its block gives no `base`.
pub const DEFAULT_BASE: &str = names::DEFAULT_TRUNK;

/// The bytes of each candidate's diff a judge reads when its block gives no `max_diff`.
pub const DEFAULT_MAX_DIFF: u64 = 12_000;

/// The judge's second rule, in words: every error that breaks it says so.
pub const JUDGE_OWNS_NOTHING: &str = "a judge stage carries no prompt, template, repo, type, \
    instructions, profile, models, agents or pipeline of its own: it judges the candidates of the \
    stages it depends on";

/// How a pipeline lists its stages.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// `steps`: each one agent, its own stage; `depends_on` names one step.
    Steps,
    /// `stages`: agents in parallel, a sub-pipeline or a judge; `depends_on` is a list.
    Stages,
}

impl Layout {
    /// The top-level key that lists them.
    pub fn key(self) -> &'static str {
        match self {
            Layout::Steps => "steps",
            Layout::Stages => "stages",
        }
    }
}

/// One stage as written.
#[derive(Debug, Clone, PartialEq)]
pub struct Stage {
    /// Where the stage's map starts.
    pub at: Place,
    /// Its field path: `stages[1]`, `steps[0]`.
    pub path: String,
    pub name: Located<String>,
    /// The name's slug: the stage's name in the plan.
    pub slug: String,
    pub depends_on: Vec<Dependency>,
    /// `models`: one copy of the stage per entry, in order; empty when it has none.
    pub models: Vec<Located<Runtime>>,
    pub body: StageBody,
}

/// One name in a stage's `depends_on`, and its field path.
#[derive(Debug, Clone, PartialEq)]
pub struct Dependency {
    pub name: Located<String>,
    pub path: String,
}

/// What a stage runs.
#[derive(Debug, Clone, PartialEq)]
pub enum StageBody {
    /// Its agents, in parallel (a step's one agent).
    Agents(Vec<StageAgent>),
    /// `pipeline = "<path>"`: the sub-pipeline's stages, in place of this one.
    Pipeline {
        /// The path as written: relative to the folder of the file that names it.
        file: Located<String>,
        /// Where `agents` was written beside it: those agents are not used (nor read).
        unused_agents: Option<Place>,
    },
    Judge(JudgeBlock),
}

/// An agent of a stage, and its field path (`stages[0].agents[1]`, or a step's `steps[2]`).
#[derive(Debug, Clone, PartialEq)]
pub struct StageAgent {
    /// Its index in the stage's `agents` (a step's agent is 0).
    pub index: usize,
    pub path: String,
    pub fields: AgentFields,
}

/// A `judge` block as written; an unset field takes its default when planned.
#[derive(Debug, Clone, PartialEq)]
pub struct JudgeBlock {
    pub at: Place,
    /// The block's field path: `stages[2].judge`.
    pub path: String,
    pub criteria: Option<Located<String>>,
    pub auto_pr: Option<Located<bool>>,
    pub base: Option<Located<String>>,
    pub max_diff: Option<Located<u64>>,
}

/// The stages of `steps` or `stages` (the entry `entry` of the top level).
pub fn read(walk: &Walk, entry: &Entry, layout: Layout) -> Result<Vec<Stage>, ManifestError> {
    let path = layout.key();
    let items = walk.list(&entry.value, path)?;
    if items.is_empty() {
        return Err(walk.error(
            entry.value.pos,
            path,
            format!(
                "lists no {}; a pipeline runs at least one",
                &path[..path.len() - 1]
            ),
        ));
    }
    let mut stages: Vec<Stage> = Vec::with_capacity(items.len());
    let mut taken: HashMap<String, usize> = HashMap::new();
    for (i, item) in items.iter().enumerate() {
        let item_path = index(path, i);
        let stage = match layout {
            Layout::Steps => read_step(walk, item, &item_path)?,
            Layout::Stages => read_stage(walk, item, &item_path)?,
        };
        if let Some(&first) = taken.get(&stage.slug) {
            let other = &stages[first].name.value;
            let message = if *other == stage.name.value {
                format!(
                    "'{}' is already the name of {path}[{first}]",
                    printable(other)
                )
            } else {
                format!(
                    "'{}' and {path}[{first}]'s '{}' both slug to '{}'; two names that slug \
                     alike are refused, not merged",
                    printable(&stage.name.value),
                    printable(other),
                    stage.slug
                )
            };
            return Err(ManifestError::at(
                &stage.name.at,
                &child(&item_path, "name"),
                message,
            ));
        }
        taken.insert(stage.slug.clone(), i);
        stages.push(stage);
    }
    Ok(stages)
}

/// A step: one agent's fields and the stage fields `depends_on` (one name), `models`, `judge`.
fn read_step(walk: &Walk, node: &Node, path: &str) -> Result<Stage, ManifestError> {
    let entries = walk.map(node, path)?;
    let mut depends_on = Vec::new();
    let mut models = Vec::new();
    let mut judge = None;
    let mut agent_entries: Vec<&Entry> = Vec::new();
    for entry in entries {
        let field = child(path, &entry.key);
        let v = &entry.value;
        match entry.key.as_str() {
            "depends_on" => {
                let Value::Str(_) = &v.value else {
                    return Err(walk.mismatch(
                        v,
                        &field,
                        "the name of one step (a step depends on one; stages take a list)",
                    ));
                };
                depends_on.push(Dependency {
                    name: walk.text(v, &field)?,
                    path: field,
                });
            }
            "models" => models = read_models(walk, v, &field)?,
            "judge" => judge = Some(read_judge(walk, v, &field)?),
            "pipeline" => {
                return Err(walk.error(
                    entry.key_pos,
                    &field,
                    "a step is one agent; a sub-pipeline runs in place of a stage, so list stages \
                     to run one",
                ));
            }
            "agents" => {
                return Err(walk.error(
                    entry.key_pos,
                    &field,
                    "a step is one agent; list stages to run agents side by side",
                ));
            }
            _ => agent_entries.push(entry),
        }
    }
    let (name, slug) = stage_name(walk, node, path, entries)?;
    let body = match judge {
        Some(judge) => {
            if let Some(entry) = agent_entries.iter().find(|e| e.key != "name") {
                return Err(judge_owns(walk, entry, path));
            }
            if let Some(first) = models.first() {
                return Err(ManifestError::at(
                    &first.at,
                    &child(path, "models"),
                    JUDGE_OWNS_NOTHING,
                ));
            }
            StageBody::Judge(judge)
        }
        None => {
            let fields = agent::read_entries(
                walk,
                agent_entries.into_iter(),
                walk.place(node.pos),
                path,
                Role::Agent,
            )?;
            StageBody::Agents(vec![StageAgent {
                index: 0,
                path: path.to_owned(),
                fields,
            }])
        }
    };
    Ok(Stage {
        at: walk.place(node.pos),
        path: path.to_owned(),
        name,
        slug,
        depends_on,
        models,
        body,
    })
}

/// An entry of `stages`.
fn read_stage(walk: &Walk, node: &Node, path: &str) -> Result<Stage, ManifestError> {
    let entries = walk.map(node, path)?;
    let mut depends_on = Vec::new();
    let mut agents = None;
    let mut models: Option<(&Entry, Vec<Located<Runtime>>)> = None;
    let mut pipeline = None;
    let mut judge = None;
    let mut agent_fields: Vec<&Entry> = Vec::new();
    for entry in entries {
        let field = child(path, &entry.key);
        let v = &entry.value;
        match entry.key.as_str() {
            "name" => {}
            "depends_on" => {
                let names = walk.strings(v, &field)?;
                depends_on = names
                    .value
                    .into_iter()
                    .enumerate()
                    .map(|(i, name)| Dependency {
                        name,
                        path: index(&field, i),
                    })
                    .collect();
            }
            "agents" => agents = Some(entry),
            "models" => models = Some((entry, read_models(walk, v, &field)?)),
            "pipeline" => pipeline = Some((entry, walk.text(v, &field)?)),
            "judge" => judge = Some(read_judge(walk, v, &field)?),
            key if agent::FIELDS.contains(&key) => agent_fields.push(entry),
            key => {
                return Err(match agent::refusal(key) {
                    Some(message) => walk.error(entry.key_pos, &field, message),
                    None => walk.unknown(entry, &field, STAGE_FIELDS),
                });
            }
        }
    }
    let (name, slug) = stage_name(walk, node, path, entries)?;
    let body = if let Some(judge) = judge {
        let own = agent_fields
            .first()
            .copied()
            .or(agents)
            .or(models.as_ref().map(|(entry, _)| *entry))
            .or(pipeline.as_ref().map(|(entry, _)| *entry));
        if let Some(entry) = own {
            return Err(judge_owns(walk, entry, path));
        }
        StageBody::Judge(judge)
    } else {
        if let Some(entry) = agent_fields.first() {
            return Err(walk.error(
                entry.key_pos,
                &child(path, &entry.key),
                format!(
                    "an agent field on a stage: write it on the stage's agents, or under \
                     defaults to give every agent {}",
                    entry.key
                ),
            ));
        }
        match (pipeline, agents) {
            (Some((_, file)), agents) => {
                if let Some((models, _)) = &models {
                    return Err(walk.error(
                        models.key_pos,
                        &child(path, "models"),
                        format!(
                            "models copies a stage's own agents, and a sub-pipeline stage has \
                             none; fan out inside {}",
                            printable(&file.value)
                        ),
                    ));
                }
                StageBody::Pipeline {
                    file,
                    unused_agents: agents.map(|a| walk.place(a.key_pos)),
                }
            }
            (None, Some(agents)) => StageBody::Agents(read_agents(walk, agents, path)?),
            (None, None) => {
                return Err(walk.error(
                    node.pos,
                    path,
                    "a stage runs agents, a sub-pipeline (pipeline) or a judge; give it one",
                ));
            }
        }
    };
    Ok(Stage {
        at: walk.place(node.pos),
        path: path.to_owned(),
        name,
        slug,
        depends_on,
        models: models.map(|(_, m)| m).unwrap_or_default(),
        body,
    })
}

/// A stage's `name` and its slug; required.
fn stage_name(
    walk: &Walk,
    node: &Node,
    path: &str,
    entries: &[Entry],
) -> Result<(Located<String>, String), ManifestError> {
    let field = child(path, "name");
    let Some(entry) = entries.iter().find(|e| e.key == "name") else {
        return Err(walk.error(node.pos, &field, "required: the stage's name"));
    };
    let name = walk.text(&entry.value, &field)?;
    let slug = crate::slug::slug(&name.value)
        .map_err(|e| walk.error(entry.value.pos, &field, e.to_string()))?;
    Ok((name, slug))
}

/// A field a judge stage may not carry, refused with the rule.
fn judge_owns(walk: &Walk, entry: &Entry, path: &str) -> ManifestError {
    walk.error(entry.key_pos, &child(path, &entry.key), JUDGE_OWNS_NOTHING)
}

/// A stage's `agents`: each named, no two names slugging alike.
fn read_agents(walk: &Walk, entry: &Entry, path: &str) -> Result<Vec<StageAgent>, ManifestError> {
    let list_path = child(path, "agents");
    let items = walk.list(&entry.value, &list_path)?;
    if items.is_empty() {
        return Err(walk.error(
            entry.value.pos,
            &list_path,
            "lists no agent; a stage of agents runs at least one",
        ));
    }
    let mut agents: Vec<StageAgent> = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let item_path = index(&list_path, i);
        let fields = agent::read(walk, item, &item_path, Role::StageAgent)?;
        let (Some(name), Some(slug)) = (&fields.name, &fields.slug) else {
            return Err(walk.error(
                item.pos,
                &child(&item_path, "name"),
                "required: the agent's name",
            ));
        };
        if let Some(first) = agents.iter().find(|a| a.fields.slug.as_ref() == Some(slug)) {
            return Err(ManifestError::at(
                &name.at,
                &child(&item_path, "name"),
                format!(
                    "'{}' slugs like {}'s name; each agent of a stage has its own",
                    printable(&name.value),
                    first.path
                ),
            ));
        }
        agents.push(StageAgent {
            index: i,
            path: item_path,
            fields,
        });
    }
    Ok(agents)
}

/// `models`: runtimes, at least one, none twice.
fn read_models(
    walk: &Walk,
    node: &Node,
    path: &str,
) -> Result<Vec<Located<Runtime>>, ManifestError> {
    let items = walk.list(node, path)?;
    if items.is_empty() {
        return Err(walk.error(
            node.pos,
            path,
            "lists no model; list the runtimes to run a copy of the stage with",
        ));
    }
    let mut models: Vec<Located<Runtime>> = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let item_path = index(path, i);
        let model = agent::runtime(walk, item, &item_path)?;
        if models.iter().any(|m| m.value == model.value) {
            return Err(walk.error(
                item.pos,
                &item_path,
                format!(
                    "'{}' is listed twice; each entry runs one copy of the stage",
                    model.value.name()
                ),
            ));
        }
        models.push(model);
    }
    Ok(models)
}

/// A `judge` block: a map of [`JUDGE_FIELDS`], each optional.
fn read_judge(walk: &Walk, node: &Node, path: &str) -> Result<JudgeBlock, ManifestError> {
    let mut judge = JudgeBlock {
        at: walk.place(node.pos),
        path: path.to_owned(),
        criteria: None,
        auto_pr: None,
        base: None,
        max_diff: None,
    };
    for entry in walk.map(node, path)? {
        let field = child(path, &entry.key);
        let v = &entry.value;
        match entry.key.as_str() {
            "criteria" => judge.criteria = Some(walk.text(v, &field)?),
            "auto_pr" => judge.auto_pr = Some(walk.boolean(v, &field)?),
            "base" => judge.base = Some(walk.text(v, &field)?),
            "max_diff" => {
                let bytes = match v.value {
                    Value::Int(n) => u64::try_from(n).ok().filter(|&n| n > 0),
                    _ => None,
                };
                let Some(bytes) = bytes else {
                    return Err(walk.mismatch(v, &field, "a number of bytes, more than 0"));
                };
                judge.max_diff = Some(walk.located(v, bytes));
            }
            key if CONTROL_FIELDS.contains(&key) => {
                let message = agent::refusal(key).unwrap_or_default();
                return Err(walk.error(entry.key_pos, &field, message));
            }
            _ => return Err(walk.unknown(entry, &field, JUDGE_FIELDS)),
        }
    }
    Ok(judge)
}
