//! The manifest layer's rules, each pinned in both syntaxes where the syntax could change the
//! answer: every error's full text (file:line:col: path: message), the precedence of layers, the
//! inputs' order, interpolation, worktree groups, and the examples in share/examples/fleets/.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::*;
use crate::orchestrator::runtime::Runtime;

fn yaml(text: &str) -> Result<Manifest, ManifestError> {
    parse("fleet.yaml", text)
}

fn toml(text: &str) -> Result<Manifest, ManifestError> {
    parse("fleet.toml", text)
}

fn yaml_err(text: &str) -> String {
    yaml(text).expect_err("should be refused").to_string()
}

fn toml_err(text: &str) -> String {
    toml(text).expect_err("should be refused").to_string()
}

/// A file system holding exactly `files`.
struct Fake(HashMap<PathBuf, String>);

impl Fake {
    fn none() -> Fake {
        Fake(HashMap::new())
    }

    fn with(files: &[(&str, &str)]) -> Fake {
        Fake(
            files
                .iter()
                .map(|(p, t)| (PathBuf::from(p), (*t).to_owned()))
                .collect(),
        )
    }
}

impl Files for Fake {
    fn read(&self, path: &Path) -> Result<Option<String>, String> {
        Ok(self.0.get(path).cloned())
    }
}

/// Inference that knows the origin and the pull request.
fn knows_all(from: InferFrom) -> Result<String, String> {
    Ok(match from {
        InferFrom::Repo => "git@example.org:org/here.git".to_owned(),
        InferFrom::Pr => "42".to_owned(),
    })
}

/// Inference outside a repository with no `gh`.
fn knows_nothing(from: InferFrom) -> Result<String, String> {
    Err(match from {
        InferFrom::Repo => "the checkout has no remote named origin".to_owned(),
        InferFrom::Pr => "gh is not installed".to_owned(),
    })
}

const CONFIG: &str = "/home/ada/.config";
const FLEET_DIR: &str = "/repo/.git/berth/fleets/f/shared";

fn run_with(
    manifest: &Manifest,
    vars: &[(&str, &str)],
    files: &Fake,
    infer: &dyn Infer,
) -> Result<Resolved, ManifestError> {
    let vars: Vec<(String, String)> = vars
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    let ctx = Context {
        vars: &vars,
        fleet_dir: FLEET_DIR,
        config_home: Some(Path::new(CONFIG)),
    };
    resolve(manifest, &ctx, files, infer)
}

fn run(manifest: &Manifest) -> Result<Resolved, ManifestError> {
    run_with(manifest, &[], &Fake::none(), &knows_nothing)
}

fn agents(text_yaml: &str) -> Vec<AgentSpec> {
    run(&yaml(text_yaml).expect("parses"))
        .expect("resolves")
        .agents
}

// ---------------------------------------------------------------------------------------------
// One schema, two syntaxes

#[test]
fn the_same_fleet_in_yaml_and_toml_resolves_alike() {
    let from_yaml = yaml(
        "name: pair\ndefaults:\n  type: claude\nagents:\n  - name: a\n    prompt: go\n    ssh: false\n",
    )
    .expect("yaml parses");
    let from_toml = toml(
        "name = \"pair\"\n[defaults]\ntype = \"claude\"\n[[agents]]\nname = \"a\"\nprompt = \"go\"\nssh = false\n",
    )
    .expect("toml parses");
    assert_eq!(
        summary(&run(&from_yaml).unwrap()),
        summary(&run(&from_toml).unwrap())
    );
}

#[test]
fn a_file_that_is_neither_toml_nor_yaml_is_refused_by_name() {
    let err = parse("fleet.json", "{}").unwrap_err();
    assert_eq!(
        err.to_string(),
        "fleet.json: a manifest is TOML (.toml) or YAML (.yaml, .yml); name the file so"
    );
    assert_eq!(Syntax::of("a/b.yml"), Some(Syntax::Yaml));
    assert_eq!(Syntax::of("b.toml"), Some(Syntax::Toml));
    assert_eq!(Syntax::of("toml"), None);
}

#[test]
fn a_syntax_error_names_the_line_and_column_in_either_syntax() {
    assert_eq!(
        toml_err("name = \"x\"\nagents = [\n"),
        "fleet.toml:2:11: not valid TOML: unclosed array, expected `]`"
    );
    assert_eq!(
        yaml_err("name: x\nagents: [a, b\nc: d\n"),
        "fleet.yaml:3:2: not valid YAML: illegal placement of ':' indicator"
    );
    assert_eq!(
        yaml_err("name: a\nname: b\n"),
        "fleet.yaml:2:1: not valid YAML: duplicate mapping key `name` is not allowed here"
    );
    assert_eq!(
        yaml_err("name: a\n---\nname: b\n"),
        "fleet.yaml:3:1: not valid YAML: only single YAML document expected but multiple found"
    );
}

#[test]
fn a_manifest_that_is_not_a_map_is_refused() {
    assert_eq!(
        yaml_err("- a\n- b\n"),
        "fleet.yaml:1:1: a manifest is a map of fields (name, agents, ...), found a list"
    );
    assert_eq!(
        yaml_err(""),
        "fleet.yaml:1:1: a manifest is a map of fields (name, agents, ...), found nothing (null)"
    );
}

// ---------------------------------------------------------------------------------------------
// Unknown, refused and mistyped fields

#[test]
fn an_unknown_agent_field_is_named_with_the_nearest_known_one() {
    assert_eq!(
        yaml_err("name: f\nagents:\n  - name: a\n    type: claude\n    promt: go\n"),
        "fleet.yaml:5:5: agents[0].promt: unknown field; did you mean 'prompt'?"
    );
    assert_eq!(
        toml_err("name = \"f\"\n[[agents]]\nname = \"a\"\ntype = \"claude\"\npromt = \"go\"\n"),
        "fleet.toml:5:1: agents[0].promt: unknown field; did you mean 'prompt'?"
    );
}

#[test]
fn an_unknown_field_with_nothing_near_lists_the_fields() {
    let err = yaml_err("name: f\nflavour: x\nagents:\n  - name: a\n");
    assert_eq!(
        err,
        "fleet.yaml:2:1: flavour: unknown field; the fields here are name, description, inputs, \
         examples, tags, defaults, vars, agents, steps, stages, worktrees, worktree_base, worktree_seed"
    );
}

#[test]
fn a_rejected_control_field_is_refused_where_it_was_written() {
    // The issue's own example: fleet.yaml:12:5: agents[1].retry.
    let text = "\
name: f
defaults:
  type: claude
agents:
  - name: first
    prompt: one

  - name: second
    prompt: two
    background: true
    # then a field the seed rejects
    retry: 3
";
    assert_eq!(
        yaml_err(text),
        "fleet.yaml:12:5: agents[1].retry: unsupported control field, refused rather than \
         ignored: each agent runs once, unconditionally"
    );
    assert_eq!(
        toml_err("name = \"f\"\n[[agents]]\nname = \"a\"\nwhen = \"always\"\n"),
        "fleet.toml:4:1: agents[0].when: unsupported control field, refused rather than \
         ignored: each agent runs once, unconditionally"
    );
    assert_eq!(
        yaml_err("name: f\nagents:\n  - name: a\n    on_failure: echo\n"),
        "fleet.yaml:4:5: agents[0].on_failure: unsupported control field, refused rather than \
         ignored; for a command run when the agent fails, use on_fail"
    );
    assert!(
        yaml_err("name: f\ndefaults:\n  outputs: [x]\nagents:\n  - name: a\n")
            .starts_with("fleet.yaml:3:3: defaults.outputs: unsupported control field")
    );
}

#[test]
fn each_container_only_field_is_refused_in_one_line_saying_why() {
    let cases = [
        (
            "docker: true",
            "there is no container to give a Docker-in-Docker sidecar",
        ),
        (
            "docker_socket: true",
            "there is no container to hand the Docker socket to",
        ),
        (
            "network: bridge",
            "there is no container network to attach; agents use this machine's",
        ),
        (
            "memory: 4g",
            "there is no container to limit; set limits on the session itself",
        ),
        (
            "cpus: \"2\"",
            "there is no container to limit; set limits on the session itself",
        ),
        (
            "pids_limit: 100",
            "there is no container to limit; set limits on the session itself",
        ),
        (
            "ephemeral_auth: true",
            "there is no container to keep throwaway auth in; see seed_auth and reuse_auth",
        ),
    ];
    for (line, why) in cases {
        let field = line.split(':').next().unwrap();
        let err = yaml_err(&format!("name: f\nagents:\n  - name: a\n    {line}\n"));
        assert_eq!(
            err,
            format!(
                "fleet.yaml:4:5: agents[0].{field}: container-only field, refused: berth runs \
                 agents as you in worktrees, not in containers, so {why}"
            )
        );
        assert!(!err.contains('\n'));
        let toml_line = line
            .replacen(':', " =", 1)
            .replace("4g", "\"4g\"")
            .replace("bridge", "\"bridge\"");
        let err = toml_err(&format!(
            "name = \"f\"\n[defaults]\n{toml_line}\n[[agents]]\nname = \"a\"\n"
        ));
        assert!(
            err.starts_with(&format!(
                "fleet.toml:3:1: defaults.{field}: container-only field"
            )),
            "{err}"
        );
    }
}

#[test]
fn pipeline_fields_are_refused_in_a_fleet() {
    assert_eq!(
        yaml_err("name: f\nsteps:\n  - name: a\n"),
        "fleet.yaml:2:1: steps: a pipeline field, refused in a fleet: this manifest is a \
         pipeline (it lists steps); run it with git berth pipeline run"
    );
    assert_eq!(
        toml_err("name = \"f\"\n[[agents]]\nname = \"a\"\ndepends_on = \"b\"\n"),
        "fleet.toml:4:1: agents[0].depends_on: a pipeline field, refused in a fleet: a fleet \
         starts all its agents together (pipelines come with git berth pipeline)"
    );
    for field in ["models: [claude]", "judge: {}", "pipeline: ./p.yaml"] {
        let err = yaml_err(&format!("name: f\nagents:\n  - name: a\n    {field}\n"));
        assert!(
            err.contains(": a pipeline field, refused in a fleet"),
            "{err}"
        );
    }
}

#[test]
fn an_agent_field_at_the_top_level_points_at_defaults() {
    assert_eq!(
        yaml_err("name: f\ntype: claude\nagents:\n  - name: a\n"),
        "fleet.yaml:2:1: type: an agent field at the top level; put it under defaults to give \
         every agent type"
    );
}

#[test]
fn a_value_of_the_wrong_type_names_the_type_wanted_and_what_was_found() {
    assert_eq!(
        yaml_err("name: f\nagents:\n  - name: a\n    ssh: \"yes\"\n"),
        "fleet.yaml:4:10: agents[0].ssh: expected a bool (true or false), found the string 'yes'"
    );
    // YAML 1.1's `yes` is a string here, not a surprise boolean.
    assert_eq!(
        yaml_err("name: f\nagents:\n  - name: a\n    background: yes\n"),
        "fleet.yaml:4:17: agents[0].background: expected a bool (true or false), found the \
         string 'yes'"
    );
    assert_eq!(
        toml_err("name = \"f\"\n[[agents]]\nname = \"a\"\nssh = \"true\"\n"),
        "fleet.toml:4:7: agents[0].ssh: expected a bool (true or false), found the string 'true'"
    );
    assert_eq!(
        yaml_err("name: f\nagents:\n  - name: a\n    prompt: [a, b]\n"),
        "fleet.yaml:4:13: agents[0].prompt: expected a string, found a list"
    );
    assert_eq!(
        toml_err("name = \"f\"\n[[agents]]\nname = \"a\"\nrepos = \"x\"\n"),
        "fleet.toml:4:9: agents[0].repos: expected a list of strings, found the string 'x'"
    );
    assert_eq!(
        yaml_err("name: f\nagents:\n  - name: a\n    owns: [src, 3]\n"),
        "fleet.yaml:4:17: agents[0].owns[1]: expected a string, found the integer 3"
    );
    assert_eq!(
        yaml_err("name: f\nagents:\n  - name: a\n    prompt:\n"),
        "fleet.yaml:4:11: agents[0].prompt: expected a string, found nothing (null)"
    );
    assert_eq!(
        yaml_err("name: f\nagents: {a: 1}\n"),
        "fleet.yaml:2:9: agents: expected a list, found a map"
    );
}

#[test]
fn an_unknown_type_is_refused_with_the_runtimes() {
    assert_eq!(
        yaml_err("name: f\nagents:\n  - name: a\n    type: cladue\n"),
        "fleet.yaml:4:11: agents[0].type: expected one of claude, codex, opencode, pi, shell, \
         found 'cladue'; did you mean 'claude'?"
    );
    assert_eq!(
        toml_err("name = \"f\"\n[[agents]]\nname = \"a\"\ntype = true\n"),
        "fleet.toml:4:8: agents[0].type: expected one of claude, codex, opencode, pi, shell, \
         found the bool true"
    );
}

#[test]
fn every_runtime_the_seed_and_berth_know_is_accepted() {
    for name in ["claude", "codex", "opencode", "pi", "shell"] {
        let specs = agents(&format!(
            "name: f\nagents:\n  - name: a\n    type: {name}\n"
        ));
        assert_eq!(specs[0].runtime.value.name(), name);
    }
}

// ---------------------------------------------------------------------------------------------
// The agent fields, each with its type and form

#[test]
fn every_agent_field_is_read_with_its_type() {
    let text = r#"
name: all
agents:
  - name: every-field
    type: shell
    repos: [git@example.org:a.git, ../b]
    prompt: "do it"
    template: review
    template_vars: ["lang=rust", "depth = 2=3"]
    instructions: "be brief"
    instructions_file: notes/agent.md
    ssh: false
    reuse_auth: true
    reuse_gh_auth: false
    seed_auth: true
    auto_trust: true
    background: true
    allow_setup_scripts: false
    identity: "Ada Lovelace <ada@example.org>"
    aws: dev
    max_cost: "$2.50"
    notify: "bell, notify-send"
    on_exit: echo exit
    on_complete: echo done
    on_fail: echo fail
    worktree: squad
    owns: [src/a, "docs/**"]
"#;
    let spec = &agents(text)[0];
    assert_eq!(spec.runtime.value, Runtime::Shell);
    assert_eq!(
        spec.repos.as_ref().unwrap().value,
        ["git@example.org:a.git", "../b"]
    );
    assert_eq!(spec.prompt.as_ref().unwrap().value, "do it");
    assert_eq!(spec.template.as_ref().unwrap().value, "review");
    let vars = &spec.template_vars.as_ref().unwrap().value;
    assert_eq!(
        (vars[0].key.as_str(), vars[0].value.as_str()),
        ("lang", "rust")
    );
    assert_eq!(
        (vars[1].key.as_str(), vars[1].value.as_str()),
        ("depth", " 2=3")
    );
    assert_eq!(spec.instructions.as_ref().unwrap().value, "be brief");
    assert_eq!(
        spec.instructions_file.as_ref().unwrap().value,
        PathBuf::from("notes/agent.md")
    );
    let flag = |f: &Option<Sourced<bool>>| f.as_ref().map(|s| s.value);
    assert_eq!(flag(&spec.ssh), Some(false));
    assert_eq!(flag(&spec.reuse_auth), Some(true));
    assert_eq!(flag(&spec.reuse_gh_auth), Some(false));
    assert_eq!(flag(&spec.seed_auth), Some(true));
    assert_eq!(flag(&spec.auto_trust), Some(true));
    assert_eq!(flag(&spec.background), Some(true));
    assert_eq!(flag(&spec.allow_setup_scripts), Some(false));
    let identity = &spec.identity.as_ref().unwrap().value;
    assert_eq!(
        (identity.name.as_str(), identity.email.as_str()),
        ("Ada Lovelace", "ada@example.org")
    );
    assert_eq!(spec.aws.as_ref().unwrap().value, "dev");
    assert_eq!(spec.max_cost.as_ref().unwrap().value, "2.50");
    assert_eq!(spec.notify.as_ref().unwrap().value, ["bell", "notify-send"]);
    assert_eq!(spec.on_exit.as_ref().unwrap().value, "echo exit");
    assert_eq!(spec.on_complete.as_ref().unwrap().value, "echo done");
    assert_eq!(spec.on_fail.as_ref().unwrap().value, "echo fail");
    assert_eq!(
        spec.placement,
        Placement::Worktree {
            group: "squad".into()
        }
    );
    assert_eq!(spec.owns.as_ref().unwrap().value, ["src/a", "docs/**"]);
}

#[test]
fn unset_fields_stay_unset_for_the_fleet_to_give_their_meaning() {
    let spec = &agents("name: f\nagents:\n  - name: a\n    type: pi\n")[0];
    assert!(spec.ssh.is_none() && spec.prompt.is_none() && spec.repos.is_none());
    assert!(spec.worktree.is_none() && spec.profile.is_none() && spec.max_cost.is_none());
}

#[test]
fn an_identity_that_is_not_name_and_email_is_refused() {
    assert_eq!(
        yaml_err("name: f\nagents:\n  - name: a\n    identity: ada@example.org\n"),
        "fleet.yaml:4:15: agents[0].identity: expected a git identity 'Name <email>' (like \
         'Ada Lovelace <ada@example.org>'), found 'ada@example.org'"
    );
}

#[test]
fn a_template_var_without_an_equals_sign_is_refused() {
    assert_eq!(
        toml_err("name = \"f\"\n[[agents]]\nname = \"a\"\ntemplate_vars = [\"a=1\", \"b\"]\n"),
        "fleet.toml:4:25: agents[0].template_vars[1]: expected 'key=value', found 'b'"
    );
}

#[test]
fn max_cost_is_a_dollar_amount_written_as_a_number_or_a_string() {
    let cost = |v: &str| {
        yaml(&format!(
            "name: f\nagents:\n  - name: a\n    type: pi\n    max_cost: {v}\n"
        ))
        .and_then(|m| run(&m))
        .map(|r| r.agents[0].max_cost.as_ref().unwrap().value.clone())
    };
    assert_eq!(cost("5").unwrap(), "5");
    assert_eq!(cost("2.5").unwrap(), "2.5");
    assert_eq!(cost("\"$3\"").unwrap(), "3");
    assert_eq!(
        cost("lots").unwrap_err().to_string(),
        "fleet.yaml:5:15: agents[0].max_cost: expected a budget in US dollars, like 5 or \
         \"2.50\", found the string 'lots'"
    );
    assert!(cost("-1").is_err());
}

#[test]
fn notify_targets_are_comma_separated_and_none_is_empty() {
    assert_eq!(
        yaml_err("name: f\nagents:\n  - name: a\n    notify: \"bell,,x\"\n"),
        "fleet.yaml:4:13: agents[0].notify: an empty target in 'bell,,x'; separate targets with \
         single commas"
    );
}

#[test]
fn repo_and_repos_together_are_refused() {
    assert_eq!(
        yaml_err("name: f\nagents:\n  - name: a\n    repo: x\n    repos: [y]\n"),
        "fleet.yaml:5:12: agents[0].repos: repo and repos are both set; list every repository \
         under repos"
    );
    assert_eq!(
        yaml_err("name: f\nagents:\n  - name: a\n    repos: []\n"),
        "fleet.yaml:4:12: agents[0].repos: lists no repository"
    );
}

#[test]
fn a_profile_name_must_be_a_plain_file_name() {
    assert_eq!(
        yaml_err("name: f\nagents:\n  - name: a\n    profile: ../../etc/x\n"),
        "fleet.yaml:4:14: agents[0].profile: '../../etc/x' is not a profile name: use letters, \
         digits, '.', '_' and '-'"
    );
}

#[test]
fn name_belongs_to_agents_only() {
    assert_eq!(
        yaml_err("name: f\ndefaults:\n  name: x\nagents:\n  - name: a\n"),
        "fleet.yaml:3:3: defaults.name: an agent's name cannot be a default; name each agent \
         under agents"
    );
}

// ---------------------------------------------------------------------------------------------
// The top level

#[test]
fn the_fleet_name_is_required_and_slugged() {
    assert_eq!(
        yaml_err("agents:\n  - name: a\n"),
        "fleet.yaml:1:1: name: required: the fleet's name"
    );
    assert_eq!(
        toml_err("name = \"..\"\n[[agents]]\nname = \"a\"\n"),
        "fleet.toml:1:8: name: invalid fleet name '..': its slug '..' is all dots"
    );
    let m = yaml("name: Review and fix\nagents:\n  - name: a\n").unwrap();
    assert_eq!(m.slug, "Review-and-fix");
}

#[test]
fn agents_are_required_and_not_empty() {
    assert_eq!(
        yaml_err("name: f\n"),
        "fleet.yaml:1:1: agents: required: the list of agents to start"
    );
    assert_eq!(
        toml_err("name = \"f\"\nagents = []\n"),
        "fleet.toml:2:10: agents: lists no agent; a fleet starts at least one"
    );
    assert_eq!(
        yaml_err("name: f\nagents:\n  - type: claude\n"),
        "fleet.yaml:3:5: agents[0].name: required: the agent's name"
    );
}

#[test]
fn agent_names_are_unique_after_slugging() {
    assert_eq!(
        yaml_err("name: f\nagents:\n  - name: api review\n  - name: api/review\n"),
        "fleet.yaml:4:11: agents[1].name: 'api/review' and agents[0]'s 'api review' both slug \
         to 'api-review'; two names that slug alike are refused, not merged"
    );
    assert_eq!(
        toml_err("name = \"f\"\n[[agents]]\nname = \"a\"\n[[agents]]\nname = \"a\"\n"),
        "fleet.toml:5:8: agents[1].name: 'a' is already the name of agents[0]"
    );
    assert_eq!(
        yaml_err("name: f\nagents:\n  - name: \"-x\"\n"),
        "fleet.yaml:3:11: agents[0].name: invalid worktree name '-x': its slug '-x' starts with '-'"
    );
}

#[test]
fn the_descriptive_top_level_fields_are_kept() {
    let m = yaml(
        "name: f\ndescription: d\nexamples: [\"git berth fleet up f.yaml\"]\ntags: [review]\n\
         worktrees: true\nworktree_base: origin/main\nworktree_seed: [.env, config/local.json]\n\
         agents:\n  - name: a\n",
    )
    .unwrap();
    assert_eq!(m.description.unwrap().value, "d");
    assert_eq!(m.examples[0].value, "git berth fleet up f.yaml");
    assert_eq!(m.tags[0].value, "review");
    assert!(m.worktrees.unwrap().value);
    assert_eq!(m.worktree_base.unwrap().value, "origin/main");
    let seed: Vec<&str> = m.worktree_seed.iter().map(|s| s.value.as_str()).collect();
    assert_eq!(seed, [".env", "config/local.json"]);
}

#[test]
fn worktrees_false_and_seed_paths_outside_the_checkout_are_refused() {
    assert_eq!(
        toml_err("name = \"f\"\nworktrees = false\n[[agents]]\nname = \"a\"\n"),
        "fleet.toml:2:13: worktrees: berth never runs a fleet in the primary checkout: each \
         agent has its own worktree, or sets worktree = false to run outside any checkout"
    );
    assert_eq!(
        yaml_err("name: f\nworktree_seed: [.env, ../secrets]\nagents:\n  - name: a\n"),
        "fleet.yaml:2:23: worktree_seed[1]: '../secrets' is not a path inside the checkout; \
         name untracked files relative to its top, without '..'"
    );
    assert!(
        yaml_err("name: f\nworktree_seed: [/etc/passwd]\nagents:\n  - name: a\n")
            .starts_with("fleet.yaml:2:17: worktree_seed[0]: '/etc/passwd' is not a path inside")
    );
}

#[test]
fn inputs_are_checked_field_by_field() {
    assert_eq!(
        yaml_err("name: f\ninputs:\n  - name: pr\n    infer: branch\nagents:\n  - name: a\n"),
        "fleet.yaml:4:12: inputs[0].infer: expected repo or pr, found 'branch'"
    );
    assert_eq!(
        yaml_err("name: f\ninputs:\n  - name: pr\n    requird: true\nagents:\n  - name: a\n"),
        "fleet.yaml:4:5: inputs[0].requird: unknown field; did you mean 'required'?"
    );
    assert_eq!(
        yaml_err("name: f\ninputs:\n  - description: x\nagents:\n  - name: a\n"),
        "fleet.yaml:3:5: inputs[0].name: required: the input's name"
    );
    assert_eq!(
        yaml_err("name: f\ninputs:\n  - name: pr\n  - name: pr\nagents:\n  - name: a\n"),
        "fleet.yaml:4:11: inputs[1].name: 'pr' is already the name of inputs[0]"
    );
}

#[test]
fn vars_are_text_named_as_interpolation_can_name_them() {
    let m = yaml("name: f\nvars:\n  count: 3\n  focus: x\nagents:\n  - name: a\n").unwrap();
    assert_eq!(m.vars[0].value.value, "3");
    assert_eq!(
        yaml_err("name: f\nvars:\n  a b: x\nagents:\n  - name: a\n"),
        "fleet.yaml:3:3: vars.a b: 'a b' cannot be written as ${name}: use letters, digits, '_' \
         and '-', starting with a letter or '_'"
    );
    assert_eq!(
        toml_err("name = \"f\"\n[vars]\nflag = true\n[[agents]]\nname = \"a\"\n"),
        "fleet.toml:3:8: vars.flag: expected a string, found the bool true"
    );
}

#[test]
fn names_berth_binds_itself_cannot_be_declared() {
    assert_eq!(
        yaml_err("name: f\nvars:\n  model: x\nagents:\n  - name: a\n"),
        "fleet.yaml:3:3: vars.model: 'model' is reserved: berth sets ${model} in a pipeline \
         stage that fans out over models"
    );
    assert_eq!(
        yaml_err("name: f\ninputs:\n  - name: fleet_dir\nagents:\n  - name: a\n"),
        "fleet.yaml:3:11: inputs[0].name: 'fleet_dir' is reserved: berth sets ${fleet_dir} to \
         the fleet's shared folder"
    );
}

#[test]
fn a_name_is_an_input_or_a_var_not_both() {
    assert_eq!(
        yaml_err("name: f\ninputs:\n  - name: repo\nvars:\n  repo: x\nagents:\n  - name: a\n"),
        "fleet.yaml:5:3: vars.repo: 'repo' is also inputs[0]; declare it once (an input's \
         default is its value when --var does not give one)"
    );
}

// ---------------------------------------------------------------------------------------------
// Precedence: per-agent > profile > defaults

const REVIEWER: &str = "/home/ada/.config/git-berth/profiles/reviewer.toml";

#[test]
fn a_field_comes_from_the_agent_then_its_profile_then_defaults() {
    let m = yaml(
        "name: f\ndefaults:\n  type: claude\n  aws: default-aws\n  prompt: from defaults\n\
         agents:\n  - name: a\n    profile: reviewer\n    prompt: from the agent\n",
    )
    .unwrap();
    let files = Fake::with(&[(REVIEWER, "aws = \"profile-aws\"\ntype = \"codex\"\n")]);
    let r = run_with(&m, &[], &files, &knows_nothing).unwrap();
    let a = &r.agents[0];
    assert_eq!(
        (
            a.prompt.as_ref().unwrap().value.as_str(),
            &a.prompt.as_ref().unwrap().layer
        ),
        ("from the agent", &Layer::Agent)
    );
    assert_eq!(a.aws.as_ref().unwrap().value, "profile-aws");
    assert_eq!(
        a.aws.as_ref().unwrap().layer,
        Layer::Profile("reviewer".into())
    );
    assert_eq!(a.runtime.value, Runtime::Codex);
    assert_eq!(a.runtime.path, "type");
    assert_eq!(a.runtime.at.to_string(), format!("{REVIEWER}:2:8"));
    assert_eq!(r.profiles[0].file, PathBuf::from(REVIEWER));
    // What --dry-run shows: each value with its layer.
    assert_eq!(
        format!("{} ({})", a.runtime.value.name(), a.runtime.layer),
        "codex (profile reviewer)"
    );
}

#[test]
fn the_seed_s_per_agent_override_wins_over_defaults() {
    let r = run(&yaml(&example("multi-review.yaml")).unwrap()).unwrap();
    let api = &r.agents[0];
    let web = &r.agents[1];
    assert_eq!(
        (api.runtime.value, &api.runtime.layer),
        (Runtime::Claude, &Layer::Defaults)
    );
    assert_eq!(api.runtime.path, "defaults.type");
    assert_eq!(
        (web.runtime.value, &web.runtime.layer),
        (Runtime::Codex, &Layer::Agent)
    );
    assert_eq!(web.runtime.path, "agents[1].type");
    assert_eq!(
        format!("type: {} ({})", api.runtime.value.name(), api.runtime.layer),
        "type: claude (defaults)"
    );
}

#[test]
fn an_explicit_false_overrides_an_inherited_true() {
    let m = toml(
        "name = \"f\"\n[defaults]\ntype = \"claude\"\nssh = true\nbackground = true\n\
         [[agents]]\nname = \"a\"\nssh = false\n[[agents]]\nname = \"b\"\n",
    )
    .unwrap();
    let r = run(&m).unwrap();
    let ssh = r.agents[0].ssh.as_ref().unwrap();
    assert_eq!((ssh.value, &ssh.layer), (false, &Layer::Agent));
    let ssh = r.agents[1].ssh.as_ref().unwrap();
    assert_eq!((ssh.value, &ssh.layer), (true, &Layer::Defaults));
    assert!(r.agents[0].background.as_ref().unwrap().value);
}

#[test]
fn a_profile_in_defaults_applies_to_every_agent_and_is_read_once() {
    let m = yaml("name: f\ndefaults:\n  profile: reviewer\nagents:\n  - name: a\n  - name: b\n")
        .unwrap();
    let files = Fake::with(&[(
        "/home/ada/.config/git-berth/profiles/reviewer.yaml",
        "type: opencode\nssh: false\n",
    )]);
    let r = run_with(&m, &[], &files, &knows_nothing).unwrap();
    assert_eq!(r.profiles.len(), 1);
    for agent in &r.agents {
        assert_eq!(agent.runtime.value, Runtime::Opencode);
        assert_eq!(agent.profile.as_ref().unwrap().layer, Layer::Defaults);
    }
}

#[test]
fn a_missing_profile_names_every_path_looked_at() {
    let m = yaml("name: f\nagents:\n  - name: a\n    type: pi\n    profile: reviewer\n").unwrap();
    assert_eq!(
        run(&m).unwrap_err().to_string(),
        "fleet.yaml:5:14: agents[0].profile: no profile 'reviewer': looked at \
         /home/ada/.config/git-berth/profiles/reviewer.toml, \
         /home/ada/.config/git-berth/profiles/reviewer.yaml, \
         /home/ada/.config/git-berth/profiles/reviewer.yml"
    );
    let ctx = Context {
        vars: &[],
        fleet_dir: FLEET_DIR,
        config_home: None,
    };
    assert_eq!(
        resolve(&m, &ctx, &Fake::none(), &knows_nothing)
            .unwrap_err()
            .to_string(),
        "fleet.yaml:5:14: agents[0].profile: no profile 'reviewer': cannot find the config \
         folder: neither XDG_CONFIG_HOME nor HOME is set"
    );
}

#[test]
fn a_profile_found_twice_or_unreadable_is_refused() {
    let m = yaml("name: f\nagents:\n  - name: a\n    profile: reviewer\n").unwrap();
    let files = Fake::with(&[
        (REVIEWER, "type = \"pi\"\n"),
        (
            "/home/ada/.config/git-berth/profiles/reviewer.yml",
            "type: pi\n",
        ),
    ]);
    assert_eq!(
        run_with(&m, &[], &files, &knows_nothing)
            .unwrap_err()
            .to_string(),
        format!(
            "fleet.yaml:4:14: agents[0].profile: profile 'reviewer' is both {REVIEWER} and \
             /home/ada/.config/git-berth/profiles/reviewer.yml; keep one"
        )
    );
    let unreadable =
        |_: &Path| -> Result<Option<String>, String> { Err("permission denied".into()) };
    let vars: Vec<(String, String)> = Vec::new();
    let ctx = Context {
        vars: &vars,
        fleet_dir: FLEET_DIR,
        config_home: Some(Path::new(CONFIG)),
    };
    assert_eq!(
        resolve(&m, &ctx, &unreadable, &knows_nothing)
            .unwrap_err()
            .to_string(),
        format!(
            "fleet.yaml:4:14: agents[0].profile: cannot read profile {REVIEWER}: permission denied"
        )
    );
}

#[test]
fn an_error_in_a_profile_names_the_profile_file() {
    let m = yaml("name: f\nagents:\n  - name: a\n    profile: reviewer\n").unwrap();
    let cases = [
        (
            "type = \"pi\"\nssh = \"no\"\n",
            format!("{REVIEWER}:2:7: ssh: expected a bool (true or false), found the string 'no'"),
        ),
        (
            "docker = true\n",
            format!(
                "{REVIEWER}:1:1: docker: container-only field, refused: berth runs agents as you in worktrees, not in containers, so there is no container to give a Docker-in-Docker sidecar"
            ),
        ),
        (
            "profile = \"other\"\n",
            format!("{REVIEWER}:1:1: profile: a profile cannot name another profile"),
        ),
        (
            "name = \"x\"\n",
            format!("{REVIEWER}:1:1: name: a profile holds fields for agents, not an agent's name"),
        ),
    ];
    for (text, want) in cases {
        let files = Fake::with(&[(REVIEWER, text)]);
        assert_eq!(
            run_with(&m, &[], &files, &knows_nothing)
                .unwrap_err()
                .to_string(),
            want
        );
    }
}

#[test]
fn type_is_required_after_merging() {
    assert_eq!(
        run(&yaml("name: f\nagents:\n  - name: a\n    prompt: go\n").unwrap())
            .unwrap_err()
            .to_string(),
        "fleet.yaml:3:5: agents[0].type: required: one of claude, codex, opencode, pi, shell, \
         set on the agent, its profile or defaults"
    );
}

// ---------------------------------------------------------------------------------------------
// Inputs: --var, then infer, then default

const INPUTS: &str = "\
name: f
inputs:
  - name: repo
    description: Repository URL or current checkout repo.
    required: false
    default: \"\"
    infer: repo
  - name: pr
    description: Pull request number when relevant.
    infer: pr
defaults:
  type: claude
agents:
  - name: a
    prompt: \"Review ${pr} of ${repo}\"
";

fn bound(r: &Resolved, key: &str) -> (String, BoundFrom) {
    let b = r.bindings.iter().find(|b| b.key == key).expect("bound");
    (b.value.clone(), b.from)
}

#[test]
fn a_var_on_the_command_line_wins_over_inference() {
    let m = yaml(INPUTS).unwrap();
    let r = run_with(&m, &[("pr", "7")], &Fake::none(), &knows_all).unwrap();
    assert_eq!(bound(&r, "pr"), ("7".into(), BoundFrom::Cli));
    assert_eq!(
        bound(&r, "repo"),
        (
            "git@example.org:org/here.git".into(),
            BoundFrom::Inferred(InferFrom::Repo)
        )
    );
    assert_eq!(
        r.agents[0].prompt.as_ref().unwrap().value,
        "Review 7 of git@example.org:org/here.git"
    );
}

#[test]
fn inference_that_fails_falls_back_to_the_default() {
    let m = yaml(INPUTS).unwrap();
    let r = run_with(&m, &[("pr", "7")], &Fake::none(), &knows_nothing).unwrap();
    assert_eq!(bound(&r, "repo"), (String::new(), BoundFrom::Default));
}

#[test]
fn an_input_with_no_value_is_an_error_where_it_is_used() {
    let m = yaml(INPUTS).unwrap();
    assert_eq!(
        run_with(&m, &[], &Fake::none(), &knows_nothing)
            .unwrap_err()
            .to_string(),
        "fleet.yaml:15:13: agents[0].prompt: unresolved '${pr}': input 'pr' has no value: not \
         given with --var pr=<value>, not inferred from the current branch's open pull request \
         (gh is not installed), and it has no default"
    );
}

#[test]
fn a_required_input_with_no_value_is_an_error_naming_the_input_and_why() {
    let text = INPUTS.replace("    infer: pr\n", "    infer: pr\n    required: true\n");
    let m = yaml(&text).unwrap();
    assert_eq!(
        run_with(&m, &[], &Fake::none(), &knows_nothing)
            .unwrap_err()
            .to_string(),
        "fleet.yaml:8:5: inputs[1]: required input 'pr' has no value: not given with --var \
         pr=<value>, not inferred from the current branch's open pull request (gh is not \
         installed), and it has no default"
    );
    let toml_text = "name = \"f\"\n[[inputs]]\nname = \"ticket\"\nrequired = true\n\
                     [[agents]]\nname = \"a\"\ntype = \"pi\"\n";
    assert_eq!(
        run(&toml(toml_text).unwrap()).unwrap_err().to_string(),
        "fleet.toml:2:1: inputs[0]: required input 'ticket' has no value: not given with --var \
         ticket=<value>, and it has no default"
    );
}

#[test]
fn repo_falls_back_to_inference_with_no_input_declared() {
    // The seed's fan-out example writes `repo: ${repo}` in defaults with no input.
    let m = yaml("name: f\ndefaults:\n  repo: ${repo}\n  type: claude\nagents:\n  - name: a\n")
        .unwrap();
    let r = run_with(&m, &[], &Fake::none(), &knows_all).unwrap();
    assert_eq!(
        r.agents[0].repos.as_ref().unwrap().value,
        ["git@example.org:org/here.git"]
    );
    assert_eq!(r.agents[0].repos.as_ref().unwrap().path, "defaults.repo");
    assert_eq!(
        run(&m).unwrap_err().to_string(),
        "fleet.yaml:3:9: defaults.repo: unresolved '${repo}': no var or input is named 'repo', \
         and it was not inferred from the checkout's origin (the checkout has no remote named \
         origin)"
    );
    let r = run_with(&m, &[("repo", "../other")], &Fake::none(), &knows_nothing).unwrap();
    assert_eq!(r.agents[0].repos.as_ref().unwrap().value, ["../other"]);
}

// ---------------------------------------------------------------------------------------------
// Interpolation

#[test]
fn vars_are_interpolated_and_the_command_line_wins() {
    let m = yaml(&example("multi-review.yaml")).unwrap();
    let r = run(&m).unwrap();
    assert_eq!(
        r.agents[0].prompt.as_ref().unwrap().value,
        "Review error handling in this repo"
    );
    let r = run_with(&m, &[("focus", "naming")], &Fake::none(), &knows_nothing).unwrap();
    assert_eq!(
        r.agents[1].prompt.as_ref().unwrap().value,
        "Review naming in this repo"
    );
    assert_eq!(bound(&r, "focus"), ("naming".into(), BoundFrom::Cli));
}

#[test]
fn an_unresolved_key_is_named_with_where_it_is_in_either_syntax() {
    assert_eq!(
        run(&yaml("name: f\nvars:\n  focus: x\nagents:\n  - name: a\n    type: pi\n    prompt: \"Review ${focs}\"\n").unwrap())
            .unwrap_err()
            .to_string(),
        "fleet.yaml:7:13: agents[0].prompt: unresolved '${focs}': no var or input is named \
         'focs'; did you mean 'focus'?"
    );
    assert_eq!(
        run(&toml("name = \"f\"\n[defaults]\ntype = \"pi\"\ninstructions = \"use ${style}\"\n[[agents]]\nname = \"a\"\n").unwrap())
            .unwrap_err()
            .to_string(),
        "fleet.toml:4:16: defaults.instructions: unresolved '${style}': no var or input is \
         named 'style'"
    );
}

#[test]
fn a_doubled_dollar_is_a_literal_and_fleet_dir_is_the_callers() {
    let specs = agents(
        "name: f\nagents:\n  - name: a\n    type: shell\n    prompt: \"ls ${fleet_dir} && echo $${HOME} $HOME\"\n",
    );
    assert_eq!(
        specs[0].prompt.as_ref().unwrap().value,
        format!("ls {FLEET_DIR} && echo ${{HOME}} $HOME")
    );
}

#[test]
fn model_is_reserved_for_a_pipeline_stage() {
    assert_eq!(
        run(&yaml(
            "name: f\nagents:\n  - name: a\n    type: pi\n    prompt: \"You are ${model}\"\n"
        )
        .unwrap())
        .unwrap_err()
        .to_string(),
        "fleet.yaml:5:13: agents[0].prompt: unresolved '${model}': berth sets ${model} in a \
         pipeline stage that fans out over models, not in a fleet"
    );
    let m = yaml("name: f\nagents:\n  - name: a\n    type: pi\n").unwrap();
    assert_eq!(
        run_with(&m, &[("model", "x")], &Fake::none(), &knows_nothing)
            .unwrap_err()
            .to_string(),
        "--var model: reserved: berth sets ${model} in a pipeline stage that fans out over models"
    );
    assert_eq!(
        run_with(&m, &[("a b", "x")], &Fake::none(), &knows_nothing)
            .unwrap_err()
            .to_string(),
        "--var a b: not a name ${name} can read: use letters, digits, '_' and '-', starting with \
         a letter or '_'"
    );
}

#[test]
fn repos_template_vars_and_instructions_file_are_interpolated_but_hooks_are_not() {
    let text = "name: f\nvars:\n  org: acme\n  lang: rust\nagents:\n  - name: a\n    type: shell\n\
                repos: [\"git@example.org:${org}/api.git\"]\n    template_vars: [\"lang=${lang}\"]\n\
                instructions_file: docs/${lang}.md\n    on_exit: echo ${BERTH_AGENT_NAME}\n";
    let text = text
        .replace("\nrepos", "\n    repos")
        .replace("\ninstructions_file", "\n    instructions_file");
    let manifest = parse("fleets/f.yaml", &text).unwrap();
    let spec = &run(&manifest).unwrap().agents[0];
    assert_eq!(
        spec.repos.as_ref().unwrap().value,
        ["git@example.org:acme/api.git"]
    );
    assert_eq!(spec.template_vars.as_ref().unwrap().value[0].value, "rust");
    // Relative to the folder of the file that names it.
    assert_eq!(
        spec.instructions_file.as_ref().unwrap().value,
        PathBuf::from("fleets/docs/rust.md")
    );
    assert_eq!(
        spec.on_exit.as_ref().unwrap().value,
        "echo ${BERTH_AGENT_NAME}"
    );
}

#[test]
fn an_unclosed_reference_is_refused_with_the_way_to_write_a_literal() {
    assert_eq!(
        run(
            &yaml("name: f\nagents:\n  - name: a\n    type: pi\n    prompt: \"cost ${x\"\n")
                .unwrap()
        )
        .unwrap_err()
        .to_string(),
        "fleet.yaml:5:13: agents[0].prompt: '${' is not closed by '}'; write $${ for a literal ${"
    );
}

// ---------------------------------------------------------------------------------------------
// Worktree groups (atrium)

const SQUAD: &str = "\
name: ctl-fixes
defaults:
  type: shell
agents:
  - name: flake
  - name: controlplane
    worktree: cp
  - name: cp-helper
    worktree: cp
  - name: researcher
    worktree: false
  - name: explicit
    worktree: true
";

#[test]
fn distinct_names_isolate_a_shared_name_groups_and_false_runs_outside() {
    let specs = agents(SQUAD);
    let groups: Vec<Placement> = specs.iter().map(|s| s.placement.clone()).collect();
    let wt = |g: &str| Placement::Worktree { group: g.into() };
    assert_eq!(
        groups,
        [
            wt("flake"),
            wt("cp"),
            wt("cp"),
            Placement::Outside,
            wt("explicit")
        ]
    );
    let plans = plan_worktrees("ctl-fixes", "berth/", &specs);
    assert_eq!(
        plans,
        [
            WorktreePlan {
                group: "flake".into(),
                branch: "berth/ctl-fixes/flake".into(),
                agents: vec!["flake".into()],
            },
            WorktreePlan {
                group: "cp".into(),
                branch: "berth/ctl-fixes/cp".into(),
                agents: vec!["controlplane".into(), "cp-helper".into()],
            },
            WorktreePlan {
                group: "explicit".into(),
                branch: "berth/ctl-fixes/explicit".into(),
                agents: vec!["explicit".into()],
            },
        ]
    );
}

#[test]
fn the_shorthand_gives_everyone_their_own_and_a_per_agent_key_still_groups() {
    let text = "name: f\nworktrees: true\ndefaults:\n  type: pi\nagents:\n  - name: a\n  - name: b\n    worktree: a\n  - name: c\n";
    let specs = agents(text);
    let plans = plan_worktrees("f", "wt/", &specs);
    let groups: Vec<(&str, Vec<&str>)> = plans
        .iter()
        .map(|p| {
            (
                p.group.as_str(),
                p.agents.iter().map(String::as_str).collect(),
            )
        })
        .collect();
    assert_eq!(groups, [("a", vec!["a", "b"]), ("c", vec!["c"])]);
    assert_eq!(plans[1].branch, "wt/f/c");
}

#[test]
fn hostile_group_names_slug_safely_or_are_refused() {
    let specs = agents(
        "name: f\ndefaults:\n  type: pi\nagents:\n  - name: a\n    worktree: feat/login page\n",
    );
    assert_eq!(
        specs[0].placement,
        Placement::Worktree {
            group: "feat-login-page".into()
        }
    );
    assert_eq!(
        branch_name("berth/", "f", "feat-login-page"),
        "berth/f/feat-login-page"
    );
    assert_eq!(
        yaml_err("name: f\nagents:\n  - name: a\n    worktree: ../x\n"),
        "fleet.yaml:4:15: agents[0].worktree: invalid worktree name '../x': its slug '..-x' \
         starts with '.'"
    );
    assert_eq!(
        yaml_err("name: f\nagents:\n  - name: a\n    worktree: 3\n"),
        "fleet.yaml:4:15: agents[0].worktree: expected a worktree group name, or false to run \
         outside any worktree, found the integer 3"
    );
}

#[test]
fn two_group_names_that_slug_alike_are_refused_not_merged() {
    let m = yaml(
        "name: f\ndefaults:\n  type: pi\nagents:\n  - name: a\n    worktree: squad one\n  - name: b\n    worktree: squad/one\n",
    )
    .unwrap();
    assert_eq!(
        run(&m).unwrap_err().to_string(),
        "fleet.yaml:8:15: agents[1].worktree: worktree 'squad/one' and 'squad one' \
         (agents[0].worktree) both slug to 'squad-one'; two names that slug alike are refused, \
         not merged: spell the group one way"
    );
}

#[test]
fn a_group_named_like_an_agent_joins_it_when_spelled_the_same() {
    let specs = agents(
        "name: f\ndefaults:\n  type: pi\nagents:\n  - name: cp\n  - name: helper\n    worktree: cp\n",
    );
    assert_eq!(
        specs[1].placement,
        Placement::Worktree { group: "cp".into() }
    );
    let m = yaml(
        "name: f\ndefaults:\n  type: pi\nagents:\n  - name: a b\n  - name: c\n    worktree: a-b\n",
    )
    .unwrap();
    assert_eq!(
        run(&m).unwrap_err().to_string(),
        "fleet.yaml:7:15: agents[1].worktree: worktree 'a-b' and 'a b' (agents[0].name) both \
         slug to 'a-b'; two names that slug alike are refused, not merged: spell the group one way"
    );
}

#[test]
fn a_group_in_defaults_makes_the_whole_fleet_one_squad() {
    let m = toml(
        "name = \"f\"\n[defaults]\ntype = \"pi\"\nworktree = \"squad\"\n[[agents]]\nname = \"a\"\n\
         [[agents]]\nname = \"b\"\n[[agents]]\nname = \"notes\"\nworktree = false\n",
    )
    .unwrap();
    let r = run(&m).unwrap();
    let plans = plan_worktrees(&m.slug, "berth/", &r.agents);
    assert_eq!(plans.len(), 1);
    assert_eq!(plans[0].agents, ["a", "b"]);
    assert_eq!(plans[0].branch, "berth/f/squad");
    assert_eq!(r.agents[2].placement, Placement::Outside);
    assert_eq!(
        r.agents[0].worktree.as_ref().unwrap().layer,
        Layer::Defaults
    );
}

// ---------------------------------------------------------------------------------------------
// The examples

fn examples_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("share/examples/fleets")
}

fn example(name: &str) -> String {
    let path = examples_dir().join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// What an agent resolved to, without the places: two syntaxes of one fleet say the same.
fn summary(r: &Resolved) -> Vec<String> {
    fn show<T: std::fmt::Debug>(name: &str, field: &Option<Sourced<T>>) -> Option<String> {
        field
            .as_ref()
            .map(|s| format!("{name}={:?} ({})", s.value, s.layer))
    }
    r.agents
        .iter()
        .map(|a| {
            let fields = [
                Some(format!(
                    "type={} ({})",
                    a.runtime.value.name(),
                    a.runtime.layer
                )),
                show("repos", &a.repos),
                show("prompt", &a.prompt),
                show("ssh", &a.ssh),
                show("reuse_auth", &a.reuse_auth),
                show("background", &a.background),
                show("instructions", &a.instructions),
                Some(format!("{:?}", a.placement)),
            ];
            let fields: Vec<String> = fields.into_iter().flatten().collect();
            format!("{}: {}", a.slug, fields.join(", "))
        })
        .collect()
}

#[test]
fn every_example_fleet_parses_resolves_and_plans() {
    let mut seen = 0;
    for entry in std::fs::read_dir(examples_dir()).expect("share/examples/fleets") {
        let path = entry.expect("entry").path();
        let file = path.display().to_string();
        if Syntax::of(&file).is_none() {
            continue;
        }
        let text = std::fs::read_to_string(&path).expect("readable");
        let manifest = parse(&file, &text).unwrap_or_else(|e| panic!("{e}"));
        let resolved = run(&manifest).unwrap_or_else(|e| panic!("{e}"));
        let plans = plan_worktrees(&manifest.slug, "berth/", &resolved.agents);
        assert_eq!(
            plans.len(),
            resolved.agents.len(),
            "{file}: one worktree per agent"
        );
        seen += 1;
    }
    assert_eq!(seen, 4, "two fleets, each in YAML and TOML");
}

#[test]
fn each_example_says_the_same_in_yaml_and_toml() {
    for stem in ["review-and-fix", "multi-review"] {
        let from_yaml = run(&yaml(&example(&format!("{stem}.yaml"))).unwrap()).unwrap();
        let from_toml = run(&toml(&example(&format!("{stem}.toml"))).unwrap()).unwrap();
        assert_eq!(summary(&from_yaml), summary(&from_toml), "{stem}");
    }
    let r = run(&yaml(&example("review-and-fix.yaml")).unwrap()).unwrap();
    assert_eq!(
        summary(&r),
        [
            "api-tests: type=claude (agent), repos=[\"git@github.com:org/api.git\"] (agent), \
             prompt=\"Fix failing tests\" (agent), ssh=true (agent), \
             Worktree { group: \"api-tests\" }",
            "frontend-lint: type=codex (agent), repos=[\"git@github.com:org/frontend.git\"] \
             (agent), prompt=\"Fix lint errors\" (agent), Worktree { group: \"frontend-lint\" }",
        ]
    );
}

#[test]
fn the_seed_s_yaml_examples_are_kept_as_the_seed_wrote_them() {
    let seed = example("multi-review.yaml");
    assert!(seed.contains("    type: codex          # per-agent override wins over defaults\n"));
    assert!(
        example("review-and-fix.yaml")
            .contains("    prompt: \"Fix failing tests\"\n\n  - name: frontend-lint\n")
    );
}

#[test]
fn a_document_nested_past_reason_is_refused_not_a_crash() {
    let n = 100_000;
    let deep = format!("{}{}", "[".repeat(n), "]".repeat(n));
    assert_eq!(
        toml_err(&format!("a = {deep}\n")),
        "fleet.toml:1:85: not valid TOML: cannot recurse further; max recursion depth met"
    );
    assert_eq!(
        yaml_err(&format!("a: {deep}\n")),
        "fleet.yaml:1:259: not valid YAML: recursion limit exceeded"
    );
}
