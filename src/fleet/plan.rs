//! What `fleet up` will do, worked out before anything is made: every agent with its runtime,
//! worktree, branch, folder, command line and environment, and what each manifest field became
//! on this machine. `--dry-run` prints it; `up` carries it out. Fields berth cannot honour here
//! are refused with the manifest's file, line, column and field. [`meanings`] is pure.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;

use crate::manifest::{AgentSpec, ManifestError, Placement, Sourced, WorktreeKey};
use crate::names;
use crate::orchestrator::runtime::Runtime;

/// One agent of the plan.
#[derive(Debug, Clone, Serialize)]
pub struct PlannedAgent {
    /// Its name in the manifest.
    pub name: String,
    pub slug: String,
    /// Its name among every agent berth launched here: `<fleet>/<slug>`.
    pub agent: String,
    pub runtime: String,
    /// `headless` (`background = true`) or `tab`.
    pub mode: &'static str,
    /// The managed worktree it works in (`<fleet>/<group>`); none outside any checkout.
    pub worktree: Option<String>,
    pub branch: Option<String>,
    /// Where it works: its worktree's folder (as it will be made), or the fleet's shared folder.
    pub path: PathBuf,
    /// Its worktree in each repository it works in (`repo` / `repos`), the first being `path`;
    /// empty outside any worktree.
    pub repos: Vec<super::clones::RepoAt>,
    /// The runtime's command line, the norms left out (`<norms>`).
    pub command: Vec<String>,
    /// What the fleet sets in its environment, beside the identity every agent gets.
    pub env: BTreeMap<String, String>,
    /// What the fleet takes out of the environment it inherits.
    pub unset: Vec<String>,
    /// A headless agent's log.
    pub log: Option<PathBuf>,
    pub prompt: Option<String>,
    /// Its `max_cost` in US dollars: advisory, as no runtime berth starts takes a budget.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_cost: Option<String>,
    /// Every field the manifest set for it, and what it became.
    pub fields: Vec<Field>,
    /// Text added to its norms.
    #[serde(skip)]
    pub norms: String,
    #[serde(skip)]
    pub runtime_kind: Runtime,
    #[serde(skip)]
    pub on_exit: Option<String>,
    #[serde(skip)]
    pub on_complete: Option<String>,
    #[serde(skip)]
    pub on_fail: Option<String>,
    /// Its `notify` targets that run when it ends (`bell`, `notify-send`).
    #[serde(skip)]
    pub notify: Vec<String>,
    /// The worktree it makes runs no setup hook (`allow_setup_scripts = false`).
    #[serde(skip)]
    pub no_setup: bool,
    /// What its worktree owns from the start (`owns`), relative to the repository's root.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub owns: Vec<String>,
    /// The folder-trust record `auto_trust` writes before it starts.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trust: Option<crate::orchestrator::folder_trust::Grant>,
}

/// A manifest field of one agent and what it became.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Field {
    /// Its path in its file (`agents[1].ssh`, `defaults.type`).
    pub field: String,
    pub value: String,
    /// Where it was written: `agent`, `defaults` or `profile <name>`, and `file:line:col`.
    pub from: String,
    /// What it means on this machine.
    pub became: String,
}

/// What the fields of one agent make of its launch.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Effects {
    pub fields: Vec<Field>,
    pub env: BTreeMap<String, String>,
    pub unset: Vec<String>,
    /// Norms text from `instructions` and `instructions_file`.
    pub instructions: Vec<String>,
    pub background: bool,
    /// `allow_setup_scripts = false`: the worktrees it makes run no setup hook.
    pub no_setup: bool,
    /// The `notify` targets kept: each runs when the agent ends.
    pub notify: Vec<String>,
    /// Its prompt: its `template`'s text filled in, then its own `prompt`.
    pub prompt: Option<String>,
    /// What `fleet up` warns of: a field honoured in part on this machine.
    pub warnings: Vec<String>,
    /// `owns`: the paths its worktree owns from the start, as patterns relative to the
    /// repository's root.
    pub owns: Vec<String>,
    /// `auto_trust = true`: the runtime's folder-trust record is written before it starts;
    /// the index in `fields` of its field, whose meaning depends on the agent's folder.
    pub auto_trust: Option<usize>,
}

/// What [`meanings`] needs to know of this machine.
pub struct Facts<'a> {
    /// Every way to name this repository (its origin URL, its checkout's and common dir's
    /// paths): a `repo` naming one of them means this repository.
    pub this_repo: &'a [String],
    /// The fleet's folder, where a withheld GitHub login gets an empty config folder.
    pub fleet_dir: &'a Path,
    /// Reads an `instructions_file`.
    pub read: &'a dyn Fn(&Path) -> Result<String, String>,
    /// Whether a program is on PATH (`notify-send`).
    pub installed: &'a dyn Fn(&str) -> bool,
    /// Finds a prompt template by name ([`super::templates::find`]).
    pub template: &'a dyn Fn(&str) -> Result<super::templates::Template, String>,
    /// The manifest's vars and inputs, which a template's `${key}` may read.
    pub bindings: &'a [crate::manifest::Binding],
    /// Every agent runs headless, whatever its `background` says (a pipeline's agents).
    pub headless: bool,
}

fn refuse<T>(sourced: &Sourced<T>, message: impl Into<String>) -> ManifestError {
    ManifestError::at(&sourced.at, &sourced.path, message)
}

/// What each field of `spec` becomes for an agent that runs as you in a worktree on this
/// machine, or the refusal of a field berth cannot honour here.
pub fn meanings(spec: &AgentSpec, facts: &Facts<'_>) -> Result<Effects, ManifestError> {
    let mut fx = Effects::default();
    let mut fields = Vec::new();
    // Each field noted, and its index among them.
    let mut note = |field: &str, value: String, layer: String, became: String| {
        fields.push(Field {
            field: field.to_owned(),
            value,
            from: layer,
            became,
        });
        fields.len() - 1
    };
    let from =
        |layer: &crate::manifest::Layer, at: &crate::manifest::Place| format!("{layer} ({at})");
    note(
        &spec.runtime.path,
        spec.runtime.value.name().to_owned(),
        from(&spec.runtime.layer, &spec.runtime.at),
        format!("runtime {}", spec.runtime.value.name()),
    );
    let background = facts.headless || spec.background.as_ref().is_some_and(|b| b.value);
    if let Some(t) = &spec.template {
        let filled = template(t, spec, facts)?;
        note(
            &t.path,
            t.value.clone(),
            from(&t.layer, &t.at),
            format!(
                "its prompt's text, from {}{}",
                filled.1,
                if spec.prompt.is_some() {
                    ", its own prompt after it"
                } else {
                    ""
                }
            ),
        );
        fx.prompt = Some(match &spec.prompt {
            Some(p) => format!("{}\n\n{}", filled.0.trim_end(), p.value),
            None => filled.0.trim_end().to_owned(),
        });
    } else {
        fx.prompt = spec.prompt.as_ref().map(|p| p.value.clone());
    }
    if let Some(t) = &spec.template_vars {
        if spec.template.is_none() {
            return Err(refuse(
                t,
                "template_vars fill a template's ${key}s, and no template is set: set template, \
                 or leave template_vars out",
            ));
        }
        note(
            &t.path,
            t.value
                .iter()
                .map(|v| format!("{}={}", v.key, v.value))
                .collect::<Vec<_>>()
                .join(", "),
            from(&t.layer, &t.at),
            "filled into its template".to_owned(),
        );
    }
    if let Some(b) = &spec.background {
        note(
            &b.path,
            b.value.to_string(),
            from(&b.layer, &b.at),
            if background {
                "headless, detached, in the runtime's non-interactive mode; output in its log"
                    .to_owned()
            } else {
                "in a terminal tab".to_owned()
            },
        );
    }
    if let Some(p) = &spec.prompt {
        note(
            &p.path,
            p.value.clone(),
            from(&p.layer, &p.at),
            if spec.template.is_some() {
                "appended to its template's text".to_owned()
            } else if background {
                "the task it does before it exits".to_owned()
            } else {
                "its first message".to_owned()
            },
        );
    } else if background && spec.template.is_none() {
        return Err(ManifestError::at(
            &spec.name.at,
            &format!("agents[{}].prompt", spec.index),
            "required for a background agent: the task it does before it exits",
        ));
    }
    if let Some(repos) = &spec.repos {
        let became: Vec<String> = repos
            .value
            .iter()
            .map(|repo| {
                if facts.this_repo.iter().any(|r| same_repo(r, repo)) {
                    format!("{repo}: this repository")
                } else {
                    format!("{repo}: another repository, cloned once into berth's clones folder")
                }
            })
            .collect();
        let became = if spec.placement == Placement::Outside {
            "nothing: with no worktree the agent runs in the fleet's shared folder, and no \
             repository is checked out for it"
                .to_owned()
        } else if repos.value.len() > 1 {
            format!(
                "a worktree in each, starting in the first; {} lists them; {}",
                names::env::AGENT_REPOS,
                became.join("; ")
            )
        } else {
            became.join("; ")
        };
        note(
            &repos.path,
            repos.value.join(", "),
            from(&repos.layer, &repos.at),
            became,
        );
    }
    if let Some(w) = &spec.worktree {
        let (value, became) = match (&w.value, &spec.placement) {
            (WorktreeKey::Own, _) => ("true".to_owned(), "a worktree of its own".to_owned()),
            (WorktreeKey::Group { name, .. }, Placement::Worktree { group }) => (
                name.clone(),
                format!("the worktree of group {group}, shared with its other agents"),
            ),
            (_, _) => (
                "false".to_owned(),
                "no worktree: it runs in the fleet's shared folder".to_owned(),
            ),
        };
        note(&w.path, value, from(&w.layer, &w.at), became);
    }
    if let Some(i) = &spec.identity {
        let (name, email) = (&i.value.name, &i.value.email);
        for key in ["GIT_AUTHOR_NAME", "GIT_COMMITTER_NAME"] {
            fx.env.insert(key.to_owned(), name.clone());
        }
        for key in ["GIT_AUTHOR_EMAIL", "GIT_COMMITTER_EMAIL"] {
            fx.env.insert(key.to_owned(), email.clone());
        }
        note(
            &i.path,
            format!("{name} <{email}>"),
            from(&i.layer, &i.at),
            "its commits' author and committer (GIT_AUTHOR_*, GIT_COMMITTER_*)".to_owned(),
        );
    }
    if let Some(a) = &spec.aws {
        fx.env.insert("AWS_PROFILE".to_owned(), a.value.clone());
        note(
            &a.path,
            a.value.clone(),
            from(&a.layer, &a.at),
            "AWS_PROFILE".to_owned(),
        );
    }
    if let Some(s) = &spec.ssh {
        let became = if s.value {
            "your SSH agent, as every local process has it".to_owned()
        } else {
            fx.unset.push("SSH_AUTH_SOCK".to_owned());
            "no SSH agent: SSH_AUTH_SOCK is taken out".to_owned()
        };
        note(&s.path, s.value.to_string(), from(&s.layer, &s.at), became);
    }
    if let Some(g) = &spec.reuse_gh_auth {
        let became = if g.value {
            "your GitHub CLI login, as every local process has it".to_owned()
        } else {
            fx.unset.push("GH_TOKEN".to_owned());
            fx.unset.push("GITHUB_TOKEN".to_owned());
            let empty = facts.fleet_dir.join(format!("gh-{}", spec.slug));
            fx.env
                .insert("GH_CONFIG_DIR".to_owned(), empty.display().to_string());
            format!(
                "no GitHub login: GH_TOKEN and GITHUB_TOKEN taken out, GH_CONFIG_DIR={}",
                empty.display()
            )
        };
        note(&g.path, g.value.to_string(), from(&g.layer, &g.at), became);
    }
    for auth in [&spec.reuse_auth, &spec.seed_auth].into_iter().flatten() {
        if !auth.value {
            return Err(refuse(
                auth,
                "false cannot be honoured: the agent runs as you, and its runtime reads your own \
                 login, which berth cannot withhold; leave it out",
            ));
        }
        note(
            &auth.path,
            "true".to_owned(),
            from(&auth.layer, &auth.at),
            "your own login, as every local process has it".to_owned(),
        );
    }
    if let Some(i) = &spec.instructions {
        fx.instructions.push(i.value.clone());
        note(
            &i.path,
            i.value.clone(),
            from(&i.layer, &i.at),
            "appended to its worktree norms".to_owned(),
        );
    }
    if let Some(f) = &spec.instructions_file {
        let text = (facts.read)(&f.value)
            .map_err(|why| refuse(f, format!("cannot read {}: {why}", f.value.display())))?;
        fx.instructions.push(text);
        note(
            &f.path,
            f.value.display().to_string(),
            from(&f.layer, &f.at),
            "its text appended to its worktree norms".to_owned(),
        );
    }
    if let Some(c) = &spec.max_cost {
        note(
            &c.path,
            format!("${}", c.value),
            from(&c.layer, &c.at),
            "advisory, shown by fleet ls: no runtime berth starts takes a budget, so nothing \
             enforces it"
                .to_owned(),
        );
    }
    if let Some(a) = &spec.allow_setup_scripts {
        if !a.value {
            fx.no_setup = true;
            note(
                &a.path,
                "false".to_owned(),
                from(&a.layer, &a.at),
                "the worktrees it makes run no setup hook (`git berth setup` runs it later)"
                    .to_owned(),
            );
        } else {
            note(
                &a.path,
                "true".to_owned(),
                from(&a.layer, &a.at),
                "setup hooks run, once `git berth trust` has trusted them".to_owned(),
            );
        }
    }
    for h in [&spec.on_exit, &spec.on_complete, &spec.on_fail]
        .into_iter()
        .flatten()
    {
        note(
            &h.path,
            h.value.clone(),
            from(&h.layer, &h.at),
            if background {
                "run with sh -c in its folder when it ends, with BERTH_AGENT_NAME and \
                 BERTH_AGENT_EXIT"
            } else {
                "run with sh -c in its folder, in its tab, once the runtime exits there, with \
                 BERTH_AGENT_NAME and BERTH_AGENT_EXIT"
            }
            .to_owned(),
        );
    }
    if let Some(t) = &spec.auto_trust {
        let at = note(
            &t.path,
            t.value.to_string(),
            from(&t.layer, &t.at),
            if t.value {
                // Where the record goes depends on the folder: `up`'s plan writes it in.
                String::new()
            } else {
                "the runtime asks its folder-trust question as usual".to_owned()
            },
        );
        fx.auto_trust = t.value.then_some(at);
    }
    if let Some(n) = &spec.notify {
        notify(n, facts, &mut fx)?;
        let became = if fx.notify.is_empty() {
            "nothing: no target of it runs here".to_owned()
        } else {
            format!(
                "when it ends, {}",
                fx.notify
                    .iter()
                    .map(|t| match (t.as_str(), background) {
                        ("bell", true) => "a terminal bell in its log",
                        ("bell", false) => "a terminal bell in its tab",
                        _ => "notify-send",
                    })
                    .collect::<Vec<_>>()
                    .join(" and ")
            )
        };
        note(&n.path, n.value.join(", "), from(&n.layer, &n.at), became);
    }
    if let Some(o) = &spec.owns {
        if spec.placement == Placement::Outside {
            return Err(refuse(
                o,
                "an agent outside any worktree owns nothing: give it a worktree, or leave owns out",
            ));
        }
        for pattern in &o.value {
            fx.owns
                .push(owned_pattern(pattern).map_err(|why| refuse(o, why))?);
        }
        note(
            &o.path,
            o.value.join(", "),
            from(&o.layer, &o.at),
            "checked against the other worktrees' owns; its worktree owns them before it starts"
                .to_owned(),
        );
    }
    fx.background = background;
    fx.fields = fields;
    Ok(fx)
}

/// A path an agent's `owns` names, as a pattern relative to the repository's root: `./` and a
/// leading `/` dropped; one that leaves the repository (`..`) or is empty is refused.
pub fn owned_pattern(written: &str) -> Result<String, String> {
    let mut p = written.trim();
    while let Some(rest) = p.strip_prefix("./") {
        p = rest;
    }
    let p = p.trim_start_matches('/');
    if p.is_empty() || p == "." {
        return Err(format!(
            "'{written}' names the whole repository: name the files or folders it owns"
        ));
    }
    if p.contains(['\t', '\n', '\r']) {
        return Err(format!(
            "'{}' holds a tab or a line break: name paths without them",
            written.escape_debug()
        ));
    }
    if p.split('/').any(|part| part == "..") {
        return Err(format!(
            "'{written}' leaves the repository: name paths inside it"
        ));
    }
    Ok(p.to_owned())
}

/// The text of the template `t` names, each `${key}` filled from `template_vars` (first) or the
/// manifest's vars, and where it was found. A template not found, or a key with no value, is
/// refused at `template`.
fn template(
    t: &Sourced<String>,
    spec: &AgentSpec,
    facts: &Facts<'_>,
) -> Result<(String, String), ManifestError> {
    let found = (facts.template)(&t.value).map_err(|why| refuse(t, why))?;
    let vars = spec
        .template_vars
        .as_ref()
        .map_or(&[][..], |v| &v.value[..]);
    let text = crate::manifest::interpolate::expand(&found.text, |key| {
        vars.iter()
            .find(|v| v.key == key)
            .map(|v| v.value.clone())
            .or_else(|| {
                facts
                    .bindings
                    .iter()
                    .find(|b| b.key == key)
                    .map(|b| b.value.clone())
            })
            .ok_or_else(|| format!("no template_vars entry or var is named '{key}'"))
    })
    .map_err(|why| refuse(t, format!("template '{}' ({}): {why}", t.value, found.from)))?;
    Ok((text, found.from))
}

/// The `notify` targets that run when the agent ends, into `fx`: `bell` and `notify-send`
/// (skipped with a warning where it is not installed). An unknown target is refused.
fn notify(
    n: &Sourced<Vec<String>>,
    facts: &Facts<'_>,
    fx: &mut Effects,
) -> Result<(), ManifestError> {
    for target in &n.value {
        match target.as_str() {
            "bell" => {}
            "notify-send" if !(facts.installed)("notify-send") => {
                fx.warnings.push(format!(
                    "{}: notify-send is not installed, so that target is skipped",
                    n.path
                ));
                continue;
            }
            "notify-send" => {}
            other => {
                return Err(refuse(
                    n,
                    format!(
                        "unknown target '{other}': the targets are bell and notify-send, \
                         comma-separated"
                    ),
                ));
            }
        }
        if !fx.notify.contains(target) {
            fx.notify.push(target.clone());
        }
    }
    Ok(())
}

/// Whether `given` (a manifest's `repo`) names the repository `known` names: the same text,
/// or the same URL up to a trailing `.git` or `/`.
fn same_repo(known: &str, given: &str) -> bool {
    let norm = |s: &str| {
        let s = s.trim().trim_end_matches('/');
        s.strip_suffix(".git").unwrap_or(s).to_owned()
    };
    norm(known) == norm(given)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::manifest::{self, Files, Infer, InferFrom};

    fn spec(yaml: &str) -> Result<(AgentSpec, Vec<crate::manifest::Binding>), ManifestError> {
        let m = manifest::parse("f.yaml", yaml)?;
        let files: &dyn Files = &|_: &Path| Ok(None);
        let infer: &dyn Infer = &|_: InferFrom| Err("no".to_owned());
        let ctx = manifest::Context {
            vars: &[],
            fleet_dir: "/f/shared",
            config_home: None,
        };
        let mut resolved = manifest::resolve(&m, &ctx, files, infer)?;
        Ok((resolved.agents.remove(0), resolved.bindings))
    }

    fn effects(yaml: &str) -> Result<Effects, ManifestError> {
        let read: &dyn Fn(&Path) -> Result<String, String> = &|_| Ok("read".to_owned());
        let (spec, bindings) = spec(yaml)?;
        meanings(
            &spec,
            &Facts {
                this_repo: &["git@example.org:me/app.git".to_owned()],
                fleet_dir: Path::new("/f"),
                read,
                installed: &|_| false,
                template: &|name| {
                    crate::fleet::templates::find(name, Some(Path::new("/c")), &|_| Ok(None))
                },
                bindings: &bindings,
                headless: false,
            },
        )
    }

    #[test]
    fn withheld_ssh_and_github_login_are_taken_out_and_an_identity_signs_commits() {
        let fx = effects(
            "name: f\nagents:\n  - name: a\n    type: shell\n    ssh: false\n    \
             reuse_gh_auth: false\n    identity: Ada <ada@example.org>\n    aws: dev\n",
        )
        .unwrap();
        assert_eq!(fx.unset, ["SSH_AUTH_SOCK", "GH_TOKEN", "GITHUB_TOKEN"]);
        assert_eq!(fx.env["GH_CONFIG_DIR"], "/f/gh-a");
        assert_eq!(fx.env["GIT_COMMITTER_EMAIL"], "ada@example.org");
        assert_eq!(fx.env["AWS_PROFILE"], "dev");
        let ssh = fx
            .fields
            .iter()
            .find(|f| f.field == "agents[0].ssh")
            .unwrap();
        assert!(ssh.from.starts_with("agent (f.yaml:5:"), "{}", ssh.from);
    }

    #[test]
    fn a_login_berth_cannot_withhold_is_refused_where_it_is_written() {
        let err = effects(
            "name: f\ndefaults:\n  reuse_auth: false\nagents:\n  - name: a\n    type: shell\n",
        )
        .unwrap_err();
        assert!(
            err.to_string()
                .starts_with("f.yaml:3:15: defaults.reuse_auth: false cannot"),
            "{err}"
        );
    }

    #[test]
    fn a_background_agent_needs_a_prompt_and_an_interactive_ones_end_commands_run_in_its_tab() {
        let err = effects("name: f\nagents:\n  - name: a\n    type: shell\n    background: true\n")
            .unwrap_err();
        assert!(
            err.to_string().contains("agents[0].prompt: required"),
            "{err}"
        );
        let fx =
            effects("name: f\nagents:\n  - name: a\n    type: shell\n    on_exit: echo\n").unwrap();
        assert!(
            fx.fields
                .iter()
                .any(|f| f.field.ends_with("on_exit") && f.became.contains("in its tab")),
            "{fx:?}"
        );
        let fx = effects(
            "name: f\nagents:\n  - name: a\n    type: shell\n    background: true\n    \
             prompt: exit 1\n    on_fail: echo failed\n",
        )
        .unwrap();
        assert!(fx.background);
    }

    #[test]
    fn notify_keeps_the_bell_skips_a_missing_notify_send_and_refuses_an_unknown_target() {
        let agent = "name: f\nagents:\n  - name: a\n    type: shell\n    background: true\n    \
                     prompt: x\n    notify: ";
        let fx = effects(&format!("{agent}bell, notify-send\n")).unwrap();
        assert_eq!(fx.notify, ["bell"]);
        assert!(
            fx.warnings[0].contains("notify-send is not installed"),
            "{:?}",
            fx.warnings
        );
        let err = effects(&format!("{agent}bell, pager\n")).unwrap_err();
        assert!(
            err.to_string()
                .contains("agents[0].notify: unknown target 'pager'"),
            "{err}"
        );
        let fx =
            effects("name: f\nagents:\n  - name: a\n    type: shell\n    notify: bell\n").unwrap();
        assert_eq!(fx.notify, ["bell"]);
    }

    #[test]
    fn repos_of_an_agent_outside_any_worktree_check_nothing_out() {
        let fx = effects(
            "name: f\nagents:\n  - name: a\n    type: shell\n    worktree: false\n    repos: [git@example.org:me/web.git]\n",
        )
        .expect("accepted");
        let repos = fx.fields.iter().find(|f| f.field.ends_with("repos"));
        assert!(
            repos.is_some_and(|f| f.became.starts_with("nothing")),
            "{fx:?}"
        );
    }

    #[test]
    fn a_template_is_filled_from_its_vars_and_the_agents_own_prompt_comes_after_it() {
        let agent = "name: f\nvars:\n  report: r.md\nagents:\n  - name: a\n    type: shell\n    \
                     background: true\n    template: review\n";
        let fx = effects(&format!(
            "{agent}    template_vars: [base=main, focus=naming]\n    prompt: be brief\n"
        ))
        .unwrap();
        let prompt = fx.prompt.unwrap();
        assert!(
            prompt.starts_with("Review the changes on this branch since `main`"),
            "{prompt}"
        );
        assert!(prompt.contains("attention to\nnaming."), "{prompt}");
        assert!(prompt.ends_with("where it is.\n\nbe brief"), "{prompt}");
        let err = effects(&format!("{agent}    template_vars: [base=main]\n")).unwrap_err();
        assert!(
            err.to_string().contains(
                "agents[0].template: template 'review' (built-in \
                 share/prompts/templates/review.md): unresolved '${focus}': no template_vars \
                 entry or var is named 'focus'"
            ),
            "{err}"
        );
        let err = effects(&agent.replace("review", "nosuch")).unwrap_err();
        assert!(
            err.to_string().contains(
                "agents[0].template: no template 'nosuch': looked at \
                 /c/git-berth/templates/nosuch.md, built-in share/prompts/templates/nosuch.md"
            ),
            "{err}"
        );
    }

    #[test]
    fn this_repository_and_another_are_told_apart() {
        let ok = effects(
            "name: f\nagents:\n  - name: a\n    type: shell\n    repo: git@example.org:me/app\n",
        );
        let ok = ok.expect("this repository");
        assert!(
            ok.fields
                .iter()
                .any(|f| f.became.ends_with("this repository"))
        );
        let other = effects(
            "name: f\nagents:\n  - name: a\n    type: shell\n    repo: git@example.org:me/web.git\n",
        )
        .expect("another repository");
        assert!(
            other
                .fields
                .iter()
                .any(|f| f.became.contains("another repository")),
            "{other:?}"
        );
    }
}
