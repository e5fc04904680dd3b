//! Fleets on real repositories: `shell` agents started from a manifest, headless (their
//! supervisor records how they end) or in a tab of a private tmux server, each in its worktree;
//! `down` ending every process and removing only what holds nothing of value; `clean` later.

use crate::common;

use std::path::{Path, PathBuf};

use common::*;
use serde_json::Value;

/// A repository and a folder beside it for manifests.
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

    /// Write the manifest `file` beside the repository; its path.
    fn manifest(&self, file: &str, text: &str) -> String {
        let path = self.sb.root.join(file);
        std::fs::write(&path, text).unwrap();
        path.display().to_string()
    }

    /// `fleet up <manifest> --json`, required to succeed: the fleet as `ls` shows it.
    fn up(&self, manifest: &str) -> Value {
        self.sb
            .berth_json(&self.repo, &["fleet", "up", manifest, "--json"])
    }

    /// The fleet `name` as `fleet ls --json` shows it.
    fn ls(&self, name: &str) -> Value {
        let value = self
            .sb
            .berth_json(&self.repo, &["fleet", "ls", name, "--json"]);
        value["fleets"][0].clone()
    }

    /// The fleet `name` once every agent has exited (its supervisor recorded it).
    fn exited(&self, name: &str) -> Value {
        let mut fleet = Value::Null;
        wait_for("every agent to exit", || {
            fleet = self.ls(name);
            agents(&fleet).iter().all(|a| a["state"] == "exited")
        });
        fleet
    }

    /// The fleet's shared folder.
    fn shared(&self, name: &str) -> PathBuf {
        self.sb
            .common_dir(&self.repo)
            .join("berth/fleets")
            .join(name)
            .join("shared")
    }

    fn read_shared(&self, fleet: &str, file: &str) -> String {
        let path = self.shared(fleet).join(file);
        wait_for(&format!("{} to be written", path.display()), || {
            path.exists()
        });
        std::fs::read_to_string(path).unwrap().trim().to_owned()
    }
}

fn agents(fleet: &Value) -> Vec<Value> {
    fleet["agents"].as_array().cloned().unwrap_or_default()
}

fn agent(fleet: &Value, name: &str) -> Value {
    agents(fleet)
        .into_iter()
        .find(|a| a["name"] == name)
        .unwrap_or_else(|| panic!("no agent {name} in {fleet}"))
}

fn outcome<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["worktrees"]
        .as_array()
        .unwrap()
        .iter()
        .find(|o| o["name"] == name)
        .unwrap_or_else(|| panic!("no worktree {name} in {report}"))
}

#[test]
fn a_squad_of_two_shares_one_worktree_and_branch_and_a_solo_agent_has_its_own() {
    let f = Fixture::new();
    // `worktrees = true` gives everyone their own; the squad's key overrides it.
    let manifest = f.manifest(
        "squad.toml",
        r#"name = "squad"
worktrees = true

[defaults]
type = "shell"
background = true

[[agents]]
name = "writer"
worktree = "pair"
prompt = "echo w > writer.txt; pwd > $BERTH_FLEET_DIR/writer.cwd"

[[agents]]
name = "reader"
worktree = "pair"
prompt = "pwd > $BERTH_FLEET_DIR/reader.cwd; git rev-parse --abbrev-ref HEAD > $BERTH_FLEET_DIR/reader.branch"

[[agents]]
name = "solo"
prompt = "pwd > $BERTH_FLEET_DIR/solo.cwd; git rev-parse --abbrev-ref HEAD > $BERTH_FLEET_DIR/solo.branch"
"#,
    );
    f.up(&manifest);
    let fleet = f.exited("squad");
    let pair = f.read_shared("squad", "writer.cwd");
    assert_eq!(f.read_shared("squad", "reader.cwd"), pair);
    assert_ne!(f.read_shared("squad", "solo.cwd"), pair);
    assert_eq!(f.read_shared("squad", "reader.branch"), "berth/squad/pair");
    assert_eq!(f.read_shared("squad", "solo.branch"), "berth/squad/solo");
    assert!(Path::new(&pair).join("writer.txt").exists());
    assert_eq!(agent(&fleet, "writer")["worktree"], "squad/pair");
    assert_eq!(agent(&fleet, "reader")["worktree"], "squad/pair");
    assert_eq!(agent(&fleet, "solo")["worktree"], "squad/solo");
    let names: Vec<String> =
        f.sb.list_rows(&f.repo, false)
            .iter()
            .map(|r| r["name"].as_str().unwrap().to_owned())
            .collect();
    assert_eq!(names.len(), 2, "{names:?}");
    assert!(names.contains(&"squad/pair".to_owned()), "{names:?}");
    assert!(names.contains(&"squad/solo".to_owned()), "{names:?}");
    f.sb.berth_ok(&f.repo, &["fleet", "down", "squad"]);
}

#[test]
fn worktree_seed_copies_an_untracked_env_into_every_agents_worktree() {
    let f = Fixture::new();
    std::fs::write(f.repo.join(".env"), "TOKEN=local\n").unwrap();
    let manifest = f.manifest(
        "seeded.yaml",
        "name: seeded\nworktrees: true\nworktree_seed: [.env]\ndefaults:\n  type: shell\n  \
         background: true\nagents:\n  - name: a\n    prompt: cat .env > $BERTH_FLEET_DIR/a.env\n  \
         - name: b\n    prompt: cat .env > $BERTH_FLEET_DIR/b.env\n",
    );
    f.up(&manifest);
    f.exited("seeded");
    assert_eq!(f.read_shared("seeded", "a.env"), "TOKEN=local");
    assert_eq!(f.read_shared("seeded", "b.env"), "TOKEN=local");
    f.sb.berth_ok(&f.repo, &["fleet", "down", "seeded"]);
}

#[test]
fn max_cost_is_shown_as_advisory_by_fleet_ls_and_its_json() {
    let f = Fixture::new();
    let manifest = f.manifest(
        "budget.yaml",
        "name: budget\nagents:\n  - name: a\n    type: shell\n    background: true\n    \
         worktree: false\n    max_cost: \"$2.50\"\n    prompt: \"true\"\n",
    );
    f.up(&manifest);
    let fleet = f.exited("budget");
    assert_eq!(agent(&fleet, "a")["max_cost"], "2.50");
    let said = f.sb.berth_ok(&f.repo, &["fleet", "ls", "budget"]);
    assert!(
        said.contains("budget  a  $2.50  advisory: its runtime takes no budget"),
        "{said}"
    );
    f.sb.berth_ok(&f.repo, &["fleet", "down", "budget"]);
}

#[test]
fn notify_rings_the_bell_in_the_log_and_runs_notify_send_when_the_agent_ends() {
    use std::os::unix::fs::PermissionsExt as _;
    let f = Fixture::new();
    let bin = f.sb.root.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    let said = f.sb.root.join("notified");
    let fake = bin.join("notify-send");
    std::fs::write(
        &fake,
        format!("#!/bin/sh\nprintf '%s|' \"$@\" > '{}'\n", said.display()),
    )
    .unwrap();
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let manifest = f.manifest(
        "ping.yaml",
        "name: ping\nagents:\n  - name: a\n    type: shell\n    background: true\n    \
         worktree: false\n    notify: bell, notify-send\n    prompt: exit 3\n",
    );
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out =
        f.sb.berth_command(&f.repo, &["fleet", "up", &manifest, "--json"])
            .env("PATH", &path)
            .output()
            .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let fleet = f.exited("ping");
    wait_for("notify-send to run", || said.exists());
    assert_eq!(
        std::fs::read_to_string(&said).unwrap(),
        "git berth: ping/a|agent ping/a exited with code 3|"
    );
    let log = std::fs::read_to_string(agent(&fleet, "a")["log"].as_str().unwrap()).unwrap();
    assert!(log.contains("\x07agent ping/a exited with code 3"), "{log}");
    f.sb.berth_ok(&f.repo, &["fleet", "down", "ping"]);
}

#[test]
fn a_persons_template_wins_over_berths_and_becomes_the_prompt_with_the_agents_own_after_it() {
    let f = Fixture::new();
    let dir = f.sb.home().join(".config/git-berth/templates");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("review.md"),
        "echo ${word} ${mood} > $BERTH_FLEET_DIR/said\n",
    )
    .unwrap();
    let manifest = f.manifest(
        "tpl.yaml",
        "name: tpl\nvars:\n  mood: glad\nagents:\n  - name: a\n    type: shell\n    \
         background: true\n    worktree: false\n    template: review\n    \
         template_vars: [word=hello]\n    prompt: echo after >> $BERTH_FLEET_DIR/said\n",
    );
    f.up(&manifest);
    f.exited("tpl");
    assert_eq!(f.read_shared("tpl", "said"), "hello glad\nafter");
    f.sb.berth_ok(&f.repo, &["fleet", "down", "tpl"]);
}

#[test]
fn background_agents_log_their_output_record_their_exit_and_run_on_fail_when_they_fail() {
    let f = Fixture::new();
    let manifest = f.manifest(
        "jobs.yaml",
        r#"name: jobs
defaults:
  type: shell
  background: true
  worktree: false
  on_exit: echo "$BERTH_AGENT_NAME $BERTH_AGENT_EXIT" >> "$BERTH_FLEET_DIR/exits"
agents:
  - name: ok
    prompt: echo all good; echo to stderr >&2
    on_complete: echo done > "$BERTH_FLEET_DIR/ok.complete"
    on_fail: echo wrong > "$BERTH_FLEET_DIR/ok.fail"
  - name: bad
    prompt: echo failing; exit 3
    on_complete: echo wrong > "$BERTH_FLEET_DIR/bad.complete"
    on_fail: echo "$BERTH_AGENT_NAME $BERTH_AGENT_EXIT" > "$BERTH_FLEET_DIR/bad.fail"
"#,
    );
    f.up(&manifest);
    let fleet = f.exited("jobs");
    assert_eq!(agent(&fleet, "ok")["exit"], 0);
    assert_eq!(agent(&fleet, "bad")["exit"], 3);
    assert_eq!(f.read_shared("jobs", "bad.fail"), "jobs/bad 3");
    assert_eq!(f.read_shared("jobs", "ok.complete"), "done");
    wait_for("both on_exit commands", || {
        std::fs::read_to_string(f.shared("jobs").join("exits"))
            .is_ok_and(|t| t.lines().count() == 2)
    });
    let exits = std::fs::read_to_string(f.shared("jobs").join("exits")).unwrap();
    assert!(exits.lines().any(|l| l == "jobs/ok 0"), "{exits}");
    assert!(exits.lines().any(|l| l == "jobs/bad 3"), "{exits}");
    assert!(!f.shared("jobs").join("ok.fail").exists());
    assert!(!f.shared("jobs").join("bad.complete").exists());
    let log = std::fs::read_to_string(agent(&fleet, "ok")["log"].as_str().unwrap()).unwrap();
    assert!(log.contains("all good\n"), "{log}");
    assert!(log.contains("to stderr\n"), "{log}");
    let log = std::fs::read_to_string(agent(&fleet, "bad")["log"].as_str().unwrap()).unwrap();
    assert!(log.contains("failing\n"), "{log}");
    assert!(log.contains("exited with code 3"), "{log}");
    assert!(log.contains("running on_fail"), "{log}");
    let table = f.sb.berth_ok(&f.repo, &["fleet", "ls"]);
    assert!(table.contains("exited 3"), "{table}");
}

#[test]
fn down_keeps_a_dirty_and_an_unmerged_worktree_saying_why_and_clean_takes_them_once_merged() {
    let f = Fixture::new();
    let manifest = f.manifest(
        "work.toml",
        r#"name = "work"

[defaults]
type = "shell"
background = true

[[agents]]
name = "idle"
prompt = "true"

[[agents]]
name = "messy"
prompt = "echo draft > draft.txt"

[[agents]]
name = "committer"
prompt = "echo done > done.txt && git add done.txt && git commit -q -m done"
"#,
    );
    f.up(&manifest);
    let fleet = f.exited("work");
    let path = |name: &str| PathBuf::from(agent(&fleet, name)["path"].as_str().unwrap());
    let (idle, messy) = (path("idle"), path("messy"));
    let report =
        f.sb.berth_json(&f.repo, &["fleet", "down", "work", "--json"]);
    assert_eq!(outcome(&report, "work/idle")["reason"], Value::Null);
    assert_eq!(outcome(&report, "work/messy")["reason"], "dirty");
    assert_eq!(outcome(&report, "work/committer")["reason"], "unmerged");
    assert!(!idle.exists());
    assert!(messy.join("draft.txt").exists());
    assert!(!f.sb.has_branch(&f.repo, "berth/work/idle"));
    assert!(f.sb.has_branch(&f.repo, "berth/work/committer"));
    let kept: Vec<Value> = f.ls("work")["worktrees"].as_array().unwrap().clone();
    assert_eq!(kept.len(), 2, "{kept:?}");

    // Nothing changed: clean keeps both, for the same reasons.
    let again =
        f.sb.berth_json(&f.repo, &["fleet", "clean", "work", "--json"]);
    let again = &again["fleets"][0];
    assert_eq!(outcome(again, "work/messy")["reason"], "dirty");
    assert_eq!(outcome(again, "work/committer")["reason"], "unmerged");

    std::fs::remove_file(messy.join("draft.txt")).unwrap();
    f.sb.git(
        &f.repo,
        &["merge", "-q", "--no-edit", "berth/work/committer"],
    );
    let cleaned =
        f.sb.berth_json(&f.repo, &["fleet", "clean", "work", "--json"]);
    let cleaned = &cleaned["fleets"][0];
    assert_eq!(outcome(cleaned, "work/messy")["reason"], Value::Null);
    assert_eq!(outcome(cleaned, "work/committer")["reason"], Value::Null);
    assert!(!messy.exists());
    assert!(!f.sb.has_branch(&f.repo, "berth/work/committer"));
    assert!(f.ls("work")["worktrees"].as_array().unwrap().is_empty());
    assert!(f.sb.list_rows(&f.repo, false).is_empty());
}

/// The pids of a fleet's supervisors, from its state file.
fn supervisors(f: &Fixture, name: &str) -> Vec<u32> {
    let path =
        f.sb.common_dir(&f.repo)
            .join("berth/fleets")
            .join(name)
            .join("state.toml");
    let state: toml::Table = std::fs::read_to_string(path).unwrap().parse().unwrap();
    state["agent"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|a| a.get("supervisor").and_then(|p| p.as_integer()))
        .map(|p| p as u32)
        .collect()
}

#[test]
fn a_fleet_that_is_up_is_refused_and_down_leaves_no_agent_process_running() {
    let f = Fixture::new();
    let manifest = f.manifest(
        "sleepers.toml",
        r#"name = "sleepers"

[defaults]
type = "shell"
background = true

[[agents]]
name = "parent"
worktree = "pair"
prompt = "sleep 60 & echo $! > $BERTH_FLEET_DIR/child; wait"

[[agents]]
name = "stubborn"
worktree = "pair"
prompt = "trap '' TERM; sleep 60"

[[agents]]
name = "outside"
worktree = false
prompt = "sleep 60"
"#,
    );
    let fleet = f.up(&manifest);
    let child: u32 = f.read_shared("sleepers", "child").parse().unwrap();
    let mut pids: Vec<u32> = agents(&fleet)
        .iter()
        .map(|a| a["pid"].as_u64().unwrap() as u32)
        .collect();
    pids.push(child);
    let sups = supervisors(&f, "sleepers");
    assert_eq!(sups.len(), 3);
    pids.extend(sups);
    assert!(pids.iter().all(|&p| !process_gone(p)), "{pids:?}");

    let err = f.sb.berth_err(&f.repo, &["fleet", "up", &manifest]);
    assert!(err.contains("fleet 'sleepers' is up since"), "{err}");
    assert!(
        err.contains("hint: take it down first: git berth fleet down sleepers"),
        "{err}"
    );

    let report =
        f.sb.berth_json(&f.repo, &["fleet", "down", "--grace", "1s", "--json"]);
    let outcome = |name: &str| {
        report["agents"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["name"] == name)
            .unwrap()["outcome"]
            .clone()
    };
    assert_eq!(outcome("parent"), "stopped");
    assert_eq!(outcome("stubborn"), "killed");
    assert_eq!(outcome("outside"), "stopped");
    wait_for("every process of the fleet to be gone", || {
        pids.iter().all(|&p| process_gone(p))
    });
    let listed = f.sb.berth_json(&f.repo, &["agents", "--json"]);
    assert_eq!(listed["agents"].as_array().unwrap().len(), 0, "{listed}");
    let fleet = f.ls("sleepers");
    assert_eq!(fleet["status"], "down");
    // Its agents were ended by a signal, which their supervisors recorded.
    assert!(
        agents(&fleet)
            .iter()
            .all(|a| a["state"] == "exited" && a["signal"].is_number()),
        "{fleet}"
    );
}

#[test]
fn a_dry_run_prints_the_whole_plan_and_changes_nothing() {
    let f = Fixture::new();
    let manifest = f.manifest(
        "plan.yaml",
        "name: plan\nvars:\n  focus: tests\ndefaults:\n  type: shell\n  background: true\n\
         agents:\n  - name: a\n    prompt: check ${focus}\n    ssh: false\n  - name: b\n    \
         worktree: false\n    prompt: notes\n",
    );
    let plan =
        f.sb.berth_json(&f.repo, &["fleet", "up", &manifest, "--dry-run", "--json"]);
    assert_eq!(plan["fleet"], "plan");
    let a = &plan["agents"][0];
    assert_eq!(a["command"], serde_json::json!(["sh", "-c", "check tests"]));
    assert_eq!(a["branch"], "berth/plan/a");
    assert_eq!(a["worktree"], "plan/a");
    assert_eq!(a["unset"], serde_json::json!(["SSH_AUTH_SOCK"]));
    assert_eq!(plan["agents"][1]["worktree"], Value::Null);
    assert_eq!(plan["worktrees"].as_array().unwrap().len(), 1);
    assert!(
        plan["variables"]
            .as_array()
            .unwrap()
            .iter()
            .any(|v| v["key"] == "focus" && v["from"] == "vars"),
        "{plan}"
    );
    assert!(!f.sb.common_dir(&f.repo).join("berth/fleets").exists());
    assert_eq!(git_worktree_paths(&f.sb, &f.repo).len(), 1);
}

#[test]
fn an_interactive_agent_opens_in_a_tmux_window_in_its_worktree_and_down_ends_it() {
    let f = Fixture::new();
    let Some(tmux) = Tmux::start(&f.sb, &f.repo) else {
        return;
    };
    let out = f.sb.root.join("out");
    std::fs::create_dir_all(&out).unwrap();
    let script = f.sb.root.join("agent.sh");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\nenv > {o}/env.tmp && mv {o}/env.tmp {o}/env\nexec sleep 60\n",
            o = sh_quote(out.to_str().unwrap())
        ),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    f.sb.git(
        &f.repo,
        &[
            "config",
            "berth.runtime.shell.command",
            script.to_str().unwrap(),
        ],
    );
    let manifest = f.manifest(
        "tab.toml",
        "name = \"tab\"\n[[agents]]\nname = \"person\"\ntype = \"shell\"\nprompt = \"look around\"\n",
    );
    let mut cmd =
        f.sb.berth_command(&f.repo, &["fleet", "up", &manifest, "--json"]);
    cmd.env("TMUX", tmux.env_value())
        .env("TMUX_PANE", &tmux.pane);
    let up = cmd.output().unwrap();
    assert!(up.status.success(), "{}", outputs(&up));
    let fleet: Value = serde_json::from_slice(&up.stdout).unwrap();
    let person = agent(&fleet, "person");
    assert_eq!(person["backend"], "tmux");
    assert_eq!(tmux.panes().len(), 2);
    wait_for("the agent to write its environment", || {
        out.join("env").exists()
    });
    let env = read_env_file(&out.join("env"));
    assert_eq!(env["BERTH_AGENT_NAME"], "tab/person");
    assert_eq!(env["BERTH_AGENT_PROMPT"], "look around");
    assert!(env["BERTH_FLEET_DIR"].ends_with("berth/fleets/tab/shared"));
    assert_eq!(
        env["BERTH_AGENT_WORKTREE"],
        person["path"].as_str().unwrap()
    );
    let pid = person["pid"].as_u64().unwrap() as u32;
    f.sb.berth_ok(&f.repo, &["fleet", "down", "tab", "--grace", "2s"]);
    wait_for("the agent's process to end", || process_gone(pid));
    assert_eq!(agent(&f.ls("tab"), "person")["state"], "gone");
}

#[test]
fn a_supervisor_hands_back_the_agents_pid_records_its_exit_and_runs_on_fail_with_its_code() {
    let sb = Sandbox::new();
    let fleet = sb.root.join("fleets/f");
    std::fs::create_dir_all(&fleet).unwrap();
    std::fs::write(
        fleet.join("state.toml"),
        "version = 1\nname = \"f\"\nmanifest = \"f.toml\"\nstarted = 1\n\n[[agent]]\n\
         name = \"a\"\nslug = \"a\"\nagent = \"f/a\"\nruntime = \"shell\"\nbackground = true\n\
         on_complete = \"echo wrong > complete\"\n\
         on_fail = \"echo \\\"$BERTH_AGENT_NAME $BERTH_AGENT_EXIT $X\\\" > failed\"\n\
         on_exit = \"echo exit >> ends\"\n\n[agent.env]\nX = \"from the fleet\"\n",
    )
    .unwrap();
    let pid_file = sb.root.join("a.pid");
    let out = sb.berth(
        &sb.root,
        &[
            "fleet",
            "_supervise",
            fleet.to_str().unwrap(),
            "a",
            "--pid-file",
            pid_file.to_str().unwrap(),
            "--",
            "sh",
            "-c",
            "echo working; exit 3",
        ],
    );
    assert!(out.status.success(), "{}", outputs(&out));
    assert!(stdout(&out).contains("working\n"), "{}", outputs(&out));
    assert!(
        stderr(&out).contains("the agent exited with code 3"),
        "{}",
        outputs(&out)
    );
    let pid: u32 = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    let state: toml::Table = std::fs::read_to_string(fleet.join("state.toml"))
        .unwrap()
        .parse()
        .unwrap();
    let agent = &state["agent"].as_array().unwrap()[0];
    assert_eq!(agent["exit"].as_integer(), Some(3));
    assert_eq!(agent["pid"].as_integer(), Some(i64::from(pid)));
    assert!(agent["ended"].as_integer().is_some());
    assert!(agent["supervisor"].as_integer().is_some());
    assert_eq!(
        std::fs::read_to_string(sb.root.join("failed")).unwrap(),
        "f/a 3 from the fleet\n"
    );
    assert_eq!(
        std::fs::read_to_string(sb.root.join("ends")).unwrap(),
        "exit\n"
    );
    assert!(!sb.root.join("complete").exists());
}

/// A bare repository `<root>/<name>.git` made from a repository of one commit.
fn bare(f: &Fixture, name: &str) -> PathBuf {
    let work = f.sb.repo(&format!("{name}-work"));
    let bare = f.sb.root.join(format!("{name}.git"));
    f.sb.git(
        &f.sb.root,
        &[
            "clone",
            "-q",
            "--bare",
            work.to_str().unwrap(),
            bare.to_str().unwrap(),
        ],
    );
    bare
}

/// The folders of berth's clones.
fn clones(f: &Fixture) -> Vec<PathBuf> {
    match std::fs::read_dir(f.sb.data().join("git-berth/clones")) {
        Ok(dir) => dir.map(|e| e.unwrap().path()).collect(),
        Err(_) => Vec::new(),
    }
}

/// The seed's example with its repositories pointed at local bare ones and its agents `shell`.
fn review_and_fix(f: &Fixture, api: &Path, frontend: &Path) -> String {
    let seed = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("share/examples/fleets/review-and-fix.yaml"),
    )
    .unwrap();
    let text = seed
        .replace("git@github.com:org/api.git", api.to_str().unwrap())
        .replace(
            "git@github.com:org/frontend.git",
            &format!("file://{}", frontend.display()),
        )
        .replace("type: claude", "type: shell")
        .replace("type: codex", "type: shell")
        .replace(
            "name: review-and-fix\n",
            "name: review-and-fix\ndefaults:\n  background: true\n",
        );
    f.manifest("review-and-fix.yaml", &text)
}

#[test]
fn the_seeds_fleet_clones_each_other_repository_once_and_down_removes_its_worktrees_there() {
    let f = Fixture::new();
    let (api, frontend) = (bare(&f, "api"), bare(&f, "frontend"));
    let manifest = review_and_fix(&f, &api, &frontend);
    // The dry run names the clones and makes none.
    let plan =
        f.sb.berth_ok(&f.repo, &["fleet", "up", &manifest, "--dry-run"]);
    assert_eq!(plan.matches("in the clone").count(), 2, "{plan}");
    assert!(clones(&f).is_empty(), "{:?}", clones(&f));
    f.up(&manifest);
    let fleet = f.exited("review-and-fix");
    assert_eq!(clones(&f).len(), 2, "{:?}", clones(&f));
    for (name, origin) in [("api-tests", &api), ("frontend-lint", &frontend)] {
        let path = PathBuf::from(agent(&fleet, name)["path"].as_str().unwrap());
        assert!(path.is_dir(), "{}", path.display());
        // The worktree is one of the clone's, and the clone's origin is the bare repository.
        let common = f.sb.common_dir(&path);
        let clone = common.parent().unwrap().to_owned();
        assert!(
            clones(&f).iter().any(|c| real(c) == real(&clone)),
            "{}",
            clone.display()
        );
        let url = f.sb.git(&clone, &["config", "remote.origin.url"]);
        assert!(
            url.trim()
                .ends_with(origin.file_name().unwrap().to_str().unwrap()),
            "{url}"
        );
        assert!(
            !git_worktree_paths(&f.sb, &f.repo)
                .iter()
                .any(|p| real(p) == real(&path))
        );
    }
    let report =
        f.sb.berth_json(&f.repo, &["fleet", "down", "review-and-fix", "--json"]);
    assert_eq!(
        outcome(&report, "review-and-fix/api-tests")["reason"],
        Value::Null
    );
    assert_eq!(
        outcome(&report, "review-and-fix/frontend-lint")["reason"],
        Value::Null
    );
    for name in ["api-tests", "frontend-lint"] {
        let path = PathBuf::from(agent(&fleet, name)["path"].as_str().unwrap());
        assert!(!path.exists(), "{}", path.display());
    }

    // A second fleet naming the same repository, spelled as a file:// URL, reuses its clone.
    let again = f.manifest(
        "again.yaml",
        &format!(
            "name: again\ndefaults:\n  type: shell\n  background: true\nagents:\n  - name: more\n    repo: file://{}\n    prompt: \"true\"\n",
            api.display()
        ),
    );
    f.up(&again);
    let fleet = f.exited("again");
    assert_eq!(clones(&f).len(), 2, "{:?}", clones(&f));
    let path = PathBuf::from(agent(&fleet, "more")["path"].as_str().unwrap());
    assert!(path.is_dir());
    let clone = f.sb.common_dir(&path).parent().unwrap().to_owned();
    assert!(
        clones(&f).iter().any(|c| real(c) == real(&clone)),
        "{}",
        clone.display()
    );
    f.sb.berth_json(&f.repo, &["fleet", "down", "again", "--json"]);
    assert!(!path.exists());
}

#[test]
fn repos_gives_an_agent_a_worktree_in_each_repository_and_lists_them() {
    let f = Fixture::new();
    let lib = bare(&f, "lib");
    let manifest = f.manifest(
        "both.yaml",
        &format!(
            "name: both\nagents:\n  - name: dev\n    type: shell\n    background: true\n    repos: [{}, {}]\n    prompt: pwd > \"$BERTH_FLEET_DIR/pwd\"; echo \"$BERTH_AGENT_REPOS\" > \"$BERTH_FLEET_DIR/repos\"\n",
            f.repo.display(),
            lib.display()
        ),
    );
    f.up(&manifest);
    let fleet = f.exited("both");
    let path = PathBuf::from(agent(&fleet, "dev")["path"].as_str().unwrap());
    let listed = f.read_shared("both", "repos");
    let paths: Vec<PathBuf> = listed.split(':').map(PathBuf::from).collect();
    assert_eq!(paths.len(), 2, "{listed}");
    assert_eq!(real(&paths[0]), real(&path));
    assert_eq!(real(Path::new(&f.read_shared("both", "pwd"))), real(&path));
    assert_eq!(
        real(&f.sb.common_dir(&paths[0])),
        real(&f.sb.common_dir(&f.repo))
    );
    let clone = f.sb.common_dir(&paths[1]);
    assert_eq!(real(clone.parent().unwrap()), real(&clones(&f)[0]));
    assert_eq!(
        f.sb.git(&paths[1], &["branch", "--show-current"]).trim(),
        "berth/both/dev"
    );
    let report =
        f.sb.berth_json(&f.repo, &["fleet", "down", "both", "--json"]);
    assert_eq!(report["worktrees"].as_array().unwrap().len(), 2, "{report}");
    assert!(!paths[0].exists());
    assert!(!paths[1].exists());

    // A squad of two in both repositories shares both worktrees.
    let squad = f.manifest(
        "squad.yaml",
        &format!(
            "name: squad\ndefaults:\n  type: shell\n  background: true\n  worktree: pair\n  repos: [{}, {}]\nagents:\n  - name: one\n    prompt: echo \"$BERTH_AGENT_REPOS\" > \"$BERTH_FLEET_DIR/one\"\n  - name: two\n    prompt: echo \"$BERTH_AGENT_REPOS\" > \"$BERTH_FLEET_DIR/two\"\n",
            f.repo.display(),
            lib.display()
        ),
    );
    f.up(&squad);
    f.exited("squad");
    let one = f.read_shared("squad", "one");
    assert_eq!(one, f.read_shared("squad", "two"));
    assert_eq!(one.split(':').count(), 2, "{one}");
    assert_eq!(clones(&f).len(), 1, "{:?}", clones(&f));
    f.sb.berth_json(&f.repo, &["fleet", "down", "squad", "--json"]);
    assert!(one.split(':').all(|p| !Path::new(p).exists()), "{one}");
}

fn real(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| p.to_owned())
}

#[test]
fn allow_setup_scripts_false_makes_its_worktree_without_running_the_setup_hook() {
    use std::os::unix::fs::PermissionsExt as _;
    let f = Fixture::new();
    let hook = f.sb.common_dir(&f.repo).join("worktree-hooks/setup");
    std::fs::create_dir_all(hook.parent().unwrap()).unwrap();
    std::fs::write(&hook, "#!/bin/sh\ntouch SETUP_RAN\n").unwrap();
    std::fs::set_permissions(&hook, std::fs::Permissions::from_mode(0o755)).unwrap();
    let manifest = f.manifest(
        "hooks.yaml",
        "name: hooks\ndefaults:\n  type: shell\n  background: true\n  prompt: \"true\"\n\
         agents:\n  - name: plain\n  - name: bare\n    allow_setup_scripts: false\n",
    );
    f.up(&manifest);
    let fleet = f.exited("hooks");
    let path = |name: &str| PathBuf::from(agent(&fleet, name)["path"].as_str().unwrap());
    assert!(
        path("plain").join("SETUP_RAN").exists(),
        "the hook ran for plain"
    );
    assert!(
        !path("bare").join("SETUP_RAN").exists(),
        "the hook ran for bare"
    );
    f.sb.berth_ok(&f.repo, &["fleet", "down", "hooks"]);
}

#[test]
fn auto_trust_writes_each_runtimes_own_trust_record_before_it_starts_and_down_takes_it_out() {
    use std::os::unix::fs::PermissionsExt as _;
    let f = Fixture::new();
    // Stand-ins for pi and codex: each copies its runtime's trust file, as it finds it when it
    // starts, into the fleet's shared folder.
    let bin = f.sb.root.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    for (name, file) in [
        ("pi", ".pi/agent/trust.json"),
        ("codex", ".codex/config.toml"),
    ] {
        let script = bin.join(name);
        std::fs::write(
            &script,
            format!("#!/bin/sh\ncat \"$HOME/{file}\" > \"$BERTH_FLEET_DIR/{name}-saw\"\n"),
        )
        .unwrap();
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
        f.sb.git(
            &f.repo,
            &[
                "config",
                &format!("berth.runtime.{name}.command"),
                script.to_str().unwrap(),
            ],
        );
    }
    // What the person had already: kept, byte for byte, around berth's addition.
    let codex_config = f.sb.home().join(".codex/config.toml");
    std::fs::create_dir_all(codex_config.parent().unwrap()).unwrap();
    std::fs::write(&codex_config, "# mine\nmodel = \"o3\"\n").unwrap();
    let manifest = f.manifest(
        "trusting.yaml",
        "name: trusting\ndefaults:\n  background: true\n  prompt: go\n  auto_trust: true\n\
         agents:\n  - name: p\n    type: pi\n  - name: c\n    type: codex\n  - name: s\n    type: shell\n    prompt: \"true\"\n",
    );
    let plan =
        f.sb.berth_json(&f.repo, &["fleet", "up", &manifest, "--dry-run", "--json"]);
    let became = |name: &str| {
        plan["agents"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["name"] == name)
            .unwrap()["fields"]
            .as_array()
            .unwrap()
            .iter()
            .find(|x| x["field"] == "defaults.auto_trust")
            .unwrap()["became"]
            .as_str()
            .unwrap()
            .to_owned()
    };
    assert!(became("p").contains("trust.json"), "{}", became("p"));
    assert!(became("c").contains("trust_level"), "{}", became("c"));
    assert!(
        became("s").starts_with("nothing to write"),
        "{}",
        became("s")
    );
    assert!(
        !f.sb.home().join(".pi").exists(),
        "a dry run wrote a trust record"
    );

    f.up(&manifest);
    let fleet = f.exited("trusting");
    let p_path = real(Path::new(agent(&fleet, "p")["path"].as_str().unwrap()));
    let pi_saw: Value = serde_json::from_str(&f.read_shared("trusting", "pi-saw")).unwrap();
    assert_eq!(pi_saw[p_path.to_str().unwrap()], true, "{pi_saw}");
    let codex_saw = f.read_shared("trusting", "codex-saw");
    let main = real(&f.repo);
    let saw: toml::Table = toml::from_str(&codex_saw).unwrap();
    assert_eq!(
        saw["projects"][main.to_str().unwrap()]["trust_level"].as_str(),
        Some("trusted"),
        "{codex_saw}"
    );
    assert!(
        codex_saw.starts_with("# mine\nmodel = \"o3\"\n"),
        "{codex_saw}"
    );

    // Down removes the clean, merged worktrees and the per-folder records with them; Codex's
    // names the main checkout, which other worktrees share, and stays.
    f.sb.berth_ok(&f.repo, &["fleet", "down", "trusting"]);
    assert!(!p_path.exists());
    let trust = std::fs::read_to_string(f.sb.home().join(".pi/agent/trust.json")).unwrap();
    let trust: Value = serde_json::from_str(&trust).unwrap();
    assert_eq!(
        trust,
        serde_json::json!({}),
        "the record outlived its worktree"
    );
    let codex_after = std::fs::read_to_string(&codex_config).unwrap();
    assert_eq!(codex_after.trim(), codex_saw.trim());
}

#[test]
fn a_trust_file_berth_cannot_read_is_refused_naming_it_and_left_as_it_was() {
    use std::os::unix::fs::PermissionsExt as _;
    let f = Fixture::new();
    let script = f.sb.root.join("pi");
    std::fs::write(&script, "#!/bin/sh\nexit 0\n").unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    f.sb.git(
        &f.repo,
        &[
            "config",
            "berth.runtime.pi.command",
            script.to_str().unwrap(),
        ],
    );
    let trust = f.sb.home().join(".pi/agent/trust.json");
    std::fs::create_dir_all(trust.parent().unwrap()).unwrap();
    std::fs::write(&trust, "{ broken").unwrap();
    let manifest = f.manifest(
        "broken.yaml",
        "name: broken\nagents:\n  - name: p\n    type: pi\n    background: true\n    prompt: go\n    auto_trust: true\n",
    );
    let out = f.sb.berth(&f.repo, &["fleet", "up", &manifest]);
    let all = outputs(&out);
    assert!(!out.status.success(), "{all}");
    assert!(
        all.contains(&format!("{}: is not valid JSON", trust.display())),
        "{all}"
    );
    assert_eq!(std::fs::read_to_string(&trust).unwrap(), "{ broken");
    f.sb.berth_ok(&f.repo, &["fleet", "down", "broken"]);
}

#[test]
fn an_interactive_agents_tab_records_its_exit_and_runs_its_end_commands_there() {
    let f = Fixture::new();
    let Some(tmux) = Tmux::start(&f.sb, &f.repo) else {
        return;
    };
    let script = f.sb.root.join("agent.sh");
    std::fs::write(&script, "#!/bin/sh\nexit 3\n").unwrap();
    std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    f.sb.git(
        &f.repo,
        &[
            "config",
            "berth.runtime.shell.command",
            script.to_str().unwrap(),
        ],
    );
    let manifest = f.manifest(
        "tabend.toml",
        "name = \"tabend\"\n[[agents]]\nname = \"person\"\ntype = \"shell\"\n\
         on_fail = 'echo \"$BERTH_AGENT_NAME $BERTH_AGENT_EXIT\" > \"$BERTH_FLEET_DIR/failed\"'\n\
         on_exit = 'touch \"$BERTH_FLEET_DIR/exited\"'\n",
    );
    let mut cmd =
        f.sb.berth_command(&f.repo, &["fleet", "up", &manifest, "--json"]);
    cmd.env("TMUX", tmux.env_value())
        .env("TMUX_PANE", &tmux.pane);
    let up = cmd.output().unwrap();
    assert!(up.status.success(), "{}", outputs(&up));
    assert_eq!(f.read_shared("tabend", "failed"), "tabend/person 3");
    f.read_shared("tabend", "exited");
    let person = agent(&f.exited("tabend"), "person");
    assert_eq!(person["exit"], 3, "{person}");
    f.sb.berth_ok(&f.repo, &["fleet", "down", "tabend"]);
}
