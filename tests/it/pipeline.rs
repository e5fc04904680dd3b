//! Pipelines on real repositories: `shell` agents (and stand-ins for the `claude` and `codex`
//! runtimes, which run their prompt as a shell command) in worktrees of their own, stage after
//! stage; a program judge whose verdict `git berth ship` lands; a failing agent that stops its
//! dependants and what `--resume` runs again; a sub-pipeline found beside its parent; Ctrl-C; the
//! output into a pipe and with `--json`.

use crate::common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use common::*;
use serde_json::Value;

/// A repository, and a folder beside it for manifests and scripts.
struct Fixture {
    sb: Sandbox,
    repo: PathBuf,
}

impl Fixture {
    fn new() -> Fixture {
        let sb = Sandbox::new();
        let repo = sb.repo("app");
        Fixture { sb, repo }
    }

    /// Write the manifest `file` (a path under the sandbox) beside the repository; its path.
    fn manifest(&self, file: &str, text: &str) -> String {
        let path = self.sb.root.join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, text).unwrap();
        path.display().to_string()
    }

    /// `git config <key> <value>` in the repository.
    fn config(&self, key: &str, value: &str) {
        self.sb.git(&self.repo, &["config", key, value]);
    }

    /// `pipeline run <args>` in the repository.
    fn run(&self, args: &[&str]) -> std::process::Output {
        let mut all = vec!["pipeline", "run"];
        all.extend_from_slice(args);
        self.sb.berth(&self.repo, &all)
    }

    /// The folder of run `n` of pipeline `slug`.
    fn run_dir(&self, slug: &str, n: u32) -> PathBuf {
        self.sb
            .common_dir(&self.repo)
            .join("berth/runs")
            .join(slug)
            .join(n.to_string())
    }

    /// The run's record, `run.json`.
    fn record(&self, slug: &str, n: u32) -> Value {
        let path = self.run_dir(slug, n).join("run.json");
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()));
        serde_json::from_str(&text).unwrap()
    }

    /// A file in the run's shared folder (`BERTH_FLEET_DIR`), empty when there is none.
    fn shared(&self, slug: &str, n: u32, file: &str) -> String {
        std::fs::read_to_string(self.run_dir(slug, n).join("shared").join(file)).unwrap_or_default()
    }
}

/// The stage `name` of a run's record.
fn stage<'a>(record: &'a Value, name: &str) -> &'a Value {
    record["stages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|s| s["name"] == name)
        .unwrap_or_else(|| panic!("no stage {name} in {record:#}"))
}

/// The agent `name` of a run's record, whatever its stage.
fn agent<'a>(record: &'a Value, name: &str) -> &'a Value {
    record["stages"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|s| s["agents"].as_array().unwrap())
        .find(|a| a["name"] == name)
        .unwrap_or_else(|| panic!("no agent {name} in {record:#}"))
}

fn stage_names(record: &Value) -> Vec<String> {
    record["stages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap().to_owned())
        .collect()
}

/// A stand-in for a headless runtime that checks its prompt comes last, right after `flag`
/// (`-p` for claude, `exec` for codex), and runs the prompt as a shell command.
fn runtime_stand_in(flag: &str) -> String {
    format!(
        r#"prev=; before=
for arg; do before=$prev; prev=$arg; done
test "$before" = "{flag}" || {{ echo "the prompt does not follow {flag}: $*" >&2; exit 9; }}
echo "stand-in for $(basename "$0")"
exec sh -c "$prev"
"#
    )
}

/// Give the repository stand-ins for `claude` and `codex`.
fn stand_ins(f: &Fixture) {
    let claude = write_script(
        &f.sb.root.join("bin/claude-stand-in"),
        &runtime_stand_in("-p"),
    );
    let codex = write_script(
        &f.sb.root.join("bin/codex-stand-in"),
        &runtime_stand_in("exec"),
    );
    f.config("berth.runtime.claude.command", claude.to_str().unwrap());
    f.config("berth.runtime.codex.command", codex.to_str().unwrap());
}

/// A program judge: it requires four candidates in `BERTH_JUDGE_CANDIDATES` and the criteria in
/// its prompt, keeps the candidates in `KEEP`, and picks `one-codex`, its verdict in prose.
const JUDGE: &str = r#"test "$(grep -c '"name"' "$BERTH_JUDGE_CANDIDATES")" = 4 || { echo "not 4 candidates" >&2; exit 2; }
case "$1" in *"the smallest diff"*) ;; *) echo "no criteria in the prompt" >&2; exit 3;; esac
cp "$BERTH_JUDGE_CANDIDATES" KEEP
echo "All four work; one-codex is the smallest."
echo '{"winner": "one-codex", "ranking": ["one-codex", "two-codex", "one-claude", "two-claude"], "reasons": "smallest diff"}'
"#;

/// Three stages of four agents each: `prep` (shell), `impl` (two agents fanned out over
/// `claude` and `codex`, each committing a file named after itself) and `check` (shell, after
/// `impl`), and a judge of `impl`'s four candidates.
const TRIO: &str = r#"name: trio
defaults:
  type: shell
stages:
  - name: prep
    agents:
      - name: p1
        prompt: echo p1 >> $BERTH_FLEET_DIR/prep
      - name: p2
        prompt: echo p2 >> $BERTH_FLEET_DIR/prep
      - name: p3
        prompt: echo p3 >> $BERTH_FLEET_DIR/prep
      - name: p4
        prompt: echo p4 >> $BERTH_FLEET_DIR/prep
  - name: impl
    depends_on: [prep]
    models: [claude, codex]
    agents:
      - name: one
        prompt: n=$(basename "$BERTH_AGENT_NAME"); echo "$n by ${model}" > "$n.txt" && git add "$n.txt" && git commit -qm "$n by ${model}"
      - name: two
        prompt: n=$(basename "$BERTH_AGENT_NAME"); printf '%s\n' "$n by ${model}" more lines > "$n.txt" && git add "$n.txt" && git commit -qm "$n by ${model}"
  - name: check
    depends_on: [impl]
    agents:
      - name: c1
        prompt: echo c1 >> $BERTH_FLEET_DIR/check
      - name: c2
        prompt: echo c2 >> $BERTH_FLEET_DIR/check
      - name: c3
        prompt: echo c3 >> $BERTH_FLEET_DIR/check
      - name: c4
        prompt: echo c4 >> $BERTH_FLEET_DIR/check
  - name: pick
    depends_on: [impl]
    judge:
      criteria: the smallest diff
"#;

#[test]
fn three_stages_of_four_agents_and_a_judge_end_with_a_verdict_that_ship_lands() {
    let f = Fixture::new();
    stand_ins(&f);
    let kept = f.sb.root.join("candidates.json");
    let judge = write_script(
        &f.sb.root.join("bin/judge"),
        &JUDGE.replace("KEEP", &sh_quote(kept.to_str().unwrap())),
    );
    f.config("berth.judge.command", judge.to_str().unwrap());
    let manifest = f.manifest("trio.yaml", TRIO);

    let out = f.run(&[&manifest]);
    assert!(out.status.success(), "{}", outputs(&out));
    let err = stderr(&out);
    assert!(
        err.contains("the judge picked one-codex: smallest diff"),
        "{err}"
    );
    assert!(err.contains("git berth ship trio-1/one-codex"), "{err}");

    let record = f.record("trio", 1);
    assert_eq!(record["state"], "done", "{record:#}");
    assert_eq!(
        stage_names(&record),
        ["prep", "impl-claude", "impl-codex", "check", "pick"]
    );
    assert_eq!(
        stage(&record, "check")["depends_on"],
        serde_json::json!(["impl-claude", "impl-codex"])
    );
    for name in [
        "p1",
        "p2",
        "p3",
        "p4",
        "one-claude",
        "two-claude",
        "one-codex",
        "two-codex",
        "c1",
        "c2",
        "c3",
        "c4",
    ] {
        let a = agent(&record, name);
        assert_eq!(a["state"], "done", "{a:#}");
        assert_eq!(a["exit"], 0, "{a:#}");
        assert!(Path::new(a["log"].as_str().unwrap()).is_file(), "{a:#}");
    }
    assert_eq!(agent(&record, "one-claude")["runtime"], "claude");
    assert_eq!(agent(&record, "two-codex")["runtime"], "codex");
    assert_eq!(agent(&record, "p1")["runtime"], "shell");
    // The stand-ins ran, each as its runtime's headless command line.
    let log =
        std::fs::read_to_string(agent(&record, "one-codex")["log"].as_str().unwrap()).unwrap();
    assert!(log.contains("stand-in for codex-stand-in"), "{log}");
    assert_eq!(f.shared("trio", 1, "prep").lines().count(), 4);
    assert_eq!(f.shared("trio", 1, "check").lines().count(), 4);
    let candidates: Value = serde_json::from_str(&std::fs::read_to_string(&kept).unwrap()).unwrap();
    let one_codex = candidates
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "one-codex")
        .unwrap();
    assert!(
        one_codex["diff"]
            .as_str()
            .unwrap()
            .contains("+one-codex by codex"),
        "{one_codex:#}"
    );
    assert_eq!(one_codex["branch"], "berth/trio-1/one-codex");
    // Its final message is its own output, without what its supervisor wrote after it.
    let message = one_codex["message"].as_str().unwrap();
    assert!(message.contains("stand-in for codex-stand-in"), "{message}");
    assert!(!message.contains("exited with code"), "{message}");

    let verdict: Value = serde_json::from_str(
        &std::fs::read_to_string(f.run_dir("trio", 1).join("verdict.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(verdict["winner"], "one-codex");
    assert_eq!(record["verdict"]["winner"], "one-codex");

    // The winner is approved by the judge's session, the others rejected.
    let reviews = f.sb.berth_json(&f.repo, &["review", "status", "--json"]);
    let review = |name: &str| {
        reviews["reviews"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["name"] == name)
            .unwrap_or_else(|| panic!("no review of {name} in {reviews:#}"))
            .clone()
    };
    assert_eq!(review("trio-1/one-codex")["review"], "approved");
    assert_eq!(review("trio-1/two-claude")["review"], "rejected");
    let said = f.sb.berth_ok(&f.repo, &["review", "status"]);
    assert!(said.contains("judge:trio/trio-1"), "{said}");

    // ship refuses a loser and lands the winner on the trunk.
    let refused = f.sb.berth_err(&f.repo, &["ship", "trio-1/two-claude"]);
    assert!(
        refused.contains("was rejected by judge:trio/trio-1: smallest diff"),
        "{refused}"
    );
    let before = f.sb.rev(&f.repo, "main");
    f.sb.berth_ok(&f.repo, &["ship", "trio-1/one-codex"]);
    let subjects =
        f.sb.git(&f.repo, &["log", "--format=%s", &format!("{before}..main")]);
    assert_eq!(subjects.trim(), "one-codex by codex", "{subjects}");
    assert_eq!(
        f.sb.git(&f.repo, &["show", "main:one-codex.txt"]).trim(),
        "one-codex by codex"
    );
    let on_main = f.sb.git(&f.repo, &["ls-tree", "--name-only", "main"]);
    assert!(!on_main.contains("two-claude.txt"), "{on_main}");

    // runs and inspect say the same.
    let runs = f.sb.berth_json(&f.repo, &["pipeline", "runs", "--json"]);
    assert_eq!(runs["runs"][0]["id"], "trio-1");
    assert_eq!(runs["runs"][0]["state"], "done");
    let said = f.sb.berth_ok(&f.repo, &["pipeline", "inspect", "trio-1"]);
    assert!(said.contains("run trio-1 of pipeline trio: done"), "{said}");
    assert!(said.contains("verdict: one-codex wins"), "{said}");
    assert!(said.contains("one-claude (claude): done, exit 0"), "{said}");
}

/// `first` (two agents) then `build` (a flaky agent and a steady one) then `after`: every agent
/// counts its runs in the shared folder; `flaky` fails until the shared file `fixed` exists.
const MEND: &str = r#"name: mend
defaults:
  type: shell
stages:
  - name: first
    agents:
      - name: a
        prompt: echo run >> $BERTH_FLEET_DIR/a.runs
      - name: b
        prompt: echo run >> $BERTH_FLEET_DIR/b.runs
  - name: build
    depends_on: [first]
    agents:
      - name: flaky
        prompt: echo run >> $BERTH_FLEET_DIR/flaky.runs; echo run >> fixed.txt; git add fixed.txt; git commit -qm fixed; test -f $BERTH_FLEET_DIR/fixed
      - name: steady
        prompt: echo run >> $BERTH_FLEET_DIR/steady.runs
  - name: after
    depends_on: [build]
    agents:
      - name: last
        prompt: echo run >> $BERTH_FLEET_DIR/last.runs
"#;

#[test]
fn a_failing_agent_skips_its_dependants_keeps_its_worktree_and_resume_runs_only_what_did_not_succeed()
 {
    let f = Fixture::new();
    let manifest = f.manifest("mend.yaml", MEND);

    let out = f.run(&[&manifest]);
    assert_eq!(out.status.code(), Some(1), "{}", outputs(&out));
    let err = stderr(&out);
    assert!(
        err.contains("git berth: run mend-1 failed: stage build (flaky exit 1)\n"),
        "{err}"
    );
    assert!(
        err.contains("git berth pipeline run --resume mend-1"),
        "{err}"
    );

    let record = f.record("mend", 1);
    assert_eq!(record["state"], "failed");
    assert_eq!(stage(&record, "first")["state"], "done");
    assert_eq!(stage(&record, "build")["state"], "failed");
    assert_eq!(stage(&record, "after")["state"], "skipped");
    assert_eq!(agent(&record, "steady")["state"], "done");
    let flaky = agent(&record, "flaky");
    assert_eq!(flaky["state"], "failed");
    assert_eq!(flaky["exit"], 1);
    let last = agent(&record, "last");
    assert_eq!(last["state"], "skipped");
    assert!(last["started"].is_null(), "{last:#}");
    // The skipped agent never started: its worktree was never made.
    let last_path = PathBuf::from(last["path"].as_str().unwrap());
    assert!(!last_path.exists(), "{}", last_path.display());
    assert!(!f.sb.has_branch(&f.repo, "berth/mend-1/last"));
    assert_eq!(f.shared("mend", 1, "last.runs"), "");
    // The failed agent's worktree is kept, with its commit.
    let flaky_path = PathBuf::from(flaky["path"].as_str().unwrap());
    assert!(flaky_path.join("fixed.txt").is_file());
    assert!(git_worktree_paths(&f.sb, &f.repo).contains(&flaky_path));
    let said = f.sb.berth_ok(&f.repo, &["pipeline", "inspect", "mend-1"]);
    assert!(said.contains("flaky (shell): failed, exit 1"), "{said}");
    assert!(said.contains("stage after after build: skipped"), "{said}");

    // Fix the cause, and run again what did not succeed.
    let started_a = agent(&record, "a")["started"].clone();
    std::fs::write(f.run_dir("mend", 1).join("shared/fixed"), "").unwrap();
    let out = f.run(&["--resume", "mend-1"]);
    assert!(out.status.success(), "{}", outputs(&out));
    let record = f.record("mend", 1);
    assert_eq!(record["state"], "done", "{record:#}");
    for name in ["a", "b", "flaky", "steady", "last"] {
        assert_eq!(agent(&record, name)["state"], "done", "{name}: {record:#}");
    }
    assert_eq!(agent(&record, "a")["started"], started_a);
    // What succeeded ran once; the failed agent twice; its dependant once, now.
    assert_eq!(f.shared("mend", 1, "a.runs").lines().count(), 1);
    assert_eq!(f.shared("mend", 1, "b.runs").lines().count(), 1);
    assert_eq!(f.shared("mend", 1, "steady.runs").lines().count(), 1);
    assert_eq!(f.shared("mend", 1, "flaky.runs").lines().count(), 2);
    assert_eq!(f.shared("mend", 1, "last.runs").lines().count(), 1);
    // In the same worktree, where its first run's commit still is.
    assert_eq!(
        agent(&record, "flaky")["path"].as_str().unwrap(),
        flaky_path.to_str().unwrap()
    );
    let log = f.sb.git(&flaky_path, &["log", "--format=%s", "main..HEAD"]);
    assert_eq!(log.lines().count(), 2, "{log}");
    assert!(last_path.is_dir());

    // Resuming made no new run.
    let runs = f.sb.berth_json(&f.repo, &["pipeline", "runs", "--json"]);
    assert_eq!(runs["runs"].as_array().unwrap().len(), 1, "{runs:#}");
}

#[test]
fn a_sub_pipeline_is_found_beside_its_parent_whatever_folder_the_run_starts_in() {
    let f = Fixture::new();
    f.manifest(
        "pipes/parts/checks.yaml",
        r#"name: checks
defaults:
  type: shell
stages:
  - name: lint
    agents:
      - name: linter
        prompt: echo lint >> $BERTH_FLEET_DIR/ran
  - name: test
    depends_on: [lint]
    agents:
      - name: tester
        prompt: echo test >> $BERTH_FLEET_DIR/ran
"#,
    );
    f.manifest(
        "pipes/main.yaml",
        r#"name: outer
defaults:
  type: shell
stages:
  - name: build
    agents:
      - name: builder
        prompt: echo build >> $BERTH_FLEET_DIR/ran
  - name: nested
    depends_on: [build]
    pipeline: parts/checks.yaml
  - name: ship
    depends_on: [nested]
    agents:
      - name: shipper
        prompt: echo ship >> $BERTH_FLEET_DIR/ran
"#,
    );
    // From a folder of the repository, with a path relative to it.
    let sub = f.repo.join("src");
    let out =
        f.sb.berth(&sub, &["pipeline", "run", "../../pipes/main.yaml"]);
    assert!(out.status.success(), "{}", outputs(&out));
    let record = f.record("outer", 1);
    assert_eq!(record["state"], "done", "{record:#}");
    assert_eq!(
        stage_names(&record),
        ["build", "nested-lint", "nested-test", "ship"]
    );
    assert_eq!(
        f.shared("outer", 1, "ran").lines().collect::<Vec<_>>(),
        ["build", "lint", "test", "ship"]
    );
    assert_eq!(agent(&record, "nested-tester")["state"], "done");
    assert_eq!(
        agent(&record, "nested-linter")["worktree"],
        "outer-1/nested-linter"
    );
}

#[test]
fn ctrl_c_ends_every_agent_records_the_run_as_interrupted_and_exits_130() {
    let f = Fixture::new();
    let manifest = f.manifest(
        "nap.yaml",
        r#"name: nap
defaults:
  type: shell
stages:
  - name: sleepers
    agents:
      - name: one
        prompt: sleep 30
      - name: two
        prompt: sleep 30
  - name: later
    depends_on: [sleepers]
    agents:
      - name: three
        prompt: "true"
"#,
    );
    let child =
        f.sb.berth_command(&f.repo, &["pipeline", "run", &manifest])
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
    let state = f.run_dir("nap", 1).join("state.toml");
    // The pids of both agents and their supervisors, once all four are recorded.
    let mut pids = Vec::new();
    wait_for("both agents to run", || {
        pids = recorded_pids(&state);
        pids.len() == 4
    });
    // While it runs, no other berth resumes it.
    let refused =
        f.sb.berth_err(&f.repo, &["pipeline", "run", "--resume", "nap-1"]);
    assert!(
        refused.contains("run nap-1 is running, in another git berth"),
        "{refused}"
    );
    let berth = child.id().to_string();
    let kill = std::process::Command::new("kill")
        .args(["-INT", &berth])
        .output()
        .unwrap();
    assert!(kill.status.success(), "{}", outputs(&kill));
    let out = wait_at_most(child, Duration::from_secs(15));
    assert_eq!(out.status.code(), Some(130), "{}", outputs(&out));
    let err = stderr(&out);
    assert!(
        err.contains("run nap-1 was interrupted; no agent of it is left running"),
        "{err}"
    );
    assert!(
        err.contains("git berth pipeline run --resume nap-1"),
        "{err}"
    );
    for pid in &pids {
        assert!(process_gone(*pid), "process {pid} is still running");
    }
    // Each agent's end is said, then the stage's.
    let said = stdout(&out);
    let lines: Vec<&str> = said.lines().collect();
    let one = lines
        .iter()
        .position(|l| l.starts_with("sleepers/one: interrupted"));
    let stage_end = lines
        .iter()
        .position(|l| *l == "stage sleepers: interrupted");
    assert!(one.is_some() && one < stage_end, "{said}");
    let record = f.record("nap", 1);
    assert_eq!(record["state"], "interrupted", "{record:#}");
    assert!(record["ended"].is_u64(), "{record:#}");
    assert_eq!(stage(&record, "sleepers")["state"], "interrupted");
    assert_eq!(agent(&record, "one")["state"], "interrupted");
    assert_ne!(agent(&record, "three")["state"], "done");
    let runs = f.sb.berth_json(&f.repo, &["pipeline", "runs", "--json"]);
    assert_eq!(runs["runs"][0]["state"], "interrupted");
}

/// The pids of the agents and supervisors recorded in a run's state (`state.toml`).
fn recorded_pids(state: &Path) -> Vec<u32> {
    std::fs::read_to_string(state)
        .unwrap_or_default()
        .lines()
        .filter_map(|l| {
            let (key, value) = l.split_once(" = ")?;
            matches!(key, "pid" | "supervisor").then(|| value.parse::<u32>().ok())?
        })
        .collect()
}

#[test]
fn a_run_whose_berth_was_killed_resumes_once_its_agents_have_ended() {
    let f = Fixture::new();
    let manifest = f.manifest(
        "killed.yaml",
        r#"name: killed
defaults:
  type: shell
steps:
  - name: work
    prompt: sleep 1; echo run >> $BERTH_FLEET_DIR/work.runs
  - name: after
    prompt: echo run >> $BERTH_FLEET_DIR/after.runs
    depends_on: work
"#,
    );
    let mut child =
        f.sb.berth_command(&f.repo, &["pipeline", "run", &manifest])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
    let state = f.run_dir("killed", 1).join("state.toml");
    let mut pids = Vec::new();
    wait_for("the agent to run", || {
        pids = recorded_pids(&state);
        pids.len() == 2
    });
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(f.record("killed", 1)["state"], "running");
    // Its agent runs on under its supervisor: resuming now would start it twice.
    let refused =
        f.sb.berth_err(&f.repo, &["pipeline", "run", "--resume", "killed-1"]);
    assert!(
        refused.contains(
            "was left by a git berth that ended without saying so, and its agents work (pid"
        ),
        "{refused}"
    );
    wait_for("the agent and its supervisor to end", || {
        pids.iter().all(|&pid| process_gone(pid))
    });
    let out = f.run(&["--resume", "killed-1"]);
    assert!(out.status.success(), "{}", outputs(&out));
    assert!(
        stderr(&out).contains("run killed-1 was left by a git berth that ended without saying so"),
        "{}",
        outputs(&out)
    );
    let record = f.record("killed", 1);
    assert_eq!(record["state"], "done", "{record:#}");
    assert_eq!(f.shared("killed", 1, "after.runs").lines().count(), 1);
}

#[test]
fn json_prints_a_line_per_change_then_the_record_and_a_pipe_gets_plain_lines() {
    let f = Fixture::new();
    let manifest = f.manifest(
        "pair.yaml",
        r#"name: pair
defaults:
  type: shell
steps:
  - name: first
    prompt: "true"
  - name: second
    prompt: exit 4
    depends_on: first
  - name: third
    prompt: "true"
    depends_on: second
"#,
    );
    let out = f.run(&[&manifest, "--json"]);
    assert_eq!(out.status.code(), Some(1), "{}", outputs(&out));
    let text = stdout(&out);
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: not JSON: {l}")))
        .collect();
    let (record, changes) = lines.split_last().unwrap();
    assert_eq!(record["id"], "pair-1");
    assert_eq!(record["state"], "failed");
    assert_eq!(*record, f.record("pair", 1));
    for c in changes {
        assert_eq!(c["run"], "pair-1", "{c}");
        assert!(c["stage"].is_string() && c["state"].is_string(), "{c}");
    }
    let said = |stage: &str, agent: Option<&str>, state: &str| {
        changes.iter().any(|c| {
            c["stage"] == stage
                && c.get("agent").and_then(Value::as_str) == agent
                && c["state"] == state
        })
    };
    assert!(said("first", Some("first"), "running"));
    assert!(said("first", Some("first"), "done"));
    assert!(said("second", None, "failed"));
    assert!(said("third", None, "skipped"));
    let failed = changes
        .iter()
        .find(|c| c["agent"] == "second" && c["state"] == "failed")
        .unwrap();
    assert_eq!(failed["exit"], 4);
    assert!(
        failed["log"].as_str().unwrap().ends_with("second.log"),
        "{failed}"
    );

    // Into a pipe (the test's), one plain line per change.
    let out = f.run(&[&manifest]);
    assert_eq!(out.status.code(), Some(1), "{}", outputs(&out));
    let text = stdout(&out);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "stage first: running", "{text}");
    assert!(lines.contains(&"first/first: running"), "{text}");
    assert!(
        lines.iter().any(|l| l.starts_with("first/first: done in ")),
        "{text}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("second/second: failed (exit 4) in ")
                && l.ends_with("/pair/2/second.log")),
        "{text}"
    );
    assert!(lines.contains(&"stage third: skipped"), "{text}");
    assert!(!text.contains('\u{1b}'), "{text:?}");
}

/// A pipeline of two shell candidates that commit a file each, and a judge with `auto_pr`.
const PICK: &str = r#"name: pick
defaults:
  type: shell
stages:
  - name: try
    agents:
      - name: one
        prompt: "echo one > one.txt && git add one.txt && git commit -qm one"
      - name: two
        prompt: "echo two > two.txt && git add two.txt && git commit -qm two"
  - name: choose
    depends_on: [try]
    judge:
      criteria: the smaller
      auto_pr: true
"#;

#[test]
fn auto_pr_pushes_the_winners_branch_and_opens_one_pull_request_even_across_a_resume() {
    let f = Fixture::new();
    let remote = f.sb.root.join("origin.git");
    f.sb.git(
        &f.sb.root,
        &["init", "-q", "--bare", remote.to_str().unwrap()],
    );
    f.sb.git(
        &f.repo,
        &["remote", "add", "origin", remote.to_str().unwrap()],
    );
    let judge = write_script(
        &f.sb.root.join("judge.sh"),
        "echo 'thinking'\necho '{\"winner\": \"two\", \"ranking\": [\"two\", \"one\"], \"reasons\": \"smaller\"}'\n",
    );
    f.config("berth.judge.command", judge.to_str().unwrap());
    let calls = f.sb.root.join("gh.calls");
    let bin = f.sb.root.join("ghbin");
    write_script(
        &bin.join("gh"),
        &format!(
            "echo \"$*\" >> {}\necho https://example.invalid/pull/1\n",
            sh_quote(calls.to_str().unwrap())
        ),
    );
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
    let manifest = f.manifest("pick.yaml", PICK);
    let run = |args: &[&str]| {
        let mut all = vec!["pipeline", "run"];
        all.extend_from_slice(args);
        let mut cmd = f.sb.berth_command(&f.repo, &all);
        cmd.env("PATH", &path);
        cmd.output().unwrap()
    };
    let out = run(&[&manifest]);
    assert!(out.status.success(), "{}", outputs(&out));
    assert!(stderr(&out).contains("opened its pull request: https://example.invalid/pull/1"));
    let pushed = f.sb.git(&remote, &["branch", "--list", "berth/pick-1/two"]);
    assert!(
        pushed.contains("berth/pick-1/two"),
        "the winner's branch is not on origin"
    );
    assert!(
        f.sb.git(&remote, &["branch", "--list", "berth/pick-1/one"])
            .trim()
            .is_empty()
    );
    let said = std::fs::read_to_string(&calls).unwrap();
    assert_eq!(said.matches("pr create").count(), 1, "{said}");
    assert!(
        said.contains("--base main --head berth/pick-1/two"),
        "{said}"
    );
    let record = f.record("pick", 1);
    assert_eq!(record["pull_request"], "https://example.invalid/pull/1");
    // The record said otherwise (a berth killed after the pull request): a resume uses the kept
    // verdict and opens no second one.
    let file = f.run_dir("pick", 1).join("run.json");
    let mut edited = record.clone();
    edited["state"] = "failed".into();
    edited["stages"][1]["state"] = "failed".into();
    std::fs::write(&file, serde_json::to_string(&edited).unwrap()).unwrap();
    let again = run(&["--resume", "pick-1"]);
    assert!(again.status.success(), "{}", outputs(&again));
    let said = std::fs::read_to_string(&calls).unwrap();
    assert_eq!(said.matches("pr create").count(), 1, "{said}");
}

#[test]
fn a_judge_without_a_valid_verdict_fails_its_stage_and_keeps_its_output() {
    let f = Fixture::new();
    let judge = write_script(
        &f.sb.root.join("judge.sh"),
        "echo 'I prefer {\"winner\": \"three\"}'\n",
    );
    f.config("berth.judge.command", judge.to_str().unwrap());
    let manifest = f.manifest("pick.yaml", &PICK.replace("      auto_pr: true\n", ""));
    let out = f.run(&[&manifest]);
    assert_eq!(out.status.code(), Some(1), "{}", outputs(&out));
    let record = f.record("pick", 1);
    let choose = stage(&record, "choose");
    assert_eq!(choose["state"], "failed");
    let why = choose["judge"]["error"].as_str().unwrap();
    assert!(why.starts_with("no valid verdict"), "{why}");
    let log = std::fs::read_to_string(choose["judge"]["log"].as_str().unwrap()).unwrap();
    assert!(log.contains("I prefer"), "{log}");
    assert!(record.get("verdict").is_none(), "{record:#}");
    assert!(!f.run_dir("pick", 1).join("verdict.json").exists());
}
