//! The agent fields of seed 001, which every fleet agent, pipeline step and stage agent takes:
//! read from an agent of the manifest, its `defaults`, or a profile. Each field is checked for
//! its type and form here; which layer wins, and what each field means on this machine, is
//! decided later. Container-only fields, the seed's rejected control fields and pipeline-only
//! fields (in a fleet, or on a stage's agent rather than the stage) are refused naming the field
//! and why. Pure.

use super::error::{Located, ManifestError, Place};
use super::tree::{Entry, Node, Value, printable};
use super::walk::{Walk, child, index, nearest};
use crate::orchestrator::runtime::Runtime;

/// Where a map of agent fields is written: it decides whether `name` and `profile` may be.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// An entry of a fleet's `agents`, or a pipeline's step: `name` is required.
    Agent,
    /// An entry of a pipeline stage's `agents`: `name` is required, and the stage fields belong to
    /// the stage.
    StageAgent,
    /// The manifest's `defaults`: no `name` (it would name every agent alike).
    Defaults,
    /// A pipeline's `defaults`: as [`Role::Defaults`], and the stage fields belong to a stage.
    PipelineDefaults,
    /// A profile file: neither `name` nor another `profile`.
    Profile,
}

/// The agent fields a manifest accepts, in the seed's order.
pub const FIELDS: &[&str] = &[
    "name",
    "profile",
    "type",
    "repo",
    "repos",
    "prompt",
    "template",
    "template_vars",
    "instructions",
    "instructions_file",
    "ssh",
    "reuse_auth",
    "reuse_gh_auth",
    "seed_auth",
    "auto_trust",
    "background",
    "allow_setup_scripts",
    "identity",
    "aws",
    "max_cost",
    "notify",
    "on_exit",
    "on_complete",
    "on_fail",
    "worktree",
    "owns",
];

/// A list of strings with the place of the list and of each entry.
pub type LocatedList = Located<Vec<Located<String>>>;

/// A git identity, `Name <email>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Identity {
    pub name: String,
    pub email: String,
}

/// One `key=value` of `template_vars`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TemplateVar {
    pub key: String,
    pub value: String,
}

/// What an agent's `worktree` key says.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WorktreeKey {
    /// `worktree = true`: its own worktree, named after the agent (the default, said aloud).
    Own,
    /// `worktree = "<group>"`: the worktree and branch every agent naming this group shares.
    Group { name: String, slug: String },
    /// `worktree = false`: a non-coding agent, run in the fleet's shared folder.
    Outside,
}

/// The agent fields as written in one map; each is unset (`None`) unless written there.
/// Booleans are tri-state: unset inherits, and an explicit `false` overrides an inherited `true`.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentFields {
    /// Where the map starts: an error about the agent as a whole points here.
    pub at: Place,
    pub name: Option<Located<String>>,
    /// The name's slug (set with `name`): the agent's worktree and branch component.
    pub slug: Option<String>,
    pub profile: Option<Located<String>>,
    /// The `type` field.
    pub runtime: Option<Located<Runtime>>,
    pub repo: Option<Located<String>>,
    pub repos: Option<LocatedList>,
    pub prompt: Option<Located<String>>,
    pub template: Option<Located<String>>,
    pub template_vars: Option<Located<Vec<Located<TemplateVar>>>>,
    pub instructions: Option<Located<String>>,
    pub instructions_file: Option<Located<String>>,
    pub ssh: Option<Located<bool>>,
    pub reuse_auth: Option<Located<bool>>,
    pub reuse_gh_auth: Option<Located<bool>>,
    pub seed_auth: Option<Located<bool>>,
    pub auto_trust: Option<Located<bool>>,
    pub background: Option<Located<bool>>,
    pub allow_setup_scripts: Option<Located<bool>>,
    pub identity: Option<Located<Identity>>,
    pub aws: Option<Located<String>>,
    /// An advisory budget in US dollars, as written (`5`, `2.50`).
    pub max_cost: Option<Located<String>>,
    /// The notification targets, from the comma-separated string.
    pub notify: Option<Located<Vec<String>>>,
    pub on_exit: Option<Located<String>>,
    pub on_complete: Option<Located<String>>,
    pub on_fail: Option<Located<String>>,
    pub worktree: Option<Located<WorktreeKey>>,
    /// Paths or globs the agent's worktree owns from the start (issue 21 enforces them).
    pub owns: Option<LocatedList>,
}

impl AgentFields {
    /// No field set: what a manifest without `defaults` has for them.
    pub fn empty(at: Place) -> AgentFields {
        AgentFields {
            at,
            name: None,
            slug: None,
            profile: None,
            runtime: None,
            repo: None,
            repos: None,
            prompt: None,
            template: None,
            template_vars: None,
            instructions: None,
            instructions_file: None,
            ssh: None,
            reuse_auth: None,
            reuse_gh_auth: None,
            seed_auth: None,
            auto_trust: None,
            background: None,
            allow_setup_scripts: None,
            identity: None,
            aws: None,
            max_cost: None,
            notify: None,
            on_exit: None,
            on_complete: None,
            on_fail: None,
            worktree: None,
            owns: None,
        }
    }
}

/// The agent fields of the map at `node`, whose field path is `path`.
pub fn read(
    walk: &Walk,
    node: &Node,
    path: &str,
    role: Role,
) -> Result<AgentFields, ManifestError> {
    let entries = walk.map(node, path)?;
    read_entries(walk, entries.iter(), walk.place(node.pos), path, role)
}

/// The agent fields of `entries`, part of the map starting at `at` whose field path is `path`: a
/// pipeline step is a map of agent fields and stage fields, and the stage takes its own.
pub fn read_entries<'e>(
    walk: &Walk,
    entries: impl Iterator<Item = &'e Entry>,
    at: Place,
    path: &str,
    role: Role,
) -> Result<AgentFields, ManifestError> {
    let mut fields = AgentFields::empty(at);
    for entry in entries {
        read_field(walk, entry, &child(path, &entry.key), role, &mut fields)?;
    }
    if let (Some(_), Some(repos)) = (&fields.repo, &fields.repos) {
        return Err(ManifestError::at(
            &repos.at,
            &child(path, "repos"),
            "repo and repos are both set; list every repository under repos",
        ));
    }
    Ok(fields)
}

fn read_field(
    walk: &Walk,
    entry: &Entry,
    path: &str,
    role: Role,
    f: &mut AgentFields,
) -> Result<(), ManifestError> {
    let v = &entry.value;
    match entry.key.as_str() {
        "name" => {
            match role {
                Role::Agent | Role::StageAgent => {}
                Role::Defaults | Role::PipelineDefaults => {
                    return Err(walk.error(
                        entry.key_pos,
                        path,
                        "an agent's name cannot be a default; name each agent under agents",
                    ));
                }
                Role::Profile => {
                    return Err(walk.error(
                        entry.key_pos,
                        path,
                        "a profile holds fields for agents, not an agent's name",
                    ));
                }
            }
            let name = walk.text(v, path)?;
            let slug = crate::slug::slug(&name.value)
                .map_err(|e| walk.error(v.pos, path, e.to_string()))?;
            f.name = Some(name);
            f.slug = Some(slug);
        }
        "profile" => {
            if role == Role::Profile {
                return Err(walk.error(
                    entry.key_pos,
                    path,
                    "a profile cannot name another profile",
                ));
            }
            f.profile = Some(profile_name(walk, v, path)?);
        }
        "type" => f.runtime = Some(runtime(walk, v, path)?),
        "repo" => f.repo = Some(walk.text(v, path)?),
        "repos" => {
            let repos = walk.strings(v, path)?;
            if repos.value.is_empty() {
                return Err(walk.error(v.pos, path, "lists no repository"));
            }
            f.repos = Some(repos);
        }
        "prompt" => f.prompt = Some(walk.string(v, path)?),
        "template" => f.template = Some(walk.text(v, path)?),
        "template_vars" => f.template_vars = Some(template_vars(walk, v, path)?),
        "instructions" => f.instructions = Some(walk.string(v, path)?),
        "instructions_file" => f.instructions_file = Some(walk.text(v, path)?),
        "ssh" => f.ssh = Some(walk.boolean(v, path)?),
        "reuse_auth" => f.reuse_auth = Some(walk.boolean(v, path)?),
        "reuse_gh_auth" => f.reuse_gh_auth = Some(walk.boolean(v, path)?),
        "seed_auth" => f.seed_auth = Some(walk.boolean(v, path)?),
        "auto_trust" => f.auto_trust = Some(walk.boolean(v, path)?),
        "background" => f.background = Some(walk.boolean(v, path)?),
        "allow_setup_scripts" => f.allow_setup_scripts = Some(walk.boolean(v, path)?),
        "identity" => f.identity = Some(identity(walk, v, path)?),
        "aws" => f.aws = Some(walk.text(v, path)?),
        "max_cost" => f.max_cost = Some(max_cost(walk, v, path)?),
        "notify" => f.notify = Some(notify(walk, v, path)?),
        "on_exit" => f.on_exit = Some(walk.text(v, path)?),
        "on_complete" => f.on_complete = Some(walk.text(v, path)?),
        "on_fail" => f.on_fail = Some(walk.text(v, path)?),
        "worktree" => f.worktree = Some(worktree(walk, v, path)?),
        "owns" => f.owns = Some(walk.strings(v, path)?),
        key @ ("depends_on" | "models" | "judge" | "pipeline")
            if matches!(role, Role::StageAgent | Role::PipelineDefaults) =>
        {
            let on = if role == Role::StageAgent {
                "one of its agents"
            } else {
                "defaults"
            };
            return Err(walk.error(
                entry.key_pos,
                path,
                format!("a stage field: write {key} on the stage, not on {on}"),
            ));
        }
        key => {
            let message = refusal(key);
            return Err(match message {
                Some(message) => walk.error(entry.key_pos, path, message),
                None => walk.unknown(entry, path, FIELDS),
            });
        }
    }
    Ok(())
}

/// Why a field the seed knows is refused here, or `None` for a field nobody knows.
pub fn refusal(key: &str) -> Option<String> {
    let container = |detail: &str| {
        Some(format!(
            "container-only field, refused: berth runs agents as you in worktrees, not in \
             containers, so {detail}"
        ))
    };
    match key {
        "docker" => container("there is no container to give a Docker-in-Docker sidecar"),
        "docker_socket" => container("there is no container to hand the Docker socket to"),
        "network" => {
            container("there is no container network to attach; agents use this machine's")
        }
        "memory" | "cpus" | "pids_limit" => {
            container("there is no container to limit; set limits on the session itself")
        }
        "ephemeral_auth" => container(
            "there is no container to keep throwaway auth in; see seed_auth and reuse_auth",
        ),
        "on_failure" => Some(
            "unsupported control field, refused rather than ignored; for a command run when the \
             agent fails, use on_fail"
                .to_owned(),
        ),
        "retry" | "when" | "outputs" => Some(
            "unsupported control field, refused rather than ignored: each agent runs once, \
             unconditionally"
                .to_owned(),
        ),
        "depends_on" | "models" | "judge" | "pipeline" => Some(
            "a pipeline field, refused in a fleet: a fleet starts all its agents together \
             (pipelines come with git berth pipeline)"
                .to_owned(),
        ),
        _ => None,
    }
}

/// A profile's name is the stem of its file, so it must be a plain file name.
fn profile_name(walk: &Walk, node: &Node, path: &str) -> Result<Located<String>, ManifestError> {
    let name = walk.text(node, path)?;
    match crate::slug::slug(&name.value) {
        Ok(slug) if slug == name.value => Ok(name),
        _ => Err(walk.error(
            node.pos,
            path,
            format!(
                "'{}' is not a profile name: use letters, digits, '.', '_' and '-'",
                printable(&name.value)
            ),
        )),
    }
}

/// The runtimes by name, in alphabetical order, as errors list them.
fn runtime_names() -> Vec<&'static str> {
    let mut names = Runtime::names();
    names.sort_unstable();
    names
}

pub(super) fn runtime(
    walk: &Walk,
    node: &Node,
    path: &str,
) -> Result<Located<Runtime>, ManifestError> {
    let names = runtime_names();
    let wanted = format!("one of {}", names.join(", "));
    let Value::Str(text) = &node.value else {
        return Err(walk.mismatch(node, path, &wanted));
    };
    match Runtime::ALL.into_iter().find(|r| r.name() == text) {
        Some(runtime) => Ok(walk.located(node, runtime)),
        None => {
            let mut message = format!("expected {wanted}, found '{}'", printable(text));
            if let Some(near) = nearest(text, names.iter().copied()) {
                message.push_str(&format!("; did you mean '{near}'?"));
            }
            Err(walk.error(node.pos, path, message))
        }
    }
}

fn template_vars(
    walk: &Walk,
    node: &Node,
    path: &str,
) -> Result<Located<Vec<Located<TemplateVar>>>, ManifestError> {
    let items = match &node.value {
        Value::List(items) => items,
        _ => return Err(walk.mismatch(node, path, "a list of 'key=value' strings")),
    };
    let mut vars = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let item_path = index(path, i);
        let text = walk.string(item, &item_path)?;
        match text.value.split_once('=') {
            Some((key, value)) if !key.trim().is_empty() => vars.push(Located {
                value: TemplateVar {
                    key: key.trim().to_owned(),
                    value: value.to_owned(),
                },
                at: text.at,
            }),
            _ => {
                return Err(walk.error(
                    item.pos,
                    &item_path,
                    format!("expected 'key=value', found '{}'", printable(&text.value)),
                ));
            }
        }
    }
    Ok(walk.located(node, vars))
}

fn identity(walk: &Walk, node: &Node, path: &str) -> Result<Located<Identity>, ManifestError> {
    let text = walk.string(node, path)?;
    parse_identity(&text.value)
        .map(|identity| walk.located(node, identity))
        .ok_or_else(|| {
            walk.error(
                node.pos,
                path,
                format!(
                    "expected a git identity 'Name <email>' (like 'Ada Lovelace <ada@example.org>'), \
                     found '{}'",
                    printable(&text.value)
                ),
            )
        })
}

/// `Name <email>`: a name, then one address in angle brackets with one `@` and no spaces; no
/// line breaks or stray brackets anywhere, since git would write them into every commit.
pub fn parse_identity(text: &str) -> Option<Identity> {
    let text = text.trim();
    if text.chars().any(char::is_control) {
        return None;
    }
    let inner = text.strip_suffix('>')?;
    let (name, email) = inner.rsplit_once('<')?;
    let name = name.trim();
    let bad_name = name.is_empty() || name.contains(['<', '>']);
    let (local, domain) = email.split_once('@')?;
    let bad_email = local.is_empty()
        || domain.is_empty()
        || domain.contains('@')
        || email.contains(|c: char| c.is_whitespace() || c == '<' || c == '>');
    if bad_name || bad_email {
        return None;
    }
    Some(Identity {
        name: name.to_owned(),
        email: email.to_owned(),
    })
}

/// A budget in US dollars: a number, or a string holding one (with an optional `$`).
fn max_cost(walk: &Walk, node: &Node, path: &str) -> Result<Located<String>, ManifestError> {
    let wanted = "a budget in US dollars, like 5 or \"2.50\"";
    let text = match &node.value {
        Value::Str(s) => s.trim().to_owned(),
        Value::Int(i) => i.to_string(),
        Value::Float(x) => x.to_string(),
        _ => return Err(walk.mismatch(node, path, wanted)),
    };
    let amount = text.strip_prefix('$').unwrap_or(&text);
    match amount.parse::<f64>() {
        Ok(x) if x.is_finite() && x >= 0.0 && !amount.starts_with('+') => {
            Ok(walk.located(node, amount.to_owned()))
        }
        _ => Err(walk.mismatch(node, path, wanted)),
    }
}

/// Comma-separated notification targets; what each target does is the fleet's to say.
fn notify(walk: &Walk, node: &Node, path: &str) -> Result<Located<Vec<String>>, ManifestError> {
    let text = walk.text(node, path)?;
    let targets: Vec<String> = text.value.split(',').map(|t| t.trim().to_owned()).collect();
    if targets.iter().any(String::is_empty) {
        return Err(walk.error(
            node.pos,
            path,
            format!(
                "an empty target in '{}'; separate targets with single commas",
                printable(&text.value)
            ),
        ));
    }
    Ok(walk.located(node, targets))
}

fn worktree(walk: &Walk, node: &Node, path: &str) -> Result<Located<WorktreeKey>, ManifestError> {
    let key = match &node.value {
        Value::Bool(true) => WorktreeKey::Own,
        Value::Bool(false) => WorktreeKey::Outside,
        Value::Str(name) => {
            let slug =
                crate::slug::slug(name).map_err(|e| walk.error(node.pos, path, e.to_string()))?;
            WorktreeKey::Group {
                name: name.clone(),
                slug,
            }
        }
        _ => {
            return Err(walk.mismatch(
                node,
                path,
                "a worktree group name, or false to run outside any worktree",
            ));
        }
    };
    Ok(walk.located(node, key))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_identity_is_a_name_and_one_address_in_angle_brackets() {
        let ada = parse_identity("Ada Lovelace <ada@example.org>").expect("valid");
        assert_eq!(ada.name, "Ada Lovelace");
        assert_eq!(ada.email, "ada@example.org");
        for bad in [
            "ada@example.org",
            "<ada@example.org>",
            "Ada <ada>",
            "Ada <a@b@c>",
            "Ada <ada @example.org>",
            "Ada <@example.org>",
            "Ada <ada@>",
            "Ada> <ada@example.org>",
            "Ada\n <ada@example.org>",
            "Ada <ada@example.org> trailing",
        ] {
            assert!(parse_identity(bad).is_none(), "{bad:?} should be refused");
        }
    }

    #[test]
    fn every_refused_seed_field_says_why() {
        for key in [
            "docker",
            "docker_socket",
            "network",
            "memory",
            "cpus",
            "pids_limit",
            "ephemeral_auth",
        ] {
            let why = refusal(key).expect("refused");
            assert!(
                why.starts_with("container-only field, refused"),
                "{key}: {why}"
            );
        }
        for key in ["on_failure", "retry", "when", "outputs"] {
            let why = refusal(key).expect("refused");
            assert!(why.starts_with("unsupported control field"), "{key}: {why}");
        }
        for key in ["depends_on", "models", "judge", "pipeline"] {
            assert!(
                refusal(key)
                    .expect("refused")
                    .starts_with("a pipeline field")
            );
        }
        assert_eq!(refusal("promt"), None);
    }
}
