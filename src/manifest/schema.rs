//! A manifest's top level as written: its name, description, inputs, examples, tags, defaults,
//! vars, worktree settings, and either a fleet's `agents` or a pipeline's `steps` or `stages`
//! (never both), each checked for type and form, with the place it was written kept for the errors
//! that come later. Pure: a tree in, a [`Manifest`] or a [`Pipeline`] out.

use std::collections::HashMap;
use std::sync::Arc;

use super::agent::{self, AgentFields, Role};
use super::error::{Located, ManifestError, Place};
use super::interpolate::is_var_name;
use super::stage::{self, Layout, Stage};
use super::tree::{Entry, Node, Value, printable};
use super::walk::{Walk, child, index};

/// The top-level fields a manifest accepts (a fleet's `agents`, a pipeline's `steps` or `stages`).
pub const FIELDS: &[&str] = &[
    "name",
    "description",
    "inputs",
    "examples",
    "tags",
    "defaults",
    "vars",
    "agents",
    "steps",
    "stages",
    "worktrees",
    "worktree_base",
    "worktree_seed",
];

/// The fields of one input.
const INPUT_FIELDS: &[&str] = &["name", "description", "required", "default", "infer"];

/// Names berth binds itself: no var or input may take them.
pub const RESERVED: &[(&str, &str)] = &[
    (
        "model",
        "berth sets ${model} in a pipeline stage that fans out over models",
    ),
    (
        "fleet_dir",
        "berth sets ${fleet_dir} to the fleet's shared folder",
    ),
];

/// A manifest as written.
#[derive(Debug, Clone, PartialEq)]
pub struct Manifest {
    /// The file as the caller named it; every place in the manifest names it.
    pub file: Arc<str>,
    pub name: Located<String>,
    /// The name's slug: the fleet's folder and branch component.
    pub slug: String,
    pub description: Option<Located<String>>,
    pub inputs: Vec<Input>,
    pub examples: Vec<Located<String>>,
    pub tags: Vec<Located<String>>,
    /// The fields every agent inherits; all unset when the manifest has no `defaults`.
    pub defaults: AgentFields,
    pub vars: Vec<Var>,
    pub agents: Vec<AgentFields>,
    /// `worktrees = true`: every agent its own worktree, which is what berth does anyway.
    pub worktrees: Option<Located<bool>>,
    /// The ref the fleet's worktrees start from.
    pub worktree_base: Option<Located<String>>,
    /// Untracked files copied into each worktree the fleet makes, relative to the checkout.
    pub worktree_seed: Vec<Located<String>>,
}

/// A pipeline manifest as written: the top level a fleet has, with stages instead of agents.
#[derive(Debug, Clone, PartialEq)]
pub struct Pipeline {
    /// The file as the caller named it; every place in the manifest names it.
    pub file: Arc<str>,
    pub name: Located<String>,
    /// The name's slug: the pipeline's folder and branch component.
    pub slug: String,
    pub description: Option<Located<String>>,
    pub inputs: Vec<Input>,
    pub examples: Vec<Located<String>>,
    pub tags: Vec<Located<String>>,
    /// The fields every agent inherits; all unset when the manifest has no `defaults`.
    pub defaults: AgentFields,
    pub vars: Vec<Var>,
    /// `steps` or `stages`.
    pub layout: Layout,
    /// The stages in the order written.
    pub stages: Vec<Stage>,
    pub worktrees: Option<Located<bool>>,
    pub worktree_base: Option<Located<String>>,
    pub worktree_seed: Vec<Located<String>>,
}

/// A manifest of either kind.
#[derive(Debug, Clone, PartialEq)]
pub enum Document {
    Fleet(Manifest),
    Pipeline(Pipeline),
}

/// Which kind of manifest a caller reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Want {
    Fleet,
    Pipeline,
    Either,
}

/// A declared input: a value the person gives with `--var`, or berth infers, or the default.
#[derive(Debug, Clone, PartialEq)]
pub struct Input {
    /// Where the input's map starts: an error about a missing value points here.
    pub at: Place,
    /// Its index in `inputs`, for the error's field path.
    pub index: usize,
    pub name: Located<String>,
    pub description: Option<Located<String>>,
    pub required: bool,
    pub default: Option<Located<String>>,
    pub infer: Option<Located<InferFrom>>,
}

/// Where an input's value can be inferred from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InferFrom {
    /// The checkout's origin (`--repo` first, where the command takes one).
    Repo,
    /// The current branch's open pull request.
    Pr,
}

impl InferFrom {
    pub fn name(self) -> &'static str {
        match self {
            InferFrom::Repo => "repo",
            InferFrom::Pr => "pr",
        }
    }

    /// What inferring means, as an error says it.
    pub fn describe(self) -> &'static str {
        match self {
            InferFrom::Repo => "the checkout's origin",
            InferFrom::Pr => "the current branch's open pull request",
        }
    }
}

/// One entry of `vars`.
#[derive(Debug, Clone, PartialEq)]
pub struct Var {
    pub name: Located<String>,
    pub value: Located<String>,
}

/// The fleet manifest in `tree`, read from `file`; a pipeline is refused with the command that
/// runs it.
pub fn read(file: &Arc<str>, tree: &Node) -> Result<Manifest, ManifestError> {
    match read_top(file, tree, Want::Fleet)? {
        Document::Fleet(manifest) => Ok(manifest),
        Document::Pipeline(_) => Err(ManifestError::file(file, "not a fleet manifest")),
    }
}

/// The pipeline manifest in `tree`, read from `file`; a fleet is refused with the command that
/// starts it.
pub fn read_pipeline(file: &Arc<str>, tree: &Node) -> Result<Pipeline, ManifestError> {
    match read_top(file, tree, Want::Pipeline)? {
        Document::Pipeline(pipeline) => Ok(pipeline),
        Document::Fleet(_) => Err(ManifestError::file(file, "not a pipeline manifest")),
    }
}

/// The manifest in `tree`, fleet or pipeline, read from `file`.
pub fn read_document(file: &Arc<str>, tree: &Node) -> Result<Document, ManifestError> {
    read_top(file, tree, Want::Either)
}

/// The kind of the manifest whose top level is `entries`, from the key that lists its agents or
/// stages; a manifest with keys of both kinds, or with both `steps` and `stages`, is refused at
/// the second.
fn kind_of(walk: &Walk, entries: &[Entry], want: Want) -> Result<Option<Layout>, ManifestError> {
    let mut fleet: Option<&Entry> = None;
    let mut pipeline: Option<(&Entry, Layout)> = None;
    for entry in entries {
        let path = entry.key.as_str();
        match path {
            "agents" => {
                if let Some((first, _)) = pipeline {
                    return Err(walk.error(
                        entry.key_pos,
                        path,
                        format!(
                            "a manifest is a fleet (agents) or a pipeline (steps or stages), not \
                             both, and this one lists {} too",
                            first.key
                        ),
                    ));
                }
                fleet = Some(entry);
            }
            "steps" | "stages" => {
                let layout = if path == "steps" {
                    Layout::Steps
                } else {
                    Layout::Stages
                };
                if let Some((first, _)) = pipeline {
                    return Err(walk.error(
                        entry.key_pos,
                        path,
                        format!(
                            "a pipeline lists steps or stages, not both, and this one lists {} too",
                            first.key
                        ),
                    ));
                }
                if fleet.is_some() {
                    return Err(walk.error(
                        entry.key_pos,
                        path,
                        "a manifest is a fleet (agents) or a pipeline (steps or stages), not \
                         both, and this one lists agents too",
                    ));
                }
                pipeline = Some((entry, layout));
            }
            _ => {}
        }
    }
    match (want, fleet, pipeline) {
        (Want::Fleet, _, Some((entry, _))) => Err(walk.error(
            entry.key_pos,
            &entry.key,
            format!(
                "a pipeline field, refused in a fleet: this manifest is a pipeline (it lists \
                 {}); run it with git berth pipeline run",
                entry.key
            ),
        )),
        (Want::Pipeline, Some(entry), _) => Err(walk.error(
            entry.key_pos,
            &entry.key,
            "a fleet field, refused in a pipeline: this manifest is a fleet (it lists agents); \
             start it with git berth fleet up",
        )),
        (_, _, Some((_, layout))) => Ok(Some(layout)),
        (Want::Pipeline, None, None) => Ok(Some(Layout::Stages)),
        _ => Ok(None),
    }
}

/// The manifest in `tree`, of the kind `want` allows.
fn read_top(file: &Arc<str>, tree: &Node, want: Want) -> Result<Document, ManifestError> {
    let walk = Walk { file: file.clone() };
    let entries = match &tree.value {
        Value::Map(entries) => entries,
        _ => {
            return Err(walk.error(
                tree.pos,
                "",
                format!(
                    "a manifest is a map of fields (name, agents, ...), found {}",
                    tree.value.describe()
                ),
            ));
        }
    };
    let mut name = None;
    let mut description = None;
    let mut inputs = Vec::new();
    let mut examples = Vec::new();
    let mut tags = Vec::new();
    let mut defaults = None;
    let mut vars = Vec::new();
    let layout = kind_of(&walk, entries, want)?;
    let (kind, defaults_role) = match layout {
        Some(_) => ("pipeline", Role::PipelineDefaults),
        None => ("fleet", Role::Defaults),
    };
    let mut agents = None;
    let mut stages = None;
    let mut worktrees = None;
    let mut worktree_base = None;
    let mut worktree_seed = Vec::new();
    for entry in entries {
        let path = entry.key.as_str();
        let v = &entry.value;
        match path {
            "name" => name = Some(walk.text(v, path)?),
            "description" => description = Some(walk.string(v, path)?),
            "inputs" => inputs = read_inputs(&walk, v)?,
            "examples" => examples = walk.strings(v, path)?.value,
            "tags" => tags = walk.strings(v, path)?.value,
            "defaults" => defaults = Some(agent::read(&walk, v, path, defaults_role)?),
            "vars" => vars = read_vars(&walk, v)?,
            "agents" => agents = Some(read_agents(&walk, entry)?),
            "steps" => stages = Some(stage::read(&walk, entry, Layout::Steps)?),
            "stages" => stages = Some(stage::read(&walk, entry, Layout::Stages)?),
            "worktrees" => {
                let on = walk.boolean(v, path)?;
                if !on.value {
                    return Err(walk.error(
                        v.pos,
                        path,
                        format!(
                            "berth never runs a {kind} in the primary checkout: each agent has \
                             its own worktree, or sets worktree = false to run outside any \
                             checkout"
                        ),
                    ));
                }
                worktrees = Some(on);
            }
            "worktree_base" => worktree_base = Some(walk.text(v, path)?),
            "worktree_seed" => worktree_seed = read_seed(&walk, v)?,
            _ => return Err(top_level_refusal(&walk, entry)),
        }
    }
    let Some(name) = name else {
        return Err(walk.error(tree.pos, "name", format!("required: the {kind}'s name")));
    };
    let slug = crate::slug::slug(&name.value).map_err(|e| {
        ManifestError::at(
            &name.at,
            "name",
            format!(
                "invalid {kind} name '{}': its slug '{}' {}",
                printable(&e.name),
                e.slug,
                e.reason
            ),
        )
    })?;
    check_names(&inputs, &vars)?;
    let defaults = defaults.unwrap_or_else(|| AgentFields::empty(walk.place(tree.pos)));
    if let Some(layout) = layout {
        let Some(stages) = stages else {
            return Err(walk.error(
                tree.pos,
                layout.key(),
                "required: the pipeline's steps or stages",
            ));
        };
        return Ok(Document::Pipeline(Pipeline {
            file: file.clone(),
            name,
            slug,
            description,
            inputs,
            examples,
            tags,
            defaults,
            vars,
            layout,
            stages,
            worktrees,
            worktree_base,
            worktree_seed,
        }));
    }
    let Some(agents) = agents else {
        let message = match want {
            Want::Either => {
                "required: the list of agents to start (a fleet), or steps or stages \
                             (a pipeline)"
            }
            _ => "required: the list of agents to start",
        };
        return Err(walk.error(tree.pos, "agents", message));
    };
    Ok(Document::Fleet(Manifest {
        file: file.clone(),
        name,
        slug,
        description,
        inputs,
        examples,
        tags,
        defaults,
        vars,
        agents,
        worktrees,
        worktree_base,
        worktree_seed,
    }))
}

/// An unknown top-level key refused with what to do.
fn top_level_refusal(walk: &Walk, entry: &Entry) -> ManifestError {
    let path = entry.key.as_str();
    match path {
        key if stage::CONTROL_FIELDS.contains(&key) => {
            walk.error(entry.key_pos, path, agent::refusal(key).unwrap_or_default())
        }
        key if agent::FIELDS.contains(&key) && key != "name" => walk.error(
            entry.key_pos,
            path,
            format!(
                "an agent field at the top level; put it under defaults to give every agent {key}"
            ),
        ),
        _ => walk.unknown(entry, path, FIELDS),
    }
}

fn read_agents(walk: &Walk, entry: &Entry) -> Result<Vec<AgentFields>, ManifestError> {
    let path = "agents";
    let items = walk.list(&entry.value, path)?;
    if items.is_empty() {
        return Err(walk.error(
            entry.value.pos,
            path,
            "lists no agent; a fleet starts at least one",
        ));
    }
    let mut agents: Vec<AgentFields> = Vec::with_capacity(items.len());
    // Each slug, with the agent that took it: two names that slug alike are refused, not merged.
    let mut taken: HashMap<String, usize> = HashMap::new();
    for (i, item) in items.iter().enumerate() {
        let item_path = index(path, i);
        let fields = agent::read(walk, item, &item_path, Role::Agent)?;
        let (Some(name), Some(slug)) = (&fields.name, &fields.slug) else {
            return Err(walk.error(
                item.pos,
                &child(&item_path, "name"),
                "required: the agent's name",
            ));
        };
        if let Some(&first) = taken.get(slug) {
            let other = agents[first].name.as_ref().map_or("", |n| n.value.as_str());
            let message = if other == name.value {
                format!(
                    "'{}' is already the name of agents[{first}]",
                    printable(&name.value)
                )
            } else {
                format!(
                    "'{}' and agents[{first}]'s '{}' both slug to '{slug}'; two names that slug \
                     alike are refused, not merged",
                    printable(&name.value),
                    printable(other)
                )
            };
            return Err(ManifestError::at(
                &name.at,
                &child(&item_path, "name"),
                message,
            ));
        }
        taken.insert(slug.clone(), i);
        agents.push(fields);
    }
    Ok(agents)
}

fn read_inputs(walk: &Walk, node: &Node) -> Result<Vec<Input>, ManifestError> {
    let items = walk.list(node, "inputs")?;
    let mut inputs: Vec<Input> = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let path = index("inputs", i);
        let mut name = None;
        let mut description = None;
        let mut required = false;
        let mut default = None;
        let mut infer = None;
        for entry in walk.map(item, &path)? {
            let field = child(&path, &entry.key);
            let v = &entry.value;
            match entry.key.as_str() {
                "name" => name = Some(var_name(walk, v, &field)?),
                "description" => description = Some(walk.string(v, &field)?),
                "required" => required = walk.boolean(v, &field)?.value,
                "default" => default = Some(walk.scalar_text(v, &field)?),
                "infer" => infer = Some(infer_from(walk, v, &field)?),
                _ => return Err(walk.unknown(entry, &field, INPUT_FIELDS)),
            }
        }
        let Some(name) = name else {
            return Err(walk.error(
                item.pos,
                &child(&path, "name"),
                "required: the input's name",
            ));
        };
        if let Some(first) = inputs.iter().find(|input| input.name.value == name.value) {
            return Err(ManifestError::at(
                &name.at,
                &child(&path, "name"),
                format!(
                    "'{}' is already the name of inputs[{}]",
                    name.value, first.index
                ),
            ));
        }
        inputs.push(Input {
            at: walk.place(item.pos),
            index: i,
            name,
            description,
            required,
            default,
            infer,
        });
    }
    Ok(inputs)
}

fn infer_from(walk: &Walk, node: &Node, path: &str) -> Result<Located<InferFrom>, ManifestError> {
    let wanted = "repo or pr";
    match &node.value {
        Value::Str(s) if s == "repo" => Ok(walk.located(node, InferFrom::Repo)),
        Value::Str(s) if s == "pr" => Ok(walk.located(node, InferFrom::Pr)),
        Value::Str(s) => Err(walk.error(
            node.pos,
            path,
            format!("expected {wanted}, found '{}'", printable(s)),
        )),
        _ => Err(walk.mismatch(node, path, wanted)),
    }
}

fn read_vars(walk: &Walk, node: &Node) -> Result<Vec<Var>, ManifestError> {
    let entries = walk.map(node, "vars")?;
    let mut vars = Vec::with_capacity(entries.len());
    for entry in entries {
        let path = child("vars", &entry.key);
        let key_node = Node {
            pos: entry.key_pos,
            value: Value::Str(entry.key.clone()),
        };
        let name = var_name(walk, &key_node, &path)?;
        let value = walk.scalar_text(&entry.value, &path)?;
        vars.push(Var { name, value });
    }
    Ok(vars)
}

/// A var or input name: what `${name}` can say. Letters, digits, `_` and `-`, not starting with a
/// digit or `-`, and none of the names berth binds itself.
fn var_name(walk: &Walk, node: &Node, path: &str) -> Result<Located<String>, ManifestError> {
    let name = walk.text(node, path)?;
    if !is_var_name(&name.value) {
        return Err(walk.error(
            node.pos,
            path,
            format!(
                "'{}' cannot be written as ${{name}}: use letters, digits, '_' and '-', starting \
                 with a letter or '_'",
                printable(&name.value)
            ),
        ));
    }
    if let Some((_, why)) = RESERVED
        .iter()
        .find(|(reserved, _)| *reserved == name.value)
    {
        return Err(walk.error(
            node.pos,
            path,
            format!("'{}' is reserved: {why}", name.value),
        ));
    }
    Ok(name)
}

/// A name is an input or a var, not both: which would win would be a guess.
fn check_names(inputs: &[Input], vars: &[Var]) -> Result<(), ManifestError> {
    for var in vars {
        if let Some(input) = inputs.iter().find(|i| i.name.value == var.name.value) {
            return Err(ManifestError::at(
                &var.name.at,
                &child("vars", &var.name.value),
                format!(
                    "'{}' is also inputs[{}]; declare it once (an input's default is its value \
                     when --var does not give one)",
                    var.name.value, input.index
                ),
            ));
        }
    }
    Ok(())
}

/// `worktree_seed`: paths inside the checkout, never absolute and never climbing out of it.
fn read_seed(walk: &Walk, node: &Node) -> Result<Vec<Located<String>>, ManifestError> {
    let paths = walk.strings(node, "worktree_seed")?.value;
    for (i, path) in paths.iter().enumerate() {
        let p = std::path::Path::new(&path.value);
        let climbs = p
            .components()
            .any(|c| matches!(c, std::path::Component::ParentDir));
        if p.is_absolute() || climbs {
            return Err(ManifestError::at(
                &path.at,
                &index("worktree_seed", i),
                format!(
                    "'{}' is not a path inside the checkout; name untracked files relative to \
                     its top, without '..'",
                    printable(&path.value)
                ),
            ));
        }
    }
    Ok(paths)
}
