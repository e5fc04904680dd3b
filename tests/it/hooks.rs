//! Project hooks with real processes: `install`, the environment and working directory of setup
//! and teardown, failures and retries, teardown on remove, prune and clean, the timeout, and trust
//! in a fresh clone. Hooks record what they saw (`env`, `pwd -P`) in files outside the checkouts.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use common::*;

/// Each test's own `berth.portRange`, from 61000 up in 100-port steps (this file only), above
/// Linux's ephemeral ports (32768-60999), which other processes' listeners may take at random.
fn ports_at(slot: u16) -> u16 {
    61000 + slot * 100
}

/// A folder outside every checkout where hooks leave their records.
fn out_dir(sandbox: &Sandbox) -> PathBuf {
    let out = sandbox.root.join("out");
    std::fs::create_dir_all(&out).unwrap();
    out
}

/// A command that records the hook's environment and working directory as
/// `<out>/<hook>-<name>.env` and `.pwd`.
fn recorder(out: &Path) -> String {
    let out = sh_quote(out.to_str().unwrap());
    format!(
        "env > {out}/\"$WORKTREE_HOOK-$WORKTREE_NAME.env\"; pwd -P > {out}/\"$WORKTREE_HOOK-$WORKTREE_NAME.pwd\""
    )
}

fn read_trimmed(path: &Path) -> String {
    std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .trim_end()
        .to_owned()
}

/// A repository with committed setup and teardown recorders and `ports` ports.
fn repo_with_recorders(sandbox: &Sandbox, slot: u16, ports: &str) -> (PathBuf, PathBuf) {
    let repo = sandbox.repo("repo");
    let out = out_dir(sandbox);
    sandbox.port_range(&repo, ports_at(slot), 10);
    let cmd = recorder(&out);
    sandbox.install(
        &repo,
        &["--setup", &cmd, "--teardown", &cmd, "--ports", ports],
    );
    sandbox.commit_all(&repo, "hooks");
    (repo, out)
}

#[test]
fn setup_runs_in_the_new_worktree_and_teardown_in_the_primary_with_the_whole_environment() {
    let sandbox = Sandbox::new();
    let (repo, out) = repo_with_recorders(&sandbox, 0, "20");
    let base = sandbox.rev(&repo, "main");
    let wt = sandbox.add(&repo, &["feature"]);

    let env = read_env_file(&out.join("setup-feature.env"));
    let row = sandbox.list_row(&repo, "feature");
    let first = row["ports"]["first"].as_u64().expect("a port block");
    assert_eq!(row["ports"]["count"], 20);
    assert_eq!(row["setup"], "done");
    let expect = [
        ("WORKTREE_NAME", "feature".to_owned()),
        ("WORKTREE_PATH", wt.display().to_string()),
        ("WORKTREE_BRANCH", "berth/feature".to_owned()),
        ("WORKTREE_BASE", base.clone()),
        ("WORKTREE_PRIMARY", repo.display().to_string()),
        ("WORKTREE_HOOK", "setup".to_owned()),
        ("WORKTREE_PORT", first.to_string()),
        ("WORKTREE_PORTS", "20".to_owned()),
    ];
    for (key, value) in &expect {
        assert_eq!(env.get(*key), Some(value), "{key} in {env:?}");
    }
    assert_eq!(
        first,
        u64::from(ports_at(0)),
        "the lowest block of the range"
    );
    assert_eq!(
        read_trimmed(&out.join("setup-feature.pwd")),
        wt.display().to_string()
    );
    assert!(
        !out.join("teardown-feature.env").exists(),
        "no teardown yet"
    );

    sandbox.berth_ok(&repo, &["remove", "feature"]);
    let env = read_env_file(&out.join("teardown-feature.env"));
    for (key, value) in &expect {
        let value = if *key == "WORKTREE_HOOK" {
            "teardown"
        } else {
            value.as_str()
        };
        assert_eq!(
            env.get(*key).map(String::as_str),
            Some(value),
            "{key} in {env:?}"
        );
    }
    assert_eq!(
        read_trimmed(&out.join("teardown-feature.pwd")),
        repo.display().to_string(),
        "teardown runs in the primary checkout"
    );
    assert!(!wt.exists());
}

#[test]
fn a_project_without_ports_gives_its_hooks_no_port_variables() {
    let sandbox = Sandbox::new();
    let repo = sandbox.repo("repo");
    let out = out_dir(&sandbox);
    sandbox.install(&repo, &["--setup", &recorder(&out)]);
    sandbox.commit_all(&repo, "hooks");
    sandbox.add(&repo, &["plain"]);
    let env = read_env_file(&out.join("setup-plain.env"));
    assert_eq!(env.get("WORKTREE_NAME").map(String::as_str), Some("plain"));
    assert!(!env.contains_key("WORKTREE_PORT"), "{env:?}");
    assert!(!env.contains_key("WORKTREE_PORTS"), "{env:?}");
    assert_eq!(
        sandbox.list_row(&repo, "plain")["ports"],
        serde_json::Value::Null
    );
}

#[test]
fn a_hooks_output_goes_to_stderr_and_add_prints_only_the_path() {
    let sandbox = Sandbox::new();
    let repo = sandbox.repo("repo");
    sandbox.install(
        &repo,
        &["--setup", "echo hello-from-setup; echo to-stderr >&2"],
    );
    sandbox.commit_all(&repo, "hooks");
    let out = sandbox.berth(&repo, &["add", "quiet"]);
    assert!(out.status.success(), "{}", outputs(&out));
    let printed = stdout(&out);
    assert_eq!(printed.lines().count(), 1, "{printed:?}");
    assert!(!printed.contains("hello-from-setup"));
    let err = stderr(&out);
    assert!(
        err.contains("hello-from-setup") && err.contains("to-stderr"),
        "{err}"
    );
}

#[test]
fn install_writes_only_the_hooks_given_prints_their_paths_and_never_stages() {
    let sandbox = Sandbox::new();
    let repo = sandbox.repo("repo");
    let hooks = repo.join(".worktree-hooks");

    let written = sandbox.install(&repo, &["--ports", "5"]);
    assert_eq!(written, vec![hooks.join("ports")]);
    assert!(!hooks.join("setup").exists() && !hooks.join("teardown").exists());
    assert_eq!(std::fs::read_to_string(hooks.join("ports")).unwrap(), "5\n");

    let written = sandbox.install(&repo, &["--teardown", "echo down"]);
    assert_eq!(written, vec![hooks.join("teardown")]);
    assert_eq!(
        std::fs::read_to_string(hooks.join("ports")).unwrap(),
        "5\n",
        "a hook not given is left as it was"
    );
    assert!(!hooks.join("setup").exists());

    let written = sandbox.install(&repo, &["--setup", "make setup", "--ports", "20"]);
    assert_eq!(written, vec![hooks.join("setup"), hooks.join("ports")]);

    assert_eq!(
        sandbox.status(&repo),
        "?? .worktree-hooks/\n",
        "untracked, not staged"
    );
    assert_eq!(sandbox.git(&repo, &["diff", "--cached", "--name-only"]), "");
    assert_eq!(sandbox.git(&repo, &["ls-files", ".worktree-hooks"]), "");
    assert_eq!(
        sandbox.git(&repo, &["rev-list", "--count", "HEAD"]).trim(),
        "1"
    );
}

#[test]
fn an_installed_hook_holds_its_command_quoted_safely_and_runs_without_berth() {
    let sandbox = Sandbox::new();
    let repo = sandbox.repo("repo");
    let out = out_dir(&sandbox);
    let target = sh_quote(out.join("quoted").to_str().unwrap());
    let command = format!("printf '%s|%s|%s\\n' \"it's\" '$HOME' \"a;b\" > {target}");
    sandbox.install(&repo, &["--setup", &command]);
    let hook = repo.join(".worktree-hooks/setup");
    let text = std::fs::read_to_string(&hook).unwrap();
    assert!(
        text.lines()
            .any(|l| l == format!("command={}", sh_quote(&command))),
        "{text}"
    );
    let mut sh = std::process::Command::new("sh");
    sandbox.env(&mut sh);
    let ran = sh.arg(&hook).current_dir(&repo).output().unwrap();
    assert!(ran.status.success(), "{}", outputs(&ran));
    assert_eq!(read_trimmed(&out.join("quoted")), "it's|$HOME|a;b");
    use std::os::unix::fs::PermissionsExt as _;
    assert_ne!(
        std::fs::metadata(&hook).unwrap().permissions().mode() & 0o111,
        0,
        "executable"
    );
}

#[test]
fn install_with_no_option_lists_each_hook_in_force_and_where_it_comes_from() {
    let sandbox = Sandbox::new();
    let repo = sandbox.repo("repo");
    let none = sandbox.berth(&repo, &["install"]);
    assert!(none.status.success());
    assert_eq!(stdout(&none), "");
    assert!(
        stderr(&none).contains("no worktree hooks"),
        "{}",
        stderr(&none)
    );

    sandbox.install(
        &repo,
        &[
            "--setup",
            "make setup",
            "--teardown",
            "make down",
            "--ports",
            "30",
        ],
    );
    sandbox.commit_all(&repo, "hooks");
    sandbox.install(&repo, &["--local", "--setup", "make mine"]);
    let shown = sandbox.berth_ok(&repo, &["install"]);
    let lines: Vec<&str> = shown.lines().collect();
    let local = sandbox.common_dir(&repo).join("worktree-hooks/setup");
    assert_eq!(lines.len(), 3, "{shown}");
    assert!(
        lines[0].starts_with("setup") && lines[0].contains("make mine"),
        "{shown}"
    );
    assert!(lines[0].contains(local.to_str().unwrap()), "{shown}");
    assert!(
        lines[1].starts_with("teardown")
            && lines[1].contains("make down")
            && lines[1].contains(repo.join(".worktree-hooks/teardown").to_str().unwrap()),
        "{shown}"
    );
    assert!(
        lines[2].starts_with("ports") && lines[2].contains("30"),
        "{shown}"
    );
    assert!(
        !shown.contains("make setup"),
        "the committed setup is replaced: {shown}"
    );
}

#[test]
fn a_local_hook_replaces_the_committed_one_and_leaves_the_checkout_untouched() {
    let sandbox = Sandbox::new();
    let repo = sandbox.repo("repo");
    let out = out_dir(&sandbox);
    let mark = |what: &str| {
        format!(
            "echo {what} >> {}",
            sh_quote(out.join("ran").to_str().unwrap())
        )
    };
    sandbox.install(&repo, &["--setup", &mark("committed")]);
    sandbox.commit_all(&repo, "hooks");
    let written = sandbox.install(&repo, &["--local", "--setup", &mark("local")]);
    let local = sandbox.common_dir(&repo).join("worktree-hooks/setup");
    assert_eq!(written, vec![local.clone()]);
    assert!(local.is_file());
    assert_eq!(
        sandbox.status(&repo),
        "",
        "a local hook is not in the checkout"
    );

    sandbox.add(&repo, &["one"]);
    assert_eq!(read_trimmed(&out.join("ran")), "local");
}

#[test]
fn a_local_hook_written_by_hand_runs_without_trust() {
    let sandbox = Sandbox::new();
    let repo = sandbox.repo("repo");
    let out = out_dir(&sandbox);
    let dir = sandbox.common_dir(&repo).join("worktree-hooks");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("setup"),
        format!(
            "echo by-hand > {}\n",
            sh_quote(out.join("ran").to_str().unwrap())
        ),
    )
    .unwrap();
    sandbox.add(&repo, &["one"]);
    assert_eq!(read_trimmed(&out.join("ran")), "by-hand");
    assert!(!sandbox.common_dir(&repo).join("berth/trust.toml").exists());
}

/// A setup that fails with exit 7 until `<out>/fixed` exists, counting its runs in `<out>/runs`.
fn flaky_setup(out: &Path) -> String {
    let out = sh_quote(out.to_str().unwrap());
    format!("echo run >> {out}/runs; test -e {out}/fixed || exit 7")
}

fn runs(out: &Path) -> usize {
    std::fs::read_to_string(out.join("runs"))
        .map(|t| t.lines().count())
        .unwrap_or(0)
}

#[test]
fn a_failing_setup_keeps_the_worktree_names_the_hook_and_exit_code_and_list_shows_it_failed() {
    let sandbox = Sandbox::new();
    let repo = sandbox.repo("repo");
    let out = out_dir(&sandbox);
    sandbox.install(&repo, &["--setup", &flaky_setup(&out)]);
    sandbox.commit_all(&repo, "hooks");

    let err = sandbox.berth_err(&repo, &["add", "broken"]);
    assert!(err.contains("hook setup failed with exit code 7"), "{err}");
    assert!(err.contains("git berth setup 'broken'"), "{err}");
    assert_eq!(runs(&out), 1);
    let wt = PathBuf::from(sandbox.list_row(&repo, "broken")["path"].as_str().unwrap());
    assert!(wt.is_dir(), "the worktree is kept");
    assert!(
        git_worktree_at(&sandbox, &repo, &wt).is_some(),
        "git still lists it"
    );
    assert!(sandbox.has_branch(&repo, "berth/broken"));
    assert_eq!(sandbox.list_row(&repo, "broken")["setup"], "failed");
    let table = sandbox.berth_ok(&repo, &["list"]);
    let rows = table_rows(&table);
    let (_, row) = rows.iter().find(|(_, r)| r["NAME"] == "broken").unwrap();
    assert!(row["STATE"].contains("setup failed"), "{table}");
}

#[test]
fn a_fixed_setup_runs_again_on_the_next_add_of_that_name_and_shows_done() {
    let sandbox = Sandbox::new();
    let repo = sandbox.repo("repo");
    let out = out_dir(&sandbox);
    sandbox.install(&repo, &["--setup", &flaky_setup(&out)]);
    sandbox.commit_all(&repo, "hooks");
    sandbox.berth_err(&repo, &["add", "retry"]);
    let wt = PathBuf::from(sandbox.list_row(&repo, "retry")["path"].as_str().unwrap());

    // Fix the hook in the worktree itself; install trusts what it writes.
    let fixed = format!(
        "echo fixed >> {}",
        sh_quote(out.join("runs").to_str().unwrap())
    );
    sandbox.install(&wt, &["--setup", &fixed]);
    let again = sandbox.add(&repo, &["retry"]);
    assert_eq!(again, wt);
    assert_eq!(read_trimmed(&out.join("runs")), "run\nfixed");
    assert_eq!(sandbox.list_row(&repo, "retry")["setup"], "done");

    // A done setup does not run again on a plain reuse.
    sandbox.add(&repo, &["retry"]);
    assert_eq!(runs(&out), 2);
}

#[test]
fn setup_by_name_runs_a_failed_setup_again_and_shows_done() {
    let sandbox = Sandbox::new();
    let repo = sandbox.repo("repo");
    let out = out_dir(&sandbox);
    sandbox.install(&repo, &["--setup", &flaky_setup(&out)]);
    sandbox.commit_all(&repo, "hooks");
    sandbox.berth_err(&repo, &["add", "later"]);
    let err = sandbox.berth_err(&repo, &["setup", "later"]);
    assert!(err.contains("exit code 7"), "{err}");
    assert_eq!(runs(&out), 2);
    assert_eq!(sandbox.list_row(&repo, "later")["setup"], "failed");

    std::fs::write(out.join("fixed"), "").unwrap();
    let printed = sandbox.berth_ok(&repo, &["setup", "later"]);
    assert_eq!(runs(&out), 3);
    assert_eq!(sandbox.list_row(&repo, "later")["setup"], "done");
    assert_eq!(
        printed.trim_end(),
        sandbox.list_row(&repo, "later")["path"].as_str().unwrap()
    );
    // `setup` always runs the hook again: it must be safe to repeat.
    sandbox.berth_ok(&repo, &["setup", "later"]);
    assert_eq!(runs(&out), 4);
}

#[test]
fn setup_with_no_name_in_a_managed_worktree_sets_up_that_one() {
    let sandbox = Sandbox::new();
    let (repo, out) = repo_with_recorders(&sandbox, 1, "10");
    let wt = sandbox.add(&repo, &["here"]);
    std::fs::remove_file(out.join("setup-here.env")).unwrap();
    sandbox.berth_ok(&wt, &["setup"]);
    let env = read_env_file(&out.join("setup-here.env"));
    assert_eq!(env["WORKTREE_NAME"], "here");
}

#[test]
fn teardown_runs_on_prune_after_the_worktree_folder_is_deleted() {
    let sandbox = Sandbox::new();
    let (repo, out) = repo_with_recorders(&sandbox, 2, "10");
    let wt = sandbox.add(&repo, &["gone"]);
    std::fs::remove_dir_all(&wt).unwrap();
    let printed = sandbox.berth_ok(&repo, &["prune"]);
    assert!(printed.contains("forgot worktree 'gone'"), "{printed}");
    assert!(printed.contains("freed ports"), "{printed}");
    let env = read_env_file(&out.join("teardown-gone.env"));
    assert_eq!(env["WORKTREE_NAME"], "gone");
    assert_eq!(env["WORKTREE_PATH"], wt.display().to_string());
    assert_eq!(env["WORKTREE_PORT"], ports_at(2).to_string());
    assert_eq!(
        read_trimmed(&out.join("teardown-gone.pwd")),
        repo.display().to_string()
    );
    assert!(!sandbox.ports_file().contains("name = \"gone\""));
}

#[test]
fn teardown_runs_on_clean_for_each_worktree_it_removes() {
    let sandbox = Sandbox::new();
    let (repo, out) = repo_with_recorders(&sandbox, 3, "10");
    let landed = sandbox.add(&repo, &["landed"]);
    let busy = sandbox.add(&repo, &["busy"]);
    std::fs::write(busy.join("work.txt"), "unsaved\n").unwrap();
    // clean keeps what a live claim holds, the caller's own too.
    sandbox.berth_ok(&repo, &["release", "landed"]);
    sandbox.berth_ok(&repo, &["release", "busy"]);
    let printed = sandbox.berth_ok(&repo, &["clean"]);
    assert!(printed.contains("removed 1, kept 1"), "{printed}");
    assert!(!landed.exists());
    assert_eq!(
        read_env_file(&out.join("teardown-landed.env"))["WORKTREE_HOOK"],
        "teardown"
    );
    assert!(
        !out.join("teardown-busy.env").exists(),
        "a kept worktree is not torn down"
    );
}

#[test]
fn a_failing_teardown_stops_remove_unless_forced() {
    let sandbox = Sandbox::new();
    let repo = sandbox.repo("repo");
    sandbox.install(&repo, &["--teardown", "exit 3"]);
    sandbox.commit_all(&repo, "hooks");
    let wt = sandbox.add(&repo, &["stuck"]);

    let err = sandbox.berth_err(&repo, &["remove", "stuck"]);
    assert!(
        err.contains("hook teardown failed with exit code 3"),
        "{err}"
    );
    assert!(err.contains("--force"), "{err}");
    assert!(wt.is_dir());
    assert!(git_worktree_at(&sandbox, &repo, &wt).is_some());
    assert_eq!(sandbox.list_row(&repo, "stuck")["state"], "ok");

    let out = sandbox.berth(&repo, &["remove", "--force", "stuck"]);
    assert!(out.status.success(), "{}", outputs(&out));
    assert!(
        stderr(&out).contains("exit code 3"),
        "the failure is still said"
    );
    assert!(!wt.exists());
    assert!(git_worktree_at(&sandbox, &repo, &wt).is_none());
    assert!(sandbox.list_rows(&repo, false).is_empty());
}

#[test]
fn a_setup_past_the_hook_timeout_is_stopped_with_everything_it_started() {
    let sandbox = Sandbox::new();
    let repo = sandbox.repo("repo");
    let out = out_dir(&sandbox);
    let q = |f: &str| sh_quote(out.join(f).to_str().unwrap());
    // The background sleep and the foreground one (the shell execs into it) record their pids.
    let command = format!(
        "sleep 30 & echo $! > {}; echo $$ > {}; exec sleep 30",
        q("bg.pid"),
        q("fg.pid")
    );
    sandbox.install(&repo, &["--setup", &command]);
    sandbox.commit_all(&repo, "hooks");
    sandbox.git(&repo, &["config", "berth.hookTimeout", "1s"]);

    let started = Instant::now();
    let err = sandbox.berth_err(&repo, &["add", "slow"]);
    let took = started.elapsed();
    assert!(took < Duration::from_secs(8), "took {took:?}");
    assert!(err.contains("hook setup timed out after 1s"), "{err}");
    for file in ["bg.pid", "fg.pid"] {
        let pid: u32 = read_trimmed(&out.join(file)).parse().unwrap();
        let until = Instant::now() + Duration::from_secs(3);
        while !process_gone(pid) && Instant::now() < until {
            std::thread::sleep(Duration::from_millis(20));
        }
        assert!(
            process_gone(pid),
            "the hook's sleep {pid} ({file}) survived"
        );
    }
    assert_eq!(sandbox.list_row(&repo, "slow")["setup"], "failed");
}

/// An origin with committed setup and teardown hooks, and a fresh clone of it.
fn origin_and_clone(sandbox: &Sandbox, out: &Path) -> (PathBuf, PathBuf) {
    let origin = sandbox.repo("origin");
    let mark = format!(
        "echo set-up >> {}",
        sh_quote(out.join("ran").to_str().unwrap())
    );
    sandbox.install(&origin, &["--setup", &mark, "--teardown", "true"]);
    sandbox.commit_all(&origin, "hooks");
    sandbox.git(&sandbox.root, &["clone", "-q", "origin", "clone"]);
    (origin, sandbox.root.join("clone"))
}

#[test]
fn a_fresh_clone_refuses_untrusted_hooks_at_once_with_stdin_closed_and_creates_nothing() {
    let sandbox = Sandbox::new();
    let out = out_dir(&sandbox);
    let (_origin, clone) = origin_and_clone(&sandbox, &out);
    let before = sandbox.state(&clone);

    let started = Instant::now();
    let refused = sandbox
        .berth_command(&clone, &["add", "x"])
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert!(started.elapsed() < Duration::from_secs(5));
    assert_eq!(refused.status.code(), Some(1), "{}", outputs(&refused));
    let err = stderr(&refused);
    assert!(err.contains("git berth trust"), "{err}");
    assert!(err.contains(".worktree-hooks/setup"), "{err}");
    assert!(err.contains(".worktree-hooks/teardown"), "{err}");
    assert!(!out.join("ran").exists(), "the hook never ran");
    assert_eq!(sandbox.state(&clone), before, "nothing was created");
    assert!(!sandbox.has_branch(&clone, "berth/x"));
    assert_eq!(git_worktrees(&sandbox, &clone).len(), 1);

    let shown = sandbox.berth_ok(&clone, &["trust", "--show"]);
    assert!(shown.lines().all(|l| l.contains("untrusted")), "{shown}");
    assert_eq!(sandbox.state(&clone), before, "--show records nothing");
    sandbox.berth_ok(&clone, &["trust"]);
    let shown = sandbox.berth_ok(&clone, &["trust", "--show"]);
    assert_eq!(shown.matches(" trusted ").count(), 2, "{shown}");

    let wt = sandbox.add(&clone, &["x"]);
    assert!(git_worktree_at(&sandbox, &clone, &wt).is_some());
    assert_eq!(read_trimmed(&out.join("ran")), "set-up");
}

#[test]
fn an_untrusted_hook_never_waits_for_an_answer_on_an_open_stdin() {
    let sandbox = Sandbox::new();
    let out = out_dir(&sandbox);
    let (_origin, clone) = origin_and_clone(&sandbox, &out);
    let child = sandbox
        .berth_command(&clone, &["add", "x"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // stdin stays open and silent: a prompt would hang here.
    let refused = wait_at_most(child, Duration::from_secs(10));
    assert_eq!(refused.status.code(), Some(1), "{}", outputs(&refused));
    assert!(stderr(&refused).contains("git berth trust"));
    assert!(!out.join("ran").exists());
}

#[test]
fn a_changed_hook_is_untrusted_until_trusted_again() {
    let sandbox = Sandbox::new();
    let out = out_dir(&sandbox);
    let (origin, clone) = origin_and_clone(&sandbox, &out);
    sandbox.berth_ok(&clone, &["trust"]);
    sandbox.add(&clone, &["first"]);
    assert_eq!(read_trimmed(&out.join("ran")), "set-up");

    let changed = format!(
        "echo changed >> {}",
        sh_quote(out.join("ran").to_str().unwrap())
    );
    sandbox.install(&origin, &["--setup", &changed]);
    sandbox.commit_all(&origin, "change the setup hook");
    sandbox.git(&clone, &["pull", "-q", "--ff-only"]);

    let before = sandbox.state(&clone);
    let err = sandbox.berth_err(&clone, &["add", "second"]);
    assert!(err.contains("git berth trust"), "{err}");
    assert!(err.contains(".worktree-hooks/setup"), "{err}");
    assert!(
        !err.contains("teardown"),
        "the unchanged teardown stays trusted: {err}"
    );
    assert_eq!(sandbox.state(&clone), before);
    let shown = sandbox.berth_ok(&clone, &["trust", "--show"]);
    let setup_line = shown.lines().find(|l| l.starts_with("setup")).unwrap();
    assert!(setup_line.contains("untrusted"), "{shown}");

    sandbox.berth_ok(&clone, &["trust"]);
    sandbox.add(&clone, &["second"]);
    assert_eq!(read_trimmed(&out.join("ran")), "set-up\nchanged");
}

#[test]
fn hooks_installed_but_not_committed_are_named_when_add_runs_the_commits_instead() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let installed = sb.berth(&repo, &["install", "--setup", "touch from-setup"]);
    assert!(installed.status.success());
    assert!(
        String::from_utf8_lossy(&installed.stderr)
            .contains("hint: a new worktree gets the hooks of the commit"),
        "{}",
        String::from_utf8_lossy(&installed.stderr)
    );
    let added = sb.berth(&repo, &["add", "task"]);
    assert!(
        added.status.success(),
        "{}",
        String::from_utf8_lossy(&added.stderr)
    );
    let err = String::from_utf8_lossy(&added.stderr);
    assert!(err.contains("warning: the hooks in"), "{err}");
    assert!(
        err.contains("commit .worktree-hooks, or install them with --local"),
        "{err}"
    );
    // The commit has no setup hook, so none ran.
    let path = String::from_utf8_lossy(&added.stdout).trim().to_owned();
    assert!(!Path::new(&path).join("from-setup").exists());

    // Committed, they run and nothing is said.
    sb.git(&repo, &["add", ".worktree-hooks"]);
    sb.git(&repo, &["commit", "-q", "-m", "hooks"]);
    let again = sb.berth(&repo, &["add", "task2"]);
    assert!(
        again.status.success(),
        "{}",
        String::from_utf8_lossy(&again.stderr)
    );
    assert!(!String::from_utf8_lossy(&again.stderr).contains("warning: the hooks in"));
}

#[test]
fn a_base_from_before_the_committed_hooks_is_named_as_such_not_as_uncommitted() {
    let sb = Sandbox::new();
    let repo = sb.repo("app");
    let old = sb.rev(&repo, "HEAD");
    sb.berth_ok(&repo, &["install", "--setup", "touch from-setup"]);
    sb.commit_all(&repo, "hooks");

    let added = sb.berth(&repo, &["add", "old", "--base", &old]);
    let err = String::from_utf8_lossy(&added.stderr);
    assert!(added.status.success(), "{err}");
    assert!(err.contains("differ from those of the commit"), "{err}");
    assert!(err.contains("hint: its base predates them"), "{err}");
    assert!(!err.contains("commit .worktree-hooks"), "{err}");
}
