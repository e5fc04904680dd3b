//! The orchestrator on real tmux servers (one private socket per test, killed at the end, also
//! on panic), real worktrees, and the `shell` runtime running a script that writes its
//! environment, working directory and arguments to files and appends what it is typed.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use common::*;

/// A repository whose shell runtime is a script that reports into `<root>/out/<agent>.*`.
struct Fixture {
    sb: Sandbox,
    repo: PathBuf,
    out: PathBuf,
}

impl Fixture {
    fn new() -> Fixture {
        let sb = Sandbox::new();
        let repo = sb.repo("app");
        let out = sb.root.join("out");
        std::fs::create_dir_all(&out).unwrap();
        let script = sb.root.join("agent.sh");
        std::fs::write(
            &script,
            format!(
                "#!/bin/sh\n\
                 o={out}/$BERTH_AGENT_NAME\n\
                 env > \"$o.env.tmp\" && mv \"$o.env.tmp\" \"$o.env\"\n\
                 pwd > \"$o.cwd.tmp\" && mv \"$o.cwd.tmp\" \"$o.cwd\"\n\
                 printf '%s\\n' \"$@\" > \"$o.args\"\n\
                 : > \"$o.ready\"\n\
                 while :; do\n\
                   if read -r line; then printf '%s\\n' \"$line\" >> \"$o.in\";\n\
                   elif [ -e \"$o.stop\" ]; then exit 0;\n\
                   else sleep 0.05; fi\n\
                 done\n",
                out = sh_quote(out.to_str().unwrap())
            ),
        )
        .unwrap();
        std::fs::set_permissions(&script, std::os::unix::fs::PermissionsExt::from_mode(0o755))
            .unwrap();
        sb.git(
            &repo,
            &[
                "config",
                "berth.runtime.shell.command",
                script.to_str().unwrap(),
            ],
        );
        Fixture { sb, repo, out }
    }

    /// `git-berth <args>` in `dir` with `env` added (and the given variables removed).
    fn berth(&self, dir: &Path, env: &[(&str, &str)], args: &[&str]) -> Output {
        let mut cmd = self.sb.berth_command(dir, args);
        cmd.env("PATH", path_with_berth());
        for (k, v) in env {
            cmd.env(k, v);
        }
        cmd.output().unwrap()
    }

    /// A fixture, and a tmux server whose first pane is in its repository; `None` without tmux.
    fn with_tmux() -> Option<(Fixture, Tmux)> {
        let f = Fixture::new();
        let tmux = Tmux::start(&f.sb, &f.repo)?;
        Some((f, tmux))
    }

    /// `layer1 <name> feat/<name> shell` from the master's pane: the worktree, once the agent
    /// has reported.
    fn layer1(&self, tmux: &Tmux, name: &str) -> PathBuf {
        let env = in_tmux(tmux);
        let branch = format!("feat/{name}");
        let out = self.berth_ok(
            &self.repo,
            &pairs(&env),
            &["layer1", name, &branch, "shell"],
        );
        self.agent_env(name);
        PathBuf::from(stdout(&out).trim())
    }

    /// [`Fixture::berth`], required to succeed.
    fn berth_ok(&self, dir: &Path, env: &[(&str, &str)], args: &[&str]) -> Output {
        let out = self.berth(dir, env, args);
        assert!(out.status.success(), "{args:?}: {}", outputs(&out));
        out
    }

    /// What the agent `name` wrote: its environment, once it has written all it writes.
    fn agent_env(&self, name: &str) -> std::collections::BTreeMap<String, String> {
        let ready = self.out.join(format!("{name}.ready"));
        wait_for(&format!("{} to be written", ready.display()), || {
            ready.exists()
        });
        read_env_file(&self.out.join(format!("{name}.env")))
    }

    fn agent_file(&self, name: &str, ext: &str) -> String {
        std::fs::read_to_string(self.out.join(format!("{name}.{ext}"))).unwrap_or_default()
    }

    fn agents(&self) -> Vec<serde_json::Value> {
        let out = self.berth(&self.repo, &[], &["agents", "--json"]);
        assert!(out.status.success(), "{}", outputs(&out));
        let value: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        value["agents"].as_array().unwrap().clone()
    }

    fn agent(&self, name: &str) -> serde_json::Value {
        self.agents()
            .into_iter()
            .find(|a| a["name"] == name)
            .unwrap_or_else(|| panic!("no agent {name}"))
    }
}

/// `PATH` with the built binary first, so `git berth` in an agent finds it.
fn path_with_berth() -> String {
    format!(
        "{}:{}",
        berth_bin_dir().display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

/// The caller's environment inside the test's tmux server, as the master (a person) has it.
fn in_tmux(tmux: &Tmux) -> Vec<(&'static str, String)> {
    vec![("TMUX", tmux.env_value()), ("TMUX_PANE", tmux.pane.clone())]
}

fn pairs<'a>(env: &'a [(&'static str, String)]) -> Vec<(&'static str, &'a str)> {
    env.iter().map(|(k, v)| (*k, v.as_str())).collect()
}

#[test]
fn layer_1_opens_a_window_in_its_worktree_with_its_identity_and_no_hatch() {
    let f = Fixture::new();
    let Some(tmux) = Tmux::start(&f.sb, &f.repo) else {
        return;
    };
    // Both hatches, exported by the caller and in the tmux server's global environment.
    tmux.run(&["setenv", "-g", "BERTH_ALLOW_MAIN_WORKTREE", "1"]);
    tmux.run(&["setenv", "-g", "BERTH_MASTER_SESSION", "1"]);
    let mut env = in_tmux(&tmux);
    env.push(("BERTH_ALLOW_MAIN_WORKTREE", "1".into()));
    env.push(("BERTH_MASTER_SESSION", "1".into()));
    env.push(("BERTH_SESSION_PID", "1".into()));
    let out = f.berth_ok(
        &f.repo,
        &pairs(&env),
        &[
            "layer1",
            "auth",
            "feat/auth",
            "shell",
            "--prompt",
            "fix the login",
        ],
    );
    let path = PathBuf::from(stdout(&out).trim());
    assert!(path.is_dir(), "{}", path.display());
    assert_eq!(
        f.sb.git(&path, &["branch", "--show-current"]).trim(),
        "feat/auth"
    );

    let seen = f.agent_env("auth");
    assert_eq!(seen["BERTH_AGENT_LAYER"], "1");
    assert_eq!(seen["BERTH_AGENT_BRANCH"], "feat/auth");
    assert_eq!(seen["BERTH_AGENT_WORKTREE"], path.display().to_string());
    assert_eq!(seen["BERTH_SESSION"], "agent-auth");
    assert_eq!(seen["BERTH_AGENT_PROMPT"], "fix the login");
    let norms = std::fs::read_to_string(&seen["BERTH_AGENT_NORMS"]).unwrap();
    assert!(norms.contains("`feat/auth`"), "{norms}");
    for hatch in [
        "BERTH_ALLOW_MAIN_WORKTREE",
        "BERTH_MASTER_SESSION",
        "BERTH_SESSION_PID",
    ] {
        assert!(!seen.contains_key(hatch), "{hatch} reached the agent");
    }
    assert_eq!(
        f.agent_file("auth", "cwd").trim(),
        path.display().to_string()
    );

    // Its own window, in the caller's session, found again by the pane id recorded.
    let agent = f.agent("auth");
    let pane = agent["pane"].as_str().unwrap();
    assert_ne!(pane, tmux.pane);
    assert_eq!(
        tmux.pane_format(pane, "#{session_name} #{window_name}"),
        "main auth"
    );
    assert_eq!(
        tmux.pane_format(pane, "#{pane_current_path}"),
        path.display().to_string()
    );
    assert_eq!(agent["status"], "alive");
    assert_eq!(agent["socket"], tmux.socket.display().to_string());
    // The worktree's claim is the agent's own session's.
    assert_eq!(f.sb.list_row(&f.repo, "auth")["claimed_by"], "agent-auth");
}

#[test]
fn layer_2_splits_the_parents_window_and_shares_its_worktree() {
    let Some((f, tmux)) = Fixture::with_tmux() else {
        return;
    };
    f.layer1(&tmux, "api");
    let parent = f.agent_env("api");
    let parent_pane = f.agent("api")["pane"].as_str().unwrap().to_owned();
    let worktree = PathBuf::from(&parent["BERTH_AGENT_WORKTREE"]);

    // The layer-1 agent's own environment: its identity and its pane.
    let mut child_env: Vec<(&str, String)> = [
        "BERTH_AGENT_LAYER",
        "BERTH_AGENT_BRANCH",
        "BERTH_AGENT_WORKTREE",
        "BERTH_SESSION",
    ]
    .iter()
    .map(|k| (*k, parent[*k].clone()))
    .collect();
    child_env.push(("TMUX", tmux.env_value()));
    child_env.push(("TMUX_PANE", parent_pane.clone()));
    let out = f.berth_ok(
        &worktree,
        &pairs(&child_env),
        &["layer2", "api-tests", "shell"],
    );
    assert_eq!(PathBuf::from(stdout(&out).trim()), worktree);

    let seen = f.agent_env("api-tests");
    assert_eq!(seen["BERTH_AGENT_LAYER"], "2");
    assert_eq!(seen["BERTH_AGENT_WORKTREE"], worktree.display().to_string());
    assert_eq!(seen["BERTH_AGENT_BRANCH"], "feat/api");
    assert_eq!(seen["BERTH_SESSION"], "agent-api-tests");
    let child = f.agent("api-tests");
    assert_eq!(child["parent"], "api");
    let pane = child["pane"].as_str().unwrap();
    // A split of the parent's window, not a window of its own.
    assert_eq!(
        tmux.pane_format(pane, "#{window_id}"),
        tmux.pane_format(&parent_pane, "#{window_id}")
    );
    assert_eq!(
        tmux.pane_format(pane, "#{pane_current_path}"),
        worktree.display().to_string()
    );
    // No worktree was made for it.
    assert_eq!(f.sb.list_rows(&f.repo, false).len(), 1);
}

#[test]
fn layers_and_depth_are_refused_and_nothing_changes() {
    let f = Fixture::new();
    let Some(tmux) = Tmux::start(&f.sb, &f.repo) else {
        return;
    };
    let before = f.sb.state(&f.repo);
    let panes = tmux.panes();
    let env = in_tmux(&tmux);
    // Each case: what the caller's environment adds, the command line, the one-line refusal.
    type Case<'a> = (Vec<(&'static str, String)>, Vec<&'a str>, &'a str);
    let cases: Vec<Case> = vec![
        (
            vec![("BERTH_AGENT_LAYER", "1".into())],
            vec!["layer1", "x", "feat/x", "shell"],
            "layer1 runs from the master (layer 0); this is a layer-1 agent",
        ),
        (
            vec![("BERTH_AGENT_LAYER", "2".into())],
            vec!["spawn", "x"],
            "spawn runs from the master (layer 0); this is a layer-2 agent",
        ),
        (
            vec![],
            vec!["layer2", "x", "shell"],
            "layer2 splits a layer-1 agent's tab; this is layer 0 (the master, or a person)",
        ),
        (
            vec![("BERTH_AGENT_LAYER", "0".into())],
            vec!["layer2", "x", "shell"],
            "layer2 splits a layer-1 agent's tab; this is layer 0 (the master, or a person)",
        ),
        (
            vec![("BERTH_AGENT_LAYER", "2".into())],
            vec!["layer2", "x", "shell"],
            "layer2 from a layer-2 agent would be layer 3; agents go at most 2 deep",
        ),
        (
            vec![],
            vec!["layer1", "x", "feat/x", "gpt"],
            "unknown runtime 'gpt'",
        ),
        (
            vec![("BERTH_AGENT_LAYER", "1".into())],
            vec!["master"],
            "a layer-1 agent cannot become the master",
        ),
    ];
    for (extra, args, message) in cases {
        let mut all = env.clone();
        all.extend(extra);
        let out = f.berth(&f.repo, &pairs(&all), &args);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {}", outputs(&out));
        let (first, hint) = error_lines(&stderr(&out));
        assert_eq!(first, format!("git berth: {message}"), "{args:?}");
        assert!(hint.is_some_and(|h| h.starts_with("hint: ")), "{args:?}");
        assert_eq!(f.sb.state(&f.repo), before, "{args:?} changed something");
        assert_eq!(tmux.panes(), panes, "{args:?} opened a pane");
    }
    assert!(f.agents().is_empty());
}

#[test]
fn a_name_a_live_agent_uses_is_refused() {
    let f = Fixture::new();
    let Some(tmux) = Tmux::start(&f.sb, &f.repo) else {
        return;
    };
    let env = in_tmux(&tmux);
    let ok = f.berth(
        &f.repo,
        &pairs(&env),
        &["spawn", "scout", "--runtime", "shell"],
    );
    assert!(ok.status.success(), "{}", outputs(&ok));
    f.agent_env("scout");
    let before = f.sb.state(&f.repo);
    let again = f.berth(
        &f.repo,
        &pairs(&env),
        &["layer1", "scout", "feat/other", "shell"],
    );
    assert_eq!(again.status.code(), Some(1), "{}", outputs(&again));
    assert!(
        stderr(&again).starts_with("git berth: agent 'scout' is running (layer 1, tmux pane %"),
        "{}",
        stderr(&again)
    );
    assert_eq!(f.sb.state(&f.repo), before);
}

#[test]
fn a_name_whose_slug_a_live_agent_uses_is_refused() {
    let f = Fixture::new();
    let Some(tmux) = Tmux::start(&f.sb, &f.repo) else {
        return;
    };
    let env = in_tmux(&tmux);
    f.berth_ok(
        &f.repo,
        &pairs(&env),
        &["spawn", "a b", "--", "sleep", "120"],
    );
    let before = f.sb.state(&f.repo);
    let again = f.berth(
        &f.repo,
        &pairs(&env),
        &["spawn", "a-b", "--", "sleep", "120"],
    );
    assert_eq!(again.status.code(), Some(1), "{}", outputs(&again));
    assert!(
        stderr(&again).starts_with("git berth: agent 'a b' is running (layer 1, tmux pane %"),
        "{}",
        stderr(&again)
    );
    assert_eq!(f.sb.state(&f.repo), before);
    assert_eq!(f.agents().len(), 1);
}

#[test]
fn the_master_dry_run_prints_the_runtime_its_command_and_the_hatches_and_launches_nothing() {
    let f = Fixture::new();
    f.sb.git(
        &f.repo,
        &[
            "config",
            "berth.runtime.claude.command",
            "claude --model 'opus 4'",
        ],
    );
    let out = f.berth_ok(
        &f.repo,
        &[("BERTH_MASTER_DRY_RUN", "1")],
        &["master", "claude"],
    );
    assert_eq!(
        stdout(&out),
        "runtime: claude\ncommand: claude --model 'opus 4'\nBERTH_ALLOW_MAIN_WORKTREE=1\n\
         BERTH_MASTER_SESSION=1\nBERTH_AGENT_LAYER=0\n"
    );
    // With the master's definition written by init, it runs as that agent.
    std::fs::create_dir_all(f.repo.join(".opencode/agent")).unwrap();
    std::fs::write(f.repo.join(".opencode/agent/master.md"), "master\n").unwrap();
    let out = f.berth(&f.repo, &[("BERTH_MASTER_DRY_RUN", "1")], &["master"]);
    assert!(stdout(&out).starts_with("runtime: opencode\ncommand: opencode --agent master\n"));

    // Elsewhere than the primary checkout it is refused, with the way there.
    let wt = f.sb.add(&f.repo, &["elsewhere"]);
    let out = f.berth(&wt, &[("BERTH_MASTER_DRY_RUN", "1")], &["master"]);
    assert_eq!(out.status.code(), Some(1));
    let (first, hint) = error_lines(&stderr(&out));
    assert_eq!(
        first,
        "git berth: the master runs in the primary checkout, and this is not it"
    );
    assert_eq!(
        hint.unwrap(),
        format!(
            "hint: run it there: cd {} && git berth master",
            f.repo.display()
        )
    );

    // Without the dry run it execs the runtime with the hatches set, in this terminal.
    f.sb.git(
        &f.repo,
        &["config", "berth.runtime.shell.command", "sh -c 'env; pwd'"],
    );
    let out = f.berth_ok(&f.repo, &[], &["master", "shell"]);
    let text = stdout(&out);
    for line in [
        "BERTH_ALLOW_MAIN_WORKTREE=1",
        "BERTH_MASTER_SESSION=1",
        "BERTH_AGENT_LAYER=0",
    ] {
        assert!(text.lines().any(|l| l == line), "{line} in {text}");
    }
}

#[test]
fn respawn_moves_a_running_agent_to_another_worktree_and_it_keeps_its_name() {
    let Some((f, tmux)) = Fixture::with_tmux() else {
        return;
    };
    let first = f.layer1(&tmux, "mover");
    f.agent_env("mover");
    let before = f.agent("mover");
    let pane = before["pane"].as_str().unwrap().to_owned();
    std::fs::remove_file(f.out.join("mover.ready")).unwrap();

    let out = f.berth_ok(
        &f.repo,
        &[],
        &["respawn", "mover", "--worktree", "probe", "--json"],
    );
    let moved: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let probe = PathBuf::from(moved["worktree"].as_str().unwrap());
    assert_ne!(probe, first);
    assert!(probe.ends_with("probe"), "{}", probe.display());

    let seen = f.agent_env("mover");
    assert_eq!(seen["BERTH_AGENT_WORKTREE"], probe.display().to_string());
    assert_eq!(seen["BERTH_SESSION"], "agent-mover");
    assert_eq!(seen["BERTH_AGENT_LAYER"], "1");
    assert_eq!(
        f.agent_file("mover", "cwd").trim(),
        probe.display().to_string()
    );
    // The same pane, now in the other worktree; the old process is gone.
    assert_eq!(
        tmux.pane_format(&pane, "#{pane_current_path}"),
        probe.display().to_string()
    );
    let after = f.agent("mover");
    assert_eq!(after["pane"], pane.as_str());
    assert_eq!(after["status"], "alive");
    assert_ne!(after["pid"], before["pid"]);
    wait_for("the old process to end", || {
        process_gone(before["pid"].as_u64().unwrap() as u32)
    });
    assert_eq!(f.agents().len(), 1);
    // The claim moved with it: the old worktree is free, the new one the agent's.
    assert_eq!(
        f.sb.list_row(&f.repo, "mover")["claimed_by"],
        serde_json::Value::Null
    );
    assert_eq!(f.sb.list_row(&f.repo, "probe")["claimed_by"], "agent-mover");
}

#[test]
fn send_types_into_the_pane_and_agents_shows_alive_then_gone() {
    let Some((f, tmux)) = Fixture::with_tmux() else {
        return;
    };
    f.layer1(&tmux, "talk");
    f.agent_env("talk");

    let out = f.berth(
        &f.repo,
        &[],
        &["send", "talk", "-n", "review the diff; then stop"],
    );
    assert!(out.status.success(), "{}", outputs(&out));
    wait_for("the text to reach the agent", || {
        f.agent_file("talk", "in") == "-n review the diff; then stop\n"
    });

    let agent = f.agent("talk");
    assert_eq!(agent["status"], "alive");
    assert_eq!(agent["layer"], 1);
    assert_eq!(agent["runtime"], "shell");
    assert_eq!(agent["backend"], "tmux");
    assert_eq!(agent["branch"], "feat/talk");
    tmux.run(&["kill-pane", "-t", agent["pane"].as_str().unwrap()]);
    wait_for("the agent to be gone", || {
        f.agent("talk")["status"] == "gone"
    });
    let out = f.berth(&f.repo, &[], &["send", "talk", "hello"]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        error_lines(&stderr(&out)).0,
        "git berth: agent 'talk' is gone"
    );

    // Its pane closed, respawn gives it a new window; it keeps its name and session.
    std::fs::remove_file(f.out.join("talk.ready")).unwrap();
    let env = in_tmux(&tmux);
    f.berth_ok(&f.repo, &pairs(&env), &["respawn", "talk"]);
    assert_eq!(f.agent_env("talk")["BERTH_SESSION"], "agent-talk");
    let again = f.agent("talk");
    assert_eq!(again["status"], "alive");
    assert_ne!(again["pane"], agent["pane"]);
    assert_eq!(f.agents().len(), 1);

    // Once it ends for good, prune forgets its record; a live agent's stays.
    f.layer1(&tmux, "other");
    tmux.run(&["kill-pane", "-t", again["pane"].as_str().unwrap()]);
    wait_for("the agent to be gone again", || {
        f.agent("talk")["status"] == "gone"
    });
    let pruned = f.berth_ok(&f.repo, &[], &["prune", "--json"]);
    let pruned: serde_json::Value = serde_json::from_slice(&pruned.stdout).unwrap();
    assert_eq!(pruned["agents"], serde_json::json!(["talk"]), "{pruned}");
    let left: Vec<String> = f
        .agents()
        .iter()
        .map(|a| a["name"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(left, ["other"]);
}

#[test]
fn remove_clean_and_prune_keep_a_worktree_while_its_agent_lives() {
    let Some((f, tmux)) = Fixture::with_tmux() else {
        return;
    };
    let path = f.layer1(&tmux, "busy");

    let out = f.berth(&f.repo, &[], &["remove", "--force", "busy"]);
    assert_eq!(out.status.code(), Some(1), "{}", outputs(&out));
    let (first, hint) = error_lines(&stderr(&out));
    assert_eq!(
        first,
        "git berth: worktree 'busy' is where agent 'busy' still runs"
    );
    assert_eq!(
        hint.unwrap(),
        "hint: stop it first (git berth stop busy), then remove the worktree; --force does not override a running agent"
    );
    assert!(path.is_dir());
    let out = f.berth(&f.repo, &[], &["clean", "--json"]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let reason = report["worktrees"][0]["reason"].as_str().unwrap();
    assert!(reason.starts_with("agent busy running"), "{reason}");
    assert!(path.is_dir());

    let pane = f.agent("busy")["pane"].as_str().unwrap().to_owned();
    tmux.run(&["kill-pane", "-t", &pane]);
    wait_for("the agent to be gone", || {
        f.agent("busy")["status"] == "gone"
    });
    f.berth_ok(&f.repo, &[], &["remove", "busy"]);
    assert!(!path.exists());
}

#[test]
fn the_remove_refusal_names_every_live_agent_in_the_worktree() {
    let Some((f, tmux)) = Fixture::with_tmux() else {
        return;
    };
    let path = f.layer1(&tmux, "busy");
    let env = in_tmux(&tmux);
    f.berth_ok(
        &f.repo,
        &pairs(&env),
        &[
            "spawn",
            "helper",
            "--worktree",
            "busy",
            "--runtime",
            "shell",
        ],
    );
    f.agent_env("helper");
    assert_eq!(f.agent("helper")["worktree"], f.agent("busy")["worktree"]);

    let out = f.berth(&f.repo, &[], &["remove", "--force", "busy"]);
    assert_eq!(out.status.code(), Some(1), "{}", outputs(&out));
    let (first, hint) = error_lines(&stderr(&out));
    assert_eq!(
        first,
        "git berth: worktree 'busy' is where agents 'busy' and 'helper' still run"
    );
    assert_eq!(
        hint.unwrap(),
        "hint: stop them first (git berth stop busy helper), then remove the worktree; --force does not override a running agent"
    );
    assert!(path.is_dir());
    // The hint's command, run as printed, frees the worktree.
    f.berth_ok(&f.repo, &[], &["stop", "busy", "helper"]);
    f.berth_ok(&f.repo, &[], &["remove", "busy"]);
    assert!(!path.exists());
}

/// tmux's default server, its socket under a `TMUX_TMPDIR` of the sandbox's own; killed on drop.
struct DefaultTmux(PathBuf);

impl DefaultTmux {
    /// `None` (after saying why) where tmux is not installed.
    fn new(f: &Fixture) -> Option<DefaultTmux> {
        if Command::new("tmux").arg("-V").output().is_err() {
            common::skip("tmux", "tmux is not installed");
            return None;
        }
        let tmpdir = f.sb.root.join("tmuxtmp");
        std::fs::create_dir_all(&tmpdir).unwrap();
        Some(DefaultTmux(tmpdir))
    }

    /// The environment that points tmux at this server.
    fn env(&self) -> [(&'static str, String); 1] {
        [("TMUX_TMPDIR", self.0.display().to_string())]
    }

    /// The names of the windows of `session`, one a line.
    fn windows(&self, session: &str) -> String {
        let out = Command::new("tmux")
            .env("TMUX_TMPDIR", &self.0)
            .args(["list-windows", "-t", &format!("={session}")])
            .args(["-F", "#{window_name}"])
            .output()
            .unwrap();
        stdout(&out)
    }
}

impl Drop for DefaultTmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .env("TMUX_TMPDIR", &self.0)
            .arg("kill-server")
            .output();
    }
}

#[test]
fn outside_tmux_agents_open_in_a_detached_session_named_for_the_project() {
    let f = Fixture::new();
    let Some(tmux) = DefaultTmux::new(&f) else {
        return;
    };
    let env = tmux.env();
    let env = pairs(&env);
    for name in ["one", "two"] {
        let out = f.berth_ok(&f.repo, &env, &["spawn", name, "--runtime", "shell"]);
        assert!(
            stderr(&out).contains("hint: watch it with: tmux -S "),
            "{}",
            stderr(&out)
        );
        assert!(
            stderr(&out).contains(" attach -t berth-app"),
            "{}",
            stderr(&out)
        );
        f.agent_env(name);
    }
    assert_eq!(tmux.windows("berth-app"), "one\ntwo\n");
}

#[test]
fn without_a_terminal_berth_prints_the_command_and_with_here_it_runs_it_in_place() {
    let f = Fixture::new();
    let before = f.sb.state(&f.repo);
    // No tmux on PATH: only the berth binary and what sh needs.
    let bin = f.sb.root.join("bin");
    std::fs::create_dir_all(&bin).unwrap();
    for tool in ["sh", "env", "git", "mv", "sleep"] {
        if let Some(found) = std::env::var_os("PATH")
            .iter()
            .flat_map(std::env::split_paths)
            .map(|d| d.join(tool))
            .find(|p| p.is_file())
        {
            let _ = std::os::unix::fs::symlink(found, bin.join(tool));
        }
    }
    let path = format!("{}:{}", berth_bin_dir().display(), bin.display());
    let run = |args: &[&str]| {
        let mut cmd = f.sb.berth_command(&f.repo, args);
        cmd.env("PATH", &path);
        cmd.stdin(std::process::Stdio::null()).output().unwrap()
    };
    let out = run(&["layer1", "solo", "feat/solo", "shell", "--prompt", "go"]);
    assert_eq!(out.status.code(), Some(1), "{}", outputs(&out));
    assert_eq!(
        stdout(&out),
        format!(
            "cd {} && git berth layer1 solo feat/solo shell --prompt go --here\n",
            f.repo.display()
        )
    );
    assert!(stderr(&out).starts_with("git berth: no terminal to open the agent in"));
    assert_eq!(f.sb.state(&f.repo), before);

    // Its input is empty: told to stop, the script ends once it has read all of it.
    std::fs::write(f.out.join("solo.stop"), "").unwrap();
    let out = run(&[
        "layer1",
        "solo",
        "feat/solo",
        "shell",
        "--prompt",
        "go",
        "--here",
    ]);
    assert!(out.status.success(), "{}", outputs(&out));
    let seen = f.agent_env("solo");
    assert_eq!(seen["BERTH_AGENT_LAYER"], "1");
    assert_eq!(seen["BERTH_AGENT_PROMPT"], "go");
    assert!(f.agent_file("solo", "cwd").trim().ends_with("/solo"));
    let agent = f.agent("solo");
    assert_eq!(agent["backend"], "none");
    assert_eq!(agent["status"], "gone");
}

/// A stand-in for herdr 0.8 on PATH: it logs its arguments, answers `tab create` and
/// `pane split` with the JSON herdr prints, and runs what `pane run` types, as the pane's shell
/// would.
fn herdr_stand_in(f: &Fixture) -> (PathBuf, PathBuf) {
    let bin = f.sb.root.join("herdr-bin");
    std::fs::create_dir_all(&bin).unwrap();
    let log = f.sb.root.join("herdr.log");
    std::fs::write(
        bin.join("herdr"),
        format!(
            "#!/bin/sh\n\
             printf '%s\\n' \"$*\" >> {log}\n\
             case \"$1 $2\" in\n\
             'tab create') echo '{{\"result\":{{\"tab\":{{\"tab_id\":\"t9\"}},\"root_pane\":{{\"pane_id\":\"p9\"}}}}}}' ;;\n\
             'pane split') echo '{{\"result\":{{\"pane\":{{\"pane_id\":\"p10\"}}}}}}' ;;\n\
             'pane run') sh -c \"$4\" </dev/null >/dev/null 2>&1 & ;;\n\
             esac\n",
            log = sh_quote(log.to_str().unwrap())
        ),
    )
    .unwrap();
    std::fs::set_permissions(
        bin.join("herdr"),
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    (bin, log)
}

#[test]
fn inside_herdr_a_layer_1_agent_gets_a_tab_and_is_started_by_pane_run() {
    let f = Fixture::new();
    let (bin, log) = herdr_stand_in(&f);
    let path = format!("{}:{}", bin.display(), path_with_berth());
    let env = [
        ("PATH", path.as_str()),
        ("HERDR_ENV", "1"),
        ("HERDR_PANE_ID", "p1"),
        ("BERTH_ALLOW_MAIN_WORKTREE", "1"),
    ];
    // The stand-in's agents run outside any terminal: end them when the test ends, passed or not.
    struct EndAgents(PathBuf);
    impl Drop for EndAgents {
        fn drop(&mut self) {
            for entry in std::fs::read_dir(&self.0).into_iter().flatten().flatten() {
                if entry.path().extension().is_some_and(|e| e == "pid")
                    && let Ok(pid) = std::fs::read_to_string(entry.path())
                {
                    let _ = Command::new("kill").arg(pid.trim()).output();
                }
            }
        }
    }
    let _end = EndAgents(f.sb.common_dir(&f.repo).join("berth/agents"));
    let out = f.berth_ok(
        &f.repo,
        &env,
        &["layer1", "web", "feat/web", "shell", "--prompt", "hi"],
    );
    let wt = PathBuf::from(stdout(&out).trim());
    let seen = f.agent_env("web");
    assert_eq!(seen["BERTH_AGENT_LAYER"], "1");
    assert!(!seen.contains_key("BERTH_ALLOW_MAIN_WORKTREE"));
    assert_eq!(f.agent_file("web", "cwd").trim(), wt.display().to_string());

    let calls = std::fs::read_to_string(&log).unwrap();
    let lines: Vec<&str> = calls.lines().collect();
    let common = f.sb.common_dir(&f.repo);
    assert_eq!(
        lines[0],
        format!(
            "tab create --cwd {wt} --label web \
             --env BERTH_AGENT_BRANCH=feat/web --env BERTH_AGENT_LAYER=1 \
             --env BERTH_AGENT_NAME=web --env BERTH_AGENT_NORMS={norms} \
             --env BERTH_AGENT_PROMPT=hi --env BERTH_AGENT_WORKTREE={wt} \
             --env BERTH_SESSION=agent-web --env PATH={path} --no-focus",
            wt = wt.display(),
            norms = common.join("berth/agents/web.md").display(),
        )
    );
    let run = lines[1];
    assert!(
        run.starts_with(&format!(
            "pane run p9 cd {} && sh -c 'echo $$ > \"$0\" && exec \"$@\"' {} env -u BERTH_ALLOW_MAIN_WORKTREE -u BERTH_MASTER_SESSION -u BERTH_SESSION_PID ",
            wt.display(),
            common.join("berth/agents/web.pid").display()
        )),
        "{run}"
    );
    let agent = f.agent("web");
    assert_eq!(agent["backend"], "herdr");
    assert_eq!(agent["pane"], "p9");
    assert_eq!(agent["status"], "alive");

    // send types through `pane run`; a layer-2 split goes beside the caller's pane.
    f.berth_ok(&f.repo, &env, &["send", "web", "next task"]);
    let layer2_env = [
        ("PATH", path.as_str()),
        ("HERDR_ENV", "1"),
        ("HERDR_PANE_ID", "p9"),
        ("BERTH_AGENT_LAYER", "1"),
        (
            "BERTH_AGENT_WORKTREE",
            seen["BERTH_AGENT_WORKTREE"].as_str(),
        ),
        ("BERTH_AGENT_BRANCH", "feat/web"),
        ("BERTH_SESSION", "agent-web"),
    ];
    f.berth_ok(&wt, &layer2_env, &["layer2", "web-2", "shell"]);
    f.agent_env("web-2");
    let calls = std::fs::read_to_string(&log).unwrap();
    let lines: Vec<&str> = calls.lines().collect();
    assert_eq!(lines[2], "pane run p9 next task");
    assert!(
        lines[3].starts_with(&format!(
            "pane split --pane p9 --direction right --cwd {} --env BERTH_AGENT_BRANCH=feat/web --env BERTH_AGENT_LAYER=2 ",
            wt.display()
        )),
        "{}",
        lines[3]
    );
    assert!(lines[3].ends_with(" --no-focus"), "{}", lines[3]);
    assert!(lines[4].starts_with("pane run p10 cd "), "{}", lines[4]);
}

#[test]
fn feat_opens_a_worktree_on_a_feat_branch_and_a_shell_tab_inside_tmux() {
    let f = Fixture::new();
    let Some(tmux) = Tmux::start(&f.sb, &f.repo) else {
        return;
    };
    // Outside any terminal: the path alone.
    let out = f.berth_ok(&f.repo, &[], &["feat", "login"]);
    let path = PathBuf::from(stdout(&out).trim());
    assert_eq!(
        f.sb.git(&path, &["branch", "--show-current"]).trim(),
        "feat/login"
    );
    // Inside tmux: a shell tab there too, in front.
    let env = in_tmux(&tmux);
    let out = f.berth_ok(&f.repo, &pairs(&env), &["feat", "fix/crash", "--json"]);
    let feat: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(feat["branch"], "fix/crash");
    let pane = feat["pane"].as_str().unwrap();
    // The pane's path is its shell's working folder, there once the shell has started.
    wait_for("the tab's shell to stand in the worktree", || {
        tmux.pane_format(pane, "#{pane_current_path}") == feat["path"].as_str().unwrap()
    });
    assert!(f.agents().is_empty(), "a person's tab is no agent");
}

#[test]
fn feat_outside_tmux_opens_its_detached_session_once_and_a_window_in_it_after() {
    let f = Fixture::new();
    let Some(tmux) = DefaultTmux::new(&f) else {
        return;
    };
    let env = tmux.env();
    let env = pairs(&env);
    let first = f.berth_ok(&f.repo, &env, &["feat", "login", "--backend", "tmux"]);
    let again = f.berth_ok(&f.repo, &env, &["feat", "login", "--backend", "tmux"]);
    assert_eq!(stdout(&first), stdout(&again));
    assert_eq!(tmux.windows("berth-login"), "login\nlogin\n");
}

#[test]
fn tell_worktree_types_into_every_live_agent_of_that_worktree_and_no_other() {
    let Some((f, tmux)) = Fixture::with_tmux() else {
        return;
    };
    let lead = f.layer1(&tmux, "lead");
    f.layer1(&tmux, "elsewhere");
    // A teammate that joins the lead's worktree on purpose (a spawn group).
    let env = in_tmux(&tmux);
    let out = f.berth_ok(
        &f.repo,
        &pairs(&env),
        &[
            "spawn",
            "mate",
            "--worktree",
            "lead",
            "--runtime",
            "shell",
            "--",
            f.sb.root.join("agent.sh").to_str().unwrap(),
            "--flag",
            "two words",
        ],
    );
    assert_eq!(PathBuf::from(stdout(&out).trim()), lead);
    f.agent_env("mate");
    // `-- <cmd>` replaced the runtime's command line, arguments and all.
    assert_eq!(f.agent_file("mate", "args"), "--flag\ntwo words\n");

    let ctx = berth::repo::Context::discover_from(&f.repo).unwrap();
    let mut told = berth::orchestrator::tell_worktree(&ctx, &lead, "your work landed").unwrap();
    told.sort();
    assert_eq!(told, ["lead", "mate"]);
    for name in ["lead", "mate"] {
        wait_for(&format!("{name} to hear it"), || {
            f.agent_file(name, "in") == "your work landed\n"
        });
    }
    assert_eq!(f.agent_file("elsewhere", "in"), "");
}

#[test]
fn prune_keeps_the_record_of_a_deleted_worktree_while_its_agent_still_runs_there() {
    let Some((f, tmux)) = Fixture::with_tmux() else {
        return;
    };
    let path = f.layer1(&tmux, "orphan");
    std::fs::remove_dir_all(&path).unwrap();
    let out = f.berth_ok(&f.repo, &[], &["prune"]);
    assert!(
        stderr(&out)
            .contains("kept 'orphan': its folder is gone, but agent 'orphan' still runs there"),
        "{}",
        outputs(&out)
    );
    assert_eq!(f.sb.list_rows(&f.repo, false).len(), 1);

    tmux.run(&[
        "kill-pane",
        "-t",
        f.agent("orphan")["pane"].as_str().unwrap(),
    ]);
    wait_for("the agent to be gone", || {
        f.agent("orphan")["status"] == "gone"
    });
    f.berth_ok(&f.repo, &[], &["prune"]);
    assert!(f.sb.list_rows(&f.repo, false).is_empty());
}

#[test]
fn an_agent_that_exited_unreaped_is_gone_and_its_worktree_can_be_removed() {
    let f = Fixture::new();
    // Told to stop, with empty input the script ends at once: its parent never reaps it, so the
    // agent berth recorded (berth itself, become the runtime by exec) stays a zombie.
    std::fs::write(f.out.join("solo.stop"), "").unwrap();
    let mut cmd =
        f.sb.berth_command(&f.repo, &["layer1", "solo", "feat/solo", "shell", "--here"]);
    cmd.env("PATH", path_with_berth());
    let agent = common::Unreaped::spawn(&cmd);
    agent.wait_for_zombie();
    wait_for("the agent record", || {
        f.agents().iter().any(|a| a["name"] == "solo")
    });

    assert_eq!(f.agent("solo")["pid"], agent.pid);
    assert_eq!(f.agent("solo")["status"], "gone");
    let out = f.berth(&f.repo, &[], &["remove", "solo"]);
    assert!(out.status.success(), "{}", outputs(&out));
    assert!(common::git_worktrees(&f.sb, &f.repo).len() == 1);
}

#[test]
fn stop_ends_an_agent_its_pane_closes_and_its_worktree_frees_up() {
    let Some((f, tmux)) = Fixture::with_tmux() else {
        return;
    };
    let path = f.layer1(&tmux, "busy");
    let pane = f.agent("busy")["pane"].as_str().unwrap().to_owned();
    let refused = f.berth(&f.repo, &[], &["remove", "busy"]);
    assert_eq!(refused.status.code(), Some(1), "{}", outputs(&refused));

    let out = f.berth_ok(&f.repo, &[], &["stop", "busy", "--json"]);

    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(report["agents"][0]["name"], "busy", "{report}");
    assert_eq!(report["agents"][0]["outcome"], "stopped", "{report}");
    assert_eq!(f.agent("busy")["status"], "gone");
    wait_for("the pane to close", || !tmux.panes().contains(&pane));
    f.berth_ok(&f.repo, &[], &["remove", "busy"]);
    assert!(!path.exists());
    let again = f.berth_ok(&f.repo, &[], &["stop", "busy"]);
    assert_eq!(stderr(&again), "agent 'busy' was not running\n");
}

#[test]
fn stop_kills_an_agent_that_ignores_sigterm_and_what_it_started_after_the_grace() {
    let Some((f, tmux)) = Fixture::with_tmux() else {
        return;
    };
    f.layer1(&tmux, "calm");
    // An agent that shrugs off SIGTERM and leaves a child of its own running.
    let stubborn = f.sb.root.join("stubborn.sh");
    std::fs::write(
        &stubborn,
        format!(
            "#!/bin/sh\ntrap '' TERM\nsleep 300 &\necho $! > {out}/child\n: > {out}/stubborn.ready\nwhile :; do sleep 0.05; done\n",
            out = sh_quote(f.out.to_str().unwrap())
        ),
    )
    .unwrap();
    std::fs::set_permissions(
        &stubborn,
        std::os::unix::fs::PermissionsExt::from_mode(0o755),
    )
    .unwrap();
    f.sb.git(
        &f.repo,
        &[
            "config",
            "berth.runtime.shell.command",
            stubborn.to_str().unwrap(),
        ],
    );
    let env = in_tmux(&tmux);
    f.berth_ok(
        &f.repo,
        &pairs(&env),
        &["layer1", "stubborn", "feat/stubborn", "shell"],
    );
    wait_for("the stubborn agent to start", || {
        f.out.join("stubborn.ready").exists()
    });
    let child: u32 = std::fs::read_to_string(f.out.join("child"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();

    let out = f.berth_ok(&f.repo, &[], &["stop", "--all", "--grace", "1s", "--json"]);

    let report: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let outcome = |name: &str| {
        report["agents"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["name"] == name)
            .map(|a| a["outcome"].clone())
    };
    assert_eq!(outcome("calm"), Some("stopped".into()), "{report}");
    assert_eq!(outcome("stubborn"), Some("killed".into()), "{report}");
    assert!(
        process_gone(child),
        "the agent's own child ends with its group"
    );
    assert!(f.agents().iter().all(|a| a["status"] == "gone"));
}

#[test]
fn stop_of_an_unknown_agent_is_refused_and_stops_nothing() {
    let Some((f, tmux)) = Fixture::with_tmux() else {
        return;
    };
    f.layer1(&tmux, "keep");

    let out = f.berth(&f.repo, &[], &["stop", "keep", "nosuch"]);

    assert_eq!(out.status.code(), Some(1), "{}", outputs(&out));
    assert!(stderr(&out).contains("nosuch"), "{}", outputs(&out));
    assert_eq!(f.agent("keep")["status"], "alive");
    let out = f.berth(&f.repo, &[], &["stop"]);
    assert_eq!(out.status.code(), Some(2), "{}", outputs(&out));
}
