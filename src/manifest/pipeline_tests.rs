//! The pipeline rules, each pinned with the error's full text where there is one: flat steps and
//! stages, `models` fan-out and the `depends_on` it expands, sub-pipelines read through fake
//! files, the judge's three rules and defaults, unknown stages, cycles, the rejected fields, and
//! the examples in share/examples/pipelines/.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use super::*;
use crate::orchestrator::runtime::Runtime;

/// A file system holding exactly `files`.
struct Fake(HashMap<PathBuf, String>);

impl Fake {
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

fn knows_all(from: InferFrom) -> Result<String, String> {
    Ok(match from {
        InferFrom::Repo => "git@example.org:org/here.git".to_owned(),
        InferFrom::Pr => "42".to_owned(),
    })
}

const RUN_DIR: &str = "/repo/.git/berth/runs/p/1/shared";

fn plan_in(
    file: &str,
    text: &str,
    vars: &[(&str, &str)],
    files: &dyn Files,
) -> Result<PipelinePlan, ManifestError> {
    let pipeline = parse_pipeline(file, text)?;
    let vars: Vec<(String, String)> = vars
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    let ctx = Context {
        vars: &vars,
        fleet_dir: RUN_DIR,
        config_home: Some(Path::new("/home/ada/.config")),
    };
    plan_pipeline(&pipeline, &ctx, files, &knows_all)
}

fn plan(text: &str) -> PipelinePlan {
    plan_in("p.yaml", text, &[], &Fake::with(&[])).unwrap_or_else(|e| panic!("{e}"))
}

fn plan_err(text: &str) -> String {
    plan_in("p.yaml", text, &[], &Fake::with(&[]))
        .expect_err("should be refused")
        .to_string()
}

fn parse_err(file: &str, text: &str) -> String {
    parse_pipeline(file, text)
        .expect_err("should be refused")
        .to_string()
}

/// Each stage as `name <- deps [model]: agents` or `name <- deps: judge of candidates`.
fn outline(plan: &PipelinePlan) -> Vec<String> {
    plan.stages
        .iter()
        .map(|stage| {
            let model = stage
                .model
                .as_ref()
                .map_or(String::new(), |m| format!(" [{m}]"));
            let what = match &stage.kind {
                StageKind::Agents(agents) => {
                    let names: Vec<&str> = agents.iter().map(|a| a.slug.as_str()).collect();
                    names.join(", ")
                }
                StageKind::Judge(judge) => format!("judge of {}", judge.candidates.join(", ")),
            };
            format!(
                "{} <- [{}]{model}: {what}",
                stage.name,
                stage.depends_on.join(", ")
            )
        })
        .collect()
}

fn agents_of<'p>(plan: &'p PipelinePlan, stage: &str) -> &'p [AgentSpec] {
    let found = plan.stages.iter().find(|s| s.name == stage);
    match found.map(|s| &s.kind) {
        Some(StageKind::Agents(agents)) => agents,
        _ => panic!("no stage of agents named {stage}"),
    }
}

fn judge_of<'p>(plan: &'p PipelinePlan, stage: &str) -> &'p JudgePlan {
    let found = plan.stages.iter().find(|s| s.name == stage);
    match found.map(|s| &s.kind) {
        Some(StageKind::Judge(judge)) => judge,
        _ => panic!("no judge named {stage}"),
    }
}

// ---------------------------------------------------------------------------------------------
// Fleet or pipeline

#[test]
fn a_fleet_still_refuses_steps_and_says_how_to_run_a_pipeline() {
    assert_eq!(
        parse("fleet.yaml", "name: f\nsteps:\n  - name: a\n")
            .unwrap_err()
            .to_string(),
        "fleet.yaml:2:1: steps: a pipeline field, refused in a fleet: this manifest is a \
         pipeline (it lists steps); run it with git berth pipeline run"
    );
    assert_eq!(
        parse("fleet.toml", "name = \"f\"\n[[stages]]\nname = \"a\"\n")
            .unwrap_err()
            .to_string(),
        "fleet.toml:2:3: stages: a pipeline field, refused in a fleet: this manifest is a \
         pipeline (it lists stages); run it with git berth pipeline run"
    );
}

#[test]
fn a_pipeline_refuses_a_fleet_s_agents() {
    assert_eq!(
        parse_err("p.yaml", "name: f\nagents:\n  - name: a\n"),
        "p.yaml:2:1: agents: a fleet field, refused in a pipeline: this manifest is a fleet (it \
         lists agents); start it with git berth fleet up"
    );
    assert_eq!(
        parse_err("p.yaml", "name: p\n"),
        "p.yaml:1:1: stages: required: the pipeline's steps or stages"
    );
}

#[test]
fn a_manifest_is_a_fleet_or_a_pipeline_never_both() {
    let both = "name: x\nagents:\n  - name: a\n    type: claude\nsteps:\n  - name: b\n";
    let expected = "x.yaml:5:1: steps: a manifest is a fleet (agents) or a pipeline (steps or \
                    stages), not both, and this one lists agents too";
    assert_eq!(parse_err("x.yaml", both), expected);
    assert_eq!(
        parse_document("x.yaml", both).unwrap_err().to_string(),
        expected
    );
    assert_eq!(
        parse_err(
            "x.toml",
            "name = \"x\"\n[[stages]]\nname = \"a\"\n[[agents]]\nname = \"b\"\n"
        ),
        "x.toml:4:3: agents: a manifest is a fleet (agents) or a pipeline (steps or stages), \
         not both, and this one lists stages too"
    );
    assert_eq!(
        parse_err("x.yaml", "name: x\nstages: []\nsteps: []\n"),
        "x.yaml:3:1: steps: a pipeline lists steps or stages, not both, and this one lists \
         stages too"
    );
}

#[test]
fn a_document_is_read_as_whichever_kind_it_is() {
    let fleet = parse_document("f.yaml", "name: f\nagents:\n  - name: a\n").unwrap();
    assert!(matches!(fleet, Document::Fleet(_)));
    let pipeline = parse_document("p.yaml", "name: p\nsteps:\n  - name: a\n").unwrap();
    assert!(matches!(pipeline, Document::Pipeline(_)));
    assert_eq!(
        parse_document("n.yaml", "name: n\n")
            .unwrap_err()
            .to_string(),
        "n.yaml:1:1: agents: required: the list of agents to start (a fleet), or steps or \
         stages (a pipeline)"
    );
}

// ---------------------------------------------------------------------------------------------
// Steps and stages

#[test]
fn each_flat_step_is_its_own_single_agent_stage() {
    let p = plan(
        "name: t\nsteps:\n  - name: fix\n    type: claude\n    prompt: fix\n    depends_on: \
         test\n  - name: test\n    type: codex\n    prompt: test\n",
    );
    assert_eq!(outline(&p), ["test <- []: test", "fix <- [test]: fix"]);
    let fix = &agents_of(&p, "fix")[0];
    assert_eq!(fix.path, "steps[0]");
    assert_eq!(fix.runtime.value, Runtime::Claude);
    assert_eq!(fix.prompt.as_ref().unwrap().path, "steps[0].prompt");
    assert_eq!(p.stages[1].path, "steps[0]");
    assert_eq!(p.stages[1].at.to_string(), "p.yaml:3:11");
}

#[test]
fn a_step_depends_on_one_step_named_by_a_string() {
    assert_eq!(
        parse_err(
            "p.yaml",
            "name: t\nsteps:\n  - name: a\n    type: pi\n    depends_on: [b]\n"
        ),
        "p.yaml:5:17: steps[0].depends_on: expected the name of one step (a step depends on \
         one; stages take a list), found a list"
    );
    assert_eq!(
        parse_err(
            "p.yaml",
            "name: t\nsteps:\n  - name: a\n    pipeline: ./x.yaml\n"
        ),
        "p.yaml:4:5: steps[0].pipeline: a step is one agent; a sub-pipeline runs in place of a \
         stage, so list stages to run one"
    );
}

#[test]
fn stages_run_their_agents_together_in_dependency_order() {
    let p = plan(
        "name: s\ndefaults:\n  type: claude\nstages:\n  - name: fix\n    depends_on: [review, \
         lint]\n    agents:\n      - name: fixer\n  - name: review\n    agents:\n      - name: \
         a\n      - name: b\n  - name: lint\n    agents:\n      - name: linter\n",
    );
    assert_eq!(
        outline(&p),
        [
            "review <- []: a, b",
            "lint <- []: linter",
            "fix <- [review, lint]: fixer"
        ]
    );
    assert_eq!(agents_of(&p, "review")[1].path, "stages[1].agents[1]");
    assert_eq!(
        agents_of(&p, "review")[1].runtime.path,
        "defaults.type".to_owned()
    );
}

#[test]
fn ties_in_dependency_order_keep_the_order_written() {
    let p = plan(
        "name: s\ndefaults:\n  type: pi\nsteps:\n  - name: c\n    depends_on: a\n  - name: \
         b\n  - name: a\n  - name: d\n    depends_on: b\n",
    );
    let names: Vec<&str> = p.stages.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["b", "a", "c", "d"]);
}

#[test]
fn an_unknown_stage_key_is_named_with_the_nearest_known_one() {
    assert_eq!(
        parse_err("p.yaml", "name: s\nstages:\n  - name: a\n    agent: []\n"),
        "p.yaml:4:5: stages[0].agent: unknown field; did you mean 'agents'?"
    );
    assert_eq!(
        parse_err(
            "p.yaml",
            "name: s\nstages:\n  - name: a\n    dependson: [b]\n"
        ),
        "p.yaml:4:5: stages[0].dependson: unknown field; did you mean 'depends_on'?"
    );
    assert_eq!(
        parse_err("p.yaml", "name: s\nstages:\n  - name: a\n    prompt: go\n"),
        "p.yaml:4:5: stages[0].prompt: an agent field on a stage: write it on the stage's \
         agents, or under defaults to give every agent prompt"
    );
}

#[test]
fn a_stage_runs_something_and_has_a_name() {
    assert_eq!(
        parse_err("p.yaml", "name: s\nstages:\n  - name: a\n"),
        "p.yaml:3:5: stages[0]: a stage runs agents, a sub-pipeline (pipeline) or a judge; give \
         it one"
    );
    assert_eq!(
        parse_err("p.yaml", "name: s\nstages:\n  - agents: []\n"),
        "p.yaml:3:5: stages[0].name: required: the stage's name"
    );
    assert_eq!(
        parse_err("p.yaml", "name: s\nstages:\n  - name: a\n    agents: []\n"),
        "p.yaml:4:13: stages[0].agents: lists no agent; a stage of agents runs at least one"
    );
    assert_eq!(
        parse_err("p.yaml", "name: s\nsteps: []\n"),
        "p.yaml:2:8: steps: lists no step; a pipeline runs at least one"
    );
}

#[test]
fn stage_names_are_unique_after_slugging() {
    assert_eq!(
        parse_err(
            "p.yaml",
            "name: s\nsteps:\n  - name: build docs\n    type: pi\n  - name: build-docs\n    \
             type: pi\n"
        ),
        "p.yaml:5:11: steps[1].name: 'build-docs' and steps[0]'s 'build docs' both slug to \
         'build-docs'; two names that slug alike are refused, not merged"
    );
}

#[test]
fn a_stage_field_on_a_stage_agent_or_in_defaults_belongs_on_the_stage() {
    assert_eq!(
        parse_err(
            "p.yaml",
            "name: s\nstages:\n  - name: a\n    agents:\n      - name: x\n        depends_on: \
             [b]\n"
        ),
        "p.yaml:6:9: stages[0].agents[0].depends_on: a stage field: write depends_on on the \
         stage, not on one of its agents"
    );
    assert_eq!(
        parse_err(
            "p.yaml",
            "name: s\ndefaults:\n  models: [claude]\nsteps:\n  - name: a\n"
        ),
        "p.yaml:3:3: defaults.models: a stage field: write models on the stage, not on defaults"
    );
}

#[test]
fn the_rejected_control_fields_are_refused_in_steps_stages_agents_and_judges() {
    let cases = [
        (
            "name: s\nsteps:\n  - name: a\n    retry: 2\n",
            "p.yaml:4:5: steps[0].retry: unsupported control field, refused rather than \
             ignored: each agent runs once, unconditionally",
        ),
        (
            "name: s\nstages:\n  - name: a\n    when: always\n",
            "p.yaml:4:5: stages[0].when: unsupported control field, refused rather than \
             ignored: each agent runs once, unconditionally",
        ),
        (
            "name: s\nstages:\n  - name: a\n    agents:\n      - name: x\n        outputs: \
             [x]\n",
            "p.yaml:6:9: stages[0].agents[0].outputs: unsupported control field, refused \
             rather than ignored: each agent runs once, unconditionally",
        ),
        (
            "name: s\nsteps:\n  - name: a\n    judge:\n      on_failure: stop\n",
            "p.yaml:5:7: steps[0].judge.on_failure: unsupported control field, refused rather \
             than ignored; for a command run when the agent fails, use on_fail",
        ),
        (
            "name: s\nretry: 1\nsteps:\n  - name: a\n",
            "p.yaml:2:1: retry: unsupported control field, refused rather than ignored: each \
             agent runs once, unconditionally",
        ),
    ];
    for (text, expected) in cases {
        assert_eq!(parse_err("p.yaml", text), expected);
    }
    assert_eq!(
        parse_err(
            "p.toml",
            "name = \"s\"\n[[stages]]\nname = \"a\"\non_failure = \"x\"\n"
        ),
        "p.toml:4:1: stages[0].on_failure: unsupported control field, refused rather than \
         ignored; for a command run when the agent fails, use on_fail"
    );
}

// ---------------------------------------------------------------------------------------------
// Dependencies

#[test]
fn an_unknown_stage_in_depends_on_is_refused_naming_it() {
    assert_eq!(
        plan_err(
            "name: s\ndefaults:\n  type: pi\nsteps:\n  - name: test\n  - name: fix\n    depends_on: tes\n"
        ),
        "p.yaml:7:17: steps[1].depends_on: no stage is named 'tes'; did you mean 'test'?"
    );
    assert_eq!(
        plan_err(
            "name: s\ndefaults:\n  type: pi\nstages:\n  - name: a\n    depends_on: [zzz]\n    \
             agents:\n      - name: x\n"
        ),
        "p.yaml:6:18: stages[0].depends_on[0]: no stage is named 'zzz'; the stages are a"
    );
}

#[test]
fn a_dependency_cycle_is_refused_naming_its_stages_in_order() {
    assert_eq!(
        plan_err(
            "name: s\ndefaults:\n  type: pi\nsteps:\n  - name: a\n    depends_on: c\n  - name: \
             b\n    depends_on: a\n  - name: c\n    depends_on: b\n"
        ),
        "p.yaml:6:17: steps[0].depends_on: a dependency cycle: a -> c -> b -> a; a stage cannot \
         wait for itself"
    );
    assert_eq!(
        plan_err(
            "name: s\ndefaults:\n  type: pi\nstages:\n  - name: free\n    agents: [{name: \
             f}]\n  - name: loop\n    depends_on: [free, loop]\n    agents: [{name: l}]\n"
        ),
        "p.yaml:8:24: stages[1].depends_on[1]: a dependency cycle: loop -> loop; a stage \
         cannot wait for itself"
    );
}

// ---------------------------------------------------------------------------------------------
// models fan-out

#[test]
fn models_copies_the_stage_per_model_and_depends_on_expands_to_every_copy() {
    let p = plan(
        "name: s\nstages:\n  - name: implement\n    models: [claude, codex]\n    agents:\n      \
         - name: coder\n        prompt: \"You are ${model}\"\n      - name: tester\n  - name: \
         merge\n    depends_on: [implement]\n    agents:\n      - name: merger\n        type: \
         pi\n",
    );
    assert_eq!(
        outline(&p),
        [
            "implement-claude <- [] [claude]: coder-claude, tester-claude",
            "implement-codex <- [] [codex]: coder-codex, tester-codex",
            "merge <- [implement-claude, implement-codex]: merger",
        ]
    );
    let coder = &agents_of(&p, "implement-codex")[0];
    assert_eq!(coder.name.value, "coder-codex");
    assert_eq!(coder.runtime.value, Runtime::Codex);
    assert_eq!(coder.runtime.layer, Layer::Models);
    assert_eq!(coder.runtime.path, "stages[0].models[1]");
    assert_eq!(coder.prompt.as_ref().unwrap().value, "You are codex");
    assert_eq!(
        coder.placement,
        Placement::Worktree {
            group: "coder-codex".to_owned()
        }
    );
    assert!(p.bindings.iter().all(|b| b.key != "model"));
}

#[test]
fn a_models_entry_wins_over_a_written_type_and_says_so() {
    let p = plan("name: s\nsteps:\n  - name: a\n    type: pi\n    models: [claude]\n");
    assert_eq!(agents_of(&p, "a-claude")[0].runtime.value, Runtime::Claude);
    assert_eq!(
        p.warnings,
        ["p.yaml:4:11: steps[0].type: not used: stage 'a' sets each agent's type from its models"]
    );
}

#[test]
fn models_are_runtimes_listed_once() {
    assert_eq!(
        parse_err(
            "p.yaml",
            "name: s\nsteps:\n  - name: a\n    models: [claude, claude]\n"
        ),
        "p.yaml:4:22: steps[0].models[1]: 'claude' is listed twice; each entry runs one copy of \
         the stage"
    );
    assert_eq!(
        parse_err(
            "p.yaml",
            "name: s\nsteps:\n  - name: a\n    models: [gpt]\n"
        ),
        "p.yaml:4:14: steps[0].models[0]: expected one of claude, codex, opencode, pi, shell, \
         found 'gpt'"
    );
    assert_eq!(
        parse_err("p.yaml", "name: s\nsteps:\n  - name: a\n    models: []\n"),
        "p.yaml:4:13: steps[0].models: lists no model; list the runtimes to run a copy of the \
         stage with"
    );
}

#[test]
fn model_is_unset_outside_a_fan_out_and_still_reserved() {
    assert_eq!(
        plan_err("name: s\nsteps:\n  - name: a\n    type: pi\n    prompt: \"${model}\"\n"),
        "p.yaml:5:13: steps[0].prompt: unresolved '${model}': berth sets ${model} in a pipeline \
         stage that fans out over models, not in a stage without models"
    );
    assert_eq!(
        parse_err(
            "p.yaml",
            "name: s\nvars:\n  model: x\nsteps:\n  - name: a\n"
        ),
        "p.yaml:3:3: vars.model: 'model' is reserved: berth sets ${model} in a pipeline stage \
         that fans out over models"
    );
}

#[test]
fn names_that_fan_out_into_one_another_are_refused() {
    assert_eq!(
        plan_err("name: s\nsteps:\n  - name: a\n    models: [pi]\n  - name: a-pi\n    type: pi\n"),
        "p.yaml:5:11: steps[1].name: this stage becomes 'a-pi', which steps[0] (p.yaml:3:11) \
         becomes too; rename one"
    );
    assert_eq!(
        plan_err(
            "name: s\ndefaults:\n  type: pi\nstages:\n  - name: one\n    agents: [{name: x}]\n  \
             - name: two\n    agents: [{name: x}]\n"
        ),
        "p.yaml:8:21: stages[1].agents[0].name: this agent becomes 'x', as stages[0].agents[0] \
         of stage 'one' (p.yaml:6:21) does; each agent has its own worktree and log, so agents' \
         names are unique across a pipeline"
    );
}

// ---------------------------------------------------------------------------------------------
// Sub-pipelines

const PARENT: &str = "name: main\nvars:\n  focus: speed\ndefaults:\n  type: claude\n  ssh: \
                      true\nstages:\n  - name: first\n    agents: [{name: a}]\n  - name: nested\n    \
                      depends_on: [first]\n    pipeline: ./sub/inner.yaml\n  - name: last\n    \
                      depends_on: [nested]\n    agents: [{name: z}]\n";

const INNER: &str = "name: inner\nvars:\n  focus: ignored\n  own: mine\ndefaults:\n  type: \
                     codex\nstages:\n  - name: check\n    agents:\n      - name: c\n        \
                     prompt: \"${focus} ${own}\"\n  - name: report\n    depends_on: [check]\n    \
                     agents: [{name: r, type: pi}]\n  - name: side\n    agents: [{name: s}]\n";

#[test]
fn a_sub_pipeline_is_read_relative_to_its_parent_and_runs_in_place_of_the_stage() {
    let files = Fake::with(&[("pipes/sub/inner.yaml", INNER)]);
    let p = plan_in("pipes/main.yaml", PARENT, &[], &files).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        outline(&p),
        [
            "first <- []: a",
            "nested-check <- [first]: nested-c",
            "nested-report <- [nested-check]: nested-r",
            "nested-side <- [first]: nested-s",
            "last <- [nested-report, nested-side]: z",
        ]
    );
    let c = &agents_of(&p, "nested-check")[0];
    // The parent's vars win; the sub-pipeline's own fill in the rest.
    assert_eq!(c.prompt.as_ref().unwrap().value, "speed mine");
    assert_eq!(
        c.prompt.as_ref().unwrap().at.to_string(),
        "pipes/sub/inner.yaml:11:17"
    );
    // Its own defaults first, then its parent's.
    assert_eq!(c.runtime.value, Runtime::Codex);
    assert_eq!(c.runtime.at.file.as_ref(), "pipes/sub/inner.yaml");
    let ssh = c.ssh.as_ref().unwrap();
    assert!(ssh.value);
    assert_eq!(ssh.at.file.as_ref(), "pipes/main.yaml");
    assert!(p.warnings.is_empty());
}

#[test]
fn a_missing_sub_pipeline_names_the_path_it_looked_at() {
    assert_eq!(
        plan_in("pipes/main.yaml", PARENT, &[], &Fake::with(&[]))
            .unwrap_err()
            .to_string(),
        "pipes/main.yaml:12:15: stages[1].pipeline: no sub-pipeline at pipes/sub/inner.yaml (a \
         path is relative to the folder of the manifest that names it)"
    );
    let fleet = Fake::with(&[("pipes/sub/inner.yaml", "name: f\nagents:\n  - name: a\n")]);
    assert_eq!(
        plan_in("pipes/main.yaml", PARENT, &[], &fleet)
            .unwrap_err()
            .to_string(),
        "pipes/sub/inner.yaml:2:1: agents: a fleet field, refused in a pipeline: this manifest \
         is a fleet (it lists agents); start it with git berth fleet up"
    );
}

#[test]
fn a_sub_pipeline_that_includes_itself_is_refused() {
    let files = Fake::with(&[
        (
            "a.yaml",
            "name: a\nstages:\n  - name: b\n    pipeline: sub/../b.yaml\n",
        ),
        (
            "b.yaml",
            "name: b\nstages:\n  - name: again\n    pipeline: ./a.yaml\n",
        ),
    ]);
    let text = files.0[Path::new("a.yaml")].clone();
    assert_eq!(
        plan_in("a.yaml", &text, &[], &files)
            .unwrap_err()
            .to_string(),
        "b.yaml:4:15: stages[0].pipeline: the sub-pipeline includes itself (a.yaml -> b.yaml \
         -> a.yaml); a pipeline cannot run inside itself"
    );
}

#[test]
fn a_stage_with_a_pipeline_and_agents_runs_the_pipeline_and_warns() {
    let parent = "name: main\nstages:\n  - name: nested\n    pipeline: inner.yaml\n    agents:\n      \
                  - name: ignored\n        bogus: field\n";
    let files = Fake::with(&[(
        "inner.yaml",
        "name: inner\nsteps:\n  - name: only\n    type: pi\n",
    )]);
    let p = plan_in("main.yaml", parent, &[], &files).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(outline(&p), ["nested-only <- []: nested-only"]);
    assert_eq!(
        p.warnings,
        [
            "main.yaml:5:5: stages[0].agents: not used: stage 'nested' runs the sub-pipeline \
          inner.yaml in place of its own agents"
        ]
    );
}

#[test]
fn a_sub_pipeline_s_own_worktree_settings_are_not_used_and_say_so() {
    let files = Fake::with(&[(
        "inner.yaml",
        "name: inner\nworktree_base: dev\nsteps:\n  - name: only\n    type: pi\n",
    )]);
    let p = plan_in(
        "main.yaml",
        "name: main\nstages:\n  - name: n\n    pipeline: inner.yaml\n",
        &[],
        &files,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        p.warnings,
        [
            "inner.yaml:2:16: worktree_base: not used: a sub-pipeline's agents take the worktree \
          settings of the pipeline that runs it"
        ]
    );
}

#[test]
fn a_sub_pipeline_stage_takes_no_models() {
    assert_eq!(
        parse_err(
            "p.yaml",
            "name: s\nstages:\n  - name: n\n    pipeline: x.yaml\n    models: [pi]\n"
        ),
        "p.yaml:5:5: stages[0].models: models copies a stage's own agents, and a sub-pipeline \
         stage has none; fan out inside x.yaml"
    );
}

// ---------------------------------------------------------------------------------------------
// The judge

#[test]
fn a_judge_lists_the_candidates_of_the_stages_it_depends_on() {
    let p = plan(
        "name: s\nsteps:\n  - name: implement\n    models: [claude, codex]\n    prompt: go\n  - \
         name: pick\n    judge:\n      criteria: \"tests first, for ${who}\"\n      auto_pr: \
         true\n      base: dev\n      max_diff: 500\n    depends_on: implement\nvars:\n  who: \
         us\n",
    );
    assert_eq!(
        outline(&p),
        [
            "implement-claude <- [] [claude]: implement-claude",
            "implement-codex <- [] [codex]: implement-codex",
            "pick <- [implement-claude, implement-codex]: judge of implement-claude, \
             implement-codex",
        ]
    );
    let judge = judge_of(&p, "pick");
    assert_eq!(judge.criteria.value, "tests first, for us");
    assert_eq!(judge.criteria.path, "steps[1].judge.criteria");
    assert!(judge.auto_pr.value);
    assert_eq!(judge.base.value, "dev");
    assert_eq!(judge.max_diff.value, 500);
    assert_eq!(
        judge.max_diff.at.as_ref().unwrap().to_string(),
        "p.yaml:11:17"
    );
}

#[test]
fn a_judge_s_unset_fields_take_the_seed_s_defaults() {
    let p = plan(
        "name: s\ndefaults:\n  type: pi\nstages:\n  - name: try\n    agents: [{name: a}, {name: \
         b}]\n  - name: pick\n    depends_on: [try]\n    judge: {}\n",
    );
    let judge = judge_of(&p, "pick");
    assert_eq!(judge.candidates, ["a", "b"]);
    assert_eq!(judge.criteria.value, stage::DEFAULT_CRITERIA);
    assert_eq!(judge.criteria.at, None);
    assert!(!judge.auto_pr.value);
    assert_eq!(judge.base.value, "main");
    assert_eq!(judge.max_diff.value, 12_000);
    assert_eq!(judge.max_diff.path, "stages[1].judge.max_diff");
}

#[test]
fn a_judge_needs_at_least_two_candidates() {
    assert_eq!(
        plan_err(
            "name: s\nsteps:\n  - name: one\n    type: pi\n  - name: pick\n    depends_on: one\n    \
             judge: {}\n"
        ),
        "p.yaml:6:17: steps[1].depends_on: a judge depends on stages that make at least two \
         candidates in all (a models fan-out, or several agents), and 'one' makes 1 candidate"
    );
    assert_eq!(
        plan_err("name: s\nsteps:\n  - name: pick\n    judge: {}\n"),
        "p.yaml:3:5: steps[0].depends_on: a judge depends on stages that make at least two \
         candidates in all (a models fan-out, or several agents), and it depends on no stage"
    );
    // Two stages of one agent each make two.
    let p = plan(
        "name: s\ndefaults:\n  type: pi\nstages:\n  - name: a\n    agents: [{name: x}]\n  - \
         name: b\n    agents: [{name: y}]\n  - name: pick\n    depends_on: [a, b]\n    judge: {}\n",
    );
    assert_eq!(judge_of(&p, "pick").candidates, ["x", "y"]);
}

#[test]
fn a_judge_carries_nothing_of_its_own() {
    let rule = "a judge stage carries no prompt, template, repo, type, instructions, profile, \
                models, agents or pipeline of its own: it judges the candidates of the stages it \
                depends on";
    let cases = [
        (
            "name: s\nsteps:\n  - name: pick\n    prompt: pick one\n    judge: {}\n",
            format!("p.yaml:4:5: steps[0].prompt: {rule}"),
        ),
        (
            "name: s\nsteps:\n  - name: pick\n    judge: {}\n    models: [claude, codex]\n",
            format!("p.yaml:5:14: steps[0].models: {rule}"),
        ),
        (
            "name: s\nstages:\n  - name: pick\n    judge: {}\n    agents: [{name: a}]\n",
            format!("p.yaml:5:5: stages[0].agents: {rule}"),
        ),
        (
            "name: s\nstages:\n  - name: pick\n    type: claude\n    judge: {}\n",
            format!("p.yaml:4:5: stages[0].type: {rule}"),
        ),
        (
            "name: s\nstages:\n  - name: pick\n    judge: {}\n    pipeline: x.yaml\n",
            format!("p.yaml:5:5: stages[0].pipeline: {rule}"),
        ),
    ];
    for (text, expected) in cases {
        assert_eq!(parse_err("p.yaml", text), expected);
    }
}

#[test]
fn a_judge_depends_on_no_sub_pipeline_and_no_other_judge() {
    assert_eq!(
        plan_err(
            "name: s\ndefaults:\n  type: pi\nstages:\n  - name: try\n    agents: [{name: a}, \
             {name: b}]\n  - name: pick\n    depends_on: [try]\n    judge: {}\n  - name: \
             again\n    depends_on: [try, pick]\n    judge: {}\n"
        ),
        "p.yaml:11:23: stages[2].depends_on[1]: 'pick' is a judge: a judge cannot depend on \
         another judge or a sub-pipeline stage; depend on the stages whose agents it judges"
    );
    assert_eq!(
        plan_err(
            "name: s\nstages:\n  - name: sub\n    pipeline: x.yaml\n  - name: pick\n    \
             depends_on: [sub]\n    judge: {}\n"
        ),
        "p.yaml:6:18: stages[1].depends_on[0]: 'sub' runs a sub-pipeline: a judge cannot \
         depend on a sub-pipeline stage or another judge; depend on the stages whose agents it \
         judges"
    );
}

#[test]
fn a_judge_block_is_checked_field_by_field() {
    assert_eq!(
        parse_err(
            "p.yaml",
            "name: s\nsteps:\n  - name: p\n    judge:\n      criterion: x\n"
        ),
        "p.yaml:5:7: steps[0].judge.criterion: unknown field; did you mean 'criteria'?"
    );
    assert_eq!(
        parse_err(
            "p.yaml",
            "name: s\nsteps:\n  - name: p\n    judge:\n      max_diff: 0\n"
        ),
        "p.yaml:5:17: steps[0].judge.max_diff: expected a number of bytes, more than 0, found \
         the integer 0"
    );
    assert_eq!(
        parse_err("p.yaml", "name: s\nsteps:\n  - name: p\n    judge: yes\n"),
        "p.yaml:4:12: steps[0].judge: expected a map of fields, found the string 'yes'"
    );
}

// ---------------------------------------------------------------------------------------------
// Worktrees

#[test]
fn worktree_groups_apply_across_the_pipeline() {
    let p = plan(
        "name: s\ndefaults:\n  type: pi\nsteps:\n  - name: write\n    worktree: shared\n  - \
         name: check\n    worktree: shared\n    depends_on: write\n  - name: alone\n  - name: \
         notes\n    worktree: false\n",
    );
    let plans = p.worktrees("berth/");
    let summary: Vec<(String, String, Vec<String>)> = plans
        .into_iter()
        .map(|w| (w.group, w.branch, w.agents))
        .collect();
    assert_eq!(
        summary,
        [
            (
                "shared".to_owned(),
                "berth/s/shared".to_owned(),
                vec!["write".to_owned(), "check".to_owned()]
            ),
            (
                "alone".to_owned(),
                "berth/s/alone".to_owned(),
                vec!["alone".to_owned()]
            ),
        ]
    );
    assert_eq!(p.agents().count(), 4);
}

// ---------------------------------------------------------------------------------------------
// The examples

fn examples_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("share/examples/pipelines")
}

/// The disk, as the command reads it.
fn disk(path: &Path) -> Result<Option<String>, String> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e.to_string()),
    }
}

fn plan_example(name: &str) -> PipelinePlan {
    let path = examples_dir().join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
    plan_in(
        &path.display().to_string(),
        &text,
        &[("task", "add a --json flag")],
        &disk,
    )
    .unwrap_or_else(|e| panic!("{e}"))
}

/// A plan without the places: two syntaxes of one pipeline say the same.
fn unplaced(plan: &PipelinePlan) -> Vec<String> {
    let mut lines = outline(plan);
    for agent in plan.agents() {
        lines.push(format!(
            "{}: {} {:?} {:?} {:?}",
            agent.slug,
            agent.runtime.value.name(),
            agent.repos.as_ref().map(|r| &r.value),
            agent.prompt.as_ref().map(|r| &r.value),
            agent.ssh.as_ref().map(|r| r.value),
        ));
    }
    for stage in &plan.stages {
        if let StageKind::Judge(judge) = &stage.kind {
            lines.push(format!(
                "{}: {} {} {} {}",
                stage.name,
                judge.criteria.value,
                judge.auto_pr.value,
                judge.base.value,
                judge.max_diff.value
            ));
        }
    }
    lines
}

#[test]
fn every_example_pipeline_parses_and_plans() {
    let mut seen = 0;
    for entry in std::fs::read_dir(examples_dir()).expect("share/examples/pipelines") {
        let path = entry.expect("entry").path();
        let file = path.display().to_string();
        if Syntax::of(&file).is_none() {
            continue;
        }
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let plan = plan_example(&name);
        assert!(plan.warnings.is_empty(), "{file}: {:?}", plan.warnings);
        assert_eq!(
            plan.worktrees("berth/").len(),
            plan.agents().count(),
            "{file}: one worktree per agent"
        );
        seen += 1;
    }
    assert_eq!(seen, 8, "four pipelines, each in YAML and TOML");
}

#[test]
fn each_example_pipeline_says_the_same_in_yaml_and_toml() {
    for stem in [
        "test-and-fix",
        "fan-out-review",
        "best-of-two",
        "sub-pipeline",
    ] {
        assert_eq!(
            unplaced(&plan_example(&format!("{stem}.yaml"))),
            unplaced(&plan_example(&format!("{stem}.toml"))),
            "{stem}"
        );
    }
    assert_eq!(
        outline(&plan_example("fan-out-review.yaml")),
        [
            "reviews <- []: sec-review, perf-review",
            "consolidate <- [reviews]: fixer",
            "nested-verify <- [consolidate]: nested-tester",
            "nested-summary <- [nested-verify]: nested-writer",
        ]
    );
    let best = plan_example("best-of-two.yaml");
    assert_eq!(
        outline(&best)[2],
        "pick-winner <- [implement-claude, implement-codex]: judge of implement-claude, \
         implement-codex"
    );
    assert_eq!(
        agents_of(&best, "implement-codex")[0]
            .prompt
            .as_ref()
            .unwrap()
            .value,
        "add a --json flag\n\nYou are candidate codex."
    );
}

#[test]
fn the_seed_s_yaml_pipelines_are_kept_as_the_seed_wrote_them() {
    let read = |name: &str| std::fs::read_to_string(examples_dir().join(name)).unwrap();
    assert!(read("fan-out-review.yaml").contains(
        "    pipeline: ./sub-pipeline.yaml     # sub-pipeline instead of inline agents\n"
    ));
    assert!(read("test-and-fix.yaml").contains("    depends_on: run-tests\n"));
    assert!(read("best-of-two.yaml").contains(
        "  - name: pick-winner\n    judge:\n      criteria: \"correctness and tests first, then \
         minimal diff\"\n"
    ));
}
