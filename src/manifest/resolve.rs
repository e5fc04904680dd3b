//! Each agent of a manifest resolved to what it runs with: every field merged (per-agent, then
//! its profile, then `defaults`; in a pipeline, a stage's `models` entry is the `type`), its
//! strings interpolated, its worktree group decided, and for each field the layer and place it
//! came from, for `--dry-run` and `pipeline show` to show. Pure: profiles are read through the
//! caller's [`Files`] and inputs inferred through its [`Infer`].

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};

use super::agent::{AgentFields, Identity, LocatedList, TemplateVar, WorktreeKey};
use super::error::{Located, ManifestError, Place};
use super::inputs::{self, Binding, Bindings, Infer};
use super::interpolate::expand;
use super::profile::{self, Files, Profile};
use super::schema::Manifest;
use super::tree::printable;
use super::walk::{child, index};
use crate::orchestrator::runtime::Runtime;

/// What the caller knows that the manifest does not.
#[derive(Debug, Clone, Copy)]
pub struct Context<'a> {
    /// `--var key=value`, in the order given (a later one wins).
    pub vars: &'a [(String, String)],
    /// The fleet's shared folder (`<common dir>/berth/fleets/<fleet>/shared`), or a pipeline
    /// run's: `${fleet_dir}`.
    pub fleet_dir: &'a str,
    /// `${XDG_CONFIG_HOME:-~/.config}` ([`profile::config_home`]), where profiles live.
    pub config_home: Option<&'a Path>,
}

/// Where a field's value was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Layer {
    /// On the agent itself.
    Agent,
    /// In the profile of this name.
    Profile(String),
    /// In the manifest's `defaults` (in a sub-pipeline, its own, then its parent's: the place
    /// names the file).
    Defaults,
    /// An entry of the pipeline stage's `models`: the `type` of that stage's copy.
    Models,
}

impl fmt::Display for Layer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Layer::Agent => f.write_str("agent"),
            Layer::Profile(name) => write!(f, "profile {name}"),
            Layer::Defaults => f.write_str("defaults"),
            Layer::Models => f.write_str("stage models"),
        }
    }
}

/// A resolved value, the layer it came from, and where and in which field it was written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sourced<T> {
    pub value: T,
    pub layer: Layer,
    pub at: Place,
    /// The field's path in its file: `agents[1].prompt`, `defaults.type`, or `ssh` in a profile.
    pub path: String,
}

/// Where an agent runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Placement {
    /// In the worktree of this group (a slug): its own name unless `worktree` named a group.
    Worktree { group: String },
    /// `worktree = false`: in the fleet's shared folder, outside any checkout.
    Outside,
}

/// One agent with every field resolved. An unset field is `None`: what it then means on this
/// machine (a local agent has SSH and its auth already) is for the fleet to say.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentSpec {
    /// Its index in `agents` (in a pipeline, in its stage's `agents`; a step's is 0).
    pub index: usize,
    /// Its field path in the file it is written in: `agents[1]`, `stages[0].agents[1]`, `steps[2]`.
    pub path: String,
    /// Its name; in a pipeline, after fan-out (`review-claude`) and a sub-pipeline's prefix, with
    /// the place of the name as written.
    pub name: Located<String>,
    pub slug: String,
    /// The `type`.
    pub runtime: Sourced<Runtime>,
    pub profile: Option<Sourced<String>>,
    /// `repo` or `repos`, interpolated; `None` is this repository.
    pub repos: Option<Sourced<Vec<String>>>,
    pub prompt: Option<Sourced<String>>,
    pub template: Option<Sourced<String>>,
    pub template_vars: Option<Sourced<Vec<TemplateVar>>>,
    pub instructions: Option<Sourced<String>>,
    /// Relative to the folder of the file that names it.
    pub instructions_file: Option<Sourced<PathBuf>>,
    pub ssh: Option<Sourced<bool>>,
    pub reuse_auth: Option<Sourced<bool>>,
    pub reuse_gh_auth: Option<Sourced<bool>>,
    pub seed_auth: Option<Sourced<bool>>,
    pub auto_trust: Option<Sourced<bool>>,
    pub background: Option<Sourced<bool>>,
    pub allow_setup_scripts: Option<Sourced<bool>>,
    pub identity: Option<Sourced<Identity>>,
    pub aws: Option<Sourced<String>>,
    pub max_cost: Option<Sourced<String>>,
    pub notify: Option<Sourced<Vec<String>>>,
    /// Shell commands, run as written: `${...}` in them is the shell's, not the manifest's.
    pub on_exit: Option<Sourced<String>>,
    pub on_complete: Option<Sourced<String>>,
    pub on_fail: Option<Sourced<String>>,
    /// The `worktree` key as written, if any layer has one.
    pub worktree: Option<Sourced<WorktreeKey>>,
    /// The decision: its own worktree, a group's, or none.
    pub placement: Placement,
    pub owns: Option<Sourced<Vec<String>>>,
}

/// A manifest resolved for one run.
#[derive(Debug, Clone, PartialEq)]
pub struct Resolved {
    /// Every value `${key}` could read, and where each came from.
    pub bindings: Vec<Binding>,
    pub agents: Vec<AgentSpec>,
    /// The profiles the agents name, as read.
    pub profiles: Vec<Profile>,
}

/// Resolve every agent of `manifest`. The first error, in the agents' order, is returned.
pub fn resolve(
    manifest: &Manifest,
    ctx: &Context<'_>,
    files: &dyn Files,
    infer: &dyn Infer,
) -> Result<Resolved, ManifestError> {
    let mut bindings = inputs::bind(
        &manifest.inputs,
        &manifest.vars,
        "not in a fleet",
        ctx.vars,
        ctx.fleet_dir,
        infer,
    )?;
    let mut profiles: Vec<Profile> = Vec::new();
    let mut agents = Vec::with_capacity(manifest.agents.len());
    for (i, agent) in manifest.agents.iter().enumerate() {
        let written = Written {
            index: i,
            path: index("agents", i),
            fields: agent,
            defaults: &[&manifest.defaults],
            rename: None,
            runtime: None,
        };
        agents.push(resolve_agent(
            &written,
            ctx,
            files,
            &mut profiles,
            &mut bindings,
        )?);
    }
    check_groups(&agents)?;
    Ok(Resolved {
        bindings: bindings.into_list(),
        agents,
        profiles,
    })
}

/// One agent as written, and what its place in a pipeline adds.
pub(super) struct Written<'a> {
    /// Its index in its list of agents.
    pub index: usize,
    /// Its field path in its file.
    pub path: String,
    pub fields: &'a AgentFields,
    /// The `defaults` that apply, nearest file first.
    pub defaults: &'a [&'a AgentFields],
    /// The name and slug it runs under, when not its own (after fan-out or a sub-pipeline's
    /// prefix).
    pub rename: Option<(String, String)>,
    /// The `type` its stage's `models` entry gives, winning over every layer.
    pub runtime: Option<Sourced<Runtime>>,
}

/// The agent `written`, resolved; the profile it names is read once into `profiles`.
pub(super) fn resolve_agent(
    written: &Written<'_>,
    ctx: &Context<'_>,
    files: &dyn Files,
    profiles: &mut Vec<Profile>,
    bindings: &mut Bindings<'_>,
) -> Result<AgentSpec, ManifestError> {
    let layers = Layers {
        written,
        profile: None,
    };
    let profile_name = layers.pick("profile", |f| &f.profile);
    let profile = match &profile_name {
        None => None,
        Some(name) => Some(match profiles.iter().position(|p| p.name == name.value) {
            Some(known) => known,
            None => {
                let located = Located {
                    value: name.value.clone(),
                    at: name.at.clone(),
                };
                profiles.push(profile::load(&located, &name.path, ctx.config_home, files)?);
                profiles.len() - 1
            }
        }),
    };
    let layers = Layers {
        profile: profile.map(|p| &profiles[p]),
        ..layers
    };
    layers.spec(profile_name, bindings)
}

/// The layers of one agent, most specific first.
struct Layers<'a> {
    written: &'a Written<'a>,
    profile: Option<&'a Profile>,
}

impl Layers<'_> {
    /// The layers in precedence order, each with its layer and field-path prefix.
    fn each(&self) -> Vec<(&AgentFields, Layer, String)> {
        let mut out = vec![(self.written.fields, Layer::Agent, self.written.path.clone())];
        if let Some(profile) = self.profile {
            out.push((
                &profile.fields,
                Layer::Profile(profile.name.clone()),
                String::new(),
            ));
        }
        for defaults in self.written.defaults {
            out.push((defaults, Layer::Defaults, "defaults".to_owned()));
        }
        out
    }

    /// The first layer's value of field `name`, as `get` finds it in a layer.
    fn pick_with<T>(
        &self,
        name: &str,
        get: impl Fn(&AgentFields) -> Option<Located<T>>,
    ) -> Option<Sourced<T>> {
        self.each().into_iter().find_map(|(fields, layer, prefix)| {
            get(fields).map(|located| Sourced {
                value: located.value,
                layer,
                at: located.at,
                path: child(&prefix, name),
            })
        })
    }

    /// The first layer's value of field `name`.
    fn pick<T: Clone>(
        &self,
        name: &str,
        get: fn(&AgentFields) -> &Option<Located<T>>,
    ) -> Option<Sourced<T>> {
        self.pick_with(name, |fields| get(fields).clone())
    }

    fn spec(
        &self,
        profile: Option<Sourced<String>>,
        bindings: &mut Bindings<'_>,
    ) -> Result<AgentSpec, ManifestError> {
        let agent = self.written.fields;
        let (Some(mut name), Some(mut slug)) = (agent.name.clone(), agent.slug.clone()) else {
            return Err(ManifestError::at(
                &agent.at,
                &child(&self.written.path, "name"),
                "required: the agent's name",
            ));
        };
        if let Some((renamed, reslug)) = &self.written.rename {
            name.value.clone_from(renamed);
            slug.clone_from(reslug);
        }
        let runtime = match &self.written.runtime {
            Some(runtime) => Some(runtime.clone()),
            None => self.pick("type", |f| &f.runtime),
        };
        let Some(runtime) = runtime else {
            let mut names = Runtime::names();
            names.sort_unstable();
            return Err(ManifestError::at(
                &agent.at,
                &child(&self.written.path, "type"),
                format!(
                    "required: one of {}, set on the agent, its profile or defaults",
                    names.join(", ")
                ),
            ));
        };
        let mut text = |field: &str, get: fn(&AgentFields) -> &Option<Located<String>>| {
            self.pick(field, get)
                .map(|s| interpolate(s, bindings))
                .transpose()
        };
        let prompt = text("prompt", |f| &f.prompt)?;
        let instructions = text("instructions", |f| &f.instructions)?;
        let instructions_file = text("instructions_file", |f| &f.instructions_file)?.map(|s| {
            let value = relative_to_file(&s.at, &s.value);
            Sourced {
                value,
                layer: s.layer,
                at: s.at,
                path: s.path,
            }
        });
        let repos = self.repos(bindings)?;
        let template_vars = self.template_vars(bindings)?;
        let list_of = |field: &str, get: fn(&AgentFields) -> &Option<LocatedList>| {
            self.pick_with(field, |f| {
                get(f).as_ref().map(|l| Located {
                    value: l.value.iter().map(|item| item.value.clone()).collect(),
                    at: l.at.clone(),
                })
            })
        };
        let worktree = self.pick("worktree", |f| &f.worktree);
        let placement = match worktree.as_ref().map(|w| &w.value) {
            None | Some(WorktreeKey::Own) => Placement::Worktree {
                group: slug.clone(),
            },
            Some(WorktreeKey::Group { slug, .. }) => Placement::Worktree {
                group: slug.clone(),
            },
            Some(WorktreeKey::Outside) => Placement::Outside,
        };
        Ok(AgentSpec {
            index: self.written.index,
            path: self.written.path.clone(),
            name,
            slug,
            runtime,
            profile,
            repos,
            prompt,
            template: self.pick("template", |f| &f.template),
            template_vars,
            instructions,
            instructions_file,
            ssh: self.pick("ssh", |f| &f.ssh),
            reuse_auth: self.pick("reuse_auth", |f| &f.reuse_auth),
            reuse_gh_auth: self.pick("reuse_gh_auth", |f| &f.reuse_gh_auth),
            seed_auth: self.pick("seed_auth", |f| &f.seed_auth),
            auto_trust: self.pick("auto_trust", |f| &f.auto_trust),
            background: self.pick("background", |f| &f.background),
            allow_setup_scripts: self.pick("allow_setup_scripts", |f| &f.allow_setup_scripts),
            identity: self.pick("identity", |f| &f.identity),
            aws: self.pick("aws", |f| &f.aws),
            max_cost: self.pick("max_cost", |f| &f.max_cost),
            notify: self.pick("notify", |f| &f.notify),
            on_exit: self.pick("on_exit", |f| &f.on_exit),
            on_complete: self.pick("on_complete", |f| &f.on_complete),
            on_fail: self.pick("on_fail", |f| &f.on_fail),
            worktree,
            placement,
            owns: list_of("owns", |f| &f.owns),
        })
    }

    /// `repo` or `repos`, whichever the first layer with either has, each entry interpolated.
    fn repos(
        &self,
        bindings: &mut Bindings<'_>,
    ) -> Result<Option<Sourced<Vec<String>>>, ManifestError> {
        let found = self.each().into_iter().find_map(|(fields, layer, prefix)| {
            if let Some(repo) = &fields.repo {
                let path = child(&prefix, "repo");
                Some((
                    vec![(repo.clone(), path.clone())],
                    repo.at.clone(),
                    layer,
                    path,
                ))
            } else {
                fields.repos.as_ref().map(|repos| {
                    let path = child(&prefix, "repos");
                    let items = repos
                        .value
                        .iter()
                        .enumerate()
                        .map(|(i, item)| (item.clone(), index(&path, i)))
                        .collect();
                    (items, repos.at.clone(), layer, path)
                })
            }
        });
        let Some((items, at, layer, path)) = found else {
            return Ok(None);
        };
        let mut repos = Vec::with_capacity(items.len());
        for (item, item_path) in items {
            repos.push(expand_at(&item.value, &item.at, &item_path, bindings)?);
        }
        Ok(Some(Sourced {
            value: repos,
            layer,
            at,
            path,
        }))
    }

    /// `template_vars`, each value interpolated.
    fn template_vars(
        &self,
        bindings: &mut Bindings<'_>,
    ) -> Result<Option<Sourced<Vec<TemplateVar>>>, ManifestError> {
        let Some(vars) = self.pick("template_vars", |f| &f.template_vars) else {
            return Ok(None);
        };
        let mut out = Vec::with_capacity(vars.value.len());
        for (i, var) in vars.value.iter().enumerate() {
            let value = expand_at(&var.value.value, &var.at, &index(&vars.path, i), bindings)?;
            out.push(TemplateVar {
                key: var.value.key.clone(),
                value,
            });
        }
        Ok(Some(Sourced {
            value: out,
            layer: vars.layer,
            at: vars.at,
            path: vars.path,
        }))
    }
}

fn interpolate(
    sourced: Sourced<String>,
    bindings: &mut Bindings<'_>,
) -> Result<Sourced<String>, ManifestError> {
    let value = expand_at(&sourced.value, &sourced.at, &sourced.path, bindings)?;
    Ok(Sourced { value, ..sourced })
}

fn expand_at(
    text: &str,
    at: &Place,
    path: &str,
    bindings: &mut Bindings<'_>,
) -> Result<String, ManifestError> {
    expand(text, |key| bindings.lookup(key))
        .map_err(|err| ManifestError::at(at, path, err.to_string()))
}

/// `path` as written in the file at `at`: relative to that file's folder unless absolute.
fn relative_to_file(at: &Place, path: &str) -> PathBuf {
    let path = Path::new(path);
    if path.is_absolute() {
        return path.to_path_buf();
    }
    match Path::new(&*at.file).parent() {
        Some(dir) => dir.join(path),
        None => path.to_path_buf(),
    }
}

/// Two group names that slug alike but are spelled differently are refused, not merged: the
/// person meant either one group or two, and berth will not guess which. An agent in its own
/// worktree spells its group with its name.
pub(super) fn check_groups<'a>(
    agents: impl IntoIterator<Item = &'a AgentSpec>,
) -> Result<(), ManifestError> {
    // Each group's slug, with the first spelling of it and that spelling's field.
    let mut groups: HashMap<&str, (&str, String)> = HashMap::new();
    for agent in agents {
        let Placement::Worktree { group } = &agent.placement else {
            continue;
        };
        let (spelled, at, path) = match &agent.worktree {
            Some(Sourced {
                value: WorktreeKey::Group { name, .. },
                at,
                path,
                ..
            }) => (name.as_str(), at, path.clone()),
            _ => (
                agent.name.value.as_str(),
                &agent.name.at,
                child(&agent.path, "name"),
            ),
        };
        match groups.get(group.as_str()) {
            Some((first, first_path)) if *first != spelled => {
                return Err(ManifestError::at(
                    at,
                    &path,
                    format!(
                        "worktree '{}' and '{}' ({first_path}) both slug to '{group}'; two names \
                         that slug alike are refused, not merged: spell the group one way",
                        printable(spelled),
                        printable(first)
                    ),
                ));
            }
            Some(_) => {}
            None => {
                groups.insert(group, (spelled, path));
            }
        }
    }
    Ok(())
}
